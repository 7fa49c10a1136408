/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_COLLECTIVE_ALGORITHM_H
#define AI_FABRIC_COLLECTIVE_ALGORITHM_H

#include "ns3/object.h"

#include <string>
#include <vector>

namespace ns3
{

class Workload;

/**
 * \ingroup ai-fabric
 * \brief A strategy that turns one collective (op, size, ranks) into the exact
 * per-step messages it puts on the fabric, with their data dependencies.
 */
class CollectiveAlgorithm : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \param op an operation name ("all-reduce", ...)
     * \return true if this algorithm implements it
     */
    virtual bool Supports(const std::string& op) const = 0;

    /**
     * \brief Append the group's messages to the workload.
     * \param workload the workload (its group \p group describes the collective)
     * \param group the group index
     * \param startOp the op every first step waits for (the collective's issue time)
     */
    virtual void Build(Workload& workload, uint32_t group, uint32_t startOp) const = 0;

    /**
     * \param bytes buffer size S
     * \param ranks number of ranks P
     * \return the size of each of the P chunks of S (they differ by at most one byte)
     */
    static std::vector<uint64_t> SplitChunks(uint64_t bytes, uint32_t ranks);
};

/**
 * \ingroup ai-fabric
 * \brief Ring algorithms (NCCL Ring, single channel): reduce-scatter,
 * all-gather, and all-reduce as reduce-scatter then all-gather.
 *
 * Ranks r_0..r_{P-1} form a ring in the given order; at every step each rank
 * sends one chunk of S/P bytes to its successor, and step s+1 of rank i starts
 * when step s of rank i-1 has arrived at rank i. Reduce-scatter step s:
 * rank i sends chunk (i-s-1) mod P; after P-1 steps rank i holds reduced
 * chunk i. All-gather step t: rank i sends chunk (i-t) mod P. Every rank sends
 * (P-1)/P*S bytes per phase: 2(P-1)/P*S for all-reduce.
 */
class RingCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    bool Supports(const std::string& op) const override;
    void Build(Workload& workload, uint32_t group, uint32_t startOp) const override;
};

/**
 * \ingroup ai-fabric
 * \param name algorithm name as written in traffic YAML ("ring")
 * \return a new algorithm object, or nullptr if the name is unknown
 */
Ptr<CollectiveAlgorithm> CreateCollectiveAlgorithm(const std::string& name);

/**
 * \ingroup ai-fabric
 * \return the algorithm names CreateCollectiveAlgorithm() knows
 */
std::vector<std::string> CollectiveAlgorithmNames();

/**
 * \ingroup ai-fabric
 * \return the operation names some algorithm supports
 */
std::vector<std::string> CollectiveOpNames();

} // namespace ns3

#endif /* AI_FABRIC_COLLECTIVE_ALGORITHM_H */
