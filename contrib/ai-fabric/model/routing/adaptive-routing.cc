/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "adaptive-routing.h"

#include "ns3/fabric-switch.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AdaptiveRouting");
NS_OBJECT_ENSURE_REGISTERED(AdaptiveRouting);

TypeId
AdaptiveRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AdaptiveRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<AdaptiveRouting>();
    return tid;
}

AdaptiveRouting::AdaptiveRouting()
{
    NS_LOG_FUNCTION(this);
}

AdaptiveRouting::~AdaptiveRouting()
{
}

FabricRoute
AdaptiveRouting::Route(FabricFields& header, uint16_t /* inPort */, uint8_t priority)
{
    return RouteEqualCost<AdaptiveRouting>(header, priority);
}

uint16_t
AdaptiveRouting::Choose(const uint16_t* ports,
                        uint32_t n,
                        const FabricFields& /* header */,
                        uint8_t priority)
{
    const uint32_t start = m_rotate++ % n;
    uint16_t best = ports[start];
    uint64_t bestBytes = m_switch->GetQueuedBytes(best, priority);
    for (uint32_t k = 1; k < n && bestBytes > 0; ++k)
    {
        const uint16_t p = ports[(start + k) % n];
        const uint64_t b = m_switch->GetQueuedBytes(p, priority);
        if (b < bestBytes)
        {
            best = p;
            bestBytes = b;
        }
    }
    return best;
}

} // namespace ns3
