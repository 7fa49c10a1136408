/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_PFC_FLOW_CONTROL_H
#define AI_FABRIC_PFC_FLOW_CONTROL_H

#include "ns3/fabric-flow-control.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Priority flow control per traffic class (IEEE 802.1Qbb, RoCEv2).
 *
 * Ingress: when a (port, class) of a switch holds more than the dynamic threshold
 * alpha x (shared buffer - reserved headroom - buffer used) (DynamicThreshold(), the HPCC
 * ns-3 switch MMU's rule), an XOFF goes to the peer; an XON follows once the class's charge
 * is ResumeOffset bytes (one frame) below the threshold. The port's Headroom, reserved in
 * the shared buffer, absorbs what is still in flight when the XOFF lands.
 *
 * Egress: a class stops while the peer has paused it; the time it stays paused is its held
 * time (straggler attribution) and is summed into GetPausedTime().
 */
class PfcFlowControl : public FabricFlowControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PfcFlowControl();
    ~PfcFlowControl() override;
    PfcFlowControl(const PfcFlowControl&) = delete;
    PfcFlowControl& operator=(const PfcFlowControl&) = delete;

    /**
     * \param pool a shared buffer
     * \return the XOFF threshold per (port, class) it allows now, bytes: alpha x (size -
     *         headroom - used), 0 once the headroom and the packets fill it
     */
    static uint64_t DynamicThreshold(const FabricBufferView& pool)
    {
        const uint64_t reserved = pool.headroom + pool.used;
        if (reserved >= pool.size)
        {
            return 0;
        }
        return static_cast<uint64_t>(pool.alpha * (pool.size - reserved));
    }

    void SetLanes(uint8_t lanes) override;
    bool IsHeld(uint8_t lane, uint32_t wireBytes) const override;
    bool ReceivePause(uint8_t lane, bool paused) override;
    int64_t GetHeldPs(uint8_t lane) const override;
    void OnBufferFreed(uint8_t lane, uint32_t wireBytes) override;
    bool OnCharged(uint8_t lane, uint64_t laneCharge, const FabricBufferView& pool) override;
    bool TryResume(uint8_t lane, uint64_t laneCharge, const FabricBufferView& pool) override;
    uint64_t GetHeadroom() const override;
    Time GetPausedTime() const override;

    /**
     * \param lane a lane
     * \return true if the peer keeps it paused now
     */
    bool IsPaused(uint8_t lane) const;
    /**
     * \param lane a lane
     * \return true if this port has paused the peer's lane (XOFF sent, no XON yet)
     */
    bool IsPausingPeer(uint8_t lane) const;

  protected:
    void DoDispose() override;

  private:
    /// One class's state.
    struct Lane
    {
        bool paused{false};   //!< egress: stopped by the peer
        bool xoffSent{false}; //!< ingress: this port paused the peer
        Time pausedSince;     //!< egress: when the current pause began
        int64_t pausedPs{0};  //!< egress: finished pauses, summed, ps
    };

    uint64_t m_headroom{0};     //!< bytes reserved in the shared buffer for data in flight
    uint32_t m_resumeOffset{0}; //!< XON this many bytes below the XOFF threshold
    std::vector<Lane> m_lanes;  //!< per class
    Time m_pausedTime;          //!< finished pauses of every class, summed
};

} // namespace ns3

#endif /* AI_FABRIC_PFC_FLOW_CONTROL_H */
