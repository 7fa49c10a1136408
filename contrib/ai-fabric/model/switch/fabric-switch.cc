/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-switch.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

namespace
{
constexpr uint32_t NO_ROUTE = UINT32_MAX;

/// splitmix64 finaliser: a cheap, well-mixed 64-bit hash step.
inline uint64_t
Mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

const std::vector<uint16_t> g_noPorts;
} // namespace

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricSwitch")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricSwitch>()
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
    m_rng = nullptr;
    m_deliver = Callback<void, FabricNetDevice*, FabricArrival&>();
    Object::DoDispose();
}

int64_t
FabricSwitch::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    // The ECMP salt is the stream's first draw, so it too follows the seed.
    const uint64_t hi = m_rng->GetInteger(0, UINT32_MAX);
    const uint64_t lo = m_rng->GetInteger(0, UINT32_MAX);
    m_salt = (hi << 32) | lo;
    return 1;
}

uint32_t
FabricSwitch::AddPort(Ptr<FabricNetDevice> port, const PortConfig& config)
{
    NS_ABORT_MSG_IF(m_ports.size() >= UINT16_MAX, "too many ports on one switch");
    port->SetFabricReceiveCallback(MakeCallback(&FabricSwitch::Receive, this));
    port->SetDequeueCallback(MakeCallback(&FabricSwitch::Release, this));
    m_ports.push_back(port);
    m_config.push_back(config);
    m_hasEdgePorts = m_hasEdgePorts || config.edge;
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

uint32_t
FabricSwitch::AddPortSet(const std::vector<uint16_t>& ports)
{
    auto it = std::find(m_portSets.begin(), m_portSets.end(), ports);
    if (it != m_portSets.end())
    {
        return static_cast<uint32_t>(it - m_portSets.begin());
    }
    m_portSets.push_back(ports);
    RouteEntry e;
    e.count = static_cast<uint16_t>(ports.size());
    e.first = ports.front();
    e.offset = static_cast<uint32_t>(m_portPool.size());
    m_portPool.insert(m_portPool.end(), ports.begin(), ports.end());
    m_setEntry.push_back(e);
    return static_cast<uint32_t>(m_portSets.size() - 1);
}

void
FabricSwitch::SetRouteSet(uint32_t dst, uint32_t set)
{
    if (dst >= m_routeSet.size())
    {
        m_routeSet.resize(dst + 1, NO_ROUTE);
        m_routeEntry.resize(dst + 1);
    }
    m_routeSet[dst] = set;
    m_routeEntry[dst] = m_setEntry[set];
}

void
FabricSwitch::SetRoute(uint32_t dst, const std::vector<uint16_t>& ports)
{
    NS_ABORT_MSG_IF(ports.empty(), "empty route");
    SetRouteSet(dst, AddPortSet(ports));
}

void
FabricSwitch::CopyRoute(uint32_t dst, uint32_t like)
{
    NS_ABORT_MSG_IF(like >= m_routeSet.size() || m_routeSet[like] == NO_ROUTE,
                    "no route to copy from endpoint " << like);
    SetRouteSet(dst, m_routeSet[like]);
}

const std::vector<uint16_t>&
FabricSwitch::GetRoute(uint32_t dst) const
{
    if (dst >= m_routeSet.size() || m_routeSet[dst] == NO_ROUTE)
    {
        return g_noPorts;
    }
    return m_portSets[m_routeSet[dst]];
}

void
FabricSwitch::SetLocalEndpoint(uint32_t endpoint,
                               Callback<void, FabricNetDevice*, FabricArrival&> deliver)
{
    m_localEndpoint = endpoint;
    m_deliver = deliver;
}

void
FabricSwitch::SetGroupRouting(PathMode mode,
                              uint32_t group,
                              uint32_t groups,
                              const std::vector<uint16_t>& dstGroup)
{
    m_pathMode = mode;
    m_group = group;
    m_groups = groups;
    m_dstGroup = dstGroup;
}

void
FabricSwitch::SetGroupRoute(uint32_t group, const std::vector<uint16_t>& ports)
{
    if (group >= m_groupRoute.size())
    {
        m_groupRoute.resize(group + 1, NO_ROUTE);
    }
    if (ports.empty())
    {
        return;
    }
    m_groupRoute[group] = AddPortSet(ports);
}

bool
FabricSwitch::ParsePathMode(const std::string& name, PathMode& mode)
{
    if (name == "minimal")
    {
        mode = MINIMAL;
    }
    else if (name == "valiant")
    {
        mode = VALIANT;
    }
    else if (name == "ugal")
    {
        mode = UGAL;
    }
    else
    {
        return false;
    }
    return true;
}

uint64_t
FabricSwitch::GetDetoured() const
{
    return m_detoured;
}

uint64_t
FabricSwitch::GetDetoursEnded() const
{
    return m_detoursEnded;
}

void
FabricSwitch::SetForwarding(Forwarding mode)
{
    m_forwarding = mode;
}

bool
FabricSwitch::ParseForwarding(const std::string& name, Forwarding& mode)
{
    if (name == "ecmp")
    {
        mode = ECMP;
    }
    else if (name == "spray")
    {
        mode = SPRAY;
    }
    else if (name == "adaptive")
    {
        mode = ADAPTIVE;
    }
    else
    {
        return false;
    }
    return true;
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

uint16_t
FabricSwitch::Choose(const uint16_t* ports,
                     uint32_t n,
                     uint32_t src,
                     uint32_t dst,
                     uint16_t qp,
                     uint8_t priority)
{
    switch (m_forwarding)
    {
        case SPRAY:
            return ports[m_rng->GetInteger(0, n - 1)];
        case ADAPTIVE: {
            const uint32_t start = m_rotate++ % n;
            uint16_t best = ports[start];
            uint64_t bestBytes = m_ports[best]->GetQueuedBytes(priority);
            for (uint32_t k = 1; k < n && bestBytes > 0; ++k)
            {
                const uint16_t p = ports[(start + k) % n];
                const uint64_t b = m_ports[p]->GetQueuedBytes(priority);
                if (b < bestBytes)
                {
                    best = p;
                    bestBytes = b;
                }
            }
            return best;
        }
        case ECMP:
            break;
    }
    const uint64_t key
        = (static_cast<uint64_t>(src) << 32) ^ (static_cast<uint64_t>(dst) << 12) ^ qp;
    return ports[Mix(key ^ m_salt) % n];
}

void
FabricSwitch::Receive(FabricNetDevice* inDev, FabricArrival& arrival)
{
    const uint32_t wireBytes = arrival.wireBytes;
    const uint8_t priority = arrival.priority;
    if (arrival.header.m_dst == m_localEndpoint)
    {
        // The endpoint drains its packets into GPU memory at once.
        inDev->PeekFlowControl()->OnBufferFreed(inDev->LaneOf(priority), wireBytes);
        m_deliver(inDev, arrival);
        return;
    }
    FabricTxItem item;
    item.header = arrival.header;
    FabricFields& header = item.header; // changed in place (detours, ECN)
    bool rewrite = false;               // the header changed: the packet's bytes must follow
    const uint16_t in = static_cast<uint16_t>(inDev->GetSwitchPort());
    uint8_t egressClass = priority;
    if (m_pathMode != MINIMAL)
    {
        rewrite = RouteBetweenGroups(header, in, priority);
    }
    // A detour inside its intermediate group heads for the destination already.
    const bool inViaGroup = header.m_via != 0 && header.m_via - 1u == m_group;
    // Routes are verified complete when the fabric is built.
    NS_ABORT_MSG_IF(header.m_dst >= m_routeEntry.size() && (header.m_via == 0 || inViaGroup),
                    "no route to endpoint " << header.m_dst);
    const RouteEntry& route = (header.m_via != 0 && !inViaGroup)
                                  ? m_setEntry[m_groupRoute[header.m_via - 1]]
                                  : m_routeEntry[header.m_dst];
    NS_ABORT_MSG_IF(route.count == 0, "no route to endpoint " << header.m_dst);
    const uint16_t out = (route.count == 1) ? route.first
                                            : Choose(&m_portPool[route.offset],
                                                     route.count,
                                                     header.m_src,
                                                     header.m_dst,
                                                     header.m_qp,
                                                     egressClass);
    if (inViaGroup && (m_hasEdgePorts || m_config[out].global))
    {
        // The detour turns towards the destination here (a leaf sends it up, or a spine
        // onto a global link): from here on, minimal, one lane up. Turning at the turn, not
        // where the packet entered the group, keeps every lane's paths free of a down-up
        // turn, so neither lane can close a cycle of credit waits.
        header.m_via = 0;
        header.m_priority = egressClass = static_cast<uint8_t>(std::min(priority + 1, 15));
        ++m_detoursEnded;
        rewrite = true;
    }
    FabricNetDevice* egress = PeekPointer(m_ports[out]);

    item.wireBytes = egress->WireBytes(header);
    item.priority = egressClass;
    item.inPort = in;
    item.inBytes = wireBytes;
    item.inPriority = priority;
    item.lastOfMessage = header.IsLastOfMessage();

    // Admission to the shared pool.
    FabricFlowControl* fc = inDev->PeekFlowControl();
    const bool lossless = fc->IsLossless();
    bool drop = m_used + wireBytes > m_poolSize;
    if (!drop && !lossless)
    {
        const uint64_t free = m_poolSize - m_used;
        drop = egress->GetQueuedBytes(egressClass) + item.wireBytes > m_dropAlpha * free;
    }
    if (drop)
    {
        NS_LOG_LOGIC("drop at port " << out << (lossless ? " (lossless ingress)" : "") << ": "
                                     << m_used << " B of " << m_poolSize << " B used");
        ++m_drops;
        if (lossless)
        {
            ++m_losslessDrops;
        }
        fc->OnBufferFreed(inDev->LaneOf(priority), wireBytes); // credits: keep it going
        item.packet = std::move(arrival.packet);
        egress->NotifyDrop(item);
        if (!m_dropTrace.IsEmpty())
        {
            MaterializePacket(item.packet, item.header);
            m_dropTrace(item.packet.Get(), out);
        }
        return;
    }
    m_used += wireBytes;
    m_peakUsed = std::max(m_peakUsed, m_used);
    const uint8_t lane = inDev->LaneOf(priority);
    uint64_t& charge = m_charge[in][lane];
    charge += wireBytes;
    if (fc->OnCharged(lane, charge, GetBufferView()))
    {
        m_paused.emplace_back(in, lane); // XOFF sent
    }

    // ECN: RED on the egress lane the packet joins.
    bool marked = false;
    const PortConfig& ecn = m_config[out];
    if (ecn.ecnKmin > 0 && !header.IsControl())
    {
        const uint64_t q = egress->GetQueuedBytes(egressClass);
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
            header.m_flags |= FabricHeader::FLAG_ECN_CE;
            rewrite = marked = true;
            ++m_ecnMarks;
            egress->NotifyEcnMark();
        }
    }
    item.packet = std::move(arrival.packet);
    if (rewrite && item.packet && item.packet->GetSize() > header.m_payload)
    {
        // The packet's bytes carry the header already (an observer read it): keep them true.
        FabricHeader old;
        item.packet->RemoveHeader(old);
        item.packet->AddHeader(FabricHeader(header));
    }
    if (marked && !m_ecnTrace.IsEmpty())
    {
        MaterializePacket(item.packet, item.header);
        m_ecnTrace(item.packet.Get(), out);
    }
    ++m_forwarded;

    // Cut-through into a faster port: the packet cannot leave before its last
    // bit has arrived, so it waits for the difference.
    if (inDev->IsCutThrough() && egress->GetDataRate() > inDev->GetDataRate())
    {
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

bool
FabricSwitch::RouteBetweenGroups(FabricFields& header, uint16_t in, uint8_t priority)
{
    bool rewrite = false;
    if (header.m_via == 0 && m_config[in].edge && m_groups > 2 && header.m_dst < m_dstGroup.size()
        && m_dstGroup[header.m_dst] != m_group)
    {
        const uint32_t dstGroup = m_dstGroup[header.m_dst];
        // A random intermediate group other than the source's and the destination's.
        uint32_t g = m_rng->GetInteger(0, m_groups - 3);
        for (const uint32_t skip : {std::min(m_group, dstGroup), std::max(m_group, dstGroup)})
        {
            g += (g >= skip) ? 1 : 0;
        }
        bool detour = g < m_groupRoute.size() && m_groupRoute[g] != NO_ROUTE;
        if (detour && m_pathMode == UGAL)
        {
            // UGAL-L: minimal unless its queue x hops exceeds the detour's; a minimal
            // inter-group path crosses at most 3 switch-to-switch hops, a Valiant
            // one 5 (Kim et al. 2008).
            const std::vector<uint16_t>& minPorts = GetRoute(header.m_dst);
            const std::vector<uint16_t>& viaPorts = m_portSets[m_groupRoute[g]];
            const uint64_t qMin = m_ports[Choose(minPorts.data(),
                                                 minPorts.size(),
                                                 header.m_src,
                                                 header.m_dst,
                                                 header.m_qp,
                                                 priority)]
                                      ->GetQueuedBytes(priority);
            const uint64_t qVia = m_ports[Choose(viaPorts.data(),
                                                 viaPorts.size(),
                                                 header.m_src,
                                                 header.m_dst,
                                                 header.m_qp,
                                                 priority)]
                                      ->GetQueuedBytes(priority);
            detour = qMin * 3 > qVia * 5;
        }
        if (detour)
        {
            header.m_via = static_cast<uint16_t>(g + 1);
            ++m_detoured;
            rewrite = true;
        }
    }
    return rewrite;
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
