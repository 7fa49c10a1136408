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
                            MakeUintegerChecker<uint32_t>(0, 65536));
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
        if (rx.ahead.empty())
        {
            NS_ABORT_MSG_IF((m_reorderWindow & (m_reorderWindow - 1)) != 0,
                            "ReorderWindow " << m_reorderWindow << " is not a power of two");
            rx.ahead.resize(m_reorderWindow);
            rx.held.assign(m_reorderWindow, false);
        }
        const uint32_t slot = h.m_psn & (m_reorderWindow - 1);
        if (rx.held[slot] && rx.ahead[slot].m_psn == h.m_psn)
        {
            ++m_dupDrops; // held already (a resend after a NACK or a timeout)
        }
        else
        {
            rx.heldCount += rx.held[slot] ? 0 : 1;
            rx.held[slot] = true;
            rx.ahead[slot] = h;
        }
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
GoBackNRecovery::AcceptInOrder(const FabricFields& h, Receiver& rx)
{
    const FabricFields* next = &h;
    bool fromSlot = false;
    while (next)
    {
        const FabricFields cur = *next; // (the slot it came from is freed below)
        if (rx.heldCount > 0)
        {
            // The packet's slot, if it holds this PSN (taken from it, or held before and now
            // arrived again in order after a go-back), is free again.
            const uint32_t slot = cur.m_psn & (m_reorderWindow - 1);
            if (rx.held[slot] && rx.ahead[slot].m_psn == cur.m_psn)
            {
                rx.held[slot] = false;
                --rx.heldCount;
                m_reordered += fromSlot ? 1 : 0;
            }
        }
        ++rx.expected;
        rx.nackSent = false;
        rx.dupSinceAck = 0;
        Accept(cur, rx);
        if (++rx.sinceAck >= m_ackInterval || (cur.m_flags & FabricHeader::FLAG_LAST))
        {
            rx.sinceAck = 0;
            SendAck(cur.m_src, cur.m_qp, rx.expected);
        }
        next = nullptr;
        if (rx.heldCount > 0)
        {
            const uint32_t slot = rx.expected & (m_reorderWindow - 1);
            if (rx.held[slot] && rx.ahead[slot].m_psn == rx.expected)
            {
                next = &rx.ahead[slot];
                fromSlot = true;
            }
        }
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
