/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_GO_BACK_N_RECOVERY_H
#define AI_FABRIC_GO_BACK_N_RECOVERY_H

#include "rdma-recovery-ops.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Go-back-N loss recovery, for lossy fabrics (RoCE without PFC): the
 * receiver accepts packets of a queue pair in PSN order only, the sender keeps
 * every message until it is acknowledged and goes back on a NACK or a timeout.
 *
 * Receiver, per (source, queue pair): the expected PSN. An in-order packet is
 * accepted; a packet ahead of it is dropped and answered by one NACK(expected)
 * (not again until the expected packet has arrived); a duplicate is dropped
 * and answered by ACK(expected) (the first after progress and every
 * AckInterval-th). In-order packets are acknowledged cumulatively every
 * AckInterval packets and on the last packet of every message; in PSN order,
 * a message's last packet completes it.
 *
 * Sender, per queue pair: the oldest unacknowledged PSN (sndUna), one past the
 * highest PSN sent (maxSent) and one retransmission timer. It releases
 * messages below an ACK, rewinds to a NACK's PSN, and rewinds to sndUna when
 * nothing was acknowledged for RetransmitTimeout (so a lost resend, ACK or
 * NACK costs one timeout); the timeout doubles after every timeout without
 * progress, up to 64 x (RFC 6298 style backoff, so that a timeout shorter than
 * the round trip cannot livelock). SendWindow optionally caps the
 * unacknowledged packets per queue pair (default: no cap, as RDMA NICs have
 * none).
 *
 * Reordering (spraying, adaptive routing, Valiant detours): with ReorderWindow W > 0 the
 * receiver keeps a packet up to W - 1 PSNs ahead of the expected one (out-of-order placement,
 * as NICs that support adaptive routing do: NVIDIA ConnectX-7 and BlueField-3 place packets
 * in memory as they arrive and complete in order). It is accepted, in PSN order, once the gap
 * before it has filled; a packet W or more ahead counts as a loss (drop and NACK), and so does
 * a gap still open ReorderTimeout after it opened (a lost packet near a message's end has no
 * later packet to reveal it). With W = 0 (the default) every packet ahead is a loss, so
 * reordering alone triggers go-back-N. Held packets are kept per queue pair in a list in PSN
 * order, as long as the packets held (no per-packet allocation once it has grown; its
 * capacity is released when it empties, above 64 packets).
 */
class GoBackNRecovery : public RdmaRecoveryOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    GoBackNRecovery();
    ~GoBackNRecovery() override;

    Ptr<RdmaRecoveryOps> Fork() const override;
    void AddQueuePair(uint32_t qi, uint32_t dst, uint16_t qp) override;
    bool NotifySent(uint32_t qi, uint64_t psn, bool last) override;
    void ReceiveAck(uint32_t qi, const FabricFields& h) override;
    void ReceiveData(const FabricFields& h) override;
    uint64_t GetMessagesInProgress() const override;
    /// \return packets that arrived ahead of the expected PSN, were held and accepted later
    uint64_t GetReorderedPackets() const;
    uint64_t GetPartialBytes(uint32_t src, uint32_t msgId) const override;

  protected:
    void DoDispose() override;

  private:
    /// Sender state of a queue pair.
    struct Sender
    {
        uint32_t dst{0};     //!< destination endpoint
        uint16_t qp{0};      //!< qp index
        uint64_t sndUna{0};  //!< oldest unacknowledged PSN (64-bit count)
        uint64_t maxSent{0}; //!< one past the highest PSN transmitted
        Time lastProgress;   //!< last ACK progress or rewind
        uint8_t backoff{0};  //!< timeouts since the last progress
        EventId rto;         //!< retransmission timer
    };

    /// Receiver state per (source, queue pair).
    struct Receiver
    {
        uint32_t expected{0};            //!< next expected PSN (InitialPsn first)
        uint32_t sinceAck{0};            //!< in-order packets since the last ACK
        uint32_t dupSinceAck{0};         //!< duplicates since the last progress
        bool nackSent{false};            //!< NACK sent, no progress since
        uint32_t msgId{0};               //!< message being received
        uint64_t msgGot{0};              //!< its payload bytes accepted so far
        std::vector<FabricFields> ahead; //!< packets held ahead of expected, in PSN order
        std::size_t head{0};             //!< first still held in ahead (earlier: accepted)
        EventId gapTimer;                //!< ReorderTimeout of the open gap
        uint32_t gapAt{0};               //!< expected PSN when the gap timer was set
        uint32_t src{0};                 //!< the queue pair's source (for the gap's NACK)
        uint16_t qp{0};                  //!< the queue pair
    };

    /**
     * \brief Retransmission timer of a queue pair expired.
     * \param qi its index
     */
    void RetransmitTimeout(uint32_t qi);
    /**
     * \brief Count an in-order data packet and deliver its message on its last packet.
     * \param h its header
     * \param rx the receiver state of its queue pair
     */
    void Accept(const FabricFields& h, Receiver& rx);
    /**
     * \brief Accept a packet at the expected PSN and then every held packet that follows it
     * without a gap; acknowledge as in-order packets are.
     * \param h the packet at rx.expected
     * \param rx the receiver state of its queue pair
     */
    void AcceptInOrder(const FabricFields& h, Receiver& rx);
    /**
     * \brief Hold a packet ahead of the expected PSN (within the window); start the gap
     * timer if none runs.
     * \param h the packet
     * \param rx the receiver state of its queue pair
     */
    void Hold(const FabricFields& h, Receiver& rx);
    /**
     * \brief ReorderTimeout of a queue pair's gap: NACK the expected PSN if the gap has not
     * moved since, else wait again while packets are held.
     * \param key the receiver's (source, queue pair) key
     */
    void GapTimeout(uint64_t key);

    /// Most doublings of the retransmission timeout without progress (64 x RetransmitTimeout).
    static constexpr uint8_t MAX_BACKOFF = 6;

    uint32_t m_ackInterval{16};  //!< ACK every this many packets
    uint32_t m_window{0};        //!< most unacknowledged packets per queue pair (0: no cap)
    Time m_rto;                  //!< retransmission timeout
    uint32_t m_initialPsn{0};    //!< PSN of every queue pair's first packet
    uint32_t m_reorderWindow{0}; //!< packets a receiver may hold ahead of expected (0: none)
    Time m_reorderTimeout;       //!< a gap open this long is a loss
    uint64_t m_reordered{0};     //!< packets held ahead and accepted later

    std::vector<Sender> m_tx;                    //!< per queue pair (transport's index)
    std::unordered_map<uint64_t, Receiver> m_rx; //!< (src, qp) -> receiver state
    uint64_t m_partial{0};                       //!< messages with some packets accepted
};

} // namespace ns3

#endif /* AI_FABRIC_GO_BACK_N_RECOVERY_H */
