/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "topology-analyzer.h"

#include "ns3/fabric-graph.h"
#include "ns3/fabric-topology.h"
#include "ns3/topology-spec.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

// ------------------------------------------------------------------ max-flow

/// Flow capacity type (bits per second, or kb/s for huge fabrics).
using Capacity = long long;
/// Boost graph traits for the flow network.
using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
/// The flow network: a directed graph with capacity, residual capacity and reverse edges.
using FlowGraph = boost::adjacency_list<
    boost::vecS,
    boost::vecS,
    boost::directedS,
    boost::no_property,
    boost::property<
        boost::edge_capacity_t,
        Capacity,
        boost::property<boost::edge_residual_capacity_t,
                        Capacity,
                        boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;
/// An arc of the flow network.
using FlowEdge = FlowTraits::edge_descriptor;

/**
 * \brief The FabricGraph as a Boost flow network, built once and re-run per split.
 *
 * Every full-duplex link of rate R becomes two arcs of capacity R (one per
 * direction), each with a zero-capacity reverse arc. A super-source has an arc to
 * every GPU and every GPU an arc to a super-sink; a split sets those arcs to the
 * GPU's total link rate on its side and to 0 on the other. GPUs keep their link
 * arcs, so they may relay (PXN over NVLink).
 */
class FlowNetwork
{
  public:
    /// \param graph the fabric
    explicit FlowNetwork(const FabricGraph& graph)
        : m_graph(graph.GetNodes().size() + 2)
    {
        const auto& links = graph.GetLinks();
        const auto& profiles = graph.GetProfiles();
        // Bits per second, unless the total (every flow's sum, twice per link) could
        // overflow a signed 64-bit count: then the smallest power of 1000 that keeps it below
        // 10^18 (a fabric of 100 Tb/s links with 1,100 GPUs overflowed with kb/s).
        long double total = 0;
        for (const auto& l : links)
        {
            total += 2.0L * profiles[l.profile].rate.GetBitRate();
        }
        m_unit = 1;
        while (total / m_unit > 1e18L)
        {
            m_unit *= 1000;
        }
        const std::size_t n = graph.GetNodes().size();
        m_source = n;
        m_sink = n + 1;
        for (const auto& l : links)
        {
            const Capacity c
                = static_cast<Capacity>(profiles[l.profile].rate.GetBitRate() / m_unit);
            AddArc(l.a, l.b, c);
            AddArc(l.b, l.a, c);
        }
        for (uint32_t gpu = 0; gpu < graph.GetGpuCount(); ++gpu)
        {
            const uint32_t node = graph.GetGpuNode(gpu);
            Capacity c = 0;
            for (const auto& adj : graph.GetAdjacency(node))
            {
                c += static_cast<Capacity>(profiles[links[adj.link].profile].rate.GetBitRate()
                                           / m_unit);
            }
            m_gpuCap.push_back(c);
            m_fromSource.push_back(AddArc(m_source, node, 0));
            m_toSink.push_back(AddArc(node, m_sink, 0));
        }
    }

    /**
     * \param sideA per GPU: true for side A
     * \return the max-flow from side A to side B, bits per second
     */
    double Run(const std::vector<bool>& sideA)
    {
        auto cap = boost::get(boost::edge_capacity, m_graph);
        for (std::size_t i = 0; i < m_gpuCap.size(); ++i)
        {
            cap[m_fromSource[i]] = sideA[i] ? m_gpuCap[i] : 0;
            cap[m_toSink[i]] = sideA[i] ? 0 : m_gpuCap[i];
        }
        const Capacity flow = boost::push_relabel_max_flow(m_graph, m_source, m_sink);
        return static_cast<double>(flow) * static_cast<double>(m_unit);
    }

  private:
    /**
     * \param u tail
     * \param v head
     * \param c capacity
     * \return the arc (its reverse has capacity 0)
     */
    FlowEdge AddArc(std::size_t u, std::size_t v, Capacity c)
    {
        auto cap = boost::get(boost::edge_capacity, m_graph);
        auto rev = boost::get(boost::edge_reverse, m_graph);
        const FlowEdge e = boost::add_edge(u, v, m_graph).first;
        const FlowEdge r = boost::add_edge(v, u, m_graph).first;
        cap[e] = c;
        cap[r] = 0;
        rev[e] = r;
        rev[r] = e;
        return e;
    }

    FlowGraph m_graph;                  //!< the network
    std::size_t m_source{0};            //!< super-source vertex
    std::size_t m_sink{0};              //!< super-sink vertex
    uint64_t m_unit{1};                 //!< bits per second per capacity unit
    std::vector<Capacity> m_gpuCap;     //!< per GPU: sum of its link rates
    std::vector<FlowEdge> m_fromSource; //!< per GPU: source -> GPU
    std::vector<FlowEdge> m_toSink;     //!< per GPU: GPU -> sink
};

// ------------------------------------------------------------------- helpers

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

/// \return the link class of a link's ends, the same naming as the ports CSV
std::string
EndsName(const FabricGraph::Node& a, const FabricGraph::Node& b)
{
    const std::string x = EndName(a);
    const std::string y = EndName(b);
    return x < y ? x + "-" + y : y + "-" + x;
}

/// \param v a number \return decimal text
std::string
Str(uint64_t v)
{
    return std::to_string(v);
}

/// The first \p count GPUs as side A.
std::vector<bool>
FirstGpus(uint32_t gpus, uint64_t count)
{
    std::vector<bool> a(gpus, false);
    for (uint64_t i = 0; i < count && i < gpus; ++i)
    {
        a[i] = true;
    }
    return a;
}

/// The closed-form bisection of a kind and the split it assumes.
struct Formula
{
    bool has{false};         //!< a closed form exists
    double bps{0};           //!< its value
    std::string text;        //!< the formula in words
    std::string source;      //!< its source
    std::string split;       //!< the split
    std::vector<bool> sideA; //!< per GPU: side A
};

/**
 * \param graph the fabric
 * \param spec the topology
 * \return the family's closed form and its split
 */
Formula
FormulaOf(const FabricGraph& graph, const TopologySpec& spec)
{
    Formula f;
    const uint32_t n = graph.GetGpuCount();
    const double b = static_cast<double>(spec.link.rate.GetBitRate());
    // A GPU's scale-out injection: its fabric link, or the slower of host link and NIC link.
    const double h
        = spec.hostLink ? std::min(b, static_cast<double>(spec.hostLink->rate.GetBitRate())) : b;
    const std::string hostNote
        = spec.hostLink ? "B_gpu = min(host link, link) rate" : "B_gpu = B = link rate";
    f.has = true;
    if (spec.Is<SingleSwitchSpec>())
    {
        const uint64_t a = n / 2;
        f.bps = a * h;
        f.text = "floor(N/2) x B_gpu (one non-blocking switch; " + hostNote + ")";
        f.source = "a crossbar carries any permutation of its ports";
        f.split = "first " + Str(a) + " of " + Str(n) + " GPUs";
        f.sideA = FirstGpus(n, a);
    }
    else if (spec.Is<LeafSpineSpec>())
    {
        const LeafSpineSizing z = ResolveLeafSpine(spec);
        if (z.leaves >= 2)
        {
            const uint64_t a = z.leaves / 2;
            f.bps = a * std::min(z.gpusPerLeaf * h, z.uplinks * b);
            f.split = "first " + Str(a) + " of " + Str(z.leaves) + " leaves";
            f.sideA = FirstGpus(n, a * z.gpusPerLeaf);
        }
        else
        {
            f.bps = (n / 2) * h;
            f.split = "first " + Str(n / 2) + " of " + Str(n) + " GPUs of the single leaf";
            f.sideA = FirstGpus(n, n / 2);
        }
        f.text = "floor(L/2) x min(d x B_gpu, u x B), d = " + Str(z.gpusPerLeaf) + " GPUs and u = "
                 + Str(z.uplinks) + " uplinks per leaf: N B / (2 r) with r = d/u "
                 + ">= 1 and L even (" + hostNote + ")";
        f.source = "FACTS.md 1.2 (oversubscription as in htsim; N B / (2 r))";
    }
    else if (spec.Is<FatTreeSpec>())
    {
        const FatTreeSizing z = ResolveFatTree(spec);
        const double leafUp = std::min(z.gpusPerLeaf * h, z.spinesPerPod * b);
        if (z.pods >= 2)
        {
            const uint64_t a = z.pods / 2;
            const double pod = std::min(z.leavesPerPod * leafUp,
                                        static_cast<double>(z.spinesPerPod) * z.spineUplinks * b);
            f.bps = a * pod;
            f.split = "first " + Str(a) + " of " + Str(z.pods) + " pods";
            f.sideA = FirstGpus(n, a * z.leavesPerPod * z.gpusPerLeaf);
        }
        else if (z.leavesPerPod >= 2)
        {
            const uint64_t a = z.leavesPerPod / 2;
            f.bps = a * leafUp;
            f.split
                = "first " + Str(a) + " of " + Str(z.leavesPerPod) + " leaves of the single pod";
            f.sideA = FirstGpus(n, a * z.gpusPerLeaf);
        }
        else
        {
            f.bps = (n / 2) * h;
            f.split = "first " + Str(n / 2) + " of " + Str(n) + " GPUs of the single leaf";
            f.sideA = FirstGpus(n, n / 2);
        }
        f.text = "floor(P/2) x min(Lp x min(d x B_gpu, s x B), s x c x B) with Lp = "
                 + Str(z.leavesPerPod) + " leaves, s = " + Str(z.spinesPerPod)
                 + " spines per pod, d = " + Str(z.gpusPerLeaf) + ", c = " + Str(z.spineUplinks)
                 + " core links per spine: N B / (2 r_leaf r_spine) for even P, N B / 2 for the "
                   "k-ary fat-tree ("
                 + hostNote + ")";
        f.source = "Al-Fares et al., SIGCOMM 2008 (full bisection); FACTS.md 1.1, 1.2";
    }
    else if (spec.Is<RailOptimizedSpec>() || spec.Is<RailOnlySpec>())
    {
        const RailSizing z = ResolveRail(spec);
        const double railUp = std::min(z.serversPerSu * h, z.railUplinks * b);
        if (z.sus >= 2)
        {
            const uint64_t a = z.sus / 2;
            double su = z.gpusPerServer * railUp;
            if (z.spinesPerSu != 0)
            {
                su = std::min(su, static_cast<double>(z.spinesPerSu) * z.spineUplinks * b);
            }
            f.bps = a * su;
            f.split = "first " + Str(a) + " of " + Str(z.sus) + " SUs";
            f.sideA = FirstGpus(n, a * z.serversPerSu * z.gpusPerServer);
            f.text = "floor(SUs/2) x G x min(S x B_gpu, u x B)"
                     + std::string(z.spinesPerSu != 0 ? ", at most floor(SUs/2) x spines_per_su x "
                                                        "spine_uplinks x B"
                                                      : "")
                     + ": N B / (2 r) with r = S/u the rail-switch oversubscription (" + hostNote
                     + ")";
        }
        else if (z.nvlink || z.gpusPerServer == 1)
        {
            const uint64_t a = z.serversPerSu / 2;
            f.bps = a * z.gpusPerServer * h;
            f.split = "first " + Str(a) + " of " + Str(z.serversPerSu) + " servers";
            f.sideA = FirstGpus(n, a * z.gpusPerServer);
            f.text = "floor(S/2) x G x B_gpu: with whole servers on each side every rail switch "
                     "has as many GPUs on each side and carries the cut itself ("
                     + hostNote + ")";
        }
        else
        {
            const uint64_t a = z.gpusPerServer / 2;
            f.bps = a * railUp;
            f.split = "first " + Str(a) + " of " + Str(z.gpusPerServer) + " rails";
            f.sideA.assign(n, false);
            for (uint32_t gpu = 0; gpu < n; ++gpu)
            {
                f.sideA[gpu] = graph.GetNodes()[graph.GetGpuNode(gpu)].rail < a;
            }
            f.text = "floor(G/2) x min(S x B_gpu, u x B): without NVLink, rails meet only at "
                     "the spines ("
                     + hostNote + ")";
        }
        f.source = "FACTS.md 1.3 (DGX SuperPOD rail-optimized, 1:1 rail switches), 1.2 "
                   "(oversubscription), 1.4 (rail-only)";
    }
    else if (spec.Is<DragonflyPlusSpec>())
    {
        const DragonflyPlusSizing z = ResolveDragonflyPlus(spec);
        const uint64_t a = z.groups / 2;
        const uint64_t c = z.groups - a;
        const double group = z.leavesPerGroup * std::min(z.gpusPerLeaf * h, z.spinesPerGroup * b);
        f.bps = std::min(static_cast<double>(a * c * z.linksPerGroupPair) * b, a * group);
        f.split = "first " + Str(a) + " of " + Str(z.groups) + " groups";
        f.sideA = FirstGpus(n, a * z.leavesPerGroup * z.gpusPerLeaf);
        f.text = "min(a x b x m x B, a x l x min(p x B_gpu, s x B)) with a = floor(G/2), b = G - "
                 "a groups, m = "
                 + Str(z.linksPerGroupPair)
                 + " links per group pair: (G/2)^2 m B for even G, about N B / 4 at the balanced "
                   "maximum size ("
                 + hostNote + ")";
        f.source = "FACTS.md 1.5, 1.6 (Shpiner et al. 2017; derived: each group's global links "
                   "spread evenly over the other groups)";
    }
    else if (spec.Is<NvlinkDomainSpec>())
    {
        const NvlinkSizing nv = ResolveNvlink(spec, 0);
        const double perGpu = static_cast<double>(nv.perLink.rate.GetBitRate()) * nv.switches;
        const uint64_t a = n / 2;
        f.bps = a * perGpu;
        f.split = "first " + Str(a) + " of " + Str(n) + " GPUs";
        f.sideA = FirstGpus(n, a);
        f.text = "floor(G/2) x the per-GPU NVLink rate (the NVSwitches form a non-blocking star)";
        f.source = "FACTS.md 1.7";
    }
    else
    {
        f.has = false;
        f.split = "first " + Str(n / 2) + " of " + Str(n) + " GPUs";
        f.sideA = FirstGpus(n, n / 2);
        f.text = "no closed form for this kind";
    }
    return f;
}

/// \return the edge switch of GPU node \p node: the lowest-index switch of tier >= 1
/// adjacent to it or to its NIC; NONE if none
uint32_t
EdgeSwitch(const FabricGraph& g, uint32_t node)
{
    const auto& nodes = g.GetNodes();
    uint32_t best = FabricGraph::NONE;
    for (const auto& adj : g.GetAdjacency(node))
    {
        const auto& p = nodes[adj.peer];
        if (p.kind == FabricGraph::NodeKind::SWITCH && p.tier >= 1)
        {
            best = std::min(best, adj.peer);
        }
        else if (p.kind == FabricGraph::NodeKind::NIC)
        {
            for (const auto& adj2 : g.GetAdjacency(adj.peer))
            {
                const auto& q = nodes[adj2.peer];
                if (q.kind == FabricGraph::NodeKind::SWITCH && q.tier >= 1)
                {
                    best = std::min(best, adj2.peer);
                }
            }
        }
    }
    return best;
}

/**
 * \brief Side A = floor(N/2) GPUs, taken unit by unit in \p order, the last unit cut
 * to exact balance (its GPUs in index order).
 * \param units per unit, its GPUs in index order
 * \param order the unit order
 * \param gpus N
 * \return per GPU: side A
 */
std::vector<bool>
FillSplit(const std::vector<std::vector<uint32_t>>& units,
          const std::vector<uint32_t>& order,
          uint32_t gpus)
{
    std::vector<bool> a(gpus, false);
    uint32_t taken = 0;
    const uint32_t target = gpus / 2;
    for (const uint32_t u : order)
    {
        for (const uint32_t gpu : units[u])
        {
            if (taken == target)
            {
                return a;
            }
            a[gpu] = true;
            ++taken;
        }
    }
    return a;
}

/**
 * \param x a value
 * \param y another
 * \param tolerance relative tolerance
 * \return true if they differ by at most tolerance x the larger magnitude (at least 1)
 */
bool
Agree(double x, double y, double tolerance)
{
    return std::fabs(x - y) <= tolerance * std::max({std::fabs(x), std::fabs(y), 1.0});
}

} // namespace

double
SplitMaxFlowBps(const FabricGraph& graph, const std::vector<bool>& sideA)
{
    FlowNetwork net(graph);
    return net.Run(sideA);
}

BisectionSplit
FormulaBisectionSplit(const FabricGraph& graph, const TopologySpec& spec)
{
    Formula f = FormulaOf(graph, spec);
    BisectionSplit s;
    s.hasFormula = f.has;
    s.formulaBps = f.bps;
    s.split = f.split;
    s.sideA = std::move(f.sideA);
    return s;
}

TopologyReport
AnalyzeTopology(const FabricGraph& graph, const TopologySpec& spec)
{
    return AnalyzeTopology(graph, spec, TopologyAnalyzerOptions{});
}

TopologyReport
AnalyzeTopology(const FabricGraph& graph,
                const TopologySpec& spec,
                const TopologyAnalyzerOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    const auto& nodes = graph.GetNodes();
    const auto& links = graph.GetLinks();
    const auto& profiles = graph.GetProfiles();
    const uint32_t n = graph.GetGpuCount();

    TopologyReport r;
    r.name = spec.name;
    r.kind = spec.Kind();
    r.gpus = n;
    r.nics = graph.GetNicCount();
    r.switches = graph.GetSwitchCount();
    r.links = links.size();

    // ---- counts per tier and per link class
    std::set<uint32_t> servers;
    std::map<uint32_t, uint32_t> perTier;
    for (const auto& node : nodes)
    {
        if (node.kind == FabricGraph::NodeKind::SWITCH)
        {
            ++perTier[node.tier];
        }
        if (node.kind == FabricGraph::NodeKind::GPU && node.server != FabricGraph::NONE)
        {
            servers.insert(node.server);
        }
    }
    r.servers = servers.size();
    for (const auto& [tier, count] : perTier)
    {
        r.switchTiers.push_back({tier, graph.GetTierName(tier), count});
    }
    std::map<std::tuple<std::string, std::string, std::string, uint64_t>, uint64_t> classes;
    for (const auto& l : links)
    {
        const LinkProfile& p = profiles[l.profile];
        ++classes[{EndsName(nodes[l.a], nodes[l.b]), p.technology, p.name, p.rate.GetBitRate()}];
    }
    for (const auto& [key, count] : classes)
    {
        TopologyReport::LinkClass c;
        std::tie(c.ends, c.technology, c.profile, std::ignore) = key;
        c.rateBps = static_cast<double>(std::get<3>(key));
        c.count = count;
        r.linkClasses.push_back(c);
    }

    // ---- oversubscription per switch tier
    std::map<uint32_t, TopologyReport::TierOversubscription> over;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        const auto& node = nodes[i];
        if (node.kind != FabricGraph::NodeKind::SWITCH)
        {
            continue;
        }
        double down = 0;
        double up = 0;
        for (const auto& adj : graph.GetAdjacency(i))
        {
            const auto& peer = nodes[adj.peer];
            const double rate = profiles[links[adj.link].profile].rate.GetBitRate();
            if (peer.kind == FabricGraph::NodeKind::SWITCH && peer.tier >= node.tier)
            {
                up += rate;
            }
            else
            {
                down += rate;
            }
        }
        if (up <= 0)
        {
            continue;
        }
        const double ratio = down / up;
        auto it = over.find(node.tier);
        if (it == over.end())
        {
            TopologyReport::TierOversubscription o;
            o.tier = node.tier;
            o.name = graph.GetTierName(node.tier);
            o.downBps = down;
            o.upBps = up;
            o.minRatio = ratio;
            o.maxRatio = ratio;
            it = over.emplace(node.tier, o).first;
        }
        ++it->second.switches;
        it->second.minRatio = std::min(it->second.minRatio, ratio);
        it->second.maxRatio = std::max(it->second.maxRatio, ratio);
    }
    for (const auto& [tier, o] : over)
    {
        r.oversubscription.push_back(o);
    }

    // ---- diameter and equal-cost shortest paths, from (a sample of) the GPUs
    std::mt19937_64 rng(options.seed);
    std::vector<uint32_t> sources(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        sources[i] = i;
    }
    if (options.maxPathSources > 0 && n > options.maxPathSources)
    {
        // Partial Fisher-Yates with the engine's raw output (portable, unlike
        // std::uniform_int_distribution).
        for (uint32_t i = 0; i < options.maxPathSources; ++i)
        {
            const uint32_t j = i + static_cast<uint32_t>(rng() % (n - i));
            std::swap(sources[i], sources[j]);
        }
        sources.resize(options.maxPathSources);
        std::sort(sources.begin(), sources.end());
        r.paths.sampled = true;
    }
    r.paths.sources = sources.size();
    {
        std::vector<uint32_t> dist(nodes.size());
        std::vector<double> count(nodes.size());
        std::deque<uint32_t> frontier;
        double sum = 0;
        uint64_t direct = 0;
        r.paths.minPaths = 0;
        for (const uint32_t srcGpu : sources)
        {
            const uint32_t src = graph.GetGpuNode(srcGpu);
            std::fill(dist.begin(), dist.end(), UINT32_MAX);
            std::fill(count.begin(), count.end(), 0.0);
            dist[src] = 0;
            count[src] = 1;
            frontier.assign(1, src);
            while (!frontier.empty())
            {
                const uint32_t v = frontier.front();
                frontier.pop_front();
                if (v != src && !graph.IsTransit(v))
                {
                    continue; // GPUs do not forward
                }
                for (const auto& adj : graph.GetAdjacency(v))
                {
                    if (dist[adj.peer] == UINT32_MAX)
                    {
                        dist[adj.peer] = dist[v] + 1;
                        frontier.push_back(adj.peer);
                    }
                    if (dist[adj.peer] == dist[v] + 1)
                    {
                        count[adj.peer] += count[v];
                    }
                }
            }
            std::vector<uint32_t> relay;
            for (uint32_t dstGpu = 0; dstGpu < n; ++dstGpu)
            {
                if (dstGpu == srcGpu)
                {
                    continue;
                }
                ++r.paths.pairs;
                const uint32_t dst = graph.GetGpuNode(dstGpu);
                if (dist[dst] != UINT32_MAX)
                {
                    r.paths.diameterHops = std::max(r.paths.diameterHops, dist[dst]);
                    const double c = count[dst];
                    r.paths.minPaths = direct == 0 ? c : std::min(r.paths.minPaths, c);
                    r.paths.maxPaths = std::max(r.paths.maxPaths, c);
                    sum += c;
                    ++direct;
                    continue;
                }
                if (relay.empty())
                {
                    relay = graph.RelayDistancesTo(src);
                }
                if (relay[dst] != UINT32_MAX)
                {
                    ++r.paths.relayPairs;
                    r.paths.diameterHops = std::max(r.paths.diameterHops, relay[dst]);
                }
                else
                {
                    ++r.paths.unreachablePairs;
                }
            }
        }
        r.paths.meanPaths = direct > 0 ? sum / direct : 0;
    }

    // ---- bisection: formula, max-flow on its split, worst balanced split found
    Formula f = FormulaOf(graph, spec);
    auto& bi = r.bisection;
    bi.hasFormula = f.has;
    bi.formulaBps = f.bps;
    bi.formula = f.text;
    bi.source = f.source;
    bi.split = f.split;
    bi.sideA = std::count(f.sideA.begin(), f.sideA.end(), true);
    bi.sideB = n - bi.sideA;
    FlowNetwork net(graph);
    bi.maxFlowBps = net.Run(f.sideA);
    bi.formulaAgrees = !f.has || Agree(f.bps, bi.maxFlowBps, options.tolerance);
    {
        // Full bisection: the smaller half's GPUs at their scale-out line rate (NIC link,
        // or the slower of host link and NIC link; all NVLink links if a GPU has no NIC).
        std::vector<double> inject(n, 0);
        for (uint32_t gpu = 0; gpu < n; ++gpu)
        {
            const uint32_t link = graph.GetGpuNicLink(gpu);
            if (link == FabricGraph::NONE)
            {
                for (const auto& adj : graph.GetAdjacency(graph.GetGpuNode(gpu)))
                {
                    inject[gpu] += profiles[links[adj.link].profile].rate.GetBitRate();
                }
                continue;
            }
            double rate = profiles[links[link].profile].rate.GetBitRate();
            if (links[link].kind == FabricGraph::LinkKind::HOST)
            {
                const uint32_t nic
                    = links[link].a == graph.GetGpuNode(gpu) ? links[link].b : links[link].a;
                for (const auto& adj : graph.GetAdjacency(nic))
                {
                    if (adj.link != link)
                    {
                        rate = std::min(rate,
                                        static_cast<double>(
                                            profiles[links[adj.link].profile].rate.GetBitRate()));
                    }
                }
            }
            inject[gpu] = rate;
        }
        std::sort(inject.begin(), inject.end());
        for (uint32_t i = 0; i < n / 2; ++i)
        {
            bi.fullBps += inject[i];
        }
    }
    if (spec.Is<DragonflyPlusSpec>())
    {
        const DragonflyPlusSizing z = ResolveDragonflyPlus(spec);
        bi.missionF15Bps = static_cast<double>(z.groups) * z.spinesPerGroup * z.globalLinksPerSpine
                           * spec.link.rate.GetBitRate();
    }

    // Worst balanced split: structured and seeded-random orders of the units of every
    // grouping level the graph records.
    bi.method = "max-flow over balanced splits (side A = floor(N/2) GPUs) of the units of each "
                "grouping level (GPUs, servers, rails, edge switches, groups): first half, "
                "alternate units, and "
                + Str(options.randomSplits) + " random unit orders (std::mt19937_64, seed "
                + Str(options.seed)
                + "), the last unit cut to exact balance; plus the formula's split if balanced";
    std::set<std::vector<bool>> tried;
    bi.worstBps = -1;
    auto evaluate = [&](const std::vector<bool>& a, const std::string& what) {
        if (!tried.insert(a).second)
        {
            return;
        }
        const double flow = net.Run(a);
        if (bi.worstBps < 0 || flow < bi.worstBps)
        {
            bi.worstBps = flow;
            bi.worstSplit = what;
        }
    };
    if (n >= 2)
    {
        if (bi.sideA == n / 2)
        {
            evaluate(f.sideA, "the formula's split: " + f.split);
        }

        struct Level
        {
            std::string name;
            std::vector<uint32_t> key;
        };

        std::vector<Level> levels(5);
        levels[0].name = "GPUs";
        levels[1].name = "servers";
        levels[2].name = "rails";
        levels[3].name = "edge switches";
        levels[4].name = "groups";
        for (uint32_t gpu = 0; gpu < n; ++gpu)
        {
            const uint32_t node = graph.GetGpuNode(gpu);
            levels[0].key.push_back(gpu);
            levels[1].key.push_back(nodes[node].server);
            levels[2].key.push_back(nodes[node].rail);
            levels[3].key.push_back(EdgeSwitch(graph, node));
            levels[4].key.push_back(nodes[node].group);
        }
        for (const auto& level : levels)
        {
            if (std::find(level.key.begin(), level.key.end(), FabricGraph::NONE) != level.key.end())
            {
                continue; // not recorded for every GPU
            }
            std::map<uint32_t, uint32_t> unitOf;
            std::vector<std::vector<uint32_t>> units;
            for (uint32_t gpu = 0; gpu < n; ++gpu)
            {
                auto it = unitOf.find(level.key[gpu]);
                if (it == unitOf.end())
                {
                    it = unitOf.emplace(level.key[gpu], units.size()).first;
                    units.emplace_back();
                }
                units[it->second].push_back(gpu);
            }
            // Units in key order.
            std::vector<std::vector<uint32_t>> sorted;
            sorted.reserve(units.size());
            for (const auto& [key, index] : unitOf)
            {
                sorted.push_back(units[index]);
            }
            const uint32_t count = sorted.size();
            if (count < 2)
            {
                continue;
            }
            std::vector<uint32_t> order(count);
            for (uint32_t i = 0; i < count; ++i)
            {
                order[i] = i;
            }
            const std::string of = " of " + Str(count) + " " + level.name;
            evaluate(FillSplit(sorted, order, n), "first half" + of);
            std::vector<uint32_t> alternate;
            for (uint32_t i = 0; i < count; i += 2)
            {
                alternate.push_back(i);
            }
            for (uint32_t i = 1; i < count; i += 2)
            {
                alternate.push_back(i);
            }
            evaluate(FillSplit(sorted, alternate, n), "alternate" + of);
            for (uint32_t k = 0; k < options.randomSplits; ++k)
            {
                for (uint32_t i = count - 1; i > 0; --i)
                {
                    const uint32_t j = static_cast<uint32_t>(rng() % (i + 1));
                    std::swap(order[i], order[j]);
                }
                evaluate(FillSplit(sorted, order, n), "random order #" + Str(k + 1) + of);
            }
        }
    }
    bi.splitsTried = tried.size();
    if (bi.worstBps < 0)
    {
        bi.worstBps = 0;
    }
    bi.worstBelowFormula
        = f.has && bi.worstBps < f.bps && !Agree(bi.worstBps, f.bps, options.tolerance);
    r.analysisSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

} // namespace ns3
