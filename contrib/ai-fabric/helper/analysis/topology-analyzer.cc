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
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <numeric>
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

/// \return a node's height in the fabric: a GPU 0, a NIC node 1, a switch its tier + 1
/// (an NVSwitch 1, a leaf 2, ...)
uint32_t
Height(const FabricGraph::Node& n)
{
    switch (n.kind)
    {
        case FabricGraph::NodeKind::GPU:
            return 0;
        case FabricGraph::NodeKind::NIC:
            return 1;
        case FabricGraph::NodeKind::SWITCH:
            break;
    }
    return n.tier + 1;
}

/**
 * \param graph the fabric
 * \return per GPU, its scale-out injection rate in bits per second (GpuInjectionBps())
 */
std::vector<uint64_t>
GpuInjection(const FabricGraph& graph)
{
    const auto& links = graph.GetLinks();
    const auto& profiles = graph.GetProfiles();
    std::vector<uint64_t> inject(graph.GetGpuCount(), 0);
    for (uint32_t gpu = 0; gpu < inject.size(); ++gpu)
    {
        const uint32_t node = graph.GetGpuNode(gpu);
        const uint32_t link = graph.GetGpuNicLink(gpu);
        if (link == FabricGraph::NONE)
        {
            for (const auto& adj : graph.GetAdjacency(node))
            {
                inject[gpu] += profiles[links[adj.link].profile].rate.GetBitRate();
            }
            continue;
        }
        uint64_t rate = profiles[links[link].profile].rate.GetBitRate();
        if (links[link].kind == FabricGraph::LinkKind::HOST)
        {
            const uint32_t nic = links[link].a == node ? links[link].b : links[link].a;
            for (const auto& adj : graph.GetAdjacency(nic))
            {
                if (adj.link != link)
                {
                    rate = std::min(rate, profiles[links[adj.link].profile].rate.GetBitRate());
                }
            }
        }
        inject[gpu] = rate;
    }
    return inject;
}

/**
 * \brief The FabricGraph as a Boost flow network, built once and re-run per split.
 *
 * Every full-duplex link of rate R becomes two arcs of capacity R (one per
 * direction), each with a zero-capacity reverse arc. A super-source has an arc to
 * every GPU and every GPU an arc to a super-sink; a split sets those arcs to the
 * GPU's scale-out injection rate on its side and to 0 on the other. GPUs keep their
 * link arcs, so they may relay (PXN over NVLink).
 *
 * Ranked (SplitMinCut()): capacities in units of the rates' greatest common divisor c,
 * each arc weighted c (K + depth), depth = the top height - the lower height of its ends
 * (source and sink arcs: the top height + 1), K = the sum of c x depth over all arcs + 1.
 * A minimum cut of the weighted network is then a minimum cut of the plain one (K exceeds
 * any depth term) with the least capacity x depth.
 */
class FlowNetwork
{
  public:
    /**
     * \param graph the fabric
     * \param rankUnit 0 for the plain network; else weight the arcs by depth, capacities in
     *        this many bits per second (rounded; IsRanked() is false if that could overflow)
     */
    FlowNetwork(const FabricGraph& graph, uint64_t rankUnit = 0)
        : m_graph(graph.GetNodes().size() + 2)
        , m_fabric(graph)
    {
        const auto& nodes = graph.GetNodes();
        const auto& links = graph.GetLinks();
        const auto& profiles = graph.GetProfiles();
        const std::vector<uint64_t> inject = GpuInjection(graph);
        const std::size_t n = nodes.size();
        m_source = n;
        m_sink = n + 1;
        uint32_t top = 0;
        for (const auto& node : nodes)
        {
            top = std::max(top, Height(node));
        }
        std::vector<uint64_t> rate(links.size());
        std::vector<uint64_t> depth(links.size());
        for (std::size_t i = 0; i < links.size(); ++i)
        {
            rate[i] = profiles[links[i].profile].rate.GetBitRate();
            depth[i] = top - std::min(Height(nodes[links[i].a]), Height(nodes[links[i].b]));
        }
        const uint64_t endDepth = top + 1;
        // Bits per second, unless the total (every flow's sum, twice per link) could
        // overflow a signed 64-bit count: then the smallest power of 1000 that keeps it below
        // 10^18 (a fabric of 100 Tb/s links with 1,100 GPUs overflowed with kb/s).
        long double total = 0;
        for (const uint64_t r : rate)
        {
            total += 2.0L * r;
        }
        for (const uint64_t r : inject)
        {
            total += 2.0L * r;
        }
        m_unit = 1;
        while (total / m_unit > 1e18L)
        {
            m_unit *= 1000;
        }
        auto units = [rankUnit](uint64_t bps) {
            return static_cast<uint64_t>(std::llround(static_cast<long double>(bps) / rankUnit));
        };
        if (rankUnit > 0)
        {
            long double k = 1;
            long double weighted = 0;
            for (std::size_t i = 0; i < links.size(); ++i)
            {
                k += 2.0L * units(rate[i]) * depth[i];
                weighted += 2.0L * units(rate[i]);
            }
            for (const uint64_t r : inject)
            {
                k += 2.0L * units(r) * endDepth;
                weighted += 2.0L * units(r);
            }
            // every arc's weighted capacity summed: weighted x K + (K - 1) < 10^18
            if (weighted * k + k <= 1e18L)
            {
                m_ranked = true;
                m_unit = rankUnit;
                m_k = static_cast<Capacity>(k);
            }
        }
        auto capacity = [&](uint64_t bps, uint64_t arcDepth) -> Capacity {
            if (!m_ranked)
            {
                return static_cast<Capacity>(bps / m_unit);
            }
            return static_cast<Capacity>(units(bps)) * (m_k + static_cast<Capacity>(arcDepth));
        };
        for (std::size_t i = 0; i < links.size(); ++i)
        {
            const Capacity c = capacity(rate[i], depth[i]);
            AddArc(links[i].a, links[i].b, c);
            AddArc(links[i].b, links[i].a, c);
        }
        for (uint32_t gpu = 0; gpu < graph.GetGpuCount(); ++gpu)
        {
            const uint32_t node = graph.GetGpuNode(gpu);
            m_gpuCap.push_back(capacity(inject[gpu], endDepth));
            m_fromSource.push_back(AddArc(m_source, node, 0));
            m_toSink.push_back(AddArc(node, m_sink, 0));
        }
    }

    /// \return true if the arcs are weighted by depth
    bool IsRanked() const
    {
        return m_ranked;
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
        const Capacity plain = m_ranked ? flow / m_k : flow;
        return static_cast<double>(plain) * static_cast<double>(m_unit);
    }

    /**
     * \brief Run() and the source side's minimum cut of the residual network.
     * \param sideA per GPU: true for side A
     * \return the cut (SplitMinCut())
     */
    SplitCut Cut(const std::vector<bool>& sideA)
    {
        SplitCut cut;
        cut.maxFlowBps = Run(sideA);
        cut.deepest = m_ranked;
        auto residual = boost::get(boost::edge_residual_capacity, m_graph);
        std::vector<bool> reached(boost::num_vertices(m_graph), false);
        std::deque<std::size_t> frontier{m_source};
        reached[m_source] = true;
        while (!frontier.empty())
        {
            const std::size_t v = frontier.front();
            frontier.pop_front();
            for (auto [e, end] = boost::out_edges(v, m_graph); e != end; ++e)
            {
                const std::size_t w = boost::target(*e, m_graph);
                if (!reached[w] && residual[*e] > 0)
                {
                    reached[w] = true;
                    frontier.push_back(w);
                }
            }
        }
        const auto& links = m_fabric.GetLinks();
        const auto& profiles = m_fabric.GetProfiles();
        for (std::size_t i = 0; i < links.size(); ++i)
        {
            for (const uint32_t from : {links[i].a, links[i].b})
            {
                const uint32_t to = from == links[i].a ? links[i].b : links[i].a;
                if (reached[from] && !reached[to])
                {
                    CutArc arc;
                    arc.link = i;
                    arc.from = from;
                    arc.bps = static_cast<double>(profiles[links[i].profile].rate.GetBitRate());
                    cut.arcs.push_back(arc);
                }
            }
        }
        const std::vector<uint64_t> inject = GpuInjection(m_fabric);
        for (uint32_t gpu = 0; gpu < sideA.size(); ++gpu)
        {
            const bool in = reached[m_fabric.GetGpuNode(gpu)];
            if (sideA[gpu] != in)
            {
                CutArc arc;
                arc.kind = sideA[gpu] ? CutArc::Kind::INJECTION : CutArc::Kind::EJECTION;
                arc.gpu = gpu;
                arc.bps = static_cast<double>(inject[gpu]);
                cut.arcs.push_back(arc);
            }
        }
        return cut;
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
    const FabricGraph& m_fabric;        //!< the fabric it was built from
    std::size_t m_source{0};            //!< super-source vertex
    std::size_t m_sink{0};              //!< super-sink vertex
    uint64_t m_unit{1};                 //!< bits per second per capacity unit
    bool m_ranked{false};               //!< arcs weighted by depth (capacities x (K + depth))
    Capacity m_k{1};                    //!< ranked: K
    std::vector<Capacity> m_gpuCap;     //!< per GPU: its injection, in capacity units
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

/// \return "gpu", "nic" or the switch tier's name ("leaf", "spine", "rail", "tier<N>")
std::string
CutEndName(const FabricGraph& graph, const FabricGraph::Node& n)
{
    return n.kind == FabricGraph::NodeKind::SWITCH ? graph.GetTierName(n.tier) : EndName(n);
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
 * \brief One level of a fabric seen as nested units (pods of leaves of GPUs, ...): `count`
 * units in each unit of the level above, each joined to the switches of that unit (its hub:
 * a leaf, a pod's spines, the spine tier) by `upBps`. The last level is the GPUs, `upBps`
 * their injection rate B_gpu.
 */
struct Nest
{
    uint64_t count;   //!< units per unit of the level above
    double upBps;     //!< one unit's capacity to that unit's hub, one direction (infinity: none)
    std::string many; //!< plural name ("leaves")
    std::string one;  //!< singular name ("leaf")
};

/// What a unit contributes to a cut, with its hub on side A's side of the cut (s) or side B's
/// (t), when side A holds the first floor(n/2) of its n GPUs.
struct HubCut
{
    double s; //!< its hub on the source side
    double t; //!< its hub on the sink side
};

/**
 * \param levels the nesting, top first
 * \param d a level
 * \return what cutting one whole unit of level d off its parent's hub costs: min(its up
 *         capacity, its children's)
 */
double
WholeUnitCut(const std::vector<Nest>& levels, std::size_t d)
{
    if (d + 1 == levels.size())
    {
        return levels[d].upBps;
    }
    return std::min(levels[d].upBps,
                    static_cast<double>(levels[d + 1].count) * WholeUnitCut(levels, d + 1));
}

/**
 * \brief The minimum cut of a hub tree split in half (side A = the first floor(n/2) GPUs):
 * floor(k/2) children wholly on each side, each cut off at min(its up link, its own
 * children), and for odd k the middle child split the same way one level down, its hub on
 * whichever side costs less (exact for a tree of hubs; FACTS.md 1.2's N B / (2 r) for even
 * counts).
 * \param levels the nesting, top first
 * \param d the level of the unit's children
 * \return its contribution with its hub on either side
 */
HubCut
HalfUnitCut(const std::vector<Nest>& levels, std::size_t d)
{
    const uint64_t k = levels[d].count;
    const double whole = WholeUnitCut(levels, d);
    const double a = static_cast<double>(k / 2);
    HubCut c{a * whole, a * whole};
    if (k % 2 == 1)
    {
        if (d + 1 == levels.size())
        {
            c.s += whole; // the middle GPU is side B's
        }
        else
        {
            const HubCut m = HalfUnitCut(levels, d + 1);
            c.t += std::min(m.t, m.s + levels[d].upBps);
            c.s += std::min(m.s, m.t + levels[d].upBps);
        }
    }
    return c;
}

/// \param levels the nesting, top first \return the bisection of the half split, bits/s
double
HalfSplitBps(const std::vector<Nest>& levels)
{
    const HubCut c = HalfUnitCut(levels, 0);
    return std::min(c.s, c.t);
}

/// \param levels the nesting, top first \return true if the half split cuts a unit
bool
SplitsAUnit(const std::vector<Nest>& levels)
{
    return levels.size() > 1 && levels[0].count % 2 == 1;
}

/**
 * \param levels the nesting, top first
 * \return the half split in words: "first 2 of 4 leaves", "first 1 of 3 leaves + 4 of the 8
 *         GPUs of the next leaf", "first 4 of 8 GPUs of the single leaf"
 */
std::string
HalfSplitWords(const std::vector<Nest>& levels)
{
    std::string out;
    std::string of;
    for (std::size_t d = 0; d < levels.size(); ++d)
    {
        const uint64_t k = levels[d].count;
        if (k > 1 || d + 1 == levels.size())
        {
            out += (out.empty() ? "first " : " + ") + std::to_string(k / 2) + " of "
                   + (out.empty() ? "" : "the ") + std::to_string(k) + " " + levels[d].many + of;
        }
        if (k % 2 == 0)
        {
            break;
        }
        of = " of the " + std::string(k == 1 ? "single " : "next ") + levels[d].one;
    }
    return out;
}

/// Text added to a formula when its split cuts a unit in two.
const char* const SPLIT_UNIT_NOTE
    = "; side A is floor(N/2) GPUs: an odd count splits the middle unit, which adds its own "
      "bisection by the same rule one level down";

/**
 * \param graph the fabric
 * \param spec the topology
 * \return the family's closed form and its split: side A = the first floor(N/2) GPUs in the
 *         family's unit order (leaves, pods, SUs, groups; rails first for rail-optimized
 *         without NVLink), so it is balanced for any count
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
    constexpr double NO_LIMIT = std::numeric_limits<double>::infinity();
    f.has = true;
    f.sideA = FirstGpus(n, n / 2);
    std::vector<Nest> levels;
    if (spec.Is<SingleSwitchSpec>())
    {
        levels = {{n, h, "GPUs", "GPU"}};
        f.text = "floor(N/2) x B_gpu (one non-blocking switch; " + hostNote + ")";
        f.source = "a crossbar carries any permutation of its ports";
    }
    else if (spec.Is<LeafSpineSpec>())
    {
        const LeafSpineSizing z = ResolveLeafSpine(spec);
        levels = {{z.leaves, z.uplinks * b, "leaves", "leaf"}, {z.gpusPerLeaf, h, "GPUs", "GPU"}};
        f.text = "floor(L/2) x min(d x B_gpu, u x B), d = " + Str(z.gpusPerLeaf)
                 + " GPUs and u = " + Str(z.uplinks) + " uplinks per leaf (+ floor(d/2) x B_gpu "
                 + "for odd L: the middle leaf's halves meet in the leaf): N B / (2 r) with r = "
                 + "d/u >= 1 and L even (" + hostNote + ")";
        f.source = "FACTS.md 1.2 (oversubscription as in htsim; N B / (2 r))";
    }
    else if (spec.Is<FatTreeSpec>())
    {
        const FatTreeSizing z = ResolveFatTree(spec);
        levels = {{z.pods, static_cast<double>(z.spinesPerPod) * z.spineUplinks * b, "pods", "pod"},
                  {z.leavesPerPod, z.spinesPerPod * b, "leaves", "leaf"},
                  {z.gpusPerLeaf, h, "GPUs", "GPU"}};
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
        // An SU's capacity to the rest: its rail switches' uplinks, at most its SU spines'.
        double suUp = static_cast<double>(z.gpusPerServer) * z.railUplinks * b;
        if (z.spinesPerSu != 0)
        {
            suUp = std::min(suUp, static_cast<double>(z.spinesPerSu) * z.spineUplinks * b);
        }
        if (z.nvlink)
        {
            // Whole servers: every rail switch has its half on each side and carries the cut
            // itself; a split server's halves meet over NVLink.
            levels = {{z.serversPerSu, NO_LIMIT, "servers", "server"},
                      {z.gpusPerServer, h, "GPUs", "GPU"}};
            f.text = "floor(SUs/2) x G x min(S x B_gpu, u x B)"
                     + std::string(z.spinesPerSu != 0 ? " (at most spines_per_su x spine_uplinks "
                                                        "x B per SU)"
                                                      : "")
                     + " (+ floor(N_SU/2) x B_gpu for an odd count of SUs: the middle SU's halves "
                       "meet in its rail switches and over NVLink): N B / (2 r) with r = S/u; one "
                       "SU: floor(N/2) x B_gpu ("
                     + hostNote + ")";
        }
        else
        {
            // Without NVLink the rails meet only at the spines: side A takes whole rails.
            suUp = z.spinesPerSu != 0 ? static_cast<double>(z.spinesPerSu) * z.spineUplinks * b
                                      : NO_LIMIT;
            levels = {{z.gpusPerServer, z.railUplinks * b, "rails", "rail"},
                      {z.serversPerSu, h, "GPUs", "GPU"}};
            std::vector<uint32_t> order(n);
            std::iota(order.begin(), order.end(), 0);
            const uint64_t perSu = static_cast<uint64_t>(z.serversPerSu) * z.gpusPerServer;
            auto key = [&](uint32_t gpu) {
                return std::make_tuple(gpu / perSu, gpu % z.gpusPerServer, gpu / z.gpusPerServer);
            };
            std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
                return key(x) < key(y);
            });
            f.sideA.assign(n, false);
            for (uint32_t i = 0; i < n / 2; ++i)
            {
                f.sideA[order[i]] = true;
            }
            f.text = "floor(SUs x G / 2) x min(S x B_gpu, u x B)"
                     + std::string(z.spinesPerSu != 0 ? " (at most spines_per_su x spine_uplinks "
                                                        "x B per SU)"
                                                      : "")
                     + ": without NVLink the rails meet only at the spines, so side A takes whole "
                       "rails (rail switches), SU by SU; N B / (2 r) with r = S/u ("
                     + hostNote + ")";
        }
        if (z.sus > 1)
        {
            // SUs above (one SU adds nothing: its half split is the level below's)
            levels.insert(levels.begin(), Nest{z.sus, suUp, "SUs", "SU"});
        }
        f.source = "FACTS.md 1.3 (DGX SuperPOD rail-optimized, 1:1 rail switches), 1.2 "
                   "(oversubscription), 1.4 (rail-only)";
    }
    else if (spec.Is<DragonflyPlusSpec>())
    {
        const DragonflyPlusSizing z = ResolveDragonflyPlus(spec);
        levels = {{z.groups, NO_LIMIT, "groups", "group"},
                  {z.leavesPerGroup, z.spinesPerGroup * b, "leaves", "leaf"},
                  {z.gpusPerLeaf, h, "GPUs", "GPU"}};
        f.source = "FACTS.md 1.5, 1.6 (Shpiner et al. 2017; derived: each group's global links "
                   "spread evenly over the other groups)";
        if (z.groups % 2 == 1)
        {
            // The split middle group's spines serve both its halves and each reaches its
            // own groups: a cut may put them on different sides, by the global wiring.
            f.has = false;
            f.text = "no closed form for an odd number of groups: the split group's spines may "
                     "fall on either side of the cut, depending on which groups their global "
                     "links reach (the max-flow is exact)";
        }
        else
        {
            // Whole groups: all of one side's groups cut at their global links, or the
            // smaller side's groups cut inside (a min-cut of a bilinear cost is at a corner).
            const uint64_t a = z.groups / 2;
            const double whole
                = z.leavesPerGroup * std::min(z.gpusPerLeaf * h, z.spinesPerGroup * b);
            f.bps = std::min(static_cast<double>(a * a * z.linksPerGroupPair) * b, a * whole);
            f.text = "min(a x b x m x B, a x l x min(p x B_gpu, s x B)) with a = b = G/2 groups, "
                     "m = "
                     + Str(z.linksPerGroupPair)
                     + " links per group pair: (G/2)^2 m B, about N B / 4 at the balanced "
                       "maximum size ("
                     + hostNote + ")";
        }
    }
    else if (spec.Is<NvlinkDomainSpec>())
    {
        const NvlinkSizing nv = ResolveNvlink(spec, 0);
        const double perGpu = static_cast<double>(nv.perLink.rate.GetBitRate()) * nv.switches;
        levels = {{n, perGpu, "GPUs", "GPU"}};
        f.text = "floor(G/2) x the per-GPU NVLink rate (the NVSwitches form a non-blocking star)";
        f.source = "FACTS.md 1.7";
    }
    else
    {
        f.has = false;
        f.split = "first " + Str(n / 2) + " of " + Str(n) + " GPUs";
        f.text = "no closed form for this kind";
        return f;
    }
    if (!spec.Is<DragonflyPlusSpec>())
    {
        f.bps = HalfSplitBps(levels);
    }
    f.split = HalfSplitWords(levels);
    if (f.has && SplitsAUnit(levels))
    {
        f.text += SPLIT_UNIT_NOTE;
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

std::string
DescribeSplitCut(const FabricGraph& graph, const SplitCut& cut)
{
    const auto& nodes = graph.GetNodes();
    const auto& links = graph.GetLinks();
    std::map<std::string, uint64_t> classes;
    uint64_t injections = 0;
    uint64_t ejections = 0;
    for (const CutArc& arc : cut.arcs)
    {
        if (arc.kind == CutArc::Kind::LINK)
        {
            const auto& l = links[arc.link];
            const uint32_t to = arc.from == l.a ? l.b : l.a;
            // By the generator's tier names ("leaf->spine", "rail->spine"); Dragonfly+'s
            // links between groups are "global".
            const auto& x = nodes[arc.from];
            const auto& y = nodes[to];
            const bool global = x.group != FabricGraph::NONE && y.group != FabricGraph::NONE
                                && x.group != y.group;
            ++classes[(global ? "global " : "") + CutEndName(graph, x) + "->"
                      + CutEndName(graph, y)];
        }
        else
        {
            ++(arc.kind == CutArc::Kind::INJECTION ? injections : ejections);
        }
    }
    std::string out;
    for (const auto& [ends, count] : classes)
    {
        out += (out.empty() ? "" : " + ") + Str(count) + " " + ends
               + (count == 1 ? " link" : " links");
    }
    if (injections > 0)
    {
        out += (out.empty() ? "" : " + ") + Str(injections) + " GPU injection"
               + (injections == 1 ? "" : "s");
    }
    if (ejections > 0)
    {
        out += (out.empty() ? "" : " + ") + Str(ejections) + " GPU ejection"
               + (ejections == 1 ? "" : "s");
    }
    return out.empty() ? "none" : out;
}

std::vector<double>
GpuInjectionBps(const FabricGraph& graph)
{
    const std::vector<uint64_t> inject = GpuInjection(graph);
    return std::vector<double>(inject.begin(), inject.end());
}

SplitCut
SplitMinCut(const FabricGraph& graph, const std::vector<bool>& sideA)
{
    FlowNetwork plain(graph);
    SplitCut cut = plain.Cut(sideA);
    cut.deepest = false;
    // Rank the minimum cuts in units of the rates' greatest common divisor (exact), or, if
    // that could overflow, of kb/s, Mb/s or Gb/s (rounded): a ranked cut counts only if its
    // exact capacity is the max-flow.
    const auto& links = graph.GetLinks();
    const auto& profiles = graph.GetProfiles();
    uint64_t g = 0;
    for (const auto& l : links)
    {
        g = std::gcd(g, profiles[l.profile].rate.GetBitRate());
    }
    for (const uint64_t r : GpuInjection(graph))
    {
        g = std::gcd(g, r);
    }
    for (const uint64_t unit :
         {std::max<uint64_t>(g, 1), uint64_t{1000}, uint64_t{1000000}, uint64_t{1000000000}})
    {
        if (unit < g)
        {
            continue;
        }
        FlowNetwork ranked(graph, unit);
        if (!ranked.IsRanked())
        {
            continue;
        }
        SplitCut deep = ranked.Cut(sideA);
        double sum = 0;
        for (const CutArc& arc : deep.arcs)
        {
            sum += arc.bps;
        }
        if (Agree(sum, cut.maxFlowBps, 1e-9))
        {
            deep.maxFlowBps = cut.maxFlowBps;
            deep.deepest = true;
            return deep;
        }
    }
    return cut;
}

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
        const SplitCut cut = SplitMinCut(graph, f.sideA);
        bi.cutArcs = cut.arcs.size();
        bi.cut = DescribeSplitCut(graph, cut);
    }
    {
        // Full bisection: the most a balanced split can carry when only the GPUs' scale-out
        // injection limits it: min(the floor(N/2) fastest, half of all).
        std::vector<uint64_t> inject = GpuInjection(graph);
        std::sort(inject.begin(), inject.end(), std::greater<>());
        double half = 0;
        double all = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            half += i < n / 2 ? static_cast<double>(inject[i]) : 0.0;
            all += static_cast<double>(inject[i]);
        }
        bi.fullBps = std::min(half, all / 2);
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
                + "), the last unit cut to exact balance; and the formula's split";
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
        evaluate(f.sideA, "the formula's split: " + f.split);

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
