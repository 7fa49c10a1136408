/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "straggler-ledger.h"

#include "ns3/abort.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

StragglerLedger::StragglerLedger(uint32_t endpoints)
    : m_sourcePorts(endpoints)
    , m_messages(endpoints)
{
}

void
StragglerLedger::ConnectPort(Ptr<FabricNetDevice> device, uint32_t port)
{
    device->TraceConnectWithoutContext(
        "LastPacketDequeue",
        MakeCallback(&StragglerLedger::LastPacketDequeue, this, port));
}

void
StragglerLedger::ConnectTransport(Ptr<RdmaTransport> transport, std::vector<uint32_t> ports)
{
    const uint32_t src = transport->GetEndpoint();
    NS_ABORT_MSG_IF(src >= m_messages.size(), "ledger: no endpoint " << src);
    m_sourcePorts[src] = std::move(ports);
    transport->TraceConnectWithoutContext("MessagePosted",
                                          MakeCallback(&StragglerLedger::MessagePosted, this, src));
    transport->TraceConnectWithoutContext(
        "FirstPacketSent",
        MakeCallback(&StragglerLedger::FirstPacketSent, this, src));
    transport->TraceConnectWithoutContext(
        "LastPacketSent",
        MakeCallback(&StragglerLedger::LastPacketSent, this, src));
    transport->TraceConnectWithoutContext(
        "MessageInjected",
        MakeCallback(&StragglerLedger::MessageInjected, this, src));
}

void
StragglerLedger::MessageInjected(uint32_t src,
                                 uint32_t msgId,
                                 Time eligible,
                                 Time /* firstByte */,
                                 Time shared,
                                 Time sharedBeforeFirst,
                                 Time portHeldAtEligible)
{
    if (src >= m_messages.size() || msgId >= m_messages[src].size())
    {
        return;
    }
    Message& m = m_messages[src][msgId];
    if (m.postPs < 0)
    {
        return;
    }
    m.eligiblePs = eligible.GetPicoSeconds();
    m.heldEligiblePs = portHeldAtEligible.GetPicoSeconds();
    m.sharedPs = shared.GetPicoSeconds();
    m.sharedFirstPs = sharedBeforeFirst.GetPicoSeconds();
}

void
StragglerLedger::MessagePosted(uint32_t src,
                               uint32_t /* dst */,
                               uint32_t msgId,
                               uint64_t /* bytes */,
                               uint32_t port,
                               Time portHeld)
{
    const std::vector<uint32_t>& ports = m_sourcePorts[src];
    OnPost(src,
           msgId,
           port < ports.size() ? ports[port] : NONE,
           Simulator::Now().GetPicoSeconds(),
           portHeld.GetPicoSeconds());
}

void
StragglerLedger::FirstPacketSent(uint32_t src, uint32_t msgId, Time portHeld)
{
    OnFirstInjected(src, msgId, Simulator::Now().GetPicoSeconds(), portHeld.GetPicoSeconds());
}

void
StragglerLedger::LastPacketSent(uint32_t src, uint32_t msgId, Time idealInjection, Time portHeld)
{
    OnLastInjected(src,
                   msgId,
                   Simulator::Now().GetPicoSeconds(),
                   idealInjection.GetPicoSeconds(),
                   portHeld.GetPicoSeconds());
}

void
StragglerLedger::LastPacketDequeue(uint32_t port, const FabricFields& header, Time wait, Time held)
{
    OnHop(header.m_src, header.m_msgId, port, wait.GetPicoSeconds(), held.GetPicoSeconds());
}

void
StragglerLedger::OnPost(uint32_t src,
                        uint32_t msgId,
                        uint32_t port,
                        int64_t nowPs,
                        int64_t holdMarkPs)
{
    NS_ABORT_MSG_IF(src >= m_messages.size(), "ledger: no endpoint " << src);
    std::vector<Message>& v = m_messages[src];
    if (msgId >= v.size())
    {
        v.resize(msgId + 1);
    }
    Message& m = v[msgId];
    m = Message();
    m.postPs = nowPs;
    m.sourcePort = port;
    m.holdMarkPs = holdMarkPs;
}

void
StragglerLedger::OnFirstInjected(uint32_t src, uint32_t msgId, int64_t nowPs, int64_t holdNowPs)
{
    if (src >= m_messages.size() || msgId >= m_messages[src].size())
    {
        return;
    }
    Message& m = m_messages[src][msgId];
    if (m.postPs >= 0 && m.firstPs < 0)
    {
        m.firstPs = nowPs;
        m.holdFirstPs = holdNowPs;
    }
}

void
StragglerLedger::OnLastInjected(uint32_t src,
                                uint32_t msgId,
                                int64_t nowPs,
                                int64_t idealInjectPs,
                                int64_t holdNowPs)
{
    if (src >= m_messages.size() || msgId >= m_messages[src].size())
    {
        return;
    }
    Message& m = m_messages[src][msgId];
    if (m.postPs < 0)
    {
        return;
    }
    m.injectPs = nowPs;
    m.idealInjectPs = idealInjectPs;
    // Flow control can hold the port only while the message waits to be injected.
    m.sourceHoldPs = std::clamp<int64_t>(holdNowPs - m.holdMarkPs, 0, nowPs - m.postPs);
    m.head = NONE; // a resent last packet: only its own path counts
    m.tail = NONE;
}

void
StragglerLedger::OnHop(uint32_t src, uint32_t msgId, uint32_t port, int64_t waitPs, int64_t holdPs)
{
    if (src >= m_messages.size() || msgId >= m_messages[src].size())
    {
        return;
    }
    Message& m = m_messages[src][msgId];
    if (m.injectPs < 0)
    {
        return;
    }
    const uint32_t index = static_cast<uint32_t>(m_pool.size());
    m_pool.push_back(Hop{port, NONE, waitPs, holdPs});
    if (m.tail == NONE)
    {
        m.head = index;
    }
    else
    {
        m_pool[m.tail].next = index;
    }
    m.tail = index;
}

const StragglerLedger::Message*
StragglerLedger::Find(uint32_t src, uint32_t msgId) const
{
    if (src >= m_messages.size() || msgId >= m_messages[src].size()
        || m_messages[src][msgId].postPs < 0)
    {
        return nullptr;
    }
    return &m_messages[src][msgId];
}

const StragglerLedger::Hop&
StragglerLedger::GetHop(uint32_t index) const
{
    return m_pool.at(index);
}

uint32_t
StragglerLedger::GetEndpoints() const
{
    return m_messages.size();
}

uint32_t
StragglerLedger::GetMessages(uint32_t src) const
{
    return src < m_messages.size() ? m_messages[src].size() : 0;
}

} // namespace ns3
