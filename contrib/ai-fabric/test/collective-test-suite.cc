/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the ai-fabric collectives: the registry of algorithms and, per
 * algorithm, that the bytes its closed form says each rank sends are the bytes its
 * message DAG sends, and that its textbook closed form is the sum of its steps' costs.
 * Runs in-tree through test.py (./test.py -s ai-fabric-collective) and out of tree
 * through tests/ns3-test-runner.
 */
#include "ns3/collective-algorithm.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/workload.h"

#include <cmath>
#include <numeric>
#include <set>

using namespace ns3;

namespace
{

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
        if (op.kind == WorkloadOp::SEND)
        {
            sent[op.rank] += op.bytes; // ranks are 0 .. P-1: endpoint id = position
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
        NS_TEST_EXPECT_MSG_EQ((formulasChecked > 0),
                              (algo->FormulaId("all-reduce") != "")
                                  || (algo->FormulaId("all-to-all") != ""),
                              m_name + ": formulas checked");

        // Capabilities agree with Validate().
        WorkloadGroup g;
        g.name = "g";
        g.algorithm = m_name;
        g.bytes = 1 << 20;
        g.ranks = {0, 1, 2, 3, 4, 5};
        g.ranksPerNode = 0;
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
                                  !caps.powerOfTwoRanks && !caps.needsRanksPerNode,
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
    }
};

/// The suite's instance, registered with ns-3's test runner.
static CollectiveTestSuite g_collectiveTestSuite;
