/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_COLLNET_COLLECTIVE_H
#define AI_FABRIC_COLLNET_COLLECTIVE_H

#include "ns3/collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand SHARP all-reduce as NCCL's CollNet Direct runs it (FACTS.md 3.1, 3.3):
 * the switches reduce across servers, the GPUs of a server exchange over NVLink.
 *
 * Every server holds G ranks (WorkloadGroup::tree.localRanks); local rank j owns block j
 * (SplitChunks(S, G)), cut into pieces of at most chunkBytes. Per piece:
 *  * reduce-scatter inside the server: every local rank sends block j's piece to local j,
 *    which reduces them (step 0);
 *  * local j sends the reduced piece through its NIC to the switch it reaches first (step 1);
 *    that switch adds up the pieces of its ranks of local index j; if those ranks reach
 *    several switches, each sends its sum to their common parent (step 2), which adds them and
 *    sends the result back down (step 3); the switch sends it to each of its ranks (step 4);
 *  * all-gather inside the server: local j sends the result to every other local rank
 *    (step 5).
 * Each NIC carries S/G each way, against 2(N-1)/N S/G for a ring over N servers; NVLink
 * carries (G-1)/G S each way for the reduce-scatter and again for the all-gather. The switches
 * reduce at line rate; NCCL runs CollNet with its Simple protocol only.
 *
 * The tree is the fabric's (FabricGraph::GetSharpTree(), AttachReducers()): InfiniBand
 * switches, at most two levels. Not a choice of `algorithm: auto` (NCCL enables CollNet only
 * with NCCL_COLLNET_ENABLE and the SHARP plugin).
 */
class CollnetCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CollnetCollectiveAlgorithm();
    ~CollnetCollectiveAlgorithm() override;

    CollectiveCapabilities GetCapabilities() const override;
    std::string Validate(const WorkloadGroup& group) const override;
    void CostPaths(const WorkloadGroup& g, std::vector<CollectivePath>& paths) const override;
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

#endif /* AI_FABRIC_COLLNET_COLLECTIVE_H */
