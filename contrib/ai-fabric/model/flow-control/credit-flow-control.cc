/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "credit-flow-control.h"

#include "ns3/abort.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CreditFlowControl");
NS_OBJECT_ENSURE_REGISTERED(CreditFlowControl);

TypeId
CreditFlowControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::CreditFlowControl")
              .SetParent<FabricFlowControl>()
              .SetGroupName("AiFabric")
              .AddConstructor<CreditFlowControl>()
              .AddAttribute("CreditsPerLane",
                            "Receive buffer the peer advertises per lane, bytes",
                            UintegerValue(0),
                            MakeUintegerAccessor(&CreditFlowControl::m_creditsPerLane),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("CreditBlockBytes",
                            "Credit unit: a packet consumes whole blocks of this size, bytes",
                            UintegerValue(64),
                            MakeUintegerAccessor(&CreditFlowControl::SetChargeUnit,
                                                 &CreditFlowControl::GetChargeUnit),
                            MakeUintegerChecker<uint32_t>(1));
    return tid;
}

CreditFlowControl::CreditFlowControl()
    : m_returns(16)
{
    m_lossless = true;
    SetChargeUnit(64);
    m_allowance.fill(0); // no credit until the lanes are sized (SetLanes)
}

CreditFlowControl::~CreditFlowControl()
{
}

void
CreditFlowControl::DoDispose()
{
    m_lanes = 0;
    m_returns.Clear();
    FabricFlowControl::DoDispose();
}

void
CreditFlowControl::SetLanes(uint8_t lanes)
{
    NS_ABORT_MSG_IF(lanes > MAX_LANES,
                    "CreditFlowControl: " << +lanes << " lanes, at most " << +MAX_LANES);
    for (; m_lanes < lanes; ++m_lanes)
    {
        m_allowance[m_lanes] = static_cast<int64_t>(m_creditsPerLane);
    }
}

bool
CreditFlowControl::Refill(uint8_t lane, uint32_t wireBytes, int64_t now)
{
    if (!m_returns.Empty() && m_returns.Front().at <= now)
    {
        AbsorbCredits(now);
    }
    return m_allowance[lane] >= static_cast<int64_t>(CreditBytes(wireBytes));
}

bool
CreditFlowControl::IsHeld(uint8_t lane, uint32_t wireBytes) const
{
    return GetCredits(lane) < static_cast<int64_t>(CreditBytes(wireBytes));
}

void
CreditFlowControl::AbsorbCredits(int64_t now)
{
    while (!m_returns.Empty() && m_returns.Front().at <= now)
    {
        const CreditReturn& r = m_returns.Front();
        m_allowance[r.lane] += CreditBytes(r.bytes);
        m_returns.PopFront();
    }
}

void
CreditFlowControl::ReceiveCredits(int64_t now, int64_t at, uint8_t lane, uint32_t bytes)
{
    // Returns that have arrived by now are counted here (the ring stays one cable delay
    // long: the packet path only counts them when a lane runs short).
    if (!m_returns.Empty() && m_returns.Front().at <= now)
    {
        AbsorbCredits(now);
    }
    // Returns arrive in the order they are pushed: the cable's delay is constant.
    CreditReturn& r = m_returns.PushSlot();
    r.at = at;
    r.bytes = bytes;
    r.lane = lane;
    if (IsStalled())
    {
        OnStall(); // stalled, perhaps for these credits
    }
}

void
CreditFlowControl::OnStall()
{
    if (m_wakePending || m_returns.Empty())
    {
        return; // a wake-up is due no later than the first return, or none is in flight
    }
    NS_LOG_LOGIC("credit stall: wake at the first return, " << m_returns.Size() << " in flight");
    m_wakePending = true;
    const Time at = TimeStep(m_returns.Front().at);
    Ptr<Node> node = m_device ? m_device->GetNode() : nullptr;
    m_wakeEvent.ScheduleWithContext(node ? node->GetId() : Simulator::GetContext(),
                                    std::max(at - Simulator::Now(), Time(0)));
}

void
CreditFlowControl::Wake()
{
    m_wakePending = false;
    NS_LOG_LOGIC("credit stall: the first return arrived, " << m_returns.Size()
                                                            << " in flight; the port tries again");
    if (m_device)
    {
        m_device->NotifyFlowControlOpen();
    }
}

int64_t
CreditFlowControl::GetCredits(uint8_t lane) const
{
    if (lane >= m_lanes)
    {
        return 0;
    }
    int64_t credits = m_allowance[lane];
    const int64_t now = Simulator::Now().GetTimeStep();
    for (std::size_t i = 0; i < m_returns.Size(); ++i)
    {
        const CreditReturn& r = m_returns[i];
        if (r.at > now)
        {
            break; // in flight still
        }
        if (r.lane == lane)
        {
            credits += CreditBytes(r.bytes);
        }
    }
    return credits;
}

std::size_t
CreditFlowControl::GetReturnsInFlight() const
{
    return m_returns.Size();
}

int64_t
CreditFlowControl::GetHeldPs(uint8_t /* lane */) const
{
    return GetStallTime().GetPicoSeconds();
}

void
CreditFlowControl::OnBufferFreed(uint8_t lane, uint32_t wireBytes)
{
    m_device->ReturnCreditsToPeer(lane, wireBytes);
}

bool
CreditFlowControl::OnCharged(uint8_t /* lane */,
                             uint64_t /* laneCharge */,
                             const FabricBufferView& /* pool */)
{
    return false;
}

} // namespace ns3
