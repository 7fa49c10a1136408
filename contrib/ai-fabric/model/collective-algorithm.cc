/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-algorithm.h"

#include "workload.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);
NS_OBJECT_ENSURE_REGISTERED(RingCollectiveAlgorithm);

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

std::vector<uint64_t>
CollectiveAlgorithm::SplitChunks(uint64_t bytes, uint32_t ranks)
{
    std::vector<uint64_t> chunks(ranks, bytes / ranks);
    for (uint32_t c = 0; c < bytes % ranks; ++c)
    {
        ++chunks[c];
    }
    return chunks;
}

TypeId
RingCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingCollectiveAlgorithm>();
    return tid;
}

bool
RingCollectiveAlgorithm::Supports(const std::string& op) const
{
    return op == "all-reduce" || op == "reduce-scatter" || op == "all-gather";
}

void
RingCollectiveAlgorithm::Build(Workload& workload, uint32_t group, uint32_t startOp) const
{
    const WorkloadGroup& g = workload.GetGroups()[group];
    NS_ABORT_MSG_IF(!Supports(g.op), "ring does not implement " << g.op);
    const uint32_t p = g.ranks.size();
    NS_ABORT_MSG_IF(p < 2, "a ring needs at least two ranks");
    const std::vector<uint64_t> chunks = SplitChunks(g.bytes, p);
    const std::vector<uint32_t>& ranks = g.ranks;

    // Phases: reduce-scatter sends chunk (i - s - 1), all-gather sends chunk (i - t).
    struct Phase
    {
        uint32_t offset; //!< chunk index offset: chunk = i - t - offset
    };

    std::vector<Phase> phases;
    if (g.op == "reduce-scatter" || g.op == "all-reduce")
    {
        phases.push_back({1});
    }
    if (g.op == "all-gather" || g.op == "all-reduce")
    {
        phases.push_back({0});
    }

    std::vector<uint32_t> prev(p, startOp); // op of the previous step, per sending rank index
    std::vector<uint32_t> cur(p, 0);
    uint32_t step = 0;
    for (const Phase& phase : phases)
    {
        for (uint32_t t = 0; t + 1 < p; ++t, ++step)
        {
            for (uint32_t i = 0; i < p; ++i)
            {
                const uint32_t chunk = (i + 2 * p - t - phase.offset) % p;
                WorkloadOp op;
                op.kind = WorkloadOp::SEND;
                op.group = group;
                op.step = step;
                op.rank = ranks[i];
                op.peer = ranks[(i + 1) % p];
                op.qp = 0;
                op.bytes = chunks[chunk];
                cur[i] = workload.AddOp(op);
                // Step s+1 of rank i needs the data of step s from rank i-1.
                const uint32_t dep = (step == 0) ? startOp : prev[(i + p - 1) % p];
                workload.AddDependency(dep, cur[i]);
            }
            prev = cur;
        }
    }
}

Ptr<CollectiveAlgorithm>
CreateCollectiveAlgorithm(const std::string& name)
{
    if (name == "ring")
    {
        return CreateObject<RingCollectiveAlgorithm>();
    }
    return nullptr;
}

std::vector<std::string>
CollectiveAlgorithmNames()
{
    return {"ring"};
}

std::vector<std::string>
CollectiveOpNames()
{
    return {"all-reduce", "reduce-scatter", "all-gather"};
}

} // namespace ns3
