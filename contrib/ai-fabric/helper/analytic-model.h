/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_ANALYTIC_MODEL_H
#define AI_FABRIC_ANALYTIC_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;

/**
 * \ingroup ai-fabric
 * \brief The alpha-beta cost of sending a message over a path: T(m) = alpha + m * beta.
 *
 * Derived from the modelled links, so it is the exact store-and-forward time
 * of an m-byte message on an idle path when m is a whole number of MTUs:
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
 * \param graph the fabric
 * \param srcGpu source GPU index
 * \param dstGpu destination GPU index
 * \return the alpha-beta cost of one shortest path from srcGpu to dstGpu
 */
AlphaBeta PathAlphaBeta(const FabricGraph& graph, uint32_t srcGpu, uint32_t dstGpu);

/**
 * \ingroup ai-fabric
 * \param graph the fabric
 * \param ranks the ring order of GPU indices
 * \return the worst alpha and worst beta over the ring's edges (rank i to rank i+1)
 */
AlphaBeta RingAlphaBeta(const FabricGraph& graph, const std::vector<uint32_t>& ranks);

/**
 * \ingroup ai-fabric
 * \brief Closed-form time of a collective (MISSION.md F1, F2).
 *  * ring all-reduce: 2(P-1) alpha + 2(P-1)/P n beta
 *  * ring reduce-scatter, ring all-gather: (P-1) alpha + (P-1)/P n beta
 * \param op operation
 * \param algorithm algorithm
 * \param ranks P
 * \param bytes n, the buffer size
 * \param cost alpha and beta
 * \return seconds, or a negative value if no formula is known for (op, algorithm)
 */
double CollectiveAnalyticTime(const std::string& op,
                              const std::string& algorithm,
                              uint32_t ranks,
                              uint64_t bytes,
                              const AlphaBeta& cost);

} // namespace ns3

#endif /* AI_FABRIC_ANALYTIC_MODEL_H */
