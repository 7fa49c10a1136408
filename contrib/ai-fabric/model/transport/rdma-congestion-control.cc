/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-congestion-control.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaCongestionControl").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

RdmaCongestionControl::RdmaCongestionControl()
{
}

RdmaCongestionControl::~RdmaCongestionControl()
{
}

void
RdmaCongestionControl::DoDispose()
{
    m_rateCb = RateCallback();
    Object::DoDispose();
}

void
RdmaCongestionControl::Start(DataRate lineRate, RateCallback cb)
{
    NS_ABORT_MSG_IF(lineRate.GetBitRate() == 0, "congestion control started at a zero line rate");
    m_lineBps = lineRate.GetBitRate();
    m_rateBps = m_lineBps;
    m_minRateBps = m_lineBps;
    m_rateCb = cb;
    DoStart();
}

void
RdmaCongestionControl::NotifyCongestion()
{
    ++m_notifications;
    DoNotifyCongestion();
}

void
RdmaCongestionControl::NotifySent(uint32_t wireBytes)
{
    DoNotifySent(wireBytes);
}

DataRate
RdmaCongestionControl::GetRate() const
{
    return DataRate(m_rateBps);
}

DataRate
RdmaCongestionControl::GetLineRate() const
{
    return DataRate(m_lineBps);
}

bool
RdmaCongestionControl::IsLimited() const
{
    return m_rateBps < m_lineBps;
}

void
RdmaCongestionControl::SetRateBps(uint64_t bps)
{
    bps = std::min(bps, m_lineBps);
    if (bps == m_rateBps)
    {
        return;
    }
    NS_LOG_FUNCTION(this << m_rateBps << bps);
    if (bps < m_rateBps)
    {
        ++m_cuts;
        m_minRateBps = std::min(m_minRateBps, bps);
    }
    else
    {
        ++m_increases;
    }
    m_rateBps = bps;
    if (!m_rateCb.IsNull())
    {
        m_rateCb(DataRate(bps));
    }
}

uint64_t
RdmaCongestionControl::GetNotifications() const
{
    return m_notifications;
}

uint64_t
RdmaCongestionControl::GetRateCuts() const
{
    return m_cuts;
}

uint64_t
RdmaCongestionControl::GetRateIncreases() const
{
    return m_increases;
}

DataRate
RdmaCongestionControl::GetMinRate() const
{
    return DataRate(m_minRateBps);
}

uint64_t
RdmaCongestionControl::GetRateBps() const
{
    return m_rateBps;
}

uint64_t
RdmaCongestionControl::GetLineRateBps() const
{
    return m_lineBps;
}

} // namespace ns3
