/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_HALVING_DOUBLING_COLLECTIVE_H
#define AI_FABRIC_HALVING_DOUBLING_COLLECTIVE_H

#include "ns3/collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Recursive halving (reduce-scatter) and recursive doubling
 * (all-gather); all-reduce as both (Rabenseifner's algorithm; Thakur,
 * Rabenseifner and Gropp, "Optimization of Collective Communication
 * Operations in MPICH", IJHPCA 2005). P must be a power of two.
 *
 * The buffer is cut into P blocks (SplitChunks); rank i ends the
 * reduce-scatter holding reduced block i. Reduce-scatter step k = 0..L-1
 * (L = log2 P): distance d = P / 2^(k+1); rank i and its partner i XOR d
 * each hold 2d blocks, i keeps the d on its side and sends the other d to the
 * partner, which reduces them. All-gather step k: d = 2^k; rank i sends the d
 * blocks it holds to i XOR d. Every rank sends (P-1)/P S per phase, one
 * message per step, whole messages (no chunking). A step's send waits for the
 * previous step's arrival (reduced) and for the rank's own previous send, as
 * an MPI_Sendrecv does.
 */
class HalvingDoublingCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    HalvingDoublingCollectiveAlgorithm();
    ~HalvingDoublingCollectiveAlgorithm() override;

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
    std::string Validate(const WorkloadGroup& group) const override;

  protected:
    void DoBuildChannel(CollectiveBuilder& b, uint32_t channel, uint64_t bytes) const override;
    bool AddChannelBytes(const WorkloadGroup& g,
                         uint64_t bytes,
                         uint32_t channel,
                         std::vector<uint64_t>& sent) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_HALVING_DOUBLING_COLLECTIVE_H */
