/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_CHANNEL_H
#define AI_FABRIC_FABRIC_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/fabric-event.h"
#include "ns3/fabric-net-device.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/ring-queue.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A full-duplex point-to-point cable between two FabricNetDevices.
 *
 * A packet whose transmission starts at t and lasts txTime is handed to the
 * peer at t + txTime + Delay + the peer's RxLatency (store-and-forward), or,
 * if the peer is a cut-through switch port, once its first 64 bytes are there:
 * t + txTime * min(1, 64 / wireBytes) + Delay + RxLatency. One simulator event
 * per packet per link. The channel knows nothing about routing, and carries flow control's
 * messages without reading them.
 *
 * Every interaction across the cable is a virtual method: a packet (Transmit), credits
 * returned (ReturnCredits) and a PFC frame (SendPause). A channel whose other end lives in
 * another process (as ns-3's PointToPointRemoteChannel) overrides them.
 *
 * Packets on a cable arrive in the order they were sent (a port serializes one packet after
 * the other, so even a cut-through arrival is no earlier than the previous packet's), so each
 * direction keeps its packets in flight in a FIFO, with their parsed headers, and one
 * reusable event, scheduled once per packet, delivers the FIFO's head each time it runs.
 * No allocation and no reference counting per packet beyond the packet's own.
 */
class FabricChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Bytes a cut-through switch port waits for before forwarding (the headers).
    static constexpr uint32_t CUT_THROUGH_BYTES = 64;

    FabricChannel();
    ~FabricChannel() override;
    FabricChannel(const FabricChannel&) = delete;
    FabricChannel& operator=(const FabricChannel&) = delete;

    /**
     * \brief Connect a device to one end of the cable.
     * \param device the device (at most two per channel)
     */
    void Attach(Ptr<FabricNetDevice> device);

    /**
     * \brief Carry a packet to the other end.
     * \param item the packet, its header, wire size and class (moved from)
     * \param src the transmitting device
     * \param txTime its serialization time on src's link
     */
    virtual void Transmit(FabricTxItem&& item, const FabricNetDevice* src, Time txTime);

    /**
     * \brief Carry credits back to the other end (credit flow control): they reach the
     * peer's flow control stamped with their arrival time (now + Delay), with no event.
     * \param src the device returning them
     * \param lane the lane
     * \param bytes wire bytes that left src's receive buffer
     */
    virtual void ReturnCredits(const FabricNetDevice* src, uint8_t lane, uint32_t bytes);

    /**
     * \brief Carry a PFC frame to the other end: it takes effect there after the frame's
     * serialization and Delay (FabricNetDevice::SetPaused).
     * \param src the device sending it
     * \param lane the lane
     * \param paused XOFF if true, XON if false
     * \param frameTime the frame's serialization time on src's link
     */
    virtual void SendPause(const FabricNetDevice* src, uint8_t lane, bool paused, Time frameTime);

    /// \return packets on the cable now, both directions
    std::size_t GetInFlight() const;

    /**
     * \param device one end
     * \return the device at the other end
     */
    Ptr<FabricNetDevice> GetPeer(const FabricNetDevice* device) const;

    /// \return the propagation delay
    Time GetDelay() const;

    /**
     * \brief An end's flow control or receive side changed (FabricNetDevice::SetFlowControl):
     * read the ends again at the next crossing.
     */
    void NotifyEndChanged()
    {
        m_endsCached = false;
    }

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    /// One direction of the cable: its packets in flight, by arrival.
    typedef RingQueue<FabricArrival> Direction;

    /**
     * \param src one end
     * \return the index of the other end
     */
    std::size_t PeerIndex(const FabricNetDevice* src) const
    {
        return (PeekPointer(m_ends[0]) == src) ? 1 : 0;
    }

    /**
     * \brief The head of the direction towards end \p to arrives.
     * \tparam to the receiving end
     */
    template<std::size_t to>
    void Deliver();

    /// Read the ends' receive side (cut-through, receive latency, flow control).
    void CacheEnds();

    Time m_delay;                                 //!< propagation delay
    std::array<Ptr<FabricNetDevice>, 2> m_ends;   //!< the two ends
    std::array<uint32_t, 2> m_endNodeIds{{0, 0}}; //!< node id (event context) of each end
    std::size_t m_nDevices{0};                    //!< devices attached
    /// Receive side of each end, read from the devices at the first transmission (their
    /// attributes are set by then): spares a visit to the far device per packet.
    bool m_endsCached{false};
    std::array<bool, 2> m_cutThrough{{false, false}};           //!< end is cut-through
    std::array<Time, 2> m_rxLatency;                            //!< end's receive latency
    std::array<FabricFlowControl*, 2> m_fc{{nullptr, nullptr}}; //!< end's flow control
    std::array<Direction, 2> m_dirs; //!< packets in flight towards end 0 and end 1
    ReusableEvent<FabricChannel, &FabricChannel::Deliver<0>> m_deliver0{this}; //!< towards end 0
    ReusableEvent<FabricChannel, &FabricChannel::Deliver<1>> m_deliver1{this}; //!< towards end 1
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_CHANNEL_H */
