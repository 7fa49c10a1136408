/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collnet-collective.h"

#include "ns3/log.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollnetCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(CollnetCollectiveAlgorithm);

namespace
{

/// A group's trees in the form the builder and the formulas walk.
struct Trees
{
    uint32_t servers{0};                         //!< servers
    uint32_t local{1};                           //!< ranks per server G
    std::vector<std::vector<uint32_t>> at;       //!< [server][local] -> rank position
    std::vector<std::vector<uint32_t>> leavesOf; //!< per local index: its switches (indices)
};

/// \return the group's trees, or servers 0 if the group has none that fits its ranks
Trees
TreesOf(const WorkloadGroup& g)
{
    Trees t;
    const InNetworkTree& tr = g.tree;
    const uint32_t p = g.ranks.size();
    if (tr.attach.size() != p || tr.server.size() != p || tr.local.size() != p || tr.localRanks == 0
        || tr.root.size() != tr.localRanks || p % tr.localRanks != 0)
    {
        return t;
    }
    t.local = tr.localRanks;
    t.servers = p / t.local;
    t.at.assign(t.servers, std::vector<uint32_t>(t.local, UINT32_MAX));
    t.leavesOf.resize(t.local);
    for (uint32_t i = 0; i < p; ++i)
    {
        if (tr.server[i] >= t.servers || tr.local[i] >= t.local
            || t.at[tr.server[i]][tr.local[i]] != UINT32_MAX || tr.attach[i] >= g.switches.size())
        {
            t.servers = 0;
            return t;
        }
        t.at[tr.server[i]][tr.local[i]] = i;
        t.leavesOf[tr.local[i]].push_back(tr.attach[i]);
    }
    for (auto& leaves : t.leavesOf)
    {
        std::sort(leaves.begin(), leaves.end());
        leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
    }
    for (uint32_t l = 0; l < t.local; ++l)
    {
        const uint32_t root = tr.root[l];
        if ((t.leavesOf[l].size() > 1) != (root != InNetworkTree::NONE)
            || (root != InNetworkTree::NONE && root >= g.switches.size()))
        {
            t.servers = 0;
            return t;
        }
    }
    return t;
}

} // namespace

TypeId
CollnetCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CollnetCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CollnetCollectiveAlgorithm>();
    return tid;
}

CollnetCollectiveAlgorithm::CollnetCollectiveAlgorithm()
{
}

CollnetCollectiveAlgorithm::~CollnetCollectiveAlgorithm()
{
}

CollectiveCapabilities
CollnetCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "collnet";
    c.listPosition = 8;
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE);
    c.chunked = true;
    c.inNetwork = true;
    c.networkTree = true;
    return c;
}

std::string
CollnetCollectiveAlgorithm::Validate(const WorkloadGroup& g) const
{
    const std::string problem = CollectiveAlgorithm::Validate(g);
    if (!problem.empty())
    {
        return problem;
    }
    if (g.ranks.size() >= 2 && g.switches.empty())
    {
        return "collnet reduces in the InfiniBand switches the ranks' NICs reach (SHARP), and "
               "these ranks have no such tree: every rank needs a NIC on an InfiniBand switch, "
               "as many ranks in every server, and at most two switch levels";
    }
    return "";
}

void
CollnetCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                           uint32_t channel,
                                           uint64_t bytes) const
{
    constexpr uint32_t NONE = CollectiveBuilder::NONE;
    const WorkloadGroup& g = b.Group();
    const uint32_t p = b.Ranks();
    const Trees t = TreesOf(g);
    NS_ABORT_MSG_IF(p >= 2 && t.servers == 0,
                    "collective '" << g.name << "': its SHARP tree does not fit its ranks");
    if (p < 2 || b.Switches() == 0)
    {
        for (uint32_t i = 0; i < p; ++i)
        {
            b.Finals(i).push_back(b.Start(i));
        }
        return;
    }
    // Each phase on its own queue pairs, as NCCL's CollNet kernel runs them side by side.
    const uint32_t channels = std::max<uint32_t>(g.channels, 1);
    const uint16_t up = channel;
    const auto down = static_cast<uint16_t>(channels + channel);
    const auto gather = static_cast<uint16_t>(2 * channels + channel);
    const uint32_t gl = t.local;
    uint32_t pieces = 1;
    for (uint32_t l = 0; l < gl; ++l)
    {
        pieces = std::max(pieces, PieceCount(SplitShare(bytes, gl, l), g.chunkBytes));
    }
    std::vector<uint32_t> chain(p, NONE); // each rank's reductions, one after the other
    std::vector<uint32_t> deps;
    std::map<uint32_t, std::vector<uint32_t>> arrivals; // switch -> its ranks' pieces
    for (uint32_t k = 0; k < pieces; ++k)
    {
        for (uint32_t l = 0; l < gl; ++l)
        {
            const uint64_t piece = SplitShare(SplitShare(bytes, gl, l), pieces, k);
            if (piece == 0)
            {
                continue;
            }
            arrivals.clear();
            std::vector<uint32_t> upSends(t.servers);
            for (uint32_t s = 0; s < t.servers; ++s)
            {
                const uint32_t owner = t.at[s][l];
                // Reduce-scatter inside the server: every other local rank's piece l.
                deps.clear();
                for (uint32_t i = 0; i < gl; ++i)
                {
                    if (i == l)
                    {
                        continue;
                    }
                    const uint32_t from = t.at[s][i];
                    const uint32_t op = b.Send(0, from, owner, up, piece);
                    b.AfterStart(from, op);
                    b.Finals(from).push_back(op);
                    deps.push_back(b.Reduce(0, owner, piece, op, chain[owner]));
                }
                const uint32_t sw = p + g.tree.attach[owner];
                upSends[s] = b.Send(1, owner, sw, up, piece);
                if (deps.empty())
                {
                    b.AfterStart(owner, upSends[s]);
                }
                for (const uint32_t d : deps)
                {
                    b.Depend(d, upSends[s]);
                }
                arrivals[sw].push_back(upSends[s]);
            }
            // The switches add up their ranks' pieces; a root adds up the switches' sums.
            std::map<uint32_t, uint32_t> result; // switch -> the op after which it holds it
            for (const auto& [sw, in] : arrivals)
            {
                result[sw] = b.Join(1, sw, in);
            }
            const uint32_t rootIndex = g.tree.root[l];
            if (rootIndex != InNetworkTree::NONE)
            {
                const uint32_t root = p + rootIndex;
                deps.clear();
                std::vector<uint32_t> leaves;
                for (const auto& [sw, sum] : result)
                {
                    const uint32_t op = b.Send(2, sw, root, up, piece);
                    b.Depend(sum, op);
                    deps.push_back(op);
                    leaves.push_back(sw);
                }
                const uint32_t total = b.Join(2, root, deps);
                for (const uint32_t sw : leaves)
                {
                    const uint32_t op = b.Send(3, root, sw, down, piece);
                    b.Depend(total, op);
                    result[sw] = op;
                }
            }
            // Down to the ranks, then the all-gather inside each server.
            for (uint32_t s = 0; s < t.servers; ++s)
            {
                const uint32_t owner = t.at[s][l];
                const uint32_t sw = p + g.tree.attach[owner];
                const uint32_t got = b.Send(4, sw, owner, down, piece);
                b.Depend(result.at(sw), got);
                b.Finals(owner).push_back(got);
                for (uint32_t i = 0; i < gl; ++i)
                {
                    if (i == l)
                    {
                        continue;
                    }
                    const uint32_t op = b.Send(5, owner, t.at[s][i], gather, piece);
                    b.Depend(got, op);
                    b.Finals(owner).push_back(op);
                    b.Finals(t.at[s][i]).push_back(op);
                }
            }
        }
    }
}

// ------------------------------------------------------------ bytes, times

bool
CollnetCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                            uint64_t n,
                                            uint32_t /* channel */,
                                            std::vector<uint64_t>& sent) const
{
    if (g.op != "all-reduce")
    {
        return false;
    }
    const Trees t = TreesOf(g);
    if (g.ranks.size() < 2 || g.switches.empty() || t.servers == 0)
    {
        return true; // nothing is sent
    }
    // Reduce-scatter: the other blocks (S - own); up: its own block; all-gather: its own block
    // to the G - 1 others.
    for (uint32_t i = 0; i < g.ranks.size(); ++i)
    {
        const uint64_t own = SplitShare(n, t.local, g.tree.local[i]);
        sent[i] += n + (t.local - 1) * own;
    }
    return true;
}

void
CollnetCollectiveAlgorithm::CostPaths(const WorkloadGroup& g,
                                      std::vector<CollectivePath>& paths) const
{
    const Trees t = TreesOf(g);
    if (t.servers == 0)
    {
        RingPaths(g.ranks.size(), paths);
        return;
    }
    // intra: to the next local rank of the server (NVLink); inter: to the same local rank of
    // the next server (NIC, switch, NIC: the way up and down the tree)
    for (uint32_t s = 0; s < t.servers; ++s)
    {
        for (uint32_t l = 0; l < t.local; ++l)
        {
            if (t.local > 1)
            {
                paths.push_back({t.at[s][l], t.at[s][(l + 1) % t.local], true});
            }
            if (t.servers > 1)
            {
                paths.push_back({t.at[s][l], t.at[(s + 1) % t.servers][l], false});
            }
        }
    }
}

double
CollnetCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                         const CollectiveCost& cost,
                                         const CollectiveTerms& x) const
{
    const Trees t = TreesOf(g);
    if (x.p < 2 || t.servers == 0)
    {
        return 0;
    }
    const double gl = t.local;
    const double n = x.n;
    const double c = std::max(1.0, x.c);
    const double bi = cost.intra.betaSPerByte;
    const double bn = x.beta;
    // A channel's block is cut into K equal pieces of at most the chunk (as DoBuildChannel());
    // a round moves one piece of every local index on every channel, s bytes per block.
    const double block = n / (gl * c);
    const double rounds = g.chunkBytes > 0 ? std::max(1.0, std::ceil(block / g.chunkBytes)) : 1;
    const double s = c * block / rounds;
    // Each channel's owner reduces its G - 1 arrivals one after the other (gamma).
    const double reduce = (gl - 1) * (s / c) * x.gamma;
    // Per round: a GPU's NVLinks carry (G-1) s out for the reduce-scatter and (G-1) s for the
    // all-gather; its NIC s each way; a switch's link to a root one piece per tree meeting
    // there.
    std::map<std::pair<uint32_t, uint32_t>, double> uplink;
    bool twoLevels = false;
    for (uint32_t l = 0; l < t.local; ++l)
    {
        if (g.tree.root[l] != InNetworkTree::NONE)
        {
            twoLevels = true;
            for (const uint32_t leaf : t.leavesOf[l])
            {
                uplink[{leaf, g.tree.root[l]}] += s;
            }
        }
    }
    double busiest = std::max({2 * (gl - 1) * s * bi, s * bn, reduce});
    for (const auto& [link, load] : uplink)
    {
        busiest = std::max(busiest, load * bn);
    }
    // One piece's way through the stages (reduce-scatter, up, [to the root and back], down,
    // all-gather), then a round per further piece at the busiest stage's pace.
    const double way = 2 * (gl - 1) * s * bi + reduce + (twoLevels ? 4 : 2) * s * bn;
    return (gl > 1 ? 2 * cost.intra.alphaS : 0) + x.alpha + way + (rounds - 1) * busiest;
}

} // namespace ns3
