/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The packet path through a host link (it needs the topology spec of the tool library).
 * The rest of the packet path's tests are the ns-3 TestSuite ai-fabric-link
 * (contrib/ai-fabric/test/link-test-suite.cc).
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

} // namespace

TEST_F(PacketPathTest, HostLinkPutsANicHopBetweenGpuAndFabric)
{
    // GPU -PCIe- NIC -IB- switch -IB- NIC -PCIe- GPU. The PCIe link (gen4 x16:
    // 252 Gb/s, 24 B per 256 B TLP) is the bottleneck; the NIC forwards like a
    // two-port switch.
    TopologySpec spec;
    spec.SetKind("single-switch");
    spec.gpus = 2;
    spec.link = *FindLinkProfile("ib-ndr");
    spec.hostLink = spec.link;
    spec.hostLink->name = "pcie-test";
    spec.hostLink->rate = DataRate("252060000000bps");
    spec.hostLink->segmentBytes = 256;
    spec.hostLink->headerBytes = 24;
    spec.hostLink->messageHeaderBytes = 0;
    spec.hostLink->propagationDelay = NanoSeconds(5);
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
