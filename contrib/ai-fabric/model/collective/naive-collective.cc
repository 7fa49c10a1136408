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

bool
NaiveCollectiveAlgorithm::Supports(const std::string& op) const
{
    return op == "all-reduce" || op == "reduce" || op == "broadcast";
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

} // namespace ns3
