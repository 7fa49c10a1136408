/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_MOE_ROUTING_H
#define AI_FABRIC_MOE_ROUTING_H

#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief How the tokens of a mixture-of-experts layer choose their experts.
 *
 * Sources are the expert-parallel (EP) ranks of one EP group, by position
 * (0 .. n-1); every source holds T tokens per micro-batch, and every token
 * picks top-k distinct experts out of E (one "token copy" per pick).
 *
 * Distributions (one draw of a token's next expert, before excluding the
 * experts it already picked):
 *  * "uniform": every expert 1/E.
 *  * "zipf": the expert of popularity rank r (0 = most popular) has weight
 *    proportional to 1/(r+1)^s, s = zipfExponent.
 *  * "hot-expert": the rank-0 expert has probability hotFraction, the other
 *    E-1 share the rest equally.
 *  * "matrix": no draw; `matrix` gives the token copies per (source, expert).
 *
 * Popularity ranks: sources are split into `affinityGroups` contiguous blocks
 * of positions (source i is in block i*G/n). Block g ranks the experts
 * pi((r + g*E/G) mod E) for r = 0, 1, ...: each block has its own favourite
 * experts (data-dependent affinity: tokens of one data shard prefer the same
 * experts), and pi is a seeded random relabelling of the experts drawn per
 * layer (NewLayer()), so that no expert placement is aligned with the ranking
 * by accident. With one group every source shares one (global) skew.
 */
struct MoeRoutingSpec
{
    std::string distribution{"uniform"}; //!< "uniform", "zipf", "hot-expert" or "matrix"
    double zipfExponent{1.0};            //!< zipf: exponent s (>= 0; 0 is uniform)
    double hotFraction{0.5};             //!< hot-expert: probability of the hot expert, 0 .. 1
    uint32_t affinityGroups{1};          //!< source blocks with their own ranking, 1 .. n
    std::vector<uint64_t> matrix;        //!< matrix: n x E token copies, row = source position
};

/**
 * \ingroup ai-fabric
 * \return the distribution names MoeRoutingSpec::distribution accepts
 */
std::vector<std::string> MoeRoutingNames();

/**
 * \ingroup ai-fabric
 * \brief Draws the token-to-expert routing of MoE layers (MoeRoutingSpec).
 *
 * Randomness: two ns-3 random variable streams (AssignStreams), one for the
 * per-layer expert relabelling and one for the token draws, so results are
 * reproducible from (RngSeed, RngRun, stream).
 *
 * Sampling: each token draws top-k distinct experts, one after the other, from
 * its block's weights (Walker/Vose alias table, O(1) per draw); an expert the
 * token already picked is drawn again (rejection), and after 64 rejections the
 * next expert is drawn exactly from the weights of the experts not yet picked.
 */
class MoeRouter
{
  public:
    /**
     * \param spec the routing
     * \param sources number of sources n (EP ranks)
     * \param experts number of experts E
     * \param topK experts per token k
     */
    MoeRouter(const MoeRoutingSpec& spec, uint32_t sources, uint32_t experts, uint32_t topK);

    /**
     * \param spec the routing
     * \param sources number of sources n
     * \param experts number of experts E
     * \param topK experts per token k
     * \return "" if the routing is possible, else what is wrong, as a sentence
     */
    static std::string Validate(const MoeRoutingSpec& spec,
                                uint32_t sources,
                                uint32_t experts,
                                uint32_t topK);

    /**
     * \param stream first stream index
     * \return the number of streams used (2)
     */
    int64_t AssignStreams(int64_t stream);

    /// Start a new layer: draw a new expert relabelling pi and rebuild the rankings.
    void NewLayer();

    /**
     * \param source source position
     * \param expert expert
     * \return the probability that one draw of the source picks the expert
     *         (matrix: the source's share of copies to it)
     */
    double Weight(uint32_t source, uint32_t expert) const;

    /**
     * \brief Expected token copies per (source, expert), for placement decisions:
     * tokens x k x Weight() (matrix: the matrix itself).
     * \param tokensPerSource tokens per source T
     * \return n x E copies, row-major, row = source
     */
    std::vector<double> ExpectedCopies(uint64_t tokensPerSource) const;

    /**
     * \brief Route T tokens per source (matrix: return the matrix).
     * \param tokensPerSource tokens per source T
     * \return n x E token copies, row-major, row = source (each row sums to T x k)
     */
    std::vector<uint64_t> Draw(uint64_t tokensPerSource);

    /**
     * \param group an affinity group
     * \return its most popular expert in the current layer
     */
    uint32_t TopExpert(uint32_t group) const;

  private:
    /**
     * \param group affinity group
     * \return one expert drawn from the group's weights
     */
    uint32_t DrawOne(uint32_t group);
    /**
     * \param group affinity group
     * \param chosen experts to exclude
     * \param count how many of them
     * \return one expert drawn exactly from the weights of the others
     */
    uint32_t DrawExcluding(uint32_t group, const uint32_t* chosen, uint32_t count);

    MoeRoutingSpec m_spec;                      //!< the routing
    uint32_t m_sources;                         //!< n
    uint32_t m_experts;                         //!< E
    uint32_t m_topK;                            //!< k
    uint32_t m_groups;                          //!< affinity groups G
    std::vector<std::vector<double>> m_weight;  //!< per group: weight per expert (sums to 1)
    std::vector<std::vector<double>> m_prob;    //!< per group: alias table probabilities
    std::vector<std::vector<uint32_t>> m_alias; //!< per group: alias table aliases
    std::vector<uint32_t> m_top;                //!< per group: most popular expert
    Ptr<UniformRandomVariable> m_relabel;       //!< stream of the per-layer relabelling
    Ptr<UniformRandomVariable> m_tokens;        //!< stream of the token draws
};

/**
 * \ingroup ai-fabric
 * \brief Drop the token copies above each expert's capacity.
 *
 * Capacity C = ceil(capacityFactor x total copies / E) per expert (Switch
 * Transformer / GShard; total copies = n x T x k). An expert routed X > C
 * copies keeps C of them, shared among the sources in proportion to their
 * copies (floor, then the largest remainders, ties to the lower source).
 * capacityFactor <= 0: no limit (dropless).
 *
 * \param copies n x E token copies, row = source; updated in place
 * \param sources n
 * \param experts E
 * \param capacityFactor the capacity factor
 * \return the number of copies dropped
 */
uint64_t ApplyExpertCapacity(std::vector<uint64_t>& copies,
                             uint32_t sources,
                             uint32_t experts,
                             double capacityFactor);

} // namespace ns3

#endif /* AI_FABRIC_MOE_ROUTING_H */
