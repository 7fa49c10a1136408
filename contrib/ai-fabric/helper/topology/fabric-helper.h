/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_HELPER_H
#define AI_FABRIC_FABRIC_HELPER_H

#include "ns3/attribute.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class FabricChannel;
class FabricNetDevice;
class FabricSwitch;
class Node;

/**
 * \ingroup ai-fabric
 * \brief Builds cables (two FabricNetDevices on one FabricChannel) and switches
 * (FabricSwitch, aggregated to a node), ns-3 helper style, like PointToPointHelper.
 *
 * \code
 *   FabricHelper fabric;
 *   fabric.SetDeviceAttribute("DataRate", DataRateValue(DataRate("400Gbps")));
 *   fabric.SetChannelAttribute("Delay", TimeValue(NanoSeconds(50)));
 *   fabric.SetFlowControl("ns3::CreditFlowControl", "CreditsPerLane", UintegerValue(256 << 10));
 *   fabric.SetRouting("ns3::EcmpRouting");
 *   Ptr<FabricSwitch> sw = fabric.InstallSwitch(switchNode);
 *   NetDeviceContainer cable = fabric.Install(gpuNode, switchNode);
 * \endcode
 *
 * Every device gets its own flow control (a FabricFlowControl made from SetFlowControl's type
 * and attributes; without it, the device's own NoFlowControl) and every switch its own routing
 * strategy (SetRouting's; without it, none: FabricRoutingHelper installs one later). What a port
 * does with the packets it receives depends on its node (a switch adds its port-to-port latency
 * and may cut through; a GPU's buffer drains at once): Install takes, per end, device attributes
 * that override SetDeviceAttribute's (PortAttributes).
 *
 * Order of creation (it fixes the MAC addresses, and the order of the nodes' start-up events):
 * the channel, device a, its flow control, device a added to node a, the same for b, then both
 * attached to the channel.
 */
class FabricHelper
{
  public:
    /**
     * \brief Device attributes of one end of a cable that override the helper's.
     */
    class PortAttributes
    {
      public:
        /**
         * \param name a FabricNetDevice attribute
         * \param value its value at this end
         */
        void Set(const std::string& name, const AttributeValue& value);

      private:
        friend class FabricHelper;
        std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_values; //!< name, value
    };

    FabricHelper();

    /**
     * \param name a FabricNetDevice attribute
     * \param value its value on every device this helper creates
     */
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \param name a FabricChannel attribute
     * \param value its value on every channel this helper creates
     */
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \param name a FabricSwitch attribute (not Routing: SetRouting)
     * \param value its value on every switch this helper creates
     */
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Give every device a flow control of this type (each its own object).
     * \tparam Ts attribute name and value pairs
     * \param type a FabricFlowControl TypeId name, e.g. "ns3::PfcFlowControl"
     * \param args its attributes
     */
    template<typename... Ts>
    void SetFlowControl(const std::string& type, Ts&&... args);

    /**
     * \brief Give every switch a routing strategy of this type (each its own object).
     * \tparam Ts attribute name and value pairs
     * \param type a FabricRouting TypeId name, e.g. "ns3::EcmpRouting"
     * \param args its attributes
     */
    template<typename... Ts>
    void SetRouting(const std::string& type, Ts&&... args);

    /**
     * \brief Connect two nodes by a cable.
     * \param a a node
     * \param b another node
     * \return the two devices: a's, then b's
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b) const;
    /**
     * \brief Connect two nodes by a cable.
     * \param nodes exactly two nodes
     * \return the two devices, in the nodes' order
     */
    NetDeviceContainer Install(const NodeContainer& nodes) const;
    /**
     * \brief Connect two nodes by a cable whose ends differ.
     * \param a a node
     * \param aAttributes device attributes of a's end, over the helper's
     * \param b another node
     * \param bAttributes device attributes of b's end, over the helper's
     * \return the two devices: a's, then b's
     */
    NetDeviceContainer Install(Ptr<Node> a,
                               const PortAttributes& aAttributes,
                               Ptr<Node> b,
                               const PortAttributes& bAttributes) const;

    /**
     * \brief Make a node a switch: a FabricSwitch (with its routing strategy, if
     * SetRouting was called) aggregated to it. Ports join it with FabricSwitch::AddPort.
     * \param node the node
     * \return the switch
     */
    Ptr<FabricSwitch> InstallSwitch(Ptr<Node> node) const;

  private:
    /**
     * \param node the node
     * \param own this end's attributes, over the helper's
     * \return a new device with its flow control, added to the node
     */
    Ptr<FabricNetDevice> InstallDevice(Ptr<Node> node, const PortAttributes& own) const;

    ObjectFactory m_deviceFactory;      //!< FabricNetDevice
    ObjectFactory m_channelFactory;     //!< FabricChannel
    ObjectFactory m_switchFactory;      //!< FabricSwitch
    ObjectFactory m_flowControlFactory; //!< FabricFlowControl, one per device
    ObjectFactory m_routingFactory;     //!< FabricRouting, one per switch
    bool m_hasFlowControl{false};       //!< SetFlowControl was called
    bool m_hasRouting{false};           //!< SetRouting was called
};

template<typename... Ts>
void
FabricHelper::SetFlowControl(const std::string& type, Ts&&... args)
{
    m_flowControlFactory = ObjectFactory(type, std::forward<Ts>(args)...);
    m_hasFlowControl = true;
}

template<typename... Ts>
void
FabricHelper::SetRouting(const std::string& type, Ts&&... args)
{
    m_routingFactory = ObjectFactory(type, std::forward<Ts>(args)...);
    m_hasRouting = true;
}

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_HELPER_H */
