/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the analysis room (suite ai-fabric-analysis): the simulation against the
 * closed forms. Every collective algorithm simulated on idle fabrics against its formula
 * (MISSION.md F1-F7) or the pipelined schedule model, ring collectives' bytes and busbw, a
 * permutation against alpha + S beta, an isolated message against its ideal FCT, and the
 * bisection meter (MeasureBisection on known flows, the analyzer's cut, all-to-all and
 * permutation across the cut of a 1:1 and a 3:1 leaf-spine).
 */
#include "ai-fabric-test-run.h"

#include "ns3/analytic-model.h"
#include "ns3/bisection-meter.h"
#include "ns3/channel-plan.h"
#include "ns3/collective-algorithm.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-stats.h"
#include "ns3/link-profile.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/topology-spec.h"
#include "ns3/workload-execution.h"
#include "ns3/workload-helper.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::aifabrictest;

namespace
{

constexpr uint64_t KiB = 1024;        //!< bytes
constexpr uint64_t MiB = 1024 * 1024; //!< bytes

/**
 * \return N "nodes" of G GPUs: each node is a switch with NVLink4-class links
 * (3600 Gb/s) to its GPUs, and one ib-ndr uplink to each of G spine switches,
 * so that the G rails' inter-node rings (one flow per GPU) fit the uplinks.
 * GPU n*G + l is local GPU l of node n.
 * \param nodes N
 * \param gpn G
 */
FabricGraph
NodesOfGpus(uint32_t nodes, uint32_t gpn)
{
    FabricGraph graph;
    const uint32_t nv = graph.AddProfile(*FindLinkProfile("nvlink4"));
    const uint32_t ib = graph.AddProfile(*FindLinkProfile("ib-ndr"));
    std::vector<uint32_t> spines;
    for (uint32_t s = 0; s < gpn; ++s)
    {
        spines.push_back(graph.AddSwitch("spine" + std::to_string(s), 2));
    }
    for (uint32_t n = 0; n < nodes; ++n)
    {
        const uint32_t leaf = graph.AddSwitch("node" + std::to_string(n), 1);
        for (uint32_t l = 0; l < gpn; ++l)
        {
            graph.AddLink(graph.AddGpu("gpu" + std::to_string(n * gpn + l)), leaf, nv);
        }
        for (const uint32_t s : spines)
        {
            graph.AddLink(leaf, s, ib);
        }
    }
    return graph;
}

/// The outcome of one simulated collective.
struct Outcome
{
    bool complete{false};         //!< every op done
    double durationS{0};          //!< last op's end
    std::vector<uint64_t> sent;   //!< bytes sent per GPU
    std::vector<int64_t> opEndPs; //!< end of every op, ps
    CollectiveCost cost;          //!< alpha-beta of the paths the group uses
};

/**
 * \brief Simulate one collective on a fabric (the way examples/ring-allreduce.cc does).
 * \param graph the fabric
 * \param g the collective
 * \param routing the switches' FabricRouting type
 * \return what happened
 */
Outcome
Simulate(const FabricGraph& graph,
         const WorkloadGroup& g,
         const std::string& routing = "ns3::EcmpRouting")
{
    Outcome o;
    FabricBuildOptions options;
    options.routing.SetRouting(routing);
    Fabric fabric = FabricBuilder::Build(graph, SpecLocation{}, options);
    Workload wl;
    const uint32_t gi = wl.AddGroup(g);
    WorkloadOp start;
    start.kind = WorkloadOp::DELAY;
    start.group = gi;
    const uint32_t s0 = wl.AddOp(start);
    CreateCollectiveAlgorithm(g.algorithm)->Build(wl, gi, {s0});
    wl.Finalize();
    WorkloadHelper workloads(&wl);
    workloads.Install(fabric.gpuNodes);
    Ptr<WorkloadExecution> runner = workloads.GetExecution();
    Simulator::Stop(Seconds(5));
    Simulator::Run();
    o.complete = runner->IsDone();
    o.sent.assign(graph.GetGpuCount(), 0);
    for (uint32_t i = 0; i < wl.GetOps().size(); ++i)
    {
        const WorkloadOp& op = wl.GetOps()[i];
        o.opEndPs.push_back(runner->GetOpEnd(i).GetPicoSeconds());
        o.durationS = std::max(o.durationS, runner->GetOpEnd(i).GetSeconds());
        if (op.kind == WorkloadOp::SEND)
        {
            o.sent[op.rank] += op.bytes;
        }
    }
    o.cost = CollectiveAlphaBeta(graph, g);
    Simulator::Destroy();
    return o;
}

/**
 * \brief Print a measured ratio (docs/collectives.md quotes these lines).
 * \param what the case
 * \param sim simulated seconds
 * \param model the model's seconds
 */
void
Report(const std::string& what, double sim, double model)
{
    std::printf("[ratio] %-58s sim %10.3f us  model %10.3f us  sim/model %.4f\n",
                what.c_str(),
                sim * 1e6,
                model * 1e6,
                sim / model);
}

/**
 * \return the relative error of ib-ndr serializations at ns-3's default nanosecond resolution
 *         (test.py in an ns-3 tree cuts each to whole nanoseconds), 0 at picoseconds
 */
double
NsSlack()
{
    const LinkProfile& ndr = *FindLinkProfile("ib-ndr");
    const double packetS = ndr.WireBytes(ndr.mtu, false) * 8.0 / ndr.rate.GetBitRate();
    return Time::GetResolution() == Time::PS ? 0 : 1e-9 / packetS;
}

/// \param p GPUs \param bytes bytes \param op the op \return a ring collective on one switch
WorkloadGroup
Ring(uint32_t p, uint64_t bytes, const std::string& op = "all-reduce")
{
    WorkloadGroup g = MakeGroup(op, "ring", p, bytes);
    g.name = "c0";
    return g;
}

} // namespace

// ======================================================== collectives against their formulas

/**
 * \ingroup ai-fabric-tests
 * \brief Ring all-reduce, one piece per step (chunk >= S/P): formula F1 within 3 %.
 * (Moved from CollectivesTest.RingUnpipelinedMatchesF1.)
 */
class RingUnpipelinedTestCase : public TestCase
{
  public:
    RingUnpipelinedTestCase()
        : TestCase("Ring all-reduce with one piece per step matches F1")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t p : {4U, 8U})
        {
            WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 8 * MiB * p);
            g.chunkBytes = g.bytes;
            const Outcome o = Simulate(SingleSwitchGraph(p), g);
            NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete, P=" << p);
            const double f1 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
            // the schedule model of one piece per step is F1 itself
            NS_TEST_EXPECT_MSG_EQ_TOL(CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE),
                                      f1,
                                      f1 * 1e-12,
                                      "schedule model = F1, P=" << p);
            Report("ring all-reduce P=" + std::to_string(p) + " 1 piece vs F1", o.durationS, f1);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, f1, 0.03 * f1, "F1, P=" << p);
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Ring all-reduce with C channels and 512 KiB / 128 KiB pieces: the pipelined
 * schedule within 3 %; the bytes do not depend on C.
 * (Moved from CollectivesTest.RingChannelsAndChunksMatchThePipelinedFormula.)
 */
class RingChannelsAndChunksTestCase : public TestCase
{
  public:
    RingChannelsAndChunksTestCase()
        : TestCase("Ring all-reduce with channels and chunks matches the pipelined schedule")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 4;
        std::vector<uint64_t> bytesC1;
        for (const uint32_t channels : {1U, 2U, 4U})
        {
            for (const uint64_t chunk : {512 * KiB, 128 * KiB})
            {
                WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 16 * MiB);
                g.channels = channels;
                g.chunkBytes = chunk;
                const Outcome o = Simulate(SingleSwitchGraph(p), g);
                NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete");
                const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
                const double f1 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
                const std::string what = "ring all-reduce P=4 16MiB C=" + std::to_string(channels)
                                         + " chunk=" + std::to_string(chunk / KiB) + "KiB";
                Report(what + " vs pipelined", o.durationS, model);
                NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, what);
                // pipelining beats step-by-step
                NS_TEST_EXPECT_MSG_LT(o.durationS, f1, what);
                if (channels == 1)
                {
                    bytesC1 = o.sent;
                }
                NS_TEST_EXPECT_MSG_EQ((o.sent == bytesC1),
                                      true,
                                      what << ": bytes " << Join(o.sent) << " vs C=1 "
                                           << Join(bytesC1));
            }
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Small steps: the alpha term is paid once per step, and pipelining cannot hide it.
 * (Moved from CollectivesTest.RingPipelineWithLatencyBoundPieces.)
 */
class RingLatencyBoundPiecesTestCase : public TestCase
{
  public:
    RingLatencyBoundPiecesTestCase()
        : TestCase("Ring all-reduce with latency-bound pieces matches the pipelined schedule")
    {
    }

  private:
    void DoRun() override
    {
        WorkloadGroup g = MakeGroup("all-reduce", "ring", 8, 8 * MiB);
        g.chunkBytes = 16 * KiB; // 1 MiB steps cut into 64 pieces: alpha-bound hops
        const Outcome o = Simulate(SingleSwitchGraph(8), g);
        NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete");
        const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
        Report("ring all-reduce P=8 8MiB chunk=16KiB vs pipelined", o.durationS, model);
        NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, "pipelined schedule");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Ring reduce-scatter, all-gather, broadcast and reduce against the pipelined model.
 * (Moved from CollectivesTest.RingReduceScatterAllGatherBroadcastReduceMatchTheirFormulas.)
 */
class RingOtherOpsTestCase : public TestCase
{
  public:
    RingOtherOpsTestCase()
        : TestCase("Ring reduce-scatter, all-gather, broadcast and reduce match their models")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 6;
        for (const std::string op : {"reduce-scatter", "all-gather", "broadcast", "reduce"})
        {
            WorkloadGroup g = MakeGroup(op, "ring", p, 24 * MiB);
            g.root = 1;
            g.channels = 2;
            const Outcome o = Simulate(SingleSwitchGraph(p), g);
            NS_TEST_ASSERT_MSG_EQ(o.complete, true, op);
            const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
            Report("ring " + op + " P=6 24MiB C=2 vs pipelined", o.durationS, model);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, op);
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Double binary tree: the pipelined model within 3 %; F3 (binary tree, whole
 * messages) is far slower than NCCL's pipelined double tree for large messages.
 * (Moved from CollectivesTest.TreeAllReduceMatchesThePipelinedModel.)
 */
class TreePipelinedTestCase : public TestCase
{
  public:
    TreePipelinedTestCase()
        : TestCase("Tree all-reduce, broadcast and reduce match the pipelined model")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t p : {4U, 7U, 8U, 16U})
        {
            WorkloadGroup g = MakeGroup("all-reduce", "tree", p, 32 * MiB);
            g.chunkBytes = 128 * KiB;
            const Outcome o = Simulate(SingleSwitchGraph(p), g);
            NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete, P=" << p);
            const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
            const double f3 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
            Report("tree all-reduce P=" + std::to_string(p) + " 32MiB chunk=128KiB vs pipelined",
                   o.durationS,
                   model);
            Report("tree all-reduce P=" + std::to_string(p) + " 32MiB chunk=128KiB vs F3",
                   o.durationS,
                   f3);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, "P=" << p);
        }
        for (const std::string op : {"broadcast", "reduce"})
        {
            WorkloadGroup g = MakeGroup(op, "tree", 8, 16 * MiB);
            g.chunkBytes = 128 * KiB;
            g.root = 5;
            const Outcome o = Simulate(SingleSwitchGraph(8), g);
            NS_TEST_ASSERT_MSG_EQ(o.complete, true, op);
            const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
            Report("tree " + op + " P=8 16MiB chunk=128KiB vs pipelined", o.durationS, model);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, op);
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The binomial tree reproduces F3 (whole messages, one per round and rank).
 * (Moved from CollectivesTest.BinomialMatchesF3.)
 */
class BinomialF3TestCase : public TestCase
{
  public:
    BinomialF3TestCase()
        : TestCase("Binomial all-reduce matches F3")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t p : {4U, 6U, 8U})
        {
            WorkloadGroup g = MakeGroup("all-reduce", "binomial", p, 8 * MiB);
            const Outcome o = Simulate(SingleSwitchGraph(p), g);
            NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete, P=" << p);
            const double f3 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
            Report("binomial all-reduce P=" + std::to_string(p) + " 8MiB vs F3", o.durationS, f3);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, f3, 0.03 * f3, "F3, P=" << p);
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Halving-doubling all-reduce, reduce-scatter and all-gather match F4, with the
 * bytes per rank of their phases. (Moved from CollectivesTest.HalvingDoublingMatchesF4.)
 */
class HalvingDoublingF4TestCase : public TestCase
{
  public:
    HalvingDoublingF4TestCase()
        : TestCase("Halving-doubling matches F4")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t p : {4U, 8U})
        {
            for (const std::string op : {"all-reduce", "reduce-scatter", "all-gather"})
            {
                WorkloadGroup g = MakeGroup(op, "halving-doubling", p, 64 * MiB);
                const Outcome o = Simulate(SingleSwitchGraph(p), g);
                NS_TEST_ASSERT_MSG_EQ(o.complete, true, op << " P=" << p);
                const double f4 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
                Report("halving-doubling " + op + " P=" + std::to_string(p) + " 64MiB vs F4",
                       o.durationS,
                       f4);
                NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, f4, 0.03 * f4, op << " P=" << p);
                for (uint32_t r = 0; r < p; ++r)
                {
                    NS_TEST_EXPECT_MSG_EQ(o.sent[r],
                                          (op == "all-reduce" ? 2 : 1) * (p - 1) * g.bytes / p,
                                          op << " P=" << p << " rank " << r);
                }
            }
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Naive all-reduce matches F5. (Moved from CollectivesTest.NaiveMatchesF5.)
 */
class NaiveF5TestCase : public TestCase
{
  public:
    NaiveF5TestCase()
        : TestCase("Naive all-reduce matches F5")
    {
    }

  private:
    void DoRun() override
    {
        WorkloadGroup g = MakeGroup("all-reduce", "naive", 4, 8 * MiB);
        const Outcome o = Simulate(SingleSwitchGraph(4), g);
        NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete");
        const double f5 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
        Report("naive all-reduce P=4 8MiB vs F5", o.durationS, f5);
        NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, f5, 0.03 * f5, "F5");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Direct all-to-all matches F6 and the concurrent model; a skewed matrix's busiest
 * port sets its time. (Moved from CollectivesTest.DirectAllToAllMatchesF6.)
 */
class DirectAllToAllF6TestCase : public TestCase
{
  public:
    DirectAllToAllF6TestCase()
        : TestCase("Direct all-to-all matches F6 and the busiest port")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t p : {4U, 8U})
        {
            WorkloadGroup g = MakeGroup("all-to-all", "direct", p, 16 * MiB);
            const Outcome o = Simulate(SingleSwitchGraph(p), g);
            NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete, P=" << p);
            const double f6 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
            const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
            Report("direct all-to-all P=" + std::to_string(p) + " 16MiB vs F6", o.durationS, f6);
            Report("direct all-to-all P=" + std::to_string(p) + " 16MiB vs concurrent",
                   o.durationS,
                   model);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, f6, 0.03 * f6, "F6, P=" << p);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, "concurrent, P=" << p);
        }
        // A skewed matrix: rank 0 receives 3 x 4 MiB, the busiest port sets the time.
        WorkloadGroup g = MakeGroup("all-to-all", "direct", 4, 0);
        g.matrix.assign(16, MiB);
        for (uint32_t i = 1; i < 4; ++i)
        {
            g.matrix[i * 4] = 4 * MiB;
        }
        const Outcome o = Simulate(SingleSwitchGraph(4), g);
        NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete, matrix");
        const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
        Report("direct all-to-all P=4 matrix (hot receiver) vs max port load", o.durationS, model);
        NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, "max port load");
        NS_TEST_EXPECT_MSG_EQ(o.sent[1], 6 * MiB, "rank 1's row");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Direct send-recv into one rank, broadcast and reduce match their models.
 * (Moved from CollectivesTest.DirectSendRecvBroadcastReduce.)
 */
class DirectSendRecvBroadcastReduceTestCase : public TestCase
{
  public:
    DirectSendRecvBroadcastReduceTestCase()
        : TestCase("Direct send-recv, broadcast and reduce match their models")
    {
    }

  private:
    void DoRun() override
    {
        WorkloadGroup g = MakeGroup("send-recv", "direct", 4, 0);
        g.transfers = {{0, 1, 8 * MiB}, {2, 1, 8 * MiB}, {3, 0, MiB}}; // rank 1 receives 16 MiB
        Outcome o = Simulate(SingleSwitchGraph(4), g);
        NS_TEST_ASSERT_MSG_EQ(o.complete, true, "send-recv complete");
        double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
        Report("direct send-recv 2 x 8MiB into one rank vs alpha + 16MiB beta", o.durationS, model);
        NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, "send-recv");
        for (const std::string op : {"broadcast", "reduce"})
        {
            WorkloadGroup b = MakeGroup(op, "direct", 4, 8 * MiB);
            b.root = 2;
            o = Simulate(SingleSwitchGraph(4), b);
            NS_TEST_ASSERT_MSG_EQ(o.complete, true, op);
            model = CollectiveTime(b, o.cost, CollectiveModel::SCHEDULE);
            Report("direct " + op + " P=4 8MiB vs alpha + (P-1) n beta", o.durationS, model);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, op);
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Hierarchical all-reduce on N "nodes" (a switch with 3600 Gb/s NVLink-class
 * links to G GPUs) joined by ib-ndr uplinks to G spines, adaptive forwarding:
 * F7 with the intra and inter alpha-beta (one piece per ring step), and the
 * pipelined model with 512 KiB chunks; both within 3 %. (Not a rail-optimized
 * cluster: a node's GPUs share its G uplinks, so a flat ring's few node-crossing
 * flows could use all of them; comparing flat and hierarchical (MISSION.md C6)
 * needs one NIC per GPU.) (Moved from CollectivesTest.HierarchicalMatchesF7.)
 */
class HierarchicalF7TestCase : public TestCase
{
  public:
    HierarchicalF7TestCase()
        : TestCase("Hierarchical all-reduce matches F7 and the pipelined model")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile& nvlink = *FindLinkProfile("nvlink4");
        const double nvlinkPacketS
            = nvlink.WireBytes(nvlink.mtu, false) * 8.0 / nvlink.rate.GetBitRate();
        for (const uint32_t nodes : {2U, 4U})
        {
            const uint32_t gpn = 4;
            for (const uint64_t chunk : {uint64_t{1} << 40, 512 * KiB})
            {
                WorkloadGroup g = MakeGroup("all-reduce", "hierarchical", nodes * gpn, 64 * MiB);
                g.ranksPerNode = gpn;
                g.chunkBytes = chunk;
                const Outcome o = Simulate(NodesOfGpus(nodes, gpn), g, "ns3::AdaptiveRouting");
                NS_TEST_ASSERT_MSG_EQ(o.complete, true, "complete, " << nodes << " nodes");
                NS_TEST_EXPECT_MSG_LT(o.cost.intra.betaSPerByte * 5,
                                      o.cost.inter.betaSPerByte,
                                      "NVLink is the faster class");
                const bool whole = chunk > g.bytes;
                const double model
                    = CollectiveTime(g,
                                     o.cost,
                                     whole ? CollectiveModel::FORMULA : CollectiveModel::SCHEDULE);
                Report("hierarchical " + std::to_string(nodes) + "x4 64MiB "
                           + (whole ? "1 piece vs F7" : "chunk=512KiB vs pipelined"),
                       o.durationS,
                       model);
                // Within 3 %. At ns-3's default nanosecond resolution (test.py in an ns-3
                // tree) every serialization is cut to whole nanoseconds, up to 1 ns of an
                // NVLink packet's 10.8 ns.
                const double slack = Time::GetResolution() == Time::PS ? 0 : 1e-9 / nvlinkPacketS;
                NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS,
                                          model,
                                          (0.03 + slack) * model,
                                          nodes << " nodes, " << (whole ? "F7" : "pipelined"));
            }
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Gamma adds the reductions on the critical path: (P-1)/P S gamma for an
 * unpipelined ring all-reduce and for halving-doubling.
 * (Moved from CollectivesTest.GammaAddsTheExpectedTime.)
 */
class GammaTimeTestCase : public TestCase
{
  public:
    GammaTimeTestCase()
        : TestCase("The reduction cost gamma adds the expected time")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 4;
        const double gamma = 5e-12; // 200 GB/s
        for (const std::string algo : {"ring", "halving-doubling"})
        {
            WorkloadGroup g = MakeGroup("all-reduce", algo, p, 32 * MiB);
            g.chunkBytes = g.bytes;
            const Outcome o0 = Simulate(SingleSwitchGraph(p), g);
            g.gammaSecondsPerByte = gamma;
            const Outcome o1 = Simulate(SingleSwitchGraph(p), g);
            NS_TEST_ASSERT_MSG_EQ((o0.complete && o1.complete), true, algo);
            const double added = (p - 1.0) / p * g.bytes * gamma;
            Report(algo + " all-reduce P=4 32MiB: time added by gamma",
                   o1.durationS - o0.durationS,
                   added);
            NS_TEST_EXPECT_MSG_EQ_TOL(o1.durationS - o0.durationS,
                                      added,
                                      0.03 * added,
                                      algo << ": time added");
            const double model = CollectiveTime(g, o1.cost, CollectiveModel::SCHEDULE);
            NS_TEST_EXPECT_MSG_EQ_TOL(o1.durationS, model, 0.03 * model, algo << ": model");
        }
        // Pipelined ring: the reductions hide behind the transfers except on the last pieces.
        WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 32 * MiB);
        g.gammaSecondsPerByte = gamma;
        const Outcome o = Simulate(SingleSwitchGraph(p), g);
        const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
        Report("ring all-reduce P=4 32MiB gamma=5ps/B chunk=512KiB vs pipelined",
               o.durationS,
               model);
        NS_TEST_EXPECT_MSG_EQ_TOL(o.durationS, model, 0.03 * model, "pipelined ring with gamma");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The same collective twice gives the same end time for every op.
 * (Moved from CollectivesTest.SameInputGivesIdenticalTimes.)
 */
class SameInputSameTimesTestCase : public TestCase
{
  public:
    SameInputSameTimesTestCase()
        : TestCase("The same collective twice gives identical op times")
    {
    }

  private:
    void DoRun() override
    {
        WorkloadGroup g = MakeGroup("all-reduce", "tree", 6, 4 * MiB);
        g.channels = 2;
        g.chunkBytes = 256 * KiB;
        g.gammaSecondsPerByte = 1e-12;
        const Outcome a = Simulate(SingleSwitchGraph(6), g);
        const Outcome b = Simulate(SingleSwitchGraph(6), g);
        NS_TEST_ASSERT_MSG_EQ(a.complete, true, "complete");
        NS_TEST_EXPECT_MSG_EQ((a.opEndPs == b.opEndPs), true, "op end times");
    }
};

// ======================================================================= ring collectives

/**
 * \ingroup ai-fabric-tests
 * \brief Ring all-reduce on P GPUs: exact bytes and F1 within 2 %, P = 2, 4, 8; one flow per
 * 512 KiB piece; busbw near the link goodput.
 * (Moved from RingCollectiveTest.AllReduceMatchesFormulaF1.)
 */
class RingAllReduceF1TestCase : public TestCase
{
  public:
    RingAllReduceF1TestCase()
        : TestCase("Ring all-reduce sends exact bytes and matches F1 and the link goodput")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t p : {2U, 4U, 8U})
        {
            // n/P from 1 MiB to 8 MiB per step: far above the crossover alpha/beta (~22 kB).
            for (const uint64_t perStep : {uint64_t{1} << 20, uint64_t{8} << 20})
            {
                const uint64_t n = perStep * p;
                const RunResults r = RunCollectives(SingleSwitchGraph(p), {Ring(p, n)});
                NS_TEST_ASSERT_MSG_EQ(r.complete, true, "P=" << p << " n=" << n);
                NS_TEST_ASSERT_MSG_EQ(r.collectives.size(), 1U, "one collective");
                const CollectiveResult& c = r.collectives[0];
                for (const uint64_t b : c.bytesSentPerRank)
                {
                    NS_TEST_EXPECT_MSG_EQ(b, 2 * (p - 1) * n / p, "P=" << p << " n=" << n);
                }
                // F1: T = 2(P-1) alpha + 2 (P-1)/P n beta
                const double f1 = 2.0 * (p - 1) * c.alphaS + 2.0 * (p - 1) / p * n * c.betaSPerByte;
                NS_TEST_EXPECT_MSG_EQ_TOL(c.analyticS, f1, f1 * 1e-12, "the analytic figure");
                // Within 2 % (at ns-3's default nanosecond resolution, test.py in an ns-3 tree,
                // every serialization is cut to whole nanoseconds, up to 1 ns of 82.4 ns).
                NS_TEST_EXPECT_MSG_EQ_TOL(c.durationS,
                                          f1,
                                          f1 * (0.02 + NsSlack()),
                                          "P=" << p << " n=" << n);
                // NCCL pipelining: every step's message is cut into 512 KiB chunks.
                const uint64_t pieces = (perStep + (512 << 10) - 1) / (512 << 10);
                NS_TEST_EXPECT_MSG_EQ(r.flows.size(),
                                      2U * (p - 1) * p * pieces,
                                      "flows, P=" << p << " n=" << n);
                // busbw = algbw * 2(P-1)/P approaches the link goodput (50 GB/s * 4096/4122).
                NS_TEST_EXPECT_MSG_EQ_TOL(c.busbwGBps,
                                          50.0 * 4096 / 4122,
                                          50.0 * 0.05,
                                          "busbw, P=" << p << " n=" << n);
            }
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Ring reduce-scatter and all-gather: exact bytes and F2 within 2 %.
 * (Moved from RingCollectiveTest.ReduceScatterAndAllGatherMatchFormulaF2.)
 */
class RingF2TestCase : public TestCase
{
  public:
    RingF2TestCase()
        : TestCase("Ring reduce-scatter and all-gather send exact bytes and match F2")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string op : {"reduce-scatter", "all-gather"})
        {
            const uint32_t p = 4;
            const uint64_t n = uint64_t{16} << 20;
            const RunResults r = RunCollectives(SingleSwitchGraph(p), {Ring(p, n, op)});
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, op);
            const CollectiveResult& c = r.collectives[0];
            for (const uint64_t b : c.bytesSentPerRank)
            {
                NS_TEST_EXPECT_MSG_EQ(b, (p - 1) * n / p, op);
            }
            const double f2 = (p - 1) * c.alphaS + (p - 1.0) / p * n * c.betaSPerByte;
            NS_TEST_EXPECT_MSG_EQ_TOL(c.durationS, f2, f2 * 0.02, op);
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Below the crossover the alpha term dominates, and the simulation (which
 * pipelines a short packet) is faster than the whole-packet alpha but not by more than
 * the fill term. (Moved from RingCollectiveTest.SmallMessagesAreLatencyBound.)
 */
class RingSmallMessagesTestCase : public TestCase
{
  public:
    RingSmallMessagesTestCase()
        : TestCase("Small ring all-reduces are latency bound")
    {
    }

  private:
    void DoRun() override
    {
        // 8 ranks, 8 KiB buffer (1 KiB per step).
        const RunResults r = RunCollectives(SingleSwitchGraph(8), {Ring(8, 8192)});
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "complete");
        const CollectiveResult& c = r.collectives[0];
        const double alphaPart = 2.0 * 7 * c.alphaS;
        NS_TEST_EXPECT_MSG_GT(alphaPart, 0.5 * c.analyticS, "alpha dominates");
        NS_TEST_EXPECT_MSG_LT(c.durationS, c.analyticS * 1.001, "at most the formula");
        NS_TEST_EXPECT_MSG_GT(c.durationS, c.analyticS * 0.5, "not far below it");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The same run twice gives identical results: events, packet hops, every flow's
 * times, the collective's figures, every port's counters.
 * (Moved from RingCollectiveTest.SameSeedGivesIdenticalResults, which compared the
 * summary JSON and flows.csv of the tool's writers; the tool's outputs are compared by
 * tests/cli-test.cc, Cli.SameScenarioTwiceGivesIdenticalResults.)
 */
class RingSameSeedTestCase : public TestCase
{
  public:
    RingSameSeedTestCase()
        : TestCase("The same seed gives identical results")
    {
    }

  private:
    void DoRun() override
    {
        const RunResults a = RunCollectives(SingleSwitchGraph(4), {Ring(4, 4 << 20)});
        const RunResults b = RunCollectives(SingleSwitchGraph(4), {Ring(4, 4 << 20)});
        NS_TEST_EXPECT_MSG_GT(a.events, 0U, "events are counted");
        NS_TEST_EXPECT_MSG_EQ(a.events, b.events, "events");
        NS_TEST_EXPECT_MSG_EQ(a.packetHops, b.packetHops, "packet hops");
        NS_TEST_EXPECT_MSG_EQ(a.simTimeS, b.simTimeS, "simulated time");
        NS_TEST_ASSERT_MSG_EQ(a.flows.size(), b.flows.size(), "flows");
        for (std::size_t i = 0; i < a.flows.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(a.flows[i].postedS, b.flows[i].postedS, "flow " << i);
            NS_TEST_EXPECT_MSG_EQ(a.flows[i].endS, b.flows[i].endS, "flow " << i);
            NS_TEST_EXPECT_MSG_EQ(a.flows[i].src, b.flows[i].src, "flow " << i);
            NS_TEST_EXPECT_MSG_EQ(a.flows[i].dst, b.flows[i].dst, "flow " << i);
            NS_TEST_EXPECT_MSG_EQ(a.flows[i].bytes, b.flows[i].bytes, "flow " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(a.collectives.size(), 1U, "one collective");
        NS_TEST_EXPECT_MSG_EQ(a.collectives[0].durationS, b.collectives[0].durationS, "duration");
        NS_TEST_EXPECT_MSG_EQ(a.collectives[0].busbwGBps, b.collectives[0].busbwGBps, "busbw");
        NS_TEST_ASSERT_MSG_EQ(a.ports.size(), b.ports.size(), "ports");
        for (std::size_t i = 0; i < a.ports.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(a.ports[i].txBytes, b.ports[i].txBytes, "port " << i);
            NS_TEST_EXPECT_MSG_EQ(a.ports[i].busyS, b.ports[i].busyS, "port " << i);
            NS_TEST_EXPECT_MSG_EQ(a.ports[i].peakQueueBytes, b.ports[i].peakQueueBytes, i);
        }
    }
};

// =========================================================================== permutation

namespace
{

/// (src, dst) of every flow, in flow order. \param r a run \return the pairs
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

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief A permutation runs deterministically, follows the seed, sends one transfer per
 * rank, and on a non-blocking switch takes alpha + S beta.
 * (Moved from Permutation.RunsDeterministicallyAndFollowsTheSeed.)
 */
class PermutationSeedTestCase : public TestCase
{
  public:
    PermutationSeedTestCase()
        : TestCase("A permutation is deterministic, follows the seed and runs at line rate")
    {
    }

  private:
    /// \param seed the seed \return a permutation of 256 KiB per rank on 16 GPUs
    static RunResults Run(uint64_t seed)
    {
        RunSetup setup;
        setup.seed = seed;
        WorkloadGroup g = MakeGroup("permutation", "direct", 16, 256 * 1024);
        g.name = "c0";
        return RunCollectives(SingleSwitchGraph(16), {g}, setup);
    }

    void DoRun() override
    {
        const RunResults a = Run(1);
        const RunResults b = Run(1);
        const RunResults c = Run(2);
        NS_TEST_ASSERT_MSG_EQ(a.complete, true, "complete");
        NS_TEST_ASSERT_MSG_EQ(a.flows.size(), 16U, "one flow per rank");
        NS_TEST_EXPECT_MSG_EQ((Pairs(a) == Pairs(b)), true, "the same seed, the same pairs");
        NS_TEST_EXPECT_MSG_EQ(a.collectives[0].durationS, b.collectives[0].durationS, "duration");
        NS_TEST_EXPECT_MSG_EQ((Pairs(a) != Pairs(c)),
                              true,
                              "another seed draws another permutation");
        std::set<uint32_t> srcs;
        std::set<uint32_t> dsts;
        for (const FlowRecord& f : a.flows)
        {
            NS_TEST_EXPECT_MSG_NE(f.src, f.dst, "no rank sends to itself");
            NS_TEST_EXPECT_MSG_EQ(f.bytes, 256U * 1024, "bytes");
            srcs.insert(f.src);
            dsts.insert(f.dst);
        }
        NS_TEST_EXPECT_MSG_EQ(srcs.size(), 16U, "every rank sends");
        NS_TEST_EXPECT_MSG_EQ(dsts.size(), 16U, "every rank receives");

        // One switch is non-blocking: every pair runs at the link rate, so the run
        // takes alpha + S beta (busbw factor 1: busbw = algbw).
        const CollectiveResult& r = a.collectives[0];
        NS_TEST_EXPECT_MSG_EQ(r.op, "permutation", "op");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.busbwGBps, r.algbwGBps, 1e-12, "busbw = algbw");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.durationS / r.analyticS, 1.0, 0.02, "alpha + S beta");
    }
};

// ======================================================================== ideal FCT

namespace
{

/// \param profile the links' profile \param gpus GPUs \return a single-switch topology
TopologySpec
SingleSwitchTopology(const std::string& profile, uint32_t gpus)
{
    TopologySpec t = KindSpec("single-switch", profile);
    t.gpus = gpus;
    return t;
}

/// \param profile the links' profile \return 2 leaves of 2 GPUs, 2 spines
TopologySpec
LeafSpineTopology(const std::string& profile)
{
    TopologySpec t = KindSpec("leaf-spine", profile);
    t.As<LeafSpineSpec>().leaves = 2;
    t.As<LeafSpineSpec>().gpusPerLeaf = 2;
    t.As<LeafSpineSpec>().spines = 2;
    return t;
}

/// \return one 8-GPU NVLink domain (nvlink4, one NVSwitch)
TopologySpec
NvlinkDomainTopology()
{
    TopologySpec t = KindSpec("nvlink-domain");
    t.name = "nvlink";
    t.gpus = 8;
    t.gpusPerServer = 8;
    t.nvlinkSwitches = 1;
    t.nvlinkProfile = *FindLinkProfile("nvlink4");
    return t;
}

/// \param src sender \param dst receiver \param bytes size \return one send-recv message
WorkloadGroup
OneMessage(uint32_t src, uint32_t dst, uint64_t bytes)
{
    WorkloadGroup g = MakeGroup("send-recv", "direct", 2, bytes);
    g.name = "msg";
    g.ranks = {src, dst};
    g.transfers = {WorkloadTransfer{0, 1, bytes}};
    return g;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief A GPU sends over all its NVLinks, one to each NVSwitch chip, packet by packet (as
 * NVLink does): a ring all-reduce on 8 GPUs reaches the same busbw with 4 chips (DGX H100)
 * and 18 chips (as many as NVL72 has) as with one chip, within 0.5 %; every NVLink of a GPU
 * carries its share of the bytes (within 5 % of the mean); and the analytic column, which
 * prices the GPU's NVLink bandwidth (not one chip's link), agrees within 3 %. With go-back-N
 * (which takes packets in PSN order only) a queue pair stays on one link.
 */
class NvlinkChipsTestCase : public TestCase
{
  public:
    NvlinkChipsTestCase()
        : TestCase("A GPU stripes over every NVSwitch chip: 1, 4 and 18 chips give one busbw")
    {
    }

  private:
    void DoRun() override
    {
        double oneChip = 0;
        for (const uint32_t chips : {1U, 4U, 18U})
        {
            TopologySpec t = NvlinkDomainTopology();
            t.nvlinkSwitches = chips;
            const FabricGraph graph = BuildFabricGraph(t);
            RunSetup setup;
            setup.stopTime = Seconds(1);
            setup.topology = &t;
            const RunResults r = RunCollectives(graph, {Ring(8, 32 << 20)}, setup);
            const std::string what = std::to_string(chips) + " chips";
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, what);
            NS_TEST_ASSERT_MSG_EQ(r.collectives.size(), 1U, what);
            const CollectiveResult& c = r.collectives[0];
            if (chips == 1)
            {
                oneChip = c.busbwGBps;
            }
            // Picoseconds (CTest's runner) time the one 3600 Gb/s link of a single chip
            // exactly; at ns-3's default nanoseconds (test.py) its 10.8 ns packets are cut to
            // whole nanoseconds and the single-chip run comes out about 8 % fast, so there only
            // the striped runs are held to the analytic time.
            const bool exact = Time::GetResolution() == Time::PS;
            if (exact)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(c.busbwGBps, oneChip, 0.005 * oneChip, what);
            }
            if (exact || chips > 1)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(c.durationS, c.analyticS, 0.03 * c.analyticS, what);
            }
            // Bytes each GPU put on each of its NVLinks (the GPU -> chip direction).
            const auto& links = graph.GetLinks();
            for (uint32_t gpu = 0; gpu < 8; ++gpu)
            {
                std::vector<double> sent;
                const uint32_t node = graph.GetGpuNode(gpu);
                for (const auto& adj : graph.GetAdjacency(node))
                {
                    const bool aToB = links[adj.link].a == node;
                    sent.push_back(
                        static_cast<double>(r.ports[2 * adj.link + (aToB ? 0 : 1)].txBytes));
                }
                NS_TEST_ASSERT_MSG_EQ(sent.size(), chips, what);
                const double mean = std::accumulate(sent.begin(), sent.end(), 0.0) / chips;
                for (const double b : sent)
                {
                    NS_TEST_EXPECT_MSG_EQ_TOL(b, mean, 0.05 * mean, what << ", GPU " << gpu);
                }
            }
        }

        // Go-back-N takes packets in PSN order only: its queue pairs do not stripe, so a
        // single message leaves its GPU on one of the 4 links (and is not retransmitted).
        TopologySpec t = NvlinkDomainTopology();
        t.nvlinkSwitches = 4;
        const FabricGraph graph = BuildFabricGraph(t);
        for (const ReliabilitySetting rel :
             {ReliabilitySetting::NONE, ReliabilitySetting::GO_BACK_N})
        {
            RunSetup setup;
            setup.stopTime = Seconds(1);
            setup.topology = &t;
            setup.build.reliability = rel;
            const RunResults r = RunCollectives(graph, {OneMessage(0, 1, 4 << 20)}, setup);
            const bool gbn = rel == ReliabilitySetting::GO_BACK_N;
            const std::string what = gbn ? "go-back-n" : "none";
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, what);
            uint32_t used = 0;
            const uint32_t node = graph.GetGpuNode(0);
            for (const auto& adj : graph.GetAdjacency(node))
            {
                const bool aToB = graph.GetLinks()[adj.link].a == node;
                used += r.ports[2 * adj.link + (aToB ? 0 : 1)].txBytes > (1 << 20) ? 1 : 0;
            }
            const uint32_t expected = gbn ? 1U : 4U;
            NS_TEST_EXPECT_MSG_EQ(used, expected, what << ": GPU 0's links carrying the data");
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief NCCL's channels over NICs: a default ring all-reduce (channels: auto, ring_order:
 * topology) on 2 rail-optimized servers x 8 GPUs of NDR puts equal bytes on every NIC of a
 * server (within 2 %), keeps the traffic between servers on its rail (no byte crosses a
 * spine) and reaches 8 NICs' goodput less the pipeline's fill (busbw within 12 % below 8 x
 * NDR goodput, never above); the ranks' flat order on every channel funnels a server's
 * traffic through one NIC pair and reaches at most one NIC's goodput.
 */
class NcclChannelsOverNicsTestCase : public TestCase
{
  public:
    NcclChannelsOverNicsTestCase()
        : TestCase("A default multi-server ring spreads its channels over every NIC, on rail")
    {
    }

  private:
    void DoRun() override
    {
        TopologySpec t = KindSpec("rail-optimized", "ib-ndr");
        t.gpusPerServer = 8;
        t.As<RailOptimizedSpec>().serversPerSu = 2;
        t.As<RailOptimizedSpec>().sus = 1;
        t.As<RailOptimizedSpec>().radix = 64;
        t.hasNvlink = true;
        t.nvlinkProfile = *FindLinkProfile("nvlink4");
        const FabricGraph graph = BuildFabricGraph(t);
        const double nicGBps = FindLinkProfile("ib-ndr")->GoodputBps() / 8e9;
        double topologyBusbw = 0;
        for (const RingOrder order : {RingOrder::TOPOLOGY, RingOrder::RANKS})
        {
            const bool topology = order == RingOrder::TOPOLOGY;
            const std::string what = topology ? "topology order" : "ranks order";
            WorkloadGroup g = Ring(16, 64 << 20);
            g.chunkBytes = WorkloadGroup::NCCL_CHUNK_BYTES;
            g.channels = WorkloadGroup::AUTO_CHANNELS;
            g.ringOrder = order;
            PlanChannels(g, graph.GetEndpointPlaces());
            NS_TEST_ASSERT_MSG_EQ(g.channels, 16U, what << ": NCCL's 16 channels");
            RunSetup setup;
            setup.stopTime = Seconds(1);
            setup.topology = &t;
            const RunResults r = RunCollectives(graph, {g}, setup);
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, what);
            const double busbw = r.collectives[0].busbwGBps;
            // Bytes each GPU's NIC link carried out of its server, and bytes into spines.
            const auto& links = graph.GetLinks();
            const auto& nodes = graph.GetNodes();
            std::vector<double> nic;
            double spineBytes = 0;
            for (uint32_t l = 0; l < links.size(); ++l)
            {
                const auto& a = nodes[links[l].a];
                const auto& b = nodes[links[l].b];
                if (links[l].kind != FabricGraph::LinkKind::FABRIC)
                {
                    continue;
                }
                if (a.kind == FabricGraph::NodeKind::GPU || b.kind == FabricGraph::NodeKind::GPU)
                {
                    const bool aIsGpu = a.kind == FabricGraph::NodeKind::GPU;
                    nic.push_back(static_cast<double>(r.ports[2 * l + (aIsGpu ? 0 : 1)].txBytes));
                }
                else
                {
                    spineBytes
                        += static_cast<double>(r.ports[2 * l].txBytes + r.ports[2 * l + 1].txBytes);
                }
            }
            NS_TEST_ASSERT_MSG_EQ(nic.size(), 16U, what << ": one NIC per GPU");
            if (topology)
            {
                topologyBusbw = busbw;
                const double mean = std::accumulate(nic.begin(), nic.end(), 0.0) / nic.size();
                for (const double b : nic)
                {
                    NS_TEST_EXPECT_MSG_EQ_TOL(b, mean, 0.02 * mean, what << ": NIC bytes");
                }
                NS_TEST_EXPECT_MSG_EQ(spineBytes, 0.0, what << ": traffic stays on its rail");
                // Within 1 % of eight NICs' goodput: the packets' paths (ECMP salt, NVSwitch
                // striping) follow the process-wide random stream numbering, which depends on
                // the test cases run before; measured 396.9 GB/s with every fullness (ctest)
                // and 399.1 GB/s with test.py's QUICK cases in the ns-3 tree, 0.4 % above the
                // single-message goodput bound (why it can exceed it is not yet explained).
                NS_TEST_EXPECT_MSG_LT_OR_EQ(busbw, 8 * nicGBps * 1.01, what);
                NS_TEST_EXPECT_MSG_GT(busbw, 0.88 * 8 * nicGBps, what);
            }
            else
            {
                // One NIC's goodput, within 1 % (49.66 and 49.93 GB/s, as above).
                NS_TEST_EXPECT_MSG_LT_OR_EQ(busbw, nicGBps * 1.01, what);
                NS_TEST_EXPECT_MSG_GT(topologyBusbw, 4 * busbw, what);
            }
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A message alone on the fabric takes its ideal time (MessageIdealTimes) on IB, RoCE,
 * PCIe host links and NVLink paths, within 0.01 %: slowdown 1.
 * (Moved from IdealFct.IsolatedMessageTakesItsIdealTimeOnIbRoceAndNvlinkPaths.)
 */
class IdealFctTestCase : public TestCase
{
  public:
    IdealFctTestCase()
        : TestCase("An isolated message takes its ideal time on IB, RoCE, PCIe and NVLink paths")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            std::string what;  //!< the path
            TopologySpec topo; //!< the fabric
            uint32_t dst;      //!< the receiver (GPU 0 sends)
        };

        TopologySpec host = SingleSwitchTopology("ib-ndr", 2);
        host.hostLink = LinkProfile{};
        host.hostLink = *FindLinkProfile("pcie-gen5");
        const std::vector<Case> cases = {
            {"ib-ndr single switch", SingleSwitchTopology("ib-ndr", 2), 1},
            {"ib-ndr with PCIe host links", host, 1},
            {"roce-400g leaf-spine, across the spine", LeafSpineTopology("roce-400g"), 3},
            {"ib-ndr leaf-spine, across the spine", LeafSpineTopology("ib-ndr"), 3},
            {"nvlink4 domain", NvlinkDomainTopology(), 5},
        };
        for (const Case& c : cases)
        {
            const FabricGraph graph = BuildFabricGraph(c.topo);
            for (const uint64_t bytes : {100ULL, 4096ULL, 4097ULL, 1000000ULL, 8388608ULL})
            {
                RunSetup setup;
                setup.stopTime = Seconds(1);
                setup.topology = &c.topo;
                const RunResults r = RunCollectives(graph, {OneMessage(0, c.dst, bytes)}, setup);
                NS_TEST_ASSERT_MSG_EQ(r.complete, true, c.what);
                NS_TEST_ASSERT_MSG_EQ(r.flows.size(), 1U, c.what);
                const FlowRecord& f = r.flows[0];
                NS_TEST_EXPECT_MSG_GT(f.idealS, 0, c.what);
                // within 0.01 % (and 10 ps): the engine serializes in whole picoseconds. At
                // ns-3's default nanosecond resolution (test.py in an ns-3 tree) every
                // packet's serialization on every hop rounds to a nanosecond.
                const double packets = std::ceil(bytes / 256.0) + 1;
                const double slack = Time::GetResolution() == Time::PS ? 0 : 4 * packets * 1e-9;
                const double tol = std::max(10e-12, 1e-4 * f.idealS) + slack;
                NS_TEST_EXPECT_MSG_EQ_TOL(f.FctS(), f.idealS, tol, c.what << ", " << bytes << " B");
                NS_TEST_EXPECT_MSG_EQ_TOL(f.Slowdown(),
                                          1.0,
                                          1e-4 + slack / f.idealS,
                                          c.what << ", " << bytes << " B");
                NS_TEST_EXPECT_MSG_EQ_TOL(r.slowdown.max, f.Slowdown(), 1e-12, c.what);
                std::printf("%-40s %8llu B: fct %.3f ns ideal %.3f ns slowdown %.6f\n",
                            c.what.c_str(),
                            static_cast<unsigned long long>(bytes),
                            f.FctS() * 1e9,
                            f.idealS * 1e9,
                            f.Slowdown());
            }
        }
    }
};

// ====================================================================== bisection meter

namespace
{

/// \param spines spines (one link each: 3 = 1:1, 1 = 3:1) \return 4 leaves of 3 GPUs
TopologySpec
LeafSpine12(uint32_t spines)
{
    TopologySpec t = KindSpec("leaf-spine");
    t.As<LeafSpineSpec>().leaves = 4;
    t.As<LeafSpineSpec>().gpusPerLeaf = 3;
    t.As<LeafSpineSpec>().spines = spines;
    return t;
}

/**
 * \param topo the fabric
 * \param op all-to-all or permutation
 * \param bytes bytes per rank
 * \return the run of one direct \p op named "a2a" over every GPU
 */
RunResults
RunAcross(const TopologySpec& topo, const std::string& op, uint64_t bytes)
{
    RunSetup setup;
    setup.topology = &topo;
    WorkloadGroup g = MakeGroup(op, "direct", 0, bytes);
    g.name = "a2a"; // no ranks: every GPU
    return RunCollectives(BuildFabricGraph(topo), {g}, setup);
}

/// \return a flow of \p bytes from \p src to \p dst, from \p startS to \p endS
FlowRecord
Flow(uint32_t src, uint32_t dst, uint64_t bytes, double startS, double endS)
{
    FlowRecord f;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.postedS = startS;
    f.endS = endS;
    return f;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief MeasureBisection counts only the flows that cross the cut inside the window,
 * exactly. (Moved from BisectionMeter.CountsOnlyCrossingFlowsInsideTheWindowExactly.)
 */
class BisectionCountsTestCase : public TestCase
{
  public:
    BisectionCountsTestCase()
        : TestCase("The bisection meter counts only crossing flows inside the window")
    {
    }

  private:
    void DoRun() override
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
        NS_TEST_EXPECT_MSG_EQ(m.crossFlows, 3U, "crossing flows");
        NS_TEST_EXPECT_MSG_EQ(m.crossBytes, 1750U, "crossing bytes");
        NS_TEST_EXPECT_MSG_EQ(m.bytesAtoB, 1250U, "A to B");
        NS_TEST_EXPECT_MSG_EQ(m.bytesBtoA, 500U, "B to A");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(m.windowS, 2e-6), true, "window " << m.windowS);
        // busier direction: 1250 B x 8 / 2 us = 5 Gb/s
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(m.achievedGbps, 1250 * 8.0 / 2e-6 / 1e9),
                              true,
                              "achieved " << m.achievedGbps);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(m.analyticGbps, 100), true, "capacity " << m.analyticGbps);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(m.ratio, m.achievedGbps / 100), true, "ratio " << m.ratio);
        const BisectionMeasure empty = MeasureBisection(cut, flows, 1e-6, 1e-6);
        NS_TEST_EXPECT_MSG_EQ(empty.achievedGbps, 0, "an empty window");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The cut is the analyzer's leaf split, with its capacity.
 * (Moved from BisectionMeter.CutIsTheAnalyzersLeafSplitAndItsCapacity.)
 */
class BisectionCutTestCase : public TestCase
{
  public:
    BisectionCutTestCase()
        : TestCase("The bisection cut is the analyzer's leaf split with its capacity")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t spines : {3U, 1U})
        {
            const TopologySpec topo = LeafSpine12(spines);
            const FabricGraph g = BuildFabricGraph(topo);
            const BisectionCutInfo cut = AnalyticBisectionCut(g, topo);
            NS_TEST_EXPECT_MSG_EQ(cut.split, "first 2 of 4 leaves", "split");
            NS_TEST_ASSERT_MSG_EQ(cut.sideA.size(), 12U, "a side per GPU");
            for (uint32_t gpu = 0; gpu < 12; ++gpu)
            {
                NS_TEST_EXPECT_MSG_EQ(cut.sideA[gpu], (gpu < 6), "GPU " << gpu);
            }
            // 2 leaves x min(3 GPUs, `spines` uplinks) x 400 Gb/s
            NS_TEST_EXPECT_MSG_EQ_TOL(cut.analyticGbps, 2.0 * spines * 400, 1e-6, spines);
            NS_TEST_EXPECT_MSG_EQ_TOL(cut.formulaGbps, cut.analyticGbps, 1e-6, spines);
            // Its minimum cut: side A's leaf uplinks (on the 1:1 fabric too, where the GPUs'
            // links carry as much: the cut furthest from the GPUs), one direction each.
            NS_TEST_ASSERT_MSG_EQ(cut.elements.size(), 2U * spines, "cut links");
            NS_TEST_EXPECT_MSG_EQ(cut.cut,
                                  std::to_string(2 * spines) + " leaf->spine links",
                                  "where");
            double sum = 0;
            for (const BisectionCutInfo::Element& e : cut.elements)
            {
                NS_TEST_EXPECT_MSG_EQ(
                    (e.name.rfind("leaf0->spine", 0) == 0 || e.name.rfind("leaf1->spine", 0) == 0),
                    true,
                    e.name);
                NS_TEST_ASSERT_MSG_EQ(e.aToB.size(), 1U, e.name);
                NS_TEST_ASSERT_MSG_EQ(e.bToA.size(), 1U, e.name);
                // the two ports of one link: 2i and 2i + 1
                NS_TEST_EXPECT_MSG_EQ(cut.ports[e.aToB[0]] / 2, cut.ports[e.bToA[0]] / 2, e.name);
                NS_TEST_EXPECT_MSG_EQ(DoubleEq(cut.portBps[e.aToB[0]], 400e9), true, e.name);
                sum += e.bps;
            }
            NS_TEST_EXPECT_MSG_EQ_TOL(sum / 1e9, cut.analyticGbps, 1e-6, "the cut's capacity");
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The cut's links are measured per direction from their ports' counts over the window:
 * bytes summed, utilization per element (busy time x rate over capacity x window), the busier
 * direction at the top of the record, the flows' figure beside it.
 */
class BisectionLinksTestCase : public TestCase
{
  public:
    BisectionLinksTestCase()
        : TestCase("The cut's links are measured per direction over the window")
    {
    }

  private:
    void DoRun() override
    {
        BisectionCutInfo cut;
        cut.sideA = {true, true, false, false};
        cut.analyticGbps = 250;
        cut.ports = {10, 11, 20, 21, 30, 31, 40, 41};
        cut.portBps = {100e9, 100e9, 100e9, 100e9, 100e9, 100e9, 400e9, 400e9};
        // two link directions of 100 Gb/s, and a GPU's injection of 50 Gb/s over two ports
        cut.elements = {{"leaf0->spine0", 100e9, {0}, {1}},
                        {"leaf1->spine0", 100e9, {2}, {3}},
                        {"gpu1 injection", 50e9, {4, 6}, {5, 7}}};
        CutWindow w;
        w.startS = 1e-6;
        w.endS = 3e-6; // 2 us
        w.complete = true;
        w.traffic.resize(8);
        w.traffic[0] = {20000, 19000, 10000, 9500, 1600000};  // busy 1.6 us
        w.traffic[2] = {25000, 24000, 25000, 24000, 2000000}; // busy 2 us
        w.traffic[4] = {4000, 3000, 4000, 3000, 500000};      // 0.5 us at 100 Gb/s
        w.traffic[6] = {1000, 1000, 0, 0, 100000};            // 0.1 us at 400 Gb/s
        w.traffic[1] = {5000, 4000, 5000, 4000, 400000};
        const BisectionDirectionRecord d = MeasureCutDirection(cut, w, true);
        NS_TEST_EXPECT_MSG_EQ(d.wireBytes, 50000U, "wire");
        NS_TEST_EXPECT_MSG_EQ(d.payloadBytes, 47000U, "payload");
        NS_TEST_EXPECT_MSG_EQ(d.crossingWireBytes, 39000U, "crossing wire");
        NS_TEST_EXPECT_MSG_EQ(d.crossingPayloadBytes, 36500U, "crossing payload");
        // 47000 B x 8 / 2 us = 188 Gb/s; 36500 B: 146 Gb/s
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(d.achievedGbps, 188), true, d.achievedGbps);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(d.crossingGbps, 146), true, d.crossingGbps);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(d.crossingShare, 36500.0 / 47000), true, d.crossingShare);
        // 1.6 / 2 = 0.8, 2 / 2 = 1, (0.5 us x 100 + 0.1 us x 400) Gb / (50 Gb/s x 2 us) = 0.9
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(d.utilizationMean, 0.9), true, d.utilizationMean);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(d.utilizationMax, 1.0), true, d.utilizationMax);
        const BisectionDirectionRecord back = MeasureCutDirection(cut, w, false);
        NS_TEST_EXPECT_MSG_EQ(back.payloadBytes, 4000U, "B to A");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(back.utilizationMax, 0.2), true, back.utilizationMax);

        CollectiveResult c;
        c.name = "a2a";
        c.op = "all-to-all";
        c.startS = 1e-6;
        c.endS = 3e-6;
        const std::vector<FlowRecord> flows
            = {Flow(0, 2, 30000, 1e-6, 3e-6), Flow(0, 1, 9000, 1e-6, 3e-6)};
        const BisectionRecord b = MakeBisectionRecord(cut, c, flows, w);
        NS_TEST_EXPECT_MSG_EQ(b.busierAtoB, true, "busier");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.achievedGbps, 188), true, b.achievedGbps);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.ratio, 188.0 / 250), true, b.ratio);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.crossingRatio, 146.0 / 250), true, b.crossingRatio);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.windowS, 2e-6), true, b.windowS);
        NS_TEST_EXPECT_MSG_EQ(b.cutPorts.size(), 3U, "elements");
        // flows: 30000 B from A to B: 120 Gb/s
        NS_TEST_EXPECT_MSG_EQ(b.bytesAtoB, 30000U, "flows A to B");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.flowAchievedGbps, 120), true, b.flowAchievedGbps);
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.flowRatio, 120.0 / 250), true, b.flowRatio);
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Two all-to-alls one after the other: each is measured over its own window (the
 * second's starts with a snapshot at its issue time), so each window's crossing payload on
 * the cut's links is exactly its own messages' between the sides.
 */
class BisectionWindowsTestCase : public TestCase
{
  public:
    BisectionWindowsTestCase()
        : TestCase("Each all-to-all is measured over its own window on the cut's links")
    {
    }

  private:
    void DoRun() override
    {
        const TopologySpec topo = LeafSpine12(1);
        RunSetup setup;
        setup.topology = &topo;
        WorkloadGroup first = MakeGroup("all-to-all", "direct", 12, 12 * 64 * 1024);
        first.name = "first";
        WorkloadGroup second = MakeGroup("all-to-all", "direct", 12, 12 * 128 * 1024);
        second.name = "second";
        second.start = MicroSeconds(500); // after the first (about 0.2 ms)
        const RunResults r = RunCollectives(BuildFabricGraph(topo), {first, second}, setup);
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "complete");
        NS_TEST_ASSERT_MSG_EQ(r.bisection.size(), 2U, "two measured");
        NS_TEST_EXPECT_MSG_LT(r.collectives[0].endS, 500e-6, "the first ends before");
        for (std::size_t i = 0; i < 2; ++i)
        {
            const BisectionRecord& b = r.bisection[i];
            const CollectiveResult& c = r.collectives[i];
            NS_TEST_EXPECT_MSG_EQ(b.collective, c.name, "order");
            NS_TEST_EXPECT_MSG_EQ(b.windowComplete, true, c.name);
            NS_TEST_EXPECT_MSG_EQ(DoubleEq(b.windowS, c.durationS), true, c.name);
            // every message between the sides crosses side A's uplink once
            NS_TEST_EXPECT_MSG_EQ(b.aToB.crossingPayloadBytes, b.bytesAtoB, c.name);
            NS_TEST_EXPECT_MSG_EQ(b.bToA.crossingPayloadBytes, b.bytesBtoA, c.name);
            NS_TEST_EXPECT_MSG_GT(b.aToB.payloadBytes, b.aToB.crossingPayloadBytes, c.name);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(b.utilizationMax, 1.0 + 1e-9, c.name);
        }
        // 6 x 6 pairs each way
        NS_TEST_EXPECT_MSG_EQ(r.bisection[0].bytesAtoB, 36U * 64 * 1024, "first");
        NS_TEST_EXPECT_MSG_EQ(r.bisection[1].bytesAtoB, 36U * 128 * 1024, "second");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief An all-to-all achieves clearly less across the cut of a 3:1 leaf-spine than of a
 * 1:1 one, never more than the cut's capacity.
 * (Moved from BisectionMeter.AllToAllAchievesLessOnAThreeToOneFabric.)
 */
class BisectionAllToAllTestCase : public TestCase
{
  public:
    BisectionAllToAllTestCase()
        : TestCase("An all-to-all achieves less across the cut of a 3:1 fabric")
    {
    }

  private:
    void DoRun() override
    {
        // 12 ranks x 1.5 MiB: 128 KiB to every other rank.
        const uint64_t bytes = 12 * 128 * 1024;
        const RunResults full = RunAcross(LeafSpine12(3), "all-to-all", bytes);
        const RunResults over = RunAcross(LeafSpine12(1), "all-to-all", bytes);
        NS_TEST_ASSERT_MSG_EQ(full.complete, true, "1:1 complete");
        NS_TEST_ASSERT_MSG_EQ(over.complete, true, "3:1 complete");
        NS_TEST_ASSERT_MSG_EQ(full.bisection.size(), 1U, "1:1 measured");
        NS_TEST_ASSERT_MSG_EQ(over.bisection.size(), 1U, "3:1 measured");
        const BisectionRecord& a = full.bisection[0];
        const BisectionRecord& b = over.bisection[0];
        NS_TEST_EXPECT_MSG_EQ(a.collective, "a2a", "collective");
        NS_TEST_EXPECT_MSG_EQ(a.sideAGpus, 6U, "side A");
        NS_TEST_EXPECT_MSG_EQ(a.sideBGpus, 6U, "side B");
        // 6 x 6 pairs each way, 128 KiB each
        NS_TEST_EXPECT_MSG_EQ(a.bytesAtoB, 36U * 128 * 1024, "A to B");
        NS_TEST_EXPECT_MSG_EQ(a.bytesBtoA, 36U * 128 * 1024, "B to A");
        NS_TEST_EXPECT_MSG_EQ(a.crossBytes, b.crossBytes, "the same bytes cross");
        NS_TEST_EXPECT_MSG_EQ(DoubleEq(a.windowS, full.collectives[0].durationS),
                              true,
                              "window " << a.windowS);
        NS_TEST_EXPECT_MSG_EQ_TOL(a.analyticGbps, 2400, 1e-6, "1:1 capacity");
        NS_TEST_EXPECT_MSG_EQ_TOL(b.analyticGbps, 800, 1e-6, "3:1 capacity");
        // achieved never above the cut's capacity (payload only: headers cost ~1%)
        NS_TEST_EXPECT_MSG_LT_OR_EQ(a.achievedGbps, a.analyticGbps * 1.001, "1:1");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(b.achievedGbps, b.analyticGbps * 1.001, "3:1");
        NS_TEST_EXPECT_MSG_GT(a.achievedGbps, 0, "1:1");
        // the 3:1 fabric's cut is the bottleneck: clearly lower throughput
        NS_TEST_EXPECT_MSG_LT(b.achievedGbps, 0.6 * a.achievedGbps, "3:1 below 1:1");
        NS_TEST_EXPECT_MSG_GT(b.ratio, 0.5, "it still runs its (narrower) cut fairly full");
        std::printf(
            "bisection achieved: 1:1 %.1f of %.1f Gb/s (%.3f), 3:1 %.1f of %.1f Gb/s (%.3f)\n",
            a.achievedGbps,
            a.analyticGbps,
            a.ratio,
            b.achievedGbps,
            b.analyticGbps,
            b.ratio);
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A permutation is measured across the cut too: the same derangement on both
 * fabrics, the same bytes across, less achieved on the 3:1 one.
 * (Moved from BisectionMeter.PermutationIsMeasuredAcrossTheCutToo.)
 */
class BisectionPermutationTestCase : public TestCase
{
  public:
    BisectionPermutationTestCase()
        : TestCase("A permutation is measured across the cut")
    {
    }

  private:
    void DoRun() override
    {
        // each rank sends 4 MiB to one other rank (a seeded derangement)
        const RunResults full = RunAcross(LeafSpine12(3), "permutation", 4 << 20);
        const RunResults over = RunAcross(LeafSpine12(1), "permutation", 4 << 20);
        NS_TEST_ASSERT_MSG_EQ(full.complete, true, "1:1 complete");
        NS_TEST_ASSERT_MSG_EQ(over.complete, true, "3:1 complete");
        NS_TEST_ASSERT_MSG_EQ(full.bisection.size(), 1U, "1:1 measured");
        NS_TEST_ASSERT_MSG_EQ(over.bisection.size(), 1U, "3:1 measured");
        const BisectionRecord& a = full.bisection[0];
        const BisectionRecord& b = over.bisection[0];
        NS_TEST_EXPECT_MSG_EQ(a.op, "permutation", "op");
        // the same derangement (same seed) on both fabrics: the same bytes cross
        NS_TEST_EXPECT_MSG_EQ(a.crossBytes, b.crossBytes, "the same bytes cross");
        NS_TEST_EXPECT_MSG_EQ(a.crossBytes % (4 << 20), 0U, "whole transfers");
        NS_TEST_EXPECT_MSG_GT(a.crossBytes, 0U, "some cross");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(a.achievedGbps, a.analyticGbps * 1.001, "1:1");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(b.achievedGbps, b.analyticGbps * 1.001, "3:1");
        NS_TEST_EXPECT_MSG_LT(b.achievedGbps, a.achievedGbps, "3:1 below 1:1");
        std::printf("permutation across the cut: 1:1 %.1f of %.1f Gb/s, 3:1 %.1f of %.1f Gb/s "
                    "(%llu MiB across)\n",
                    a.achievedGbps,
                    a.analyticGbps,
                    b.achievedGbps,
                    b.analyticGbps,
                    static_cast<unsigned long long>(a.crossBytes >> 20));
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The analysis TestSuite.
 */
class AnalysisTestSuite : public TestSuite
{
  public:
    AnalysisTestSuite()
        : TestSuite("ai-fabric-analysis", UNIT)
    {
        AddTestCase(new RingUnpipelinedTestCase, TestCase::QUICK);
        AddTestCase(new RingChannelsAndChunksTestCase, TestCase::QUICK);
        AddTestCase(new RingLatencyBoundPiecesTestCase, TestCase::QUICK);
        AddTestCase(new RingOtherOpsTestCase, TestCase::QUICK);
        AddTestCase(new TreePipelinedTestCase, TestCase::QUICK);
        AddTestCase(new BinomialF3TestCase, TestCase::QUICK);
        AddTestCase(new HalvingDoublingF4TestCase, TestCase::QUICK);
        AddTestCase(new NaiveF5TestCase, TestCase::QUICK);
        AddTestCase(new DirectAllToAllF6TestCase, TestCase::QUICK);
        AddTestCase(new DirectSendRecvBroadcastReduceTestCase, TestCase::QUICK);
        AddTestCase(new HierarchicalF7TestCase, TestCase::QUICK);
        AddTestCase(new GammaTimeTestCase, TestCase::QUICK);
        AddTestCase(new SameInputSameTimesTestCase, TestCase::QUICK);
        AddTestCase(new RingAllReduceF1TestCase, TestCase::QUICK);
        AddTestCase(new RingF2TestCase, TestCase::QUICK);
        AddTestCase(new RingSmallMessagesTestCase, TestCase::QUICK);
        AddTestCase(new RingSameSeedTestCase, TestCase::QUICK);
        AddTestCase(new PermutationSeedTestCase, TestCase::QUICK);
        AddTestCase(new IdealFctTestCase, TestCase::QUICK);
        AddTestCase(new NcclChannelsOverNicsTestCase, TestCase::QUICK);
        AddTestCase(new NvlinkChipsTestCase, TestCase::QUICK);
        AddTestCase(new BisectionCountsTestCase, TestCase::QUICK);
        AddTestCase(new BisectionCutTestCase, TestCase::QUICK);
        AddTestCase(new BisectionLinksTestCase, TestCase::QUICK);
        AddTestCase(new BisectionWindowsTestCase, TestCase::QUICK);
        AddTestCase(new BisectionAllToAllTestCase, TestCase::QUICK);
        AddTestCase(new BisectionPermutationTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static AnalysisTestSuite g_analysisTestSuite;
