/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "go-back-n-recovery.h"

#include "rdma-transport.h"

#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GoBackNRecovery");
NS_OBJECT_ENSURE_REGISTERED(GoBackNRecovery);

TypeId
GoBackNRecovery::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::GoBackNRecovery")
              .SetParent<RdmaRecoveryOps>()
              .SetGroupName("AiFabric")
              .AddConstructor<GoBackNRecovery>()
              .AddAttribute("AckInterval",
                            "The receiver acknowledges every this many in-order packets, and the "
                            "last packet of every message, packets",
                            UintegerValue(16),
                            MakeUintegerAccessor(&GoBackNRecovery::m_ackInterval),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("SendWindow",
                            "Most unacknowledged packets a queue pair may have outstanding, "
                            "packets (0: no cap, as on RDMA NICs)",
                            UintegerValue(0),
                            MakeUintegerAccessor(&GoBackNRecovery::m_window),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("RetransmitTimeout",
                            "A queue pair with unacknowledged packets and no acknowledgement "
                            "progress for this long goes back to its oldest unacknowledged "
                            "packet; doubles per timeout without progress, up to 64 x",
                            TimeValue(MicroSeconds(100)),
                            MakeTimeAccessor(&GoBackNRecovery::m_rto),
                            MakeTimeChecker(PicoSeconds(1)))
              .AddAttribute("InitialPsn",
                            "PSN of every queue pair's first packet (sender and receiver agree, "
                            "as at connection set-up); PSNs wrap after 2^32 - 1",
                            UintegerValue(0),
                            MakeUintegerAccessor(&GoBackNRecovery::m_initialPsn),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("ReorderWindow",
                            "Packets a receiver holds ahead of the expected PSN (out-of-order "
                            "placement); a packet this far ahead or more is a loss (0: every "
                            "packet ahead is)",
                            UintegerValue(0),
                            MakeUintegerAccessor(&GoBackNRecovery::m_reorderWindow),
                            MakeUintegerChecker<uint32_t>(0, 65536))
              .AddAttribute("ReorderTimeout",
                            "With a reorder window: a gap before held packets still open this "
                            "long after it opened is a loss (NACK of the expected PSN); a "
                            "configurable assumption, not a NIC's published figure: below "
                            "RetransmitTimeout, above the spread of queueing delays between "
                            "paths (docs/transport.md)",
                            TimeValue(MicroSeconds(32)),
                            MakeTimeAccessor(&GoBackNRecovery::m_reorderTimeout),
                            MakeTimeChecker(PicoSeconds(1)));
    return tid;
}

GoBackNRecovery::GoBackNRecovery()
{
}

GoBackNRecovery::~GoBackNRecovery()
{
}

void
GoBackNRecovery::DoDispose()
{
    for (Sender& s : m_tx)
    {
        s.rto.Cancel();
    }
    m_tx.clear();
    for (auto& [key, rx] : m_rx)
    {
        rx.gapTimer.Cancel();
    }
    m_rx.clear();
    RdmaRecoveryOps::DoDispose();
}

Ptr<RdmaRecoveryOps>
GoBackNRecovery::Fork() const
{
    Ptr<GoBackNRecovery> g = CreateObject<GoBackNRecovery>();
    g->m_ackInterval = m_ackInterval;
    g->m_window = m_window;
    g->m_rto = m_rto;
    g->m_initialPsn = m_initialPsn;
    g->m_reorderWindow = m_reorderWindow;
    g->m_reorderTimeout = m_reorderTimeout;
    return g;
}

void
GoBackNRecovery::AddQueuePair(uint32_t qi, uint32_t dst, uint16_t qp)
{
    if (qi >= m_tx.size())
    {
        m_tx.resize(qi + 1);
    }
    m_tx[qi].dst = dst;
    m_tx[qi].qp = qp;
    m_tx[qi].sndUna = m_initialPsn;
    m_tx[qi].maxSent = m_initialPsn;
    SetFirstPsn(qi, m_initialPsn);
    SetSendWindow(qi, m_initialPsn, m_window);
}

bool
GoBackNRecovery::NotifySent(uint32_t qi, uint64_t psn, bool /* last */)
{
    Sender& s = m_tx[qi];
    const bool resend = psn < s.maxSent;
    if (s.sndUna == s.maxSent)
    {
        s.lastProgress = Simulator::Now(); // nothing was outstanding: the timeout counts from now
    }
    s.maxSent = std::max(s.maxSent, psn + 1);
    if (!s.rto.IsRunning())
    {
        s.rto = Simulator::Schedule(m_rto, &GoBackNRecovery::RetransmitTimeout, this, qi);
    }
    return resend;
}

void
GoBackNRecovery::RetransmitTimeout(uint32_t qi)
{
    Sender& s = m_tx[qi];
    if (s.sndUna >= s.maxSent)
    {
        return; // everything sent was acknowledged: the timer rests until the next send
    }
    const Time now = Simulator::Now();
    const Time deadline = s.lastProgress + m_rto * (int64_t{1} << s.backoff);
    if (now < deadline)
    {
        s.rto = Simulator::Schedule(deadline - now, &GoBackNRecovery::RetransmitTimeout, this, qi);
        return;
    }
    NS_LOG_DEBUG("endpoint " << Endpoint() << " qp " << s.dst << "/" << s.qp << " timeout, back to "
                             << s.sndUna);
    ++m_timeouts;
    Rewind(qi, s.sndUna, true);
    s.lastProgress = now;
    s.backoff = std::min<uint8_t>(s.backoff + 1, MAX_BACKOFF);
    s.rto = Simulator::Schedule(m_rto * (int64_t{1} << s.backoff),
                                &GoBackNRecovery::RetransmitTimeout,
                                this,
                                qi);
    Activate(qi);
}

void
GoBackNRecovery::ReceiveAck(uint32_t qi, const FabricFields& h)
{
    Sender& s = m_tx[qi];
    const bool nack = h.m_kind == FabricHeader::NACK;
    // The wire's 32-bit PSN, as the sender's 64-bit count (within 2^31 of the oldest
    // unacknowledged packet: an ACK never runs further ahead or behind).
    const uint64_t psn = RdmaTransport::ExtendPsn(s.sndUna, h.m_psn);
    if (psn > s.maxSent)
    {
        return; // acknowledges packets never sent: not for this incarnation
    }
    const Time now = Simulator::Now();
    if (psn > s.sndUna)
    {
        // Cumulative: everything below psn arrived; release the messages it completes.
        s.sndUna = psn;
        s.lastProgress = now;
        s.backoff = 0;
        SetSendWindow(qi, psn, m_window);
        ReleaseAcknowledged(qi, psn);
        if (s.sndUna >= s.maxSent && s.rto.IsRunning())
        {
            // Cancelled, not removed: ns-3's Remove breaks the order of its HeapScheduler
            // (3.37 swaps the last event in and only sifts it down); a cancelled event
            // runs as a no-op at its time, under every scheduler alike.
            s.rto.Cancel(); // nothing outstanding
        }
        Activate(qi); // the window may have opened
    }
    if (nack && psn < SendNext(qi))
    {
        NS_LOG_DEBUG("endpoint " << Endpoint() << " qp " << s.dst << "/" << s.qp << " NACK " << psn
                                 << ", was at " << SendNext(qi));
        Rewind(qi, psn, false);
        s.lastProgress = now;
        Activate(qi);
    }
}

void
GoBackNRecovery::ReceiveData(const FabricFields& h)
{
    const auto [it, added] = m_rx.try_emplace(Key(h.m_src, h.m_qp));
    Receiver& rx = it->second;
    if (added)
    {
        rx.expected = m_initialPsn;
    }
    if (h.m_psn == rx.expected)
    {
        AcceptInOrder(h, rx);
    }
    else if (RdmaTransport::PsnBefore(rx.expected, h.m_psn) && m_reorderWindow > 0
             && h.m_psn - rx.expected < m_reorderWindow)
    {
        // Ahead, within the window: hold it until the gap before it fills.
        Hold(h, rx);
    }
    else if (RdmaTransport::PsnBefore(rx.expected, h.m_psn))
    {
        // A packet was lost: drop everything until the expected one comes again, and NACK
        // once until then. (Re-NACKing when the resent packet is lost as well can livelock
        // a sender that outpaces the bottleneck: every rewind refills the queue that drops
        // the resent packet. A lost resend is left to the retransmission timeout.)
        ++m_oooDrops;
        if (!rx.nackSent)
        {
            rx.nackSent = true;
            SendNack(h.m_src, h.m_qp, rx.expected);
        }
    }
    else
    {
        // Already accepted: the sender went back too far (lost ACK or timeout).
        ++m_dupDrops;
        if (rx.dupSinceAck++ % m_ackInterval == 0)
        {
            SendAck(h.m_src, h.m_qp, rx.expected);
        }
    }
}

void
GoBackNRecovery::Hold(const FabricFields& h, Receiver& rx)
{
    // Held packets are kept in PSN order from rx.head; packets mostly arrive in order, so the
    // scan from the back usually stops at once.
    std::size_t at = rx.ahead.size();
    while (at > rx.head && RdmaTransport::PsnBefore(h.m_psn, rx.ahead[at - 1].m_psn))
    {
        --at;
    }
    if (at > rx.head && rx.ahead[at - 1].m_psn == h.m_psn)
    {
        ++m_dupDrops; // held already (a resend after a NACK or a timeout)
        return;
    }
    rx.ahead.insert(rx.ahead.begin() + static_cast<std::ptrdiff_t>(at), h);
    if (!rx.gapTimer.IsRunning())
    {
        rx.src = h.m_src;
        rx.qp = h.m_qp;
        rx.gapAt = rx.expected;
        rx.gapTimer = Simulator::Schedule(m_reorderTimeout,
                                          &GoBackNRecovery::GapTimeout,
                                          this,
                                          Key(h.m_src, h.m_qp));
    }
}

void
GoBackNRecovery::GapTimeout(uint64_t key)
{
    const auto it = m_rx.find(key);
    if (it == m_rx.end() || it->second.head == it->second.ahead.size())
    {
        return;
    }
    Receiver& rx = it->second;
    if (rx.expected == rx.gapAt && !rx.nackSent)
    {
        // The gap did not move: the packet at its start is lost.
        rx.nackSent = true;
        SendNack(rx.src, rx.qp, rx.expected);
    }
    rx.gapAt = rx.expected;
    rx.gapTimer = Simulator::Schedule(m_reorderTimeout, &GoBackNRecovery::GapTimeout, this, key);
}

void
GoBackNRecovery::AcceptInOrder(const FabricFields& h, Receiver& rx)
{
    FabricFields cur = h;
    while (true)
    {
        ++rx.expected;
        rx.nackSent = false;
        rx.dupSinceAck = 0;
        Accept(cur, rx);
        if (++rx.sinceAck >= m_ackInterval || (cur.m_flags & FabricHeader::FLAG_LAST))
        {
            rx.sinceAck = 0;
            SendAck(cur.m_src, cur.m_qp, rx.expected);
        }
        // The next PSN, if held; held packets now behind expected (resent and accepted in
        // order meanwhile) are dropped.
        while (rx.head < rx.ahead.size()
               && RdmaTransport::PsnBefore(rx.ahead[rx.head].m_psn, rx.expected))
        {
            ++rx.head;
        }
        if (rx.head == rx.ahead.size() || rx.ahead[rx.head].m_psn != rx.expected)
        {
            break;
        }
        cur = rx.ahead[rx.head++];
        ++m_reordered;
    }
    if (rx.head == rx.ahead.size() && !rx.ahead.empty())
    {
        // Nothing held: the list restarts (its capacity kept up to 64 packets).
        rx.gapTimer.Cancel();
        rx.head = 0;
        rx.ahead.clear();
        if (rx.ahead.capacity() > 64)
        {
            std::vector<FabricFields>().swap(rx.ahead);
        }
    }
    else if (rx.head > 32 && 2 * rx.head > rx.ahead.size())
    {
        // Mostly accepted entries: drop them (amortized: at most once per head/2 packets).
        rx.ahead.erase(rx.ahead.begin(), rx.ahead.begin() + static_cast<std::ptrdiff_t>(rx.head));
        rx.head = 0;
    }
}

uint64_t
GoBackNRecovery::GetReorderedPackets() const
{
    return m_reordered;
}

void
GoBackNRecovery::Accept(const FabricFields& h, Receiver& rx)
{
    AcceptPayload(h);
    const bool first = (h.m_flags & FabricHeader::FLAG_FIRST) != 0;
    const bool last = (h.m_flags & FabricHeader::FLAG_LAST) != 0;
    if (first && last)
    {
        Deliver(h, h.m_payload); // single-packet message
        return;
    }
    // In PSN order the last packet completes the message.
    if (first)
    {
        ++m_partial;
        rx.msgId = h.m_msgId;
        rx.msgGot = 0;
    }
    rx.msgGot += h.m_payload;
    if (last)
    {
        --m_partial;
        const uint64_t delivered = rx.msgGot;
        rx.msgGot = 0;
        Deliver(h, delivered);
    }
}

uint64_t
GoBackNRecovery::GetMessagesInProgress() const
{
    return m_partial;
}

uint64_t
GoBackNRecovery::GetPartialBytes(uint32_t src, uint32_t msgId) const
{
    for (const auto& [key, rx] : m_rx)
    {
        if ((key >> 16) == src && rx.msgId == msgId && rx.msgGot > 0)
        {
            return rx.msgGot;
        }
    }
    return 0;
}

} // namespace ns3
