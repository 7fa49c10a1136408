/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_HIERARCHICAL_COLLECTIVE_H
#define AI_FABRIC_HIERARCHICAL_COLLECTIVE_H

#include "ns3/collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Hierarchical all-reduce for N nodes of G GPUs (MISSION.md F7).
 *
 * G = WorkloadGroup::ranksPerNode; the ranks are listed node-major (rank
 * position n*G + l is local GPU l of node n), and P must be a multiple of G.
 * Per channel:
 *  1. intra-node reduce-scatter: a ring over each node's G ranks; local rank l
 *     ends with the node's sum of block l (SplitChunks(S, G));
 *  2. inter-node all-reduce of each block: for every l, a ring over the N ranks
 *     with local index l (the "rail"), 2(N-1) steps of S/(G N) bytes;
 *  3. intra-node all-gather: a ring over each node's G ranks.
 * A rank starts a phase as soon as its own previous phase is done. The rings
 * are RingCollectiveAlgorithm's (chunked, channels): intra-node phases use
 * queue pair 2c, the rails 2c+1. Bytes per rank: 2(G-1)/G S + 2(N-1)/N S/G.
 */
class HierarchicalCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    HierarchicalCollectiveAlgorithm();
    ~HierarchicalCollectiveAlgorithm() override;

    CollectiveCapabilities GetCapabilities() const override;
    void CostPaths(const WorkloadGroup& g, std::vector<CollectivePath>& paths) const override;
    std::string FormulaId(const std::string& op) const override;
    double FormulaTime(const WorkloadGroup& g,
                       const CollectiveCost& cost,
                       const CollectiveTerms& x) const override;
    std::vector<double> StepTimes(const WorkloadGroup& g,
                                  const CollectiveCost& cost,
                                  const CollectiveTerms& x) const override;
    double ScheduleTime(const WorkloadGroup& g,
                        const CollectiveCost& cost,
                        const CollectiveTerms& x) const override;

  protected:
    void DoBuildChannel(CollectiveBuilder& b, uint32_t channel, uint64_t bytes) const override;
    bool AddChannelBytes(const WorkloadGroup& g,
                         uint64_t bytes,
                         uint32_t channel,
                         std::vector<uint64_t>& sent) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_HIERARCHICAL_COLLECTIVE_H */
