/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "no-flow-control.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NoFlowControl");
NS_OBJECT_ENSURE_REGISTERED(NoFlowControl);

TypeId
NoFlowControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NoFlowControl")
                            .SetParent<FabricFlowControl>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NoFlowControl>();
    return tid;
}

NoFlowControl::NoFlowControl()
{
    m_lossless = false;
}

NoFlowControl::~NoFlowControl()
{
}

void
NoFlowControl::SetLanes(uint8_t /* lanes */)
{
}

bool
NoFlowControl::Refill(uint8_t lane, uint32_t /* wireBytes */, int64_t /* now */)
{
    m_allowance[lane] = OPEN; // always open (reached only after OPEN bytes)
    return true;
}

bool
NoFlowControl::IsHeld(uint8_t /* lane */, uint32_t /* wireBytes */) const
{
    return false;
}

int64_t
NoFlowControl::GetHeldPs(uint8_t /* lane */) const
{
    return 0;
}

void
NoFlowControl::OnBufferFreed(uint8_t /* lane */, uint32_t /* wireBytes */)
{
}

bool
NoFlowControl::OnCharged(uint8_t /* lane */,
                         uint64_t /* laneCharge */,
                         const FabricBufferView& /* pool */)
{
    return false;
}

} // namespace ns3
