/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-switch.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-routing.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricSwitch")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricSwitch>()
              .AddAttribute(
                  "Routing",
                  "The routing strategy: chooses the egress port of every packet",
                  PointerValue(),
                  MakePointerAccessor(&FabricSwitch::SetRouting, &FabricSwitch::GetRouting),
                  MakePointerChecker<FabricRouting>())
              .AddAttribute("BufferSize",
                            "Shared packet buffer, bytes (0: the sum of the ports' shares)",
                            UintegerValue(0),
                            MakeUintegerAccessor(&FabricSwitch::m_bufferSize),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("PfcAlpha",
                            "PFC dynamic threshold: XOFF when a (port, lane) holds more than "
                            "alpha x the free shared buffer (HPCC ns-3 switch-mmu: 1/8)",
                            DoubleValue(0.125),
                            MakeDoubleAccessor(&FabricSwitch::m_pfcAlpha),
                            MakeDoubleChecker<double>(0))
              .AddAttribute("DropAlpha",
                            "Lossy dynamic threshold: drop when an egress lane would exceed "
                            "alpha x the free shared buffer",
                            DoubleValue(1.0),
                            MakeDoubleAccessor(&FabricSwitch::m_dropAlpha),
                            MakeDoubleChecker<double>(0))
              .AddTraceSource("Drop",
                              "A packet was dropped (buffer full); port is the egress port",
                              MakeTraceSourceAccessor(&FabricSwitch::m_dropTrace),
                              "ns3::FabricSwitch::PacketPortTracedCallback")
              .AddTraceSource("EcnMark",
                              "A packet was marked CE at an egress port",
                              MakeTraceSourceAccessor(&FabricSwitch::m_ecnTrace),
                              "ns3::FabricSwitch::PacketPortTracedCallback");
    return tid;
}

FabricSwitch::FabricSwitch()
{
    m_rng = CreateObject<UniformRandomVariable>();
}

FabricSwitch::~FabricSwitch()
{
}

void
FabricSwitch::DoDispose()
{
    m_ports.clear();
    m_delayed.Clear();
    if (m_routing)
    {
        m_routing->Dispose();
        m_routing = nullptr;
    }
    m_rng = nullptr;
    m_deliver = Callback<void, FabricNetDevice*, FabricArrival&>();
    Object::DoDispose();
}

int64_t
FabricSwitch::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    if (m_routing)
    {
        m_routing->Attach(this, m_rng); // its first draws (the salt) follow the seed
    }
    return 1;
}

void
FabricSwitch::SetRouting(Ptr<FabricRouting> routing)
{
    NS_LOG_FUNCTION(this << routing);
    m_routing = routing;
    if (m_routing)
    {
        m_routing->Attach(this, m_rng);
    }
}

Ptr<FabricRouting>
FabricSwitch::GetRouting() const
{
    return m_routing;
}

uint32_t
FabricSwitch::AddPort(Ptr<FabricNetDevice> port, const PortConfig& config)
{
    NS_ABORT_MSG_IF(m_ports.size() >= UINT16_MAX, "too many ports on one switch");
    port->SetFabricReceiveCallback(MakeCallback(&FabricSwitch::Receive, this));
    port->SetDequeueCallback(MakeCallback(&FabricSwitch::Release, this));
    m_ports.push_back(port);
    m_config.push_back(config);
    m_charge.emplace_back(port->GetPriorities(), 0);
    port->SetSwitchPort(m_ports.size() - 1);
    m_poolSize = m_bufferSize;
    if (m_poolSize == 0)
    {
        for (const PortConfig& c : m_config)
        {
            m_poolSize += c.bufferShare;
        }
    }
    m_headroomTotal += port->PeekFlowControl()->GetHeadroom();
    return m_ports.size() - 1;
}

const std::vector<uint16_t>&
FabricSwitch::GetRoute(uint32_t dst) const
{
    NS_ABORT_MSG_UNLESS(m_routing, "switch without a Routing strategy");
    return m_routing->GetRoute(dst);
}

void
FabricSwitch::SetLocalEndpoint(uint32_t endpoint,
                               Callback<void, FabricNetDevice*, FabricArrival&> deliver)
{
    m_localEndpoint = endpoint;
    m_deliver = deliver;
}

uint32_t
FabricSwitch::GetNPorts() const
{
    return m_ports.size();
}

Ptr<FabricNetDevice>
FabricSwitch::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

uint64_t
FabricSwitch::GetReceivedPackets() const
{
    return m_received;
}

uint64_t
FabricSwitch::GetDeliveredPackets() const
{
    return m_delivered;
}

uint64_t
FabricSwitch::GetForwardedPackets() const
{
    return m_forwarded;
}

uint64_t
FabricSwitch::GetDrops() const
{
    return m_drops;
}

uint64_t
FabricSwitch::GetLosslessDrops() const
{
    return m_losslessDrops;
}

uint64_t
FabricSwitch::GetEcnMarks() const
{
    return m_ecnMarks;
}

uint64_t
FabricSwitch::GetBufferUsed() const
{
    return m_used;
}

uint64_t
FabricSwitch::GetPeakBufferUsed() const
{
    return m_peakUsed;
}

uint64_t
FabricSwitch::GetPfcHeadroomTotal() const
{
    return m_headroomTotal;
}

double
FabricSwitch::GetPfcAlpha() const
{
    return m_pfcAlpha;
}

uint64_t
FabricSwitch::GetBufferSize() const
{
    return m_poolSize;
}

uint64_t
FabricSwitch::GetPfcThreshold() const
{
    return PfcFlowControl::DynamicThreshold(GetBufferView());
}

FabricBufferView
FabricSwitch::GetBufferView() const
{
    FabricBufferView v;
    v.size = m_poolSize;
    v.headroom = m_headroomTotal;
    v.used = m_used;
    v.alpha = m_pfcAlpha;
    return v;
}

void
FabricSwitch::Receive(FabricNetDevice* inDev, FabricArrival& arrival)
{
    NS_LOG_FUNCTION(this << inDev << arrival.header.m_src << arrival.header.m_dst);
    ++m_received;
    if (arrival.header.m_dst == m_localEndpoint)
    {
        Deliver(inDev, arrival);
    }
    else
    {
        FabricTxItem item;
        item.header = arrival.header; // changed in place (routing, ECN)
        item.inPort = static_cast<uint16_t>(inDev->GetSwitchPort());
        const FabricRoute route = m_routing->Route(item.header, item.inPort, arrival.priority);
        FabricNetDevice* egress = PeekPointer(m_ports[route.port]);
        item.wireBytes = egress->WireBytes(item.header);
        item.priority = route.priority;
        item.inBytes = arrival.wireBytes;
        item.inPriority = arrival.priority;
        item.lastOfMessage = item.header.IsLastOfMessage();
        item.packet = std::move(arrival.packet);
        if (!Admit(inDev, egress, item))
        {
            Drop(inDev, route.port, item);
        }
        else
        {
            const bool marked = MarkEcn(egress, item);
            if ((route.rewrite || marked) && item.packet
                && item.packet->GetSize() > item.header.m_payload)
            {
                // The packet's bytes carry the header already (an observer read it): keep them
                // true.
                FabricHeader old;
                item.packet->RemoveHeader(old);
                item.packet->AddHeader(FabricHeader(item.header));
            }
            if (marked && !m_ecnTrace.IsEmpty())
            {
                MaterializePacket(item.packet, item.header);
                m_ecnTrace(item.packet.Get(), route.port);
            }
            Forward(inDev, route.port, std::move(item));
        }
    }
    NS_ASSERT_MSG(m_received == m_delivered + m_forwarded + m_drops,
                  "switch conservation: received " << m_received << " != delivered " << m_delivered
                                                   << " + forwarded " << m_forwarded
                                                   << " + dropped " << m_drops);
}

void
FabricSwitch::Deliver(FabricNetDevice* inDev, FabricArrival& arrival)
{
    // The endpoint drains its packets into GPU memory at once.
    inDev->PeekFlowControl()->OnBufferFreed(inDev->LaneOf(arrival.priority), arrival.wireBytes);
    ++m_delivered;
    m_deliver(inDev, arrival);
}

bool
FabricSwitch::Admit(FabricNetDevice* inDev, FabricNetDevice* egress, const FabricTxItem& item)
{
    const uint32_t wireBytes = item.inBytes;
    FabricFlowControl* fc = inDev->PeekFlowControl();
    bool drop = m_used + wireBytes > m_poolSize;
    if (!drop && !fc->IsLossless())
    {
        const uint64_t free = m_poolSize - m_used;
        drop = egress->GetQueuedBytes(item.priority) + item.wireBytes > m_dropAlpha * free;
    }
    if (drop)
    {
        return false;
    }
    m_used += wireBytes;
    m_peakUsed = std::max(m_peakUsed, m_used);
    const uint16_t in = item.inPort;
    const uint8_t lane = inDev->LaneOf(item.inPriority);
    uint64_t& charge = m_charge[in][lane];
    charge += wireBytes;
    if (fc->OnCharged(lane, charge, GetBufferView()))
    {
        NS_LOG_LOGIC("XOFF to ingress port " << in << " lane " << +lane << ": " << charge
                                             << " B charged, pool " << m_used << " of "
                                             << m_poolSize << " B used");
        m_paused.emplace_back(in, lane); // XOFF sent
    }
    return true;
}

void
FabricSwitch::Drop(FabricNetDevice* inDev, uint16_t out, FabricTxItem& item)
{
    FabricFlowControl* fc = inDev->PeekFlowControl();
    const bool lossless = fc->IsLossless();
    NS_LOG_LOGIC("drop at port " << out << (lossless ? " (lossless ingress)" : "") << ": " << m_used
                                 << " B of " << m_poolSize << " B used");
    ++m_drops;
    if (lossless)
    {
        ++m_losslessDrops;
    }
    fc->OnBufferFreed(inDev->LaneOf(item.inPriority), item.inBytes); // credits: keep it going
    FabricNetDevice* egress = PeekPointer(m_ports[out]);
    egress->NotifyDrop(item);
    if (!m_dropTrace.IsEmpty())
    {
        MaterializePacket(item.packet, item.header);
        m_dropTrace(item.packet.Get(), out);
    }
}

bool
FabricSwitch::MarkEcn(FabricNetDevice* egress, FabricTxItem& item)
{
    // RED on the egress lane the packet joins.
    const PortConfig& ecn = m_config[egress->GetSwitchPort()];
    if (ecn.ecnKmin == 0 || item.header.IsControl())
    {
        return false;
    }
    const uint64_t q = egress->GetQueuedBytes(item.priority);
    double p = 0;
    if (q >= ecn.ecnKmax)
    {
        p = 1;
    }
    else if (q > ecn.ecnKmin)
    {
        p = ecn.ecnPmax * (q - ecn.ecnKmin) / static_cast<double>(ecn.ecnKmax - ecn.ecnKmin);
    }
    if (p > 0 && (p >= 1 || m_rng->GetValue() < p))
    {
        NS_LOG_LOGIC("ECN mark at port " << egress->GetSwitchPort() << ": " << q
                                         << " B queued, probability " << p);
        item.header.m_flags |= FabricHeader::FLAG_ECN_CE;
        ++m_ecnMarks;
        egress->NotifyEcnMark();
        return true;
    }
    return false;
}

void
FabricSwitch::Forward(FabricNetDevice* inDev, uint16_t out, FabricTxItem&& item)
{
    ++m_forwarded;
    FabricNetDevice* egress = PeekPointer(m_ports[out]);
    // Cut-through into a faster port: the packet cannot leave before its last
    // bit has arrived, so it waits for the difference.
    if (inDev->IsCutThrough() && egress->GetDataRate() > inDev->GetDataRate())
    {
        const uint32_t wireBytes = item.inBytes;
        const double in_s = wireBytes * 8.0 / inDev->GetDataRate().GetBitRate();
        const double head_s
            = std::min<uint32_t>(wireBytes, 64) * 8.0 / inDev->GetDataRate().GetBitRate();
        const double out_s = item.wireBytes * 8.0 / egress->GetDataRate().GetBitRate();
        const double wait = in_s - head_s - out_s;
        if (wait > 0)
        {
            const Time delay = Seconds(wait);
            m_delayed.Push((Simulator::Now() + delay).GetTimeStep(), Delayed{out, std::move(item)});
            m_delayedEvent.Schedule(delay);
            return;
        }
    }
    egress->Enqueue(std::move(item));
}

void
FabricSwitch::EnqueueDelayed()
{
    if (m_delayed.Empty())
    {
        return; // disposed while packets waited
    }
    // Occurrences run in (time, scheduling) order, the heap's order: this is the packet whose
    // occurrence this is.
    Delayed d = m_delayed.Pop();
    m_ports[d.port]->Enqueue(std::move(d.item));
}

void
FabricSwitch::Release(const FabricTxItem& item)
{
    const uint16_t in = item.inPort;
    m_used -= item.inBytes;
    FabricNetDevice* inDev = PeekPointer(m_ports[in]);
    const uint8_t lane = inDev->LaneOf(item.inPriority);
    uint64_t& charge = m_charge[in][lane];
    charge -= item.inBytes;
    inDev->PeekFlowControl()->OnBufferFreed(lane, item.inBytes);
    // PFC resume (XON): the threshold is alpha x the free shared buffer, so a release on
    // any port can let every paused ingress resume, not only this packet's own: an
    // ingress whose last packet left while the buffer was full is resumed here later.
    if (!m_paused.empty())
    {
        const FabricBufferView pool = GetBufferView();
        for (std::size_t i = 0; i < m_paused.size();)
        {
            const auto [port, pausedLane] = m_paused[i];
            if (m_ports[port]->PeekFlowControl()->TryResume(pausedLane,
                                                            m_charge[port][pausedLane],
                                                            pool))
            {
                NS_LOG_LOGIC("XON to ingress port " << port << " lane " << +pausedLane << ": "
                                                    << m_charge[port][pausedLane]
                                                    << " B charged, pool " << m_used << " of "
                                                    << m_poolSize << " B used");
                m_paused.erase(m_paused.begin() + i); // keeps the order: deterministic
            }
            else
            {
                ++i;
            }
        }
    }
}

} // namespace ns3
