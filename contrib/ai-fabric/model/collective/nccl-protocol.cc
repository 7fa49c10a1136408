/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-protocol.h"

#include "ns3/abort.h"
#include "ns3/collective-algorithm.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{

/// Microseconds to seconds.
constexpr double US = 1e-6;

/**
 * \brief The protocols' profiles, in Protocol order (AUTO has none).
 *
 * Slots (NCCL src/include/device.h, NCCL_STEPS = 8 per buffer): Simple, NCCL_BUFFSIZE
 * 4 MiB / 8 = 512 KiB; LL, NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 = 4096
 * 16-byte lines of 8 data bytes = 32 KiB of data; LL128, NCCL_LL128_ELEMS_PER_THREAD 120 x
 * NCCL_LL128_MAX_NTHREADS 640 8-byte words = 4800 128-byte lines of 120 data bytes =
 * 576,000 bytes of data.
 *
 * Latencies (NCCL src/graph/tuning.cc, FACTS.md 3.7), microseconds: baseLat Ring
 * LL/LL128/Simple 6.6/14.0/8.4, Tree 6.8/14.0/8.4; hwLat NVLink Ring 0.6/1.9/3.4, Tree
 * 0.6/1.25/4.0; NET Ring 2.7/4.0/14.0, Tree 5.0/8.5/14.0. NCCL's per-hop figures include
 * the wire, which the simulation adds on top (docs/collectives.md, "Protocols").
 */
const ProtocolProfile PROFILES[] = {
    {Protocol::NONE, "none", WireFormat::RAW, 0, 0, 0, 0, 0, 0, 0},
    {Protocol::SIMPLE,
     "simple",
     WireFormat::RAW,
     512 * 1024,
     8.4 * US,
     8.4 * US,
     3.4 * US,
     4.0 * US,
     14.0 * US,
     14.0 * US},
    {Protocol::LL,
     "ll",
     WireFormat::LL,
     32 * 1024,
     6.6 * US,
     6.8 * US,
     0.6 * US,
     0.6 * US,
     2.7 * US,
     5.0 * US},
    {Protocol::LL128,
     "ll128",
     WireFormat::LL128,
     576000,
     14.0 * US,
     14.0 * US,
     1.9 * US,
     1.25 * US,
     4.0 * US,
     8.5 * US},
};

/// Rounded to the picosecond, so that results do not depend on the Time resolution.
Time
Ps(double seconds)
{
    return PicoSeconds(std::llround(seconds * 1e12));
}

} // namespace

const ProtocolProfile&
GetProtocolProfile(Protocol p)
{
    NS_ABORT_MSG_IF(p == Protocol::AUTO, "the AUTO protocol has no profile: resolve it first");
    return PROFILES[static_cast<uint32_t>(p)];
}

std::string
ProtocolName(Protocol p)
{
    return p == Protocol::AUTO ? "auto" : GetProtocolProfile(p).name;
}

bool
ProtocolFromName(const std::string& name, Protocol& p)
{
    if (name == "auto")
    {
        p = Protocol::AUTO;
        return true;
    }
    for (const ProtocolProfile& profile : PROFILES)
    {
        if (profile.name == name)
        {
            p = profile.protocol;
            return true;
        }
    }
    return false;
}

std::vector<std::string>
ProtocolNames()
{
    std::vector<std::string> names;
    for (const ProtocolProfile& profile : PROFILES)
    {
        names.push_back(profile.name);
    }
    names.emplace_back("auto");
    return names;
}

void
ApplyProtocol(WorkloadGroup& g, Protocol p, const ProtocolOverrides& given)
{
    const ProtocolProfile& profile = GetProtocolProfile(p);
    const bool tree = g.algorithm == "tree";
    // NVLS: one latency for the whole collective (NCCL's model has no per-hop term for it).
    const bool nvls = g.algorithm == "nvls";
    const bool collnet = g.algorithm == "collnet"; // likewise for CollNet Direct
    g.protocol = p;
    if (!given.chunk && g.chunkBytes > 0 && profile.slotBytes > 0)
    {
        g.chunkBytes = profile.slotBytes; // a chunked algorithm: one slot per piece
    }
    if (!given.slots)
    {
        g.slots = p == Protocol::NONE ? 0 : NCCL_SLOTS;
    }
    if (!given.launch)
    {
        g.launchLatency = nvls ? Ps(p == Protocol::NONE ? 0 : NCCL_NVLS_NVLINK_LATENCY_S)
                          : collnet
                              ? Ps(p == Protocol::NONE ? 0 : NcclCollnetLatency(g.tree.localRanks))
                              : Ps(tree ? profile.launchTreeS : profile.launchRingS);
    }
    if (!given.hopIntra)
    {
        g.hopLatencyIntra
            = nvls || collnet ? Time() : Ps(tree ? profile.hopNvlinkTreeS : profile.hopNvlinkRingS);
    }
    if (!given.hopInter)
    {
        g.hopLatencyInter
            = nvls || collnet ? Time() : Ps(tree ? profile.hopNetTreeS : profile.hopNetRingS);
    }
}

double
NcclCollnetLatency(uint32_t localRanks)
{
    const double g = std::max<uint32_t>(localRanks, 1);
    return 2 * (std::min(1.0, g - 1) * 3.7 * US + (g - 1) * 0.4 * US) + 31 * US;
}

std::vector<Protocol>
ProtocolsOf(const std::string& algorithm, const std::vector<Protocol>& autoCandidates)
{
    const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(algorithm);
    if (algo && algo->GetCapabilities().inNetwork)
    {
        return {Protocol::SIMPLE};
    }
    return autoCandidates;
}

uint64_t
LargestPeerMessage(const WorkloadGroup& g)
{
    uint64_t largest = 0;
    for (const WorkloadTransfer& t : g.transfers)
    {
        largest = std::max(largest, t.bytes);
    }
    for (const uint64_t b : g.matrix)
    {
        largest = std::max(largest, b);
    }
    if (g.transfers.empty() && g.matrix.empty() && !g.ranks.empty())
    {
        largest = (g.bytes + g.ranks.size() - 1) / g.ranks.size(); // uniform S / P
    }
    return largest;
}

std::vector<Protocol>
AutoProtocolCandidates()
{
    return {Protocol::SIMPLE, Protocol::LL128, Protocol::LL};
}

} // namespace ns3
