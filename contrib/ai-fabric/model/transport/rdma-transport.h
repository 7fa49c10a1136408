/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RDMA_TRANSPORT_H
#define AI_FABRIC_RDMA_TRANSPORT_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

struct FabricArrival;
struct FabricFields;
class FabricNetDevice;
class Packet;
class RdmaCongestionControl;
class RdmaRecoveryOps;
struct FabricTxItem;

/**
 * \ingroup ai-fabric
 * \brief The RDMA transport of one GPU endpoint: reliable-connection queue
 * pairs that cut messages (RDMA WRITEs) into MTU-sized packets.
 *
 * Sending: PostSend() appends a message to the queue pair (destination,
 * qp index). Every packet of a queue pair has a packet sequence number (PSN),
 * counted per queue pair across its messages; a message owns a contiguous
 * PSN range, so PSN -> (message, offset) is arithmetic and a retransmission
 * needs no stored packet (payload is virtual). The NIC port pulls packets
 * when it is free, and the transport serves its ready queue pairs round robin,
 * one packet each, so queue pairs share the NIC fairly. Packets are created
 * only when the port can send them.
 *
 * Loss recovery (attribute "RecoveryOps", a prototype RdmaRecoveryOps forked
 * per transport, the same kind at every endpoint of a fabric; null: NoRecovery):
 *  * NoRecovery (lossless fabrics: credit or PFC flow control): no ACKs; a
 *    message is forgotten once sent; the receiver counts bytes per message
 *    independent of arrival order, so per-packet spraying, which reorders, works.
 *  * GoBackNRecovery (lossy fabrics): cumulative ACKs, one NACK per gap,
 *    retransmission timeout with backoff, optional send window (its
 *    attributes AckInterval, SendWindow, RetransmitTimeout).
 * The transport keeps the queue pairs' messages and PSNs; the recovery decides
 * which arriving packets are accepted, which sent messages are kept until
 * acknowledged, and when a queue pair goes back. Either way MessageDelivered
 * fires exactly once per message.
 *
 * Congestion control (attribute "CongestionControl", a prototype
 * RdmaCongestionControl, e.g. Dcqcn; null: every queue pair at line rate):
 *  * notification point: data marked ECN CE makes the receiver send a CNP to
 *    the source queue pair at once if none went to it in the algorithm's
 *    interval, else when the interval ends (DCQCN: at most one CNP per 50 us
 *    per flow, if any packet in that window was marked);
 *  * reaction point: a queue pair gets its own controller (Fork()) at its
 *    first CNP; while its rate RC is below line rate it is paced: its next
 *    packet is due wireBytes * 8 / RC (at the rate in force when the previous
 *    one left) after the previous one was due, or was sent if that is more
 *    than one gap ago (one packet of catch-up, so that waiting behind other
 *    queue pairs for the port does not cost it its rate). Paced queue pairs
 *    wait in a min-heap of due times and join the round robin when due; when
 *    none is eligible the transport schedules one NIC wake-up at the earliest
 *    due time. Queue pairs at line rate cost no pacing events.
 *
 * Memory and events: per queue pair a deque of its unacknowledged (or
 * unsent) messages, no per-packet state; per packet at most one pacing
 * wake-up; per go-back-N queue pair one timer (in the recovery); an ACK per AckInterval
 * packets; a CNP per interval per marked queue pair. See docs/transport.md.
 *
 * ACK, NACK and CNP packets are queued on the NIC on ControlPriority.
 *
 * Observability (docs/results-format.md, qps.csv and timeseries.csv): data packets
 * received marked ECN CE are counted (and per source queue pair while congestion
 * control runs, beside the CNPs sent to it); a controlled queue pair's controller keeps
 * its CNPs, rate cuts and lowest rate; each port keeps its CNPs and the list of its
 * queue pairs below line rate, so a sampler reads their rates (GetPortRateSample())
 * without walking every queue pair. None of it adds an event or changes a packet.
 *
 * The transport does not know which collective a message belongs to.
 */
class RdmaTransport : public Object
{
  public:
    /**
     * \brief PSN order with wrap-around (serial number arithmetic, RFC 1982), for the 32-bit
     * PSNs packets carry: they wrap, as the 24-bit PSNs of InfiniBand and RoCE NICs do. The
     * sender counts its PSNs in 64 bits and puts the low 32 on the wire; the receiver and the
     * acknowledgements order them within a window of 2^31 packets (far more than a fabric
     * holds in flight), so a queue pair carries any number of packets over a run.
     * \param a a PSN
     * \param b a PSN
     * \return whether \p a comes before \p b
     */
    static bool PsnBefore(uint32_t a, uint32_t b)
    {
        return static_cast<int32_t>(a - b) < 0;
    }

    /**
     * \param near a sender's 64-bit PSN (its oldest unacknowledged one)
     * \param wire a 32-bit PSN from the wire (an ACK's or a NACK's), within 2^31 of \p near
     * \return the 64-bit PSN whose low 32 bits are \p wire, nearest to \p near
     */
    static uint64_t ExtendPsn(uint64_t near, uint32_t wire)
    {
        return near
               + static_cast<int64_t>(static_cast<int32_t>(wire - static_cast<uint32_t>(near)));
    }

    /// Most packets of one message (2^31 - 1): a message's packet count is a 32-bit field and
    /// its packets stay within the receiver's window. The scenario runner refuses a message
    /// that would need more, before simulating.
    static constexpr uint64_t MAX_MESSAGE_PACKETS = (1ULL << 31) - 1;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaTransport();
    ~RdmaTransport() override;
    RdmaTransport(const RdmaTransport&) = delete;
    RdmaTransport& operator=(const RdmaTransport&) = delete;

    /**
     * TracedCallback signature for a delivered message.
     * \param src source endpoint
     * \param dst destination endpoint (this one)
     * \param msgId the message id the source's PostSend returned
     * \param bytes payload bytes the receiver accepted for the message (counted packet by
     *        packet; equal to the posted size unless bytes were lost or duplicated)
     */
    typedef void (*MessageTracedCallback)(uint32_t src,
                                          uint32_t dst,
                                          uint32_t msgId,
                                          uint64_t bytes);
    /**
     * TracedCallback signature for a queue-pair event (CNP sent or received).
     * \param peer the other endpoint of the queue pair
     * \param qp the queue pair index at its sender
     */
    typedef void (*QpTracedCallback)(uint32_t peer, uint16_t qp);
    /**
     * TracedCallback signature for a PSN event (ACK/NACK sent or received,
     * retransmitted packet).
     * \param peer the other endpoint of the queue pair
     * \param qp the queue pair index at its sender
     * \param psn the PSN (for ACK/NACK: the receiver's next expected PSN)
     */
    typedef void (*PsnTracedCallback)(uint32_t peer, uint16_t qp, uint32_t psn);
    /**
     * TracedCallback signature for a go-back-N rewind at the sender.
     * \param peer the destination endpoint
     * \param qp the queue pair index
     * \param psn the PSN transmission restarts from
     * \param timeout true for a retransmission timeout, false for a NACK
     */
    typedef void (*GoBackTracedCallback)(uint32_t peer, uint16_t qp, uint32_t psn, bool timeout);
    /**
     * TracedCallback signature for a rate change of a queue pair.
     * \param peer the destination endpoint
     * \param qp the queue pair index
     * \param rate the new sending rate
     */
    typedef void (*RateTracedCallback)(uint32_t peer, uint16_t qp, DataRate rate);
    /**
     * TracedCallback signature for a message posted at this source (straggler attribution).
     * \param dst the destination endpoint
     * \param msgId the message's id at this source
     * \param bytes its payload bytes
     * \param port the index of the port it leaves by (GetPort())
     * \param portHeld the time flow control has held this transport's lane at that port so
     *        far (FabricNetDevice::GetHeldPs): a running total, whose difference between two
     *        events is the hold in between
     */
    typedef void (*MessagePostedTracedCallback)(uint32_t dst,
                                                uint32_t msgId,
                                                uint64_t bytes,
                                                uint32_t port,
                                                Time portHeld);
    /**
     * TracedCallback signature for a message's first packet leaving the source port.
     * \param msgId the message's id at this source
     * \param portHeld the port's held time so far (as MessagePostedTracedCallback's)
     */
    typedef void (*FirstPacketSentTracedCallback)(uint32_t msgId, Time portHeld);
    /**
     * TracedCallback signature for a message's last packet leaving the source port.
     * \param msgId the message's id at this source
     * \param idealInjection serialization of the message's packets before the last at the
     *        port's line rate
     * \param portHeld the port's held time so far (as MessagePostedTracedCallback's)
     */
    typedef void (*LastPacketSentTracedCallback)(uint32_t msgId,
                                                 Time idealInjection,
                                                 Time portHeld);
    /**
     * TracedCallback signature for a message whose last packet leaves the source (the first
     * time): the three parts of its timing at the sender (docs/results-format.md, "Message
     * timing").
     * \param msgId the message's id at this source
     * \param eligible when it became the head of its queue pair (posted, and the messages
     *        before it on the queue pair sent): from then on it could leave
     * \param firstByte when its first packet started leaving the source port
     * \param shared the time, from eligible to its last packet, that the port(s) spent
     *        sending other packets (other queue pairs in the round robin, control packets)
     *        while this queue pair waited for its turn; time the port was held by flow
     *        control or the queue pair was paced is not in it (for a striped queue pair: the
     *        mean over its ports)
     * \param sharedBeforeFirst the part of \p shared before its first packet
     * \param portHeldAtEligible its port's held time when it became eligible (as
     *        MessagePostedTracedCallback's portHeld)
     */
    typedef void (*MessageInjectedTracedCallback)(uint32_t msgId,
                                                  Time eligible,
                                                  Time firstByte,
                                                  Time shared,
                                                  Time sharedBeforeFirst,
                                                  Time portHeldAtEligible);

    /// The congestion-control figures of one sending queue pair that has a controller
    /// (GetControlledQueuePairs()).
    struct ControlledQueuePair
    {
        uint32_t dst{0};           //!< destination endpoint
        uint16_t qp{0};            //!< queue pair index
        uint64_t dataPackets{0};   //!< data packets its messages were cut into (PSNs used;
                                   //!< retransmissions not counted)
        uint64_t cnpsReceived{0};  //!< CNPs received (RdmaCongestionControl notifications)
        uint64_t rateCuts{0};      //!< changes of its rate to a lower one
        uint64_t rateIncreases{0}; //!< changes of its rate to a higher one
        uint64_t minRateBps{0};    //!< lowest rate it was held to, bits per second
        uint64_t rateBps{0};       //!< its rate now, bits per second
        uint64_t lineBps{0};       //!< its port's line rate, bits per second
    };

    /// The notification point's figures for one source queue pair that sent this endpoint
    /// data marked ECN CE while congestion control ran (GetNotifiedQueuePairs()).
    struct NotifiedQueuePair
    {
        uint32_t src{0};       //!< source endpoint
        uint16_t qp{0};        //!< queue pair index at the source
        uint64_t ecnMarked{0}; //!< data packets received from it marked CE
        uint64_t cnpsSent{0};  //!< CNPs sent to it
    };

    /// One port's sending rates and CNPs at an instant (GetPortRateSample()).
    struct PortRateSample
    {
        uint32_t limitedQps{0};   //!< queue pairs on the port whose rate is below line rate
        uint64_t minBps{0};       //!< the lowest of their rates (line rate when none)
        uint64_t sumBps{0};       //!< the sum of their rates, bits per second
        uint64_t lineBps{0};      //!< the port's line rate, bits per second
        uint64_t cnpsSent{0};     //!< CNPs sent out of this port so far
        uint64_t cnpsReceived{0}; //!< CNPs received so far for queue pairs on this port
    };

    /// Chooses the port of a new queue pair: (destination, qp index) -> port index.
    typedef Callback<uint32_t, uint32_t, uint16_t> PortSelector;
    /**
     * Chooses the ports a new queue pair stripes its packets over, packet by packet, as a
     * GPU spreads its traffic over all its NVLinks (one to each NVSwitch chip):
     * (destination, qp index) -> bit mask of port indexes (bit i: port i). A mask of fewer
     * than two ports keeps the queue pair on PortSelector's port.
     */
    typedef Callback<uint64_t, uint32_t, uint16_t> StripeSelector;

    /**
     * \brief Bind to the endpoint's one NIC port.
     * \param endpoint this endpoint's id (GPU index)
     * \param nic the NIC port
     * \param mtu payload bytes per packet (0: the NIC port's MTU)
     */
    void Setup(uint32_t endpoint, Ptr<FabricNetDevice> nic, uint32_t mtu = 0);

    /**
     * \brief Bind to an endpoint with several ports (NVLink and NIC). Each queue
     * pair stays on the port \p selector gives it; every port serves its queue
     * pairs round robin. Packets for this endpoint arrive through the node's
     * forwarding element, which calls GetReceiveCallback().
     * \param endpoint this endpoint's id (GPU index)
     * \param ports the ports
     * \param mtu payload bytes per packet
     * \param selector port choice per (destination, qp)
     * \param stripe ports a queue pair stripes over, per (destination, qp) (null: none).
     *        Striping needs a recovery that takes packets in any order (NoRecovery)
     *        and an endpoint of at most 64 ports; a striped queue pair that receives a
     *        CNP goes back to its selector's port, where the congestion control paces it.
     */
    void Setup(uint32_t endpoint,
               const std::vector<Ptr<FabricNetDevice>>& ports,
               uint32_t mtu,
               PortSelector selector,
               StripeSelector stripe = StripeSelector());

    /// \return the handler for packets addressed to this endpoint
    Callback<void, FabricNetDevice*, FabricArrival&> GetReceiveCallback();

    /**
     * \brief Post an RDMA WRITE.
     * \param dst destination endpoint
     * \param qp queue pair index towards dst (messages on one queue pair are sent in order)
     * \param bytes payload bytes (0 sends one header-only packet)
     * \return the message id, unique at this endpoint, dense from 0
     */
    uint32_t PostSend(uint32_t dst, uint16_t qp, uint64_t bytes);

    /// \return this endpoint's id
    uint32_t GetEndpoint() const;
    /// \return the NIC port
    Ptr<FabricNetDevice> GetNic() const;
    /// \return number of ports the transport sends on
    uint32_t GetNPorts() const;
    /// \param i a port index \return the port
    Ptr<FabricNetDevice> GetPort(uint32_t i) const;
    /**
     * \brief Adopt a loss recovery (the "RecoveryOps" attribute's setter); before the
     * first PostSend.
     * \param ops the prototype, forked for this transport (null: NoRecovery)
     */
    void SetRecoveryOps(Ptr<RdmaRecoveryOps> ops);
    /// \return this transport's loss recovery (its own fork of the prototype)
    Ptr<RdmaRecoveryOps> GetRecoveryOps() const;
    /// \return payload bytes posted
    uint64_t GetBytesPosted() const;
    /// \return payload bytes received (accepted) in completed and partial messages
    uint64_t GetBytesReceived() const;
    /// \return messages received completely
    uint64_t GetMessagesDelivered() const;
    /// \return messages partly received
    uint64_t GetMessagesInProgress() const;
    /// \return data packets transmitted, retransmissions included
    uint64_t GetDataPacketsSent() const;
    /// \return data packets transmitted again (go-back-N)
    uint64_t GetRetransmittedPackets() const;
    /// \return retransmission timeouts that rewound a queue pair
    uint64_t GetTimeouts() const;
    /// \return ACKs sent
    uint64_t GetAcksSent() const;
    /// \return NACKs sent
    uint64_t GetNacksSent() const;
    /// \return ACKs received
    uint64_t GetAcksReceived() const;
    /// \return NACKs received
    uint64_t GetNacksReceived() const;
    /// \return CNPs sent (notification point)
    uint64_t GetCnpsSent() const;
    /// \return CNPs received (reaction point)
    uint64_t GetCnpsReceived() const;
    /// \return data packets dropped at this receiver for arriving ahead of the expected PSN
    uint64_t GetOutOfOrderDrops() const;
    /// \return data packets dropped at this receiver as duplicates
    uint64_t GetDuplicateDrops() const;
    /// \return rate changes of all queue pairs
    uint64_t GetRateChanges() const;
    /// \return rate changes to a lower rate (cuts), all queue pairs
    uint64_t GetRateCuts() const;
    /// \return data packets received marked ECN CE (with or without congestion control)
    uint64_t GetEcnMarkedReceived() const;
    /// \return the congestion-control prototype (null: none)
    Ptr<RdmaCongestionControl> GetCongestionControl() const;
    /**
     * \return the sending queue pairs that have a congestion controller (those that
     * received a CNP), in creation order
     */
    std::vector<ControlledQueuePair> GetControlledQueuePairs() const;
    /**
     * \return per source queue pair that sent marked data while congestion control ran,
     * the marks and the CNPs sent to it, in no particular order
     */
    std::vector<NotifiedQueuePair> GetNotifiedQueuePairs() const;
    /**
     * \brief A port's rates now: walks only its queue pairs below line rate.
     * \param port a port index
     * \return the sample
     */
    PortRateSample GetPortRateSample(uint32_t port) const;
    /**
     * \param dst destination endpoint
     * \param qp queue pair index
     * \return the queue pair's current sending rate (line rate if uncontrolled or unknown)
     */
    DataRate GetQueuePairRate(uint32_t dst, uint16_t qp) const;
    /**
     * \param dst destination endpoint
     * \param qp queue pair index
     * \return the queue pair's congestion controller (null before its first CNP)
     */
    Ptr<RdmaCongestionControl> GetQueuePairCongestionControl(uint32_t dst, uint16_t qp) const;
    /**
     * \brief Payload bytes accepted so far of a message not yet delivered (for stall
     * reports; walks the receiver state, not for the packet path).
     * \param src the source endpoint
     * \param msgId the message id its PostSend returned
     * \return the bytes accepted (0 if none, or if the message is already delivered)
     */
    uint64_t GetPartialBytes(uint32_t src, uint32_t msgId) const;

  protected:
    void DoDispose() override;

  private:
    friend class RdmaRecoveryOps; // acts on the queue pairs through its protected helpers

    /// A message of a queue pair: its PSN range, and when it could and did leave.
    struct OutMessage
    {
        uint64_t bytes;              //!< payload bytes
        uint64_t firstPsn;           //!< PSN of its first packet (64-bit: the sender's count)
        uint32_t msgId;              //!< message id
        uint32_t packets;            //!< number of packets
        int64_t eligiblePs{-1};      //!< when it became its queue pair's head, ps (-1: not yet)
        int64_t firstPs{-1};         //!< when its first packet started leaving, ps (-1: not yet)
        int64_t sharedPs{0};         //!< port time on other packets while it waited in the ring, ps
        int64_t sharedFirstPs{0};    //!< of which before its first packet, ps
        int64_t heldAtEligiblePs{0}; //!< its port's held-time counter when it became eligible
        bool injected{false};        //!< its last packet has left once (MessageInjected fired)
    };

    /// Where a queue pair waits to send.
    enum Schedule : uint8_t
    {
        IDLE = 0,    //!< nothing to send
        IN_RING = 1, //!< eligible: in the round-robin ring
        IN_HEAP = 2, //!< paced: in the heap of eligible times
    };

    /// A queue pair to one destination (sender side).
    struct QueuePair
    {
        uint32_t dst{0};                  //!< destination endpoint
        uint16_t qp{0};                   //!< qp index
        uint8_t sched{IDLE};              //!< Schedule
        uint32_t port{0};                 //!< index in m_ports
        uint32_t limitedPos{NOT_LIMITED}; //!< index in its port's `limited` (or NOT_LIMITED)
        uint64_t stripe{0};               //!< ports it stripes over, a bit each (0: only port)
        uint64_t inRings{0};              //!< striped: the ports whose ring holds it, a bit each
        std::deque<OutMessage> msgs;   //!< messages the recovery keeps (unsent or unacknowledged)
        std::size_t sendIdx{0};        //!< index in msgs of the message holding sndNxt
        uint64_t nextPsn{0};           //!< PSN of the next posted packet (64-bit count)
        uint64_t sndNxt{0};            //!< next PSN to transmit
        uint64_t sndBase{0};           //!< send window: its first PSN (set by the recovery)
        uint32_t window{0};            //!< send window: packets from sndBase (0: no cap)
        uint64_t paceBps{0};           //!< pacing rate, bits per second (0: line rate)
        Time nextSend;                 //!< paced: when its next packet may leave
        Ptr<RdmaCongestionControl> cc; //!< rate controller (after the first CNP)
        /// Round-robin wait accounting (MessageInjected's shared time) on its port: the
        /// port's busy time when the queue pair joined the ring or was last served, ps
        /// (-1: never)
        int64_t waitMarkPs{-1};
        uint32_t lastWire{0}; //!< wire bytes it was last served (0: it joined the ring since)
        /// A striped queue pair's accounting per port (index = port), as waitMarkPs and
        /// lastWire (empty unless striped)
        std::vector<std::pair<int64_t, uint32_t>> stripeWait;
    };

    /// QueuePair::limitedPos of a queue pair at line rate.
    static constexpr uint32_t NOT_LIMITED = UINT32_MAX;

    /// Notification-point state per (source, queue pair).
    struct RxQueuePair
    {
        Time lastCnp{-1};     //!< last CNP sent (negative: none)
        EventId cnpTimer;     //!< CNP due at the end of the interval (marks meanwhile)
        uint64_t marked{0};   //!< data packets received marked CE
        uint64_t cnpsSent{0}; //!< CNPs sent to the queue pair
    };

    /// A paced queue pair's eligible time, in the min-heap.
    struct PaceEntry
    {
        int64_t at;   //!< eligible time, time steps
        uint64_t seq; //!< insertion order (ties)
        uint32_t qi;  //!< index in m_qps
    };

    /// Min-heap order of PaceEntry.
    struct PaceLater
    {
        /**
         * \param a an entry
         * \param b an entry
         * \return true if a is due after b
         */
        bool operator()(const PaceEntry& a, const PaceEntry& b) const
        {
            return a.at != b.at ? a.at > b.at : a.seq > b.seq;
        }
    };

    /// One port: its round robin of queue pairs and its paced heap.
    struct Port
    {
        Ptr<FabricNetDevice> dev;      //!< the port
        uint64_t lineBps{0};           //!< its data rate, bits per second
        std::deque<uint32_t> ring;     //!< eligible queue pairs, round robin
        std::vector<PaceEntry> paced;  //!< paced queue pairs, min-heap
        EventId wake;                  //!< pending wake-up
        int64_t wakeAt{0};             //!< its time, time steps
        std::vector<uint32_t> limited; //!< queue pairs below line rate (observers' list)
        uint64_t cnpsSent{0};          //!< CNPs sent out of this port
        uint64_t cnpsReceived{0};      //!< CNPs received for queue pairs on this port
        uint32_t serialWire{0};        //!< SerializationPs()'s last wire bytes (a cache: most
        int64_t serialPs{0};           //!< packets are full) and their serialization, ps
    };

    /**
     * \brief Attach a port (pull source on it).
     * \param dev the port
     */
    void AddPort(Ptr<FabricNetDevice> dev);
    /**
     * \param dst destination endpoint
     * \param qp qp index
     * \return the port a queue pair (or a control packet) towards dst uses
     */
    uint32_t PortFor(uint32_t dst, uint16_t qp) const;
    /**
     * \brief Pull source of a port.
     * \param port the port index
     * \param item filled with the next packet
     * \return true if a packet was produced
     */
    bool Pull(uint32_t port, FabricTxItem& item);
    /**
     * \brief Make the next packet of a queue pair and advance it.
     * \param qi index in m_qps
     * \param item filled with the packet
     * \param port the port it leaves by
     * \param nowPs the time, ps
     */
    void MakePacket(uint32_t qi, FabricTxItem& item, uint32_t port, int64_t nowPs);
    /**
     * \brief A message becomes the head of its queue pair: from now on it can leave.
     * \param q its queue pair
     * \param m the message
     * \param nowPs when it becomes the head, ps
     */
    void MakeEligible(const QueuePair& q, OutMessage& m, int64_t nowPs);
    /**
     * \param wireBytes a packet's wire bytes
     * \param port a port index
     * \return its serialization at the port's line rate, ps (rounded down)
     */
    int64_t SerializationPs(uint32_t wireBytes, uint32_t port);
    /**
     * \brief A queue pair joins a port's round robin (not right after being served there):
     * start its wait accounting on that port.
     * \param q the queue pair
     * \param port the port index
     */
    void MarkRingEntry(QueuePair& q, uint32_t port);
    /**
     * \brief Move a port's paced queue pairs due by now into its ring.
     * \param port the port
     * \param now the current time
     */
    void ReleasePaced(Port& port, Time now);
    /**
     * \param q a queue pair
     * \return true if it has a packet to send now (data, and room in the send window)
     */
    bool CanSend(const QueuePair& q) const;
    /**
     * \brief Put a queue pair into the heap of paced queue pairs.
     * \param qi index in m_qps
     * \param at when it becomes eligible
     */
    void PushPaced(uint32_t qi, Time at);
    /**
     * \brief Have a port pull again at a time (one pending wake-up per port at most).
     * \param port the port index
     * \param at the time, time steps
     */
    void ScheduleWake(uint32_t port, int64_t at);
    /**
     * \brief The wake-up: tell a port packets are ready.
     * \param port the port index
     */
    void WakeNic(uint32_t port);
    /**
     * \brief Put a queue pair with data to send into the ring if it waits nowhere.
     * \param qi index in m_qps
     */
    void Activate(uint32_t qi);
    /**
     * \brief A striped queue pair with data to send joins the ring of every port it
     * stripes over that does not hold it yet.
     * \param qi index in m_qps
     */
    void ActivateStriped(uint32_t qi);
    /**
     * \brief Pull's turn for a striped queue pair taken from a port's ring.
     * \param qi index in m_qps
     * \param index the port
     * \param item filled with its next packet
     * \param nowPs the time, ps
     * \return true if a packet was made
     */
    bool PullStriped(uint32_t qi, uint32_t index, FabricTxItem& item, int64_t nowPs);
    /**
     * \brief A message's first or last packet is being sent: fire FirstPacketSent and
     * LastPacketSent (when they have sinks).
     * \param q its queue pair
     * \param m the message
     * \param h the packet's header
     * \param first it is the message's first packet
     * \param last it is the message's last packet
     * \param port the port it leaves by
     */
    void NotifyInjected(const Port& port,
                        const OutMessage& m,
                        const FabricFields& h,
                        bool first,
                        bool last);
    /**
     * \brief Restart transmission of a queue pair at a PSN.
     * \param q the queue pair
     * \param psn the PSN (sndUna <= psn <= nextPsn)
     */
    void SeekSend(QueuePair& q, uint64_t psn);
    /**
     * \brief A queue pair's controller changed its rate.
     * \param qi index in m_qps
     * \param rate the new rate
     */
    void RateChanged(uint32_t qi, DataRate rate);

    /**
     * \brief Handle a packet arriving at the NIC.
     * \param nic the NIC port
     * \param arrival the packet with its header
     */
    void Receive(FabricNetDevice* nic, FabricArrival& arrival);
    /**
     * \brief Receiver: a data packet (header already parsed).
     * \param h its header
     */
    void ReceiveData(const FabricFields& h);
    /**
     * \brief A message is complete: count it and fire MessageDelivered.
     * \param h the header of the packet that completed it
     * \param bytes payload bytes accepted for it
     */
    void Deliver(const FabricFields& h, uint64_t bytes);
    /**
     * \brief Receiver: send a CNP for a data packet marked ECN CE, unless one
     * went to its queue pair less than the notification interval ago.
     * \param rx the queue pair's receiver state
     * \param h the data packet's header
     */
    void MaybeSendCnp(RxQueuePair& rx, const FabricFields& h);
    /**
     * \brief Receiver: the CNP interval of a queue pair that saw marks during it ended.
     * \param src the data's source endpoint
     * \param qp the queue pair index at the source
     */
    void SendDeferredCnp(uint32_t src, uint16_t qp);
    /**
     * \brief Sender: an ACK or NACK.
     * \param h its header
     */
    void ReceiveAck(const FabricFields& h);
    /**
     * \brief Sender: a CNP.
     * \param h its header
     */
    void ReceiveCnp(const FabricFields& h);
    /**
     * \brief Queue a control packet on the NIC.
     * \param kind FabricHeader::ACK, NACK or CNP
     * \param peer destination endpoint (the data's source)
     * \param qp the queue pair index at the data's source
     * \param psn the PSN field
     */
    void SendControl(uint8_t kind, uint32_t peer, uint16_t qp, uint32_t psn);
    /**
     * \param peer an endpoint
     * \param qp a queue pair index
     * \return the key of (peer, qp) in the queue-pair maps
     */
    static uint64_t Key(uint32_t peer, uint16_t qp);

    // Configuration.
    uint32_t m_endpoint{0};          //!< endpoint id
    std::vector<Port> m_ports;       //!< ports (one NIC, or NVLink and NIC)
    int64_t m_psPerStep{1};          //!< picoseconds per simulator time step
    PortSelector m_selector;         //!< port choice (null: port 0)
    StripeSelector m_stripe;         //!< striping ports (null: none)
    uint32_t m_mtu{4096};            //!< payload MTU, bytes
    uint8_t m_priority{0};           //!< lane of data packets
    uint8_t m_controlPriority{0};    //!< lane of ACK/NACK/CNP
    Ptr<RdmaRecoveryOps> m_recovery; //!< loss recovery (this transport's own)
    Ptr<RdmaCongestionControl> m_cc; //!< congestion-control prototype (null: none)

    // Sender.
    uint32_t m_nextMsgId{0};                          //!< next message id
    std::vector<QueuePair> m_qps;                     //!< queue pairs
    std::unordered_map<uint64_t, uint32_t> m_qpIndex; //!< (dst, qp) -> index in m_qps
    uint64_t m_paceSeq{0};                            //!< insertion counter of the heaps

    // Receiver.
    std::unordered_map<uint64_t, RxQueuePair> m_rxQps; //!< (src, qp) -> CNP state

    // Counters.
    uint64_t m_bytesPosted{0};       //!< payload bytes posted
    uint64_t m_bytesReceived{0};     //!< payload bytes received
    uint64_t m_messagesDelivered{0}; //!< messages delivered
    uint64_t m_dataSent{0};          //!< data packets sent
    uint64_t m_retransmitted{0};     //!< data packets sent again
    uint64_t m_acksSent{0};          //!< ACKs sent
    uint64_t m_nacksSent{0};         //!< NACKs sent
    uint64_t m_acksReceived{0};      //!< ACKs received
    uint64_t m_nacksReceived{0};     //!< NACKs received
    uint64_t m_cnpsSent{0};          //!< CNPs sent
    uint64_t m_cnpsReceived{0};      //!< CNPs received
    uint64_t m_rateChanges{0};       //!< rate changes
    uint64_t m_rateCuts{0};          //!< rate changes to a lower rate
    uint64_t m_ecnMarked{0};         //!< data packets received marked CE

    // Traces.
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t> m_messageDelivered; //!< delivery
    TracedCallback<uint32_t, uint16_t> m_cnpSentTrace;                         //!< CNP sent
    TracedCallback<uint32_t, uint16_t> m_cnpReceivedTrace;                     //!< CNP received
    TracedCallback<uint32_t, uint16_t, uint32_t> m_ackSentTrace;               //!< ACK sent
    TracedCallback<uint32_t, uint16_t, uint32_t> m_nackSentTrace;              //!< NACK sent
    TracedCallback<uint32_t, uint16_t, uint32_t> m_ackReceivedTrace;           //!< ACK received
    TracedCallback<uint32_t, uint16_t, uint32_t> m_nackReceivedTrace;          //!< NACK received
    TracedCallback<uint32_t, uint16_t, uint32_t> m_retransmitTrace;   //!< packet sent again
    TracedCallback<uint32_t, uint16_t, uint32_t, bool> m_goBackTrace; //!< rewind
    TracedCallback<uint32_t, uint16_t, DataRate> m_rateTrace;         //!< rate change
    /// a message was posted
    TracedCallback<uint32_t, uint32_t, uint64_t, uint32_t, Time> m_messagePostedTrace;
    TracedCallback<uint32_t, Time> m_firstPacketSentTrace;      //!< a first packet leaves
    TracedCallback<uint32_t, Time, Time> m_lastPacketSentTrace; //!< a last packet leaves
    /// a message has left (its timing at the sender)
    TracedCallback<uint32_t, Time, Time, Time, Time, Time> m_messageInjectedTrace;
};

} // namespace ns3

#endif /* AI_FABRIC_RDMA_TRANSPORT_H */
