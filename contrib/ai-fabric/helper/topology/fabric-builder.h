/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_BUILDER_H
#define AI_FABRIC_FABRIC_BUILDER_H

#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-routing-helper.h"
#include "ns3/fabric-switch.h"
#include "ns3/node-container.h"
#include "ns3/ptr.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/rdma-transport.h"
#include "ns3/spec-error.h"
#include "ns3/spec-names.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class FabricGraph;

/**
 * \ingroup ai-fabric
 * \brief The ns-3 objects of a built fabric, indexed like its FabricGraph.
 */
struct Fabric
{
    NodeContainer nodes;                        //!< one ns-3 Node per graph node, same order
    NodeContainer gpuNodes;                     //!< the GPUs' Nodes, by GPU index
    NodeContainer endpointNodes;                //!< every endpoint's Node, by endpoint id:
                                                //!< the GPUs, then the reducers if built
    std::vector<Ptr<RdmaTransport>> transports; //!< per endpoint id (GPU index first)
    std::vector<Ptr<FabricSwitch>> switches;    //!< per graph node; null for GPUs
    std::vector<Ptr<FabricNetDevice>> devicesA; //!< per graph link: the device at end a
    std::vector<Ptr<FabricNetDevice>> devicesB; //!< per graph link: the device at end b
    std::vector<Ptr<FabricChannel>> channels;   //!< per graph link

    /// \return packets transmitted by all devices (packet-hops)
    uint64_t GetPacketHops() const;
    /**
     * \param graph the fabric's graph
     * \param node a node with a forwarding element
     * \param link one of the node's links
     * \return the switch port of that link at \p node
     */
    uint16_t PortOn(const FabricGraph& graph, uint32_t node, uint32_t link) const;
};

/**
 * \ingroup ai-fabric
 * \brief How to build a fabric, beyond what its graph says.
 */
struct FabricBuildOptions
{
    /// The switches' routing strategies (default: ECMP everywhere).
    FabricRoutingHelper routing;
    int64_t stream{0}; //!< first ns-3 random stream index for the fabric's random choices
    /// Transport reliability; AUTO is resolved by ResolveReliability() (go-back-N if any
    /// link is lossy, else none).
    ReliabilitySetting reliability{ReliabilitySetting::AUTO};
    /// Congestion-control prototype forked per queue pair (e.g. a configured
    /// ns3::Dcqcn); null: none (line rate).
    Ptr<RdmaCongestionControl> congestionControl;
    /// Attributes of the transports' loss recovery (name, value as an ns-3 string; e.g.
    /// GoBackNRecovery's AckInterval, SendWindow, RetransmitTimeout).
    std::vector<std::pair<std::string, std::string>> transportAttributes;
    /// Fidelity knob (`fidelity: {cell_packets}`): one simulated packet carries up to this
    /// many MTU packets' payload, with all their wire bytes; 1 (the default) is full fidelity.
    uint32_t cellPackets{1};
    SpecLocation cellPacketsWhere; //!< where the knob was set, for errors
    /// Make every in-network reducer an endpoint too (FabricGraph::GetReducerNodes(): the
    /// NVSwitches, then the InfiniBand switches; endpoint GetGpuCount() + k), with a transport;
    /// an NVSwitch also gets the routes between it and the GPUs it links to (NVLink SHARP,
    /// `algorithm: nvls`), an InfiniBand switch those of networkReducers.
    bool reducers{false};
    /// Of the reducers, the InfiniBand switches groups send to (SHARP, `algorithm: collnet`),
    /// as endpoint ids: every forwarding element gets a route to each (the NVSwitches' are
    /// one hop from their GPUs and always set).
    std::vector<uint32_t> networkReducers;
};

/**
 * \ingroup ai-fabric
 * \brief Turns a FabricGraph into ns-3 Nodes, FabricNetDevices, FabricChannels,
 * FabricSwitches and RdmaTransports: cables and switches through FabricHelper (one helper per
 * link profile: its devices' attributes, delay and flow control; each end's receive latency,
 * cut-through and credit return by what its node is), transports through RdmaTransportHelper;
 * the switches' routing strategies and tables are FabricBuildOptions::routing's
 * (FabricRoutingHelper), which checks that every GPU reaches every other GPU and reports an
 * unreachable pair as a SpecError.
 */
class FabricBuilder
{
  public:
    /**
     * \param graph the fabric
     * \param where location of the topology, for errors
     * \param options routing, random streams and transport settings
     * \return the built fabric
     * \throws SpecError if some GPU cannot reach another
     */
    static Fabric Build(const FabricGraph& graph,
                        const SpecLocation& where,
                        const FabricBuildOptions& options = FabricBuildOptions());
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_BUILDER_H */
