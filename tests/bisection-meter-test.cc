/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Bisection achieved: traffic across the topology analyzer's cut, beside the
 * cut's capacity (helper/bisection-meter).
 */
#include "config/scenario-spec.h"
#include "run/scenario-runner.h"

#include "ns3/bisection-meter.h"
#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// 4 leaves of 3 GPUs (ib-ndr): `spines` spines, one link each (3 = 1:1, 1 = 3:1),
/// running one direct all-to-all of `bytes` per rank.
ScenarioSpec
LeafSpineAllToAll(uint32_t spines, uint64_t bytes)
{
    ScenarioSpec s;
    s.where.file = "<test>";
    s.name = "bisection";
    s.seed = 1;
    s.stopTime = Seconds(10);
    s.topology.where.file = "<test>";
    s.topology.name = "leaf-spine";
    s.topology.SetKind("leaf-spine");
    s.topology.As<LeafSpineSpec>().leaves = 4;
    s.topology.As<LeafSpineSpec>().gpusPerLeaf = 3;
    s.topology.As<LeafSpineSpec>().spines = spines;
    s.topology.link = *FindLinkProfile("ib-ndr");
    s.traffic.name = "a2a";
    CollectiveSpec c;
    c.name = "a2a";
    c.op = ns3::CollectiveOp::ALL_TO_ALL;
    c.algorithm = "direct";
    c.bytes = bytes;
    c.start = Seconds(0);
    s.traffic.collectives.push_back(c);
    return s;
}

FlowRecord
Flow(uint32_t src, uint32_t dst, uint64_t bytes, double startS, double endS)
{
    FlowRecord f;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.startS = startS;
    f.endS = endS;
    return f;
}

} // namespace

TEST(BisectionMeter, CountsOnlyCrossingFlowsInsideTheWindowExactly)
{
    BisectionCutInfo cut;
    cut.sideA = {true, true, false, false};
    cut.analyticGbps = 100;
    const std::vector<FlowRecord> flows = {
        Flow(0, 2, 1000, 0, 1e-6),     // A -> B
        Flow(3, 1, 500, 0, 1e-6),      // B -> A
        Flow(0, 1, 7000, 0, 1e-6),     // inside A: not counted
        Flow(2, 3, 9000, 0, 1e-6),     // inside B: not counted
        Flow(1, 3, 250, 0, 1e-6),      // A -> B
        Flow(1, 2, 4000, 0, 3e-6),     // ends after the window: not counted
        Flow(2, 0, 4000, -1e-6, 1e-6), // starts before the window: not counted
        Flow(9, 0, 4000, 0, 1e-6),     // unknown GPU: ignored
    };
    const BisectionMeasure m = MeasureBisection(cut, flows, 0, 2e-6);
    EXPECT_EQ(m.crossFlows, 3u);
    EXPECT_EQ(m.crossBytes, 1750u);
    EXPECT_EQ(m.bytesAtoB, 1250u);
    EXPECT_EQ(m.bytesBtoA, 500u);
    EXPECT_DOUBLE_EQ(m.windowS, 2e-6);
    // busier direction: 1250 B x 8 / 2 us = 5 Gb/s
    EXPECT_DOUBLE_EQ(m.achievedGbps, 1250 * 8.0 / 2e-6 / 1e9);
    EXPECT_DOUBLE_EQ(m.analyticGbps, 100);
    EXPECT_DOUBLE_EQ(m.ratio, m.achievedGbps / 100);
    const BisectionMeasure empty = MeasureBisection(cut, flows, 1e-6, 1e-6);
    EXPECT_EQ(empty.achievedGbps, 0);
}

TEST(BisectionMeter, CutIsTheAnalyzersLeafSplitAndItsCapacity)
{
    for (const uint32_t spines : {3u, 1u})
    {
        const ScenarioSpec s = LeafSpineAllToAll(spines, 0);
        const FabricGraph g = BuildFabricGraph(s.topology);
        const BisectionCutInfo cut = AnalyticBisectionCut(g, s.topology);
        EXPECT_EQ(cut.split, "first 2 of 4 leaves");
        ASSERT_EQ(cut.sideA.size(), 12u);
        for (uint32_t gpu = 0; gpu < 12; ++gpu)
        {
            EXPECT_EQ(cut.sideA[gpu], gpu < 6) << gpu;
        }
        // 2 leaves x min(3 GPUs, `spines` uplinks) x 400 Gb/s
        EXPECT_NEAR(cut.analyticGbps, 2.0 * spines * 400, 1e-6) << spines;
        EXPECT_NEAR(cut.formulaGbps, cut.analyticGbps, 1e-6);
    }
}

TEST(BisectionMeter, AllToAllAchievesLessOnAThreeToOneFabric)
{
    // 12 ranks x 1.5 MiB: 128 KiB to every other rank.
    const uint64_t bytes = 12 * 128 * 1024;
    const RunResults full = RunScenario(LeafSpineAllToAll(3, bytes), RunOptions{});
    const RunResults over = RunScenario(LeafSpineAllToAll(1, bytes), RunOptions{});
    ASSERT_TRUE(full.complete);
    ASSERT_TRUE(over.complete);
    ASSERT_EQ(full.bisection.size(), 1u);
    ASSERT_EQ(over.bisection.size(), 1u);
    const BisectionRecord& a = full.bisection[0];
    const BisectionRecord& b = over.bisection[0];
    EXPECT_EQ(a.collective, "a2a");
    EXPECT_EQ(a.sideAGpus, 6u);
    EXPECT_EQ(a.sideBGpus, 6u);
    // 6 x 6 pairs each way, 128 KiB each
    EXPECT_EQ(a.bytesAtoB, 36u * 128 * 1024);
    EXPECT_EQ(a.bytesBtoA, 36u * 128 * 1024);
    EXPECT_EQ(a.crossBytes, b.crossBytes);
    EXPECT_DOUBLE_EQ(a.windowS, full.collectives[0].durationS);
    EXPECT_NEAR(a.analyticGbps, 2400, 1e-6);
    EXPECT_NEAR(b.analyticGbps, 800, 1e-6);
    // achieved never above the cut's capacity (payload only: headers cost ~1%)
    EXPECT_LE(a.achievedGbps, a.analyticGbps * 1.001);
    EXPECT_LE(b.achievedGbps, b.analyticGbps * 1.001);
    EXPECT_GT(a.achievedGbps, 0);
    // the 3:1 fabric's cut is the bottleneck: clearly lower throughput
    EXPECT_LT(b.achievedGbps, 0.6 * a.achievedGbps);
    EXPECT_GT(b.ratio, 0.5); // it still runs its (narrower) cut fairly full
    std::printf("bisection achieved: 1:1 %.1f of %.1f Gb/s (%.3f), 3:1 %.1f of %.1f Gb/s (%.3f)\n",
                a.achievedGbps,
                a.analyticGbps,
                a.ratio,
                b.achievedGbps,
                b.analyticGbps,
                b.ratio);
}

TEST(BisectionMeter, PermutationIsMeasuredAcrossTheCutToo)
{
    // each rank sends 4 MiB to one other rank (a seeded derangement)
    ScenarioSpec one = LeafSpineAllToAll(3, 4 << 20);
    one.traffic.collectives[0].op = ns3::CollectiveOp::PERMUTATION;
    ScenarioSpec three = one;
    three.topology.As<LeafSpineSpec>().spines = 1;
    const RunResults full = RunScenario(one, RunOptions{});
    const RunResults over = RunScenario(three, RunOptions{});
    ASSERT_TRUE(full.complete);
    ASSERT_TRUE(over.complete);
    ASSERT_EQ(full.bisection.size(), 1u);
    ASSERT_EQ(over.bisection.size(), 1u);
    const BisectionRecord& a = full.bisection[0];
    const BisectionRecord& b = over.bisection[0];
    EXPECT_EQ(a.op, "permutation");
    // the same derangement (same seed) on both fabrics: the same bytes cross
    EXPECT_EQ(a.crossBytes, b.crossBytes);
    EXPECT_EQ(a.crossBytes % (4 << 20), 0u);
    EXPECT_GT(a.crossBytes, 0u);
    EXPECT_LE(a.achievedGbps, a.analyticGbps * 1.001);
    EXPECT_LE(b.achievedGbps, b.analyticGbps * 1.001);
    EXPECT_LT(b.achievedGbps, a.achievedGbps);
    std::printf("permutation across the cut: 1:1 %.1f of %.1f Gb/s, 3:1 %.1f of %.1f Gb/s "
                "(%llu MiB across)\n",
                a.achievedGbps,
                a.analyticGbps,
                b.achievedGbps,
                b.analyticGbps,
                static_cast<unsigned long long>(a.crossBytes >> 20));
}
