/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the ai-fabric collectives: the registry of algorithms and, per
 * algorithm, that the bytes its closed form says each rank sends are the bytes its
 * message DAG sends, and that its textbook closed form is the sum of its steps' costs; the
 * DAGs each algorithm builds (op counts, exact bytes per rank, no cycle, every op reachable,
 * every op of a rank after its own start op), NCCL's double binary tree, the permutation's
 * derangement. (The collectives simulated against their closed forms: ai-fabric-analysis.)
 * Runs in-tree through test.py (./test.py -s ai-fabric-collective) and out of tree
 * through tests/ns3-test-runner.
 */
#include "ai-fabric-test-run.h"

#include "ns3/channel-plan.h"
#include "ns3/collective-algorithm.h"
#include "ns3/direct-collective.h"
#include "ns3/nccl-protocol.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/tree-collective.h"
#include "ns3/workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

using namespace ns3;
using namespace ns3::aifabrictest;

namespace
{

/**
 * \brief Give a group of an in-network algorithm made-up reducers, numbered after its ranks:
 * three NVSwitch chips (nvls), or a SHARP tree (collnet) of G = 2 ranks per server when P is
 * even (else 1), servers split over two switches per local index under a root each.
 * \param g the group (ranks 0 .. P-1)
 */
void
FakeInNetwork(WorkloadGroup& g)
{
    const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
    if (!algo || !algo->GetCapabilities().inNetwork)
    {
        return;
    }
    const auto p = static_cast<uint32_t>(g.ranks.size());
    if (!algo->GetCapabilities().networkTree)
    {
        g.switches = {p, p + 1, p + 2}; // three NVSwitch chips
        return;
    }
    InNetworkTree& t = g.tree;
    t = InNetworkTree();
    t.localRanks = p % 2 == 0 && p > 2 ? 2 : 1;
    const uint32_t servers = p / t.localRanks;
    const bool twoLevels = servers >= 2;
    const uint32_t leaves = t.localRanks * (twoLevels ? 2 : 1);
    for (uint32_t i = 0; i < p; ++i)
    {
        const uint32_t server = i / t.localRanks;
        const uint32_t local = i % t.localRanks;
        t.server.push_back(server);
        t.local.push_back(local);
        t.attach.push_back(twoLevels ? (server % 2) * t.localRanks + local : local);
    }
    for (uint32_t l = 0; l < t.localRanks; ++l)
    {
        t.root.push_back(twoLevels ? leaves + l : InNetworkTree::NONE);
    }
    const uint32_t switches = leaves + (twoLevels ? t.localRanks : 0);
    g.switches.clear();
    for (uint32_t k = 0; k < switches; ++k)
    {
        g.switches.push_back(p + k);
    }
}

/// Build one group with its algorithm. \return each rank position's SEND bytes
std::vector<uint64_t>
BuiltBytes(const CollectiveAlgorithm& algo, const WorkloadGroup& g)
{
    Workload wl;
    const uint32_t gid = wl.AddGroup(g);
    WorkloadOp start;
    start.kind = WorkloadOp::DELAY;
    start.group = gid;
    const uint32_t s = wl.AddOp(start);
    algo.Build(wl, gid, {s});
    std::vector<uint64_t> sent(g.ranks.size(), 0);
    for (const WorkloadOp& op : wl.GetOps())
    {
        if (op.kind == WorkloadOp::SEND && op.rank < g.ranks.size())
        {
            sent[op.rank] += op.bytes; // ranks are 0 .. P-1: endpoint id = position (an
                                       // in-network reducer is P, P+1, ...: not a rank)
        }
    }
    return sent;
}

/**
 * \brief Every group of an algorithm the cases try: each op it implements, odd and
 * even sizes, 1 to 16 ranks, one and three channels, a root other than 0, ranks per
 * node, send-recv transfers and an all-to-all matrix; those Validate() accepts.
 * \param algo the algorithm
 * \return the groups
 */
std::vector<WorkloadGroup>
Groups(const CollectiveAlgorithm& algo)
{
    std::vector<WorkloadGroup> groups;
    for (const std::string& op : CollectiveOpNames())
    {
        if (!algo.Supports(op))
        {
            continue;
        }
        for (const uint32_t p : {1U, 2U, 3U, 4U, 5U, 6U, 7U, 8U, 12U, 16U})
        {
            for (const uint32_t channels : {1U, 3U})
            {
                for (const uint64_t bytes : {uint64_t{1000003}, uint64_t{1} << 20})
                {
                    WorkloadGroup g;
                    g.name = "g";
                    g.op = op;
                    g.algorithm = algo.GetName();
                    g.bytes = bytes;
                    g.channels = channels;
                    g.chunkBytes = 64 * 1024;
                    g.gammaSecondsPerByte = 5e-12;
                    g.root = p > 2 ? 2 : 0;
                    g.ranksPerNode = p % 4 == 0 ? 4 : (p % 2 == 0 ? 2 : 1);
                    for (uint32_t i = 0; i < p; ++i)
                    {
                        g.ranks.push_back(i);
                    }
                    if (op == "send-recv")
                    {
                        for (uint32_t i = 0; i + 1 < p; ++i)
                        {
                            g.transfers.push_back(WorkloadTransfer{i, (i + 2) % p, 1000 + i});
                        }
                        if (g.transfers.empty() || p < 3)
                        {
                            g.transfers = {WorkloadTransfer{0, p - 1, 4097}};
                        }
                    }
                    if (op == "permutation" && p >= 2)
                    {
                        for (uint32_t i = 0; i < p; ++i)
                        {
                            g.transfers.push_back(WorkloadTransfer{i, (i + 1) % p, bytes});
                        }
                    }
                    if (op == "all-to-all" && p % 2 == 1)
                    {
                        for (uint32_t i = 0; i < p * p; ++i)
                        {
                            g.matrix.push_back(i % 3 == 0 ? 0 : 777 * i);
                        }
                    }
                    FakeInNetwork(g);
                    if (algo.Validate(g).empty())
                    {
                        groups.push_back(g);
                    }
                }
            }
        }
    }
    return groups;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief The registry: every algorithm once, by a unique name, in a unique list
 * position; the op table; capabilities that agree with Validate().
 */
class CollectiveRegistryTestCase : public TestCase
{
  public:
    CollectiveRegistryTestCase()
        : TestCase("The algorithm registry has unique names and positions and knows every op")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<Ptr<CollectiveAlgorithm>> algorithms = CollectiveAlgorithms();
        const std::vector<std::string> names = CollectiveAlgorithmNames();
        NS_TEST_ASSERT_MSG_EQ(algorithms.size(), names.size(), "one name per algorithm");
        // Today's seven, in today's order: the reader's default (ring, else direct) and
        // its messages depend on it.
        const std::vector<std::string> known
            = {"ring", "tree", "halving-doubling", "hierarchical", "direct", "naive", "binomial"};
        NS_TEST_ASSERT_MSG_GT_OR_EQ(names.size(), known.size(), "every algorithm registered");
        for (std::size_t i = 0; i < known.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(names[i], known[i], "registry order");
        }
        std::set<std::string> unique;
        std::set<uint32_t> positions;
        std::vector<bool> opCovered(COLLECTIVE_OP_COUNT, false);
        for (std::size_t i = 0; i < algorithms.size(); ++i)
        {
            const CollectiveCapabilities caps = algorithms[i]->GetCapabilities();
            NS_TEST_EXPECT_MSG_EQ(caps.name, names[i], "names in registry order");
            NS_TEST_EXPECT_MSG_EQ(unique.insert(caps.name).second, true, "unique " + caps.name);
            NS_TEST_EXPECT_MSG_EQ(positions.insert(caps.listPosition).second,
                                  true,
                                  "unique position of " + caps.name);
            NS_TEST_EXPECT_MSG_NE(caps.ops, 0U, caps.name + " implements an op");
            NS_TEST_EXPECT_MSG_EQ((caps.ops >> COLLECTIVE_OP_COUNT), 0U, "only known ops");
            const Ptr<CollectiveAlgorithm> byName = CreateCollectiveAlgorithm(caps.name);
            NS_TEST_ASSERT_MSG_EQ(bool(byName), true, "found by name");
            NS_TEST_EXPECT_MSG_EQ(byName->GetInstanceTypeId(),
                                  algorithms[i]->GetInstanceTypeId(),
                                  "the same class");
            for (uint32_t o = 0; o < COLLECTIVE_OP_COUNT; ++o)
            {
                const auto op = static_cast<CollectiveOp>(o);
                opCovered[o] = opCovered[o] || algorithms[i]->Supports(op);
                NS_TEST_EXPECT_MSG_EQ(algorithms[i]->Supports(op),
                                      algorithms[i]->Supports(CollectiveOpName(op)),
                                      "Supports by op and by name agree");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(bool(CreateCollectiveAlgorithm("butterfly")), false, "unknown name");

        const std::vector<std::string> ops = CollectiveOpNames();
        NS_TEST_ASSERT_MSG_EQ(ops.size(), COLLECTIVE_OP_COUNT, "one name per op");
        const std::set<std::string> uniqueOps(ops.begin(), ops.end());
        NS_TEST_EXPECT_MSG_EQ(uniqueOps.size(), ops.size(), "op names unique");
        for (uint32_t o = 0; o < COLLECTIVE_OP_COUNT; ++o)
        {
            CollectiveOp op;
            NS_TEST_EXPECT_MSG_EQ(CollectiveOpFromName(ops[o], op), true, "op name known");
            NS_TEST_EXPECT_MSG_EQ(static_cast<uint32_t>(op), o, "op name round trip");
            NS_TEST_EXPECT_MSG_EQ(opCovered[o], true, ops[o] + " has an algorithm");
            const bool reduces
                = ops[o] == "all-reduce" || ops[o] == "reduce-scatter" || ops[o] == "reduce";
            NS_TEST_EXPECT_MSG_EQ(CollectiveOpReduces(ops[o]), reduces, "reduces: " + ops[o]);
        }
        CollectiveOp unknown;
        NS_TEST_EXPECT_MSG_EQ(CollectiveOpFromName("compute", unknown), false, "no such op");
        NS_TEST_EXPECT_MSG_EQ(CollectiveOpReduces("compute"), false, "no such op");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Validate() names what is wrong with a group: unsupported op, P not a power of
 * two, no or a bad ranks per node, root, channels, gamma, matrix, transfers, chunk,
 * duplicate ranks. (Moved from CollectivesTest.NamesAndValidation.)
 */
class CollectiveValidationTestCase : public TestCase
{
  public:
    CollectiveValidationTestCase()
        : TestCase("Validate names every problem of a group")
    {
    }

  private:
    /// A group over GPUs 0 .. p-1, chunked as traffic YAML defaults to.
    static WorkloadGroup MakeGroup(const std::string& op,
                                   const std::string& algorithm,
                                   uint32_t p,
                                   uint64_t bytes)
    {
        WorkloadGroup g;
        g.name = op + "/" + algorithm;
        g.op = op;
        g.algorithm = algorithm;
        g.bytes = bytes;
        g.ranks.resize(p);
        std::iota(g.ranks.begin(), g.ranks.end(), 0);
        g.chunkBytes = WorkloadGroup::NCCL_CHUNK_BYTES;
        return g;
    }

    /// \return the group's problem, by its algorithm
    static std::string Problem(const WorkloadGroup& g)
    {
        return CreateCollectiveAlgorithm(g.algorithm)->Validate(g);
    }

    /// \return whether the group's problem mentions \p words
    static bool Says(const WorkloadGroup& g, const std::string& words)
    {
        return Problem(g).find(words) != std::string::npos;
    }

    void DoRun() override
    {
        for (const std::string& name : CollectiveAlgorithmNames())
        {
            NS_TEST_EXPECT_MSG_EQ(
                CreateCollectiveAlgorithm(name)->GetInstanceTypeId().GetGroupName(),
                "AiFabric",
                name);
        }
        NS_TEST_EXPECT_MSG_EQ(Problem(MakeGroup("all-reduce", "halving-doubling", 8, 1024)),
                              "",
                              "halving-doubling on 8");
        NS_TEST_EXPECT_MSG_EQ(
            Says(MakeGroup("all-reduce", "halving-doubling", 6, 1024), "power-of-two"),
            true,
            "halving-doubling on 6");
        NS_TEST_EXPECT_MSG_EQ(Says(MakeGroup("all-to-all", "ring", 4, 1024), "does not implement"),
                              true,
                              "ring all-to-all");
        WorkloadGroup perm = MakeGroup("permutation", "direct", 3, 1024);
        NS_TEST_EXPECT_MSG_EQ(Says(perm, "one transfer per rank"), true, "no transfers");
        perm.transfers = {{0, 1, 1024}, {1, 2, 1024}, {2, 0, 1024}};
        NS_TEST_EXPECT_MSG_EQ(Problem(perm), "", "a derangement");
        perm.transfers[2].dst = 2; // a fixed point
        NS_TEST_EXPECT_MSG_EQ(Says(perm, "not a derangement"), true, "a fixed point");
        perm.transfers[2].dst = 1; // rank 1 receives twice
        NS_TEST_EXPECT_MSG_EQ(Says(perm, "not a derangement"), true, "a double receiver");
        WorkloadGroup h = MakeGroup("all-reduce", "hierarchical", 8, 1024);
        NS_TEST_EXPECT_MSG_EQ(Problem(h),
                              "hierarchical needs the number of ranks per node (G)",
                              "ranksPerNode missing");
        h.ranksPerNode = 3;
        NS_TEST_EXPECT_MSG_EQ(Problem(h),
                              "hierarchical needs the ranks (8) to be a multiple of the ranks "
                              "per node (3)",
                              "ranksPerNode 3");
        h.ranksPerNode = 4;
        NS_TEST_EXPECT_MSG_EQ(Problem(h), "", "ranksPerNode 4");
        WorkloadGroup b = MakeGroup("broadcast", "ring", 4, 1024);
        b.root = 4;
        NS_TEST_EXPECT_MSG_EQ(Says(b, "root"), true, "root out of range");
        WorkloadGroup c = MakeGroup("all-reduce", "ring", 4, 1024);
        c.channels = 0;
        NS_TEST_EXPECT_MSG_NE(Problem(c), "", "no channel");
        c.channels = 65;
        NS_TEST_EXPECT_MSG_NE(Problem(c), "", "65 channels");
        c.channels = 2;
        c.gammaSecondsPerByte = -1;
        NS_TEST_EXPECT_MSG_NE(Problem(c), "", "negative gamma");
        WorkloadGroup m = MakeGroup("all-to-all", "direct", 3, 0);
        m.matrix = {0, 1, 2, 3};
        NS_TEST_EXPECT_MSG_EQ(Says(m, "P x P"), true, "matrix size");
        WorkloadGroup sr = MakeGroup("send-recv", "direct", 3, 0);
        NS_TEST_EXPECT_MSG_NE(Problem(sr), "", "no transfers");
        sr.transfers = {{0, 3, 10}};
        NS_TEST_EXPECT_MSG_NE(Problem(sr), "", "transfer out of range");
        sr.transfers = {{1, 1, 10}};
        NS_TEST_EXPECT_MSG_NE(Problem(sr), "", "transfer to itself");
        sr.transfers = {{0, 2, 10}};
        NS_TEST_EXPECT_MSG_EQ(Problem(sr), "", "one transfer");
        WorkloadGroup tiny = MakeGroup("all-reduce", "ring", 3, uint64_t{1} << 30);
        tiny.chunkBytes = 16;
        NS_TEST_EXPECT_MSG_EQ(Says(tiny, "pieces"), true, "tiny chunks");
        tiny.chunkBytes = 0; // whole steps
        NS_TEST_EXPECT_MSG_EQ(Problem(tiny), "", "whole steps");
        NS_TEST_EXPECT_MSG_EQ(WorkloadGroup().chunkBytes, 0U, "no pipelining by default");
        WorkloadGroup dup = MakeGroup("all-reduce", "ring", 3, 10);
        dup.ranks = {0, 1, 1};
        NS_TEST_EXPECT_MSG_EQ(Says(dup, "twice"), true, "a rank twice");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief One algorithm against itself: its bytes per rank (closed form, exact
 * integers) equal the bytes its message DAG sends; its textbook closed form equals
 * the sum of its per-step costs; its capabilities agree with Validate().
 */
class CollectiveAlgorithmTestCase : public TestCase
{
  public:
    /// \param name the algorithm's registry name
    explicit CollectiveAlgorithmTestCase(const std::string& name)
        : TestCase("Algorithm " + name + ": bytes per rank, closed form and capabilities")
        , m_name(name)
    {
    }

  private:
    void DoRun() override
    {
        const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(m_name);
        NS_TEST_ASSERT_MSG_EQ(bool(algo), true, "registered");
        const CollectiveCapabilities caps = algo->GetCapabilities();
        CollectiveCost cost;
        cost.inter.alphaS = 3e-6;
        cost.inter.betaSPerByte = 1 / 50e9;
        cost.intra.alphaS = 1e-6;
        cost.intra.betaSPerByte = 1 / 400e9;
        uint32_t bytesChecked = 0;
        uint32_t formulasChecked = 0;
        for (const WorkloadGroup& g : Groups(*algo))
        {
            const std::string what = g.op + " P=" + std::to_string(g.ranks.size()) + " C="
                                     + std::to_string(g.channels) + " S=" + std::to_string(g.bytes);
            std::vector<uint64_t> expected;
            if (algo->BytesPerRank(g, expected))
            {
                NS_TEST_EXPECT_MSG_EQ((expected == BuiltBytes(*algo, g)),
                                      true,
                                      m_name + " bytes per rank, " + what);
                ++bytesChecked;
            }
            else
            {
                // The one op no byte formula covers: a permutation's transfers are drawn
                // at random (MakePermutationTransfers) and checked as send-recv.
                NS_TEST_EXPECT_MSG_EQ(g.op, "permutation", m_name + " has a byte formula");
            }

            CollectiveTerms x;
            x.p = g.ranks.size();
            x.n = static_cast<double>(g.bytes);
            x.c = 1;
            x.gamma = g.gammaSecondsPerByte;
            x.alpha = cost.inter.alphaS;
            x.beta = cost.inter.betaSPerByte;
            x.chunk = 0;
            const double formula = algo->FormulaTime(g, cost, x);
            const std::vector<double> steps = algo->StepTimes(g, cost, x);
            // A MISSION.md id names a formula (halving-doubling's reduce-scatter and
            // all-gather have a formula but no id of their own).
            NS_TEST_EXPECT_MSG_EQ(
                (algo->FormulaId(g.op).empty() || formula != CollectiveAlgorithm::NO_FORMULA),
                true,
                m_name + " has a formula where it has an id, " + what);
            if (formula == CollectiveAlgorithm::NO_FORMULA)
            {
                NS_TEST_EXPECT_MSG_EQ(steps.size(), 0U, m_name + " steps without formula");
                continue;
            }
            const double sum = std::accumulate(steps.begin(), steps.end(), 0.0);
            NS_TEST_EXPECT_MSG_EQ_TOL(sum,
                                      formula,
                                      formula * 1e-12 + 1e-18,
                                      m_name + " closed form = sum of its steps, " + what);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(algo->ScheduleTime(g, cost, x),
                                        0.0,
                                        m_name + " has a schedule time, " + what);
            ++formulasChecked;
        }
        NS_TEST_EXPECT_MSG_GT(bytesChecked, 20U, m_name + ": groups checked");
        NS_TEST_EXPECT_MSG_EQ(
            (formulasChecked > 0),
            ((algo->FormulaId("all-reduce") != "") || (algo->FormulaId("all-to-all") != "")),
            m_name + ": formulas checked");

        // Capabilities agree with Validate().
        WorkloadGroup g;
        g.name = "g";
        g.algorithm = m_name;
        g.bytes = 1 << 20;
        g.ranks = {0, 1, 2, 3, 4, 5};
        g.ranksPerNode = 0;
        if (caps.inNetwork)
        {
            g.op = "all-reduce";
            FakeInNetwork(g);
            WorkloadGroup none = g;
            none.op = "all-reduce";
            none.switches.clear();
            NS_TEST_EXPECT_MSG_NE(algo->Validate(none).find("switch"),
                                  std::string::npos,
                                  m_name + " refuses ranks without in-network reducers");
        }
        for (uint32_t o = 0; o < COLLECTIVE_OP_COUNT; ++o)
        {
            const auto op = static_cast<CollectiveOp>(o);
            g.op = CollectiveOpName(op);
            if (!algo->Supports(op))
            {
                NS_TEST_EXPECT_MSG_NE(algo->Validate(g).find("does not implement"),
                                      std::string::npos,
                                      m_name + " rejects " + g.op);
                continue;
            }
            if (op != CollectiveOp::ALL_REDUCE)
            {
                continue;
            }
            // 6 ranks, no ranks per node
            const std::string problem = algo->Validate(g);
            NS_TEST_EXPECT_MSG_EQ(problem.empty(),
                                  (!caps.powerOfTwoRanks && !caps.needsRanksPerNode),
                                  m_name + " on 6 ranks without ranks per node: " + problem);
            WorkloadGroup node = g;
            node.ranks = {0, 1, 2, 3};
            node.ranksPerNode = 2;
            NS_TEST_EXPECT_MSG_EQ(algo->Validate(node), "", m_name + " on 2 nodes of 2");
        }
        Simulator::Destroy();
    }

    std::string m_name; //!< the algorithm
};

// ================================================================== the DAGs, built directly

namespace
{

constexpr uint64_t KiB = 1024;        //!< bytes
constexpr uint64_t MiB = 1024 * 1024; //!< bytes

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

/// One SEND op per (group, step, rank, peer, qp)... here simply: sends of a rank by step.
/// \param wl a workload \param rank a rank \return its SEND bytes by step
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

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief A case that builds collectives' DAGs directly and checks them (BuildAndCheck()).
 */
class CollectiveDagTestCase : public TestCase
{
  public:
    /// \param name the case's name
    explicit CollectiveDagTestCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    /**
     * \brief Build one group into a fresh workload and check it: no SEND to itself.
     * \param g the group
     * \param perRankStarts one start op per rank (else one for all)
     * \param wl the workload to fill
     * \return the facts
     */
    DagFacts BuildAndCheck(const WorkloadGroup& g, bool perRankStarts, Workload& wl)
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
        uint32_t endpoints = *std::max_element(g.ranks.begin(), g.ranks.end()) + 1;
        for (const uint32_t sw : g.switches)
        {
            endpoints = std::max(endpoints, sw + 1); // in-network reducers (nvls)
        }
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
                NS_TEST_EXPECT_MSG_NE(op.rank, op.peer, g.name << ": a SEND to itself");
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
};

/**
 * \ingroup ai-fabric-tests
 * \brief Every (algorithm, op) on 1 to 9 ranks, one or per-rank starts, channels and
 * gamma: no cycle, every op reachable from the start ops, one done op per rank, and the
 * bytes sent equal the bytes received.
 * (Moved from CollectivesTest.EveryAlgorithmBuildsAnAcyclicConnectedDag.)
 */
class AcyclicConnectedDagTestCase : public CollectiveDagTestCase
{
  public:
    AcyclicConnectedDagTestCase()
        : CollectiveDagTestCase("Every algorithm builds an acyclic DAG gated by its start ops")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string& name : CollectiveAlgorithmNames())
        {
            for (const std::string& op : CollectiveOpNames())
            {
                for (const uint32_t p : {1U, 2U, 3U, 4U, 5U, 8U, 9U})
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
                        FakeInNetwork(g);
                        if (!CreateCollectiveAlgorithm(name)->Validate(g).empty())
                        {
                            continue;
                        }
                        Workload wl;
                        const DagFacts f = BuildAndCheck(g, perRank, wl);
                        const std::string what = name + " " + op + " P=" + std::to_string(p);
                        NS_TEST_EXPECT_MSG_EQ(f.acyclic, true, what);
                        NS_TEST_EXPECT_MSG_EQ(f.rootsAreStarts, true, what);
                        NS_TEST_EXPECT_MSG_EQ(f.gated, true, what);
                        NS_TEST_EXPECT_MSG_EQ(f.done.size(), p, what);
                        const uint64_t sent
                            = std::accumulate(f.sent.begin(), f.sent.end(), uint64_t{0});
                        const uint64_t recv
                            = std::accumulate(f.received.begin(), f.received.end(), uint64_t{0});
                        NS_TEST_EXPECT_MSG_EQ(sent, recv, what);
                        NS_TEST_EXPECT_MSG_EQ((sent == 0), (p == 1), what);
                    }
                }
            }
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A ring all-reduce of one piece per step keeps the classic shape: 2(P-1) P sends,
 * each after one op. (Moved from CollectivesTest.RingWithOnePieceKeepsTheClassicShape.)
 */
class RingClassicShapeTestCase : public CollectiveDagTestCase
{
  public:
    RingClassicShapeTestCase()
        : CollectiveDagTestCase("A ring of one piece per step keeps the classic shape")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 4;
        WorkloadGroup g = MakeGroup("all-reduce", "ring", p, 4000);
        Workload wl;
        const DagFacts f = BuildAndCheck(g, false, wl);
        NS_TEST_EXPECT_MSG_EQ(f.sends, 2U * (p - 1) * p, "sends");
        NS_TEST_EXPECT_MSG_EQ(f.delays, 1U + p, "start + done ops");
        for (uint32_t i = 1; i < wl.GetOps().size(); ++i)
        {
            if (wl.GetOps()[i].kind == WorkloadOp::SEND)
            {
                NS_TEST_EXPECT_MSG_EQ(wl.GetInDegree(i), 1U, "op " << i);
            }
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Channels and chunks split messages, never change the bytes: every rank sends
 * 2S - block_i - block_{i+1} per channel (2(P-1)/P S when P divides S).
 * (Moved from CollectivesTest.RingChannelsAndChunksKeepTheBytes.)
 */
class RingChannelsKeepBytesTestCase : public CollectiveDagTestCase
{
  public:
    RingChannelsKeepBytesTestCase()
        : CollectiveDagTestCase("Ring channels and chunks split messages and keep the bytes")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 4;
        for (const uint32_t channels : {1U, 3U})
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
                NS_TEST_EXPECT_MSG_EQ(f.sends,
                                      channels * 2ULL * (p - 1) * p * pieces,
                                      "C=" << channels << " chunk " << chunk);
                for (uint32_t r = 0; r < p; ++r)
                {
                    NS_TEST_EXPECT_MSG_EQ(f.sent[r], 2ULL * (p - 1) * 12 * MiB / p, "rank " << r);
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
                        NS_TEST_EXPECT_MSG_EQ(wl.GetInDegree(i), 1U, "op " << i);
                    }
                }
                NS_TEST_EXPECT_MSG_EQ(perQp.size(), channels, "one queue pair per channel");
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
                const auto blocks = CollectiveAlgorithm::SplitChunks(
                    CollectiveAlgorithm::SplitShare(g.bytes, 2, c),
                    3);
                expected += 2 * CollectiveAlgorithm::SplitShare(g.bytes, 2, c) - blocks[r]
                            - blocks[(r + 1) % 3];
            }
            NS_TEST_EXPECT_MSG_EQ(f.sent[r], expected, "uneven, rank " << r);
        }
        NS_TEST_EXPECT_MSG_EQ(std::accumulate(f.sent.begin(), f.sent.end(), uint64_t{0}),
                              2ULL * 2 * g.bytes,
                              "uneven, in all");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Ring reduce-scatter, all-gather, broadcast and reduce send the bytes of their
 * chains. (Moved from CollectivesTest.RingReduceScatterAllGatherBroadcastReduceBytes.)
 */
class RingOtherOpsBytesTestCase : public CollectiveDagTestCase
{
  public:
    RingOtherOpsBytesTestCase()
        : CollectiveDagTestCase("Ring reduce-scatter, all-gather, broadcast and reduce bytes")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 5;
        const uint64_t s = 5 * MiB;
        for (const std::string op : {"reduce-scatter", "all-gather"})
        {
            Workload wl;
            const DagFacts f = BuildAndCheck(MakeGroup(op, "ring", p, s), false, wl);
            for (uint32_t r = 0; r < p; ++r)
            {
                NS_TEST_EXPECT_MSG_EQ(f.sent[r], (p - 1) * s / p, op << " rank " << r);
            }
        }
        // Chains from/to root 2: 3 -> 4 -> 0 -> 1 for broadcast (from 2), reduce ends at 2.
        for (const std::string op : {"broadcast", "reduce"})
        {
            WorkloadGroup g = MakeGroup(op, "ring", p, 3 * MiB);
            g.root = 2;
            Workload wl;
            const DagFacts f = BuildAndCheck(g, false, wl);
            NS_TEST_EXPECT_MSG_EQ(f.sends, (p - 1) * 6U, op << ": 6 pieces of 512 KiB per hop");
            const uint32_t idle = op == "broadcast" ? 1 : 2; // chain end sends nothing
            for (uint32_t r = 0; r < p; ++r)
            {
                NS_TEST_EXPECT_MSG_EQ(f.sent[r], (r == idle ? 0 : 3 * MiB), op << " rank " << r);
            }
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief NCCL's trees (trees.cc): the 14-rank example of its comment; each tree spans the
 * ranks; for even P every rank is a leaf in exactly one tree.
 * (Moved from CollectivesTest.DoubleBinaryTreeIsNccls.)
 */
class DoubleBinaryTreeTestCase : public TestCase
{
  public:
    DoubleBinaryTreeTestCase()
        : TestCase("The double binary tree is NCCL's")
    {
    }

  private:
    void DoRun() override
    {
        using T = TreeCollectiveAlgorithm;
        // 0---8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10, 13; 2 -> 1, 3; ... (trees.cc comment)
        NS_TEST_EXPECT_MSG_EQ(T::BinaryTreeNode(14, 0).child1, 8, "0's child");
        NS_TEST_EXPECT_MSG_EQ(T::BinaryTreeNode(14, 8).parent, 0, "8's parent");
        NS_TEST_EXPECT_MSG_EQ(T::BinaryTreeNode(14, 8).child0, 4, "8's first child");
        NS_TEST_EXPECT_MSG_EQ(T::BinaryTreeNode(14, 8).child1, 12, "8's second child");
        NS_TEST_EXPECT_MSG_EQ(T::BinaryTreeNode(14, 12).child0, 10, "12's first child");
        NS_TEST_EXPECT_MSG_EQ(T::BinaryTreeNode(14, 12).child1, 13, "12's second child");
        NS_TEST_EXPECT_MSG_EQ(T::BinaryTreeNode(14, 13).parent, 12, "13's parent");
        NS_TEST_EXPECT_MSG_EQ(T::BinaryTreeNode(14, 5).parent, 6, "5's parent");
        // Mirror (even P): rank r plays P-1-r.
        NS_TEST_EXPECT_MSG_EQ(T::DoubleBinaryTreeNode(14, 13, 1).child1, 5, "mirror");
        NS_TEST_EXPECT_MSG_EQ(T::DoubleBinaryTreeNode(14, 0, 1).parent, 1, "mirror");
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
                            NS_TEST_EXPECT_MSG_EQ(T::DoubleBinaryTreeNode(p, c, t).parent,
                                                  static_cast<int32_t>(r),
                                                  "P=" << p << " tree " << t << " child " << c);
                        }
                    }
                }
                NS_TEST_EXPECT_MSG_EQ(roots, 1U, "P=" << p);
                NS_TEST_EXPECT_MSG_EQ(edges, p - 1, "P=" << p);
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
                NS_TEST_EXPECT_MSG_EQ(leafIn,
                                      ((p % 2 == 1 && r == 0) ? 0U : 1U),
                                      "P=" << p << " r=" << r);
            }
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Tree all-reduce: each tree carries S/2 over its P-1 edges, up and down: 2(P-1) S
 * in all, and each rank sends S/2 per tree neighbour; broadcast and reduce: S per edge of
 * one binary tree. (Moved from CollectivesTest.TreeAllReduceBytes.)
 */
class TreeBytesTestCase : public CollectiveDagTestCase
{
  public:
    TreeBytesTestCase()
        : CollectiveDagTestCase("Tree all-reduce, broadcast and reduce bytes")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t p : {2U, 7U, 8U, 13U})
        {
            const uint64_t s = 4 * MiB;
            Workload wl;
            const DagFacts f = BuildAndCheck(MakeGroup("all-reduce", "tree", p, s), false, wl);
            NS_TEST_EXPECT_MSG_EQ(std::accumulate(f.sent.begin(), f.sent.end(), uint64_t{0}),
                                  2ULL * (p - 1) * s,
                                  "P=" << p);
            for (uint32_t r = 0; r < p; ++r)
            {
                uint64_t expected = 0;
                for (uint32_t t = 0; t < 2; ++t)
                {
                    const auto n = TreeCollectiveAlgorithm::DoubleBinaryTreeNode(p, r, t);
                    expected += s / 2 * ((n.parent >= 0) + (n.child0 >= 0) + (n.child1 >= 0));
                }
                NS_TEST_EXPECT_MSG_EQ(f.sent[r], expected, "P=" << p << " r=" << r);
                // at most 4 tree neighbours of S/2
                NS_TEST_EXPECT_MSG_LT_OR_EQ(f.sent[r], 2 * s, "P=" << p << " r=" << r);
            }
            // 4 (P-1) messages of S/2 (one piece of 2 MiB each: 4 pieces of 512 KiB).
            NS_TEST_EXPECT_MSG_EQ(f.sends, 4ULL * (p - 1) * 4, "P=" << p);
        }
        // Broadcast and reduce over one binary tree rooted at position 3: S per tree edge.
        for (const std::string op : {"broadcast", "reduce"})
        {
            WorkloadGroup g = MakeGroup(op, "tree", 6, MiB);
            g.root = 3;
            Workload wl;
            const DagFacts f = BuildAndCheck(g, false, wl);
            NS_TEST_EXPECT_MSG_EQ(std::accumulate(f.sent.begin(), f.sent.end(), uint64_t{0}),
                                  5ULL * MiB,
                                  op);
            NS_TEST_EXPECT_MSG_EQ((op == "broadcast" ? f.received[3] : f.sent[3]), 0U, op);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Halving-doubling: message sizes S/2, S/4, ..., S/P then back; (P-1)/P S per phase.
 * (Moved from CollectivesTest.HalvingDoublingBytes.)
 */
class HalvingDoublingBytesTestCase : public CollectiveDagTestCase
{
  public:
    HalvingDoublingBytesTestCase()
        : CollectiveDagTestCase("Halving-doubling message sizes and bytes")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 8;
        const uint64_t s = 8 * MiB;
        Workload wl;
        const DagFacts f
            = BuildAndCheck(MakeGroup("all-reduce", "halving-doubling", p, s), false, wl);
        NS_TEST_EXPECT_MSG_EQ(f.sends, 2U * 3 * p, "sends");
        for (uint32_t r = 0; r < p; ++r)
        {
            NS_TEST_EXPECT_MSG_EQ(f.sent[r], 2 * (p - 1) * s / p, "rank " << r);
            const auto steps = MessagesByStep(wl, r);
            const std::vector<uint64_t> sizes{s / 2, s / 4, s / 8, s / 8, s / 4, s / 2};
            for (uint32_t k = 0; k < 6; ++k)
            {
                const auto it = steps.find(k);
                NS_TEST_ASSERT_MSG_EQ((it != steps.end()), true, "rank " << r << " step " << k);
                NS_TEST_EXPECT_MSG_EQ((it->second == std::vector<uint64_t>{sizes[k]}),
                                      true,
                                      "rank " << r << " step " << k << ": " << Join(it->second));
            }
        }
        for (const std::string op : {"reduce-scatter", "all-gather"})
        {
            Workload w2;
            const DagFacts g = BuildAndCheck(MakeGroup(op, "halving-doubling", 4, s), false, w2);
            NS_TEST_EXPECT_MSG_EQ(g.sends, 2U * 4, op);
            NS_TEST_EXPECT_MSG_EQ(g.sent[1], 3 * s / 4, op);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Hierarchical, 3 nodes x 4 GPUs: 2(G-1)/G S intra + 2(N-1)/N S/G inter per rank.
 * (Moved from CollectivesTest.HierarchicalBytes.)
 */
class HierarchicalBytesTestCase : public CollectiveDagTestCase
{
  public:
    HierarchicalBytesTestCase()
        : CollectiveDagTestCase("Hierarchical intra- and inter-node bytes")
    {
    }

  private:
    void DoRun() override
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
                    NS_TEST_EXPECT_MSG_EQ(op.rank % gpn, op.peer % gpn, "same local index");
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(intra, uint64_t{gpn} * nodes * 2 * (gpn - 1) * s / gpn, "intra");
        NS_TEST_EXPECT_MSG_EQ(inter,
                              uint64_t{gpn} * nodes * 2 * (nodes - 1) * (s / gpn) / nodes,
                              "inter");
        for (uint32_t r = 0; r < gpn * nodes; ++r)
        {
            NS_TEST_EXPECT_MSG_EQ(f.sent[r],
                                  2 * (gpn - 1) * s / gpn + 2 * (nodes - 1) * (s / gpn) / nodes,
                                  "rank " << r);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Direct all-to-all (uniform and a matrix), send-recv and naive all-reduce bytes;
 * one queue pair per pair; naive sends one at a time.
 * (Moved from CollectivesTest.DirectAllToAllSendRecvAndNaiveBytes.)
 */
class DirectAndNaiveBytesTestCase : public CollectiveDagTestCase
{
  public:
    DirectAndNaiveBytesTestCase()
        : CollectiveDagTestCase("Direct all-to-all, send-recv and naive bytes")
    {
    }

  private:
    void DoRun() override
    {
        {
            const uint32_t p = 5;
            Workload wl;
            const DagFacts f = BuildAndCheck(MakeGroup("all-to-all", "direct", p, 5000), false, wl);
            NS_TEST_EXPECT_MSG_EQ(f.sends, uint64_t{p} * (p - 1), "sends");
            for (uint32_t r = 0; r < p; ++r)
            {
                NS_TEST_EXPECT_MSG_EQ(f.sent[r], 4000U, "(P-1)/P S, rank " << r);
                NS_TEST_EXPECT_MSG_EQ(f.received[r], 4000U, "rank " << r);
            }
            // each pair its own queue pair: distinct (rank, peer) per SEND
            std::map<std::pair<uint32_t, uint32_t>, int> pairs;
            for (const WorkloadOp& op : wl.GetOps())
            {
                if (op.kind == WorkloadOp::SEND)
                {
                    NS_TEST_EXPECT_MSG_EQ(++pairs[std::make_pair(op.rank, op.peer)],
                                          1,
                                          op.rank << " -> " << op.peer);
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
            NS_TEST_EXPECT_MSG_EQ(f.sends, 8U, "4 nonzero off-diagonal entries x 2 channels");
            NS_TEST_EXPECT_MSG_EQ((f.sent == std::vector<uint64_t>{100, 12, 1000}),
                                  true,
                                  "sent " << Join(f.sent));
            NS_TEST_EXPECT_MSG_EQ((f.received == std::vector<uint64_t>{1007, 100, 5}),
                                  true,
                                  "received " << Join(f.received));
        }
        {
            WorkloadGroup g = MakeGroup("send-recv", "direct", 4, 0);
            g.ranks = {7, 2, 5, 0};
            g.transfers = {{0, 1, 300}, {0, 3, 50}, {2, 0, 8}};
            Workload wl;
            const DagFacts f = BuildAndCheck(g, false, wl);
            NS_TEST_EXPECT_MSG_EQ(f.sends, 3U, "send-recv sends");
            NS_TEST_EXPECT_MSG_EQ(f.sent[7], 350U, "GPU 7 sent");
            NS_TEST_EXPECT_MSG_EQ(f.received[2], 300U, "GPU 2 received");
            NS_TEST_EXPECT_MSG_EQ(f.received[0], 50U, "GPU 0 received");
            NS_TEST_EXPECT_MSG_EQ(f.received[7], 8U, "GPU 7 received");
        }
        {
            const uint32_t p = 4;
            Workload wl;
            const DagFacts f = BuildAndCheck(MakeGroup("all-reduce", "naive", p, MiB), false, wl);
            NS_TEST_EXPECT_MSG_EQ(f.sends, 2U * (p - 1), "naive sends");
            NS_TEST_EXPECT_MSG_EQ(f.sent[0], (p - 1) * MiB, "the root sends");
            NS_TEST_EXPECT_MSG_EQ(f.received[0], (p - 1) * MiB, "the root receives");
            for (uint32_t r = 1; r < p; ++r)
            {
                NS_TEST_EXPECT_MSG_EQ(f.sent[r], MiB, "rank " << r);
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
                NS_TEST_EXPECT_MSG_EQ(wl.GetInDegree(i), 1U, "op " << i);
                const uint32_t* s = wl.SuccessorsBegin(previous);
                NS_TEST_EXPECT_MSG_NE(std::find(s, wl.SuccessorsEnd(previous), i),
                                      wl.SuccessorsEnd(previous),
                                      "op " << i << " follows op " << previous);
                previous = i;
            }
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Binomial tree: ceil(log2 P) rounds each way; the root sends and receives L S.
 * (Moved from CollectivesTest.BinomialBytes.)
 */
class BinomialBytesTestCase : public CollectiveDagTestCase
{
  public:
    BinomialBytesTestCase()
        : CollectiveDagTestCase("Binomial tree bytes")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint32_t p : {6U, 8U})
        {
            const uint32_t rounds = 3;
            Workload wl;
            const DagFacts f
                = BuildAndCheck(MakeGroup("all-reduce", "binomial", p, MiB), false, wl);
            NS_TEST_EXPECT_MSG_EQ(f.sends, 2U * (p - 1), "P=" << p);
            NS_TEST_EXPECT_MSG_EQ(f.sent[0], rounds * MiB, "P=" << p);
            NS_TEST_EXPECT_MSG_EQ(f.received[0], rounds * MiB, "P=" << p);
            NS_TEST_EXPECT_MSG_EQ(f.sent[p - 1], MiB, "P=" << p);
            NS_TEST_EXPECT_MSG_EQ(std::accumulate(f.sent.begin(), f.sent.end(), uint64_t{0}),
                                  2ULL * (p - 1) * MiB,
                                  "P=" << p);
        }
        WorkloadGroup g = MakeGroup("broadcast", "binomial", 5, MiB);
        g.root = 3;
        Workload wl;
        const DagFacts f = BuildAndCheck(g, false, wl);
        NS_TEST_EXPECT_MSG_EQ(f.sent[3], 3 * MiB, "to relative ranks 4, 2, 1");
        NS_TEST_EXPECT_MSG_EQ(f.received[3], 0U, "the root receives nothing");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Gamma: one DELAY of bytes x gamma per reduced arrival, and none without gamma.
 * (Moved from CollectivesTest.GammaInsertsReductionDelays.)
 */
class GammaDelaysTestCase : public CollectiveDagTestCase
{
  public:
    GammaDelaysTestCase()
        : CollectiveDagTestCase("The reduction cost gamma inserts reduction delays")
    {
    }

  private:
    void DoRun() override
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
        NS_TEST_EXPECT_MSG_EQ(f.delays, (p - 1) * p * 4U + 1 + p, "delays");
        // every rank reduces (P-1)/P S. (At ns-3's default nanosecond resolution, test.py in
        // an ns-3 tree, each DELAY's duration is cut to whole nanoseconds.)
        const double perDelay = Time::GetResolution() == Time::PS ? 0 : 1e-9;
        NS_TEST_EXPECT_MSG_EQ_TOL(f.delaySeconds,
                                  p * (p - 1.0) / p * s * gamma,
                                  1e-12 + f.delays * perDelay,
                                  "reduction time");
        for (const std::string algo : {"tree", "halving-doubling", "direct", "naive"})
        {
            WorkloadGroup h = MakeGroup("all-reduce", algo, p, s);
            h.gammaSecondsPerByte = gamma;
            Workload w2;
            const DagFacts k = BuildAndCheck(h, false, w2);
            NS_TEST_EXPECT_MSG_GT(k.delaySeconds, 0, algo);
            // bytes reduced: tree: each non-root rank's piece per tree is reduced once at
            // its parent, (P-1) S / 2 per tree; hd, direct: (P-1)/P S per rank; naive: (P-1) S
            const double reduced = algo == "tree"    ? (p - 1.0) * s
                                   : algo == "naive" ? (p - 1.0) * s
                                                     : (p - 1.0) * s;
            NS_TEST_EXPECT_MSG_EQ_TOL(k.delaySeconds,
                                      reduced * gamma,
                                      1e-12 + k.delays * perDelay,
                                      algo);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A 1024-rank ring all-reduce (2 M ops) and a 1024 x 1023 all-to-all (1 M ops) build
 * with the exact op counts; an op stays at 40 bytes. The build time is printed, not
 * asserted (speed is measured by bench/). (Moved from CollectivesTest.LargeGroupsBuildExactly.)
 */
class LargeGroupsTestCase : public TestCase
{
  public:
    LargeGroupsTestCase()
        : TestCase("1024-rank ring all-reduce and all-to-all build with the exact op counts")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_LT_OR_EQ(sizeof(WorkloadOp), 40U, "an op's size");
        for (const std::string op : {"all-reduce", "all-to-all"})
        {
            const auto t0 = std::chrono::steady_clock::now();
            Workload wl;
            WorkloadGroup g
                = MakeGroup(op, op == "all-reduce" ? "ring" : "direct", 1024, 256 * MiB);
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
            NS_TEST_EXPECT_MSG_EQ(wl.GetOps().size(),
                                  (op == "all-reduce" ? std::size_t{1 + 2 * 1023 * 1024 + 1024}
                                                      : std::size_t{1 + 1024 * 1023 + 1024}),
                                  op);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A ring all-reduce in any rank order: 2(P-1) steps of P sends to the successor in
 * the given order, each after one op; one done op per rank after its last message in and
 * out. (Moved from RingCollectiveTest.AllReduceScheduleSendsEachChunkOncePerStep.)
 */
class RingAnyOrderTestCase : public TestCase
{
  public:
    RingAnyOrderTestCase()
        : TestCase("A ring all-reduce in any rank order sends each chunk once per step")
    {
    }

  private:
    void DoRun() override
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
        NS_TEST_ASSERT_MSG_EQ(wl.GetOps().size(), 1U + 2 * (p - 1) * p + p, "ops");
        NS_TEST_ASSERT_MSG_EQ(done.size(), p, "done ops");
        std::map<uint32_t, uint64_t> sent;
        // successor in the given ring order
        const std::map<uint32_t, uint32_t> next{{3, 1}, {1, 0}, {0, 2}, {2, 3}};
        for (uint32_t i = 1; i < wl.GetOps().size(); ++i)
        {
            const WorkloadOp& op = wl.GetOps()[i];
            if (op.kind == WorkloadOp::DELAY)
            {
                NS_TEST_EXPECT_MSG_EQ((std::find(done.begin(), done.end(), i) != done.end()),
                                      true,
                                      "op " << i << " is a done op");
                // last message in, own last message out
                NS_TEST_EXPECT_MSG_EQ(wl.GetInDegree(i), 2U, "op " << i);
                continue;
            }
            sent[op.rank] += op.bytes;
            NS_TEST_EXPECT_MSG_EQ(op.peer, next.at(op.rank), "op " << i);
            // step s > 0 waits for exactly one op: the predecessor's previous step
            NS_TEST_EXPECT_MSG_EQ(wl.GetInDegree(i), 1U, "op " << i);
        }
        for (const auto& [rank, bytes] : sent)
        {
            NS_TEST_EXPECT_MSG_EQ(bytes, 2U * (p - 1) * 4000 / p, "rank " << rank);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Uneven sizes split into chunks differing by one byte.
 * (Moved from RingCollectiveTest.UnevenSizesSplitIntoChunksDifferingByOneByte.)
 */
class SplitChunksTestCase : public TestCase
{
  public:
    SplitChunksTestCase()
        : TestCase("Uneven sizes split into chunks differing by one byte")
    {
    }

  private:
    void DoRun() override
    {
        const auto c = CollectiveAlgorithm::SplitChunks(10, 4);
        NS_TEST_EXPECT_MSG_EQ((c == std::vector<uint64_t>{3, 3, 2, 2}), true, Join(c));
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A permutation's transfers are a derangement: one per rank, every rank receives
 * once, none keeps its data; P = 2 has one, the swap.
 * (Moved from Permutation.TransfersAreADerangement.)
 */
class PermutationDerangementTestCase : public TestCase
{
  public:
    PermutationDerangementTestCase()
        : TestCase("Permutation transfers are a derangement")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(7);
        Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(3);
        for (uint32_t p : {2U, 3U, 8U, 64U, 320U})
        {
            const std::vector<WorkloadTransfer> t = MakePermutationTransfers(p, 1000, rng);
            NS_TEST_ASSERT_MSG_EQ(t.size(), p, "one transfer per rank");
            std::set<uint32_t> dsts;
            for (uint32_t i = 0; i < p; ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(t[i].src, i, "source");
                NS_TEST_EXPECT_MSG_NE(t[i].dst,
                                      i,
                                      "rank " << i << " of " << p << " sends to itself");
                NS_TEST_EXPECT_MSG_LT(t[i].dst, p, "destination");
                NS_TEST_EXPECT_MSG_EQ(t[i].bytes, 1000U, "bytes");
                dsts.insert(t[i].dst);
            }
            NS_TEST_EXPECT_MSG_EQ(dsts.size(), p, "every rank receives exactly once");
        }
        // P = 2 has one derangement: the swap.
        const std::vector<WorkloadTransfer> two = MakePermutationTransfers(2, 1, rng);
        NS_TEST_EXPECT_MSG_EQ(two[0].dst, 1U, "the swap");
        NS_TEST_EXPECT_MSG_EQ(two[1].dst, 0U, "the swap");
        RngSeedManager::SetSeed(1);
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A permutation needs two ranks: on one rank it has no transfer, which Validate()
 * names (a runner reports it as an input error).
 * (Moved from Permutation.NeedsTwoRanks, which ran it through the tool's scenario runner.)
 */
class PermutationTwoRanksTestCase : public TestCase
{
  public:
    PermutationTwoRanksTestCase()
        : TestCase("A permutation needs two ranks")
    {
    }

  private:
    void DoRun() override
    {
        WorkloadGroup g = MakeGroup("permutation", "direct", 1, 1024);
        g.ranks = {2};
        NS_TEST_EXPECT_MSG_NE(CreateCollectiveAlgorithm("direct")->Validate(g),
                              "",
                              "one rank is refused");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief NCCL's channels (PlanChannels()): the default count matches NCCL's logged counts; the
 * topology ring orders are permutations whose hops between servers stay on one rail and that
 * use every NIC of a server once in each direction over R rings; a ring built on them sends
 * what the bytes oracle says, for every ring op, uneven sizes and a root off the first server.
 */
class ChannelPlanTestCase : public CollectiveDagTestCase
{
  public:
    ChannelPlanTestCase()
        : CollectiveDagTestCase("NCCL-like channels: count, rail-aligned ring orders, bytes")
    {
    }

  private:
    /// \param servers S \param perServer m \return places of S x m GPUs, server-major
    static std::vector<EndpointPlace> Places(uint32_t servers, uint32_t perServer)
    {
        std::vector<EndpointPlace> places(servers * perServer);
        for (uint32_t i = 0; i < places.size(); ++i)
        {
            places[i].server = i / perServer;
            places[i].local = i % perServer;
        }
        return places;
    }

    /// \param n how many \return 0 .. n-1
    static std::vector<uint32_t> Iota(uint32_t n)
    {
        std::vector<uint32_t> v(n);
        std::iota(v.begin(), v.end(), 0);
        return v;
    }

    void DoRun() override
    {
        // Counts: NCCL's logs (nccl#892: 8 GPUs in one server, 16; nccl#1189: 2 x 2, 8).
        NS_TEST_EXPECT_MSG_EQ(NcclChannelCount(Iota(8), Places(1, 8)), 16U, "1 x 8");
        NS_TEST_EXPECT_MSG_EQ(NcclChannelCount(Iota(4), Places(2, 2)), 8U, "2 x 2");
        NS_TEST_EXPECT_MSG_EQ(NcclChannelCount(Iota(16), Places(2, 8)), 16U, "2 x 8");
        NS_TEST_EXPECT_MSG_EQ(NcclChannelCount(Iota(4), Places(4, 1)), 4U, "4 x 1");
        NS_TEST_EXPECT_MSG_EQ(NcclChannelCount(Iota(72), Places(1, 72)), 64U, "MAXCHANNELS");
        NS_TEST_EXPECT_MSG_EQ(NcclChannelCount(Iota(4), {}), 4U, "no places: own servers");

        for (const uint32_t servers : {2U, 3U, 4U, 5U})
        {
            for (const uint32_t m : {1U, 2U, 3U, 8U})
            {
                const std::string what = std::to_string(servers) + " x " + std::to_string(m);
                const std::vector<EndpointPlace> places = Places(servers, m);
                // Ranks listed out of order: the plan goes by place, not by position.
                std::vector<uint32_t> ranks = Iota(servers * m);
                std::reverse(ranks.begin(), ranks.end());
                const auto rings = TopologyRings(ranks, places, 64);
                NS_TEST_ASSERT_MSG_EQ(rings.size(), m, what);
                // Per server and local GPU: rings entering and leaving through it.
                std::vector<uint32_t> in(servers * m, 0);
                std::vector<uint32_t> out(servers * m, 0);
                uint32_t offRail = 0;
                for (const auto& ring : rings)
                {
                    std::vector<uint32_t> sorted = ring;
                    std::sort(sorted.begin(), sorted.end());
                    NS_TEST_ASSERT_MSG_EQ((sorted == Iota(servers * m)), true, what);
                    for (uint32_t i = 0; i < ring.size(); ++i)
                    {
                        const EndpointPlace& a = places[ranks[ring[i]]];
                        const EndpointPlace& b = places[ranks[ring[(i + 1) % ring.size()]]];
                        if (a.server == b.server)
                        {
                            continue;
                        }
                        ++out[a.server * m + a.local];
                        ++in[b.server * m + b.local];
                        offRail += a.local != b.local ? 1 : 0;
                        // Each server is visited once per ring, in a row.
                        NS_TEST_EXPECT_MSG_EQ(b.server, (a.server + servers - 1) % servers, what);
                    }
                }
                // Two GPUs per server and an odd server count: one hop per ring must
                // change rail; otherwise none does.
                const uint32_t expectOff = (m == 2 && servers % 2 == 1) ? m : 0;
                NS_TEST_EXPECT_MSG_EQ(offRail, expectOff, what << ": hops off their rail");
                if (expectOff == 0)
                {
                    for (uint32_t k = 0; k < servers * m; ++k)
                    {
                        NS_TEST_EXPECT_MSG_EQ(in[k], 1U, what << ": entries of GPU " << k);
                        NS_TEST_EXPECT_MSG_EQ(out[k], 1U, what << ": exits of GPU " << k);
                    }
                }
            }
        }
        // One server: no rings (the ranks' order).
        NS_TEST_EXPECT_MSG_EQ(TopologyRings(Iota(8), Places(1, 8), 16).empty(), true, "1 server");

        // A ring on the planned orders sends what the oracle says (BuildAndCheck compares).
        for (const std::string op :
             {"all-reduce", "reduce-scatter", "all-gather", "broadcast", "reduce"})
        {
            WorkloadGroup g = MakeGroup(op, "ring", 12, 10 * MiB + 7);
            g.ranks = Iota(12);
            std::reverse(g.ranks.begin(), g.ranks.end());
            g.root = 5;
            g.chunkBytes = 256 * KiB;
            g.channels = WorkloadGroup::AUTO_CHANNELS;
            g.ringOrder = RingOrder::TOPOLOGY;
            PlanChannels(g, Places(3, 4));
            NS_TEST_EXPECT_MSG_EQ(g.channels, 16U, op << ": 4 x 2 x 2 channels");
            NS_TEST_EXPECT_MSG_EQ(g.rings.size(), 4U, op);
            NS_TEST_ASSERT_MSG_EQ(CreateCollectiveAlgorithm("ring")->Validate(g), "", op);
            Workload wl;
            const DagFacts f = BuildAndCheck(g, false, wl);
            NS_TEST_EXPECT_MSG_EQ(f.acyclic, true, op);
            std::vector<uint64_t> expected;
            NS_TEST_ASSERT_MSG_EQ(CreateCollectiveAlgorithm("ring")->BytesPerRank(g, expected),
                                  true,
                                  op);
            for (uint32_t pos = 0; pos < g.ranks.size(); ++pos)
            {
                NS_TEST_EXPECT_MSG_EQ(f.sent[g.ranks[pos]], expected[pos], op << " rank " << pos);
            }
        }
        // A ring order that is no permutation is refused.
        WorkloadGroup g = MakeGroup("all-reduce", "ring", 4, MiB);
        g.rings = {{0, 1, 2, 2}};
        NS_TEST_EXPECT_MSG_NE(CreateCollectiveAlgorithm("ring")->Validate(g), "", "bad ring");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief NCCL's protocols in the DAG: every algorithm with LL and its 8 slots (and a
 * reduction cost) stays acyclic and gated; each connection's send j depends, directly or
 * through the reduction that consumed it, on send j - slots; the sends carry LL's framing
 * and post latencies; one launch op per distinct start op.
 */
class ProtocolDagTestCase : public CollectiveDagTestCase
{
  public:
    ProtocolDagTestCase()
        : CollectiveDagTestCase("Protocols: slots, framing, launch and post latencies in the DAG")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(WireBytes(WireFormat::LL, 1000), 2000U, "LL doubles");
        NS_TEST_EXPECT_MSG_EQ(WireBytes(WireFormat::LL128, 1200), 1280U, "LL128: 128 per 120");
        uint32_t built = 0;
        uint64_t checked = 0; // slot dependencies checked
        uint64_t reduced = 0; // of which through the reduction that consumed the slot
        for (const std::string& algo : CollectiveAlgorithmNames())
        {
            const Ptr<CollectiveAlgorithm> a = CreateCollectiveAlgorithm(algo);
            const std::string op
                = a->Supports(CollectiveOp::ALL_REDUCE) ? "all-reduce" : "all-to-all";
            WorkloadGroup g;
            g.name = op + "/" + algo;
            g.op = op;
            g.algorithm = algo;
            g.bytes = 4 * 1024 * 1024;
            g.ranks.resize(8);
            std::iota(g.ranks.begin(), g.ranks.end(), 0);
            g.ranksPerNode = 4;
            g.chunkBytes = a->GetCapabilities().chunked ? WorkloadGroup::NCCL_CHUNK_BYTES : 0;
            g.gammaSecondsPerByte = CollectiveOpReduces(op) ? 1e-11 : 0;
            // NVLS runs Simple only, with its chips as positions 8 and 9.
            const bool inNetwork = a->GetCapabilities().inNetwork;
            const Protocol proto = inNetwork ? Protocol::SIMPLE : Protocol::LL;
            FakeInNetwork(g);
            ApplyProtocol(g, proto, ProtocolOverrides{});
            NS_TEST_EXPECT_MSG_EQ(g.slots, NCCL_SLOTS, algo);
            const uint64_t chunkExpected
                = a->GetCapabilities().chunked ? GetProtocolProfile(proto).slotBytes : 0;
            NS_TEST_EXPECT_MSG_EQ(g.chunkBytes, chunkExpected, algo);
            NS_TEST_EXPECT_MSG_EQ(a->Validate(g), "", algo);
            ++built;
            for (const bool perRank : {false, true})
            {
                Workload wl;
                const DagFacts f = BuildAndCheck(g, perRank, wl);
                NS_TEST_EXPECT_MSG_EQ(f.acyclic, true, algo << ": acyclic");
                NS_TEST_EXPECT_MSG_EQ(f.rootsAreStarts, true, algo << ": roots");
                NS_TEST_EXPECT_MSG_EQ(f.gated, true, algo << ": gated");
                const auto& ops = wl.GetOps();
                uint32_t launches = 0;
                std::map<std::tuple<uint32_t, uint32_t, uint16_t>, std::vector<uint32_t>> conns;
                for (uint32_t i = 0; i < ops.size(); ++i)
                {
                    const WorkloadOp& o = ops[i];
                    if (o.kind == WorkloadOp::SEND)
                    {
                        NS_TEST_EXPECT_MSG_EQ((o.wire == GetProtocolProfile(proto).wire),
                                              true,
                                              algo);
                        NS_TEST_EXPECT_MSG_EQ(o.duration, g.hopLatencyInter, algo << ": post");
                        conns[{o.rank, o.peer, o.qp}].push_back(i);
                    }
                    else if (o.duration == g.launchLatency)
                    {
                        ++launches;
                    }
                }
                const uint32_t launchesExpected = perRank ? 8 : 1;
                NS_TEST_EXPECT_MSG_EQ(launches, launchesExpected, algo << ": launch ops");
                // Send j is reachable from send j - slots.
                for (const auto& [key, sends] : conns)
                {
                    for (std::size_t j = g.slots; j < sends.size(); ++j)
                    {
                        // From the reduction that consumed send j - slots, if any (the
                        // slot is free only once its data is reduced), else from the send.
                        uint32_t from = sends[j - g.slots];
                        for (const uint32_t* s = wl.SuccessorsBegin(from);
                             s != wl.SuccessorsEnd(from);
                             ++s)
                        {
                            if (ops[*s].kind == WorkloadOp::DELAY && ops[*s].rank == ops[from].peer
                                && ops[*s].duration.IsStrictlyPositive())
                            {
                                from = *s;
                                ++reduced;
                                break;
                            }
                        }
                        std::vector<bool> seen(ops.size(), false);
                        std::vector<uint32_t> stack{from};
                        while (!stack.empty() && !seen[sends[j]])
                        {
                            const uint32_t v = stack.back();
                            stack.pop_back();
                            for (const uint32_t* s = wl.SuccessorsBegin(v);
                                 s != wl.SuccessorsEnd(v);
                                 ++s)
                            {
                                if (!seen[*s])
                                {
                                    seen[*s] = true;
                                    stack.push_back(*s);
                                }
                            }
                        }
                        ++checked;
                        NS_TEST_EXPECT_MSG_EQ(seen[sends[j]],
                                              true,
                                              algo << ": send " << j << " waits for send "
                                                   << j - g.slots);
                    }
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(built, CollectiveAlgorithmNames().size(), "every algorithm built");
        NS_TEST_EXPECT_MSG_GT(checked, 1000U, "slot dependencies checked");
        NS_TEST_EXPECT_MSG_GT(reduced, 500U, "slot releases through a reduction checked");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The collectives' TestSuite: the registry, then one case per algorithm.
 */
class CollectiveTestSuite : public TestSuite
{
  public:
    CollectiveTestSuite()
        : TestSuite("ai-fabric-collective", UNIT)
    {
        AddTestCase(new CollectiveRegistryTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveValidationTestCase, TestCase::QUICK);
        for (const std::string& name : CollectiveAlgorithmNames())
        {
            AddTestCase(new CollectiveAlgorithmTestCase(name), TestCase::QUICK);
        }
        AddTestCase(new AcyclicConnectedDagTestCase, TestCase::QUICK);
        AddTestCase(new RingClassicShapeTestCase, TestCase::QUICK);
        AddTestCase(new RingChannelsKeepBytesTestCase, TestCase::QUICK);
        AddTestCase(new RingOtherOpsBytesTestCase, TestCase::QUICK);
        AddTestCase(new DoubleBinaryTreeTestCase, TestCase::QUICK);
        AddTestCase(new TreeBytesTestCase, TestCase::QUICK);
        AddTestCase(new HalvingDoublingBytesTestCase, TestCase::QUICK);
        AddTestCase(new HierarchicalBytesTestCase, TestCase::QUICK);
        AddTestCase(new DirectAndNaiveBytesTestCase, TestCase::QUICK);
        AddTestCase(new BinomialBytesTestCase, TestCase::QUICK);
        AddTestCase(new GammaDelaysTestCase, TestCase::QUICK);
        AddTestCase(new LargeGroupsTestCase, TestCase::EXTENSIVE);
        AddTestCase(new RingAnyOrderTestCase, TestCase::QUICK);
        AddTestCase(new ChannelPlanTestCase, TestCase::QUICK);
        AddTestCase(new ProtocolDagTestCase, TestCase::QUICK);
        AddTestCase(new SplitChunksTestCase, TestCase::QUICK);
        AddTestCase(new PermutationDerangementTestCase, TestCase::QUICK);
        AddTestCase(new PermutationTwoRanksTestCase, TestCase::QUICK);
    }
};

/// The suite's instance, registered with ns-3's test runner.
static CollectiveTestSuite g_collectiveTestSuite;
