/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "binomial-collective.h"

#include "ns3/log.h"
#include "ns3/workload.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BinomialCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(BinomialCollectiveAlgorithm);

TypeId
BinomialCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BinomialCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<BinomialCollectiveAlgorithm>();
    return tid;
}

BinomialCollectiveAlgorithm::BinomialCollectiveAlgorithm()
{
}

BinomialCollectiveAlgorithm::~BinomialCollectiveAlgorithm()
{
}

CollectiveCapabilities
BinomialCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "binomial";
    c.listPosition = 6;
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE)
            | CollectiveCapabilities::OpBit(CollectiveOp::BROADCAST)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE);
    return c;
}

void
BinomialCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                            uint32_t channel,
                                            uint64_t bytes) const
{
    constexpr uint32_t NONE = CollectiveBuilder::NONE;
    const WorkloadGroup& g = b.Group();
    const uint32_t p = b.Ranks();
    const uint32_t root = g.op == "all-reduce" ? 0 : g.root;
    const uint16_t qp = channel;
    uint32_t rounds = 0;
    while ((uint64_t{1} << rounds) < p)
    {
        ++rounds;
    }
    auto pos = [p, root](uint32_t v) {
        return (v + root) % p;
    };
    // has[v]: the op after which relative rank v holds its data for the next
    // round (its last reduced arrival, or the broadcast arrival); NONE: its start.
    std::vector<uint32_t> has(p, NONE);
    std::vector<uint32_t> chain(p, NONE);
    std::vector<uint32_t> lastSend(p, NONE);
    uint32_t step = 0;
    // One message per round and rank: a rank sends after its previous send has
    // arrived (blocking sends), and (reduce) receives after its previous arrival
    // (receives posted in round order), as MPICH's binomial trees do.
    auto send = [&](uint32_t from, uint32_t to, bool inOrderReceive) {
        const uint32_t op = b.Send(step, pos(from), pos(to), qp, bytes);
        if (has[from] == NONE && lastSend[from] == NONE)
        {
            b.AfterStart(pos(from), op);
        }
        for (const uint32_t d : {has[from], lastSend[from], inOrderReceive ? has[to] : NONE})
        {
            if (d != NONE)
            {
                b.Depend(d, op);
            }
        }
        lastSend[from] = op;
        b.Finals(pos(from)).push_back(op);
        return op;
    };
    if (g.op != "broadcast")
    {
        for (uint32_t k = 0; k < rounds; ++k, ++step)
        {
            const uint32_t d = 1u << k;
            for (uint32_t v = d; v < p; v += 2 * d)
            {
                const uint32_t op = send(v, v - d, true);
                const uint32_t r = b.Reduce(step, pos(v - d), bytes, op, chain[v - d]);
                if (r != op || has[v - d] == NONE)
                {
                    has[v - d] = r; // the reduction chain orders the arrivals
                }
                else
                {
                    // free reductions: the next send waits for every arrival
                    has[v - d] = b.Join(step, pos(v - d), {has[v - d], op});
                }
            }
        }
        if (g.op == "reduce" && has[0] != NONE)
        {
            b.Finals(pos(0)).push_back(has[0]);
        }
    }
    if (g.op != "reduce")
    {
        for (uint32_t k = rounds; k-- > 0; ++step)
        {
            const uint32_t d = 1u << k;
            for (uint32_t v = 0; v + d < p; v += 2 * d)
            {
                const uint32_t op = send(v, v + d, false);
                has[v + d] = op;
                b.Finals(pos(v + d)).push_back(op);
            }
        }
    }
}

// ------------------------------------------------------------ bytes, times

bool
BinomialCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                             uint64_t n,
                                             uint32_t /* channel */,
                                             std::vector<uint64_t>& b) const
{
    const uint32_t p = g.ranks.size();
    const std::string& op = g.op;
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

void
BinomialCollectiveAlgorithm::CostPaths(const WorkloadGroup& g,
                                       std::vector<CollectivePath>& paths) const
{
    const uint32_t p = g.ranks.size();
    const uint32_t root = g.op == "all-reduce" ? 0 : g.root;
    for (uint32_t d = 1; d < p; d <<= 1)
    {
        for (uint32_t v = 0; v + d < p; v += 2 * d)
        {
            paths.push_back({(v + root) % p, (v + d + root) % p, false});
            paths.push_back({(v + d + root) % p, (v + root) % p, false});
        }
    }
}

std::string
BinomialCollectiveAlgorithm::FormulaId(const std::string& op) const
{
    return op == "all-reduce" ? "F3" : "";
}

double
BinomialCollectiveAlgorithm::FormulaTime(const WorkloadGroup& g,
                                         const CollectiveCost& /* cost */,
                                         const CollectiveTerms& x) const
{
    if (g.op != "all-reduce")
    {
        return NO_FORMULA;
    }
    return TextbookTreeAllReduceTime(g, x); // F3
}

std::vector<double>
BinomialCollectiveAlgorithm::StepTimes(const WorkloadGroup& g,
                                       const CollectiveCost& /* cost */,
                                       const CollectiveTerms& x) const
{
    // L rounds towards rank 0, each a whole message reduced; L rounds back out.
    if (g.op != "all-reduce")
    {
        return {};
    }
    return TextbookTreeAllReduceSteps(g, x);
}

double
BinomialCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                          const CollectiveCost& /* cost */,
                                          const CollectiveTerms& x) const
{
    // One message per round: F3; broadcast and reduce L (alpha + n beta).
    const uint32_t p = g.ranks.size();
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma / x.c; // a channel reduces its share
    const double l = CeilLog2(p);
    if (g.op == "all-reduce")
    {
        return 2 * l * (a + n * b) + l * n * y;
    }
    return l * (a + n * b) + (g.op == "reduce" ? l * n * y : 0);
}

} // namespace ns3
