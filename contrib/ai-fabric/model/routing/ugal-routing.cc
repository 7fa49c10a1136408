/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ugal-routing.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <cmath>

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
                            .AddConstructor<UgalRouting>()
                            .AddAttribute("DownstreamWeight",
                                          "Weight of the next switch's queue in a path's queue "
                                          "estimate (0: UGAL-L, the local egress queue alone)",
                                          DoubleValue(1.0),
                                          MakeDoubleAccessor(&UgalRouting::m_downstreamWeight),
                                          MakeDoubleChecker<double>(0.0))
                            .AddAttribute("Threshold",
                                          "Bytes by which the minimal path's weighted queue must "
                                          "exceed the detour's before the packet detours (a bias "
                                          "towards minimal paths)",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&UgalRouting::m_threshold),
                                          MakeUintegerChecker<uint64_t>());
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
    // UGAL: minimal unless its queue x hops exceeds the detour's; a minimal inter-group
    // path crosses at most 3 switch-to-switch hops, a Valiant one 5 (Kim et al. 2008). Each
    // path's port is the one the equal-cost choice would take (a choice that draws or rotates
    // does so here too).
    const std::vector<uint16_t>& minPorts = GetRoute(header.m_dst);
    const std::vector<uint16_t>& viaPorts = GetGroupPorts(via);
    const uint16_t minPort = Choose(minPorts.data(), minPorts.size(), header, priority);
    const uint16_t viaPort = Choose(viaPorts.data(), viaPorts.size(), header, priority);
    uint64_t qMin = GetQueuedBytes(minPort, priority);
    uint64_t qVia = GetQueuedBytes(viaPort, priority);
    if (m_downstreamWeight > 0)
    {
        const uint64_t nextMin = DownstreamBytes(minPort, header.m_dst, priority);
        uint64_t nextVia = 0;
        if (const auto* next = dynamic_cast<const DragonflyPlusRouting*>(GetNextRouting(viaPort)))
        {
            nextVia = next->GetGroup() == via ? next->GetLeastQueuedTowards(header.m_dst, priority)
                                              : next->GetLeastQueuedTowardsGroup(via, priority);
        }
        qMin += static_cast<uint64_t>(std::llround(m_downstreamWeight * nextMin));
        qVia += static_cast<uint64_t>(std::llround(m_downstreamWeight * nextVia));
    }
    const bool detour = qMin * 3 > qVia * 5 + m_threshold;
    NS_LOG_LOGIC("UGAL " << header.m_src << "->" << header.m_dst << " psn " << header.m_psn
                         << ": minimal queue " << qMin << " B x 3 against " << qVia
                         << " B x 5 through group " << via << ": "
                         << (detour ? "non-minimal" : "minimal"));
    return detour;
}

} // namespace ns3
