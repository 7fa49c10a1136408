/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Every fabric kind builds into ns-3 objects with verified routing tables and
 * runs a ring all-reduce to completion; NVLink inside servers; PXN relay on
 * rail-only fabrics.
 */
#include "config/scenario-spec.h"
#include "run/scenario-runner.h"

#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-header.h"
#include "ns3/link-profile.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <set>

using namespace ns3;

namespace
{

TopologySpec
Kind(const std::string& kind)
{
    TopologySpec s;
    s.where.file = "<test>";
    s.name = kind;
    s.kind = kind;
    s.link = *FindLinkProfile("ib-ndr");
    return s;
}

/// Small instances of every kind.
std::vector<TopologySpec>
SmallFabrics()
{
    std::vector<TopologySpec> specs;
    TopologySpec s = Kind("single-switch");
    s.gpus = 4;
    s.hasHostLink = true;
    s.hostLink = *FindLinkProfile("pcie-gen5");
    specs.push_back(s);
    s = Kind("leaf-spine");
    s.radix = 8;
    s.oversubscription = {3, 1};
    specs.push_back(s);
    s = Kind("fat-tree");
    s.radix = 4;
    specs.push_back(s);
    s = Kind("rail-optimized");
    s.gpusPerServer = 4;
    s.serversPerSu = 4;
    s.sus = 2;
    s.hasNvlink = true;
    specs.push_back(s);
    s = Kind("rail-only");
    s.gpusPerServer = 4;
    s.serversPerSu = 2;
    s.sus = 1;
    specs.push_back(s);
    s = Kind("dragonfly-plus");
    s.groups = 3;
    s.leavesPerGroup = 2;
    s.spinesPerGroup = 2;
    s.gpusPerLeaf = 2;
    s.globalLinksPerSpine = 1;
    specs.push_back(s);
    s = Kind("nvlink-domain");
    s.gpusPerServer = 4;
    s.nvlinkSwitches = 2;
    specs.push_back(s);
    return specs;
}

} // namespace

TEST(FabricRouting, EveryKindRunsARingAllReduce)
{
    std::set<std::string> kinds;
    for (const TopologySpec& topo : SmallFabrics())
    {
        ScenarioSpec s;
        s.where.file = "<test>";
        s.name = "routing-" + topo.kind;
        s.stopTime = Seconds(1);
        s.topology = topo;
        const FabricGraph g = BuildFabricGraph(topo);
        const uint32_t p = g.GetGpuCount();
        CollectiveSpec c;
        c.name = "ar";
        c.op = "all-reduce";
        c.algorithm = "ring";
        c.bytes = 256 * 1024 * p;
        s.traffic.collectives.push_back(c);
        const RunResults r = RunScenario(s, RunOptions{});
        EXPECT_TRUE(r.complete) << topo.kind;
        EXPECT_TRUE(r.violations.empty()) << topo.kind;
        ASSERT_EQ(r.collectives.size(), 1u);
        for (const uint64_t b : r.collectives[0].bytesSentPerRank)
        {
            EXPECT_EQ(b, 2 * (p - 1) * c.bytes / p) << topo.kind;
        }
        EXPECT_GT(r.collectives[0].durationS, 0) << topo.kind;
        kinds.insert(topo.kind);
    }
    EXPECT_EQ(kinds.size(), 7u);
}

TEST(FabricRouting, RailOnlyCrossRailTrafficGoesOverNvlinkFirst)
{
    TopologySpec topo = Kind("rail-only");
    topo.gpusPerServer = 4;
    topo.serversPerSu = 2;
    topo.sus = 1;
    const FabricGraph g = BuildFabricGraph(topo);
    ASSERT_TRUE(g.GetGpuRelay());
    const uint32_t src = g.FindGpu(0, 0); // server 0, rail 0
    const uint32_t dst = g.FindGpu(1, 2); // server 1, rail 2
    const uint32_t relay = g.FindGpu(0, 2);
    ASSERT_NE(src, FabricGraph::NONE);
    ASSERT_NE(dst, FabricGraph::NONE);
    const auto path = g.ShortestPath(g.GetGpuNode(src), g.GetGpuNode(dst));
    ASSERT_GE(path.size(), 3u);
    const auto& links = g.GetLinks();
    EXPECT_EQ(links[path[0]].kind, FabricGraph::LinkKind::NVLINK) << "first hop is NVLink";
    // The NVSwitch hands the packet to the GPU on the destination's rail.
    const auto& second = links[path[1]];
    const uint32_t relayNode = g.GetGpuNode(relay);
    EXPECT_TRUE(second.a == relayNode || second.b == relayNode) << "relay GPU on rail 2";
    EXPECT_NE(links[path[2]].kind, FabricGraph::LinkKind::NVLINK) << "then its NIC";
    // Same rail, other server: straight out of the GPU's own NIC.
    const auto direct = g.ShortestPath(g.GetGpuNode(src), g.GetGpuNode(g.FindGpu(1, 0)));
    ASSERT_FALSE(direct.empty());
    EXPECT_NE(links[direct[0]].kind, FabricGraph::LinkKind::NVLINK);

    // And packet by packet: the relay GPU forwards the message.
    Fabric f = FabricBuilder::Build(g, SpecLocation{});
    f.transports[src]->PostSend(dst, 0, 64 * 4096);
    Simulator::Run();
    EXPECT_EQ(f.transports[dst]->GetMessagesDelivered(), 1u);
    ASSERT_TRUE(f.switches[relayNode]);
    EXPECT_EQ(f.switches[relayNode]->GetForwardedPackets(), 64u);
    Simulator::Destroy();
}

TEST(FabricRouting, TrafficInsideAServerStaysOnNvlink)
{
    TopologySpec topo = Kind("rail-optimized");
    topo.gpusPerServer = 4;
    topo.serversPerSu = 4;
    topo.sus = 2;
    topo.hasNvlink = true;
    const FabricGraph g = BuildFabricGraph(topo);
    const auto path = g.ShortestPath(g.GetGpuNode(g.FindGpu(0, 0)), g.GetGpuNode(g.FindGpu(0, 3)));
    ASSERT_EQ(path.size(), 2u);
    for (const uint32_t l : path)
    {
        EXPECT_EQ(g.GetLinks()[l].kind, FabricGraph::LinkKind::NVLINK);
    }
    // Across servers: the GPU's own NIC, never NVLink.
    const auto out = g.ShortestPath(g.GetGpuNode(g.FindGpu(0, 1)), g.GetGpuNode(g.FindGpu(1, 1)));
    ASSERT_FALSE(out.empty());
    for (const uint32_t l : out)
    {
        EXPECT_NE(g.GetLinks()[l].kind, FabricGraph::LinkKind::NVLINK);
    }
}

namespace
{

struct DragonflyRun
{
    uint64_t crossPackets{0};  //!< data packets sent to another group
    uint64_t globalPackets{0}; //!< packets carried by global (inter-group) links
    uint64_t detoured{0};      //!< packets sent on a detour
    uint64_t detoursEnded{0};  //!< detours ended in an intermediate group
    uint64_t upperLane{0};     //!< packets that arrived on lane 1
    uint64_t delivered{0};     //!< messages delivered
};

void
CountLane(uint64_t* upper, Ptr<const Packet> p)
{
    FabricHeader h;
    p->PeekHeader(h);
    *upper += (h.m_kind == FabricHeader::DATA && h.m_priority == 1) ? 1 : 0;
}

/// Every GPU of group 0 sends 32 packets to a GPU of group 1.
DragonflyRun
RunDragonfly(FabricSwitch::PathMode mode)
{
    TopologySpec topo = Kind("dragonfly-plus");
    topo.groups = 4;
    topo.leavesPerGroup = 2;
    topo.spinesPerGroup = 3;
    topo.gpusPerLeaf = 2;
    topo.globalLinksPerSpine = 1;
    const FabricGraph g = BuildFabricGraph(topo);
    FabricBuildOptions options;
    options.pathMode = mode;
    Fabric f = FabricBuilder::Build(g, SpecLocation{}, options);
    const auto& nodes = g.GetNodes();
    std::vector<uint32_t> group0;
    std::vector<uint32_t> group1;
    for (uint32_t gpu = 0; gpu < g.GetGpuCount(); ++gpu)
    {
        const uint32_t grp = nodes[g.GetGpuNode(gpu)].group;
        (grp == 0 ? group0 : group1).push_back(gpu);
        if (grp > 1)
        {
            group1.pop_back();
        }
    }
    DragonflyRun r;
    for (uint32_t gpu = 0; gpu < g.GetGpuCount(); ++gpu)
    {
        f.transports[gpu]->GetNic()->TraceConnectWithoutContext(
            "Rx",
            MakeBoundCallback(&CountLane, &r.upperLane));
    }
    for (std::size_t i = 0; i < group0.size(); ++i)
    {
        f.transports[group0[i]]->PostSend(group1[i % group1.size()], 0, 32 * 4096);
        r.crossPackets += 32;
    }
    Simulator::Run();
    for (uint32_t gpu = 0; gpu < g.GetGpuCount(); ++gpu)
    {
        r.delivered += f.transports[gpu]->GetMessagesDelivered();
    }
    const auto& links = g.GetLinks();
    for (std::size_t l = 0; l < links.size(); ++l)
    {
        const auto& a = nodes[links[l].a];
        const auto& b = nodes[links[l].b];
        if (a.kind == FabricGraph::NodeKind::SWITCH && b.kind == FabricGraph::NodeKind::SWITCH
            && a.group != b.group)
        {
            r.globalPackets
                += f.devicesA[l]->GetStats().txPackets + f.devicesB[l]->GetStats().txPackets;
        }
    }
    for (const auto& sw : f.switches)
    {
        if (sw)
        {
            r.detoured += sw->GetDetoured();
            r.detoursEnded += sw->GetDetoursEnded();
        }
    }
    Simulator::Destroy();
    return r;
}

} // namespace

TEST(FabricRouting, DragonflyPlusValiantCrossesExactlyOneIntermediateGroup)
{
    const DragonflyRun minimal = RunDragonfly(FabricSwitch::MINIMAL);
    EXPECT_EQ(minimal.delivered, 4u);
    EXPECT_EQ(minimal.detoured, 0u);
    EXPECT_EQ(minimal.globalPackets, minimal.crossPackets); // one global hop each
    EXPECT_EQ(minimal.upperLane, 0u);

    const DragonflyRun valiant = RunDragonfly(FabricSwitch::VALIANT);
    EXPECT_EQ(valiant.delivered, 4u);
    // Every inter-group packet is detoured once and its detour ends once, in an
    // intermediate group: two global hops, and the packet finishes on lane 1.
    EXPECT_EQ(valiant.detoured, valiant.crossPackets);
    EXPECT_EQ(valiant.detoursEnded, valiant.crossPackets);
    EXPECT_EQ(valiant.globalPackets, 2 * valiant.crossPackets);
    EXPECT_EQ(valiant.upperLane, valiant.crossPackets);

    // UGAL detours only what the queues justify: between none and all.
    const DragonflyRun ugal = RunDragonfly(FabricSwitch::UGAL);
    EXPECT_EQ(ugal.delivered, 4u);
    EXPECT_EQ(ugal.detoured, ugal.detoursEnded);
    EXPECT_LE(ugal.detoured, ugal.crossPackets);
    EXPECT_EQ(ugal.globalPackets, ugal.crossPackets + ugal.detoured);
}

TEST(FabricRouting, SharedRoutesEqualPerDestinationShortestPaths)
{
    // The builder computes the tables once per attachment switch for single-port GPUs and
    // copies them to the other GPUs behind it; every table must still equal the graph's
    // shortest-path next hops towards that very GPU (port k of a switch is its k-th link).
    std::vector<TopologySpec> specs = SmallFabrics();
    TopologySpec s = Kind("rail-optimized"); // no NVLink: GPUs of one rail switch interleave
    s.gpusPerServer = 4;
    s.serversPerSu = 4;
    s.sus = 2;
    specs.push_back(s);
    s = Kind("fat-tree"); // a NIC node between every GPU and its leaf
    s.radix = 4;
    s.hasHostLink = true;
    s.hostLink = *FindLinkProfile("pcie-gen5");
    specs.push_back(s);
    uint64_t checked = 0;
    for (const TopologySpec& topo : specs)
    {
        const FabricGraph g = BuildFabricGraph(topo);
        const Fabric f = FabricBuilder::Build(g, topo.where, FabricBuildOptions{});
        std::vector<uint32_t> hops;
        for (uint32_t dst = 0; dst < g.GetGpuCount(); ++dst)
        {
            const uint32_t target = g.GetGpuNode(dst);
            const std::vector<uint32_t> dist = g.RouteDistancesTo(target);
            for (uint32_t n = 0; n < g.GetNodes().size(); ++n)
            {
                if (!f.switches[n])
                {
                    continue;
                }
                g.NextHops(n, target, dist, hops);
                const std::vector<uint16_t> expected(hops.begin(), hops.end());
                EXPECT_EQ(f.switches[n]->GetRoute(dst), expected)
                    << topo.kind << ": node " << g.GetNodes()[n].name << " to GPU " << dst;
                ++checked;
            }
        }
        Simulator::Destroy();
    }
    EXPECT_GT(checked, 1000u);
}
