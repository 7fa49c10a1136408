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

FabricHeader::FabricHeader(const FabricFields& fields)
    : FabricFields(fields)
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
    // Network byte order through the Buffer's inline accessors: this runs once per packet
    // and the header is read once per hop (the out-of-line ReadU32 family cost ~4 % of a run).
    i.WriteHtonU32(m_src);
    i.WriteHtonU32(m_dst);
    i.WriteHtonU16(m_qp);
    i.WriteU8(m_priority);
    i.WriteU8(m_kind);
    i.WriteU8(m_flags);
    i.WriteU8(0); // reserved
    i.WriteHtonU16(m_routingTag);
    i.WriteHtonU32(m_msgId);
    i.WriteHtonU32(m_psn);
    i.WriteHtonU32(m_payload);
    i.WriteHtonU32(static_cast<uint32_t>(m_msgBytes >> 32));
    i.WriteHtonU32(static_cast<uint32_t>(m_msgBytes));
}

uint32_t
FabricHeader::Deserialize(Buffer::Iterator i)
{
    m_src = i.ReadNtohU32();
    m_dst = i.ReadNtohU32();
    m_qp = i.ReadNtohU16();
    m_priority = i.ReadU8();
    m_kind = i.ReadU8();
    m_flags = i.ReadU8();
    i.ReadU8();
    m_routingTag = i.ReadNtohU16();
    m_msgId = i.ReadNtohU32();
    m_psn = i.ReadNtohU32();
    m_payload = i.ReadNtohU32();
    const uint64_t hi = i.ReadNtohU32();
    m_msgBytes = (hi << 32) | i.ReadNtohU32();
    return SERIALIZED_SIZE;
}

void
FabricHeader::Print(std::ostream& os) const
{
    os << "src=" << m_src << " dst=" << m_dst << " qp=" << m_qp << " prio=" << +m_priority
       << " kind=" << +m_kind << " flags=" << +m_flags << " msg=" << m_msgId << " psn=" << m_psn
       << " tag=" << m_routingTag << " payload=" << m_payload << " msgBytes=" << m_msgBytes;
}

} // namespace ns3
