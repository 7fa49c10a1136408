/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RING_COLLECTIVE_H
#define AI_FABRIC_RING_COLLECTIVE_H

#include "ns3/collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's Ring: reduce-scatter, all-gather, all-reduce (reduce-scatter
 * then all-gather), broadcast (a pipelined chain from the root) and reduce (a
 * pipelined chain towards the root), over C channels, pipelined in chunks.
 *
 * Ranks r_0..r_{P-1} form a ring in the given order. The buffer S is split
 * across C channels (channel c carries SplitShare(S, C, c) on queue pair c, so
 * the channels interleave on every NIC). Within a channel, at every step each
 * rank sends one block of S/(P C) bytes to its successor. Reduce-scatter step
 * s: rank i sends block (i-s-1) mod P; after P-1 steps rank i holds reduced
 * block i. All-gather step t: rank i sends block (i-t) mod P. Every rank sends
 * (P-1)/P*S bytes per phase: 2(P-1)/P*S for all-reduce, whatever C and the
 * chunk size.
 *
 * Pipelining (FACTS.md 3.2): each step's block is cut into the same number c
 * of pieces of at most WorkloadGroup::chunkBytes (NCCL Simple: 512 KiB), and
 * piece k of step s+1 leaves rank i as soon as piece k of step s has arrived
 * from rank i-1 (and, in reduce-scatter steps, has been reduced):
 * store-and-forward at chunk granularity. With one piece per step the ring
 * is the classic one, step s+1 after step s (formula F1).
 *
 * Broadcast: the chain root, root+1, ..., root-1 (ring order) forwards each
 * piece as soon as it has arrived. Reduce: the chain root+1, ..., root-1, root
 * adds its own data to each arriving piece and forwards it.
 */
class RingCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RingCollectiveAlgorithm();
    ~RingCollectiveAlgorithm() override;

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

    /**
     * \param g a group
     * \param channel a channel
     * \return the channel's ring: rank positions in ring order (WorkloadGroup::rings, or
     *         the positions in order)
     */
    static std::vector<uint32_t> ChannelRing(const WorkloadGroup& g, uint32_t channel);

    /// Ring phases BuildRing() runs.
    enum Phases : uint8_t
    {
        REDUCE_SCATTER = 1, //!< P-1 steps whose arrivals are reduced
        ALL_GATHER = 2,     //!< P-1 steps that forward
        ALL_REDUCE = 3,     //!< both, reduce-scatter first
    };

    /**
     * \brief Append one channel of a pipelined ring among some ranks of the group.
     *
     * Member i holds block i (SplitChunks(bytes, members)) after a reduce-scatter
     * and starts an all-gather with it.
     * \param b the builder
     * \param members rank positions in ring order
     * \param bytes the buffer this ring works on
     * \param phases which phases
     * \param qp queue pair index of every send
     * \param firstStep step number of the first step
     * \param starts per member, the op its first sends wait for; empty: the rank's start
     * \param finals per rank position (Ranks() entries): receives the ops that
     *        complete each member's part (its last arrivals, reduced, and its last
     *        sends); nullptr: the builder's Finals()
     */
    static void BuildRing(CollectiveBuilder& b,
                          const std::vector<uint32_t>& members,
                          uint64_t bytes,
                          Phases phases,
                          uint16_t qp,
                          uint32_t firstStep,
                          const std::vector<uint32_t>& starts,
                          std::vector<std::vector<uint32_t>>* finals);

    /**
     * \brief Append one channel of a pipelined chain: chain[0] sends every piece to
     * chain[1], which forwards it to chain[2], and so on.
     * \param b the builder
     * \param chain rank positions, data flowing from the first to the last
     * \param bytes the message
     * \param reduce whether every receiver reduces a piece before forwarding it
     * \param qp queue pair index of every send
     * \param finals per rank position: receives the ops that complete each member's
     *        part; nullptr: the builder's Finals()
     */
    static void BuildChain(CollectiveBuilder& b,
                           const std::vector<uint32_t>& chain,
                           uint64_t bytes,
                           bool reduce,
                           uint16_t qp,
                           std::vector<std::vector<uint32_t>>* finals);

    /**
     * \brief The payload bytes one member of a ring (BuildRing()) sends.
     * \param n the ring's data
     * \param q members
     * \param i member position
     * \param rs with the reduce-scatter phase
     * \param ag with the all-gather phase
     * \return bytes: `n - block_i` for reduce-scatter plus `n - block_(i+1)` for
     *         all-gather (blocks of SplitChunks(n, q)); 0 if q < 2
     */
    static uint64_t RingMemberBytes(uint64_t n, uint32_t q, uint32_t i, bool rs, bool ag);

    /**
     * \brief Time of a pipelined ring (BuildRing()) on an idle fabric.
     *
     * Piece (s, k) (step s, piece k) leaves a rank when the link is free and piece
     * (s-1, k) has arrived from its predecessor (and is reduced): with all ranks
     * alike, start(s, k) = max(start(s, k-1) + m', start(s-1, k) + L_{s-1}), whose
     * solution is start(s, k) = (s c + k) m' + sum_{s'<s} max(0, L_s' - c m').
     * \param steps N
     * \param reduceSteps the first reduceSteps steps' arrivals are reduced
     * \param ringBytes the buffer the ring works on (all channels)
     * \param members ranks in the ring
     * \param channels C
     * \param chunk largest piece
     * \param ab the ring edges' cost
     * \param gamma reduction cost
     * \return seconds (0 without steps)
     */
    static double RingPipelineTime(uint32_t steps,
                                   uint32_t reduceSteps,
                                   uint64_t ringBytes,
                                   uint32_t members,
                                   uint32_t channels,
                                   uint64_t chunk,
                                   const AlphaBeta& ab,
                                   double gamma);

  protected:
    void DoBuildChannel(CollectiveBuilder& b, uint32_t channel, uint64_t bytes) const override;
    bool AddChannelBytes(const WorkloadGroup& g,
                         uint64_t bytes,
                         uint32_t channel,
                         std::vector<uint64_t>& sent) const override;

  private:
    /**
     * \brief Time of a pipelined chain of P ranks (broadcast, reduce) on an idle fabric.
     * \param g the group
     * \param x the terms
     * \param reduce whether every receiver reduces
     * \param ab the chain edges' cost
     * \return seconds
     */
    static double ChainPipelineTime(const WorkloadGroup& g,
                                    const CollectiveTerms& x,
                                    bool reduce,
                                    const AlphaBeta& ab);
};

} // namespace ns3

#endif /* AI_FABRIC_RING_COLLECTIVE_H */
