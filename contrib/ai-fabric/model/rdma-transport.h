/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RDMA_TRANSPORT_H
#define AI_FABRIC_RDMA_TRANSPORT_H

#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class Packet;
struct FabricTxItem;

/**
 * \ingroup ai-fabric
 * \brief The RDMA transport of one GPU endpoint: reliable-connection queue
 * pairs that cut messages (RDMA WRITEs) into MTU-sized packets.
 *
 * Sending: PostSend() appends a message to the queue pair (destination,
 * qp index); the NIC port pulls packets when it is free, and the transport
 * serves its active queue pairs round robin, one packet each, so queue pairs
 * share the NIC fairly. Packets are created only when the port can send them.
 *
 * Receiving: bytes are counted per message, independent of arrival order; the
 * message is delivered (MessageDelivered) when all its bytes have arrived.
 *
 * The transport does not know which collective a message belongs to.
 */
class RdmaTransport : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaTransport();
    ~RdmaTransport() override;
    RdmaTransport(const RdmaTransport&) = delete;
    RdmaTransport& operator=(const RdmaTransport&) = delete;

    /**
     * TracedCallback signature for a delivered message.
     * \param src source endpoint
     * \param dst destination endpoint (this one)
     * \param msgId the message id the source's PostSend returned
     * \param bytes payload bytes
     */
    typedef void (*MessageTracedCallback)(uint32_t src,
                                          uint32_t dst,
                                          uint32_t msgId,
                                          uint64_t bytes);

    /**
     * \brief Bind to the endpoint's NIC port.
     * \param endpoint this endpoint's id (GPU index)
     * \param nic the NIC port
     * \param mtu payload bytes per packet (0: the NIC port's MTU)
     */
    void Setup(uint32_t endpoint, Ptr<FabricNetDevice> nic, uint32_t mtu = 0);

    /**
     * \brief Post an RDMA WRITE.
     * \param dst destination endpoint
     * \param qp queue pair index towards dst (messages on one queue pair are sent in order)
     * \param bytes payload bytes (0 sends one header-only packet)
     * \return the message id, unique at this endpoint, dense from 0
     */
    uint32_t PostSend(uint32_t dst, uint16_t qp, uint64_t bytes);

    /// \return this endpoint's id
    uint32_t GetEndpoint() const;
    /// \return the NIC port
    Ptr<FabricNetDevice> GetNic() const;
    /// \return payload bytes posted
    uint64_t GetBytesPosted() const;
    /// \return payload bytes received in completed and partial messages
    uint64_t GetBytesReceived() const;
    /// \return messages received completely
    uint64_t GetMessagesDelivered() const;
    /// \return messages partly received
    uint64_t GetMessagesInProgress() const;

  protected:
    void DoDispose() override;

  private:
    /// A message waiting to be sent, or being sent.
    struct OutMessage
    {
        uint32_t msgId; //!< message id
        uint64_t bytes; //!< payload bytes
        uint64_t sent;  //!< payload bytes already packetised
        uint32_t psn;   //!< next packet sequence number
    };

    /// A queue pair to one destination.
    struct QueuePair
    {
        uint32_t dst;                   //!< destination endpoint
        uint16_t qp;                    //!< qp index
        bool active;                    //!< in the round-robin ring
        std::deque<OutMessage> pending; //!< messages in order
    };

    /**
     * \brief Pull source of the NIC port.
     * \param item filled with the next packet
     * \return true if a packet was produced
     */
    bool Pull(FabricTxItem& item);

    /**
     * \brief Handle a packet arriving at the NIC.
     * \param nic the NIC port
     * \param packet the packet
     * \param wireBytes its wire size
     * \param priority its lane
     */
    void Receive(Ptr<FabricNetDevice> nic,
                 Ptr<Packet> packet,
                 uint32_t wireBytes,
                 uint8_t priority);

    uint32_t m_endpoint{0};                              //!< endpoint id
    Ptr<FabricNetDevice> m_nic;                          //!< NIC port
    uint32_t m_mtu{4096};                                //!< payload MTU, bytes
    uint8_t m_priority{0};                               //!< lane of data packets
    uint32_t m_nextMsgId{0};                             //!< next message id
    std::vector<QueuePair> m_qps;                        //!< queue pairs
    std::unordered_map<uint64_t, uint32_t> m_qpIndex;    //!< (dst, qp) -> index in m_qps
    std::deque<uint32_t> m_ring;                         //!< active queue pairs, round robin
    std::unordered_map<uint64_t, uint64_t> m_rxProgress; //!< (src, msgId) -> bytes received
    uint64_t m_bytesPosted{0};                           //!< payload bytes posted
    uint64_t m_bytesReceived{0};                         //!< payload bytes received
    uint64_t m_messagesDelivered{0};                     //!< messages delivered
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t> m_messageDelivered; //!< delivery trace
};

} // namespace ns3

#endif /* AI_FABRIC_RDMA_TRANSPORT_H */
