/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_ECMP_ROUTING_H
#define AI_FABRIC_ECMP_ROUTING_H

#include "ns3/fabric-routing.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief ECMP as deployed: every packet of a flow takes the same port, chosen by a hash of
 * the fields the switch is configured to read, salted per switch.
 *
 * The fields (attribute "HashFields", a bit mask of HashField; default HASH_5_TUPLE):
 *  * HASH_SRC, HASH_DST: the source and destination endpoint (IP addresses on RoCEv2, LIDs on
 *    InfiniBand);
 *  * HASH_QP: the source queue pair, the entropy a RoCEv2 NIC puts in the UDP source port (the
 *    NIC derives one port per queue pair from the local and remote queue pair numbers when
 *    the flow label is 0, as NCCL leaves it: NCCL src/transport/net_ib/connect.cc sets
 *    `grh.flow_label = 0`); protocol (UDP) and destination port (4791) are the same for all
 *    RoCEv2 packets, so (source, destination, queue pair) is the 5-tuple's entropy;
 *  * HASH_DST_QP: the destination queue pair (the BTH's DestQP), which "enhanced" RoCE hashing
 *    reads. The simulator numbers a receiver's queue pairs deterministically per connection
 *    (DestinationQpn()), so the field costs no header byte.
 * HASH_DST alone is InfiniBand's forwarding: a switch's linear forwarding table maps the
 * destination LID to one port, whatever the queue pair (LMC 0).
 * With the default mask the hash is the same function as before the mask existed: results
 * do not change.
 */
class EcmpRouting final : public FabricRouting
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// The fields a hash may read (bits of the attribute "HashFields").
    enum HashField : uint32_t
    {
        HASH_SRC = 1,    //!< source endpoint
        HASH_DST = 2,    //!< destination endpoint
        HASH_QP = 4,     //!< source queue pair (RoCEv2: the UDP source port)
        HASH_DST_QP = 8, //!< destination queue pair (BTH DestQP)
        HASH_5_TUPLE = HASH_SRC | HASH_DST | HASH_QP, //!< RoCEv2 5-tuple (the default)
        HASH_ENHANCED = HASH_5_TUPLE | HASH_DST_QP,   //!< 5-tuple and destination QP
        HASH_ALL = HASH_5_TUPLE | HASH_DST_QP,        //!< every field
    };

    /**
     * \brief The destination queue pair number a packet's BTH carries: a 24-bit number (as
     * InfiniBand and RoCE QPNs are) of the queue pair at the packet's destination that serves
     * the connection with its source. Deterministic, distinct per connection end with high
     * probability: for data, the receiver's queue pair; for an ACK, NACK or CNP, the data
     * sender's.
     * \param header the packet's fields
     * \return the number
     */
    static uint32_t DestinationQpn(const FabricFields& header);

    /**
     * \brief Set the fields the hash reads.
     * \param fields a non-zero mask of HashField
     */
    void SetHashFields(uint32_t fields);
    /// \return the fields the hash reads (a mask of HashField)
    uint32_t GetHashFields() const;

    EcmpRouting();
    ~EcmpRouting() override;

    FabricRoute Route(FabricFields& header, uint16_t inPort, uint8_t priority) override;
    uint16_t Choose(const uint16_t* ports,
                    uint32_t n,
                    const FabricFields& header,
                    uint8_t priority) override;

  private:
    uint32_t m_fields{HASH_5_TUPLE}; //!< the fields the hash reads
    uint32_t m_srcMask{~0U};         //!< all ones if the source is hashed, else 0
    uint32_t m_dstMask{~0U};         //!< all ones if the destination is hashed, else 0
    uint16_t m_qpMask{0xffff};       //!< all ones if the source queue pair is hashed, else 0
    bool m_dstQp{false};             //!< the destination queue pair is hashed
};

} // namespace ns3

#endif /* AI_FABRIC_ECMP_ROUTING_H */
