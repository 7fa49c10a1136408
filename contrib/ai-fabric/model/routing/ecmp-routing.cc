/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ecmp-routing.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EcmpRouting");
NS_OBJECT_ENSURE_REGISTERED(EcmpRouting);

namespace
{
/// splitmix64 finaliser: a cheap, well-mixed 64-bit hash step.
inline uint64_t
Mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
} // namespace

TypeId
EcmpRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EcmpRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<EcmpRouting>();
    return tid;
}

EcmpRouting::EcmpRouting()
{
    NS_LOG_FUNCTION(this);
}

EcmpRouting::~EcmpRouting()
{
}

FabricRoute
EcmpRouting::Route(FabricFields& header, uint16_t /* inPort */, uint8_t priority)
{
    return RouteEqualCost<EcmpRouting>(header, priority);
}

uint16_t
EcmpRouting::Choose(const uint16_t* ports,
                    uint32_t n,
                    const FabricFields& header,
                    uint8_t /* priority */)
{
    const uint64_t key = (static_cast<uint64_t>(header.m_src) << 32)
                         ^ (static_cast<uint64_t>(header.m_dst) << 12) ^ header.m_qp;
    return ports[Mix(key ^ GetSalt()) % n];
}

} // namespace ns3
