/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_NET_DEVICE_H
#define AI_FABRIC_FABRIC_NET_DEVICE_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <vector>

namespace ns3
{

class FabricChannel;
class FabricHeader;
class Node;

/**
 * \ingroup ai-fabric
 * \brief One packet ready for transmission, with its size on the wire.
 */
struct FabricTxItem
{
    Ptr<Packet> packet;    //!< the packet (FabricHeader + payload)
    uint32_t wireBytes{0}; //!< bytes it occupies on the wire, link overhead included
    uint8_t priority{0};   //!< traffic class; lower is served first
    bool more{false};      //!< set by a pull source: it has further packets ready
};

/**
 * \ingroup ai-fabric
 * \brief A port of a GPU NIC or of a switch, on one FabricChannel.
 *
 * Egress: strict-priority FIFO queues fed by Enqueue()/Send(), and for NIC
 * ports an optional pull source (the RDMA transport) served when the queues
 * are empty, so that a long message exists only as the packets in flight.
 * One event per transmitted packet at most: a port that becomes free with
 * nothing queued schedules nothing; a port that is busy when a packet arrives
 * schedules its next transmission once, at the end of the current one.
 *
 * Serialization time = wire bytes * 8 / DataRate, computed in integers with a
 * carried remainder, so a stream of packets is exact to the picosecond.
 *
 * Conservation: enqueued = transmitted + queued (no drops: flow control comes
 * with the link-technology models).
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

    /// Receive handler for fabric packets: (receiving device, packet).
    typedef Callback<void, Ptr<FabricNetDevice>, Ptr<Packet>> FabricReceiveCallback;
    /// Pull source: fills the item and returns true if a packet is ready.
    typedef Callback<bool, FabricTxItem&> PullCallback;

    /**
     * TracedCallback signature for a transmission start.
     * \param packet the packet
     * \param wireBytes its wire size, bytes
     */
    typedef void (*TxTracedCallback)(Ptr<const Packet> packet, uint32_t wireBytes);

    /**
     * \brief Attach to a channel.
     * \param channel the channel
     */
    void Attach(Ptr<FabricChannel> channel);

    /**
     * \brief Queue a packet for transmission.
     * \param item the packet, its wire size and priority
     */
    void Enqueue(FabricTxItem item);

    /**
     * \brief Tell the port that its pull source may have packets ready.
     */
    void Wake();

    /**
     * \brief Hand over a packet that arrived on the channel (called by FabricChannel).
     * \param packet the packet
     */
    void Receive(Ptr<Packet> packet);

    /**
     * \param header a packet's header
     * \return the packet's bytes on this link's wire
     */
    uint32_t WireBytes(const FabricHeader& header) const;

    /// \param cb the handler for received packets (a switch or a transport)
    void SetFabricReceiveCallback(FabricReceiveCallback cb);
    /// \param cb the pull source for transmission (a transport)
    void SetPullCallback(PullCallback cb);

    /// \return the data rate
    DataRate GetDataRate() const;
    /// \return the latency added to received packets
    Time GetRxLatency() const;
    /// \return the payload MTU, bytes
    uint32_t GetPayloadMtu() const;
    /// \return packets transmitted
    uint64_t GetTxPackets() const;
    /// \return wire bytes transmitted
    uint64_t GetTxWireBytes() const;
    /// \return time spent serializing packets
    Time GetBusyTime() const;
    /// \return packets waiting in the egress queues
    uint64_t GetQueuedPackets() const;
    /// \return wire bytes waiting in the egress queues
    uint64_t GetQueuedBytes() const;
    /// \return the peak of GetQueuedBytes() so far
    uint64_t GetPeakQueuedBytes() const;
    /// \return the channel
    Ptr<FabricChannel> GetFabricChannel() const;

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
    /// Start the next transmission now or when the port becomes free.
    void TryTransmit();
    /// Transmit the next packet if one is ready (the port is free).
    void TransmitNext();
    /**
     * \param item filled with the next packet
     * \return true if a packet was ready
     */
    bool Dequeue(FabricTxItem& item);
    /**
     * \param bytes wire bytes
     * \return serialization time, with the rounding remainder carried
     */
    Time TxTime(uint32_t bytes);

    Ptr<Node> m_node;                               //!< owning node
    Ptr<FabricChannel> m_channel;                   //!< attached channel
    uint32_t m_ifIndex{0};                          //!< interface index
    Mac48Address m_address;                         //!< address (unused by fabric forwarding)
    DataRate m_rate;                                //!< data rate
    uint64_t m_bps{0};                              //!< cached bit rate
    uint64_t m_txRemainder{0};                      //!< carried remainder of TxTime, bit-ps units
    uint32_t m_headerBytes{0};                      //!< per-packet link overhead, bytes
    uint32_t m_messageHeaderBytes{0};               //!< extra bytes on a message's first packet
    uint32_t m_payloadMtu{4096};                    //!< payload MTU, bytes
    Time m_rxLatency;                               //!< latency added to received packets
    std::vector<std::deque<FabricTxItem>> m_queues; //!< per-priority egress FIFOs
    uint64_t m_queuedPackets{0};                    //!< packets queued
    uint64_t m_queuedBytes{0};                      //!< wire bytes queued
    uint64_t m_peakQueuedBytes{0};                  //!< peak wire bytes queued
    Time m_busyUntil;                               //!< end of the current transmission
    bool m_txPending{false};                        //!< a TransmitNext event is scheduled
    uint64_t m_txPackets{0};                        //!< packets transmitted
    uint64_t m_txWireBytes{0};                      //!< wire bytes transmitted
    Time m_busyTime;                                //!< total serialization time
    FabricReceiveCallback m_fabricRx;               //!< fabric receive handler
    PullCallback m_pull;                            //!< pull source
    NetDevice::ReceiveCallback m_rxCallback;        //!< generic ns-3 receive callback
    TracedCallback<Ptr<const Packet>, uint32_t> m_txTrace; //!< transmission start
    TracedCallback<Ptr<const Packet>> m_rxTrace;           //!< reception
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_NET_DEVICE_H */
