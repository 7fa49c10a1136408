/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "port-metrics.h"

#include "ns3/fabric-graph.h"

#include <algorithm>

namespace ns3
{

const std::vector<std::string>&
TierClassNames()
{
    static const std::vector<std::string> NAMES = {"nvlink",
                                                   "pcie",
                                                   "gpu-leaf",
                                                   "leaf-spine",
                                                   "spine-core",
                                                   "intra-group",
                                                   "global",
                                                   "switch-switch"};
    return NAMES;
}

std::string
TierClassOf(const FabricGraph& graph, uint32_t link, bool custom)
{
    const FabricGraph::Link& l = graph.GetLinks()[link];
    const FabricGraph::Node& a = graph.GetNodes()[l.a];
    const FabricGraph::Node& b = graph.GetNodes()[l.b];
    if (l.kind == FabricGraph::LinkKind::NVLINK
        || graph.GetProfiles()[l.profile].technology == "nvlink")
    {
        return "nvlink";
    }
    if (l.kind == FabricGraph::LinkKind::HOST)
    {
        return "pcie";
    }
    const bool aSwitch = a.kind == FabricGraph::NodeKind::SWITCH;
    const bool bSwitch = b.kind == FabricGraph::NodeKind::SWITCH;
    if (aSwitch != bSwitch)
    {
        return "gpu-leaf";
    }
    if (!aSwitch || custom)
    {
        return "switch-switch";
    }
    if (a.group != FabricGraph::NONE && b.group != FabricGraph::NONE && a.group != b.group)
    {
        return "global";
    }
    const uint32_t lo = std::min(a.tier, b.tier);
    const uint32_t hi = std::max(a.tier, b.tier);
    if (lo == 1 && hi == 2)
    {
        return "leaf-spine";
    }
    if (lo == 2 && hi == 3)
    {
        return "spine-core";
    }
    if (lo == hi && a.group != FabricGraph::NONE && a.group == b.group)
    {
        return "intra-group";
    }
    return "switch-switch";
}

std::vector<TierClassRecord>
SummarizeTierClasses(const std::vector<PortRecord>& ports, double runS)
{
    const std::vector<std::string>& names = TierClassNames();
    std::vector<TierClassRecord> all(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        all[i].tierClass = names[i];
    }
    for (const PortRecord& p : ports)
    {
        const auto it = std::find(names.begin(), names.end(), p.tierClass);
        if (it == names.end())
        {
            continue;
        }
        TierClassRecord& t = all[it - names.begin()];
        const double u = runS > 0 ? p.busyS / runS : 0.0;
        ++t.ports;
        t.activePorts += p.txPackets > 0 ? 1 : 0;
        t.txBytes += p.txBytes;
        t.meanUtilization += u; // divided below
        t.maxUtilization = std::max(t.maxUtilization, u);
        t.peakQueueBytes = std::max(t.peakQueueBytes, p.peakQueueBytes);
        t.maxP99QueueBytes = std::max(t.maxP99QueueBytes, p.p99QueueBytes);
        t.pausesReceived += p.pausesReceived;
        t.pausedS += p.pausedS;
        t.stallS += p.stallS;
        t.ecnMarks += p.ecnMarks;
        t.drops += p.drops;
    }
    std::vector<TierClassRecord> out;
    for (TierClassRecord& t : all)
    {
        if (t.ports > 0)
        {
            t.meanUtilization /= t.ports;
            out.push_back(t);
        }
    }
    return out;
}

} // namespace ns3
