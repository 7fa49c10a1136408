/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RDMA_TRANSPORT_HELPER_H
#define AI_FABRIC_RDMA_TRANSPORT_HELPER_H

#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/ptr.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/rdma-recovery-ops.h"
#include "ns3/rdma-transport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class AttributeValue;
class Node;

/**
 * \ingroup ai-fabric
 * \brief Creates the RdmaTransport of GPU nodes, binds it to the node's ports and
 * aggregates it to the node (where a WorkloadApplication finds it).
 *
 * \code
 *   RdmaTransportHelper rdma;
 *   rdma.SetRecoveryOps("ns3::GoBackNRecovery", "AckInterval", UintegerValue(8));
 *   rdma.SetCongestionControl("ns3::Dcqcn", "Rai", DataRateValue(DataRate("40Mbps")));
 *   std::vector<Ptr<RdmaTransport>> transports = rdma.Install(gpuNodes); // endpoint = index
 * \endcode
 *
 * A node with one FabricNetDevice gets a transport on that port. A node with a
 * FabricSwitch aggregated (a GPU with several ports, NVLink and NIC, whose forwarding
 * element chooses per destination) gets a transport on all the switch's ports; the
 * switch delivers the node's packets to it, and a port selector chooses each queue
 * pair's port (without one, port 0).
 */
class RdmaTransportHelper
{
  public:
    RdmaTransportHelper();

    /**
     * \brief Set an attribute of the transports to create.
     * \param name the attribute name
     * \param value its value
     */
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Give every transport one congestion-control prototype of this type (each
     * queue pair forks its own controller at its first CNP).
     * \tparam Args name-value pairs
     * \param type the RdmaCongestionControl TypeId name, e.g. "ns3::Dcqcn"
     * \param args its attributes, as name-value pairs
     */
    template<typename... Args>
    void SetCongestionControl(const std::string& type, Args&&... args);

    /**
     * \brief Give every transport this congestion-control prototype.
     * \param prototype the prototype (null: none, every queue pair at line rate)
     */
    void SetCongestionControl(Ptr<RdmaCongestionControl> prototype);

    /**
     * \brief Give every transport a loss-recovery prototype of this type (each transport
     * forks its own).
     * \tparam Args name-value pairs
     * \param type the RdmaRecoveryOps TypeId name, e.g. "ns3::GoBackNRecovery"
     * \param args its attributes, as name-value pairs
     */
    template<typename... Args>
    void SetRecoveryOps(const std::string& type, Args&&... args);

    /**
     * \brief Give every transport this loss-recovery prototype.
     * \param prototype the prototype (null: NoRecovery, for a lossless fabric)
     */
    void SetRecoveryOps(Ptr<RdmaRecoveryOps> prototype);

    /**
     * \param bytes payload bytes per packet (0, the default: the port's MTU; on a node
     *        with several ports, the smallest of theirs)
     */
    void SetMtu(uint32_t bytes);

    /**
     * \param node a GPU node: one FabricNetDevice, or an aggregated FabricSwitch
     * \param endpoint the endpoint id (GPU index) the fabric routes to
     * \param selector port choice per (destination, qp) on a node with a FabricSwitch
     * \param stripe ports a queue pair stripes its packets over (NVLink), per
     *        (destination, qp), on a node with a FabricSwitch (null: none)
     * \return the transport, aggregated to the node
     */
    Ptr<RdmaTransport> Install(Ptr<Node> node,
                               uint32_t endpoint,
                               RdmaTransport::PortSelector selector = {},
                               RdmaTransport::StripeSelector stripe = {}) const;

    /**
     * \param nodes GPU nodes; the i-th becomes endpoint i
     * \return their transports, by endpoint
     */
    std::vector<Ptr<RdmaTransport>> Install(NodeContainer nodes) const;

  private:
    ObjectFactory m_factory; //!< RdmaTransport factory
    uint32_t m_mtu{0};       //!< payload MTU, bytes (0: the port's)
};

template<typename... Args>
void
RdmaTransportHelper::SetCongestionControl(const std::string& type, Args&&... args)
{
    ObjectFactory factory(type, std::forward<Args>(args)...);
    SetCongestionControl(factory.Create<RdmaCongestionControl>());
}

template<typename... Args>
void
RdmaTransportHelper::SetRecoveryOps(const std::string& type, Args&&... args)
{
    ObjectFactory factory(type, std::forward<Args>(args)...);
    SetRecoveryOps(factory.Create<RdmaRecoveryOps>());
}

} // namespace ns3

#endif /* AI_FABRIC_RDMA_TRANSPORT_HELPER_H */
