/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_NAIVE_COLLECTIVE_H
#define AI_FABRIC_NAIVE_COLLECTIVE_H

#include "ns3/collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The naive baseline of MISSION.md F5: reduce to the root, then
 * broadcast from it, one message at a time.
 *
 * Reduce: the ranks after the root (root+1, root+2, ...) send their whole
 * buffer S to the root one at a time; each send waits until the root has
 * received and reduced the previous one (the root posts one receive at a
 * time). Broadcast: the root sends S to root+1, root+2, ... one at a time,
 * each after the previous one has arrived. All-reduce is the reduce followed
 * by the broadcast: 2(P-1) messages of S in sequence, so
 * T = 2(P-1)(alpha + S beta) (+ (P-1) S gamma). The root sends and receives
 * (P-1) S; every other rank sends S.
 */
class NaiveCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NaiveCollectiveAlgorithm();
    ~NaiveCollectiveAlgorithm() override;

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

#endif /* AI_FABRIC_NAIVE_COLLECTIVE_H */
