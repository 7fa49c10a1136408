/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_NO_FLOW_CONTROL_H
#define AI_FABRIC_NO_FLOW_CONTROL_H

#include "ns3/fabric-flow-control.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief No link-level flow control (lossy Ethernet): every lane is always open, and a
 * switch drops what its buffer cannot take (FabricSwitch's DropAlpha threshold).
 */
class NoFlowControl : public FabricFlowControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NoFlowControl();
    ~NoFlowControl() override;
    NoFlowControl(const NoFlowControl&) = delete;
    NoFlowControl& operator=(const NoFlowControl&) = delete;

    void SetLanes(uint8_t lanes) override;
    bool IsHeld(uint8_t lane, uint32_t wireBytes) const override;
    int64_t GetHeldPs(uint8_t lane) const override;
    void OnBufferFreed(uint8_t lane, uint32_t wireBytes) override;
    bool OnCharged(uint8_t lane, uint64_t laneCharge, const FabricBufferView& pool) override;

  protected:
    bool Refill(uint8_t lane, uint32_t wireBytes, int64_t now) override;
};

} // namespace ns3

#endif /* AI_FABRIC_NO_FLOW_CONTROL_H */
