/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pfc-flow-control.h"

#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcFlowControl");
NS_OBJECT_ENSURE_REGISTERED(PfcFlowControl);

TypeId
PfcFlowControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::PfcFlowControl")
              .SetParent<FabricFlowControl>()
              .SetGroupName("AiFabric")
              .AddConstructor<PfcFlowControl>()
              .AddAttribute("Headroom",
                            "Bytes this port reserves in its switch's shared buffer for data "
                            "still in flight when an XOFF lands (LinkProfile::PfcHeadroomBytes)",
                            UintegerValue(0),
                            MakeUintegerAccessor(&PfcFlowControl::m_headroom),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("ResumeOffset",
                            "XON once a paused class holds this many bytes less than the XOFF "
                            "threshold (one largest frame), bytes",
                            UintegerValue(0),
                            MakeUintegerAccessor(&PfcFlowControl::m_resumeOffset),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

PfcFlowControl::PfcFlowControl()
{
    m_lossless = true;
}

PfcFlowControl::~PfcFlowControl()
{
}

void
PfcFlowControl::DoDispose()
{
    m_lanes.clear();
    FabricFlowControl::DoDispose();
}

void
PfcFlowControl::SetLanes(uint8_t lanes)
{
    if (m_lanes.size() < lanes)
    {
        m_lanes.resize(lanes);
    }
}

bool
PfcFlowControl::IsHeld(uint8_t lane, uint32_t /* wireBytes */) const
{
    return m_lanes[lane].paused;
}

bool
PfcFlowControl::ReceivePause(uint8_t lane, bool paused)
{
    SetLanes(lane + 1);
    Lane& l = m_lanes[lane];
    if (l.paused == paused)
    {
        return false;
    }
    l.paused = paused;
    if (lane < MAX_LANES)
    {
        m_allowance[lane] = paused ? 0 : OPEN; // a paused class lets nothing go
    }
    if (paused)
    {
        ++m_pausesReceived;
        l.pausedSince = Simulator::Now();
    }
    else
    {
        const Time held = Simulator::Now() - l.pausedSince;
        m_pausedTime += held;
        l.pausedPs += held.GetPicoSeconds();
    }
    return true;
}

int64_t
PfcFlowControl::GetHeldPs(uint8_t lane) const
{
    const Lane& l = m_lanes[lane];
    return l.pausedPs + (l.paused ? (Simulator::Now() - l.pausedSince).GetPicoSeconds() : 0);
}

void
PfcFlowControl::OnBufferFreed(uint8_t /* lane */, uint32_t /* wireBytes */)
{
}

bool
PfcFlowControl::OnCharged(uint8_t lane, uint64_t laneCharge, const FabricBufferView& pool)
{
    Lane& l = m_lanes[lane];
    if (l.xoffSent || laneCharge <= DynamicThreshold(pool))
    {
        return false;
    }
    NS_LOG_LOGIC("XOFF lane " << +lane << ": " << laneCharge << " B charged, threshold "
                              << DynamicThreshold(pool) << " B");
    l.xoffSent = true;
    ++m_pausesSent;
    m_device->SendPauseToPeer(lane, true);
    return true;
}

bool
PfcFlowControl::TryResume(uint8_t lane, uint64_t laneCharge, const FabricBufferView& pool)
{
    if (laneCharge + m_resumeOffset > DynamicThreshold(pool))
    {
        return false;
    }
    NS_LOG_LOGIC("XON lane " << +lane << ": " << laneCharge << " B charged, threshold "
                             << DynamicThreshold(pool) << " B");
    m_lanes[lane].xoffSent = false;
    m_device->SendPauseToPeer(lane, false);
    return true;
}

uint64_t
PfcFlowControl::GetHeadroom() const
{
    return m_headroom;
}

Time
PfcFlowControl::GetPausedTime() const
{
    Time t = m_pausedTime;
    for (const Lane& l : m_lanes)
    {
        if (l.paused)
        {
            t += Simulator::Now() - l.pausedSince;
        }
    }
    return t;
}

bool
PfcFlowControl::IsPaused(uint8_t lane) const
{
    return lane < m_lanes.size() && m_lanes[lane].paused;
}

bool
PfcFlowControl::IsPausingPeer(uint8_t lane) const
{
    return lane < m_lanes.size() && m_lanes[lane].xoffSent;
}

} // namespace ns3
