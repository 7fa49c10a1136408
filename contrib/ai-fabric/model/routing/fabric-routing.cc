/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-routing.h"

#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricRouting");
NS_OBJECT_ENSURE_REGISTERED(FabricRouting);

namespace
{
constexpr uint32_t NO_ROUTE = UINT32_MAX;
const std::vector<uint16_t> g_noPorts;
} // namespace

TypeId
FabricRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricRouting").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

FabricRouting::FabricRouting()
{
    NS_LOG_FUNCTION(this);
}

FabricRouting::~FabricRouting()
{
}

void
FabricRouting::DoDispose()
{
    m_switch = nullptr;
    m_rng = nullptr;
    m_next.clear();
    Object::DoDispose();
}

void
FabricRouting::SetSwitch(const FabricSwitch* sw, Ptr<UniformRandomVariable> rng)
{
    m_switch = sw;
    m_rng = rng;
}

void
FabricRouting::Attach(const FabricSwitch* sw, Ptr<UniformRandomVariable> rng)
{
    NS_LOG_FUNCTION(this << sw);
    SetSwitch(sw, rng);
    // The salt is the stream's first draws, so it too follows the seed.
    const uint64_t hi = m_rng->GetInteger(0, UINT32_MAX);
    const uint64_t lo = m_rng->GetInteger(0, UINT32_MAX);
    m_salt = (hi << 32) | lo;
}

uint32_t
FabricRouting::AddPortSet(const std::vector<uint16_t>& ports)
{
    auto it = std::find(m_portSets.begin(), m_portSets.end(), ports);
    if (it != m_portSets.end())
    {
        return static_cast<uint32_t>(it - m_portSets.begin());
    }
    m_portSets.push_back(ports);
    FabricPortSet e;
    e.count = static_cast<uint16_t>(ports.size());
    e.first = ports.front();
    e.offset = static_cast<uint32_t>(m_portPool.size());
    m_portPool.insert(m_portPool.end(), ports.begin(), ports.end());
    m_setEntry.push_back(e);
    return static_cast<uint32_t>(m_portSets.size() - 1);
}

const std::vector<uint16_t>&
FabricRouting::GetPortSetPorts(uint32_t set) const
{
    return m_portSets[set];
}

void
FabricRouting::SetRouteSet(uint32_t dst, uint32_t set)
{
    if (dst >= m_routeSet.size())
    {
        m_routeSet.resize(dst + 1, NO_ROUTE);
        m_routeEntry.resize(dst + 1);
    }
    m_routeSet[dst] = set;
    m_routeEntry[dst] = m_setEntry[set];
}

void
FabricRouting::SetRoute(uint32_t dst, const std::vector<uint16_t>& ports)
{
    NS_ABORT_MSG_IF(ports.empty(), "empty route");
    SetRouteSet(dst, AddPortSet(ports));
}

void
FabricRouting::CopyRoute(uint32_t dst, uint32_t like)
{
    NS_ABORT_MSG_IF(like >= m_routeSet.size() || m_routeSet[like] == NO_ROUTE,
                    "no route to copy from endpoint " << like);
    SetRouteSet(dst, m_routeSet[like]);
}

const std::vector<uint16_t>&
FabricRouting::GetRoute(uint32_t dst) const
{
    if (dst >= m_routeSet.size() || m_routeSet[dst] == NO_ROUTE)
    {
        return g_noPorts;
    }
    return m_portSets[m_routeSet[dst]];
}

uint64_t
FabricRouting::GetLeastQueuedTowards(uint32_t dst, uint8_t priority) const
{
    if (dst >= m_routeEntry.size() || m_routeEntry[dst].count == 0)
    {
        return 0;
    }
    const FabricPortSet& set = m_routeEntry[dst];
    const uint16_t* ports = GetPorts(set);
    uint64_t least = m_switch->GetQueuedBytes(ports[0], priority);
    for (uint32_t k = 1; k < set.count && least > 0; ++k)
    {
        least = std::min(least, m_switch->GetQueuedBytes(ports[k], priority));
    }
    return least;
}

const FabricRouting*
FabricRouting::GetNextRouting(uint16_t port)
{
    if (m_next.empty())
    {
        const uint32_t n = m_switch->GetNPorts();
        m_next.assign(n, nullptr);
        for (uint32_t p = 0; p < n; ++p)
        {
            const Ptr<FabricNetDevice> dev = m_switch->GetPort(p);
            const Ptr<FabricChannel> channel = dev->GetFabricChannel();
            const Ptr<FabricNetDevice> peer
                = channel ? channel->GetPeer(PeekPointer(dev)) : nullptr;
            const Ptr<FabricSwitch> sw
                = (peer && peer->GetNode()) ? peer->GetNode()->GetObject<FabricSwitch>() : nullptr;
            m_next[p] = (sw && sw->GetRouting()) ? PeekPointer(sw->GetRouting()) : nullptr;
        }
    }
    return m_next[port];
}

uint64_t
FabricRouting::DownstreamBytes(uint16_t port, uint32_t dst, uint8_t priority)
{
    const FabricRouting* next = GetNextRouting(port);
    return next ? next->GetLeastQueuedTowards(dst, priority) : 0;
}

} // namespace ns3
