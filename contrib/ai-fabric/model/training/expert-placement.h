/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_EXPERT_PLACEMENT_H
#define AI_FABRIC_EXPERT_PLACEMENT_H

#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \return the policy names ExpertPlacement accepts
 */
std::vector<std::string> ExpertPlacementNames();

/**
 * \ingroup ai-fabric
 * \brief Places the E experts of an MoE layer on the n ranks of an
 * expert-parallel group, E/n experts per rank.
 *
 * Policies (rank positions 0 .. n-1, experts 0 .. E-1):
 *  * "contiguous": expert e on rank e / (E/n) (Megatron's layout);
 *  * "round-robin": expert e on rank e mod n;
 *  * "random": a seeded random permutation of the experts, then contiguous;
 *  * "topology-aware": greedy clustering on the routing affinity, given a
 *    locality domain per rank (e.g. its leaf switch or Dragonfly+ group):
 *     1. every domain d has capacity (ranks in d) x E/n expert slots, and
 *        demand W[d][e] = sum over ranks i in d of affinity[i][e] (the token
 *        copies its ranks route to expert e);
 *     2. the (domain, expert) pairs are taken in decreasing W (ties: lower
 *        domain, then lower expert); an expert goes to the first domain of its
 *        pairs that still has a free slot; experts nobody routes to fill the
 *        remaining slots in order. Each domain thus hosts the experts its own
 *        ranks use most, so their token copies stay inside it;
 *     3. inside a domain, the experts in decreasing total load go one by one
 *        to the rank with the least load so far (longest processing time
 *        first; ties: the rank that routes most to the expert, then the lower
 *        rank), which balances the bytes every rank receives: the most loaded
 *        receiver sets the all-to-all's completion.
 */
class ExpertPlacement
{
  public:
    /**
     * \param policy one of ExpertPlacementNames()
     */
    explicit ExpertPlacement(const std::string& policy);

    /**
     * \param policy the policy name
     * \param experts E
     * \param ranks n
     * \return "" if the placement is possible, else what is wrong, as a sentence
     */
    static std::string Validate(const std::string& policy, uint32_t experts, uint32_t ranks);

    /**
     * \param stream the stream index for "random"
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * \param experts E (a multiple of ranks)
     * \param ranks n
     * \param rankDomain locality domain per rank position (topology-aware; may be empty otherwise)
     * \param affinity n x E expected token copies per (rank, expert), row-major
     *        (topology-aware; may be empty otherwise)
     * \return the rank position of every expert
     */
    std::vector<uint32_t> Place(uint32_t experts,
                                uint32_t ranks,
                                const std::vector<uint32_t>& rankDomain,
                                const std::vector<double>& affinity);

  private:
    /**
     * \param experts E
     * \param ranks n
     * \param rankDomain domain per rank
     * \param affinity n x E affinity
     * \return the rank position of every expert
     */
    std::vector<uint32_t> PlaceTopologyAware(uint32_t experts,
                                             uint32_t ranks,
                                             const std::vector<uint32_t>& rankDomain,
                                             const std::vector<double>& affinity) const;

    std::string m_policy;             //!< the policy
    Ptr<UniformRandomVariable> m_rng; //!< stream of the random policy
};

} // namespace ns3

#endif /* AI_FABRIC_EXPERT_PLACEMENT_H */
