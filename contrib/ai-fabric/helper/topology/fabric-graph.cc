/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-graph.h"

#include "ns3/abort.h"
#include "ns3/fabric-topology.h"
#include "ns3/spec-error.h"
#include "ns3/topology-spec.h"

#include <algorithm>
#include <deque>

namespace ns3
{

uint32_t
FabricGraph::AddProfile(const LinkProfile& profile)
{
    m_profiles.push_back(profile);
    return m_profiles.size() - 1;
}

uint32_t
FabricGraph::AddGpu(const std::string& name)
{
    m_nodes.push_back(
        Node{NodeKind::GPU, name, 0, static_cast<uint32_t>(m_gpuNodes.size()), NONE, NONE, NONE});
    m_adjacency.emplace_back();
    m_gpuNodes.push_back(m_nodes.size() - 1);
    return m_nodes.size() - 1;
}

uint32_t
FabricGraph::AddSwitch(const std::string& name, uint32_t tier)
{
    m_nodes.push_back(Node{NodeKind::SWITCH, name, tier, UINT32_MAX, NONE, NONE, NONE});
    m_adjacency.emplace_back();
    ++m_switches;
    return m_nodes.size() - 1;
}

uint32_t
FabricGraph::AddNic(const std::string& name)
{
    m_nodes.push_back(Node{NodeKind::NIC, name, 0, UINT32_MAX, NONE, NONE, NONE});
    m_adjacency.emplace_back();
    ++m_nics;
    return m_nodes.size() - 1;
}

uint32_t
FabricGraph::GetNicCount() const
{
    return m_nics;
}

bool
FabricGraph::IsTransit(uint32_t node) const
{
    return m_nodes[node].kind != NodeKind::GPU;
}

uint32_t
FabricGraph::AddLink(uint32_t a, uint32_t b, uint32_t profile)
{
    return AddLink(a, b, profile, LinkKind::FABRIC);
}

uint32_t
FabricGraph::AddLink(uint32_t a, uint32_t b, uint32_t profile, LinkKind kind)
{
    NS_ABORT_MSG_IF(a >= m_nodes.size() || b >= m_nodes.size() || a == b, "bad link");
    NS_ABORT_MSG_IF(profile >= m_profiles.size(), "bad link profile");
    m_links.push_back(Link{a, b, profile, kind});
    const uint32_t id = m_links.size() - 1;
    m_adjacency[a].push_back(Adjacency{id, b});
    m_adjacency[b].push_back(Adjacency{id, a});
    return id;
}

void
FabricGraph::SetPlacement(uint32_t node, uint32_t server, uint32_t rail, uint32_t group)
{
    NS_ABORT_MSG_IF(node >= m_nodes.size(), "bad node");
    Node& n = m_nodes[node];
    if (n.kind == NodeKind::GPU && n.server != NONE && n.rail != NONE)
    {
        m_gpuAt.erase({n.server, n.rail});
    }
    n.server = server;
    n.rail = rail;
    n.group = group;
    if (n.kind == NodeKind::GPU && server != NONE && rail != NONE)
    {
        m_gpuAt[{server, rail}] = n.gpu;
    }
}

void
FabricGraph::SetTierName(uint32_t tier, const std::string& name)
{
    m_tierNames[tier] = name;
}

std::string
FabricGraph::GetTierName(uint32_t tier) const
{
    const auto it = m_tierNames.find(tier);
    return it != m_tierNames.end() ? it->second : "tier" + std::to_string(tier);
}

uint32_t
FabricGraph::FindGpu(uint32_t server, uint32_t rail) const
{
    const auto it = m_gpuAt.find({server, rail});
    return it != m_gpuAt.end() ? it->second : NONE;
}

uint32_t
FabricGraph::GetGpuNicLink(uint32_t gpu) const
{
    for (const Adjacency& adj : m_adjacency[GetGpuNode(gpu)])
    {
        if (m_links[adj.link].kind != LinkKind::NVLINK)
        {
            return adj.link;
        }
    }
    return NONE;
}

const std::vector<FabricGraph::Node>&
FabricGraph::GetNodes() const
{
    return m_nodes;
}

const std::vector<FabricGraph::Link>&
FabricGraph::GetLinks() const
{
    return m_links;
}

const std::vector<LinkProfile>&
FabricGraph::GetProfiles() const
{
    return m_profiles;
}

uint32_t
FabricGraph::GetSmallestMtu() const
{
    uint32_t mtu = UINT32_MAX;
    for (const LinkProfile& p : m_profiles)
    {
        mtu = std::min(mtu, p.mtu);
    }
    return mtu;
}

const std::vector<FabricGraph::Adjacency>&
FabricGraph::GetAdjacency(uint32_t node) const
{
    return m_adjacency[node];
}

uint32_t
FabricGraph::GetGpuCount() const
{
    return m_gpuNodes.size();
}

std::vector<EndpointPlace>
FabricGraph::GetEndpointPlaces() const
{
    std::vector<EndpointPlace> places(m_gpuNodes.size());
    std::map<uint32_t, uint32_t> seen; // server -> GPUs met so far
    for (uint32_t gpu = 0; gpu < m_gpuNodes.size(); ++gpu)
    {
        const Node& n = m_nodes[m_gpuNodes[gpu]];
        EndpointPlace& p = places[gpu];
        if (n.server == NONE)
        {
            continue; // a server of its own
        }
        p.server = n.server;
        const uint32_t order = seen[n.server]++;
        p.local = n.rail != NONE ? n.rail : order;
    }
    return places;
}

bool
FabricGraph::IsNvSwitch(uint32_t node) const
{
    if (m_nodes[node].kind != NodeKind::SWITCH || m_adjacency[node].empty())
    {
        return false;
    }
    for (const Adjacency& a : m_adjacency[node])
    {
        if (m_links[a.link].kind != LinkKind::NVLINK)
        {
            return false;
        }
    }
    return true;
}

std::vector<uint32_t>
FabricGraph::GetReducerNodes() const
{
    // The NVSwitches first, then the InfiniBand switches, each in node order.
    std::vector<uint32_t> reducers;
    std::vector<uint32_t> infinibandSwitches;
    for (uint32_t n = 0; n < m_nodes.size(); ++n)
    {
        if (m_nodes[n].kind != NodeKind::SWITCH || m_adjacency[n].empty())
        {
            continue;
        }
        bool infiniband = true;
        for (const Adjacency& a : m_adjacency[n])
        {
            infiniband
                = infiniband && m_profiles[m_links[a.link].profile].technology == "infiniband";
        }
        if (IsNvSwitch(n))
        {
            reducers.push_back(n);
        }
        else if (infiniband)
        {
            infinibandSwitches.push_back(n);
        }
    }
    reducers.insert(reducers.end(), infinibandSwitches.begin(), infinibandSwitches.end());
    return reducers;
}

std::string
FabricGraph::GetSharpTree(const std::vector<uint32_t>& gpus,
                          InNetworkTree& tree,
                          std::vector<uint32_t>& switches) const
{
    tree = InNetworkTree();
    switches.clear();
    UpdateReducerIndex();
    const uint32_t p = gpus.size();
    std::map<uint32_t, uint32_t> serverIndex; // server -> dense index
    std::vector<uint32_t> count;              // per dense server: ranks so far
    std::vector<uint32_t> attachNode(p);
    tree.attach.resize(p);
    tree.server.resize(p);
    tree.local.resize(p);
    for (uint32_t i = 0; i < p; ++i)
    {
        const uint32_t node = m_gpuNodes.at(gpus[i]);
        const uint32_t server = m_nodes[node].server;
        const uint32_t key = server == NONE ? UINT32_MAX - gpus[i] : server; // one's own
        const auto it = serverIndex.emplace(key, count.size()).first;
        if (it->second == count.size())
        {
            count.push_back(0);
        }
        tree.server[i] = it->second;
        ++count[it->second];
        // The switch its NIC reaches first (through a NIC node, if any).
        const uint32_t nicLink = GetGpuNicLink(gpus[i]);
        if (nicLink == NONE)
        {
            return "GPU '" + m_nodes[node].name + "' has no NIC: SHARP reduces in the network";
        }
        uint32_t peer = m_links[nicLink].a == node ? m_links[nicLink].b : m_links[nicLink].a;
        if (m_nodes[peer].kind == NodeKind::NIC)
        {
            const uint32_t nic = peer;
            for (const Adjacency& a : m_adjacency[nic])
            {
                if (a.peer != node)
                {
                    peer = a.peer;
                }
            }
        }
        if (m_reducerIndex[peer] == NONE || IsNvSwitch(peer))
        {
            return "GPU '" + m_nodes[node].name + "' reaches switch '" + m_nodes[peer].name
                   + "', which is not an InfiniBand switch: SHARP runs in InfiniBand switches "
                     "(every link of the switch InfiniBand)";
        }
        attachNode[i] = peer;
    }
    if (count.size() < 2)
    {
        return "all ranks are in one server: SHARP reduces across servers (inside one, use nvls "
               "or ring)";
    }
    // A rank's local index: its place among its server's ranks by rail (local GPU index), so
    // that the ranks of one local index sit on one rail whatever the order of `ranks`.
    std::vector<std::vector<uint32_t>> byServer(count.size());
    for (uint32_t i = 0; i < p; ++i)
    {
        byServer[tree.server[i]].push_back(i);
    }
    for (auto& members : byServer)
    {
        std::sort(members.begin(), members.end(), [&](uint32_t x, uint32_t y) {
            const Node& nx = m_nodes[m_gpuNodes[gpus[x]]];
            const Node& ny = m_nodes[m_gpuNodes[gpus[y]]];
            return std::make_pair(nx.rail, gpus[x]) < std::make_pair(ny.rail, gpus[y]);
        });
        for (uint32_t k = 0; k < members.size(); ++k)
        {
            tree.local[members[k]] = k;
        }
    }
    tree.localRanks = count.front();
    for (const uint32_t c : count)
    {
        if (c != tree.localRanks)
        {
            return "the ranks are spread unevenly over their servers (" + std::to_string(c)
                   + " and " + std::to_string(tree.localRanks)
                   + "): SHARP here needs as many ranks in every server";
        }
    }
    // Switch list: the attach switches, then the roots.
    std::map<uint32_t, uint32_t> switchOf; // node -> index in switches
    const auto add = [&](uint32_t n) {
        const auto it = switchOf.emplace(n, switches.size()).first;
        if (it->second == switches.size())
        {
            switches.push_back(static_cast<uint32_t>(m_gpuNodes.size()) + m_reducerIndex[n]);
        }
        return it->second;
    };
    for (uint32_t i = 0; i < p; ++i)
    {
        tree.attach[i] = add(attachNode[i]);
    }
    // Per local index, one tree: its members' switches, under a switch linked to all of them
    // if several; the trees take turns among such switches (SHARP spreads its trees).
    tree.root.assign(tree.localRanks, InNetworkTree::NONE);
    for (uint32_t l = 0; l < tree.localRanks; ++l)
    {
        std::vector<uint32_t> leaves;
        for (uint32_t i = 0; i < p; ++i)
        {
            if (tree.local[i] == l)
            {
                leaves.push_back(attachNode[i]);
            }
        }
        std::sort(leaves.begin(), leaves.end());
        leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
        if (leaves.size() < 2)
        {
            continue;
        }
        std::vector<uint32_t> common;
        for (const Adjacency& a : m_adjacency[leaves.front()])
        {
            const uint32_t c = a.peer;
            if (m_reducerIndex[c] == NONE || IsNvSwitch(c))
            {
                continue;
            }
            bool all = true;
            for (const uint32_t leaf : leaves)
            {
                const auto& adj = m_adjacency[leaf];
                all = all && std::any_of(adj.begin(), adj.end(), [c](const Adjacency& x) {
                          return x.peer == c;
                      });
            }
            if (all)
            {
                common.push_back(c);
            }
        }
        std::sort(common.begin(), common.end());
        common.erase(std::unique(common.begin(), common.end()), common.end());
        if (common.empty())
        {
            return "the switches of the ranks' NICs ('" + m_nodes[leaves.front()].name
                   + "' and others) share no switch above them: SHARP trees of more than two "
                     "switch levels are not modelled";
        }
        tree.root[l] = add(common[l % common.size()]);
    }
    return "";
}

void
FabricGraph::UpdateReducerIndex() const
{
    if (m_reducerMemoLinks != m_links.size() || m_reducerIndex.size() != m_nodes.size())
    {
        m_reducerIndex.assign(m_nodes.size(), NONE);
        const std::vector<uint32_t> reducers = GetReducerNodes();
        for (uint32_t k = 0; k < reducers.size(); ++k)
        {
            m_reducerIndex[reducers[k]] = k;
        }
        m_reducerMemoLinks = m_links.size();
    }
}

std::vector<uint32_t>
FabricGraph::GetEndpointNodes() const
{
    std::vector<uint32_t> nodes = m_gpuNodes;
    const std::vector<uint32_t> reducers = GetReducerNodes();
    nodes.insert(nodes.end(), reducers.begin(), reducers.end());
    return nodes;
}

std::vector<uint32_t>
FabricGraph::GetReducersOf(const std::vector<uint32_t>& gpus) const
{
    if (gpus.empty() || gpus.front() >= m_gpuNodes.size())
    {
        return {};
    }
    const uint32_t server = m_nodes[m_gpuNodes[gpus.front()]].server;
    for (const uint32_t g : gpus)
    {
        if (g >= m_gpuNodes.size() || server == NONE || m_nodes[m_gpuNodes[g]].server != server)
        {
            return {};
        }
    }
    UpdateReducerIndex();
    // The NVSwitches the first GPU links to that every other GPU links to as well.
    std::vector<uint32_t> chips;
    for (const Adjacency& a : m_adjacency[m_gpuNodes[gpus.front()]])
    {
        if (m_reducerIndex[a.peer] != NONE && IsNvSwitch(a.peer))
        {
            chips.push_back(a.peer);
        }
    }
    std::sort(chips.begin(), chips.end());
    chips.erase(std::unique(chips.begin(), chips.end()), chips.end());
    std::vector<uint32_t> out;
    for (const uint32_t chip : chips)
    {
        bool all = true;
        for (std::size_t i = 1; i < gpus.size() && all; ++i)
        {
            const auto& adj = m_adjacency[m_gpuNodes[gpus[i]]];
            all = std::any_of(adj.begin(), adj.end(), [chip](const Adjacency& a) {
                return a.peer == chip;
            });
        }
        if (all)
        {
            out.push_back(static_cast<uint32_t>(m_gpuNodes.size()) + m_reducerIndex[chip]);
        }
    }
    return out;
}

uint32_t
FabricGraph::GetSwitchCount() const
{
    return m_switches;
}

uint32_t
FabricGraph::GetGpuNode(uint32_t gpu) const
{
    return m_gpuNodes.at(gpu);
}

std::vector<uint32_t>
FabricGraph::Distances(uint32_t target, bool gpusRelay) const
{
    std::vector<uint32_t> dist(m_nodes.size(), UINT32_MAX);
    std::deque<uint32_t> frontier;
    dist[target] = 0;
    frontier.push_back(target);
    while (!frontier.empty())
    {
        const uint32_t n = frontier.front();
        frontier.pop_front();
        // A GPU is an endpoint, not a transit node (except the target itself),
        // unless GPUs relay.
        if (!gpusRelay && n != target && !IsTransit(n))
        {
            continue;
        }
        for (const Adjacency& adj : m_adjacency[n])
        {
            // (Group-minimal: a step from adj.peer into n's group only if that is the
            // destination's.)
            if (dist[adj.peer] == UINT32_MAX
                && !(m_groupMinimal && m_nodes[n].group != m_nodes[target].group
                     && JoinsGroups(n, adj.peer)))
            {
                dist[adj.peer] = dist[n] + 1;
                frontier.push_back(adj.peer);
            }
        }
    }
    return dist;
}

std::vector<uint32_t>
FabricGraph::DistancesTo(uint32_t target) const
{
    return Distances(target, false);
}

std::vector<uint32_t>
FabricGraph::RelayDistancesTo(uint32_t target) const
{
    return Distances(target, true);
}

void
FabricGraph::SetGpuRelay(bool relay)
{
    m_gpuRelay = relay;
}

void
FabricGraph::SetGroupMinimal(bool minimal)
{
    m_groupMinimal = minimal;
}

bool
FabricGraph::GetGroupMinimal() const
{
    return m_groupMinimal;
}

bool
FabricGraph::JoinsGroups(uint32_t a, uint32_t b) const
{
    const Node& x = m_nodes[a];
    const Node& y = m_nodes[b];
    return x.kind == NodeKind::SWITCH && y.kind == NodeKind::SWITCH && x.group != NONE
           && y.group != NONE && x.group != y.group;
}

std::vector<uint32_t>
FabricGraph::SwitchDistancesToGroup(uint32_t group) const
{
    std::vector<uint32_t> dist(m_nodes.size(), UINT32_MAX);
    std::deque<uint32_t> frontier;
    for (uint32_t n = 0; n < m_nodes.size(); ++n)
    {
        if (m_nodes[n].kind == NodeKind::SWITCH && m_nodes[n].group == group)
        {
            dist[n] = 0;
            frontier.push_back(n);
        }
    }
    while (!frontier.empty())
    {
        const uint32_t n = frontier.front();
        frontier.pop_front();
        for (const Adjacency& adj : m_adjacency[n])
        {
            if (m_nodes[adj.peer].kind == NodeKind::SWITCH && dist[adj.peer] == UINT32_MAX
                && !(m_groupMinimal && m_nodes[n].group != group && JoinsGroups(n, adj.peer)))
            {
                dist[adj.peer] = dist[n] + 1;
                frontier.push_back(adj.peer);
            }
        }
    }
    return dist;
}

bool
FabricGraph::GetGpuRelay() const
{
    return m_gpuRelay;
}

std::vector<uint32_t>
FabricGraph::RouteDistancesTo(uint32_t target) const
{
    return m_gpuRelay ? RelayDistancesTo(target) : DistancesTo(target);
}

void
FabricGraph::NextHops(uint32_t node,
                      uint32_t target,
                      const std::vector<uint32_t>& dist,
                      std::vector<uint32_t>& out) const
{
    out.clear();
    if (node == target || dist[node] == UINT32_MAX)
    {
        return;
    }
    const auto& adj = m_adjacency[node];
    bool anyNvlink = false;
    bool anyOther = false;
    for (uint32_t k = 0; k < adj.size(); ++k)
    {
        const uint32_t peer = adj[k].peer;
        const bool carries = (peer == target || IsTransit(peer)
                              || (m_gpuRelay && m_nodes[peer].kind == NodeKind::GPU))
                             && !(m_groupMinimal && m_nodes[peer].group != m_nodes[target].group
                                  && JoinsGroups(node, peer));
        if (carries && dist[peer] != UINT32_MAX && dist[peer] + 1 == dist[node])
        {
            out.push_back(k);
            (m_links[adj[k].link].kind == LinkKind::NVLINK ? anyNvlink : anyOther) = true;
        }
    }
    if (!anyNvlink || !anyOther)
    {
        return;
    }
    // Both kinds are shortest: inside the destination's server take NVLink; a GPU
    // leaving its server takes its own NIC, except on a relaying (rail-only) fabric
    // when the destination is on another rail: then NVLink to the GPU of the
    // destination's rail in the source server, which sends on that rail (PXN).
    const Node& n = m_nodes[node];
    const Node& t = m_nodes[target];
    const bool sameServer = n.server != NONE && n.server == t.server;
    const bool pxn = m_gpuRelay && n.kind == NodeKind::GPU && n.rail != t.rail;
    const bool keepNvlink = sameServer || pxn || n.kind != NodeKind::GPU;
    std::vector<uint32_t> kept;
    for (const uint32_t k : out)
    {
        if ((m_links[adj[k].link].kind == LinkKind::NVLINK) == keepNvlink)
        {
            kept.push_back(k);
        }
    }
    out.swap(kept);
}

std::vector<uint32_t>
FabricGraph::ShortestPath(uint32_t src, uint32_t dst) const
{
    std::vector<uint32_t> path;
    const std::vector<uint32_t> dist = RouteDistancesTo(dst);
    if (src == dst || dist[src] == UINT32_MAX)
    {
        return path;
    }
    std::vector<uint32_t> hops;
    uint32_t n = src;
    while (n != dst)
    {
        NextHops(n, dst, dist, hops);
        if (hops.empty())
        {
            path.clear();
            return path;
        }
        const Adjacency& adj = m_adjacency[n][hops.front()];
        path.push_back(adj.link);
        n = adj.peer;
    }
    return path;
}

FabricGraph
BuildFabricGraph(const TopologySpec& spec)
{
    /// The generator of each kind.
    struct Generate
    {
        const TopologySpec& spec; //!< the topology

        FabricGraph operator()(const SingleSwitchSpec&) const
        {
            return BuildSingleSwitchGraph(spec);
        }

        FabricGraph operator()(const LeafSpineSpec&) const
        {
            return BuildLeafSpineGraph(spec);
        }

        FabricGraph operator()(const FatTreeSpec&) const
        {
            return BuildFatTreeGraph(spec);
        }

        FabricGraph operator()(const RailSpec&) const // rail-optimized and rail-only
        {
            return BuildRailGraph(spec);
        }

        FabricGraph operator()(const DragonflyPlusSpec&) const
        {
            return BuildDragonflyPlusGraph(spec);
        }

        FabricGraph operator()(const NvlinkDomainSpec&) const
        {
            return BuildNvlinkDomainGraph(spec);
        }

        FabricGraph operator()(const CustomSpec&) const
        {
            return BuildCustomGraph(spec);
        }
    };

    return std::visit(Generate{spec}, spec.shape);
}

} // namespace ns3
