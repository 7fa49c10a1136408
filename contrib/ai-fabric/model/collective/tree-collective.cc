/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tree-collective.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"
#include "ns3/workload.h"

#include <algorithm>
#include <array>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TreeCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(TreeCollectiveAlgorithm);

TypeId
TreeCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TreeCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<TreeCollectiveAlgorithm>()
                            .AddAttribute("Slots",
                                          "Pieces a tree connection buffers at its receiver "
                                          "(NCCL_STEPS): a rank sends piece k to a neighbour "
                                          "only after that neighbour has forwarded piece "
                                          "k - Slots; 0: unbounded",
                                          UintegerValue(8),
                                          MakeUintegerAccessor(&TreeCollectiveAlgorithm::m_slots),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

TreeCollectiveAlgorithm::TreeCollectiveAlgorithm()
{
}

TreeCollectiveAlgorithm::~TreeCollectiveAlgorithm()
{
}

CollectiveCapabilities
TreeCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "tree";
    c.listPosition = 1;
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE)
            | CollectiveCapabilities::OpBit(CollectiveOp::BROADCAST)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE);
    c.chunked = true;
    c.ncclChannels = true;
    c.treeOrdered = true;
    return c;
}

TreeCollectiveAlgorithm::TreeNode
TreeCollectiveAlgorithm::BinaryTreeNode(uint32_t nranks, uint32_t rank)
{
    // NVIDIA/nccl src/graph/trees.cc, ncclGetBtree.
    const int32_t n = nranks;
    const int32_t r = rank;
    TreeNode node;
    int32_t bit = 1;
    for (; bit < n; bit <<= 1)
    {
        if (bit & r)
        {
            break;
        }
    }
    if (r == 0)
    {
        node.child1 = n > 1 ? bit >> 1 : -1;
        return node;
    }
    int32_t up = (r ^ bit) | (bit << 1);
    if (up >= n)
    {
        up = r ^ bit;
    }
    node.parent = up;
    int32_t lowbit = bit >> 1;
    node.child0 = lowbit == 0 ? -1 : r - lowbit;
    int32_t down1 = lowbit == 0 ? -1 : r + lowbit;
    while (down1 >= n)
    {
        down1 = lowbit == 0 ? -1 : r + lowbit;
        lowbit >>= 1;
    }
    node.child1 = down1;
    return node;
}

TreeCollectiveAlgorithm::TreeNode
TreeCollectiveAlgorithm::DoubleBinaryTreeNode(uint32_t nranks, uint32_t rank, uint32_t tree)
{
    // NVIDIA/nccl src/graph/trees.cc, ncclGetDtree.
    if (tree == 0)
    {
        return BinaryTreeNode(nranks, rank);
    }
    const int32_t n = nranks;
    TreeNode t;
    TreeNode node;
    if (n % 2 == 1)
    {
        // shift by one
        t = BinaryTreeNode(nranks, (rank + nranks - 1) % nranks);
        auto shift = [n](int32_t x) {
            return x == -1 ? -1 : (x + 1) % n;
        };
        node.parent = shift(t.parent);
        node.child0 = shift(t.child0);
        node.child1 = shift(t.child1);
    }
    else
    {
        // mirror
        t = BinaryTreeNode(nranks, nranks - 1 - rank);
        auto mirror = [n](int32_t x) {
            return x == -1 ? -1 : n - 1 - x;
        };
        node.parent = mirror(t.parent);
        node.child0 = mirror(t.child0);
        node.child1 = mirror(t.child1);
    }
    return node;
}

std::vector<TreeCollectiveAlgorithm::TreeNode>
TreeCollectiveAlgorithm::AllReduceTree(const WorkloadGroup& g, uint32_t channel, uint32_t tree)
{
    const auto p = static_cast<uint32_t>(g.ranks.size());
    std::vector<TreeNode> nodes(p);
    if (g.trees.empty())
    {
        for (uint32_t j = 0; j < p; ++j)
        {
            nodes[j] = DoubleBinaryTreeNode(p, j, tree);
        }
        return nodes;
    }
    // NCCL's connectTrees(): the double binary tree over servers links their chains' first
    // ranks; inside a server each rank's parent is the one before it in the chain.
    const std::vector<std::vector<uint32_t>>& chains = g.trees[channel % g.trees.size()];
    const auto servers = static_cast<uint32_t>(chains.size());
    auto head = [&chains](int32_t server) -> int32_t {
        return server < 0 ? -1 : static_cast<int32_t>(chains[server].front());
    };
    for (uint32_t j = 0; j < servers; ++j)
    {
        const TreeNode server = DoubleBinaryTreeNode(servers, j, tree);
        const std::vector<uint32_t>& chain = chains[j];
        for (std::size_t i = 0; i < chain.size(); ++i)
        {
            TreeNode& n = nodes[chain[i]];
            if (i == 0)
            {
                n.parent = head(server.parent);
                n.child0 = head(server.child0);
                n.child1 = head(server.child1);
            }
            else
            {
                n.parent = static_cast<int32_t>(chain[i - 1]);
            }
            n.child2 = i + 1 < chain.size() ? static_cast<int32_t>(chain[i + 1]) : -1;
        }
    }
    return nodes;
}

void
TreeCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                        uint32_t channel,
                                        uint64_t bytes) const
{
    const WorkloadGroup& g = b.Group();
    const uint32_t p = b.Ranks();
    std::vector<TreeNode> nodes(p);
    std::vector<uint32_t> pos(p);
    if (g.op == "all-reduce")
    {
        for (uint32_t j = 0; j < p; ++j)
        {
            pos[j] = j;
        }
        for (uint32_t t = 0; t < 2; ++t)
        {
            nodes = AllReduceTree(g, channel, t);
            BuildTree(b, nodes, pos, SplitShare(bytes, 2, t), true, true, 2 * channel + t);
        }
        return;
    }
    for (uint32_t j = 0; j < p; ++j)
    {
        nodes[j] = BinaryTreeNode(p, j);
        pos[j] = (g.root + j) % p;
    }
    BuildTree(b, nodes, pos, bytes, g.op == "reduce", g.op == "broadcast", channel);
}

void
TreeCollectiveAlgorithm::BuildTree(CollectiveBuilder& b,
                                   const std::vector<TreeNode>& nodes,
                                   const std::vector<uint32_t>& pos,
                                   uint64_t bytes,
                                   bool up,
                                   bool down,
                                   uint16_t qp) const
{
    constexpr uint32_t NONE = CollectiveBuilder::NONE;
    const uint32_t n = nodes.size();
    // Breadth-first order from the root: parents before children.
    std::vector<uint32_t> order;
    order.reserve(n);
    for (uint32_t v = 0; v < n; ++v)
    {
        if (nodes[v].parent < 0)
        {
            order.push_back(v);
        }
    }
    NS_ABORT_MSG_IF(order.size() != 1, "a tree needs exactly one root");
    for (std::size_t i = 0; i < order.size(); ++i)
    {
        for (const int32_t c :
             {nodes[order[i]].child0, nodes[order[i]].child1, nodes[order[i]].child2})
        {
            if (c >= 0)
            {
                NS_ABORT_MSG_IF(nodes[c].parent != static_cast<int32_t>(order[i]),
                                "tree child " << c << " does not name its parent");
                order.push_back(c);
            }
        }
    }
    NS_ABORT_MSG_IF(order.size() != n, "the tree does not reach every rank");
    const uint32_t root = order.front();
    const uint32_t pieces = PieceCount(bytes, b.Group().chunkBytes);
    const std::size_t cells = static_cast<std::size_t>(n) * pieces;
    // upSent[v * pieces + k]: v's send of piece k to its parent; downIn: the one
    // that brought piece k down to v.
    std::vector<uint32_t> upSent(up ? cells : 0, NONE);
    std::vector<uint32_t> downIn(down ? cells : 0, NONE);
    // The root's reduced piece k is ready after these ops (one per child, or the
    // last reduction of its chain).
    std::vector<std::array<uint32_t, 3>> rootReady(pieces, {NONE, NONE, NONE});
    std::vector<uint32_t> chain(n, NONE);

    if (up)
    {
        for (auto it = order.rbegin(); it != order.rend(); ++it)
        {
            const uint32_t v = *it;
            for (uint32_t k = 0; k < pieces; ++k)
            {
                const uint64_t pb = SplitShare(bytes, pieces, k);
                uint32_t deps[3] = {NONE, NONE, NONE};
                uint32_t nd = 0;
                for (const int32_t c : {nodes[v].child0, nodes[v].child1, nodes[v].child2})
                {
                    if (c < 0)
                    {
                        continue;
                    }
                    const uint32_t in = upSent[c * pieces + k];
                    const uint32_t r = b.Reduce(0, pos[v], pb, in, chain[v]);
                    if (r == in)
                    {
                        deps[nd++] = in; // free reduction: wait for each child
                    }
                    else
                    {
                        deps[0] = r; // the chain orders the reductions
                        nd = 1;
                    }
                }
                if (v == root)
                {
                    for (uint32_t d = 0; d < 3; ++d)
                    {
                        rootReady[k][d] = d < std::max(nd, 1U) ? deps[d] : NONE;
                    }
                    continue;
                }
                const uint32_t op = b.Send(0, pos[v], pos[nodes[v].parent], qp, pb);
                if (nd == 0)
                {
                    b.AfterStart(pos[v], op);
                }
                for (uint32_t d = 0; d < nd; ++d)
                {
                    b.Depend(deps[d], op);
                }
                upSent[v * pieces + k] = op;
            }
        }
    }
    if (down)
    {
        const uint32_t step = up ? 1 : 0;
        for (const uint32_t v : order)
        {
            for (const int32_t c : {nodes[v].child0, nodes[v].child1, nodes[v].child2})
            {
                if (c < 0)
                {
                    continue;
                }
                for (uint32_t k = 0; k < pieces; ++k)
                {
                    const uint32_t op
                        = b.Send(step, pos[v], pos[c], qp, SplitShare(bytes, pieces, k));
                    if (v != root)
                    {
                        b.Depend(downIn[v * pieces + k], op);
                    }
                    else if (up)
                    {
                        for (const uint32_t ready : rootReady[k])
                        {
                            if (ready != NONE)
                            {
                                b.Depend(ready, op);
                            }
                        }
                    }
                    else
                    {
                        b.AfterStart(pos[v], op);
                    }
                    downIn[c * pieces + k] = op;
                    b.Finals(pos[v]).push_back(op);
                }
            }
        }
    }
    // Bounded connection buffers (NCCL_STEPS slots): piece k goes to a neighbour
    // only once the neighbour has passed piece k - slots on. Without this bound a
    // leaf, whose pieces are all ready at once, would flood its parent and take
    // NIC time from the tree it is interior in (about 12 % slower all-reduce).
    // The group's slots when its protocol sets them (WorkloadGroup::slots), else the
    // Slots attribute (protocol none keeps the tree's own NCCL_STEPS bound).
    const uint32_t slots = b.Group().slots > 0 ? b.Group().slots : m_slots;
    auto firstChild = [&nodes](uint32_t v) {
        return nodes[v].child0 >= 0 ? nodes[v].child0
                                    : (nodes[v].child1 >= 0 ? nodes[v].child1 : nodes[v].child2);
    };
    for (uint32_t v = 0; slots > 0 && v < n; ++v)
    {
        if (v == root)
        {
            continue;
        }
        const uint32_t parent = nodes[v].parent;
        const int32_t child = firstChild(v);
        for (uint32_t k = slots; k < pieces; ++k)
        {
            if (up)
            {
                // the parent consumes a piece by sending it up, or (the root) down
                uint32_t consumed = NONE;
                if (parent != root)
                {
                    consumed = upSent[parent * pieces + k - slots];
                }
                else if (down && firstChild(root) >= 0)
                {
                    consumed = downIn[firstChild(root) * pieces + k - slots];
                }
                if (consumed != NONE)
                {
                    b.Depend(consumed, upSent[v * pieces + k]);
                }
            }
            if (down && child >= 0)
            {
                // v's parent sends piece k down once v has passed piece k - slots on
                b.Depend(downIn[child * pieces + k - slots], downIn[v * pieces + k]);
            }
        }
    }
    // What completes each rank's part: the root's reduced pieces (all-reduce,
    // reduce), each other rank's arrivals from its parent (all-reduce,
    // broadcast) or its own sends up (reduce); down sends were added above.
    for (uint32_t v = 0; v < n; ++v)
    {
        auto& f = b.Finals(pos[v]);
        for (uint32_t k = 0; k < pieces; ++k)
        {
            if (v == root)
            {
                if (up && rootReady[k][0] != NONE)
                {
                    for (const uint32_t ready : rootReady[k])
                    {
                        if (ready != NONE)
                        {
                            f.push_back(ready);
                        }
                    }
                }
            }
            else
            {
                f.push_back(down ? downIn[v * pieces + k] : upSent[v * pieces + k]);
            }
        }
    }
}

// ------------------------------------------------------------ bytes, times

namespace
{

/// Add one tree's bytes (tree index j is rank position pos(j)).
template<typename NodeOf, typename PosOf>
void
AddTree(uint32_t p,
        uint64_t n,
        bool up,
        bool down,
        NodeOf node,
        PosOf pos,
        std::vector<uint64_t>& b)
{
    for (uint32_t j = 0; j < p; ++j)
    {
        const TreeCollectiveAlgorithm::TreeNode t = node(j);
        if (up && t.parent >= 0)
        {
            b[pos(j)] += n;
        }
        if (down)
        {
            b[pos(j)]
                += n
                   * ((t.child0 >= 0 ? 1 : 0) + (t.child1 >= 0 ? 1 : 0) + (t.child2 >= 0 ? 1 : 0));
        }
    }
}

} // namespace

bool
TreeCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                         uint64_t n,
                                         uint32_t channel,
                                         std::vector<uint64_t>& b) const
{
    const uint32_t p = g.ranks.size();
    const std::string& op = g.op;
    if (op == "all-reduce")
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            const std::vector<TreeNode> nodes = AllReduceTree(g, channel, t);
            AddTree(
                p,
                SplitShare(n, 2, t),
                true,
                true,
                [&nodes](uint32_t j) { return nodes[j]; },
                [](uint32_t j) { return j; },
                b);
        }
        return true;
    }
    if (op != "broadcast" && op != "reduce")
    {
        return false;
    }
    AddTree(
        p,
        n,
        op == "reduce",
        op == "broadcast",
        [p](uint32_t j) { return BinaryTreeNode(p, j); },
        [&g, p](uint32_t j) { return (g.root + j) % p; },
        b);
    return true;
}

void
TreeCollectiveAlgorithm::CostPaths(const WorkloadGroup& g, std::vector<CollectivePath>& paths) const
{
    const uint32_t p = g.ranks.size();
    if (g.op == "all-reduce" && !g.trees.empty())
    {
        // Every tree edge, both ways, with the share of the buffer it carries: half of each
        // channel that takes the tree (channel c takes tree c mod T). Chain edges stay in a
        // server (intra).
        const auto count = static_cast<uint32_t>(g.trees.size());
        const uint32_t channels = std::max<uint32_t>(g.channels, 1);
        for (uint32_t k = 0; k < count && k < channels; ++k)
        {
            const uint32_t users = channels / count + (k < channels % count ? 1 : 0);
            const double share = static_cast<double>(users) / channels / 2;
            for (uint32_t t = 0; t < 2; ++t)
            {
                const std::vector<TreeNode> nodes = AllReduceTree(g, k, t);
                for (uint32_t i = 0; i < p; ++i)
                {
                    if (nodes[i].parent >= 0)
                    {
                        const auto parent = static_cast<uint32_t>(nodes[i].parent);
                        const bool chain = nodes[parent].child2 == static_cast<int32_t>(i);
                        paths.push_back({i, parent, chain, share});
                        paths.push_back({parent, i, chain, share});
                    }
                }
            }
        }
        return;
    }
    for (uint32_t t = 0; t < (g.op == "all-reduce" ? 2 : 1); ++t)
    {
        for (uint32_t i = 0; i < p; ++i)
        {
            const auto node = DoubleBinaryTreeNode(p, i, t);
            if (node.parent >= 0)
            {
                const uint32_t a = (g.op == "all-reduce") ? i : (i + g.root) % p;
                const uint32_t b
                    = (g.op == "all-reduce") ? node.parent : (node.parent + g.root) % p;
                paths.push_back({a, b, false});
                paths.push_back({b, a, false});
            }
        }
    }
}

std::string
TreeCollectiveAlgorithm::FormulaId(const std::string& op) const
{
    return op == "all-reduce" ? "F3" : "";
}

double
TreeCollectiveAlgorithm::FormulaTime(const WorkloadGroup& g,
                                     const CollectiveCost& /* cost */,
                                     const CollectiveTerms& x) const
{
    if (g.op != "all-reduce" || !g.trees.empty())
    {
        return NO_FORMULA; // F3's tree is over ranks, not NCCL's chains and tree over servers
    }
    return TextbookTreeAllReduceTime(g, x); // F3
}

std::vector<double>
TreeCollectiveAlgorithm::StepTimes(const WorkloadGroup& g,
                                   const CollectiveCost& /* cost */,
                                   const CollectiveTerms& x) const
{
    // F3's textbook tree: L levels up, each a whole message reduced; L levels down.
    if (g.op != "all-reduce" || !g.trees.empty())
    {
        return {};
    }
    return TextbookTreeAllReduceSteps(g, x);
}

double
TreeCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                      const CollectiveCost& cost,
                                      const CollectiveTerms& x) const
{
    if (g.op == "all-reduce" && !g.trees.empty() && g.ranks.size() > 1)
    {
        // NCCL's trees over servers, as a two-stage pipeline of K pieces (each tree's
        // share of a channel cut at the chunk): the busiest GPU port's work W (CostPaths()
        // names every edge with its share and CollectiveAlphaBeta() adds the shares per port,
        // so x.beta is the busiest port's time per buffer byte) and the latency L of the
        // slowest path a piece travels, up and down (its chain hops at the intra alpha, its
        // hops between servers at the inter alpha, and the reductions on the way up):
        // T = max(W, L) + min(W, L) / K. One piece: the latency adds to the work; many: the
        // other channels keep the busiest port busy while a piece travels.
        uint32_t chainHops = 0;
        uint32_t serverHops = 0;
        for (uint32_t k = 0; k < g.trees.size() && k < std::max<uint32_t>(g.channels, 1); ++k)
        {
            for (uint32_t t = 0; t < 2; ++t)
            {
                const std::vector<TreeNode> nodes = AllReduceTree(g, k, t);
                for (uint32_t r = 0; r < nodes.size(); ++r)
                {
                    uint32_t inChain = 0;
                    uint32_t between = 0;
                    for (int32_t v = r; nodes[v].parent >= 0; v = nodes[v].parent)
                    {
                        (nodes[nodes[v].parent].child2 == v ? inChain : between) += 1;
                    }
                    const double took = inChain * cost.intra.alphaS + between * cost.inter.alphaS;
                    const double most
                        = chainHops * cost.intra.alphaS + serverHops * cost.inter.alphaS;
                    const bool deeper = inChain + between > chainHops + serverHops;
                    if (took > most || (took == most && deeper))
                    {
                        chainHops = inChain;
                        serverHops = between;
                    }
                }
            }
        }
        const uint64_t tree0 = SplitShare(SplitShare(g.bytes, g.channels, 0), 2, 0);
        const double pieces = PieceCount(tree0, x.chunk);
        const double piece = x.n / x.c / 2 / pieces;
        const double work = x.n * x.beta;
        const double latency
            = 2.0 * (chainHops * cost.intra.alphaS + serverHops * cost.inter.alphaS)
              + 2 * piece * x.gamma * (chainHops + serverHops);
        return std::max(work, latency) + std::min(work, latency) / pieces;
    }
    // Pipelined NCCL double binary tree all-reduce, or one binary tree (broadcast,
    // reduce): the busiest NIC's bytes W at line rate, plus the pipeline's fill and
    // drain: one alpha per tree hop a piece travels (up, then down), and about two
    // pieces' time per hop but the last (interior ranks share their port between
    // about two neighbours at a time).
    if (g.op != "all-reduce" && g.op != "broadcast" && g.op != "reduce")
    {
        return -1;
    }
    const uint32_t p = g.ranks.size();
    if (p < 2)
    {
        return 0;
    }
    const bool allReduce = g.op == "all-reduce";
    const bool up = g.op != "broadcast";
    const bool down = g.op != "reduce";
    const uint32_t trees = allReduce ? 2 : 1;
    double worst = 0;
    uint32_t depth = 0;
    for (uint32_t r = 0; r < p; ++r)
    {
        double sent = 0;
        double received = 0;
        for (uint32_t t = 0; t < trees; ++t)
        {
            const auto node = DoubleBinaryTreeNode(p, r, t);
            const double share = x.n / trees;
            const double parent = node.parent >= 0 ? 1 : 0;
            const double children = (node.child0 >= 0 ? 1 : 0) + (node.child1 >= 0 ? 1 : 0);
            sent += share * ((up ? parent : 0) + (down ? children : 0));
            received += share * ((up ? children : 0) + (down ? parent : 0));
            uint32_t d = 0;
            for (int32_t v = r; v >= 0; v = DoubleBinaryTreeNode(p, v, t).parent)
            {
                ++d;
            }
            depth = std::max(depth, d - 1);
        }
        worst = std::max({worst, sent, received});
    }
    const uint64_t tree0 = SplitShare(SplitShare(g.bytes, g.channels, 0), trees, 0);
    const double pieces = PieceCount(tree0, x.chunk);
    const double piece = x.n / x.c / trees / pieces;
    const double mp = x.c * piece * x.beta;
    const double hops = (up && down) ? 2.0 * depth : depth;
    const double reduce = up ? 2 * piece * x.gamma * depth : 0;
    return worst * x.beta + hops * x.alpha + (hops - 1) * 2 * mp + reduce;
}

} // namespace ns3
