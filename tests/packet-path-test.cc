/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The packet path: NIC -> link -> switch -> link -> NIC, against the
 * store-and-forward formula computed independently here.
 */
#include "config/scenario-spec.h"

#include "ns3/analytic-model.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/link-profile.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class PacketPathTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

void
RecordArrival(Time* at, uint64_t* count, uint32_t, uint32_t, uint32_t, uint64_t)
{
    *at = Simulator::Now();
    ++*count;
}

/// Two GPUs on one switch, all links of \p profile.
FabricGraph
TwoGpuGraph(const LinkProfile& profile)
{
    FabricGraph g;
    const uint32_t p = g.AddProfile(profile);
    const uint32_t sw = g.AddSwitch("sw", 1);
    g.AddLink(g.AddGpu("a"), sw, p);
    g.AddLink(g.AddGpu("b"), sw, p);
    return g;
}

/**
 * Store-and-forward over H identical links, written as the per-packet
 * recurrence: packet i leaves hop h when it has fully arrived there (plus the
 * switch latency) and the previous packet has left.
 */
double
StoreAndForwardS(const LinkProfile& p, uint64_t bytes, uint32_t hops)
{
    std::vector<double> wire;
    uint64_t left = bytes;
    do
    {
        const uint64_t payload = std::min<uint64_t>(p.mtu, left);
        wire.push_back(static_cast<double>(p.WireBytes(payload, wire.empty())) * 8
                       / p.rate.GetBitRate());
        left -= payload;
    } while (left > 0);
    const double prop = p.propagationDelay.GetSeconds();
    const double sw = p.switchLatency.GetSeconds();
    std::vector<double> ready(wire.size(), 0.0); // when packet i may start on the current hop
    double arrival = 0;
    for (uint32_t h = 0; h < hops; ++h)
    {
        double linkFree = 0;
        for (std::size_t i = 0; i < wire.size(); ++i)
        {
            const double start = std::max(ready[i], linkFree);
            linkFree = start + wire[i];
            const bool lastHop = (h + 1 == hops);
            ready[i] = linkFree + prop + (lastHop ? p.nicLatency.GetSeconds() : sw);
            arrival = ready[i];
        }
    }
    return arrival;
}

} // namespace

TEST_F(PacketPathTest, OneMessageThroughOneSwitchMatchesStoreAndForward)
{
    const LinkProfile ndr = *FindLinkProfile("ib-ndr");
    for (const uint64_t bytes : {1ull, 4096ull, 4097ull, 100000ull, 1ull << 20, 16ull << 20})
    {
        const FabricGraph g = TwoGpuGraph(ndr);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Time at;
        uint64_t delivered = 0;
        f.transports[1]->TraceConnectWithoutContext(
            "MessageDelivered",
            MakeBoundCallback(&RecordArrival, &at, &delivered));
        f.transports[0]->PostSend(1, 0, bytes);
        Simulator::Run();

        const double expect = StoreAndForwardS(ndr, bytes, 2);
        EXPECT_EQ(delivered, 1u) << bytes;
        EXPECT_EQ(f.transports[1]->GetBytesReceived(), bytes);
        EXPECT_NEAR(at.GetSeconds(), expect, expect * 0.01) << "bytes=" << bytes;
        // Integer serialization with a carried remainder: exact to the picosecond here.
        EXPECT_NEAR(at.GetSeconds(), expect, 2e-12) << "bytes=" << bytes;
        const uint64_t packets = (bytes + ndr.mtu - 1) / ndr.mtu;
        EXPECT_EQ(f.GetPacketHops(), 2 * packets);
        Simulator::Destroy();
    }
}

TEST_F(PacketPathTest, AlphaBetaIsExactForWholePackets)
{
    const LinkProfile ndr = *FindLinkProfile("ib-ndr");
    const FabricGraph g = TwoGpuGraph(ndr);
    const AlphaBeta ab = PathAlphaBeta(g, 0, 1);
    EXPECT_EQ(ab.hops, 2u);
    // beta: 4122 wire bytes per 4096 payload bytes at 50 GB/s.
    EXPECT_NEAR(ab.betaSPerByte, 4122.0 / 4096 / 50e9, 1e-20);
    for (const uint64_t packets : {1ull, 7ull, 256ull})
    {
        const uint64_t bytes = packets * ndr.mtu;
        const double expect = StoreAndForwardS(ndr, bytes, 2);
        EXPECT_NEAR(ab.alphaS + bytes * ab.betaSPerByte, expect, 1e-12) << packets;
    }
}

TEST_F(PacketPathTest, StreamSerializationIsExactAtNonIntegralPicosecondsPerByte)
{
    // 3.6 Tb/s (450 GB/s, an NVLink4 GPU's per-direction rate): 2.222... ps per byte.
    LinkProfile fast = *FindLinkProfile("ib-ndr");
    fast.rate = DataRate("3600Gbps");
    fast.propagationDelay = Seconds(0);
    fast.switchLatency = Seconds(0);
    const FabricGraph g = TwoGpuGraph(fast);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    const uint64_t bytes = 1000 * 4096ull;
    Time at;
    uint64_t delivered = 0;
    f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                MakeBoundCallback(&RecordArrival, &at, &delivered));
    f.transports[0]->PostSend(1, 0, bytes);
    Simulator::Run();
    const double wire = 1000 * 4122.0 + 16;
    const double expect = (wire + 4138) * 8 / 3600e9;
    EXPECT_NEAR(at.GetSeconds(), expect, 3e-12);
    // The NIC was busy exactly wire * 8 / rate, to the picosecond.
    EXPECT_NEAR(f.devicesA[0]->GetStats().busyTime.GetSeconds(), wire * 8 / 3600e9, 1e-12);
}

TEST_F(PacketPathTest, QueuePairsShareTheNicRoundRobin)
{
    // GPU 0 sends 64 packets to GPU 1 and 64 to GPU 2 at once. The NIC serves the two
    // queue pairs one packet each in turn (the first queue pair got one packet ahead
    // before the second was posted), so both finish within two packet times, and the
    // second finishes when all 128 packets have crossed the NIC and its last packet
    // the idle second hop.
    const LinkProfile ndr = *FindLinkProfile("ib-ndr");
    FabricGraph g;
    const uint32_t p = g.AddProfile(ndr);
    const uint32_t sw = g.AddSwitch("sw", 1);
    for (int i = 0; i < 3; ++i)
    {
        g.AddLink(g.AddGpu("g" + std::to_string(i)), sw, p);
    }
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Time at1;
    Time at2;
    uint64_t n1 = 0;
    uint64_t n2 = 0;
    f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                MakeBoundCallback(&RecordArrival, &at1, &n1));
    f.transports[2]->TraceConnectWithoutContext("MessageDelivered",
                                                MakeBoundCallback(&RecordArrival, &at2, &n2));
    const uint64_t bytes = 64 * 4096;
    f.transports[0]->PostSend(1, 0, bytes);
    f.transports[0]->PostSend(2, 0, bytes);
    Simulator::Run();
    ASSERT_EQ(n1, 1u);
    ASSERT_EQ(n2, 1u);
    const double packetTime = 4122 * 20e-12; // 4122 B at 400 Gb/s
    EXPECT_LT(at1, at2);
    EXPECT_NEAR(at2.GetSeconds() - at1.GetSeconds(), 2 * packetTime, 1e-12);
    // NIC: 128 packets + two RETHs; then 50 ns + 250 ns + 4122 B + 50 ns.
    const double expect = (128 * 4122 + 32) * 20e-12 + 350e-9 + packetTime;
    EXPECT_NEAR(at2.GetSeconds(), expect, 1e-12);
}

TEST_F(PacketPathTest, SwitchStoresEachRouteSetOnce)
{
    const LinkProfile ndr = *FindLinkProfile("ib-ndr");
    FabricGraph g;
    const uint32_t p = g.AddProfile(ndr);
    const uint32_t sw = g.AddSwitch("sw", 1);
    for (int i = 0; i < 8; ++i)
    {
        g.AddLink(g.AddGpu("g" + std::to_string(i)), sw, p);
    }
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    Ptr<FabricSwitch> s = f.switches[sw];
    ASSERT_TRUE(s);
    for (uint32_t dst = 0; dst < 8; ++dst)
    {
        ASSERT_EQ(s->GetRoute(dst).size(), 1u);
        EXPECT_EQ(s->GetRoute(dst)[0], dst); // port i leads to GPU i
    }
    EXPECT_TRUE(s->GetRoute(8).empty());
}

TEST_F(PacketPathTest, HostLinkPutsANicHopBetweenGpuAndFabric)
{
    // GPU -PCIe- NIC -IB- switch -IB- NIC -PCIe- GPU. The PCIe link (gen4 x16:
    // 252 Gb/s, 24 B per 256 B TLP) is the bottleneck; the NIC forwards like a
    // two-port switch.
    TopologySpec spec;
    spec.kind = "single-switch";
    spec.gpus = 2;
    spec.link = *FindLinkProfile("ib-ndr");
    spec.hasHostLink = true;
    spec.hostLink = spec.link;
    spec.hostLink.name = "pcie-test";
    spec.hostLink.rate = DataRate("252060000000bps");
    spec.hostLink.segmentBytes = 256;
    spec.hostLink.headerBytes = 24;
    spec.hostLink.messageHeaderBytes = 0;
    spec.hostLink.propagationDelay = NanoSeconds(5);
    const FabricGraph g = BuildFabricGraph(spec);
    ASSERT_EQ(g.GetNicCount(), 2u);
    ASSERT_EQ(g.GetLinks().size(), 4u);
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    const uint64_t bytes = 256 * 4096;
    Time at;
    uint64_t delivered = 0;
    f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                MakeBoundCallback(&RecordArrival, &at, &delivered));
    f.transports[0]->PostSend(1, 0, bytes);
    Simulator::Run();
    ASSERT_EQ(delivered, 1u);
    const AlphaBeta ab = PathAlphaBeta(g, 0, 1);
    EXPECT_EQ(ab.hops, 4u);
    // 4096 B payload = 16 TLPs: 4096 + 16 x 24 = 4480 wire bytes per packet on PCIe.
    EXPECT_NEAR(ab.betaSPerByte, 4480.0 / 4096 / (252.06e9 / 8), 1e-20);
    const double expect = ab.alphaS + bytes * ab.betaSPerByte;
    EXPECT_NEAR(at.GetSeconds(), expect, expect * 0.01);
    // Both NIC nodes forwarded every packet.
    for (const auto& sw : f.switches)
    {
        if (sw)
        {
            EXPECT_EQ(sw->GetForwardedPackets(), 256u);
        }
    }
}
