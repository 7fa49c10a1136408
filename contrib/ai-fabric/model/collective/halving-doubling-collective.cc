/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "halving-doubling-collective.h"

#include "ns3/log.h"
#include "ns3/workload.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HalvingDoublingCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingCollectiveAlgorithm);

TypeId
HalvingDoublingCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HalvingDoublingCollectiveAlgorithm>();
    return tid;
}

HalvingDoublingCollectiveAlgorithm::HalvingDoublingCollectiveAlgorithm()
{
}

HalvingDoublingCollectiveAlgorithm::~HalvingDoublingCollectiveAlgorithm()
{
}

CollectiveCapabilities
HalvingDoublingCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "halving-doubling";
    c.listPosition = 2;
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE_SCATTER)
            | CollectiveCapabilities::OpBit(CollectiveOp::ALL_GATHER);
    c.powerOfTwoRanks = true;
    return c;
}

std::string
HalvingDoublingCollectiveAlgorithm::Validate(const WorkloadGroup& g) const
{
    const std::string problem = CollectiveAlgorithm::Validate(g);
    if (!problem.empty())
    {
        return problem;
    }
    const uint64_t p = g.ranks.size();
    if ((p & (p - 1)) != 0)
    {
        return "halving-doubling needs a power-of-two number of ranks, got " + std::to_string(p)
               + " (use ring or tree, or 2^k ranks)";
    }
    return "";
}

void
HalvingDoublingCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                                   uint32_t channel,
                                                   uint64_t bytes) const
{
    constexpr uint32_t NONE = CollectiveBuilder::NONE;
    const WorkloadGroup& g = b.Group();
    const uint32_t p = b.Ranks();
    const uint16_t qp = channel;
    if (p < 2)
    {
        b.Finals(0).push_back(b.Start(0));
        return;
    }
    uint32_t levels = 0;
    while ((1u << levels) < p)
    {
        ++levels;
    }
    // prefix[j]: bytes of blocks 0 .. j-1
    std::vector<uint64_t> prefix(p + 1, 0);
    for (uint32_t j = 0; j < p; ++j)
    {
        prefix[j + 1] = prefix[j] + SplitShare(bytes, p, j);
    }
    auto range = [&prefix](uint32_t first, uint32_t count) {
        return prefix[first + count] - prefix[first];
    };
    std::vector<uint32_t> ready(p, NONE); // arrival (reduced) of the previous step
    std::vector<uint32_t> sent(p, NONE);  // own send of the previous step
    std::vector<uint32_t> next(p, NONE);
    std::vector<uint32_t> chain(p, NONE);
    uint32_t step = 0;
    auto exchange = [&](uint32_t i, uint32_t partner, uint64_t msg) {
        const uint32_t op = b.Send(step, i, partner, qp, msg);
        if (sent[i] == NONE)
        {
            b.AfterStart(i, op);
        }
        else
        {
            b.Depend(ready[i], op);
            b.Depend(sent[i], op);
        }
        next[i] = op;
    };
    if (g.op != "all-gather")
    {
        for (uint32_t k = 0; k < levels; ++k, ++step)
        {
            const uint32_t d = p >> (k + 1);
            for (uint32_t i = 0; i < p; ++i)
            {
                const uint32_t base = i & ~(2 * d - 1);
                // Send the half on the partner's side.
                const uint32_t first = (i & d) ? base : base + d;
                exchange(i, i ^ d, range(first, d));
            }
            for (uint32_t i = 0; i < p; ++i)
            {
                const uint32_t base = i & ~(2 * d - 1);
                const uint32_t kept = (i & d) ? base + d : base;
                ready[i] = b.Reduce(step, i, range(kept, d), next[i ^ d], chain[i]);
            }
            sent = next;
        }
    }
    if (g.op != "reduce-scatter")
    {
        for (uint32_t k = 0; k < levels; ++k, ++step)
        {
            const uint32_t d = 1u << k;
            for (uint32_t i = 0; i < p; ++i)
            {
                exchange(i, i ^ d, range(i & ~(d - 1), d));
            }
            for (uint32_t i = 0; i < p; ++i)
            {
                ready[i] = next[i ^ d];
            }
            sent = next;
        }
    }
    for (uint32_t i = 0; i < p; ++i)
    {
        b.Finals(i).push_back(ready[i]);
        b.Finals(i).push_back(sent[i]);
    }
}

// ------------------------------------------------------------ bytes, times

bool
HalvingDoublingCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                                    uint64_t n,
                                                    uint32_t /* channel */,
                                                    std::vector<uint64_t>& b) const
{
    const uint32_t p = g.ranks.size();
    const std::string& op = g.op;
    const bool rs = op == "all-reduce" || op == "reduce-scatter";
    const bool ag = op == "all-reduce" || op == "all-gather";
    if ((!rs && !ag) || p < 2)
    {
        return rs || ag;
    }
    std::vector<uint64_t> prefix(p + 1, 0);
    for (uint32_t j = 0; j < p; ++j)
    {
        prefix[j + 1] = prefix[j] + SplitShare(n, p, j);
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

void
HalvingDoublingCollectiveAlgorithm::CostPaths(const WorkloadGroup& g,
                                              std::vector<CollectivePath>& paths) const
{
    const uint32_t p = g.ranks.size();
    for (uint32_t d = 1; d < p; d <<= 1)
    {
        for (uint32_t i = 0; i < p; ++i)
        {
            paths.push_back({i, i ^ d, false});
        }
    }
}

std::string
HalvingDoublingCollectiveAlgorithm::FormulaId(const std::string& op) const
{
    return op == "all-reduce" ? "F4" : "";
}

double
HalvingDoublingCollectiveAlgorithm::FormulaTime(const WorkloadGroup& g,
                                                const CollectiveCost& /* cost */,
                                                const CollectiveTerms& x) const
{
    const double p = x.p;
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma;
    const std::string& op = g.op;
    const double l = CeilLog2(g.ranks.size());
    const double rs = l * a + (p - 1) / p * n * b;
    if (op == "all-reduce")
    {
        return 2 * rs + (p - 1) / p * n * y; // F4
    }
    if (op == "reduce-scatter")
    {
        return rs + (p - 1) / p * n * y;
    }
    if (op == "all-gather")
    {
        return rs;
    }
    return NO_FORMULA;
}

std::vector<double>
HalvingDoublingCollectiveAlgorithm::StepTimes(const WorkloadGroup& g,
                                              const CollectiveCost& /* cost */,
                                              const CollectiveTerms& x) const
{
    // Halving: d = P/2 .. 1 blocks of n/P go to the partner and are reduced there;
    // doubling: d = 1 .. P/2 blocks.
    const uint32_t p = g.ranks.size();
    std::vector<double> steps;
    for (uint32_t d = p / 2; d >= 1 && (g.op == "all-reduce" || g.op == "reduce-scatter"); d /= 2)
    {
        const double share = d / x.p * x.n;
        steps.push_back(x.alpha + share * x.beta + share * x.gamma);
    }
    for (uint32_t d = 1; d < p && (g.op == "all-reduce" || g.op == "all-gather"); d *= 2)
    {
        steps.push_back(x.alpha + d / x.p * x.n * x.beta);
    }
    return steps;
}

double
HalvingDoublingCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                                 const CollectiveCost& cost,
                                                 const CollectiveTerms& x) const
{
    // As FORMULA, the gamma term divided by C: a channel reduces its share.
    CollectiveTerms perChannel = x;
    perChannel.gamma = x.gamma / x.c;
    return FormulaTime(g, cost, perChannel);
}

} // namespace ns3
