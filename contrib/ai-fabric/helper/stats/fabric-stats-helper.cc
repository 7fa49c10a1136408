/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-stats-helper.h"

#include "ns3/abort.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/port-metrics.h"
#include "ns3/port-sampler.h"
#include "ns3/rdma-transport.h"
#include "ns3/relay-wait-meter.h"
#include "ns3/simulator.h"
#include "ns3/straggler-ledger.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricStatsHelper");

namespace
{

/// \return the link class between two nodes, by their kinds and tiers (PortRecord::tier)
std::string
TierName(const FabricGraph::Node& a, const FabricGraph::Node& b)
{
    auto name = [](const FabricGraph::Node& n) -> std::string {
        switch (n.kind)
        {
            case FabricGraph::NodeKind::GPU:
                return "gpu";
            case FabricGraph::NodeKind::NIC:
                return "nic";
            case FabricGraph::NodeKind::SWITCH:
                break;
        }
        return "switch" + std::to_string(n.tier);
    };
    const std::string x = name(a);
    const std::string y = name(b);
    return x < y ? x + "-" + y : y + "-" + x;
}

} // namespace

FabricStatsHelper::FabricStatsHelper()
{
}

FabricStatsHelper::~FabricStatsHelper()
{
}

void
FabricStatsHelper::SetSampleInterval(Time interval)
{
    m_sampleInterval = interval;
}

void
FabricStatsHelper::SetCustomTopology(bool custom)
{
    m_custom = custom;
}

void
FabricStatsHelper::EnableStragglerLedger()
{
    m_ledgerEnabled = true;
}

void
FabricStatsHelper::Install(const FabricGraph& graph, const Fabric& fabric)
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_graph, "FabricStatsHelper installed twice");
    m_graph = &graph;
    m_ports.reserve(2 * fabric.devicesA.size());
    for (std::size_t i = 0; i < fabric.devicesA.size(); ++i)
    {
        m_ports.push_back(fabric.devicesA[i]);
        m_ports.push_back(fabric.devicesB[i]);
    }
    for (const Ptr<FabricSwitch>& sw : fabric.switches)
    {
        if (sw)
        {
            m_switches.push_back(sw);
        }
    }
    m_transports = fabric.transports;
    for (const Ptr<RdmaTransport>& t : m_transports)
    {
        m_congestionControl = m_congestionControl || (t && t->GetCongestionControl());
    }
    m_sampler = std::make_unique<PortSampler>(m_ports, m_sampleInterval);
    if (m_ledgerEnabled || m_congestionControl)
    {
        std::unordered_map<const FabricNetDevice*, uint32_t> portId;
        for (uint32_t p = 0; p < m_ports.size(); ++p)
        {
            portId.emplace(PeekPointer(m_ports[p]), p);
        }
        if (m_ledgerEnabled)
        {
            m_ledger = std::make_unique<StragglerLedger>(fabric.transports.size());
            for (uint32_t p = 0; p < m_ports.size(); ++p)
            {
                m_ledger->ConnectPort(m_ports[p], p);
            }
        }
        for (const Ptr<RdmaTransport>& t : fabric.transports)
        {
            std::vector<uint32_t> ports(t->GetNPorts(), StragglerLedger::NONE);
            for (uint32_t i = 0; i < ports.size(); ++i)
            {
                const auto it = portId.find(PeekPointer(t->GetPort(i)));
                if (it != portId.end())
                {
                    ports[i] = it->second;
                }
            }
            if (m_congestionControl)
            {
                m_sampler->AddTransport(t, ports); // rates at the same bin edges
            }
            if (m_ledgerEnabled)
            {
                m_ledger->ConnectTransport(t, std::move(ports));
            }
        }
    }
    // The waits of relayed messages at multi-port GPUs' ports (PXN): the sending server's own
    // sharing, told apart from the fabric's delay (RelayWaitMeter).
    const auto& links = graph.GetLinks();
    const auto& nodes = graph.GetNodes();
    m_relay = std::make_unique<RelayWaitMeter>(fabric.transports.size());
    std::vector<uint32_t> endpointOf(nodes.size(), UINT32_MAX);
    const std::vector<uint32_t> endpointNodes = graph.GetEndpointNodes();
    for (uint32_t e = 0; e < endpointNodes.size(); ++e)
    {
        endpointOf[endpointNodes[e]] = e;
    }
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        for (const uint32_t end : {0u, 1u})
        {
            const uint32_t n = end == 0 ? links[i].a : links[i].b;
            if (nodes[n].kind == FabricGraph::NodeKind::GPU && n < fabric.switches.size()
                && fabric.switches[n] && endpointOf[n] != UINT32_MAX)
            {
                const uint32_t endpoint = endpointOf[n];
                m_relay->ConnectRelayPort(end == 0 ? fabric.devicesA[i] : fabric.devicesB[i],
                                          endpoint);
            }
        }
    }
    m_sampler->Start();
}

const RelayWaitMeter*
FabricStatsHelper::GetRelayWaitMeter() const
{
    return m_relay.get();
}

FabricStatsResults
FabricStatsHelper::Collect()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_UNLESS(m_graph, "FabricStatsHelper::Collect before Install");
    m_sampler->Finish();
    FabricStatsResults r;

    // Flow-control and loss counters, summed over every port and switch.
    FabricCounters& k = r.counters;
    for (const Ptr<FabricNetDevice>& d : m_ports)
    {
        const FabricNetDevice::Stats s = d->GetStats();
        r.packetHops += s.txPackets;
        k.pauseFrames += s.pausesSent;
        k.pausedS += s.pausedTime.GetSeconds();
        k.stallS += s.stallTime.GetSeconds();
    }
    for (const Ptr<FabricSwitch>& sw : m_switches)
    {
        k.drops += sw->GetDrops();
        k.losslessDrops += sw->GetLosslessDrops();
        k.ecnMarks += sw->GetEcnMarks();
        k.peakBufferBytes = std::max(k.peakBufferBytes, sw->GetPeakBufferUsed());
    }

    // One record per port: both directions of every link.
    const auto& nodes = m_graph->GetNodes();
    const auto& links = m_graph->GetLinks();
    r.ports.reserve(m_ports.size());
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        const auto& link = links[i];
        const LinkProfile& profile = m_graph->GetProfiles()[link.profile];
        const std::string tier = TierName(nodes[link.a], nodes[link.b]);
        const std::string tierClass = TierClassOf(*m_graph, i, m_custom);
        for (int end = 0; end < 2; ++end)
        {
            const Ptr<FabricNetDevice>& d = m_ports[2 * i + end];
            PortRecord p;
            p.node = nodes[end == 0 ? link.a : link.b].name;
            p.peer = nodes[end == 0 ? link.b : link.a].name;
            p.tier = tier;
            p.technology = profile.technology;
            const FabricNetDevice::Stats s = d->GetStats();
            p.txPackets = s.txPackets;
            p.txBytes = s.txWireBytes;
            p.busyS = s.busyTime.GetSeconds();
            p.drops = s.drops;
            p.peakQueueBytes = s.peakQueuedBytes;
            p.pausesReceived = s.pausesReceived;
            p.pausedS = s.pausedTime.GetSeconds();
            p.stallS = s.stallTime.GetSeconds();
            p.portId = r.ports.size();
            p.tierClass = tierClass;
            p.ecnMarks = s.ecnMarks;
            p.p99QueueBytes = d->GetQueuePercentileBytes(99.0);
            p.rateBps = static_cast<double>(profile.rate.GetBitRate());
            r.ports.push_back(p);
        }
    }
    r.tierClasses = SummarizeTierClasses(r.ports, Simulator::Now().GetSeconds());

    r.sampleIntervalS = m_sampler->IntervalS();
    r.sampleIntervalAuto = !m_sampleInterval.IsStrictlyPositive();
    r.timeseries = m_sampler->Rows();
    CollectCongestionControl(r);
    return r;
}

void
FabricStatsHelper::CollectCongestionControl(FabricStatsResults& r) const
{
    FabricCounters& k = r.counters;
    r.congestionControl = m_congestionControl;
    // Per queue pair that was marked or received a CNP: the receiver's side (marks, CNPs
    // sent) and the sender's (CNPs received, cuts, rates), joined by (src, dst, qp).
    std::map<std::tuple<uint32_t, uint32_t, uint16_t>, QueuePairRecord> qps;
    auto record = [&qps](uint32_t src, uint32_t dst, uint16_t qp) -> QueuePairRecord& {
        QueuePairRecord& q = qps[std::make_tuple(src, dst, qp)];
        q.src = src;
        q.dst = dst;
        q.qp = qp;
        return q;
    };
    bool anyRate = false;
    uint64_t minBps = 0;
    for (const Ptr<RdmaTransport>& t : m_transports)
    {
        if (!t)
        {
            continue;
        }
        k.ecnMarkedReceived += t->GetEcnMarkedReceived();
        k.cnpsSent += t->GetCnpsSent();
        k.cnpsReceived += t->GetCnpsReceived();
        k.rateCuts += t->GetRateCuts();
        k.rateIncreases += t->GetRateChanges() - t->GetRateCuts();
        k.retransmittedPackets += t->GetRetransmittedPackets();
        k.retransmissionTimeouts += t->GetTimeouts();
        k.outOfOrderDrops += t->GetOutOfOrderDrops();
        if (!m_congestionControl)
        {
            continue;
        }
        const uint32_t self = t->GetEndpoint();
        for (const RdmaTransport::NotifiedQueuePair& n : t->GetNotifiedQueuePairs())
        {
            QueuePairRecord& q = record(n.src, self, n.qp);
            q.ecnMarked = n.ecnMarked;
            q.cnpsSent = n.cnpsSent;
        }
        for (const RdmaTransport::ControlledQueuePair& c : t->GetControlledQueuePairs())
        {
            QueuePairRecord& q = record(self, c.dst, c.qp);
            q.controlled = true;
            q.dataPackets = c.dataPackets;
            q.cnpsReceived = c.cnpsReceived;
            q.rateCuts = c.rateCuts;
            q.rateIncreases = c.rateIncreases;
            q.minRateGbps = static_cast<double>(c.minRateBps) * 1e-9;
            q.finalRateGbps = static_cast<double>(c.rateBps) * 1e-9;
            q.lineRateGbps = static_cast<double>(c.lineBps) * 1e-9;
            ++k.controlledQps;
            minBps = anyRate ? std::min(minBps, c.minRateBps) : c.minRateBps;
            anyRate = true;
        }
    }
    k.minRateGbps = anyRate ? static_cast<double>(minBps) * 1e-9 : 0.0;
    if (!m_congestionControl)
    {
        return;
    }
    r.queuePairs.reserve(qps.size());
    for (auto& [key, q] : qps)
    {
        r.queuePairs.push_back(q);
    }
    r.rateSeries = m_sampler->RateRows();
}

const StragglerLedger*
FabricStatsHelper::GetStragglerLedger() const
{
    return m_ledger.get();
}

uint64_t
FabricStatsHelper::GetEvents() const
{
    return m_sampler ? m_sampler->Events() : 0;
}

} // namespace ns3
