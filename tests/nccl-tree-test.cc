/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's tree all-reduce over servers (docs/collectives.md, "tree"): a chain inside each server
 * and a double binary tree between servers, each channel linked through another NIC.
 */
#include "collective-runs.h"
#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"
#include "test-fabrics.h"
#include "tool-runner.h"

#include "ns3/channel-plan.h"
#include "ns3/tree-collective.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <string>

using namespace ns3;
using aifabrictest::AllReduceOn;
using aifabrictest::SentTowards;

namespace
{

/// \return \p servers servers of \p perServer GPUs, endpoint e in server e / perServer
std::vector<EndpointPlace>
Places(uint32_t servers, uint32_t perServer)
{
    std::vector<EndpointPlace> places(servers * perServer);
    for (uint32_t i = 0; i < places.size(); ++i)
    {
        places[i].server = i / perServer;
        places[i].local = i % perServer;
    }
    return places;
}

const char* const TWO_BY_EIGHT = "validation/fabrics/rail-2x8-h100-ndr.yaml";

} // namespace

/// The trees NCCL connects (src/graph/connect.cc): channel c's chain starts at local GPU
/// c mod m in every server, whatever the order of `ranks`; the chains' first ranks form the
/// double binary tree over servers (tree 1 the mirror of tree 0 for an even count, the shift
/// for an odd one); inside a server each rank's parent is the one before it.
TEST(NcclTree, ChainsInServersAndATreeBetweenThem)
{
    // Three servers of four GPUs, listed server by server but each server backwards.
    std::vector<uint32_t> ranks;
    for (uint32_t s = 0; s < 3; ++s)
    {
        for (uint32_t l = 4; l-- > 0;)
        {
            ranks.push_back(4 * s + l);
        }
    }
    const auto trees = TopologyTrees(ranks, Places(3, 4), 8);
    ASSERT_EQ(trees.size(), 4U); // at most the most ranks in one server
    WorkloadGroup g;
    g.op = "all-reduce";
    g.algorithm = "tree";
    g.ranks = ranks;
    g.channels = 8;
    g.trees = trees;
    auto position = [&ranks](uint32_t endpoint) {
        return static_cast<int32_t>(std::find(ranks.begin(), ranks.end(), endpoint)
                                    - ranks.begin());
    };
    for (uint32_t c = 0; c < 8; ++c)
    {
        const auto& chains = trees[c % trees.size()];
        ASSERT_EQ(chains.size(), 3U);
        for (uint32_t s = 0; s < 3; ++s)
        {
            for (uint32_t i = 0; i < 4; ++i)
            {
                // local GPU (c + i) mod 4 of server s
                EXPECT_EQ(chains[s][i], position(4 * s + (c + i) % 4)) << c << " " << s << " " << i;
            }
        }
        for (uint32_t t = 0; t < 2; ++t)
        {
            const auto nodes = TreeCollectiveAlgorithm::AllReduceTree(g, c, t);
            for (uint32_t s = 0; s < 3; ++s)
            {
                const auto server = TreeCollectiveAlgorithm::DoubleBinaryTreeNode(3, s, t);
                const auto& head = nodes[chains[s][0]];
                EXPECT_EQ(head.parent,
                          server.parent < 0 ? -1 : static_cast<int32_t>(chains[server.parent][0]));
                EXPECT_EQ(head.child0,
                          server.child0 < 0 ? -1 : static_cast<int32_t>(chains[server.child0][0]));
                EXPECT_EQ(head.child1,
                          server.child1 < 0 ? -1 : static_cast<int32_t>(chains[server.child1][0]));
                for (uint32_t i = 1; i < 4; ++i)
                {
                    const auto& n = nodes[chains[s][i]];
                    EXPECT_EQ(n.parent, static_cast<int32_t>(chains[s][i - 1]));
                    EXPECT_EQ(n.child0, -1);
                    EXPECT_EQ(n.child1, -1);
                    EXPECT_EQ(n.child2, i < 3 ? static_cast<int32_t>(chains[s][i + 1]) : -1);
                }
            }
        }
    }
    // One GPU per server: the tree over ranks, as before (nothing to chain).
    EXPECT_TRUE(TopologyTrees({0, 1, 2, 3}, Places(4, 1), 4).empty());
    // No places known: the same.
    EXPECT_TRUE(TopologyTrees({0, 1, 2, 3}, {}, 4).empty());
}

/// 2 servers x 8 H100 on NDR rails: every NIC carries the same bytes, half-ish of what a ring
/// puts on it (each server's data crosses once each way, S/8 per NIC, against the ring's
/// 2 (15/16) S/8), and the tree's bus bandwidth exceeds the NICs' aggregate rate, as NCCL's
/// does on two nodes (nccl-tests#196); NVLink, which every chain crosses both ways, is the
/// bound.
TEST(NcclTree, EveryNicCarriesTheServersDataOnce)
{
    const RunResults tree = AllReduceOn(TWO_BY_EIGHT, "tree", "256MiB", "      protocol: simple\n");
    const RunResults ring = AllReduceOn(TWO_BY_EIGHT, "ring", "256MiB", "      protocol: simple\n");
    ASSERT_TRUE(tree.complete);
    ASSERT_TRUE(ring.complete);
    EXPECT_TRUE(tree.violations.empty()) << tree.violations.front();
    const uint64_t first = SentTowards(tree, "gpu0", "su0-rail");
    ASSERT_GT(first, 0U);
    for (uint32_t gpu = 0; gpu < 16; ++gpu)
    {
        const std::string name = "gpu" + std::to_string(gpu);
        EXPECT_EQ(SentTowards(tree, name, "su0-rail"), first) << name;
        EXPECT_NEAR(static_cast<double>(SentTowards(tree, name, "su0-rail"))
                        / static_cast<double>(SentTowards(ring, name, "su0-rail")),
                    8.0 / 15.0,
                    0.01)
            << name;
    }
    const CollectiveResult& t = tree.collectives.at(0);
    EXPECT_GT(t.busbwGBps, 400.0); // 8 NDR NICs: 8 x 50 GB/s
    EXPECT_LT(t.durationS, ring.collectives.at(0).durationS);
    // On NVLink a GPU sends both trees' halves up and down the chain (2 x S/2 per tree) where
    // it is inside the chain, once where it is first or last: 2 (8 - 1) / 8 S = 1.75 S over
    // the channels, at the GPU's NVLink goodput.
    const double goodput = 450e9 * 4096 / (4096 + 16 * 48); // the nvlink4 profile, B/s
    EXPECT_NEAR(t.durationS / (1.75 * 256 * 1024 * 1024 / goodput), 1.0, 0.03);
}

/// The simulated time matches the schedule model (the busiest port's bytes and the deepest
/// path's latency as a two-stage pipeline of the pieces), which is also the analytic column
/// (F3 is a tree over ranks, not NCCL's): one piece per tree and many, two servers and one.
TEST(NcclTree, MatchesTheScheduleModel)
{
    for (const auto& [topo, size] : std::vector<std::pair<std::string, std::string>>{
             {TWO_BY_EIGHT, "1MiB"},
             {TWO_BY_EIGHT, "16MiB"},
             {TWO_BY_EIGHT, "256MiB"},
             {"validation/fabrics/dgx-h100-node.yaml", "256MiB"}})
    {
        const CollectiveResult c
            = AllReduceOn(topo, "tree", size, "      protocol: simple\n").collectives.at(0);
        EXPECT_NEAR(c.durationS / c.analyticS, 1.0, 0.05) << topo << " " << size;
    }
}

/// `ring_order: ranks` keeps the tree over rank positions: every rank a node of NCCL's double
/// binary tree, so its bytes are (parent + children) x S/2 per tree, and many of its edges
/// cross servers on whichever NIC the rank has.
TEST(NcclTree, RankOrderKeepsTheTreeOverRanks)
{
    const uint64_t s = 16 << 20;
    const RunResults r = AllReduceOn(TWO_BY_EIGHT,
                                     "tree",
                                     "16MiB",
                                     "      ring_order: ranks\n      channels: 1\n");
    ASSERT_TRUE(r.complete);
    const CollectiveResult& c = r.collectives.at(0);
    for (uint32_t j = 0; j < 16; ++j)
    {
        uint64_t expected = 0;
        for (uint32_t t = 0; t < 2; ++t)
        {
            const auto n = TreeCollectiveAlgorithm::DoubleBinaryTreeNode(16, j, t);
            const uint64_t edges
                = (n.parent >= 0 ? 1 : 0) + (n.child0 >= 0 ? 1 : 0) + (n.child1 >= 0 ? 1 : 0);
            expected += edges * (s / 2);
        }
        EXPECT_EQ(c.bytesSentPerRank.at(j), expected) << j;
    }
    // The default tree over servers, one channel: each server's chain starts at its local GPU
    // 0, which sends both trees' halves down its chain and across (one server is the root of
    // tree 1, the other of tree 2): 2 S; the chain's middle sends up and down: 2 S; its last
    // GPU only up: S. 2 (P-1) S in all, as any all-reduce tree.
    const RunResults topo = AllReduceOn(TWO_BY_EIGHT, "tree", "16MiB", "      channels: 1\n");
    const CollectiveResult& d = topo.collectives.at(0);
    for (uint32_t j = 0; j < 16; ++j)
    {
        EXPECT_EQ(d.bytesSentPerRank.at(j), j % 8 == 7 ? s : 2 * s) << j;
    }
    const uint64_t total
        = std::accumulate(d.bytesSentPerRank.begin(), d.bytesSentPerRank.end(), uint64_t{0});
    EXPECT_EQ(total, 2 * 15 * s);
}

/// Servers with different rank counts: channel c starts server j's chain at its c mod m_j-th
/// rank, so every NIC of a server carries the same bytes (3 GPUs of one server, 2 of the
/// other: the trees repeat every 6 channels). Without PXN, so that each link between servers
/// leaves on its head's own NIC (the heads' rails differ on some channels).
TEST(NcclTree, UnequalServersKeepTheirNicsEven)
{
    EXPECT_EQ(TopologyTrees({0, 1, 2, 4, 5}, Places(2, 4), 12).size(), 6U);
    EXPECT_EQ(TopologyTrees({0, 1, 2, 4, 5}, Places(2, 4), 4).size(), 4U);
    const std::filesystem::path dir = aifabrictest::FreshScratch("nccl-tree-unequal");
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << "name: u\nseed: 1\ntopology:\n  kind: rail-optimized\n"
                        "  servers_per_su: 2\n  gpus_per_server: 4\n  spines: 2\n"
                        "  nvlink: true\n  pxn: false\n  link: {profile: ib-ndr}\n"
                        "traffic:\n  collectives:\n    - name: c\n      op: all-reduce\n"
                        "      algorithm: tree\n      size: 12MiB\n      ranks: [0, 1, 2, 4, 5]\n"
                        "      channels: 12\n      protocol: simple\n";
    const RunResults r = RunScenario(ReadScenarioFile(p.string()), RunOptions{});
    ASSERT_TRUE(r.complete);
    EXPECT_TRUE(r.violations.empty()) << r.violations.front();
    auto nic = [&r](const std::string& gpu) {
        return SentTowards(r, gpu, "su0-rail");
    };
    EXPECT_GT(nic("gpu0"), 0U);
    EXPECT_EQ(nic("gpu0"), nic("gpu1"));
    EXPECT_EQ(nic("gpu0"), nic("gpu2"));
    EXPECT_GT(nic("gpu4"), 0U);
    EXPECT_EQ(nic("gpu4"), nic("gpu5"));
    EXPECT_EQ(nic("gpu6"), 0U); // not in the collective
}
