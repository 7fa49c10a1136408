/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nvls-collective.h"

#include "ns3/log.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvlsCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(NvlsCollectiveAlgorithm);

TypeId
NvlsCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvlsCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NvlsCollectiveAlgorithm>();
    return tid;
}

NvlsCollectiveAlgorithm::NvlsCollectiveAlgorithm()
{
}

NvlsCollectiveAlgorithm::~NvlsCollectiveAlgorithm()
{
}

CollectiveCapabilities
NvlsCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "nvls";
    c.listPosition = 7;
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE_SCATTER)
            | CollectiveCapabilities::OpBit(CollectiveOp::ALL_GATHER);
    c.chunked = true;
    c.inNetwork = true;
    return c;
}

std::string
NvlsCollectiveAlgorithm::Validate(const WorkloadGroup& g) const
{
    const std::string problem = CollectiveAlgorithm::Validate(g);
    if (!problem.empty())
    {
        return problem;
    }
    if (g.ranks.size() >= 2 && g.switches.empty())
    {
        return "nvls reduces in the NVSwitch chips of one NVLink domain, and these ranks have "
               "none: they are not all in one server, or their server has no NVSwitch "
               "(nvlink_switches); NVLS across servers (NCCL's NVLSTree) is not modelled";
    }
    return "";
}

void
NvlsCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                        uint32_t channel,
                                        uint64_t bytes) const
{
    const WorkloadGroup& g = b.Group();
    const uint32_t p = b.Ranks();
    const uint32_t chips = b.Switches();
    // The reduce and the multicast run side by side (NCCL's NVLS kernel gives each its own
    // warps): each on its own queue pair, so that neither waits behind the other's messages.
    const uint16_t qp = channel;
    const auto mqp = static_cast<uint16_t>(g.channels + channel);
    if (p < 2 || chips == 0)
    {
        for (uint32_t i = 0; i < p; ++i)
        {
            b.Finals(i).push_back(b.Start(i));
        }
        return;
    }
    const bool reduce = g.op != "all-gather";
    const bool multicast = g.op != "reduce-scatter";
    // Each owner's shard is cut into pieces of at most chunkBytes, and every piece is spread
    // over the chips (as NVLink stripes a transfer over a GPU's links to all of them): the
    // pipeline is as deep whatever the chip count.
    uint32_t pieces = 1;
    for (uint32_t i = 0; i < p; ++i)
    {
        pieces = std::max(pieces, PieceCount(SplitShare(bytes, p, i), g.chunkBytes));
    }
    std::vector<uint32_t> arrivals(p);
    std::vector<uint32_t> owned(p); // per owner: the op after which its piece is reduced
    std::vector<uint64_t> piece(p);
    for (uint32_t t = 0; t < pieces; ++t)
    {
        for (uint32_t k = 0; k < chips; ++k)
        {
            const uint32_t chip = p + k;
            uint64_t all = 0; // every owner's piece t on chip k
            for (uint32_t i = 0; i < p; ++i)
            {
                piece[i] = SplitShare(SplitShare(SplitShare(bytes, p, i), pieces, t), chips, k);
                all += piece[i];
            }
            if (all == 0)
            {
                continue;
            }
            if (reduce)
            {
                for (uint32_t j = 0; j < p; ++j)
                {
                    arrivals[j] = b.Send(0, j, chip, qp, all);
                    b.AfterStart(j, arrivals[j]);
                }
                const uint32_t reduced = b.Join(0, chip, arrivals);
                for (uint32_t i = 0; i < p; ++i)
                {
                    owned[i] = b.Send(1, chip, i, qp, piece[i]);
                    b.Depend(reduced, owned[i]);
                    if (!multicast)
                    {
                        b.Finals(i).push_back(owned[i]);
                    }
                }
                for (uint32_t j = 0; j < p && !multicast; ++j)
                {
                    b.Finals(j).push_back(arrivals[j]);
                }
            }
            if (multicast)
            {
                for (uint32_t i = 0; i < p; ++i)
                {
                    arrivals[i] = b.Send(2, i, chip, mqp, piece[i]);
                    if (reduce)
                    {
                        b.Depend(owned[i], arrivals[i]);
                    }
                    else
                    {
                        b.AfterStart(i, arrivals[i]);
                    }
                }
                const uint32_t stored = b.Join(2, chip, arrivals);
                for (uint32_t j = 0; j < p; ++j)
                {
                    const uint32_t copy = b.Send(3, chip, j, mqp, all);
                    b.Depend(stored, copy);
                    b.Finals(j).push_back(copy);
                }
            }
        }
    }
}

// ------------------------------------------------------------ bytes, times

bool
NvlsCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                         uint64_t n,
                                         uint32_t /* channel */,
                                         std::vector<uint64_t>& sent) const
{
    const uint32_t p = g.ranks.size();
    if (p < 2 || g.switches.empty())
    {
        return true; // nothing is sent
    }
    for (uint32_t i = 0; i < p; ++i)
    {
        const uint64_t shard = SplitShare(n, p, i);
        if (g.op == "all-reduce")
        {
            sent[i] += n + shard;
        }
        else if (g.op == "reduce-scatter")
        {
            sent[i] += n;
        }
        else if (g.op == "all-gather")
        {
            sent[i] += shard;
        }
        else
        {
            return false;
        }
    }
    return true;
}

double
NvlsCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                      const CollectiveCost& /* cost */,
                                      const CollectiveTerms& x) const
{
    // A rank's NVLinks carry what it sends and receives at its whole NVLink rate (1/beta),
    // spread over the chips; the last piece's way back follows the last contribution. A
    // piece of s bytes is spread over the C chip links of 1/(C beta) each: s beta.
    const double pd = x.p;
    if (pd < 2 || g.switches.empty())
    {
        return 0;
    }
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    // C channels run side by side, each on its share: their last pieces (s each) cross the
    // links together, c s.
    const double c = std::max(1.0, x.c);
    // A channel's shard is cut into equal pieces of at most the chunk (as DoBuildChannel()).
    const double shard = n / (pd * c);
    const double pieces = g.chunkBytes > 0 ? std::max(1.0, std::ceil(shard / g.chunkBytes)) : 1;
    const double s = c * shard / pieces;
    if (g.op == "all-reduce")
    {
        // Up S + S/P, then the last pieces down (s) and their multicast (P s).
        return 2 * a + n * (1 + 1 / pd) * b + (pd + 1) * s * b;
    }
    // reduce-scatter: up S, then the last pieces down; all-gather: the first stores, then S
    // multicast.
    return a + n * b + s * b;
}

} // namespace ns3
