/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_WORKLOAD_APPLICATION_H
#define AI_FABRIC_WORKLOAD_APPLICATION_H

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RdmaTransport;
class Workload;
struct WorkloadOp;
class WorkloadExecution;

/**
 * \ingroup ai-fabric
 * \brief Executes the ops of one GPU endpoint of a Workload DAG on its node's
 * RdmaTransport (aggregated to the node).
 *
 * An op starts the moment its last dependency is done; ops without dependencies
 * start when the workload starts (WorkloadExecution::Start(), which the first
 * application's start calls). A SEND posts a message on this node's transport and
 * is done when the message has fully arrived at the peer; a DELAY is done after its
 * duration. The application records the start and end time of each of its ops.
 *
 * What crosses nodes goes through the shared WorkloadExecution: this node's
 * transport reports a message delivered here (MessageDelivered), the execution
 * hands it to the sender's application, which completes its SEND op; a done op's
 * successors are started by their own endpoints' applications. All of it happens
 * in the event of the delivery (or of the DELAY's end), in successor order.
 *
 * A SEND between servers is a request on a network connection, as NCCL's IB/RoCE transport
 * posts it (src/transport/net_ib): with the attribute QpsPerConnection N above 1
 * (NCCL_IB_QPS_PER_CONNECTION), the connection (sender, receiver, op's queue pair q) has the
 * queue pairs q x N + k, k < N, each its own flow on the fabric; a message goes on the next
 * of them, round robin (NCCL's default), or, with SplitDataOnQps
 * (NCCL_IB_SPLIT_DATA_ON_QPS), in N parts of DIVUP(DIVUP(size, N), 128) x 128 bytes, one
 * per queue pair (the last ones what is left, possibly 0 bytes), and the SEND is done when
 * every part has arrived. Sends inside a server (NVLink) and a reducer's sends keep their
 * one queue pair.
 *
 * It knows nothing about what the ops mean.
 */
class WorkloadApplication : public Application
{
  public:
    /// Most queue pairs per connection: NCCL's NCCL_IB_MAX_QPS (src/transport/net_ib/common.h).
    static constexpr uint32_t MAX_QPS_PER_CONNECTION = 128;
    /// Alignment of a split message's parts, bytes: NCCL's IB_WRITE_CHUNK_ALIGNMENT
    /// (src/transport/net_ib/p2p.cc), which keeps LL and LL128 lines whole.
    static constexpr uint64_t WRITE_CHUNK_ALIGNMENT = 128;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    WorkloadApplication();
    ~WorkloadApplication() override;
    WorkloadApplication(const WorkloadApplication&) = delete;
    WorkloadApplication& operator=(const WorkloadApplication&) = delete;

    /**
     * TracedCallback signature for op events.
     * \param op the op index
     */
    typedef void (*OpTracedCallback)(uint32_t op);
    /**
     * TracedCallback signature for a message that broke byte conservation.
     * \param op the SEND op
     * \param delivered payload bytes the receiver accepted
     * \param duplicate true if it was delivered again after it had completed
     */
    typedef void (*ConservationTracedCallback)(uint32_t op, uint64_t delivered, bool duplicate);

    /**
     * \brief Bind to the workload's execution and to the RdmaTransport aggregated to
     * this application's node (call after Node::AddApplication); registers with the
     * execution.
     * \param execution the execution (its workload already set)
     */
    void Setup(Ptr<WorkloadExecution> execution);

    /// \return the endpoint (GPU index) whose ops this application executes
    uint32_t GetEndpoint() const;

    /**
     * \brief Start an op of this endpoint now (its dependencies are done).
     * \param op the op
     */
    void StartOp(uint32_t op);
    /**
     * \brief One dependency of an op of this endpoint is done; start it if it was the last.
     * \param op the op
     */
    void DependencyDone(uint32_t op);
    /**
     * \brief A message this endpoint posted has arrived: complete its SEND op.
     * \param msgId the message id this endpoint's transport gave it
     * \param bytes payload bytes the receiver accepted
     */
    void MessageDelivered(uint32_t msgId, uint64_t bytes);

    /// \param op an op of this endpoint \return its start time (a SEND: when its message was
    /// posted, after the protocol's and the kernel's waits; negative if not started)
    Time GetOpStart(uint32_t op) const;
    /// \param op an op of this endpoint \return its end time (negative if not done)
    Time GetOpEnd(uint32_t op) const;
    /// \param op a SEND op of this endpoint \return its message id (UINT32_MAX if none)
    uint32_t GetMessageId(uint32_t op) const;
    /// \param msgId a message id of this endpoint \return its SEND op (UINT32_MAX if none)
    uint32_t GetMessageOp(uint32_t msgId) const;
    /// \return ops of this endpoint
    uint32_t GetOpCount() const;
    /// \return ops done
    uint64_t GetOpsDone() const;
    /// \return payload bytes of this endpoint's SEND ops
    uint64_t GetBytesTotal() const;
    /// \return payload bytes of SEND ops done
    uint64_t GetBytesDone() const;
    /// \return messages (SEND ops) posted
    uint64_t GetMessagesPosted() const;
    /// \return messages (SEND ops) delivered
    uint64_t GetMessagesDelivered() const;
    /// \return transport messages of this endpoint's SEND ops delivered (a split SEND is
    /// several, GetMessageParts())
    uint64_t GetPartsDelivered() const;
    /**
     * \param op an op of the workload
     * \return the transport messages a SEND op is posted as: QpsPerConnection when it is split
     *         over a network connection's queue pairs, else 1; its message ids are
     *         GetMessageId(op) and the next ones
     */
    uint32_t GetMessageParts(uint32_t op) const;
    /// \return true once StartApplication() has run
    bool HasStarted() const;

  protected:
    void DoDispose() override;

  private:
    friend class WorkloadExecution; // reads the per-op state of its applications directly

    void StartApplication() override;
    void StopApplication() override;

    /**
     * \param op an op of this endpoint that is done now
     */
    void CompleteOp(uint32_t op);
    /**
     * \brief Reserve the group's kernel for a SEND op's copy (WorkloadGroup::
     * kernelBytesPerSecond) and post the message when the copy is done.
     * \param op the op
     */
    void CopyThenPost(uint32_t op);
    /**
     * \brief Post a SEND op's message to the transport (its wire bytes, WireBytes()).
     * \param op the op
     */
    void PostSend(uint32_t op);
    /**
     * \brief Post one transport message of a SEND op.
     * \param op the op
     * \param qp the queue pair
     * \param bytes its bytes
     * \return its message id
     */
    uint32_t PostPart(uint32_t op, uint16_t qp, uint64_t bytes);
    /**
     * \param op a SEND op
     * \return whether it crosses the network (between servers, not a reducer's): NCCL's
     *         queue pairs per connection apply
     */
    bool OnNetwork(const WorkloadOp& op) const;
    /**
     * \brief A message arrived at this endpoint (trace sink of its transport).
     * \param src source endpoint
     * \param dst destination endpoint (this one)
     * \param msgId message id at the source
     * \param bytes payload bytes
     */
    void OnTransportDelivered(uint32_t src, uint32_t dst, uint32_t msgId, uint64_t bytes);
    /**
     * \brief A message's last packet left this endpoint (trace sink of its transport's
     * MessageInjected): keep its op's sender-side timing.
     * \param msgId message id
     * \param eligible when it became the head of its queue pair
     * \param firstByte when its first packet left
     * \param shared port time on other packets while it waited its turn
     * \param sharedBeforeFirst its part before the first packet
     * \param portHeldAtEligible (unused) the port's held time at eligible
     */
    void OnMessageInjected(uint32_t msgId,
                           Time eligible,
                           Time firstByte,
                           Time shared,
                           Time sharedBeforeFirst,
                           Time portHeldAtEligible);

    /// A SEND's sender-side timing (GetSendTiming()), ps.
    struct SendTiming
    {
        int64_t eligiblePs{-1};   //!< head of its queue pair (-1: its last packet has not left)
        int64_t firstPs{-1};      //!< first packet left
        int64_t sharedPs{0};      //!< port time on other packets while it waited its turn
        int64_t sharedFirstPs{0}; //!< of which before its first packet
    };

    Ptr<WorkloadExecution> m_execution;  //!< the shared execution
    Ptr<RdmaTransport> m_transport;      //!< this node's transport
    const Workload* m_workload{nullptr}; //!< the DAG
    uint32_t m_endpoint{0};              //!< this endpoint
    std::vector<uint32_t> m_waiting;     //!< per own op: unfinished dependencies
    std::vector<int64_t> m_startPs;      //!< per own op: start time (a SEND: its post), ps
                                         //!< (-1: not yet)
    std::vector<int64_t> m_endPs;        //!< per own op: end time, ps (-1: not yet)
    std::vector<uint32_t> m_messageId;   //!< per own op: message id (SEND)
    std::vector<SendTiming> m_timing;    //!< per own op: a SEND's sender-side timing
    std::vector<uint32_t> m_opByMessage; //!< message id -> op
    uint64_t m_opsDone{0};               //!< ops done
    uint64_t m_bytesTotal{0};            //!< SEND payload bytes
    uint64_t m_bytesDone{0};             //!< SEND payload bytes delivered
    uint64_t m_messagesPosted{0};        //!< SEND ops posted
    uint32_t m_qpsPerConnection{1};      //!< queue pairs per connection
    bool m_splitDataOnQps{false};        //!< split every message
    std::unordered_map<uint64_t, uint64_t> m_requests;       //!< per connection (peer << 16 |
                                                             //!< qp): messages posted
    std::vector<uint32_t> m_partsLeft;                       //!< per own op: parts in flight
    std::vector<uint64_t> m_partBytes;                       //!< per own op: parts' bytes in
    uint64_t m_partsDelivered{0};                            //!< transport messages delivered
    std::unordered_map<uint32_t, int64_t> m_kernelFreePs;    //!< per group with a kernel rate:
                                                             //!< when its kernel is free, ps
    uint64_t m_messagesDelivered{0};                         //!< SEND ops delivered
    bool m_started{false};                                   //!< StartApplication() ran
    TracedCallback<uint32_t> m_opStarted;                    //!< op started
    TracedCallback<uint32_t> m_opCompleted;                  //!< op done
    TracedCallback<uint32_t, uint64_t, bool> m_conservation; //!< conservation error
};

} // namespace ns3

#endif /* AI_FABRIC_WORKLOAD_APPLICATION_H */
