/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Every fabric kind builds into ns-3 objects with verified routing tables and
 * runs a ring all-reduce to completion (through the scenario runner). The routing model's
 * own tests (strategies, tables, NVLink inside servers, PXN relay, Dragonfly+ path choice)
 * are the ns-3 TestSuite ai-fabric-routing (contrib/ai-fabric/test/routing-test-suite.cc).
 */
#include "config/scenario-spec.h"
#include "run/scenario-runner.h"

#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"

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
    s.SetKind(kind);
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
    s.hostLink = *FindLinkProfile("pcie-gen5");
    specs.push_back(s);
    s = Kind("leaf-spine");
    s.As<LeafSpineSpec>().radix = 8;
    s.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
    specs.push_back(s);
    s = Kind("fat-tree");
    s.As<FatTreeSpec>().radix = 4;
    specs.push_back(s);
    s = Kind("rail-optimized");
    s.gpusPerServer = 4;
    s.As<RailOptimizedSpec>().serversPerSu = 4;
    s.As<RailOptimizedSpec>().sus = 2;
    s.hasNvlink = true;
    specs.push_back(s);
    s = Kind("rail-only");
    s.gpusPerServer = 4;
    s.As<RailOnlySpec>().serversPerSu = 2;
    s.As<RailOnlySpec>().sus = 1;
    specs.push_back(s);
    s = Kind("dragonfly-plus");
    s.As<DragonflyPlusSpec>().groups = 3;
    s.As<DragonflyPlusSpec>().leavesPerGroup = 2;
    s.As<DragonflyPlusSpec>().spinesPerGroup = 2;
    s.As<DragonflyPlusSpec>().gpusPerLeaf = 2;
    s.As<DragonflyPlusSpec>().globalLinksPerSpine = 1;
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
        s.name = "routing-" + topo.Kind();
        s.stopTime = Seconds(1);
        s.topology = topo;
        const FabricGraph g = BuildFabricGraph(topo);
        const uint32_t p = g.GetGpuCount();
        CollectiveSpec c;
        c.name = "ar";
        c.op = ns3::CollectiveOp::ALL_REDUCE;
        c.algorithm = "ring";
        c.bytes = 256 * 1024 * p;
        s.traffic.collectives.push_back(c);
        const RunResults r = RunScenario(s, RunOptions{});
        EXPECT_TRUE(r.complete) << topo.Kind();
        EXPECT_TRUE(r.violations.empty()) << topo.Kind();
        ASSERT_EQ(r.collectives.size(), 1u);
        for (const uint64_t b : r.collectives[0].bytesSentPerRank)
        {
            EXPECT_EQ(b, 2 * (p - 1) * c.bytes / p) << topo.Kind();
        }
        EXPECT_GT(r.collectives[0].durationS, 0) << topo.Kind();
        kinds.insert(topo.Kind());
    }
    EXPECT_EQ(kinds.size(), 7u);
}
