/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Topology generators (fabric-topology.h) and the analyzer (topology-analyzer.h):
 * counts against the closed forms of FACTS.md section 1, bisection formula against
 * max-flow, reachability on every generator, and the errors of bad configurations.
 */
#include "config/scenario-spec.h"
#include "output/topology-report-writer.h"

#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-topology.h"
#include "ns3/link-profile.h"
#include "ns3/simulator.h"
#include "ns3/spec-error.h"
#include "ns3/topology-analyzer.h"

#include <chrono>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A topology of \p kind with ib-ndr links (400 Gb/s).
TopologySpec
Spec(const std::string& kind)
{
    TopologySpec s;
    s.where.file = "<test>";
    s.name = kind;
    s.SetKind(kind);
    s.link = *FindLinkProfile("ib-ndr");
    return s;
}

/// \return the ib-ndr rate, bits per second
double
Ndr()
{
    return static_cast<double>(FindLinkProfile("ib-ndr")->rate.GetBitRate());
}

/// \return the message of the SpecError that building \p spec throws ("" if none)
std::string
BuildError(const TopologySpec& spec)
{
    try
    {
        BuildFabricGraph(spec);
    }
    catch (const SpecError& e)
    {
        return e.Message();
    }
    return "";
}

/// \return switches of tier \p tier
uint32_t
SwitchesInTier(const FabricGraph& g, uint32_t tier)
{
    uint32_t n = 0;
    for (const auto& node : g.GetNodes())
    {
        n += node.kind == FabricGraph::NodeKind::SWITCH && node.tier == tier;
    }
    return n;
}

/// \return links of kind \p kind
uint32_t
LinksOfKind(const FabricGraph& g, FabricGraph::LinkKind kind)
{
    uint32_t n = 0;
    for (const auto& l : g.GetLinks())
    {
        n += l.kind == kind;
    }
    return n;
}

/**
 * \brief Every GPU reaches every other GPU through switches and NICs (or, with
 * \p relay, also through relaying GPUs).
 * \param g the graph
 * \param relay allow GPUs to relay (rail-only PXN)
 * \return the number of unreachable ordered pairs
 */
uint64_t
UnreachablePairs(const FabricGraph& g, bool relay)
{
    uint64_t bad = 0;
    for (uint32_t dst = 0; dst < g.GetGpuCount(); ++dst)
    {
        const auto d
            = relay ? g.RelayDistancesTo(g.GetGpuNode(dst)) : g.DistancesTo(g.GetGpuNode(dst));
        for (uint32_t src = 0; src < g.GetGpuCount(); ++src)
        {
            bad += d[g.GetGpuNode(src)] == UINT32_MAX;
        }
    }
    return bad;
}

/// Print the analyzer's figures (they go into the test log for the report).
void
Show(const TopologyReport& r)
{
    std::cout << "[" << r.name << "] formula " << r.bisection.formulaBps / 1e9 << " Gb/s, max-flow "
              << r.bisection.maxFlowBps / 1e9 << " Gb/s, worst " << r.bisection.worstBps / 1e9
              << " Gb/s (" << r.bisection.worstSplit << ", " << r.bisection.splitsTried
              << " splits), full " << r.bisection.fullBps / 1e9 << " Gb/s, diameter "
              << r.paths.diameterHops << ", paths " << r.paths.minPaths << "/" << r.paths.meanPaths
              << "/" << r.paths.maxPaths << ", " << r.analysisSeconds << " s\n";
}

// ------------------------------------------------------------------- fat-tree

class KAryFatTree : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(KAryFatTree, CountsAndBisectionAreAlFares)
{
    const uint32_t k = GetParam();
    TopologySpec spec = Spec("fat-tree");
    spec.name = "fat-tree-k" + std::to_string(k);
    spec.As<FatTreeSpec>().radix = k;
    const FabricGraph g = BuildFabricGraph(spec);
    // FACTS.md 1.1: k^3/4 hosts, 5k^2/4 switches (k^2/2 edge, k^2/2 aggregation, k^2/4
    // core), 3k^3/4 links.
    EXPECT_EQ(g.GetGpuCount(), k * k * k / 4);
    EXPECT_EQ(g.GetSwitchCount(), 5 * k * k / 4);
    EXPECT_EQ(g.GetLinks().size(), 3 * k * k * k / 4);
    EXPECT_EQ(SwitchesInTier(g, 1), k * k / 2);
    EXPECT_EQ(SwitchesInTier(g, 2), k * k / 2);
    EXPECT_EQ(SwitchesInTier(g, 3), k * k / 4);
    EXPECT_EQ(UnreachablePairs(g, false), 0u);

    const TopologyReport r = AnalyzeTopology(g, spec);
    Show(r);
    const double full = g.GetGpuCount() / 2 * Ndr(); // N/2 x B
    EXPECT_TRUE(r.bisection.hasFormula);
    EXPECT_DOUBLE_EQ(r.bisection.formulaBps, full);
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, full);
    EXPECT_DOUBLE_EQ(r.bisection.fullBps, full);
    EXPECT_DOUBLE_EQ(r.bisection.worstBps, full); // rearrangeably non-blocking
    EXPECT_TRUE(r.bisection.formulaAgrees);
    EXPECT_FALSE(r.bisection.worstBelowFormula);
    EXPECT_EQ(r.bisection.sideA, g.GetGpuCount() / 2);
    // Hosts in different pods: (k/2)^2 equal-cost paths, one per core, 6 links.
    EXPECT_EQ(r.paths.diameterHops, 6u);
    EXPECT_DOUBLE_EQ(r.paths.maxPaths, (k / 2) * (k / 2));
    EXPECT_DOUBLE_EQ(r.paths.minPaths, 1); // two hosts on one edge switch
    ASSERT_EQ(r.oversubscription.size(), 2u);
    EXPECT_DOUBLE_EQ(r.oversubscription[0].minRatio, 1);
    EXPECT_DOUBLE_EQ(r.oversubscription[1].maxRatio, 1);
}

INSTANTIATE_TEST_SUITE_P(Topology, KAryFatTree, ::testing::Values(4u, 8u));

TEST(Topology, ThreeTierFatTreeMultipliesItsOversubscriptions)
{
    // radix 8: leaf 3:1 -> 6 down, 2 up; spine 1:1 -> 4 down, 4 up; 8 pods.
    TopologySpec spec = Spec("fat-tree");
    spec.As<FatTreeSpec>().radix = 8;
    spec.As<FatTreeSpec>().oversubscription = OversubscriptionRatio{3, 1};
    const FabricGraph g = BuildFabricGraph(spec);
    const FatTreeSizing z = ResolveFatTree(spec);
    EXPECT_EQ(z.gpusPerLeaf, 6u);
    EXPECT_EQ(z.spinesPerPod, 2u);
    EXPECT_EQ(z.leavesPerPod, 4u);
    EXPECT_EQ(z.spineUplinks, 4u);
    EXPECT_EQ(z.cores, 8u);
    EXPECT_EQ(g.GetGpuCount(), 8u * 4 * 6);
    const TopologyReport r = AnalyzeTopology(g, spec);
    Show(r);
    // N B / (2 x 3 x 1)
    EXPECT_DOUBLE_EQ(r.bisection.formulaBps, g.GetGpuCount() * Ndr() / 6);
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, r.bisection.formulaBps);
    EXPECT_FALSE(r.bisection.worstBelowFormula);

    // Both tiers oversubscribed: leaf 3:1, spine 2:1 (radix 6: 4 down, 2 up... radix 12).
    spec.As<FatTreeSpec>().radix = 12;
    spec.As<FatTreeSpec>().oversubscription = OversubscriptionRatio{3, 1};      // 9 down, 3 up
    spec.As<FatTreeSpec>().spineOversubscription = OversubscriptionRatio{2, 1}; // 8 down, 4 up
    spec.As<FatTreeSpec>().pods = 4;
    const FabricGraph g2 = BuildFabricGraph(spec);
    EXPECT_EQ(g2.GetGpuCount(), 4u * 8 * 9);
    const TopologyReport r2 = AnalyzeTopology(g2, spec);
    Show(r2);
    EXPECT_DOUBLE_EQ(r2.bisection.formulaBps, g2.GetGpuCount() * Ndr() / (2 * 3 * 2));
    EXPECT_DOUBLE_EQ(r2.bisection.maxFlowBps, r2.bisection.formulaBps);
    ASSERT_EQ(r2.oversubscription.size(), 2u);
    EXPECT_DOUBLE_EQ(r2.oversubscription[0].minRatio, 3);
    EXPECT_DOUBLE_EQ(r2.oversubscription[1].minRatio, 2);
}

// ----------------------------------------------------------------- leaf-spine

TEST(Topology, LeafSpineAtThreeToOneHasAThirdOfFullBisection)
{
    TopologySpec spec = Spec("leaf-spine");
    spec.As<LeafSpineSpec>().radix = 16;
    spec.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
    const FabricGraph g = BuildFabricGraph(spec);
    // FACTS.md 1.2: k r/(r+1) = 12 down, k/(r+1) = 4 up, k = 16 leaves, 4 spines.
    EXPECT_EQ(g.GetGpuCount(), 16u * 12);
    EXPECT_EQ(SwitchesInTier(g, 1), 16u);
    EXPECT_EQ(SwitchesInTier(g, 2), 4u);
    const TopologyReport r = AnalyzeTopology(g, spec);
    Show(r);
    const double full = g.GetGpuCount() / 2 * Ndr();
    EXPECT_DOUBLE_EQ(r.bisection.formulaBps, full / 3);
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, full / 3);
    EXPECT_DOUBLE_EQ(r.bisection.fullBps, full);
    EXPECT_FALSE(r.bisection.worstBelowFormula);
    ASSERT_EQ(r.oversubscription.size(), 1u);
    EXPECT_DOUBLE_EQ(r.oversubscription[0].minRatio, 3);
    EXPECT_EQ(r.oversubscription[0].name, "leaf");

    // The same fabric by explicit port counts.
    TopologySpec ports = Spec("leaf-spine");
    ports.As<LeafSpineSpec>().leaves = 16;
    ports.As<LeafSpineSpec>().gpusPerLeaf = 12;
    ports.As<LeafSpineSpec>().uplinks = 4;
    const FabricGraph g2 = BuildFabricGraph(ports);
    EXPECT_EQ(g2.GetGpuCount(), g.GetGpuCount());
    EXPECT_EQ(g2.GetLinks().size(), g.GetLinks().size());
    EXPECT_DOUBLE_EQ(AnalyzeTopology(g2, ports).bisection.maxFlowBps, full / 3);
}

TEST(Topology, LeafSpineKeepsItsOriginalFieldsAndWiring)
{
    TopologySpec spec = Spec("leaf-spine");
    spec.As<LeafSpineSpec>().leaves = 2;
    spec.As<LeafSpineSpec>().spines = 2;
    spec.As<LeafSpineSpec>().gpusPerLeaf = 2;
    spec.As<LeafSpineSpec>().linksPerSpine = 2;
    const FabricGraph g = BuildFabricGraph(spec);
    // Spines first, then per leaf: the leaf, its GPUs, its uplinks (port order for ECMP).
    std::vector<std::string> names;
    for (const auto& n : g.GetNodes())
    {
        names.push_back(n.name);
    }
    EXPECT_EQ(
        names,
        (std::vector<
            std::string>{"spine0", "spine1", "leaf0", "gpu0", "gpu1", "leaf1", "gpu2", "gpu3"}));
    ASSERT_EQ(g.GetLinks().size(), 4u + 2 * 2 * 2);
    EXPECT_EQ(g.GetLinks()[0].a, 3u); // gpu0 - leaf0
    EXPECT_EQ(g.GetLinks()[0].b, 2u);
    EXPECT_EQ(g.GetLinks()[2].b, 0u); // leaf0 - spine0, twice
    EXPECT_EQ(g.GetLinks()[3].b, 0u);
    EXPECT_EQ(g.GetProfiles().size(), 1u);
    const TopologyReport r = AnalyzeTopology(g, spec);
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, 2 * Ndr());
    EXPECT_DOUBLE_EQ(r.paths.maxPaths, 8); // 2 spines x 2 parallel links up x 2 down
}

TEST(Topology, OversubscriptionParsesAndRejectsUnrealisableRatios)
{
    OversubscriptionRatio r;
    EXPECT_TRUE(ParseOversubscription("3:1", r));
    EXPECT_EQ(r.numerator, 3u);
    EXPECT_EQ(r.denominator, 1u);
    EXPECT_TRUE(ParseOversubscription("6:2", r));
    EXPECT_EQ(FormatRatio(r), "3:1");
    EXPECT_TRUE(ParseOversubscription("2", r));
    EXPECT_EQ(FormatRatio(r), "2:1");
    EXPECT_TRUE(ParseOversubscription(" 3 : 2 ", r));
    EXPECT_EQ(FormatRatio(r), "3:2");
    for (const char* bad : {"", "0:1", "3:0", "a:b", "3:", ":1", "1.5:1", "-3:1"})
    {
        EXPECT_FALSE(ParseOversubscription(bad, r)) << bad;
    }

    TopologySpec spec = Spec("leaf-spine");
    spec.As<LeafSpineSpec>().radix = 30;
    spec.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
    const std::string e = BuildError(spec);
    EXPECT_NE(e.find("needs a radix divisible by 4"), std::string::npos) << e;
    EXPECT_NE(e.find("use radix 28 or 32"), std::string::npos) << e;
    EXPECT_NE(e.find("2:1, 4:1, 5:1"), std::string::npos) << e;

    spec.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
    spec.As<LeafSpineSpec>().radix = 32;
    spec.As<LeafSpineSpec>().gpusPerLeaf = 20; // 3:1 of 32 is 24 down
    EXPECT_NE(BuildError(spec).find("gpus_per_leaf 20 conflicts with radix 32"), std::string::npos);

    TopologySpec tooMany = Spec("leaf-spine");
    tooMany.As<LeafSpineSpec>().radix = 8;
    tooMany.As<LeafSpineSpec>().gpusPerLeaf = 6;
    tooMany.As<LeafSpineSpec>().uplinks = 4;
    EXPECT_NE(BuildError(tooMany).find("more than the radix 8"), std::string::npos)
        << BuildError(tooMany);

    TopologySpec odd = Spec("fat-tree");
    odd.As<FatTreeSpec>().radix = 7;
    EXPECT_NE(BuildError(odd).find("radix 7 is odd"), std::string::npos) << BuildError(odd);
}

// ------------------------------------------------------------- dragonfly-plus

struct DragonflyCase
{
    uint32_t groups;    //!< G
    uint32_t leaves;    //!< leaves per group
    uint32_t spines;    //!< spines per group
    uint32_t hosts;     //!< GPUs per leaf
    uint32_t global;    //!< global links per spine
    uint32_t pairLinks; //!< expected links per group pair
};

class DragonflyPlus : public ::testing::TestWithParam<DragonflyCase>
{
};

TEST_P(DragonflyPlus, BisectionFormulaEqualsMaxFlow)
{
    const DragonflyCase c = GetParam();
    TopologySpec spec = Spec("dragonfly-plus");
    spec.As<DragonflyPlusSpec>().groups = c.groups;
    spec.As<DragonflyPlusSpec>().leavesPerGroup = c.leaves;
    spec.As<DragonflyPlusSpec>().spinesPerGroup = c.spines;
    spec.As<DragonflyPlusSpec>().gpusPerLeaf = c.hosts;
    spec.As<DragonflyPlusSpec>().globalLinksPerSpine = c.global;
    spec.name = "dfp-g" + std::to_string(c.groups) + "-l" + std::to_string(c.leaves) + "-s"
                + std::to_string(c.spines) + "-p" + std::to_string(c.hosts) + "-h"
                + std::to_string(c.global);
    const FabricGraph g = BuildFabricGraph(spec);
    const DragonflyPlusSizing z = ResolveDragonflyPlus(spec);
    EXPECT_EQ(z.linksPerGroupPair, c.pairLinks);
    EXPECT_EQ(g.GetGpuCount(), c.groups * c.leaves * c.hosts);
    // GPU links + leaf-spine links + global links (each counted once).
    EXPECT_EQ(g.GetLinks().size(),
              c.groups * c.leaves * c.hosts + c.groups * c.leaves * c.spines
                  + c.groups * c.spines * c.global / 2);
    // Every spine uses exactly its global ports; every group pair has pairLinks links.
    std::vector<uint32_t> globalPorts(g.GetNodes().size(), 0);
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> pairs;
    for (const auto& l : g.GetLinks())
    {
        const auto& a = g.GetNodes()[l.a];
        const auto& b = g.GetNodes()[l.b];
        if (a.tier == 2 && b.tier == 2 && a.kind == FabricGraph::NodeKind::SWITCH
            && b.kind == FabricGraph::NodeKind::SWITCH)
        {
            ++globalPorts[l.a];
            ++globalPorts[l.b];
            ++pairs[{std::min(a.group, b.group), std::max(a.group, b.group)}];
            EXPECT_NE(a.group, b.group);
        }
    }
    for (uint32_t i = 0; i < g.GetNodes().size(); ++i)
    {
        const auto& n = g.GetNodes()[i];
        if (n.kind == FabricGraph::NodeKind::SWITCH && n.tier == 2)
        {
            EXPECT_EQ(globalPorts[i], c.global) << n.name;
        }
    }
    EXPECT_EQ(pairs.size(), c.groups * (c.groups - 1) / 2);
    for (const auto& [key, count] : pairs)
    {
        EXPECT_EQ(count, c.pairLinks);
    }
    EXPECT_EQ(UnreachablePairs(g, false), 0u);

    const TopologyReport r = AnalyzeTopology(g, spec);
    Show(r);
    EXPECT_TRUE(r.bisection.formulaAgrees)
        << r.bisection.formulaBps << " vs " << r.bisection.maxFlowBps;
    EXPECT_DOUBLE_EQ(r.bisection.formulaBps, r.bisection.maxFlowBps);
    EXPECT_DOUBLE_EQ(r.bisection.missionF15Bps,
                     static_cast<double>(c.groups) * c.spines * c.global * Ndr());
    EXPECT_LE(r.paths.diameterHops, 6u); // gpu-leaf-spine-(global)-spine-leaf-gpu
}

INSTANTIATE_TEST_SUITE_P(Topology,
                         DragonflyPlus,
                         ::testing::Values(
                             // p = l = s = h = k/2 = 2 (FACTS.md 1.6), max groups s h + 1 = 5
                             DragonflyCase{5, 2, 2, 2, 2, 1},
                             // even groups, 2 links per pair
                             DragonflyCase{4, 2, 3, 3, 2, 2},
                             // k = 8 balanced: p = l = s = h = 4, 17 groups
                             DragonflyCase{17, 4, 4, 4, 4, 1},
                             // global-limited: few global links, many hosts
                             DragonflyCase{8, 4, 7, 8, 1, 1},
                             // host-limited: 1 host per leaf
                             DragonflyCase{6, 2, 5, 1, 5, 5}));

TEST(Topology, DragonflyPlusRejectsUnwirableGroups)
{
    TopologySpec spec = Spec("dragonfly-plus");
    spec.As<DragonflyPlusSpec>().groups = 7;
    spec.As<DragonflyPlusSpec>().leavesPerGroup = 2;
    spec.As<DragonflyPlusSpec>().spinesPerGroup = 2;
    spec.As<DragonflyPlusSpec>().gpusPerLeaf = 2;
    spec.As<DragonflyPlusSpec>().globalLinksPerSpine
        = 2; // 4 global links per group over 6 other groups
    const std::string e = BuildError(spec);
    EXPECT_NE(e.find("cannot be spread evenly over the 6 other groups"), std::string::npos) << e;
    EXPECT_NE(e.find("some pairs of groups would get no link"), std::string::npos) << e;
    EXPECT_NE(e.find("use groups 2, 3, 5"), std::string::npos) << e;
    spec.As<DragonflyPlusSpec>().groups = 1;
    EXPECT_NE(BuildError(spec).find("at least 2 groups"), std::string::npos);
    spec.As<DragonflyPlusSpec>().groups = 5;
    spec.As<DragonflyPlusSpec>().radix = 3; // leaf 2 + 2 ports
    EXPECT_NE(BuildError(spec).find("more than the radix 3"), std::string::npos);
}

// ---------------------------------------------------------------- rail kinds

TEST(Topology, RailOptimizedMatchesTheDgxH100ReferenceArchitecture)
{
    // FACTS.md 1.3, RA-11333-001 Table 4: per SU 8 leaves; spines 4, 8, 16, 16 for 1-4
    // SUs; leaf-spine cables 256 per SU (32 nodes per SU here: the RA gives one leaf port
    // per rail to UFM, hence 31 nodes and 248 GPUs per SU there).
    const uint32_t spines[] = {4, 8, 16, 16};
    for (uint32_t sus = 1; sus <= 4; ++sus)
    {
        TopologySpec spec = Spec("rail-optimized");
        spec.As<RailOptimizedSpec>().sus = sus;
        const FabricGraph g = BuildFabricGraph(spec);
        EXPECT_EQ(g.GetGpuCount(), 256 * sus);
        EXPECT_EQ(SwitchesInTier(g, 1), 8 * sus);
        EXPECT_EQ(SwitchesInTier(g, 2), spines[sus - 1]) << sus << " SUs";
        EXPECT_EQ(g.GetLinks().size(), 256u * sus + 256u * sus);
        EXPECT_EQ(SwitchesInTier(g, 0), 0u); // no NVLink unless asked
    }

    TopologySpec spec = Spec("rail-optimized");
    spec.hasNvlink = true;
    const FabricGraph g = BuildFabricGraph(spec);
    EXPECT_EQ(g.GetGpuCount(), 256u);
    EXPECT_EQ(SwitchesInTier(g, 0), 32u); // one NVSwitch node per server
    EXPECT_EQ(LinksOfKind(g, FabricGraph::LinkKind::NVLINK), 256u);
    EXPECT_EQ(g.GetProfiles().back().technology, "nvlink");
    EXPECT_EQ(g.GetProfiles().back().rate.GetBitRate(), 3600000000000ULL); // nvlink4
    // Rail alignment: NIC r of every server on rail switch r.
    for (uint32_t gpu = 0; gpu < g.GetGpuCount(); ++gpu)
    {
        const auto& node = g.GetNodes()[g.GetGpuNode(gpu)];
        EXPECT_EQ(node.server, gpu / 8);
        EXPECT_EQ(node.rail, gpu % 8);
        EXPECT_EQ(g.FindGpu(node.server, node.rail), gpu);
        const uint32_t link = g.GetGpuNicLink(gpu);
        ASSERT_NE(link, FabricGraph::NONE);
        const auto& l = g.GetLinks()[link];
        const auto& sw = g.GetNodes()[l.a == g.GetGpuNode(gpu) ? l.b : l.a];
        EXPECT_EQ(sw.tier, 1u);
        EXPECT_EQ(sw.rail, node.rail);
        EXPECT_EQ(g.GetAdjacency(g.GetGpuNode(gpu)).size(), 2u); // NIC + NVLink
    }
    EXPECT_EQ(UnreachablePairs(g, false), 0u);
    const TopologyReport r = AnalyzeTopology(g, spec);
    Show(r);
    EXPECT_EQ(r.servers, 32u);
    EXPECT_DOUBLE_EQ(r.bisection.formulaBps, 128 * Ndr()); // N/2 x B
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, 128 * Ndr());
    EXPECT_FALSE(r.bisection.worstBelowFormula);
    EXPECT_EQ(r.paths.diameterHops, 4u); // gpu-rail-spine-rail-gpu
}

TEST(Topology, RailOptimizedBisectionWithOversubscriptionAndCoreTier)
{
    // Two SUs at 2:1 on the rail switches: N B / 4.
    TopologySpec spec = Spec("rail-optimized");
    spec.As<RailOptimizedSpec>().sus = 2;
    spec.As<RailOptimizedSpec>().oversubscription = OversubscriptionRatio{2, 1};
    const RailSizing z = ResolveRail(spec);
    EXPECT_EQ(z.railUplinks, 16u);
    EXPECT_EQ(z.spines, 8u); // fewest dividing 16 with 16 x 16 / P <= 48 ports
    const FabricGraph g = BuildFabricGraph(spec);
    const TopologyReport r = AnalyzeTopology(g, spec);
    Show(r);
    EXPECT_DOUBLE_EQ(r.bisection.formulaBps, g.GetGpuCount() * Ndr() / 4);
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, r.bisection.formulaBps);
    EXPECT_FALSE(r.bisection.worstBelowFormula);

    // One SU without NVLink: rails meet only at the spines, so the formula splits rails.
    TopologySpec one = Spec("rail-optimized");
    one.name = "rail-1su-2to1";
    one.As<RailOptimizedSpec>().oversubscription = OversubscriptionRatio{2, 1};
    const FabricGraph g1 = BuildFabricGraph(one);
    const TopologyReport r1 = AnalyzeTopology(g1, one);
    Show(r1);
    EXPECT_DOUBLE_EQ(r1.bisection.formulaBps, 4 * 16 * Ndr()); // floor(8/2) x 16 uplinks x B
    EXPECT_DOUBLE_EQ(r1.bisection.maxFlowBps, r1.bisection.formulaBps);
    EXPECT_FALSE(r1.bisection.worstBelowFormula);

    // Three tiers, scaled down from the B200 RA: 4 SUs of 4 servers x 4 GPUs, radix 8.
    TopologySpec three = Spec("rail-optimized");
    three.name = "rail-3tier";
    three.gpusPerServer = 4;
    three.As<RailOptimizedSpec>().serversPerSu = 4;
    three.As<RailOptimizedSpec>().sus = 4;
    three.As<RailOptimizedSpec>().spinesPerSu = 4;
    three.As<RailOptimizedSpec>().radix = 8;
    const RailSizing t = ResolveRail(three);
    EXPECT_EQ(t.railUplinks, 4u);
    EXPECT_EQ(t.spineUplinks, 4u);
    EXPECT_EQ(t.coresPerGroup, 2u);
    EXPECT_EQ(t.linksPerCore, 2u);
    const FabricGraph g3 = BuildFabricGraph(three);
    EXPECT_EQ(g3.GetGpuCount(), 64u);
    EXPECT_EQ(SwitchesInTier(g3, 1), 16u);
    EXPECT_EQ(SwitchesInTier(g3, 2), 16u);
    EXPECT_EQ(SwitchesInTier(g3, 3), 8u);
    EXPECT_EQ(UnreachablePairs(g3, false), 0u);
    const TopologyReport r3 = AnalyzeTopology(g3, three);
    Show(r3);
    EXPECT_DOUBLE_EQ(r3.bisection.formulaBps, 32 * Ndr());
    EXPECT_DOUBLE_EQ(r3.bisection.maxFlowBps, 32 * Ndr());

    // B200 RA counts (FACTS.md 1.3): 16 SUs -> 128 leaf, 128 spine, 64 core switches.
    TopologySpec b200 = Spec("rail-optimized");
    b200.As<RailOptimizedSpec>().sus = 16;
    b200.As<RailOptimizedSpec>().spinesPerSu = 8;
    const auto t0 = std::chrono::steady_clock::now();
    const FabricGraph gb = BuildFabricGraph(b200);
    const double ms
        = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "[b200-16su] " << gb.GetGpuCount() << " GPUs, " << gb.GetLinks().size()
              << " links built in " << ms << " ms\n";
    EXPECT_EQ(gb.GetGpuCount(), 4096u);
    EXPECT_EQ(SwitchesInTier(gb, 1), 128u);
    EXPECT_EQ(SwitchesInTier(gb, 2), 128u);
    EXPECT_EQ(SwitchesInTier(gb, 3), 64u);
    EXPECT_EQ(gb.GetLinks().size(), 3u * 4096); // cable counts equal the GPU count per tier
}

TEST(Topology, RailOnlyNeedsNvlinkRelaysAcrossRails)
{
    TopologySpec spec = Spec("rail-only");
    const FabricGraph g = BuildFabricGraph(spec);
    EXPECT_EQ(g.GetGpuCount(), 256u);
    EXPECT_EQ(SwitchesInTier(g, 1), 8u);
    EXPECT_EQ(SwitchesInTier(g, 2), 0u); // no spine
    EXPECT_EQ(SwitchesInTier(g, 0), 32u);
    EXPECT_EQ(g.GetLinks().size(), 256u + 256u);
    // Same rail or same server: direct; other rail on another server: only via a relay.
    const auto d = g.DistancesTo(g.GetGpuNode(0)); // server 0, rail 0
    EXPECT_EQ(d[g.GetGpuNode(8)], 2u);             // server 1, rail 0
    EXPECT_EQ(d[g.GetGpuNode(1)], 2u);             // server 0, rail 1 over NVLink
    EXPECT_EQ(d[g.GetGpuNode(9)], UINT32_MAX);     // server 1, rail 1
    EXPECT_EQ(g.RelayDistancesTo(g.GetGpuNode(0))[g.GetGpuNode(9)], 4u);
    EXPECT_EQ(UnreachablePairs(g, true), 0u);
    // PXN relay of GPU 9 (server 1, rail 1) towards rail 0: GPU 8.
    EXPECT_EQ(g.FindGpu(1, 0), 8u);

    const TopologyReport r = AnalyzeTopology(g, spec);
    Show(r);
    EXPECT_GT(r.paths.relayPairs, 0u);
    EXPECT_EQ(r.paths.unreachablePairs, 0u);
    EXPECT_EQ(r.paths.diameterHops, 4u);
    EXPECT_DOUBLE_EQ(r.bisection.formulaBps, 128 * Ndr());
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, 128 * Ndr());

    // Two SUs: one spine per rail (2 x 32 uplinks fit radix 64).
    spec.As<RailOnlySpec>().sus = 2;
    const RailSizing z = ResolveRail(spec);
    EXPECT_EQ(z.spines, 1u);
    EXPECT_EQ(z.linksPerSpine, 32u);
    const FabricGraph g2 = BuildFabricGraph(spec);
    EXPECT_EQ(SwitchesInTier(g2, 2), 8u);
    EXPECT_EQ(UnreachablePairs(g2, true), 0u);
    const TopologyReport r2 = AnalyzeTopology(g2, spec);
    Show(r2);
    EXPECT_DOUBLE_EQ(r2.bisection.formulaBps, 256 * Ndr());
    EXPECT_DOUBLE_EQ(r2.bisection.maxFlowBps, 256 * Ndr());
}

TEST(Topology, RailKindsRejectBadConfigurations)
{
    TopologySpec spec = Spec("rail-optimized");
    spec.As<RailOptimizedSpec>().spines = 5; // 32 uplinks over 5 spines
    EXPECT_NE(BuildError(spec).find("cannot be spread evenly over spines 5"), std::string::npos)
        << BuildError(spec);
    spec.As<RailOptimizedSpec>().spines.reset();
    spec.As<RailOptimizedSpec>().sus = 3;
    spec.As<RailOptimizedSpec>().radix = 40; // 32 down + 8 up; 24 rail switches x 8 uplinks
    spec.As<RailOptimizedSpec>().railUplinks = 8;
    EXPECT_EQ(BuildError(spec), "");
    spec.As<RailOptimizedSpec>().radix = 16;
    EXPECT_NE(BuildError(spec).find("more than the radix 16"), std::string::npos)
        << BuildError(spec);

    TopologySpec only = Spec("rail-only");
    only.As<RailOnlySpec>().railUplinks = 16;
    EXPECT_NE(BuildError(only).find("no spine tier"), std::string::npos);
    only.As<RailOnlySpec>().railUplinks.reset();
    only.gpusPerServer = 1;
    EXPECT_NE(BuildError(only).find("at least 2 GPUs per server"), std::string::npos)
        << BuildError(only);

    TopologySpec both = Spec("rail-optimized");
    both.As<RailOptimizedSpec>().spines = 4;
    both.As<RailOptimizedSpec>().spinesPerSu = 2;
    EXPECT_NE(BuildError(both).find("exclude each other"), std::string::npos);
}

// -------------------------------------------------------------- NVLink domains

TEST(Topology, NvlinkDomainsDgxAndNvl72)
{
    TopologySpec dgx = Spec("nvlink-domain");
    dgx.gpusPerServer = 8;
    const FabricGraph g = BuildFabricGraph(dgx);
    EXPECT_EQ(g.GetGpuCount(), 8u);
    EXPECT_EQ(g.GetSwitchCount(), 1u);
    EXPECT_EQ(g.GetLinks().size(), 8u);
    EXPECT_EQ(g.GetGpuNicLink(0), FabricGraph::NONE);
    const TopologyReport r = AnalyzeTopology(g, dgx);
    Show(r);
    EXPECT_DOUBLE_EQ(r.bisection.formulaBps, 4 * 3600e9);
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, 4 * 3600e9);
    EXPECT_EQ(r.paths.diameterHops, 2u);

    // GB200 NVL72 (FACTS.md 1.7): 72 GPUs, 18 switch chips, one link from every GPU to
    // every chip: 1296 links of 7200/18 = 400 Gb/s.
    TopologySpec nvl72 = Spec("nvlink-domain");
    nvl72.name = "nvl72";
    nvl72.gpusPerServer = 72;
    nvl72.nvlinkSwitches = 18;
    nvl72.nvlinkProfile = *FindLinkProfile("nvlink5");
    const FabricGraph g72 = BuildFabricGraph(nvl72);
    EXPECT_EQ(g72.GetGpuCount(), 72u);
    EXPECT_EQ(g72.GetSwitchCount(), 18u);
    EXPECT_EQ(g72.GetLinks().size(), 72u * 18);
    EXPECT_EQ(g72.GetProfiles().back().rate.GetBitRate(), 400000000000ULL);
    const TopologyReport r72 = AnalyzeTopology(g72, nvl72);
    Show(r72);
    EXPECT_DOUBLE_EQ(r72.bisection.formulaBps, 36 * 7200e9);
    EXPECT_DOUBLE_EQ(r72.bisection.maxFlowBps, 36 * 7200e9);
    EXPECT_DOUBLE_EQ(r72.paths.minPaths, 18); // one 2-hop path per switch chip

    // Composable: a leaf-spine of 8-GPU servers with NVLink.
    TopologySpec ls = Spec("leaf-spine");
    ls.As<LeafSpineSpec>().leaves = 4;
    ls.As<LeafSpineSpec>().spines = 2;
    ls.As<LeafSpineSpec>().gpusPerLeaf = 8;
    ls.gpusPerServer = 8;
    ls.hasNvlink = true;
    const FabricGraph gl = BuildFabricGraph(ls);
    EXPECT_EQ(SwitchesInTier(gl, 0), 4u);
    EXPECT_EQ(LinksOfKind(gl, FabricGraph::LinkKind::NVLINK), 32u);
    EXPECT_EQ(UnreachablePairs(gl, false), 0u);
    ls.gpusPerServer = 3;
    EXPECT_NE(BuildError(ls).find("do not fill servers of gpus_per_server 3 (2 left over)"),
              std::string::npos)
        << BuildError(ls);
    ls.gpusPerServer.reset();
    EXPECT_NE(BuildError(ls).find("needs gpus_per_server"), std::string::npos);
}

// --------------------------------------------------------------------- custom

/// A custom node.
CustomSpec::Node
Node(const std::string& name, const std::string& kind, uint32_t tier, int line)
{
    CustomSpec::Node n;
    n.where.file = "<test>";
    n.where.line = line;
    n.name = name;
    n.kind = kind;
    n.tier = tier;
    return n;
}

/// A custom link.
CustomSpec::Link
Link(const std::string& a, const std::string& b, int line)
{
    CustomSpec::Link l;
    l.where.file = "<test>";
    l.where.line = line;
    l.a = a;
    l.b = b;
    return l;
}

/// Two GPUs on two switches joined by two links, plus an NVLink between the GPUs' switch.
TopologySpec
CustomFabric()
{
    TopologySpec s = Spec("custom");
    s.As<CustomSpec>().nodes = {Node("a", "gpu", 0, 1),
                                Node("b", "gpu", 0, 2),
                                Node("c", "gpu", 0, 3),
                                Node("s1", "switch", 1, 4),
                                Node("s2", "switch", 1, 5)};
    s.As<CustomSpec>().links = {Link("a", "s1", 10),
                                Link("b", "s1", 11),
                                Link("c", "s2", 12),
                                Link("s1", "s2", 13),
                                Link("s1", "s2", 14)};
    CustomSpec::Link nv = Link("a", "b", 15);
    nv.profile = *FindLinkProfile("nvlink4");
    s.As<CustomSpec>().links.push_back(nv);
    return s;
}

TEST(Topology, CustomGraphsAndTheirErrors)
{
    const TopologySpec spec = CustomFabric();
    const FabricGraph g = BuildFabricGraph(spec);
    EXPECT_EQ(g.GetGpuCount(), 3u);
    EXPECT_EQ(g.GetLinks().size(), 6u);
    EXPECT_EQ(g.GetLinks()[5].kind, FabricGraph::LinkKind::NVLINK);
    EXPECT_EQ(UnreachablePairs(g, false), 0u);
    const TopologyReport r = AnalyzeTopology(g, spec);
    Show(r);
    EXPECT_FALSE(r.bisection.hasFormula);
    // {a} vs {b, c}: a's NIC link + its NVLink to b.
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, Ndr() + 3600e9);

    TopologySpec dup = CustomFabric();
    dup.As<CustomSpec>().nodes.push_back(Node("s1", "switch", 2, 6));
    const std::string e = BuildError(dup);
    EXPECT_NE(e.find("duplicate node name 's1' (first defined at <test>:4)"), std::string::npos)
        << e;

    TopologySpec unknown = CustomFabric();
    unknown.As<CustomSpec>().links.push_back(Link("s2", "s3", 16));
    EXPECT_NE(BuildError(unknown).find("link s2 - s3 names unknown node 's3'"), std::string::npos);

    TopologySpec self = CustomFabric();
    self.As<CustomSpec>().links.push_back(Link("s2", "s2", 16));
    EXPECT_NE(BuildError(self).find("connects a node to itself"), std::string::npos);

    TopologySpec cut = CustomFabric();
    cut.As<CustomSpec>().nodes.push_back(Node("lonely", "switch", 1, 7));
    cut.As<CustomSpec>().nodes.push_back(Node("d", "gpu", 0, 8));
    cut.As<CustomSpec>().links.push_back(Link("d", "lonely", 16));
    try
    {
        BuildFabricGraph(cut);
        ADD_FAILURE() << "a disconnected graph was accepted";
    }
    catch (const SpecError& err)
    {
        EXPECT_NE(err.Message().find("node 'lonely' cannot be reached from 'a'"), std::string::npos)
            << err.what();
        EXPECT_EQ(err.Where().line, 7);
    }

    TopologySpec kind = CustomFabric();
    kind.As<CustomSpec>().nodes[3].kind = "router";
    EXPECT_NE(BuildError(kind).find("unknown kind 'router' (known: gpu, switch, nic)"),
              std::string::npos);

    TopologySpec lonelyGpu = Spec("custom");
    lonelyGpu.As<CustomSpec>().nodes = {Node("a", "gpu", 0, 1), Node("s", "switch", 1, 2)};
    lonelyGpu.As<CustomSpec>().links = {Link("a", "s", 3)};
    EXPECT_NE(BuildError(lonelyGpu).find("at least 2 GPUs"), std::string::npos);
}

// ------------------------------------------------------------ every generator

TEST(Topology, EveryKindConnectsEveryGpuPair)
{
    std::vector<TopologySpec> specs;
    TopologySpec s = Spec("single-switch");
    s.gpus = 8;
    s.hostLink = *FindLinkProfile("pcie-gen5");
    specs.push_back(s);
    s = Spec("leaf-spine");
    s.As<LeafSpineSpec>().radix = 8;
    s.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
    specs.push_back(s);
    s = Spec("fat-tree");
    s.As<FatTreeSpec>().radix = 4;
    s.hostLink = *FindLinkProfile("pcie-gen5");
    specs.push_back(s);
    s = Spec("rail-optimized");
    s.gpusPerServer = 4;
    s.As<RailOptimizedSpec>().serversPerSu = 4;
    s.As<RailOptimizedSpec>().sus = 2;
    s.hasNvlink = true;
    specs.push_back(s);
    s = Spec("rail-only");
    s.gpusPerServer = 4;
    s.As<RailOnlySpec>().serversPerSu = 4;
    s.As<RailOnlySpec>().sus = 2;
    specs.push_back(s);
    s = Spec("dragonfly-plus");
    s.As<DragonflyPlusSpec>().groups = 3;
    s.As<DragonflyPlusSpec>().leavesPerGroup = 2;
    s.As<DragonflyPlusSpec>().spinesPerGroup = 2;
    s.As<DragonflyPlusSpec>().gpusPerLeaf = 2;
    s.As<DragonflyPlusSpec>().globalLinksPerSpine = 1;
    s.gpusPerServer = 2;
    s.hasNvlink = true;
    specs.push_back(s);
    s = Spec("nvlink-domain");
    s.gpusPerServer = 4;
    s.nvlinkSwitches = 2;
    specs.push_back(s);
    specs.push_back(CustomFabric());
    std::set<std::string> kinds;
    for (const auto& spec : specs)
    {
        SCOPED_TRACE(spec.Kind());
        kinds.insert(spec.Kind());
        const FabricGraph g = BuildFabricGraph(spec);
        EXPECT_EQ(UnreachablePairs(g, spec.Is<RailOnlySpec>()), 0u);
        const TopologyReport r = AnalyzeTopology(g, spec);
        EXPECT_EQ(r.paths.unreachablePairs, 0u);
        EXPECT_TRUE(r.bisection.formulaAgrees)
            << r.bisection.formulaBps << " vs " << r.bisection.maxFlowBps;
        EXPECT_GT(r.bisection.worstBps, 0);
    }
    const auto names = TopologyKindNames();
    EXPECT_EQ(kinds, std::set<std::string>(names.begin(), names.end()));
}

TEST(Topology, SinglePortKindsBuildWithTheCurrentBuilder)
{
    // Without NVLink every GPU has one link: today's FabricBuilder takes these graphs as
    // they are (multi-port GPUs are the builder's next step).
    std::vector<TopologySpec> specs;
    TopologySpec s = Spec("fat-tree");
    s.As<FatTreeSpec>().radix = 4;
    specs.push_back(s);
    s = Spec("rail-optimized");
    s.gpusPerServer = 4;
    s.As<RailOptimizedSpec>().serversPerSu = 4;
    s.As<RailOptimizedSpec>().sus = 2;
    specs.push_back(s);
    s = Spec("dragonfly-plus");
    s.As<DragonflyPlusSpec>().groups = 3;
    s.As<DragonflyPlusSpec>().leavesPerGroup = 2;
    s.As<DragonflyPlusSpec>().spinesPerGroup = 2;
    s.As<DragonflyPlusSpec>().gpusPerLeaf = 2;
    s.As<DragonflyPlusSpec>().globalLinksPerSpine = 1;
    specs.push_back(s);
    for (const auto& spec : specs)
    {
        SCOPED_TRACE(spec.Kind());
        const FabricGraph g = BuildFabricGraph(spec);
        EXPECT_NO_THROW(FabricBuilder::Build(g, spec.where, FabricBuildOptions{}));
        Simulator::Destroy();
    }
}

TEST(Topology, UnknownKindListsTheKnownOnes)
{
    std::string e;
    try
    {
        Spec("torus");
    }
    catch (const SpecError& err)
    {
        e = err.Message();
    }
    EXPECT_NE(e.find("unknown topology kind 'torus'"), std::string::npos) << e;
    EXPECT_NE(e.find("fat-tree, rail-optimized, rail-only, dragonfly-plus"), std::string::npos);
}

// ---------------------------------------------------------------- outputs

TEST(Topology, JsonAndDotAreDeterministic)
{
    TopologySpec spec = Spec("rail-optimized");
    spec.gpusPerServer = 4;
    spec.As<RailOptimizedSpec>().serversPerSu = 4;
    spec.As<RailOptimizedSpec>().sus = 2;
    spec.hasNvlink = true;
    const FabricGraph g = BuildFabricGraph(spec);
    std::ostringstream j1;
    std::ostringstream j2;
    WriteTopologyJson(AnalyzeTopology(g, spec), j1);
    WriteTopologyJson(AnalyzeTopology(g, spec), j2);
    EXPECT_EQ(j1.str(), j2.str());
    for (const char* key : {"\"bisection\"",
                            "\"formula_gbps\"",
                            "\"max_flow_gbps\"",
                            "\"worst_gbps\"",
                            "\"oversubscription\"",
                            "\"diameter_hops\"",
                            "\"link_classes\""})
    {
        EXPECT_NE(j1.str().find(key), std::string::npos) << key;
    }
    std::ostringstream dot;
    WriteDot(g, dot);
    EXPECT_EQ(dot.str().rfind("graph fabric {", 0), 0u);
    EXPECT_NE(dot.str().find("\"gpu0\" -- \"su0-rail0\" [label=\"infiniband\""), std::string::npos);
    EXPECT_NE(dot.str().find("[label=\"nvlink\""), std::string::npos);
    std::ostringstream text;
    PrintTopologyReport(AnalyzeTopology(g, spec), text);
    EXPECT_NE(text.str().find("max-flow"), std::string::npos);
}

TEST(Topology, LargeFabricsBuildInMilliseconds)
{
    // k = 26 fat-tree: 4394 GPUs, 845 switches, 13182 links.
    TopologySpec spec = Spec("fat-tree");
    spec.As<FatTreeSpec>().radix = 26;
    const auto t0 = std::chrono::steady_clock::now();
    const FabricGraph g = BuildFabricGraph(spec);
    const double buildMs
        = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(g.GetGpuCount(), 26u * 26 * 26 / 4);
    const TopologyReport r = AnalyzeTopology(g, spec);
    std::cout << "[fat-tree-k26] build " << buildMs << " ms; ";
    Show(r);
    EXPECT_DOUBLE_EQ(r.bisection.maxFlowBps, g.GetGpuCount() / 2 * Ndr());
    EXPECT_TRUE(r.paths.sampled);

    // B200-like 16 SUs with NVLink (4096 GPUs, 3 tiers) and a k = 16 balanced Dragonfly+
    // (p = l = s = h = 8, 65 groups, 4160 GPUs).
    TopologySpec b200 = Spec("rail-optimized");
    b200.name = "b200-16su";
    b200.As<RailOptimizedSpec>().sus = 16;
    b200.As<RailOptimizedSpec>().spinesPerSu = 8;
    b200.hasNvlink = true;
    const FabricGraph gb = BuildFabricGraph(b200);
    const TopologyReport rb = AnalyzeTopology(gb, b200);
    Show(rb);
    EXPECT_DOUBLE_EQ(rb.bisection.maxFlowBps, rb.bisection.formulaBps);
    EXPECT_DOUBLE_EQ(rb.bisection.formulaBps, 2048 * Ndr());
    TopologySpec dfp = Spec("dragonfly-plus");
    dfp.name = "dfp-k16";
    dfp.As<DragonflyPlusSpec>().groups = 65;
    dfp.As<DragonflyPlusSpec>().leavesPerGroup = 8;
    dfp.As<DragonflyPlusSpec>().spinesPerGroup = 8;
    dfp.As<DragonflyPlusSpec>().gpusPerLeaf = 8;
    dfp.As<DragonflyPlusSpec>().globalLinksPerSpine = 8;
    dfp.As<DragonflyPlusSpec>().radix = 16;
    const FabricGraph gd = BuildFabricGraph(dfp);
    EXPECT_EQ(gd.GetGpuCount(), 4160u);
    const TopologyReport rd = AnalyzeTopology(gd, dfp);
    Show(rd);
    EXPECT_DOUBLE_EQ(rd.bisection.maxFlowBps, rd.bisection.formulaBps);
    EXPECT_DOUBLE_EQ(rd.bisection.formulaBps, 32.0 * 33 * Ndr()); // a x b x m links
}

} // namespace
