/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the topology room (suite ai-fabric-topology): the topology generators
 * (fabric-topology.h) and the analyzer (topology-analyzer.h): counts against the closed
 * forms of FACTS.md section 1, bisection formula against max-flow, reachability on every
 * generator, and the errors of bad configurations.
 */
#include "ai-fabric-test-run.h"

#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-topology.h"
#include "ns3/link-profile.h"
#include "ns3/simulator.h"
#include "ns3/spec-error.h"
#include "ns3/test.h"
#include "ns3/topology-analyzer.h"
#include "ns3/topology-spec.h"

#include <chrono>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::aifabrictest;

namespace
{

/// \param kind a topology kind \return its spec with ib-ndr links (400 Gb/s)
TopologySpec
Spec(const std::string& kind)
{
    return KindSpec(kind);
}

/// \return the ib-ndr rate, bits per second
double
Ndr()
{
    return static_cast<double>(FindLinkProfile("ib-ndr")->rate.GetBitRate());
}

/// \param spec a topology \return the message of the SpecError that building it throws
/// ("" if none)
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

/// \param text a message \param part a part \return whether \p text contains \p part
bool
Has(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// \param g a graph \param tier a tier \return switches of tier \p tier
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

/// \param g a graph \param kind a link kind \return links of kind \p kind
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

/// Print the analyzer's figures (docs/topologies.md quotes them). \param r a report
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

} // namespace

// ------------------------------------------------------------------------------- fat-tree

/**
 * \ingroup ai-fabric-tests
 * \brief A k-ary fat-tree has Al-Fares's counts, full bisection and (k/2)^2 paths.
 * (Moved from Topology/KAryFatTree.CountsAndBisectionAreAlFares, k = 4 and 8.)
 */
class KAryFatTreeTestCase : public TestCase
{
  public:
    /// \param k the radix
    explicit KAryFatTreeTestCase(uint32_t k)
        : TestCase("A k=" + std::to_string(k) + " fat-tree has Al-Fares's counts and bisection")
        , m_k(k)
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t k = m_k;
        TopologySpec spec = Spec("fat-tree");
        spec.name = "fat-tree-k" + std::to_string(k);
        spec.As<FatTreeSpec>().radix = k;
        const FabricGraph g = BuildFabricGraph(spec);
        // FACTS.md 1.1: k^3/4 hosts, 5k^2/4 switches (k^2/2 edge, k^2/2 aggregation, k^2/4
        // core), 3k^3/4 links.
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), k * k * k / 4, "hosts");
        NS_TEST_EXPECT_MSG_EQ(g.GetSwitchCount(), 5 * k * k / 4, "switches");
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks().size(), 3 * k * k * k / 4, "links");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 1), k * k / 2, "edge");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 2), k * k / 2, "aggregation");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 3), k * k / 4, "core");
        NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(g, false), 0U, "reachability");

        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        const double full = g.GetGpuCount() / 2 * Ndr(); // N/2 x B
        NS_TEST_EXPECT_MSG_EQ(r.bisection.hasFormula, true, "a formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.formulaBps, full), true, "formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, full), true, "max-flow");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.fullBps, full), true, "full");
        // rearrangeably non-blocking
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.worstBps, full), true, "worst");
        NS_TEST_EXPECT_MSG_EQ(r.bisection.formulaAgrees, true, "agrees");
        NS_TEST_EXPECT_MSG_EQ(r.bisection.worstBelowFormula, false, "worst below formula");
        NS_TEST_EXPECT_MSG_EQ(r.bisection.sideA, g.GetGpuCount() / 2, "side A");
        // Hosts in different pods: (k/2)^2 equal-cost paths, one per core, 6 links.
        NS_TEST_EXPECT_MSG_EQ(r.paths.diameterHops, 6U, "diameter");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.paths.maxPaths, (k / 2) * (k / 2)), true, "max paths");
        // two hosts on one edge switch
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.paths.minPaths, 1), true, "min paths");
        NS_TEST_ASSERT_MSG_EQ(r.oversubscription.size(), 2U, "two tiers with uplinks");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.oversubscription[0].minRatio, 1), true, "edge 1:1");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.oversubscription[1].maxRatio, 1), true, "agg 1:1");
        Simulator::Destroy();
    }

    uint32_t m_k; //!< the radix
};

/**
 * \ingroup ai-fabric-tests
 * \brief A three-tier fat-tree multiplies its tiers' oversubscriptions.
 * (Moved from Topology.ThreeTierFatTreeMultipliesItsOversubscriptions.)
 */
class ThreeTierFatTreeTestCase : public TestCase
{
  public:
    ThreeTierFatTreeTestCase()
        : TestCase("A three-tier fat-tree multiplies its oversubscriptions")
    {
    }

  private:
    void DoRun() override
    {
        // radix 8: leaf 3:1 -> 6 down, 2 up; spine 1:1 -> 4 down, 4 up; 8 pods.
        TopologySpec spec = Spec("fat-tree");
        spec.As<FatTreeSpec>().radix = 8;
        spec.As<FatTreeSpec>().oversubscription = OversubscriptionRatio{3, 1};
        const FabricGraph g = BuildFabricGraph(spec);
        const FatTreeSizing z = ResolveFatTree(spec);
        NS_TEST_EXPECT_MSG_EQ(z.gpusPerLeaf, 6U, "GPUs per leaf");
        NS_TEST_EXPECT_MSG_EQ(z.spinesPerPod, 2U, "spines per pod");
        NS_TEST_EXPECT_MSG_EQ(z.leavesPerPod, 4U, "leaves per pod");
        NS_TEST_EXPECT_MSG_EQ(z.spineUplinks, 4U, "spine uplinks");
        NS_TEST_EXPECT_MSG_EQ(z.cores, 8U, "cores");
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), 8U * 4 * 6, "GPUs");
        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        // N B / (2 x 3 x 1)
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.formulaBps, g.GetGpuCount() * Ndr() / 6),
                              true,
                              "formula " << r.bisection.formulaBps);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, r.bisection.formulaBps),
                              true,
                              "max-flow " << r.bisection.maxFlowBps);
        NS_TEST_EXPECT_MSG_EQ(r.bisection.worstBelowFormula, false, "worst below formula");

        // Both tiers oversubscribed: leaf 3:1, spine 2:1 (radix 6: 4 down, 2 up... radix 12).
        spec.As<FatTreeSpec>().radix = 12;
        spec.As<FatTreeSpec>().oversubscription = OversubscriptionRatio{3, 1};      // 9 down, 3 up
        spec.As<FatTreeSpec>().spineOversubscription = OversubscriptionRatio{2, 1}; // 8 down, 4 up
        spec.As<FatTreeSpec>().pods = 4;
        const FabricGraph g2 = BuildFabricGraph(spec);
        NS_TEST_EXPECT_MSG_EQ(g2.GetGpuCount(), 4U * 8 * 9, "GPUs");
        const TopologyReport r2 = AnalyzeTopology(g2, spec);
        Show(r2);
        NS_TEST_EXPECT_MSG_EQ(
            DoubleEq(r2.bisection.formulaBps, g2.GetGpuCount() * Ndr() / (2 * 3 * 2)),
            true,
            "formula " << r2.bisection.formulaBps);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r2.bisection.maxFlowBps, r2.bisection.formulaBps),
                              true,
                              "max-flow " << r2.bisection.maxFlowBps);
        NS_TEST_ASSERT_MSG_EQ(r2.oversubscription.size(), 2U, "two tiers with uplinks");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r2.oversubscription[0].minRatio, 3), true, "leaf 3:1");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r2.oversubscription[1].minRatio, 2), true, "spine 2:1");
        Simulator::Destroy();
    }
};

// ----------------------------------------------------------------------------- leaf-spine

/**
 * \ingroup ai-fabric-tests
 * \brief A 3:1 leaf-spine has a third of full bisection, by radix and ratio or by ports.
 * (Moved from Topology.LeafSpineAtThreeToOneHasAThirdOfFullBisection.)
 */
class LeafSpineThreeToOneTestCase : public TestCase
{
  public:
    LeafSpineThreeToOneTestCase()
        : TestCase("A 3:1 leaf-spine has a third of full bisection")
    {
    }

  private:
    void DoRun() override
    {
        TopologySpec spec = Spec("leaf-spine");
        spec.As<LeafSpineSpec>().radix = 16;
        spec.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
        const FabricGraph g = BuildFabricGraph(spec);
        // FACTS.md 1.2: k r/(r+1) = 12 down, k/(r+1) = 4 up, k = 16 leaves, 4 spines.
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), 16U * 12, "GPUs");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 1), 16U, "leaves");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 2), 4U, "spines");
        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        const double full = g.GetGpuCount() / 2 * Ndr();
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.formulaBps, full / 3), true, "formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, full / 3), true, "max-flow");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.fullBps, full), true, "full");
        NS_TEST_EXPECT_MSG_EQ(r.bisection.worstBelowFormula, false, "worst below formula");
        NS_TEST_ASSERT_MSG_EQ(r.oversubscription.size(), 1U, "one tier with uplinks");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.oversubscription[0].minRatio, 3), true, "3:1");
        NS_TEST_EXPECT_MSG_EQ(r.oversubscription[0].name, "leaf", "the tier");

        // The same fabric by explicit port counts.
        TopologySpec ports = Spec("leaf-spine");
        ports.As<LeafSpineSpec>().leaves = 16;
        ports.As<LeafSpineSpec>().gpusPerLeaf = 12;
        ports.As<LeafSpineSpec>().uplinks = 4;
        const FabricGraph g2 = BuildFabricGraph(ports);
        NS_TEST_EXPECT_MSG_EQ(g2.GetGpuCount(), g.GetGpuCount(), "the same GPUs");
        NS_TEST_EXPECT_MSG_EQ(g2.GetLinks().size(), g.GetLinks().size(), "the same links");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(AnalyzeTopology(g2, ports).bisection.maxFlowBps, full / 3),
                              true,
                              "the same max-flow");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A leaf-spine keeps its original fields and wiring order (ECMP port order).
 * (Moved from Topology.LeafSpineKeepsItsOriginalFieldsAndWiring.)
 */
class LeafSpineWiringTestCase : public TestCase
{
  public:
    LeafSpineWiringTestCase()
        : TestCase("A leaf-spine keeps its original fields and wiring")
    {
    }

  private:
    void DoRun() override
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
        const std::vector<std::string> want
            = {"spine0", "spine1", "leaf0", "gpu0", "gpu1", "leaf1", "gpu2", "gpu3"};
        NS_TEST_EXPECT_MSG_EQ((names == want), true, "node order: " << Join(names));
        NS_TEST_ASSERT_MSG_EQ(g.GetLinks().size(), 4U + 2 * 2 * 2, "links");
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks()[0].a, 3U, "gpu0 - leaf0");
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks()[0].b, 2U, "gpu0 - leaf0");
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks()[2].b, 0U, "leaf0 - spine0, twice");
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks()[3].b, 0U, "leaf0 - spine0, twice");
        NS_TEST_EXPECT_MSG_EQ(g.GetProfiles().size(), 1U, "one profile");
        const TopologyReport r = AnalyzeTopology(g, spec);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, 2 * Ndr()), true, "max-flow");
        // 2 spines x 2 parallel links up x 2 down
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.paths.maxPaths, 8), true, "paths " << r.paths.maxPaths);
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Oversubscription ratios parse and reduce; unrealisable ones are refused with
 * the radixes and ratios that would work.
 * (Moved from Topology.OversubscriptionParsesAndRejectsUnrealisableRatios.)
 */
class OversubscriptionTestCase : public TestCase
{
  public:
    OversubscriptionTestCase()
        : TestCase("Oversubscription parses and rejects unrealisable ratios")
    {
    }

  private:
    void DoRun() override
    {
        OversubscriptionRatio r;
        NS_TEST_EXPECT_MSG_EQ(ParseOversubscription("3:1", r), true, "3:1");
        NS_TEST_EXPECT_MSG_EQ(r.numerator, 3U, "3:1");
        NS_TEST_EXPECT_MSG_EQ(r.denominator, 1U, "3:1");
        NS_TEST_EXPECT_MSG_EQ(ParseOversubscription("6:2", r), true, "6:2");
        NS_TEST_EXPECT_MSG_EQ(FormatRatio(r), "3:1", "6:2 reduced");
        NS_TEST_EXPECT_MSG_EQ(ParseOversubscription("2", r), true, "2");
        NS_TEST_EXPECT_MSG_EQ(FormatRatio(r), "2:1", "2");
        NS_TEST_EXPECT_MSG_EQ(ParseOversubscription(" 3 : 2 ", r), true, "blanks");
        NS_TEST_EXPECT_MSG_EQ(FormatRatio(r), "3:2", "blanks");
        for (const char* bad : {"", "0:1", "3:0", "a:b", "3:", ":1", "1.5:1", "-3:1"})
        {
            NS_TEST_EXPECT_MSG_EQ(ParseOversubscription(bad, r), false, "'" << bad << "'");
        }

        TopologySpec spec = Spec("leaf-spine");
        spec.As<LeafSpineSpec>().radix = 30;
        spec.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
        const std::string e = BuildError(spec);
        NS_TEST_EXPECT_MSG_EQ(Has(e, "needs a radix divisible by 4"), true, e);
        NS_TEST_EXPECT_MSG_EQ(Has(e, "use radix 28 or 32"), true, e);
        NS_TEST_EXPECT_MSG_EQ(Has(e, "2:1, 4:1, 5:1"), true, e);

        spec.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
        spec.As<LeafSpineSpec>().radix = 32;
        spec.As<LeafSpineSpec>().gpusPerLeaf = 20; // 3:1 of 32 is 24 down
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(spec), "gpus_per_leaf 20 conflicts with radix 32"),
                              true,
                              BuildError(spec));

        TopologySpec tooMany = Spec("leaf-spine");
        tooMany.As<LeafSpineSpec>().radix = 8;
        tooMany.As<LeafSpineSpec>().gpusPerLeaf = 6;
        tooMany.As<LeafSpineSpec>().uplinks = 4;
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(tooMany), "more than the radix 8"),
                              true,
                              BuildError(tooMany));

        TopologySpec odd = Spec("fat-tree");
        odd.As<FatTreeSpec>().radix = 7;
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(odd), "radix 7 is odd"), true, BuildError(odd));
        Simulator::Destroy();
    }
};

// ------------------------------------------------------------------------- dragonfly-plus

/// A Dragonfly+ shape and its expected links per group pair.
struct DragonflyCase
{
    uint32_t groups;    //!< G
    uint32_t leaves;    //!< leaves per group
    uint32_t spines;    //!< spines per group
    uint32_t hosts;     //!< GPUs per leaf
    uint32_t global;    //!< global links per spine
    uint32_t pairLinks; //!< expected links per group pair
};

/**
 * \ingroup ai-fabric-tests
 * \brief A Dragonfly+ is wired evenly (every spine uses its global ports, every group pair
 * has its links) and its bisection formula equals max-flow.
 * (Moved from Topology/DragonflyPlus.BisectionFormulaEqualsMaxFlow, five shapes.)
 */
class DragonflyPlusBisectionTestCase : public TestCase
{
  public:
    /// \param c the shape
    explicit DragonflyPlusBisectionTestCase(const DragonflyCase& c)
        : TestCase("Dragonfly+ " + Name(c) + ": even wiring, bisection formula = max-flow")
        , m_c(c)
    {
    }

  private:
    /// \param c a shape \return its name
    static std::string Name(const DragonflyCase& c)
    {
        return "dfp-g" + std::to_string(c.groups) + "-l" + std::to_string(c.leaves) + "-s"
               + std::to_string(c.spines) + "-p" + std::to_string(c.hosts) + "-h"
               + std::to_string(c.global);
    }

    void DoRun() override
    {
        const DragonflyCase& c = m_c;
        TopologySpec spec = Spec("dragonfly-plus");
        spec.As<DragonflyPlusSpec>().groups = c.groups;
        spec.As<DragonflyPlusSpec>().leavesPerGroup = c.leaves;
        spec.As<DragonflyPlusSpec>().spinesPerGroup = c.spines;
        spec.As<DragonflyPlusSpec>().gpusPerLeaf = c.hosts;
        spec.As<DragonflyPlusSpec>().globalLinksPerSpine = c.global;
        spec.name = Name(c);
        const FabricGraph g = BuildFabricGraph(spec);
        const DragonflyPlusSizing z = ResolveDragonflyPlus(spec);
        NS_TEST_EXPECT_MSG_EQ(z.linksPerGroupPair, c.pairLinks, "links per group pair");
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), c.groups * c.leaves * c.hosts, "GPUs");
        // GPU links + leaf-spine links + global links (each counted once).
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks().size(),
                              c.groups * c.leaves * c.hosts + c.groups * c.leaves * c.spines
                                  + c.groups * c.spines * c.global / 2,
                              "links");
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
                NS_TEST_EXPECT_MSG_NE(a.group, b.group, a.name << " - " << b.name);
            }
        }
        for (uint32_t i = 0; i < g.GetNodes().size(); ++i)
        {
            const auto& n = g.GetNodes()[i];
            if (n.kind == FabricGraph::NodeKind::SWITCH && n.tier == 2)
            {
                NS_TEST_EXPECT_MSG_EQ(globalPorts[i], c.global, n.name);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(pairs.size(), c.groups * (c.groups - 1) / 2, "group pairs");
        for (const auto& [key, count] : pairs)
        {
            NS_TEST_EXPECT_MSG_EQ(count, c.pairLinks, key.first << "-" << key.second);
        }
        NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(g, false), 0U, "reachability");

        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        NS_TEST_EXPECT_MSG_EQ(r.bisection.sideA, g.GetGpuCount() / 2, "balanced");
        if (c.groups % 2 == 0)
        {
            NS_TEST_EXPECT_MSG_EQ(r.bisection.formulaAgrees,
                                  true,
                                  r.bisection.formulaBps << " vs " << r.bisection.maxFlowBps);
            NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.formulaBps, r.bisection.maxFlowBps),
                                  true,
                                  r.bisection.formulaBps << " vs " << r.bisection.maxFlowBps);
        }
        else
        {
            // Odd G: the middle group is split, and its spines may take either side by the
            // groups their global links reach: no closed form, the max-flow alone. For these
            // global-limited shapes the cut is the a x a m global links between whole groups
            // plus, inside the middle group, the l x s / 2 links between its side-A leaves
            // and the spines that reach side B and back (its spines split by the side their
            // global links reach), a = floor(G/2).
            NS_TEST_EXPECT_MSG_EQ(r.bisection.hasFormula, false, "no closed form for odd G");
            const double a = c.groups / 2;
            NS_TEST_EXPECT_MSG_EQ(
                DoubleEq(r.bisection.maxFlowBps,
                         (a * a * c.pairLinks + c.leaves * c.spines / 2.0) * Ndr()),
                true,
                r.bisection.maxFlowBps);
        }
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.worstBps, r.bisection.maxFlowBps),
                              true,
                              "worst " << r.bisection.worstBps);
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.bisection.maxFlowBps,
                                    r.bisection.fullBps * (1 + 1e-12),
                                    "no more than full");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.missionF15Bps,
                                       static_cast<double>(c.groups) * c.spines * c.global * Ndr()),
                              true,
                              "F15 " << r.bisection.missionF15Bps);
        // gpu-leaf-spine-(global)-spine-leaf-gpu
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.paths.diameterHops, 6U, "diameter");
        Simulator::Destroy();
    }

    DragonflyCase m_c; //!< the shape
};

/**
 * \ingroup ai-fabric-tests
 * \brief A Dragonfly+ whose global links cannot be spread evenly is refused, naming the
 * group counts that work. (Moved from Topology.DragonflyPlusRejectsUnwirableGroups.)
 */
class DragonflyPlusUnwirableTestCase : public TestCase
{
  public:
    DragonflyPlusUnwirableTestCase()
        : TestCase("A Dragonfly+ rejects unwirable groups")
    {
    }

  private:
    void DoRun() override
    {
        TopologySpec spec = Spec("dragonfly-plus");
        spec.As<DragonflyPlusSpec>().groups = 7;
        spec.As<DragonflyPlusSpec>().leavesPerGroup = 2;
        spec.As<DragonflyPlusSpec>().spinesPerGroup = 2;
        spec.As<DragonflyPlusSpec>().gpusPerLeaf = 2;
        spec.As<DragonflyPlusSpec>().globalLinksPerSpine
            = 2; // 4 global links per group over 6 other groups
        const std::string e = BuildError(spec);
        NS_TEST_EXPECT_MSG_EQ(Has(e, "cannot be spread evenly over the 6 other groups"), true, e);
        NS_TEST_EXPECT_MSG_EQ(Has(e, "some pairs of groups would get no link"), true, e);
        NS_TEST_EXPECT_MSG_EQ(Has(e, "use groups 2, 3, 5"), true, e);
        spec.As<DragonflyPlusSpec>().groups = 1;
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(spec), "at least 2 groups"), true, BuildError(spec));
        spec.As<DragonflyPlusSpec>().groups = 5;
        spec.As<DragonflyPlusSpec>().radix = 3; // leaf 2 + 2 ports
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(spec), "more than the radix 3"),
                              true,
                              BuildError(spec));
        Simulator::Destroy();
    }
};

// ------------------------------------------------------------------------------ rail kinds

/**
 * \ingroup ai-fabric-tests
 * \brief Rail-optimized matches the DGX H100 reference architecture: counts per SU, rail
 * alignment, NVLink, bisection and diameter.
 * (Moved from Topology.RailOptimizedMatchesTheDgxH100ReferenceArchitecture.)
 */
class RailOptimizedDgxTestCase : public TestCase
{
  public:
    RailOptimizedDgxTestCase()
        : TestCase("Rail-optimized matches the DGX H100 reference architecture")
    {
    }

  private:
    void DoRun() override
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
            NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), 256 * sus, sus << " SUs");
            NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 1), 8 * sus, sus << " SUs");
            NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 2), spines[sus - 1], sus << " SUs");
            NS_TEST_EXPECT_MSG_EQ(g.GetLinks().size(), 256U * sus + 256U * sus, sus << " SUs");
            NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 0), 0U, "no NVLink unless asked");
        }

        TopologySpec spec = Spec("rail-optimized");
        spec.hasNvlink = true;
        const FabricGraph g = BuildFabricGraph(spec);
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), 256U, "GPUs");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 0), 32U, "one NVSwitch node per server");
        NS_TEST_EXPECT_MSG_EQ(LinksOfKind(g, FabricGraph::LinkKind::NVLINK), 256U, "NVLinks");
        NS_TEST_EXPECT_MSG_EQ(g.GetProfiles().back().technology, "nvlink", "NVLink profile");
        NS_TEST_EXPECT_MSG_EQ(g.GetProfiles().back().rate.GetBitRate(),
                              3600000000000ULL,
                              "nvlink4");
        // Rail alignment: NIC r of every server on rail switch r.
        for (uint32_t gpu = 0; gpu < g.GetGpuCount(); ++gpu)
        {
            const auto& node = g.GetNodes()[g.GetGpuNode(gpu)];
            NS_TEST_EXPECT_MSG_EQ(node.server, gpu / 8, "GPU " << gpu);
            NS_TEST_EXPECT_MSG_EQ(node.rail, gpu % 8, "GPU " << gpu);
            NS_TEST_EXPECT_MSG_EQ(g.FindGpu(node.server, node.rail), gpu, "GPU " << gpu);
            const uint32_t link = g.GetGpuNicLink(gpu);
            NS_TEST_ASSERT_MSG_NE(link, FabricGraph::NONE, "GPU " << gpu << "'s NIC link");
            const auto& l = g.GetLinks()[link];
            const auto& sw = g.GetNodes()[l.a == g.GetGpuNode(gpu) ? l.b : l.a];
            NS_TEST_EXPECT_MSG_EQ(sw.tier, 1U, "GPU " << gpu);
            NS_TEST_EXPECT_MSG_EQ(sw.rail, node.rail, "GPU " << gpu);
            NS_TEST_EXPECT_MSG_EQ(g.GetAdjacency(g.GetGpuNode(gpu)).size(),
                                  2U,
                                  "GPU " << gpu << ": NIC + NVLink");
        }
        NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(g, false), 0U, "reachability");
        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        NS_TEST_EXPECT_MSG_EQ(r.servers, 32U, "servers");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.formulaBps, 128 * Ndr()), true, "N/2 x B");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, 128 * Ndr()), true, "max-flow");
        NS_TEST_EXPECT_MSG_EQ(r.bisection.worstBelowFormula, false, "worst below formula");
        NS_TEST_EXPECT_MSG_EQ(r.paths.diameterHops, 4U, "gpu-rail-spine-rail-gpu");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Rail-optimized bisection with oversubscription, without NVLink and with a core
 * tier; the B200 reference architecture's counts.
 * (Moved from Topology.RailOptimizedBisectionWithOversubscriptionAndCoreTier.)
 */
class RailOptimizedTiersTestCase : public TestCase
{
  public:
    RailOptimizedTiersTestCase()
        : TestCase("Rail-optimized bisection with oversubscription and a core tier")
    {
    }

  private:
    void DoRun() override
    {
        // Two SUs at 2:1 on the rail switches: N B / 4.
        TopologySpec spec = Spec("rail-optimized");
        spec.As<RailOptimizedSpec>().sus = 2;
        spec.As<RailOptimizedSpec>().oversubscription = OversubscriptionRatio{2, 1};
        const RailSizing z = ResolveRail(spec);
        NS_TEST_EXPECT_MSG_EQ(z.railUplinks, 16U, "rail uplinks");
        NS_TEST_EXPECT_MSG_EQ(z.spines, 8U, "fewest dividing 16 with 16 x 16 / P <= 48 ports");
        const FabricGraph g = BuildFabricGraph(spec);
        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.formulaBps, g.GetGpuCount() * Ndr() / 4),
                              true,
                              "N B / 4");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, r.bisection.formulaBps),
                              true,
                              "max-flow");
        NS_TEST_EXPECT_MSG_EQ(r.bisection.worstBelowFormula, false, "worst below formula");

        // One SU without NVLink: rails meet only at the spines, so the formula splits rails.
        TopologySpec one = Spec("rail-optimized");
        one.name = "rail-1su-2to1";
        one.As<RailOptimizedSpec>().oversubscription = OversubscriptionRatio{2, 1};
        const FabricGraph g1 = BuildFabricGraph(one);
        const TopologyReport r1 = AnalyzeTopology(g1, one);
        Show(r1);
        // floor(8/2) x 16 uplinks x B
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r1.bisection.formulaBps, 4 * 16 * Ndr()), true, "1 SU");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r1.bisection.maxFlowBps, r1.bisection.formulaBps),
                              true,
                              "1 SU max-flow");
        NS_TEST_EXPECT_MSG_EQ(r1.bisection.worstBelowFormula, false, "1 SU worst");

        // Three tiers, scaled down from the B200 RA: 4 SUs of 4 servers x 4 GPUs, radix 8.
        TopologySpec three = Spec("rail-optimized");
        three.name = "rail-3tier";
        three.gpusPerServer = 4;
        three.As<RailOptimizedSpec>().serversPerSu = 4;
        three.As<RailOptimizedSpec>().sus = 4;
        three.As<RailOptimizedSpec>().spinesPerSu = 4;
        three.As<RailOptimizedSpec>().radix = 8;
        const RailSizing t = ResolveRail(three);
        NS_TEST_EXPECT_MSG_EQ(t.railUplinks, 4U, "rail uplinks");
        NS_TEST_EXPECT_MSG_EQ(t.spineUplinks, 4U, "spine uplinks");
        NS_TEST_EXPECT_MSG_EQ(t.coresPerGroup, 2U, "cores per group");
        NS_TEST_EXPECT_MSG_EQ(t.linksPerCore, 2U, "links per core");
        const FabricGraph g3 = BuildFabricGraph(three);
        NS_TEST_EXPECT_MSG_EQ(g3.GetGpuCount(), 64U, "GPUs");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g3, 1), 16U, "tier 1");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g3, 2), 16U, "tier 2");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g3, 3), 8U, "tier 3");
        NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(g3, false), 0U, "reachability");
        const TopologyReport r3 = AnalyzeTopology(g3, three);
        Show(r3);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r3.bisection.formulaBps, 32 * Ndr()), true, "formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r3.bisection.maxFlowBps, 32 * Ndr()), true, "max-flow");

        // B200 RA counts (FACTS.md 1.3): 16 SUs -> 128 leaf, 128 spine, 64 core switches.
        TopologySpec b200 = Spec("rail-optimized");
        b200.As<RailOptimizedSpec>().sus = 16;
        b200.As<RailOptimizedSpec>().spinesPerSu = 8;
        const auto t0 = std::chrono::steady_clock::now();
        const FabricGraph gb = BuildFabricGraph(b200);
        const double ms
            = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count();
        std::cout << "[b200-16su] " << gb.GetGpuCount() << " GPUs, " << gb.GetLinks().size()
                  << " links built in " << ms << " ms\n";
        NS_TEST_EXPECT_MSG_EQ(gb.GetGpuCount(), 4096U, "GPUs");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(gb, 1), 128U, "leaf switches");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(gb, 2), 128U, "spine switches");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(gb, 3), 64U, "core switches");
        // cable counts equal the GPU count per tier
        NS_TEST_EXPECT_MSG_EQ(gb.GetLinks().size(), 3U * 4096, "links");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Rail-only needs NVLink relays across rails (PXN); with two SUs, one spine per rail.
 * (Moved from Topology.RailOnlyNeedsNvlinkRelaysAcrossRails.)
 */
class RailOnlyRelaysTestCase : public TestCase
{
  public:
    RailOnlyRelaysTestCase()
        : TestCase("Rail-only needs NVLink relays across rails")
    {
    }

  private:
    void DoRun() override
    {
        TopologySpec spec = Spec("rail-only");
        const FabricGraph g = BuildFabricGraph(spec);
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), 256U, "GPUs");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 1), 8U, "rail switches");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 2), 0U, "no spine");
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g, 0), 32U, "NVSwitches");
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks().size(), 256U + 256U, "links");
        // Same rail or same server: direct; other rail on another server: only via a relay.
        const auto d = g.DistancesTo(g.GetGpuNode(0)); // server 0, rail 0
        NS_TEST_EXPECT_MSG_EQ(d[g.GetGpuNode(8)], 2U, "server 1, rail 0");
        NS_TEST_EXPECT_MSG_EQ(d[g.GetGpuNode(1)], 2U, "server 0, rail 1 over NVLink");
        NS_TEST_EXPECT_MSG_EQ(d[g.GetGpuNode(9)], UINT32_MAX, "server 1, rail 1");
        NS_TEST_EXPECT_MSG_EQ(g.RelayDistancesTo(g.GetGpuNode(0))[g.GetGpuNode(9)],
                              4U,
                              "server 1, rail 1 through a relay");
        NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(g, true), 0U, "reachability with relays");
        // PXN relay of GPU 9 (server 1, rail 1) towards rail 0: GPU 8.
        NS_TEST_EXPECT_MSG_EQ(g.FindGpu(1, 0), 8U, "relay");

        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        NS_TEST_EXPECT_MSG_GT(r.paths.relayPairs, 0U, "relay pairs");
        NS_TEST_EXPECT_MSG_EQ(r.paths.unreachablePairs, 0U, "unreachable pairs");
        NS_TEST_EXPECT_MSG_EQ(r.paths.diameterHops, 4U, "diameter");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.formulaBps, 128 * Ndr()), true, "formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, 128 * Ndr()), true, "max-flow");

        // Two SUs: one spine per rail (2 x 32 uplinks fit radix 64).
        spec.As<RailOnlySpec>().sus = 2;
        const RailSizing z = ResolveRail(spec);
        NS_TEST_EXPECT_MSG_EQ(z.spines, 1U, "spines");
        NS_TEST_EXPECT_MSG_EQ(z.linksPerSpine, 32U, "links per spine");
        const FabricGraph g2 = BuildFabricGraph(spec);
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(g2, 2), 8U, "spines");
        NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(g2, true), 0U, "reachability with relays");
        const TopologyReport r2 = AnalyzeTopology(g2, spec);
        Show(r2);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r2.bisection.formulaBps, 256 * Ndr()), true, "formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r2.bisection.maxFlowBps, 256 * Ndr()), true, "max-flow");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Odd numbers of leaves, pods, servers, SUs and GPUs: the analyzer's split is still
 * balanced (side A = floor(N/2) GPUs, the middle unit split), its closed form equals the
 * max-flow, and no balanced split found carries more than the full bisection (issue 17).
 */
class OddCountsBisectionTestCase : public TestCase
{
  public:
    OddCountsBisectionTestCase()
        : TestCase("Odd unit counts give a balanced split, its closed form, worst <= full")
    {
    }

  private:
    /**
     * \param spec a topology
     * \param formula the expected closed form, bits per second
     * \param full the expected full bisection, bits per second
     * \param split the expected split in words
     */
    void Check(const TopologySpec& spec, double formula, double full, const std::string& split)
    {
        const FabricGraph g = BuildFabricGraph(spec);
        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        const auto& b = r.bisection;
        NS_TEST_EXPECT_MSG_EQ(b.sideA, g.GetGpuCount() / 2, spec.name << " side A");
        NS_TEST_EXPECT_MSG_EQ(b.sideB, g.GetGpuCount() - g.GetGpuCount() / 2, spec.name);
        NS_TEST_EXPECT_MSG_EQ(b.split, split, spec.name << " split");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.formulaBps, formula), true, spec.name << " formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.maxFlowBps, formula), true, spec.name << " max-flow");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.fullBps, full), true, spec.name << " full");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(b.worstBps, b.maxFlowBps * (1 + 1e-12), spec.name);
        NS_TEST_EXPECT_MSG_LT_OR_EQ(b.maxFlowBps, b.fullBps * (1 + 1e-12), spec.name);
        NS_TEST_EXPECT_MSG_EQ(b.worstBelowFormula, false, spec.name << " worst below formula");
    }

    void DoRun() override
    {
        const double B = Ndr();
        // 3 leaves of 8 GPUs, 8 uplinks (1:1): 1 whole leaf + 4 GPUs of the middle one, whose
        // halves meet in the leaf: min(8 B, 8 B) + 4 B = 12 B = full.
        TopologySpec ls = Spec("leaf-spine");
        ls.name = "ls-3-leaves";
        ls.As<LeafSpineSpec>().leaves = 3;
        ls.As<LeafSpineSpec>().gpusPerLeaf = 8;
        ls.As<LeafSpineSpec>().uplinks = 8;
        Check(ls, 12 * B, 12 * B, "first 1 of 3 leaves + 4 of the 8 GPUs of the next leaf");

        // 5 leaves of 6 GPUs at 3:1 (2 uplinks): 2 x min(6 B, 2 B) + 3 B = 7 B; full 15 B.
        TopologySpec ls3 = Spec("leaf-spine");
        ls3.name = "ls-5-leaves-3to1";
        ls3.As<LeafSpineSpec>().leaves = 5;
        ls3.As<LeafSpineSpec>().gpusPerLeaf = 6;
        ls3.As<LeafSpineSpec>().uplinks = 2;
        Check(ls3, 7 * B, 15 * B, "first 2 of 5 leaves + 3 of the 6 GPUs of the next leaf");

        // Fat-tree of radix 4 with 3 pods (12 GPUs): 1 whole pod (min(2 x 2 B, 2 x 2 B) =
        // 4 B) + the middle pod's own bisection (1 leaf: min(2 B, 2 B) = 2 B) = 6 B = full.
        TopologySpec ft = Spec("fat-tree");
        ft.name = "fat-tree-3-pods";
        ft.As<FatTreeSpec>().radix = 4;
        ft.As<FatTreeSpec>().pods = 3;
        Check(ft, 6 * B, 6 * B, "first 1 of 3 pods + 1 of the 2 leaves of the next pod");

        // One SU of 3 servers x 8 GPUs with NVLink and a radix-64 rail switch (the issue's
        // case: before, 8 | 16 GPUs with 61 uplinks, and a worst split 4 x full): 3 uplinks
        // (1:1), side A = server 0 + 4 GPUs of server 1 (its halves meet over NVLink and in
        // the rail switches): 12 B = full.
        TopologySpec rail = Spec("rail-optimized");
        rail.name = "rail-3-servers";
        rail.gpusPerServer = 8;
        rail.hasNvlink = true;
        rail.As<RailOptimizedSpec>().serversPerSu = 3;
        rail.As<RailOptimizedSpec>().radix = 64;
        NS_TEST_EXPECT_MSG_EQ(ResolveRail(rail).railUplinks, 3U, "1:1, not the rest of the radix");
        Check(rail, 12 * B, 12 * B, "first 1 of 3 servers + 4 of the 8 GPUs of the next server");

        // 3 SUs of 4 servers x 4 GPUs without NVLink, 2 uplinks per rail switch (2:1): side A =
        // SU 0 + rails 0-1 of SU 1: 4 x min(4 B, 2 B) + 2 x 2 B = 12 B = N B / (2 r); full 24 B.
        TopologySpec sus = Spec("rail-optimized");
        sus.name = "rail-3-sus";
        sus.gpusPerServer = 4;
        sus.As<RailOptimizedSpec>().serversPerSu = 4;
        sus.As<RailOptimizedSpec>().sus = 3;
        sus.As<RailOptimizedSpec>().railUplinks = 2;
        sus.As<RailOptimizedSpec>().radix = 16;
        Check(sus, 12 * B, 24 * B, "first 1 of 3 SUs + 2 of the 4 rails of the next SU");

        // 5 GPUs on one switch: 2 | 3.
        TopologySpec one = Spec("single-switch");
        one.name = "single-switch-5";
        one.gpus = 5;
        Check(one, 2 * B, 2 * B, "first 2 of 5 GPUs");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The rail kinds reject bad configurations.
 * (Moved from Topology.RailKindsRejectBadConfigurations.)
 */
class RailErrorsTestCase : public TestCase
{
  public:
    RailErrorsTestCase()
        : TestCase("Rail kinds reject bad configurations")
    {
    }

  private:
    void DoRun() override
    {
        TopologySpec spec = Spec("rail-optimized");
        spec.As<RailOptimizedSpec>().spines = 5; // 32 uplinks over 5 spines
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(spec), "cannot be spread evenly over spines 5"),
                              true,
                              BuildError(spec));
        spec.As<RailOptimizedSpec>().spines.reset();
        spec.As<RailOptimizedSpec>().sus = 3;
        spec.As<RailOptimizedSpec>().radix = 40; // 32 down + 8 up; 24 rail switches x 8 uplinks
        spec.As<RailOptimizedSpec>().railUplinks = 8;
        NS_TEST_EXPECT_MSG_EQ(BuildError(spec), "", "3 SUs, radix 40");
        spec.As<RailOptimizedSpec>().radix = 16;
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(spec), "more than the radix 16"),
                              true,
                              BuildError(spec));

        // Sizing: 1:1 unless oversubscription is given; the radix bounds the ports and,
        // alone, sizes them radix/2 each (the issue: radix 64 with 3 servers gave 61 uplinks,
        // radix 48 alone 32 down and 16 up, radix 128 alone 32 down and 96 up).
        auto sizing = [](std::optional<uint32_t> radix,
                         std::optional<uint32_t> servers,
                         std::optional<uint32_t> uplinks,
                         std::optional<OversubscriptionRatio> ratio) {
            TopologySpec t = Spec("rail-optimized");
            t.As<RailOptimizedSpec>().radix = radix;
            t.As<RailOptimizedSpec>().serversPerSu = servers;
            t.As<RailOptimizedSpec>().railUplinks = uplinks;
            t.As<RailOptimizedSpec>().oversubscription = ratio;
            const RailSizing z = ResolveRail(t);
            return std::make_pair(z.serversPerSu, z.railUplinks);
        };
        using P = std::pair<uint32_t, uint32_t>;
        NS_TEST_EXPECT_MSG_EQ((sizing(64, 3, {}, {}) == P{3, 3}), true, "radix 64, 3 servers");
        NS_TEST_EXPECT_MSG_EQ((sizing(64, {}, {}, {}) == P{32, 32}), true, "radix 64 alone");
        NS_TEST_EXPECT_MSG_EQ((sizing(48, {}, {}, {}) == P{24, 24}), true, "radix 48 alone");
        NS_TEST_EXPECT_MSG_EQ((sizing(128, {}, {}, {}) == P{64, 64}), true, "radix 128 alone");
        NS_TEST_EXPECT_MSG_EQ((sizing({}, {}, {}, {}) == P{32, 32}), true, "the DGX SU");
        NS_TEST_EXPECT_MSG_EQ((sizing(48, {}, 16, {}) == P{32, 16}), true, "32 servers, 16 up");
        NS_TEST_EXPECT_MSG_EQ((sizing(64, {}, {}, OversubscriptionRatio{3, 1}) == P{48, 16}),
                              true,
                              "radix 64 at 3:1");
        NS_TEST_EXPECT_MSG_EQ((sizing({}, 24, {}, OversubscriptionRatio{3, 1}) == P{24, 8}),
                              true,
                              "24 servers at 3:1");
        TopologySpec wide = Spec("rail-optimized");
        wide.As<RailOptimizedSpec>().radix = 64;
        wide.As<RailOptimizedSpec>().serversPerSu = 40;
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(wide),
                                  "a rail switch uses 40 ports down + 40 up = 80, more than the "
                                  "radix 64 (1:1: without oversubscription, rail_uplinks equals "
                                  "servers_per_su); give oversubscription or rail_uplinks"),
                              true,
                              BuildError(wide));

        TopologySpec only = Spec("rail-only");
        only.As<RailOnlySpec>().railUplinks = 16;
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(only), "no spine tier"), true, BuildError(only));
        only.As<RailOnlySpec>().railUplinks.reset();
        only.gpusPerServer = 1;
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(only), "at least 2 GPUs per server"),
                              true,
                              BuildError(only));

        TopologySpec both = Spec("rail-optimized");
        both.As<RailOptimizedSpec>().spines = 4;
        both.As<RailOptimizedSpec>().spinesPerSu = 2;
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(both), "exclude each other"), true, BuildError(both));
        Simulator::Destroy();
    }
};

// -------------------------------------------------------------------------- NVLink domains

/**
 * \ingroup ai-fabric-tests
 * \brief NVLink domains: a DGX, GB200 NVL72, and NVLink inside a leaf-spine's servers.
 * (Moved from Topology.NvlinkDomainsDgxAndNvl72.)
 */
class NvlinkDomainsTestCase : public TestCase
{
  public:
    NvlinkDomainsTestCase()
        : TestCase("NVLink domains: DGX, NVL72 and servers of a leaf-spine")
    {
    }

  private:
    void DoRun() override
    {
        TopologySpec dgx = Spec("nvlink-domain");
        dgx.gpusPerServer = 8;
        const FabricGraph g = BuildFabricGraph(dgx);
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), 8U, "DGX GPUs");
        NS_TEST_EXPECT_MSG_EQ(g.GetSwitchCount(), 1U, "DGX switches");
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks().size(), 8U, "DGX links");
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuNicLink(0), FabricGraph::NONE, "no NIC");
        const TopologyReport r = AnalyzeTopology(g, dgx);
        Show(r);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.formulaBps, 4 * 3600e9), true, "formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, 4 * 3600e9), true, "max-flow");
        NS_TEST_EXPECT_MSG_EQ(r.paths.diameterHops, 2U, "diameter");

        // GB200 NVL72 (FACTS.md 1.7): 72 GPUs, 18 switch chips, one link from every GPU to
        // every chip: 1296 links of 7200/18 = 400 Gb/s.
        TopologySpec nvl72 = Spec("nvlink-domain");
        nvl72.name = "nvl72";
        nvl72.gpusPerServer = 72;
        nvl72.nvlinkSwitches = 18;
        nvl72.nvlinkProfile = *FindLinkProfile("nvlink5");
        const FabricGraph g72 = BuildFabricGraph(nvl72);
        NS_TEST_EXPECT_MSG_EQ(g72.GetGpuCount(), 72U, "NVL72 GPUs");
        NS_TEST_EXPECT_MSG_EQ(g72.GetSwitchCount(), 18U, "NVL72 switch chips");
        NS_TEST_EXPECT_MSG_EQ(g72.GetLinks().size(), 72U * 18, "NVL72 links");
        NS_TEST_EXPECT_MSG_EQ(g72.GetProfiles().back().rate.GetBitRate(),
                              400000000000ULL,
                              "per link");
        const TopologyReport r72 = AnalyzeTopology(g72, nvl72);
        Show(r72);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r72.bisection.formulaBps, 36 * 7200e9), true, "formula");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r72.bisection.maxFlowBps, 36 * 7200e9), true, "max-flow");
        // one 2-hop path per switch chip
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r72.paths.minPaths, 18), true, "paths");

        // Composable: a leaf-spine of 8-GPU servers with NVLink.
        TopologySpec ls = Spec("leaf-spine");
        ls.As<LeafSpineSpec>().leaves = 4;
        ls.As<LeafSpineSpec>().spines = 2;
        ls.As<LeafSpineSpec>().gpusPerLeaf = 8;
        ls.gpusPerServer = 8;
        ls.hasNvlink = true;
        const FabricGraph gl = BuildFabricGraph(ls);
        NS_TEST_EXPECT_MSG_EQ(SwitchesInTier(gl, 0), 4U, "NVSwitches");
        NS_TEST_EXPECT_MSG_EQ(LinksOfKind(gl, FabricGraph::LinkKind::NVLINK), 32U, "NVLinks");
        NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(gl, false), 0U, "reachability");
        ls.gpusPerServer = 3;
        NS_TEST_EXPECT_MSG_EQ(
            Has(BuildError(ls), "do not fill servers of gpus_per_server 3 (2 left over)"),
            true,
            BuildError(ls));
        ls.gpusPerServer.reset();
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(ls), "needs gpus_per_server"), true, BuildError(ls));
        Simulator::Destroy();
    }
};

// ---------------------------------------------------------------------------------- custom

namespace
{

/// \return a custom node \p name of \p kind and \p tier, written on \p line
CustomSpec::Node
MakeNode(const std::string& name, const std::string& kind, uint32_t tier, int line)
{
    CustomSpec::Node n;
    n.where.file = "<test>";
    n.where.line = line;
    n.name = name;
    n.kind = kind;
    n.tier = tier;
    return n;
}

/// \return a custom link between \p a and \p b, written on \p line
CustomSpec::Link
MakeLink(const std::string& a, const std::string& b, int line)
{
    CustomSpec::Link l;
    l.where.file = "<test>";
    l.where.line = line;
    l.a = a;
    l.b = b;
    return l;
}

/// \return two GPUs on two switches joined by two links, plus an NVLink between the GPUs'
/// switch
TopologySpec
CustomTopology()
{
    TopologySpec s = Spec("custom");
    s.As<CustomSpec>().nodes = {MakeNode("a", "gpu", 0, 1),
                                MakeNode("b", "gpu", 0, 2),
                                MakeNode("c", "gpu", 0, 3),
                                MakeNode("s1", "switch", 1, 4),
                                MakeNode("s2", "switch", 1, 5)};
    s.As<CustomSpec>().links = {MakeLink("a", "s1", 10),
                                MakeLink("b", "s1", 11),
                                MakeLink("c", "s2", 12),
                                MakeLink("s1", "s2", 13),
                                MakeLink("s1", "s2", 14)};
    CustomSpec::Link nv = MakeLink("a", "b", 15);
    nv.profile = *FindLinkProfile("nvlink4");
    s.As<CustomSpec>().links.push_back(nv);
    return s;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief Custom graphs build and are analyzed; their errors name the entry to blame.
 * (Moved from Topology.CustomGraphsAndTheirErrors.)
 */
class CustomGraphsTestCase : public TestCase
{
  public:
    CustomGraphsTestCase()
        : TestCase("Custom graphs and their errors")
    {
    }

  private:
    void DoRun() override
    {
        const TopologySpec spec = CustomTopology();
        const FabricGraph g = BuildFabricGraph(spec);
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), 3U, "GPUs");
        NS_TEST_EXPECT_MSG_EQ(g.GetLinks().size(), 6U, "links");
        NS_TEST_EXPECT_MSG_EQ((g.GetLinks()[5].kind == FabricGraph::LinkKind::NVLINK),
                              true,
                              "the NVLink");
        NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(g, false), 0U, "reachability");
        const TopologyReport r = AnalyzeTopology(g, spec);
        Show(r);
        NS_TEST_EXPECT_MSG_EQ(r.bisection.hasFormula, false, "no formula");
        // {a} vs {b, c}: a sends at most its scale-out injection (its NIC link's rate); its
        // NVLink to b is another way across, not more to send.
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, Ndr()), true, "max-flow");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.fullBps, Ndr()), true, "full");

        TopologySpec dup = CustomTopology();
        dup.As<CustomSpec>().nodes.push_back(MakeNode("s1", "switch", 2, 6));
        const std::string e = BuildError(dup);
        NS_TEST_EXPECT_MSG_EQ(Has(e, "duplicate node name 's1' (first defined at <test>:4)"),
                              true,
                              e);

        TopologySpec unknown = CustomTopology();
        unknown.As<CustomSpec>().links.push_back(MakeLink("s2", "s3", 16));
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(unknown), "link s2 - s3 names unknown node 's3'"),
                              true,
                              BuildError(unknown));

        TopologySpec self = CustomTopology();
        self.As<CustomSpec>().links.push_back(MakeLink("s2", "s2", 16));
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(self), "connects a node to itself"),
                              true,
                              BuildError(self));

        TopologySpec cut = CustomTopology();
        cut.As<CustomSpec>().nodes.push_back(MakeNode("lonely", "switch", 1, 7));
        cut.As<CustomSpec>().nodes.push_back(MakeNode("d", "gpu", 0, 8));
        cut.As<CustomSpec>().links.push_back(MakeLink("d", "lonely", 16));
        bool refused = false;
        try
        {
            BuildFabricGraph(cut);
        }
        catch (const SpecError& err)
        {
            refused = true;
            NS_TEST_EXPECT_MSG_EQ(Has(err.Message(), "node 'lonely' cannot be reached from 'a'"),
                                  true,
                                  err.what());
            NS_TEST_EXPECT_MSG_EQ(err.Where().line, 7, err.what());
        }
        NS_TEST_EXPECT_MSG_EQ(refused, true, "a disconnected graph was accepted");

        TopologySpec kind = CustomTopology();
        kind.As<CustomSpec>().nodes[3].kind = "router";
        NS_TEST_EXPECT_MSG_EQ(
            Has(BuildError(kind), "unknown kind 'router' (known: gpu, switch, nic)"),
            true,
            BuildError(kind));

        TopologySpec lonelyGpu = Spec("custom");
        lonelyGpu.As<CustomSpec>().nodes
            = {MakeNode("a", "gpu", 0, 1), MakeNode("s", "switch", 1, 2)};
        lonelyGpu.As<CustomSpec>().links = {MakeLink("a", "s", 3)};
        NS_TEST_EXPECT_MSG_EQ(Has(BuildError(lonelyGpu), "at least 2 GPUs"),
                              true,
                              BuildError(lonelyGpu));
        Simulator::Destroy();
    }
};

// ------------------------------------------------------------------------- every generator

/**
 * \ingroup ai-fabric-tests
 * \brief Every kind connects every GPU pair, and its bisection formula agrees with max-flow.
 * (Moved from Topology.EveryKindConnectsEveryGpuPair.)
 */
class EveryKindConnectsTestCase : public TestCase
{
  public:
    EveryKindConnectsTestCase()
        : TestCase("Every kind connects every GPU pair")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<TopologySpec> specs;
        TopologySpec s = Spec("single-switch");
        s.gpus = 8;
        s.hostLink = LinkProfile{};
        s.hostLink = *FindLinkProfile("pcie-gen5");
        specs.push_back(s);
        s = Spec("leaf-spine");
        s.As<LeafSpineSpec>().radix = 8;
        s.As<LeafSpineSpec>().oversubscription = OversubscriptionRatio{3, 1};
        specs.push_back(s);
        s = Spec("fat-tree");
        s.As<FatTreeSpec>().radix = 4;
        s.hostLink = LinkProfile{};
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
        specs.push_back(CustomTopology());
        std::set<std::string> kinds;
        for (const auto& spec : specs)
        {
            kinds.insert(spec.Kind());
            const FabricGraph g = BuildFabricGraph(spec);
            NS_TEST_EXPECT_MSG_EQ(UnreachablePairs(g, spec.Kind() == "rail-only"), 0U, spec.Kind());
            const TopologyReport r = AnalyzeTopology(g, spec);
            NS_TEST_EXPECT_MSG_EQ(r.paths.unreachablePairs, 0U, spec.Kind());
            NS_TEST_EXPECT_MSG_EQ(r.bisection.formulaAgrees,
                                  true,
                                  spec.Kind() << ": " << r.bisection.formulaBps << " vs "
                                              << r.bisection.maxFlowBps);
            NS_TEST_EXPECT_MSG_GT(r.bisection.worstBps, 0, spec.Kind());
        }
        const auto names = TopologyKindNames();
        NS_TEST_EXPECT_MSG_EQ((kinds == std::set<std::string>(names.begin(), names.end())),
                              true,
                              "every kind: " << Join(names));
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Kinds whose GPUs have one link each build with FabricBuilder.
 * (Moved from Topology.SinglePortKindsBuildWithTheCurrentBuilder.)
 */
class SinglePortKindsBuildTestCase : public TestCase
{
  public:
    SinglePortKindsBuildTestCase()
        : TestCase("Single-port kinds build with the fabric builder")
    {
    }

  private:
    void DoRun() override
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
            const FabricGraph g = BuildFabricGraph(spec);
            std::string error;
            try
            {
                FabricBuilder::Build(g, spec.where, FabricBuildOptions{});
            }
            catch (const std::exception& e)
            {
                error = e.what();
            }
            NS_TEST_EXPECT_MSG_EQ(error, "", spec.Kind() << " builds");
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief An unknown kind lists the known ones. (Moved from Topology.UnknownKindListsTheKnownOnes.)
 */
class UnknownKindTestCase : public TestCase
{
  public:
    UnknownKindTestCase()
        : TestCase("An unknown kind lists the known ones")
    {
    }

  private:
    void DoRun() override
    {
        std::string e; // SetKind rejects an unknown kind, listing the known ones
        try
        {
            Spec("torus");
        }
        catch (const SpecError& err)
        {
            e = err.Message();
        }
        NS_TEST_EXPECT_MSG_EQ(Has(e, "unknown topology kind 'torus'"), true, e);
        NS_TEST_EXPECT_MSG_EQ(Has(e, "fat-tree, rail-optimized, rail-only, dragonfly-plus"),
                              true,
                              e);
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Large fabrics (a k=26 fat-tree, a 16-SU B200-like rail-optimized fabric with
 * NVLink, a k=16 balanced Dragonfly+) build and are analyzed; the times are printed.
 * (Moved from Topology.LargeFabricsBuildInMilliseconds.)
 */
class LargeFabricsTestCase : public TestCase
{
  public:
    LargeFabricsTestCase()
        : TestCase("Large fabrics build and are analyzed")
    {
    }

  private:
    void DoRun() override
    {
        // k = 26 fat-tree: 4394 GPUs, 845 switches, 13182 links.
        TopologySpec spec = Spec("fat-tree");
        spec.As<FatTreeSpec>().radix = 26;
        const auto t0 = std::chrono::steady_clock::now();
        const FabricGraph g = BuildFabricGraph(spec);
        const double buildMs
            = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count();
        NS_TEST_EXPECT_MSG_EQ(g.GetGpuCount(), 26U * 26 * 26 / 4, "GPUs");
        const TopologyReport r = AnalyzeTopology(g, spec);
        std::cout << "[fat-tree-k26] build " << buildMs << " ms; ";
        Show(r);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.bisection.maxFlowBps, g.GetGpuCount() / 2 * Ndr()),
                              true,
                              "max-flow");
        NS_TEST_EXPECT_MSG_EQ(r.paths.sampled, true, "paths sampled");

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
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(rb.bisection.maxFlowBps, rb.bisection.formulaBps),
                              true,
                              "B200 max-flow");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(rb.bisection.formulaBps, 2048 * Ndr()),
                              true,
                              "B200 formula");
        TopologySpec dfp = Spec("dragonfly-plus");
        dfp.name = "dfp-k16";
        dfp.As<DragonflyPlusSpec>().groups = 65;
        dfp.As<DragonflyPlusSpec>().leavesPerGroup = 8;
        dfp.As<DragonflyPlusSpec>().spinesPerGroup = 8;
        dfp.As<DragonflyPlusSpec>().gpusPerLeaf = 8;
        dfp.As<DragonflyPlusSpec>().globalLinksPerSpine = 8;
        dfp.As<DragonflyPlusSpec>().radix = 16;
        const FabricGraph gd = BuildFabricGraph(dfp);
        NS_TEST_EXPECT_MSG_EQ(gd.GetGpuCount(), 4160U, "Dragonfly+ GPUs");
        const TopologyReport rd = AnalyzeTopology(gd, dfp);
        Show(rd);
        // Odd G (65): the balanced split cuts group 32 in two; no closed form. The cut:
        // 32 x 32 global links between whole groups + 8 x 8 / 2 links inside group 32.
        NS_TEST_EXPECT_MSG_EQ(rd.bisection.hasFormula, false, "Dragonfly+ odd G");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(rd.bisection.maxFlowBps, (32.0 * 32 + 32) * Ndr()),
                              true,
                              "Dragonfly+ max-flow");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The topology TestSuite.
 */
class TopologyTestSuite : public TestSuite
{
  public:
    TopologyTestSuite()
        : TestSuite("ai-fabric-topology", UNIT)
    {
        for (const uint32_t k : {4U, 8U})
        {
            AddTestCase(new KAryFatTreeTestCase(k), TestCase::QUICK);
        }
        AddTestCase(new ThreeTierFatTreeTestCase, TestCase::QUICK);
        AddTestCase(new LeafSpineThreeToOneTestCase, TestCase::QUICK);
        AddTestCase(new LeafSpineWiringTestCase, TestCase::QUICK);
        AddTestCase(new OversubscriptionTestCase, TestCase::QUICK);
        const DragonflyCase shapes[] = {
            // p = l = s = h = k/2 = 2 (FACTS.md 1.6), max groups s h + 1 = 5
            {5, 2, 2, 2, 2, 1},
            // even groups, 2 links per pair
            {4, 2, 3, 3, 2, 2},
            // k = 8 balanced: p = l = s = h = 4, 17 groups
            {17, 4, 4, 4, 4, 1},
            // global-limited: few global links, many hosts
            {8, 4, 7, 8, 1, 1},
            // host-limited: 1 host per leaf
            {6, 2, 5, 1, 5, 5},
        };
        for (const DragonflyCase& c : shapes)
        {
            AddTestCase(new DragonflyPlusBisectionTestCase(c), TestCase::QUICK);
        }
        AddTestCase(new DragonflyPlusUnwirableTestCase, TestCase::QUICK);
        AddTestCase(new RailOptimizedDgxTestCase, TestCase::QUICK);
        AddTestCase(new RailOptimizedTiersTestCase, TestCase::QUICK);
        AddTestCase(new RailOnlyRelaysTestCase, TestCase::QUICK);
        AddTestCase(new RailErrorsTestCase, TestCase::QUICK);
        AddTestCase(new OddCountsBisectionTestCase, TestCase::QUICK);
        AddTestCase(new NvlinkDomainsTestCase, TestCase::QUICK);
        AddTestCase(new CustomGraphsTestCase, TestCase::QUICK);
        AddTestCase(new EveryKindConnectsTestCase, TestCase::QUICK);
        AddTestCase(new SinglePortKindsBuildTestCase, TestCase::QUICK);
        AddTestCase(new UnknownKindTestCase, TestCase::QUICK);
        AddTestCase(new LargeFabricsTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static TopologyTestSuite g_topologyTestSuite;
