/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_WORKLOAD_EXECUTION_H
#define AI_FABRIC_WORKLOAD_EXECUTION_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class Workload;
class WorkloadApplication;
struct WorkloadOp;

/**
 * \ingroup ai-fabric
 * \brief When a SEND's message could leave and did (WorkloadExecution::GetSendTiming()).
 */
struct WorkloadSendTiming
{
    Time eligible{-1};  //!< it became the head of its queue pair (negative: unknown)
    Time firstByte{-1}; //!< its first packet started leaving (negative: unknown)
    Time shared{-1};    //!< port time on the sender's other packets while it waited its turn
    Time sharedBeforeFirst{-1}; //!< of which before its first packet left
};

/**
 * \ingroup ai-fabric
 * \brief The execution of one Workload by the WorkloadApplications of this process:
 * the notices they exchange, and the read-only view of the run.
 *
 * Each GPU node runs a WorkloadApplication that executes the ops of its endpoint
 * (op.rank) on its own node's RdmaTransport and keeps their state (dependencies
 * left, start and end times, message ids). What crosses nodes goes through this
 * object, in the same simulator event:
 *  * NotifyDelivered(): the receiver's application saw a message arrive (its
 *    transport's MessageDelivered); the sender's application completes the SEND op;
 *  * NotifyOpDone(): an op is done; the application of each successor, in successor
 *    order, counts one dependency less (and starts the successor at zero).
 * Both are virtual: a remote twin can carry a notice to an application in another
 * process (MPI) instead of calling it, as PointToPointRemoteChannel does for packets.
 *
 * Start() starts every op without dependencies, in op order; the first
 * application's StartApplication() calls it, or a driver schedules it itself.
 *
 * The getters (op times, counts, conservation errors) are what run drivers and
 * statistics read after (or during) a run; they ask the applications.
 */
class WorkloadExecution : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    WorkloadExecution();
    ~WorkloadExecution() override;
    WorkloadExecution(const WorkloadExecution&) = delete;
    WorkloadExecution& operator=(const WorkloadExecution&) = delete;

    /**
     * TracedCallback signature for an op that is done.
     * \param op the op's index in the workload
     */
    typedef void (*OpDoneTracedCallback)(uint32_t op);

    /// A delivered message whose receiver counted other bytes than were posted.
    struct ConservationError
    {
        uint32_t op;        //!< the SEND op
        uint64_t delivered; //!< payload bytes the receiver accepted
        bool duplicate;     //!< delivered again after it had completed
    };

    /**
     * \brief Bind to a finalized workload: partition its ops by executing endpoint.
     * Call once, before AddApplication().
     * \param workload the workload; it must outlive the execution's use
     */
    void SetWorkload(const Workload* workload);

    /**
     * \brief Register the application of an endpoint (set up on its node).
     * \param app the application; its endpoint must have none yet
     */
    void AddApplication(Ptr<WorkloadApplication> app);

    /**
     * \brief Start every op without dependencies (at the current time), in op order.
     * Only the first call does anything.
     */
    void Start();

    /**
     * \brief A message arrived at its receiver: tell the application that posted it.
     * \param src source endpoint
     * \param dst destination endpoint
     * \param msgId message id at the source
     * \param bytes payload bytes the receiver accepted
     */
    virtual void NotifyDelivered(uint32_t src, uint32_t dst, uint32_t msgId, uint64_t bytes);

    /**
     * \brief An op is done: tell the applications of its successors, in successor order.
     * \param op the op
     */
    virtual void NotifyOpDone(uint32_t op);

    /// \return the workload
    const Workload& GetWorkload() const;

    /**
     * \param op an op
     * \return its position among the ops of its endpoint (op.rank), in op order
     */
    uint32_t GetLocalIndex(uint32_t op) const
    {
        return m_localIndex[op];
    }

    /**
     * \param endpoint an endpoint
     * \return pointer to the first of its ops (op indices, in op order)
     */
    const uint32_t* OpsBegin(uint32_t endpoint) const;
    /**
     * \param endpoint an endpoint
     * \return pointer past the last of its ops
     */
    const uint32_t* OpsEnd(uint32_t endpoint) const;
    /**
     * \param endpoint an endpoint
     * \return its application (null if none was added)
     */
    Ptr<WorkloadApplication> GetApplication(uint32_t endpoint) const;

    /// \return true when every op of this process's applications is done
    bool IsDone() const;
    /// \return ops done
    uint64_t GetOpsDone() const;
    /// \param op an op \return its start time (a SEND: its post; negative if it never started)
    Time GetOpStart(uint32_t op) const;
    /// \param op an op \return its end time (negative if not done)
    Time GetOpEnd(uint32_t op) const;
    /**
     * \brief The sender's side of a SEND's timing (MessageInjected of its transport;
     * docs/results-format.md, "Message timing").
     * \param op a SEND op
     * \return when it became the head of its queue pair, when its first packet left, and the
     *         port time spent on the sender's other packets while it waited for its turn (all
     *         negative if its last packet has not left; split over queue pairs: the earliest
     *         part's times and the largest part's shared time)
     */
    WorkloadSendTiming GetSendTiming(uint32_t op) const;
    /**
     * \param src a source endpoint
     * \param msgId a message id its transport returned
     * \return the SEND op that posted it, or UINT32_MAX if none
     */
    uint32_t GetMessageOp(uint32_t src, uint32_t msgId) const;
    /**
     * \param op a SEND op that has started
     * \return the message id its sender's transport gave it (UINT32_MAX if none)
     */
    uint32_t GetMessageId(uint32_t op) const;
    /// \return payload bytes of all SEND ops
    uint64_t GetBytesTotal() const;
    /// \return payload bytes of SEND ops done
    uint64_t GetBytesDone() const;
    /// \return messages (SEND ops) posted so far
    uint64_t GetMessagesPosted() const;
    /// \return messages (SEND ops) delivered so far
    uint64_t GetMessagesDelivered() const;
    /// \return transport messages of SEND ops delivered so far (a SEND split over a
    /// connection's queue pairs is several: WorkloadApplication::GetMessageParts())
    uint64_t GetPartsDelivered() const;
    /**
     * \param op a SEND op
     * \return the transport messages it is posted as (ids GetMessageId(op) and the next ones)
     */
    uint32_t GetMessageParts(uint32_t op) const;
    /// \return the delivered messages that broke byte conservation, in delivery order
    const std::vector<ConservationError>& GetConservationErrors() const;

    /// \return SEND ops started and not done (messages in flight), O(1)
    uint64_t GetSendsOpen() const;
    /// \brief An application started a SEND op (its message is in flight until the op is done).
    void NoteSendStarted();
    /**
     * \brief Call \p cb once, when the next op completes: a monitor with nothing to watch
     * while no message is in flight sleeps until then (RunWatchdog), since without messages
     * only delays (compute, start times) run, each ending in an op that completes.
     * \param cb the callback
     */
    void NotifyNextOpDone(Callback<void> cb);

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Trace sink of every application's ConservationError.
     * \param op the SEND op
     * \param delivered payload bytes the receiver accepted
     * \param duplicate delivered again after it had completed
     */
    void OnConservationError(uint32_t op, uint64_t delivered, bool duplicate);

    const Workload* m_workload{nullptr};           //!< the DAG
    const std::vector<WorkloadOp>* m_ops{nullptr}; //!< its ops
    std::vector<uint32_t> m_localIndex;            //!< per op: position among its rank's ops
    std::vector<uint32_t> m_opsFirst;              //!< per endpoint (+ 1): start in m_opsOf
    std::vector<uint32_t> m_opsOf;                 //!< op indices grouped by endpoint
    std::vector<Ptr<WorkloadApplication>> m_apps;  //!< by endpoint (null: none here)
    std::vector<uint8_t> m_needsApp;               //!< per endpoint: it executes or receives an op
    uint64_t m_opCount{0};                         //!< ops of the applications added
    uint64_t m_opsDone{0};                         //!< ops done
    uint64_t m_sendsOpen{0};                       //!< SEND ops started and not done
    Callback<void> m_nextOpDone;                   //!< NotifyNextOpDone(), once
    bool m_started{false};                         //!< Start() ran
    std::vector<ConservationError> m_conservation; //!< conservation errors
    TracedCallback<> m_done;                       //!< every op is done
    TracedCallback<uint32_t> m_opDone;             //!< an op is done
};

} // namespace ns3

#endif /* AI_FABRIC_WORKLOAD_EXECUTION_H */
