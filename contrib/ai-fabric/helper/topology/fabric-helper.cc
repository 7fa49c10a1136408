/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/node.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHelper");

void
FabricHelper::PortAttributes::Set(const std::string& name, const AttributeValue& value)
{
    m_values.emplace_back(name, value.Copy());
}

FabricHelper::FabricHelper()
{
    m_deviceFactory.SetTypeId(FabricNetDevice::GetTypeId());
    m_channelFactory.SetTypeId(FabricChannel::GetTypeId());
    m_switchFactory.SetTypeId(FabricSwitch::GetTypeId());
}

void
FabricHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    NS_ABORT_MSG_IF(name == "FlowControl",
                    "FabricHelper: set the flow control with SetFlowControl (one per device)");
    m_deviceFactory.Set(name, value);
}

void
FabricHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
FabricHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    NS_ABORT_MSG_IF(name == "Routing",
                    "FabricHelper: set the routing with SetRouting (one per switch)");
    m_switchFactory.Set(name, value);
}

Ptr<FabricNetDevice>
FabricHelper::InstallDevice(Ptr<Node> node, const PortAttributes& own) const
{
    Ptr<FabricNetDevice> dev;
    if (own.m_values.empty())
    {
        dev = m_deviceFactory.Create<FabricNetDevice>();
    }
    else
    {
        ObjectFactory factory = m_deviceFactory;
        for (const auto& [name, value] : own.m_values)
        {
            NS_ABORT_MSG_IF(name == "FlowControl",
                            "FabricHelper: set the flow control with SetFlowControl");
            factory.Set(name, *value);
        }
        dev = factory.Create<FabricNetDevice>();
    }
    if (m_hasFlowControl)
    {
        dev->SetFlowControl(m_flowControlFactory.Create<FabricFlowControl>());
    }
    node->AddDevice(dev);
    return dev;
}

NetDeviceContainer
FabricHelper::Install(Ptr<Node> a,
                      const PortAttributes& aAttributes,
                      Ptr<Node> b,
                      const PortAttributes& bAttributes) const
{
    NS_LOG_FUNCTION(this << a << b);
    Ptr<FabricChannel> channel = m_channelFactory.Create<FabricChannel>();
    Ptr<FabricNetDevice> devA = InstallDevice(a, aAttributes);
    Ptr<FabricNetDevice> devB = InstallDevice(b, bAttributes);
    devA->Attach(channel);
    devB->Attach(channel);
    NetDeviceContainer devices;
    devices.Add(devA);
    devices.Add(devB);
    return devices;
}

NetDeviceContainer
FabricHelper::Install(Ptr<Node> a, Ptr<Node> b) const
{
    return Install(a, PortAttributes(), b, PortAttributes());
}

NetDeviceContainer
FabricHelper::Install(const NodeContainer& nodes) const
{
    NS_ABORT_MSG_IF(nodes.GetN() != 2, "FabricHelper: a cable connects exactly two nodes");
    return Install(nodes.Get(0), nodes.Get(1));
}

Ptr<FabricSwitch>
FabricHelper::InstallSwitch(Ptr<Node> node) const
{
    NS_LOG_FUNCTION(this << node);
    Ptr<FabricSwitch> sw = m_switchFactory.Create<FabricSwitch>();
    if (m_hasRouting)
    {
        sw->SetRouting(m_routingFactory.Create<FabricRouting>());
    }
    node->AggregateObject(sw);
    return sw;
}

} // namespace ns3
