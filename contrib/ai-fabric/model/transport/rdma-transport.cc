/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-transport.h"

#include "ns3/abort.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/rdma-recovery-ops.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTransport");
NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaTransport")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<RdmaTransport>()
              .AddAttribute("DataPriority",
                            "Lane (virtual lane or traffic class) of data packets; "
                            "read by Setup()",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RdmaTransport::m_priority),
                            MakeUintegerChecker<uint8_t>())
              .AddAttribute("ControlPriority",
                            "Lane of ACK, NACK and CNP packets",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RdmaTransport::m_controlPriority),
                            MakeUintegerChecker<uint8_t>())
              .AddAttribute("RecoveryOps",
                            "Prototype of the loss recovery (ns3::NoRecovery for lossless "
                            "fabrics, ns3::GoBackNRecovery for lossy ones), forked for this "
                            "transport; null: NoRecovery. Must be of the same kind at every "
                            "endpoint; set before the first PostSend",
                            PointerValue(),
                            MakePointerAccessor(&RdmaTransport::SetRecoveryOps,
                                                &RdmaTransport::GetRecoveryOps),
                            MakePointerChecker<RdmaRecoveryOps>())
              .AddAttribute("CongestionControl",
                            "Prototype of the per-queue-pair rate controller (e.g. ns3::Dcqcn), "
                            "forked per queue pair; leave unset for no congestion control "
                            "(line rate)",
                            PointerValue(),
                            MakePointerAccessor(&RdmaTransport::m_cc),
                            MakePointerChecker<RdmaCongestionControl>())
              .AddTraceSource("MessageDelivered",
                              "All bytes of a message have arrived at this endpoint",
                              MakeTraceSourceAccessor(&RdmaTransport::m_messageDelivered),
                              "ns3::RdmaTransport::MessageTracedCallback")
              .AddTraceSource("CnpSent",
                              "Notification point: a CNP was sent to a source queue pair",
                              MakeTraceSourceAccessor(&RdmaTransport::m_cnpSentTrace),
                              "ns3::RdmaTransport::QpTracedCallback")
              .AddTraceSource("CnpReceived",
                              "Reaction point: a CNP arrived for a queue pair",
                              MakeTraceSourceAccessor(&RdmaTransport::m_cnpReceivedTrace),
                              "ns3::RdmaTransport::QpTracedCallback")
              .AddTraceSource("AckSent",
                              "go-back-n: an ACK (next expected PSN) was sent",
                              MakeTraceSourceAccessor(&RdmaTransport::m_ackSentTrace),
                              "ns3::RdmaTransport::PsnTracedCallback")
              .AddTraceSource("NackSent",
                              "go-back-n: a NACK (next expected PSN) was sent",
                              MakeTraceSourceAccessor(&RdmaTransport::m_nackSentTrace),
                              "ns3::RdmaTransport::PsnTracedCallback")
              .AddTraceSource("AckReceived",
                              "go-back-n: an ACK arrived",
                              MakeTraceSourceAccessor(&RdmaTransport::m_ackReceivedTrace),
                              "ns3::RdmaTransport::PsnTracedCallback")
              .AddTraceSource("NackReceived",
                              "go-back-n: a NACK arrived",
                              MakeTraceSourceAccessor(&RdmaTransport::m_nackReceivedTrace),
                              "ns3::RdmaTransport::PsnTracedCallback")
              .AddTraceSource("Retransmission",
                              "go-back-n: a data packet was transmitted again",
                              MakeTraceSourceAccessor(&RdmaTransport::m_retransmitTrace),
                              "ns3::RdmaTransport::PsnTracedCallback")
              .AddTraceSource("GoBack",
                              "go-back-n: a queue pair rewound (NACK or timeout)",
                              MakeTraceSourceAccessor(&RdmaTransport::m_goBackTrace),
                              "ns3::RdmaTransport::GoBackTracedCallback")
              .AddTraceSource("RateChange",
                              "The congestion controller changed a queue pair's rate",
                              MakeTraceSourceAccessor(&RdmaTransport::m_rateTrace),
                              "ns3::RdmaTransport::RateTracedCallback")
              .AddTraceSource("MessagePosted",
                              "A message was posted: its destination, id, size, the port it "
                              "leaves by and the time flow control has held that port's lane "
                              "so far (straggler attribution)",
                              MakeTraceSourceAccessor(&RdmaTransport::m_messagePostedTrace),
                              "ns3::RdmaTransport::MessagePostedTracedCallback")
              .AddTraceSource("FirstPacketSent",
                              "A message's first packet starts leaving the source port (again "
                              "after a go-back-N rewind)",
                              MakeTraceSourceAccessor(&RdmaTransport::m_firstPacketSentTrace),
                              "ns3::RdmaTransport::FirstPacketSentTracedCallback")
              .AddTraceSource("LastPacketSent",
                              "A message's last packet starts leaving the source port (again "
                              "after a go-back-N rewind), with the line-rate serialization of "
                              "the packets before it",
                              MakeTraceSourceAccessor(&RdmaTransport::m_lastPacketSentTrace),
                              "ns3::RdmaTransport::LastPacketSentTracedCallback")
              .AddTraceSource("MessageInjected",
                              "A message's last packet leaves the source (the first time): when "
                              "the message became the head of its queue pair, when its first "
                              "packet left, and the port time spent on other packets while it "
                              "waited for its turn in the round robin",
                              MakeTraceSourceAccessor(&RdmaTransport::m_messageInjectedTrace),
                              "ns3::RdmaTransport::MessageInjectedTracedCallback");
    return tid;
}

RdmaTransport::RdmaTransport()
{
    // Every transport starts with a NoRecovery of its own (the attribute's initial value is
    // null); setting RecoveryOps replaces it with a fork of the prototype.
    SetRecoveryOps(nullptr);
}

RdmaTransport::~RdmaTransport()
{
}

void
RdmaTransport::DoDispose()
{
    for (QueuePair& q : m_qps)
    {
        if (q.cc)
        {
            q.cc->Dispose();
            q.cc = nullptr;
        }
    }
    for (Port& port : m_ports)
    {
        port.wake.Cancel();
    }
    m_ports.clear();
    m_selector = PortSelector();
    m_cc = nullptr;
    m_qps.clear();
    m_qpIndex.clear();
    for (auto& [key, rx] : m_rxQps)
    {
        rx.cnpTimer.Cancel();
    }
    m_rxQps.clear();
    if (m_recovery)
    {
        m_recovery->Dispose();
        m_recovery = nullptr;
    }
    Object::DoDispose();
}

void
RdmaTransport::SetRecoveryOps(Ptr<RdmaRecoveryOps> ops)
{
    NS_ABORT_MSG_IF(!m_qps.empty(), "RdmaTransport: RecoveryOps set after the first PostSend");
    if (m_recovery)
    {
        m_recovery->Dispose();
    }
    m_recovery = ops ? ops->Fork() : Ptr<RdmaRecoveryOps>(CreateObject<NoRecovery>());
    m_recovery->Bind(this);
}

Ptr<RdmaRecoveryOps>
RdmaTransport::GetRecoveryOps() const
{
    return m_recovery;
}

uint64_t
RdmaTransport::Key(uint32_t peer, uint16_t qp)
{
    return (static_cast<uint64_t>(peer) << 16) | qp;
}

void
RdmaTransport::Setup(uint32_t endpoint, Ptr<FabricNetDevice> nic, uint32_t mtu)
{
    NS_ABORT_MSG_IF(!m_ports.empty(), "RdmaTransport::Setup called twice");
    m_endpoint = endpoint;
    m_mtu = (mtu == 0) ? nic->GetPayloadMtu() : std::min(mtu, nic->GetPayloadMtu());
    AddPort(nic);
    nic->SetFabricReceiveCallback(GetReceiveCallback());
}

void
RdmaTransport::Setup(uint32_t endpoint,
                     const std::vector<Ptr<FabricNetDevice>>& ports,
                     uint32_t mtu,
                     PortSelector selector,
                     StripeSelector stripe)
{
    NS_ABORT_MSG_IF(!m_ports.empty(), "RdmaTransport::Setup called twice");
    NS_ABORT_MSG_IF(ports.empty(), "RdmaTransport needs a port");
    m_endpoint = endpoint;
    m_mtu = mtu;
    for (const auto& dev : ports)
    {
        m_mtu = std::min(m_mtu, dev->GetPayloadMtu());
    }
    for (const auto& dev : ports)
    {
        AddPort(dev);
    }
    m_selector = selector;
    m_stripe = stripe;
}

void
RdmaTransport::AddPort(Ptr<FabricNetDevice> dev)
{
    // Per-packet times are kept in picoseconds from the simulator's time steps.
    m_psPerStep = Time::FromInteger(1, Time::GetResolution()).GetPicoSeconds();
    NS_ABORT_MSG_IF(m_psPerStep < 1, "RdmaTransport needs a time resolution of 1 ps or coarser");
    const uint32_t index = m_ports.size();
    m_ports.emplace_back();
    m_ports.back().dev = dev;
    m_ports.back().lineBps = dev->GetDataRate().GetBitRate();
    FabricHeader largest;
    largest.m_payload = m_mtu;
    largest.m_flags = FabricHeader::FLAG_FIRST;
    dev->SetPullCallback(MakeCallback(&RdmaTransport::Pull, this, index),
                         m_priority,
                         dev->WireBytes(largest));
}

Callback<void, FabricNetDevice*, FabricArrival&>
RdmaTransport::GetReceiveCallback()
{
    return MakeCallback(&RdmaTransport::Receive, this);
}

uint32_t
RdmaTransport::PortFor(uint32_t dst, uint16_t qp) const
{
    if (m_selector.IsNull())
    {
        return 0;
    }
    const uint32_t port = m_selector(dst, qp);
    NS_ABORT_MSG_IF(port >= m_ports.size(), "port selector gave port " << port);
    return port;
}

uint32_t
RdmaTransport::PostSend(uint32_t dst, uint16_t qp, uint64_t bytes)
{
    NS_ABORT_MSG_IF(m_ports.empty(), "RdmaTransport used before Setup");
    auto [it, inserted] = m_qpIndex.try_emplace(Key(dst, qp), static_cast<uint32_t>(m_qps.size()));
    if (inserted)
    {
        m_qps.emplace_back();
        m_qps.back().dst = dst;
        m_qps.back().qp = qp;
        QueuePair& created = m_qps.back();
        created.port = PortFor(dst, qp);
        if (!m_stripe.IsNull() && m_ports.size() > 1 && m_ports.size() <= 64
            && m_recovery->ToleratesReordering())
        {
            const uint64_t mask = m_stripe(dst, qp);
            NS_ABORT_MSG_IF(mask >> (m_ports.size() - 1) > 1,
                            "stripe selector gave a port beyond " << m_ports.size());
            if ((mask & (mask - 1)) != 0) // two ports or more
            {
                created.stripe = mask;
                created.stripeWait.assign(m_ports.size(), {-1, 0});
                if (!(mask >> created.port & 1))
                {
                    created.port = static_cast<uint32_t>(__builtin_ctzll(mask));
                }
            }
        }
        m_recovery->AddQueuePair(it->second, dst, qp);
    }
    const uint32_t qi = it->second;
    QueuePair& q = m_qps[qi];
    const uint64_t packets = bytes == 0 ? 1 : (bytes + m_mtu - 1) / m_mtu;
    // The sender's PSNs are 64-bit counts (the wire's wrap, PsnBefore); one message stays
    // within the receiver's window (the runner refuses larger messages up front:
    // CheckMessagePackets).
    NS_ABORT_MSG_IF(packets > MAX_MESSAGE_PACKETS,
                    "a message of " << bytes << " B to endpoint " << dst << " needs " << packets
                                    << " packets, more than " << MAX_MESSAGE_PACKETS);
    const uint32_t msgId = m_nextMsgId++;
    q.msgs.push_back(OutMessage{bytes, q.nextPsn, msgId, static_cast<uint32_t>(packets)});
    if (q.sendIdx + 1 == q.msgs.size())
    {
        // Nothing before it left to send on its queue pair: it is the head, eligible now.
        MakeEligible(q, q.msgs.back(), Simulator::Now().GetPicoSeconds());
    }
    q.nextPsn += packets;
    m_bytesPosted += bytes;
    if (!m_messagePostedTrace.IsEmpty())
    {
        m_messagePostedTrace(dst,
                             msgId,
                             bytes,
                             q.port,
                             PicoSeconds(m_ports[q.port].dev->GetHeldPs(m_priority)));
    }
    Activate(qi);
    return msgId;
}

bool
RdmaTransport::CanSend(const QueuePair& q) const
{
    return q.sendIdx < q.msgs.size() && (q.window == 0 || q.sndNxt - q.sndBase < q.window);
}

void
RdmaTransport::Activate(uint32_t qi)
{
    QueuePair& q = m_qps[qi];
    if (q.stripe != 0)
    {
        ActivateStriped(qi);
        return;
    }
    if (q.sched != IDLE || !CanSend(q))
    {
        return;
    }
    if (q.paceBps > 0 && q.nextSend > Simulator::Now())
    {
        PushPaced(qi, q.nextSend);
        ScheduleWake(q.port, q.nextSend.GetTimeStep());
        return;
    }
    q.sched = IN_RING;
    MarkRingEntry(q, q.port);
    m_ports[q.port].ring.push_back(qi);
    m_ports[q.port].dev->Wake();
}

int64_t
RdmaTransport::SerializationPs(uint32_t wireBytes, uint32_t port)
{
    Port& p = m_ports[port];
    if (wireBytes != p.serialWire)
    {
        p.serialWire = wireBytes;
        p.serialPs = static_cast<int64_t>(static_cast<unsigned __int128>(wireBytes) * 8u
                                          * 1000000000000ull / p.lineBps);
    }
    return p.serialPs;
}

void
RdmaTransport::MakeEligible(const QueuePair& q, OutMessage& m, int64_t nowPs)
{
    m.eligiblePs = nowPs;
    m.heldAtEligiblePs = m_ports[q.port].dev->GetHeldPs(m_priority);
}

void
RdmaTransport::MarkRingEntry(QueuePair& q, uint32_t port)
{
    const int64_t busy = m_ports[port].dev->GetBusyTimeUntilNow().GetPicoSeconds();
    if (q.stripe == 0)
    {
        q.waitMarkPs = busy;
        q.lastWire = 0;
    }
    else
    {
        q.stripeWait[port] = {busy, 0};
    }
}

void
RdmaTransport::PushPaced(uint32_t qi, Time at)
{
    m_qps[qi].sched = IN_HEAP;
    auto& heap = m_ports[m_qps[qi].port].paced;
    heap.push_back(PaceEntry{at.GetTimeStep(), m_paceSeq++, qi});
    std::push_heap(heap.begin(), heap.end(), PaceLater());
}

void
RdmaTransport::ReleasePaced(Port& port, Time now)
{
    const int64_t t = now.GetTimeStep();
    auto& heap = port.paced;
    while (!heap.empty() && heap.front().at <= t)
    {
        const uint32_t qi = heap.front().qi;
        std::pop_heap(heap.begin(), heap.end(), PaceLater());
        heap.pop_back();
        m_qps[qi].sched = IN_RING;
        MarkRingEntry(m_qps[qi], m_qps[qi].port);
        port.ring.push_back(qi);
    }
}

void
RdmaTransport::ScheduleWake(uint32_t index, int64_t at)
{
    Port& port = m_ports[index];
    if (port.wake.IsRunning() && port.wakeAt <= at)
    {
        return; // an earlier wake-up pulls again, and reschedules if needed
    }
    port.wake.Cancel();
    port.wakeAt = at;
    port.wake = Simulator::Schedule(TimeStep(at) - Simulator::Now(),
                                    &RdmaTransport::WakeNic,
                                    this,
                                    index);
}

void
RdmaTransport::WakeNic(uint32_t index)
{
    m_ports[index].dev->Wake();
}

void
RdmaTransport::ActivateStriped(uint32_t qi)
{
    QueuePair& q = m_qps[qi];
    if (!CanSend(q))
    {
        return;
    }
    q.sched = IN_RING;
    // Every port of the stripe serves it in its round robin: whichever link is free sends
    // its next packet, so the queue pair's packets spread over the links as they drain.
    for (uint64_t todo = q.stripe & ~q.inRings; todo != 0; todo &= todo - 1)
    {
        const auto index = static_cast<uint32_t>(__builtin_ctzll(todo));
        q.inRings |= uint64_t{1} << index;
        MarkRingEntry(q, index);
        m_ports[index].ring.push_back(qi);
        m_ports[index].dev->Wake();
    }
}

bool
RdmaTransport::PullStriped(uint32_t qi, uint32_t index, FabricTxItem& item, int64_t nowPs)
{
    QueuePair& q = m_qps[qi];
    Port& port = m_ports[index];
    q.inRings &= ~(uint64_t{1} << index);
    if (!CanSend(q))
    {
        if (q.inRings == 0)
        {
            q.sched = IDLE;
        }
        return false;
    }
    MakePacket(qi, item, index, nowPs);
    if (q.stripe != 0 && CanSend(q))
    {
        q.inRings |= uint64_t{1} << index;
        port.ring.push_back(qi);
    }
    else if (q.inRings == 0)
    {
        q.sched = IDLE;
        Activate(qi); // left striping on a CNP: joins its own port's ring, paced
    }
    return true;
}

bool
RdmaTransport::Pull(uint32_t index, FabricTxItem& item)
{
    const Time now = Simulator::Now();
    const int64_t nowPs = now.GetTimeStep() * m_psPerStep;
    Port& port = m_ports[index];
    ReleasePaced(port, now);
    while (!port.ring.empty())
    {
        const uint32_t qi = port.ring.front();
        port.ring.pop_front();
        QueuePair& q = m_qps[qi];
        if (q.inRings != 0)
        {
            // Striped (or was, until a CNP): served by every port of its stripe.
            if (!PullStriped(qi, index, item, nowPs))
            {
                continue;
            }
        }
        else
        {
            if (!CanSend(q))
            {
                q.sched = IDLE; // an ACK moved it past its last packet, or the window closed
                continue;
            }
            MakePacket(qi, item, index, nowPs);
            if (q.paceBps > 0)
            {
                // The next packet is due wireBytes * 8 / RC (rounded up to a picosecond) after
                // this one was due, or was sent if that is more than one gap ago: a queue pair
                // that waited for the port behind others catches up, by one packet at most.
                const unsigned __int128 bits = static_cast<unsigned __int128>(item.wireBytes) * 8u;
                const Time gap = PicoSeconds(
                    static_cast<int64_t>((bits * 1000000000000ull + q.paceBps - 1) / q.paceBps));
                q.nextSend = std::max(q.nextSend, now - gap) + gap;
            }
            if (!CanSend(q))
            {
                q.sched = IDLE; // done, or the window is full until an ACK (Activate paces it)
            }
            else if (q.paceBps > 0)
            {
                PushPaced(qi, q.nextSend);
            }
            else
            {
                port.ring.push_back(qi);
            }
        }
        item.more = !port.ring.empty();
        if (!item.more && !port.paced.empty())
        {
            ScheduleWake(index, port.paced.front().at);
        }
        return true;
    }
    if (!port.paced.empty())
    {
        ScheduleWake(index, port.paced.front().at);
    }
    return false;
}

void
RdmaTransport::MakePacket(uint32_t qi, FabricTxItem& item, uint32_t port, int64_t nowPs)
{
    QueuePair& q = m_qps[qi];
    OutMessage& m = q.msgs[q.sendIdx];
    const auto k = static_cast<uint32_t>(q.sndNxt - m.firstPsn);
    const uint64_t offset = static_cast<uint64_t>(k) * m_mtu;
    const bool last = k + 1 == m.packets;

    // The port's time on other packets since this queue pair joined its ring or was last
    // served there (less its own packet then) is time this message waited for its turn.
    const int64_t busy = m_ports[port].dev->GetBusyPsUntil(nowPs, m_psPerStep);
    const bool striped = q.stripe != 0;
    auto& wait = striped ? q.stripeWait[port].first : q.waitMarkPs;
    auto& lastWire = striped ? q.stripeWait[port].second : q.lastWire;
    if (wait >= 0)
    {
        const int64_t others = busy - wait - SerializationPs(lastWire, port);
        if (others > 0)
        {
            m.sharedPs += striped ? others / __builtin_popcountll(q.stripe) : others;
        }
    }
    if (m.eligiblePs < 0)
    {
        MakeEligible(q, m, nowPs); // (a go-back-N rewind into a message not yet eligible)
    }
    if (m.firstPs < 0)
    {
        m.firstPs = nowPs;
        m.sharedFirstPs = m.sharedPs;
    }

    // Written in place: a copy of a header just written field by field stalls the store
    // buffer (the narrow stores cannot forward to the wide loads of the copy).
    FabricFields& h = item.header;
    h = FabricFields();
    h.m_src = m_endpoint;
    h.m_dst = q.dst;
    h.m_qp = q.qp;
    h.m_priority = m_priority;
    h.m_kind = FabricHeader::DATA;
    h.m_msgId = m.msgId;
    h.m_psn = static_cast<uint32_t>(q.sndNxt); // the low 32 bits: PSNs wrap on the wire
    h.m_payload = static_cast<uint32_t>(std::min<uint64_t>(m_mtu, m.bytes - offset));
    h.m_msgBytes = m.bytes;
    h.m_flags = (k == 0 ? FabricHeader::FLAG_FIRST : 0) | (last ? FabricHeader::FLAG_LAST : 0);

    if ((k == 0 && !m_firstPacketSentTrace.IsEmpty()) || (last && !m_lastPacketSentTrace.IsEmpty()))
    {
        NotifyInjected(m_ports[port], m, h, k == 0, last);
    }
    ++q.sndNxt;

    // No ns-3 Packet: the packet travels as item.header and its sizes; an observer that needs
    // a Packet gets one from MaterializePacket.
    item.wireBytes = m_ports[port].dev->WireBytes(h);
    item.priority = m_priority;
    wait = busy;
    lastWire = item.wireBytes;
    if (last)
    {
        if (!m.injected)
        {
            m.injected = true;
            m_messageInjectedTrace(m.msgId,
                                   PicoSeconds(m.eligiblePs),
                                   PicoSeconds(m.firstPs),
                                   PicoSeconds(m.sharedPs),
                                   PicoSeconds(m.sharedFirstPs),
                                   PicoSeconds(m.heldAtEligiblePs));
        }
        ++q.sendIdx;
        if (q.sendIdx < q.msgs.size() && q.msgs[q.sendIdx].eligiblePs < 0)
        {
            // The next message is the head once this packet has left.
            MakeEligible(q, q.msgs[q.sendIdx], nowPs + SerializationPs(item.wireBytes, port));
        }
    }

    ++m_dataSent;
    // The recovery keeps or releases the message and (go-back-N) arms its timer.
    if (m_recovery->NotifySent(qi, q.sndNxt - 1, last))
    {
        ++m_retransmitted;
        m_retransmitTrace(q.dst, q.qp, h.m_psn);
    }
    if (q.cc)
    {
        q.cc->NotifySent(item.wireBytes);
    }
}

void
RdmaTransport::NotifyInjected(const Port& port,
                              const OutMessage& m,
                              const FabricFields& h,
                              bool first,
                              bool last)
{
    if (first && !m_firstPacketSentTrace.IsEmpty())
    {
        m_firstPacketSentTrace(m.msgId, PicoSeconds(port.dev->GetHeldPs(m_priority)));
    }
    if (!last || m_lastPacketSentTrace.IsEmpty())
    {
        return;
    }
    // Line-rate serialization of the packets before this one: the first (with RETH)
    // and the full-MTU middle ones.
    uint64_t wire = 0;
    if (m.packets > 1)
    {
        FabricFields full = h;
        full.m_payload = m_mtu;
        full.m_flags = FabricHeader::FLAG_FIRST;
        wire = port.dev->WireBytes(full);
        full.m_flags = 0;
        wire += static_cast<uint64_t>(m.packets - 2) * port.dev->WireBytes(full);
    }
    const int64_t idealPs = static_cast<int64_t>(static_cast<unsigned __int128>(wire) * 8u
                                                 * 1000000000000ull / port.lineBps);
    m_lastPacketSentTrace(m.msgId,
                          PicoSeconds(idealPs),
                          PicoSeconds(port.dev->GetHeldPs(m_priority)));
}

void
RdmaTransport::SeekSend(QueuePair& q, uint64_t psn)
{
    q.sndNxt = psn;
    const auto it = std::partition_point(q.msgs.begin(), q.msgs.end(), [psn](const OutMessage& m) {
        return m.firstPsn + m.packets <= psn;
    });
    q.sendIdx = static_cast<std::size_t>(it - q.msgs.begin());
}

void
RdmaTransport::RateChanged(uint32_t qi, DataRate rate)
{
    QueuePair& q = m_qps[qi];
    Port& port = m_ports[q.port];
    const uint64_t bps = rate.GetBitRate();
    if (bps < (q.paceBps > 0 ? q.paceBps : port.lineBps))
    {
        ++m_rateCuts;
    }
    q.paceBps = bps < port.lineBps ? bps : 0;
    // The port's list of queue pairs below line rate, for observers (GetPortRateSample).
    if (q.paceBps > 0 && q.limitedPos == NOT_LIMITED)
    {
        q.limitedPos = static_cast<uint32_t>(port.limited.size());
        port.limited.push_back(qi);
    }
    else if (q.paceBps == 0 && q.limitedPos != NOT_LIMITED)
    {
        const uint32_t moved = port.limited.back();
        port.limited[q.limitedPos] = moved;
        m_qps[moved].limitedPos = q.limitedPos;
        port.limited.pop_back();
        q.limitedPos = NOT_LIMITED;
    }
    ++m_rateChanges;
    m_rateTrace(q.dst, q.qp, rate);
}

void
RdmaTransport::SendControl(uint8_t kind, uint32_t peer, uint16_t qp, uint32_t psn)
{
    FabricHeader h;
    h.m_src = m_endpoint;
    h.m_dst = peer;
    h.m_qp = qp;
    h.m_priority = m_controlPriority;
    h.m_kind = kind;
    h.m_psn = psn;
    switch (kind)
    {
        case FabricHeader::ACK:
            ++m_acksSent;
            m_ackSentTrace(peer, qp, psn);
            break;
        case FabricHeader::NACK:
            ++m_nacksSent;
            m_nackSentTrace(peer, qp, psn);
            break;
        case FabricHeader::CNP:
            break;
        default:
            NS_ABORT_MSG("not a control packet kind: " << +kind);
    }
    Port& port = m_ports[PortFor(peer, qp)];
    if (kind == FabricHeader::CNP)
    {
        ++m_cnpsSent;
        ++port.cnpsSent;
        m_cnpSentTrace(peer, qp);
    }
    FabricTxItem item; // no ns-3 Packet unless an observer asks (MaterializePacket)
    item.header = h;
    const Ptr<FabricNetDevice>& dev = port.dev;
    item.wireBytes = dev->WireBytes(h);
    item.priority = m_controlPriority;
    dev->Enqueue(std::move(item));
}

void
RdmaTransport::Receive(FabricNetDevice* /* nic */, FabricArrival& arrival)
{
    const FabricFields& h = arrival.header;
    NS_ABORT_MSG_IF(h.m_dst != m_endpoint,
                    "endpoint " << m_endpoint << " received a packet for " << h.m_dst);
    switch (h.m_kind)
    {
        case FabricHeader::DATA:
            ReceiveData(h);
            break;
        case FabricHeader::ACK:
        case FabricHeader::NACK:
            ReceiveAck(h);
            break;
        case FabricHeader::CNP:
            ReceiveCnp(h);
            break;
        default:
            NS_ABORT_MSG("unknown packet kind " << +h.m_kind);
    }
}

void
RdmaTransport::MaybeSendCnp(RxQueuePair& rx, const FabricFields& h)
{
    if (!m_cc)
    {
        return;
    }
    const Time interval = m_cc->GetNotificationInterval();
    const Time now = Simulator::Now();
    if (interval.IsNegative())
    {
        return;
    }
    if (rx.lastCnp.IsNegative() || now - rx.lastCnp >= interval)
    {
        rx.lastCnp = now;
        ++rx.cnpsSent;
        SendControl(FabricHeader::CNP, h.m_src, h.m_qp, h.m_psn);
    }
    else if (!rx.cnpTimer.IsRunning())
    {
        // A mark inside the interval is not forgotten: one CNP when the interval ends.
        rx.cnpTimer = Simulator::Schedule(rx.lastCnp + interval - now,
                                          &RdmaTransport::SendDeferredCnp,
                                          this,
                                          h.m_src,
                                          h.m_qp);
    }
}

void
RdmaTransport::SendDeferredCnp(uint32_t src, uint16_t qp)
{
    RxQueuePair& rx = m_rxQps[Key(src, qp)];
    rx.lastCnp = Simulator::Now();
    ++rx.cnpsSent;
    SendControl(FabricHeader::CNP, src, qp, 0);
}

void
RdmaTransport::ReceiveData(const FabricFields& h)
{
    if (h.m_flags & FabricHeader::FLAG_ECN_CE)
    {
        ++m_ecnMarked;
        if (m_cc)
        {
            // The marking tells of congestion whether or not the recovery keeps the packet.
            RxQueuePair& rx = m_rxQps[Key(h.m_src, h.m_qp)];
            ++rx.marked;
            MaybeSendCnp(rx, h);
        }
    }
    m_recovery->ReceiveData(h);
}

void
RdmaTransport::Deliver(const FabricFields& h, uint64_t bytes)
{
    ++m_messagesDelivered;
    m_messageDelivered(h.m_src, m_endpoint, h.m_msgId, bytes);
}

uint64_t
RdmaTransport::GetPartialBytes(uint32_t src, uint32_t msgId) const
{
    return m_recovery->GetPartialBytes(src, msgId);
}

void
RdmaTransport::ReceiveAck(const FabricFields& h)
{
    const bool nack = h.m_kind == FabricHeader::NACK;
    if (nack)
    {
        ++m_nacksReceived;
        m_nackReceivedTrace(h.m_src, h.m_qp, h.m_psn);
    }
    else
    {
        ++m_acksReceived;
        m_ackReceivedTrace(h.m_src, h.m_qp, h.m_psn);
    }
    const auto it = m_qpIndex.find(Key(h.m_src, h.m_qp));
    if (it != m_qpIndex.end())
    {
        m_recovery->ReceiveAck(it->second, h);
    }
}

void
RdmaTransport::ReceiveCnp(const FabricFields& h)
{
    ++m_cnpsReceived;
    m_cnpReceivedTrace(h.m_src, h.m_qp);
    const auto it = m_qpIndex.find(Key(h.m_src, h.m_qp));
    if (!m_cc || it == m_qpIndex.end())
    {
        return;
    }
    const uint32_t qi = it->second;
    QueuePair& q = m_qps[qi];
    ++m_ports[q.port].cnpsReceived;
    if (q.stripe != 0)
    {
        // Pacing is per queue pair on one port: it leaves the stripe for its own port (its
        // entries in the other rings are dropped as they come up).
        NS_LOG_LOGIC("CNP for striped queue pair " << m_endpoint << "->" << q.dst << "/" << q.qp
                                                   << ": back to port " << q.port);
        q.stripe = 0;
    }
    if (!q.cc)
    {
        q.cc = m_cc->Fork();
        q.cc->Start(DataRate(m_ports[q.port].lineBps),
                    MakeCallback(&RdmaTransport::RateChanged, this, qi));
    }
    q.cc->NotifyCongestion();
}

uint32_t
RdmaTransport::GetEndpoint() const
{
    return m_endpoint;
}

Ptr<FabricNetDevice>
RdmaTransport::GetNic() const
{
    return m_ports.empty() ? nullptr : m_ports[0].dev;
}

uint32_t
RdmaTransport::GetNPorts() const
{
    return m_ports.size();
}

Ptr<FabricNetDevice>
RdmaTransport::GetPort(uint32_t i) const
{
    NS_ABORT_MSG_IF(i >= m_ports.size(), "RdmaTransport has no port " << i);
    return m_ports[i].dev;
}

uint64_t
RdmaTransport::GetBytesPosted() const
{
    return m_bytesPosted;
}

uint64_t
RdmaTransport::GetBytesReceived() const
{
    return m_bytesReceived;
}

uint64_t
RdmaTransport::GetMessagesDelivered() const
{
    return m_messagesDelivered;
}

uint64_t
RdmaTransport::GetMessagesInProgress() const
{
    return m_recovery->GetMessagesInProgress();
}

uint64_t
RdmaTransport::GetDataPacketsSent() const
{
    return m_dataSent;
}

uint64_t
RdmaTransport::GetRetransmittedPackets() const
{
    return m_retransmitted;
}

uint64_t
RdmaTransport::GetTimeouts() const
{
    return m_recovery->GetTimeouts();
}

uint64_t
RdmaTransport::GetAcksSent() const
{
    return m_acksSent;
}

uint64_t
RdmaTransport::GetNacksSent() const
{
    return m_nacksSent;
}

uint64_t
RdmaTransport::GetAcksReceived() const
{
    return m_acksReceived;
}

uint64_t
RdmaTransport::GetNacksReceived() const
{
    return m_nacksReceived;
}

uint64_t
RdmaTransport::GetCnpsSent() const
{
    return m_cnpsSent;
}

uint64_t
RdmaTransport::GetCnpsReceived() const
{
    return m_cnpsReceived;
}

uint64_t
RdmaTransport::GetOutOfOrderDrops() const
{
    return m_recovery->GetOutOfOrderDrops();
}

uint64_t
RdmaTransport::GetDuplicateDrops() const
{
    return m_recovery->GetDuplicateDrops();
}

uint64_t
RdmaTransport::GetRateChanges() const
{
    return m_rateChanges;
}

uint64_t
RdmaTransport::GetRateCuts() const
{
    return m_rateCuts;
}

uint64_t
RdmaTransport::GetEcnMarkedReceived() const
{
    return m_ecnMarked;
}

Ptr<RdmaCongestionControl>
RdmaTransport::GetCongestionControl() const
{
    return m_cc;
}

std::vector<RdmaTransport::ControlledQueuePair>
RdmaTransport::GetControlledQueuePairs() const
{
    std::vector<ControlledQueuePair> out;
    for (const QueuePair& q : m_qps)
    {
        if (!q.cc)
        {
            continue;
        }
        ControlledQueuePair c;
        c.dst = q.dst;
        c.qp = q.qp;
        c.dataPackets = q.nextPsn;
        c.cnpsReceived = q.cc->GetNotifications();
        c.rateCuts = q.cc->GetRateCuts();
        c.rateIncreases = q.cc->GetRateIncreases();
        c.minRateBps = q.cc->GetMinRate().GetBitRate();
        c.rateBps = q.cc->GetRate().GetBitRate();
        c.lineBps = q.cc->GetLineRate().GetBitRate();
        out.push_back(c);
    }
    return out;
}

std::vector<RdmaTransport::NotifiedQueuePair>
RdmaTransport::GetNotifiedQueuePairs() const
{
    std::vector<NotifiedQueuePair> out;
    out.reserve(m_rxQps.size());
    for (const auto& [key, rx] : m_rxQps)
    {
        NotifiedQueuePair n;
        n.src = static_cast<uint32_t>(key >> 16);
        n.qp = static_cast<uint16_t>(key & 0xffff);
        n.ecnMarked = rx.marked;
        n.cnpsSent = rx.cnpsSent;
        out.push_back(n);
    }
    return out;
}

RdmaTransport::PortRateSample
RdmaTransport::GetPortRateSample(uint32_t index) const
{
    NS_ABORT_MSG_IF(index >= m_ports.size(), "RdmaTransport has no port " << index);
    const Port& port = m_ports[index];
    PortRateSample s;
    s.limitedQps = static_cast<uint32_t>(port.limited.size());
    s.lineBps = port.lineBps;
    s.minBps = port.lineBps;
    for (const uint32_t qi : port.limited)
    {
        s.minBps = std::min(s.minBps, m_qps[qi].paceBps);
        s.sumBps += m_qps[qi].paceBps;
    }
    s.cnpsSent = port.cnpsSent;
    s.cnpsReceived = port.cnpsReceived;
    return s;
}

DataRate
RdmaTransport::GetQueuePairRate(uint32_t dst, uint16_t qp) const
{
    const auto it = m_qpIndex.find(Key(dst, qp));
    if (it == m_qpIndex.end() || !m_qps[it->second].cc)
    {
        return DataRate(it == m_qpIndex.end() ? m_ports.at(0).lineBps
                                              : m_ports[m_qps[it->second].port].lineBps);
    }
    return m_qps[it->second].cc->GetRate();
}

Ptr<RdmaCongestionControl>
RdmaTransport::GetQueuePairCongestionControl(uint32_t dst, uint16_t qp) const
{
    const auto it = m_qpIndex.find(Key(dst, qp));
    return it == m_qpIndex.end() ? nullptr : m_qps[it->second].cc;
}

} // namespace ns3
