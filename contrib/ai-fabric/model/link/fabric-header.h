/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_HEADER_H
#define AI_FABRIC_FABRIC_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The fields every ai-fabric packet carries: routing (src, dst, queue
 * pair, priority, routing tag) and RDMA transport (message, packet sequence number, sizes).
 *
 * A plain value: the packet path carries a packet as these fields and its sizes
 * (FabricTxItem, FabricArrival), so that no switch or receiver parses bytes. FabricHeader is
 * their serialized form inside an ns-3 Packet, which is made only when an observer (a trace
 * sink, a capture) needs one (MaterializePacket) and then travels with the packet; a switch
 * that changes the fields of a packet that has one (ECN marking, a detour) rewrites its
 * bytes, so the bytes a trace or a capture reads always agree. The routing tag belongs to the
 * switches' routing strategy (FabricRouting), which alone gives it a meaning.
 */
struct FabricFields
{
    /// Packet kinds.
    enum Kind : uint8_t
    {
        DATA = 0, //!< RDMA WRITE payload
        ACK = 1,  //!< transport acknowledgement: every PSN below m_psn arrived
        NACK = 2, //!< go-back-N: resend from m_psn
        CNP = 3,  //!< congestion notification (RoCEv2 DCQCN), for queue pair m_qp
    };

    /// Flag bits.
    enum Flags : uint8_t
    {
        FLAG_FIRST = 1,  //!< first packet of a message (carries RETH)
        FLAG_LAST = 2,   //!< last packet of a message
        FLAG_ECN_CE = 4, //!< ECN congestion experienced
    };

    uint32_t m_src{0};        //!< source endpoint (GPU index)
    uint32_t m_dst{0};        //!< destination endpoint (GPU index)
    uint16_t m_qp{0};         //!< queue pair index at the source (flow entropy for ECMP)
    uint8_t m_priority{0};    //!< traffic class / virtual lane
    uint8_t m_kind{DATA};     //!< Kind
    uint8_t m_flags{0};       //!< Flags
    uint16_t m_routingTag{0}; //!< opaque to all but the switches' FabricRouting (0: none)
    uint32_t m_msgId{0};      //!< message id, unique per source endpoint
    uint32_t m_psn{
        0}; //!< packet sequence number on the queue pair (DATA), or the PSN acknowledged (ACK/NACK)
    uint32_t m_payload{0};  //!< payload bytes this packet carries
    uint64_t m_msgBytes{0}; //!< total payload bytes of the message

    /// \return true for ACK, NACK and CNP
    bool IsControl() const
    {
        return m_kind != DATA;
    }

    /// \return true for the last packet of a message (a DATA packet with FLAG_LAST)
    bool IsLastOfMessage() const
    {
        return m_kind == DATA && (m_flags & FLAG_LAST) != 0;
    }
};

/**
 * \ingroup ai-fabric
 * \brief FabricFields as an ns-3 Header: their serialized form inside a Packet.
 *
 * This is the simulator's compact in-memory form. The bytes a packet occupies
 * on the wire are not this header's size: they are the payload plus the link
 * technology's header/trailer bytes (LinkProfile::WireBytes), which the
 * transmitting device accounts for. A capture writer can rebuild real
 * IB/RoCEv2 framing from these fields.
 */
class FabricHeader : public Header, public FabricFields
{
  public:
    /// Serialized size, bytes.
    static constexpr uint32_t SERIALIZED_SIZE = 36;

    FabricHeader();
    /**
     * \brief The header of the given fields.
     * \param fields the fields
     */
    explicit FabricHeader(const FabricFields& fields);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_HEADER_H */
