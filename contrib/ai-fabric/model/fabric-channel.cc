/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-channel.h"

#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricChannel")
                            .SetParent<Channel>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricChannel>()
                            .AddAttribute("Delay",
                                          "One-way propagation delay of the cable",
                                          TimeValue(NanoSeconds(50)),
                                          MakeTimeAccessor(&FabricChannel::m_delay),
                                          MakeTimeChecker(Seconds(0)));
    return tid;
}

FabricChannel::FabricChannel()
{
}

FabricChannel::~FabricChannel()
{
}

void
FabricChannel::DoDispose()
{
    m_ends[0] = nullptr;
    m_ends[1] = nullptr;
    Channel::DoDispose();
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "FabricChannel connects exactly two devices");
    m_endNodeIds[m_nDevices] = device->GetNode() ? device->GetNode()->GetId() : 0;
    m_ends[m_nDevices++] = device;
}

void
FabricChannel::Transmit(Ptr<Packet> packet,
                        const FabricNetDevice* src,
                        Time txTime,
                        uint32_t wireBytes,
                        uint8_t priority) const
{
    const std::size_t peer = (PeekPointer(m_ends[0]) == src) ? 1 : 0;
    if (!m_endsCached)
    {
        for (std::size_t i = 0; i < m_nDevices; ++i)
        {
            m_cutThrough[i] = m_ends[i]->IsCutThrough();
            m_rxLatency[i] = m_ends[i]->GetRxLatency();
        }
        m_endsCached = true;
    }
    Time arrive = txTime;
    if (m_cutThrough[peer] && wireBytes > CUT_THROUGH_BYTES)
    {
        arrive = PicoSeconds(txTime.GetPicoSeconds() * CUT_THROUGH_BYTES / wireBytes);
    }
    Simulator::ScheduleWithContext(m_endNodeIds[peer],
                                   arrive + m_delay + m_rxLatency[peer],
                                   &FabricNetDevice::Receive,
                                   m_ends[peer],
                                   packet,
                                   wireBytes,
                                   priority);
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(const FabricNetDevice* device) const
{
    return (PeekPointer(m_ends[0]) == device) ? m_ends[1] : m_ends[0];
}

Time
FabricChannel::GetDelay() const
{
    return m_delay;
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return m_ends.at(i);
}

} // namespace ns3
