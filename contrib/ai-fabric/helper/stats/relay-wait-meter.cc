/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "relay-wait-meter.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// \return the key of (source, message) in a port's open messages
uint64_t
Key(uint32_t src, uint32_t msgId)
{
    return (static_cast<uint64_t>(src) << 32) | msgId;
}

} // namespace

RelayWaitMeter::RelayWaitMeter(uint32_t endpoints)
    : m_sharedPs(endpoints)
{
}

void
RelayWaitMeter::ConnectRelayPort(Ptr<FabricNetDevice> device, uint32_t endpoint)
{
    const auto port = static_cast<uint32_t>(m_ports.size());
    m_ports.push_back(device);
    m_endpoint.push_back(endpoint);
    m_open.emplace_back();
    device->TraceConnectWithoutContext(
        "FirstPacketEnqueue",
        MakeCallback(&RelayWaitMeter::FirstPacketEnqueue, this, port));
    device->TraceConnectWithoutContext(
        "LastPacketDequeue",
        MakeCallback(&RelayWaitMeter::LastPacketDequeue, this, port));
}

void
RelayWaitMeter::FirstPacketEnqueue(uint32_t port, const FabricFields& header)
{
    if (header.m_kind != FabricHeader::DATA || header.m_src == m_endpoint[port]
        || header.m_src >= m_sharedPs.size())
    {
        return; // control, or its own message (pulled, not queued)
    }
    m_open[port][Key(header.m_src, header.m_msgId)]
        = m_ports[port]->GetBusyTimeUntilNow().GetPicoSeconds();
}

void
RelayWaitMeter::LastPacketDequeue(uint32_t port,
                                  const FabricFields& header,
                                  Time /* wait */,
                                  Time /* held */)
{
    auto& open = m_open[port];
    const auto it = open.find(Key(header.m_src, header.m_msgId));
    if (it == open.end())
    {
        return;
    }
    const FabricNetDevice& dev = *m_ports[port];
    // Its own packets before the last: the message's wire bytes at this port less the last's.
    FabricFields whole = header;
    whole.m_payload = static_cast<uint32_t>(std::min<uint64_t>(header.m_msgBytes, UINT32_MAX));
    whole.m_flags = FabricHeader::FLAG_FIRST;
    const uint64_t own
        = dev.WireBytes(whole) - std::min<uint64_t>(dev.WireBytes(whole), dev.WireBytes(header));
    const int64_t ownPs = static_cast<int64_t>(static_cast<unsigned __int128>(own) * 8u
                                               * 1000000000000ull / dev.GetDataRate().GetBitRate());
    const int64_t busy = dev.GetBusyTimeUntilNow().GetPicoSeconds() - it->second;
    open.erase(it);
    std::vector<int64_t>& v = m_sharedPs[header.m_src];
    if (header.m_msgId >= v.size())
    {
        v.resize(header.m_msgId + 1, -1);
    }
    v[header.m_msgId]
        = std::max<int64_t>(v[header.m_msgId], 0) + std::max<int64_t>(busy - ownPs, 0);
}

int64_t
RelayWaitMeter::GetSharedPs(uint32_t src, uint32_t msgId) const
{
    return src < m_sharedPs.size() && msgId < m_sharedPs[src].size() ? m_sharedPs[src][msgId] : -1;
}

} // namespace ns3
