/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_COLLECTIVE_COST_H
#define AI_FABRIC_COLLECTIVE_COST_H

#include <algorithm>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The alpha-beta cost of sending a message over a path: T(m) = alpha + m * beta.
 *
 * Derived from the modelled links (PathAlphaBeta(), analytic-model.h), so it is the exact
 * store-and-forward time of an m-byte message on an idle path when m is a whole number of
 * MTUs:
 *  * beta = (MTU + H_b) / (MTU * R_b): the bottleneck link b's wire time per payload byte;
 *  * alpha = sum of propagation delays + switch latencies + the receiving NIC's latency
 *          + the pipeline fill: one full first packet's serialization on every link but
 *            the bottleneck, plus the first packet's message header on the bottleneck.
 */
struct AlphaBeta
{
    double alphaS{0};       //!< per-message latency, seconds
    double betaSPerByte{0}; //!< seconds per payload byte
    uint32_t hops{0};       //!< links on the path
};

/**
 * \ingroup ai-fabric
 * \brief The alpha-beta costs a collective's time depends on.
 *
 * Flat algorithms (ring, tree, halving-doubling, direct, naive, binomial) use `inter`:
 * the cost of the paths between the ranks they use (the worst one). The
 * hierarchical all-reduce uses `intra` for the rings inside a node and `inter`
 * for the rings across nodes (along a rail). CollectiveAlphaBeta() fills both
 * from a fabric, over the paths CollectiveAlgorithm::CostPaths() names.
 */
struct CollectiveCost
{
    AlphaBeta inter; //!< between ranks; hierarchical: between nodes, along a rail
    AlphaBeta intra; //!< hierarchical only: between the GPUs of one node
    /// The smallest alpha of one message on the algorithm's in-server (intra) and other
    /// (inter) paths, each level's post latency included once AddProtocolCost() ran;
    /// negative: the level has no path (CollectiveAlphaBeta()).
    double fastestIntraS{-1};
    double fastestInterS{-1}; //!< see fastestIntraS

    /// \return the quickest message's alpha over both levels (the latency the fabric-aware
    /// bound adds: no message arrives sooner after it is posted); negative: no path known
    double FastestAlphaS() const
    {
        return fastestIntraS < 0   ? fastestInterS
               : fastestInterS < 0 ? fastestIntraS
                                   : std::min(fastestIntraS, fastestInterS);
    }
};

/**
 * \ingroup ai-fabric
 * \brief Which closed form CollectiveTime() evaluates.
 */
enum class CollectiveModel : uint8_t
{
    /// The textbook formula of the (op, algorithm) pair (MISSION.md F1-F7):
    /// whole messages, one step after the other, one channel; plus the
    /// reduction term (bytes reduced on the critical path) x gamma. Where
    /// MISSION.md has no formula, the SCHEDULE value.
    FORMULA = 0,
    /// The schedule the algorithm actually builds, on an idle non-blocking
    /// fabric: channels sharing the NIC, chunk pipelining, concurrent messages,
    /// gamma. What a simulation of an uncongested fabric should reproduce.
    SCHEDULE = 1,
};

/**
 * \ingroup ai-fabric
 * \brief The inputs every closed form of a collective reads, taken from its group
 * and its CollectiveCost by CollectiveTime().
 */
struct CollectiveTerms
{
    double p;       //!< ranks P
    double n;       //!< buffer bytes S
    double c;       //!< channels C
    double gamma;   //!< seconds per reduced byte
    double alpha;   //!< inter alpha, s
    double beta;    //!< inter beta, s/B
    uint64_t chunk; //!< chunk bytes (0: whole steps)
};

/**
 * \ingroup ai-fabric
 * \brief A path between two rank positions whose alpha-beta cost a collective's time
 * depends on (CollectiveAlgorithm::CostPaths()).
 */
struct CollectivePath
{
    uint32_t from{0};  //!< sending rank position
    uint32_t to{0};    //!< receiving rank position
    bool intra{false}; //!< counts towards CollectiveCost::intra (else inter)
    double share{1};   //!< fraction of the rank's bytes the path carries: 1 when every channel
                       //!< takes it (the worst path's beta prices the collective); below 1 when
                       //!< channels spread over paths (ring channels over NICs), whose loads
                       //!< then add up per GPU port (CollectiveAlphaBeta())
};

} // namespace ns3

#endif /* AI_FABRIC_COLLECTIVE_COST_H */
