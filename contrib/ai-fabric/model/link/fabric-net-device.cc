/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/no-flow-control.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

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
                            MakeUintegerAccessor(&FabricNetDevice::SetPriorities,
                                                 &FabricNetDevice::GetPriorities),
                            MakeUintegerChecker<uint8_t>(1, 16))
              .AddAttribute("FlowControl",
                            "This port's link-level flow control (ns3::NoFlowControl, "
                            "ns3::CreditFlowControl, ns3::PfcFlowControl); NoFlowControl if unset",
                            PointerValue(),
                            MakePointerAccessor(&FabricNetDevice::SetFlowControl,
                                                &FabricNetDevice::GetFlowControl),
                            MakePointerChecker<FabricFlowControl>())
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
              .AddTraceSource("TxFields",
                              "A packet starts serialization on the link: its header fields and "
                              "wire size (no Packet is built for it)",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_txFieldsTrace),
                              "ns3::FabricNetDevice::TxFieldsTracedCallback")
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
              .AddTraceSource("LastPacketDequeue",
                              "A message's last packet (a DATA packet with FLAG_LAST, flagged "
                              "by the switch that queued it) starts transmission after waiting "
                              "in this port's egress queue: its wait, and the time flow control "
                              "held its lane meanwhile (straggler attribution)",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_lastPacketDequeueTrace),
                              "ns3::FabricNetDevice::LastPacketDequeueTracedCallback")
              .AddTraceSource("FirstPacketEnqueue",
                              "A message's first packet (a DATA packet with FLAG_FIRST) joins "
                              "this port's egress queue (relay accounting)",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_firstPacketEnqueueTrace),
                              "ns3::FabricNetDevice::FirstPacketEnqueueTracedCallback")
              .AddTraceSource("QueueBytes",
                              "Wire bytes waiting in the egress lanes",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_queuedBytes),
                              "ns3::TracedValueCallback::Uint64");
    return tid;
}

FabricNetDevice::FabricNetDevice()
    : m_queuedBytes(0)
    , m_address(Mac48Address::Allocate())
{
    SetFlowControl(CreateObject<NoFlowControl>());
}

FabricNetDevice::~FabricNetDevice()
{
}

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_lanes.clear();
    if (m_flowControl)
    {
        m_flowControl->Dispose();
    }
    m_flowControl = nullptr;
    m_fc = nullptr;
    m_fabricRx = FabricReceiveCallback();
    m_pull = PullCallback();
    m_dequeued = DequeueCallback();
    m_rxCallback = NetDevice::ReceiveCallback();
    NetDevice::DoDispose();
}

void
FabricNetDevice::SetPriorities(uint8_t priorities)
{
    m_priorities = priorities;
    // Lanes only grow: packets already queued on a higher lane stay there (LaneOf() maps
    // new packets onto the lanes the port has now).
    if (m_lanes.size() < m_priorities)
    {
        m_lanes.resize(m_priorities);
        m_fc->SetLanes(m_priorities);
    }
}

void
FabricNetDevice::SetFlowControl(Ptr<FabricFlowControl> flowControl)
{
    NS_LOG_FUNCTION(this << flowControl);
    NS_ABORT_MSG_IF(!flowControl, "FabricNetDevice needs a flow control");
    if (m_flowControl && m_flowControl != flowControl)
    {
        m_flowControl->SetDevice(nullptr);
    }
    m_flowControl = flowControl;
    m_fc = PeekPointer(flowControl);
    m_fc->SetDevice(this);
    if (m_channel)
    {
        m_channel->NotifyEndChanged();
    }
    if (!m_lanes.empty())
    {
        m_fc->SetLanes(static_cast<uint8_t>(m_lanes.size()));
    }
}

Ptr<FabricFlowControl>
FabricNetDevice::GetFlowControl() const
{
    return m_flowControl;
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
    if (m_clock.GetRate() != m_rate.GetBitRate())
    {
        m_clock.SetRate(m_rate.GetBitRate());
        NS_ABORT_MSG_IF(m_clock.GetRate() == 0, "FabricNetDevice with a zero data rate");
    }
    return PicoSeconds(m_clock.Next(bytes));
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

void
FabricNetDevice::Enqueue(FabricTxItem&& item)
{
    Lane& lane = m_lanes[LaneOf(item.priority)];
    lane.bytes += item.wireBytes;
    const Time now = Simulator::Now();
    m_queueDepth.Account(now.GetTimeStep(), m_queuedBytes);
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
    if (item.lastOfMessage && !m_lastPacketDequeueTrace.IsEmpty())
    {
        item.enqueuedPs = now.GetPicoSeconds();
        item.holdMarkPs = m_fc->GetHeldPs(LaneOf(item.priority));
    }
    if ((item.header.m_flags & FabricHeader::FLAG_FIRST) && !m_firstPacketEnqueueTrace.IsEmpty())
    {
        m_firstPacketEnqueueTrace(item.header);
    }
    lane.queue.PushBack(std::move(item));
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
    // Strict priority, highest class first (802.1p, and IB's high-priority VLs).
    for (std::size_t l = m_lanes.size(); l-- > 0;)
    {
        Lane& lane = m_lanes[l];
        if (!lane.queue.Empty()
            && m_fc->CanSend(static_cast<uint8_t>(l), lane.queue.Front().wireBytes, now))
        {
            item = std::move(lane.queue.Front());
            lane.queue.PopFront();
            lane.bytes -= item.wireBytes;
            m_queueDepth.Account(now, m_queuedBytes);
            m_queuedBytes = m_queuedBytes - item.wireBytes;
            --m_queuedPackets;
            m_fc->OnTransmit(static_cast<uint8_t>(l), item.wireBytes);
            if (!m_dequeued.IsNull() && item.inPort != FabricTxItem::NO_PORT)
            {
                m_dequeued(item);
            }
            if (item.lastOfMessage && !m_lastPacketDequeueTrace.IsEmpty())
            {
                NotifyLastPacketDequeue(item, static_cast<uint8_t>(l));
            }
            item.more = HasWaiting();
            return true;
        }
    }
    if (m_sourceReady && !m_pull.IsNull())
    {
        const uint8_t lane = LaneOf(m_pullPriority);
        if (!m_fc->CanSend(lane, m_pullMaxWire, now))
        {
            return false;
        }
        if (!m_pull(item))
        {
            m_sourceReady = false;
            return false;
        }
        m_fc->OnTransmit(lane, item.wireBytes);
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
            m_fc->BeginStall(now); // flow control holds everything back
        }
        return;
    }
    m_fc->EndStall(now);
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
    if (!m_txFieldsTrace.IsEmpty())
    {
        m_txFieldsTrace(item.header, item.wireBytes);
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
    if (m_returnCreditsOnReceive)
    {
        m_fc->OnBufferFreed(LaneOf(arrival.priority), arrival.wireBytes);
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
FabricNetDevice::SetPaused(uint8_t priority, bool paused)
{
    if (!m_fc->ReceivePause(priority, paused))
    {
        return;
    }
    NS_LOG_LOGIC((paused ? "paused" : "resumed") << " lane " << +priority << " by the peer");
    m_pauseTrace(priority, paused);
    if (!paused)
    {
        TryTransmit();
    }
}

void
FabricNetDevice::NotifyFlowControlOpen()
{
    TryTransmit();
}

void
FabricNetDevice::ReturnCreditsToPeer(uint8_t priority, uint32_t bytes)
{
    // A flow-control update rides the reverse direction of the cable.
    m_channel->ReturnCredits(this, priority, bytes);
}

void
FabricNetDevice::SendPauseToPeer(uint8_t priority, bool paused)
{
    // The PFC frame (a minimum-size control frame) takes effect after the link delay.
    m_channel->SendPause(this, priority, paused, m_rate.CalculateBytesTxTime(m_controlPacketBytes));
}

void
FabricNetDevice::NotifyDrop(FabricTxItem& item)
{
    NS_LOG_LOGIC("drop: packet " << item.header.m_src << "->" << item.header.m_dst << " psn "
                                 << item.header.m_psn << " for this port");
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

FabricNetDevice::Stats
FabricNetDevice::GetStats() const
{
    Stats s;
    s.txPackets = m_txPackets;
    s.txWireBytes = m_txWireBytes;
    s.busyTime = m_busyTime;
    s.drops = m_drops;
    s.peakQueuedBytes = m_peakQueuedBytes;
    s.ecnMarks = m_ecnMarks;
    s.pausesReceived = m_fc->GetPausesReceived();
    s.pausesSent = m_fc->GetPausesSent();
    s.pausedTime = m_fc->GetPausedTime();
    s.stallTime = m_fc->GetStallTime();
    return s;
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
FabricNetDevice::TakeWindowPeakQueuedBytes()
{
    const uint64_t peak = m_windowPeakQueuedBytes;
    m_windowPeakQueuedBytes = m_queuedBytes;
    return peak;
}

uint64_t
FabricNetDevice::GetQueuePercentileBytes(double p) const
{
    return m_queueDepth.Percentile(Simulator::Now().GetTimeStep(),
                                   m_queuedBytes,
                                   m_peakQueuedBytes,
                                   p);
}

int64_t
FabricNetDevice::GetCredits(uint8_t priority) const
{
    return m_fc->GetCredits(priority);
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

int64_t
FabricNetDevice::GetHeldPs(uint8_t priority) const
{
    if (m_lanes.empty())
    {
        return 0;
    }
    return m_fc->GetHeldPs(LaneOf(priority));
}

void
FabricNetDevice::NotifyLastPacketDequeue(const FabricTxItem& item, uint8_t lane)
{
    // Flow control can hold the lane only while the packet waits.
    const int64_t wait = Simulator::Now().GetPicoSeconds() - item.enqueuedPs;
    const int64_t held = std::clamp<int64_t>(m_fc->GetHeldPs(lane) - item.holdMarkPs, 0, wait);
    m_lastPacketDequeueTrace(item.header, PicoSeconds(wait), PicoSeconds(held));
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
    for (std::size_t l = 0; l < m_lanes.size(); ++l)
    {
        if (!m_lanes[l].queue.Empty()
            && m_fc->IsHeld(static_cast<uint8_t>(l), m_lanes[l].queue.Front().wireBytes))
        {
            return true;
        }
    }
    if (m_sourceReady && !m_pull.IsNull() && LaneOf(m_pullPriority) < m_lanes.size())
    {
        return m_fc->IsHeld(LaneOf(m_pullPriority), m_pullMaxWire);
    }
    return false;
}

} // namespace ns3
