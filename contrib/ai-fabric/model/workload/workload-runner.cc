/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-runner.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/workload.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadRunner");
NS_OBJECT_ENSURE_REGISTERED(WorkloadRunner);

TypeId
WorkloadRunner::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WorkloadRunner")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<WorkloadRunner>()
                            .AddTraceSource("OpStarted",
                                            "A workload op started",
                                            MakeTraceSourceAccessor(&WorkloadRunner::m_opStarted),
                                            "ns3::WorkloadRunner::OpTracedCallback")
                            .AddTraceSource("OpCompleted",
                                            "A workload op is done",
                                            MakeTraceSourceAccessor(&WorkloadRunner::m_opCompleted),
                                            "ns3::WorkloadRunner::OpTracedCallback");
    return tid;
}

WorkloadRunner::WorkloadRunner()
{
}

WorkloadRunner::~WorkloadRunner()
{
}

void
WorkloadRunner::DoDispose()
{
    m_transports.clear();
    m_workload = nullptr;
    Object::DoDispose();
}

void
WorkloadRunner::Setup(const Workload* workload, const std::vector<Ptr<RdmaTransport>>& transports)
{
    m_workload = workload;
    m_transports = transports;
    const auto& ops = workload->GetOps();
    m_waiting.resize(ops.size());
    m_startPs.assign(ops.size(), -1);
    m_endPs.assign(ops.size(), -1);
    m_opByMessage.assign(transports.size(), {});
    m_messageIdOfOp.assign(ops.size(), UINT32_MAX);
    m_messagesPosted = 0;
    m_messagesDelivered = 0;
    m_conservation.clear();
    m_bytesTotal = 0;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        m_waiting[i] = workload->GetInDegree(i);
        if (ops[i].kind == WorkloadOp::SEND)
        {
            NS_ABORT_MSG_IF(ops[i].rank >= transports.size() || ops[i].peer >= transports.size(),
                            "workload op " << i << " names an endpoint that does not exist");
            m_bytesTotal += ops[i].bytes;
        }
    }
    for (const auto& t : transports)
    {
        t->TraceConnectWithoutContext("MessageDelivered",
                                      MakeCallback(&WorkloadRunner::OnDelivered, this));
    }
}

void
WorkloadRunner::Start()
{
    for (uint32_t i = 0; i < m_waiting.size(); ++i)
    {
        if (m_waiting[i] == 0)
        {
            StartOp(i);
        }
    }
}

void
WorkloadRunner::StartOp(uint32_t i)
{
    const WorkloadOp& op = m_workload->GetOps()[i];
    m_startPs[i] = Simulator::Now().GetPicoSeconds();
    m_opStarted(i);
    if (op.kind == WorkloadOp::SEND)
    {
        const uint32_t msgId = m_transports[op.rank]->PostSend(op.peer, op.qp, op.bytes);
        auto& table = m_opByMessage[op.rank];
        if (msgId >= table.size())
        {
            table.resize(msgId + 1, UINT32_MAX);
        }
        table[msgId] = i;
        m_messageIdOfOp[i] = msgId;
        ++m_messagesPosted;
    }
    else
    {
        Simulator::Schedule(op.duration, &WorkloadRunner::CompleteOp, this, i);
    }
}

void
WorkloadRunner::OnDelivered(uint32_t src, uint32_t /* dst */, uint32_t msgId, uint64_t bytes)
{
    const auto& table = m_opByMessage[src];
    if (msgId < table.size() && table[msgId] != UINT32_MAX)
    {
        const uint32_t op = table[msgId];
        if (m_endPs[op] >= 0)
        {
            m_conservation.push_back(ConservationError{op, bytes, true});
            return; // a message completes once
        }
        if (bytes != m_workload->GetOps()[op].bytes)
        {
            m_conservation.push_back(ConservationError{op, bytes, false});
        }
        ++m_messagesDelivered;
        CompleteOp(op);
    }
}

void
WorkloadRunner::CompleteOp(uint32_t i)
{
    const WorkloadOp& op = m_workload->GetOps()[i];
    m_endPs[i] = Simulator::Now().GetPicoSeconds();
    ++m_opsDone;
    if (op.kind == WorkloadOp::SEND)
    {
        m_bytesDone += op.bytes;
    }
    m_opCompleted(i);
    for (const uint32_t* s = m_workload->SuccessorsBegin(i); s != m_workload->SuccessorsEnd(i); ++s)
    {
        if (--m_waiting[*s] == 0)
        {
            StartOp(*s);
        }
    }
}

bool
WorkloadRunner::IsDone() const
{
    return m_opsDone == m_waiting.size();
}

uint64_t
WorkloadRunner::GetOpsDone() const
{
    return m_opsDone;
}

Time
WorkloadRunner::GetOpStart(uint32_t op) const
{
    return PicoSeconds(m_startPs[op]);
}

Time
WorkloadRunner::GetOpEnd(uint32_t op) const
{
    return PicoSeconds(m_endPs[op]);
}

uint32_t
WorkloadRunner::GetMessageOp(uint32_t src, uint32_t msgId) const
{
    if (src >= m_opByMessage.size() || msgId >= m_opByMessage[src].size())
    {
        return UINT32_MAX;
    }
    return m_opByMessage[src][msgId];
}

uint64_t
WorkloadRunner::GetBytesTotal() const
{
    return m_bytesTotal;
}

uint64_t
WorkloadRunner::GetBytesDone() const
{
    return m_bytesDone;
}

uint64_t
WorkloadRunner::GetMessagesPosted() const
{
    return m_messagesPosted;
}

uint64_t
WorkloadRunner::GetMessagesDelivered() const
{
    return m_messagesDelivered;
}

const std::vector<WorkloadRunner::ConservationError>&
WorkloadRunner::GetConservationErrors() const
{
    return m_conservation;
}

uint32_t
WorkloadRunner::GetMessageId(uint32_t op) const
{
    return m_messageIdOfOp[op];
}

} // namespace ns3
