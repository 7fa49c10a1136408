/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_DIRECT_COLLECTIVE_H
#define AI_FABRIC_DIRECT_COLLECTIVE_H

#include "ns3/collective-algorithm.h"
#include "ns3/random-variable-stream.h"
#include "ns3/workload.h"

#include <vector>

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
 *  * permutation: each rank sends S to its image under a random derangement
 *    (no rank keeps its data), drawn by MakePermutationTransfers() into
 *    WorkloadGroup::transfers before the group is built; then as send-recv.
 *    The classic permutation load of fabric benchmarks (HPCC, htsim).
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

  private:
    /**
     * \param g an all-to-all, send-recv or permutation group
     * \return the most bytes a rank sends or receives
     */
    static double DirectLoad(const WorkloadGroup& g);
};

/**
 * \ingroup ai-fabric
 * \brief The transfers of a permutation collective: a uniformly random
 * derangement pi of the rank positions 0..P-1 (pi(i) != i for every i, drawn by
 * Fisher-Yates shuffles rejected until no position is fixed: about e = 2.72
 * shuffles on average), and one transfer i -> pi(i) of \p bytes per position,
 * in position order.
 * \param ranks P, at least 2
 * \param bytes bytes each rank sends
 * \param rng the uniform stream to draw from (seeded by the scenario)
 * \return the P transfers
 */
std::vector<WorkloadTransfer> MakePermutationTransfers(uint32_t ranks,
                                                       uint64_t bytes,
                                                       Ptr<UniformRandomVariable> rng);

} // namespace ns3

#endif /* AI_FABRIC_DIRECT_COLLECTIVE_H */
