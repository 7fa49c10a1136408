/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "direct-collective.h"

#include "ns3/log.h"
#include "ns3/workload.h"

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

bool
DirectCollectiveAlgorithm::Supports(const std::string& op) const
{
    return op == "all-to-all" || op == "send-recv" || op == "permutation" || op == "broadcast"
           || op == "reduce" || op == "reduce-scatter" || op == "all-gather" || op == "all-reduce";
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

} // namespace ns3
