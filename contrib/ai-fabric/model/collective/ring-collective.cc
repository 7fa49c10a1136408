/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-collective.h"

#include "ns3/log.h"
#include "ns3/workload.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(RingCollectiveAlgorithm);

TypeId
RingCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingCollectiveAlgorithm>();
    return tid;
}

RingCollectiveAlgorithm::RingCollectiveAlgorithm()
{
}

RingCollectiveAlgorithm::~RingCollectiveAlgorithm()
{
}

CollectiveCapabilities
RingCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "ring";
    c.listPosition = 0;
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE_SCATTER)
            | CollectiveCapabilities::OpBit(CollectiveOp::ALL_GATHER)
            | CollectiveCapabilities::OpBit(CollectiveOp::BROADCAST)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE);
    c.chunked = true;
    c.ringOrdered = true;
    c.ncclChannels = true;
    return c;
}

void
RingCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                        uint32_t channel,
                                        uint64_t bytes) const
{
    const WorkloadGroup& g = b.Group();
    const uint32_t p = b.Ranks();
    const uint16_t qp = channel;
    const std::vector<uint32_t> members = ChannelRing(g, channel);
    if (g.op == "broadcast" || g.op == "reduce")
    {
        // Along the channel's ring from the root: broadcast root, next, ..., the one before
        // it; reduce next, ..., the one before it, root.
        const auto at = static_cast<uint32_t>(std::find(members.begin(), members.end(), g.root)
                                              - members.begin());
        const uint32_t first = g.op == "broadcast" ? at : at + 1;
        std::vector<uint32_t> chain(p);
        for (uint32_t h = 0; h < p; ++h)
        {
            chain[h] = members[(first + h) % p];
        }
        BuildChain(b, chain, bytes, g.op == "reduce", qp, nullptr);
        return;
    }
    const Phases phases = g.op == "all-reduce"       ? ALL_REDUCE
                          : g.op == "reduce-scatter" ? REDUCE_SCATTER
                                                     : ALL_GATHER;
    BuildRing(b, members, bytes, phases, qp, 0, {}, nullptr);
}

std::vector<uint32_t>
RingCollectiveAlgorithm::ChannelRing(const WorkloadGroup& g, uint32_t channel)
{
    if (!g.rings.empty())
    {
        return g.rings[channel % g.rings.size()];
    }
    std::vector<uint32_t> members(g.ranks.size());
    for (uint32_t i = 0; i < members.size(); ++i)
    {
        members[i] = i;
    }
    return members;
}

void
RingCollectiveAlgorithm::CostPaths(const WorkloadGroup& g, std::vector<CollectivePath>& paths) const
{
    if (g.rings.empty())
    {
        RingPaths(g.ranks.size(), paths);
        return;
    }
    // Every ring's successors, each carrying the share of the buffer of the channels that
    // take the ring (channel c takes ring c mod R).
    const auto rings = static_cast<uint32_t>(g.rings.size());
    const uint32_t channels = std::max<uint32_t>(g.channels, 1);
    for (uint32_t k = 0; k < rings; ++k)
    {
        const std::vector<uint32_t>& ring = g.rings[k];
        const uint32_t users = channels / rings + (k < channels % rings ? 1 : 0);
        const double share = static_cast<double>(users) / channels;
        for (std::size_t i = 0; i < ring.size(); ++i)
        {
            paths.push_back({ring[i], ring[(i + 1) % ring.size()], false, share});
        }
    }
}

void
RingCollectiveAlgorithm::BuildRing(CollectiveBuilder& b,
                                   const std::vector<uint32_t>& members,
                                   uint64_t bytes,
                                   Phases phases,
                                   uint16_t qp,
                                   uint32_t firstStep,
                                   const std::vector<uint32_t>& starts,
                                   std::vector<std::vector<uint32_t>>* finals)
{
    auto out = [&b, finals](uint32_t pos) -> std::vector<uint32_t>& {
        return finals ? (*finals)[pos] : b.Finals(pos);
    };
    const uint32_t q = members.size();
    if (q < 2)
    {
        // Nothing to exchange: the member's part is done when it starts.
        for (uint32_t i = 0; i < q; ++i)
        {
            out(members[i]).push_back(starts.empty() ? b.Start(members[i]) : starts[i]);
        }
        return;
    }
    const uint64_t chunkBytes = b.Group().chunkBytes;
    // Every step's block is cut into the same number of pieces, so that piece k
    // of one step feeds piece k of the next.
    const uint32_t pieces = PieceCount(SplitShare(bytes, q, 0), chunkBytes);
    const uint32_t phaseSteps = q - 1;
    const uint32_t steps
        = ((phases & REDUCE_SCATTER) ? phaseSteps : 0) + ((phases & ALL_GATHER) ? phaseSteps : 0);

    // ready[i * pieces + k]: the op after which member i may send piece k of its
    // next step (the arrival of the previous step's piece, reduced if needed).
    std::vector<uint32_t> ready(static_cast<std::size_t>(q) * pieces, CollectiveBuilder::NONE);
    std::vector<uint32_t> sent(ready.size(), CollectiveBuilder::NONE);
    std::vector<uint32_t> chain(q, CollectiveBuilder::NONE); // reduction chain per member
    for (uint32_t s = 0; s < steps; ++s)
    {
        const bool reduceScatter = (phases & REDUCE_SCATTER) && s < phaseSteps;
        const uint32_t t = reduceScatter || !(phases & REDUCE_SCATTER) ? s : s - phaseSteps;
        const uint32_t offset = reduceScatter ? 1 : 0; // block = i - t - offset
        const uint32_t step = firstStep + s;
        for (uint32_t i = 0; i < q; ++i)
        {
            const uint32_t block = (i + 2 * q - t - offset) % q;
            const uint64_t blockBytes = SplitShare(bytes, q, block);
            for (uint32_t k = 0; k < pieces; ++k)
            {
                const uint32_t op = b.Send(step,
                                           members[i],
                                           members[(i + 1) % q],
                                           qp,
                                           SplitShare(blockBytes, pieces, k));
                if (s == 0)
                {
                    if (starts.empty())
                    {
                        b.AfterStart(members[i], op);
                    }
                    else
                    {
                        b.Depend(starts[i], op);
                    }
                }
                else
                {
                    b.Depend(ready[i * pieces + k], op);
                }
                sent[i * pieces + k] = op;
            }
        }
        // What each member received this step is what it sends next.
        for (uint32_t i = 0; i < q; ++i)
        {
            const uint32_t to = (i + 1) % q;
            const uint32_t block = (i + 2 * q - t - offset) % q;
            const uint64_t blockBytes = SplitShare(bytes, q, block);
            for (uint32_t k = 0; k < pieces; ++k)
            {
                uint32_t arrived = sent[i * pieces + k];
                if (reduceScatter)
                {
                    arrived = b.Reduce(step,
                                       members[to],
                                       SplitShare(blockBytes, pieces, k),
                                       arrived,
                                       chain[to]);
                }
                ready[to * pieces + k] = arrived;
            }
        }
    }
    // Member i is done when the last step's pieces from member i-1 have arrived
    // (and are reduced) and its own last pieces have arrived at member i+1.
    for (uint32_t i = 0; i < q; ++i)
    {
        auto& f = out(members[i]);
        for (uint32_t k = 0; k < pieces; ++k)
        {
            f.push_back(ready[i * pieces + k]);
            f.push_back(sent[i * pieces + k]);
        }
    }
}

void
RingCollectiveAlgorithm::BuildChain(CollectiveBuilder& b,
                                    const std::vector<uint32_t>& chain,
                                    uint64_t bytes,
                                    bool reduce,
                                    uint16_t qp,
                                    std::vector<std::vector<uint32_t>>* finals)
{
    auto out = [&b, finals](uint32_t pos) -> std::vector<uint32_t>& {
        return finals ? (*finals)[pos] : b.Finals(pos);
    };
    const uint32_t n = chain.size();
    if (n < 2)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            out(chain[i]).push_back(b.Start(chain[i]));
        }
        return;
    }
    const uint32_t pieces = PieceCount(bytes, b.Group().chunkBytes);
    std::vector<uint32_t> ready(pieces, CollectiveBuilder::NONE); // at the current sender
    uint32_t reduceChain = CollectiveBuilder::NONE;
    for (uint32_t h = 0; h + 1 < n; ++h)
    {
        auto& mine = out(chain[h]);
        for (uint32_t k = 0; k < pieces; ++k)
        {
            const uint32_t op = b.Send(h, chain[h], chain[h + 1], qp, SplitShare(bytes, pieces, k));
            if (h == 0)
            {
                b.AfterStart(chain[h], op);
            }
            else
            {
                b.Depend(ready[k], op);
                mine.push_back(ready[k]);
            }
            mine.push_back(op);
            ready[k] = op;
        }
        // The receiver reduces each arriving piece with its own data first.
        reduceChain = CollectiveBuilder::NONE;
        for (uint32_t k = 0; reduce && k < pieces; ++k)
        {
            ready[k]
                = b.Reduce(h, chain[h + 1], SplitShare(bytes, pieces, k), ready[k], reduceChain);
        }
    }
    auto& last = out(chain[n - 1]);
    last.insert(last.end(), ready.begin(), ready.end());
}

// ------------------------------------------------------------ bytes, times

uint64_t
RingCollectiveAlgorithm::RingMemberBytes(uint64_t n, uint32_t q, uint32_t i, bool rs, bool ag)
{
    if (q < 2)
    {
        return 0;
    }
    uint64_t b = 0;
    if (rs)
    {
        b += n - SplitShare(n, q, i);
    }
    if (ag)
    {
        b += n - SplitShare(n, q, (i + 1) % q);
    }
    return b;
}

bool
RingCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                         uint64_t n,
                                         uint32_t channel,
                                         std::vector<uint64_t>& b) const
{
    const uint32_t p = g.ranks.size();
    const std::string& op = g.op;
    const std::vector<uint32_t> ring = ChannelRing(g, channel);
    if (op == "broadcast" || op == "reduce")
    {
        if (p < 2)
        {
            return true; // nothing moves
        }
        // Every chain member but the end sends n: the end is the root's predecessor on the
        // channel's ring (broadcast) or the root (reduce).
        const auto at
            = static_cast<uint32_t>(std::find(ring.begin(), ring.end(), g.root) - ring.begin());
        const uint32_t end = op == "broadcast" ? ring[(at + p - 1) % p] : g.root;
        for (uint32_t i = 0; i < p; ++i)
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
        b[ring[i]] += RingMemberBytes(n, p, i, rs, ag); // member i of the ring
    }
    return true;
}

std::string
RingCollectiveAlgorithm::FormulaId(const std::string& op) const
{
    if (op == "all-reduce")
    {
        return "F1";
    }
    if (op == "reduce-scatter" || op == "all-gather")
    {
        return "F2";
    }
    return "";
}

double
RingCollectiveAlgorithm::FormulaTime(const WorkloadGroup& g,
                                     const CollectiveCost& /* cost */,
                                     const CollectiveTerms& x) const
{
    const double p = x.p;
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma;
    const std::string& op = g.op;
    if (op == "all-reduce")
    {
        return 2 * (p - 1) * a + 2 * (p - 1) / p * n * b + (p - 1) / p * n * y; // F1
    }
    if (op == "reduce-scatter" || op == "all-gather")
    {
        return (p - 1) * a + (p - 1) / p * n * b
               + (op == "reduce-scatter" ? (p - 1) / p * n * y : 0); // F2
    }
    return NO_FORMULA;
}

std::vector<double>
RingCollectiveAlgorithm::StepTimes(const WorkloadGroup& g,
                                   const CollectiveCost& /* cost */,
                                   const CollectiveTerms& x) const
{
    // Every step moves one block n/P to the successor; reduce-scatter steps reduce it.
    const double block = x.n / x.p;
    const uint32_t phase = g.ranks.size() - 1;
    std::vector<double> steps;
    if (g.op == "all-reduce" || g.op == "reduce-scatter")
    {
        steps.insert(steps.end(), phase, x.alpha + block * x.beta + block * x.gamma);
    }
    if (g.op == "all-reduce" || g.op == "all-gather")
    {
        steps.insert(steps.end(), phase, x.alpha + block * x.beta);
    }
    return steps;
}

double
RingCollectiveAlgorithm::RingPipelineTime(uint32_t steps,
                                          uint32_t reduceSteps,
                                          uint64_t ringBytes,
                                          uint32_t members,
                                          uint32_t channels,
                                          uint64_t chunk,
                                          const AlphaBeta& ab,
                                          double gamma)
{
    if (steps == 0 || members < 2)
    {
        return 0;
    }
    // The builder cuts channel 0's largest block; all channels alike.
    const uint64_t block0 = SplitShare(SplitShare(ringBytes, channels, 0), members, 0);
    const double pieces = PieceCount(block0, chunk);
    const double piece = static_cast<double>(ringBytes) / members / channels / pieces;
    const double mp = channels * piece * ab.betaSPerByte; // link time of one piece
    double t = (steps * pieces - 1) * mp;
    for (uint32_t s = 0; s + 1 < steps; ++s)
    {
        const double l = ab.alphaS + mp + (s < reduceSteps ? piece * gamma : 0);
        t += std::max(0.0, l - pieces * mp);
    }
    return t + ab.alphaS + mp + (steps - 1 < reduceSteps ? piece * gamma : 0);
}

double
RingCollectiveAlgorithm::ChainPipelineTime(const WorkloadGroup& g,
                                           const CollectiveTerms& x,
                                           bool reduce,
                                           const AlphaBeta& ab)
{
    if (x.p < 2)
    {
        return 0;
    }
    const uint64_t ch0 = SplitShare(g.bytes, g.channels, 0);
    const double pieces = PieceCount(ch0, x.chunk);
    const double piece = x.n / x.c / pieces;
    const double mp = x.c * piece * ab.betaSPerByte;
    const double l = ab.alphaS + mp + (reduce ? piece * x.gamma : 0);
    return (x.p - 1) * l + (pieces - 1) * mp;
}

double
RingCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                      const CollectiveCost& cost,
                                      const CollectiveTerms& x) const
{
    const uint32_t p = g.ranks.size();
    const std::string& op = g.op;
    if (op == "all-reduce")
    {
        return RingPipelineTime(2 * (p - 1),
                                p - 1,
                                g.bytes,
                                p,
                                g.channels,
                                x.chunk,
                                cost.inter,
                                x.gamma);
    }
    if (op == "reduce-scatter")
    {
        return RingPipelineTime(p - 1, p - 1, g.bytes, p, g.channels, x.chunk, cost.inter, x.gamma);
    }
    if (op == "all-gather")
    {
        return RingPipelineTime(p - 1, 0, g.bytes, p, g.channels, x.chunk, cost.inter, 0);
    }
    if (op == "broadcast" || op == "reduce")
    {
        return ChainPipelineTime(g, x, op == "reduce", cost.inter);
    }
    return -1;
}

} // namespace ns3
