/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dragonfly-plus-routing.h"

#include "ns3/abort.h"
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DragonflyPlusRouting");
NS_OBJECT_ENSURE_REGISTERED(DragonflyPlusRouting);

namespace
{
constexpr uint32_t NO_ROUTE = UINT32_MAX;
} // namespace

TypeId
DragonflyPlusRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::DragonflyPlusRouting")
              .SetParent<FabricRouting>()
              .SetGroupName("AiFabric")
              .AddAttribute("EqualCostRouting",
                            "The strategy (a FabricRouting type) that chooses among equal-cost "
                            "ports, created when the strategy is attached to its switch",
                            TypeIdValue(EcmpRouting::GetTypeId()),
                            MakeTypeIdAccessor(&DragonflyPlusRouting::m_equalCostType),
                            MakeTypeIdChecker());
    return tid;
}

DragonflyPlusRouting::DragonflyPlusRouting()
{
    NS_LOG_FUNCTION(this);
}

DragonflyPlusRouting::~DragonflyPlusRouting()
{
}

void
DragonflyPlusRouting::DoDispose()
{
    if (m_equalCost)
    {
        m_equalCost->Dispose();
        m_equalCost = nullptr;
    }
    FabricRouting::DoDispose();
}

void
DragonflyPlusRouting::Attach(const FabricSwitch* sw, Ptr<UniformRandomVariable> rng)
{
    NS_LOG_FUNCTION(this << sw);
    if (!m_equalCost)
    {
        ObjectFactory factory(m_equalCostType.GetName());
        m_equalCost = factory.Create<FabricRouting>();
    }
    // The equal-cost strategy draws the salt: one draw sequence whatever chooses the paths.
    SetSwitch(sw, rng);
    m_equalCost->Attach(sw, rng);
}

Ptr<FabricRouting>
DragonflyPlusRouting::GetEqualCostRouting() const
{
    return m_equalCost;
}

void
DragonflyPlusRouting::SetEqualCostRouting(Ptr<FabricRouting> routing)
{
    NS_ABORT_MSG_IF(m_switch != nullptr, "set the equal-cost strategy before attaching");
    m_equalCost = routing;
}

void
DragonflyPlusRouting::SetGroups(uint32_t group,
                                uint32_t groups,
                                const std::vector<uint16_t>& dstGroup)
{
    m_group = group;
    m_groups = groups;
    m_dstGroup = dstGroup;
}

void
DragonflyPlusRouting::SetGroupRoute(uint32_t group, const std::vector<uint16_t>& ports)
{
    if (group >= m_groupRoute.size())
    {
        m_groupRoute.resize(group + 1, NO_ROUTE);
    }
    if (ports.empty())
    {
        return;
    }
    m_groupRoute[group] = AddPortSet(ports);
}

void
DragonflyPlusRouting::SetPortKind(uint16_t port, bool edge, bool global)
{
    if (port >= m_portKind.size())
    {
        m_portKind.resize(port + 1, 0);
    }
    m_portKind[port] = (edge ? EDGE : 0) | (global ? GLOBAL : 0);
    m_hasEdgePorts = m_hasEdgePorts || edge;
}

bool
DragonflyPlusRouting::IsPort(uint16_t port, PortKind kind) const
{
    return port < m_portKind.size() && (m_portKind[port] & kind) != 0;
}

uint32_t
DragonflyPlusRouting::GetGroup() const
{
    return m_group;
}

uint64_t
DragonflyPlusRouting::GetDetoured() const
{
    return m_detoured;
}

uint64_t
DragonflyPlusRouting::GetDetoursEnded() const
{
    return m_detoursEnded;
}

const std::vector<uint16_t>&
DragonflyPlusRouting::GetGroupPorts(uint32_t group) const
{
    return GetPortSetPorts(m_groupRoute[group]);
}

uint64_t
DragonflyPlusRouting::GetQueuedBytes(uint16_t port, uint8_t priority) const
{
    return m_switch->GetQueuedBytes(port, priority);
}

uint64_t
DragonflyPlusRouting::GetLeastQueuedTowardsGroup(uint32_t group, uint8_t priority) const
{
    if (group >= m_groupRoute.size() || m_groupRoute[group] == NO_ROUTE)
    {
        return 0;
    }
    uint64_t least = UINT64_MAX;
    for (const uint16_t p : GetGroupPorts(group))
    {
        least = std::min(least, GetQueuedBytes(p, priority));
    }
    return least == UINT64_MAX ? 0 : least;
}

uint16_t
DragonflyPlusRouting::Choose(const uint16_t* ports,
                             uint32_t n,
                             const FabricFields& header,
                             uint8_t priority)
{
    return m_equalCost->Choose(ports, n, header, priority);
}

FabricRoute
DragonflyPlusRouting::Route(FabricFields& header, uint16_t inPort, uint8_t priority)
{
    FabricRoute route{0, priority, false};
    if (header.m_routingTag == 0 && IsPort(inPort, EDGE))
    {
        route.rewrite = StartDetour(header, priority);
    }
    // A detour inside its intermediate group heads for the destination already.
    const bool inViaGroup = header.m_routingTag != 0 && header.m_routingTag - 1u == m_group;
    const FabricPortSet& set = (header.m_routingTag != 0 && !inViaGroup)
                                   ? GetPortSet(m_groupRoute[header.m_routingTag - 1])
                                   : GetCandidates(header.m_dst);
    NS_ABORT_MSG_IF(set.count == 0, "no route to endpoint " << header.m_dst);
    route.port = (set.count == 1) ? set.first : Choose(GetPorts(set), set.count, header, priority);
    if (inViaGroup && (m_hasEdgePorts || IsPort(route.port, GLOBAL)))
    {
        // The detour turns towards the destination here (a leaf sends it up, or a spine
        // onto a global link): from here on, minimal, one lane up. Turning at the turn, not
        // where the packet entered the group, keeps every lane's paths free of a down-up
        // turn, so neither lane can close a cycle of credit waits.
        header.m_routingTag = 0;
        header.m_priority = route.priority = static_cast<uint8_t>(std::min(priority + 1, 15));
        ++m_detoursEnded;
        route.rewrite = true;
        NS_LOG_LOGIC("detour of " << header.m_src << "->" << header.m_dst << " psn " << header.m_psn
                                  << " ends in group " << m_group << ": lane " << +route.priority);
    }
    return route;
}

bool
DragonflyPlusRouting::StartDetour(FabricFields& header, uint8_t priority)
{
    if (m_groups <= 2 || header.m_dst >= m_dstGroup.size() || m_dstGroup[header.m_dst] == m_group)
    {
        return false;
    }
    const uint32_t dstGroup = m_dstGroup[header.m_dst];
    // A random intermediate group other than the source's and the destination's.
    uint32_t g = m_rng->GetInteger(0, m_groups - 3);
    for (const uint32_t skip : {std::min(m_group, dstGroup), std::max(m_group, dstGroup)})
    {
        g += (g >= skip) ? 1 : 0;
    }
    if (g >= m_groupRoute.size() || m_groupRoute[g] == NO_ROUTE || !Detour(header, g, priority))
    {
        return false;
    }
    header.m_routingTag = static_cast<uint16_t>(g + 1);
    ++m_detoured;
    NS_LOG_LOGIC("detour of " << header.m_src << "->" << header.m_dst << " psn " << header.m_psn
                              << " from group " << m_group << " through group " << g);
    return true;
}

} // namespace ns3
