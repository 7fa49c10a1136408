/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "fabric-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

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
                            "Per-packet wire overhead of the link technology, bytes",
                            UintegerValue(26),
                            MakeUintegerAccessor(&FabricNetDevice::m_headerBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("MessageHeaderBytes",
                            "Extra wire bytes on the first packet of a message (RDMA RETH), bytes",
                            UintegerValue(16),
                            MakeUintegerAccessor(&FabricNetDevice::m_messageHeaderBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("PayloadMtu",
                            "Largest payload of one packet, bytes",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&FabricNetDevice::m_payloadMtu),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("RxLatency",
                            "Latency the receiving node adds to every packet arriving on this port "
                            "(switch port-to-port latency, or NIC latency)",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&FabricNetDevice::m_rxLatency),
                            MakeTimeChecker(Seconds(0)))
              .AddTraceSource("TxBegin",
                              "A packet starts serialization on the link",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_txTrace),
                              "ns3::FabricNetDevice::TxTracedCallback")
              .AddTraceSource("Rx",
                              "A packet has arrived (after the receive latency)",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_rxTrace),
                              "ns3::Packet::TracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
    : m_address(Mac48Address::Allocate())
    , m_queues(1)
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
    m_queues.clear();
    m_fabricRx = FabricReceiveCallback();
    m_pull = PullCallback();
    m_rxCallback = NetDevice::ReceiveCallback();
    NetDevice::DoDispose();
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

uint32_t
FabricNetDevice::WireBytes(const FabricHeader& header) const
{
    return header.m_payload + m_headerBytes
           + ((header.m_flags & FabricHeader::FLAG_FIRST) ? m_messageHeaderBytes : 0);
}

void
FabricNetDevice::Enqueue(FabricTxItem item)
{
    if (item.priority >= m_queues.size())
    {
        m_queues.resize(item.priority + 1);
    }
    m_queuedBytes += item.wireBytes;
    ++m_queuedPackets;
    if (m_queuedBytes > m_peakQueuedBytes)
    {
        m_peakQueuedBytes = m_queuedBytes;
    }
    m_queues[item.priority].push_back(std::move(item));
    TryTransmit();
}

void
FabricNetDevice::Wake()
{
    TryTransmit();
}

void
FabricNetDevice::TryTransmit()
{
    if (m_txPending)
    {
        return; // the next transmission is already scheduled
    }
    const Time now = Simulator::Now();
    if (now < m_busyUntil)
    {
        m_txPending = true;
        Simulator::Schedule(m_busyUntil - now, &FabricNetDevice::TransmitNext, this);
        return;
    }
    TransmitNext();
}

bool
FabricNetDevice::Dequeue(FabricTxItem& item)
{
    for (auto& q : m_queues)
    {
        if (!q.empty())
        {
            item = std::move(q.front());
            q.pop_front();
            m_queuedBytes -= item.wireBytes;
            --m_queuedPackets;
            item.more = m_queuedPackets > 0 || !m_pull.IsNull();
            return true;
        }
    }
    if (!m_pull.IsNull() && m_pull(item))
    {
        return true;
    }
    return false;
}

void
FabricNetDevice::TransmitNext()
{
    m_txPending = false;
    FabricTxItem item;
    if (!Dequeue(item))
    {
        return;
    }
    const Time txTime = TxTime(item.wireBytes);
    m_busyUntil = Simulator::Now() + txTime;
    m_busyTime += txTime;
    ++m_txPackets;
    m_txWireBytes += item.wireBytes;
    m_txTrace(item.packet, item.wireBytes);
    m_channel->Transmit(item.packet, this, txTime);
    if (item.more)
    {
        m_txPending = true;
        Simulator::Schedule(txTime, &FabricNetDevice::TransmitNext, this);
    }
}

void
FabricNetDevice::Receive(Ptr<Packet> packet)
{
    m_rxTrace(packet);
    if (!m_fabricRx.IsNull())
    {
        m_fabricRx(this, packet);
    }
    else if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, packet, 0, m_channel->GetPeer(this)->GetAddress());
    }
}

void
FabricNetDevice::SetFabricReceiveCallback(FabricReceiveCallback cb)
{
    m_fabricRx = cb;
}

void
FabricNetDevice::SetPullCallback(PullCallback cb)
{
    m_pull = cb;
}

DataRate
FabricNetDevice::GetDataRate() const
{
    return m_rate;
}

Time
FabricNetDevice::GetRxLatency() const
{
    return m_rxLatency;
}

uint32_t
FabricNetDevice::GetPayloadMtu() const
{
    return m_payloadMtu;
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

Ptr<FabricChannel>
FabricNetDevice::GetFabricChannel() const
{
    return m_channel;
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

} // namespace ns3
