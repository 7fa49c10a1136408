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
struct WorkloadGroup;

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
 * \brief The ideal completion time of one message: alone on an idle fabric, on
 * the routed path from srcGpu to dstGpu (FabricGraph::ShortestPath()).
 *
 * The message is cut into k = ceil(m / MTU) packets at the fabric's smallest
 * MTU; the first carries the message header (RETH). With b the bottleneck link
 * (largest wire time per payload byte of full packets; the later one on a tie):
 *
 *   T = sum over links of (propagation + the far end's switch or NIC latency)
 *     + sum over links before b of the FIRST packet's serialization
 *     + the wire time of all k packets on b (per-packet headers, segments and
 *       framing of the link's profile included)
 *     + sum over links after b of the LAST packet's serialization
 *
 * where a link into a cut-through switch costs only the first 64 bytes' time
 * instead of a serialization. For a whole number of MTUs this equals
 * PathAlphaBeta()'s alpha + m beta up to the header of the first packet on the
 * links after the bottleneck; for one packet it is the exact store-and-forward time.
 * \param graph the fabric
 * \param srcGpu source GPU index
 * \param dstGpu destination GPU index
 * \param bytes payload bytes m
 * \return seconds; 0 if src == dst or unreachable
 */
double MessageIdealTime(const FabricGraph& graph, uint32_t srcGpu, uint32_t dstGpu, uint64_t bytes);

/**
 * \ingroup ai-fabric
 * \brief One message to price with MessageIdealTimes().
 */
struct MessageQuery
{
    uint32_t src{0};   //!< source GPU index
    uint32_t dst{0};   //!< destination GPU index
    uint64_t bytes{0}; //!< payload bytes
};

/**
 * \ingroup ai-fabric
 * \brief MessageIdealTime() of many messages: one routing pass per distinct
 * destination and one path walk per distinct (source, destination) pair.
 * \param graph the fabric
 * \param queries the messages
 * \return seconds, per query
 */
std::vector<double> MessageIdealTimes(const FabricGraph& graph,
                                      const std::vector<MessageQuery>& queries);

/**
 * \ingroup ai-fabric
 * \param graph the fabric
 * \param ranks the ring order of GPU indices
 * \return the worst alpha and worst beta over the ring's edges (rank i to rank i+1)
 */
AlphaBeta RingAlphaBeta(const FabricGraph& graph, const std::vector<uint32_t>& ranks);

/**
 * \ingroup ai-fabric
 * \brief The alpha-beta costs a collective's time depends on.
 *
 * Flat algorithms (ring, tree, halving-doubling, direct, naive) use `inter`:
 * the cost of the paths between the ranks they use (the worst one). The
 * hierarchical all-reduce uses `intra` for the rings inside a node and `inter`
 * for the rings across nodes (along a rail). CollectiveAlphaBeta() fills both
 * from a fabric.
 */
struct CollectiveCost
{
    AlphaBeta inter; //!< between ranks; hierarchical: between nodes, along a rail
    AlphaBeta intra; //!< hierarchical only: between the GPUs of one node
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
 * \brief Closed-form time of a collective.
 *
 * n = S (WorkloadGroup::bytes), P ranks, C channels, gamma = reduction cost,
 * L = ceil(log2 P). FORMULA:
 *  * F1 ring all-reduce: 2(P-1) alpha + 2(P-1)/P n beta + (P-1)/P n gamma
 *  * F2 ring reduce-scatter, all-gather: (P-1) alpha + (P-1)/P n beta
 *    (+ (P-1)/P n gamma for reduce-scatter)
 *  * F3 tree and binomial all-reduce: 2 L alpha + 2 L n beta + L n gamma
 *  * F4 halving-doubling all-reduce: 2 L alpha + 2(P-1)/P n beta + (P-1)/P n gamma;
 *    reduce-scatter, all-gather: L alpha + (P-1)/P n beta (+ (P-1)/P n gamma for RS)
 *  * F5 naive all-reduce: 2(P-1) alpha + 2(P-1) n beta + (P-1) n gamma
 *  * F6 direct all-to-all: (P-1) alpha + (P-1)/P n beta (n: a rank's send buffer; with
 *    a matrix, the most bytes a rank sends or receives in place of (P-1)/P n)
 *  * F7 hierarchical all-reduce, G per node, N = P/G nodes: 2(G-1) alpha_intra
 *    + 2(G-1)/G n beta_intra + 2(N-1) alpha_inter + 2(N-1)/N (n/G) beta_inter
 *    + ((G-1)/G n + (N-1)/N n/G) gamma
 *
 * SCHEDULE (docs/collectives.md derives each):
 *  * ring, N steps, c pieces per step of m = n/(P C c) bytes per channel, C channels
 *    sharing the NIC (a piece occupies it m' = C m beta), L_s = alpha + m'
 *    (+ m gamma if step s's arrivals are reduced):
 *    T = (N c - 1) m' + sum_{s<N-1} max(0, L_s - c m') + L_{N-1}
 *    (one piece per step: F1/F2 exactly; many: N n/P beta + alpha + ...)
 *  * ring broadcast/reduce chain: T = (P-1) L + (c-1) m', m = n/(C c),
 *    L = alpha + m' (+ m gamma)
 *  * tree (NCCL double binary tree, pipelined, bounded buffers):
 *    T = W beta + H alpha + (H-1) 2 m' (+ 2 m gamma h), W the most bytes a rank
 *    sends or receives (2n for P >= 4, where a ring rank sends 2(P-1)/P n),
 *    h the trees' depth, H = 2h hops for all-reduce (h for broadcast/reduce),
 *    m = n/(2 C c) the piece
 *  * binomial: F3 (one message per round); broadcast/reduce L (alpha + n beta)
 *  * halving-doubling, naive: as FORMULA, the gamma term divided by C
 *  * direct: alpha + (the most bytes a rank sends or receives) beta, plus the
 *    receivers' reductions (reduce: (P-1) n gamma/C at the root)
 *  * hierarchical: the ring SCHEDULE of its three phases, added
 * \param group the collective (op, algorithm, ranks, bytes, channels, chunkBytes,
 *        gammaSecondsPerByte, ranksPerNode, matrix, transfers)
 * \param cost alpha and beta
 * \param model which closed form
 * \return seconds, or a negative value if no formula is known for (op, algorithm) or the
 *         group is incomplete (e.g. hierarchical without ranksPerNode)
 */
double CollectiveTime(const WorkloadGroup& group,
                      const CollectiveCost& cost,
                      CollectiveModel model);

/**
 * \ingroup ai-fabric
 * \param op operation
 * \param algorithm algorithm
 * \return the MISSION.md formula that CollectiveModel::FORMULA evaluates ("F1" .. "F7"),
 *         or "" where MISSION.md has none
 */
std::string CollectiveFormulaId(const std::string& op, const std::string& algorithm);

/**
 * \ingroup ai-fabric
 * \brief The alpha-beta costs of the paths a collective uses, from a fabric.
 *
 * inter: the worst alpha and worst beta over the pairs the algorithm's messages
 * use: ring successors (ring, naive), tree edges (tree), halving-doubling
 * partners, and for direct the paths from and to the first rank (an
 * approximation that avoids pricing all P^2 pairs). Hierarchical: intra over the
 * node rings, inter over the rail rings.
 * \param graph the fabric
 * \param group the collective (ranks are GPU indices)
 * \return the costs
 */
CollectiveCost CollectiveAlphaBeta(const FabricGraph& graph, const WorkloadGroup& group);

/**
 * \ingroup ai-fabric
 * \brief Closed-form time of a collective with default group fields: the
 * FORMULA value of CollectiveTime() for P ranks, one channel, gamma = 0.
 *  * ring all-reduce: 2(P-1) alpha + 2(P-1)/P n beta (F1)
 *  * ring reduce-scatter, ring all-gather: (P-1) alpha + (P-1)/P n beta (F2)
 *  * and F3 to F6 for tree, halving-doubling, naive and direct
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
