/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the stats room (suite ai-fabric-stats): sample statistics (Percentile,
 * Summarize, Tails), the straggler figure and FillTails, nccl-tests' bus-bandwidth factors,
 * tier classes of links, per-port counters and queue tails of an incast, and the port
 * sampler's time series.
 */
#include "ai-fabric-test-run.h"

#include "ns3/fabric-graph.h"
#include "ns3/fabric-stats.h"
#include "ns3/link-profile.h"
#include "ns3/port-metrics.h"
#include "ns3/run-results.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/topology-spec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::aifabrictest;

namespace
{

/// \param f a call \return whether it throws std::invalid_argument
template<typename F>
bool
ThrowsInvalidArgument(F f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument&)
    {
        return true;
    }
    return false;
}

} // namespace

// ------------------------------------------------------------ Percentile, Summarize

/**
 * \ingroup ai-fabric-tests
 * \brief The percentiles of 1 .. 100 (R-7: P = 1 + 99 p / 100).
 * (Moved from FabricStats.PercentileOfOneToHundred, tests/results-writer-test.cc.)
 */
class PercentileOneToHundredTestCase : public TestCase
{
  public:
    PercentileOneToHundredTestCase()
        : TestCase("Percentiles of 1 to 100")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<double> x(100);
        std::iota(x.begin(), x.end(), 1.0);
        // h = 99 p / 100; x[k] + (h - k)(x[k+1] - x[k]) with x[k] = k + 1, so P = 1 + h.
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(Percentile(x, 0), 1.0), true, "p0");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(Percentile(x, 25), 25.75), true, "p25");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(Percentile(x, 50), 50.5), true, "p50");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(Percentile(x, 90), 90.1), true, "p90");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(Percentile(x, 99), 99.01), true, "p99");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(Percentile(x, 99.9), 99.901), true, "p99.9");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(Percentile(x, 100), 100.0), true, "p100");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Percentiles of one, two and no samples.
 * (Moved from FabricStats.PercentileSmallInputs, tests/results-writer-test.cc.)
 */
class PercentileSmallInputsTestCase : public TestCase
{
  public:
    PercentileSmallInputsTestCase()
        : TestCase("Percentiles of small inputs")
    {
    }

  private:
    void DoRun() override
    {
        // single sample: every percentile is that sample
        for (double p : {0.0, 1.0, 50.0, 99.9, 100.0})
        {
            NS_TEST_EXPECT_MSG_EQ(Percentile({42.5}, p), 42.5, "p" << p);
        }
        // two samples: straight line between them
        NS_TEST_EXPECT_MSG_EQ(Percentile({10, 20}, 0), 10.0, "p0");
        NS_TEST_EXPECT_MSG_EQ(Percentile({10, 20}, 50), 15.0, "p50");
        NS_TEST_EXPECT_MSG_EQ(Percentile({10, 20}, 90), 19.0, "p90");
        NS_TEST_EXPECT_MSG_EQ(Percentile({10, 20}, 100), 20.0, "p100");
        // empty input: 0 by definition
        NS_TEST_EXPECT_MSG_EQ(Percentile({}, 50), 0.0, "empty");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Percentiles of unsorted input; NaNs are ignored; infinities give no NaN.
 * (Moved from FabricStats.PercentileUnsortedAndNan, tests/results-writer-test.cc.)
 */
class PercentileUnsortedAndNanTestCase : public TestCase
{
  public:
    PercentileUnsortedAndNanTestCase()
        : TestCase("Percentiles of unsorted input with NaNs and infinities")
    {
    }

  private:
    void DoRun() override
    {
        // sorted: 1 2 3 4 5; numpy.percentile([5,1,4,2,3], 30) = 2.2
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(Percentile({5, 1, 4, 2, 3}, 30), 2.2), true, "p30");
        NS_TEST_EXPECT_MSG_EQ(Percentile({5, 1, 4, 2, 3}, 50), 3.0, "p50");
        // even count: median is the mean of the two middle samples
        NS_TEST_EXPECT_MSG_EQ(Percentile({4, 1, 3, 2}, 50), 2.5, "even count");
        // NaNs are ignored
        const double nan = std::numeric_limits<double>::quiet_NaN();
        NS_TEST_EXPECT_MSG_EQ(Percentile({nan, 3, nan, 1}, 50), 2.0, "NaNs ignored");
        NS_TEST_EXPECT_MSG_EQ(Percentile({nan}, 50), 0.0, "only a NaN");
        // infinities do not produce NaN
        const double inf = std::numeric_limits<double>::infinity();
        NS_TEST_EXPECT_MSG_EQ(Percentile({1, inf, inf}, 75), inf, "infinities");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A percentile outside [0, 100] or NaN is refused.
 * (Moved from FabricStats.PercentileRejectsBadP, tests/results-writer-test.cc.)
 */
class PercentileRejectsBadPTestCase : public TestCase
{
  public:
    PercentileRejectsBadPTestCase()
        : TestCase("A bad percentile is refused")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(ThrowsInvalidArgument([] {
                                  Percentile({1, 2}, -0.1);
                              }),
                              true,
                              "-0.1");
        NS_TEST_EXPECT_MSG_EQ(ThrowsInvalidArgument([] {
                                  Percentile({1, 2}, 100.1);
                              }),
                              true,
                              "100.1");
        NS_TEST_EXPECT_MSG_EQ(ThrowsInvalidArgument([] {
                                  Percentile({1, 2}, std::numeric_limits<double>::quiet_NaN());
                              }),
                              true,
                              "NaN");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Summarize: count, extremes, exact mean and tails; one sample; none.
 * (Moved from FabricStats.Summarize, tests/results-writer-test.cc.)
 */
class SummarizeTestCase : public TestCase
{
  public:
    SummarizeTestCase()
        : TestCase("Summarize gives count, extremes, mean and tails")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<double> x(100);
        std::iota(x.begin(), x.end(), 1.0);
        std::reverse(x.begin(), x.end());
        const SampleSummary s = Summarize(x);
        NS_TEST_EXPECT_MSG_EQ(s.count, 100U, "count");
        NS_TEST_EXPECT_MSG_EQ(s.min, 1.0, "min");
        NS_TEST_EXPECT_MSG_EQ(s.max, 100.0, "max");
        NS_TEST_EXPECT_MSG_EQ(s.mean, 50.5, "5050 / 100, exact");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(s.p50, 50.5), true, "p50 " << s.p50);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(s.p90, 90.1), true, "p90 " << s.p90);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(s.p99, 99.01), true, "p99 " << s.p99);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(s.p999, 99.901), true, "p99.9 " << s.p999);

        const SampleSummary one = Summarize({7.0});
        NS_TEST_EXPECT_MSG_EQ(one.count, 1U, "one: count");
        NS_TEST_EXPECT_MSG_EQ(one.min, 7.0, "one: min");
        NS_TEST_EXPECT_MSG_EQ(one.mean, 7.0, "one: mean");
        NS_TEST_EXPECT_MSG_EQ(one.p999, 7.0, "one: p99.9");
        NS_TEST_EXPECT_MSG_EQ(one.max, 7.0, "one: max");

        const SampleSummary none = Summarize({});
        NS_TEST_EXPECT_MSG_EQ(none.count, 0U, "none: count");
        NS_TEST_EXPECT_MSG_EQ(none.min, 0.0, "none: min");
        NS_TEST_EXPECT_MSG_EQ(none.mean, 0.0, "none: mean");
        NS_TEST_EXPECT_MSG_EQ(none.p50, 0.0, "none: p50");
        NS_TEST_EXPECT_MSG_EQ(none.p90, 0.0, "none: p90");
        NS_TEST_EXPECT_MSG_EQ(none.p99, 0.0, "none: p99");
        NS_TEST_EXPECT_MSG_EQ(none.p999, 0.0, "none: p99.9");
        NS_TEST_EXPECT_MSG_EQ(none.max, 0.0, "none: max");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Summarize does not depend on the order of its input, to the bit.
 * (Moved from FabricStats.SummarizeDoesNotDependOnOrder, tests/results-writer-test.cc.)
 */
class SummarizeOrderTestCase : public TestCase
{
  public:
    SummarizeOrderTestCase()
        : TestCase("Summarize does not depend on the input's order")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<double> a = {0.1, 0.7, 1e-9, 3.3, 0.2, 1e6, 0.3};
        std::vector<double> b(a.rbegin(), a.rend());
        std::swap(b[1], b[4]);
        const SampleSummary sa = Summarize(a);
        const SampleSummary sb = Summarize(b);
        NS_TEST_EXPECT_MSG_EQ(sa.mean, sb.mean, "bitwise: summed in sorted order");
        NS_TEST_EXPECT_MSG_EQ(sa.p90, sb.p90, "p90");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief nccl-tests' bus-bandwidth factors, by op and spelling.
 * (Moved from FabricStats.BusBandwidthFactors, tests/results-writer-test.cc.)
 */
class BusBandwidthFactorsTestCase : public TestCase
{
  public:
    BusBandwidthFactorsTestCase()
        : TestCase("Bus-bandwidth factors follow nccl-tests")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<std::pair<std::pair<std::string, uint32_t>, double>> factors = {
            {{"all-reduce", 8}, 1.75}, // 2 * 7 / 8
            {{"all-reduce", 2}, 1.0},
            {{"all-reduce", 1}, 0.0},
            {{"reduce-scatter", 8}, 0.875},
            {{"all-gather", 4}, 0.75},
            {{"all-to-all", 16}, 0.9375},
            {{"broadcast", 8}, 1.0},
            {{"reduce", 8}, 1.0},
            {{"send-recv", 2}, 1.0},
            // spellings
            {{"AllReduce", 4}, 1.5},
            {{"all_reduce", 4}, 1.5},
            {{"alltoall", 4}, 0.75},
            {{"sendrecv", 4}, 1.0},
        };
        for (const auto& [op, factor] : factors)
        {
            const double f = BusBandwidthFactor(op.first, op.second);
            NS_TEST_EXPECT_MSG_EQ(DoubleEq(f, factor),
                                  true,
                                  op.first << " " << op.second << ": " << f);
        }
        NS_TEST_EXPECT_MSG_EQ(ThrowsInvalidArgument([] { BusBandwidthFactor("all-scatter", 4); }),
                              true,
                              "unknown op");
        NS_TEST_EXPECT_MSG_EQ(ThrowsInvalidArgument([] { BusBandwidthFactor("all-reduce", 0); }),
                              true,
                              "no rank");
    }
};

// ------------------------------------------------------------------ tails and stragglers

/**
 * \ingroup ai-fabric-tests
 * \brief Tails and the straggler figure on known inputs are exact.
 * (Moved from TailStats.PercentilesAndStragglerOnKnownInputsAreExact, tests/metrics-test.cc.)
 */
class TailsAndStragglerTestCase : public TestCase
{
  public:
    TailsAndStragglerTestCase()
        : TestCase("Tails and the straggler figure on known inputs are exact")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<double> hundred;
        for (int i = 1; i <= 100; ++i)
        {
            hundred.push_back(i);
        }
        const TailSummary t = Tails(hundred);
        NS_TEST_EXPECT_MSG_EQ(t.count, 100U, "count");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(t.p50, 50.5), true, "p50 " << t.p50);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(t.p90, 90.1), true, "p90 " << t.p90);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(t.p99, 99.01), true, "p99 " << t.p99);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(t.p999, 99.901), true, "p99.9 " << t.p999);
        NS_TEST_EXPECT_MSG_EQ(t.max, 100, "max");

        // odd count; the first of two latest ranks is the straggler
        const StragglerFigure a = StragglerOf({1.0, 3.0, 2.0, 3.0, 1.5}, {10, 11, 12, 13, 14}, 0.5);
        NS_TEST_ASSERT_MSG_EQ(a.valid, true, "valid");
        NS_TEST_EXPECT_MSG_EQ(a.position, 1U, "position");
        NS_TEST_EXPECT_MSG_EQ(a.gpu, 11U, "GPU");
        NS_TEST_EXPECT_MSG_EQ(a.finishS, 3.0, "finish");
        NS_TEST_EXPECT_MSG_EQ(a.medianS, 2.0, "median");
        NS_TEST_EXPECT_MSG_EQ(a.minusMedianS, 1.0, "minus median");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(a.overMedian, 2.5 / 1.5), true, "over median");

        // even count: the median is the mean of the middle two; no GPU list: gpu = position
        const StragglerFigure b = StragglerOf({4.0, 1.0, 3.0, 2.0}, {}, 0.0);
        NS_TEST_EXPECT_MSG_EQ(b.position, 0U, "position");
        NS_TEST_EXPECT_MSG_EQ(b.gpu, 0U, "GPU");
        NS_TEST_EXPECT_MSG_EQ(b.medianS, 2.5, "median");
        NS_TEST_EXPECT_MSG_EQ(b.overMedian, 1.6, "over median");
        NS_TEST_EXPECT_MSG_EQ(b.minusMedianS, 1.5, "minus median");

        NS_TEST_EXPECT_MSG_EQ(StragglerOf({}, {}, 0).valid, false, "no rank");
        // median == start
        NS_TEST_EXPECT_MSG_EQ(std::isnan(StragglerOf({2.0}, {7}, 2.0).overMedian),
                              true,
                              "median at the start");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief FillTails uses each collective's own flows and its receiving ranks.
 * (Moved from TailStats.FillTailsUsesEachCollectivesFlowsAndItsReceivingRanks,
 * tests/metrics-test.cc.)
 */
class FillTailsTestCase : public TestCase
{
  public:
    FillTailsTestCase()
        : TestCase("FillTails uses each collective's flows and receiving ranks")
    {
    }

  private:
    void DoRun() override
    {
        RunResults r;
        CollectiveResult c;
        c.name = "sr";
        c.ranks = 4;
        c.startS = 1.0;
        c.rankGpus = {8, 9, 10, 11};
        c.finishSPerRank = {1.0, 5.0, 3.0, 1.0}; // ranks 0 and 3 only send
        r.collectives.push_back(c);
        CollectiveResult d = c;
        d.name = "other";
        d.finishSPerRank = {2.0, 2.0, 2.0, 2.0};
        r.collectives.push_back(d);
        auto flow
            = [](const std::string& name, uint32_t src, uint32_t dst, double fct, double ideal) {
                  FlowRecord f;
                  f.collective = name;
                  f.src = src;
                  f.dst = dst;
                  f.postedS = 1.0;
                  f.endS = 1.0 + fct;
                  f.idealS = ideal;
                  return f;
              };
        r.flows = {flow("sr", 8, 9, 4.0, 2.0),
                   flow("sr", 11, 10, 2.0, 2.0),
                   flow("other", 8, 9, 1.0, 0.5),
                   flow("other", 9, 10, 1.0, 0.5),
                   flow("other", 10, 11, 1.0, 0.5),
                   flow("other", 11, 8, 1.0, 0.5)};
        FillTails(r);
        const CollectiveResult& sr = r.collectives[0];
        NS_TEST_EXPECT_MSG_EQ(sr.fct.count, 2U, "sr: flows");
        NS_TEST_EXPECT_MSG_EQ(sr.fct.p50, 3.0, "sr: FCT p50");
        NS_TEST_EXPECT_MSG_EQ(sr.fct.max, 4.0, "sr: FCT max");
        NS_TEST_EXPECT_MSG_EQ(sr.slowdown.p50, 1.5, "sr: slowdown p50");
        NS_TEST_EXPECT_MSG_EQ(sr.slowdown.max, 2.0, "sr: slowdown max");
        NS_TEST_EXPECT_MSG_EQ(sr.rankFinish.count, 2U, "GPUs 9 and 10 receive");
        NS_TEST_EXPECT_MSG_EQ(sr.rankFinish.p50, 4.0, "sr: finish p50");
        NS_TEST_EXPECT_MSG_EQ(sr.straggler.position, 1U, "sr: straggler position");
        NS_TEST_EXPECT_MSG_EQ(sr.straggler.gpu, 9U, "sr: straggler GPU");
        NS_TEST_EXPECT_MSG_EQ(sr.straggler.medianS, 4.0, "sr: median");
        NS_TEST_EXPECT_MSG_EQ(sr.straggler.overMedian, 4.0 / 3.0, "sr: over median");
        NS_TEST_EXPECT_MSG_EQ(r.collectives[1].rankFinish.count, 4U, "other: receivers");
        NS_TEST_EXPECT_MSG_EQ(r.collectives[1].straggler.overMedian, 1.0, "other: over median");
        NS_TEST_EXPECT_MSG_EQ(r.collectives[1].slowdown.max, 2.0, "other: slowdown max");
        NS_TEST_EXPECT_MSG_EQ(r.fct.count, 6U, "run: flows");
        NS_TEST_EXPECT_MSG_EQ(r.fct.p50, 1.0, "run: FCT p50");
        NS_TEST_EXPECT_MSG_EQ(r.slowdown.max, 2.0, "run: slowdown max");
    }
};

// ----------------------------------------------------------------------------- tier classes

namespace
{

/// \param t a topology \return the number of links of each tier class, as "class:count "
/// in TierClassNames() order
std::string
ClassCounts(const TopologySpec& t)
{
    const FabricGraph g = BuildFabricGraph(t);
    std::string out;
    for (const std::string& name : TierClassNames())
    {
        uint32_t n = 0;
        for (uint32_t l = 0; l < g.GetLinks().size(); ++l)
        {
            n += TierClassOf(g, l, t.Kind() == "custom") == name ? 1 : 0;
        }
        if (n > 0)
        {
            out += name + ":" + std::to_string(n) + " ";
        }
    }
    return out;
}

/// \param profile the links' profile \return 2 leaves of 2 GPUs, 2 spines
TopologySpec
LeafSpine(const std::string& profile)
{
    TopologySpec t = KindSpec("leaf-spine", profile);
    t.As<LeafSpineSpec>().leaves = 2;
    t.As<LeafSpineSpec>().gpusPerLeaf = 2;
    t.As<LeafSpineSpec>().spines = 2;
    return t;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief Tier classes follow node kinds, tiers, groups and link kinds.
 * (Moved from TierClass.DerivedFromNodeKindsTiersGroupsAndLinkKinds, tests/metrics-test.cc.)
 */
class TierClassTestCase : public TestCase
{
  public:
    TierClassTestCase()
        : TestCase("Tier classes follow node kinds, tiers, groups and link kinds")
    {
    }

  private:
    void DoRun() override
    {
        TopologySpec ls = LeafSpine("ib-ndr");
        NS_TEST_EXPECT_MSG_EQ(ClassCounts(ls), "gpu-leaf:4 leaf-spine:4 ", "leaf-spine");
        ls.hostLink = LinkProfile{};
        ls.hostLink = *FindLinkProfile("pcie-gen5");
        NS_TEST_EXPECT_MSG_EQ(ClassCounts(ls),
                              "pcie:4 gpu-leaf:4 leaf-spine:4 ",
                              "leaf-spine with host links");
        TopologySpec nv = KindSpec("nvlink-domain");
        nv.name = "nvlink";
        nv.gpus = 8;
        nv.gpusPerServer = 8;
        nv.nvlinkSwitches = 1;
        nv.nvlinkProfile = *FindLinkProfile("nvlink4");
        NS_TEST_EXPECT_MSG_EQ(ClassCounts(nv), "nvlink:8 ", "NVLink domain");

        TopologySpec ft = KindSpec("fat-tree");
        ft.name = "ft";
        ft.As<FatTreeSpec>().radix = 4; // k = 4: 16 hosts, 8 edge, 8 aggregation, 4 core switches
        NS_TEST_EXPECT_MSG_EQ(ClassCounts(ft),
                              "gpu-leaf:16 leaf-spine:16 spine-core:16 ",
                              "fat-tree");

        TopologySpec df = KindSpec("dragonfly-plus");
        df.name = "df";
        df.As<DragonflyPlusSpec>().groups = 3;
        df.As<DragonflyPlusSpec>().leavesPerGroup = 2;
        df.As<DragonflyPlusSpec>().spinesPerGroup = 2;
        df.As<DragonflyPlusSpec>().gpusPerLeaf = 2;
        df.As<DragonflyPlusSpec>().globalLinksPerSpine = 1;
        // per group: 4 GPU links, 4 leaf-spine links; 3 x 2 global ports = 3 global links
        NS_TEST_EXPECT_MSG_EQ(ClassCounts(df), "gpu-leaf:12 leaf-spine:12 global:3 ", "Dragonfly+");

        TopologySpec cu = KindSpec("custom");
        cu.name = "cu";
        cu.As<CustomSpec>().nodes = {{{}, "g0", "gpu", 0},
                                     {{}, "g1", "gpu", 0},
                                     {{}, "s1", "switch", 1},
                                     {{}, "s2", "switch", 2}};
        cu.As<CustomSpec>().links = {{{}, "g0", "s1", std::nullopt},
                                     {{}, "s1", "s2", std::nullopt},
                                     {{}, "s2", "g1", std::nullopt}};
        NS_TEST_EXPECT_MSG_EQ(ClassCounts(cu), "gpu-leaf:2 switch-switch:1 ", "custom");
        Simulator::Destroy();
    }
};

// ------------------------------------------------------------------- ports and time series

namespace
{

/**
 * \brief A 4-to-1 incast of 1 MiB per sender on one roce-400g switch (ECN marks, DCQCN, a
 * deep queue).
 * \param interval the time series' bin width; zero for automatic bins
 * \return the run
 */
RunResults
Incast(Time interval)
{
    TopologySpec topo = KindSpec("single-switch", "roce-400g");
    topo.gpus = 5;
    WorkloadGroup g = MakeGroup("send-recv", "direct", 5, 4 << 20);
    g.name = "msg";
    for (uint32_t i = 1; i <= 4; ++i)
    {
        g.transfers.push_back(WorkloadTransfer{i, 0, 1 << 20});
    }
    RunSetup setup;
    setup.stopTime = Seconds(1);
    setup.sampleInterval = interval;
    setup.topology = &topo;
    return RunCollectives(BuildFabricGraph(topo), {g}, setup);
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief An incast counts ECN marks per port and the receiver's port has a standing queue;
 * the tier class adds its ports up; the incast's flows are slowed.
 * (Moved from PortMetrics.IncastCountsEcnPerPortAndQueueTails, tests/metrics-test.cc.)
 */
class IncastPortMetricsTestCase : public TestCase
{
  public:
    IncastPortMetricsTestCase()
        : TestCase("An incast counts ECN marks per port and queue tails")
    {
    }

  private:
    void DoRun() override
    {
        const RunResults r = Incast(Time(0));
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "complete");
        NS_TEST_ASSERT_MSG_EQ(r.ports.size(), 10U, "ports");
        uint64_t ecn = 0;
        for (uint32_t i = 0; i < r.ports.size(); ++i)
        {
            const PortRecord& p = r.ports[i];
            NS_TEST_EXPECT_MSG_EQ(p.portId, i, "port id");
            NS_TEST_EXPECT_MSG_EQ(p.tierClass, "gpu-leaf", "port " << i);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(p.p99QueueBytes, p.peakQueueBytes, "port " << i);
            ecn += p.ecnMarks;
        }
        NS_TEST_EXPECT_MSG_GT(r.counters.ecnMarks, 0U, "marks");
        NS_TEST_EXPECT_MSG_EQ(ecn, r.counters.ecnMarks, "the ports' marks are the switch's");
        // port 1 = switch -> gpu0, the incast's bottleneck: all marks and a standing queue
        const PortRecord& hot = r.ports[1];
        NS_TEST_EXPECT_MSG_EQ(hot.node, "switch0", "port 1");
        NS_TEST_EXPECT_MSG_EQ(hot.ecnMarks, r.counters.ecnMarks, "all marks");
        NS_TEST_EXPECT_MSG_GT(hot.p99QueueBytes, hot.peakQueueBytes / 2, "a standing queue");
        // gpu0 -> switch: ACKs only, no standing queue
        NS_TEST_EXPECT_MSG_EQ(r.ports[0].p99QueueBytes, 0U, "port 0");

        NS_TEST_ASSERT_MSG_EQ(r.tierClasses.size(), 1U, "one tier class");
        const TierClassRecord& t = r.tierClasses[0];
        NS_TEST_EXPECT_MSG_EQ(t.tierClass, "gpu-leaf", "the class");
        NS_TEST_EXPECT_MSG_EQ(t.ports, 10U, "its ports");
        NS_TEST_EXPECT_MSG_EQ(t.ecnMarks, r.counters.ecnMarks, "its marks");
        NS_TEST_EXPECT_MSG_EQ(t.peakQueueBytes, hot.peakQueueBytes, "its peak queue");
        NS_TEST_EXPECT_MSG_EQ_TOL(t.maxUtilization, hot.busyS / r.simTimeS, 1e-12, "busiest");

        // the incast's flows are slowed by sharing the receiver's port
        NS_TEST_EXPECT_MSG_GT(r.slowdown.max, 3.0, "slowdown max");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(r.slowdown.p50, 1.0, "slowdown p50");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The time series' bins (automatic and 5 us) start on multiples of their width and
 * account for every port's busy time.
 * (Moved from TimeSeries.BinsAccountForEveryPortsBusyTime, tests/metrics-test.cc.)
 */
class TimeSeriesBinsTestCase : public TestCase
{
  public:
    TimeSeriesBinsTestCase()
        : TestCase("The time series' bins account for every port's busy time")
    {
    }

  private:
    void DoRun() override
    {
        for (const Time& interval : {Time(0), MicroSeconds(5)})
        {
            const RunResults r = Incast(interval);
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, "complete");
            NS_TEST_ASSERT_MSG_EQ(r.timeseries.empty(), false, "rows");
            const bool automatic = interval.IsZero();
            NS_TEST_EXPECT_MSG_EQ(r.sampleIntervalAuto, automatic, "automatic bins");
            if (!automatic)
            {
                NS_TEST_EXPECT_MSG_EQ(DoubleEq(r.sampleIntervalS, 5e-6),
                                      true,
                                      "width " << r.sampleIntervalS);
            }
            std::vector<double> busy(r.ports.size(), 0.0);
            std::vector<int> rows(r.ports.size(), 0);
            uint32_t bins = 0;
            double binStart = -1;
            for (const TimeSeriesRow& row : r.timeseries)
            {
                NS_TEST_ASSERT_MSG_LT(row.portId, r.ports.size(), "port id");
                if (row.timeS != binStart)
                {
                    ++bins;
                    // every bin starts on a multiple of the width (the last may be shorter)
                    NS_TEST_EXPECT_MSG_EQ_TOL(std::fmod(row.timeS + 1e-15, r.sampleIntervalS),
                                              0,
                                              1e-12,
                                              "bin at " << row.timeS);
                    NS_TEST_EXPECT_MSG_GT(row.timeS, binStart, "bins in order");
                    binStart = row.timeS;
                }
                NS_TEST_EXPECT_MSG_GT_OR_EQ(row.utilization, 0, "utilization");
                NS_TEST_EXPECT_MSG_LT_OR_EQ(row.utilization, 1, "utilization");
                NS_TEST_EXPECT_MSG_GT_OR_EQ(row.queueMaxBytes, row.queueBytes, "queue");
                busy[row.portId] += row.utilization * row.lengthS;
                ++rows[row.portId];
            }
            NS_TEST_EXPECT_MSG_LT_OR_EQ(bins, 512U, "bins");
            if (!automatic)
            {
                NS_TEST_EXPECT_MSG_EQ(bins,
                                      static_cast<uint32_t>(std::ceil(r.simTimeS / 5e-6)),
                                      "bins of 5 us");
            }
            for (uint32_t i = 0; i < r.ports.size(); ++i)
            {
                const PortRecord& p = r.ports[i];
                // only ports that carried traffic, each in every bin
                NS_TEST_EXPECT_MSG_EQ(rows[i],
                                      (p.txPackets > 0 ? static_cast<int>(bins) : 0),
                                      "port " << i);
                NS_TEST_EXPECT_MSG_EQ_TOL(busy[i], p.busyS, 1e-12 * bins + 1e-15, "port " << i);
            }
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The stats TestSuite.
 */
class StatsTestSuite : public TestSuite
{
  public:
    StatsTestSuite()
        : TestSuite("ai-fabric-stats", UNIT)
    {
        AddTestCase(new PercentileOneToHundredTestCase, TestCase::QUICK);
        AddTestCase(new PercentileSmallInputsTestCase, TestCase::QUICK);
        AddTestCase(new PercentileUnsortedAndNanTestCase, TestCase::QUICK);
        AddTestCase(new PercentileRejectsBadPTestCase, TestCase::QUICK);
        AddTestCase(new SummarizeTestCase, TestCase::QUICK);
        AddTestCase(new SummarizeOrderTestCase, TestCase::QUICK);
        AddTestCase(new BusBandwidthFactorsTestCase, TestCase::QUICK);
        AddTestCase(new TailsAndStragglerTestCase, TestCase::QUICK);
        AddTestCase(new FillTailsTestCase, TestCase::QUICK);
        AddTestCase(new TierClassTestCase, TestCase::QUICK);
        AddTestCase(new IncastPortMetricsTestCase, TestCase::QUICK);
        AddTestCase(new TimeSeriesBinsTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static StatsTestSuite g_statsTestSuite;
