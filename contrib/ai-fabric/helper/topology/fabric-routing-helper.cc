/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-routing-helper.h"

#include "ns3/abort.h"
#include "ns3/dragonfly-plus-routing.h"
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/spec-names.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <deque>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricRoutingHelper");

namespace
{

/**
 * \param graph a fabric's graph
 * \param fabric its ns-3 objects
 * \param n a node with a forwarding element
 * \param k an index into the node's adjacency
 * \return the switch port of that link
 */
uint16_t
PortOf(const FabricGraph& graph, const Fabric& fabric, uint32_t n, std::size_t k)
{
    return fabric.PortOn(graph, n, graph.GetAdjacency(n)[k].link);
}

/**
 * \brief Give node \p n's strategy its equal-cost next hops towards \p target
 * (FabricGraph::NextHops()) as the route to endpoint \p endpoint; none if it has none.
 * \param graph a fabric's graph
 * \param fabric its ns-3 objects
 * \param routing node n's strategy
 * \param n a node with a forwarding element
 * \param target the destination node
 * \param dist FabricGraph::RouteDistancesTo(target)
 * \param endpoint the destination's endpoint id
 * \param hops scratch
 * \param ports scratch
 */
void
RouteAt(const FabricGraph& graph,
        const Fabric& fabric,
        FabricRouting& routing,
        uint32_t n,
        uint32_t target,
        const std::vector<uint32_t>& dist,
        uint32_t endpoint,
        std::vector<uint32_t>& hops,
        std::vector<uint16_t>& ports)
{
    graph.NextHops(n, target, dist, hops);
    if (hops.empty())
    {
        return;
    }
    ports.clear();
    for (const uint32_t k : hops)
    {
        ports.push_back(PortOf(graph, fabric, n, k));
    }
    routing.SetRoute(endpoint, ports);
}

/// \return true if the node's switch gets the group strategy
bool
InGroup(const FabricGraph::Node& node)
{
    return node.kind == FabricGraph::NodeKind::SWITCH && node.group != FabricGraph::NONE;
}

} // namespace

FabricRoutingHelper::FabricRoutingHelper()
{
    m_routing.SetTypeId("ns3::EcmpRouting");
}

void
FabricRoutingHelper::SetForwarding(ForwardingMode mode)
{
    SetRouting(ForwardingTypeName(mode));
}

bool
FabricRoutingHelper::SetForwarding(const std::string& name)
{
    ForwardingMode mode = ForwardingMode::ECMP;
    if (!ParseSpecName(name, mode))
    {
        return false;
    }
    SetForwarding(mode);
    return true;
}

void
FabricRoutingHelper::SetRoutingAttribute(const std::string& name, const AttributeValue& value)
{
    m_routing.Set(name, value);
}

void
FabricRoutingHelper::SetGroupRoutingAttribute(const std::string& name, const AttributeValue& value)
{
    if (m_hasGroupRouting)
    {
        m_groupRouting.Set(name, value);
    }
}

void
FabricRoutingHelper::SetEcmpHash(uint32_t fields)
{
    NS_ABORT_MSG_UNLESS(m_routing.GetTypeId() == EcmpRouting::GetTypeId(),
                        "SetEcmpHash: the strategy " << m_routing.GetTypeId().GetName()
                                                     << " does not hash");
    m_routing.Set("HashFields", UintegerValue(fields));
}

void
FabricRoutingHelper::SetPathChoice(PathChoice choice)
{
    m_hasGroupRouting = false;
    const std::string type = PathChoiceTypeName(choice);
    if (!type.empty())
    {
        SetGroupRouting(type);
    }
}

bool
FabricRoutingHelper::SetPathChoice(const std::string& name)
{
    PathChoice choice = PathChoice::MINIMAL;
    if (!ParseSpecName(name, choice))
    {
        return false;
    }
    SetPathChoice(choice);
    return true;
}

Ptr<FabricRouting>
FabricRoutingHelper::Install(Ptr<FabricSwitch> sw, bool inGroup) const
{
    Ptr<FabricRouting> routing;
    if (inGroup && m_hasGroupRouting)
    {
        ObjectFactory factory = m_groupRouting;
        factory.Set("EqualCostRouting", TypeIdValue(m_routing.GetTypeId()));
        Ptr<DragonflyPlusRouting> group = factory.Create<DragonflyPlusRouting>();
        // The equal-cost choice with SetRouting's attributes (ECMP's hash fields).
        group->SetEqualCostRouting(m_routing.Create<FabricRouting>());
        routing = group;
    }
    else
    {
        routing = m_routing.Create<FabricRouting>();
    }
    sw->SetRouting(routing);
    return routing;
}

void
FabricRoutingHelper::Install(const FabricGraph& graph,
                             const Fabric& fabric,
                             const SpecLocation& where) const
{
    const auto& nodes = graph.GetNodes();
    std::vector<Ptr<FabricRouting>> routing(nodes.size());
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (fabric.switches[n])
        {
            routing[n] = Install(fabric.switches[n], InGroup(nodes[n]));
        }
    }
    // The node behind each port of every forwarding element.
    std::vector<std::vector<uint32_t>> peerOfPort(nodes.size());
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (!routing[n])
        {
            continue;
        }
        const auto& adj = graph.GetAdjacency(n);
        peerOfPort[n].resize(adj.size());
        for (std::size_t k = 0; k < adj.size(); ++k)
        {
            peerOfPort[n][PortOf(graph, fabric, n, k)] = adj[k].peer;
        }
    }

    // Routing tables, per destination GPU, from the graph's routing policy (all
    // shortest paths; NVLink inside a server; PXN relay on rail-only fabrics).
    std::vector<uint16_t> ports;
    std::vector<uint32_t> hops;
    // Verification memo: verified[n] == dst once the walk from n to dst is known to arrive,
    // so that each destination costs O(nodes), not O(GPUs x hops).
    std::vector<uint32_t> verified(nodes.size(), UINT32_MAX);
    std::vector<uint32_t> walked;
    // GPUs with a single link, behind the same node, share their routes everywhere but at
    // that node, when no link is NVLink and GPUs do not relay (then NextHops at a node other
    // than the attachment sees the same distances). The first GPU of such a group gets a
    // breadth-first search and NextHops at every switch; the others copy its routes and
    // recompute only the attachment's: set-up O(attachments x links), not O(GPUs x links).
    bool share = !graph.GetGpuRelay();
    for (const auto& link : graph.GetLinks())
    {
        share = share && link.kind != FabricGraph::LinkKind::NVLINK;
    }
    const uint32_t gpus = graph.GetGpuCount();
    std::vector<uint32_t> gpuNode(gpus);
    std::vector<uint32_t> attachOf(gpus, UINT32_MAX);
    std::vector<uint32_t> left(nodes.size(), 0); // GPUs of each attachment still to route
    for (uint32_t g = 0; g < gpus; ++g)
    {
        gpuNode[g] = graph.GetGpuNode(g);
        const auto& adj = graph.GetAdjacency(gpuNode[g]);
        if (share && adj.size() == 1 && !routing[gpuNode[g]])
        {
            attachOf[g] = adj[0].peer;
            ++left[attachOf[g]];
        }
    }
    std::vector<uint32_t> switchNodes;
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (routing[n])
        {
            switchNodes.push_back(n);
        }
    }
    std::vector<uint32_t> leaderOf(nodes.size(), UINT32_MAX); // attachment -> its first GPU
    // Distances to the leader, kept while the attachment has GPUs left to route.
    std::vector<std::vector<uint32_t>> leaderDist(nodes.size());
    std::vector<uint32_t> dist;
    for (uint32_t dst = 0; dst < gpus; ++dst)
    {
        const uint32_t target = gpuNode[dst];
        const uint32_t attach = attachOf[dst];
        const uint32_t leader = attach == UINT32_MAX ? UINT32_MAX : leaderOf[attach];
        const bool copy = leader != UINT32_MAX;
        if (copy)
        {
            // Distances to this GPU: the leader's, with the two GPUs' places exchanged.
            dist = leaderDist[attach];
            std::swap(dist[target], dist[gpuNode[leader]]);
        }
        else
        {
            dist = graph.RouteDistancesTo(target);
            if (attach != UINT32_MAX && left[attach] > 1)
            {
                leaderOf[attach] = dst;
                leaderDist[attach] = dist;
            }
        }
        if (attach != UINT32_MAX && --left[attach] == 0)
        {
            std::vector<uint32_t>().swap(leaderDist[attach]); // the group is done
        }
        for (uint32_t src = 0; src < gpus && !copy; ++src) // (a copy: the leader's reach)
        {
            if (dist[gpuNode[src]] == UINT32_MAX)
            {
                throw SpecError(where,
                                "GPU '" + nodes[gpuNode[src]].name + "' cannot reach GPU '"
                                    + nodes[target].name + "'");
            }
        }
        // (A single-port GPU has no switch: its transport sends everything on its port.)
        for (const uint32_t n : switchNodes)
        {
            if (copy && n != attach)
            {
                if (!routing[n]->GetRoute(leader).empty())
                {
                    routing[n]->CopyRoute(dst, leader);
                }
                continue;
            }
            RouteAt(graph, fabric, *routing[n], n, target, dist, dst, hops, ports);
        }
        // Verify the tables: from every GPU, following them reaches the destination
        // without a loop (every hop must bring the packet strictly closer). A walk ends
        // early at a node an earlier walk to the same destination has verified.
        for (uint32_t src = 0; src < gpus; ++src)
        {
            uint32_t n = gpuNode[src];
            uint32_t steps = 0;
            walked.clear();
            while (n != target && verified[n] != dst)
            {
                walked.push_back(n);
                uint32_t next = UINT32_MAX;
                if (routing[n])
                {
                    const auto& route = routing[n]->GetRoute(dst);
                    if (!route.empty())
                    {
                        next = peerOfPort[n][route.front()];
                    }
                }
                else if (graph.GetAdjacency(n).size() == 1)
                {
                    next = graph.GetAdjacency(n)[0].peer;
                }
                if (next == UINT32_MAX || dist[next] >= dist[n] || ++steps > nodes.size())
                {
                    throw SpecError(where,
                                    "routing from GPU '" + nodes[graph.GetGpuNode(src)].name
                                        + "' to GPU '" + nodes[target].name + "' "
                                        + (next == UINT32_MAX
                                               ? "stops at '" + nodes[n].name + "'"
                                               : "loops at '" + nodes[n].name + "'"));
                }
                n = next;
            }
            for (const uint32_t w : walked)
            {
                verified[w] = dst;
            }
        }
    }
    if (m_hasGroupRouting)
    {
        SetUpGroups(graph, fabric, where);
    }
}

void
FabricRoutingHelper::SetUpGroups(const FabricGraph& graph,
                                 const Fabric& fabric,
                                 const SpecLocation& where) const
{
    const auto& nodes = graph.GetNodes();
    uint32_t groups = 0;
    for (const auto& n : nodes)
    {
        if (n.kind == FabricGraph::NodeKind::SWITCH && n.group != FabricGraph::NONE)
        {
            groups = std::max(groups, n.group + 1);
        }
    }
    if (groups < 3)
    {
        throw SpecError(where,
                        "non-minimal routing (valiant, ugal) needs a fabric of at least 3 "
                        "groups (dragonfly-plus)");
    }
    std::vector<uint16_t> dstGroup(graph.GetGpuCount(), UINT16_MAX);
    for (uint32_t gpu = 0; gpu < graph.GetGpuCount(); ++gpu)
    {
        const uint32_t group = nodes[graph.GetGpuNode(gpu)].group;
        dstGroup[gpu] = group == FabricGraph::NONE ? UINT16_MAX : static_cast<uint16_t>(group);
    }
    // The group strategy of every switch in a group; what each of its ports joins.
    std::vector<Ptr<DragonflyPlusRouting>> routing(nodes.size());
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (!InGroup(nodes[n]))
        {
            continue;
        }
        routing[n] = DynamicCast<DragonflyPlusRouting>(fabric.switches[n]->GetRouting());
        NS_ABORT_MSG_UNLESS(routing[n], "the group routing is not a DragonflyPlusRouting");
        routing[n]->SetGroups(nodes[n].group, groups, dstGroup);
        const auto& adj = graph.GetAdjacency(n);
        for (std::size_t k = 0; k < adj.size(); ++k)
        {
            const FabricGraph::Node& peer = nodes[adj[k].peer];
            const bool edge
                = !graph.IsTransit(adj[k].peer) || peer.kind == FabricGraph::NodeKind::NIC;
            const bool global = peer.group != FabricGraph::NONE && peer.group != nodes[n].group;
            routing[n]->SetPortKind(PortOf(graph, fabric, n, k), edge, global);
        }
    }
    std::vector<uint16_t> ports;
    for (uint32_t g = 0; g < groups; ++g)
    {
        // The first leg of a detour: towards the group's nearest switches, taking a global
        // link only into that group (FabricGraph::SetGroupMinimal), so that a detour crosses
        // at most two global links and never returns through its source group.
        const std::vector<uint32_t> dist = graph.SwitchDistancesToGroup(g);
        for (uint32_t n = 0; n < nodes.size(); ++n)
        {
            if (!routing[n])
            {
                continue;
            }
            ports.clear();
            const auto& adj = graph.GetAdjacency(n);
            for (std::size_t k = 0; k < adj.size() && dist[n] != 0; ++k)
            {
                if (nodes[adj[k].peer].kind == FabricGraph::NodeKind::SWITCH
                    && dist[adj[k].peer] != UINT32_MAX && dist[adj[k].peer] + 1 == dist[n]
                    && !(graph.GetGroupMinimal() && graph.JoinsGroups(n, adj[k].peer)
                         && nodes[adj[k].peer].group != g))
                {
                    ports.push_back(PortOf(graph, fabric, n, k));
                }
            }
            routing[n]->SetGroupRoute(g, ports);
        }
    }
}

void
FabricRoutingHelper::InstallRoutesTo(const FabricGraph& graph,
                                     const Fabric& fabric,
                                     uint32_t target,
                                     uint32_t endpoint)
{
    const std::vector<uint32_t> dist = graph.RouteDistancesTo(target);
    std::vector<uint32_t> hops;
    std::vector<uint16_t> ports;
    for (uint32_t n = 0; n < graph.GetNodes().size(); ++n)
    {
        if (fabric.switches[n] && n != target)
        {
            RouteAt(graph,
                    fabric,
                    *fabric.switches[n]->GetRouting(),
                    n,
                    target,
                    dist,
                    endpoint,
                    hops,
                    ports);
        }
    }
}

} // namespace ns3
