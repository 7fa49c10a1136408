/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_CHANNEL_H
#define AI_FABRIC_FABRIC_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <array>

namespace ns3
{

class FabricNetDevice;
class Packet;

/**
 * \ingroup ai-fabric
 * \brief A full-duplex point-to-point cable between two FabricNetDevices.
 *
 * A packet whose transmission starts at t and lasts txTime is handed to the
 * peer at t + txTime + Delay + the peer's RxLatency (store-and-forward), or,
 * if the peer is a cut-through switch port, once its first 64 bytes are there:
 * t + txTime * min(1, 64 / wireBytes) + Delay + RxLatency. One simulator event
 * per packet per link. The channel knows nothing about flow control or routing.
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
     * \param packet the packet
     * \param src the transmitting device
     * \param txTime its serialization time on src's link
     * \param wireBytes its size on the wire
     * \param priority its lane
     */
    void Transmit(Ptr<Packet> packet,
                  const FabricNetDevice* src,
                  Time txTime,
                  uint32_t wireBytes,
                  uint8_t priority) const;

    /**
     * \param device one end
     * \return the device at the other end
     */
    Ptr<FabricNetDevice> GetPeer(const FabricNetDevice* device) const;

    /// \return the propagation delay
    Time GetDelay() const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    Time m_delay;                                 //!< propagation delay
    std::array<Ptr<FabricNetDevice>, 2> m_ends;   //!< the two ends
    std::array<uint32_t, 2> m_endNodeIds{{0, 0}}; //!< node id (event context) of each end
    std::size_t m_nDevices{0};                    //!< devices attached
    /// Receive side of each end, read from the devices at the first transmission (their
    /// attributes are set by then): spares a visit to the far device per packet.
    mutable bool m_endsCached{false};
    mutable std::array<bool, 2> m_cutThrough{{false, false}}; //!< end is cut-through
    mutable std::array<Time, 2> m_rxLatency;                  //!< end's receive latency
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_CHANNEL_H */
