/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_ANALYTIC_MODEL_H
#define AI_FABRIC_ANALYTIC_MODEL_H

#include "ns3/collective-cost.h"
#include "ns3/nccl-protocol.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;
class Workload;
struct WorkloadGroup;

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
 * \brief When a workload would end on an empty fabric, for the progress bar's expected end:
 * the larger of (a) the longest path through its op graph from t = 0, a DELAY op taking its
 * duration and a SEND op its post latency plus its message's MessageIdealTime() (on the
 * wire bytes), and (b) the streaming floor: per endpoint and the link its messages leave by
 * (or arrive by), the sum over those messages of their ideal time beyond their first
 * packet's (the time the rest streams through the path's bottleneck). (a) is the critical
 * path when messages do not meet; (b) what one NIC link must carry (a ring's pipelined
 * chunks, an incast's receiver). Contention between endpoints inside the fabric is not seen,
 * so it is an estimate from below.
 * \param graph the fabric
 * \param workload the workload (finalized)
 * \return seconds (0 for a workload without ops)
 */
double WorkloadIdealEnd(const FabricGraph& graph, const Workload& workload);

/**
 * \ingroup ai-fabric
 * \param graph the fabric
 * \param ranks the ring order of GPU indices
 * \return the worst alpha and worst beta over the ring's edges (rank i to rank i+1)
 */
AlphaBeta RingAlphaBeta(const FabricGraph& graph, const std::vector<uint32_t>& ranks);

/**
 * \ingroup ai-fabric
 * \brief Closed-form time of a collective, by the group's algorithm class.
 *
 * Fills CollectiveTerms from the group and \p cost (n = S, P ranks, C channels,
 * gamma, the inter alpha and beta, the chunk size) and asks the algorithm:
 * FORMULA: CollectiveAlgorithm::FormulaTime() (MISSION.md F1-F7), or, where the
 * op has no textbook formula, the SCHEDULE value; SCHEDULE:
 * CollectiveAlgorithm::ScheduleTime(). Each class documents its forms;
 * docs/collectives.md derives them.
 * \param group the collective (op, algorithm, ranks, bytes, channels, chunkBytes,
 *        gammaSecondsPerByte, ranksPerNode, matrix, transfers)
 * \param cost alpha and beta
 * \param model which closed form
 * \return seconds, or a negative value if the algorithm is unknown, Validate() rejects
 *         the group, or no formula is known for (op, algorithm)
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
 * The worst alpha and worst beta (PathAlphaBeta()) over the paths the group's
 * algorithm names (CollectiveAlgorithm::CostPaths(): ring successors, tree edges,
 * halving-doubling partners, ...), each counted as intra or inter; ring successors
 * for an unknown algorithm.
 * \param graph the fabric
 * \param group the collective (ranks are GPU indices)
 * \return the costs
 */
CollectiveCost CollectiveAlphaBeta(const FabricGraph& graph, const WorkloadGroup& group);

/**
 * \ingroup ai-fabric
 * \brief What the group's protocol adds to its paths' costs (docs/collectives.md,
 * "Protocols"): beta stretched by the wire framing and bounded below by the kernel's copy
 * rate (WorkloadGroup::kernelBytesPerSecond), alpha raised by the per-hop post latency
 * (NVLink for intra paths; for inter paths, the network's when they leave a server). NONE
 * adds no framing and no latency. The launch latency is CollectiveTime()'s.
 * \param group the collective (its protocol resolved)
 * \param interCrosses whether the inter paths leave a server
 * \param[in,out] cost the costs, raised
 */
void AddProtocolCost(const WorkloadGroup& group, bool interCrosses, CollectiveCost& cost);

/**
 * \ingroup ai-fabric
 * \brief Give a group the in-network reducers its algorithm sends to: for an algorithm whose
 * capabilities say inNetwork, the NVSwitch chips of its ranks' NVLink domain (nvls;
 * FabricGraph::GetReducersOf()) or, with networkTree, the InfiniBand switches of its SHARP
 * tree and the tree (collnet; FabricGraph::GetSharpTree()); none if there are none, which the
 * algorithm's Validate() then refuses (InNetworkProblem() says why); for any other, none.
 * \param graph the fabric
 * \param g the group (WorkloadGroup::switches set)
 */
void AttachReducers(const FabricGraph& graph, WorkloadGroup& g);

/**
 * \ingroup ai-fabric
 * \param graph the fabric
 * \param g a group
 * \return for a network-tree algorithm (collnet) whose group has no SHARP tree on this fabric,
 *         why (FabricGraph::GetSharpTree()); else ""
 */
std::string InNetworkProblem(const FabricGraph& graph, const WorkloadGroup& g);

/**
 * \ingroup ai-fabric
 * \brief Resolve a group's protocol as NCCL does: for AUTO, the protocol whose schedule
 * time (CollectiveTime(), SCHEDULE, with AddProtocolCost() on this fabric's paths) is
 * least for the group's size, Simple on ties; then ApplyProtocol() fills the chunk, slots
 * and latencies the user did not give.
 * \param graph the fabric
 * \param group the collective (algorithm, ranks, bytes, channels, protocol); updated
 * \param given which protocol-derived values the user set
 * \param chooseAlgorithm also choose the algorithm as NCCL does (`algorithm: auto`): the
 *        fastest (algorithm, protocol) pair of ring, tree and NVLS (when the ranks share an
 *        NVSwitch domain; one channel unless given.channels) for an all-reduce, ring on ties
 * \return the protocol
 */
Protocol ResolveProtocol(const FabricGraph& graph,
                         WorkloadGroup& group,
                         const ProtocolOverrides& given,
                         bool chooseAlgorithm = false);

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
