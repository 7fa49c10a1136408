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
