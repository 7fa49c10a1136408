/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-builder.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/credit-flow-control.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/no-flow-control.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-recovery-ops.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/spec-names.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/units.h"

#include <algorithm>
#include <cmath>
#include <deque>

namespace ns3
{

uint64_t
Fabric::GetPacketHops() const
{
    uint64_t hops = 0;
    for (std::size_t i = 0; i < devicesA.size(); ++i)
    {
        hops += devicesA[i]->GetStats().txPackets + devicesB[i]->GetStats().txPackets;
    }
    return hops;
}

namespace
{

/// What the node at a device's end does with packets.
enum class Role
{
    ENDPOINT,            //!< a GPU: its buffer drains at once (credits return on arrival)
    SWITCH,              //!< a switch: port-to-port latency, cut-through if the technology is
    NIC,                 //!< a NIC node between a host link and the fabric: forwards, NIC latency
    MULTI_PORT_ENDPOINT, //!< a GPU with several ports: its forwarding element delivers locally
};

/**
 * \brief A multi-port GPU's port for a new queue pair: one of the equal-cost ports
 * of its routing table, spread over queue pairs by a hash of (destination, qp).
 * \param sw the GPU's forwarding element
 * \param dst destination endpoint
 * \param qp queue pair index
 * \return the port index
 */
uint32_t
SelectPort(Ptr<FabricSwitch> sw, uint32_t dst, uint16_t qp)
{
    const std::vector<uint16_t>& ports = sw->GetRoute(dst);
    NS_ABORT_MSG_IF(ports.empty(), "no route from a GPU to endpoint " << dst);
    const uint64_t h
        = (static_cast<uint64_t>(dst) * 0x9e3779b97f4a7c15ull) ^ (qp * 0xbf58476d1ce4e5b9ull);
    return ports[(h >> 32) % ports.size()];
}

/**
 * \brief Tables for non-minimal routing between groups (Dragonfly+): for every
 * group, each switch outside it gets its equal-cost ports towards the group's
 * nearest switch (a multi-source breadth-first search over switches).
 */
void
SetUpGroupRouting(const FabricGraph& graph,
                  Fabric& f,
                  const std::vector<std::vector<uint16_t>>& portOfLink,
                  FabricSwitch::PathMode mode,
                  const SpecLocation& where)
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
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (nodes[n].kind == FabricGraph::NodeKind::SWITCH && nodes[n].group != FabricGraph::NONE)
        {
            f.switches[n]->SetGroupRouting(mode, nodes[n].group, groups, dstGroup);
        }
    }
    std::vector<uint16_t> ports;
    for (uint32_t g = 0; g < groups; ++g)
    {
        std::vector<uint32_t> dist(nodes.size(), UINT32_MAX);
        std::deque<uint32_t> frontier;
        for (uint32_t n = 0; n < nodes.size(); ++n)
        {
            if (nodes[n].kind == FabricGraph::NodeKind::SWITCH && nodes[n].group == g)
            {
                dist[n] = 0;
                frontier.push_back(n);
            }
        }
        while (!frontier.empty())
        {
            const uint32_t n = frontier.front();
            frontier.pop_front();
            for (const auto& adj : graph.GetAdjacency(n))
            {
                if (nodes[adj.peer].kind == FabricGraph::NodeKind::SWITCH
                    && dist[adj.peer] == UINT32_MAX)
                {
                    dist[adj.peer] = dist[n] + 1;
                    frontier.push_back(adj.peer);
                }
            }
        }
        for (uint32_t n = 0; n < nodes.size(); ++n)
        {
            if (nodes[n].kind != FabricGraph::NodeKind::SWITCH
                || nodes[n].group == FabricGraph::NONE)
            {
                continue;
            }
            ports.clear();
            const auto& adj = graph.GetAdjacency(n);
            for (std::size_t k = 0; k < adj.size() && dist[n] != 0; ++k)
            {
                if (nodes[adj[k].peer].kind == FabricGraph::NodeKind::SWITCH
                    && dist[adj[k].peer] + 1 == dist[n])
                {
                    ports.push_back(portOfLink[n][k]);
                }
            }
            f.switches[n]->SetGroupRoute(g, ports);
        }
    }
}

/// \return true if the node needs a forwarding element: switches, NIC nodes, and
/// GPUs with several ports (they choose a port per destination and may relay).
bool
Forwards(const FabricGraph& graph, uint32_t n)
{
    return graph.IsTransit(n) || graph.GetAdjacency(n).size() > 1;
}

Role
RoleOf(const FabricGraph& graph, uint32_t n)
{
    const FabricGraph::Node& node = graph.GetNodes()[n];
    if (node.kind == FabricGraph::NodeKind::GPU && Forwards(graph, n))
    {
        return Role::MULTI_PORT_ENDPOINT;
    }
    switch (node.kind)
    {
        case FabricGraph::NodeKind::SWITCH:
            return Role::SWITCH;
        case FabricGraph::NodeKind::NIC:
            return Role::NIC;
        case FabricGraph::NodeKind::GPU:
            break;
    }
    return Role::ENDPOINT;
}

/**
 * \param profile a link profile
 * \param cellPackets MTU packets per simulated packet (the fidelity knob; 1: off)
 * \return the largest frame's bytes as PFC sizes it (a cell of cellPackets MTU frames)
 */
uint64_t
PfcFrameBytes(const LinkProfile& profile, uint32_t cellPackets)
{
    return uint64_t{cellPackets} * (profile.mtu + profile.headerBytes + profile.framingBytes);
}

/**
 * \param profile a link profile
 * \param cellPackets MTU packets per simulated packet (the fidelity knob; 1: off)
 * \return the flow control of one port of a link of that profile
 */
Ptr<FabricFlowControl>
MakeFlowControl(const LinkProfile& profile, uint32_t cellPackets)
{
    ObjectFactory factory;
    switch (profile.flowControl)
    {
        case LinkProfile::FlowControl::CREDIT:
            // The peer advertises the same per-lane receive buffer.
            factory.SetTypeId(CreditFlowControl::GetTypeId());
            factory.Set("CreditsPerLane", UintegerValue(profile.creditsPerLane));
            factory.Set("CreditBlockBytes", UintegerValue(profile.creditBlockBytes));
            break;
        case LinkProfile::FlowControl::PFC:
            // The mlx5 headroom holds 2.72 largest frames beyond the cable's bytes: with cells,
            // the largest frame is a cell.
            factory.SetTypeId(PfcFlowControl::GetTypeId());
            factory.Set("Headroom",
                        UintegerValue(profile.PfcHeadroomBytes()
                                      + static_cast<uint64_t>(std::ceil(
                                          2.72
                                          * static_cast<double>(PfcFrameBytes(profile, cellPackets)
                                                                - PfcFrameBytes(profile, 1))))));
            factory.Set("ResumeOffset", UintegerValue(PfcFrameBytes(profile, cellPackets)));
            break;
        case LinkProfile::FlowControl::NONE:
            factory.SetTypeId(NoFlowControl::GetTypeId());
            break;
    }
    return factory.Create<FabricFlowControl>();
}

Ptr<FabricNetDevice>
MakeDevice(Ptr<Node> node, const LinkProfile& profile, Role role, uint32_t cellPackets)
{
    const bool nodeIsSwitch = role == Role::SWITCH;
    Ptr<FabricNetDevice> dev = CreateObject<FabricNetDevice>();
    dev->SetAttribute("DataRate", DataRateValue(profile.rate));
    dev->SetAttribute("HeaderBytes", UintegerValue(profile.headerBytes));
    dev->SetAttribute("SegmentBytes", UintegerValue(profile.segmentBytes));
    dev->SetAttribute("FramingBytes", UintegerValue(profile.framingBytes));
    dev->SetAttribute("MessageHeaderBytes", UintegerValue(profile.messageHeaderBytes));
    dev->SetAttribute("ControlPacketBytes", UintegerValue(profile.controlPacketBytes));
    dev->SetAttribute("PayloadMtu", UintegerValue(profile.mtu));
    dev->SetAttribute("CellPackets", UintegerValue(cellPackets));
    dev->SetAttribute("RxLatency",
                      TimeValue(nodeIsSwitch ? profile.switchLatency : profile.nicLatency));
    dev->SetAttribute("CutThrough", BooleanValue(nodeIsSwitch && profile.cutThrough));
    dev->SetAttribute("Priorities", UintegerValue(std::max<uint8_t>(1, profile.priorities)));
    dev->SetAttribute("FlowControl", PointerValue(MakeFlowControl(profile, cellPackets)));
    dev->SetAttribute("ReturnCreditsOnReceive", BooleanValue(role == Role::ENDPOINT));
    node->AddDevice(dev);
    return dev;
}

FabricSwitch::PortConfig
MakePortConfig(const LinkProfile& profile)
{
    FabricSwitch::PortConfig c;
    c.bufferShare = profile.bufferPerPort;
    c.ecnKmin = profile.ecnKmin;
    c.ecnKmax = profile.ecnKmax;
    c.ecnPmax = profile.ecnPmax;
    return c;
}

} // namespace

Fabric
FabricBuilder::Build(const FabricGraph& graph,
                     const SpecLocation& where,
                     const FabricBuildOptions& options)
{
    const auto& nodes = graph.GetNodes();
    const auto& links = graph.GetLinks();

    if (options.cellPackets > 1)
    {
        // A cell must fit the receive buffer a credit link advertises per lane, or it can
        // never be sent.
        for (const auto& p : graph.GetProfiles())
        {
            if (p.flowControl != LinkProfile::FlowControl::CREDIT)
            {
                continue;
            }
            const uint64_t cell
                = options.cellPackets * p.WireBytes(p.mtu, false) + p.messageHeaderBytes;
            const uint64_t block = std::max<uint32_t>(1, p.creditBlockBytes);
            if ((cell + block - 1) / block * block > p.creditsPerLane)
            {
                throw SpecError(options.cellPacketsWhere,
                                "cell_packets " + std::to_string(options.cellPackets)
                                    + " makes a simulated packet of " + std::to_string(cell)
                                    + " wire bytes on profile '" + p.name
                                    + "', more than its credit buffer per lane ("
                                    + FormatBytes(p.creditsPerLane)
                                    + "): it could never be sent. Lower cell_packets");
            }
        }
    }

    Fabric f;
    f.nodes.Create(nodes.size());
    f.switches.resize(nodes.size());
    f.transports.resize(graph.GetGpuCount());

    int64_t stream = options.stream;
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (Forwards(graph, n))
        {
            Ptr<FabricSwitch> sw = CreateObject<FabricSwitch>();
            sw->SetForwarding(options.forwarding);
            stream += sw->AssignStreams(stream);
            f.nodes.Get(n)->AggregateObject(sw);
            f.switches[n] = sw;
        }
    }

    // Devices and channels; remember each node's port index per link, and the node
    // behind each port.
    std::vector<std::vector<uint16_t>> portOfLink(nodes.size());
    std::vector<std::vector<uint32_t>> peerOfPort(nodes.size());
    f.devicesA.reserve(links.size());
    f.devicesB.reserve(links.size());
    f.channels.reserve(links.size());
    for (const auto& link : links)
    {
        const LinkProfile& profile = graph.GetProfiles()[link.profile];
        Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
        ch->SetAttribute("Delay", TimeValue(profile.propagationDelay));
        Ptr<FabricNetDevice> a
            = MakeDevice(f.nodes.Get(link.a), profile, RoleOf(graph, link.a), options.cellPackets);
        Ptr<FabricNetDevice> b
            = MakeDevice(f.nodes.Get(link.b), profile, RoleOf(graph, link.b), options.cellPackets);
        a->Attach(ch);
        b->Attach(ch);
        f.devicesA.push_back(a);
        f.devicesB.push_back(b);
        f.channels.push_back(ch);
    }
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        for (const auto& adj : graph.GetAdjacency(n))
        {
            Ptr<FabricNetDevice> dev
                = (links[adj.link].a == n) ? f.devicesA[adj.link] : f.devicesB[adj.link];
            if (f.switches[n])
            {
                const LinkProfile& profile = graph.GetProfiles()[links[adj.link].profile];
                FabricSwitch::PortConfig config = MakePortConfig(profile);
                config.edge = !graph.IsTransit(adj.peer)
                              || nodes[adj.peer].kind == FabricGraph::NodeKind::NIC;
                config.global = nodes[n].group != FabricGraph::NONE
                                && nodes[adj.peer].group != FabricGraph::NONE
                                && nodes[adj.peer].group != nodes[n].group;
                portOfLink[n].push_back(static_cast<uint16_t>(f.switches[n]->AddPort(dev, config)));
                peerOfPort[n].push_back(adj.peer);
            }
            else
            {
                portOfLink[n].push_back(0);
            }
        }
    }

    // PFC needs room above its headroom: with the buffer empty, the pause threshold
    // (alpha x (pool - headroom)) must admit a packet more than the resume offset, or an
    // ingress paused once would never be resumed (a deadlock from the configuration).
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        const Ptr<FabricSwitch>& sw = f.switches[n];
        if (!sw || sw->GetPfcHeadroomTotal() == 0)
        {
            continue;
        }
        uint64_t resume = 0;
        uint32_t ports = 0;
        for (const auto& adj : graph.GetAdjacency(n))
        {
            const LinkProfile& p = graph.GetProfiles()[links[adj.link].profile];
            ++ports;
            if (p.flowControl == LinkProfile::FlowControl::PFC)
            {
                resume = std::max<uint64_t>(resume, PfcFrameBytes(p, options.cellPackets));
            }
        }
        if (sw->GetPfcThreshold() > resume)
        {
            continue;
        }
        const double alpha = sw->GetPfcAlpha();
        const uint64_t need
            = sw->GetPfcHeadroomTotal() + static_cast<uint64_t>(std::ceil((resume + 1) / alpha));
        const uint64_t perPort = (need + ports - 1) / ports;
        throw SpecError(where,
                        "switch '" + nodes[n].name + "': its buffer ("
                            + FormatBytes(sw->GetBufferSize()) + ": " + std::to_string(ports)
                            + " ports x buffer_per_port) cannot hold the PFC headroom its ports "
                              "reserve ("
                            + FormatBytes(sw->GetPfcHeadroomTotal())
                            + ", mlx5 formula, docs/link-profiles.md) with room to pause and "
                              "resume: PFC would pause a sender and never resume it. Set "
                              "buffer_per_port to at least "
                            + FormatBytes(perPort) + " (or lower the cable length or rate)");
    }

    // Messages are cut at the smallest MTU of the fabric, so that every packet
    // fits every link it may cross.
    uint32_t pathMtu = UINT32_MAX;
    for (const auto& p : graph.GetProfiles())
    {
        pathMtu = std::min(pathMtu, p.mtu);
    }
    // The fidelity knob: a simulated packet carries cellPackets MTU packets' payload.
    pathMtu *= options.cellPackets;

    // A drop anywhere needs end-to-end recovery, so one lossy link makes every
    // transport use go-back-N; the setting must be the same at all endpoints.
    const std::string reliability = ResolveReliability(options.reliability, graph.GetProfiles());
    // One recovery prototype; every transport forks its own.
    ObjectFactory recoveryFactory;
    recoveryFactory.SetTypeId(RdmaRecoveryTypeId(reliability));
    for (const auto& [name, value] : options.transportAttributes)
    {
        recoveryFactory.Set(name, StringValue(value));
    }
    const Ptr<RdmaRecoveryOps> recovery = recoveryFactory.Create<RdmaRecoveryOps>();

    // One RDMA transport per GPU: on its one port, or on all its ports (NVLink and
    // NIC) with the GPU's forwarding element choosing per destination.
    RdmaTransportHelper rdma;
    rdma.SetMtu(pathMtu);
    rdma.SetTransportAttribute("RecoveryOps", PointerValue(recovery));
    if (options.congestionControl)
    {
        rdma.SetCongestionControl(options.congestionControl);
    }
    for (uint32_t gpu = 0; gpu < graph.GetGpuCount(); ++gpu)
    {
        const uint32_t n = graph.GetGpuNode(gpu);
        const auto& adj = graph.GetAdjacency(n);
        if (adj.empty())
        {
            throw SpecError(where, "GPU '" + nodes[n].name + "' has no link");
        }
        // Data travel in the traffic class of the GPU's fabric link (its NIC link;
        // behind a host link (PCIe), the NIC's other link).
        const uint32_t nicLink = graph.GetGpuNicLink(gpu);
        const uint32_t firstLink = nicLink != FabricGraph::NONE ? nicLink : adj[0].link;
        uint32_t fabricLink = firstLink;
        const uint32_t peer = links[firstLink].a == n ? links[firstLink].b : links[firstLink].a;
        if (nodes[peer].kind == FabricGraph::NodeKind::NIC)
        {
            for (const auto& nicAdj : graph.GetAdjacency(peer))
            {
                if (nicAdj.peer != n)
                {
                    fabricLink = nicAdj.link;
                    break;
                }
            }
        }
        const LinkProfile& profile = graph.GetProfiles()[links[fabricLink].profile];
        rdma.SetTransportAttribute("DataPriority", UintegerValue(profile.dataPriority));
        rdma.SetTransportAttribute("ControlPriority", UintegerValue(profile.controlPriority));
        const Ptr<FabricSwitch>& sw = f.switches[n];
        f.gpuNodes.Add(f.nodes.Get(n));
        f.transports[gpu]
            = rdma.Install(f.nodes.Get(n),
                           gpu,
                           sw ? MakeBoundCallback(&SelectPort, sw) : RdmaTransport::PortSelector());
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
    for (const auto& link : links)
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
        if (share && adj.size() == 1 && !f.switches[gpuNode[g]])
        {
            attachOf[g] = adj[0].peer;
            ++left[attachOf[g]];
        }
    }
    std::vector<uint32_t> switchNodes;
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (f.switches[n])
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
                if (!f.switches[n]->GetRoute(leader).empty())
                {
                    f.switches[n]->CopyRoute(dst, leader);
                }
                continue;
            }
            graph.NextHops(n, target, dist, hops);
            if (hops.empty())
            {
                continue;
            }
            ports.clear();
            for (const uint32_t k : hops)
            {
                ports.push_back(portOfLink[n][k]);
            }
            f.switches[n]->SetRoute(dst, ports);
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
                if (f.switches[n])
                {
                    const auto& route = f.switches[n]->GetRoute(dst);
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
    if (options.pathMode != FabricSwitch::MINIMAL)
    {
        SetUpGroupRouting(graph, f, portOfLink, options.pathMode, where);
    }
    return f;
}

} // namespace ns3
