/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_DIRECT_COLLECTIVE_H
#define AI_FABRIC_DIRECT_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Direct (pairwise) collectives: every message goes straight from its
 * source to its destination, all posted at once, each pair on its own queue
 * pair (and each channel on its own queue pair index), as NCCL's grouped
 * ncclSend/ncclRecv do (FACTS.md 3.5).
 *
 *  * all-to-all: uniform (nccl-tests convention: S is each rank's whole send
 *    buffer, so rank i sends SplitShare(S, P, j) bytes to every rank j != i,
 *    (P-1)/P S in all), or WorkloadGroup::matrix (P x P bytes, row = source
 *    position; the diagonal stays local and is not sent; zero entries send
 *    nothing).
 *  * send-recv: WorkloadGroup::transfers, all at once.
 *  * broadcast: the root sends S to every other rank; reduce: every other rank
 *    sends S to the root, which reduces the arrivals one after the other.
 *  * reduce-scatter: rank i sends block j (SplitChunks(S, P)) to rank j, which
 *    reduces it; all-gather: rank i sends block i to every rank; all-reduce:
 *    reduce-scatter, then each rank's all-gather sends once its own block is
 *    reduced. Each sends (P-1)/P S per phase.
 */
class DirectCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DirectCollectiveAlgorithm();
    ~DirectCollectiveAlgorithm() override;

    bool Supports(const std::string& op) const override;

  protected:
    void DoBuildChannel(CollectiveBuilder& b, uint32_t channel, uint64_t bytes) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_DIRECT_COLLECTIVE_H */
