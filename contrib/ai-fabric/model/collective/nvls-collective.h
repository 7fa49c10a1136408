/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_NVLS_COLLECTIVE_H
#define AI_FABRIC_NVLS_COLLECTIVE_H

#include "ns3/collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NVLink SHARP (NCCL's NVLS algorithm, FACTS.md 1.7, 3.1, 3.3): the NVSwitch chips
 * of an NVLink domain reduce and multicast, so no data goes from GPU to GPU.
 *
 * Rank i owns shard i of the buffer (SplitChunks(S, P)), cut into pieces of at most
 * chunkBytes; each piece is spread over the domain's C switch chips (the group's
 * WorkloadGroup::switches, in-network reducers, builder positions P .. P+C-1), as NVLink
 * stripes a GPU's traffic over its links to every chip. For each piece and chip:
 *  * reduce (multimem.ld_reduce): every rank sends the chip its contribution to every
 *    owner's piece (step 0); once all have arrived, the chip sends each owner its reduced
 *    piece (step 1);
 *  * multicast (multimem.st): each owner sends its piece back to the chip (step 2); once all
 *    have arrived, the chip sends every rank every owner's piece (step 3), itself included.
 * all-reduce does both, reduce-scatter the first, all-gather the second. A rank sends S + S/P
 * and receives as much in an all-reduce (S and S/P in a reduce-scatter, S/P and S in an
 * all-gather), the "about n bytes per GPU" of in-network reduction, against 2(P-1)/P S for a
 * ring. The chips reduce at line rate; NCCL runs NVLS with its Simple protocol only.
 *
 * Every rank must be in one NVLink domain whose NVSwitch chips are endpoints of the fabric
 * (FabricBuildOptions::reducers); NVLS across servers (NCCL's NVLSTree) is not modelled.
 */
class NvlsCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvlsCollectiveAlgorithm();
    ~NvlsCollectiveAlgorithm() override;

    CollectiveCapabilities GetCapabilities() const override;
    std::string Validate(const WorkloadGroup& group) const override;
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

#endif /* AI_FABRIC_NVLS_COLLECTIVE_H */
