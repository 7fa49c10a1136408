/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-application.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/workload-execution.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadApplication");
NS_OBJECT_ENSURE_REGISTERED(WorkloadApplication);

TypeId
WorkloadApplication::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::WorkloadApplication")
              .SetParent<Application>()
              .SetGroupName("AiFabric")
              .AddConstructor<WorkloadApplication>()
              .AddTraceSource("OpStarted",
                              "An op of this endpoint started (a SEND: its message was posted)",
                              MakeTraceSourceAccessor(&WorkloadApplication::m_opStarted),
                              "ns3::WorkloadApplication::OpTracedCallback")
              .AddTraceSource("OpCompleted",
                              "An op of this endpoint is done",
                              MakeTraceSourceAccessor(&WorkloadApplication::m_opCompleted),
                              "ns3::WorkloadApplication::OpTracedCallback")
              .AddTraceSource("ConservationError",
                              "A message of this endpoint was delivered with other bytes than "
                              "were posted, or delivered twice",
                              MakeTraceSourceAccessor(&WorkloadApplication::m_conservation),
                              "ns3::WorkloadApplication::ConservationTracedCallback");
    return tid;
}

WorkloadApplication::WorkloadApplication()
{
    NS_LOG_FUNCTION(this);
}

WorkloadApplication::~WorkloadApplication()
{
}

void
WorkloadApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_transport)
    {
        m_transport->TraceDisconnectWithoutContext(
            "MessageDelivered",
            MakeCallback(&WorkloadApplication::OnTransportDelivered, this));
    }
    m_transport = nullptr;
    m_execution = nullptr;
    m_workload = nullptr;
    Application::DoDispose();
}

void
WorkloadApplication::Setup(Ptr<WorkloadExecution> execution)
{
    NS_LOG_FUNCTION(this << execution);
    NS_ABORT_MSG_IF(!GetNode(), "WorkloadApplication::Setup before Node::AddApplication");
    m_transport = GetNode()->GetObject<RdmaTransport>();
    NS_ABORT_MSG_IF(!m_transport,
                    "node " << GetNode()->GetId() << " has no RdmaTransport for its workload");
    m_execution = execution;
    m_workload = &execution->GetWorkload();
    m_endpoint = m_transport->GetEndpoint();
    const auto& ops = m_workload->GetOps();
    const uint32_t* first = execution->OpsBegin(m_endpoint);
    const uint32_t* last = execution->OpsEnd(m_endpoint);
    const std::size_t n = last - first;
    m_waiting.resize(n);
    m_startPs.assign(n, -1);
    m_endPs.assign(n, -1);
    m_messageId.assign(n, UINT32_MAX);
    m_opByMessage.clear();
    m_bytesTotal = 0;
    for (std::size_t l = 0; l < n; ++l)
    {
        m_waiting[l] = m_workload->GetInDegree(first[l]);
        if (ops[first[l]].kind == WorkloadOp::SEND)
        {
            m_bytesTotal += ops[first[l]].bytes;
        }
    }
    m_transport->TraceConnectWithoutContext(
        "MessageDelivered",
        MakeCallback(&WorkloadApplication::OnTransportDelivered, this));
    execution->AddApplication(this);
}

uint32_t
WorkloadApplication::GetEndpoint() const
{
    return m_endpoint;
}

void
WorkloadApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    m_started = true;
    if (m_execution)
    {
        m_execution->Start();
    }
}

void
WorkloadApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
}

void
WorkloadApplication::StartOp(uint32_t i)
{
    const WorkloadOp& op = m_workload->GetOps()[i];
    if (op.kind == WorkloadOp::SEND)
    {
        // A SEND starts when its message is posted (PostSend()), after the protocol's and
        // the kernel's waits; it is open from now on.
        m_execution->NoteSendStarted();
        // The protocol's per-hop latency: the message is posted this long after it became
        // eligible (docs/collectives.md, "Protocols"); then, if the group's kernel has a
        // rate, it waits for its copy (CopyThenPost()).
        // (A reducer's send, IN_NETWORK, is the switch's: no kernel copies it.)
        const bool paced = m_workload->GetGroups()[op.group].kernelBytesPerSecond > 0
                           && !(op.flags & WorkloadOp::IN_NETWORK);
        if (op.duration.IsStrictlyPositive())
        {
            Simulator::Schedule(op.duration,
                                paced ? &WorkloadApplication::CopyThenPost
                                      : &WorkloadApplication::PostSend,
                                this,
                                i);
        }
        else if (paced)
        {
            CopyThenPost(i);
        }
        else
        {
            PostSend(i);
        }
    }
    else
    {
        m_startPs[m_execution->GetLocalIndex(i)] = Simulator::Now().GetPicoSeconds();
        m_opStarted(i);
        Simulator::Schedule(op.duration, &WorkloadApplication::CompleteOp, this, i);
    }
}

void
WorkloadApplication::CopyThenPost(uint32_t i)
{
    // The group's kernel copies the message (its wire bytes) into the connection's buffer
    // at its rate, one message after the other, in the order they became ready.
    const WorkloadOp& op = m_workload->GetOps()[i];
    const double rate = m_workload->GetGroups()[op.group].kernelBytesPerSecond;
    int64_t& freePs = m_kernelFreePs[op.group];
    const int64_t now = Simulator::Now().GetPicoSeconds();
    freePs = std::max(now, freePs)
             + std::llround(static_cast<double>(WireBytes(op.wire, op.bytes)) / rate * 1e12);
    Simulator::Schedule(PicoSeconds(freePs - now), &WorkloadApplication::PostSend, this, i);
}

void
WorkloadApplication::PostSend(uint32_t i)
{
    const WorkloadOp& op = m_workload->GetOps()[i];
    m_startPs[m_execution->GetLocalIndex(i)] = Simulator::Now().GetPicoSeconds();
    m_opStarted(i);
    const uint32_t msgId = m_transport->PostSend(op.peer, op.qp, WireBytes(op.wire, op.bytes));
    if (msgId >= m_opByMessage.size())
    {
        m_opByMessage.resize(msgId + 1, UINT32_MAX);
    }
    m_opByMessage[msgId] = i;
    m_messageId[m_execution->GetLocalIndex(i)] = msgId;
    ++m_messagesPosted;
}

void
WorkloadApplication::DependencyDone(uint32_t op)
{
    if (--m_waiting[m_execution->GetLocalIndex(op)] == 0)
    {
        StartOp(op);
    }
}

void
WorkloadApplication::OnTransportDelivered(uint32_t src,
                                          uint32_t dst,
                                          uint32_t msgId,
                                          uint64_t bytes)
{
    m_execution->NotifyDelivered(src, dst, msgId, bytes);
}

void
WorkloadApplication::MessageDelivered(uint32_t msgId, uint64_t bytes)
{
    if (msgId >= m_opByMessage.size() || m_opByMessage[msgId] == UINT32_MAX)
    {
        return; // not posted by this application
    }
    const uint32_t op = m_opByMessage[msgId];
    if (m_endPs[m_execution->GetLocalIndex(op)] >= 0)
    {
        m_conservation(op, bytes, true);
        return; // a message completes once
    }
    const WorkloadOp& o = m_workload->GetOps()[op];
    if (bytes != WireBytes(o.wire, o.bytes))
    {
        m_conservation(op, bytes, false);
    }
    ++m_messagesDelivered;
    CompleteOp(op);
}

void
WorkloadApplication::CompleteOp(uint32_t i)
{
    const WorkloadOp& op = m_workload->GetOps()[i];
    m_endPs[m_execution->GetLocalIndex(i)] = Simulator::Now().GetPicoSeconds();
    ++m_opsDone;
    if (op.kind == WorkloadOp::SEND)
    {
        m_bytesDone += op.bytes;
    }
    m_opCompleted(i);
    m_execution->NotifyOpDone(i);
}

Time
WorkloadApplication::GetOpStart(uint32_t op) const
{
    NS_ASSERT_MSG(m_workload->GetOps()[op].rank == m_endpoint,
                  "op " << op << " is not this endpoint's");
    return PicoSeconds(m_startPs[m_execution->GetLocalIndex(op)]);
}

Time
WorkloadApplication::GetOpEnd(uint32_t op) const
{
    NS_ASSERT_MSG(m_workload->GetOps()[op].rank == m_endpoint,
                  "op " << op << " is not this endpoint's");
    return PicoSeconds(m_endPs[m_execution->GetLocalIndex(op)]);
}

uint32_t
WorkloadApplication::GetMessageId(uint32_t op) const
{
    NS_ASSERT_MSG(m_workload->GetOps()[op].rank == m_endpoint,
                  "op " << op << " is not this endpoint's");
    return m_messageId[m_execution->GetLocalIndex(op)];
}

uint32_t
WorkloadApplication::GetMessageOp(uint32_t msgId) const
{
    return msgId < m_opByMessage.size() ? m_opByMessage[msgId] : UINT32_MAX;
}

uint32_t
WorkloadApplication::GetOpCount() const
{
    return static_cast<uint32_t>(m_waiting.size());
}

uint64_t
WorkloadApplication::GetOpsDone() const
{
    return m_opsDone;
}

uint64_t
WorkloadApplication::GetBytesTotal() const
{
    return m_bytesTotal;
}

uint64_t
WorkloadApplication::GetBytesDone() const
{
    return m_bytesDone;
}

uint64_t
WorkloadApplication::GetMessagesPosted() const
{
    return m_messagesPosted;
}

uint64_t
WorkloadApplication::GetMessagesDelivered() const
{
    return m_messagesDelivered;
}

bool
WorkloadApplication::HasStarted() const
{
    return m_started;
}

} // namespace ns3
