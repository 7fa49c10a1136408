/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricHeader);

FabricHeader::FabricHeader()
{
}

TypeId
FabricHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricHeader>();
    return tid;
}

TypeId
FabricHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
FabricHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU32(m_src);
    i.WriteU32(m_dst);
    i.WriteU16(m_qp);
    i.WriteU8(m_priority);
    i.WriteU8(m_kind);
    i.WriteU8(m_flags);
    i.WriteU8(0); // reserved
    i.WriteU16(m_via);
    i.WriteU32(m_msgId);
    i.WriteU32(m_psn);
    i.WriteU32(m_payload);
    i.WriteU64(m_msgBytes);
}

uint32_t
FabricHeader::Deserialize(Buffer::Iterator i)
{
    m_src = i.ReadU32();
    m_dst = i.ReadU32();
    m_qp = i.ReadU16();
    m_priority = i.ReadU8();
    m_kind = i.ReadU8();
    m_flags = i.ReadU8();
    i.ReadU8();
    m_via = i.ReadU16();
    m_msgId = i.ReadU32();
    m_psn = i.ReadU32();
    m_payload = i.ReadU32();
    m_msgBytes = i.ReadU64();
    return SERIALIZED_SIZE;
}

void
FabricHeader::Print(std::ostream& os) const
{
    os << "src=" << m_src << " dst=" << m_dst << " qp=" << m_qp << " prio=" << +m_priority
       << " kind=" << +m_kind << " flags=" << +m_flags << " msg=" << m_msgId << " psn=" << m_psn
       << " via=" << m_via << " payload=" << m_payload << " msgBytes=" << m_msgBytes;
}

} // namespace ns3
