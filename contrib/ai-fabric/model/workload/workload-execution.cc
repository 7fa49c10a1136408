/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-execution.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/workload-application.h"
#include "ns3/workload.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadExecution");
NS_OBJECT_ENSURE_REGISTERED(WorkloadExecution);

TypeId
WorkloadExecution::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WorkloadExecution")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<WorkloadExecution>()
                            .AddTraceSource("Done",
                                            "Every op of this process's applications is done",
                                            MakeTraceSourceAccessor(&WorkloadExecution::m_done),
                                            "ns3::TracedValueCallback::Void")
                            .AddTraceSource("OpDone",
                                            "An op is done (before its successors are told)",
                                            MakeTraceSourceAccessor(&WorkloadExecution::m_opDone),
                                            "ns3::WorkloadExecution::OpDoneTracedCallback");
    return tid;
}

WorkloadExecution::WorkloadExecution()
{
    NS_LOG_FUNCTION(this);
}

WorkloadExecution::~WorkloadExecution()
{
}

void
WorkloadExecution::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_apps.clear();
    m_workload = nullptr;
    m_ops = nullptr;
    m_nextOpDone = Callback<void>();
    Object::DoDispose();
}

void
WorkloadExecution::SetWorkload(const Workload* workload)
{
    NS_LOG_FUNCTION(this << workload);
    NS_ABORT_MSG_IF(m_workload, "WorkloadExecution::SetWorkload called twice");
    m_workload = workload;
    m_ops = &workload->GetOps();
    const auto& ops = *m_ops;
    uint32_t endpoints = 0;
    for (const WorkloadOp& op : ops)
    {
        endpoints = std::max(endpoints, op.rank + 1);
        if (op.kind == WorkloadOp::SEND)
        {
            endpoints = std::max(endpoints, op.peer + 1);
        }
    }
    // Ops grouped by executing endpoint, in op order (a counting sort).
    m_opsFirst.assign(endpoints + 1, 0);
    for (const WorkloadOp& op : ops)
    {
        ++m_opsFirst[op.rank + 1];
    }
    for (uint32_t e = 0; e < endpoints; ++e)
    {
        m_opsFirst[e + 1] += m_opsFirst[e];
    }
    m_opsOf.resize(ops.size());
    m_localIndex.resize(ops.size());
    std::vector<uint32_t> next(m_opsFirst.begin(), m_opsFirst.end() - 1);
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        const uint32_t e = ops[i].rank;
        m_localIndex[i] = next[e] - m_opsFirst[e];
        m_opsOf[next[e]++] = i;
    }
    m_apps.assign(endpoints, nullptr);
    m_needsApp.assign(endpoints, 0);
    for (const WorkloadOp& op : ops)
    {
        m_needsApp[op.rank] = 1;
        if (op.kind == WorkloadOp::SEND)
        {
            m_needsApp[op.peer] = 1; // its application hears the delivery
        }
    }
}

void
WorkloadExecution::AddApplication(Ptr<WorkloadApplication> app)
{
    NS_LOG_FUNCTION(this << app);
    NS_ABORT_MSG_IF(!m_workload, "WorkloadExecution::AddApplication before SetWorkload");
    const uint32_t e = app->GetEndpoint();
    if (e >= m_apps.size())
    {
        m_apps.resize(e + 1, nullptr); // an endpoint without ops
    }
    NS_ABORT_MSG_IF(m_apps[e], "endpoint " << e << " has two WorkloadApplications");
    m_apps[e] = app;
    m_opCount += app->GetOpCount();
    app->TraceConnectWithoutContext("ConservationError",
                                    MakeCallback(&WorkloadExecution::OnConservationError, this));
}

void
WorkloadExecution::Start()
{
    NS_LOG_FUNCTION(this);
    if (m_started)
    {
        return;
    }
    m_started = true;
    for (uint32_t e = 0; e < m_needsApp.size(); ++e)
    {
        NS_ABORT_MSG_IF(m_needsApp[e] && !m_apps[e],
                        "the workload names endpoint " << e
                                                       << ", which has no WorkloadApplication");
    }
    const auto& ops = *m_ops;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (m_workload->GetInDegree(i) == 0)
        {
            m_apps[ops[i].rank]->StartOp(i);
        }
    }
}

void
WorkloadExecution::NotifyDelivered(uint32_t src, uint32_t /* dst */, uint32_t msgId, uint64_t bytes)
{
    if (src < m_apps.size() && m_apps[src])
    {
        m_apps[src]->MessageDelivered(msgId, bytes);
    }
}

void
WorkloadExecution::NotifyOpDone(uint32_t op)
{
    if ((*m_ops)[op].kind == WorkloadOp::SEND)
    {
        --m_sendsOpen;
    }
    m_opDone(op);
    if (!m_nextOpDone.IsNull())
    {
        const Callback<void> cb = m_nextOpDone;
        m_nextOpDone = Callback<void>();
        cb();
    }
    if (++m_opsDone == m_opCount)
    {
        m_done();
    }
    for (const uint32_t* s = m_workload->SuccessorsBegin(op); s != m_workload->SuccessorsEnd(op);
         ++s)
    {
        m_apps[(*m_ops)[*s].rank]->DependencyDone(*s);
    }
}

void
WorkloadExecution::OnConservationError(uint32_t op, uint64_t delivered, bool duplicate)
{
    m_conservation.push_back(ConservationError{op, delivered, duplicate});
}

const Workload&
WorkloadExecution::GetWorkload() const
{
    return *m_workload;
}

const uint32_t*
WorkloadExecution::OpsBegin(uint32_t endpoint) const
{
    return endpoint + 1 < m_opsFirst.size() ? m_opsOf.data() + m_opsFirst[endpoint] : nullptr;
}

const uint32_t*
WorkloadExecution::OpsEnd(uint32_t endpoint) const
{
    return endpoint + 1 < m_opsFirst.size() ? m_opsOf.data() + m_opsFirst[endpoint + 1] : nullptr;
}

Ptr<WorkloadApplication>
WorkloadExecution::GetApplication(uint32_t endpoint) const
{
    return endpoint < m_apps.size() ? m_apps[endpoint] : nullptr;
}

bool
WorkloadExecution::IsDone() const
{
    return m_opsDone == m_opCount;
}

uint64_t
WorkloadExecution::GetSendsOpen() const
{
    return m_sendsOpen;
}

void
WorkloadExecution::NoteSendStarted()
{
    ++m_sendsOpen;
}

void
WorkloadExecution::NotifyNextOpDone(Callback<void> cb)
{
    m_nextOpDone = cb;
}

uint64_t
WorkloadExecution::GetOpsDone() const
{
    return m_opsDone;
}

Time
WorkloadExecution::GetOpStart(uint32_t op) const
{
    const WorkloadApplication* app = PeekPointer(m_apps[(*m_ops)[op].rank]);
    return PicoSeconds(app ? app->m_startPs[m_localIndex[op]] : -1);
}

Time
WorkloadExecution::GetOpEnd(uint32_t op) const
{
    const WorkloadApplication* app = PeekPointer(m_apps[(*m_ops)[op].rank]);
    return PicoSeconds(app ? app->m_endPs[m_localIndex[op]] : -1);
}

WorkloadSendTiming
WorkloadExecution::GetSendTiming(uint32_t op) const
{
    const WorkloadApplication* app = PeekPointer(m_apps[(*m_ops)[op].rank]);
    WorkloadSendTiming t;
    if (app && !app->m_timing.empty())
    {
        const auto& s = app->m_timing[m_localIndex[op]];
        if (s.eligiblePs >= 0)
        {
            t.eligible = PicoSeconds(s.eligiblePs);
            t.firstByte = PicoSeconds(s.firstPs);
            t.shared = PicoSeconds(s.sharedPs);
            t.sharedBeforeFirst = PicoSeconds(s.sharedFirstPs);
        }
    }
    return t;
}

uint32_t
WorkloadExecution::GetMessageOp(uint32_t src, uint32_t msgId) const
{
    return src < m_apps.size() && m_apps[src] ? m_apps[src]->GetMessageOp(msgId) : UINT32_MAX;
}

uint32_t
WorkloadExecution::GetMessageId(uint32_t op) const
{
    const WorkloadApplication* app = PeekPointer(m_apps[(*m_ops)[op].rank]);
    return app ? app->m_messageId[m_localIndex[op]] : UINT32_MAX;
}

uint64_t
WorkloadExecution::GetBytesTotal() const
{
    uint64_t bytes = 0;
    for (const auto& app : m_apps)
    {
        bytes += app ? app->GetBytesTotal() : 0;
    }
    return bytes;
}

uint64_t
WorkloadExecution::GetBytesDone() const
{
    uint64_t bytes = 0;
    for (const auto& app : m_apps)
    {
        bytes += app ? app->GetBytesDone() : 0;
    }
    return bytes;
}

uint64_t
WorkloadExecution::GetMessagesPosted() const
{
    uint64_t n = 0;
    for (const auto& app : m_apps)
    {
        n += app ? app->GetMessagesPosted() : 0;
    }
    return n;
}

uint64_t
WorkloadExecution::GetMessagesDelivered() const
{
    uint64_t n = 0;
    for (const auto& app : m_apps)
    {
        n += app ? app->GetMessagesDelivered() : 0;
    }
    return n;
}

uint64_t
WorkloadExecution::GetPartsDelivered() const
{
    uint64_t n = 0;
    for (const auto& app : m_apps)
    {
        n += app ? app->GetPartsDelivered() : 0;
    }
    return n;
}

uint32_t
WorkloadExecution::GetMessageParts(uint32_t op) const
{
    const uint32_t rank = (*m_ops)[op].rank;
    return rank < m_apps.size() && m_apps[rank] ? m_apps[rank]->GetMessageParts(op) : 1;
}

const std::vector<WorkloadExecution::ConservationError>&
WorkloadExecution::GetConservationErrors() const
{
    return m_conservation;
}

} // namespace ns3
