/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of link-level flow control: each FabricFlowControl strategy on one cable
 * (credits consumed = returned + in flight; PFC XOFF/XON thresholds), and incasts through a
 * switch (no drop when lossless; credit-based InfiniBand and PFC-protected RoCE-like links).
 */
#include "ns3/boolean.h"
#include "ns3/credit-flow-control.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/link-profile.h"
#include "ns3/no-flow-control.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/pointer.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <string>

using namespace ns3;

namespace
{

/// Two ports on one cable, each with its flow control.
struct CablePair
{
    NodeContainer nodes;      //!< the two nodes
    Ptr<FabricNetDevice> a;   //!< end 0
    Ptr<FabricNetDevice> b;   //!< end 1
    Ptr<FabricChannel> cable; //!< the cable (50 ns)
};

/**
 * \param fa flow control of end a
 * \param fb flow control of end b
 * \return the pair, initialized
 */
CablePair
MakeCablePair(Ptr<FabricFlowControl> fa, Ptr<FabricFlowControl> fb)
{
    CablePair p;
    p.nodes.Create(2);
    p.cable = CreateObject<FabricChannel>();
    p.a = CreateObject<FabricNetDevice>();
    p.b = CreateObject<FabricNetDevice>();
    p.a->SetAttribute("FlowControl", PointerValue(fa));
    p.b->SetAttribute("FlowControl", PointerValue(fb));
    p.nodes.Get(0)->AddDevice(p.a);
    p.nodes.Get(1)->AddDevice(p.b);
    p.a->Attach(p.cable);
    p.b->Attach(p.cable);
    p.a->Initialize();
    p.b->Initialize();
    return p;
}

/**
 * \param perLane credits per lane, bytes
 * \return a CreditFlowControl with 64-byte blocks
 */
Ptr<CreditFlowControl>
MakeCredit(uint64_t perLane)
{
    Ptr<CreditFlowControl> c = CreateObject<CreditFlowControl>();
    c->SetAttribute("CreditsPerLane", UintegerValue(perLane));
    c->SetAttribute("CreditBlockBytes", UintegerValue(64));
    return c;
}

/// Trace sink: count a reception.
void
CountRx(uint32_t* n, Ptr<const Packet>)
{
    ++*n;
}

/// Trace sink: count pause-state changes.
void
CountPause(uint32_t* n, uint8_t, bool)
{
    ++*n;
}

/// Deliveries at an endpoint.
struct Delivery
{
    uint64_t messages{0}; //!< messages delivered
    uint64_t bytes{0};    //!< payload bytes delivered
    Time last;            //!< the last delivery
};

/// Trace sink of MessageDelivered.
void
OnDelivered(Delivery* d, uint32_t, uint32_t, uint32_t, uint64_t bytes)
{
    ++d->messages;
    d->bytes += bytes;
    d->last = Simulator::Now();
}

/// Trace sink of TxBegin: remember the first transmission.
void
OnFirstTx(Time* first, Ptr<const Packet>, uint32_t)
{
    if (first->IsNegative())
    {
        *first = Simulator::Now();
    }
}

/// Nothing (an event that lets time move on).
void
Nothing()
{
}

/// n GPUs on one switch, every link of \p profile.
FabricGraph
Star(const LinkProfile& profile, uint32_t n)
{
    FabricGraph g;
    const uint32_t p = g.AddProfile(profile);
    const uint32_t sw = g.AddSwitch("sw", 1);
    for (uint32_t i = 0; i < n; ++i)
    {
        g.AddLink(g.AddGpu("gpu" + std::to_string(i)), sw, p);
    }
    return g;
}

/// A RoCEv2-like 400G profile: PFC, Ethernet framing, 8 traffic classes, data on class 3.
LinkProfile
RoceLike()
{
    LinkProfile p = *FindLinkProfile("ib-ndr");
    p.technology = "roce";
    p.headerBytes = 62;  // Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4
    p.framingBytes = 20; // preamble 8 + IFG 12
    p.controlPacketBytes = 84;
    p.flowControl = LinkProfile::FlowControl::PFC;
    p.priorities = 8;
    p.dataPriority = 3;
    p.controlPriority = 6;
    p.bufferPerPort = 256 * 1024;
    p.pfcReactionTime = NanoSeconds(500);
    return p;
}

/// What an incast leaves behind.
struct IncastResult
{
    Delivery delivered;        //!< at the receiver
    uint64_t drops{0};         //!< switch drops
    uint64_t losslessDrops{0}; //!< switch drops on lossless ports
    uint64_t pauses{0};        //!< XOFF received by the senders
    double bottleneckBusy{0};  //!< busy share of the receiver's link while the incast lasts
    double senderStallS{0};    //!< senders' stall time, summed
    uint64_t peakBuffer{0};    //!< switch buffer peak, bytes
    uint64_t poolSize{0};      //!< switch buffer, bytes
};

/**
 * \brief senders -> GPU `senders` through one switch, `bytes` each.
 * \param profile every link's profile
 * \param senders senders
 * \param bytes bytes each
 * \return the counters
 */
IncastResult
Incast(const LinkProfile& profile, uint32_t senders, uint64_t bytes)
{
    const FabricGraph g = Star(profile, senders + 1);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    IncastResult r;
    f.transports[senders]->TraceConnectWithoutContext(
        "MessageDelivered",
        MakeBoundCallback(&OnDelivered, &r.delivered));
    // Link `senders` joins the receiver; its switch-side device is the bottleneck.
    Ptr<FabricNetDevice> bottleneck = f.devicesB[senders];
    Time first(-1);
    bottleneck->TraceConnectWithoutContext("TxBegin", MakeBoundCallback(&OnFirstTx, &first));
    for (uint32_t s = 0; s < senders; ++s)
    {
        f.transports[s]->PostSend(senders, 0, bytes);
    }
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    const Ptr<FabricSwitch> sw = f.switches[0];
    r.drops = sw->GetDrops();
    r.losslessDrops = sw->GetLosslessDrops();
    r.peakBuffer = sw->GetPeakBufferUsed();
    r.poolSize = sw->GetBufferSize();
    for (uint32_t s = 0; s < senders; ++s)
    {
        const FabricNetDevice::Stats st = f.devicesA[s]->GetStats();
        r.pauses += st.pausesReceived;
        r.senderStallS += st.stallTime.GetSeconds();
    }
    const Time window = r.delivered.last - first;
    r.bottleneckBusy = window.IsStrictlyPositive()
                           ? bottleneck->GetStats().busyTime.GetSeconds() / window.GetSeconds()
                           : 0;
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief CreditFlowControl on one cable: credits consumed = returned + in flight + held.
 */
class CreditConservationTestCase : public TestCase
{
  public:
    CreditConservationTestCase()
        : TestCase("Credit flow control: credits consumed equal credits returned plus in flight")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<CreditFlowControl> fa = MakeCredit(1024);
        Ptr<CreditFlowControl> fb = MakeCredit(1024);
        CablePair p = MakeCablePair(fa, fb);
        NS_TEST_EXPECT_MSG_EQ(fa->IsLossless(), true, "credit flow control is lossless");
        NS_TEST_EXPECT_MSG_EQ(fa->GetCredits(0), 1024, "advertised");
        // 100 wire bytes take two 64-byte blocks: 128 B of credit. 8 packets use all 1024.
        int64_t consumed = 0;
        for (int i = 0; i < 8; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(fa->CanSend(0, 100, 0), true, "credit left");
            fa->OnTransmit(0, 100);
            consumed += 128;
        }
        NS_TEST_EXPECT_MSG_EQ(fa->CanSend(0, 100, 0), false, "out of credit");
        NS_TEST_EXPECT_MSG_EQ(fa->GetCredits(0), 1024 - consumed, "consumed in blocks");
        // The peer frees 3 packets: their credits ride the cable back (50 ns).
        for (int i = 0; i < 3; ++i)
        {
            fb->OnBufferFreed(0, 100);
        }
        NS_TEST_EXPECT_MSG_EQ(fa->GetReturnsInFlight(), 3u, "three returns in flight");
        NS_TEST_EXPECT_MSG_EQ(fa->GetCredits(0), 0, "none arrived yet");
        // consumed (1024) = arrived (0) + in flight (3 x 128) + held by the peer (5 x 128)
        NS_TEST_EXPECT_MSG_EQ(consumed, 0 + 3 * 128 + 5 * 128, "conservation at 0 ns");
        int64_t creditsAt49 = -1;
        int64_t creditsAt50 = -1;
        Simulator::Schedule(NanoSeconds(49), [&]() { creditsAt49 = fa->GetCredits(0); });
        Simulator::Schedule(NanoSeconds(50), [&]() { creditsAt50 = fa->GetCredits(0); });
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(creditsAt49, 0, "still in flight at 49 ns");
        NS_TEST_EXPECT_MSG_EQ(creditsAt50, 3 * 128, "arrived at 50 ns (the cable's delay)");
        NS_TEST_EXPECT_MSG_EQ(fa->CanSend(0, 100, Simulator::Now().GetTimeStep()),
                              true,
                              "returned credit opens the lane");
        NS_TEST_EXPECT_MSG_EQ(fa->GetReturnsInFlight(), 0u, "counted once looked at");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A port stalled for credit is woken by the first return and every credit comes back.
 */
class CreditStallWakeTestCase : public TestCase
{
  public:
    CreditStallWakeTestCase()
        : TestCase("A port stalled for credit resumes when returns arrive and ends with all")
    {
    }

  private:
    void DoRun() override
    {
        // 4 packets' worth of credit (1024 B each, in 64 B blocks), 50 packets to send.
        Ptr<CreditFlowControl> fa = MakeCredit(4096);
        Ptr<CreditFlowControl> fb = MakeCredit(4096);
        CablePair p = MakeCablePair(fa, fb);
        p.b->SetAttribute("ReturnCreditsOnReceive", BooleanValue(true));
        uint32_t received = 0;
        p.b->TraceConnectWithoutContext("Rx", MakeBoundCallback(&CountRx, &received));
        for (uint32_t i = 0; i < 50; ++i)
        {
            FabricTxItem item;
            item.header.m_payload = 1000;
            item.header.m_psn = i;
            item.wireBytes = 1024;
            p.a->Enqueue(std::move(item));
        }
        Simulator::Schedule(MicroSeconds(10), &Nothing); // past the last return's arrival
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(received, 50u, "every packet crossed");
        NS_TEST_EXPECT_MSG_EQ(p.a->GetCredits(0), 4096, "every credit came back");
        NS_TEST_EXPECT_MSG_EQ(p.a->GetStats().txPackets, 50u, "transmitted");
        // 1024 B at 400 Gb/s = 20.48 ns per packet; a credit is back 20.48 + 50 + 50 ns after
        // its packet started: 4 packets per 120.48 ns round trip, so the port stalled.
        NS_TEST_EXPECT_MSG_GT(p.a->GetStats().stallTime, Time(0), "stalled for credit");
        NS_TEST_EXPECT_MSG_EQ(p.a->IsFlowControlBlocked(), false, "nothing held at the end");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief PfcFlowControl: XOFF above the dynamic threshold, XON one frame below it.
 */
class PfcThresholdTestCase : public TestCase
{
  public:
    PfcThresholdTestCase()
        : TestCase("PFC pauses above the dynamic threshold and resumes one frame below")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<PfcFlowControl> fa = CreateObject<PfcFlowControl>();
        fa->SetAttribute("Headroom", UintegerValue(10000));
        fa->SetAttribute("ResumeOffset", UintegerValue(1000));
        Ptr<PfcFlowControl> fb = CreateObject<PfcFlowControl>();
        CablePair p = MakeCablePair(fa, fb);
        uint32_t pauseChanges = 0;
        p.b->TraceConnectWithoutContext("Pause", MakeBoundCallback(&CountPause, &pauseChanges));
        NS_TEST_EXPECT_MSG_EQ(fa->GetHeadroom(), 10000u, "headroom attribute");
        FabricBufferView pool;
        pool.size = 100000;
        pool.headroom = 10000;
        pool.alpha = 0.125;
        // threshold = 0.125 x (100000 - 10000 - used)
        pool.used = 5000;
        NS_TEST_EXPECT_MSG_EQ(PfcFlowControl::DynamicThreshold(pool), 10625u, "0.125 x 85000");
        NS_TEST_EXPECT_MSG_EQ(fa->OnCharged(0, 5000, pool), false, "below: no XOFF");
        pool.used = 12000;
        NS_TEST_EXPECT_MSG_EQ(fa->OnCharged(0, 12000, pool), true, "12000 > 9750: XOFF");
        NS_TEST_EXPECT_MSG_EQ(fa->OnCharged(0, 13000, pool), false, "one XOFF per pause");
        NS_TEST_EXPECT_MSG_EQ(fa->IsPausingPeer(0), true, "peer paused");
        NS_TEST_EXPECT_MSG_EQ(fa->GetPausesSent(), 1u, "one XOFF sent");
        pool.used = 9200;
        // 9200 + 1000 > 0.125 x 80800 = 10100: not yet.
        NS_TEST_EXPECT_MSG_EQ(fa->TryResume(0, 9200, pool), false, "within a frame: no XON");
        // XON at 1 us, with 9000 B charged: 9000 + 1000 <= 0.125 x 81000 = 10125.
        bool resumed = false;
        Simulator::Schedule(MicroSeconds(1), [&]() {
            FabricBufferView later = pool;
            later.used = 9000;
            resumed = fa->TryResume(0, 9000, later);
        });
        bool pausedAt500 = false;
        Simulator::Schedule(NanoSeconds(500),
                            [&]() { pausedAt500 = fb->IsPaused(0) && !fb->CanSend(0, 100, 0); });
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(pausedAt500, true, "the peer's lane stopped after the frame");
        NS_TEST_EXPECT_MSG_EQ(resumed, true, "XON once a frame below the threshold");
        NS_TEST_EXPECT_MSG_EQ(fb->IsPaused(0), false, "the peer resumed");
        NS_TEST_EXPECT_MSG_EQ(pauseChanges, 2u, "pause and resume traced");
        NS_TEST_EXPECT_MSG_EQ(p.b->GetStats().pausesReceived, 1u, "one XOFF received");
        // Both frames take the same 50 ns + frame time: the lane stayed paused 1 us.
        NS_TEST_EXPECT_MSG_EQ(p.b->GetStats().pausedTime, MicroSeconds(1), "paused 1 us");
        NS_TEST_EXPECT_MSG_EQ(fb->GetHeldPs(0), 1000000, "held time of the lane, ps");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief NoFlowControl never holds a lane; a lossy incast into a small buffer drops.
 */
class NoFlowControlTestCase : public TestCase
{
  public:
    NoFlowControlTestCase()
        : TestCase("Without flow control lanes are always open and an overfull buffer drops")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<NoFlowControl> none = CreateObject<NoFlowControl>();
        none->SetLanes(2);
        NS_TEST_EXPECT_MSG_EQ(none->IsLossless(), false, "lossy");
        NS_TEST_EXPECT_MSG_EQ(none->CanSend(1, 1 << 20, 0), true, "always open");
        NS_TEST_EXPECT_MSG_EQ(none->IsHeld(0, 1 << 20), false, "never held");
        NS_TEST_EXPECT_MSG_EQ(none->GetHeldPs(0), 0, "no held time");

        LinkProfile lossy = RoceLike();
        lossy.flowControl = LinkProfile::FlowControl::NONE;
        lossy.bufferPerPort = 16 * 1024;
        const IncastResult r = Incast(lossy, 8, 256 * 1024);
        NS_TEST_EXPECT_MSG_GT(r.drops, 0u, "an 8-to-1 incast overflows 144 KiB");
        NS_TEST_EXPECT_MSG_EQ(r.losslessDrops, 0u, "no lossless port to violate");
        NS_TEST_EXPECT_MSG_EQ(r.pauses, 0u, "no pause frames");
        NS_TEST_EXPECT_MSG_EQ(r.senderStallS, 0.0, "never stalled");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief InfiniBand (credit) incast: lossless, bottleneck busy, senders credit-blocked.
 */
class CreditIncastTestCase : public TestCase
{
  public:
    CreditIncastTestCase()
        : TestCase("An InfiniBand incast is lossless, keeps the bottleneck busy and stalls "
                   "senders for credit")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile ndr = *FindLinkProfile("ib-ndr");
        NS_TEST_ASSERT_MSG_EQ((ndr.flowControl == LinkProfile::FlowControl::CREDIT),
                              true,
                              "ib-ndr uses credits");
        const uint64_t bytes = 1 << 20;
        const IncastResult r = Incast(ndr, 16, bytes);
        NS_TEST_EXPECT_MSG_EQ(r.delivered.messages, 16u, "every message");
        NS_TEST_EXPECT_MSG_EQ(r.delivered.bytes, 16 * bytes, "every byte");
        NS_TEST_EXPECT_MSG_EQ(r.drops, 0u, "no drop when lossless");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(r.bottleneckBusy, 0.95, "bottleneck busy share");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.bottleneckBusy, 1.0 + 1e-9, "at most always busy");
        // 16 senders share one 400G egress: each could send 16x faster than it drains,
        // so credits must have held them back for most of the incast.
        NS_TEST_EXPECT_MSG_GT(r.senderStallS, 0.0, "senders stalled for credit");
        // Credit flow control never lets the buffer exceed what was advertised.
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.peakBuffer, 16 * ndr.creditsPerLane, "within credits");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief PFC incast: pauses, drops nothing, the buffer (headroom included) never overflows.
 */
class PfcIncastTestCase : public TestCase
{
  public:
    PfcIncastTestCase()
        : TestCase("A PFC incast pauses the senders, drops nothing and never overruns the buffer")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile roce = RoceLike();
        const uint64_t bytes = 1 << 20;
        const IncastResult r = Incast(roce, 16, bytes);
        NS_TEST_EXPECT_MSG_EQ(r.delivered.messages, 16u, "every message");
        NS_TEST_EXPECT_MSG_EQ(r.delivered.bytes, 16 * bytes, "every byte");
        NS_TEST_EXPECT_MSG_EQ(r.drops, 0u, "no drop when lossless");
        NS_TEST_EXPECT_MSG_GT(r.pauses, 0u, "PFC pause frames");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(r.bottleneckBusy, 0.95, "bottleneck busy share");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.peakBuffer, r.poolSize, "headroom never overrun");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The PFC headroom follows the mlx5 formula.
 */
class PfcHeadroomTestCase : public TestCase
{
  public:
    PfcHeadroomTestCase()
        : TestCase("PFC headroom follows the mlx5 formula")
    {
    }

  private:
    void DoRun() override
    {
        LinkProfile p = RoceLike();
        p.pfcReactionTime = Seconds(0);
        p.propagationDelay = NanoSeconds(50); // 10 m at 5 ns/m
        // (301 + 2.16 * 10) * 400 + 2.72 * (4096 + 62 + 20 + 16) = 129040 + 11407.68
        NS_TEST_EXPECT_MSG_EQ(p.PfcHeadroomBytes(), 140448u, "mlx5 headroom");
        // The builder gives each PFC port that headroom, and the switch reserves it.
        const FabricGraph g = Star(p, 2);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Ptr<PfcFlowControl> pfc = DynamicCast<PfcFlowControl>(f.devicesB[0]->GetFlowControl());
        NS_TEST_ASSERT_MSG_EQ((PeekPointer(pfc) != nullptr), true, "a PFC port");
        NS_TEST_EXPECT_MSG_EQ(pfc->GetHeadroom(), 140448u, "the port's headroom");
        NS_TEST_EXPECT_MSG_EQ(f.switches[0]->GetPfcHeadroomTotal(), 2 * 140448u, "reserved");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief After a credit-stalled incast every lane holds exactly its advertised credits.
 */
class CreditsComeBackTestCase : public TestCase
{
  public:
    CreditsComeBackTestCase()
        : TestCase("Every credit comes back after a credit-stalled incast")
    {
    }

  private:
    void DoRun() override
    {
        // Credit returns travel without events (stamped with their arrival, counted when the
        // sender next looks): once everything has drained and every return has arrived, each
        // lane holds exactly the credits it was advertised, and the senders did stall on them.
        const LinkProfile ndr = *FindLinkProfile("ib-ndr");
        const uint32_t senders = 16;
        const FabricGraph g = Star(ndr, senders + 1);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Delivery delivered;
        f.transports[senders]->TraceConnectWithoutContext(
            "MessageDelivered",
            MakeBoundCallback(&OnDelivered, &delivered));
        for (uint32_t s = 0; s < senders; ++s)
        {
            f.transports[s]->PostSend(senders, 0, 1 << 20);
        }
        Simulator::Schedule(Seconds(1), &Nothing); // time moves past the last return's arrival
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(delivered.messages, senders, "every message");
        double stallS = 0;
        for (std::size_t i = 0; i < f.devicesA.size(); ++i)
        {
            stallS += f.devicesA[i]->GetStats().stallTime.GetSeconds();
            for (const auto& dev : {f.devicesA[i], f.devicesB[i]})
            {
                for (uint8_t lane = 0; lane < dev->GetPriorities(); ++lane)
                {
                    NS_TEST_EXPECT_MSG_EQ(dev->GetCredits(lane),
                                          static_cast<int64_t>(ndr.creditsPerLane),
                                          "link " << i << " lane " << +lane);
                }
            }
        }
        NS_TEST_EXPECT_MSG_GT(stallS, 0.0, "senders stalled");
        NS_TEST_EXPECT_MSG_EQ(f.switches[0]->GetBufferUsed(), 0u, "buffer drained");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Link-level flow control: the strategies and incasts.
 */
class AiFabricFlowControlTestSuite : public TestSuite
{
  public:
    AiFabricFlowControlTestSuite()
        : TestSuite("ai-fabric-flow-control", UNIT)
    {
        AddTestCase(new CreditConservationTestCase, TestCase::QUICK);
        AddTestCase(new CreditStallWakeTestCase, TestCase::QUICK);
        AddTestCase(new PfcThresholdTestCase, TestCase::QUICK);
        AddTestCase(new NoFlowControlTestCase, TestCase::QUICK);
        AddTestCase(new CreditIncastTestCase, TestCase::QUICK);
        AddTestCase(new PfcIncastTestCase, TestCase::QUICK);
        AddTestCase(new PfcHeadroomTestCase, TestCase::QUICK);
        AddTestCase(new CreditsComeBackTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static AiFabricFlowControlTestSuite g_aiFabricFlowControlTestSuite;
