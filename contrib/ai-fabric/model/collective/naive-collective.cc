/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "naive-collective.h"

#include "ns3/log.h"
#include "ns3/workload.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NaiveCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(NaiveCollectiveAlgorithm);

TypeId
NaiveCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NaiveCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NaiveCollectiveAlgorithm>();
    return tid;
}

NaiveCollectiveAlgorithm::NaiveCollectiveAlgorithm()
{
}

NaiveCollectiveAlgorithm::~NaiveCollectiveAlgorithm()
{
}

CollectiveCapabilities
NaiveCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "naive";
    c.listPosition = 5;
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE)
            | CollectiveCapabilities::OpBit(CollectiveOp::BROADCAST)
            | CollectiveCapabilities::OpBit(CollectiveOp::REDUCE);
    return c;
}

void
NaiveCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                         uint32_t channel,
                                         uint64_t bytes) const
{
    constexpr uint32_t NONE = CollectiveBuilder::NONE;
    const WorkloadGroup& g = b.Group();
    const uint32_t p = b.Ranks();
    const uint32_t root = g.root;
    const uint16_t qp = channel;
    uint32_t last = NONE; // the root's last completed receive (reduced) or send
    uint32_t chain = NONE;
    uint32_t step = 0;
    if (g.op != "broadcast")
    {
        for (uint32_t o = 1; o < p; ++o, ++step)
        {
            const uint32_t j = (root + o) % p;
            const uint32_t op = b.Send(step, j, root, qp, bytes);
            // One receive at a time: the root takes this message after the previous
            // (and the first once it has started).
            if (last == NONE)
            {
                b.AfterStart(j, op);
                if (b.Start(root) != b.Start(j))
                {
                    b.Depend(b.Start(root), op);
                }
            }
            else
            {
                b.Depend(last, op);
            }
            b.Finals(j).push_back(op);
            last = b.Reduce(step, root, bytes, op, chain);
        }
        if (g.op == "reduce" && last != NONE)
        {
            b.Finals(root).push_back(last);
        }
    }
    if (g.op != "reduce")
    {
        for (uint32_t o = 1; o < p; ++o, ++step)
        {
            const uint32_t j = (root + o) % p;
            const uint32_t op = b.Send(step, root, j, qp, bytes);
            if (last == NONE)
            {
                b.AfterStart(root, op);
            }
            else
            {
                b.Depend(last, op);
            }
            b.Finals(j).push_back(op);
            last = op;
        }
        if (last != NONE)
        {
            b.Finals(root).push_back(last);
        }
    }
}

// ------------------------------------------------------------ bytes, times

bool
NaiveCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                          uint64_t n,
                                          uint32_t /* channel */,
                                          std::vector<uint64_t>& b) const
{
    const uint32_t p = g.ranks.size();
    const std::string& op = g.op;
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

void
NaiveCollectiveAlgorithm::CostPaths(const WorkloadGroup& g,
                                    std::vector<CollectivePath>& paths) const
{
    // Ring successors, both ways: the root talks to everyone.
    const uint32_t p = g.ranks.size();
    for (uint32_t i = 0; i < p; ++i)
    {
        paths.push_back({i, (i + 1) % p, false});
        paths.push_back({(i + 1) % p, i, false});
    }
}

std::string
NaiveCollectiveAlgorithm::FormulaId(const std::string& op) const
{
    return op == "all-reduce" ? "F5" : "";
}

double
NaiveCollectiveAlgorithm::FormulaTime(const WorkloadGroup& g,
                                      const CollectiveCost& /* cost */,
                                      const CollectiveTerms& x) const
{
    if (g.op != "all-reduce")
    {
        return NO_FORMULA;
    }
    const double p = x.p;
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma;
    return 2 * (p - 1) * a + 2 * (p - 1) * n * b + (p - 1) * n * y; // F5
}

std::vector<double>
NaiveCollectiveAlgorithm::StepTimes(const WorkloadGroup& g,
                                    const CollectiveCost& /* cost */,
                                    const CollectiveTerms& x) const
{
    // P-1 whole messages into the root, each reduced; P-1 back out.
    if (g.op != "all-reduce")
    {
        return {};
    }
    const uint32_t others = g.ranks.size() - 1;
    std::vector<double> steps(others, x.alpha + x.n * x.beta + x.n * x.gamma);
    steps.insert(steps.end(), others, x.alpha + x.n * x.beta);
    return steps;
}

double
NaiveCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                       const CollectiveCost& cost,
                                       const CollectiveTerms& x) const
{
    // As FORMULA, the gamma term divided by C: a channel reduces its share.
    CollectiveTerms perChannel = x;
    perChannel.gamma = x.gamma / x.c;
    const double t = FormulaTime(g, cost, perChannel);
    if (t >= 0)
    {
        return t;
    }
    const double pd = x.p;
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = perChannel.gamma;
    if (g.op == "broadcast")
    {
        return (pd - 1) * (a + n * b);
    }
    if (g.op == "reduce")
    {
        return (pd - 1) * (a + n * b + n * y);
    }
    return -1;
}

} // namespace ns3
