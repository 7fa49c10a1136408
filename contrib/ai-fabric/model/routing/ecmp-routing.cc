/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ecmp-routing.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EcmpRouting");
NS_OBJECT_ENSURE_REGISTERED(EcmpRouting);

TypeId
EcmpRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EcmpRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<EcmpRouting>()
                            .AddAttribute("HashFields",
                                          "The fields the hash reads, a mask of "
                                          "EcmpRouting::HashField: 1 source, 2 destination, "
                                          "4 source queue pair (RoCEv2 UDP source port), "
                                          "8 destination queue pair",
                                          UintegerValue(HASH_5_TUPLE),
                                          MakeUintegerAccessor(&EcmpRouting::SetHashFields,
                                                               &EcmpRouting::GetHashFields),
                                          MakeUintegerChecker<uint32_t>(1, HASH_ALL));
    return tid;
}

uint32_t
EcmpRouting::DestinationQpn(const FabricFields& header)
{
    // The queue pair at the packet's destination of the connection with its source: for data,
    // the receiver's queue pair; for an ACK, NACK or CNP, which travel back, the data
    // sender's. Both ends know the connection by the data sender's queue pair index.
    const uint64_t at = header.m_dst;
    const uint64_t peer = header.m_src;
    return static_cast<uint32_t>(FabricRouting::Mix((at << 40) ^ (peer << 16) ^ header.m_qp)
                                 & 0xffffff);
}

void
EcmpRouting::SetHashFields(uint32_t fields)
{
    NS_ABORT_MSG_IF(fields == 0 || (fields & ~static_cast<uint32_t>(HASH_ALL)) != 0,
                    "EcmpRouting: HashFields " << fields << " is not a non-empty mask of "
                                               << static_cast<uint32_t>(HASH_ALL));
    m_fields = fields;
    m_srcMask = (fields & HASH_SRC) ? ~0U : 0U;
    m_dstMask = (fields & HASH_DST) ? ~0U : 0U;
    m_qpMask = (fields & HASH_QP) ? 0xffff : 0;
    m_dstQp = (fields & HASH_DST_QP) != 0;
}

uint32_t
EcmpRouting::GetHashFields() const
{
    return m_fields;
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
    // The fields not hashed are masked to 0; with the default (the 5-tuple) this is the
    // hash of (source, destination, queue pair) the module always had.
    const uint64_t key = (static_cast<uint64_t>(header.m_src & m_srcMask) << 32)
                         ^ (static_cast<uint64_t>(header.m_dst & m_dstMask) << 12)
                         ^ (header.m_qp & m_qpMask);
    uint64_t h = FabricRouting::Mix(key ^ GetSalt());
    if (m_dstQp)
    {
        h = FabricRouting::Mix(h ^ DestinationQpn(header));
    }
    return ports[h % n];
}

} // namespace ns3
