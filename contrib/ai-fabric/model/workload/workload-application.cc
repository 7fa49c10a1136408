/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-application.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
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
              .AddAttribute("QpsPerConnection",
                            "Queue pairs of every network connection (sender, receiver, queue "
                            "pair index of the op), as NCCL_IB_QPS_PER_CONNECTION: a SEND "
                            "between servers goes on queue pairs qp x N + k, k < N",
                            UintegerValue(1),
                            MakeUintegerAccessor(&WorkloadApplication::m_qpsPerConnection),
                            MakeUintegerChecker<uint32_t>(1, MAX_QPS_PER_CONNECTION))
              .AddAttribute("SplitDataOnQps",
                            "As NCCL_IB_SPLIT_DATA_ON_QPS: every message split over all the "
                            "connection's queue pairs (true), or each message on the next one, "
                            "round robin (false, NCCL's default)",
                            BooleanValue(false),
                            MakeBooleanAccessor(&WorkloadApplication::m_splitDataOnQps),
                            MakeBooleanChecker())
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
        m_transport->TraceDisconnectWithoutContext(
            "MessageInjected",
            MakeCallback(&WorkloadApplication::OnMessageInjected, this));
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
    m_timing.assign(n, SendTiming{});
    m_opByMessage.clear();
    m_requests.clear();
    m_partsLeft.clear();
    m_partBytes.clear();
    if (m_qpsPerConnection > 1 && m_splitDataOnQps)
    {
        m_partsLeft.assign(n, 0);
        m_partBytes.assign(n, 0);
    }
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
    m_transport->TraceConnectWithoutContext(
        "MessageInjected",
        MakeCallback(&WorkloadApplication::OnMessageInjected, this));
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

bool
WorkloadApplication::OnNetwork(const WorkloadOp& op) const
{
    // NCCL opens several queue pairs on its network (IB/RoCE) connections only: a send
    // inside a server goes over NVLink (P2P), a reducer's send is the switch's.
    if (op.flags & WorkloadOp::IN_NETWORK)
    {
        return false;
    }
    const auto& places = m_workload->GetPlaces();
    const uint32_t a = op.rank < places.size() ? places[op.rank].server : EndpointPlace::NONE;
    const uint32_t b = op.peer < places.size() ? places[op.peer].server : EndpointPlace::NONE;
    return a == EndpointPlace::NONE || a != b;
}

uint32_t
WorkloadApplication::GetMessageParts(uint32_t op) const
{
    const WorkloadOp& o = m_workload->GetOps()[op];
    return m_qpsPerConnection > 1 && m_splitDataOnQps && o.kind == WorkloadOp::SEND && OnNetwork(o)
               ? m_qpsPerConnection
               : 1;
}

uint32_t
WorkloadApplication::PostPart(uint32_t i, uint16_t qp, uint64_t bytes)
{
    const uint32_t msgId = m_transport->PostSend(m_workload->GetOps()[i].peer, qp, bytes);
    if (msgId >= m_opByMessage.size())
    {
        m_opByMessage.resize(msgId + 1, UINT32_MAX);
    }
    m_opByMessage[msgId] = i;
    return msgId;
}

void
WorkloadApplication::PostSend(uint32_t i)
{
    const WorkloadOp& op = m_workload->GetOps()[i];
    const uint32_t local = m_execution->GetLocalIndex(i);
    m_startPs[local] = Simulator::Now().GetPicoSeconds();
    m_opStarted(i);
    const uint64_t bytes = WireBytes(op.wire, op.bytes);
    const uint32_t n = m_qpsPerConnection;
    if (n == 1 || !OnNetwork(op))
    {
        m_messageId[local] = PostPart(i, op.qp, bytes);
    }
    else
    {
        // The connection's queue pairs are qp x N + k (NCCL: comm->base.qps[0..nqps-1] of the
        // connection); every queue pair is its own flow, with its own ECMP entropy.
        NS_ABORT_MSG_IF(static_cast<uint64_t>(op.qp) * n + n - 1 > UINT16_MAX,
                        "queue pair " << op.qp << " x " << n
                                      << " queue pairs per connection exceeds 65535");
        const auto base = static_cast<uint32_t>(op.qp * n);
        if (!m_splitDataOnQps)
        {
            // NCCL src/transport/net_ib/common.h, ncclIbCommBaseGetQpForRequest: request id x
            // 1 + 0 mod nqps, the request id counting the connection's sends (fifoHead): the
            // messages take the queue pairs round robin.
            uint64_t& requests = m_requests[(static_cast<uint64_t>(op.peer) << 16) | op.qp];
            m_messageId[local] = PostPart(i, static_cast<uint16_t>(base + requests % n), bytes);
            ++requests;
        }
        else
        {
            // NCCL src/transport/net_ib/p2p.cc, ncclIbMultiSend: every queue pair carries
            // DIVUP(DIVUP(size, nqps), 128) x 128 bytes (IB_WRITE_CHUNK_ALIGNMENT), the last
            // ones what is left, possibly nothing (a zero-length write with immediate, which
            // the receiver still waits for).
            const uint64_t chunk = ((bytes + n - 1) / n + WRITE_CHUNK_ALIGNMENT - 1)
                                   / WRITE_CHUNK_ALIGNMENT * WRITE_CHUNK_ALIGNMENT;
            uint64_t offset = 0;
            for (uint32_t k = 0; k < n; ++k)
            {
                const uint64_t part = std::min(chunk, bytes - offset);
                const uint32_t msgId = PostPart(i, static_cast<uint16_t>(base + k), part);
                offset += part;
                if (k == 0)
                {
                    m_messageId[local] = msgId;
                }
            }
            m_partsLeft[local] = n;
            m_partBytes[local] = 0;
        }
    }
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
WorkloadApplication::OnMessageInjected(uint32_t msgId,
                                       Time eligible,
                                       Time firstByte,
                                       Time shared,
                                       Time sharedBeforeFirst,
                                       Time /* portHeldAtEligible */)
{
    if (msgId >= m_opByMessage.size() || m_opByMessage[msgId] == UINT32_MAX)
    {
        return; // not posted by this application
    }
    SendTiming& t = m_timing[m_execution->GetLocalIndex(m_opByMessage[msgId])];
    const int64_t e = eligible.GetPicoSeconds();
    const int64_t f = firstByte.GetPicoSeconds();
    // Parts of a message split over queue pairs: the earliest part's times, the largest wait.
    t.eligiblePs = t.eligiblePs < 0 ? e : std::min(t.eligiblePs, e);
    t.firstPs = t.firstPs < 0 ? f : std::min(t.firstPs, f);
    if (shared.GetPicoSeconds() >= t.sharedPs)
    {
        t.sharedPs = shared.GetPicoSeconds();
        t.sharedFirstPs = sharedBeforeFirst.GetPicoSeconds();
    }
}

void
WorkloadApplication::MessageDelivered(uint32_t msgId, uint64_t bytes)
{
    if (msgId >= m_opByMessage.size() || m_opByMessage[msgId] == UINT32_MAX)
    {
        return; // not posted by this application
    }
    const uint32_t op = m_opByMessage[msgId];
    const uint32_t local = m_execution->GetLocalIndex(op);
    ++m_partsDelivered;
    if (m_endPs[local] >= 0)
    {
        m_conservation(op, bytes, true);
        return; // a message completes once
    }
    if (!m_partsLeft.empty() && m_partsLeft[local] > 0)
    {
        // Split over the connection's queue pairs: done when every part is in.
        m_partBytes[local] += bytes;
        if (--m_partsLeft[local] > 0)
        {
            return;
        }
        bytes = m_partBytes[local];
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

uint64_t
WorkloadApplication::GetPartsDelivered() const
{
    return m_partsDelivered;
}

bool
WorkloadApplication::HasStarted() const
{
    return m_started;
}

} // namespace ns3
