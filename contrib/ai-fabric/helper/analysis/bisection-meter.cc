/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "bisection-meter.h"

#include "ns3/fabric-graph.h"
#include "ns3/topology-analyzer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

namespace
{

/// \param graph the fabric \param link a link \param from one of its ends
/// \return the port (RunResults::ports id) that transmits from \p from on \p link
uint32_t
PortOf(const FabricGraph& graph, uint32_t link, uint32_t from)
{
    return 2 * link + (graph.GetLinks()[link].a == from ? 0 : 1);
}

/// \param graph the fabric \param link a link \param from one of its ends \return the other
uint32_t
OtherEnd(const FabricGraph& graph, uint32_t link, uint32_t from)
{
    const FabricGraph::Link& l = graph.GetLinks()[link];
    return l.a == from ? l.b : l.a;
}

/// \param x numerator \param y denominator \return x / y, NaN when y is 0
double
Share(double x, double y)
{
    return y > 0 ? x / y : std::numeric_limits<double>::quiet_NaN();
}

} // namespace

BisectionCutInfo
AnalyticBisectionCut(const FabricGraph& graph, const TopologySpec& spec)
{
    BisectionSplit s = FormulaBisectionSplit(graph, spec);
    BisectionCutInfo cut;
    cut.split = s.split;
    cut.formulaGbps = s.hasFormula ? s.formulaBps / 1e9 : 0.0;
    const SplitCut min = SplitMinCut(graph, s.sideA);
    cut.analyticGbps = min.maxFlowBps / 1e9;
    cut.sideA = std::move(s.sideA);

    // Each element's ports, both directions: a link direction is one port each way; a GPU's
    // injection is every port out of it (and in, the other way), an ejection the reverse.
    const auto& nodes = graph.GetNodes();
    std::vector<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> portIds;
    for (const CutArc& arc : min.arcs)
    {
        BisectionCutInfo::Element e;
        e.bps = arc.bps;
        std::vector<uint32_t> aToB;
        std::vector<uint32_t> bToA;
        if (arc.kind == CutArc::Kind::LINK)
        {
            const uint32_t to = OtherEnd(graph, arc.link, arc.from);
            e.name = nodes[arc.from].name + "->" + nodes[to].name;
            aToB.push_back(PortOf(graph, arc.link, arc.from));
            bToA.push_back(PortOf(graph, arc.link, to));
        }
        else
        {
            const uint32_t node = graph.GetGpuNode(arc.gpu);
            const bool injection = arc.kind == CutArc::Kind::INJECTION;
            e.name = nodes[node].name + (injection ? " injection" : " ejection");
            for (const auto& adj : graph.GetAdjacency(node))
            {
                const uint32_t out = PortOf(graph, adj.link, node);
                const uint32_t in = PortOf(graph, adj.link, adj.peer);
                (injection ? aToB : bToA).push_back(out);
                (injection ? bToA : aToB).push_back(in);
            }
        }
        portIds.emplace_back(std::move(aToB), std::move(bToA));
        cut.elements.push_back(std::move(e));
    }
    for (const auto& [aToB, bToA] : portIds)
    {
        cut.ports.insert(cut.ports.end(), aToB.begin(), aToB.end());
        cut.ports.insert(cut.ports.end(), bToA.begin(), bToA.end());
    }
    std::sort(cut.ports.begin(), cut.ports.end());
    cut.ports.erase(std::unique(cut.ports.begin(), cut.ports.end()), cut.ports.end());
    auto indexOf = [&](uint32_t port) {
        return static_cast<uint32_t>(std::lower_bound(cut.ports.begin(), cut.ports.end(), port)
                                     - cut.ports.begin());
    };
    for (std::size_t i = 0; i < portIds.size(); ++i)
    {
        for (const uint32_t p : portIds[i].first)
        {
            cut.elements[i].aToB.push_back(indexOf(p));
        }
        for (const uint32_t p : portIds[i].second)
        {
            cut.elements[i].bToA.push_back(indexOf(p));
        }
    }
    const auto& links = graph.GetLinks();
    const auto& profiles = graph.GetProfiles();
    for (const uint32_t p : cut.ports)
    {
        cut.portBps.push_back(
            static_cast<double>(profiles[links[p / 2].profile].rate.GetBitRate()));
    }
    cut.cut = DescribeSplitCut(graph, min);
    return cut;
}

BisectionMeasure
MeasureBisection(const BisectionCutInfo& cut,
                 const std::vector<FlowRecord>& flows,
                 double startS,
                 double endS)
{
    BisectionMeasure m;
    m.analyticGbps = cut.analyticGbps;
    m.windowS = std::max(0.0, endS - startS);
    const std::size_t n = cut.sideA.size();
    for (const FlowRecord& f : flows)
    {
        if (f.src >= n || f.dst >= n || f.postedS < startS || f.endS > endS)
        {
            continue;
        }
        const bool a = cut.sideA[f.src];
        if (a == cut.sideA[f.dst])
        {
            continue;
        }
        ++m.crossFlows;
        m.crossBytes += f.bytes;
        (a ? m.bytesAtoB : m.bytesBtoA) += f.bytes;
    }
    if (m.windowS > 0)
    {
        m.achievedGbps = std::max(m.bytesAtoB, m.bytesBtoA) * 8.0 / m.windowS / 1e9;
    }
    m.ratio = m.analyticGbps > 0 ? m.achievedGbps / m.analyticGbps : 0.0;
    return m;
}

BisectionDirectionRecord
MeasureCutDirection(const BisectionCutInfo& cut, const CutWindow& window, bool aToB)
{
    BisectionDirectionRecord d;
    const double windowS = std::max(0.0, window.endS - window.startS);
    // Bytes: every port of this direction once (an element's ports may be another's too).
    std::vector<bool> counted(cut.ports.size(), false);
    double utilizationSum = 0;
    for (const BisectionCutInfo::Element& e : cut.elements)
    {
        double bits = 0; // bits the element's ports could have sent: busy time x rate
        for (const uint32_t i : aToB ? e.aToB : e.bToA)
        {
            const PortTraffic& t = window.traffic[i];
            bits += static_cast<double>(t.busyPs) * 1e-12 * cut.portBps[i];
            if (!counted[i])
            {
                counted[i] = true;
                d.wireBytes += t.wireBytes;
                d.payloadBytes += t.payloadBytes;
                d.crossingWireBytes += t.crossingWireBytes;
                d.crossingPayloadBytes += t.crossingPayloadBytes;
            }
        }
        const double u = windowS > 0 && e.bps > 0 ? bits / (e.bps * windowS) : 0.0;
        utilizationSum += u;
        d.utilizationMax = std::max(d.utilizationMax, u);
    }
    if (!cut.elements.empty())
    {
        d.utilizationMean = utilizationSum / cut.elements.size();
    }
    if (windowS > 0)
    {
        d.achievedGbps = d.payloadBytes * 8.0 / windowS / 1e9;
        d.crossingGbps = d.crossingPayloadBytes * 8.0 / windowS / 1e9;
    }
    d.crossingShare = Share(d.crossingPayloadBytes, d.payloadBytes);
    return d;
}

BisectionRecord
MakeBisectionRecord(const BisectionCutInfo& cut,
                    const CollectiveResult& collective,
                    const std::vector<FlowRecord>& flows,
                    const CutWindow& window)
{
    BisectionRecord b;
    b.collective = collective.name;
    b.op = collective.op;
    b.split = cut.split;
    b.sideAGpus = static_cast<uint32_t>(std::count(cut.sideA.begin(), cut.sideA.end(), true));
    b.sideBGpus = static_cast<uint32_t>(cut.sideA.size()) - b.sideAGpus;
    b.cut = cut.cut;
    for (const BisectionCutInfo::Element& e : cut.elements)
    {
        b.cutPorts.push_back(e.name);
    }
    b.windowS = std::max(0.0, window.endS - window.startS);
    b.windowComplete = window.complete;
    b.analyticGbps = cut.analyticGbps;
    b.formulaGbps = cut.formulaGbps;
    b.aToB = MeasureCutDirection(cut, window, true);
    b.bToA = MeasureCutDirection(cut, window, false);
    b.busierAtoB = b.aToB.payloadBytes >= b.bToA.payloadBytes;
    const BisectionDirectionRecord& busier = b.busierAtoB ? b.aToB : b.bToA;
    b.achievedGbps = busier.achievedGbps;
    b.crossingGbps = busier.crossingGbps;
    b.crossingShare = busier.crossingShare;
    b.utilizationMean = busier.utilizationMean;
    b.utilizationMax = busier.utilizationMax;
    b.ratio = cut.analyticGbps > 0 ? b.achievedGbps / cut.analyticGbps : 0.0;
    b.crossingRatio = cut.analyticGbps > 0 ? b.crossingGbps / cut.analyticGbps : 0.0;
    const BisectionMeasure m = MeasureBisection(cut, flows, collective.startS, collective.endS);
    b.crossBytes = m.crossBytes;
    b.bytesAtoB = m.bytesAtoB;
    b.bytesBtoA = m.bytesBtoA;
    b.flowAchievedGbps = m.achievedGbps;
    b.flowRatio = m.ratio;
    return b;
}

} // namespace ns3
