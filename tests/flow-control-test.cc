/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Flow control and forwarding: incast on credit-based InfiniBand and on
 * PFC-protected RoCE-like links, and multi-path forwarding on a leaf-spine.
 */
#include "config/scenario-spec.h"

#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/link-profile.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class FlowControlTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

struct Delivery
{
    uint64_t messages{0};
    uint64_t bytes{0};
    Time last;
};

void
OnDelivered(Delivery* d, uint32_t, uint32_t, uint32_t, uint64_t bytes)
{
    ++d->messages;
    d->bytes += bytes;
    d->last = Simulator::Now();
}

void
OnFirstTx(Time* first, Ptr<const Packet>, uint32_t)
{
    if (first->IsNegative())
    {
        *first = Simulator::Now();
    }
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

struct IncastResult
{
    Delivery delivered;
    uint64_t drops{0};
    uint64_t pauses{0};
    double bottleneckBusy{0}; //!< busy share of the receiver's link while the incast lasts
    double senderStallS{0};
    uint64_t peakBuffer{0};
    uint64_t poolSize{0};
};

/// senders -> GPU `senders` through one switch, `bytes` each.
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
    Simulator::Run();
    const Ptr<FabricSwitch> sw = f.switches[0];
    r.drops = sw->GetDrops();
    r.peakBuffer = sw->GetPeakBufferUsed();
    r.poolSize = sw->GetBufferSize();
    for (uint32_t s = 0; s < senders; ++s)
    {
        r.pauses += f.devicesA[s]->GetPausesReceived();
        r.senderStallS += f.devicesA[s]->GetStallTime().GetSeconds();
    }
    const Time window = r.delivered.last - first;
    r.bottleneckBusy = bottleneck->GetBusyTime().GetSeconds() / window.GetSeconds();
    return r;
}

} // namespace

TEST_F(FlowControlTest, InfiniBandIncastIsLosslessBusyAndCreditBlocked)
{
    const LinkProfile ndr = *FindLinkProfile("ib-ndr");
    ASSERT_EQ(ndr.flowControl, LinkProfile::FlowControl::CREDIT);
    const uint64_t bytes = 1 << 20;
    const IncastResult r = Incast(ndr, 16, bytes);
    std::cout << "IB incast: bottleneck busy " << r.bottleneckBusy << ", sender stall "
              << r.senderStallS * 1e6 << " us (summed), peak buffer " << r.peakBuffer << " B\n";
    EXPECT_EQ(r.delivered.messages, 16u);
    EXPECT_EQ(r.delivered.bytes, 16 * bytes);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_GE(r.bottleneckBusy, 0.95) << "bottleneck busy share";
    EXPECT_LE(r.bottleneckBusy, 1.0 + 1e-9);
    // 16 senders share one 400G egress: each could send 16x faster than it drains,
    // so credits must have held them back for most of the incast.
    EXPECT_GT(r.senderStallS, 0.0);
    // Credit flow control never lets the buffer exceed what was advertised.
    EXPECT_LE(r.peakBuffer, 16 * ndr.creditsPerLane);
}

TEST_F(FlowControlTest, PfcIncastPausesAndDropsNothing)
{
    const LinkProfile roce = RoceLike();
    const uint64_t bytes = 1 << 20;
    const IncastResult r = Incast(roce, 16, bytes);
    std::cout << "PFC incast: bottleneck busy " << r.bottleneckBusy << ", pauses " << r.pauses
              << ", peak buffer " << r.peakBuffer << " of " << r.poolSize << " B\n";
    EXPECT_EQ(r.delivered.messages, 16u);
    EXPECT_EQ(r.delivered.bytes, 16 * bytes);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_GT(r.pauses, 0u) << "PFC pause frames";
    EXPECT_GE(r.bottleneckBusy, 0.95);
    EXPECT_LE(r.peakBuffer, r.poolSize);
}

TEST_F(FlowControlTest, PfcHeadroomFollowsTheMlx5Formula)
{
    LinkProfile p = RoceLike();
    p.pfcReactionTime = Seconds(0);
    p.propagationDelay = NanoSeconds(50); // 10 m at 5 ns/m
    // (301 + 2.16 * 10) * 400 + 2.72 * (4096 + 62 + 20 + 16) = 129040 + 11407.68
    EXPECT_EQ(p.PfcHeadroomBytes(), 140448u);
}

void
Nothing()
{
}

TEST_F(FlowControlTest, EveryCreditComesBackAfterACreditStalledIncast)
{
    // Credit returns travel without events (stamped with their arrival, counted when the
    // sender next looks): once everything has drained and every return has arrived, each
    // lane holds exactly the credits it was advertised, and the senders did stall on them.
    const LinkProfile ndr = *FindLinkProfile("ib-ndr");
    const uint32_t senders = 16;
    const FabricGraph g = Star(ndr, senders + 1);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Delivery delivered;
    f.transports[senders]->TraceConnectWithoutContext("MessageDelivered",
                                                      MakeBoundCallback(&OnDelivered, &delivered));
    for (uint32_t s = 0; s < senders; ++s)
    {
        f.transports[s]->PostSend(senders, 0, 1 << 20);
    }
    Simulator::Schedule(Seconds(1), &Nothing); // time moves past the last return's arrival
    Simulator::Run();
    EXPECT_EQ(delivered.messages, senders);
    double stallS = 0;
    for (std::size_t i = 0; i < f.devicesA.size(); ++i)
    {
        stallS += f.devicesA[i]->GetStallTime().GetSeconds();
        for (const auto& dev : {f.devicesA[i], f.devicesB[i]})
        {
            for (uint8_t lane = 0; lane < dev->GetPriorities(); ++lane)
            {
                EXPECT_EQ(dev->GetCredits(lane), static_cast<int64_t>(ndr.creditsPerLane))
                    << "link " << i << " lane " << +lane;
            }
        }
    }
    EXPECT_GT(stallS, 0.0);
    EXPECT_EQ(f.switches[0]->GetBufferUsed(), 0u);
}
