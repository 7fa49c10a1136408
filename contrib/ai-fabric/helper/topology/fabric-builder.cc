/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-builder.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-switch.h"
#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-recovery-ops.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/spec-names.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/units.h"

#include <algorithm>
#include <cmath>

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

uint16_t
Fabric::PortOn(const FabricGraph& graph, uint32_t node, uint32_t link) const
{
    const Ptr<FabricNetDevice>& dev
        = graph.GetLinks()[link].a == node ? devicesA[link] : devicesB[link];
    return static_cast<uint16_t>(dev->GetSwitchPort());
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
 * \brief The ports a multi-port GPU's queue pair stripes its packets over: all the
 * equal-cost ports of its routing table when every one is an NVLink (a GPU spreads its
 * traffic over its links to every NVSwitch chip, packet by packet); none otherwise (NIC
 * traffic stays on one port per queue pair, as a QP stays on one NIC).
 * \param sw the GPU's forwarding element
 * \param nvlinkPorts its NVLink ports, a bit each (ports 0 to 63)
 * \param dst destination endpoint
 * \param qp queue pair index (unused: every queue pair stripes alike)
 * \return the ports, a bit each; 0 if the queue pair does not stripe
 */
uint64_t
SelectStripe(Ptr<FabricSwitch> sw, uint64_t nvlinkPorts, uint32_t dst, uint16_t /* qp */)
{
    uint64_t mask = 0;
    for (const uint16_t port : sw->GetRoute(dst))
    {
        if (port >= 64 || !(nvlinkPorts >> port & 1))
        {
            return 0;
        }
        mask |= uint64_t{1} << port;
    }
    return mask;
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
 * \return the helper that builds cables of that profile: both devices' link attributes, the
 *         cable's delay and each port's flow control
 */
FabricHelper
MakeCableHelper(const LinkProfile& profile, uint32_t cellPackets)
{
    FabricHelper cable;
    cable.SetChannelAttribute("Delay", TimeValue(profile.propagationDelay));
    cable.SetDeviceAttribute("DataRate", DataRateValue(profile.rate));
    cable.SetDeviceAttribute("HeaderBytes", UintegerValue(profile.headerBytes));
    cable.SetDeviceAttribute("SegmentBytes", UintegerValue(profile.segmentBytes));
    cable.SetDeviceAttribute("FramingBytes", UintegerValue(profile.framingBytes));
    cable.SetDeviceAttribute("MessageHeaderBytes", UintegerValue(profile.messageHeaderBytes));
    cable.SetDeviceAttribute("ControlPacketBytes", UintegerValue(profile.controlPacketBytes));
    cable.SetDeviceAttribute("PayloadMtu", UintegerValue(profile.mtu));
    cable.SetDeviceAttribute("CellPackets", UintegerValue(cellPackets));
    cable.SetDeviceAttribute("Priorities", UintegerValue(std::max<uint8_t>(1, profile.priorities)));
    switch (profile.flowControl)
    {
        case LinkProfile::FlowControl::CREDIT:
            // The peer advertises the same per-lane receive buffer.
            cable.SetFlowControl("ns3::CreditFlowControl",
                                 "CreditsPerLane",
                                 UintegerValue(profile.creditsPerLane),
                                 "CreditBlockBytes",
                                 UintegerValue(profile.creditBlockBytes));
            break;
        case LinkProfile::FlowControl::PFC:
            // The mlx5 headroom holds 2.72 largest frames beyond the cable's bytes: with cells,
            // the largest frame is a cell.
            cable.SetFlowControl(
                "ns3::PfcFlowControl",
                "Headroom",
                UintegerValue(profile.PfcHeadroomBytes()
                              + static_cast<uint64_t>(std::ceil(
                                  2.72
                                  * static_cast<double>(PfcFrameBytes(profile, cellPackets)
                                                        - PfcFrameBytes(profile, 1))))),
                "ResumeOffset",
                UintegerValue(PfcFrameBytes(profile, cellPackets)));
            break;
        case LinkProfile::FlowControl::NONE:
            cable.SetFlowControl("ns3::NoFlowControl");
            break;
    }
    return cable;
}

/**
 * \param profile the link's profile
 * \param role what the port's node does with received packets
 * \return the port's own device attributes
 */
FabricHelper::PortAttributes
MakePortAttributes(const LinkProfile& profile, Role role)
{
    const bool nodeIsSwitch = role == Role::SWITCH;
    FabricHelper::PortAttributes port;
    port.Set("RxLatency", TimeValue(nodeIsSwitch ? profile.switchLatency : profile.nicLatency));
    port.Set("CutThrough", BooleanValue(nodeIsSwitch && profile.cutThrough));
    port.Set("ReturnCreditsOnReceive", BooleanValue(role == Role::ENDPOINT));
    return port;
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

    // Forwarding elements: their routing strategies come with the tables, from
    // options.routing (FabricRoutingHelper).
    const FabricHelper switches;
    int64_t stream = options.stream;
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (Forwards(graph, n))
        {
            Ptr<FabricSwitch> sw = switches.InstallSwitch(f.nodes.Get(n));
            stream += sw->AssignStreams(stream);
            f.switches[n] = sw;
        }
    }

    // Cables: one helper per link profile.
    std::vector<FabricHelper> cables;
    cables.reserve(graph.GetProfiles().size());
    for (const auto& p : graph.GetProfiles())
    {
        cables.push_back(MakeCableHelper(p, options.cellPackets));
    }
    f.devicesA.reserve(links.size());
    f.devicesB.reserve(links.size());
    f.channels.reserve(links.size());
    for (const auto& link : links)
    {
        const LinkProfile& profile = graph.GetProfiles()[link.profile];
        const NetDeviceContainer ends
            = cables[link.profile].Install(f.nodes.Get(link.a),
                                           MakePortAttributes(profile, RoleOf(graph, link.a)),
                                           f.nodes.Get(link.b),
                                           MakePortAttributes(profile, RoleOf(graph, link.b)));
        Ptr<FabricNetDevice> a = StaticCast<FabricNetDevice>(ends.Get(0));
        Ptr<FabricNetDevice> b = StaticCast<FabricNetDevice>(ends.Get(1));
        f.devicesA.push_back(a);
        f.devicesB.push_back(b);
        f.channels.push_back(a->GetFabricChannel());
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
                f.switches[n]->AddPort(dev, MakePortConfig(profile));
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
    uint32_t pathMtu = graph.GetSmallestMtu();
    // The fidelity knob: a simulated packet carries cellPackets MTU packets' payload.
    pathMtu *= options.cellPackets;

    // A drop anywhere needs end-to-end recovery, so one lossy link makes every
    // transport use go-back-N; the setting must be the same at all endpoints.
    const ReliabilitySetting reliability
        = ResolveReliability(options.reliability, graph.GetProfiles());
    // One recovery prototype; every transport forks its own.
    ObjectFactory recoveryFactory;
    recoveryFactory.SetTypeId(RdmaRecoveryTypeId(SpecName(reliability)));
    for (const auto& [name, value] : options.transportAttributes)
    {
        recoveryFactory.Set(name, StringValue(value));
    }
    const Ptr<RdmaRecoveryOps> recovery = recoveryFactory.Create<RdmaRecoveryOps>();

    // One RDMA transport per GPU: on its one port, or on all its ports (NVLink and
    // NIC) with the GPU's forwarding element choosing per destination.
    RdmaTransportHelper rdma;
    rdma.SetMtu(pathMtu);
    rdma.SetRecoveryOps(recovery);
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
        uint64_t nvlinkPorts = 0; // switch port i is the node's adjacency i
        const auto& adjacency = graph.GetAdjacency(n);
        for (std::size_t i = 0; i < adjacency.size() && i < 64; ++i)
        {
            if (links[adjacency[i].link].kind == FabricGraph::LinkKind::NVLINK)
            {
                nvlinkPorts |= uint64_t{1} << i;
            }
        }
        f.transports[gpu] = sw ? rdma.Install(f.nodes.Get(n),
                                              gpu,
                                              MakeBoundCallback(&SelectPort, sw),
                                              MakeBoundCallback(&SelectStripe, sw, nvlinkPorts))
                               : rdma.Install(f.nodes.Get(n), gpu);
    }
    f.endpointNodes = f.gpuNodes;

    // Routing strategies and tables (verified).
    options.routing.Install(graph, f, where);

    // In-network reducers: each NVSwitch an endpoint, reached from the GPUs it links to over
    // that link (and reaching them over theirs: its tables have every GPU of its domain).
    if (options.reducers)
    {
        const std::vector<uint32_t> reducers = graph.GetReducerNodes();
        for (uint32_t k = 0; k < reducers.size(); ++k)
        {
            const uint32_t n = reducers[k];
            const uint32_t endpoint = graph.GetGpuCount() + k;
            const Ptr<FabricSwitch>& sw = f.switches[n];
            const LinkProfile& profile
                = graph.GetProfiles()[links[graph.GetAdjacency(n).front().link].profile];
            rdma.SetTransportAttribute("DataPriority", UintegerValue(profile.dataPriority));
            rdma.SetTransportAttribute("ControlPriority", UintegerValue(profile.controlPriority));
            f.endpointNodes.Add(f.nodes.Get(n));
            f.transports.push_back(rdma.Install(f.nodes.Get(n),
                                                endpoint,
                                                MakeBoundCallback(&SelectPort, sw),
                                                RdmaTransport::StripeSelector()));
            if (!graph.IsNvSwitch(n))
            {
                continue; // an InfiniBand switch: routed below if a group uses it
            }
            for (const auto& adj : graph.GetAdjacency(n))
            {
                const Ptr<FabricSwitch>& gpuSwitch = f.switches[adj.peer];
                if (!gpuSwitch)
                {
                    continue; // a single-port GPU sends everything on its one link
                }
                gpuSwitch->GetRouting()->SetRoute(endpoint, {f.PortOn(graph, adj.peer, adj.link)});
            }
        }
        // SHARP's switches: every forwarding element's equal-cost next hops towards each, as
        // towards a GPU.
        for (const uint32_t endpoint : options.networkReducers)
        {
            NS_ABORT_MSG_IF(endpoint < graph.GetGpuCount()
                                || endpoint - graph.GetGpuCount() >= reducers.size(),
                            "endpoint " << endpoint << " is not a reducer");
            FabricRoutingHelper::InstallRoutesTo(graph,
                                                 f,
                                                 reducers[endpoint - graph.GetGpuCount()],
                                                 endpoint);
        }
    }
    return f;
}

} // namespace ns3
