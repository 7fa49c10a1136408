/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "channel-plan.h"

#include "ns3/collective-algorithm.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace ns3
{

namespace
{

/**
 * \brief The group's rank positions by server.
 * \param ranks the group's endpoints
 * \param places per endpoint id, where it sits
 * \return per server (in order of first appearance), its rank positions by local index
 */
std::vector<std::vector<uint32_t>>
RanksByServer(const std::vector<uint32_t>& ranks, const std::vector<EndpointPlace>& places)
{
    std::vector<std::vector<uint32_t>> servers;
    std::map<uint32_t, std::size_t> index; // server id -> position in servers
    for (uint32_t pos = 0; pos < ranks.size(); ++pos)
    {
        const uint32_t e = ranks[pos];
        const uint32_t server = e < places.size() ? places[e].server : EndpointPlace::NONE;
        if (server == EndpointPlace::NONE)
        {
            servers.push_back({pos}); // a server of its own
            continue;
        }
        auto [it, fresh] = index.emplace(server, servers.size());
        if (fresh)
        {
            servers.emplace_back();
        }
        servers[it->second].push_back(pos);
    }
    for (auto& s : servers)
    {
        std::stable_sort(s.begin(), s.end(), [&](uint32_t a, uint32_t b) {
            return places[ranks[a]].local < places[ranks[b]].local;
        });
    }
    return servers;
}

/// \return x mod m for a possibly negative x (m > 0)
uint32_t
Mod(int64_t x, uint32_t m)
{
    const int64_t r = x % static_cast<int64_t>(m);
    return static_cast<uint32_t>(r < 0 ? r + m : r);
}

} // namespace

uint32_t
NcclChannelCount(const std::vector<uint32_t>& ranks, const std::vector<EndpointPlace>& places)
{
    const std::vector<std::vector<uint32_t>> servers = RanksByServer(ranks, places);
    std::size_t perServer = 1;
    for (const auto& s : servers)
    {
        perServer = std::max(perServer, s.size());
    }
    const uint32_t max = CollectiveAlgorithm::MAX_CHANNELS;
    uint32_t channels = static_cast<uint32_t>(std::min<std::size_t>(2 * perServer, max));
    if (servers.size() > 1 && channels < 16)
    {
        channels = std::min(2 * channels, max);
    }
    return channels;
}

std::vector<std::vector<uint32_t>>
TopologyRings(const std::vector<uint32_t>& ranks,
              const std::vector<EndpointPlace>& places,
              uint32_t channels)
{
    std::vector<std::vector<uint32_t>> rings;
    if (places.empty())
    {
        return rings;
    }
    const std::vector<std::vector<uint32_t>> servers = RanksByServer(ranks, places);
    const auto s = static_cast<uint32_t>(servers.size());
    if (s < 2)
    {
        return rings;
    }
    std::size_t perServer = 1;
    for (const auto& members : servers)
    {
        perServer = std::max(perServer, members.size());
    }
    const auto count = static_cast<uint32_t>(std::min<std::size_t>(perServer, channels));
    // Entry rail of server j on ring r (before reduction modulo the server's size).
    auto entry = [s](uint32_t r, uint32_t j) -> int64_t {
        if (s % 2 == 1 && j == s - 1)
        {
            return int64_t{r} - 2; // an odd count: a third rail closes the ring
        }
        return int64_t{r} - (j % 2);
    };
    for (uint32_t r = 0; r < count; ++r)
    {
        std::vector<uint32_t> ring;
        ring.reserve(ranks.size());
        for (uint32_t j = 0; j < s; ++j)
        {
            const std::vector<uint32_t>& members = servers[j];
            const auto m = static_cast<uint32_t>(members.size());
            const uint32_t in = Mod(entry(r, j), m);
            uint32_t out = Mod(entry(r, (j + 1) % s), m);
            if (out == in && m > 1)
            {
                out = (in + 1) % m; // two GPUs and an odd server count: one hop changes rail
            }
            ring.push_back(members[in]);
            for (uint32_t k = 1; k < m; ++k)
            {
                const uint32_t i = (in + k) % m;
                if (i != out)
                {
                    ring.push_back(members[i]);
                }
            }
            if (out != in)
            {
                ring.push_back(members[out]);
            }
        }
        rings.push_back(std::move(ring));
    }
    return rings;
}

std::vector<std::vector<std::vector<uint32_t>>>
TopologyTrees(const std::vector<uint32_t>& ranks,
              const std::vector<EndpointPlace>& places,
              uint32_t channels)
{
    std::vector<std::vector<std::vector<uint32_t>>> trees;
    if (places.empty() || ranks.empty())
    {
        return trees;
    }
    const std::vector<std::vector<uint32_t>> servers = RanksByServer(ranks, places);
    std::size_t perServer = 1;
    for (const auto& members : servers)
    {
        perServer = std::max(perServer, members.size());
    }
    if (perServer < 2)
    {
        return trees; // every rank a server of its own: the double binary tree over ranks
    }
    // Channel c takes tree c mod count and starts server j's chain at c mod m_j: count is the
    // least common multiple of the servers' rank counts (the largest when they are equal), or
    // one tree per channel when that is fewer.
    uint64_t cycle = 1;
    for (const auto& members : servers)
    {
        cycle = std::lcm<uint64_t>(cycle, members.size());
        if (cycle >= channels)
        {
            break;
        }
    }
    const auto count = static_cast<uint32_t>(std::min<uint64_t>(cycle, channels));
    for (uint32_t t = 0; t < count; ++t)
    {
        std::vector<std::vector<uint32_t>> chains;
        chains.reserve(servers.size());
        for (const std::vector<uint32_t>& members : servers)
        {
            const auto m = static_cast<uint32_t>(members.size());
            std::vector<uint32_t> chain;
            chain.reserve(m);
            for (uint32_t k = 0; k < m; ++k)
            {
                chain.push_back(members[(t + k) % m]);
            }
            chains.push_back(std::move(chain));
        }
        trees.push_back(std::move(chains));
    }
    return trees;
}

void
PlanChannels(WorkloadGroup& g, const std::vector<EndpointPlace>& places)
{
    const Ptr<CollectiveAlgorithm> algorithm = CreateCollectiveAlgorithm(g.algorithm);
    const CollectiveCapabilities can
        = algorithm ? algorithm->GetCapabilities() : CollectiveCapabilities{};
    if (g.channels == WorkloadGroup::AUTO_CHANNELS)
    {
        g.channels = can.ncclChannels ? NcclChannelCount(g.ranks, places) : 1;
    }
    g.rings.clear();
    g.trees.clear();
    if (g.ringOrder == RingOrder::TOPOLOGY && can.ringOrdered)
    {
        g.rings = TopologyRings(g.ranks, places, g.channels);
    }
    // A ring group may become a tree one (`algorithm: auto`, ResolveProtocol()).
    if (g.ringOrder == RingOrder::TOPOLOGY && (can.treeOrdered || can.ringOrdered))
    {
        g.trees = TopologyTrees(g.ranks, places, g.channels);
    }
}

} // namespace ns3
