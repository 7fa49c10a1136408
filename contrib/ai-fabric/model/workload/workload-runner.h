/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_WORKLOAD_RUNNER_H
#define AI_FABRIC_WORKLOAD_RUNNER_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class RdmaTransport;
class Workload;

/**
 * \ingroup ai-fabric
 * \brief Executes a Workload DAG on the endpoints' RDMA transports.
 *
 * Ops without dependencies start at time zero; an op starts the moment its
 * last dependency is done. A SEND posts a message on its rank's transport and
 * is done when the message has fully arrived at the peer; a DELAY is done
 * after its duration. The runner records each op's start and end time. It
 * knows nothing about what the ops mean.
 */
class WorkloadRunner : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    WorkloadRunner();
    ~WorkloadRunner() override;
    WorkloadRunner(const WorkloadRunner&) = delete;
    WorkloadRunner& operator=(const WorkloadRunner&) = delete;

    /**
     * TracedCallback signature for op events.
     * \param op the op index
     */
    typedef void (*OpTracedCallback)(uint32_t op);

    /**
     * \brief Bind to a finalized workload and the endpoints' transports.
     * \param workload the workload; it must outlive the runner's use
     * \param transports transport of each endpoint, indexed by endpoint id
     */
    void Setup(const Workload* workload, const std::vector<Ptr<RdmaTransport>>& transports);

    /// Schedule the ops that have no dependency (at the current time).
    void Start();

    /// \return true when every op is done
    bool IsDone() const;
    /// \return ops done
    uint64_t GetOpsDone() const;
    /// \param op an op \return its start time (negative if it never started)
    Time GetOpStart(uint32_t op) const;
    /// \param op an op \return its end time (negative if not done)
    Time GetOpEnd(uint32_t op) const;
    /**
     * \param src a source endpoint
     * \param msgId a message id its transport returned
     * \return the SEND op that posted it, or UINT32_MAX if none
     */
    uint32_t GetMessageOp(uint32_t src, uint32_t msgId) const;
    /// \return payload bytes of all SEND ops
    uint64_t GetBytesTotal() const;
    /// \return payload bytes of SEND ops done
    uint64_t GetBytesDone() const;

    /// A delivered message whose receiver counted other bytes than were posted.
    struct ConservationError
    {
        uint32_t op;        //!< the SEND op
        uint64_t delivered; //!< payload bytes the receiver accepted
        bool duplicate;     //!< delivered again after it had completed
    };

    /// \return messages (SEND ops) posted so far
    uint64_t GetMessagesPosted() const;
    /// \return messages (SEND ops) delivered so far
    uint64_t GetMessagesDelivered() const;
    /// \return the delivered messages that broke byte conservation, in delivery order
    const std::vector<ConservationError>& GetConservationErrors() const;
    /**
     * \param op a SEND op that has started
     * \return the message id its sender's transport gave it (UINT32_MAX if none)
     */
    uint32_t GetMessageId(uint32_t op) const;

  protected:
    void DoDispose() override;

  private:
    /**
     * \param op the op to start now
     */
    void StartOp(uint32_t op);
    /**
     * \param op the op that is done now
     */
    void CompleteOp(uint32_t op);
    /**
     * \brief A message arrived (trace sink of every transport).
     * \param src source endpoint
     * \param dst destination endpoint
     * \param msgId message id at the source
     * \param bytes payload bytes
     */
    void OnDelivered(uint32_t src, uint32_t dst, uint32_t msgId, uint64_t bytes);

    const Workload* m_workload{nullptr};              //!< the DAG
    std::vector<Ptr<RdmaTransport>> m_transports;     //!< by endpoint
    std::vector<uint32_t> m_waiting;                  //!< unfinished dependencies per op
    std::vector<int64_t> m_startPs;                   //!< start time per op, ps (-1: not yet)
    std::vector<int64_t> m_endPs;                     //!< end time per op, ps (-1: not yet)
    std::vector<std::vector<uint32_t>> m_opByMessage; //!< [src][msgId] -> op
    uint64_t m_opsDone{0};                            //!< ops done
    uint64_t m_bytesTotal{0};                         //!< SEND payload bytes
    uint64_t m_bytesDone{0};                          //!< SEND payload bytes delivered
    uint64_t m_messagesPosted{0};                     //!< SEND ops posted
    uint64_t m_messagesDelivered{0};                  //!< SEND ops delivered
    std::vector<ConservationError> m_conservation;    //!< conservation errors
    std::vector<uint32_t> m_messageIdOfOp;            //!< per op: message id (SEND)
    TracedCallback<uint32_t> m_opStarted;             //!< op started
    TracedCallback<uint32_t> m_opCompleted;           //!< op done
};

} // namespace ns3

#endif /* AI_FABRIC_WORKLOAD_RUNNER_H */
