/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-bound.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

FabricBound::FabricBound(const FabricGraph& graph, std::size_t cacheBytes)
    : m_graph(graph)
    , m_endpointNodes(graph.GetEndpointNodes())
    , m_mtu(graph.GetSmallestMtu())
    , m_cacheEntries(std::max<std::size_t>(
          1,
          cacheBytes / (sizeof(uint32_t) * std::max<std::size_t>(1, graph.GetNodes().size()))))
    , m_links(2 * graph.GetLinks().size())
    , m_nodes(graph.GetNodes().size())
{
}

const std::vector<uint32_t>&
FabricBound::DistancesTo(uint32_t node)
{
    auto it = m_cache.find(node);
    if (it != m_cache.end())
    {
        m_lru.splice(m_lru.begin(), m_lru, it->second.second);
        return it->second.first;
    }
    if (m_cache.size() >= m_cacheEntries)
    {
        m_cache.erase(m_lru.back());
        m_lru.pop_back();
    }
    m_lru.push_front(node);
    auto& entry = m_cache[node];
    entry.first = m_graph.RouteDistancesTo(node);
    entry.second = m_lru.begin();
    return entry.first;
}

FabricBoundResult
FabricBound::Of(const std::vector<BoundMessage>& messages, std::vector<double>* endpointSeconds)
{
    const auto& links = m_graph.GetLinks();
    std::vector<const BoundMessage*> byDst(messages.size());
    for (std::size_t i = 0; i < messages.size(); ++i)
    {
        byDst[i] = &messages[i];
    }
    std::sort(byDst.begin(), byDst.end(), [](const BoundMessage* x, const BoundMessage* y) {
        return x->dst < y->dst;
    });
    std::vector<uint32_t> hops;
    std::vector<uint32_t> active; // nodes with inflow for the current destination
    for (std::size_t i = 0; i < byDst.size();)
    {
        const uint32_t dstEndpoint = byDst[i]->dst;
        NS_ABORT_MSG_IF(dstEndpoint >= m_endpointNodes.size(),
                        "FabricBound: no endpoint " << dstEndpoint);
        const uint32_t dst = m_endpointNodes[dstEndpoint];
        const std::vector<uint32_t>& dist = DistancesTo(dst);
        uint32_t far = 0;
        for (; i < byDst.size() && byDst[i]->dst == dstEndpoint; ++i)
        {
            const BoundMessage& m = *byDst[i];
            const uint32_t src = m_endpointNodes.at(m.src);
            if (src == dst || dist[src] == UINT32_MAX || m.bytes == 0)
            {
                continue;
            }
            Load& in = m_nodes[src];
            if (in.messages == 0)
            {
                if (m_byDistance.size() <= dist[src])
                {
                    m_byDistance.resize(dist[src] + 1);
                }
                m_byDistance[dist[src]].push_back(src);
            }
            in.payload += static_cast<double>(m.bytes);
            in.packets += static_cast<double>((m.bytes + m_mtu - 1) / m_mtu);
            in.messages += 1;
            far = std::max(far, dist[src]);
        }
        // Farthest first: a node's inflow is complete once every farther node has passed on.
        for (uint32_t d = far; d > 0; --d)
        {
            if (d >= m_byDistance.size())
            {
                continue;
            }
            std::vector<uint32_t>& level = m_byDistance[d];
            for (std::size_t k = 0; k < level.size(); ++k)
            {
                const uint32_t n = level[k];
                const Load in = m_nodes[n];
                m_nodes[n] = Load();
                m_graph.NextHops(n, dst, dist, hops);
                if (hops.empty())
                {
                    continue;
                }
                const double share = 1.0 / static_cast<double>(hops.size());
                for (const uint32_t h : hops)
                {
                    const FabricGraph::Adjacency& adj = m_graph.GetAdjacency(n)[h];
                    const uint32_t directed = 2 * adj.link + (links[adj.link].a == n ? 0 : 1);
                    Load& l = m_links[directed];
                    if (l.messages == 0)
                    {
                        m_touchedLinks.push_back(directed);
                    }
                    l.payload += in.payload * share;
                    l.packets += in.packets * share;
                    l.messages += in.messages * share;
                    if (adj.peer != dst)
                    {
                        Load& next = m_nodes[adj.peer];
                        if (next.messages == 0)
                        {
                            m_byDistance[d - 1].push_back(adj.peer);
                        }
                        next.payload += in.payload * share;
                        next.packets += in.packets * share;
                        next.messages += in.messages * share;
                    }
                }
            }
            level.clear();
        }
    }
    FabricBoundResult best;
    const auto& profiles = m_graph.GetProfiles();
    std::sort(m_touchedLinks.begin(), m_touchedLinks.end());
    if (endpointSeconds)
    {
        endpointSeconds->assign(m_endpointNodes.size(), 0.0);
        if (m_endpointOf.empty())
        {
            m_endpointOf.assign(m_graph.GetNodes().size(), UINT32_MAX);
            for (uint32_t e = 0; e < m_endpointNodes.size(); ++e)
            {
                m_endpointOf[m_endpointNodes[e]] = e;
            }
        }
    }
    for (const uint32_t directed : m_touchedLinks)
    {
        const Load& l = m_links[directed];
        const LinkProfile& p = profiles[links[directed / 2].profile];
        const double full = static_cast<double>(p.WireBytes(m_mtu, false));
        const double first = static_cast<double>(p.WireBytes(m_mtu, true));
        const double wire = l.payload + l.packets * (full - m_mtu) + l.messages * (first - full);
        const double rate = static_cast<double>(p.rate.GetBitRate());
        const double seconds = rate > 0 ? wire * 8.0 / rate : 0.0;
        if (endpointSeconds)
        {
            for (const uint32_t n : {links[directed / 2].a, links[directed / 2].b})
            {
                if (m_endpointOf[n] != UINT32_MAX)
                {
                    double& own = (*endpointSeconds)[m_endpointOf[n]];
                    own = std::max(own, seconds);
                }
            }
        }
        if (seconds > best.seconds)
        {
            best.seconds = seconds;
            best.link = directed / 2;
            best.aToB = directed % 2 == 0;
            best.wireBytes = wire;
            best.rateBps = rate;
        }
        m_links[directed] = Load();
    }
    m_touchedLinks.clear();
    return best;
}

} // namespace ns3
