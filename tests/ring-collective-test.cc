/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Ring collectives end to end: exact bytes per rank, time against the
 * alpha-beta formulas F1/F2 (MISSION.md), and determinism.
 */
#include "output/results-writer.h"
#include "run/scenario-runner.h"
#include "test-fabrics.h"

#include "ns3/collective-algorithm.h"
#include "ns3/config.h"
#include "ns3/simulator.h"
#include "ns3/workload.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <sstream>

using namespace ns3;
using aifabrictest::SingleSwitchRing;

namespace
{

class RingCollectiveTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

} // namespace

TEST_F(RingCollectiveTest, AllReduceScheduleSendsEachChunkOncePerStep)
{
    const uint32_t p = 4;
    Workload wl;
    WorkloadGroup g;
    g.op = "all-reduce";
    g.algorithm = "ring";
    g.bytes = 4000;
    g.ranks = {3, 1, 0, 2}; // any order is a ring
    const uint32_t gi = wl.AddGroup(g);
    WorkloadOp start;
    start.kind = WorkloadOp::DELAY;
    const uint32_t s0 = wl.AddOp(start);
    const std::vector<uint32_t> done = CreateCollectiveAlgorithm("ring")->Build(wl, gi, {s0});
    wl.Finalize();
    // 2(P-1) steps x P sends, plus the start op and one "done" op per rank.
    ASSERT_EQ(wl.GetOps().size(), 1u + 2 * (p - 1) * p + p);
    ASSERT_EQ(done.size(), p);
    std::map<uint32_t, uint64_t> sent;
    for (uint32_t i = 1; i < wl.GetOps().size(); ++i)
    {
        const WorkloadOp& op = wl.GetOps()[i];
        if (op.kind == WorkloadOp::DELAY)
        {
            EXPECT_NE(std::find(done.begin(), done.end(), i), done.end());
            EXPECT_EQ(wl.GetInDegree(i), 2u); // last message in, own last message out
            continue;
        }
        sent[op.rank] += op.bytes;
        // successor in the given ring order
        const std::map<uint32_t, uint32_t> next{{3, 1}, {1, 0}, {0, 2}, {2, 3}};
        EXPECT_EQ(op.peer, next.at(op.rank));
        // step s > 0 waits for exactly one op: the predecessor's previous step
        EXPECT_EQ(wl.GetInDegree(i), 1u);
    }
    for (const auto& [rank, bytes] : sent)
    {
        EXPECT_EQ(bytes, 2u * (p - 1) * 4000 / p) << rank;
    }
}

TEST_F(RingCollectiveTest, UnevenSizesSplitIntoChunksDifferingByOneByte)
{
    const auto c = CollectiveAlgorithm::SplitChunks(10, 4);
    EXPECT_EQ(c, (std::vector<uint64_t>{3, 3, 2, 2}));
}

/// Ring all-reduce on P GPUs: exact bytes and F1 within 2 %, P = 2, 4, 8.
TEST_F(RingCollectiveTest, AllReduceMatchesFormulaF1)
{
    for (const uint32_t p : {2u, 4u, 8u})
    {
        // n/P from 1 MiB to 8 MiB per step: far above the crossover alpha/beta (~22 kB).
        for (const uint64_t perStep : {1ull << 20, 8ull << 20})
        {
            const uint64_t n = perStep * p;
            const RunResults r = RunScenario(SingleSwitchRing(p, n), RunOptions{});
            ASSERT_TRUE(r.complete);
            ASSERT_EQ(r.collectives.size(), 1u);
            const CollectiveResult& c = r.collectives[0];
            for (const uint64_t b : c.bytesSentPerRank)
            {
                EXPECT_EQ(b, 2 * (p - 1) * n / p) << "P=" << p << " n=" << n;
            }
            // F1: T = 2(P-1) alpha + 2 (P-1)/P n beta
            const double f1 = 2.0 * (p - 1) * c.alphaS + 2.0 * (p - 1) / p * n * c.betaSPerByte;
            EXPECT_NEAR(c.analyticS, f1, f1 * 1e-12);
            EXPECT_NEAR(c.durationS, f1, f1 * 0.02) << "P=" << p << " n=" << n;
            // NCCL pipelining: every step's message is cut into 512 KiB chunks.
            const uint64_t pieces = (perStep + (512 << 10) - 1) / (512 << 10);
            EXPECT_EQ(r.flows.size(), 2u * (p - 1) * p * pieces);
            // busbw = algbw * 2(P-1)/P approaches the link goodput (50 GB/s * 4096/4122).
            EXPECT_NEAR(c.busbwGBps, 50.0 * 4096 / 4122, 50.0 * 0.05);
        }
    }
}

TEST_F(RingCollectiveTest, ReduceScatterAndAllGatherMatchFormulaF2)
{
    for (const CollectiveOp op : {CollectiveOp::REDUCE_SCATTER, CollectiveOp::ALL_GATHER})
    {
        const uint32_t p = 4;
        const uint64_t n = 16ull << 20;
        const RunResults r = RunScenario(SingleSwitchRing(p, n, op), RunOptions{});
        ASSERT_TRUE(r.complete);
        const CollectiveResult& c = r.collectives[0];
        for (const uint64_t b : c.bytesSentPerRank)
        {
            EXPECT_EQ(b, (p - 1) * n / p) << CollectiveOpName(op);
        }
        const double f2 = (p - 1) * c.alphaS + (p - 1.0) / p * n * c.betaSPerByte;
        EXPECT_NEAR(c.durationS, f2, f2 * 0.02) << CollectiveOpName(op);
    }
}

TEST_F(RingCollectiveTest, SmallMessagesAreLatencyBound)
{
    // Below the crossover the alpha term dominates: 8 ranks, 8 KiB buffer (1 KiB per step).
    const RunResults r = RunScenario(SingleSwitchRing(8, 8192), RunOptions{});
    ASSERT_TRUE(r.complete);
    const CollectiveResult& c = r.collectives[0];
    const double alphaPart = 2.0 * 7 * c.alphaS;
    EXPECT_GT(alphaPart, 0.5 * c.analyticS);
    // The simulation pipelines a 1 KiB packet, not a full one: it is faster than
    // the whole-packet alpha, but not by more than the fill term.
    EXPECT_LT(c.durationS, c.analyticS * 1.001);
    EXPECT_GT(c.durationS, c.analyticS * 0.5);
}

TEST_F(RingCollectiveTest, SameSeedGivesIdenticalResults)
{
    auto render = [](const RunResults& r) {
        std::ostringstream json;
        std::ostringstream csv;
        WriteSummaryJson(r, json);
        WriteFlowsCsv(r, csv);
        // wall_time_s is the only wall-clock figure in the summary.
        const std::string s
            = std::regex_replace(json.str(), std::regex("\"wall_time_s\": [^,\n]*"), "");
        return s + csv.str();
    };
    const std::string a = render(RunScenario(SingleSwitchRing(4, 4 << 20), RunOptions{}));
    const std::string b = render(RunScenario(SingleSwitchRing(4, 4 << 20), RunOptions{}));
    EXPECT_EQ(a, b);
    EXPECT_NE(a.find("\"events\""), std::string::npos);
}
