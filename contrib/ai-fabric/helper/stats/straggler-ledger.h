/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_STRAGGLER_LEDGER_H
#define AI_FABRIC_STRAGGLER_LEDGER_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class FabricNetDevice;
struct FabricFields;
class RdmaTransport;

/**
 * \ingroup ai-fabric
 * \brief Where the extra delay of every message came from: the per-hop waits of
 * its last packet and the delay of its injection at the source (straggler
 * attribution, docs/results-format.md "Straggler attribution").
 *
 * A message completes when its last packet arrives (in-order delivery), so, counted from
 * when it became eligible (the head of its queue pair: docs/results-format.md, "Message
 * timing"),
 *   FCT = (last packet injected - eligible) + transit of the last packet, and
 *   transit = unloaded path latency + sum over hops of the last packet's wait.
 * With ideal injection = serialization of every packet before the last at the
 * source port's line rate, and shared = the source port's time on the sender's other
 * packets while the message waited for its turn (the sender's own traffic, not the fabric),
 * the message's extra delay over its ideal FCT (ideal injection + unloaded path latency) is
 *   extra = (injection - shared - ideal injection) + sum of the last packet's waits.
 * The ledger records those terms; the wait at a hop is split into time its lane
 * was held by flow control (PFC pause, credit stall) and plain queueing.
 *
 * It is fed by trace sources (ConnectPort, ConnectTransport; FabricStatsHelper connects a
 * whole fabric): every port's LastPacketDequeue, every transport's MessagePosted,
 * FirstPacketSent, LastPacketSent and MessageInjected. Cost: nothing per packet when no ledger is
 * connected (a flag test per queued packet, the switch flags last packets in
 * FabricTxItem::lastOfMessage, and an empty-list test for those). When on: per message one
 * record, per hop of its last packet one entry in a shared pool (amortized allocation-free);
 * no events, no random draws, so the simulation is identical with and without it.
 */
class StragglerLedger
{
  public:
    static constexpr uint32_t NONE = UINT32_MAX; //!< no entry / no port

    /// One hop of a message's last packet: an egress port it waited at.
    struct Hop
    {
        uint32_t port{NONE}; //!< ledger port id (2 x link + end)
        uint32_t next{NONE}; //!< next hop of the same message in the pool
        int64_t waitPs{0};   //!< time from enqueue to transmission start, ps
        int64_t holdPs{0};   //!< of which the lane was held by flow control, ps
    };

    /// One message.
    struct Message
    {
        int64_t postPs{-1};        //!< when it was posted, ps (-1: unknown message)
        int64_t firstPs{-1};       //!< when its first packet left the source port, ps (-1: not yet)
        int64_t holdFirstPs{0};    //!< source port's held-time counter then, ps
        int64_t injectPs{-1};      //!< when its last packet left the source port, ps (-1: not yet)
        int64_t idealInjectPs{0};  //!< line-rate serialization of the packets before the last, ps
        int64_t holdMarkPs{0};     //!< source port's held-time counter at post, ps
        int64_t sourceHoldPs{0};   //!< source port held by flow control while injecting, ps
        int64_t eligiblePs{-1};    //!< when it became its queue pair's head, ps (-1: unknown)
        int64_t heldEligiblePs{0}; //!< source port's held-time counter then, ps
        int64_t sharedPs{0};       //!< source port's time on the sender's other packets, ps
        int64_t sharedFirstPs{0};  //!< of which before its first packet, ps
        uint32_t sourcePort{NONE}; //!< ledger port id of the source port
        uint32_t head{NONE};       //!< first hop in the pool
        uint32_t tail{NONE};       //!< last hop in the pool
    };

    /// \param endpoints number of endpoints (sources)
    explicit StragglerLedger(uint32_t endpoints);

    /**
     * \brief Record the waits of messages' last packets at a port: connect to its
     * LastPacketDequeue trace source. The ledger must outlive the run.
     * \param device the port
     * \param port its ledger port id
     */
    void ConnectPort(Ptr<FabricNetDevice> device, uint32_t port);

    /**
     * \brief Record the messages of a source: connect to its transport's MessagePosted,
     * FirstPacketSent and LastPacketSent trace sources. The ledger must outlive the run.
     * \param transport the transport (its endpoint id is the source)
     * \param ports the ledger port id of each of its ports, by RdmaTransport::GetPort index
     */
    void ConnectTransport(Ptr<RdmaTransport> transport, std::vector<uint32_t> ports);

    /**
     * \brief A message was posted.
     * \param src source endpoint
     * \param msgId its id at the source (dense from 0)
     * \param port ledger port id of the source port
     * \param nowPs the time, ps
     * \param holdMarkPs the source port's held-time counter now, ps
     */
    void OnPost(uint32_t src, uint32_t msgId, uint32_t port, int64_t nowPs, int64_t holdMarkPs);

    /**
     * \brief The message's first packet starts leaving the source port (the first time).
     * \param src source endpoint
     * \param msgId message id
     * \param nowPs the time, ps
     * \param holdNowPs the source port's held-time counter now, ps
     */
    void OnFirstInjected(uint32_t src, uint32_t msgId, int64_t nowPs, int64_t holdNowPs);

    /**
     * \brief The message's last packet starts leaving the source port (again, after
     * a go-back-N rewind: the hops of earlier copies are forgotten).
     * \param src source endpoint
     * \param msgId message id
     * \param nowPs the time, ps
     * \param idealInjectPs line-rate serialization of the packets before the last, ps
     * \param holdNowPs the source port's held-time counter now, ps
     */
    void OnLastInjected(uint32_t src,
                        uint32_t msgId,
                        int64_t nowPs,
                        int64_t idealInjectPs,
                        int64_t holdNowPs);

    /**
     * \brief The message's last packet starts leaving an egress port after waiting.
     * \param src source endpoint
     * \param msgId message id
     * \param port ledger port id
     * \param waitPs its wait there, ps
     * \param holdPs of which flow control held its lane, ps
     */
    void OnHop(uint32_t src, uint32_t msgId, uint32_t port, int64_t waitPs, int64_t holdPs);

    /**
     * \param src source endpoint
     * \param msgId message id
     * \return the message's record, or nullptr if none
     */
    const Message* Find(uint32_t src, uint32_t msgId) const;

    /**
     * \param index a pool index (Message::head or Hop::next)
     * \return the hop
     */
    const Hop& GetHop(uint32_t index) const;

    /// \return number of endpoints
    uint32_t GetEndpoints() const;
    /// \param src an endpoint \return messages recorded for it
    uint32_t GetMessages(uint32_t src) const;

  private:
    /**
     * \brief Sink of a transport's MessagePosted: OnPost now.
     * \param src the transport's endpoint (bound)
     * \param dst the destination
     * \param msgId the message id
     * \param bytes its payload bytes
     * \param port the transport's port index
     * \param portHeld that port's held time so far
     */
    void MessagePosted(uint32_t src,
                       uint32_t dst,
                       uint32_t msgId,
                       uint64_t bytes,
                       uint32_t port,
                       Time portHeld);
    /**
     * \brief Sink of a transport's FirstPacketSent: OnFirstInjected now.
     * \param src the transport's endpoint (bound)
     * \param msgId the message id
     * \param portHeld the source port's held time so far
     */
    void FirstPacketSent(uint32_t src, uint32_t msgId, Time portHeld);
    /**
     * \brief Sink of a transport's LastPacketSent: OnLastInjected now.
     * \param src the transport's endpoint (bound)
     * \param msgId the message id
     * \param idealInjection line-rate serialization of the packets before the last
     * \param portHeld the source port's held time so far
     */
    void LastPacketSent(uint32_t src, uint32_t msgId, Time idealInjection, Time portHeld);
    /**
     * \brief Sink of a transport's MessageInjected: the message's eligible time and shared
     * port time.
     * \param src the transport's endpoint (bound)
     * \param msgId the message id
     * \param eligible when it became its queue pair's head
     * \param firstByte when its first packet left (unused: FirstPacketSent has it)
     * \param shared the port's time on other packets while it waited its turn
     * \param sharedBeforeFirst of which before its first packet
     * \param portHeldAtEligible the port's held time when it became eligible
     */
    void MessageInjected(uint32_t src,
                         uint32_t msgId,
                         Time eligible,
                         Time firstByte,
                         Time shared,
                         Time sharedBeforeFirst,
                         Time portHeldAtEligible);
    /**
     * \brief Sink of a port's LastPacketDequeue: OnHop.
     * \param port the ledger port id (bound)
     * \param header the packet's header
     * \param wait its wait at the port
     * \param held of which flow control held its lane
     */
    void LastPacketDequeue(uint32_t port, const FabricFields& header, Time wait, Time held);

    std::vector<std::vector<uint32_t>> m_sourcePorts; //!< [src][transport port]: ledger port id
    std::vector<std::vector<Message>> m_messages;     //!< [src][msgId]
    std::vector<Hop> m_pool;                          //!< hops of every message, linked per message
};

} // namespace ns3

#endif /* AI_FABRIC_STRAGGLER_LEDGER_H */
