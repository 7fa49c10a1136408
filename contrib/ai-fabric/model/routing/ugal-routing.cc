/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ugal-routing.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UgalRouting");
NS_OBJECT_ENSURE_REGISTERED(UgalRouting);

TypeId
UgalRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UgalRouting")
                            .SetParent<DragonflyPlusRouting>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<UgalRouting>();
    return tid;
}

UgalRouting::UgalRouting()
{
    NS_LOG_FUNCTION(this);
}

UgalRouting::~UgalRouting()
{
}

bool
UgalRouting::Detour(const FabricFields& header, uint32_t via, uint8_t priority)
{
    // UGAL-L: minimal unless its queue x hops exceeds the detour's; a minimal inter-group
    // path crosses at most 3 switch-to-switch hops, a Valiant one 5 (Kim et al. 2008). Each
    // path's port is the one the equal-cost choice would take (a choice that draws or rotates
    // does so here too).
    const std::vector<uint16_t>& minPorts = GetRoute(header.m_dst);
    const std::vector<uint16_t>& viaPorts = GetGroupPorts(via);
    const uint64_t qMin
        = GetQueuedBytes(Choose(minPorts.data(), minPorts.size(), header, priority), priority);
    const uint64_t qVia
        = GetQueuedBytes(Choose(viaPorts.data(), viaPorts.size(), header, priority), priority);
    const bool detour = qMin * 3 > qVia * 5;
    NS_LOG_LOGIC("UGAL " << header.m_src << "->" << header.m_dst << " psn " << header.m_psn
                         << ": minimal queue " << qMin << " B x 3 against " << qVia
                         << " B x 5 through group " << via << ": "
                         << (detour ? "non-minimal" : "minimal"));
    return detour;
}

} // namespace ns3
