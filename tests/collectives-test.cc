/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collective algorithms (ring with channels and chunks, tree, halving-doubling,
 * hierarchical, direct, naive): the DAGs they build (op counts, exact bytes per
 * rank, no cycle, every op reachable), and end to end on idle fabrics against
 * their closed forms (MISSION.md F1-F7 and the pipelined schedule model).
 */
#include "ns3/analytic-model.h"
#include "ns3/collective-algorithm.h"
#include "ns3/config.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"
#include "ns3/simulator.h"
#include "ns3/tree-collective.h"
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

using namespace ns3;

namespace
{

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * 1024;

class CollectivesTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

/// A group over GPUs 0 .. p-1.
WorkloadGroup
MakeGroup(const std::string& op, const std::string& algorithm, uint32_t p, uint64_t bytes)
{
    WorkloadGroup g;
    g.name = op + "/" + algorithm;
    g.op = op;
    g.algorithm = algorithm;
    g.bytes = bytes;
    g.ranks.resize(p);
    std::iota(g.ranks.begin(), g.ranks.end(), 0);
    g.chunkBytes = WorkloadGroup::NCCL_CHUNK_BYTES; // as traffic YAML defaults to
    return g;
}

/// What a DAG check found.
struct DagFacts
{
    std::vector<uint64_t> sent;     //!< payload bytes sent, per endpoint
    std::vector<uint64_t> received; //!< payload bytes received, per endpoint
    uint64_t sends{0};              //!< SEND ops
    uint64_t delays{0};             //!< DELAY ops
    double delaySeconds{0};         //!< sum of DELAY durations
    bool acyclic{false};            //!< a topological order covers every op
    bool rootsAreStarts{false};     //!< the only ops without dependencies are the start ops
    bool gated{true};               //!< every op of a rank comes after that rank's start op
    std::vector<uint32_t> done;     //!< the per-rank done ops Build() returned
};

/**
 * \brief Build one group into a fresh workload and check it.
 * \param g the group
 * \param perRankStarts one start op per rank (else one for all)
 * \param wl the workload to fill
 * \return the facts
 */
DagFacts
BuildAndCheck(const WorkloadGroup& g, bool perRankStarts, Workload& wl)
{
    DagFacts f;
    const uint32_t gi = wl.AddGroup(g);
    std::vector<uint32_t> starts;
    for (uint32_t i = 0; i < (perRankStarts ? g.ranks.size() : 1); ++i)
    {
        WorkloadOp s;
        s.kind = WorkloadOp::DELAY;
        s.group = gi;
        s.rank = g.ranks[i];
        s.duration = NanoSeconds(i); // different issue times
        starts.push_back(wl.AddOp(s));
    }
    Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
    f.done = algo->Build(wl, gi, starts);
    wl.Finalize();
    const auto& ops = wl.GetOps();
    const uint32_t endpoints = *std::max_element(g.ranks.begin(), g.ranks.end()) + 1;
    f.sent.assign(endpoints, 0);
    f.received.assign(endpoints, 0);
    // Kahn's algorithm: the runner would hang on a cycle or an unreachable op.
    std::vector<uint32_t> indeg(ops.size());
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        indeg[i] = wl.GetInDegree(i);
        if (indeg[i] == 0)
        {
            ready.push_back(i);
        }
    }
    std::vector<uint32_t> roots = ready;
    std::sort(roots.begin(), roots.end());
    f.rootsAreStarts = roots == starts;
    uint64_t visited = 0;
    while (!ready.empty())
    {
        const uint32_t i = ready.back();
        ready.pop_back();
        ++visited;
        for (const uint32_t* s = wl.SuccessorsBegin(i); s != wl.SuccessorsEnd(i); ++s)
        {
            if (--indeg[*s] == 0)
            {
                ready.push_back(*s);
            }
        }
    }
    f.acyclic = visited == ops.size();
    // Every op a rank executes must come after that rank's start op.
    for (uint32_t i = 0; perRankStarts && i < starts.size(); ++i)
    {
        std::vector<bool> seen(ops.size(), false);
        std::vector<uint32_t> stack{starts[i]};
        seen[starts[i]] = true;
        while (!stack.empty())
        {
            const uint32_t v = stack.back();
            stack.pop_back();
            for (const uint32_t* s = wl.SuccessorsBegin(v); s != wl.SuccessorsEnd(v); ++s)
            {
                if (!seen[*s])
                {
                    seen[*s] = true;
                    stack.push_back(*s);
                }
            }
        }
        for (uint32_t o = 0; o < ops.size(); ++o)
        {
            const bool isStart = std::find(starts.begin(), starts.end(), o) != starts.end();
            if (ops[o].rank == g.ranks[i] && !isStart && !seen[o])
            {
                f.gated = false;
            }
        }
    }
    for (const WorkloadOp& op : ops)
    {
        if (op.kind == WorkloadOp::SEND)
        {
            ++f.sends;
            EXPECT_NE(op.rank, op.peer);
            f.sent[op.rank] += op.bytes;
            f.received[op.peer] += op.bytes;
        }
        else
        {
            ++f.delays;
            f.delaySeconds += op.duration.GetSeconds();
        }
    }
    return f;
}

/// One SEND op per (group, step, rank, peer, qp)... here simply: sends of a rank by step.
std::map<uint32_t, std::vector<uint64_t>>
MessagesByStep(const Workload& wl, uint32_t rank)
{
    std::map<uint32_t, std::vector<uint64_t>> m;
    for (const WorkloadOp& op : wl.GetOps())
    {
        if (op.kind == WorkloadOp::SEND && op.rank == rank)
        {
            m[op.step].push_back(op.bytes);
        }
    }
    return m;
}

// ------------------------------------------------------------- end to end

/// \return a single InfiniBand NDR switch with p GPUs
FabricGraph
SingleSwitch(uint32_t p, const std::string& profile = "ib-ndr")
{
    FabricGraph graph;
    const uint32_t prof = graph.AddProfile(*FindLinkProfile(profile));
    const uint32_t sw = graph.AddSwitch("switch0", 1);
    for (uint32_t i = 0; i < p; ++i)
    {
        graph.AddLink(graph.AddGpu("gpu" + std::to_string(i)), sw, prof);
    }
    return graph;
}

/**
 * \return N "nodes" of G GPUs: each node is a switch with NVLink4-class links
 * (3600 Gb/s) to its GPUs, and one ib-ndr uplink to each of G spine switches,
 * so that the G rails' inter-node rings (one flow per GPU) fit the uplinks.
 * GPU n*G + l is local GPU l of node n.
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

/// Simulate one collective on a fabric (the way examples/ring-allreduce.cc does).
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

/// Print a measured ratio (the report quotes these lines).
void
Report(const std::string& what, double sim, double model)
{
    std::printf("[ratio] %-58s sim %10.3f us  model %10.3f us  sim/model %.4f\n",
                what.c_str(),
                sim * 1e6,
                model * 1e6,
                sim / model);
}

} // namespace

// ===================================================================== DAGs

/// Every (algorithm, op) on 1 to 9 ranks, one or per-rank starts, channels and
/// gamma: no cycle, every op reachable from the start ops, one done op per
/// rank, and the bytes sent equal the bytes received.
TEST_F(CollectivesTest, EveryAlgorithmBuildsAnAcyclicConnectedDag)
{
    for (const std::string& name : CollectiveAlgorithmNames())
    {
        for (const std::string& op : CollectiveOpNames())
        {
            for (const uint32_t p : {1u, 2u, 3u, 4u, 5u, 8u, 9u})
            {
                for (const bool perRank : {false, true})
                {
                    WorkloadGroup g = MakeGroup(op, name, p, 3 * MiB + 7);
                    g.channels = perRank ? 2 : 1;
                    g.chunkBytes = 256 * KiB;
                    g.gammaSecondsPerByte = perRank ? 1e-12 : 0;
                    g.root = p / 2;
                    g.ranksPerNode = p % 2 == 0 ? 2 : 1;
                    if (op == "send-recv")
                    {
                        g.transfers = {{0, p - 1, 5 * MiB}, {p - 1, 0, 1000}, {0, p - 1, 1}};
                    }
                    if (CreateCollectiveAlgorithm(name)->Validate(g) != "")
                    {
                        continue;
                    }
                    Workload wl;
                    const DagFacts f = BuildAndCheck(g, perRank, wl);
                    const std::string what = name + " " + op + " P=" + std::to_string(p);
                    EXPECT_TRUE(f.acyclic) << what;
                    EXPECT_TRUE(f.rootsAreStarts) << what;
                    EXPECT_TRUE(f.gated) << what;
                    EXPECT_EQ(f.done.size(), p) << what;
                    const uint64_t sent = std::accumulate(f.sent.begin(), f.sent.end(), 0ull);
                    const uint64_t recv
                        = std::accumulate(f.received.begin(), f.received.end(), 0ull);
                    EXPECT_EQ(sent, recv) << what;
                    EXPECT_EQ(sent == 0, p == 1) << what;
                }
            }
        }
    }
}

TEST_F(CollectivesTest, RingWithOnePieceKeepsTheClassicShape)
{
    const uint32_t p = 4;
    WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 4000);
    Workload wl;
    const DagFacts f = BuildAndCheck(g, false, wl);
    EXPECT_EQ(f.sends, 2u * (p - 1) * p);
    EXPECT_EQ(f.delays, 1u + p); // start + done ops
    for (uint32_t i = 1; i < wl.GetOps().size(); ++i)
    {
        if (wl.GetOps()[i].kind == WorkloadOp::SEND)
        {
            EXPECT_EQ(wl.GetInDegree(i), 1u);
        }
    }
}

/// Channels and chunks split messages, never change the bytes: every rank sends
/// 2S - block_i - block_{i+1} per channel (2(P-1)/P S when P divides S).
TEST_F(CollectivesTest, RingChannelsAndChunksKeepTheBytes)
{
    const uint32_t p = 4;
    for (const uint32_t channels : {1u, 3u})
    {
        for (const uint64_t chunk : {256 * KiB, 64 * MiB})
        {
            WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 12 * MiB);
            g.channels = channels;
            g.chunkBytes = chunk;
            Workload wl;
            const DagFacts f = BuildAndCheck(g, false, wl);
            const uint64_t block = 12 * MiB / channels / p;
            const uint64_t pieces = (block + chunk - 1) / chunk;
            EXPECT_EQ(f.sends, channels * 2ull * (p - 1) * p * pieces);
            for (uint32_t r = 0; r < p; ++r)
            {
                EXPECT_EQ(f.sent[r], 2ull * (p - 1) * 12 * MiB / p);
            }
            // One queue pair per channel; each piece waits for one op only (the
            // same piece of the previous step from the predecessor).
            std::map<uint16_t, uint64_t> perQp;
            for (uint32_t i = 0; i < wl.GetOps().size(); ++i)
            {
                const WorkloadOp& op = wl.GetOps()[i];
                if (op.kind == WorkloadOp::SEND)
                {
                    perQp[op.qp] += op.bytes;
                    EXPECT_EQ(wl.GetInDegree(i), 1u);
                }
            }
            EXPECT_EQ(perQp.size(), channels);
        }
    }
    // Uneven: 10 MiB + 5 over P = 3, 2 channels.
    WorkloadGroup g = MakeGroup("all-reduce", "ring", 3, 10 * MiB + 5);
    g.channels = 2;
    g.chunkBytes = 100 * KiB;
    Workload wl;
    const DagFacts f = BuildAndCheck(g, false, wl);
    for (uint32_t r = 0; r < 3; ++r)
    {
        uint64_t expected = 0;
        for (uint32_t c = 0; c < 2; ++c)
        {
            const auto blocks
                = CollectiveAlgorithm::SplitChunks(CollectiveAlgorithm::SplitShare(g.bytes, 2, c),
                                                   3);
            expected += 2 * CollectiveAlgorithm::SplitShare(g.bytes, 2, c) - blocks[r]
                        - blocks[(r + 1) % 3];
        }
        EXPECT_EQ(f.sent[r], expected) << r;
    }
    EXPECT_EQ(std::accumulate(f.sent.begin(), f.sent.end(), 0ull), 2ull * 2 * g.bytes);
}

TEST_F(CollectivesTest, RingReduceScatterAllGatherBroadcastReduceBytes)
{
    const uint32_t p = 5;
    const uint64_t s = 5 * MiB;
    for (const std::string op : {"reduce-scatter", "all-gather"})
    {
        Workload wl;
        const DagFacts f = BuildAndCheck(MakeGroup(op, "ring", p, s), false, wl);
        for (uint32_t r = 0; r < p; ++r)
        {
            EXPECT_EQ(f.sent[r], (p - 1) * s / p) << op;
        }
    }
    // Chains from/to root 2: 3 -> 4 -> 0 -> 1 for broadcast (from 2), reduce ends at 2.
    for (const std::string op : {"broadcast", "reduce"})
    {
        WorkloadGroup g = MakeGroup(op, "ring", p, 3 * MiB);
        g.root = 2;
        Workload wl;
        const DagFacts f = BuildAndCheck(g, false, wl);
        EXPECT_EQ(f.sends, (p - 1) * 6u) << op;          // 6 pieces of 512 KiB per hop
        const uint32_t idle = op == "broadcast" ? 1 : 2; // chain end sends nothing
        for (uint32_t r = 0; r < p; ++r)
        {
            EXPECT_EQ(f.sent[r], r == idle ? 0 : 3 * MiB) << op << " rank " << r;
        }
    }
}

/// NCCL's trees (trees.cc): the 14-rank example of its comment; each tree spans
/// the ranks; for even P every rank is a leaf in exactly one tree.
TEST_F(CollectivesTest, DoubleBinaryTreeIsNccls)
{
    using T = TreeCollectiveAlgorithm;
    // 0---8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10, 13; 2 -> 1, 3; ... (trees.cc comment)
    EXPECT_EQ(T::BinaryTreeNode(14, 0).child1, 8);
    EXPECT_EQ(T::BinaryTreeNode(14, 8).parent, 0);
    EXPECT_EQ(T::BinaryTreeNode(14, 8).child0, 4);
    EXPECT_EQ(T::BinaryTreeNode(14, 8).child1, 12);
    EXPECT_EQ(T::BinaryTreeNode(14, 12).child0, 10);
    EXPECT_EQ(T::BinaryTreeNode(14, 12).child1, 13);
    EXPECT_EQ(T::BinaryTreeNode(14, 13).parent, 12);
    EXPECT_EQ(T::BinaryTreeNode(14, 5).parent, 6);
    // Mirror (even P): rank r plays P-1-r.
    EXPECT_EQ(T::DoubleBinaryTreeNode(14, 13, 1).child1, 5);
    EXPECT_EQ(T::DoubleBinaryTreeNode(14, 0, 1).parent, 1);
    for (uint32_t p = 2; p <= 40; ++p)
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            uint32_t roots = 0;
            uint32_t edges = 0;
            for (uint32_t r = 0; r < p; ++r)
            {
                const auto n = T::DoubleBinaryTreeNode(p, r, t);
                roots += n.parent < 0;
                for (const int32_t c : {n.child0, n.child1})
                {
                    if (c >= 0)
                    {
                        ++edges;
                        EXPECT_EQ(T::DoubleBinaryTreeNode(p, c, t).parent, static_cast<int32_t>(r));
                    }
                }
            }
            EXPECT_EQ(roots, 1u) << p;
            EXPECT_EQ(edges, p - 1) << p;
        }
        for (uint32_t r = 0; r < p; ++r)
        {
            uint32_t leafIn = 0;
            for (uint32_t t = 0; t < 2; ++t)
            {
                const auto n = T::DoubleBinaryTreeNode(p, r, t);
                leafIn += n.child0 < 0 && n.child1 < 0;
            }
            // Odd P (shifted tree): rank 0 is interior in both trees.
            EXPECT_EQ(leafIn, (p % 2 == 1 && r == 0) ? 0u : 1u) << "P=" << p << " r=" << r;
        }
    }
}

/// Tree all-reduce: each tree carries S/2 over its P-1 edges, up and down: 2(P-1) S
/// in all, and each rank sends S/2 per tree neighbour.
TEST_F(CollectivesTest, TreeAllReduceBytes)
{
    for (const uint32_t p : {2u, 7u, 8u, 13u})
    {
        const uint64_t s = 4 * MiB;
        Workload wl;
        const DagFacts f = BuildAndCheck(MakeGroup("all-reduce", "tree", p, s), false, wl);
        EXPECT_EQ(std::accumulate(f.sent.begin(), f.sent.end(), 0ull), 2ull * (p - 1) * s);
        for (uint32_t r = 0; r < p; ++r)
        {
            uint64_t expected = 0;
            for (uint32_t t = 0; t < 2; ++t)
            {
                const auto n = TreeCollectiveAlgorithm::DoubleBinaryTreeNode(p, r, t);
                expected += s / 2 * ((n.parent >= 0) + (n.child0 >= 0) + (n.child1 >= 0));
            }
            EXPECT_EQ(f.sent[r], expected) << "P=" << p << " r=" << r;
            EXPECT_LE(f.sent[r], 2 * s); // at most 4 tree neighbours of S/2
        }
        // 4 (P-1) messages of S/2 (one piece of 2 MiB each: 4 pieces of 512 KiB).
        EXPECT_EQ(f.sends, 4ull * (p - 1) * 4);
    }
    // Broadcast and reduce over one binary tree rooted at position 3: S per tree edge.
    for (const std::string op : {"broadcast", "reduce"})
    {
        WorkloadGroup g = MakeGroup(op, "tree", 6, MiB);
        g.root = 3;
        Workload wl;
        const DagFacts f = BuildAndCheck(g, false, wl);
        EXPECT_EQ(std::accumulate(f.sent.begin(), f.sent.end(), 0ull), 5ull * MiB);
        EXPECT_EQ(op == "broadcast" ? f.received[3] : f.sent[3], 0u);
    }
}

/// Halving-doubling: message sizes S/2, S/4, ..., S/P then back; (P-1)/P S per phase.
TEST_F(CollectivesTest, HalvingDoublingBytes)
{
    const uint32_t p = 8;
    const uint64_t s = 8 * MiB;
    Workload wl;
    const DagFacts f = BuildAndCheck(MakeGroup("all-reduce", "halving-doubling", p, s), false, wl);
    EXPECT_EQ(f.sends, 2u * 3 * p);
    for (uint32_t r = 0; r < p; ++r)
    {
        EXPECT_EQ(f.sent[r], 2 * (p - 1) * s / p);
        const auto steps = MessagesByStep(wl, r);
        const std::vector<uint64_t> sizes{s / 2, s / 4, s / 8, s / 8, s / 4, s / 2};
        for (uint32_t k = 0; k < 6; ++k)
        {
            EXPECT_EQ(steps.at(k), std::vector<uint64_t>{sizes[k]});
        }
    }
    for (const std::string op : {"reduce-scatter", "all-gather"})
    {
        Workload w2;
        const DagFacts g = BuildAndCheck(MakeGroup(op, "halving-doubling", 4, s), false, w2);
        EXPECT_EQ(g.sends, 2u * 4);
        EXPECT_EQ(g.sent[1], 3 * s / 4);
    }
}

/// Hierarchical, 3 nodes x 4 GPUs: 2(G-1)/G S intra + 2(N-1)/N S/G inter per rank.
TEST_F(CollectivesTest, HierarchicalBytes)
{
    const uint32_t gpn = 4;
    const uint32_t nodes = 3;
    const uint64_t s = 12 * MiB;
    WorkloadGroup g = MakeGroup("all-reduce", "hierarchical", gpn * nodes, s);
    g.ranksPerNode = gpn;
    Workload wl;
    const DagFacts f = BuildAndCheck(g, false, wl);
    uint64_t intra = 0;
    uint64_t inter = 0;
    for (const WorkloadOp& op : wl.GetOps())
    {
        if (op.kind == WorkloadOp::SEND)
        {
            (op.rank / gpn == op.peer / gpn ? intra : inter) += op.bytes;
            // intra-node peers are neighbours; inter-node peers share the local index
            if (op.rank / gpn != op.peer / gpn)
            {
                EXPECT_EQ(op.rank % gpn, op.peer % gpn);
            }
        }
    }
    EXPECT_EQ(intra, uint64_t{gpn} * nodes * 2 * (gpn - 1) * s / gpn);
    EXPECT_EQ(inter, uint64_t{gpn} * nodes * 2 * (nodes - 1) * (s / gpn) / nodes);
    for (uint32_t r = 0; r < gpn * nodes; ++r)
    {
        EXPECT_EQ(f.sent[r], 2 * (gpn - 1) * s / gpn + 2 * (nodes - 1) * (s / gpn) / nodes);
    }
}

TEST_F(CollectivesTest, DirectAllToAllSendRecvAndNaiveBytes)
{
    {
        const uint32_t p = 5;
        Workload wl;
        const DagFacts f = BuildAndCheck(MakeGroup("all-to-all", "direct", p, 5000), false, wl);
        EXPECT_EQ(f.sends, uint64_t{p} * (p - 1));
        for (uint32_t r = 0; r < p; ++r)
        {
            EXPECT_EQ(f.sent[r], 4000u); // (P-1)/P S
            EXPECT_EQ(f.received[r], 4000u);
        }
        // each pair its own queue pair: distinct (rank, peer) per SEND
        std::map<std::pair<uint32_t, uint32_t>, int> pairs;
        for (const WorkloadOp& op : wl.GetOps())
        {
            if (op.kind == WorkloadOp::SEND)
            {
                EXPECT_EQ(++pairs[std::make_pair(op.rank, op.peer)], 1);
            }
        }
    }
    {
        // matrix: row = source; diagonal and zeros send nothing; 2 channels split each entry
        WorkloadGroup g = MakeGroup("all-to-all", "direct", 3, 0);
        g.matrix = {9, 100, 0, 7, 9, 5, 1000, 0, 9};
        g.channels = 2;
        Workload wl;
        const DagFacts f = BuildAndCheck(g, false, wl);
        EXPECT_EQ(f.sends, 8u); // 4 nonzero off-diagonal entries x 2 channels
        EXPECT_EQ(f.sent, (std::vector<uint64_t>{100, 12, 1000}));
        EXPECT_EQ(f.received, (std::vector<uint64_t>{1007, 100, 5}));
    }
    {
        WorkloadGroup g = MakeGroup("send-recv", "direct", 4, 0);
        g.ranks = {7, 2, 5, 0};
        g.transfers = {{0, 1, 300}, {0, 3, 50}, {2, 0, 8}};
        Workload wl;
        const DagFacts f = BuildAndCheck(g, false, wl);
        EXPECT_EQ(f.sends, 3u);
        EXPECT_EQ(f.sent[7], 350u);
        EXPECT_EQ(f.received[2], 300u);
        EXPECT_EQ(f.received[0], 50u);
        EXPECT_EQ(f.received[7], 8u);
    }
    {
        const uint32_t p = 4;
        Workload wl;
        const DagFacts f = BuildAndCheck(MakeGroup("all-reduce", "naive", p, MiB), false, wl);
        EXPECT_EQ(f.sends, 2u * (p - 1));
        EXPECT_EQ(f.sent[0], (p - 1) * MiB); // the root
        EXPECT_EQ(f.received[0], (p - 1) * MiB);
        for (uint32_t r = 1; r < p; ++r)
        {
            EXPECT_EQ(f.sent[r], MiB);
        }
        // one at a time: every send waits for exactly one op, the previous send
        // (the first for the start op)
        uint32_t previous = 0; // the start op
        for (uint32_t i = 0; i < wl.GetOps().size(); ++i)
        {
            if (wl.GetOps()[i].kind != WorkloadOp::SEND)
            {
                continue;
            }
            EXPECT_EQ(wl.GetInDegree(i), 1u);
            const uint32_t* s = wl.SuccessorsBegin(previous);
            EXPECT_NE(std::find(s, wl.SuccessorsEnd(previous), i), wl.SuccessorsEnd(previous));
            previous = i;
        }
    }
}

/// Binomial tree: ceil(log2 P) rounds each way; the root sends and receives L S.
TEST_F(CollectivesTest, BinomialBytes)
{
    for (const uint32_t p : {6u, 8u})
    {
        const uint32_t rounds = 3;
        Workload wl;
        const DagFacts f = BuildAndCheck(MakeGroup("all-reduce", "binomial", p, MiB), false, wl);
        EXPECT_EQ(f.sends, 2u * (p - 1));
        EXPECT_EQ(f.sent[0], rounds * MiB);
        EXPECT_EQ(f.received[0], rounds * MiB);
        EXPECT_EQ(f.sent[p - 1], MiB);
        EXPECT_EQ(std::accumulate(f.sent.begin(), f.sent.end(), 0ull), 2ull * (p - 1) * MiB);
    }
    WorkloadGroup g = MakeGroup("broadcast", "binomial", 5, MiB);
    g.root = 3;
    Workload wl;
    const DagFacts f = BuildAndCheck(g, false, wl);
    EXPECT_EQ(f.sent[3], 3 * MiB); // to relative ranks 4, 2, 1
    EXPECT_EQ(f.received[3], 0u);
}

/// Gamma: one DELAY of bytes x gamma per reduced arrival, and none without gamma.
TEST_F(CollectivesTest, GammaInsertsReductionDelays)
{
    const uint32_t p = 4;
    const uint64_t s = 4 * MiB;
    const double gamma = 1e-11; // 100 GB/s of reduction
    WorkloadGroup g = MakeGroup("all-reduce", "ring", p, s);
    g.gammaSecondsPerByte = gamma;
    g.chunkBytes = 256 * KiB; // 4 pieces per 1 MiB step
    Workload wl;
    const DagFacts f = BuildAndCheck(g, false, wl);
    // (P-1) reduce-scatter steps x P ranks x 4 pieces, + start + done ops
    EXPECT_EQ(f.delays, (p - 1) * p * 4u + 1 + p);
    // every rank reduces (P-1)/P S
    EXPECT_NEAR(f.delaySeconds, p * (p - 1.0) / p * s * gamma, 1e-12);
    for (const std::string algo : {"tree", "halving-doubling", "direct", "naive"})
    {
        WorkloadGroup h = MakeGroup("all-reduce", algo, p, s);
        h.gammaSecondsPerByte = gamma;
        Workload w2;
        const DagFacts k = BuildAndCheck(h, false, w2);
        EXPECT_GT(k.delaySeconds, 0) << algo;
        // bytes reduced: tree: each non-root rank's piece per tree is reduced once at
        // its parent, (P-1) S / 2 per tree; hd, direct: (P-1)/P S per rank; naive: (P-1) S
        const double reduced = algo == "tree"    ? (p - 1.0) * s
                               : algo == "naive" ? (p - 1.0) * s
                                                 : (p - 1.0) * s;
        EXPECT_NEAR(k.delaySeconds, reduced * gamma, 1e-12) << algo;
    }
}

/// A 1024-rank ring all-reduce (2 M ops) and a 1024 x 1023 all-to-all (1 M ops) build
/// with the exact op counts; an op stays at 40 bytes. The build time is printed, not
/// asserted (speed is measured by bench/).
TEST_F(CollectivesTest, LargeGroupsBuildExactly)
{
    EXPECT_LE(sizeof(WorkloadOp), 40u);
    for (const std::string op : {"all-reduce", "all-to-all"})
    {
        const auto t0 = std::chrono::steady_clock::now();
        Workload wl;
        WorkloadGroup g = MakeGroup(op, op == "all-reduce" ? "ring" : "direct", 1024, 256 * MiB);
        const uint32_t gi = wl.AddGroup(g);
        WorkloadOp start;
        start.kind = WorkloadOp::DELAY;
        const uint32_t s0 = wl.AddOp(start);
        CreateCollectiveAlgorithm(g.algorithm)->Build(wl, gi, {s0});
        wl.Finalize();
        const double s
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("[build] %s 1024 ranks: %zu ops, %zu dependencies in %.3f s\n",
                    op.c_str(),
                    wl.GetOps().size(),
                    wl.GetDependencyCount(),
                    s);
        EXPECT_EQ(wl.GetOps().size(),
                  op == "all-reduce" ? 1 + 2 * 1023 * 1024 + 1024 : 1 + 1024 * 1023 + 1024);
    }
}

// ============================================================ end to end

/// Ring all-reduce, one piece per step (chunk >= S/P): formula F1 within 3 %.
TEST_F(CollectivesTest, RingUnpipelinedMatchesF1)
{
    for (const uint32_t p : {4u, 8u})
    {
        WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 8 * MiB * p);
        g.chunkBytes = g.bytes;
        const Outcome o = Simulate(SingleSwitch(p), g);
        ASSERT_TRUE(o.complete);
        const double f1 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
        // the schedule model of one piece per step is F1 itself
        EXPECT_NEAR(CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE), f1, f1 * 1e-12);
        Report("ring all-reduce P=" + std::to_string(p) + " 1 piece vs F1", o.durationS, f1);
        EXPECT_NEAR(o.durationS, f1, 0.03 * f1);
    }
}

/// Ring all-reduce with C channels and 512 KiB / 128 KiB pieces: the pipelined
/// schedule within 3 %; the bytes do not depend on C.
TEST_F(CollectivesTest, RingChannelsAndChunksMatchThePipelinedFormula)
{
    const uint32_t p = 4;
    std::vector<uint64_t> bytesC1;
    for (const uint32_t channels : {1u, 2u, 4u})
    {
        for (const uint64_t chunk : {512 * KiB, 128 * KiB})
        {
            WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 16 * MiB);
            g.channels = channels;
            g.chunkBytes = chunk;
            const Outcome o = Simulate(SingleSwitch(p), g);
            ASSERT_TRUE(o.complete);
            const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
            const double f1 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
            Report("ring all-reduce P=4 16MiB C=" + std::to_string(channels)
                       + " chunk=" + std::to_string(chunk / KiB) + "KiB vs pipelined",
                   o.durationS,
                   model);
            EXPECT_NEAR(o.durationS, model, 0.03 * model);
            EXPECT_LT(o.durationS, f1); // pipelining beats step-by-step
            if (channels == 1)
            {
                bytesC1 = o.sent;
            }
            EXPECT_EQ(o.sent, bytesC1);
        }
    }
}

/// Small steps: the alpha term is paid once per step, and pipelining cannot hide it.
TEST_F(CollectivesTest, RingPipelineWithLatencyBoundPieces)
{
    WorkloadGroup g = MakeGroup("all-reduce", "ring", 8, 8 * MiB);
    g.chunkBytes = 16 * KiB; // 1 MiB steps cut into 64 pieces: alpha-bound hops
    const Outcome o = Simulate(SingleSwitch(8), g);
    ASSERT_TRUE(o.complete);
    const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
    Report("ring all-reduce P=8 8MiB chunk=16KiB vs pipelined", o.durationS, model);
    EXPECT_NEAR(o.durationS, model, 0.03 * model);
}

TEST_F(CollectivesTest, RingReduceScatterAllGatherBroadcastReduceMatchTheirFormulas)
{
    const uint32_t p = 6;
    for (const std::string op : {"reduce-scatter", "all-gather", "broadcast", "reduce"})
    {
        WorkloadGroup g = MakeGroup(op, "ring", p, 24 * MiB);
        g.root = 1;
        g.channels = 2;
        const Outcome o = Simulate(SingleSwitch(p), g);
        ASSERT_TRUE(o.complete) << op;
        const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
        Report("ring " + op + " P=6 24MiB C=2 vs pipelined", o.durationS, model);
        EXPECT_NEAR(o.durationS, model, 0.03 * model) << op;
    }
}

/// Double binary tree: the pipelined model within 3 %; F3 (binary tree, whole
/// messages) is far slower than NCCL's pipelined double tree for large messages.
TEST_F(CollectivesTest, TreeAllReduceMatchesThePipelinedModel)
{
    for (const uint32_t p : {4u, 7u, 8u, 16u})
    {
        WorkloadGroup g = MakeGroup("all-reduce", "tree", p, 32 * MiB);
        g.chunkBytes = 128 * KiB;
        const Outcome o = Simulate(SingleSwitch(p), g);
        ASSERT_TRUE(o.complete);
        const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
        const double f3 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
        Report("tree all-reduce P=" + std::to_string(p) + " 32MiB chunk=128KiB vs pipelined",
               o.durationS,
               model);
        Report("tree all-reduce P=" + std::to_string(p) + " 32MiB chunk=128KiB vs F3",
               o.durationS,
               f3);
        EXPECT_NEAR(o.durationS, model, 0.03 * model) << p;
    }
    for (const std::string op : {"broadcast", "reduce"})
    {
        WorkloadGroup g = MakeGroup(op, "tree", 8, 16 * MiB);
        g.chunkBytes = 128 * KiB;
        g.root = 5;
        const Outcome o = Simulate(SingleSwitch(8), g);
        ASSERT_TRUE(o.complete);
        const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
        Report("tree " + op + " P=8 16MiB chunk=128KiB vs pipelined", o.durationS, model);
        EXPECT_NEAR(o.durationS, model, 0.03 * model) << op;
    }
}

/// The binomial tree reproduces F3 (whole messages, one per round and rank).
TEST_F(CollectivesTest, BinomialMatchesF3)
{
    for (const uint32_t p : {4u, 6u, 8u})
    {
        WorkloadGroup g = MakeGroup("all-reduce", "binomial", p, 8 * MiB);
        const Outcome o = Simulate(SingleSwitch(p), g);
        ASSERT_TRUE(o.complete);
        const double f3 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
        Report("binomial all-reduce P=" + std::to_string(p) + " 8MiB vs F3", o.durationS, f3);
        EXPECT_NEAR(o.durationS, f3, 0.03 * f3);
    }
}

TEST_F(CollectivesTest, HalvingDoublingMatchesF4)
{
    for (const uint32_t p : {4u, 8u})
    {
        for (const std::string op : {"all-reduce", "reduce-scatter", "all-gather"})
        {
            WorkloadGroup g = MakeGroup(op, "halving-doubling", p, 64 * MiB);
            const Outcome o = Simulate(SingleSwitch(p), g);
            ASSERT_TRUE(o.complete);
            const double f4 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
            Report("halving-doubling " + op + " P=" + std::to_string(p) + " 64MiB vs F4",
                   o.durationS,
                   f4);
            EXPECT_NEAR(o.durationS, f4, 0.03 * f4);
            for (uint32_t r = 0; r < p; ++r)
            {
                EXPECT_EQ(o.sent[r], (op == "all-reduce" ? 2 : 1) * (p - 1) * g.bytes / p);
            }
        }
    }
}

TEST_F(CollectivesTest, NaiveMatchesF5)
{
    WorkloadGroup g = MakeGroup("all-reduce", "naive", 4, 8 * MiB);
    const Outcome o = Simulate(SingleSwitch(4), g);
    ASSERT_TRUE(o.complete);
    const double f5 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
    Report("naive all-reduce P=4 8MiB vs F5", o.durationS, f5);
    EXPECT_NEAR(o.durationS, f5, 0.03 * f5);
}

TEST_F(CollectivesTest, DirectAllToAllMatchesF6)
{
    for (const uint32_t p : {4u, 8u})
    {
        WorkloadGroup g = MakeGroup("all-to-all", "direct", p, 16 * MiB);
        const Outcome o = Simulate(SingleSwitch(p), g);
        ASSERT_TRUE(o.complete);
        const double f6 = CollectiveTime(g, o.cost, CollectiveModel::FORMULA);
        const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
        Report("direct all-to-all P=" + std::to_string(p) + " 16MiB vs F6", o.durationS, f6);
        Report("direct all-to-all P=" + std::to_string(p) + " 16MiB vs concurrent",
               o.durationS,
               model);
        EXPECT_NEAR(o.durationS, f6, 0.03 * f6);
        EXPECT_NEAR(o.durationS, model, 0.03 * model);
    }
    // A skewed matrix: rank 0 receives 3 x 4 MiB, the busiest port sets the time.
    WorkloadGroup g = MakeGroup("all-to-all", "direct", 4, 0);
    g.matrix.assign(16, MiB);
    for (uint32_t i = 1; i < 4; ++i)
    {
        g.matrix[i * 4] = 4 * MiB;
    }
    const Outcome o = Simulate(SingleSwitch(4), g);
    ASSERT_TRUE(o.complete);
    const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
    Report("direct all-to-all P=4 matrix (hot receiver) vs max port load", o.durationS, model);
    EXPECT_NEAR(o.durationS, model, 0.03 * model);
    EXPECT_EQ(o.sent[1], 6 * MiB);
}

TEST_F(CollectivesTest, DirectSendRecvBroadcastReduce)
{
    WorkloadGroup g = MakeGroup("send-recv", "direct", 4, 0);
    g.transfers = {{0, 1, 8 * MiB}, {2, 1, 8 * MiB}, {3, 0, MiB}}; // rank 1 receives 16 MiB
    Outcome o = Simulate(SingleSwitch(4), g);
    ASSERT_TRUE(o.complete);
    double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
    Report("direct send-recv 2 x 8MiB into one rank vs alpha + 16MiB beta", o.durationS, model);
    EXPECT_NEAR(o.durationS, model, 0.03 * model);
    for (const std::string op : {"broadcast", "reduce"})
    {
        WorkloadGroup b = MakeGroup(op, "direct", 4, 8 * MiB);
        b.root = 2;
        o = Simulate(SingleSwitch(4), b);
        ASSERT_TRUE(o.complete);
        model = CollectiveTime(b, o.cost, CollectiveModel::SCHEDULE);
        Report("direct " + op + " P=4 8MiB vs alpha + (P-1) n beta", o.durationS, model);
        EXPECT_NEAR(o.durationS, model, 0.03 * model);
    }
}

/// Hierarchical all-reduce on N "nodes" (a switch with 3600 Gb/s NVLink-class
/// links to G GPUs) joined by ib-ndr uplinks to G spines, adaptive forwarding:
/// F7 with the intra and inter alpha-beta (one piece per ring step), and the
/// pipelined model with 512 KiB chunks; both within 3 %. (Not a rail-optimized
/// cluster: a node's GPUs share its G uplinks, so a flat ring's few node-crossing
/// flows could use all of them; comparing flat and hierarchical (MISSION.md C6)
/// needs one NIC per GPU.)
TEST_F(CollectivesTest, HierarchicalMatchesF7)
{
    for (const uint32_t nodes : {2u, 4u})
    {
        const uint32_t gpn = 4;
        for (const uint64_t chunk : {uint64_t{1} << 40, 512 * KiB})
        {
            WorkloadGroup g = MakeGroup("all-reduce", "hierarchical", nodes * gpn, 64 * MiB);
            g.ranksPerNode = gpn;
            g.chunkBytes = chunk;
            const Outcome o = Simulate(NodesOfGpus(nodes, gpn), g, "ns3::AdaptiveRouting");
            ASSERT_TRUE(o.complete);
            EXPECT_LT(o.cost.intra.betaSPerByte * 5, o.cost.inter.betaSPerByte);
            const bool whole = chunk > g.bytes;
            const double model
                = CollectiveTime(g,
                                 o.cost,
                                 whole ? CollectiveModel::FORMULA : CollectiveModel::SCHEDULE);
            Report("hierarchical " + std::to_string(nodes) + "x4 64MiB "
                       + (whole ? "1 piece vs F7" : "chunk=512KiB vs pipelined"),
                   o.durationS,
                   model);
            EXPECT_NEAR(o.durationS, model, 0.03 * model);
        }
    }
}

/// Gamma adds the reductions on the critical path: (P-1)/P S gamma for an
/// unpipelined ring all-reduce and for halving-doubling.
TEST_F(CollectivesTest, GammaAddsTheExpectedTime)
{
    const uint32_t p = 4;
    const double gamma = 5e-12; // 200 GB/s
    for (const std::string algo : {"ring", "halving-doubling"})
    {
        WorkloadGroup g = MakeGroup("all-reduce", algo, p, 32 * MiB);
        g.chunkBytes = g.bytes;
        const Outcome o0 = Simulate(SingleSwitch(p), g);
        g.gammaSecondsPerByte = gamma;
        const Outcome o1 = Simulate(SingleSwitch(p), g);
        ASSERT_TRUE(o0.complete && o1.complete);
        const double added = (p - 1.0) / p * g.bytes * gamma;
        Report(algo + " all-reduce P=4 32MiB: time added by gamma",
               o1.durationS - o0.durationS,
               added);
        EXPECT_NEAR(o1.durationS - o0.durationS, added, 0.03 * added) << algo;
        const double model = CollectiveTime(g, o1.cost, CollectiveModel::SCHEDULE);
        EXPECT_NEAR(o1.durationS, model, 0.03 * model) << algo;
    }
    // Pipelined ring: the reductions hide behind the transfers except on the last pieces.
    WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 32 * MiB);
    g.gammaSecondsPerByte = gamma;
    const Outcome o = Simulate(SingleSwitch(p), g);
    const double model = CollectiveTime(g, o.cost, CollectiveModel::SCHEDULE);
    Report("ring all-reduce P=4 32MiB gamma=5ps/B chunk=512KiB vs pipelined", o.durationS, model);
    EXPECT_NEAR(o.durationS, model, 0.03 * model);
}

TEST_F(CollectivesTest, SameInputGivesIdenticalTimes)
{
    WorkloadGroup g = MakeGroup("all-reduce", "tree", 6, 4 * MiB);
    g.channels = 2;
    g.chunkBytes = 256 * KiB;
    g.gammaSecondsPerByte = 1e-12;
    const Outcome a = Simulate(SingleSwitch(6), g);
    const Outcome b = Simulate(SingleSwitch(6), g);
    ASSERT_TRUE(a.complete);
    EXPECT_EQ(a.opEndPs, b.opEndPs);
}
