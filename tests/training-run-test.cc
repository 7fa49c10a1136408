/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Training jobs run end to end through RunScenario: per-rank breakdown, the
 * pipeline bubble, the Chrome trace, determinism, MoE locality, chained
 * iterations, collectives beside a job. (How long gathering the results of a
 * 512-GPU job takes is a benchmark figure, not a test.)
 */
#include "config/scenario-spec.h"
#include "output/results-writer.h"
#include "run/scenario-runner.h"
#include "test-fabrics.h"

#include "ns3/spec-error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/// \p gpus GPUs on one ib-ndr switch, no traffic.
ScenarioSpec
SingleSwitchScenario(uint32_t gpus)
{
    ScenarioSpec s = aifabrictest::SingleSwitchRing(gpus, 1024);
    s.name = "test-training";
    s.traffic.collectives.clear();
    s.traffic.name = "training";
    s.traffic.hasTraining = true;
    s.traffic.trainingWhere.file = "<test>";
    return s;
}

/// A compute-dominated dense job on 16 GPUs: TP2 PP2 DP4, 1F1B, 4 micro-batches.
ScenarioSpec
DenseJob()
{
    ScenarioSpec s = SingleSwitchScenario(16);
    TrainingSpec& t = s.traffic.training;
    t.name = "dense";
    t.layers = 8;
    t.hidden = 64;
    t.sequence = 64;
    t.microBatchSize = 1;
    t.peakFlops = 1e9; // milliseconds of compute per layer: communication is negligible
    t.mfu = 1.0;
    t.tp = 2;
    t.pp = 2;
    t.dp = 4;
    t.schedule = "1f1b";
    t.microBatches = 4;
    return s;
}

/// \return the summary.json text without its wall-clock line
std::string
SummaryWithoutWallTime(const RunResults& r)
{
    std::ostringstream os;
    WriteSummaryJson(r, os);
    std::string text = os.str();
    const std::size_t at = text.find("\"wall_time_s\"");
    EXPECT_NE(at, std::string::npos);
    text.erase(at, text.find('\n', at) - at);
    return text;
}

TEST(TrainingRun, DenseJobBreakdownBubbleTraceAndDeterminism)
{
    const ScenarioSpec spec = DenseJob();
    const RunResults r = RunScenario(spec, RunOptions{});
    ASSERT_TRUE(r.complete);
    ASSERT_TRUE(r.hasTraining);
    const TrainingResult& t = r.training;
    ASSERT_TRUE(t.complete);
    ASSERT_EQ(t.iterations.size(), 1u);
    ASSERT_EQ(t.ranks.size(), 16u);
    const TrainingIterationResult& it = t.iterations[0];
    EXPECT_GT(it.stepS, 0);
    // Every rank's parts add up to the step time.
    for (const TrainingRankResult& k : t.ranks)
    {
        EXPECT_NEAR(k.computeS + k.pipelineIdleS + k.ExposedS(), it.stepS, 1e-11) << k.rank;
    }
    // The bubble share is (p-1)/(m+p-1) = 1/5 when communication is negligible.
    const double formula = 1.0 / 5.0;
    const double bubble = it.pipelineIdleS / it.stepS;
    EXPECT_NEAR(bubble, formula, 0.02 * formula);
    EXPECT_LT(it.ExposedS() / it.stepS, 0.01);
    EXPECT_NEAR(it.achievedMfu, 1.0 - bubble - it.ExposedS() / it.stepS, 1e-9);
    // Training groups are aggregated by kind, not reported as collectives.
    EXPECT_TRUE(r.collectives.empty());
    bool sawTp = false;
    bool sawPp = false;
    bool sawDp = false;
    for (const TrainingCommResult& c : t.communication)
    {
        sawTp = sawTp || c.kind == "tp";
        sawPp = sawPp || c.kind == "pp-forward";
        sawDp = sawDp || c.kind == "dp";
        EXPECT_GT(c.groups, 0u) << c.kind;
        EXPECT_GT(c.bytes, 0u) << c.kind;
    }
    EXPECT_TRUE(sawTp && sawPp && sawDp);
    std::printf("[training] 16 GPUs TP2 PP2 DP4 1f1b m=4: step %.6f ms, bubble %.5f "
                "(formula %.5f), exposed %.5f, results gathered in %.4f s\n",
                it.stepS * 1e3,
                bubble,
                formula,
                it.ExposedS() / it.stepS,
                r.gatherTimeS);

    // The Chrome trace: complete events on every GPU.
    std::ostringstream trace;
    WriteTraceJson(r, trace);
    const std::string text = trace.str();
    EXPECT_EQ(text.rfind("{\"traceEvents\":[", 0), 0u);
    EXPECT_NE(text.find("\"ph\":\"X\""), std::string::npos);
    EXPECT_NE(text.find("\"pid\":15,"), std::string::npos);
    EXPECT_EQ(text.substr(text.size() - 2), "}\n");
    // ranks.csv: a header and one row per rank.
    std::ostringstream ranks;
    WriteRanksCsv(r, ranks);
    const std::string rows = ranks.str();
    EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 17);

    // The same seed gives the same summary, wall time aside.
    const RunResults again = RunScenario(spec, RunOptions{});
    EXPECT_EQ(SummaryWithoutWallTime(r), SummaryWithoutWallTime(again));
    std::ostringstream summary;
    WriteSummaryJson(r, summary);
    EXPECT_NE(summary.str().find("\"bubble_share\": "), std::string::npos);
    std::ostringstream table;
    PrintSummaryTable(r, table);
    EXPECT_NE(table.str().find("answer: step time "), std::string::npos);
    std::printf("%s", table.str().c_str());
}

TEST(TrainingRun, IterationsChainAndCoexistWithCollectives)
{
    ScenarioSpec spec = DenseJob();
    spec.traffic.iterations = 2;
    CollectiveSpec c;
    c.name = "side";
    c.op = ns3::CollectiveOp::ALL_REDUCE;
    c.algorithm = "ring";
    c.bytes = 1 << 20;
    c.ranks = {0, 1, 2, 3};
    spec.traffic.collectives.push_back(c);
    const RunResults r = RunScenario(spec, RunOptions{});
    ASSERT_TRUE(r.complete);
    ASSERT_EQ(r.collectives.size(), 1u);
    EXPECT_EQ(r.collectives[0].name, "side");
    EXPECT_GT(r.collectives[0].durationS, 0);
    ASSERT_EQ(r.training.iterations.size(), 2u);
    EXPECT_EQ(r.training.ranks.size(), 32u);
    // The second iteration starts no earlier than the first one's first rank ends.
    EXPECT_GE(r.training.iterations[1].startS, r.training.iterations[0].startS);
    EXPECT_GT(r.training.iterations[1].endS, r.training.iterations[0].endS);
    // Steady state: the second iteration ends one step time after the first (its step spans
    // from its earliest rank start, which overlaps the first iteration's tail).
    const double period = r.training.iterations[1].endS - r.training.iterations[0].endS;
    EXPECT_NEAR(period, r.training.iterations[0].stepS, 0.02 * r.training.iterations[0].stepS);
}

TEST(TrainingRun, MoeJobReportsLocalFraction)
{
    ScenarioSpec spec = SingleSwitchScenario(8);
    TrainingSpec& t = spec.traffic.training;
    t.name = "moe";
    t.layers = 2;
    t.moeLayers = 1;
    t.hidden = 256;
    t.sequence = 256;
    t.experts = 8;
    t.topK = 2;
    t.capacityFactor = 1.0;
    t.peakFlops = 1e14;
    t.dp = 8;
    t.ep = 8;
    spec.traffic.locality = "server"; // no servers here: every GPU is a domain of its own
    const RunResults r = RunScenario(spec, RunOptions{});
    ASSERT_TRUE(r.complete);
    ASSERT_TRUE(r.training.moe);
    const double f = r.training.MoeLocalFraction();
    EXPECT_GE(f, 0.0);
    EXPECT_LT(f, 1.0);
    EXPECT_EQ(r.training.moeSameDomain, r.training.moeSameRank);
    EXPECT_GT(r.training.moeTokenCopies, 0u);
    EXPECT_GT(r.training.moeNetworkBytes, 0u);
    EXPECT_GT(r.training.iterations[0].exposedExpertS, 0.0);
    std::printf("[training] MoE 8 GPUs EP8 top-2: local fraction %.4f, %llu of %llu dropped, "
                "%llu network bytes\n",
                f,
                static_cast<unsigned long long>(r.training.moeDropped),
                static_cast<unsigned long long>(r.training.moeTokenCopies),
                static_cast<unsigned long long>(r.training.moeNetworkBytes));
}

TEST(TrainingRun, InvalidJobIsASpecErrorAtTheTrainingMapping)
{
    ScenarioSpec spec = DenseJob();
    spec.traffic.trainingWhere.line = 7;
    spec.traffic.training.dp = 3; // 2 x 2 x 3 != 16 GPUs
    try
    {
        RunScenario(spec, RunOptions{});
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Where().line, 7);
    }
    spec = DenseJob();
    spec.traffic.locality = "rack";
    EXPECT_THROW(RunScenario(spec, RunOptions{}), SpecError);
}

} // namespace
