/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "topology-report-writer.h"

#include "output/atomic-file.h"
#include "output/json-writer.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{

/// \return "gpu", "nic" or "switch<tier>"
std::string
EndName(const FabricGraph::Node& n)
{
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
}

/// \param bps a rate \return it in Gb/s as text with up to 6 significant digits
std::string
Gbps(double bps)
{
    std::ostringstream os;
    os << std::setprecision(6) << bps / 1e9 << " Gb/s";
    return os.str();
}

/// \param v a number \return it with up to 4 significant digits
std::string
Num(double v)
{
    std::ostringstream os;
    os << std::setprecision(4) << v;
    return os.str();
}

/// \return true if x and y differ by at most tolerance x the larger magnitude (at least 1)
bool
Agree(double x, double y, double tolerance)
{
    return std::fabs(x - y) <= tolerance * std::max({std::fabs(x), std::fabs(y), 1.0});
}

/// \param ratio down/up \return e.g. "3:1", "1.5:1"
std::string
RatioText(double ratio)
{
    std::ostringstream os;
    os << std::setprecision(4) << ratio << ":1";
    return os.str();
}

} // namespace

void
WriteTopologyJson(const TopologyReport& r, std::ostream& os)
{
    JsonWriter w(os);
    w.BeginObject();
    w.Key("name").String(r.name);
    w.Key("kind").String(r.kind);
    w.Key("gpus").Uint(r.gpus);
    w.Key("nics").Uint(r.nics);
    w.Key("switches").Uint(r.switches);
    w.Key("links").Uint(r.links);
    w.Key("servers").Uint(r.servers);
    w.Key("switch_tiers").BeginArray();
    for (const auto& t : r.switchTiers)
    {
        w.BeginObject();
        w.Key("tier").Uint(t.tier);
        w.Key("name").String(t.name);
        w.Key("count").Uint(t.count);
        w.EndObject();
    }
    w.EndArray();
    w.Key("link_classes").BeginArray();
    for (const auto& c : r.linkClasses)
    {
        w.BeginObject();
        w.Key("ends").String(c.ends);
        w.Key("technology").String(c.technology);
        w.Key("profile").String(c.profile);
        w.Key("rate_gbps").Double(c.rateBps / 1e9);
        w.Key("count").Uint(c.count);
        w.EndObject();
    }
    w.EndArray();
    w.Key("oversubscription").BeginArray();
    for (const auto& o : r.oversubscription)
    {
        w.BeginObject();
        w.Key("tier").Uint(o.tier);
        w.Key("name").String(o.name);
        w.Key("switches").Uint(o.switches);
        w.Key("down_gbps").Double(o.downBps / 1e9);
        w.Key("up_gbps").Double(o.upBps / 1e9);
        w.Key("min_ratio").Double(o.minRatio);
        w.Key("max_ratio").Double(o.maxRatio);
        w.EndObject();
    }
    w.EndArray();
    w.Key("paths").BeginObject();
    w.Key("sources").Uint(r.paths.sources);
    w.Key("sampled").Bool(r.paths.sampled);
    w.Key("pairs").Uint(r.paths.pairs);
    w.Key("diameter_hops").Uint(r.paths.diameterHops);
    w.Key("relay_pairs").Uint(r.paths.relayPairs);
    w.Key("unreachable_pairs").Uint(r.paths.unreachablePairs);
    w.Key("min_paths").Double(r.paths.minPaths);
    w.Key("mean_paths").Double(r.paths.meanPaths);
    w.Key("max_paths").Double(r.paths.maxPaths);
    w.EndObject();
    const auto& b = r.bisection;
    w.Key("bisection").BeginObject();
    w.Key("convention").String("one direction (side A to side B); bidirectional = 2 x");
    if (b.hasFormula)
    {
        w.Key("formula_gbps").Double(b.formulaBps / 1e9);
    }
    else
    {
        w.Key("formula_gbps").Null();
    }
    w.Key("formula").String(b.formula);
    w.Key("source").String(b.source);
    w.Key("split").String(b.split);
    w.Key("side_a_gpus").Uint(b.sideA);
    w.Key("side_b_gpus").Uint(b.sideB);
    w.Key("max_flow_gbps").Double(b.maxFlowBps / 1e9);
    w.Key("formula_agrees").Bool(b.formulaAgrees);
    w.Key("cut").String(b.cut);
    w.Key("cut_links").Uint(b.cutArcs);
    w.Key("full_gbps").Double(b.fullBps / 1e9);
    w.Key("worst_gbps").Double(b.worstBps / 1e9);
    w.Key("worst_split").String(b.worstSplit);
    w.Key("worst_below_formula").Bool(b.worstBelowFormula);
    w.Key("splits_tried").Uint(b.splitsTried);
    w.Key("method").String(b.method);
    if (r.kind == "dragonfly-plus")
    {
        w.Key("mission_f15_gbps").Double(b.missionF15Bps / 1e9);
    }
    w.EndObject();
    w.EndObject();
    os << '\n';
}

void
WriteTopologyJson(const TopologyReport& report, const std::string& path)
{
    WriteFileAtomically(path, [&report](std::ostream& os) { WriteTopologyJson(report, os); });
}

void
PrintTopologyReport(const TopologyReport& r, std::ostream& os)
{
    const auto count = [](uint64_t n, const char* one, const char* many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    os << "topology " << r.name << " (" << r.kind << "): " << count(r.gpus, "GPU", "GPUs") << ", "
       << count(r.nics, "NIC", "NICs") << ", " << count(r.switches, "switch", "switches") << ", "
       << count(r.links, "link", "links");
    if (r.servers > 0)
    {
        os << ", " << r.servers << " servers";
    }
    os << "\n  switches:";
    for (const auto& t : r.switchTiers)
    {
        os << " " << t.name << " (tier " << t.tier << ") " << t.count << ";";
    }
    os << "\n  links:\n";
    for (const auto& c : r.linkClasses)
    {
        os << "    " << std::left << std::setw(18) << c.ends << std::setw(12) << c.technology
           << std::setw(12) << c.profile << std::right << std::setw(14) << Gbps(c.rateBps) << "  x "
           << c.count << "\n";
    }
    os << "  oversubscription (down/up capacity per switch):";
    if (r.oversubscription.empty())
    {
        os << " none (no tier has uplinks)";
    }
    for (const auto& o : r.oversubscription)
    {
        os << "\n    " << o.name << " (tier " << o.tier << "): " << RatioText(o.minRatio);
        if (!Agree(o.minRatio, o.maxRatio, 1e-9))
        {
            os << " to " << RatioText(o.maxRatio);
        }
        os << " (" << Gbps(o.downBps) << " down / " << Gbps(o.upBps) << " up, "
           << count(o.switches, "switch", "switches") << ")";
    }
    os << "\n  paths: diameter " << r.paths.diameterHops << " hops; equal-cost shortest paths per "
       << "GPU pair min " << Num(r.paths.minPaths) << ", mean " << Num(r.paths.meanPaths)
       << ", max " << Num(r.paths.maxPaths) << " (" << r.paths.pairs << " pairs from "
       << r.paths.sources << (r.paths.sampled ? " sampled" : "") << " source GPUs";
    if (r.paths.relayPairs > 0)
    {
        os << "; " << r.paths.relayPairs << " pairs only through a relaying GPU (PXN)";
    }
    if (r.paths.unreachablePairs > 0)
    {
        os << "; " << r.paths.unreachablePairs << " UNREACHABLE";
    }
    os << ")\n";
    const auto& b = r.bisection;
    os << "  bisection bandwidth, one direction (bidirectional = 2x):\n";
    os << "    formula        " << std::setw(16) << (b.hasFormula ? Gbps(b.formulaBps) : "n/a")
       << "  " << b.formula << " [" << b.source << "]\n";
    os << "    max-flow       " << std::setw(16) << Gbps(b.maxFlowBps)
       << "  same split: " << b.split << " (" << b.sideA << " | " << b.sideB << " GPUs)"
       << (b.formulaAgrees ? "" : "  <-- DISAGREES with the formula") << "\n";
    os << "    its min cut    " << std::setw(16) << ""
       << "  " << b.cut << "\n";
    os << "    worst found    " << std::setw(16) << Gbps(b.worstBps) << "  " << b.worstSplit << " ("
       << b.splitsTried << " balanced splits tried)"
       << (b.worstBelowFormula ? "  <-- BELOW the formula" : "") << "\n";
    os << "    full           " << std::setw(16) << Gbps(b.fullBps)
       << "  floor(N/2) GPUs at their injection rate (no balanced split carries more)\n";
    if (r.kind == "dragonfly-plus")
    {
        os << "    MISSION F15    " << std::setw(16) << Gbps(b.missionF15Bps)
           << "  groups x global links per group x B: every global port, i.e. each link counted "
              "from both ends\n";
    }
}

void
WriteDot(const FabricGraph& graph, std::ostream& os)
{
    const auto& nodes = graph.GetNodes();
    auto quote = [](const std::string& s) {
        std::string q = "\"";
        for (const char c : s)
        {
            if (c == '"' || c == '\\')
            {
                q += '\\';
            }
            q += c;
        }
        return q + "\"";
    };
    static const char* const tierColors[] = {"#d9b3ff", // tier 0: NVSwitch
                                             "#9ecae1",
                                             "#6baed6",
                                             "#3182bd",
                                             "#08519c"};
    os << "graph fabric {\n";
    os << "  graph [rankdir=BT, splines=false, nodesep=0.1];\n";
    os << "  node [style=filled, fontsize=10, fontname=\"Helvetica\"];\n";
    os << "  edge [fontsize=8, fontname=\"Helvetica\"];\n";
    // One rank per (kind, tier): GPUs and NICs at the bottom, switch tiers above.
    std::map<std::pair<int, uint32_t>, std::vector<uint32_t>> ranks;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        const auto& n = nodes[i];
        std::string shape = "ellipse";
        std::string color;
        int rankKind = 0;
        switch (n.kind)
        {
            case FabricGraph::NodeKind::GPU:
                shape = "box";
                color = "#b8e186";
                rankKind = 0;
                break;
            case FabricGraph::NodeKind::NIC:
                shape = "box";
                color = "#fee08b";
                rankKind = 1;
                break;
            case FabricGraph::NodeKind::SWITCH:
                shape = n.tier == 0 ? "hexagon" : "ellipse";
                color = tierColors[std::min<uint32_t>(n.tier, 4)];
                rankKind = 2;
                break;
        }
        ranks[{rankKind, n.tier}].push_back(i);
        std::string tooltip
            = n.kind == FabricGraph::NodeKind::SWITCH
                  ? graph.GetTierName(n.tier) + " (tier " + std::to_string(n.tier) + ")"
                  : EndName(n);
        os << "  " << quote(n.name) << " [shape=" << shape << ", fillcolor=\"" << color
           << "\", tooltip=" << quote(tooltip) << "];\n";
    }
    for (const auto& [key, members] : ranks)
    {
        os << "  { rank=same;";
        for (const uint32_t i : members)
        {
            os << " " << quote(nodes[i].name) << ";";
        }
        os << " }\n";
    }
    for (const auto& l : graph.GetLinks())
    {
        const LinkProfile& p = graph.GetProfiles()[l.profile];
        const char* color = "#4d4d4d";
        switch (l.kind)
        {
            case FabricGraph::LinkKind::NVLINK:
                color = "#6a3d9a";
                break;
            case FabricGraph::LinkKind::HOST:
                color = "#b15928";
                break;
            case FabricGraph::LinkKind::FABRIC:
                break;
        }
        os << "  " << quote(nodes[l.a].name) << " -- " << quote(nodes[l.b].name)
           << " [label=" << quote(p.technology) << ", color=\"" << color << "\"];\n";
    }
    os << "}\n";
}

void
WriteDot(const FabricGraph& graph, const std::string& path)
{
    WriteFileAtomically(path, [&graph](std::ostream& os) { WriteDot(graph, os); });
}

} // namespace ns3
