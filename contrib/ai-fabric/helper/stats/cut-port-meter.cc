/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cut-port-meter.h"

#include "ns3/abort.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/workload-execution.h"
#include "ns3/workload.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CutPortMeter");

CutPortMeter::CutPortMeter(const BisectionCutInfo& cut,
                           const std::vector<Ptr<FabricNetDevice>>& devicesA,
                           const std::vector<Ptr<FabricNetDevice>>& devicesB)
    : m_counts(cut.ports.size())
{
    NS_LOG_FUNCTION(this);
    m_side.reserve(cut.sideA.size());
    for (const bool a : cut.sideA)
    {
        m_side.push_back(a ? 0 : 1);
    }
    for (uint32_t i = 0; i < cut.ports.size(); ++i)
    {
        const uint32_t port = cut.ports[i];
        const uint32_t link = port / 2;
        NS_ABORT_MSG_IF(link >= devicesA.size() || link >= devicesB.size(),
                        "CutPortMeter: no device for port " << port);
        Ptr<FabricNetDevice> device = port % 2 == 0 ? devicesA[link] : devicesB[link];
        device->TraceConnectWithoutContext("TxFields",
                                           MakeCallback(&CutPortMeter::Transmit, this, i));
        m_ports.push_back(device);
    }
}

CutPortMeter::~CutPortMeter()
{
}

void
CutPortMeter::Watch(uint32_t group, Time start, uint64_t sends)
{
    NS_LOG_FUNCTION(this << group << start << sends);
    Watched& w = m_windows[group];
    w.sendsLeft = sends;
    w.window.startS = start.GetSeconds();
    w.window.endS = w.window.startS;
    if (start <= Simulator::Now())
    {
        Start(group);
    }
    else
    {
        Simulator::Schedule(start - Simulator::Now(), [this, group]() {
            ++m_events;
            Start(group);
        });
    }
}

void
CutPortMeter::Connect(Ptr<WorkloadExecution> execution)
{
    NS_LOG_FUNCTION(this);
    m_ops = &execution->GetWorkload().GetOps();
    execution->TraceConnectWithoutContext("OpDone", MakeCallback(&CutPortMeter::OpDone, this));
}

void
CutPortMeter::Finish()
{
    NS_LOG_FUNCTION(this);
    for (auto& [group, w] : m_windows)
    {
        if (!w.started)
        {
            Start(group); // never reached (the run stopped first): an empty window
        }
        if (!w.ended)
        {
            End(w);
        }
    }
}

const CutWindow*
CutPortMeter::GetWindow(uint32_t group) const
{
    const auto it = m_windows.find(group);
    return it == m_windows.end() ? nullptr : &it->second.window;
}

uint64_t
CutPortMeter::GetEvents() const
{
    return m_events;
}

void
CutPortMeter::Transmit(uint32_t index, const FabricFields& header, uint32_t wireBytes)
{
    PortTraffic& c = m_counts[index];
    c.wireBytes += wireBytes;
    c.payloadBytes += header.m_payload;
    const std::size_t n = m_side.size();
    if (header.m_src < n && header.m_dst < n && m_side[header.m_src] != m_side[header.m_dst])
    {
        c.crossingWireBytes += wireBytes;
        c.crossingPayloadBytes += header.m_payload;
    }
}

void
CutPortMeter::OpDone(uint32_t op)
{
    const WorkloadOp& o = (*m_ops)[op];
    if (o.kind != WorkloadOp::SEND)
    {
        return;
    }
    const auto it = m_windows.find(o.group);
    if (it == m_windows.end())
    {
        return;
    }
    Watched& w = it->second;
    if (w.sendsLeft > 0 && --w.sendsLeft == 0)
    {
        w.window.complete = true;
        End(w);
    }
}

std::vector<PortTraffic>
CutPortMeter::Snapshot() const
{
    std::vector<PortTraffic> now = m_counts;
    for (std::size_t i = 0; i < now.size(); ++i)
    {
        now[i].busyPs = m_ports[i]->GetBusyTimeUntilNow().GetPicoSeconds();
    }
    return now;
}

void
CutPortMeter::Start(uint32_t group)
{
    Watched& w = m_windows[group];
    w.started = true;
    w.atStart = Snapshot();
    if (w.sendsLeft == 0 && !w.ended)
    {
        w.window.complete = true; // nothing to send: an empty window
        End(w);
    }
}

void
CutPortMeter::End(Watched& w)
{
    w.ended = true;
    w.window.endS = std::max(w.window.startS, Simulator::Now().GetSeconds());
    std::vector<PortTraffic> now = Snapshot();
    for (std::size_t i = 0; i < now.size(); ++i)
    {
        const PortTraffic& s = w.atStart[i];
        now[i].wireBytes -= s.wireBytes;
        now[i].payloadBytes -= s.payloadBytes;
        now[i].crossingWireBytes -= s.crossingWireBytes;
        now[i].crossingPayloadBytes -= s.crossingPayloadBytes;
        now[i].busyPs -= s.busyPs;
    }
    w.window.traffic = std::move(now);
    w.atStart.clear();
}

} // namespace ns3
