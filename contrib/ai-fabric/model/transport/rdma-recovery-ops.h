/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RDMA_RECOVERY_OPS_H
#define AI_FABRIC_RDMA_RECOVERY_OPS_H

#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

struct FabricFields;
class RdmaTransport;

/**
 * \ingroup ai-fabric
 * \brief Loss recovery of an RdmaTransport (the strategy that decides which
 * arriving data packets are accepted, which messages a sender keeps until they
 * are acknowledged, and when it sends again), as TcpRecoveryOps is for TCP.
 *
 * The transport holds one instance, forked from the prototype given as its
 * "RecoveryOps" attribute (null: NoRecovery), and calls it at these points:
 *  * AddQueuePair(): the transport opened a sending queue pair;
 *  * NotifySent(): a data packet of a queue pair leaves (after the queue pair
 *    advanced past it); returns whether it was sent before;
 *  * ReceiveData(): a data packet arrived (after the congestion notification
 *    point saw it); the recovery accepts it (AcceptPayload(), Deliver()) or
 *    drops it, and answers with ACKs and NACKs (SendAck(), SendNack());
 *  * ReceiveAck(): an ACK or NACK arrived for a queue pair of this endpoint.
 * Through the protected helpers it acts on the transport: release
 * acknowledged or sent messages, rewind a queue pair, cap its unacknowledged
 * packets, wake it up. The recovery must be the same at every endpoint of a
 * fabric, and set before the first PostSend.
 *
 * Subclasses: NoRecovery (lossless fabrics), GoBackNRecovery (lossy fabrics).
 * RdmaRecoveryNames() and RdmaRecoveryTypeId() map the names a scenario uses
 * ("none", "go-back-n") to them.
 */
class RdmaRecoveryOps : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaRecoveryOps();
    ~RdmaRecoveryOps() override;
    RdmaRecoveryOps(const RdmaRecoveryOps&) = delete;
    RdmaRecoveryOps& operator=(const RdmaRecoveryOps&) = delete;

    /**
     * \brief Make the recovery of one transport.
     * \return a new instance of the same type and attribute values, not bound
     */
    virtual Ptr<RdmaRecoveryOps> Fork() const = 0;

    /**
     * \brief Called by the transport that adopts this instance.
     * \param transport the transport (outlives this instance's use; null: unbind)
     */
    void Bind(RdmaTransport* transport);

    /**
     * \brief Sender: the transport opened a queue pair.
     * \param qi its index in the transport (dense from 0)
     * \param dst its destination endpoint
     * \param qp its qp index
     */
    virtual void AddQueuePair(uint32_t qi, uint32_t dst, uint16_t qp) = 0;

    /**
     * \brief Sender: a data packet of a queue pair leaves; the queue pair has advanced
     * past it (its next PSN is psn + 1; past the message if it was the last packet).
     * \param qi the queue pair's index
     * \param psn the packet's PSN
     * \param last it is the last packet of its message
     * \return true if the packet was transmitted before (a retransmission)
     */
    virtual bool NotifySent(uint32_t qi, uint64_t psn, bool last) = 0;

    /**
     * \brief Sender: an ACK or NACK arrived for a queue pair.
     * \param qi the queue pair's index
     * \param h the ACK's or NACK's header
     */
    virtual void ReceiveAck(uint32_t qi, const FabricFields& h) = 0;

    /**
     * \brief Receiver: a data packet arrived.
     * \param h its header
     */
    virtual void ReceiveData(const FabricFields& h) = 0;

    /// \return messages partly received
    virtual uint64_t GetMessagesInProgress() const = 0;

    /**
     * \param src the source endpoint
     * \param msgId the message id its PostSend returned
     * \return the payload bytes accepted so far of a message not yet delivered (0 if none)
     */
    virtual uint64_t GetPartialBytes(uint32_t src, uint32_t msgId) const = 0;
    /**
     * \return true if the receiver takes a message's packets in any order (the sender may
     *         then stripe a queue pair's packets over several ports, as NVLink does)
     */
    virtual bool ToleratesReordering() const;

    /// \return retransmission timeouts that rewound a queue pair
    uint64_t GetTimeouts() const;
    /// \return data packets dropped for arriving ahead of the expected PSN
    uint64_t GetOutOfOrderDrops() const;
    /// \return data packets dropped as duplicates
    uint64_t GetDuplicateDrops() const;

  protected:
    void DoDispose() override;

    /**
     * \param peer an endpoint
     * \param qp a queue pair index
     * \return the key of (peer, qp) in per-queue-pair maps (peer << 16 | qp)
     */
    static uint64_t Key(uint32_t peer, uint16_t qp);

    /// \return the endpoint id of the bound transport
    uint32_t Endpoint() const;
    /**
     * \brief Receiver: count an accepted data packet's payload.
     * \param h its header
     */
    void AcceptPayload(const FabricFields& h) const;
    /**
     * \brief Receiver: a message is complete (MessageDelivered).
     * \param h the header of its packet that completed it
     * \param bytes payload bytes accepted for it
     */
    void Deliver(const FabricFields& h, uint64_t bytes) const;
    /**
     * \brief Receiver: send an ACK.
     * \param peer the data's source
     * \param qp the queue pair index at the source
     * \param psn the next expected PSN
     */
    void SendAck(uint32_t peer, uint16_t qp, uint32_t psn) const;
    /**
     * \brief Receiver: send a NACK.
     * \param peer the data's source
     * \param qp the queue pair index at the source
     * \param psn the next expected PSN
     */
    void SendNack(uint32_t peer, uint16_t qp, uint32_t psn) const;
    /**
     * \brief Sender: forget the oldest message of a queue pair, which was sent completely.
     * \param qi the queue pair's index
     */
    void ReleaseSent(uint32_t qi) const;
    /**
     * \brief Sender: forget the messages of a queue pair that end below a PSN, and move
     * its next PSN up to it if it was below.
     * \param qi the queue pair's index
     * \param psn every packet below it was acknowledged
     */
    void ReleaseAcknowledged(uint32_t qi, uint64_t psn) const;
    /**
     * \brief Sender: restart a queue pair's transmission at a PSN (GoBack trace).
     * \param qi the queue pair's index
     * \param psn the PSN
     * \param timeout true for a retransmission timeout, false for a NACK
     */
    void Rewind(uint32_t qi, uint64_t psn, bool timeout) const;
    /**
     * \param qi a queue pair's index
     * \return its next PSN to transmit
     */
    uint64_t SendNext(uint32_t qi) const;
    /**
     * \brief Sender: cap the unacknowledged packets of a queue pair: it may send while
     * its next PSN - \p base < \p window.
     * \param qi the queue pair's index
     * \param base its oldest unacknowledged PSN
     * \param window most packets from base (0: no cap)
     */
    void SetSendWindow(uint32_t qi, uint64_t base, uint32_t window) const;
    /**
     * \brief Sender: the PSN of a new queue pair's first packet (before any is posted).
     * \param qi the queue pair's index
     * \param psn the first PSN
     */
    void SetFirstPsn(uint32_t qi, uint64_t psn) const;
    /**
     * \brief Sender: put a queue pair with data to send back into its port's round robin.
     * \param qi the queue pair's index
     */
    void Activate(uint32_t qi) const;

  private:
    // First, next to the object's header: every received packet reads it.
    RdmaTransport* m_transport{nullptr}; //!< the transport this instance serves

  protected:
    uint64_t m_timeouts{0}; //!< retransmission timeouts
    uint64_t m_oooDrops{0}; //!< out-of-order drops
    uint64_t m_dupDrops{0}; //!< duplicate drops
};

/**
 * \ingroup ai-fabric
 * \brief No loss recovery, for lossless fabrics (credit or PFC flow control):
 * no ACKs; a message is forgotten at its sender once sent; the receiver counts
 * bytes per message independent of arrival order (so per-packet spraying,
 * which reorders, works) and delivers it when all its bytes arrived.
 */
class NoRecovery : public RdmaRecoveryOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NoRecovery();
    ~NoRecovery() override;

    Ptr<RdmaRecoveryOps> Fork() const override;
    void AddQueuePair(uint32_t qi, uint32_t dst, uint16_t qp) override;
    bool NotifySent(uint32_t qi, uint64_t psn, bool last) override;
    void ReceiveAck(uint32_t qi, const FabricFields& h) override;
    void ReceiveData(const FabricFields& h) override;
    uint64_t GetMessagesInProgress() const override;
    uint64_t GetPartialBytes(uint32_t src, uint32_t msgId) const override;
    bool ToleratesReordering() const override;

  protected:
    void DoDispose() override;

  private:
    // The per-packet fields first (next to the base's), the map after them.
    uint64_t m_lastKey{0};                             //!< key of the last entry used
    uint64_t* m_lastGot{nullptr};                      //!< its byte count (null: none cached)
    std::unordered_map<uint64_t, uint64_t> m_progress; //!< (src, msgId) -> bytes accepted
};

/**
 * \ingroup ai-fabric
 * \return the recovery names a scenario may give, in documentation order ("none",
 *         "go-back-n")
 */
std::vector<std::string> RdmaRecoveryNames();

/**
 * \ingroup ai-fabric
 * \param name a recovery name (RdmaRecoveryNames())
 * \return the TypeId of its RdmaRecoveryOps subclass (aborts on an unknown name)
 */
TypeId RdmaRecoveryTypeId(const std::string& name);

} // namespace ns3

#endif /* AI_FABRIC_RDMA_RECOVERY_OPS_H */
