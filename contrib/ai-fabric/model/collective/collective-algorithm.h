/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_COLLECTIVE_ALGORITHM_H
#define AI_FABRIC_COLLECTIVE_ALGORITHM_H

#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class Workload;
struct WorkloadGroup;

/**
 * \ingroup ai-fabric
 * \brief What a CollectiveAlgorithm writes its messages with: op creation,
 * dependencies, reductions and the per-rank "done" bookkeeping of one group.
 *
 * Ranks are named by their position in WorkloadGroup::ranks (0 .. P-1); the
 * builder turns positions into endpoint ids. Conventions it enforces:
 *  * every op a rank executes waits for that rank's start op (explicitly when
 *    the ranks have different start ops, transitively otherwise);
 *  * a reduction (WorkloadGroup::gammaSecondsPerByte > 0) is a DELAY op of
 *    bytes x gamma on the reducing rank, after the message it reduces and after
 *    the previous reduction of the same chain (one chain per rank and channel:
 *    a channel's reductions run one after the other, as one NCCL thread block
 *    per channel does them); with gamma = 0 no op is added.
 */
class CollectiveBuilder
{
  public:
    /// "No op" marker.
    static constexpr uint32_t NONE = UINT32_MAX;

    /**
     * \param workload the workload
     * \param group the group index (its description is in the workload)
     * \param startOps per rank position, the op its part waits for; or one for all
     */
    CollectiveBuilder(Workload& workload, uint32_t group, const std::vector<uint32_t>& startOps);

    /// \return the group's description
    const WorkloadGroup& Group() const;
    /// \return the number of ranks P
    uint32_t Ranks() const;
    /**
     * \param pos rank position
     * \return the op the rank's part of the collective waits for
     */
    uint32_t Start(uint32_t pos) const;
    /**
     * \brief Make an op of rank \p pos wait for the rank's start op (for ops that
     * have no other dependency; a no-op when Send() or Reduce() already did it).
     * \param pos rank position
     * \param op the op
     */
    void AfterStart(uint32_t pos, uint32_t op);
    /**
     * \brief Add a SEND op.
     * \param step algorithm step (reported with the flow)
     * \param src sending rank position
     * \param dst receiving rank position
     * \param qp queue pair index
     * \param bytes payload bytes
     * \return the op
     */
    uint32_t Send(uint32_t step, uint32_t src, uint32_t dst, uint16_t qp, uint64_t bytes);
    /**
     * \brief Add the reduction of received data, if reductions cost time.
     * \param step algorithm step
     * \param pos the reducing rank position
     * \param bytes bytes reduced
     * \param input the op that delivered the data
     * \param chain the chain's last reduction (NONE at first); updated
     * \return the op after which the reduced data is ready: the new DELAY op,
     *         or \p input itself when gamma is 0
     */
    uint32_t Reduce(uint32_t step, uint32_t pos, uint64_t bytes, uint32_t input, uint32_t& chain);
    /**
     * \brief Add a zero-length DELAY op on a rank that waits for several ops.
     * \param step algorithm step
     * \param pos rank position
     * \param deps the ops to wait for (none: the rank's start)
     * \return the op
     */
    uint32_t Join(uint32_t step, uint32_t pos, const std::vector<uint32_t>& deps);
    /**
     * \param before the earlier op
     * \param after the op that waits for it
     */
    void Depend(uint32_t before, uint32_t after);
    /**
     * \param pos rank position
     * \return the ops the rank's "done" op will wait for (append to it)
     */
    std::vector<uint32_t>& Finals(uint32_t pos);
    /**
     * \brief Create one "done" op per rank, waiting for its Finals().
     * \return per rank position, the done op
     */
    std::vector<uint32_t> Finish();

  private:
    Workload& m_workload;                      //!< the workload
    uint32_t m_group;                          //!< group index
    const std::vector<uint32_t>& m_startOps;   //!< start ops (one, or one per rank)
    const std::vector<uint32_t>& m_endpoints;  //!< rank position -> endpoint id
    bool m_perRankStart;                       //!< ranks have different start ops
    uint32_t m_maxStep{0};                     //!< highest step used
    double m_gamma;                            //!< reduction cost, seconds per byte
    std::vector<std::vector<uint32_t>> m_done; //!< per rank: ops its done op waits for
};

/**
 * \ingroup ai-fabric
 * \brief A strategy that turns one collective (op, size, ranks) into the exact
 * per-step messages it puts on the fabric, with their data dependencies.
 *
 * Build() is a template method: it checks the group with Validate(), then calls
 * DoBuildChannel() once per channel (WorkloadGroup::channels; channel c carries
 * its SplitShare of the buffer and uses its own queue pair indices, so channels
 * interleave packet by packet on a NIC), then makes one "done" op per rank.
 */
class CollectiveAlgorithm : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CollectiveAlgorithm();
    ~CollectiveAlgorithm() override;
    CollectiveAlgorithm(const CollectiveAlgorithm&) = delete;
    CollectiveAlgorithm& operator=(const CollectiveAlgorithm&) = delete;

    /// Most channels a group may ask for (NCCL MAXCHANNELS, FACTS.md 3.2).
    static constexpr uint32_t MAX_CHANNELS = 64;
    /// Most pieces a chunk size may cut a buffer into (a guard against tiny chunks).
    static constexpr uint64_t MAX_PIECES = 1 << 24;

    /**
     * \param op an operation name ("all-reduce", ...)
     * \return true if this algorithm implements it
     */
    virtual bool Supports(const std::string& op) const = 0;

    /**
     * \brief Check that this algorithm can build a group, before Build().
     *
     * Callers that read user input turn a non-empty answer into a SpecError;
     * Build() aborts on it.
     * \param group the group (op, ranks and the fields the algorithm reads)
     * \return "" if the group can be built, else what is wrong, as a sentence
     */
    virtual std::string Validate(const WorkloadGroup& group) const;

    /**
     * \brief Append the group's messages to the workload.
     * \param workload the workload (its group \p group describes the collective)
     * \param group the group index
     * \param startOps per rank (in the group's rank order): the op that rank's part of
     *        the collective waits for (its issue time); one entry for all ranks is allowed
     * \return per rank: an op that is done when that rank's part is complete (its result
     *         is in place and its sends have arrived), for later ops to wait on
     */
    std::vector<uint32_t> Build(Workload& workload,
                                uint32_t group,
                                const std::vector<uint32_t>& startOps) const;

    /**
     * \param bytes buffer size S
     * \param ranks number of ranks P
     * \return the size of each of the P chunks of S (they differ by at most one byte)
     */
    static std::vector<uint64_t> SplitChunks(uint64_t bytes, uint32_t ranks);

    /**
     * \param bytes a size
     * \param parts number of parts (at least 1)
     * \param index a part
     * \return the size of part \p index of SplitChunks(bytes, parts), without the vector
     */
    static uint64_t SplitShare(uint64_t bytes, uint32_t parts, uint32_t index);

    /**
     * \param bytes a message
     * \param chunkBytes largest piece (0: no limit)
     * \return how many pieces of at most chunkBytes the message is cut into (at least 1)
     */
    static uint32_t PieceCount(uint64_t bytes, uint64_t chunkBytes);

  protected:
    /**
     * \brief Append one channel's messages.
     * \param b the builder
     * \param channel the channel index (0 .. channels-1)
     * \param bytes the channel's share of the buffer
     */
    virtual void DoBuildChannel(CollectiveBuilder& b, uint32_t channel, uint64_t bytes) const = 0;
};

/**
 * \ingroup ai-fabric
 * \param name algorithm name as written in traffic YAML ("ring", "tree", ...)
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

/**
 * \ingroup ai-fabric
 * \param op an operation name
 * \return true for operations that reduce data (all-reduce, reduce-scatter, reduce)
 */
bool CollectiveOpReduces(const std::string& op);

} // namespace ns3

#endif /* AI_FABRIC_COLLECTIVE_ALGORITHM_H */
