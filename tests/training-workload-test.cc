/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The training-workload generator: pipeline schedule order (FACTS.md 4.2),
 * bubble fractions (MISSION.md F9, F10, C8), TP and PP traffic (F11, F12),
 * DP bucket overlap (F13), MoE all-to-all bytes, capacity drops and placement
 * (F14, C2), determinism, validation and build speed.
 */
#include "config/scenario-spec.h"

#include "ns3/config.h"
#include "ns3/expert-placement.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"
#include "ns3/locality-domains.h"
#include "ns3/moe-routing.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/training-workload.h"
#include "ns3/workload-execution.h"
#include "ns3/workload-helper.h"
#include "ns3/workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <sstream>

using namespace ns3;

namespace
{

class TrainingWorkloadTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

/// \p gpus GPUs on one ib-ndr switch.
FabricGraph
SingleSwitch(uint32_t gpus)
{
    FabricGraph graph;
    const uint32_t p = graph.AddProfile(*FindLinkProfile("ib-ndr"));
    const uint32_t sw = graph.AddSwitch("switch0", 1);
    for (uint32_t i = 0; i < gpus; ++i)
    {
        graph.AddLink(graph.AddGpu("gpu" + std::to_string(i)), sw, p);
    }
    return graph;
}

/// Finalize and run a workload on a fabric (one WorkloadApplication per GPU); the
/// execution keeps the op times.
Ptr<WorkloadExecution>
RunJob(const FabricGraph& graph, Workload& wl)
{
    wl.Finalize();
    Fabric fabric = FabricBuilder::Build(graph, SpecLocation{});
    WorkloadHelper workloads(&wl);
    workloads.Install(fabric.gpuNodes);
    Simulator::Run();
    Ptr<WorkloadExecution> runner = workloads.GetExecution();
    EXPECT_TRUE(runner->IsDone());
    return runner;
}

/// A compute-dominated pipeline job: 8 KiB activations, milliseconds of compute per layer.
TrainingSpec
PipelineJob(const std::string& schedule, uint32_t p, uint32_t m, uint32_t v)
{
    TrainingSpec s;
    s.name = "pipe";
    s.layers = 8;
    s.hidden = 64;
    s.sequence = 64;
    s.microBatchSize = 1;
    s.peakFlops = 1e9;
    s.mfu = 1.0;
    s.pp = p;
    s.schedule = schedule;
    s.microBatches = m;
    s.virtualStages = v;
    return s;
}

/// "F0 F1 B0 ..." for a step list.
std::string
Format(const std::vector<PipelineStep>& steps)
{
    std::ostringstream os;
    for (const PipelineStep& st : steps)
    {
        os << (os.tellp() > 0 ? " " : "") << (st.forward ? "F" : "B") << st.microBatch;
        if (st.chunk > 0)
        {
            os << "." << st.chunk;
        }
    }
    return os.str();
}

TEST_F(TrainingWorkloadTest, OneFOneBOrderMatchesMegatron)
{
    // FACTS.md 4.2, p = 4, m = 8: warm-up W = min(p - r - 1, m), then
    // [F(i+W) B(i)] m - W times, then W cool-down backwards.
    const std::map<uint32_t, std::string> want = {
        {0, "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7"},
        {1, "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7"},
        {2, "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7"},
        {3, "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7"},
    };
    for (const auto& [r, text] : want)
    {
        EXPECT_EQ(Format(CreatePipelineSchedule("1f1b")->Order(4, r, 8, 1)), text) << "stage " << r;
        EXPECT_EQ(CreatePipelineSchedule("1f1b")->Warmup(4, r, 8, 1), 3 - r);
    }
    // Fewer micro-batches than stages: W = m.
    EXPECT_EQ(Format(CreatePipelineSchedule("1f1b")->Order(4, 0, 2, 1)), "F0 F1 B0 B1");
    EXPECT_EQ(Format(CreatePipelineSchedule("gpipe")->Order(2, 1, 3, 1)), "F0 F1 F2 B0 B1 B2");
}

TEST_F(TrainingWorkloadTest, InterleavedOrderMatchesMegatron)
{
    // p = 2, v = 2, m = 4: warm-up (p - r - 1) * 2 + (v - 1) * p = 4 (stage 0), 2 (stage 1);
    // virtual micro-batch k: chunk (k mod 4) / 2, micro-batch (k / 4) * 2 + k % 2.
    EXPECT_EQ(Format(CreatePipelineSchedule("interleaved")->Order(2, 0, 4, 2)),
              "F0 F1 F0.1 F1.1 F2 B0.1 F3 B1.1 F2.1 B0 F3.1 B1 B2.1 B3.1 B2 B3");
    EXPECT_EQ(Format(CreatePipelineSchedule("interleaved")->Order(2, 1, 4, 2)),
              "F0 F1 F0.1 B0.1 F1.1 B1.1 F2 B0 F3 B1 F2.1 B2.1 F3.1 B3.1 B2 B3");
    EXPECT_EQ(CreatePipelineSchedule("interleaved")->Warmup(4, 0, 8, 2), 10u);
    // m == p: all forwards first.
    EXPECT_EQ(CreatePipelineSchedule("interleaved")->Warmup(4, 3, 4, 2), 8u);
    // Every (micro-batch, chunk) once per pass.
    for (uint32_t r = 0; r < 4; ++r)
    {
        const auto steps = CreatePipelineSchedule("interleaved")->Order(4, r, 8, 3);
        ASSERT_EQ(steps.size(), 2u * 8 * 3);
        std::map<std::tuple<bool, uint32_t, uint32_t>, int> seen;
        for (const PipelineStep& st : steps)
        {
            ++seen[{st.forward, st.microBatch, st.chunk}];
        }
        EXPECT_EQ(seen.size(), steps.size());
    }
}

TEST_F(TrainingWorkloadTest, OneFOneBComputeAndSendsRunInOrder)
{
    const TrainingSpec spec = PipelineJob("1f1b", 4, 8, 1);
    Workload wl;
    const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
    ASSERT_EQ(info.groups.size(), wl.GetGroups().size() - info.firstGroup);
    for (std::size_t i = 0; i < info.groups.size(); ++i)
    {
        EXPECT_EQ(info.groups[i].group, info.firstGroup + i);
    }
    Ptr<WorkloadExecution> runner = RunJob(SingleSwitch(4), wl);
    for (uint32_t s = 0; s < 4; ++s)
    {
        const TrainingRankInfo& ri = info.ranks[info.Rank(0, s, 0)];
        const auto order = CreatePipelineSchedule("1f1b")->Order(4, s, 8, 1);
        ASSERT_EQ(ri.steps.size(), order.size());
        // Compute: one at a time, in the schedule's order.
        Time prevEnd;
        std::vector<std::pair<int64_t, std::string>> sends;
        std::string expectedSends;
        for (std::size_t k = 0; k < order.size(); ++k)
        {
            const TrainingStepInfo& si = ri.steps[k];
            EXPECT_EQ(si.step, order[k]);
            for (uint32_t c = si.firstCompute; c <= si.lastCompute; ++c)
            {
                const Time start = runner->GetOpStart(ri.compute[c].op);
                EXPECT_GE(start, prevEnd);
                prevEnd = runner->GetOpEnd(ri.compute[c].op);
            }
            if (si.sendGroup != UINT32_MAX)
            {
                const TrainingGroupInfo& gi = info.groups[si.sendGroup - info.firstGroup];
                const std::string label = std::string(order[k].forward ? "A" : "G")
                                          + std::to_string(order[k].microBatch);
                sends.emplace_back(runner->GetOpStart(gi.sendOp).GetPicoSeconds(), label);
                expectedSends += (expectedSends.empty() ? "" : " ") + label;
                // Sent right after the step's last compute op.
                EXPECT_EQ(runner->GetOpStart(gi.sendOp),
                          runner->GetOpEnd(ri.compute[si.lastCompute].op));
            }
        }
        std::stable_sort(sends.begin(), sends.end());
        std::string got;
        for (const auto& [t, label] : sends)
        {
            got += (got.empty() ? "" : " ") + label;
        }
        EXPECT_EQ(got, expectedSends) << "stage " << s;
        if (s == 1)
        {
            // Stage 1 of 4: activations after each forward, gradients after each backward.
            EXPECT_EQ(got, "A0 A1 A2 G0 A3 G1 A4 G2 A5 G3 A6 G4 A7 G5 G6 G7");
        }
    }
}

/// Run a pipeline job and return (idle fraction per stage, relative overhead, summary).
TrainingRunSummary
RunPipeline(const TrainingSpec& spec, TrainingWorkloadInfo& info)
{
    Workload wl;
    info = BuildTrainingWorkload(spec, wl, spec.tp * spec.pp * spec.dp);
    Ptr<WorkloadExecution> runner = RunJob(SingleSwitch(spec.tp * spec.pp * spec.dp), wl);
    return SummarizeTrainingRun(info, *runner);
}

TEST_F(TrainingWorkloadTest, BubbleMatchesFormulaGpipeAnd1F1B)
{
    // F9 / C8: idle fraction (p-1)/(m+p-1) when communication is negligible.
    for (const std::string schedule : {"gpipe", "1f1b"})
    {
        for (const uint32_t m : {4u, 8u, 16u})
        {
            const uint32_t p = 4;
            TrainingWorkloadInfo info;
            const TrainingRunSummary sum = RunPipeline(PipelineJob(schedule, p, m, 1), info);
            const double formula = (p - 1.0) / (m + p - 1.0);
            for (uint32_t s = 0; s < p; ++s)
            {
                const double idle = sum.IdleFraction(info.Rank(0, s, 0));
                EXPECT_NEAR(idle, formula, 0.01 * formula) << schedule << " m=" << m << " s=" << s;
                const TrainingRankTimes& t = sum.ranks[info.Rank(0, s, 0)];
                // The parts add up to the iteration.
                EXPECT_EQ(t.compute + t.pipelineIdle + t.exposedPipeline + t.exposedTensor
                              + t.exposedExpert + t.exposedData,
                          sum.Iteration());
            }
            const double overhead
                = sum.Iteration().GetSeconds() / sum.ranks[0].compute.GetSeconds() - 1;
            std::printf("[bubble] %-6s p=%u m=%2u idle %.5f (formula %.5f) overhead %.5f "
                        "(formula %.5f)\n",
                        schedule.c_str(),
                        p,
                        m,
                        sum.IdleFraction(0),
                        formula,
                        overhead,
                        (p - 1.0) / m);
            Simulator::Destroy();
        }
    }
}

TEST_F(TrainingWorkloadTest, InterleavedBubbleIsSmaller)
{
    // F10: relative overhead (p-1)/(v m) with v = 2, against (p-1)/m for 1F1B.
    const uint32_t p = 4;
    const uint32_t m = 8;
    TrainingWorkloadInfo info1;
    const TrainingRunSummary one = RunPipeline(PipelineJob("1f1b", p, m, 1), info1);
    Simulator::Destroy();
    TrainingWorkloadInfo info2;
    const TrainingRunSummary two = RunPipeline(PipelineJob("interleaved", p, m, 2), info2);
    const double o1 = one.Iteration().GetSeconds() / one.ranks[0].compute.GetSeconds() - 1;
    const double o2 = two.Iteration().GetSeconds() / two.ranks[0].compute.GetSeconds() - 1;
    const double f2 = (p - 1.0) / (2.0 * m);
    std::printf("[bubble] 1f1b overhead %.5f (formula %.5f); interleaved v=2 overhead %.5f "
                "(formula %.5f), idle %.5f\n",
                o1,
                (p - 1.0) / m,
                o2,
                f2,
                two.IdleFraction(0));
    EXPECT_NEAR(o2, f2, 0.01 * f2);
    EXPECT_LT(o2, 0.6 * o1);
    // Twice the pipeline messages (v boundaries per micro-batch, with wrap-around).
    uint32_t fwd1 = 0;
    uint32_t fwd2 = 0;
    for (const auto& g : info1.groups)
    {
        fwd1 += g.kind == TrainingGroupInfo::PIPELINE_FORWARD;
    }
    for (const auto& g : info2.groups)
    {
        fwd2 += g.kind == TrainingGroupInfo::PIPELINE_FORWARD;
    }
    EXPECT_EQ(fwd1, (p - 1) * m);
    EXPECT_EQ(fwd2, (2 * p - 1) * m);
}

TEST_F(TrainingWorkloadTest, TensorAndPipelineTraffic)
{
    // F11: 2 all-reduces of b s h bytes per layer forward and 2 backward per TP group.
    // F12: one b s h bytes activation per micro-batch per boundary, one gradient back.
    TrainingSpec spec = PipelineJob("1f1b", 2, 2, 1);
    spec.layers = 4;
    spec.tp = 2;
    spec.peakFlops = 1e12;
    Workload wl;
    TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
    const uint64_t bsh = 1 * 64 * 64 * 2;
    uint32_t tensor = 0;
    uint32_t fwd = 0;
    uint32_t bwd = 0;
    for (const auto& gi : info.groups)
    {
        const WorkloadGroup& g = wl.GetGroups()[gi.group];
        if (gi.kind == TrainingGroupInfo::TENSOR)
        {
            ++tensor;
            EXPECT_EQ(g.op, "all-reduce");
            EXPECT_EQ(g.bytes, bsh);
            EXPECT_EQ(g.ranks.size(), 2u);
        }
        fwd += gi.kind == TrainingGroupInfo::PIPELINE_FORWARD;
        bwd += gi.kind == TrainingGroupInfo::PIPELINE_BACKWARD;
        if (gi.kind == TrainingGroupInfo::PIPELINE_FORWARD
            || gi.kind == TrainingGroupInfo::PIPELINE_BACKWARD)
        {
            EXPECT_EQ(g.bytes, bsh);
            EXPECT_EQ(wl.GetOps()[gi.sendOp].bytes, bsh);
        }
    }
    // 4 layers x 2 micro-batches x 4 per TP group (one TP group per stage).
    EXPECT_EQ(tensor, 4u * 2 * 4);
    // (p - 1) boundaries x m micro-batches x TP ranks each way.
    EXPECT_EQ(fwd, 1u * 2 * 2);
    EXPECT_EQ(bwd, 1u * 2 * 2);
    Ptr<WorkloadExecution> runner = RunJob(SingleSwitch(4), wl);
    const TrainingRunSummary sum = SummarizeTrainingRun(info, *runner);
    for (uint32_t r = 0; r < 4; ++r)
    {
        EXPECT_GT(sum.ranks[r].exposedTensor, Time(0)) << "TP is on the critical path";
        const TrainingRankTimes& t = sum.ranks[r];
        EXPECT_EQ(t.compute + t.pipelineIdle + t.exposedPipeline + t.exposedTensor + t.exposedExpert
                      + t.exposedData,
                  sum.Iteration());
    }

    // Sequence parallelism: reduce-scatter + all-gather, activations / TP.
    spec.sequenceParallel = true;
    Workload wl2;
    info = BuildTrainingWorkload(spec, wl2, 4);
    std::map<std::string, uint32_t> ops;
    for (const auto& gi : info.groups)
    {
        const WorkloadGroup& g = wl2.GetGroups()[gi.group];
        if (gi.kind == TrainingGroupInfo::TENSOR)
        {
            ++ops[g.op];
        }
        if (gi.kind == TrainingGroupInfo::PIPELINE_FORWARD)
        {
            EXPECT_EQ(g.bytes, bsh / 2);
        }
    }
    EXPECT_EQ(ops["reduce-scatter"], 32u);
    EXPECT_EQ(ops["all-gather"], 32u);
    EXPECT_EQ(ops.count("all-reduce"), 0u);
}

/// A DP-only job whose backward per layer takes about \p layerBackward.
TrainingSpec
DataParallelJob(double flops, bool overlap)
{
    TrainingSpec s;
    s.name = "dp";
    s.layers = 8;
    s.hidden = 512;
    s.sequence = 512;
    s.microBatchSize = 1;
    s.peakFlops = flops;
    s.mfu = 1.0;
    s.dp = 4;
    s.microBatches = 1;
    s.bucketBytes = 8 * 1000 * 1000;
    s.overlapGradReduce = overlap;
    return s;
}

TEST_F(TrainingWorkloadTest, DataParallelBucketsOverlapBackward)
{
    // Per layer: about 3.15 M parameters (6.3 MB of bf16 gradients), so 8 MB buckets
    // hold about 1.3 layers; a 4-rank ring all-reduce of 8 MB takes about
    // 2 x 3/4 x 8 MB / 50 GB/s = 240 us on ib-ndr.
    struct Case
    {
        double flops;
        bool overlap;
        double exposedS;
        double backwardPerLayerS;
        double bucketS;
        uint32_t buckets;
    };

    std::vector<Case> cases;
    for (const double flops : {6e12, 3e14})
    {
        for (const bool overlap : {true, false})
        {
            const TrainingSpec spec = DataParallelJob(flops, overlap);
            Workload wl;
            const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
            Ptr<WorkloadExecution> runner = RunJob(SingleSwitch(4), wl);
            const TrainingRunSummary sum = SummarizeTrainingRun(info, *runner);
            Case c{flops, overlap, 0, 0, 0, 0};
            c.exposedS = sum.ranks[0].exposedData.GetSeconds();
            double bwd = 0;
            for (const auto& op : info.ranks[0].compute)
            {
                bwd += op.phase != TrainingComputeOp::FORWARD
                           ? wl.GetOps()[op.op].duration.GetSeconds()
                           : 0;
            }
            c.backwardPerLayerS = bwd / spec.layers;
            for (const auto& b : info.buckets)
            {
                // Time of the all-reduce itself, from its start to its done op.
                double first = 1e9;
                for (const uint32_t o : b.readyOps)
                {
                    first = std::min(first, runner->GetOpEnd(o).GetSeconds());
                }
                double last = 0;
                for (const uint32_t o : b.doneOps)
                {
                    last = std::max(last, runner->GetOpEnd(o).GetSeconds());
                }
                c.bucketS += last - first;
                ++c.buckets;
                EXPECT_EQ(wl.GetGroups()[b.group].ranks.size(), 4u);
            }
            cases.push_back(c);
            std::printf("[dp] flops %.0e overlap %d: %u buckets, backward/layer %.1f us, "
                        "exposed DP %.1f us\n",
                        flops,
                        overlap,
                        c.buckets,
                        c.backwardPerLayerS * 1e6,
                        c.exposedS * 1e6);
            Simulator::Destroy();
        }
    }
    // Compute-bound: the buckets hide behind the backward pass but the last one.
    EXPECT_LT(cases[0].exposedS, 0.25 * cases[1].exposedS);
    // Communication-bound: most of the all-reduce time shows.
    EXPECT_GT(cases[2].exposedS, 0.6 * cases[3].exposedS);
    // No overlap: everything shows either way.
    EXPECT_GT(cases[1].exposedS, cases[0].exposedS);
    EXPECT_GT(cases[3].exposedS, cases[2].exposedS);
}

/// An MoE-only job: one MoE layer, EP over all GPUs, negligible compute.
TrainingSpec
MoeJob(uint32_t gpus, uint32_t experts, uint32_t topK)
{
    TrainingSpec s;
    s.name = "moe";
    s.layers = 1;
    s.moeLayers = 1;
    s.hidden = 1024;
    s.sequence = 512;
    s.microBatchSize = 1;
    s.experts = experts;
    s.topK = topK;
    s.peakFlops = 1e18;
    s.mfu = 1.0;
    s.dp = gpus;
    s.ep = gpus;
    return s;
}

TEST_F(TrainingWorkloadTest, MoeAllToAllBytesFollowTheRoutingMatrix)
{
    // 4 EP ranks, 8 experts (2 per rank, contiguous), explicit token copies.
    TrainingSpec spec = MoeJob(4, 8, 2);
    spec.hidden = 256;
    spec.routing.distribution = "matrix";
    spec.routing.matrix = {
        10, 0, 5, 5, 0,  0, 0, 20, // source 0
        0,  0, 0, 0, 40, 0, 0, 0,  // source 1
        1,  2, 3, 4, 5,  6, 7, 8,  // source 2
        0,  0, 0, 0, 0,  0, 9, 9,  // source 3
    };
    spec.dispatchBytesPerElement = 1; // fp8 dispatch
    spec.combineBytesPerElement = 2;  // bf16 combine
    Workload wl;
    const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
    ASSERT_EQ(info.moe.size(), 1u);
    // pair[q][q2] = copies from source q to the experts 2 q2, 2 q2 + 1.
    const uint64_t pair[4][4] = {{10, 10, 0, 20}, {0, 0, 40, 0}, {3, 7, 11, 15}, {0, 0, 0, 18}};
    std::map<TrainingGroupInfo::Kind, uint32_t> seen;
    for (const auto& gi : info.groups)
    {
        if (gi.kind < TrainingGroupInfo::MOE_DISPATCH)
        {
            continue;
        }
        ++seen[gi.kind];
        const WorkloadGroup& g = wl.GetGroups()[gi.group];
        const bool owners = gi.kind == TrainingGroupInfo::MOE_DISPATCH
                            || gi.kind == TrainingGroupInfo::MOE_COMBINE_BACKWARD;
        const uint64_t perCopy = 256
                                 * (gi.kind == TrainingGroupInfo::MOE_DISPATCH
                                            || gi.kind == TrainingGroupInfo::MOE_DISPATCH_BACKWARD
                                        ? 1
                                        : 2);
        // SEND bytes per (src, dst) position.
        std::map<std::pair<uint32_t, uint32_t>, uint64_t> sent;
        for (const WorkloadOp& op : wl.GetOps())
        {
            if (op.kind == WorkloadOp::SEND && op.group == gi.group)
            {
                sent[{op.rank, op.peer}] += op.bytes;
            }
        }
        for (uint32_t a = 0; a < 4; ++a)
        {
            for (uint32_t b = 0; b < 4; ++b)
            {
                const uint64_t want = a == b ? 0 : (owners ? pair[a][b] : pair[b][a]) * perCopy;
                EXPECT_EQ(g.matrix[a * 4 + b], want) << a << "->" << b;
                EXPECT_EQ(sent[std::make_pair(g.ranks[a], g.ranks[b])], want) << a << "->" << b;
            }
        }
    }
    EXPECT_EQ(seen.size(), 4u); // dispatch, combine, and their backward pair
    EXPECT_EQ(info.moe[0].sameRank, 10u + 0 + 11 + 18);
    EXPECT_EQ(info.moe[0].dropped, 0u);
    Ptr<WorkloadExecution> runner = RunJob(SingleSwitch(4), wl);
    EXPECT_TRUE(runner->IsDone());
    // Expert compute follows the copies each rank receives.
    const uint64_t received[4] = {13, 17, 51, 53};
    for (uint32_t q = 0; q < 4; ++q)
    {
        EXPECT_EQ(info.moe[0].received[q], received[q]);
    }
}

TEST_F(TrainingWorkloadTest, MoeCapacityDropsExcessTokens)
{
    // Expert capacity C = ceil(CF x copies / E); the excess is dropped, in proportion.
    std::vector<uint64_t> copies = {
        30,
        10, // source 0
        10,
        10, // source 1
    };
    // 60 copies, 2 experts, CF 1.0: C = 30; expert 0 has 40 -> keeps 30 (22.5 + 7.5 ->
    // 22 + 8 by largest remainder... both .5: the lower source first: 23 + 7).
    const uint64_t dropped = ApplyExpertCapacity(copies, 2, 2, 1.0);
    EXPECT_EQ(dropped, 10u);
    EXPECT_EQ(copies[0] + copies[2], 30u);
    EXPECT_EQ(copies[0], 23u);
    EXPECT_EQ(copies[2], 7u);
    EXPECT_EQ(copies[1], 10u);
    // Dropless.
    std::vector<uint64_t> same = {30, 10, 10, 10};
    EXPECT_EQ(ApplyExpertCapacity(same, 2, 2, 0), 0u);

    // In a job: hot-expert routing with capacity factor 1.
    TrainingSpec spec = MoeJob(4, 8, 1);
    spec.routing.distribution = "hot-expert";
    spec.routing.hotFraction = 0.5;
    spec.capacityFactor = 1.0;
    Workload wl;
    const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
    // 4 x 512 copies, C = 256 per expert; the hot expert gets about 1024 -> ~768 dropped.
    EXPECT_GT(info.moeTotals.dropped, 600u);
    EXPECT_LT(info.moeTotals.dropped, 900u);
    std::printf("[moe] hot-expert 0.5, CF 1.0: %llu of %llu copies dropped\n",
                static_cast<unsigned long long>(info.moeTotals.dropped),
                static_cast<unsigned long long>(info.moeTotals.tokenCopies));
}

TEST_F(TrainingWorkloadTest, MoeUniformVolumeMatchesF14)
{
    // F14: uniform top-1 routing over E experts on E ranks: forward dispatch + combine
    // send about 2 b s h bytes (E-1)/E per rank (the local share stays home).
    const uint32_t e = 8;
    TrainingSpec spec = MoeJob(e, e, 1);
    Workload wl;
    const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, e);
    uint64_t forward = 0;
    for (const auto& gi : info.groups)
    {
        if (gi.kind == TrainingGroupInfo::MOE_DISPATCH || gi.kind == TrainingGroupInfo::MOE_COMBINE)
        {
            const auto& m = wl.GetGroups()[gi.group].matrix;
            forward += std::accumulate(m.begin(), m.end(), uint64_t{0});
        }
    }
    const double perRank = static_cast<double>(forward) / e;
    const double f14 = 2.0 * 512 * 1024 * 2 * (e - 1) / e;
    std::printf("[moe] uniform top-1, E = EP = 8: forward all-to-all %.0f B per rank, F14 %.0f B\n",
                perRank,
                f14);
    EXPECT_NEAR(perRank, f14, 0.02 * f14);
    EXPECT_EQ(info.moeTotals.networkBytes, 2 * forward);
}

/// MoE dispatch on a 2-leaf leaf-spine: local fraction and all-to-all completion.
struct MoeOutcome
{
    double localFraction{0};
    double dispatchS{0};
    uint64_t remoteBytes{0};
};

MoeOutcome
RunMoePlacement(const std::string& placement)
{
    TopologySpec topo;
    topo.SetKind("leaf-spine");
    topo.As<LeafSpineSpec>().leaves = 2;
    topo.As<LeafSpineSpec>().spines = 1;
    topo.As<LeafSpineSpec>().gpusPerLeaf = 4;
    topo.link = *FindLinkProfile("ib-ndr");
    const FabricGraph graph = BuildFabricGraph(topo);
    const std::vector<uint32_t> domain = GpuLocalityDomains(graph, "leaf");
    EXPECT_EQ(domain, (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
    TrainingSpec spec = MoeJob(8, 16, 2);
    spec.routing.distribution = "zipf";
    spec.routing.zipfExponent = 1.2;
    spec.routing.affinityGroups = 2;
    spec.expertPlacement = placement;
    Workload wl;
    const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 8, domain, {}, 7);
    Ptr<WorkloadExecution> runner = RunJob(graph, wl);
    MoeOutcome out;
    out.localFraction = info.moeTotals.LocalFraction();
    double first = 1e9;
    double last = 0;
    for (const auto& gi : info.groups)
    {
        if (gi.kind != TrainingGroupInfo::MOE_DISPATCH)
        {
            continue;
        }
        for (uint32_t i = 0; i < wl.GetOps().size(); ++i)
        {
            const WorkloadOp& op = wl.GetOps()[i];
            if (op.kind == WorkloadOp::SEND && op.group == gi.group)
            {
                first = std::min(first, runner->GetOpStart(i).GetSeconds());
                last = std::max(last, runner->GetOpEnd(i).GetSeconds());
                out.remoteBytes += domain[op.rank] != domain[op.peer] ? op.bytes : 0;
            }
        }
    }
    out.dispatchS = last - first;
    return out;
}

TEST_F(TrainingWorkloadTest, TopologyAwarePlacementBeatsRandom)
{
    // C2: skewed routing with per-leaf affinity on a 4:1 oversubscribed 2-leaf fabric.
    const MoeOutcome random = RunMoePlacement("random");
    Simulator::Destroy();
    const MoeOutcome aware = RunMoePlacement("topology-aware");
    std::printf("[moe] local fraction random %.3f, topology-aware %.3f; cross-leaf dispatch bytes "
                "%llu vs %llu; dispatch completion %.1f us vs %.1f us\n",
                random.localFraction,
                aware.localFraction,
                static_cast<unsigned long long>(random.remoteBytes),
                static_cast<unsigned long long>(aware.remoteBytes),
                random.dispatchS * 1e6,
                aware.dispatchS * 1e6);
    EXPECT_GT(aware.localFraction, random.localFraction + 0.1);
    EXPECT_LT(aware.remoteBytes, random.remoteBytes);
    EXPECT_LT(aware.dispatchS, random.dispatchS);
}

TEST_F(TrainingWorkloadTest, SameSeedSameTimes)
{
    auto once = [](uint32_t run) {
        RngSeedManager::SetRun(run);
        TrainingSpec spec = MoeJob(4, 8, 2);
        spec.routing.distribution = "zipf";
        spec.expertPlacement = "random";
        spec.layers = 2;
        spec.pp = 2;
        spec.dp = 2;
        spec.ep = 2;
        spec.microBatches = 2;
        spec.peakFlops = 1e14;
        Workload wl;
        const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
        Ptr<WorkloadExecution> runner = RunJob(SingleSwitch(4), wl);
        std::vector<int64_t> ends;
        for (uint32_t i = 0; i < wl.GetOps().size(); ++i)
        {
            ends.push_back(runner->GetOpEnd(i).GetPicoSeconds());
        }
        Simulator::Destroy();
        return std::make_pair(ends, info.moe[0].copies);
    };
    const auto a = once(1);
    const auto b = once(1);
    const auto c = once(2);
    EXPECT_EQ(a.first, b.first);
    EXPECT_EQ(a.second, b.second);
    EXPECT_NE(a.second, c.second);
}

TEST_F(TrainingWorkloadTest, ValidateRejectsImpossibleJobs)
{
    TrainingSpec ok = PipelineJob("1f1b", 2, 4, 1);
    ok.tp = 2;
    ok.dp = 2;
    EXPECT_EQ(ValidateTrainingSpec(ok, 8), "");
    auto contains = [](const std::string& msg, const std::string& part) {
        return msg.find(part) != std::string::npos;
    };
    EXPECT_TRUE(contains(ValidateTrainingSpec(ok, 16), "TP x PP x DP")) << "rank count";

    TrainingSpec spread = ok;
    spread.gpusPerServer = 2;
    spread.rankOrder = "pp,dp,tp";
    EXPECT_TRUE(contains(ValidateTrainingSpec(spread, 8), "NVLink"));
    spread.tpInServer = false;
    EXPECT_EQ(ValidateTrainingSpec(spread, 8), "");
    spread.rankOrder = "tp,pp";
    EXPECT_TRUE(contains(ValidateTrainingSpec(spread, 8), "permutation"));

    TrainingSpec inter = PipelineJob("interleaved", 4, 6, 2);
    EXPECT_TRUE(contains(ValidateTrainingSpec(inter, 4), "multiple of the pipeline stages"));
    inter.microBatches = 8;
    EXPECT_EQ(ValidateTrainingSpec(inter, 4), "");
    inter.virtualStages = 3; // 8 layers over 4 x 3 chunks
    EXPECT_TRUE(contains(ValidateTrainingSpec(inter, 4), "divide evenly"));

    TrainingSpec moe = MoeJob(4, 6, 2);
    EXPECT_TRUE(contains(ValidateTrainingSpec(moe, 4), "experts do not divide"));
    moe.experts = 8;
    EXPECT_EQ(ValidateTrainingSpec(moe, 4), "");
    moe.routing.distribution = "matrix";
    moe.routing.matrix.assign(4 * 7, 1);
    EXPECT_TRUE(contains(ValidateTrainingSpec(moe, 4), "routing matrix"));
    moe.routing.matrix.assign(4 * 8, 1);
    EXPECT_EQ(ValidateTrainingSpec(moe, 4), "");
    moe.ep = 3;
    EXPECT_TRUE(contains(ValidateTrainingSpec(moe, 4), "must divide the data-parallel"));
    moe.ep = 4;
    moe.topK = 9;
    EXPECT_TRUE(contains(ValidateTrainingSpec(moe, 4), "top-k"));

    TrainingSpec bad = ok;
    bad.schedule = "zero-bubble";
    EXPECT_TRUE(contains(ValidateTrainingSpec(bad, 8), "unknown pipeline schedule"));
    bad = ok;
    bad.mfu = 1.5;
    EXPECT_TRUE(contains(ValidateTrainingSpec(bad, 8), "MFU"));
    bad = ok;
    bad.rankGpus = {0, 1, 2, 3, 4, 5, 6, 6};
    EXPECT_TRUE(contains(ValidateTrainingSpec(bad, 8), "twice"));
    bad.sequenceParallel = false;
    bad.rankGpus.clear();
    bad.tpAlgorithm = "tree";
    bad.sequenceParallel = true;
    EXPECT_TRUE(contains(ValidateTrainingSpec(bad, 8), "does not implement"));
}

TEST_F(TrainingWorkloadTest, RankPlacementOrders)
{
    TrainingSpec s = PipelineJob("1f1b", 2, 2, 1);
    s.tp = 2;
    s.dp = 2;
    // Default tp,pp,dp: the canonical rank is the GPU index.
    std::vector<uint32_t> id(8);
    std::iota(id.begin(), id.end(), 0);
    EXPECT_EQ(TrainingRankGpus(s), id);
    // tp,dp,pp: GPU = t + 2 d + 4 s; canonical rank t + 2 (s + 2 d).
    s.rankOrder = "tp,dp,pp";
    EXPECT_EQ(TrainingRankGpus(s), (std::vector<uint32_t>{0, 1, 4, 5, 2, 3, 6, 7}));
}

TEST_F(TrainingWorkloadTest, DerivedParameterCount)
{
    // 12 h^2 + 13 h per dense layer (f = 4h), plus V h embedding and V h head.
    TrainingSpec s;
    s.layers = 2;
    s.hidden = 1024;
    s.vocabulary = 1000;
    const TrainingModelSizes z = DeriveTrainingSizes(s);
    const double h = 1024;
    EXPECT_DOUBLE_EQ(z.totalParams, 2 * (12 * h * h + 13 * h) + 2 * 1000 * h);
    s.parameters = 100000000;
    EXPECT_DOUBLE_EQ(DeriveTrainingSizes(s).totalParams, 1e8);
}

TEST_F(TrainingWorkloadTest, MixedJobRunsAndChainsIterations)
{
    // TP 2 x PP 2 (interleaved, v = 2) x DP 2 with EP 2, MoE every other layer, sequence
    // parallelism, vocabulary (embedding and head), two iterations back to back.
    TrainingSpec s;
    s.name = "mix";
    s.layers = 8;
    s.hidden = 256;
    s.sequence = 128;
    s.microBatchSize = 2;
    s.vocabulary = 1000;
    s.moeLayers = 4;
    s.experts = 4;
    s.topK = 2;
    s.capacityFactor = 1.25;
    s.routing.distribution = "zipf";
    s.expertPlacement = "round-robin";
    s.peakFlops = 1e13;
    s.tp = 2;
    s.pp = 2;
    s.dp = 2;
    s.ep = 2;
    s.gpusPerServer = 2;
    s.sequenceParallel = true;
    s.schedule = "interleaved";
    s.virtualStages = 2;
    s.microBatches = 4;
    s.bucketBytes = 200 * 1000;
    for (const bool overlap : {true, false})
    {
        s.overlapGradReduce = overlap;
        Workload wl;
        const TrainingWorkloadInfo one = BuildTrainingWorkload(s, wl, 8);
        std::vector<uint32_t> ends(8);
        for (const TrainingRankInfo& ri : one.ranks)
        {
            ends[ri.gpu] = ri.endOp;
        }
        const TrainingWorkloadInfo two = BuildTrainingWorkload(s, wl, 8, {}, ends, 10);
        Ptr<WorkloadExecution> runner = RunJob(SingleSwitch(8), wl);
        const TrainingRunSummary a = SummarizeTrainingRun(one, *runner);
        const TrainingRunSummary b = SummarizeTrainingRun(two, *runner);
        // Each GPU starts its second iteration when its first one is done.
        for (uint32_t r = 0; r < 8; ++r)
        {
            EXPECT_EQ(runner->GetOpEnd(two.ranks[r].startOp), a.ranks[r].end);
            EXPECT_GE(runner->GetOpStart(two.ranks[r].compute.front().op), a.ranks[r].end);
        }
        EXPECT_GT(b.end, a.end);
        for (uint32_t r = 0; r < 8; ++r)
        {
            for (const TrainingRunSummary* sum : {&a, &b})
            {
                const TrainingRankTimes& t = sum->ranks[r];
                EXPECT_EQ(t.compute + t.pipelineIdle + t.exposedPipeline + t.exposedTensor
                              + t.exposedExpert + t.exposedData,
                          sum->Iteration());
            }
            // Every gradient is in exactly one bucket of the rank.
            const TrainingRankInfo& ri = one.ranks[r];
            const TrainingModelSizes& z = one.sizes;
            double dense = 0;
            double expert = 0;
            for (uint32_t c = 0; c < 2; ++c)
            {
                const uint32_t vs = c * 2 + ri.pp;
                for (uint32_t l = vs * 2; l < vs * 2 + 2; ++l)
                {
                    dense
                        += z.attentionParams / 2 + (z.isMoe[l] ? z.routerParams : z.mlpParams / 2);
                    expert += z.isMoe[l] ? 2 * z.expertParams : 0;
                }
                dense += vs == 0 ? z.embeddingParams / 2 : 0;
                dense += vs == 3 ? z.headParams / 2 : 0;
            }
            double inBuckets = 0;
            for (const TrainingBucketInfo& bk : one.buckets)
            {
                if (std::find(bk.ranks.begin(), bk.ranks.end(), r) != bk.ranks.end())
                {
                    inBuckets += bk.bytes;
                }
            }
            EXPECT_NEAR(inBuckets, 2 * (dense + expert), 64) << "rank " << r;
        }
        std::printf("[mix] overlap %d: iteration %.1f us then %.1f us, MoE local fraction %.3f, "
                    "%llu of %llu copies dropped\n",
                    overlap,
                    a.Iteration().GetMicroSeconds() * 1.0,
                    b.Iteration().GetMicroSeconds() * 1.0,
                    one.moeTotals.LocalFraction(),
                    static_cast<unsigned long long>(one.moeTotals.dropped),
                    static_cast<unsigned long long>(one.moeTotals.tokenCopies));
        Simulator::Destroy();
    }
}

TEST_F(TrainingWorkloadTest, LargeJobBuilds)
{
    // 512 GPUs, TP 8 x PP 4 x DP 16, 32 layers, 8 micro-batches, 1F1B.
    TrainingSpec s;
    s.layers = 32;
    s.hidden = 8192;
    s.sequence = 4096;
    s.peakFlops = 989e12;
    s.tp = 8;
    s.pp = 4;
    s.dp = 16;
    s.gpusPerServer = 8;
    s.microBatches = 8;
    s.sequenceParallel = true;
    Workload wl;
    const auto t0 = std::chrono::steady_clock::now();
    const TrainingWorkloadInfo info = BuildTrainingWorkload(s, wl, 512);
    wl.Finalize();
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[build] 512 GPUs TP8 PP4 DP16, 32 layers, m=8: %zu ops, %zu groups, %zu "
                "dependencies in %.3f s\n",
                wl.GetOps().size(),
                wl.GetGroups().size(),
                wl.GetDependencyCount(),
                wall);
    EXPECT_EQ(info.ranks.size(), 512u);
    EXPECT_FALSE(info.buckets.empty());

    // The same with 16 MoE layers of 64 experts, top-8, EP 8 (zipf routing, random placement).
    s.moeLayers = 16;
    s.experts = 64;
    s.topK = 8;
    s.ep = 8;
    s.routing.distribution = "zipf";
    s.expertPlacement = "random";
    Workload moe;
    const auto t1 = std::chrono::steady_clock::now();
    const TrainingWorkloadInfo mi = BuildTrainingWorkload(s, moe, 512);
    moe.Finalize();
    const double wall2
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    std::printf("[build] same with 16 MoE layers (E 64, top-8, EP 8): %zu ops, %zu groups in "
                "%.3f s; local fraction (server domains) %.3f\n",
                moe.GetOps().size(),
                moe.GetGroups().size(),
                wall2,
                mi.moeTotals.LocalFraction());
    uint32_t dispatches = 0;
    for (const TrainingGroupInfo& g : mi.groups)
    {
        dispatches += g.kind == TrainingGroupInfo::MOE_DISPATCH;
    }
    // 16 MoE layers x 8 micro-batches x (TP 8 x 2 EP groups of 8 per stage).
    EXPECT_EQ(dispatches, 16u * 8 * 16);
}

} // namespace
