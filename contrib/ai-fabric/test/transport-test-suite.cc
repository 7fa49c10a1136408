/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite "ai-fabric-transport": the RDMA transport's loss recovery
 * strategies (NoRecovery, GoBackNRecovery), DCQCN congestion control and
 * pacing, on fabrics built by FabricBuilder.
 */
#include "ns3/dcqcn.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/go-back-n-recovery.h"
#include "ns3/link-profile.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rdma-recovery-ops.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// A RoCEv2-like 400G profile (FACTS.md 2.3 framing). Two classes: control on
/// class 0, which the ports serve first, data on class 1.
LinkProfile
RoceLike(LinkProfile::FlowControl fc)
{
    LinkProfile p = *FindLinkProfile("ib-ndr");
    p.technology = "roce";
    p.headerBytes = 62;  // Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4
    p.framingBytes = 20; // preamble + SFD 8 + IFG 12
    p.controlPacketBytes = 84;
    p.flowControl = fc;
    p.priorities = 2;
    p.dataPriority = 1;
    p.controlPriority = 0;
    p.bufferPerPort = 1024 * 1024;
    p.pfcReactionTime = NanoSeconds(500);
    return p;
}

/// n GPUs on one switch (graph node 0), GPU i on link i, every link of \p profile.
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

/// Set what the fabric builder is to set from the profile and the scenario.
void
Configure(Fabric& f,
          const LinkProfile& profile,
          Ptr<RdmaRecoveryOps> recovery,
          Ptr<RdmaCongestionControl> cc = nullptr)
{
    for (const auto& t : f.transports)
    {
        t->SetAttribute("RecoveryOps", PointerValue(recovery));
        t->SetAttribute("ControlPriority", UintegerValue(profile.controlPriority));
        if (cc)
        {
            t->SetAttribute("CongestionControl", PointerValue(cc));
        }
    }
}

/// \return a go-back-N recovery prototype
Ptr<RdmaRecoveryOps>
GoBackN(uint32_t window = 0, Time rto = MicroSeconds(100))
{
    Ptr<GoBackNRecovery> g = CreateObject<GoBackNRecovery>();
    g->SetAttribute("SendWindow", UintegerValue(window));
    g->SetAttribute("RetransmitTimeout", TimeValue(rto));
    return g;
}

/// Every delivery, per (source, message id).
struct Deliveries
{
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> seen; //!< bytes per delivery
    Time at;                                                             //!< last delivery
};

void
OnDelivered(Deliveries* d, uint32_t src, uint32_t, uint32_t msgId, uint64_t bytes)
{
    d->seen[{src, msgId}].push_back(bytes);
    d->at = Simulator::Now();
}

void
RecordPsn(std::vector<uint32_t>* v, uint32_t, uint16_t, uint32_t psn)
{
    v->push_back(psn);
}

/// A packet as the transport's NIC would receive it.
Ptr<Packet>
MakePacket(const FabricHeader& h)
{
    Ptr<Packet> p = Create<Packet>(h.m_kind == FabricHeader::DATA ? h.m_payload : 0);
    p->AddHeader(h);
    return p;
}

/// Data packet \p psn of a message of \p packets full packets starting at \p firstPsn.
FabricHeader
Data(uint32_t msgId, uint32_t firstPsn, uint32_t packets, uint32_t psn)
{
    FabricHeader h;
    h.m_src = 0;
    h.m_dst = 1;
    h.m_qp = 0;
    h.m_priority = 1;
    h.m_kind = FabricHeader::DATA;
    h.m_msgId = msgId;
    h.m_psn = psn;
    h.m_payload = 4096;
    h.m_msgBytes = 4096ull * packets;
    h.m_flags = (psn == firstPsn ? FabricHeader::FLAG_FIRST : 0)
                | (psn + 1 == firstPsn + packets ? FabricHeader::FLAG_LAST : 0);
    return h;
}

/// Transmission start times of data packets on a port.
void
RecordDataTx(std::vector<std::pair<Time, uint32_t>>* v, Ptr<const Packet> p, uint32_t /* wire */)
{
    FabricHeader h;
    p->PeekHeader(h);
    if (h.m_kind == FabricHeader::DATA)
    {
        v->emplace_back(Simulator::Now(), h.m_dst);
    }
}

/// PSNs of the data packets a port starts to transmit.
void
RecordDataPsn(std::vector<uint32_t>* v, Ptr<const Packet> p, uint32_t /* wire */)
{
    FabricHeader h;
    p->PeekHeader(h);
    if (h.m_kind == FabricHeader::DATA)
    {
        v->push_back(h.m_psn);
    }
}

/// A control packet (CNP, ACK, NACK) from \p from for queue pair \p qp, delivered to
/// \p to's NIC now.
void
InjectControl(Ptr<RdmaTransport> to, uint8_t kind, uint32_t from, uint16_t qp, uint32_t psn)
{
    FabricHeader h;
    h.m_src = from;
    h.m_dst = to->GetEndpoint();
    h.m_qp = qp;
    h.m_kind = kind;
    h.m_psn = psn;
    to->GetNic()->Receive(MakePacket(h), 84, 0);
}

/// A receiver that swallows everything (no ACKs come back).
void
Swallow(FabricNetDevice* /* nic */, FabricArrival& /* arrival */)
{
}

/// GPU 0 -400G- switch -100G- GPU 1, lossy, with a small buffer: the switch drops.
struct SlowLinkRun
{
    Deliveries d;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> posted;
    uint64_t drops{0};
    uint64_t retransmitted{0};
    uint64_t timeouts{0};
    uint64_t nacks{0};
    uint64_t oooDrops{0};
    uint64_t dupDrops{0};
    uint64_t inProgress{0};
    uint64_t bytesReceived{0};
    Time end;
};

SlowLinkRun
RunSlowLink(Time rto, uint32_t window)
{
    LinkProfile fast = RoceLike(LinkProfile::FlowControl::NONE);
    fast.bufferPerPort = 16 * 1024;
    LinkProfile slow = fast;
    slow.rate = DataRate("100Gbps");
    FabricGraph g;
    const uint32_t pf = g.AddProfile(fast);
    const uint32_t ps = g.AddProfile(slow);
    const uint32_t sw = g.AddSwitch("sw", 1);
    g.AddLink(g.AddGpu("a"), sw, pf);
    g.AddLink(g.AddGpu("b"), sw, ps);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Configure(f, fast, GoBackN(window, rto));
    SlowLinkRun r;
    f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                MakeBoundCallback(&OnDelivered, &r.d));
    for (uint64_t bytes : {200000ull, 0ull, 5000ull, 300000ull})
    {
        r.posted[{0, f.transports[0]->PostSend(1, 0, bytes)}] = bytes;
    }
    Simulator::Run();
    r.end = Simulator::Now();
    r.drops = f.switches[sw]->GetDrops();
    r.retransmitted = f.transports[0]->GetRetransmittedPackets();
    r.timeouts = f.transports[0]->GetTimeouts();
    r.nacks = f.transports[1]->GetNacksSent();
    r.oooDrops = f.transports[1]->GetOutOfOrderDrops();
    r.dupDrops = f.transports[1]->GetDuplicateDrops();
    r.inProgress = f.transports[1]->GetMessagesInProgress();
    r.bytesReceived = f.transports[1]->GetBytesReceived();
    Simulator::Destroy();
    return r;
}

/// \return "a b c" for a list of PSNs
std::string
Show(const std::vector<uint32_t>& v)
{
    std::ostringstream os;
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        os << (i > 0 ? " " : "") << v[i];
    }
    return os.str();
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief A transport test: checks that every posted message arrived exactly once.
 */
class TransportTestCase : public TestCase
{
  protected:
    /// \param name the test's name
    explicit TransportTestCase(const std::string& name)
        : TestCase(name)
    {
    }

    /**
     * \brief Check that every posted message arrived exactly once with its size.
     * \param d the deliveries
     * \param posted bytes per (source, message id)
     */
    void ExpectExactlyOnce(const Deliveries& d,
                           const std::map<std::pair<uint32_t, uint32_t>, uint64_t>& posted)
    {
        NS_TEST_EXPECT_MSG_EQ(d.seen.size(), posted.size(), "messages delivered");
        for (const auto& [key, bytes] : posted)
        {
            const auto it = d.seen.find(key);
            NS_TEST_ASSERT_MSG_EQ((it != d.seen.end()),
                                  true,
                                  "message " << key.first << "/" << key.second << " lost");
            NS_TEST_ASSERT_MSG_EQ(it->second.size(),
                                  1u,
                                  "message " << key.first << "/" << key.second);
            NS_TEST_EXPECT_MSG_EQ(it->second[0], bytes, "bytes of a message");
        }
    }
};

// ---------------------------------------------------------------------------------------------
// DCQCN arithmetic, on a controller alone.

/**
 * \ingroup ai-fabric-tests
 * \brief DCQCN's rate arithmetic follows the paper-style defaults.
 */
class DcqcnArithmeticTestCase : public TestCase
{
  public:
    DcqcnArithmeticTestCase()
        : TestCase("DCQCN rate arithmetic follows the paper-style defaults")
    {
    }

  private:
    void DoRun() override
    {
        // Line 400 Gb/s: R_AI = 400/20 = 20 Gb/s, R_HAI = 400/10 = 40 Gb/s, g = 1/256, F = 5,
        // B = 10 MB, T = alpha period = 55 us (FACTS.md 2.3).
        const double g = 1.0 / 256;
        Ptr<Dcqcn> d = CreateObject<Dcqcn>();
        std::vector<uint64_t> changes;
        d->Start(DataRate("400Gbps"),
                 MakeBoundCallback(
                     +[](std::vector<uint64_t>* v, DataRate r) { v->push_back(r.GetBitRate()); },
                     &changes));
        NS_TEST_EXPECT_MSG_EQ(d->GetRate().GetBitRate(), 400e9, "line rate");
        NS_TEST_EXPECT_MSG_EQ(d->AreTimersRunning(), false, "line rate: no events");
        NS_TEST_EXPECT_MSG_EQ(d->GetNotificationInterval(), MicroSeconds(50), "CNP interval");

        // CNP: RT <- RC = 400; RC <- 400 (1 - 1/2) = 200; alpha <- (1 - g) 1 + g = 1.
        d->NotifyCongestion();
        NS_TEST_EXPECT_MSG_EQ(d->GetRate().GetBitRate(), 200e9, "first CNP");
        NS_TEST_EXPECT_MSG_EQ(d->GetTargetRate().GetBitRate(), 400e9, "target");
        NS_TEST_EXPECT_MSG_EQ_TOL(d->GetAlpha(), 1.0, 1e-15, "alpha");
        NS_TEST_EXPECT_MSG_EQ(d->AreTimersRunning(), true, "timers run below line rate");
        // Second CNP at once: RT <- 200; RC <- 100.
        d->NotifyCongestion();
        NS_TEST_EXPECT_MSG_EQ(d->GetRate().GetBitRate(), 100e9, "second CNP");
        NS_TEST_EXPECT_MSG_EQ(d->GetTargetRate().GetBitRate(), 200e9, "target");

        // Byte counter, 5 events (BC = 1..5, T = 0): fast recovery RC <- (RT + RC) / 2.
        const double fast[] = {150e9, 175e9, 187.5e9, 193.75e9, 196.875e9};
        for (double expect : fast)
        {
            d->NotifySent(10000000);
            NS_TEST_EXPECT_MSG_EQ(d->GetRate().GetBitRate(), expect, "fast recovery");
            NS_TEST_EXPECT_MSG_EQ(d->GetTargetRate().GetBitRate(), 200e9, "target");
        }
        // BC = 6 > F, T = 0: additive, RT = 220, RC = (220 + 196.875) / 2 = 208.4375.
        d->NotifySent(10000000);
        NS_TEST_EXPECT_MSG_EQ(d->GetByteCount(), 6u, "byte counter");
        NS_TEST_EXPECT_MSG_EQ(d->GetTargetRate().GetBitRate(), 220e9, "additive target");
        NS_TEST_EXPECT_MSG_EQ(d->GetRate().GetBitRate(), 208.4375e9, "additive rate");

        // Timer events at 55, 110, ..., 330 us (T = 1..6, BC = 6): five additive steps
        // (RT 240 .. 320), then T = 6: hyper, RT = 320 + (6 - 5) 40 = 360.
        Simulator::Stop(MicroSeconds(331));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(d->GetTimerCount(), 6u, "timer events");
        double rt = 220e9;
        double rc = 208.4375e9;
        for (int t = 1; t <= 5; ++t)
        {
            rt += 20e9;
            rc = (rt + rc) / 2;
        }
        rt += 40e9;
        rc = std::ceil((rt + rc) / 2); // 330131835937.5, rounded up
        NS_TEST_EXPECT_MSG_EQ(d->GetTargetRate().GetBitRate(), 360e9, "hyper target");
        NS_TEST_EXPECT_MSG_EQ(d->GetRate().GetBitRate(), static_cast<uint64_t>(rc), "hyper rate");
        // Six alpha periods without a CNP.
        const double alpha6 = std::pow(1 - g, 6);
        NS_TEST_EXPECT_MSG_EQ_TOL(d->GetAlpha(), alpha6, 1e-12, "alpha decay");

        // CNP at 331 us: RT <- RC; RC <- RC (1 - alpha/2); alpha <- (1 - g) alpha + g.
        d->NotifyCongestion();
        NS_TEST_EXPECT_MSG_EQ(d->GetTargetRate().GetBitRate(),
                              static_cast<uint64_t>(rc),
                              "target after CNP");
        NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(d->GetRate().GetBitRate()),
                                  rc * (1 - alpha6 / 2),
                                  1.0,
                                  "rate after CNP");
        NS_TEST_EXPECT_MSG_EQ_TOL(d->GetAlpha(), (1 - g) * alpha6 + g, 1e-12, "alpha after CNP");
        NS_TEST_EXPECT_MSG_EQ(d->GetTimerCount(), 0u, "timer count reset");
        NS_TEST_EXPECT_MSG_EQ(d->GetByteCount(), 0u, "byte count reset");

        // Left alone, the rate climbs back to exactly the line rate and the timers stop
        // (cancelled: their events stay in the list as no-ops, so step in 1 us to see when).
        for (int us = 0; us < 1000000 && d->AreTimersRunning(); ++us)
        {
            Simulator::Stop(MicroSeconds(1));
            Simulator::Run();
        }
        NS_TEST_EXPECT_MSG_EQ(d->GetRate().GetBitRate(), 400e9, "back at line rate");
        NS_TEST_EXPECT_MSG_EQ(d->AreTimersRunning(), false, "timers stopped");
        const Time stopped = Simulator::Now();
        const double alphaAtStop = d->GetAlpha();

        // Ten alpha periods later (the alpha timer last ran with the last increase), a CNP
        // sees alpha decayed ten times, as if the timer had kept running.
        Simulator::Schedule(MicroSeconds(10 * 55 + 1), &Dcqcn::NotifyCongestion, d);
        Simulator::Stop(MicroSeconds(10 * 55 + 2));
        Simulator::Run();
        const double before = alphaAtStop * std::pow(1 - g, 10);
        NS_TEST_EXPECT_MSG_EQ_TOL(d->GetAlpha(), (1 - g) * before + g, 1e-12, "lazy alpha");
        NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(d->GetRate().GetBitRate()),
                                  400e9 * (1 - before / 2),
                                  1.0,
                                  "rate after a late CNP");
        NS_TEST_EXPECT_MSG_GT(Simulator::Now(), stopped, "time went on");

        // Every rate change was reported, and rates never left [min rate, line rate].
        NS_TEST_EXPECT_MSG_GT(changes.size(), 10u, "rate changes reported");
        for (uint64_t r : changes)
        {
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r, 100e6, "above the minimum rate");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r, 400e9, "at most the line rate");
        }
        d->Dispose();
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief DCQCN never goes below its minimum rate, and Fork keeps the attributes.
 */
class DcqcnMinimumRateTestCase : public TestCase
{
  public:
    DcqcnMinimumRateTestCase()
        : TestCase("DCQCN never goes below its minimum rate and Fork keeps attributes")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<Dcqcn> proto = CreateObject<Dcqcn>();
        proto->SetAttribute("MinRate", DataRateValue(DataRate("1Gbps")));
        Ptr<RdmaCongestionControl> d = proto->Fork();
        d->Start(DataRate("400Gbps"), RdmaCongestionControl::RateCallback());
        for (int i = 0; i < 40; ++i)
        {
            d->NotifyCongestion(); // alpha stays 1: every CNP halves
        }
        NS_TEST_EXPECT_MSG_EQ(d->GetRate().GetBitRate(), 1e9, "minimum rate");
        NS_TEST_EXPECT_MSG_EQ(d->IsLimited(), true, "limited");
        // The bookkeeping: 400 -> 200 -> ... -> 1.5625 Gb/s is 8 halvings, the 9th cut stops
        // at the 1 Gb/s floor, and the other 31 CNPs find the rate there and cut nothing.
        NS_TEST_EXPECT_MSG_EQ(d->GetNotifications(), 40u, "every CNP counted");
        NS_TEST_EXPECT_MSG_EQ(d->GetRateCuts(), 9u, "cuts: changes down only");
        NS_TEST_EXPECT_MSG_EQ(d->GetRateIncreases(), 0u, "no increase");
        NS_TEST_EXPECT_MSG_EQ(d->GetMinRate().GetBitRate(), 1e9, "lowest rate");
        d->Dispose();
        Simulator::Destroy();
    }
};

// ---------------------------------------------------------------------------------------------
// Pacing.

/**
 * \ingroup ai-fabric-tests
 * \brief A paced queue pair sends at its rate and leaves the rest of the port to others.
 */
class PacingTestCase : public TestCase
{
  public:
    PacingTestCase()
        : TestCase("A paced queue pair sends at its rate and leaves the rest to others")
    {
    }

  private:
    void DoRun() override
    {
        // Exact to the picosecond at picosecond resolution (our runners); an ns-3 tree's
        // test.py runs at nanoseconds, which cuts both ends of every gap (up to 1 ns each).
        const int64_t tol = Time::GetResolution() == Time::PS ? 0 : 2000;
        const LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
        const FabricGraph g = Star(p, 3);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Configure(f, p, CreateObject<NoRecovery>(), CreateObject<Dcqcn>());
        Ptr<RdmaTransport> t = f.transports[0];
        std::vector<std::pair<Time, uint32_t>> tx;
        t->GetNic()->TraceConnectWithoutContext("TxBegin", MakeBoundCallback(&RecordDataTx, &tx));

        // Queue pair to GPU 1: a CNP halves it to 200 Gb/s (alpha = 1) right after its first
        // packet has left at line rate.
        t->PostSend(1, 0, 64ull << 20);
        InjectControl(t, FabricHeader::CNP, 1, 0, 0);
        NS_TEST_EXPECT_MSG_EQ(t->GetQueuePairRate(1, 0).GetBitRate(), 200e9, "halved");
        NS_TEST_EXPECT_MSG_EQ(t->GetCnpsReceived(), 1u, "one CNP");
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();

        // Alone, it sends a full packet (4096 + 82 = 4178 wire bytes) every 4178 * 8 / 200
        // Gb/s = 167.12 ns, to the picosecond, and the NIC idles in between. (Packet 0 left at
        // line rate; packet 1 at once after it, before the CNP's rate applied; packet 2 was
        // due 167.12 ns after the last due time, 0, but waited for packet 1 until 167.44 ns,
        // and packet 3 catches up those 0.32 ns.)
        NS_TEST_ASSERT_MSG_GT(tx.size(), 100u, "packets sent");
        NS_TEST_EXPECT_MSG_EQ_TOL((tx[3].first - tx[2].first).GetPicoSeconds(),
                                  167120 - 320,
                                  tol,
                                  "catch-up gap");
        for (std::size_t i = 4; i < tx.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL((tx[i].first - tx[i - 1].first).GetPicoSeconds(),
                                      167120,
                                      tol,
                                      "gap " << i);
        }
        const double busy = t->GetNic()->GetStats().busyTime.GetSeconds() / 20e-6;
        NS_TEST_EXPECT_MSG_EQ_TOL(busy, 0.5, 0.01, "NIC half busy");

        // A second queue pair at line rate (to GPU 2) takes the gaps: the NIC is busy all the
        // time, and the paced queue pair keeps its 167.12 ns spacing.
        tx.clear();
        const Time t0 = Simulator::Now();
        const Time busy0 = t->GetNic()->GetStats().busyTime;
        t->PostSend(2, 0, 64ull << 20);
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
        const double busy2 = (t->GetNic()->GetStats().busyTime - busy0).GetSeconds()
                             / (Simulator::Now() - t0).GetSeconds();
        NS_TEST_EXPECT_MSG_GT(busy2, 0.99, "NIC busy");
        std::vector<Time> paced;
        uint64_t others = 0;
        for (const auto& [at, dst] : tx)
        {
            if (dst == 1)
            {
                paced.push_back(at);
            }
            else
            {
                ++others;
            }
        }
        NS_TEST_ASSERT_MSG_GT(paced.size(), 50u, "paced packets");
        for (std::size_t i = 1; i < paced.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_GT_OR_EQ((paced[i] - paced[i - 1]).GetPicoSeconds(),
                                        167120 - tol,
                                        "paced gap " << i);
            NS_TEST_EXPECT_MSG_LT_OR_EQ((paced[i] - paced[i - 1]).GetPicoSeconds(),
                                        167120 + 83560 + tol,
                                        "paced gap " << i);
        }
        // 200 Gb/s each: one packet of each in turn.
        NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(others) / paced.size(), 1.0, 0.05, "shares");
        Simulator::Destroy();
    }
};

// ---------------------------------------------------------------------------------------------
// Recovery strategies.

/**
 * \ingroup ai-fabric-tests
 * \brief The recovery is a strategy: NoRecovery by default, a fork of the prototype per
 * transport, GoBackNRecovery's attributes carried over; the names map to the types.
 */
class RecoverySelectionTestCase : public TestCase
{
  public:
    RecoverySelectionTestCase()
        : TestCase("RecoveryOps selects the recovery, forked per transport")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RdmaTransport> a = CreateObject<RdmaTransport>();
        NS_TEST_ASSERT_MSG_EQ((a->GetRecoveryOps() != nullptr), true, "a default recovery");
        NS_TEST_EXPECT_MSG_EQ(a->GetRecoveryOps()->GetInstanceTypeId(),
                              NoRecovery::GetTypeId(),
                              "NoRecovery by default");

        Ptr<RdmaRecoveryOps> proto = GoBackN(32, MicroSeconds(20));
        proto->SetAttribute("AckInterval", UintegerValue(4));
        Ptr<RdmaTransport> b = CreateObject<RdmaTransport>();
        a->SetAttribute("RecoveryOps", PointerValue(proto));
        b->SetAttribute("RecoveryOps", PointerValue(proto));
        PointerValue got;
        a->GetAttribute("RecoveryOps", got);
        Ptr<RdmaRecoveryOps> ra = got.Get<RdmaRecoveryOps>();
        NS_TEST_EXPECT_MSG_EQ(ra->GetInstanceTypeId(), GoBackNRecovery::GetTypeId(), "type");
        NS_TEST_EXPECT_MSG_NE(ra, proto, "a fork, not the prototype");
        NS_TEST_EXPECT_MSG_NE(ra, b->GetRecoveryOps(), "one fork per transport");
        UintegerValue u;
        ra->GetAttribute("AckInterval", u);
        NS_TEST_EXPECT_MSG_EQ(u.Get(), 4u, "AckInterval carried over");
        ra->GetAttribute("SendWindow", u);
        NS_TEST_EXPECT_MSG_EQ(u.Get(), 32u, "SendWindow carried over");
        TimeValue t;
        ra->GetAttribute("RetransmitTimeout", t);
        NS_TEST_EXPECT_MSG_EQ(t.Get(), MicroSeconds(20), "RetransmitTimeout carried over");

        const std::vector<std::string> names = RdmaRecoveryNames();
        NS_TEST_ASSERT_MSG_EQ(names.size(), 2u, "two recoveries");
        NS_TEST_EXPECT_MSG_EQ(names[0], "none", "first name");
        NS_TEST_EXPECT_MSG_EQ(names[1], "go-back-n", "second name");
        NS_TEST_EXPECT_MSG_EQ(RdmaRecoveryTypeId("none"), NoRecovery::GetTypeId(), "none");
        NS_TEST_EXPECT_MSG_EQ(RdmaRecoveryTypeId("go-back-n"),
                              GoBackNRecovery::GetTypeId(),
                              "go-back-n");
        a->Dispose();
        b->Dispose();
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Go-back-N's receiver drops out-of-order and duplicate packets, NACKs once per
 * gap and acknowledges cumulatively.
 */
class GoBackNReceiverTestCase : public TransportTestCase
{
  public:
    GoBackNReceiverTestCase()
        : TransportTestCase("Go-back-N receiver drops out-of-order and duplicate packets")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile p = RoceLike(LinkProfile::FlowControl::NONE);
        const FabricGraph g = Star(p, 2);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Configure(f, p, GoBackN());
        Ptr<RdmaTransport> rx = f.transports[1];
        Deliveries d;
        rx->TraceConnectWithoutContext("MessageDelivered", MakeBoundCallback(&OnDelivered, &d));
        std::vector<uint32_t> acks;
        std::vector<uint32_t> nacks;
        rx->TraceConnectWithoutContext("AckSent", MakeBoundCallback(&RecordPsn, &acks));
        rx->TraceConnectWithoutContext("NackSent", MakeBoundCallback(&RecordPsn, &nacks));
        Ptr<FabricNetDevice> nic = rx->GetNic();
        auto deliver = [&nic](const FabricHeader& h) {
            nic->Receive(MakePacket(h), 4178, 1);
        };

        // Message 0: PSN 0-3; message 1: PSN 4; message 2: PSN 5-7.
        deliver(Data(0, 0, 4, 0)); // in order, no ACK yet (AckInterval 16)
        NS_TEST_EXPECT_MSG_EQ(acks.size(), 0u, "no ACK yet");
        deliver(Data(0, 0, 4, 2)); // PSN 1 lost: drop, NACK(1)
        deliver(Data(0, 0, 4, 3)); // still ahead: drop, no second NACK
        NS_TEST_EXPECT_MSG_EQ(Show(nacks), "1", "one NACK");
        deliver(Data(0, 0, 4, 1)); // the sender went back: 1, 2, 3 in order
        deliver(Data(0, 0, 4, 2));
        NS_TEST_EXPECT_MSG_EQ(d.seen.size(), 0u, "nothing delivered yet");
        deliver(Data(0, 0, 4, 3)); // last packet of message 0: delivered, ACK(4)
        NS_TEST_EXPECT_MSG_EQ(d.seen.size(), 1u, "message 0 delivered");
        NS_TEST_EXPECT_MSG_EQ(Show(acks), "4", "ACK(4)");
        deliver(Data(0, 0, 4, 2)); // duplicates: dropped; the first is answered by ACK(4)
        deliver(Data(0, 0, 4, 3));
        NS_TEST_EXPECT_MSG_EQ(Show(acks), "4 4", "duplicate ACK");
        NS_TEST_EXPECT_MSG_EQ(d.seen.size(), 1u, "duplicates not delivered");
        deliver(Data(1, 4, 1, 4)); // single-packet message 1: ACK(5)
        NS_TEST_EXPECT_MSG_EQ(Show(acks), "4 4 5", "ACK(5)");

        deliver(Data(2, 5, 3, 6)); // PSN 5 lost: NACK(5)
        deliver(Data(2, 5, 3, 7));
        deliver(Data(2, 5, 3, 6)); // the sender went back and PSN 5 was lost again: no NACK
        NS_TEST_EXPECT_MSG_EQ(Show(nacks), "1 5", "NACK(5) once");
        deliver(Data(2, 5, 3, 5));
        deliver(Data(2, 5, 3, 6));
        deliver(Data(2, 5, 3, 7));
        NS_TEST_EXPECT_MSG_EQ(Show(acks), "4 4 5 8", "ACK(8)");

        ExpectExactlyOnce(d, {{{0, 0}, 4 * 4096}, {{0, 1}, 4096}, {{0, 2}, 3 * 4096}});
        NS_TEST_EXPECT_MSG_EQ(rx->GetOutOfOrderDrops(), 5u, "out-of-order drops");
        NS_TEST_EXPECT_MSG_EQ(rx->GetDuplicateDrops(), 2u, "duplicate drops");
        NS_TEST_EXPECT_MSG_EQ(rx->GetBytesReceived(), 8u * 4096, "bytes accepted");
        NS_TEST_EXPECT_MSG_EQ(rx->GetMessagesInProgress(), 0u, "nothing in progress");
        Simulator::Run(); // the ACKs and NACKs reach GPU 0, which has no such queue pair
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetAcksReceived(), 4u, "ACKs arrived");
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetNacksReceived(), 2u, "NACKs arrived");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Go-back-N with a reorder window holds packets that arrive ahead (as spraying and
 * adaptive routing deliver them) and accepts them in order once the gap fills: no drop, no
 * NACK; a packet beyond the window is still a loss.
 */
class GoBackNReorderWindowTestCase : public TransportTestCase
{
  public:
    GoBackNReorderWindowTestCase()
        : TransportTestCase("Go-back-N with a reorder window is not triggered by reordering")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile p = RoceLike(LinkProfile::FlowControl::NONE);
        const FabricGraph g = Star(p, 2);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Ptr<RdmaRecoveryOps> recovery = GoBackN();
        recovery->SetAttribute("ReorderWindow", UintegerValue(4));
        Configure(f, p, recovery);
        Ptr<RdmaTransport> rx = f.transports[1];
        Deliveries d;
        rx->TraceConnectWithoutContext("MessageDelivered", MakeBoundCallback(&OnDelivered, &d));
        std::vector<uint32_t> acks;
        std::vector<uint32_t> nacks;
        rx->TraceConnectWithoutContext("AckSent", MakeBoundCallback(&RecordPsn, &acks));
        rx->TraceConnectWithoutContext("NackSent", MakeBoundCallback(&RecordPsn, &nacks));
        Ptr<FabricNetDevice> nic = rx->GetNic();
        auto deliver = [&nic](const FabricHeader& h) {
            nic->Receive(MakePacket(h), 4178, 1);
        };

        // Message 0: PSN 0-3, arriving 2, 0, 3, 1 (all within the window of 4).
        deliver(Data(0, 0, 4, 2));
        deliver(Data(0, 0, 4, 0));
        deliver(Data(0, 0, 4, 3));
        NS_TEST_EXPECT_MSG_EQ(d.seen.size(), 0u, "held until the gap fills");
        deliver(Data(0, 0, 4, 1)); // fills the gap: 1, 2, 3 accepted, message 0 delivered
        NS_TEST_EXPECT_MSG_EQ(d.seen.size(), 1u, "message 0 delivered");
        NS_TEST_EXPECT_MSG_EQ(Show(acks), "4", "ACK(4) on its last packet");
        NS_TEST_EXPECT_MSG_EQ(nacks.size(), 0u, "no NACK for reordering");
        deliver(Data(0, 0, 4, 3)); // a duplicate of an accepted packet
        // Message 1: PSN 4-11. PSN 4 is lost; 5 and 6 are held; 8 is 4 ahead: a loss.
        deliver(Data(1, 4, 8, 5));
        deliver(Data(1, 4, 8, 6));
        NS_TEST_EXPECT_MSG_EQ(nacks.size(), 0u, "within the window");
        deliver(Data(1, 4, 8, 8));
        NS_TEST_EXPECT_MSG_EQ(Show(nacks), "4", "beyond the window: NACK(4)");
        // The sender goes back to 4: 4-11 in order; 5 and 6 are accepted from the window.
        for (uint32_t psn = 4; psn < 12; ++psn)
        {
            deliver(Data(1, 4, 8, psn));
        }
        ExpectExactlyOnce(d, {{{0, 0}, 4 * 4096}, {{0, 1}, 8 * 4096}});
        NS_TEST_EXPECT_MSG_EQ(rx->GetOutOfOrderDrops(), 1u, "only the packet beyond the window");
        NS_TEST_EXPECT_MSG_EQ(rx->GetBytesReceived(), 12u * 4096, "bytes accepted once");
        NS_TEST_EXPECT_MSG_EQ(rx->GetMessagesInProgress(), 0u, "nothing in progress");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A gap before held packets that stays open ReorderTimeout is a loss: the receiver
 * NACKs the missing PSN (a lost packet at a message's end has no later packet to reveal it);
 * a gap that fills in time costs nothing.
 */
class GoBackNReorderTimeoutTestCase : public TransportTestCase
{
  public:
    GoBackNReorderTimeoutTestCase()
        : TransportTestCase("Go-back-N with a reorder window NACKs a gap that stays open")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile p = RoceLike(LinkProfile::FlowControl::NONE);
        const FabricGraph g = Star(p, 2);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Ptr<RdmaRecoveryOps> recovery = GoBackN();
        recovery->SetAttribute("ReorderWindow", UintegerValue(8));
        recovery->SetAttribute("ReorderTimeout", TimeValue(MicroSeconds(8)));
        Configure(f, p, recovery);
        Ptr<RdmaTransport> rx = f.transports[1];
        Deliveries d;
        rx->TraceConnectWithoutContext("MessageDelivered", MakeBoundCallback(&OnDelivered, &d));
        std::vector<uint32_t> nacks;
        rx->TraceConnectWithoutContext("NackSent", MakeBoundCallback(&RecordPsn, &nacks));
        Ptr<FabricNetDevice> nic = rx->GetNic();
        auto deliver = [&nic](const FabricHeader& h) {
            nic->Receive(MakePacket(h), 4178, 1);
        };

        // Message 0: PSN 0-2; PSN 0 is lost, 1 and 2 are held; nothing follows.
        deliver(Data(0, 0, 3, 2));
        deliver(Data(0, 0, 3, 1));
        Simulator::Stop(MicroSeconds(7));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(nacks.size(), 0u, "within the timeout: still reordering");
        Simulator::Stop(MicroSeconds(2));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(Show(nacks), "0", "the gap stayed open: NACK(0)");
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(Show(nacks), "0", "one NACK per gap");
        // The resend of 0 fills the gap: 0, 1, 2 accepted, the message delivered.
        deliver(Data(0, 0, 3, 0));
        ExpectExactlyOnce(d, {{{0, 0}, 3 * 4096}});
        // Message 1: PSN 3-5 arrive 4, 3, 5 within the timeout: no NACK, no timer left behind.
        deliver(Data(1, 3, 3, 4));
        Simulator::Stop(MicroSeconds(3));
        Simulator::Run();
        deliver(Data(1, 3, 3, 3));
        deliver(Data(1, 3, 3, 5));
        Simulator::Stop(MicroSeconds(30));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(Show(nacks), "0", "a gap that filled in time is not a loss");
        ExpectExactlyOnce(d, {{{0, 0}, 3 * 4096}, {{0, 1}, 3 * 4096}});
        NS_TEST_EXPECT_MSG_EQ(rx->GetOutOfOrderDrops(), 0u, "nothing dropped");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Go-back-N on a lossless path only coalesces ACKs (no timer outlives the transfer).
 */
class GoBackNLosslessTestCase : public TransportTestCase
{
  public:
    GoBackNLosslessTestCase()
        : TransportTestCase("Go-back-N on a lossless path only coalesces ACKs")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
        const FabricGraph g = Star(p, 2);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Configure(f, p, GoBackN());
        Deliveries d;
        f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                    MakeBoundCallback(&OnDelivered, &d));
        // 40 packets then 1: ACKs after 16, 32 and 40 (last of message 0), and 41.
        f.transports[0]->PostSend(1, 0, 40 * 4096);
        f.transports[0]->PostSend(1, 0, 100);
        Simulator::Run(); // returns: no timer outlives the transfer
        ExpectExactlyOnce(d, {{{0, 0}, 40 * 4096}, {{0, 1}, 100}});
        NS_TEST_EXPECT_MSG_EQ(f.transports[1]->GetAcksSent(), 4u, "ACKs sent");
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetAcksReceived(), 4u, "ACKs received");
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetDataPacketsSent(), 41u, "data packets");
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetRetransmittedPackets(), 0u, "no resend");
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetTimeouts(), 0u, "no timeout");
        NS_TEST_EXPECT_MSG_EQ(f.transports[1]->GetNacksSent(), 0u, "no NACK");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Go-back-N's send window caps the unacknowledged packets of a queue pair.
 */
class GoBackNSendWindowTestCase : public TransportTestCase
{
  public:
    GoBackNSendWindowTestCase()
        : TransportTestCase("Go-back-N send window caps unacknowledged packets")
    {
    }

  private:
    /// What the sender's port and ACKs show.
    struct Watch
    {
        uint32_t acked{0}; //!< highest ACK
        uint32_t worst{0}; //!< most packets beyond it
    };

    void DoRun() override
    {
        // 5 us cables: a round trip of 20 us holds far more than 32 packets at 400 Gb/s.
        LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
        p.propagationDelay = MicroSeconds(5);
        const FabricGraph g = Star(p, 2);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Configure(f, p, GoBackN(32));
        Watch w;
        f.transports[0]->GetNic()->TraceConnectWithoutContext(
            "TxBegin",
            MakeBoundCallback(
                +[](Watch* w, Ptr<const Packet> pkt, uint32_t) {
                    FabricHeader h;
                    pkt->PeekHeader(h);
                    if (h.m_kind == FabricHeader::DATA)
                    {
                        w->worst = std::max(w->worst, h.m_psn + 1 - w->acked);
                    }
                },
                &w));
        f.transports[0]->TraceConnectWithoutContext(
            "AckReceived",
            MakeBoundCallback(
                +[](Watch* w, uint32_t, uint16_t, uint32_t psn) { w->acked = psn; },
                &w));
        Deliveries d;
        f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                    MakeBoundCallback(&OnDelivered, &d));
        f.transports[0]->PostSend(1, 0, 1 << 20);
        Simulator::Run();
        ExpectExactlyOnce(d, {{{0, 0}, 1 << 20}});
        NS_TEST_EXPECT_MSG_EQ(w.worst, 32u, "the window fills, and never overflows");
        // 256 packets, at most 32 per round trip of more than 20 us.
        NS_TEST_EXPECT_MSG_GT(d.at, MicroSeconds(7 * 20), "window-limited");
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetRetransmittedPackets(), 0u, "no resend");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Go-back-N retransmits exactly the lost range: after a NACK, the PSNs from the
 * NACK's on; after a timeout, the PSNs from the oldest unacknowledged one on.
 */
class GoBackNRetransmitsTheLostRangeTestCase : public TestCase
{
  public:
    GoBackNRetransmitsTheLostRangeTestCase()
        : TestCase("Go-back-N retransmits exactly the lost range")
    {
    }

  private:
    void DoRun() override
    {
        // NACK: ten packets to GPU 1, all sent by 1 us; the receiver's ACKs cannot be back
        // before 10 us (5 us cables). A NACK(3) at 1 us rewinds the sender to PSN 3.
        {
            LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
            p.propagationDelay = MicroSeconds(5);
            Fabric f = FabricBuilder::Build(Star(p, 2), SpecLocation{});
            Configure(f, p, GoBackN());
            Ptr<RdmaTransport> tx = f.transports[0];
            std::vector<uint32_t> sent;
            std::vector<uint32_t> resent;
            std::vector<uint32_t> rewinds;
            tx->GetNic()->TraceConnectWithoutContext("TxBegin",
                                                     MakeBoundCallback(&RecordDataPsn, &sent));
            tx->TraceConnectWithoutContext("Retransmission",
                                           MakeBoundCallback(&RecordPsn, &resent));
            tx->TraceConnectWithoutContext(
                "GoBack",
                MakeBoundCallback(
                    +[](std::vector<uint32_t>* v, uint32_t, uint16_t, uint32_t psn, bool timeout) {
                        v->push_back(psn + (timeout ? 1000 : 0));
                    },
                    &rewinds));
            Deliveries d;
            f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                        MakeBoundCallback(&OnDelivered, &d));
            tx->PostSend(1, 0, 10 * 4096);
            Simulator::Schedule(MicroSeconds(1), &InjectControl, tx, FabricHeader::NACK, 1, 0, 3);
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(Show(sent),
                                  "0 1 2 3 4 5 6 7 8 9 3 4 5 6 7 8 9",
                                  "sent, then again from the NACK's PSN");
            NS_TEST_EXPECT_MSG_EQ(Show(resent), "3 4 5 6 7 8 9", "retransmissions");
            NS_TEST_EXPECT_MSG_EQ(Show(rewinds), "3", "one rewind, by NACK");
            NS_TEST_EXPECT_MSG_EQ(tx->GetRetransmittedPackets(), 7u, "seven resent");
            NS_TEST_EXPECT_MSG_EQ(tx->GetTimeouts(), 0u, "no timeout");
            NS_TEST_EXPECT_MSG_EQ(d.seen.size(), 1u, "delivered once");
            NS_TEST_EXPECT_MSG_EQ(f.transports[1]->GetDuplicateDrops(), 7u, "duplicates");
            Simulator::Destroy();
        }
        // Timeout: the receiver swallows everything; an ACK(4) at 50 us is all the sender
        // hears, so at 50 + 100 us it goes back to PSN 4 (and the next timeout, doubled,
        // is not due before 350 us).
        {
            const LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
            Fabric f = FabricBuilder::Build(Star(p, 2), SpecLocation{});
            Configure(f, p, GoBackN());
            f.transports[1]->GetNic()->SetFabricReceiveCallback(MakeCallback(&Swallow));
            Ptr<RdmaTransport> tx = f.transports[0];
            std::vector<uint32_t> resent;
            tx->TraceConnectWithoutContext("Retransmission",
                                           MakeBoundCallback(&RecordPsn, &resent));
            tx->PostSend(1, 0, 10 * 4096);
            Simulator::Schedule(MicroSeconds(50), &InjectControl, tx, FabricHeader::ACK, 1, 0, 4);
            Simulator::Stop(MicroSeconds(300));
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(Show(resent), "4 5 6 7 8 9", "the unacknowledged range");
            NS_TEST_EXPECT_MSG_EQ(tx->GetTimeouts(), 1u, "one timeout");
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Go-back-N recovers from drops on a slower link, and survives spurious timeouts.
 */
class GoBackNSlowLinkTestCase : public TransportTestCase
{
  public:
    GoBackNSlowLinkTestCase()
        : TransportTestCase("Go-back-N recovers from drops on a slower link")
    {
    }

  private:
    void DoRun() override
    {
        const SlowLinkRun r = RunSlowLink(MicroSeconds(100), 0);
        NS_TEST_EXPECT_MSG_GT(r.drops, 0u, "drops");
        NS_TEST_EXPECT_MSG_GT(r.nacks, 0u, "NACKs");
        NS_TEST_EXPECT_MSG_GT(r.retransmitted, 0u, "retransmissions");
        NS_TEST_EXPECT_MSG_GT(r.oooDrops, 0u, "out-of-order drops");
        ExpectExactlyOnce(r.d, r.posted);
        NS_TEST_EXPECT_MSG_EQ(r.bytesReceived, 505000u, "bytes");
        NS_TEST_EXPECT_MSG_EQ(r.inProgress, 0u, "nothing in progress");

        // A timeout below the round trip through the queue: the sender goes back to packets
        // that were only queued, and the receiver drops the duplicates. The timeout doubles
        // while there is no progress, so the transfer still completes.
        const SlowLinkRun s = RunSlowLink(MicroSeconds(3), 0);
        NS_TEST_EXPECT_MSG_GT(s.timeouts, 0u, "spurious timeouts");
        NS_TEST_EXPECT_MSG_GT(s.dupDrops, 0u, "duplicates");
        ExpectExactlyOnce(s.d, s.posted);
        NS_TEST_EXPECT_MSG_EQ(s.bytesReceived, 505000u, "bytes");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A lossy incast completes every message exactly once.
 */
class LossyIncastTestCase : public TransportTestCase
{
  public:
    LossyIncastTestCase()
        : TransportTestCase("A lossy incast completes every message exactly once")
    {
    }

  private:
    void DoRun() override
    {
        // 8 senders -> 1 receiver through one switch, no flow control, 9 x 32 KiB of buffer.
        LinkProfile p = RoceLike(LinkProfile::FlowControl::NONE);
        p.bufferPerPort = 32 * 1024;
        const uint32_t senders = 8;
        const FabricGraph g = Star(p, senders + 1);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Configure(f, p, GoBackN());
        Deliveries d;
        f.transports[senders]->TraceConnectWithoutContext("MessageDelivered",
                                                          MakeBoundCallback(&OnDelivered, &d));
        std::map<std::pair<uint32_t, uint32_t>, uint64_t> posted;
        uint64_t total = 0;
        for (uint32_t s = 0; s < senders; ++s)
        {
            for (uint64_t bytes : {100000ull, 4096ull, 250000ull, 1ull})
            {
                posted[{s, f.transports[s]->PostSend(senders, s % 2, bytes)}] = bytes;
                total += bytes;
            }
        }
        Simulator::Run();
        uint64_t retransmitted = 0;
        for (uint32_t s = 0; s < senders; ++s)
        {
            retransmitted += f.transports[s]->GetRetransmittedPackets();
        }
        Ptr<RdmaTransport> rx = f.transports[senders];
        NS_TEST_EXPECT_MSG_GT(f.switches[0]->GetDrops(), 0u, "drops");
        NS_TEST_EXPECT_MSG_GT(retransmitted, 0u, "retransmissions");
        NS_TEST_EXPECT_MSG_GT(rx->GetNacksSent(), 0u, "NACKs");
        ExpectExactlyOnce(d, posted);
        NS_TEST_EXPECT_MSG_EQ(rx->GetBytesReceived(), total, "bytes");
        NS_TEST_EXPECT_MSG_EQ(rx->GetMessagesDelivered(), posted.size(), "messages");
        NS_TEST_EXPECT_MSG_EQ(rx->GetMessagesInProgress(), 0u, "nothing in progress");
        Simulator::Destroy();
    }
};

// ---------------------------------------------------------------------------------------------
// DCQCN end to end.

/**
 * \ingroup ai-fabric-tests
 * \brief Two DCQCN flows share the bottleneck and hold the queue near Kmin.
 */
class DcqcnSharingTestCase : public TestCase
{
  public:
    DcqcnSharingTestCase()
        : TestCase("Two DCQCN flows share the bottleneck and hold the queue near Kmin")
    {
    }

  private:
    /// What the bottleneck shows.
    struct Probe
    {
        Time settle{MicroSeconds(500)}; //!< the queue is watched from here
        Time from{MilliSeconds(20)};    //!< throughput window start
        Time to{MilliSeconds(100)};     //!< throughput window end
        uint64_t peak{0};               //!< peak queue after settle
        uint64_t bytes[2]{0, 0};        //!< payload per sender in the window
    };

    void DoRun() override
    {
        // Two 400G senders into one 400G receiver, PFC on, ECN Kmin 5 KB, Kmax 200 KB (the
        // DCQCN paper's thresholds, FACTS.md 2.3 [U]) with Pmax 1 (original DCQCN ns-3
        // config [S]), DCQCN with the paper-style defaults.
        LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
        p.ecnKmin = 5 * 1000;
        p.ecnKmax = 200 * 1000;
        p.ecnPmax = 1.0;
        p.bufferPerPort = 4 * 1024 * 1024;
        const FabricGraph g = Star(p, 3);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Configure(f, p, CreateObject<NoRecovery>(), CreateObject<Dcqcn>());
        Ptr<FabricNetDevice> bottleneck = f.devicesB[2]; // the switch's port to GPU 2
        Probe probe;
        bottleneck->TraceConnectWithoutContext("QueueBytes",
                                               MakeBoundCallback(
                                                   +[](Probe* pr, uint64_t, uint64_t now) {
                                                       if (Simulator::Now() >= pr->settle)
                                                       {
                                                           pr->peak = std::max(pr->peak, now);
                                                       }
                                                   },
                                                   &probe));
        f.transports[2]->GetNic()->TraceConnectWithoutContext(
            "Rx",
            MakeBoundCallback(
                +[](Probe* pr, Ptr<const Packet> pkt) {
                    FabricHeader h;
                    pkt->PeekHeader(h);
                    const Time now = Simulator::Now();
                    if (h.m_kind == FabricHeader::DATA && now >= pr->from && now < pr->to)
                    {
                        pr->bytes[h.m_src] += h.m_payload;
                    }
                },
                &probe));
        for (uint32_t s = 0; s < 2; ++s)
        {
            f.transports[s]->PostSend(2, 0, 40ull << 30); // longer than the run
        }
        Simulator::Stop(probe.to);
        Simulator::Run();

        const double window = (probe.to - probe.from).GetSeconds();
        const double gbps[2]
            = {probe.bytes[0] * 8 / window / 1e9, probe.bytes[1] * 8 / window / 1e9};
        const double fair = (gbps[0] + gbps[1]) / 2;
        // Goodput of the bottleneck: 400 * 4096 / 4178 = 392.1 Gb/s.
        const double goodput = 400.0 * 4096 / 4178;
        NS_TEST_EXPECT_MSG_EQ_TOL(gbps[0] / fair, 1.0, 0.10, "fair share of sender 0");
        NS_TEST_EXPECT_MSG_EQ_TOL(gbps[1] / fair, 1.0, 0.10, "fair share of sender 1");
        NS_TEST_EXPECT_MSG_GT(gbps[0] + gbps[1], 0.85 * goodput, "utilization");
        NS_TEST_EXPECT_MSG_LT(probe.peak, p.ecnKmax + 8 * 4178, "queue held");
        NS_TEST_EXPECT_MSG_GT(f.transports[2]->GetCnpsSent(), 0u, "CNPs");
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetCnpsReceived()
                                  + f.transports[1]->GetCnpsReceived(),
                              f.transports[2]->GetCnpsSent(),
                              "every CNP arrives");
        NS_TEST_EXPECT_MSG_LT(f.transports[0]->GetQueuePairRate(2, 0).GetBitRate(),
                              400e9,
                              "rate below line rate");
        NS_TEST_EXPECT_MSG_EQ(f.switches[0]->GetDrops(), 0u, "no drops");

        // Observability: the receiver's per-source counts add up to its totals, and the
        // senders' controllers to theirs.
        uint64_t marked = 0;
        uint64_t cnps = 0;
        for (const auto& n : f.transports[2]->GetNotifiedQueuePairs())
        {
            NS_TEST_EXPECT_MSG_LT(n.src, 2u, "a sender");
            NS_TEST_EXPECT_MSG_GT(n.ecnMarked, 0u, "marked");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(n.cnpsSent, n.ecnMarked, "at most a CNP per mark");
            marked += n.ecnMarked;
            cnps += n.cnpsSent;
        }
        NS_TEST_EXPECT_MSG_EQ(marked, f.transports[2]->GetEcnMarkedReceived(), "marks per QP");
        NS_TEST_EXPECT_MSG_EQ(cnps, f.transports[2]->GetCnpsSent(), "CNPs per QP");
        const RdmaTransport::PortRateSample rx = f.transports[2]->GetPortRateSample(0);
        NS_TEST_EXPECT_MSG_EQ(rx.cnpsSent, cnps, "CNPs out of the receiver's port");
        for (uint32_t s = 0; s < 2; ++s)
        {
            const auto qps = f.transports[s]->GetControlledQueuePairs();
            NS_TEST_ASSERT_MSG_EQ(qps.size(), 1u, "one controlled queue pair");
            NS_TEST_EXPECT_MSG_EQ(qps[0].cnpsReceived,
                                  f.transports[s]->GetCnpsReceived(),
                                  "CNPs per QP");
            NS_TEST_EXPECT_MSG_EQ(qps[0].rateCuts, f.transports[s]->GetRateCuts(), "cuts per QP");
            NS_TEST_EXPECT_MSG_EQ(qps[0].rateCuts + qps[0].rateIncreases,
                                  f.transports[s]->GetRateChanges(),
                                  "a change is a cut or an increase");
            NS_TEST_EXPECT_MSG_GT(qps[0].rateCuts, 0u, "cut");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(qps[0].minRateBps, 100e6, "not below MinRate");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(qps[0].minRateBps, qps[0].rateBps, "lowest");
            NS_TEST_EXPECT_MSG_EQ(qps[0].rateBps,
                                  f.transports[s]->GetQueuePairRate(2, 0).GetBitRate(),
                                  "the rate now");
            const RdmaTransport::PortRateSample tx = f.transports[s]->GetPortRateSample(0);
            NS_TEST_EXPECT_MSG_EQ(tx.limitedQps, 1u, "the queue pair is paced");
            NS_TEST_EXPECT_MSG_EQ(tx.minBps, qps[0].rateBps, "its rate");
            NS_TEST_EXPECT_MSG_EQ(tx.sumBps, qps[0].rateBps, "its rate");
            NS_TEST_EXPECT_MSG_EQ(tx.cnpsReceived, qps[0].cnpsReceived, "CNPs on the port");
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Without congestion control, marked packets cause no control traffic.
 */
class NoCongestionControlTestCase : public TestCase
{
  public:
    NoCongestionControlTestCase()
        : TestCase("Without congestion control marked packets cause no control traffic")
    {
    }

  private:
    void DoRun() override
    {
        LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
        p.ecnKmin = 5 * 1000;
        p.ecnKmax = 200 * 1000;
        p.ecnPmax = 1.0;
        const FabricGraph g = Star(p, 3);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Configure(f, p, CreateObject<NoRecovery>());
        for (uint32_t s = 0; s < 2; ++s)
        {
            f.transports[s]->PostSend(2, 0, 4 << 20);
        }
        Simulator::Run();
        NS_TEST_EXPECT_MSG_GT(f.switches[0]->GetEcnMarks(), 0u, "marks");
        NS_TEST_EXPECT_MSG_EQ(f.transports[2]->GetMessagesDelivered(), 2u, "delivered");
        for (const auto& t : f.transports)
        {
            NS_TEST_EXPECT_MSG_EQ(t->GetCnpsSent() + t->GetAcksSent() + t->GetNacksSent(),
                                  0u,
                                  "no control packets");
            NS_TEST_EXPECT_MSG_EQ(t->GetRateChanges(), 0u, "no rate changes");
            NS_TEST_EXPECT_MSG_EQ(t->GetControlledQueuePairs().size(), 0u, "no controller");
            NS_TEST_EXPECT_MSG_EQ(t->GetNotifiedQueuePairs().size(), 0u, "no CNP state");
            NS_TEST_EXPECT_MSG_EQ(t->GetPortRateSample(0).limitedQps, 0u, "none paced");
        }
        // The marks still reach the receiver, which counts them and answers none.
        NS_TEST_EXPECT_MSG_GT(f.transports[2]->GetEcnMarkedReceived(), 0u, "marks received");
        NS_TEST_EXPECT_MSG_EQ(f.transports[0]->GetQueuePairRate(2, 0).GetBitRate(),
                              400e9,
                              "line rate");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The transport: recovery strategies, congestion control, pacing.
 */
class AiFabricTransportTestSuite : public TestSuite
{
  public:
    AiFabricTransportTestSuite()
        : TestSuite("ai-fabric-transport")
    {
        AddTestCase(new DcqcnArithmeticTestCase);
        AddTestCase(new DcqcnMinimumRateTestCase);
        AddTestCase(new PacingTestCase);
        AddTestCase(new RecoverySelectionTestCase);
        AddTestCase(new GoBackNReceiverTestCase);
        AddTestCase(new GoBackNReorderWindowTestCase);
        AddTestCase(new GoBackNReorderTimeoutTestCase);
        AddTestCase(new GoBackNLosslessTestCase);
        AddTestCase(new GoBackNSendWindowTestCase);
        AddTestCase(new GoBackNRetransmitsTheLostRangeTestCase);
        AddTestCase(new GoBackNSlowLinkTestCase);
        AddTestCase(new LossyIncastTestCase);
        AddTestCase(new DcqcnSharingTestCase);
        AddTestCase(new NoCongestionControlTestCase);
    }
};

/// The suite's one instance.
static AiFabricTransportTestSuite g_aiFabricTransportTestSuite;
