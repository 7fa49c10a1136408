/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/straggler-ledger.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricNetDevice")
              .SetParent<NetDevice>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricNetDevice>()
              .AddAttribute("DataRate",
                            "Data rate per direction (MAC level)",
                            DataRateValue(DataRate("400Gbps")),
                            MakeDataRateAccessor(&FabricNetDevice::m_rate),
                            MakeDataRateChecker())
              .AddAttribute("HeaderBytes",
                            "Per-packet headers and trailers of the link technology, bytes",
                            UintegerValue(26),
                            MakeUintegerAccessor(&FabricNetDevice::m_headerBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("SegmentBytes",
                            "Link-native unit payload (PCIe TLP, NVLink packet): HeaderBytes are "
                            "paid per segment of this size; 0 means once per packet",
                            UintegerValue(0),
                            MakeUintegerAccessor(&FabricNetDevice::m_segmentBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("FramingBytes",
                            "Per-packet preamble, SFD and inter-frame gap, bytes",
                            UintegerValue(0),
                            MakeUintegerAccessor(&FabricNetDevice::m_framingBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("MessageHeaderBytes",
                            "Extra wire bytes on the first packet of a message (RDMA RETH), bytes",
                            UintegerValue(16),
                            MakeUintegerAccessor(&FabricNetDevice::m_messageHeaderBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("ControlPacketBytes",
                            "Wire bytes of an ACK, NACK or CNP, framing included",
                            UintegerValue(64),
                            MakeUintegerAccessor(&FabricNetDevice::m_controlPacketBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("PayloadMtu",
                            "Largest payload of one packet, bytes",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&FabricNetDevice::m_payloadMtu),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("CellPackets",
                            "Fidelity knob (off at 1): one simulated packet carries up to this "
                            "many PayloadMtu packets' payload, with their wire bytes (headers and "
                            "framing of each); docs/performance.md states its measured error",
                            UintegerValue(1),
                            MakeUintegerAccessor(&FabricNetDevice::m_cellPackets),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("RxLatency",
                            "Latency the receiving node adds to every packet arriving on this port "
                            "(switch port-to-port latency, or NIC latency)",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&FabricNetDevice::m_rxLatency),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("CutThrough",
                            "Hand received packets on after their first 64 bytes (switch ports)",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FabricNetDevice::m_cutThrough),
                            MakeBooleanChecker())
              .AddAttribute("Priorities",
                            "Number of egress lanes (virtual lanes or traffic classes)",
                            UintegerValue(1),
                            MakeUintegerAccessor(&FabricNetDevice::m_priorities),
                            MakeUintegerChecker<uint8_t>(1, 16))
              .AddAttribute("FlowControl",
                            "0 none (lossy), 1 credit-based per lane, 2 PFC per class",
                            UintegerValue(FC_NONE),
                            MakeUintegerAccessor(&FabricNetDevice::m_fc),
                            MakeUintegerChecker<uint8_t>(FC_NONE, FC_PFC))
              .AddAttribute("CreditBlockBytes",
                            "Credit unit: a packet consumes whole blocks of this size, bytes",
                            UintegerValue(64),
                            MakeUintegerAccessor(&FabricNetDevice::m_creditBlock),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("ReturnCreditsOnReceive",
                            "Endpoint port: received packets leave its buffer at once, so credits "
                            "go back to the peer on arrival",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FabricNetDevice::m_returnCreditsOnReceive),
                            MakeBooleanChecker())
              .AddTraceSource("TxBegin",
                              "A packet starts serialization on the link",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_txTrace),
                              "ns3::FabricNetDevice::TxTracedCallback")
              .AddTraceSource("Rx",
                              "A packet has arrived (after the receive latency)",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_rxTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("Drop",
                              "A packet headed for this port was dropped (full buffer)",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_dropTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("Pause",
                              "A lane was paused or resumed by the peer (PFC)",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_pauseTrace),
                              "ns3::FabricNetDevice::PauseTracedCallback")
              .AddTraceSource("QueueBytes",
                              "Wire bytes waiting in the egress lanes",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_queuedBytes),
                              "ns3::TracedValueCallback::Uint64");
    return tid;
}

FabricNetDevice::FabricNetDevice()
    : m_address(Mac48Address::Allocate())
    , m_queuedBytes(0)
{
}

FabricNetDevice::~FabricNetDevice()
{
}

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_peer = nullptr;
    m_lanes.clear();
    m_fabricRx = FabricReceiveCallback();
    m_pull = PullCallback();
    m_dequeued = DequeueCallback();
    m_rxCallback = NetDevice::ReceiveCallback();
    NetDevice::DoDispose();
}

void
FabricNetDevice::DoInitialize()
{
    EnsureLanes();
    NetDevice::DoInitialize();
}

void
FabricNetDevice::EnsureLanes()
{
    if (m_lanes.size() < m_priorities)
    {
        m_lanes.resize(m_priorities);
    }
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    m_channel = channel;
    m_channel->Attach(this);
}

Time
FabricNetDevice::TxTime(uint32_t bytes)
{
    if (m_bps != m_rate.GetBitRate())
    {
        m_bps = m_rate.GetBitRate();
        m_txRemainder = 0;
        NS_ABORT_MSG_IF(m_bps == 0, "FabricNetDevice with a zero data rate");
    }
    // t_ps = bits * 1e12 / bps, carrying the remainder so that a stream is exact.
    const unsigned __int128 num
        = static_cast<unsigned __int128>(bytes) * 8u * 1000000000000ull + m_txRemainder;
    const uint64_t ps = static_cast<uint64_t>(num / m_bps);
    m_txRemainder = static_cast<uint64_t>(num % m_bps);
    return PicoSeconds(ps);
}

void
MaterializePacket(MovePtr<Packet>& packet, const FabricFields& header)
{
    if (!packet)
    {
        packet = Create<Packet>(header.m_payload);
    }
    if (packet->GetSize() == header.m_payload)
    {
        packet->AddHeader(FabricHeader(header));
    }
}

uint32_t
FabricNetDevice::PacketWireBytes(uint32_t payload) const
{
    const uint32_t segments = (m_segmentBytes == 0 || payload == 0)
                                  ? 1
                                  : (payload + m_segmentBytes - 1) / m_segmentBytes;
    return payload + segments * m_headerBytes + m_framingBytes;
}

uint32_t
FabricNetDevice::WireBytes(const FabricFields& header) const
{
    if (header.IsControl())
    {
        return m_controlPacketBytes;
    }
    const uint32_t first = (header.m_flags & FabricHeader::FLAG_FIRST) ? m_messageHeaderBytes : 0;
    if (header.m_payload <= m_payloadMtu)
    {
        return PacketWireBytes(header.m_payload) + first;
    }
    // A cell (CellPackets > 1): the MTU packets it stands for, back to back.
    const uint32_t full = header.m_payload / m_payloadMtu;
    const uint32_t rest = header.m_payload % m_payloadMtu;
    return full * PacketWireBytes(m_payloadMtu) + (rest > 0 ? PacketWireBytes(rest) : 0) + first;
}

uint32_t
FabricNetDevice::CreditBytes(uint32_t wireBytes) const
{
    return (wireBytes + m_creditBlock - 1) / m_creditBlock * m_creditBlock;
}

bool
FabricNetDevice::CanSend(const Lane& lane, uint32_t wireBytes) const
{
    if (lane.paused)
    {
        return false;
    }
    return m_fc != FC_CREDIT || lane.credits >= static_cast<int64_t>(CreditBytes(wireBytes));
}

void
FabricNetDevice::Enqueue(FabricTxItem&& item)
{
    EnsureLanes();
    Lane& lane = m_lanes[LaneOf(item.priority)];
    lane.bytes += item.wireBytes;
    const Time now = Simulator::Now();
    AccountQueueTime(now.GetTimeStep());
    m_queuedBytes = m_queuedBytes + item.wireBytes;
    ++m_queuedPackets;
    if (m_queuedBytes > m_peakQueuedBytes)
    {
        m_peakQueuedBytes = m_queuedBytes;
    }
    if (m_queuedBytes > m_windowPeakQueuedBytes)
    {
        m_windowPeakQueuedBytes = m_queuedBytes;
    }
    if (m_ledger && item.lastOfMessage)
    {
        item.enqueuedPs = now.GetPicoSeconds();
        item.holdMarkPs = LaneHeldPs(lane);
    }
    lane.queue.push_back(std::move(item));
    TryTransmit(now);
}

void
FabricNetDevice::Wake()
{
    m_sourceReady = true;
    TryTransmit();
}

void
FabricNetDevice::TryTransmit()
{
    TryTransmit(Simulator::Now());
}

void
FabricNetDevice::TryTransmit(Time now)
{
    if (m_txPending)
    {
        return; // the next transmission is already scheduled
    }
    if (now < m_busyUntil)
    {
        m_txPending = true;
        m_txEvent.Schedule(m_busyUntil - now);
        return;
    }
    TransmitAt(now);
}

bool
FabricNetDevice::HasWaiting() const
{
    return m_queuedPackets > 0 || (m_sourceReady && !m_pull.IsNull());
}

bool
FabricNetDevice::Dequeue(FabricTxItem& item, int64_t now)
{
    EnsureLanes();
    if (m_returnsCount > 0)
    {
        AbsorbCredits(now);
    }
    // Strict priority, highest class first (802.1p, and IB's high-priority VLs).
    for (auto it = m_lanes.rbegin(); it != m_lanes.rend(); ++it)
    {
        Lane& lane = *it;
        if (!lane.queue.empty() && CanSend(lane, lane.queue.front().wireBytes))
        {
            item = std::move(lane.queue.front());
            lane.queue.pop_front();
            lane.bytes -= item.wireBytes;
            AccountQueueTime(now);
            m_queuedBytes = m_queuedBytes - item.wireBytes;
            --m_queuedPackets;
            if (m_fc == FC_CREDIT)
            {
                lane.credits -= CreditBytes(item.wireBytes);
            }
            if (!m_dequeued.IsNull() && item.inPort != FabricTxItem::NO_PORT)
            {
                m_dequeued(item);
            }
            if (m_ledger && item.lastOfMessage)
            {
                LedgerDequeued(item, lane);
            }
            item.more = HasWaiting();
            return true;
        }
    }
    if (m_sourceReady && !m_pull.IsNull())
    {
        Lane& lane = m_lanes[LaneOf(m_pullPriority)];
        if (!CanSend(lane, m_pullMaxWire))
        {
            return false;
        }
        if (!m_pull(item))
        {
            m_sourceReady = false;
            return false;
        }
        if (m_fc == FC_CREDIT)
        {
            lane.credits -= CreditBytes(item.wireBytes);
        }
        m_sourceReady = item.more;
        item.more = HasWaiting();
        return true;
    }
    return false;
}

void
FabricNetDevice::TransmitNext()
{
    TransmitAt(Simulator::Now());
}

void
FabricNetDevice::TransmitAt(Time now)
{
    m_txPending = false;
    FabricTxItem item;
    if (!Dequeue(item, now.GetTimeStep()))
    {
        if (HasWaiting())
        {
            if (m_stalledSince.IsNegative())
            {
                m_stalledSince = now; // flow control holds everything back
            }
            ScheduleCreditWake();
        }
        return;
    }
    if (!m_stalledSince.IsNegative())
    {
        m_stallTime += now - m_stalledSince;
        m_stalledSince = Time(-1);
    }
    const Time txTime = TxTime(item.wireBytes);
    m_busyUntil = now + txTime;
    m_busyTime += txTime;
    ++m_txPackets;
    m_txWireBytes += item.wireBytes;
    if (!m_txTrace.IsEmpty())
    {
        MaterializePacket(item.packet, item.header);
        m_txTrace(item.packet.Get(), item.wireBytes);
    }
    const bool more = item.more;
    m_channel->Transmit(std::move(item), this, txTime);
    if (more)
    {
        m_txPending = true;
        m_txEvent.Schedule(txTime);
    }
}

void
FabricNetDevice::Receive(FabricArrival& arrival)
{
    if (!m_rxTrace.IsEmpty())
    {
        MaterializePacket(arrival.packet, arrival.header);
        m_rxTrace(arrival.packet.Get());
    }
    if (m_returnCreditsOnReceive && m_fc == FC_CREDIT)
    {
        ReturnCreditsToPeer(LaneOf(arrival.priority), arrival.wireBytes);
    }
    if (!m_fabricRx.IsNull())
    {
        m_fabricRx(this, arrival);
    }
    else if (!m_rxCallback.IsNull())
    {
        MaterializePacket(arrival.packet, arrival.header);
        m_rxCallback(this, arrival.packet.Get(), 0, m_channel->GetPeer(this)->GetAddress());
    }
}

void
FabricNetDevice::Receive(Ptr<Packet> packet, uint32_t wireBytes, uint8_t priority)
{
    FabricHeader header;
    packet->PeekHeader(header);
    FabricArrival arrival;
    arrival.packet = packet;
    arrival.header = header;
    arrival.wireBytes = wireBytes;
    arrival.priority = priority;
    Receive(arrival);
}

void
FabricNetDevice::SetInitialCredits(uint8_t priority, uint64_t bytes)
{
    EnsureLanes();
    NS_ABORT_MSG_IF(priority >= m_lanes.size(), "no lane " << +priority);
    m_lanes[priority].credits = static_cast<int64_t>(bytes);
}

void
FabricNetDevice::AddCredits(uint8_t priority, uint64_t bytes)
{
    EnsureLanes();
    m_lanes[priority].credits += CreditBytes(bytes);
    TryTransmit();
}

void
FabricNetDevice::SetPaused(uint8_t priority, bool paused)
{
    EnsureLanes();
    Lane& lane = m_lanes[priority];
    if (lane.paused == paused)
    {
        return;
    }
    lane.paused = paused;
    m_pauseTrace(priority, paused);
    if (paused)
    {
        ++m_pausesReceived;
        lane.pausedSince = Simulator::Now();
    }
    else
    {
        m_pausedTime += Simulator::Now() - lane.pausedSince;
        lane.pausedPs += (Simulator::Now() - lane.pausedSince).GetPicoSeconds();
        TryTransmit();
    }
}

void
FabricNetDevice::ReturnCreditsToPeer(uint8_t priority, uint32_t bytes)
{
    // A flow-control update rides the reverse direction of the cable. The peer and the
    // cable's delay are read from the channel once (both ends are attached by then).
    if (m_peer == nullptr)
    {
        m_peer = PeekPointer(m_channel->GetPeer(this));
        m_cableDelay = m_channel->GetDelay();
    }
    m_peer->PushCreditReturn((Simulator::Now() + m_cableDelay).GetTimeStep(), priority, bytes);
}

void
FabricNetDevice::PushCreditReturn(int64_t at, uint8_t lane, uint32_t bytes)
{
    if (m_returnsCount == m_returns.size())
    {
        // Full ring: double it (a power of two), oldest first.
        std::vector<CreditReturn> grown(std::max<std::size_t>(16, 2 * m_returns.size()));
        for (std::size_t i = 0; i < m_returnsCount; ++i)
        {
            grown[i] = m_returns[(m_returnsHead + i) & (m_returns.size() - 1)];
        }
        m_returns.swap(grown);
        m_returnsHead = 0;
    }
    // Returns arrive in the order they are pushed: the cable's delay is constant.
    m_returns[(m_returnsHead + m_returnsCount) & (m_returns.size() - 1)]
        = CreditReturn{at, bytes, lane};
    ++m_returnsCount;
    if (!m_stalledSince.IsNegative())
    {
        ScheduleCreditWake(); // stalled, perhaps for these credits
    }
}

void
FabricNetDevice::AbsorbCredits(int64_t now)
{
    EnsureLanes();
    while (m_returnsCount > 0 && m_returns[m_returnsHead].at <= now)
    {
        const CreditReturn& r = m_returns[m_returnsHead];
        m_lanes[r.lane].credits += CreditBytes(r.bytes);
        m_returnsHead = (m_returnsHead + 1) & (m_returns.size() - 1);
        --m_returnsCount;
    }
}

void
FabricNetDevice::ScheduleCreditWake()
{
    if (m_creditWakePending || m_returnsCount == 0)
    {
        return; // a wake-up is due no later than the first return, or none is in flight
    }
    m_creditWakePending = true;
    const Time at = TimeStep(m_returns[m_returnsHead].at);
    m_creditWakeEvent.ScheduleWithContext(m_node ? m_node->GetId() : Simulator::GetContext(),
                                          std::max(at - Simulator::Now(), Time(0)));
}

void
FabricNetDevice::CreditWake()
{
    m_creditWakePending = false;
    TryTransmit();
}

void
FabricNetDevice::SendPauseToPeer(uint8_t priority, bool paused)
{
    if (paused)
    {
        ++m_pausesSent;
    }
    // The PFC frame (a minimum-size control frame) takes effect after the link delay.
    Ptr<FabricNetDevice> peer = m_channel->GetPeer(this);
    const Time frame = m_rate.CalculateBytesTxTime(m_controlPacketBytes);
    Simulator::ScheduleWithContext(peer->GetNode()->GetId(),
                                   m_channel->GetDelay() + frame,
                                   &FabricNetDevice::SetPaused,
                                   peer,
                                   priority,
                                   paused);
}

void
FabricNetDevice::NotifyDrop(FabricTxItem& item)
{
    ++m_drops;
    if (!m_dropTrace.IsEmpty())
    {
        MaterializePacket(item.packet, item.header);
        m_dropTrace(item.packet.Get());
    }
}

void
FabricNetDevice::SetFabricReceiveCallback(FabricReceiveCallback cb)
{
    m_fabricRx = cb;
}

void
FabricNetDevice::SetPullCallback(PullCallback cb, uint8_t priority, uint32_t maxWireBytes)
{
    EnsureLanes();
    m_pull = cb;
    m_pullPriority = priority;
    m_pullMaxWire = maxWireBytes;
}

void
FabricNetDevice::SetDequeueCallback(DequeueCallback cb)
{
    m_dequeued = cb;
}

Time
FabricNetDevice::GetRxLatency() const
{
    return m_rxLatency;
}

uint32_t
FabricNetDevice::GetPayloadMtu() const
{
    return m_payloadMtu * m_cellPackets;
}

uint32_t
FabricNetDevice::GetCellPackets() const
{
    return m_cellPackets;
}

uint8_t
FabricNetDevice::GetPriorities() const
{
    return m_priorities;
}

uint64_t
FabricNetDevice::GetTxPackets() const
{
    return m_txPackets;
}

uint64_t
FabricNetDevice::GetTxWireBytes() const
{
    return m_txWireBytes;
}

Time
FabricNetDevice::GetBusyTime() const
{
    return m_busyTime;
}

uint64_t
FabricNetDevice::GetQueuedPackets() const
{
    return m_queuedPackets;
}

uint64_t
FabricNetDevice::GetQueuedBytes() const
{
    return m_queuedBytes;
}

uint64_t
FabricNetDevice::GetPeakQueuedBytes() const
{
    return m_peakQueuedBytes;
}

uint64_t
FabricNetDevice::GetDrops() const
{
    return m_drops;
}

Time
FabricNetDevice::GetBusyTimeUntilNow() const
{
    const Time ahead = m_busyUntil - Simulator::Now();
    return ahead.IsStrictlyPositive() ? m_busyTime - ahead : m_busyTime;
}

void
FabricNetDevice::NotifyEcnMark()
{
    ++m_ecnMarks;
}

uint64_t
FabricNetDevice::GetEcnMarks() const
{
    return m_ecnMarks;
}

uint64_t
FabricNetDevice::TakeWindowPeakQueuedBytes()
{
    const uint64_t peak = m_windowPeakQueuedBytes;
    m_windowPeakQueuedBytes = m_queuedBytes;
    return peak;
}

namespace
{

/// Queue-depth buckets: 0 = empty, then 4 per octave of 2^e for e = 0..63.
constexpr uint32_t QUEUE_BUCKETS = 1 + 4 * 64;

/// \param q wire bytes \return its bucket
inline uint32_t
QueueBucket(uint64_t q)
{
    if (q == 0)
    {
        return 0;
    }
    const uint32_t e = 63 - __builtin_clzll(q);
    // the two bits below the leading one
    const uint32_t sub
        = e >= 2 ? static_cast<uint32_t>(q >> (e - 2)) & 3 : (e == 1 ? (q & 1) * 2 : 0);
    return 1 + 4 * e + sub;
}

/// \param b a bucket \return its upper edge (exclusive), bytes
inline double
QueueBucketUpper(uint32_t b)
{
    if (b == 0)
    {
        return 0;
    }
    const uint32_t e = (b - 1) / 4;
    const uint32_t sub = (b - 1) % 4;
    return std::ldexp(1.0 + (sub + 1) / 4.0, static_cast<int>(e));
}

} // namespace

void
FabricNetDevice::AccountQueueTime(int64_t now)
{
    if (m_queueTime.empty())
    {
        m_queueTime.assign(QUEUE_BUCKETS, 0);
    }
    m_queueTime[QueueBucket(m_queuedBytes)] += now - m_queueSince;
    m_queueSince = now;
}

uint64_t
FabricNetDevice::GetQueuePercentileBytes(double p) const
{
    if (m_queueTime.empty())
    {
        return 0;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    const uint32_t current = QueueBucket(m_queuedBytes);
    int64_t total = now - m_queueSince;
    for (const int64_t t : m_queueTime)
    {
        total += t;
    }
    if (total <= 0)
    {
        return 0;
    }
    // the smallest bucket b with (time in buckets <= b) >= p% of the total
    const double need = total * (p / 100.0);
    double acc = 0;
    for (uint32_t b = 0; b < QUEUE_BUCKETS; ++b)
    {
        acc += m_queueTime[b] + (b == current ? now - m_queueSince : 0);
        if (acc >= need && acc > 0)
        {
            const double upper = QueueBucketUpper(b);
            return std::min<uint64_t>(m_peakQueuedBytes,
                                      upper >= 1.8e19 ? m_peakQueuedBytes
                                                      : static_cast<uint64_t>(std::ceil(upper)));
        }
    }
    return m_peakQueuedBytes;
}

uint64_t
FabricNetDevice::GetPausesReceived() const
{
    return m_pausesReceived;
}

uint64_t
FabricNetDevice::GetPausesSent() const
{
    return m_pausesSent;
}

Time
FabricNetDevice::GetPausedTime() const
{
    Time t = m_pausedTime;
    for (const Lane& lane : m_lanes)
    {
        if (lane.paused)
        {
            t += Simulator::Now() - lane.pausedSince;
        }
    }
    return t;
}

Time
FabricNetDevice::GetStallTime() const
{
    return m_stalledSince.IsNegative() ? m_stallTime
                                       : m_stallTime + (Simulator::Now() - m_stalledSince);
}

int64_t
FabricNetDevice::GetCredits(uint8_t priority) const
{
    if (priority >= m_lanes.size())
    {
        return 0;
    }
    int64_t credits = m_lanes[priority].credits;
    const int64_t now = Simulator::Now().GetTimeStep();
    for (std::size_t i = 0; i < m_returnsCount; ++i)
    {
        const CreditReturn& r = m_returns[(m_returnsHead + i) & (m_returns.size() - 1)];
        if (r.at > now)
        {
            break; // in flight still
        }
        if (r.lane == priority)
        {
            credits += CreditBytes(r.bytes);
        }
    }
    return credits;
}

Ptr<FabricChannel>
FabricNetDevice::GetFabricChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetSwitchPort(uint32_t index)
{
    m_switchPort = index;
}

void
FabricNetDevice::SetStragglerLedger(StragglerLedger* ledger, uint32_t port)
{
    m_ledger = ledger;
    m_ledgerPort = port;
}

StragglerLedger*
FabricNetDevice::GetStragglerLedger() const
{
    return m_ledger;
}

uint32_t
FabricNetDevice::GetLedgerPort() const
{
    return m_ledgerPort;
}

int64_t
FabricNetDevice::LaneHeldPs(const Lane& lane) const
{
    switch (m_fc)
    {
        case FC_PFC:
            return lane.pausedPs
                   + (lane.paused ? (Simulator::Now() - lane.pausedSince).GetPicoSeconds() : 0);
        case FC_CREDIT:
            // Credits are per lane but the stall counter is per port: a lane out of
            // credit while another lane transmits counts as queueing.
            return GetStallTime().GetPicoSeconds();
        default:
            return 0;
    }
}

int64_t
FabricNetDevice::GetHeldPs(uint8_t priority) const
{
    if (m_lanes.empty())
    {
        return 0;
    }
    return LaneHeldPs(m_lanes[LaneOf(priority)]);
}

void
FabricNetDevice::LedgerDequeued(const FabricTxItem& item, const Lane& lane)
{
    const FabricFields& h = item.header;
    if (!h.IsLastOfMessage())
    {
        return; // only a message's last packet decides when it completes
    }
    const int64_t wait = Simulator::Now().GetPicoSeconds() - item.enqueuedPs;
    const int64_t held = std::clamp<int64_t>(LaneHeldPs(lane) - item.holdMarkPs, 0, wait);
    m_ledger->OnHop(h.m_src, h.m_msgId, m_ledgerPort, wait, held);
}

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_payloadMtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return static_cast<uint16_t>(std::min<uint32_t>(m_payloadMtu, 65535));
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> /* callback */)
{
}

bool
FabricNetDevice::IsBroadcast() const
{
    return false;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address /* multicastGroup */) const
{
    return Mac48Address::GetMulticast(Ipv4Address());
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::Send(Ptr<Packet> packet, const Address& /* dest */, uint16_t /* protocol */)
{
    FabricHeader header;
    if (packet->PeekHeader(header) != FabricHeader::SERIALIZED_SIZE)
    {
        return false; // not a fabric packet
    }
    FabricTxItem item;
    item.packet = packet;
    item.header = header;
    item.wireBytes = WireBytes(header);
    item.priority = header.m_priority;
    Enqueue(std::move(item));
    return true;
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> packet,
                          const Address& /* source */,
                          const Address& dest,
                          uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
FabricNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback /* cb */)
{
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

bool
FabricNetDevice::IsFlowControlBlocked() const
{
    // Credits count the returns that have arrived but are not yet absorbed (GetCredits).
    auto held = [this](std::size_t l, uint32_t wireBytes) {
        if (m_lanes[l].paused)
        {
            return true;
        }
        return m_fc == FC_CREDIT
               && GetCredits(static_cast<uint8_t>(l))
                      < static_cast<int64_t>(CreditBytes(wireBytes));
    };
    for (std::size_t l = 0; l < m_lanes.size(); ++l)
    {
        if (!m_lanes[l].queue.empty() && held(l, m_lanes[l].queue.front().wireBytes))
        {
            return true;
        }
    }
    if (m_sourceReady && !m_pull.IsNull() && LaneOf(m_pullPriority) < m_lanes.size())
    {
        return held(LaneOf(m_pullPriority), m_pullMaxWire);
    }
    return false;
}

} // namespace ns3
