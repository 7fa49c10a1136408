/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_WORKLOAD_H
#define AI_FABRIC_WORKLOAD_H

#include "ns3/nstime.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One operation of a workload: a message to send, or a delay
 * (compute, or a scheduled start).
 */
/**
 * \ingroup ai-fabric
 * \brief How a SEND's payload is laid out on the wire: as is, or in the lines of NCCL's
 * low-latency protocols, whose flags travel with the data (FACTS.md 3.1; NCCL
 * src/include/device.h). WireBytes() gives the bytes the transport carries.
 */
enum class WireFormat : uint8_t
{
    RAW = 0,   //!< the payload as is (NCCL's Simple protocol, or no protocol)
    LL = 1,    //!< 16-byte lines of 8 data bytes and 8 flag bytes (NCCL's LL)
    LL128 = 2, //!< 128-byte lines of 120 data bytes and an 8-byte flag (NCCL's LL128)
};

/**
 * \ingroup ai-fabric
 * \param format a wire format
 * \param bytes payload (data) bytes
 * \return the bytes carried on the wire: whole lines for LL and LL128
 */
uint64_t WireBytes(WireFormat format, uint64_t bytes);

struct WorkloadOp
{
    /// Operation kinds.
    enum Kind : uint8_t
    {
        SEND = 0,  //!< post a message from rank to peer; done when it has fully arrived
        DELAY = 1, //!< wait for duration on rank; done when it has passed
    };

    /// WorkloadOp::flags bits.
    enum Flags : uint8_t
    {
        /// SEND by an in-network reducer (an NVSwitch): no kernel copies it, it is posted as
        /// soon as its dependencies are done
        IN_NETWORK = 1,
    };

    Kind kind{SEND};                  //!< what the op does
    WireFormat wire{WireFormat::RAW}; //!< how the payload travels (SEND)
    uint8_t flags{0};                 //!< Flags
    uint32_t group{0};                //!< index of the group (collective) it belongs to
    uint32_t step{0};                 //!< algorithm step within the group
    uint32_t rank{0};                 //!< executing endpoint (the sender for SEND)
    uint32_t peer{0};                 //!< receiving endpoint (SEND)
    uint16_t qp{0};                   //!< queue pair index (SEND)
    uint64_t bytes{0};                //!< payload bytes (SEND)
    Time duration; //!< how long (DELAY); SEND: how long after its dependencies are done
                   //!< the message is posted (the protocol's per-hop latency)
};

/**
 * \ingroup ai-fabric
 * \brief One point-to-point transfer of a send-recv group.
 */
struct WorkloadTransfer
{
    uint32_t src{0};   //!< sending rank: position in WorkloadGroup::ranks
    uint32_t dst{0};   //!< receiving rank: position in WorkloadGroup::ranks
    uint64_t bytes{0}; //!< payload bytes
};

/**
 * \ingroup ai-fabric
 * \brief A named group of ops: one collective (or later, one training phase).
 *
 * Rank positions: `root`, `matrix` rows and columns and `transfers` name ranks
 * by their position in `ranks` (0 .. P-1), as NCCL names ranks within a
 * communicator, not by endpoint (GPU) id. docs/collectives.md describes which
 * algorithm reads which field.
 */
/**
 * \ingroup ai-fabric
 * \brief Where an endpoint sits, as NCCL's topology search sees it: which server (NVLink
 * domain) and which local GPU (its NIC's rail). Set on a Workload by whoever built the
 * fabric (Workload::SetPlaces()); collectives read it to form NCCL's channels.
 */
struct EndpointPlace
{
    static constexpr uint32_t NONE = UINT32_MAX; //!< "in no server"

    uint32_t server{NONE}; //!< server (NVLink domain) index; NONE: a server of its own
    uint32_t local{0};     //!< the GPU's local index in its server (its NIC's rail)
};

/**
 * \ingroup ai-fabric
 * \brief The NCCL protocol a collective's connections use (FACTS.md 3.1, 3.7;
 * docs/collectives.md, "Protocols"): wire framing, per-hop and launch latency, slots.
 */
enum class Protocol : uint8_t
{
    NONE = 0,   //!< the transport alone: no framing, no software latency, no slot limit
    SIMPLE = 1, //!< NCCL's Simple protocol: raw data, fences, 512 KiB slots
    LL = 2,     //!< NCCL's LL: 8 of every 16 bytes are data, lowest latency
    LL128 = 3,  //!< NCCL's LL128: 120 of every 128 bytes are data
    AUTO = 4,   //!< NCCL's choice by size (ResolveProtocol()), resolved before building
};

/**
 * \ingroup ai-fabric
 * \brief How a ring collective orders its ranks on each channel.
 */
enum class RingOrder : uint8_t
{
    TOPOLOGY = 0, //!< as NCCL's channels do: each ring channel enters and leaves every server
                  //!< through another NIC, rail-aligned between servers; each tree channel is a
                  //!< chain in every server and a double binary tree between servers, linked
                  //!< through another NIC (PlanChannels())
    RANKS = 1,    //!< the ranks in the order given, on every channel (trees: every rank a node
                  //!< of NCCL's double binary tree, by position)
};

/**
 * \ingroup ai-fabric
 * \brief The in-network reduction trees of a network-tree algorithm (`collnet`, InfiniBand
 * SHARP), one per local index: where each rank attaches, its place in its server, and the
 * root above its tree's switches.
 * Switches are indices into WorkloadGroup::switches; filled with the fabric
 * (AttachReducers()).
 */
struct InNetworkTree
{
    static constexpr uint32_t NONE = UINT32_MAX; //!< "no parent": the tree's root

    std::vector<uint32_t> attach; //!< per rank position: the switch its NIC reaches first
    std::vector<uint32_t> server; //!< per rank position: its server (ranks of a server share it)
    std::vector<uint32_t> local;  //!< per rank position: its index among its server's ranks
    std::vector<uint32_t> root;   //!< per local index: the switch above the ranks' switches
                                  //!< when they reach several, NONE when they share one
    uint32_t localRanks{1};       //!< ranks per server (every server has as many)
};

struct WorkloadGroup
{
    /// WorkloadGroup::channels: "NCCL's count for this group" (PlanChannels() resolves it).
    static constexpr uint32_t AUTO_CHANNELS = 0;

    /// NCCL's Simple-protocol step, 4 MiB buffer / 8 slots (FACTS.md 3.2), bytes: the
    /// chunk size traffic descriptions should default to.
    static constexpr uint64_t NCCL_CHUNK_BYTES = 512 * 1024;

    std::string name;            //!< name
    std::string op;              //!< operation, e.g. "all-reduce"
    std::string algorithm;       //!< algorithm, e.g. "ring"
    uint64_t bytes{0};           //!< buffer size S, bytes (nccl-tests convention per op)
    std::vector<uint32_t> ranks; //!< endpoints taking part
    Time start;                  //!< issue time
    uint32_t channels{1};        //!< parallel channels (rings/trees), each its own queue pair;
                                 //!< AUTO_CHANNELS until PlanChannels() resolves it
    RingOrder ringOrder{RingOrder::RANKS};    //!< rank order of ring and tree channels
    std::vector<std::vector<uint32_t>> rings; //!< per channel (channel c uses rings[c % size]):
                                              //!< the ring order of rank positions; empty:
                                              //!< positions in order (PlanChannels() fills it)
    /**
     * Per channel (channel c uses trees[c % size]), NCCL's tree over servers: per server (its
     * index is its node in the double binary tree), its rank positions in chain order, the
     * first the one linked to the other servers; empty: every rank a tree node of its own, by
     * position (PlanChannels() fills it).
     */
    std::vector<std::vector<std::vector<uint32_t>>> trees;
    Protocol protocol{Protocol::NONE}; //!< NCCL protocol; AUTO until ResolveProtocol()
    uint32_t slots{0};                 //!< messages a connection (sender, receiver, queue pair)
                                       //!< may have in flight: send j waits until send
                                       //!< j - slots is consumed (NCCL_STEPS); 0: no limit
    Time launchLatency;                //!< before a rank's first op (kernel launch, NCCL's
                                       //!< base latency); 0: none
    Time hopLatencyIntra;              //!< each send inside a server (NVLink hop latency)
    Time hopLatencyInter;              //!< each send between servers (network hop latency)
    double kernelBytesPerSecond{0};    //!< the communication kernel's copy rate per rank (its
                                       //!< messages one after the other), bytes/s; 0: no limit
    uint64_t chunkBytes{0};            //!< pipelining unit of ring/tree steps, bytes; 0: whole
                                       //!< steps, no pipelining (NCCL: NCCL_CHUNK_BYTES)
    double gammaSecondsPerByte{0};     //!< reduction cost, seconds per reduced byte (0: free)
    uint32_t root{0};                  //!< broadcast/reduce root: position in ranks
    uint32_t ranksPerNode{0};          //!< hierarchical: G, ranks per node (ranks node-major)
    std::vector<uint64_t> matrix;      //!< all-to-all: P x P bytes, row-major, row = source
                                       //!< position; empty: uniform S/P per pair
    std::vector<WorkloadTransfer> transfers; //!< send-recv: the transfers
    std::vector<uint32_t> switches; //!< in-network reducers the algorithm may send to (NVLS:
                                    //!< the NVSwitch chips of the ranks' NVLink domain),
                                    //!< endpoint ids; the builder's positions P, P+1, ...
    InNetworkTree tree; //!< network-tree algorithms (collnet): the reduction tree over switches
};

/**
 * \ingroup ai-fabric
 * \brief A DAG of operations with "starts after" dependencies.
 *
 * An op starts when all ops it depends on are done; ops without
 * dependencies start at time zero. Collective algorithms and (later) training
 * schedules write into it; WorkloadApplications (one per GPU node) execute it. Successor lists are
 * stored compactly (CSR) after Finalize().
 */
class Workload
{
  public:
    /**
     * \brief Thrown by AddOp() and AddDependency() beyond the limits of SetLimits(),
     * so that a workload too large for the memory at hand is refused while it is built, before
     * it takes that memory.
     */
    class LimitError : public std::length_error
    {
      public:
        using std::length_error::length_error;
    };

    /**
     * \brief Bound the workload's size (none by default).
     * \param maxOps most ops
     * \param maxDependencies most dependencies
     */
    void SetLimits(uint64_t maxOps, uint64_t maxDependencies);

    /**
     * \param group the group's description
     * \return the group's index
     */
    uint32_t AddGroup(const WorkloadGroup& group);

    /**
     * \param op the operation
     * \return the op's index
     */
    uint32_t AddOp(const WorkloadOp& op);

    /**
     * \brief Declare that \p after starts only when \p before is done.
     * \param before the earlier op
     * \param after the later op
     */
    void AddDependency(uint32_t before, uint32_t after);

    /**
     * \brief Reserve room for ops and dependencies (an optimisation only).
     * \param ops ops expected in total
     * \param dependencies dependencies expected in total
     */
    void Reserve(std::size_t ops, std::size_t dependencies);

    /// Build the successor lists. Call once, after the last AddDependency().
    void Finalize();

    /// \return the ops
    const std::vector<WorkloadOp>& GetOps() const;
    /// \return the groups
    const std::vector<WorkloadGroup>& GetGroups() const;

    /**
     * \brief Say where each endpoint sits (set before groups are planned; PlanChannels()).
     * \param places per endpoint id
     */
    void SetPlaces(std::vector<EndpointPlace> places)
    {
        m_places = std::move(places);
    }

    /// \return per endpoint id, where it sits; empty if not set
    const std::vector<EndpointPlace>& GetPlaces() const
    {
        return m_places;
    }

    /// \param op an op \return number of ops it waits for
    uint32_t GetInDegree(uint32_t op) const;
    /// \param op an op \return pointer to its first successor
    const uint32_t* SuccessorsBegin(uint32_t op) const;
    /// \param op an op \return pointer past its last successor
    const uint32_t* SuccessorsEnd(uint32_t op) const;
    /// \return dependencies added so far (before Finalize) or stored (after)
    std::size_t GetDependencyCount() const;

    /**
     * \brief The SEND ops of every group, in op order, as compressed rows: the sends of
     * group g are sends[first[g]] to sends[first[g + 1] - 1]. O(ops) (a counting sort).
     */
    struct GroupSends
    {
        std::vector<uint32_t> first; //!< per group (+ 1): start of its row in sends
        std::vector<uint32_t> sends; //!< SEND op indices, grouped, in op order per group
    };

    /// \return the SEND ops bucketed by group (GroupSends)
    GroupSends GetSendsByGroup() const;

  private:
    std::vector<WorkloadOp> m_ops;                      //!< ops
    std::vector<WorkloadGroup> m_groups;                //!< groups
    std::vector<EndpointPlace> m_places;                //!< per endpoint, where it sits
    std::vector<std::pair<uint32_t, uint32_t>> m_edges; //!< (before, after), until Finalize
    uint64_t m_maxOps{UINT64_MAX};                      //!< SetLimits(): most ops
    uint64_t m_maxDependencies{UINT64_MAX};             //!< SetLimits(): most dependencies
    std::vector<uint32_t> m_inDegree;                   //!< per op
    std::vector<uint32_t> m_succStart;                  //!< CSR offsets (ops + 1)
    std::vector<uint32_t> m_succ;                       //!< CSR successors
    bool m_finalized{false};                            //!< Finalize() called
};

} // namespace ns3

#endif /* AI_FABRIC_WORKLOAD_H */
