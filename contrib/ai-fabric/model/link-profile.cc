/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "link-profile.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

uint64_t
LinkProfile::WireBytes(uint64_t payload, bool first) const
{
    const uint64_t segments
        = (segmentBytes == 0 || payload == 0) ? 1 : (payload + segmentBytes - 1) / segmentBytes;
    return payload + segments * headerBytes + framingBytes + (first ? messageHeaderBytes : 0);
}

double
LinkProfile::GoodputBps() const
{
    return static_cast<double>(rate.GetBitRate()) * mtu / WireBytes(mtu, false);
}

uint64_t
LinkProfile::PfcHeadroomBytes() const
{
    // mlx5: xoff = (301 + 2.16 * len_m) * speed_Gbps + 2.72 * MTU, speed floored at 40G.
    const double gbps = std::max(40.0, rate.GetBitRate() / 1e9);
    const double cableM = propagationDelay.GetSeconds() / 5e-9;
    const double frame = mtu + headerBytes + framingBytes + messageHeaderBytes;
    const double reaction = pfcReactionTime.GetSeconds() * rate.GetBitRate() / 8;
    return static_cast<uint64_t>(std::ceil((301 + 2.16 * cableM) * gbps + 2.72 * frame + reaction));
}

std::string
LinkProfile::FlowControlName() const
{
    switch (flowControl)
    {
        case FlowControl::CREDIT:
            return "credit";
        case FlowControl::PFC:
            return "pfc";
        case FlowControl::NONE:
            break;
    }
    return "none";
}

bool
ParseFlowControl(const std::string& name, LinkProfile::FlowControl& kind)
{
    if (name == "none")
    {
        kind = LinkProfile::FlowControl::NONE;
    }
    else if (name == "credit")
    {
        kind = LinkProfile::FlowControl::CREDIT;
    }
    else if (name == "pfc")
    {
        kind = LinkProfile::FlowControl::PFC;
    }
    else
    {
        return false;
    }
    return true;
}

namespace
{

std::vector<LinkProfile>
MakePresets()
{
    std::vector<LinkProfile> presets;

    // InfiniBand NDR, 4x port. FACTS.md 2.2:
    //  * 400 Gb/s MAC data rate (4 lanes x 100 Gb/s after 256b/257b + RS-FEC; 106.25 Gb/s
    //    signalling per lane) [M: infiniband.jp table, NVIDIA cable docs].
    //  * per-packet overhead LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B; RETH 16 B on the first
    //    packet of an RDMA WRITE [S: Linux include/rdma/ib_pack.h, IBTA].
    //  * MTU 4096 B, the largest IB path MTU [S: IBTA, ibv_devinfo max_mtu].
    //  * propagation 5 ns/m of cable [D]; default 10 m -> 50 ns (configurable) [U].
    //  * Quantum-2 port-to-port latency quoted 130-350 ns by third parties [U]; 250 ns default.
    LinkProfile ndr;
    ndr.name = "ib-ndr";
    ndr.technology = "infiniband";
    ndr.rate = DataRate("400Gbps");
    ndr.mtu = 4096;
    ndr.headerBytes = 26;
    ndr.messageHeaderBytes = 16;
    ndr.propagationDelay = NanoSeconds(50);
    ndr.switchLatency = NanoSeconds(250);
    ndr.nicLatency = Seconds(0);
    ndr.controlPacketBytes = 30; // LRH 8 + BTH 12 + AETH 4 + ICRC 4 + VCRC 2
    ndr.flowControl = LinkProfile::FlowControl::CREDIT;
    ndr.priorities = 2;
    ndr.creditsPerLane = 256 * 1024;
    ndr.bufferPerPort = 1024 * 1024;
    ndr.source = "FACTS.md 2.2 (IB rates, ib_pack.h header sizes, switch latency [U])";
    presets.push_back(ndr);

    return presets;
}

} // namespace

const std::vector<LinkProfile>&
LinkProfilePresets()
{
    static const std::vector<LinkProfile> presets = MakePresets();
    return presets;
}

const LinkProfile*
FindLinkProfile(const std::string& name)
{
    for (const auto& p : LinkProfilePresets())
    {
        if (p.name == name)
        {
            return &p;
        }
    }
    return nullptr;
}

} // namespace ns3
