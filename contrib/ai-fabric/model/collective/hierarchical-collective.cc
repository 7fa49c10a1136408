/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hierarchical-collective.h"

#include "ns3/log.h"
#include "ns3/ring-collective.h"
#include "ns3/workload.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HierarchicalCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(HierarchicalCollectiveAlgorithm);

TypeId
HierarchicalCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HierarchicalCollectiveAlgorithm>();
    return tid;
}

HierarchicalCollectiveAlgorithm::HierarchicalCollectiveAlgorithm()
{
}

HierarchicalCollectiveAlgorithm::~HierarchicalCollectiveAlgorithm()
{
}

bool
HierarchicalCollectiveAlgorithm::Supports(const std::string& op) const
{
    return op == "all-reduce";
}

std::string
HierarchicalCollectiveAlgorithm::Validate(const WorkloadGroup& g) const
{
    const std::string problem = CollectiveAlgorithm::Validate(g);
    if (!problem.empty())
    {
        return problem;
    }
    const uint32_t p = g.ranks.size();
    if (g.ranksPerNode == 0)
    {
        return "hierarchical needs the number of ranks per node (G)";
    }
    if (p % g.ranksPerNode != 0)
    {
        return "hierarchical needs the ranks (" + std::to_string(p)
               + ") to be a multiple of the ranks per node (" + std::to_string(g.ranksPerNode)
               + ")";
    }
    return "";
}

void
HierarchicalCollectiveAlgorithm::DoBuildChannel(CollectiveBuilder& b,
                                                uint32_t channel,
                                                uint64_t bytes) const
{
    const uint32_t p = b.Ranks();
    const uint32_t gpn = b.Group().ranksPerNode;
    const uint32_t nodes = p / gpn;
    const uint16_t intraQp = 2 * channel;
    const uint16_t interQp = 2 * channel + 1;
    std::vector<std::vector<uint32_t>> finals(p);
    std::vector<uint32_t> phaseDone(p, CollectiveBuilder::NONE);
    std::vector<uint32_t> members;
    std::vector<uint32_t> starts;
    // A rank's phase is done when its ring part is; its next phase starts then.
    auto close = [&](uint32_t step) {
        for (uint32_t r = 0; r < p; ++r)
        {
            phaseDone[r] = b.Join(step, r, finals[r]);
            finals[r].clear();
        }
    };
    auto nodeRing = [&](uint32_t n) {
        members.resize(gpn);
        starts.resize(gpn);
        for (uint32_t l = 0; l < gpn; ++l)
        {
            members[l] = n * gpn + l;
            starts[l] = phaseDone[n * gpn + l];
        }
    };
    const uint32_t interStep = gpn - 1;
    const uint32_t gatherStep = interStep + 2 * (nodes - 1);

    // 1. Intra-node reduce-scatter.
    for (uint32_t n = 0; n < nodes; ++n)
    {
        nodeRing(n);
        RingCollectiveAlgorithm::BuildRing(b,
                                           members,
                                           bytes,
                                           RingCollectiveAlgorithm::REDUCE_SCATTER,
                                           intraQp,
                                           0,
                                           {},
                                           &finals);
    }
    close(interStep);
    // 2. Inter-node all-reduce of block l along rail l.
    for (uint32_t l = 0; l < gpn; ++l)
    {
        members.resize(nodes);
        starts.resize(nodes);
        for (uint32_t n = 0; n < nodes; ++n)
        {
            members[n] = n * gpn + l;
            starts[n] = phaseDone[n * gpn + l];
        }
        RingCollectiveAlgorithm::BuildRing(b,
                                           members,
                                           SplitShare(bytes, gpn, l),
                                           RingCollectiveAlgorithm::ALL_REDUCE,
                                           interQp,
                                           interStep,
                                           starts,
                                           &finals);
    }
    close(gatherStep);
    // 3. Intra-node all-gather.
    for (uint32_t n = 0; n < nodes; ++n)
    {
        nodeRing(n);
        RingCollectiveAlgorithm::BuildRing(b,
                                           members,
                                           bytes,
                                           RingCollectiveAlgorithm::ALL_GATHER,
                                           intraQp,
                                           gatherStep,
                                           starts,
                                           nullptr);
    }
}

} // namespace ns3
