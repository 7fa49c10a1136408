/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_NET_DEVICE_H
#define AI_FABRIC_FABRIC_NET_DEVICE_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-event.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/fabric-header.h"
#include "ns3/mac48-address.h"
#include "ns3/move-ptr.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/queue-depth-histogram.h"
#include "ns3/ring-queue.h"
#include "ns3/serialization-clock.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <vector>

namespace ns3
{

class FabricChannel;
class Node;

/**
 * \ingroup ai-fabric
 * \brief One packet ready for transmission, with its size on the wire.
 */
struct FabricTxItem
{
    static constexpr uint16_t NO_PORT = UINT16_MAX; //!< not from a switch ingress port

    MovePtr<Packet> packet;    //!< its ns-3 Packet, once an observer needed one (MaterializePacket)
    FabricFields header;       //!< the packet's FabricHeader, parsed (equal to its bytes)
    uint32_t wireBytes{0};     //!< bytes it occupies on the wire, link overhead included
    uint8_t priority{0};       //!< traffic class; higher is served first
    bool more{false};          //!< set by a pull source: it has further packets ready
    uint16_t inPort{NO_PORT};  //!< switch ingress port the packet is charged to
    uint32_t inBytes{0};       //!< wire bytes charged at that ingress port
    uint8_t inPriority{0};     //!< class it arrived in at that ingress port (may differ)
    bool lastOfMessage{false}; //!< a DATA packet with FLAG_LAST (set by the switch)
    /// For the LastPacketDequeue trace only (stamped while it has a sink, on a message's last
    /// packet): when it joined the egress queue, ps
    int64_t enqueuedPs{0};
    /// For the LastPacketDequeue trace only: its lane's held-time counter then, ps
    int64_t holdMarkPs{0};
};

/**
 * \ingroup ai-fabric
 * \brief Give a packet on the path its ns-3 Packet, FabricHeader bytes included, before
 * something reads it (a trace sink, a capture, a generic receive callback).
 *
 * The packet path carries a packet as its FabricFields and sizes (FabricTxItem,
 * FabricArrival); the ns-3 Packet object (payload bytes, then the header's) is made only when
 * an observer needs it, at the first such point, and then travels with the packet, so that
 * later observers see the same object. A run nobody observes allocates nothing per packet.
 * \param packet the packet's Packet: null (made here), payload only (the header is added), or
 *        complete (left as it is)
 * \param header its header
 */
void MaterializePacket(MovePtr<Packet>& packet, const FabricFields& header);

/**
 * \ingroup ai-fabric
 * \brief A packet arriving at a port: what a FabricChannel hands over, and what the port
 * hands its receive handler (a switch or a transport).
 */
struct FabricArrival
{
    MovePtr<Packet> packet; //!< the packet (as FabricTxItem's); a handler may take it
    FabricFields header;    //!< the packet's FabricHeader, parsed (equal to its bytes)
    uint32_t wireBytes{0};  //!< its size on the wire of the link it arrived on
    uint8_t priority{0};    //!< the traffic class it arrived in
};

/**
 * \ingroup ai-fabric
 * \brief A port of a GPU NIC or of a switch, on one FabricChannel.
 *
 * Egress: one FIFO lane per priority (virtual lane or traffic class), served
 * in strict priority order (highest class first), fed by Enqueue()/Send(); for NIC ports an
 * optional pull source (the RDMA transport) is served on its lane when the queues have nothing
 * eligible, so that a long message exists only as the packets in flight. A lane may be closed by
 * the port's flow control, a FabricFlowControl strategy selected by the "FlowControl" attribute
 * (NoFlowControl by default; CreditFlowControl per virtual lane; PfcFlowControl per class),
 * which also owns the held-time (stall, pause) accounting.
 * One event per transmitted packet at most: a port that becomes free with
 * nothing eligible schedules nothing; credits, resumes and new packets restart it.
 *
 * Every interaction across the cable goes through a virtual FabricChannel method: the packet
 * (FabricChannel::Transmit), credits returned (ReturnCreditsToPeer, FabricChannel::ReturnCredits)
 * and PFC frames (SendPauseToPeer, FabricChannel::SendPause).
 *
 * Serialization time = wire bytes * 8 / DataRate, computed in integers with a
 * carried remainder (SerializationClock), so a stream of packets is exact to the picosecond.
 * A switch ingress port with CutThrough hands a packet on once its first 64
 * bytes have arrived instead of its last.
 *
 * Conservation: enqueued = transmitted + queued; credits held + credits in
 * the peer's buffer + credits in flight = credits advertised.
 */
class FabricNetDevice : public NetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricNetDevice();
    ~FabricNetDevice() override;
    FabricNetDevice(const FabricNetDevice&) = delete;
    FabricNetDevice& operator=(const FabricNetDevice&) = delete;

    /// The port's counters (GetStats()).
    struct Stats
    {
        uint64_t txPackets{0};       //!< packets transmitted
        uint64_t txWireBytes{0};     //!< wire bytes transmitted
        Time busyTime;               //!< time spent serializing packets
        uint64_t drops{0};           //!< packets dropped at this port
        uint64_t peakQueuedBytes{0}; //!< peak wire bytes waiting in the egress lanes
        uint64_t ecnMarks{0};        //!< packets marked CE on their way out of this port
        uint64_t pausesReceived{0};  //!< pause frames (XOFF) received
        uint64_t pausesSent{0};      //!< pause frames (XOFF) sent
        Time pausedTime;             //!< time lanes were paused (summed over lanes), up to now
        Time stallTime; //!< time the port had packets waiting but flow control let none go
    };

    /// Receive handler: (receiving device, the packet with its header, wire size and class).
    typedef Callback<void, FabricNetDevice*, FabricArrival&> FabricReceiveCallback;
    /// Pull source: fills the item and returns true if a packet is ready.
    typedef Callback<bool, FabricTxItem&> PullCallback;
    /// Told when a queued packet starts transmission (a switch releases its buffer).
    typedef Callback<void, const FabricTxItem&> DequeueCallback;

    /**
     * TracedCallback signature for a transmission start.
     * \param packet the packet
     * \param wireBytes its wire size, bytes
     */
    typedef void (*TxTracedCallback)(Ptr<const Packet> packet, uint32_t wireBytes);
    /**
     * TracedCallback signature for a transmission start, without a Packet.
     * \param header the packet's header fields
     * \param wireBytes its wire size, bytes
     */
    typedef void (*TxFieldsTracedCallback)(const FabricFields& header, uint32_t wireBytes);
    /**
     * TracedCallback signature for pause state changes of a lane.
     * \param priority the lane
     * \param paused true when paused, false when resumed
     */
    typedef void (*PauseTracedCallback)(uint8_t priority, bool paused);
    /**
     * TracedCallback signature for a message's first packet joining an egress queue.
     * \param header its header
     */
    typedef void (*FirstPacketEnqueueTracedCallback)(const FabricFields& header);
    /**
     * TracedCallback signature for a message's last packet starting transmission from the
     * egress queue (straggler attribution: the per-hop waits of the packet that decides when
     * its message completes).
     * \param header the packet's header (source endpoint, message id, ...)
     * \param wait its time in this port's egress queue
     * \param held of which its lane was held by flow control (PFC pause, credit stall)
     */
    typedef void (*LastPacketDequeueTracedCallback)(const FabricFields& header,
                                                    Time wait,
                                                    Time held);

    /**
     * \brief Attach to a channel.
     * \param channel the channel
     */
    void Attach(Ptr<FabricChannel> channel);

    /**
     * \brief Queue a packet for transmission.
     * \param item the packet, its wire size and priority
     */
    void Enqueue(FabricTxItem&& item);

    /**
     * \brief Tell the port that its pull source has packets ready.
     */
    void Wake();

    /**
     * \brief Hand over a packet that arrived on the channel (called by FabricChannel).
     * \param arrival the packet, its header, wire size on this link and class (the
     *        receive handler may take the packet)
     */
    void Receive(FabricArrival& arrival);
    /**
     * \brief Hand over a packet as if it arrived on the channel (tests, tools): its header
     * is read from its bytes.
     * \param packet the packet (starting with a FabricHeader)
     * \param wireBytes its wire size on this link
     * \param priority its lane
     */
    void Receive(Ptr<Packet> packet, uint32_t wireBytes, uint8_t priority);

    /**
     * \param header a packet's header
     * \return the packet's bytes on this link's wire (for a cell of several MTU packets,
     *         theirs summed)
     */
    uint32_t WireBytes(const FabricFields& header) const;

    /// \param cb the handler for received packets (a switch or a transport)
    void SetFabricReceiveCallback(FabricReceiveCallback cb);
    /**
     * \param cb the pull source for transmission (a transport)
     * \param priority the traffic class of its packets
     * \param maxWireBytes the largest packet it produces (credits needed to pull)
     */
    void SetPullCallback(PullCallback cb, uint8_t priority, uint32_t maxWireBytes);
    /// \param cb told when a queued packet starts transmission
    void SetDequeueCallback(DequeueCallback cb);

    /**
     * \param flowControl this port's flow control (the port takes it over: one per port)
     */
    void SetFlowControl(Ptr<FabricFlowControl> flowControl);
    /// \return this port's flow control
    Ptr<FabricFlowControl> GetFlowControl() const;
    /// \return this port's flow control, for the packet path (no reference counting)
    FabricFlowControl* PeekFlowControl() const;
    /**
     * \brief A PFC frame from the peer arrived (called through FabricChannel::SendPause):
     * stop or resume a lane.
     * \param priority the lane
     * \param paused true to stop
     */
    void SetPaused(uint8_t priority, bool paused);
    /**
     * \brief Flow control opened (credits arrived, a lane resumed): try to transmit.
     */
    void NotifyFlowControlOpen();
    /**
     * \brief Return credits to the peer, through the cable (FabricChannel::ReturnCredits).
     * \param priority the lane
     * \param bytes wire bytes that left this side's buffer
     */
    void ReturnCreditsToPeer(uint8_t priority, uint32_t bytes);
    /**
     * \brief Send a PFC frame (a minimum-size control frame) to the peer, through the cable
     * (FabricChannel::SendPause).
     * \param priority the lane
     * \param paused XOFF if true, XON if false
     */
    void SendPauseToPeer(uint8_t priority, bool paused);
    /**
     * \brief Count a packet the switch dropped instead of queuing here.
     * \param item the packet
     */
    void NotifyDrop(FabricTxItem& item);

    /// \return the data rate
    DataRate GetDataRate() const;
    /// \return the latency added to received packets
    Time GetRxLatency() const;
    /// \return true if received packets are handed on after their first 64 bytes
    bool IsCutThrough() const;
    /// \return the largest payload of one simulated packet, bytes: the payload MTU, times
    /// CellPackets (a fidelity knob, 1 by default)
    uint32_t GetPayloadMtu() const;
    /// \return MTU packets one simulated packet may stand for (CellPackets; 1: full fidelity)
    uint32_t GetCellPackets() const;
    /// \return number of lanes
    uint8_t GetPriorities() const;
    /**
     * \brief Attribute Priorities: the number of lanes (sizes the lanes and the flow
     * control's per-lane state; lanes only grow).
     * \param priorities number of lanes, 1 to 16
     */
    void SetPriorities(uint8_t priorities);
    /**
     * \brief Traffic classes are end to end, lanes belong to a link: classes beyond
     * this link's lanes share its last lane.
     * \param priority a packet's traffic class
     * \return the lane it uses on this link
     */
    uint8_t LaneOf(uint8_t priority) const;
    /// \return the port's counters (times up to now)
    Stats GetStats() const;
    /// \return packets waiting in the egress queues
    uint64_t GetQueuedPackets() const;
    /// \return wire bytes waiting in the egress queues
    uint64_t GetQueuedBytes() const;
    /// \param priority a traffic class \return wire bytes waiting on its lane
    uint64_t GetQueuedBytes(uint8_t priority) const;
    /// \return serialization time up to now: Stats::busyTime without the part of the
    /// current transmission that lies in the future
    Time GetBusyTimeUntilNow() const;

    /**
     * \brief GetBusyTimeUntilNow() without asking the simulator for the time or converting
     * through Time's unit table (a pull source's per-packet accounting).
     * \param nowPs the current time, ps
     * \param psPerStep picoseconds per time step (1 at Time::PS, the resolution mains set)
     * \return the busy time up to now, ps
     */
    int64_t GetBusyPsUntil(int64_t nowPs, int64_t psPerStep) const
    {
        const int64_t ahead = m_busyUntil.GetTimeStep() * psPerStep - nowPs;
        return m_busyTime.GetTimeStep() * psPerStep - (ahead > 0 ? ahead : 0);
    }

    /// \brief The switch marked a packet CE on its way out of this port.
    void NotifyEcnMark();
    /**
     * \brief The largest egress queue since the previous call (or the start),
     * and restart that window at the current queue.
     * \return wire bytes
     */
    uint64_t TakeWindowPeakQueuedBytes();
    /**
     * \brief Time-weighted percentile of the egress queue over [0, now]
     * (QueueDepthHistogram: at most 25 % above the true value, exactly 0 for an empty queue).
     * \param p percent, 0 < p <= 100
     * \return wire bytes
     */
    uint64_t GetQueuePercentileBytes(double p) const;
    /// \param priority a lane \return its credits, bytes (0 without credit flow control)
    int64_t GetCredits(uint8_t priority) const;
    /// \return the channel
    Ptr<FabricChannel> GetFabricChannel() const;
    /// \param index this port's index in its switch
    void SetSwitchPort(uint32_t index);
    /// \return this port's index in its switch
    uint32_t GetSwitchPort() const;
    /**
     * \param priority a traffic class
     * \return time its lane has been held by flow control so far, ps
     * (FabricFlowControl::GetHeldPs)
     */
    int64_t GetHeldPs(uint8_t priority) const;
    /**
     * \brief For stall reports (not the packet path): is a packet held by flow control?
     * \return true if some lane has a waiting packet (queued, or the pull source's) that
     *         PFC pause or missing credits keep from leaving
     */
    bool IsFlowControlBlocked() const;

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    /**
     * \param payload payload bytes of one link packet (at most the payload MTU)
     * \return its wire bytes, without the message header
     */
    uint32_t PacketWireBytes(uint32_t payload) const;

    /// One priority lane of the egress.
    struct Lane
    {
        RingQueue<FabricTxItem> queue; //!< waiting packets
        uint64_t bytes{0};             //!< wire bytes waiting
    };

    /**
     * \brief A message's last packet, queued here, starts transmission: fire
     * LastPacketDequeue with its wait and the held time of its lane.
     * \param item the packet
     * \param lane its lane
     */
    void NotifyLastPacketDequeue(const FabricTxItem& item, uint8_t lane);

    /// Start the next transmission now or when the port becomes free.
    void TryTransmit();
    /// \copydoc TryTransmit() \param now the current time
    void TryTransmit(Time now);
    /// Transmit the next packet if one is ready (the port is free): the event.
    void TransmitNext();
    /// \copydoc TransmitNext() \param now the current time
    void TransmitAt(Time now);
    /**
     * \param item filled with the next packet
     * \param now the current time, time steps
     * \return true if a packet was ready
     */
    bool Dequeue(FabricTxItem& item, int64_t now);
    /// \return true if packets are waiting (queued or at the pull source)
    bool HasWaiting() const;
    /**
     * \param bytes wire bytes
     * \return serialization time, with the rounding remainder carried
     */
    Time TxTime(uint32_t bytes);

    // The packet path's fields first, roughly in the order Enqueue, Dequeue, TransmitAt and
    // Receive read them, so that a packet's visit touches as few cache lines as it can; the
    // fields only set-up, statistics and observers read come last.
    FabricFlowControl* m_fc{nullptr};     //!< m_flowControl, for the packet path
    std::vector<Lane> m_lanes;            //!< egress lanes
    uint64_t m_queuedPackets{0};          //!< packets queued
    TracedValue<uint64_t> m_queuedBytes;  //!< wire bytes queued
    uint64_t m_peakQueuedBytes{0};        //!< peak wire bytes queued
    uint64_t m_windowPeakQueuedBytes{0};  //!< peak since TakeWindowPeakQueuedBytes()
    QueueDepthHistogram m_queueDepth;     //!< time at each queue depth
    uint8_t m_priorities{1};              //!< number of lanes
    bool m_txPending{false};              //!< a TransmitNext event is scheduled
    bool m_sourceReady{false};            //!< the pull source may have packets
    bool m_cutThrough{false};             //!< hand on packets after their header
    bool m_returnCreditsOnReceive{false}; //!< endpoint port: its buffer drains at once
    uint8_t m_pullPriority{0};            //!< lane of the pull source
    uint32_t m_pullMaxWire{0};            //!< largest packet of the pull source
    uint32_t m_switchPort{0};             //!< index in the owning switch
    Time m_busyUntil;                     //!< end of the current transmission
    ReusableEvent<FabricNetDevice, &FabricNetDevice::TransmitNext> m_txEvent{this}; //!< its event
    Ptr<FabricChannel> m_channel;     //!< attached channel
    DataRate m_rate;                  //!< data rate
    SerializationClock m_clock;       //!< exact serialization times at m_rate
    Time m_busyTime;                  //!< total serialization time
    uint64_t m_txPackets{0};          //!< packets transmitted
    uint64_t m_txWireBytes{0};        //!< wire bytes transmitted
    uint32_t m_headerBytes{0};        //!< per-packet link overhead, bytes
    uint32_t m_segmentBytes{0};       //!< headers paid per segment of this size (0: once)
    uint32_t m_framingBytes{0};       //!< per-packet preamble + IFG, bytes
    uint32_t m_messageHeaderBytes{0}; //!< extra bytes on a message's first packet
    uint32_t m_controlPacketBytes{0}; //!< wire bytes of an ACK/NACK/CNP
    uint32_t m_payloadMtu{4096};      //!< payload MTU, bytes
    uint32_t m_cellPackets{1};        //!< fidelity knob: MTU packets per simulated packet
    PullCallback m_pull;              //!< pull source
    DequeueCallback m_dequeued;       //!< told when a queued packet leaves
    FabricReceiveCallback m_fabricRx; //!< fabric receive handler
    /// a message's last packet leaves the egress queue
    TracedCallback<const FabricFields&, Time, Time> m_lastPacketDequeueTrace;
    /// FirstPacketEnqueue: a message's first packet joined an egress queue
    TracedCallback<const FabricFields&> m_firstPacketEnqueueTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_txTrace;         //!< transmission start
    TracedCallback<const FabricFields&, uint32_t> m_txFieldsTrace; //!< transmission start,
                                                                   //!< fields only
    TracedCallback<Ptr<const Packet>> m_rxTrace;                   //!< reception
    Ptr<Node> m_node;                                              //!< owning node
    uint32_t m_ifIndex{0};                                         //!< interface index
    Mac48Address m_address;                        //!< address (unused by fabric forwarding)
    Time m_rxLatency;                              //!< latency added to received packets
    Ptr<FabricFlowControl> m_flowControl;          //!< this port's flow control (never null)
    uint64_t m_ecnMarks{0};                        //!< packets marked CE leaving this port
    uint64_t m_drops{0};                           //!< packets dropped
    NetDevice::ReceiveCallback m_rxCallback;       //!< generic ns-3 receive callback
    TracedCallback<Ptr<const Packet>> m_dropTrace; //!< drop at this port
    TracedCallback<uint8_t, bool> m_pauseTrace;    //!< lane paused/resumed by the peer
};

// Accessors the packet path calls for every packet (inline: no call, no extra cache line).

inline DataRate
FabricNetDevice::GetDataRate() const
{
    return m_rate;
}

inline bool
FabricNetDevice::IsCutThrough() const
{
    return m_cutThrough;
}

inline FabricFlowControl*
FabricNetDevice::PeekFlowControl() const
{
    return m_fc;
}

inline uint8_t
FabricNetDevice::LaneOf(uint8_t priority) const
{
    return priority < m_priorities ? priority : static_cast<uint8_t>(m_priorities - 1);
}

inline uint64_t
FabricNetDevice::GetQueuedBytes(uint8_t priority) const
{
    return m_lanes.empty() ? 0 : m_lanes[LaneOf(priority)].bytes;
}

inline uint32_t
FabricNetDevice::GetSwitchPort() const
{
    return m_switchPort;
}

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_NET_DEVICE_H */
