/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The RDMA transport: go-back-N reliability on lossy fabrics, DCQCN
 * congestion control and pacing.
 */
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/enum.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/link-profile.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

class TransportTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

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
          RdmaTransport::Reliability reliability,
          Ptr<RdmaCongestionControl> cc = nullptr)
{
    for (const auto& t : f.transports)
    {
        t->SetAttribute("Reliability", EnumValue(reliability));
        t->SetAttribute("ControlPriority", UintegerValue(profile.controlPriority));
        if (cc)
        {
            t->SetAttribute("CongestionControl", PointerValue(cc));
        }
    }
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

/// Check that every posted message arrived exactly once with its size.
void
ExpectExactlyOnce(const Deliveries& d,
                  const std::map<std::pair<uint32_t, uint32_t>, uint64_t>& posted)
{
    EXPECT_EQ(d.seen.size(), posted.size());
    for (const auto& [key, bytes] : posted)
    {
        const auto it = d.seen.find(key);
        ASSERT_NE(it, d.seen.end()) << "message " << key.first << "/" << key.second << " lost";
        ASSERT_EQ(it->second.size(), 1u) << "message " << key.first << "/" << key.second;
        EXPECT_EQ(it->second[0], bytes);
    }
}

} // namespace

// ---------------------------------------------------------------------------------------------
// DCQCN arithmetic, on a controller alone.

TEST_F(TransportTest, DcqcnRateArithmeticFollowsThePaperStyleDefaults)
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
    EXPECT_EQ(d->GetRate().GetBitRate(), 400e9);
    EXPECT_FALSE(d->AreTimersRunning()); // line rate: no events
    EXPECT_EQ(d->GetNotificationInterval(), MicroSeconds(50));

    // CNP: RT <- RC = 400; RC <- 400 (1 - 1/2) = 200; alpha <- (1 - g) 1 + g = 1.
    d->NotifyCongestion();
    EXPECT_EQ(d->GetRate().GetBitRate(), 200e9);
    EXPECT_EQ(d->GetTargetRate().GetBitRate(), 400e9);
    EXPECT_DOUBLE_EQ(d->GetAlpha(), 1.0);
    EXPECT_TRUE(d->AreTimersRunning());
    // Second CNP at once: RT <- 200; RC <- 100.
    d->NotifyCongestion();
    EXPECT_EQ(d->GetRate().GetBitRate(), 100e9);
    EXPECT_EQ(d->GetTargetRate().GetBitRate(), 200e9);

    // Byte counter, 5 events (BC = 1..5, T = 0): fast recovery RC <- (RT + RC) / 2.
    const double fast[] = {150e9, 175e9, 187.5e9, 193.75e9, 196.875e9};
    for (double expect : fast)
    {
        d->NotifySent(10000000);
        EXPECT_EQ(d->GetRate().GetBitRate(), expect);
        EXPECT_EQ(d->GetTargetRate().GetBitRate(), 200e9);
    }
    // BC = 6 > F, T = 0: additive, RT = 220, RC = (220 + 196.875) / 2 = 208.4375.
    d->NotifySent(10000000);
    EXPECT_EQ(d->GetByteCount(), 6u);
    EXPECT_EQ(d->GetTargetRate().GetBitRate(), 220e9);
    EXPECT_EQ(d->GetRate().GetBitRate(), 208.4375e9);

    // Timer events at 55, 110, ..., 330 us (T = 1..6, BC = 6): five additive steps
    // (RT 240 .. 320), then T = 6: hyper, RT = 320 + (6 - 5) 40 = 360.
    Simulator::Stop(MicroSeconds(331));
    Simulator::Run();
    EXPECT_EQ(d->GetTimerCount(), 6u);
    double rt = 220e9;
    double rc = 208.4375e9;
    for (int t = 1; t <= 5; ++t)
    {
        rt += 20e9;
        rc = (rt + rc) / 2;
    }
    rt += 40e9;
    rc = std::ceil((rt + rc) / 2); // 330131835937.5, rounded up
    EXPECT_EQ(d->GetTargetRate().GetBitRate(), 360e9);
    EXPECT_EQ(d->GetRate().GetBitRate(), static_cast<uint64_t>(rc));
    // Six alpha periods without a CNP.
    const double alpha6 = std::pow(1 - g, 6);
    EXPECT_NEAR(d->GetAlpha(), alpha6, 1e-12);

    // CNP at 331 us: RT <- RC; RC <- RC (1 - alpha/2); alpha <- (1 - g) alpha + g.
    d->NotifyCongestion();
    EXPECT_EQ(d->GetTargetRate().GetBitRate(), static_cast<uint64_t>(rc));
    EXPECT_NEAR(d->GetRate().GetBitRate(), rc * (1 - alpha6 / 2), 1.0);
    EXPECT_NEAR(d->GetAlpha(), (1 - g) * alpha6 + g, 1e-12);
    EXPECT_EQ(d->GetTimerCount(), 0u);
    EXPECT_EQ(d->GetByteCount(), 0u);

    // Left alone, the rate climbs back to exactly the line rate and the timers stop, so
    // Run() returns.
    Simulator::Run();
    EXPECT_EQ(d->GetRate().GetBitRate(), 400e9);
    EXPECT_FALSE(d->AreTimersRunning());
    const Time stopped = Simulator::Now();
    const double alphaAtStop = d->GetAlpha();

    // Ten alpha periods later (the alpha timer last ran with the last increase), a CNP sees
    // alpha decayed ten times, as if the timer had kept running.
    Simulator::Schedule(MicroSeconds(10 * 55 + 1), &Dcqcn::NotifyCongestion, d);
    Simulator::Stop(MicroSeconds(10 * 55 + 2));
    Simulator::Run();
    const double before = alphaAtStop * std::pow(1 - g, 10);
    EXPECT_NEAR(d->GetAlpha(), (1 - g) * before + g, 1e-12);
    EXPECT_NEAR(d->GetRate().GetBitRate(), 400e9 * (1 - before / 2), 1.0);
    EXPECT_GT(Simulator::Now(), stopped);

    // Every rate change was reported, and rates never left [min rate, line rate].
    EXPECT_GT(changes.size(), 10u);
    for (uint64_t r : changes)
    {
        EXPECT_GE(r, 100e6);
        EXPECT_LE(r, 400e9);
    }
    d->Dispose();
}

TEST_F(TransportTest, DcqcnNeverGoesBelowItsMinimumRateAndForkKeepsAttributes)
{
    Ptr<Dcqcn> proto = CreateObject<Dcqcn>();
    proto->SetAttribute("MinRate", DataRateValue(DataRate("1Gbps")));
    Ptr<RdmaCongestionControl> d = proto->Fork();
    d->Start(DataRate("400Gbps"), RdmaCongestionControl::RateCallback());
    for (int i = 0; i < 40; ++i)
    {
        d->NotifyCongestion(); // alpha stays 1: every CNP halves
    }
    EXPECT_EQ(d->GetRate().GetBitRate(), 1e9);
    EXPECT_TRUE(d->IsLimited());
    d->Dispose();
}

// ---------------------------------------------------------------------------------------------
// Pacing.

/// Transmission start times of data packets on a port.
void
RecordDataTx(std::vector<std::pair<Time, uint32_t>>* v, Ptr<const Packet> p, uint32_t wire)
{
    FabricHeader h;
    p->PeekHeader(h);
    if (h.m_kind == FabricHeader::DATA)
    {
        v->emplace_back(Simulator::Now(), h.m_dst);
    }
    (void)wire;
}

/// A CNP from \p from for queue pair \p qp, delivered to \p to's NIC now.
void
InjectCnp(Ptr<RdmaTransport> to, uint32_t from, uint16_t qp)
{
    FabricHeader h;
    h.m_src = from;
    h.m_dst = to->GetEndpoint();
    h.m_qp = qp;
    h.m_kind = FabricHeader::CNP;
    to->GetNic()->Receive(MakePacket(h), 84, 0);
}

TEST_F(TransportTest, PacedQueuePairSendsAtItsRateAndLeavesTheRestToOthers)
{
    const LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
    const FabricGraph g = Star(p, 3);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Configure(f, p, RdmaTransport::RELIABILITY_NONE, CreateObject<Dcqcn>());
    Ptr<RdmaTransport> t = f.transports[0];
    std::vector<std::pair<Time, uint32_t>> tx;
    t->GetNic()->TraceConnectWithoutContext("TxBegin", MakeBoundCallback(&RecordDataTx, &tx));

    // Queue pair to GPU 1: a CNP halves it to 200 Gb/s (alpha = 1) right after its first
    // packet has left at line rate.
    t->PostSend(1, 0, 64ull << 20);
    InjectCnp(t, 1, 0);
    EXPECT_EQ(t->GetQueuePairRate(1, 0).GetBitRate(), 200e9);
    EXPECT_EQ(t->GetCnpsReceived(), 1u);
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();

    // Alone, it sends a full packet (4096 + 82 = 4178 wire bytes) every 4178 * 8 / 200 Gb/s
    // = 167.12 ns, to the picosecond, and the NIC idles in between. (Packet 0 left at line
    // rate; packet 1 at once after it, before the CNP's rate applied; packet 2 was due
    // 167.12 ns after the last due time, 0, but waited for packet 1 until 167.44 ns, and
    // packet 3 catches up those 0.32 ns.)
    ASSERT_GT(tx.size(), 100u);
    EXPECT_EQ((tx[3].first - tx[2].first).GetPicoSeconds(), 167120 - 320);
    for (std::size_t i = 4; i < tx.size(); ++i)
    {
        EXPECT_EQ((tx[i].first - tx[i - 1].first).GetPicoSeconds(), 167120) << i;
    }
    const double busy = t->GetNic()->GetStats().busyTime.GetSeconds() / 20e-6;
    EXPECT_NEAR(busy, 0.5, 0.01);

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
    EXPECT_GT(busy2, 0.99);
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
    ASSERT_GT(paced.size(), 50u);
    for (std::size_t i = 1; i < paced.size(); ++i)
    {
        EXPECT_GE((paced[i] - paced[i - 1]).GetPicoSeconds(), 167120) << i;
        EXPECT_LE((paced[i] - paced[i - 1]).GetPicoSeconds(), 167120 + 83560) << i;
    }
    // 200 Gb/s each: one packet of each in turn.
    EXPECT_NEAR(static_cast<double>(others) / paced.size(), 1.0, 0.05);
}

// ---------------------------------------------------------------------------------------------
// Go-back-N.

TEST_F(TransportTest, GoBackNReceiverDropsOutOfOrderAndDuplicatePackets)
{
    const LinkProfile p = RoceLike(LinkProfile::FlowControl::NONE);
    const FabricGraph g = Star(p, 2);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Configure(f, p, RdmaTransport::GO_BACK_N);
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
    EXPECT_TRUE(acks.empty());
    deliver(Data(0, 0, 4, 2)); // PSN 1 lost: drop, NACK(1)
    deliver(Data(0, 0, 4, 3)); // still ahead: drop, no second NACK
    EXPECT_EQ(nacks, std::vector<uint32_t>({1}));
    deliver(Data(0, 0, 4, 1)); // the sender went back: 1, 2, 3 in order
    deliver(Data(0, 0, 4, 2));
    EXPECT_TRUE(d.seen.empty());
    deliver(Data(0, 0, 4, 3)); // last packet of message 0: delivered, ACK(4)
    EXPECT_EQ(d.seen.size(), 1u);
    EXPECT_EQ(acks, std::vector<uint32_t>({4}));
    deliver(Data(0, 0, 4, 2)); // duplicates: dropped; the first is answered by ACK(4)
    deliver(Data(0, 0, 4, 3));
    EXPECT_EQ(acks, std::vector<uint32_t>({4, 4}));
    EXPECT_EQ(d.seen.size(), 1u);
    deliver(Data(1, 4, 1, 4)); // single-packet message 1: ACK(5)
    EXPECT_EQ(acks, std::vector<uint32_t>({4, 4, 5}));

    deliver(Data(2, 5, 3, 6)); // PSN 5 lost: NACK(5)
    deliver(Data(2, 5, 3, 7));
    deliver(Data(2, 5, 3, 6)); // the sender went back and PSN 5 was lost again: no NACK
    EXPECT_EQ(nacks, std::vector<uint32_t>({1, 5}));
    deliver(Data(2, 5, 3, 5));
    deliver(Data(2, 5, 3, 6));
    deliver(Data(2, 5, 3, 7));
    EXPECT_EQ(acks, std::vector<uint32_t>({4, 4, 5, 8}));

    ExpectExactlyOnce(d, {{{0, 0}, 4 * 4096}, {{0, 1}, 4096}, {{0, 2}, 3 * 4096}});
    EXPECT_EQ(rx->GetOutOfOrderDrops(), 5u);
    EXPECT_EQ(rx->GetDuplicateDrops(), 2u);
    EXPECT_EQ(rx->GetBytesReceived(), 8u * 4096);
    EXPECT_EQ(rx->GetMessagesInProgress(), 0u);
    Simulator::Run(); // the ACKs and NACKs reach GPU 0, which has no such queue pair
    EXPECT_EQ(f.transports[0]->GetAcksReceived(), 4u);
    EXPECT_EQ(f.transports[0]->GetNacksReceived(), 2u);
}

TEST_F(TransportTest, GoBackNOnALosslessPathOnlyCoalescesAcks)
{
    const LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
    const FabricGraph g = Star(p, 2);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Configure(f, p, RdmaTransport::GO_BACK_N);
    Deliveries d;
    f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                MakeBoundCallback(&OnDelivered, &d));
    // 40 packets then 1: ACKs after 16, 32 and 40 (last of message 0), and 41.
    f.transports[0]->PostSend(1, 0, 40 * 4096);
    f.transports[0]->PostSend(1, 0, 100);
    Simulator::Run(); // returns: no timer outlives the transfer
    ExpectExactlyOnce(d, {{{0, 0}, 40 * 4096}, {{0, 1}, 100}});
    EXPECT_EQ(f.transports[1]->GetAcksSent(), 4u);
    EXPECT_EQ(f.transports[0]->GetAcksReceived(), 4u);
    EXPECT_EQ(f.transports[0]->GetDataPacketsSent(), 41u);
    EXPECT_EQ(f.transports[0]->GetRetransmittedPackets(), 0u);
    EXPECT_EQ(f.transports[0]->GetTimeouts(), 0u);
    EXPECT_EQ(f.transports[1]->GetNacksSent(), 0u);
}

TEST_F(TransportTest, GoBackNSendWindowCapsUnacknowledgedPackets)
{
    // 5 us cables: a round trip of 20 us holds far more than 32 packets at 400 Gb/s.
    LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
    p.propagationDelay = MicroSeconds(5);
    const FabricGraph g = Star(p, 2);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Configure(f, p, RdmaTransport::GO_BACK_N);
    f.transports[0]->SetAttribute("SendWindow", UintegerValue(32));

    struct Watch
    {
        uint32_t acked{0};
        uint32_t worst{0};
    } w;

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
    EXPECT_EQ(w.worst, 32u); // the window fills, and never overflows
    // 256 packets, at most 32 per round trip of more than 20 us.
    EXPECT_GT(d.at, MicroSeconds(7 * 20));
    EXPECT_EQ(f.transports[0]->GetRetransmittedPackets(), 0u);
}

namespace
{

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
    Configure(f, fast, RdmaTransport::GO_BACK_N);
    for (const auto& t : f.transports)
    {
        t->SetAttribute("RetransmitTimeout", TimeValue(rto));
        t->SetAttribute("SendWindow", UintegerValue(window));
    }
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

} // namespace

TEST_F(TransportTest, GoBackNRecoversFromDropsOnASlowerLink)
{
    const SlowLinkRun r = RunSlowLink(MicroSeconds(100), 0);
    std::cout << "[ figures  ] slow link: drops " << r.drops << " NACKs " << r.nacks
              << " retransmitted " << r.retransmitted << " timeouts " << r.timeouts
              << " out-of-order drops " << r.oooDrops << " end " << r.end.GetMicroSeconds() << " us"
              << std::endl;
    EXPECT_GT(r.drops, 0u);
    EXPECT_GT(r.nacks, 0u);
    EXPECT_GT(r.retransmitted, 0u);
    EXPECT_GT(r.oooDrops, 0u);
    ExpectExactlyOnce(r.d, r.posted);
    EXPECT_EQ(r.bytesReceived, 505000u);
    EXPECT_EQ(r.inProgress, 0u);
}

TEST_F(TransportTest, GoBackNSurvivesSpuriousTimeouts)
{
    // A timeout below the round trip through the queue: the sender goes back to packets
    // that were only queued, and the receiver drops the duplicates. The timeout doubles
    // while there is no progress, so the transfer still completes.
    const SlowLinkRun r = RunSlowLink(MicroSeconds(3), 0);
    std::cout << "[ figures  ] spurious timeouts: timeouts " << r.timeouts << " duplicates "
              << r.dupDrops << " retransmitted " << r.retransmitted << std::endl;
    EXPECT_GT(r.timeouts, 0u);
    EXPECT_GT(r.dupDrops, 0u);
    ExpectExactlyOnce(r.d, r.posted);
    EXPECT_EQ(r.bytesReceived, 505000u);
}

TEST_F(TransportTest, LossyIncastCompletesEveryMessageExactlyOnce)
{
    // 8 senders -> 1 receiver through one switch, no flow control, 9 x 32 KiB of buffer.
    LinkProfile p = RoceLike(LinkProfile::FlowControl::NONE);
    p.bufferPerPort = 32 * 1024;
    const uint32_t senders = 8;
    const FabricGraph g = Star(p, senders + 1);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Configure(f, p, RdmaTransport::GO_BACK_N);
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
    uint64_t timeouts = 0;
    uint64_t sent = 0;
    for (uint32_t s = 0; s < senders; ++s)
    {
        retransmitted += f.transports[s]->GetRetransmittedPackets();
        timeouts += f.transports[s]->GetTimeouts();
        sent += f.transports[s]->GetDataPacketsSent();
    }
    Ptr<RdmaTransport> rx = f.transports[senders];
    std::cout << "[ figures  ] lossy incast: drops " << f.switches[0]->GetDrops() << " sent "
              << sent << " retransmitted " << retransmitted << " timeouts " << timeouts << " NACKs "
              << rx->GetNacksSent() << " ACKs " << rx->GetAcksSent() << " done at "
              << Simulator::Now().GetMicroSeconds() << " us, events " << Simulator::GetEventCount()
              << std::endl;
    EXPECT_GT(f.switches[0]->GetDrops(), 0u);
    EXPECT_GT(retransmitted, 0u);
    EXPECT_GT(rx->GetNacksSent(), 0u);
    ExpectExactlyOnce(d, posted);
    EXPECT_EQ(rx->GetBytesReceived(), total);
    EXPECT_EQ(rx->GetMessagesDelivered(), posted.size());
    EXPECT_EQ(rx->GetMessagesInProgress(), 0u);
}

// ---------------------------------------------------------------------------------------------
// DCQCN end to end.

TEST_F(TransportTest, DcqcnTwoFlowsShareTheBottleneckAndHoldTheQueueNearKmin)
{
    // Two 400G senders into one 400G receiver, PFC on, ECN Kmin 5 KB, Kmax 200 KB (the
    // DCQCN paper's thresholds, FACTS.md 2.3 [U]) with Pmax 1 (original DCQCN ns-3 config
    // [S]), DCQCN with the paper-style defaults.
    LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
    p.ecnKmin = 5 * 1000;
    p.ecnKmax = 200 * 1000;
    p.ecnPmax = 1.0;
    p.bufferPerPort = 4 * 1024 * 1024;
    const FabricGraph g = Star(p, 3);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Configure(f, p, RdmaTransport::RELIABILITY_NONE, CreateObject<Dcqcn>());
    Ptr<FabricNetDevice> bottleneck = f.devicesB[2]; // the switch's port to GPU 2

    struct Probe
    {
        Time settle{MicroSeconds(500)}; //!< the queue is watched from here
        Time from{MilliSeconds(20)};    //!< throughput window
        Time to{MilliSeconds(100)};
        uint64_t peak{0};
        uint64_t bytes[2]{0, 0};
    } probe;

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
    const double gbps[2] = {probe.bytes[0] * 8 / window / 1e9, probe.bytes[1] * 8 / window / 1e9};
    const double fair = (gbps[0] + gbps[1]) / 2;
    // Goodput of the bottleneck: 400 * 4096 / 4178 = 392.1 Gb/s.
    const double goodput = 400.0 * 4096 / 4178;
    std::cout << "[ figures  ] DCQCN: " << gbps[0] << " and " << gbps[1] << " Gb/s (sum "
              << gbps[0] + gbps[1] << " of " << goodput << "), peak queue after 500 us "
              << probe.peak << " B, CNPs " << f.transports[2]->GetCnpsSent() << ", ECN marks "
              << f.switches[0]->GetEcnMarks() << ", rate changes "
              << f.transports[0]->GetRateChanges() + f.transports[1]->GetRateChanges()
              << ", PFC pauses "
              << f.devicesA[0]->GetStats().pausesReceived + f.devicesA[1]->GetStats().pausesReceived
              << ", events " << Simulator::GetEventCount() << std::endl;
    EXPECT_NEAR(gbps[0] / fair, 1.0, 0.10);
    EXPECT_NEAR(gbps[1] / fair, 1.0, 0.10);
    EXPECT_GT(gbps[0] + gbps[1], 0.85 * goodput);
    EXPECT_LT(probe.peak, p.ecnKmax + 8 * 4178);
    EXPECT_GT(f.transports[2]->GetCnpsSent(), 0u);
    EXPECT_EQ(f.transports[0]->GetCnpsReceived() + f.transports[1]->GetCnpsReceived(),
              f.transports[2]->GetCnpsSent());
    EXPECT_LT(f.transports[0]->GetQueuePairRate(2, 0).GetBitRate(), 400e9);
    EXPECT_EQ(f.switches[0]->GetDrops(), 0u);
}

TEST_F(TransportTest, WithoutCongestionControlMarkedPacketsCauseNoControlTraffic)
{
    LinkProfile p = RoceLike(LinkProfile::FlowControl::PFC);
    p.ecnKmin = 5 * 1000;
    p.ecnKmax = 200 * 1000;
    p.ecnPmax = 1.0;
    const FabricGraph g = Star(p, 3);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Configure(f, p, RdmaTransport::RELIABILITY_NONE);
    for (uint32_t s = 0; s < 2; ++s)
    {
        f.transports[s]->PostSend(2, 0, 4 << 20);
    }
    Simulator::Run();
    EXPECT_GT(f.switches[0]->GetEcnMarks(), 0u);
    EXPECT_EQ(f.transports[2]->GetMessagesDelivered(), 2u);
    for (const auto& t : f.transports)
    {
        EXPECT_EQ(t->GetCnpsSent() + t->GetAcksSent() + t->GetNacksSent(), 0u);
        EXPECT_EQ(t->GetRateChanges(), 0u);
    }
    EXPECT_EQ(f.transports[0]->GetQueuePairRate(2, 0).GetBitRate(), 400e9);
}
