/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-channel.h"

#include "ns3/abort.h"
#include "ns3/fabric-net-device.h"
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
    m_fc = {nullptr, nullptr};
    m_endsCached = false;
    for (Direction& d : m_dirs)
    {
        d.Clear();
    }
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
FabricChannel::Transmit(FabricTxItem&& item, const FabricNetDevice* src, Time txTime)
{
    const std::size_t peer = PeerIndex(src);
    if (!m_endsCached)
    {
        CacheEnds();
    }
    int64_t arrivePs = txTime.GetPicoSeconds();
    if (m_cutThrough[peer] && item.wireBytes > CUT_THROUGH_BYTES)
    {
        arrivePs = arrivePs * CUT_THROUGH_BYTES / item.wireBytes;
    }
    // Arrivals keep the order of transmission: a port starts a packet no earlier than the
    // previous one ended, and even a cut-through arrival is after that start.
    const Time delay = PicoSeconds(arrivePs) + m_delay + m_rxLatency[peer];

    FabricArrival& f = m_dirs[peer].PushSlot();
    f.packet = std::move(item.packet);
    f.header = item.header;
    f.wireBytes = item.wireBytes;
    f.priority = item.priority;
    // One occurrence of the direction's event per packet, scheduled now: occurrences run in
    // the order of their times and, at equal times, of scheduling, which is the FIFO's order,
    // so each delivers the head. (Scheduling only the head's arrival, when the previous one
    // arrives, would put near-future keys into the scheduler's heap, which cost more to
    // insert than far-future ones.)
    if (peer == 0)
    {
        m_deliver0.ScheduleWithContext(m_endNodeIds[0], delay);
    }
    else
    {
        m_deliver1.ScheduleWithContext(m_endNodeIds[1], delay);
    }
}

void
FabricChannel::CacheEnds()
{
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_cutThrough[i] = m_ends[i]->IsCutThrough();
        m_rxLatency[i] = m_ends[i]->GetRxLatency();
        m_fc[i] = m_ends[i]->PeekFlowControl();
    }
    m_endsCached = true;
}

template<std::size_t to>
void
FabricChannel::Deliver()
{
    Direction& d = m_dirs[to];
    if (d.Empty())
    {
        return; // disposed while arrivals were pending
    }
    // Move the packet out before anything else runs: the receiver may transmit on this cable.
    FabricArrival arrival = std::move(d.Front());
    d.PopFront();
    m_ends[to]->Receive(arrival);
}

void
FabricChannel::ReturnCredits(const FabricNetDevice* src, uint8_t lane, uint32_t bytes)
{
    if (!m_endsCached)
    {
        CacheEnds();
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    m_fc[PeerIndex(src)]->ReceiveCredits(now, now + m_delay.GetTimeStep(), lane, bytes);
}

void
FabricChannel::SendPause(const FabricNetDevice* src, uint8_t lane, bool paused, Time frameTime)
{
    NS_LOG_LOGIC((paused ? "XOFF" : "XON") << " lane " << +lane << " onto the cable");
    Ptr<FabricNetDevice> peer = m_ends[PeerIndex(src)];
    Simulator::ScheduleWithContext(peer->GetNode()->GetId(),
                                   m_delay + frameTime,
                                   &FabricNetDevice::SetPaused,
                                   peer,
                                   lane,
                                   paused);
}

std::size_t
FabricChannel::GetInFlight() const
{
    return m_dirs[0].Size() + m_dirs[1].Size();
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
