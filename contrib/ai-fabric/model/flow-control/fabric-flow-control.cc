/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-flow-control.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricFlowControl");
NS_OBJECT_ENSURE_REGISTERED(FabricFlowControl);

TypeId
FabricFlowControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricFlowControl").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

FabricFlowControl::FabricFlowControl()
{
    m_allowance.fill(OPEN);
}

FabricFlowControl::~FabricFlowControl()
{
}

void
FabricFlowControl::DoDispose()
{
    m_device = nullptr;
    Object::DoDispose();
}

void
FabricFlowControl::SetDevice(FabricNetDevice* device)
{
    NS_LOG_FUNCTION(this << device);
    m_device = device;
}

FabricNetDevice*
FabricFlowControl::GetDevice() const
{
    return m_device;
}

bool
FabricFlowControl::ReceivePause(uint8_t lane, bool paused)
{
    NS_LOG_WARN("PFC frame (lane " << +lane << (paused ? " XOFF" : " XON")
                                   << ") on a port without PFC: ignored");
    return false;
}

void
FabricFlowControl::ReceiveCredits(int64_t /* now */, int64_t /* at */, uint8_t lane, uint32_t bytes)
{
    NS_ABORT_MSG("credits returned (lane " << +lane << ", " << bytes
                                           << " B) to a port without credit flow control");
}

int64_t
FabricFlowControl::GetCredits(uint8_t /* lane */) const
{
    return 0;
}

bool
FabricFlowControl::TryResume(uint8_t /* lane */,
                             uint64_t /* laneCharge */,
                             const FabricBufferView& /* pool */)
{
    return false;
}

uint64_t
FabricFlowControl::GetHeadroom() const
{
    return 0;
}

void
FabricFlowControl::BeginStall(Time now)
{
    if (m_stalledSince.IsNegative())
    {
        NS_LOG_LOGIC("stall: packets wait, flow control lets none go");
        m_stalledSince = now;
    }
    OnStall();
}

void
FabricFlowControl::CloseStall(Time now)
{
    NS_LOG_LOGIC("stall ends after " << (now - m_stalledSince).As(Time::NS));
    m_stallTime += now - m_stalledSince;
    m_stalledSince = Time(-1);
}

void
FabricFlowControl::OnStall()
{
}

void
FabricFlowControl::SetChargeUnit(uint32_t unit)
{
    NS_ABORT_MSG_IF(unit == 0, "FabricFlowControl: a charge unit of 0 bytes");
    m_unit = unit;
    m_unitMask = (unit & (unit - 1)) == 0 ? unit - 1 : NOT_POWER_OF_TWO;
}

bool
FabricFlowControl::Refill(uint8_t /* lane */, uint32_t /* wireBytes */, int64_t /* now */)
{
    return false;
}

Time
FabricFlowControl::GetStallTime() const
{
    return m_stalledSince.IsNegative() ? m_stallTime
                                       : m_stallTime + (Simulator::Now() - m_stalledSince);
}

Time
FabricFlowControl::GetPausedTime() const
{
    return Time(0);
}

uint64_t
FabricFlowControl::GetPausesReceived() const
{
    return m_pausesReceived;
}

uint64_t
FabricFlowControl::GetPausesSent() const
{
    return m_pausesSent;
}

} // namespace ns3
