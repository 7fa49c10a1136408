/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_CREDIT_FLOW_CONTROL_H
#define AI_FABRIC_CREDIT_FLOW_CONTROL_H

#include "ns3/fabric-event.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/ring-queue.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Credit-based flow control per virtual lane (InfiniBand, NVLink, PCIe).
 *
 * Each lane holds the bytes of receive buffer the peer advertised (CreditsPerLane), in whole
 * blocks of CreditBlockBytes. A packet leaves only if its blocks are available; the peer
 * returns them when the packet has left its buffer. Lossless by construction.
 *
 * A credit return costs no event: the credits join this side's list of returns in flight
 * (a ring, by arrival: the cable's delay is constant), stamped with their arrival time, and
 * are counted when a lane runs short (CanSend() finds its credits short of a packet and asks
 * Refill()). Only a port stalled for credit gets an event, at the first arrival (the moment
 * the credits would have woken it one event per return).
 *
 * Held time: credits are per lane but the stall counter is per port, so a lane's held time
 * is the port's stall time (a lane out of credit while another lane transmits counts as
 * queueing).
 *
 * Conservation, per lane: credits held + credits in flight back + bytes in the peer's
 * buffer (in blocks) = CreditsPerLane.
 */
class CreditFlowControl : public FabricFlowControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CreditFlowControl();
    ~CreditFlowControl() override;
    CreditFlowControl(const CreditFlowControl&) = delete;
    CreditFlowControl& operator=(const CreditFlowControl&) = delete;

    void SetLanes(uint8_t lanes) override;
    bool IsHeld(uint8_t lane, uint32_t wireBytes) const override;
    void ReceiveCredits(int64_t now, int64_t at, uint8_t lane, uint32_t bytes) override;
    int64_t GetCredits(uint8_t lane) const override;
    int64_t GetHeldPs(uint8_t lane) const override;
    void OnBufferFreed(uint8_t lane, uint32_t wireBytes) override;
    bool OnCharged(uint8_t lane, uint64_t laneCharge, const FabricBufferView& pool) override;

    /**
     * \param wireBytes wire size
     * \return the credit it consumes: whole credit blocks, bytes
     */
    uint32_t CreditBytes(uint32_t wireBytes) const
    {
        return Charge(wireBytes);
    }

    /// \return credit returns on their way (or arrived and not yet counted)
    std::size_t GetReturnsInFlight() const;

  protected:
    void DoDispose() override;
    void OnStall() override;
    bool Refill(uint8_t lane, uint32_t wireBytes, int64_t now) override;

  private:
    /// A credit return travelling back from the peer.
    struct CreditReturn
    {
        int64_t at{0};     //!< arrival time, time steps
        uint32_t bytes{0}; //!< wire bytes freed
        uint8_t lane{0};   //!< the lane
    };

    /**
     * \brief Add the returns that have arrived by now to the lanes' credits.
     * \param now the current time, time steps
     */
    void AbsorbCredits(int64_t now);
    /// A credit return arrived while the port was stalled: let the port try to transmit.
    void Wake();

    // The lanes' credits are the base's allowances (m_allowance, bytes of the peer's buffer
    // available, in whole blocks of m_unit): the packet path reads and charges them inline
    // and calls Refill() only when a lane is short.
    RingQueue<CreditReturn> m_returns; //!< credit returns in flight, by arrival
    uint8_t m_lanes{0};                //!< lanes in use
    bool m_wakePending{false};         //!< a Wake event is scheduled
    uint64_t m_creditsPerLane{0};      //!< receive buffer the peer advertises per lane
    ReusableEvent<CreditFlowControl, &CreditFlowControl::Wake> m_wakeEvent{this}; //!< its event
};

} // namespace ns3

#endif /* AI_FABRIC_CREDIT_FLOW_CONTROL_H */
