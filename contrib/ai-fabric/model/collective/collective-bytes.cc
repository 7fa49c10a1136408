/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-bytes.h"

#include "ns3/collective-algorithm.h"
#include "ns3/tree-collective.h"
#include "ns3/workload.h"

namespace ns3
{

namespace
{

/// \return part \p i of \p n cut into \p p (SplitShare)
uint64_t
Part(uint64_t n, uint32_t p, uint32_t i)
{
    return CollectiveAlgorithm::SplitShare(n, p, i);
}

/**
 * \brief Ring bytes of one member among q members.
 * \param n the ring's data
 * \param q members
 * \param i member position
 * \param rs reduce-scatter phase
 * \param ag all-gather phase
 * \return payload bytes member i sends
 */
uint64_t
RingMember(uint64_t n, uint32_t q, uint32_t i, bool rs, bool ag)
{
    if (q < 2)
    {
        return 0;
    }
    uint64_t b = 0;
    if (rs)
    {
        b += n - Part(n, q, i);
    }
    if (ag)
    {
        b += n - Part(n, q, (i + 1) % q);
    }
    return b;
}

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
            b[pos(j)] += n * ((t.child0 >= 0 ? 1 : 0) + (t.child1 >= 0 ? 1 : 0));
        }
    }
}

/// Add one channel's bytes (n) of group g to b; false if unknown.
bool
AddChannel(const WorkloadGroup& g, uint64_t n, uint32_t channel, std::vector<uint64_t>& b)
{
    const uint32_t p = g.ranks.size();
    const std::string& op = g.op;
    const std::string& a = g.algorithm;
    if (a == "ring")
    {
        if (op == "broadcast" || op == "reduce")
        {
            // Every chain member but the end sends n: the end is root-1 (broadcast) or root.
            const uint32_t end = op == "broadcast" ? (g.root + p - 1) % p : g.root;
            for (uint32_t i = 0; p > 1 && i < p; ++i)
            {
                b[i] += i == end ? 0 : n;
            }
            return true;
        }
        const bool rs = op == "all-reduce" || op == "reduce-scatter";
        const bool ag = op == "all-reduce" || op == "all-gather";
        if (!rs && !ag)
        {
            return false;
        }
        for (uint32_t i = 0; i < p; ++i)
        {
            b[i] += RingMember(n, p, i, rs, ag);
        }
        return true;
    }
    if (a == "tree")
    {
        if (op == "all-reduce")
        {
            for (uint32_t t = 0; t < 2; ++t)
            {
                AddTree(
                    p,
                    Part(n, 2, t),
                    true,
                    true,
                    [p, t](uint32_t j) {
                        return TreeCollectiveAlgorithm::DoubleBinaryTreeNode(p, j, t);
                    },
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
            [p](uint32_t j) { return TreeCollectiveAlgorithm::BinaryTreeNode(p, j); },
            [&g, p](uint32_t j) { return (g.root + j) % p; },
            b);
        return true;
    }
    if (a == "binomial")
    {
        const uint32_t root = op == "all-reduce" ? 0 : g.root;
        if (op != "all-reduce" && op != "broadcast" && op != "reduce")
        {
            return false;
        }
        for (uint32_t v = 0; v < p; ++v)
        {
            uint64_t sends = 0;
            if (op != "broadcast" && v != 0)
            {
                sends += 1; // once, at its lowest set bit
            }
            if (op != "reduce")
            {
                for (uint64_t d = 1; d < p; d <<= 1)
                {
                    if (v % (2 * d) == 0 && v + d < p)
                    {
                        ++sends;
                    }
                }
            }
            b[(v + root) % p] += sends * n;
        }
        return true;
    }
    if (a == "halving-doubling")
    {
        const bool rs = op == "all-reduce" || op == "reduce-scatter";
        const bool ag = op == "all-reduce" || op == "all-gather";
        if ((!rs && !ag) || p < 2)
        {
            return rs || ag;
        }
        std::vector<uint64_t> prefix(p + 1, 0);
        for (uint32_t j = 0; j < p; ++j)
        {
            prefix[j + 1] = prefix[j] + Part(n, p, j);
        }
        auto range = [&prefix](uint32_t first, uint32_t count) {
            return prefix[first + count] - prefix[first];
        };
        for (uint32_t i = 0; i < p; ++i)
        {
            for (uint32_t d = p / 2; rs && d >= 1; d /= 2)
            {
                const uint32_t base = i & ~(2 * d - 1);
                b[i] += range((i & d) ? base : base + d, d); // the partner's half
            }
            for (uint32_t d = 1; ag && d < p; d *= 2)
            {
                b[i] += range(i & ~(d - 1), d); // the blocks held so far
            }
        }
        return true;
    }
    if (a == "hierarchical")
    {
        const uint32_t gpn = g.ranksPerNode;
        if (op != "all-reduce" || gpn == 0 || p % gpn != 0)
        {
            return false;
        }
        const uint32_t nodes = p / gpn;
        for (uint32_t r = 0; r < p; ++r)
        {
            const uint32_t l = r % gpn;
            b[r] += RingMember(n, gpn, l, true, true);
            b[r] += RingMember(Part(n, gpn, l), nodes, r / gpn, true, true);
        }
        return true;
    }
    if (a == "direct")
    {
        const uint32_t c = g.channels;
        if (op == "send-recv")
        {
            for (const WorkloadTransfer& t : g.transfers)
            {
                b[t.src] += Part(t.bytes, c, channel);
            }
            return true;
        }
        if (op == "all-to-all")
        {
            for (uint32_t i = 0; i < p; ++i)
            {
                for (uint32_t j = 0; j < p; ++j)
                {
                    if (j != i)
                    {
                        const uint64_t pair = g.matrix.empty()
                                                  ? Part(g.bytes, p, j)
                                                  : g.matrix[static_cast<std::size_t>(i) * p + j];
                        b[i] += Part(pair, c, channel);
                    }
                }
            }
            return true;
        }
        for (uint32_t i = 0; i < p; ++i)
        {
            if (op == "broadcast")
            {
                b[i] += i == g.root ? (p - 1) * n : 0;
            }
            else if (op == "reduce")
            {
                b[i] += i == g.root ? 0 : n;
            }
            else if (op == "reduce-scatter" || op == "all-gather" || op == "all-reduce")
            {
                if (op != "all-gather")
                {
                    b[i] += n - Part(n, p, i);
                }
                if (op != "reduce-scatter")
                {
                    b[i] += (p - 1) * Part(n, p, i);
                }
            }
            else
            {
                return false;
            }
        }
        return true;
    }
    if (a == "naive")
    {
        if (op != "all-reduce" && op != "broadcast" && op != "reduce")
        {
            return false;
        }
        for (uint32_t i = 0; i < p; ++i)
        {
            if (i == g.root)
            {
                b[i] += op == "reduce" ? 0 : (p - 1) * n;
            }
            else
            {
                b[i] += op == "broadcast" ? 0 : n;
            }
        }
        return true;
    }
    return false;
}

} // namespace

bool
ExpectedBytesPerRank(const WorkloadGroup& g, std::vector<uint64_t>& bytes)
{
    bytes.assign(g.ranks.size(), 0);
    const uint32_t channels = g.channels == 0 ? 1 : g.channels;
    for (uint32_t c = 0; c < channels; ++c)
    {
        if (!AddChannel(g, Part(g.bytes, channels, c), c, bytes))
        {
            bytes.clear();
            return false;
        }
    }
    return true;
}

} // namespace ns3
