/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "valiant-routing.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ValiantRouting");
NS_OBJECT_ENSURE_REGISTERED(ValiantRouting);

TypeId
ValiantRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ValiantRouting")
                            .SetParent<DragonflyPlusRouting>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<ValiantRouting>();
    return tid;
}

ValiantRouting::ValiantRouting()
{
    NS_LOG_FUNCTION(this);
}

ValiantRouting::~ValiantRouting()
{
}

bool
ValiantRouting::Detour(const FabricFields& /* header */, uint32_t /* via */, uint8_t /* priority */)
{
    return true;
}

} // namespace ns3
