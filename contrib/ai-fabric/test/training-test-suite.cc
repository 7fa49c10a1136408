/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the training room (suite ai-fabric-training): the training-workload
 * generator run on fabrics. Compute and sends in the pipeline schedule's order, bubble
 * fractions (MISSION.md F9, F10, C8), TP and PP traffic (F11, F12), DP bucket overlap (F13),
 * MoE all-to-all bytes, capacity drops and placement (F14, C2), determinism, validation,
 * rank placement, parameter counts, chained iterations and build size. (Each schedule's
 * order and replayed bubble: ai-fabric-pipeline-schedule.)
 */
#include "ai-fabric-test-run.h"

#include "ns3/expert-placement.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"
#include "ns3/locality-domains.h"
#include "ns3/moe-routing.h"
#include "ns3/pipeline-schedule.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/topology-spec.h"
#include "ns3/training-workload.h"
#include "ns3/workload-execution.h"
#include "ns3/workload-helper.h"
#include "ns3/workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::aifabrictest;

namespace
{

/**
 * \brief A compute-dominated pipeline job: 8 KiB activations, milliseconds of compute per
 * layer.
 * \param schedule the pipeline schedule
 * \param p stages
 * \param m micro-batches
 * \param v virtual stages
 * \return the job
 */
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

/**
 * \brief A DP-only job on 4 GPUs with 8 MB buckets.
 * \param flops peak FLOP/s (sets the backward time per layer)
 * \param overlap overlap the gradient reduction with the backward pass
 * \return the job
 */
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

/**
 * \brief An MoE-only job: one MoE layer, EP over all GPUs, negligible compute.
 * \param gpus GPUs (DP = EP)
 * \param experts experts
 * \param topK experts per token
 * \return the job
 */
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

/// \param msg a message \param part a part \return whether \p msg contains \p part
bool
Contains(const std::string& msg, const std::string& part)
{
    return msg.find(part) != std::string::npos;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief A training case: seeds 1/1 before it runs, runs jobs on fabrics (RunJob()).
 */
class TrainingTestCase : public TestCase
{
  public:
    /// \param name the case's name
    explicit TrainingTestCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    void DoSetup() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void DoTeardown() override
    {
        Simulator::Destroy();
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    /**
     * \brief Finalize and run a workload on a fabric (one WorkloadApplication per GPU); the
     * execution keeps the op times. Every op must be done.
     * \param graph the fabric
     * \param wl the workload
     * \return the execution
     */
    Ptr<WorkloadExecution> RunJob(const FabricGraph& graph, Workload& wl)
    {
        wl.Finalize();
        Fabric fabric = FabricBuilder::Build(graph, SpecLocation{});
        WorkloadHelper workloads(&wl);
        workloads.Install(fabric.gpuNodes);
        Simulator::Run();
        Ptr<WorkloadExecution> runner = workloads.GetExecution();
        NS_TEST_EXPECT_MSG_EQ(runner->IsDone(), true, "every op done");
        return runner;
    }

    /**
     * \brief Run a pipeline job on one switch.
     * \param spec the job
     * \param info what building it gave
     * \return its summary
     */
    TrainingRunSummary RunPipeline(const TrainingSpec& spec, TrainingWorkloadInfo& info)
    {
        Workload wl;
        info = BuildTrainingWorkload(spec, wl, spec.tp * spec.pp * spec.dp);
        Ptr<WorkloadExecution> runner = RunJob(SingleSwitchGraph(spec.tp * spec.pp * spec.dp), wl);
        return SummarizeTrainingRun(info, *runner);
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief 1F1B on 4 stages: every stage computes one op at a time in the schedule's order
 * and sends activations and gradients right after the step's last compute op.
 * (Moved from TrainingWorkloadTest.OneFOneBComputeAndSendsRunInOrder.)
 */
class OneFOneBRunsInOrderTestCase : public TrainingTestCase
{
  public:
    OneFOneBRunsInOrderTestCase()
        : TrainingTestCase("1F1B compute and sends run in the schedule's order")
    {
    }

  private:
    void DoRun() override
    {
        const TrainingSpec spec = PipelineJob("1f1b", 4, 8, 1);
        Workload wl;
        const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
        NS_TEST_ASSERT_MSG_EQ(info.groups.size(),
                              wl.GetGroups().size() - info.firstGroup,
                              "every group listed");
        for (std::size_t i = 0; i < info.groups.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(info.groups[i].group, info.firstGroup + i, "group " << i);
        }
        Ptr<WorkloadExecution> runner = RunJob(SingleSwitchGraph(4), wl);
        for (uint32_t s = 0; s < 4; ++s)
        {
            const TrainingRankInfo& ri = info.ranks[info.Rank(0, s, 0)];
            const auto order = CreatePipelineSchedule("1f1b")->Order(4, s, 8, 1);
            NS_TEST_ASSERT_MSG_EQ(ri.steps.size(), order.size(), "stage " << s);
            // Compute: one at a time, in the schedule's order.
            Time prevEnd;
            std::vector<std::pair<int64_t, std::string>> sends;
            std::string expectedSends;
            for (std::size_t k = 0; k < order.size(); ++k)
            {
                const TrainingStepInfo& si = ri.steps[k];
                NS_TEST_EXPECT_MSG_EQ((si.step == order[k]), true, "stage " << s << " step " << k);
                for (uint32_t c = si.firstCompute; c <= si.lastCompute; ++c)
                {
                    const Time start = runner->GetOpStart(ri.compute[c].op);
                    NS_TEST_EXPECT_MSG_GT_OR_EQ(start, prevEnd, "stage " << s << " compute " << c);
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
                    NS_TEST_EXPECT_MSG_EQ(runner->GetOpStart(gi.sendOp),
                                          runner->GetOpEnd(ri.compute[si.lastCompute].op),
                                          "stage " << s << " " << label);
                }
            }
            std::stable_sort(sends.begin(), sends.end());
            std::string got;
            for (const auto& [t, label] : sends)
            {
                got += (got.empty() ? "" : " ") + label;
            }
            NS_TEST_EXPECT_MSG_EQ(got, expectedSends, "stage " << s);
            if (s == 1)
            {
                // Stage 1 of 4: activations after each forward, gradients after each backward.
                NS_TEST_EXPECT_MSG_EQ(got,
                                      "A0 A1 A2 G0 A3 G1 A4 G2 A5 G3 A6 G4 A7 G5 G6 G7",
                                      "stage 1");
            }
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief F9 / C8: GPipe and 1F1B idle fraction (p-1)/(m+p-1) when communication is
 * negligible; every rank's parts add up to the iteration.
 * (Moved from TrainingWorkloadTest.BubbleMatchesFormulaGpipeAnd1F1B.)
 */
class BubbleGpipe1F1BTestCase : public TrainingTestCase
{
  public:
    BubbleGpipe1F1BTestCase()
        : TrainingTestCase("GPipe and 1F1B bubbles match (p-1) over (m+p-1)")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string schedule : {"gpipe", "1f1b"})
        {
            for (const uint32_t m : {4U, 8U, 16U})
            {
                const uint32_t p = 4;
                TrainingWorkloadInfo info;
                const TrainingRunSummary sum = RunPipeline(PipelineJob(schedule, p, m, 1), info);
                const double formula = (p - 1.0) / (m + p - 1.0);
                for (uint32_t s = 0; s < p; ++s)
                {
                    const double idle = sum.IdleFraction(info.Rank(0, s, 0));
                    NS_TEST_EXPECT_MSG_EQ_TOL(idle,
                                              formula,
                                              0.01 * formula,
                                              schedule << " m=" << m << " s=" << s);
                    const TrainingRankTimes& t = sum.ranks[info.Rank(0, s, 0)];
                    // The parts add up to the iteration.
                    NS_TEST_EXPECT_MSG_EQ(t.compute + t.pipelineIdle + t.exposedPipeline
                                              + t.exposedTensor + t.exposedExpert + t.exposedData,
                                          sum.Iteration(),
                                          schedule << " m=" << m << " s=" << s);
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
};

/**
 * \ingroup ai-fabric-tests
 * \brief F10: interleaved 1F1B's relative overhead (p-1)/(v m) with v = 2, against (p-1)/m
 * for 1F1B, and twice the pipeline messages.
 * (Moved from TrainingWorkloadTest.InterleavedBubbleIsSmaller.)
 */
class InterleavedBubbleTestCase : public TrainingTestCase
{
  public:
    InterleavedBubbleTestCase()
        : TrainingTestCase("The interleaved bubble is smaller")
    {
    }

  private:
    void DoRun() override
    {
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
        NS_TEST_EXPECT_MSG_EQ_TOL(o2, f2, 0.01 * f2, "interleaved overhead");
        NS_TEST_EXPECT_MSG_LT(o2, 0.6 * o1, "below 1F1B's");
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
        NS_TEST_EXPECT_MSG_EQ(fwd1, (p - 1) * m, "1F1B forward messages");
        NS_TEST_EXPECT_MSG_EQ(fwd2, (2 * p - 1) * m, "interleaved forward messages");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief F11: 2 all-reduces of b s h bytes per layer forward and 2 backward per TP group;
 * F12: one b s h activation per micro-batch per boundary, one gradient back; sequence
 * parallelism: reduce-scatter + all-gather and activations / TP.
 * (Moved from TrainingWorkloadTest.TensorAndPipelineTraffic.)
 */
class TensorAndPipelineTrafficTestCase : public TrainingTestCase
{
  public:
    TensorAndPipelineTrafficTestCase()
        : TrainingTestCase("Tensor- and pipeline-parallel traffic follow F11 and F12")
    {
    }

  private:
    void DoRun() override
    {
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
                NS_TEST_EXPECT_MSG_EQ(g.op, "all-reduce", g.name);
                NS_TEST_EXPECT_MSG_EQ(g.bytes, bsh, g.name);
                NS_TEST_EXPECT_MSG_EQ(g.ranks.size(), 2U, g.name);
            }
            fwd += gi.kind == TrainingGroupInfo::PIPELINE_FORWARD;
            bwd += gi.kind == TrainingGroupInfo::PIPELINE_BACKWARD;
            if (gi.kind == TrainingGroupInfo::PIPELINE_FORWARD
                || gi.kind == TrainingGroupInfo::PIPELINE_BACKWARD)
            {
                NS_TEST_EXPECT_MSG_EQ(g.bytes, bsh, g.name);
                NS_TEST_EXPECT_MSG_EQ(wl.GetOps()[gi.sendOp].bytes, bsh, g.name);
            }
        }
        // 4 layers x 2 micro-batches x 4 per TP group (one TP group per stage).
        NS_TEST_EXPECT_MSG_EQ(tensor, 4U * 2 * 4, "TP all-reduces");
        // (p - 1) boundaries x m micro-batches x TP ranks each way.
        NS_TEST_EXPECT_MSG_EQ(fwd, 1U * 2 * 2, "activations");
        NS_TEST_EXPECT_MSG_EQ(bwd, 1U * 2 * 2, "gradients");
        Ptr<WorkloadExecution> runner = RunJob(SingleSwitchGraph(4), wl);
        const TrainingRunSummary sum = SummarizeTrainingRun(info, *runner);
        for (uint32_t r = 0; r < 4; ++r)
        {
            NS_TEST_EXPECT_MSG_GT(sum.ranks[r].exposedTensor,
                                  Time(0),
                                  "TP is on the critical path, rank " << r);
            const TrainingRankTimes& t = sum.ranks[r];
            NS_TEST_EXPECT_MSG_EQ(t.compute + t.pipelineIdle + t.exposedPipeline + t.exposedTensor
                                      + t.exposedExpert + t.exposedData,
                                  sum.Iteration(),
                                  "the parts add up, rank " << r);
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
                NS_TEST_EXPECT_MSG_EQ(g.bytes, bsh / 2, g.name);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(ops["reduce-scatter"], 32U, "reduce-scatters");
        NS_TEST_EXPECT_MSG_EQ(ops["all-gather"], 32U, "all-gathers");
        NS_TEST_EXPECT_MSG_EQ(ops.count("all-reduce"), 0U, "no all-reduce");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief F13: data-parallel buckets hide behind the backward pass when compute-bound, show
 * when communication-bound, and always show without overlap.
 * (Moved from TrainingWorkloadTest.DataParallelBucketsOverlapBackward.)
 */
class DataParallelOverlapTestCase : public TrainingTestCase
{
  public:
    DataParallelOverlapTestCase()
        : TrainingTestCase("Data-parallel buckets overlap the backward pass")
    {
    }

  private:
    void DoRun() override
    {
        // Per layer: about 3.15 M parameters (6.3 MB of bf16 gradients), so 8 MB buckets
        // hold about 1.3 layers; a 4-rank ring all-reduce of 8 MB takes about
        // 2 x 3/4 x 8 MB / 50 GB/s = 240 us on ib-ndr.
        struct Case
        {
            double flops;             //!< peak FLOP/s
            bool overlap;             //!< overlap
            double exposedS;          //!< rank 0's exposed DP time
            double backwardPerLayerS; //!< backward compute per layer
            double bucketS;           //!< all-reduce time of the buckets
            uint32_t buckets;         //!< buckets
        };

        std::vector<Case> cases;
        for (const double flops : {6e12, 3e14})
        {
            for (const bool overlap : {true, false})
            {
                const TrainingSpec spec = DataParallelJob(flops, overlap);
                Workload wl;
                const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
                Ptr<WorkloadExecution> runner = RunJob(SingleSwitchGraph(4), wl);
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
                    NS_TEST_EXPECT_MSG_EQ(wl.GetGroups()[b.group].ranks.size(), 4U, "bucket");
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
        NS_TEST_EXPECT_MSG_LT(cases[0].exposedS, 0.25 * cases[1].exposedS, "compute-bound");
        // Communication-bound: most of the all-reduce time shows.
        NS_TEST_EXPECT_MSG_GT(cases[2].exposedS, 0.6 * cases[3].exposedS, "communication-bound");
        // No overlap: everything shows either way.
        NS_TEST_EXPECT_MSG_GT(cases[1].exposedS, cases[0].exposedS, "no overlap, compute-bound");
        NS_TEST_EXPECT_MSG_GT(cases[3].exposedS, cases[2].exposedS, "no overlap, comm-bound");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief MoE all-to-all bytes follow an explicit routing matrix, in the dispatch, combine and
 * their backward groups; expert compute follows the copies each rank receives.
 * (Moved from TrainingWorkloadTest.MoeAllToAllBytesFollowTheRoutingMatrix.)
 */
class MoeRoutingMatrixTestCase : public TrainingTestCase
{
  public:
    MoeRoutingMatrixTestCase()
        : TrainingTestCase("MoE all-to-all bytes follow the routing matrix")
    {
    }

  private:
    void DoRun() override
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
        NS_TEST_ASSERT_MSG_EQ(info.moe.size(), 1U, "one MoE layer");
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
            const uint64_t perCopy
                = 256
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
                    NS_TEST_EXPECT_MSG_EQ(g.matrix[a * 4 + b],
                                          want,
                                          g.name << " " << a << "->" << b);
                    NS_TEST_EXPECT_MSG_EQ(sent[std::make_pair(g.ranks[a], g.ranks[b])],
                                          want,
                                          g.name << " " << a << "->" << b);
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(seen.size(), 4U, "dispatch, combine, and their backward pair");
        NS_TEST_EXPECT_MSG_EQ(info.moe[0].sameRank, 10U + 0 + 11 + 18, "copies that stay home");
        NS_TEST_EXPECT_MSG_EQ(info.moe[0].dropped, 0U, "dropless");
        Ptr<WorkloadExecution> runner = RunJob(SingleSwitchGraph(4), wl);
        NS_TEST_EXPECT_MSG_EQ(runner->IsDone(), true, "done");
        // Expert compute follows the copies each rank receives.
        const uint64_t received[4] = {13, 17, 51, 53};
        for (uint32_t q = 0; q < 4; ++q)
        {
            NS_TEST_EXPECT_MSG_EQ(info.moe[0].received[q], received[q], "rank " << q);
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Expert capacity C = ceil(CF x copies / E) drops the excess in proportion, by
 * largest remainder; a hot expert loses most of its excess in a job.
 * (Moved from TrainingWorkloadTest.MoeCapacityDropsExcessTokens.)
 */
class MoeCapacityTestCase : public TrainingTestCase
{
  public:
    MoeCapacityTestCase()
        : TrainingTestCase("MoE capacity drops excess tokens")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint64_t> copies = {
            30,
            10, // source 0
            10,
            10, // source 1
        };
        // 60 copies, 2 experts, CF 1.0: C = 30; expert 0 has 40 -> keeps 30 (22.5 + 7.5 ->
        // 22 + 8 by largest remainder... both .5: the lower source first: 23 + 7).
        const uint64_t dropped = ApplyExpertCapacity(copies, 2, 2, 1.0);
        NS_TEST_EXPECT_MSG_EQ(dropped, 10U, "dropped");
        NS_TEST_EXPECT_MSG_EQ(copies[0] + copies[2], 30U, "expert 0 keeps C");
        NS_TEST_EXPECT_MSG_EQ(copies[0], 23U, "source 0");
        NS_TEST_EXPECT_MSG_EQ(copies[2], 7U, "source 1");
        NS_TEST_EXPECT_MSG_EQ(copies[1], 10U, "expert 1 untouched");
        // Dropless.
        std::vector<uint64_t> same = {30, 10, 10, 10};
        NS_TEST_EXPECT_MSG_EQ(ApplyExpertCapacity(same, 2, 2, 0), 0U, "dropless");

        // In a job: hot-expert routing with capacity factor 1.
        TrainingSpec spec = MoeJob(4, 8, 1);
        spec.routing.distribution = "hot-expert";
        spec.routing.hotFraction = 0.5;
        spec.capacityFactor = 1.0;
        Workload wl;
        const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, 4);
        // 4 x 512 copies, C = 256 per expert; the hot expert gets about 1024 -> ~768 dropped.
        NS_TEST_EXPECT_MSG_GT(info.moeTotals.dropped, 600U, "dropped");
        NS_TEST_EXPECT_MSG_LT(info.moeTotals.dropped, 900U, "dropped");
        std::printf("[moe] hot-expert 0.5, CF 1.0: %llu of %llu copies dropped\n",
                    static_cast<unsigned long long>(info.moeTotals.dropped),
                    static_cast<unsigned long long>(info.moeTotals.tokenCopies));
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief F14: uniform top-1 routing over E experts on E ranks: forward dispatch + combine
 * send about 2 b s h bytes (E-1)/E per rank (the local share stays home).
 * (Moved from TrainingWorkloadTest.MoeUniformVolumeMatchesF14.)
 */
class MoeUniformVolumeTestCase : public TrainingTestCase
{
  public:
    MoeUniformVolumeTestCase()
        : TrainingTestCase("MoE uniform all-to-all volume matches F14")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t e = 8;
        TrainingSpec spec = MoeJob(e, e, 1);
        Workload wl;
        const TrainingWorkloadInfo info = BuildTrainingWorkload(spec, wl, e);
        uint64_t forward = 0;
        for (const auto& gi : info.groups)
        {
            if (gi.kind == TrainingGroupInfo::MOE_DISPATCH
                || gi.kind == TrainingGroupInfo::MOE_COMBINE)
            {
                const auto& m = wl.GetGroups()[gi.group].matrix;
                forward += std::accumulate(m.begin(), m.end(), uint64_t{0});
            }
        }
        const double perRank = static_cast<double>(forward) / e;
        const double f14 = 2.0 * 512 * 1024 * 2 * (e - 1) / e;
        std::printf(
            "[moe] uniform top-1, E = EP = 8: forward all-to-all %.0f B per rank, F14 %.0f B\n",
            perRank,
            f14);
        NS_TEST_EXPECT_MSG_EQ_TOL(perRank, f14, 0.02 * f14, "F14");
        NS_TEST_EXPECT_MSG_EQ(info.moeTotals.networkBytes, 2 * forward, "forward and backward");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief C2: skewed routing with per-leaf affinity on a 4:1 oversubscribed 2-leaf fabric:
 * topology-aware expert placement keeps more tokens local, sends fewer bytes across leaves
 * and finishes the dispatch sooner than random placement.
 * (Moved from TrainingWorkloadTest.TopologyAwarePlacementBeatsRandom.)
 */
class TopologyAwarePlacementTestCase : public TrainingTestCase
{
  public:
    TopologyAwarePlacementTestCase()
        : TrainingTestCase("Topology-aware expert placement beats random placement")
    {
    }

  private:
    /// MoE dispatch on a 2-leaf leaf-spine: local fraction and all-to-all completion.
    struct MoeOutcome
    {
        double localFraction{0}; //!< token copies kept in their domain
        double dispatchS{0};     //!< dispatch all-to-all completion time
        uint64_t remoteBytes{0}; //!< dispatch bytes across leaves
    };

    /// \param placement the expert placement \return its outcome
    MoeOutcome RunMoePlacement(const std::string& placement)
    {
        TopologySpec topo;
        topo.SetKind("leaf-spine");
        topo.As<LeafSpineSpec>().leaves = 2;
        topo.As<LeafSpineSpec>().spines = 1;
        topo.As<LeafSpineSpec>().gpusPerLeaf = 4;
        topo.link = *FindLinkProfile("ib-ndr");
        const FabricGraph graph = BuildFabricGraph(topo);
        const std::vector<uint32_t> domain = GpuLocalityDomains(graph, "leaf");
        NS_TEST_EXPECT_MSG_EQ((domain == std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}),
                              true,
                              "leaf domains " << Join(domain));
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

    void DoRun() override
    {
        const MoeOutcome random = RunMoePlacement("random");
        Simulator::Destroy();
        const MoeOutcome aware = RunMoePlacement("topology-aware");
        std::printf(
            "[moe] local fraction random %.3f, topology-aware %.3f; cross-leaf dispatch bytes "
            "%llu vs %llu; dispatch completion %.1f us vs %.1f us\n",
            random.localFraction,
            aware.localFraction,
            static_cast<unsigned long long>(random.remoteBytes),
            static_cast<unsigned long long>(aware.remoteBytes),
            random.dispatchS * 1e6,
            aware.dispatchS * 1e6);
        NS_TEST_EXPECT_MSG_GT(aware.localFraction, random.localFraction + 0.1, "local fraction");
        NS_TEST_EXPECT_MSG_LT(aware.remoteBytes, random.remoteBytes, "bytes across leaves");
        NS_TEST_EXPECT_MSG_LT(aware.dispatchS, random.dispatchS, "dispatch completion");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The same seed gives the same op times and MoE routing; another run number another
 * routing. (Moved from TrainingWorkloadTest.SameSeedSameTimes.)
 */
class TrainingSameSeedTestCase : public TrainingTestCase
{
  public:
    TrainingSameSeedTestCase()
        : TrainingTestCase("The same seed gives the same times")
    {
    }

  private:
    /// \param run the run number \return every op's end, ps, and the MoE copies
    std::pair<std::vector<int64_t>, std::vector<uint64_t>> Once(uint32_t run)
    {
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
        Ptr<WorkloadExecution> runner = RunJob(SingleSwitchGraph(4), wl);
        std::vector<int64_t> ends;
        for (uint32_t i = 0; i < wl.GetOps().size(); ++i)
        {
            ends.push_back(runner->GetOpEnd(i).GetPicoSeconds());
        }
        Simulator::Destroy();
        return std::make_pair(ends, info.moe[0].copies);
    }

    void DoRun() override
    {
        const auto a = Once(1);
        const auto b = Once(1);
        const auto c = Once(2);
        NS_TEST_EXPECT_MSG_EQ((a.first == b.first), true, "the same op times");
        NS_TEST_EXPECT_MSG_EQ((a.second == b.second), true, "the same routing");
        NS_TEST_EXPECT_MSG_EQ((a.second != c.second), true, "another run, another routing");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief ValidateTrainingSpec rejects impossible jobs, naming the problem.
 * (Moved from TrainingWorkloadTest.ValidateRejectsImpossibleJobs.)
 */
class TrainingValidationTestCase : public TrainingTestCase
{
  public:
    TrainingValidationTestCase()
        : TrainingTestCase("Validation rejects impossible jobs")
    {
    }

  private:
    void DoRun() override
    {
        TrainingSpec ok = PipelineJob("1f1b", 2, 4, 1);
        ok.tp = 2;
        ok.dp = 2;
        NS_TEST_EXPECT_MSG_EQ(ValidateTrainingSpec(ok, 8), "", "a valid job");
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(ok, 16), "TP x PP x DP"),
                              true,
                              "rank count");

        TrainingSpec spread = ok;
        spread.gpusPerServer = 2;
        spread.rankOrder = "pp,dp,tp";
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(spread, 8), "NVLink"), true, "spread");
        spread.tpInServer = false;
        NS_TEST_EXPECT_MSG_EQ(ValidateTrainingSpec(spread, 8), "", "TP allowed across servers");
        spread.rankOrder = "tp,pp";
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(spread, 8), "permutation"),
                              true,
                              "rank order");

        TrainingSpec inter = PipelineJob("interleaved", 4, 6, 2);
        NS_TEST_EXPECT_MSG_EQ(
            Contains(ValidateTrainingSpec(inter, 4), "multiple of the pipeline stages"),
            true,
            "interleaved m");
        inter.microBatches = 8;
        NS_TEST_EXPECT_MSG_EQ(ValidateTrainingSpec(inter, 4), "", "interleaved m = 8");
        inter.virtualStages = 3; // 8 layers over 4 x 3 chunks
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(inter, 4), "divide evenly"),
                              true,
                              "chunks");

        TrainingSpec moe = MoeJob(4, 6, 2);
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(moe, 4), "experts do not divide"),
                              true,
                              "experts");
        moe.experts = 8;
        NS_TEST_EXPECT_MSG_EQ(ValidateTrainingSpec(moe, 4), "", "8 experts");
        moe.routing.distribution = "matrix";
        moe.routing.matrix.assign(4 * 7, 1);
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(moe, 4), "routing matrix"),
                              true,
                              "matrix shape");
        moe.routing.matrix.assign(4 * 8, 1);
        NS_TEST_EXPECT_MSG_EQ(ValidateTrainingSpec(moe, 4), "", "matrix");
        moe.ep = 3;
        NS_TEST_EXPECT_MSG_EQ(
            Contains(ValidateTrainingSpec(moe, 4), "must divide the data-parallel"),
            true,
            "EP");
        moe.ep = 4;
        moe.topK = 9;
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(moe, 4), "top-k"), true, "top-k");

        TrainingSpec bad = ok;
        bad.schedule = "zero-bubble";
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(bad, 8), "unknown pipeline schedule"),
                              true,
                              "schedule");
        bad = ok;
        bad.mfu = 1.5;
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(bad, 8), "MFU"), true, "MFU");
        bad = ok;
        bad.rankGpus = {0, 1, 2, 3, 4, 5, 6, 6};
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(bad, 8), "twice"), true, "rank GPUs");
        bad.sequenceParallel = false;
        bad.rankGpus.clear();
        bad.tpAlgorithm = "tree";
        bad.sequenceParallel = true;
        NS_TEST_EXPECT_MSG_EQ(Contains(ValidateTrainingSpec(bad, 8), "does not implement"),
                              true,
                              "TP algorithm");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Rank placement orders map canonical ranks to GPUs.
 * (Moved from TrainingWorkloadTest.RankPlacementOrders.)
 */
class RankPlacementTestCase : public TrainingTestCase
{
  public:
    RankPlacementTestCase()
        : TrainingTestCase("Rank placement orders")
    {
    }

  private:
    void DoRun() override
    {
        TrainingSpec s = PipelineJob("1f1b", 2, 2, 1);
        s.tp = 2;
        s.dp = 2;
        // Default tp,pp,dp: the canonical rank is the GPU index.
        std::vector<uint32_t> id(8);
        std::iota(id.begin(), id.end(), 0);
        NS_TEST_EXPECT_MSG_EQ((TrainingRankGpus(s) == id), true, Join(TrainingRankGpus(s)));
        // tp,dp,pp: GPU = t + 2 d + 4 s; canonical rank t + 2 (s + 2 d).
        s.rankOrder = "tp,dp,pp";
        NS_TEST_EXPECT_MSG_EQ(
            (TrainingRankGpus(s) == std::vector<uint32_t>{0, 1, 4, 5, 2, 3, 6, 7}),
            true,
            Join(TrainingRankGpus(s)));
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The derived parameter count: 12 h^2 + 13 h per dense layer (f = 4h), plus V h
 * embedding and V h head; a given count wins. (Moved from
 * TrainingWorkloadTest.DerivedParameterCount.)
 */
class DerivedParametersTestCase : public TrainingTestCase
{
  public:
    DerivedParametersTestCase()
        : TrainingTestCase("The derived parameter count")
    {
    }

  private:
    void DoRun() override
    {
        TrainingSpec s;
        s.layers = 2;
        s.hidden = 1024;
        s.vocabulary = 1000;
        const TrainingModelSizes z = DeriveTrainingSizes(s);
        const double h = 1024;
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(z.totalParams, 2 * (12 * h * h + 13 * h) + 2 * 1000 * h),
                              true,
                              "derived " << z.totalParams);
        s.parameters = 100000000;
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(DeriveTrainingSizes(s).totalParams, 1e8),
                              true,
                              "given " << DeriveTrainingSizes(s).totalParams);
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A mixed job (TP 2 x PP 2 interleaved x DP 2, EP 2, MoE every other layer, sequence
 * parallelism, vocabulary) runs two chained iterations, with and without gradient overlap:
 * each GPU starts its second iteration when its first ends, the parts add up, and every
 * gradient is in exactly one bucket of its rank.
 * (Moved from TrainingWorkloadTest.MixedJobRunsAndChainsIterations.)
 */
class MixedJobTestCase : public TrainingTestCase
{
  public:
    MixedJobTestCase()
        : TrainingTestCase("A mixed job runs and chains iterations")
    {
    }

  private:
    void DoRun() override
    {
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
            Ptr<WorkloadExecution> runner = RunJob(SingleSwitchGraph(8), wl);
            const TrainingRunSummary a = SummarizeTrainingRun(one, *runner);
            const TrainingRunSummary b = SummarizeTrainingRun(two, *runner);
            // Each GPU starts its second iteration when its first one is done.
            for (uint32_t r = 0; r < 8; ++r)
            {
                NS_TEST_EXPECT_MSG_EQ(runner->GetOpEnd(two.ranks[r].startOp),
                                      a.ranks[r].end,
                                      "overlap " << overlap << " rank " << r);
                NS_TEST_EXPECT_MSG_GT_OR_EQ(runner->GetOpStart(two.ranks[r].compute.front().op),
                                            a.ranks[r].end,
                                            "overlap " << overlap << " rank " << r);
            }
            NS_TEST_EXPECT_MSG_GT(b.end, a.end, "overlap " << overlap);
            for (uint32_t r = 0; r < 8; ++r)
            {
                for (const TrainingRunSummary* sum : {&a, &b})
                {
                    const TrainingRankTimes& t = sum->ranks[r];
                    NS_TEST_EXPECT_MSG_EQ(t.compute + t.pipelineIdle + t.exposedPipeline
                                              + t.exposedTensor + t.exposedExpert + t.exposedData,
                                          sum->Iteration(),
                                          "overlap " << overlap << " rank " << r);
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
                        dense += z.attentionParams / 2
                                 + (z.isMoe[l] ? z.routerParams : z.mlpParams / 2);
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
                NS_TEST_EXPECT_MSG_EQ_TOL(inBuckets,
                                          2 * (dense + expert),
                                          64,
                                          "overlap " << overlap << " rank " << r);
            }
            std::printf("[mix] overlap %d: iteration %.1f us then %.1f us, MoE local fraction "
                        "%.3f, %llu of %llu copies dropped\n",
                        overlap,
                        a.Iteration().GetMicroSeconds() * 1.0,
                        b.Iteration().GetMicroSeconds() * 1.0,
                        one.moeTotals.LocalFraction(),
                        static_cast<unsigned long long>(one.moeTotals.dropped),
                        static_cast<unsigned long long>(one.moeTotals.tokenCopies));
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A 512-GPU job (TP 8 x PP 4 x DP 16, 32 layers, 8 micro-batches, 1F1B) builds, and
 * with 16 MoE layers of 64 experts has its dispatch groups; the build times are printed.
 * (Moved from TrainingWorkloadTest.LargeJobBuilds.)
 */
class LargeJobTestCase : public TrainingTestCase
{
  public:
    LargeJobTestCase()
        : TrainingTestCase("A 512-GPU job builds")
    {
    }

  private:
    void DoRun() override
    {
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
        NS_TEST_EXPECT_MSG_EQ(info.ranks.size(), 512U, "ranks");
        NS_TEST_EXPECT_MSG_EQ(info.buckets.empty(), false, "buckets");

        // The same with 16 MoE layers of 64 experts, top-8, EP 8 (zipf routing, random
        // placement).
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
        NS_TEST_EXPECT_MSG_EQ(dispatches, 16U * 8 * 16, "dispatch groups");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The training TestSuite.
 */
class TrainingTestSuite : public TestSuite
{
  public:
    TrainingTestSuite()
        : TestSuite("ai-fabric-training", UNIT)
    {
        AddTestCase(new OneFOneBRunsInOrderTestCase, TestCase::QUICK);
        AddTestCase(new BubbleGpipe1F1BTestCase, TestCase::QUICK);
        AddTestCase(new InterleavedBubbleTestCase, TestCase::QUICK);
        AddTestCase(new TensorAndPipelineTrafficTestCase, TestCase::QUICK);
        AddTestCase(new DataParallelOverlapTestCase, TestCase::QUICK);
        AddTestCase(new MoeRoutingMatrixTestCase, TestCase::QUICK);
        AddTestCase(new MoeCapacityTestCase, TestCase::QUICK);
        AddTestCase(new MoeUniformVolumeTestCase, TestCase::QUICK);
        AddTestCase(new TopologyAwarePlacementTestCase, TestCase::QUICK);
        AddTestCase(new TrainingSameSeedTestCase, TestCase::QUICK);
        AddTestCase(new TrainingValidationTestCase, TestCase::QUICK);
        AddTestCase(new RankPlacementTestCase, TestCase::QUICK);
        AddTestCase(new DerivedParametersTestCase, TestCase::QUICK);
        AddTestCase(new MixedJobTestCase, TestCase::QUICK);
        AddTestCase(new LargeJobTestCase, TestCase::EXTENSIVE);
    }
};

/// The suite's one instance.
static TrainingTestSuite g_trainingTestSuite;
