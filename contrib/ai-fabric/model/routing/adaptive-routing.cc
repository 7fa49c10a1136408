/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "adaptive-routing.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AdaptiveRouting");
NS_OBJECT_ENSURE_REGISTERED(AdaptiveRouting);

TypeId
AdaptiveRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::AdaptiveRouting")
              .SetParent<FabricRouting>()
              .SetGroupName("AiFabric")
              .AddConstructor<AdaptiveRouting>()
              .AddAttribute("Granularity",
                            "How often a port is chosen: every packet, or at the first packet "
                            "of a flowlet",
                            EnumValue(AdaptiveRouting::PACKET),
                            MakeEnumAccessor(&AdaptiveRouting::m_granularity),
                            MakeEnumChecker(AdaptiveRouting::PACKET,
                                            "packet",
                                            AdaptiveRouting::FLOWLET,
                                            "flowlet"))
              .AddAttribute("FlowletGap",
                            "Flowlet granularity: a gap between two packets of a flow longer "
                            "than this starts a new flowlet (a configurable default, not a "
                            "measured one: docs/topologies.md#routing)",
                            TimeValue(MicroSeconds(4)),
                            MakeTimeAccessor(&AdaptiveRouting::m_flowletGap),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("FlowletTableSize",
                            "Flowlet granularity: entries of the switch's flowlet table",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&AdaptiveRouting::m_tableSize),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("DownstreamWeight",
                            "Weight of the next switch's congestion towards the destination (its "
                            "queue beyond DownstreamThreshold) in a port's cost (0: the local "
                            "egress queue alone)",
                            DoubleValue(1.0),
                            MakeDoubleAccessor(&AdaptiveRouting::m_downstreamWeight),
                            MakeDoubleChecker<double>(0.0))
              .AddAttribute("DownstreamThreshold",
                            "The next switch's queue towards the destination counts only beyond "
                            "this many bytes, as an adaptive-routing notification reports a "
                            "congested port, not a busy one. Default: ib-ndr's credit window "
                            "per lane (256 KiB), the queue that can hold an upstream port's "
                            "credits (head-of-line blocking); a configurable assumption, "
                            "measured in docs/bisection-efficiency.md",
                            UintegerValue(262144),
                            MakeUintegerAccessor(&AdaptiveRouting::m_downstreamThreshold),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("Bias",
                            "Bytes by which another port must cost less than the current one "
                            "(the flowlet's, or the ECMP hash's for per-packet choice) to be "
                            "taken; 0: no current port (quality bands, then random)",
                            UintegerValue(0),
                            MakeUintegerAccessor(&AdaptiveRouting::m_bias),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("Band",
                            "Unit of the quality bands: a port's cost is quantized into "
                            "exponential bands (band 0 below Band bytes, band k from "
                            "Band x 2^(k-1)), as switch ASICs quantize port quality, and the "
                            "packet takes a random port of the best band; 0: the least cost "
                            "(ties by RandomTies). Default: one ib-ndr MTU packet (4 KiB), "
                            "a configurable assumption",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&AdaptiveRouting::m_band),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("RandomTies",
                            "Scan the candidates from a random start (drawn from the switch's "
                            "stream), so that ties go to a random port; false: a rotating start",
                            BooleanValue(false),
                            MakeBooleanAccessor(&AdaptiveRouting::m_randomTies),
                            MakeBooleanChecker());
    return tid;
}

AdaptiveRouting::AdaptiveRouting()
{
    NS_LOG_FUNCTION(this);
}

AdaptiveRouting::~AdaptiveRouting()
{
}

uint64_t
AdaptiveRouting::GetFlowlets() const
{
    return m_flowletCount;
}

FabricRoute
AdaptiveRouting::Route(FabricFields& header, uint16_t /* inPort */, uint8_t priority)
{
    return RouteEqualCost<AdaptiveRouting>(header, priority);
}

uint64_t
AdaptiveRouting::FlowKey(const FabricFields& header) const
{
    const uint64_t key = Mix(((static_cast<uint64_t>(header.m_src) << 32)
                              ^ (static_cast<uint64_t>(header.m_dst) << 12) ^ header.m_qp)
                             ^ GetSalt());
    return key == 0 ? 1 : key;
}

uint64_t
AdaptiveRouting::Cost(uint16_t port, const FabricFields& header, uint8_t priority)
{
    const uint64_t local = m_switch->GetQueuedBytes(port, priority);
    if (m_downstreamWeight == 0)
    {
        return local;
    }
    const uint64_t next = DownstreamBytes(port, header.m_dst, priority);
    const uint64_t excess = next > m_downstreamThreshold ? next - m_downstreamThreshold : 0;
    return local
           + (m_downstreamWeight == 1.0
                  ? excess
                  : static_cast<uint64_t>(std::llround(m_downstreamWeight * excess)));
}

uint32_t
AdaptiveRouting::QualityBand(uint64_t cost) const
{
    uint32_t band = 0;
    for (uint64_t units = cost / m_band; units > 0; units >>= 1)
    {
        ++band;
    }
    return band;
}

uint16_t
AdaptiveRouting::Least(const uint16_t* ports,
                       uint32_t n,
                       uint16_t current,
                       const FabricFields& header,
                       uint8_t priority)
{
    if (m_bias > 0)
    {
        const uint64_t currentCost = Cost(current, header, priority);
        uint16_t best = current;
        uint64_t bestCost = currentCost;
        for (uint32_t k = 0; k < n && bestCost > 0; ++k)
        {
            const uint64_t c = ports[k] == current ? currentCost : Cost(ports[k], header, priority);
            if (c < bestCost)
            {
                best = ports[k];
                bestCost = c;
            }
        }
        return bestCost + m_bias < currentCost ? best : current;
    }
    if (m_band > 0)
    {
        // Quality bands: the ports of the best band are equally good; one of them at random
        // (so equal ports are sprayed, and switches reading the same state do not herd).
        uint32_t bands[MAX_SCAN];
        const uint32_t scan = std::min<uint32_t>(n, MAX_SCAN);
        uint32_t best = UINT32_MAX;
        for (uint32_t k = 0; k < scan; ++k)
        {
            bands[k] = QualityBand(Cost(ports[k], header, priority));
            best = std::min(best, bands[k]);
        }
        uint16_t good[MAX_SCAN];
        uint32_t m = 0;
        for (uint32_t k = 0; k < scan; ++k)
        {
            if (bands[k] == best)
            {
                good[m++] = ports[k];
            }
        }
        return m == 1 ? good[0] : good[m_rng->GetInteger(0, m - 1)];
    }
    const uint32_t start = m_randomTies ? m_rng->GetInteger(0, n - 1) : m_rotate++ % n;
    uint16_t best = ports[start];
    uint64_t bestCost = Cost(best, header, priority);
    for (uint32_t k = 1; k < n && bestCost > 0; ++k)
    {
        const uint16_t p = ports[(start + k) % n];
        const uint64_t c = Cost(p, header, priority);
        if (c < bestCost)
        {
            best = p;
            bestCost = c;
        }
    }
    return best;
}

uint16_t
AdaptiveRouting::Choose(const uint16_t* ports,
                        uint32_t n,
                        const FabricFields& header,
                        uint8_t priority)
{
    if (m_granularity == PACKET)
    {
        const uint16_t current = m_bias > 0 ? ports[FlowKey(header) % n] : ports[0];
        return Least(ports, n, current, header, priority);
    }
    if (m_flowlets.empty())
    {
        m_flowlets.resize(m_tableSize);
    }
    const uint64_t key = FlowKey(header);
    Flowlet& f = m_flowlets[key % m_flowlets.size()];
    const int64_t now = Simulator::Now().GetPicoSeconds();
    bool live = f.key == key && now - f.lastPs <= m_flowletGap.GetPicoSeconds();
    bool candidate = false;
    for (uint32_t k = 0; k < n && live && !candidate; ++k)
    {
        candidate = ports[k] == f.port;
    }
    if (!live || !candidate)
    {
        // A new flowlet: the least cost port, or with a bias the port the hash gives.
        f.key = key;
        f.port = Least(ports, n, ports[key % n], header, priority);
        ++m_flowletCount;
    }
    f.lastPs = now;
    return f.port;
}

} // namespace ns3
