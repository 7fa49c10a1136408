/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "link-profile.h"

namespace ns3
{

uint64_t
LinkProfile::WireBytes(uint64_t payload, bool first) const
{
    return payload + headerBytes + (first ? messageHeaderBytes : 0);
}

double
LinkProfile::GoodputBps() const
{
    return static_cast<double>(rate.GetBitRate()) * mtu / (mtu + headerBytes);
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
