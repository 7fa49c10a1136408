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

CollectiveCapabilities
HierarchicalCollectiveAlgorithm::GetCapabilities() const
{
    CollectiveCapabilities c;
    c.name = "hierarchical";
    c.listPosition = 3;
    c.ops = CollectiveCapabilities::OpBit(CollectiveOp::ALL_REDUCE);
    c.chunked = true;
    c.ncclChannels = true;
    c.needsRanksPerNode = true;
    return c;
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

// ------------------------------------------------------------ bytes, times

bool
HierarchicalCollectiveAlgorithm::AddChannelBytes(const WorkloadGroup& g,
                                                 uint64_t n,
                                                 uint32_t /* channel */,
                                                 std::vector<uint64_t>& b) const
{
    const uint32_t p = g.ranks.size();
    const uint32_t gpn = g.ranksPerNode;
    if (g.op != "all-reduce" || gpn == 0 || p % gpn != 0)
    {
        return false;
    }
    const uint32_t nodes = p / gpn;
    for (uint32_t r = 0; r < p; ++r)
    {
        const uint32_t l = r % gpn;
        b[r] += RingCollectiveAlgorithm::RingMemberBytes(n, gpn, l, true, true);
        b[r] += RingCollectiveAlgorithm::RingMemberBytes(SplitShare(n, gpn, l),
                                                         nodes,
                                                         r / gpn,
                                                         true,
                                                         true);
    }
    return true;
}

void
HierarchicalCollectiveAlgorithm::CostPaths(const WorkloadGroup& g,
                                           std::vector<CollectivePath>& paths) const
{
    // intra over the node rings, inter over the rail rings
    const uint32_t p = g.ranks.size();
    const uint32_t gpn = g.ranksPerNode;
    if (gpn == 0 || p % gpn != 0)
    {
        RingPaths(p, paths);
        return;
    }
    const uint32_t nodes = p / gpn;
    for (uint32_t i = 0; i < p; ++i)
    {
        const uint32_t n = i / gpn;
        const uint32_t l = i % gpn;
        if (gpn > 1)
        {
            paths.push_back({i, n * gpn + (l + 1) % gpn, true});
        }
        if (nodes > 1)
        {
            paths.push_back({i, ((n + 1) % nodes) * gpn + l, false});
        }
    }
}

std::string
HierarchicalCollectiveAlgorithm::FormulaId(const std::string& op) const
{
    return op == "all-reduce" ? "F7" : "";
}

double
HierarchicalCollectiveAlgorithm::FormulaTime(const WorkloadGroup& g,
                                             const CollectiveCost& cost,
                                             const CollectiveTerms& x) const
{
    if (g.op != "all-reduce")
    {
        return NO_FORMULA;
    }
    if (g.ranksPerNode == 0 || g.ranks.size() % g.ranksPerNode != 0)
    {
        return -1;
    }
    const double p = x.p;
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma;
    const double gpn = g.ranksPerNode;
    const double nodes = p / gpn;
    return 2 * (gpn - 1) * cost.intra.alphaS + 2 * (gpn - 1) / gpn * n * cost.intra.betaSPerByte
           + 2 * (nodes - 1) * a + 2 * (nodes - 1) / nodes * (n / gpn) * b
           + ((gpn - 1) / gpn * n + (nodes - 1) / nodes * n / gpn) * y; // F7
}

std::vector<double>
HierarchicalCollectiveAlgorithm::StepTimes(const WorkloadGroup& g,
                                           const CollectiveCost& cost,
                                           const CollectiveTerms& x) const
{
    // G-1 reduce-scatter steps of n/G in the node, 2(N-1) ring steps of n/(G N) along
    // the rail (the first N-1 reduced), G-1 all-gather steps of n/G in the node.
    const uint32_t gpn = g.ranksPerNode;
    if (g.op != "all-reduce" || gpn == 0 || g.ranks.size() % gpn != 0)
    {
        return {};
    }
    const uint32_t nodes = g.ranks.size() / gpn;
    const double shard = x.n / gpn;
    const double rail = shard / nodes;
    const AlphaBeta& in = cost.intra;
    std::vector<double> steps(gpn - 1, in.alphaS + shard * in.betaSPerByte + shard * x.gamma);
    steps.insert(steps.end(), nodes - 1, x.alpha + rail * x.beta + rail * x.gamma);
    steps.insert(steps.end(), nodes - 1, x.alpha + rail * x.beta);
    steps.insert(steps.end(), gpn - 1, in.alphaS + shard * in.betaSPerByte);
    return steps;
}

double
HierarchicalCollectiveAlgorithm::ScheduleTime(const WorkloadGroup& g,
                                              const CollectiveCost& cost,
                                              const CollectiveTerms& x) const
{
    // The ring SCHEDULE of its three phases, added.
    const uint32_t p = g.ranks.size();
    if (g.op != "all-reduce" || g.ranksPerNode == 0 || p % g.ranksPerNode != 0)
    {
        return -1;
    }
    const uint32_t gpn = g.ranksPerNode;
    const uint32_t nodes = p / gpn;
    const uint64_t shard = SplitShare(g.bytes, gpn, 0);
    return RingCollectiveAlgorithm::RingPipelineTime(gpn - 1,
                                                     gpn - 1,
                                                     g.bytes,
                                                     gpn,
                                                     g.channels,
                                                     x.chunk,
                                                     cost.intra,
                                                     x.gamma)
           + RingCollectiveAlgorithm::RingPipelineTime(2 * (nodes - 1),
                                                       nodes - 1,
                                                       shard,
                                                       nodes,
                                                       g.channels,
                                                       x.chunk,
                                                       cost.inter,
                                                       x.gamma)
           + RingCollectiveAlgorithm::RingPipelineTime(gpn - 1,
                                                       0,
                                                       g.bytes,
                                                       gpn,
                                                       g.channels,
                                                       x.chunk,
                                                       cost.intra,
                                                       0);
}

} // namespace ns3
