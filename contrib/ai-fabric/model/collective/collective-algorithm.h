/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_COLLECTIVE_ALGORITHM_H
#define AI_FABRIC_COLLECTIVE_ALGORITHM_H

#include "ns3/collective-cost.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class Workload;
struct WorkloadGroup;

/**
 * \ingroup ai-fabric
 * \brief A collective operation. Its YAML name, and whether it reduces, are in one
 * table (collective-algorithm.cc): CollectiveOpName(), CollectiveOpFromName(),
 * CollectiveOpNames(), CollectiveOpReduces().
 */
enum class CollectiveOp : uint8_t
{
    ALL_REDUCE = 0,     //!< "all-reduce"
    REDUCE_SCATTER = 1, //!< "reduce-scatter"
    ALL_GATHER = 2,     //!< "all-gather"
    BROADCAST = 3,      //!< "broadcast"
    REDUCE = 4,         //!< "reduce"
    ALL_TO_ALL = 5,     //!< "all-to-all"
    SEND_RECV = 6,      //!< "send-recv"
    PERMUTATION = 7,    //!< "permutation"
};

/// Number of CollectiveOp values.
constexpr uint32_t COLLECTIVE_OP_COUNT = 8;

/**
 * \ingroup ai-fabric
 * \param op an operation
 * \return its name as written in traffic YAML ("all-reduce", ...)
 */
std::string CollectiveOpName(CollectiveOp op);

/**
 * \ingroup ai-fabric
 * \param name an operation name ("all-reduce", ...)
 * \param[out] op the operation, if the name is known
 * \return true if the name is an operation's
 */
bool CollectiveOpFromName(const std::string& name, CollectiveOp& op);

/**
 * \ingroup ai-fabric
 * \return the operation names, in CollectiveOp order
 */
std::vector<std::string> CollectiveOpNames();

/**
 * \ingroup ai-fabric
 * \param op an operation
 * \return true for operations that reduce data (all-reduce, reduce-scatter, reduce)
 */
bool CollectiveOpReduces(CollectiveOp op);

/**
 * \ingroup ai-fabric
 * \param op an operation name
 * \return true for operations that reduce data (all-reduce, reduce-scatter, reduce)
 */
bool CollectiveOpReduces(const std::string& op);

/**
 * \ingroup ai-fabric
 * \brief What a collective algorithm is called and what it can do: everything a reader,
 * a checker or a document needs to know about it without building a group.
 */
struct CollectiveCapabilities
{
    std::string name;              //!< YAML name ("ring", ...), unique
    uint32_t listPosition{0};      //!< place in CollectiveAlgorithmNames() (unique): the
                                   //!< reader defaults an op to the first algorithm that
                                   //!< implements it, and lists names in this order
    uint32_t ops{0};               //!< supported operations, bit (1 << op) each (OpBit())
    bool chunked{false};           //!< pipelines its steps in pieces of chunkBytes
    bool ringOrdered{false};       //!< follows WorkloadGroup::rings (`ring_order`)
    bool treeOrdered{false};       //!< follows WorkloadGroup::trees (`ring_order`)
    bool ncclChannels{false};      //!< NCCL runs it on its collective channels: `channels:
                                   //!< auto` is NCCL's count (NcclChannelCount()), else 1
    bool pointToPoint{false};      //!< NCCL runs it as point-to-point sends (ncclSend/
                                   //!< ncclRecv): `protocol: auto` follows NCCL's p2p rule
                                   //!< (LL up to NCCL_P2P_LL_THRESHOLD, else Simple)
    bool inNetwork{false};         //!< reduces in the network: sends to the group's in-network
                                   //!< reducers (WorkloadGroup::switches), which whoever
                                   //!< knows the fabric fills (AttachReducers()); NCCL runs
                                   //!< such algorithms with its Simple protocol only
    bool networkTree{false};       //!< with inNetwork: the reducers are InfiniBand switches
                                   //!< in a tree (WorkloadGroup::tree, SHARP), not the
                                   //!< NVSwitch chips of one NVLink domain
    bool needsRanksPerNode{false}; //!< reads WorkloadGroup::ranksPerNode (P a multiple of it)
    bool powerOfTwoRanks{false};   //!< needs P to be a power of two

    /**
     * \param op an operation
     * \return its bit in #ops
     */
    static constexpr uint32_t OpBit(CollectiveOp op)
    {
        return uint32_t{1} << static_cast<uint32_t>(op);
    }
};

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
     * \brief The group's in-network reducers (WorkloadGroup::switches) are positions P to
     * P + Switches() - 1: Send() to and from them as to ranks. A reducer has no start op,
     * launch, kernel or done op: its sends wait for what they are given (IN_NETWORK ops).
     * \return the number of reducers
     */
    uint32_t Switches() const;
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
    Workload& m_workload;             //!< the workload
    uint32_t m_group;                 //!< group index
    std::vector<uint32_t> m_startOps; //!< start ops (one, or one per rank): the
                                      //!< launch ops when the group has a launch
                                      //!< latency
    std::vector<uint32_t> m_server;   //!< rank position -> server (EndpointPlace)

    /// One connection's slots (WorkloadGroup::slots).
    struct Connection
    {
        std::vector<uint32_t> release;  //!< per slot: the op that frees it
        std::vector<uint32_t> occupant; //!< per slot: the send that holds it
        uint64_t sent{0};               //!< sends so far
    };

    std::unordered_map<uint64_t, Connection> m_connections; //!< (src, dst, qp) -> slots
    std::unordered_map<uint32_t, std::pair<Connection*, uint32_t>>
        m_slotOf; //!< send holding a slot -> its connection and slot
    std::unordered_map<uint32_t, uint32_t> m_slotTaker; //!< send -> the send that took its
                                                        //!< slot before its data was reduced
    std::vector<uint32_t> m_endpoints;         //!< position -> endpoint id: the ranks (0 .. P-1),
                                               //!< then the group's switches (P, P+1, ...)
    uint32_t m_ranks;                          //!< P
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
 *
 * A subclass is the one home of its algorithm: its name and capabilities
 * (GetCapabilities()), its message DAG (DoBuildChannel()), the bytes each rank
 * sends (AddChannelBytes()), the paths its cost is priced on (CostPaths()), its
 * textbook closed form and the steps it sums (FormulaTime(), FormulaId(),
 * StepTimes()) and the time of the schedule it builds (ScheduleTime()). The
 * registry (CollectiveAlgorithms()) finds every subclass through ns-3's TypeId
 * system, so adding an algorithm adds one class and touches nothing else
 * (docs/collectives.md, "Adding an algorithm").
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

    /// FormulaTime(): "no textbook formula for this op".
    static constexpr double NO_FORMULA = -2;

    /**
     * \return the algorithm's name, list position and capabilities
     */
    virtual CollectiveCapabilities GetCapabilities() const = 0;

    /**
     * \return the algorithm's YAML name (GetCapabilities().name)
     */
    std::string GetName() const;

    /**
     * \param op an operation
     * \return true if this algorithm implements it
     */
    bool Supports(CollectiveOp op) const;

    /**
     * \param op an operation name ("all-reduce", ...)
     * \return true if this algorithm implements it (false for unknown names)
     */
    bool Supports(const std::string& op) const;

    /**
     * \brief Check that this algorithm can build a group, before Build().
     *
     * Checks what every algorithm needs (the op is supported, ranks, channels, chunk,
     * gamma, root, matrix, transfers) and what the capabilities say (ranks per node);
     * a subclass adds what only it knows. Callers that read user input turn a
     * non-empty answer into a SpecError; Build() aborts on it.
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
     * \brief The payload bytes each rank sends, by the algorithm's closed form
     * (docs/collectives.md, "Algorithms, bytes and formulas"), in exact integer
     * arithmetic: channel c carries SplitShare(S, C, c), and AddChannelBytes() adds
     * each channel's. It is computed from the formula, not from the built messages,
     * so comparing it with the bytes a run delivered checks both the DAG and the
     * transport (the end-of-run invariants, docs/robustness.md).
     * \param g the group
     * \param[out] bytes per rank position, payload bytes it sends
     * \return false if the algorithm has no formula for the group's op (bytes left empty)
     */
    bool BytesPerRank(const WorkloadGroup& g, std::vector<uint64_t>& bytes) const;

    /**
     * \brief The paths whose worst alpha and worst beta the closed forms use
     * (CollectiveAlphaBeta() prices them on a fabric). Default: ring successors.
     * \param g the group (P >= 2)
     * \param[out] paths appended to
     */
    virtual void CostPaths(const WorkloadGroup& g, std::vector<CollectivePath>& paths) const;

    /**
     * \param op an operation name
     * \return the MISSION.md formula FormulaTime() evaluates for \p op ("F1" .. "F7"),
     *         or "" where MISSION.md has none (the default)
     */
    virtual std::string FormulaId(const std::string& op) const;

    /**
     * \brief CollectiveModel::FORMULA: the textbook closed form (whole messages, one step
     * after the other, one channel, plus the reduction term). Default: none.
     * \param g a group Validate() accepts
     * \param cost alpha and beta
     * \param x the terms taken from \p g and \p cost
     * \return seconds; NO_FORMULA where the op has no textbook formula (the caller
     *         then uses ScheduleTime()); negative if the group is incomplete
     */
    virtual double FormulaTime(const WorkloadGroup& g,
                               const CollectiveCost& cost,
                               const CollectiveTerms& x) const;

    /**
     * \brief The steps of the textbook schedule FormulaTime() sums, one cost each:
     * FormulaTime() equals their sum up to rounding (a check that the closed form
     * and the schedule it describes agree). Default: none.
     * \param g a group Validate() accepts
     * \param cost alpha and beta
     * \param x the terms taken from \p g and \p cost
     * \return seconds per step; empty where FormulaTime() has no formula
     */
    virtual std::vector<double> StepTimes(const WorkloadGroup& g,
                                          const CollectiveCost& cost,
                                          const CollectiveTerms& x) const;

    /**
     * \brief CollectiveModel::SCHEDULE: the schedule the algorithm builds, on an idle
     * non-blocking fabric (channels, chunk pipelining, concurrent messages, gamma).
     * \param g a group Validate() accepts
     * \param cost alpha and beta
     * \param x the terms taken from \p g and \p cost
     * \return seconds, or a negative value if no closed form is known
     */
    virtual double ScheduleTime(const WorkloadGroup& g,
                                const CollectiveCost& cost,
                                const CollectiveTerms& x) const = 0;

    /**
     * \brief The paths from every rank position i to i+1 (mod P): CostPaths()' default.
     * \param ranks P
     * \param[out] paths appended to
     */
    static void RingPaths(uint32_t ranks, std::vector<CollectivePath>& paths);

    /**
     * \param p a number
     * \return log2 of the smallest power of two >= p
     */
    static double CeilLog2(uint32_t p);

    /**
     * \brief F3, the textbook tree all-reduce (binomial rounds or a binary tree's levels):
     * L = ceil(log2 p) steps up, each a whole message reduced, and L steps down.
     * \param g the group (all-reduce)
     * \param x the alpha-beta-gamma terms
     * \return 2 L alpha + 2 L n beta + L n gamma
     */
    static double TextbookTreeAllReduceTime(const WorkloadGroup& g, const CollectiveTerms& x);

    /**
     * \param g the group (all-reduce)
     * \param x the alpha-beta-gamma terms
     * \return F3's steps: L of alpha + n beta + n gamma, then L of alpha + n beta
     */
    static std::vector<double> TextbookTreeAllReduceSteps(const WorkloadGroup& g,
                                                          const CollectiveTerms& x);

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

    /**
     * \brief Add one channel's bytes per rank (BytesPerRank()).
     * \param g the group
     * \param bytes the channel's share n of the buffer
     * \param channel the channel index
     * \param[in,out] sent per rank position, payload bytes, added to
     * \return false if the algorithm has no formula for the group's op
     */
    virtual bool AddChannelBytes(const WorkloadGroup& g,
                                 uint64_t bytes,
                                 uint32_t channel,
                                 std::vector<uint64_t>& sent) const = 0;
};

/**
 * \ingroup ai-fabric
 * \brief The registry of collective algorithms: every class derived from
 * CollectiveAlgorithm with a constructor that ns-3's TypeId system knows
 * (NS_OBJECT_ENSURE_REGISTERED), by its YAML name, in listPosition order. Adding an
 * algorithm adds one class; nothing here changes.
 * \return one new object of each algorithm, in CollectiveAlgorithmNames() order
 */
std::vector<Ptr<CollectiveAlgorithm>> CollectiveAlgorithms();

/**
 * \ingroup ai-fabric
 * \param name algorithm name as written in traffic YAML ("ring", "tree", ...)
 * \return a new algorithm object, or nullptr if the name is unknown
 */
Ptr<CollectiveAlgorithm> CreateCollectiveAlgorithm(const std::string& name);

/**
 * \ingroup ai-fabric
 * \return the algorithm names CreateCollectiveAlgorithm() knows, in listPosition order
 */
std::vector<std::string> CollectiveAlgorithmNames();

/**
 * \ingroup ai-fabric
 * \brief The payload bytes each rank of a collective sends, by its algorithm's closed
 * form: CollectiveAlgorithm::BytesPerRank() of the group's algorithm.
 * \param g the group
 * \param[out] bytes per rank position, payload bytes it sends
 * \return false if the algorithm is unknown or has no formula for the op (bytes empty)
 */
bool ExpectedBytesPerRank(const WorkloadGroup& g, std::vector<uint64_t>& bytes);

} // namespace ns3

#endif /* AI_FABRIC_COLLECTIVE_ALGORITHM_H */
