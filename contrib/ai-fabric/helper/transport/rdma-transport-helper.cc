/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-transport-helper.h"

#include "ns3/abort.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/node.h"

namespace ns3
{

RdmaTransportHelper::RdmaTransportHelper()
{
    m_factory.SetTypeId(RdmaTransport::GetTypeId());
}

void
RdmaTransportHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
RdmaTransportHelper::SetCongestionControl(Ptr<RdmaCongestionControl> prototype)
{
    m_factory.Set("CongestionControl", PointerValue(prototype));
}

void
RdmaTransportHelper::SetRecoveryOps(Ptr<RdmaRecoveryOps> prototype)
{
    m_factory.Set("RecoveryOps", PointerValue(prototype));
}

void
RdmaTransportHelper::SetMtu(uint32_t bytes)
{
    m_mtu = bytes;
}

Ptr<RdmaTransport>
RdmaTransportHelper::Install(Ptr<Node> node,
                             uint32_t endpoint,
                             RdmaTransport::PortSelector selector,
                             RdmaTransport::StripeSelector stripe) const
{
    Ptr<RdmaTransport> t = m_factory.Create<RdmaTransport>();
    if (Ptr<FabricSwitch> sw = node->GetObject<FabricSwitch>())
    {
        std::vector<Ptr<FabricNetDevice>> ports;
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            ports.push_back(sw->GetPort(i));
        }
        t->Setup(endpoint, ports, m_mtu == 0 ? UINT32_MAX : m_mtu, selector, stripe);
        sw->SetLocalEndpoint(endpoint, t->GetReceiveCallback());
    }
    else
    {
        NS_ABORT_MSG_IF(node->GetNDevices() != 1,
                        "node " << node->GetId() << " has " << node->GetNDevices()
                                << " devices and no FabricSwitch to choose among them");
        Ptr<FabricNetDevice> nic = DynamicCast<FabricNetDevice>(node->GetDevice(0));
        NS_ABORT_MSG_IF(!nic, "node " << node->GetId() << " has no FabricNetDevice");
        t->Setup(endpoint, nic, m_mtu);
    }
    node->AggregateObject(t);
    return t;
}

std::vector<Ptr<RdmaTransport>>
RdmaTransportHelper::Install(NodeContainer nodes) const
{
    std::vector<Ptr<RdmaTransport>> transports;
    transports.reserve(nodes.GetN());
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        transports.push_back(Install(nodes.Get(i), i));
    }
    return transports;
}

} // namespace ns3
