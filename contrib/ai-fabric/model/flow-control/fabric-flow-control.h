/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_FLOW_CONTROL_H
#define AI_FABRIC_FABRIC_FLOW_CONTROL_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <array>
#include <cstdint>

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * \brief The shared buffer a switch charges an ingress port's packets to, as that port's
 * flow control sees it when it decides on a pause (PFC's dynamic threshold).
 */
struct FabricBufferView
{
    uint64_t size{0};     //!< the shared pool, bytes
    uint64_t headroom{0}; //!< bytes of the pool reserved as PFC headroom (all ports)
    uint64_t used{0};     //!< bytes in the pool now
    double alpha{0};      //!< PFC dynamic-threshold factor
};

/**
 * \ingroup ai-fabric
 * \brief Link-level flow control of one port, both directions: whether the port may send
 * into its peer's receive buffer (egress), and what the port tells its peer about its own
 * receive buffer (ingress). Selected per FabricNetDevice by its "FlowControl" attribute.
 *
 * Egress: the port asks CanSend() before a packet leaves a lane and calls OnTransmit() when
 * it leaves; the peer's messages (a PFC frame, credits returned) come in through the cable
 * (FabricChannel::SendPause, FabricChannel::ReturnCredits) to ReceivePause() and
 * ReceiveCredits(). Ingress: the owner of the port's receive buffer (a switch, or the port
 * itself at an endpoint) reports each packet's charge (OnCharged(), which may send XOFF), its
 * release (OnBufferFreed(), which may return credits) and asks whether a paused lane may
 * resume (TryResume(), XON).
 *
 * Held time: the time a port had packets waiting that flow control let none of go (a
 * stall), kept here for every kind; PFC adds the time each lane was paused.
 *
 * Kinds: NoFlowControl (lossy), CreditFlowControl (per virtual lane: InfiniBand, NVLink,
 * PCIe), PfcFlowControl (per traffic class: RoCEv2, IEEE 802.1Qbb).
 */
class alignas(64) FabricFlowControl : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricFlowControl();
    ~FabricFlowControl() override;
    FabricFlowControl(const FabricFlowControl&) = delete;
    FabricFlowControl& operator=(const FabricFlowControl&) = delete;

    /**
     * \brief Set by the port that this object controls.
     * \param device the port (it owns this object)
     */
    void SetDevice(FabricNetDevice* device);
    /// \return the port, or nullptr
    FabricNetDevice* GetDevice() const;
    /**
     * \brief Size the per-lane state (called again when the port's lanes grow).
     * \param lanes the port's number of lanes
     */
    virtual void SetLanes(uint8_t lanes) = 0;

    // Egress: this port sends into the peer's buffer.

    /// The most lanes a port has (FabricNetDevice's Priorities attribute: 1 to 16).
    static constexpr uint8_t MAX_LANES = 16;
    /// An allowance no run spends: the lane is open (no flow control, a PFC class not paused).
    static constexpr int64_t OPEN = INT64_MAX / 4;
    /// m_unitMask of a unit that is no power of two (Charge() divides).
    static constexpr uint32_t NOT_POWER_OF_TWO = UINT32_MAX;

    /**
     * \brief The packet path's question, answered inline from the lane's allowance; the kind
     * is asked (Refill()) only when the allowance is short of the packet.
     * \param lane a lane
     * \param wireBytes the packet's wire size
     * \param now the current time, time steps
     * \return true if the packet may leave now
     */
    bool CanSend(uint8_t lane, uint32_t wireBytes, int64_t now)
    {
        return m_allowance[lane] >= static_cast<int64_t>(Charge(wireBytes))
               || Refill(lane, wireBytes, now);
    }

    /**
     * \brief A packet leaves on a lane (after CanSend() said yes): its charge leaves the
     * lane's allowance.
     * \param lane the lane
     * \param wireBytes its wire size
     */
    void OnTransmit(uint8_t lane, uint32_t wireBytes)
    {
        m_allowance[lane] -= Charge(wireBytes);
    }

    /**
     * \param wireBytes a packet's wire size
     * \return what it takes from its lane's allowance: whole units (a credit kind's blocks)
     */
    uint32_t Charge(uint32_t wireBytes) const
    {
        // A power-of-two unit (1, a 64-byte credit block) rounds with a mask, not a division.
        return m_unitMask != NOT_POWER_OF_TWO ? (wireBytes + m_unitMask) & ~m_unitMask
                                              : (wireBytes + m_unit - 1) / m_unit * m_unit;
    }

    /**
     * \brief Set the charge unit (a credit kind's block).
     * \param unit bytes, at least 1
     */
    void SetChargeUnit(uint32_t unit);

    /// \return the charge unit, bytes
    uint32_t GetChargeUnit() const
    {
        return m_unit;
    }

    /**
     * \brief For stall reports (not the packet path), without changing any state.
     * \param lane a lane
     * \param wireBytes a waiting packet's wire size
     * \return true if flow control keeps that packet from leaving now
     */
    virtual bool IsHeld(uint8_t lane, uint32_t wireBytes) const = 0;
    /**
     * \brief A PFC frame from the peer arrived.
     * \param lane the lane
     * \param paused XOFF if true, XON if false
     * \return true if the lane's state changed (the port then traces it, and tries to send)
     */
    virtual bool ReceivePause(uint8_t lane, bool paused);
    /**
     * \brief Credits the peer returned are on their way (stamped with their arrival).
     * \param now the current time, time steps
     * \param at arrival time, time steps
     * \param lane the lane
     * \param bytes wire bytes that left the peer's buffer
     */
    virtual void ReceiveCredits(int64_t now, int64_t at, uint8_t lane, uint32_t bytes);
    /**
     * \param lane a lane
     * \return its credits now (returns that have arrived included), bytes; 0 without credits
     */
    virtual int64_t GetCredits(uint8_t lane) const;
    /**
     * \param lane a lane
     * \return time it has been held by flow control so far, ps (straggler attribution)
     */
    virtual int64_t GetHeldPs(uint8_t lane) const = 0;

    // Ingress: the peer sends into this port's buffer.

    /// \return true if the peer never sends more than this port's buffer takes (no drop)
    bool IsLossless() const
    {
        return m_lossless;
    }

    /**
     * \brief A packet received on a lane left this port's buffer (forwarded, delivered or
     * dropped).
     * \param lane the lane it arrived on
     * \param wireBytes its wire size on this link
     */
    virtual void OnBufferFreed(uint8_t lane, uint32_t wireBytes) = 0;
    /**
     * \brief A packet received on a lane was charged to the buffer.
     * \param lane the lane
     * \param laneCharge bytes charged to this (port, lane) now, the packet included
     * \param pool the shared buffer, the packet included
     * \return true if the lane was paused (XOFF sent) just now
     */
    virtual bool OnCharged(uint8_t lane, uint64_t laneCharge, const FabricBufferView& pool) = 0;
    /**
     * \brief The buffer freed: may a lane this port paused resume?
     * \param lane a lane paused by OnCharged()
     * \param laneCharge bytes charged to this (port, lane) now
     * \param pool the shared buffer now
     * \return true if the lane resumed (XON sent) just now
     */
    virtual bool TryResume(uint8_t lane, uint64_t laneCharge, const FabricBufferView& pool);
    /// \return bytes this port reserves in a shared buffer for data in flight (PFC), or 0
    virtual uint64_t GetHeadroom() const;

    // Held-time accounting.

    /**
     * \brief The port has packets waiting and flow control lets none go.
     * \param now the current time
     */
    void BeginStall(Time now);

    /**
     * \brief The port transmits: a stall, if any, ends.
     * \param now the current time
     */
    void EndStall(Time now)
    {
        if (!m_stalledSince.IsNegative())
        {
            CloseStall(now);
        }
    }

    /// \return true while the port is stalled
    bool IsStalled() const
    {
        return !m_stalledSince.IsNegative();
    }

    /// \return time the port had packets waiting but flow control let none go, up to now
    Time GetStallTime() const;
    /// \return total time the peer kept lanes paused (summed over lanes), up to now
    virtual Time GetPausedTime() const;
    /// \return pause frames (XOFF) received
    uint64_t GetPausesReceived() const;
    /// \return pause frames (XOFF) sent
    uint64_t GetPausesSent() const;

  protected:
    void DoDispose() override;
    /// Called by BeginStall(): the port waits for this flow control to let a packet go.
    virtual void OnStall();
    /**
     * \brief CanSend()'s slow path: the lane's allowance is short of a packet. A kind brings
     * it up to date (credits that have come back) and says whether the packet may leave now.
     * Default: it may not (a paused PFC class).
     * \param lane the lane
     * \param wireBytes the packet's wire size
     * \param now the current time, time steps
     * \return true if the packet may leave now
     */
    virtual bool Refill(uint8_t lane, uint32_t wireBytes, int64_t now);
    /**
     * \brief End the current stall (EndStall's rare branch, out of line).
     * \param now the current time
     */
    void CloseStall(Time now);

    // The packet path's state first, next to the object's header: per lane, the bytes that
    // may leave before the kind is asked (a credit kind's credits; OPEN or 0 for PFC; OPEN
    // without flow control), and the unit packets are charged in.
    std::array<int64_t, MAX_LANES> m_allowance; //!< per lane: bytes that may leave now
    uint32_t m_unitMask{0};                     //!< m_unit - 1, or NOT_POWER_OF_TWO
    uint32_t m_unit{1};                         //!< charge unit (credit block), bytes
    FabricNetDevice* m_device{nullptr};         //!< the port (owns this object)
    bool m_lossless{false};                     //!< the kind never lets the peer overrun the buffer
    uint64_t m_pausesReceived{0};               //!< XOFF received
    uint64_t m_pausesSent{0};                   //!< XOFF sent

  private:
    Time m_stallTime;        //!< finished stalls, summed
    Time m_stalledSince{-1}; //!< start of the current stall, negative if none
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_FLOW_CONTROL_H */
