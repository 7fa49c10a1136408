/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The permutation op: a seeded random derangement, one transfer per rank.
 */
#include "run/scenario-runner.h"
#include "test-fabrics.h"

#include "ns3/direct-collective.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/spec-error.h"

#include <gtest/gtest.h>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

/// A permutation of \p bytes per rank on \p gpus GPUs of one switch, with \p seed.
ScenarioSpec
Permutation(uint32_t gpus, uint64_t bytes, uint64_t seed)
{
    ScenarioSpec s = aifabrictest::SingleSwitchRing(gpus, bytes, CollectiveOp::PERMUTATION);
    s.seed = seed;
    s.traffic.collectives[0].algorithm = "direct";
    return s;
}

/// (src, dst) of every flow, in flow order.
std::vector<std::pair<uint32_t, uint32_t>>
Pairs(const RunResults& r)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const FlowRecord& f : r.flows)
    {
        pairs.emplace_back(f.src, f.dst);
    }
    return pairs;
}

TEST(Permutation, TransfersAreADerangement)
{
    RngSeedManager::SetSeed(7);
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(3);
    for (uint32_t p : {2u, 3u, 8u, 64u, 320u})
    {
        const std::vector<WorkloadTransfer> t = MakePermutationTransfers(p, 1000, rng);
        ASSERT_EQ(t.size(), p);
        std::set<uint32_t> dsts;
        for (uint32_t i = 0; i < p; ++i)
        {
            EXPECT_EQ(t[i].src, i);
            EXPECT_NE(t[i].dst, i) << "rank " << i << " of " << p << " sends to itself";
            EXPECT_LT(t[i].dst, p);
            EXPECT_EQ(t[i].bytes, 1000u);
            dsts.insert(t[i].dst);
        }
        EXPECT_EQ(dsts.size(), p) << "every rank receives exactly once";
    }
    // P = 2 has one derangement: the swap.
    const std::vector<WorkloadTransfer> two = MakePermutationTransfers(2, 1, rng);
    EXPECT_EQ(two[0].dst, 1u);
    EXPECT_EQ(two[1].dst, 0u);
}

TEST(Permutation, RunsDeterministicallyAndFollowsTheSeed)
{
    const RunResults a = RunScenario(Permutation(16, 256 * 1024, 1), RunOptions{});
    const RunResults b = RunScenario(Permutation(16, 256 * 1024, 1), RunOptions{});
    const RunResults c = RunScenario(Permutation(16, 256 * 1024, 2), RunOptions{});
    ASSERT_TRUE(a.complete);
    ASSERT_EQ(a.flows.size(), 16u);
    EXPECT_EQ(Pairs(a), Pairs(b));
    EXPECT_EQ(a.collectives[0].durationS, b.collectives[0].durationS);
    EXPECT_NE(Pairs(a), Pairs(c)) << "another seed draws another permutation";
    std::set<uint32_t> srcs;
    std::set<uint32_t> dsts;
    for (const FlowRecord& f : a.flows)
    {
        EXPECT_NE(f.src, f.dst);
        EXPECT_EQ(f.bytes, 256u * 1024);
        srcs.insert(f.src);
        dsts.insert(f.dst);
    }
    EXPECT_EQ(srcs.size(), 16u);
    EXPECT_EQ(dsts.size(), 16u);

    // One switch is non-blocking: every pair runs at the link rate, so the run
    // takes alpha + S beta (busbw factor 1: busbw = algbw).
    const CollectiveResult& r = a.collectives[0];
    EXPECT_EQ(r.op, "permutation");
    EXPECT_NEAR(r.busbwGBps, r.algbwGBps, 1e-12);
    EXPECT_NEAR(r.durationS / r.analyticS, 1.0, 0.02);
}

TEST(Permutation, NeedsTwoRanks)
{
    ScenarioSpec s = Permutation(4, 1024, 1);
    s.traffic.collectives[0].ranks = {2};
    EXPECT_THROW(RunScenario(s, RunOptions{}), SpecError);
}

} // namespace
