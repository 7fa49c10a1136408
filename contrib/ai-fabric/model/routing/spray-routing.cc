/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "spray-routing.h"

#include "ns3/log.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SprayRouting");
NS_OBJECT_ENSURE_REGISTERED(SprayRouting);

TypeId
SprayRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SprayRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<SprayRouting>();
    return tid;
}

SprayRouting::SprayRouting()
{
    NS_LOG_FUNCTION(this);
}

SprayRouting::~SprayRouting()
{
}

FabricRoute
SprayRouting::Route(FabricFields& header, uint16_t /* inPort */, uint8_t priority)
{
    return RouteEqualCost<SprayRouting>(header, priority);
}

uint16_t
SprayRouting::Choose(const uint16_t* ports,
                     uint32_t n,
                     const FabricFields& /* header */,
                     uint8_t /* priority */)
{
    return ports[m_rng->GetInteger(0, n - 1)];
}

} // namespace ns3
