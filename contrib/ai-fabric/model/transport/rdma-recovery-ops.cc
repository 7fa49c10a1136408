/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-recovery-ops.h"

#include "ns3/abort.h"
#include "ns3/fabric-header.h"
#include "ns3/go-back-n-recovery.h"
#include "ns3/rdma-transport.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaRecoveryOps);
NS_OBJECT_ENSURE_REGISTERED(NoRecovery);

// ---------------------------------------------------------------- RdmaRecoveryOps

TypeId
RdmaRecoveryOps::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaRecoveryOps").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

RdmaRecoveryOps::RdmaRecoveryOps()
{
}

RdmaRecoveryOps::~RdmaRecoveryOps()
{
}

void
RdmaRecoveryOps::DoDispose()
{
    m_transport = nullptr;
    Object::DoDispose();
}

void
RdmaRecoveryOps::Bind(RdmaTransport* transport)
{
    m_transport = transport;
}

uint64_t
RdmaRecoveryOps::Key(uint32_t peer, uint16_t qp)
{
    return (static_cast<uint64_t>(peer) << 16) | qp;
}

uint64_t
RdmaRecoveryOps::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
RdmaRecoveryOps::GetOutOfOrderDrops() const
{
    return m_oooDrops;
}

uint64_t
RdmaRecoveryOps::GetDuplicateDrops() const
{
    return m_dupDrops;
}

uint32_t
RdmaRecoveryOps::Endpoint() const
{
    return m_transport->m_endpoint;
}

bool
RdmaRecoveryOps::ToleratesReordering() const
{
    return false; // PSN order: go-back-N takes a gap for a loss
}

void
RdmaRecoveryOps::AcceptPayload(const FabricFields& h) const
{
    m_transport->m_bytesReceived += h.m_payload;
}

void
RdmaRecoveryOps::Deliver(const FabricFields& h, uint64_t bytes) const
{
    m_transport->Deliver(h, bytes);
}

void
RdmaRecoveryOps::SendAck(uint32_t peer, uint16_t qp, uint32_t psn) const
{
    m_transport->SendControl(FabricHeader::ACK, peer, qp, psn);
}

void
RdmaRecoveryOps::SendNack(uint32_t peer, uint16_t qp, uint32_t psn) const
{
    m_transport->SendControl(FabricHeader::NACK, peer, qp, psn);
}

void
RdmaRecoveryOps::ReleaseSent(uint32_t qi) const
{
    RdmaTransport::QueuePair& q = m_transport->m_qps[qi];
    q.msgs.pop_front();
    --q.sendIdx;
}

void
RdmaRecoveryOps::ReleaseAcknowledged(uint32_t qi, uint64_t psn) const
{
    RdmaTransport::QueuePair& q = m_transport->m_qps[qi];
    std::size_t released = 0;
    while (!q.msgs.empty() && q.msgs.front().firstPsn + q.msgs.front().packets <= psn)
    {
        q.msgs.pop_front();
        ++released;
    }
    q.sendIdx -= std::min(q.sendIdx, released);
    if (q.sndNxt < psn)
    {
        m_transport->SeekSend(q, psn); // a rewind went back further than needed
    }
}

void
RdmaRecoveryOps::Rewind(uint32_t qi, uint64_t psn, bool timeout) const
{
    RdmaTransport::QueuePair& q = m_transport->m_qps[qi];
    m_transport->m_goBackTrace(q.dst, q.qp, static_cast<uint32_t>(psn), timeout);
    m_transport->SeekSend(q, psn);
}

uint64_t
RdmaRecoveryOps::SendNext(uint32_t qi) const
{
    return m_transport->m_qps[qi].sndNxt;
}

void
RdmaRecoveryOps::SetFirstPsn(uint32_t qi, uint64_t psn) const
{
    RdmaTransport::QueuePair& q = m_transport->m_qps[qi];
    NS_ASSERT_MSG(q.msgs.empty(), "the first PSN is set before any message");
    q.nextPsn = psn;
    q.sndNxt = psn;
    q.sndBase = psn;
}

void
RdmaRecoveryOps::SetSendWindow(uint32_t qi, uint64_t base, uint32_t window) const
{
    RdmaTransport::QueuePair& q = m_transport->m_qps[qi];
    q.sndBase = base;
    q.window = window;
}

void
RdmaRecoveryOps::Activate(uint32_t qi) const
{
    m_transport->Activate(qi);
}

// ---------------------------------------------------------------- NoRecovery

TypeId
NoRecovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NoRecovery")
                            .SetParent<RdmaRecoveryOps>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NoRecovery>();
    return tid;
}

NoRecovery::NoRecovery()
{
}

NoRecovery::~NoRecovery()
{
}

void
NoRecovery::DoDispose()
{
    m_progress.clear();
    m_lastGot = nullptr;
    RdmaRecoveryOps::DoDispose();
}

Ptr<RdmaRecoveryOps>
NoRecovery::Fork() const
{
    return CreateObject<NoRecovery>();
}

void
NoRecovery::AddQueuePair(uint32_t /* qi */, uint32_t /* dst */, uint16_t /* qp */)
{
}

bool
NoRecovery::NotifySent(uint32_t qi, uint64_t /* psn */, bool last)
{
    if (last)
    {
        ReleaseSent(qi); // no acknowledgements: forget a message once sent
    }
    return false;
}

void
NoRecovery::ReceiveAck(uint32_t /* qi */, const FabricFields& /* h */)
{
}

bool
NoRecovery::ToleratesReordering() const
{
    return true; // bytes per message, in any order
}

void
NoRecovery::ReceiveData(const FabricFields& h)
{
    AcceptPayload(h);
    const bool first = (h.m_flags & FabricHeader::FLAG_FIRST) != 0;
    const bool last = (h.m_flags & FabricHeader::FLAG_LAST) != 0;
    if (first && last)
    {
        Deliver(h, h.m_payload); // single-packet message
        return;
    }
    const uint64_t key = (static_cast<uint64_t>(h.m_src) << 32) | h.m_msgId;
    // Consecutive packets mostly belong to one message: remember its counter (a reference
    // into an unordered_map stays valid when the map rehashes) instead of hashing each time.
    if (m_lastGot == nullptr || m_lastKey != key)
    {
        m_lastKey = key;
        m_lastGot = &m_progress[key];
    }
    *m_lastGot += h.m_payload;
    if (*m_lastGot >= h.m_msgBytes)
    {
        const uint64_t delivered = *m_lastGot;
        m_progress.erase(key);
        m_lastGot = nullptr;
        Deliver(h, delivered);
    }
}

uint64_t
NoRecovery::GetMessagesInProgress() const
{
    return m_progress.size();
}

uint64_t
NoRecovery::GetPartialBytes(uint32_t src, uint32_t msgId) const
{
    const auto it = m_progress.find((static_cast<uint64_t>(src) << 32) | msgId);
    return it != m_progress.end() ? it->second : 0;
}

// ---------------------------------------------------------------- names

std::vector<std::string>
RdmaRecoveryNames()
{
    return {"none", "go-back-n"};
}

TypeId
RdmaRecoveryTypeId(const std::string& name)
{
    if (name == "none")
    {
        return NoRecovery::GetTypeId();
    }
    NS_ABORT_MSG_UNLESS(name == "go-back-n", "unknown RDMA recovery '" << name << "'");
    return GoBackNRecovery::GetTypeId();
}

} // namespace ns3
