/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_NCCL_PROTOCOL_H
#define AI_FABRIC_NCCL_PROTOCOL_H

#include "ns3/workload.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What one NCCL protocol does to a collective's messages (docs/collectives.md,
 * "Protocols"): its wire framing, its slot size, and the latencies of NCCL's tuning model
 * (src/graph/tuning.cc, FACTS.md 3.7), which the simulation charges as a launch latency
 * per rank and a post latency per message.
 */
struct ProtocolProfile
{
    Protocol protocol{Protocol::NONE}; //!< the protocol
    std::string name;                  //!< YAML name ("simple", ...)
    WireFormat wire{WireFormat::RAW};  //!< how the payload is framed
    uint64_t slotBytes{0};             //!< data bytes per slot (NCCL step); 0: no slots
    double launchRingS{0};             //!< base latency, ring-like algorithms, seconds
    double launchTreeS{0};             //!< base latency, tree, seconds
    double hopNvlinkRingS{0};          //!< per-hop latency over NVLink, ring-like, seconds
    double hopNvlinkTreeS{0};          //!< per-hop latency over NVLink, tree, seconds
    double hopNetRingS{0};             //!< per-hop latency over the network, ring-like, seconds
    double hopNetTreeS{0};             //!< per-hop latency over the network, tree, seconds
};

/// NCCL_STEPS: slots per connection buffer (NCCL src/include/device.h, FACTS.md 3.2).
constexpr uint32_t NCCL_SLOTS = 8;

/// NCCL's tuning-model latency of NVLS over NVLink, Simple (src/graph/tuning.cc hwLat,
/// FACTS.md 2.1, 3.7), seconds: charged once per NVLS collective, as its launch.
constexpr double NCCL_NVLS_NVLINK_LATENCY_S = 25e-6;

/**
 * \ingroup ai-fabric
 * \brief NCCL's tuning-model latency of CollNet Direct (IB SHARP), Simple (src/graph/
 * tuning.cc): 2 (min(1, G-1) intraLat + 0.4 us (G-1)) + interLat, with hwLat NVLink 3.7 us and
 * NET 31 us (FACTS.md 3.7) and 0.4 us of "arity serialization" per local rank; charged once
 * per collective, as its launch.
 * \param localRanks G, ranks per server
 * \return seconds
 */
double NcclCollnetLatency(uint32_t localRanks);

/// NCCL_P2P_LL_THRESHOLD: point-to-point messages up to this size use LL, larger ones
/// Simple (NCCL src/enqueue.cc, FACTS.md 3.2), bytes.
constexpr uint64_t NCCL_P2P_LL_THRESHOLD = 16 * 1024;

/**
 * \ingroup ai-fabric
 * \param g a group of a point-to-point algorithm (transfers, matrix or uniform S/P)
 * \return its largest message to one peer, bytes
 */
uint64_t LargestPeerMessage(const WorkloadGroup& g);

/**
 * \ingroup ai-fabric
 * \param p a protocol other than AUTO
 * \return its profile
 */
const ProtocolProfile& GetProtocolProfile(Protocol p);

/**
 * \ingroup ai-fabric
 * \param p a protocol
 * \return its YAML name ("none", "simple", "ll", "ll128", "auto")
 */
std::string ProtocolName(Protocol p);

/**
 * \ingroup ai-fabric
 * \param name a YAML name
 * \param[out] p the protocol, if the name is known
 * \return true if known
 */
bool ProtocolFromName(const std::string& name, Protocol& p);

/**
 * \ingroup ai-fabric
 * \return every protocol name, in Protocol order
 */
std::vector<std::string> ProtocolNames();

/**
 * \ingroup ai-fabric
 * \brief The values a group gets from its protocol where the user gave none.
 */
struct ProtocolOverrides
{
    bool chunk{false};    //!< chunkBytes was given (else: the protocol's slot, if chunked)
    bool slots{false};    //!< slots was given (else NCCL_SLOTS, or none for NONE)
    bool launch{false};   //!< launchLatency was given
    bool hopIntra{false}; //!< hopLatencyIntra was given
    bool hopInter{false}; //!< hopLatencyInter was given
    bool channels{false}; //!< a channel count was given (else `channels: auto`; an algorithm
                          //!< `algorithm: auto` picks off NCCL's channels then runs on one)
};

/**
 * \ingroup ai-fabric
 * \brief Set a group's protocol and fill what it implies and the user did not give: the
 * chunk (the protocol's slot, for algorithms that pipeline), the slots, the launch latency
 * and the per-hop latencies (tree rows for `tree`, ring rows for every other algorithm,
 * as NCCL's point-to-point transfers are priced like its rings).
 * \param g the group (algorithm set); updated
 * \param p a protocol other than AUTO
 * \param given which values the user set
 */
void ApplyProtocol(WorkloadGroup& g, Protocol p, const ProtocolOverrides& given);

/**
 * \ingroup ai-fabric
 * \param algorithm an algorithm name
 * \param autoCandidates the protocols `auto` would choose among (AutoProtocolCandidates())
 * \return the protocols NCCL runs that algorithm with: Simple only for in-network reduction
 *         (NVLS; CollectiveCapabilities::inNetwork), else \p autoCandidates
 */
std::vector<Protocol> ProtocolsOf(const std::string& algorithm,
                                  const std::vector<Protocol>& autoCandidates);

/**
 * \ingroup ai-fabric
 * \brief The protocols ResolveProtocol() chooses among for AUTO, in order of preference
 * on equal times: Simple, LL128, LL.
 * \return the candidates
 */
std::vector<Protocol> AutoProtocolCandidates();

/**
 * \ingroup ai-fabric
 * \brief Resolves a group's protocol on a fabric (ResolveProtocol() with the fabric bound):
 * how a workload builder that knows no fabric gets `protocol: auto` chosen.
 */
using ProtocolResolver = std::function<void(WorkloadGroup&, const ProtocolOverrides&)>;

} // namespace ns3

#endif /* AI_FABRIC_NCCL_PROTOCOL_H */
