/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_BINOMIAL_COLLECTIVE_H
#define AI_FABRIC_BINOMIAL_COLLECTIVE_H

#include "ns3/collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Binomial-tree reduce and broadcast (MPICH's; Thakur, Rabenseifner and
 * Gropp, IJHPCA 2005), whole messages: the textbook tree of MISSION.md F3.
 *
 * With v = (position - root) mod P and L = ceil(log2 P) rounds: reduce round
 * k = 0..L-1: every rank whose v has lowest set bit k sends its (partly
 * reduced) buffer S to v - 2^k, which reduces it; broadcast round k =
 * L-1..0: every rank with v a multiple of 2^(k+1) that has the data sends S to
 * v + 2^k. A rank receives at most one message per round, so each round costs
 * alpha + S beta: all-reduce (reduce to position 0, then broadcast) takes
 * 2 L (alpha + S beta) + L S gamma, formula F3 exactly. The root sends and
 * receives L S; a leaf sends S.
 */
class BinomialCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    BinomialCollectiveAlgorithm();
    ~BinomialCollectiveAlgorithm() override;

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

#endif /* AI_FABRIC_BINOMIAL_COLLECTIVE_H */
