/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-transport.h"

#include "fabric-header.h"
#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTransport");
NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaTransport")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<RdmaTransport>()
              .AddAttribute("DataPriority",
                            "Lane (virtual lane or traffic class) of data packets",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RdmaTransport::m_priority),
                            MakeUintegerChecker<uint8_t>())
              .AddTraceSource("MessageDelivered",
                              "All bytes of a message have arrived at this endpoint",
                              MakeTraceSourceAccessor(&RdmaTransport::m_messageDelivered),
                              "ns3::RdmaTransport::MessageTracedCallback");
    return tid;
}

RdmaTransport::RdmaTransport()
{
}

RdmaTransport::~RdmaTransport()
{
}

void
RdmaTransport::DoDispose()
{
    m_nic = nullptr;
    m_qps.clear();
    m_ring.clear();
    m_rxProgress.clear();
    Object::DoDispose();
}

void
RdmaTransport::Setup(uint32_t endpoint, Ptr<FabricNetDevice> nic, uint32_t mtu)
{
    m_endpoint = endpoint;
    m_nic = nic;
    m_mtu = (mtu == 0) ? nic->GetPayloadMtu() : std::min(mtu, nic->GetPayloadMtu());
    FabricHeader largest;
    largest.m_payload = m_mtu;
    largest.m_flags = FabricHeader::FLAG_FIRST;
    nic->SetPullCallback(MakeCallback(&RdmaTransport::Pull, this),
                         m_priority,
                         nic->WireBytes(largest));
    nic->SetFabricReceiveCallback(MakeCallback(&RdmaTransport::Receive, this));
}

uint32_t
RdmaTransport::PostSend(uint32_t dst, uint16_t qp, uint64_t bytes)
{
    NS_ABORT_MSG_IF(!m_nic, "RdmaTransport used before Setup");
    const uint64_t key = (static_cast<uint64_t>(dst) << 16) | qp;
    auto [it, inserted] = m_qpIndex.try_emplace(key, static_cast<uint32_t>(m_qps.size()));
    if (inserted)
    {
        m_qps.push_back(QueuePair{dst, qp, false, {}});
    }
    QueuePair& q = m_qps[it->second];
    const uint32_t msgId = m_nextMsgId++;
    q.pending.push_back(OutMessage{msgId, bytes, 0, 0});
    m_bytesPosted += bytes;
    if (!q.active)
    {
        q.active = true;
        m_ring.push_back(it->second);
    }
    m_nic->Wake();
    return msgId;
}

bool
RdmaTransport::Pull(FabricTxItem& item)
{
    if (m_ring.empty())
    {
        return false;
    }
    const uint32_t qi = m_ring.front();
    m_ring.pop_front();
    QueuePair& q = m_qps[qi];
    OutMessage& m = q.pending.front();

    FabricHeader h;
    h.m_src = m_endpoint;
    h.m_dst = q.dst;
    h.m_qp = q.qp;
    h.m_priority = m_priority;
    h.m_kind = FabricHeader::DATA;
    h.m_msgId = m.msgId;
    h.m_psn = m.psn++;
    h.m_payload = static_cast<uint32_t>(std::min<uint64_t>(m_mtu, m.bytes - m.sent));
    h.m_msgBytes = m.bytes;
    h.m_flags = (m.sent == 0 ? FabricHeader::FLAG_FIRST : 0);
    m.sent += h.m_payload;
    const bool last = m.sent >= m.bytes;
    if (last)
    {
        h.m_flags |= FabricHeader::FLAG_LAST;
        q.pending.pop_front();
    }
    if (!q.pending.empty())
    {
        m_ring.push_back(qi);
    }
    else
    {
        q.active = false;
    }

    Ptr<Packet> p = Create<Packet>(h.m_payload);
    p->AddHeader(h);
    item.packet = p;
    item.wireBytes = m_nic->WireBytes(h);
    item.priority = m_priority;
    item.more = !m_ring.empty();
    return true;
}

void
RdmaTransport::Receive(Ptr<FabricNetDevice> /* nic */,
                       Ptr<Packet> packet,
                       uint32_t /* wireBytes */,
                       uint8_t /* priority */)
{
    FabricHeader h;
    packet->PeekHeader(h);
    NS_ABORT_MSG_IF(h.m_dst != m_endpoint,
                    "endpoint " << m_endpoint << " received a packet for " << h.m_dst);
    m_bytesReceived += h.m_payload;
    bool complete = false;
    if ((h.m_flags & (FabricHeader::FLAG_FIRST | FabricHeader::FLAG_LAST))
        == (FabricHeader::FLAG_FIRST | FabricHeader::FLAG_LAST))
    {
        complete = true; // single-packet message
    }
    else
    {
        const uint64_t key = (static_cast<uint64_t>(h.m_src) << 32) | h.m_msgId;
        uint64_t& got = m_rxProgress[key];
        got += h.m_payload;
        if (got >= h.m_msgBytes)
        {
            m_rxProgress.erase(key);
            complete = true;
        }
    }
    if (complete)
    {
        ++m_messagesDelivered;
        m_messageDelivered(h.m_src, m_endpoint, h.m_msgId, h.m_msgBytes);
    }
}

uint32_t
RdmaTransport::GetEndpoint() const
{
    return m_endpoint;
}

Ptr<FabricNetDevice>
RdmaTransport::GetNic() const
{
    return m_nic;
}

uint64_t
RdmaTransport::GetBytesPosted() const
{
    return m_bytesPosted;
}

uint64_t
RdmaTransport::GetBytesReceived() const
{
    return m_bytesReceived;
}

uint64_t
RdmaTransport::GetMessagesDelivered() const
{
    return m_messagesDelivered;
}

uint64_t
RdmaTransport::GetMessagesInProgress() const
{
    return m_rxProgress.size();
}

} // namespace ns3
