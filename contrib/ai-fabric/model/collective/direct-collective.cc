/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "direct-collective.h"

#include "ns3/log.h"
#include "ns3/workload.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DirectCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(DirectCollectiveAlgorithm);

TypeId
DirectCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DirectCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<DirectCollectiveAlgorithm>();
    return tid;
}

DirectCollectiveAlgorithm::DirectCollectiveAlgorithm()
{
}

DirectCollectiveAlgorithm::~DirectCollectiveAlgorithm()
{
}

CollectiveCapabilities
DirectCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "direct";
    c.listPosition = 4;
    c.pointToPoint = true; // NCCL: grouped ncclSend/ncclRecv to every peer
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_TO_ALL)
            | CollectiveCapabilities::OpBit(CollectiveOp::SEND_RECV)
            | CollectiveCapabilities::OpBit(CollectiveOp::PERMUTATION)
            | CollectiveCapabilities::OpBit(CollectiveOp::BROADCAST)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE_SCATTER)
            | CollectiveCapabilities::OpBit(CollectiveOp::ALL_GATHER)
            | CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE);
    return c;
}

void
DirectCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                          uint32_t channel,
                                          uint64_t bytes) const
{
    constexpr uint32_t NONE = CollectiveBuilder::NONE;
    const WorkloadGroup& g = b.Group();
    const uint32_t p = b.Ranks();
    const uint32_t channels = g.channels;
    const uint16_t qp = channel;
    // One message; both ends' parts wait for its arrival. Zero bytes: no message.
    auto message = [&](uint32_t step, uint32_t src, uint32_t dst, uint64_t msg) {
        if (msg == 0)
        {
            return NONE;
        }
        const uint32_t op = b.Send(step, src, dst, qp, msg);
        b.AfterStart(src, op);
        b.Finals(src).push_back(op);
        return op;
    };
    if (g.op == "send-recv" || g.op == "permutation")
    {
        for (const WorkloadTransfer& t : g.transfers)
        {
            const uint32_t op = message(0, t.src, t.dst, SplitShare(t.bytes, channels, channel));
            if (op != NONE)
            {
                b.Finals(t.dst).push_back(op);
            }
        }
        return;
    }
    if (g.op == "all-to-all")
    {
        // Destinations in the order i+1, i+2, ...: at any moment the ranks target
        // different peers (NCCL posts its grouped sends the same way).
        for (uint32_t i = 0; i < p; ++i)
        {
            for (uint32_t o = 1; o < p; ++o)
            {
                const uint32_t j = (i + o) % p;
                const uint64_t pair = g.matrix.empty()
                                          ? SplitShare(g.bytes, p, j)
                                          : g.matrix[static_cast<std::size_t>(i) * p + j];
                const uint32_t op = message(0, i, j, SplitShare(pair, channels, channel));
                if (op != NONE)
                {
                    b.Finals(j).push_back(op);
                }
            }
        }
        return;
    }
    if (g.op == "broadcast")
    {
        for (uint32_t o = 1; o < p; ++o)
        {
            const uint32_t j = (g.root + o) % p;
            const uint32_t op = message(0, g.root, j, bytes);
            if (op != NONE)
            {
                b.Finals(j).push_back(op);
            }
        }
        return;
    }
    std::vector<uint32_t> chain(p, NONE);
    if (g.op == "reduce")
    {
        for (uint32_t o = 1; o < p; ++o)
        {
            const uint32_t j = (g.root + o) % p;
            const uint32_t op = message(0, j, g.root, bytes);
            if (op != NONE)
            {
                b.Reduce(0, g.root, bytes, op, chain[g.root]);
                b.Finals(g.root).push_back(op);
            }
        }
        if (chain[g.root] != NONE)
        {
            b.Finals(g.root).push_back(chain[g.root]);
        }
        return;
    }
    // reduce-scatter, all-gather, all-reduce
    std::vector<uint32_t> reduced(p, NONE);
    if (g.op != "all-gather")
    {
        std::vector<std::vector<uint32_t>> in(g.op == "all-reduce" ? p : 0);
        for (uint32_t i = 0; i < p; ++i)
        {
            for (uint32_t o = 1; o < p; ++o)
            {
                const uint32_t j = (i + o) % p;
                const uint64_t block = SplitShare(bytes, p, j);
                const uint32_t op = message(0, i, j, block);
                if (op == NONE)
                {
                    continue;
                }
                const uint32_t r = b.Reduce(0, j, block, op, chain[j]);
                b.Finals(j).push_back(r);
                if (!in.empty())
                {
                    in[j].push_back(r);
                }
            }
        }
        for (uint32_t i = 0; i < in.size(); ++i)
        {
            reduced[i] = b.Join(0, i, in[i]);
        }
    }
    if (g.op != "reduce-scatter")
    {
        const uint32_t step = g.op == "all-reduce" ? 1 : 0;
        for (uint32_t i = 0; i < p; ++i)
        {
            const uint64_t block = SplitShare(bytes, p, i);
            for (uint32_t o = 1; o < p && block > 0; ++o)
            {
                const uint32_t j = (i + o) % p;
                const uint32_t op = b.Send(step, i, j, qp, block);
                if (reduced[i] != NONE)
                {
                    b.Depend(reduced[i], op);
                }
                else
                {
                    b.AfterStart(i, op);
                }
                b.Finals(i).push_back(op);
                b.Finals(j).push_back(op);
            }
        }
    }
}

std::vector<WorkloadTransfer>
MakePermutationTransfers(uint32_t ranks, uint64_t bytes, Ptr<UniformRandomVariable> rng)
{
    NS_ABORT_MSG_IF(ranks < 2, "a permutation needs at least 2 ranks");
    std::vector<uint32_t> image(ranks);
    bool fixed = true;
    while (fixed)
    {
        for (uint32_t i = 0; i < ranks; ++i)
        {
            image[i] = i;
        }
        for (uint32_t i = ranks - 1; i > 0; --i)
        {
            std::swap(image[i], image[rng->GetInteger(0, i)]);
        }
        fixed = false;
        for (uint32_t i = 0; i < ranks && !fixed; ++i)
        {
            fixed = image[i] == i;
        }
    }
    std::vector<WorkloadTransfer> transfers;
    transfers.reserve(ranks);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        transfers.push_back(WorkloadTransfer{i, image[i], bytes});
    }
    return transfers;
}

// ------------------------------------------------------------ bytes, times

bool
DirectCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                           uint64_t n,
                                           uint32_t channel,
                                           std::vector<uint64_t>& b) const
{
    const uint32_t p = g.ranks.size();
    const std::string& op = g.op;
    const uint32_t c = g.channels;
    if (op == "send-recv")
    {
        for (const WorkloadTransfer& t : g.transfers)
        {
            b[t.src] += SplitShare(t.bytes, c, channel);
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
                                              ? SplitShare(g.bytes, p, j)
                                              : g.matrix[static_cast<std::size_t>(i) * p + j];
                    b[i] += SplitShare(pair, c, channel);
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
                b[i] += n - SplitShare(n, p, i);
            }
            if (op != "reduce-scatter")
            {
                b[i] += (p - 1) * SplitShare(n, p, i);
            }
        }
        else
        {
            return false;
        }
    }
    return true;
}

void
DirectCollectiveAlgorithm::CostPaths(const WorkloadGroup& g,
                                     std::vector<CollectivePath>& paths) const
{
    // The paths from and to the first rank: an approximation that avoids pricing
    // all P^2 pairs. An all-to-all's messages leave at once, so each path carries its
    // share of the first rank's bytes (of its row of the matrix, and of its column on
    // the way in): the shares add up per port, NVLink and NIC apart
    // (CollectiveAlphaBeta()); the other ops' paths are priced at the worst one.
    const uint32_t p = g.ranks.size();
    const bool spread = g.op == "all-to-all" && p > 2;
    auto bytes = [&g, p](uint32_t from, uint32_t to) -> double {
        const std::size_t k = static_cast<std::size_t>(from) * p + to;
        return g.matrix.empty() ? 1.0 : (k < g.matrix.size() ? g.matrix[k] : 0.0);
    };
    double row = 0;
    double column = 0;
    for (uint32_t j = 1; spread && j < p; ++j)
    {
        row += bytes(0, j);
        column += bytes(j, 0);
    }
    for (uint32_t j = 1; j < p; ++j)
    {
        const double out = spread && row > 0 ? bytes(0, j) / row : 1.0;
        const double in = spread && column > 0 ? bytes(j, 0) / column : 1.0;
        if (out > 0)
        {
            paths.push_back({0, j, false, out});
        }
        if (in > 0)
        {
            paths.push_back({j, 0, false, in});
        }
    }
}

std::string
DirectCollectiveAlgorithm::FormulaId(const std::string& op) const
{
    return op == "all-to-all" ? "F6" : "";
}

double
DirectCollectiveAlgorithm::DirectLoad(const WorkloadGroup& g)
{
    const uint32_t p = g.ranks.size();
    std::vector<double> out(p, 0);
    std::vector<double> in(p, 0);
    if (g.op == "send-recv" || g.op == "permutation")
    {
        for (const WorkloadTransfer& t : g.transfers)
        {
            if (t.src < p && t.dst < p)
            {
                out[t.src] += t.bytes;
                in[t.dst] += t.bytes;
            }
        }
    }
    else if (!g.matrix.empty())
    {
        for (uint32_t i = 0; i < p; ++i)
        {
            for (uint32_t j = 0; j < p; ++j)
            {
                if (i != j && static_cast<std::size_t>(i) * p + j < g.matrix.size())
                {
                    out[i] += g.matrix[static_cast<std::size_t>(i) * p + j];
                    in[j] += g.matrix[static_cast<std::size_t>(i) * p + j];
                }
            }
        }
    }
    else
    {
        return (p - 1.0) / p * static_cast<double>(g.bytes);
    }
    double worst = 0;
    for (uint32_t i = 0; i < p; ++i)
    {
        worst = std::max({worst, out[i], in[i]});
    }
    return worst;
}

double
DirectCollectiveAlgorithm::FormulaTime(const WorkloadGroup& g,
                                       const CollectiveCost& /* cost */,
                                       const CollectiveTerms& x) const
{
    if (g.op != "all-to-all")
    {
        return NO_FORMULA;
    }
    return (x.p - 1) * x.alpha + DirectLoad(g) * x.beta; // F6
}

std::vector<double>
DirectCollectiveAlgorithm::StepTimes(const WorkloadGroup& g,
                                     const CollectiveCost& /* cost */,
                                     const CollectiveTerms& x) const
{
    // F6's textbook all-to-all: P-1 rounds, each an equal share of the busiest rank's bytes.
    const uint32_t p = g.ranks.size();
    if (g.op != "all-to-all" || p < 2)
    {
        return {};
    }
    return std::vector<double>(p - 1, x.alpha + DirectLoad(g) / (x.p - 1) * x.beta);
}

double
DirectCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                        const CollectiveCost& /* cost */,
                                        const CollectiveTerms& x) const
{
    // All messages at once: alpha + (the most bytes a rank sends or receives) beta,
    // plus the receivers' reductions.
    const uint32_t p = g.ranks.size();
    const double pd = x.p;
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma / x.c; // a channel reduces its share
    const std::string& op = g.op;
    if (op == "all-to-all" || op == "send-recv" || op == "permutation")
    {
        return p < 2 && op == "all-to-all" ? 0 : a + DirectLoad(g) * b;
    }
    if (p < 2)
    {
        return 0;
    }
    if (op == "broadcast")
    {
        return a + (pd - 1) * n * b;
    }
    if (op == "reduce")
    {
        return a + (pd - 1) * n * b + (pd - 1) * n * y;
    }
    const double phase = a + (pd - 1) / pd * n * b;
    if (op == "reduce-scatter")
    {
        return phase + (pd - 1) / pd * n * y;
    }
    if (op == "all-gather")
    {
        return phase;
    }
    if (op == "all-reduce")
    {
        return 2 * phase + (pd - 1) / pd * n * y;
    }
    return -1;
}

} // namespace ns3
