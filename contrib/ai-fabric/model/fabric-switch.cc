/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-switch.h"

#include "fabric-header.h"
#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/packet.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

namespace
{
constexpr uint32_t NO_ROUTE = UINT32_MAX;

/// splitmix64 finaliser: a cheap, well-mixed 64-bit hash step.
inline uint64_t
Mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

const std::vector<uint16_t> g_noPorts;
} // namespace

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricSwitch")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricSwitch>();
    return tid;
}

FabricSwitch::FabricSwitch()
{
}

FabricSwitch::~FabricSwitch()
{
}

void
FabricSwitch::DoDispose()
{
    m_ports.clear();
    Object::DoDispose();
}

uint32_t
FabricSwitch::AddPort(Ptr<FabricNetDevice> port)
{
    NS_ABORT_MSG_IF(m_ports.size() >= UINT16_MAX, "too many ports on one switch");
    port->SetFabricReceiveCallback(MakeCallback(&FabricSwitch::Receive, this));
    m_ports.push_back(port);
    return m_ports.size() - 1;
}

void
FabricSwitch::SetRoute(uint32_t dst, const std::vector<uint16_t>& ports)
{
    NS_ABORT_MSG_IF(ports.empty(), "empty route");
    if (dst >= m_routeSet.size())
    {
        m_routeSet.resize(dst + 1, NO_ROUTE);
    }
    auto it = std::find(m_portSets.begin(), m_portSets.end(), ports);
    if (it == m_portSets.end())
    {
        m_portSets.push_back(ports);
        it = m_portSets.end() - 1;
    }
    m_routeSet[dst] = static_cast<uint32_t>(it - m_portSets.begin());
}

const std::vector<uint16_t>&
FabricSwitch::GetRoute(uint32_t dst) const
{
    if (dst >= m_routeSet.size() || m_routeSet[dst] == NO_ROUTE)
    {
        return g_noPorts;
    }
    return m_portSets[m_routeSet[dst]];
}

void
FabricSwitch::SetHashSalt(uint64_t salt)
{
    m_salt = salt;
}

uint32_t
FabricSwitch::GetNPorts() const
{
    return m_ports.size();
}

Ptr<FabricNetDevice>
FabricSwitch::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

uint64_t
FabricSwitch::GetForwardedPackets() const
{
    return m_forwarded;
}

void
FabricSwitch::Receive(Ptr<FabricNetDevice> /* inPort */, Ptr<Packet> packet)
{
    FabricHeader header;
    packet->PeekHeader(header);
    const std::vector<uint16_t>& ports = GetRoute(header.m_dst);
    // Routes are verified complete when the fabric is built.
    NS_ABORT_MSG_IF(ports.empty(), "no route to endpoint " << header.m_dst);
    uint16_t port = ports[0];
    if (ports.size() > 1)
    {
        const uint64_t key = (static_cast<uint64_t>(header.m_src) << 32)
                             ^ (static_cast<uint64_t>(header.m_dst) << 12) ^ header.m_qp;
        port = ports[Mix(key ^ m_salt) % ports.size()];
    }
    FabricNetDevice* egress = PeekPointer(m_ports[port]);
    FabricTxItem item;
    item.wireBytes = egress->WireBytes(header);
    item.priority = header.m_priority;
    item.packet = packet;
    ++m_forwarded;
    egress->Enqueue(std::move(item));
}

} // namespace ns3
