/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "bisection-meter.h"

#include "ns3/fabric-graph.h"
#include "ns3/topology-analyzer.h"

#include <algorithm>

namespace ns3
{

BisectionCutInfo
AnalyticBisectionCut(const FabricGraph& graph, const TopologySpec& spec)
{
    BisectionSplit s = FormulaBisectionSplit(graph, spec);
    BisectionCutInfo cut;
    cut.split = s.split;
    cut.formulaGbps = s.hasFormula ? s.formulaBps / 1e9 : 0.0;
    cut.analyticGbps = SplitMaxFlowBps(graph, s.sideA) / 1e9;
    cut.sideA = std::move(s.sideA);
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

BisectionMeasure
MeasureBisection(const FabricGraph& graph,
                 const TopologySpec& spec,
                 const std::vector<FlowRecord>& flows,
                 double startS,
                 double endS)
{
    return MeasureBisection(AnalyticBisectionCut(graph, spec), flows, startS, endS);
}

} // namespace ns3
