/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_BOUND_H
#define AI_FABRIC_FABRIC_BOUND_H

#include "ns3/fabric-graph.h"

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One message a bound is priced on: its endpoints and payload.
 */
struct BoundMessage
{
    uint32_t src{0};   //!< source endpoint (GPU index, or an in-network reducer after them)
    uint32_t dst{0};   //!< destination endpoint
    uint64_t bytes{0}; //!< bytes it puts on the wire before per-packet headers (its payload in
                       //!< its protocol's lines: WireBytes())
};

/**
 * \ingroup ai-fabric
 * \brief The busiest link of a set of messages (FabricBound::Of()).
 */
struct FabricBoundResult
{
    double seconds{0};   //!< the busiest directed link's wire bytes / its rate, seconds
    int64_t link{-1};    //!< that link (graph index; -1: no message crosses a link)
    bool aToB{true};     //!< its direction: from the link's end a to b
    double wireBytes{0}; //!< the bytes the messages put on it, with headers
    double rateBps{0};   //!< its rate, bits per second
};

/**
 * \ingroup ai-fabric
 * \brief The fabric-aware bound of a set of messages (docs/collectives.md, "Fabric-aware
 * bound"): every message's bytes are spread over its equal-cost routed paths, halved at every
 * hop with two next hops as spraying and adaptive routing spread them (FabricGraph::NextHops(),
 * the routing tables' rule: NVLink inside a server, PXN relays, Dragonfly+ minimal paths), and
 * each directed link's wire bytes (payload plus the headers of its link technology per packet
 * at the fabric's MTU) over its rate is the time the link needs at least. The largest is the
 * bound's bandwidth term and names the bottleneck link; oversubscription, NVLink shortcuts and
 * every hierarchy level are in it because the messages are routed on the fabric itself. A flow
 * hashed onto one path (ECMP) can only do worse.
 *
 * Cost: per destination one breadth-first search (RouteDistancesTo, cached for the most
 * recent destinations within a memory budget) and a pass over the nodes of the paths that
 * reach it.
 */
class FabricBound
{
  public:
    /**
     * \param graph the fabric (outlives the bound)
     * \param cacheBytes memory for cached route distances (one vector of nodes per destination)
     */
    explicit FabricBound(const FabricGraph& graph, std::size_t cacheBytes = 256u << 20);

    /**
     * \param messages the messages (any order)
     * \param endpointSeconds if given: per endpoint, the time its busiest own link (a link at
     *        the endpoint's node, either direction) needs for these messages, seconds (resized
     *        to the endpoints and overwritten)
     * \return their busiest directed link
     */
    FabricBoundResult Of(const std::vector<BoundMessage>& messages,
                         std::vector<double>* endpointSeconds = nullptr);

  private:
    /// Load on a directed link or into a node: payload bytes, packets, messages (fractional).
    struct Load
    {
        double payload{0};  //!< payload bytes
        double packets{0};  //!< packets
        double messages{0}; //!< messages (first packets carry extra headers)
    };

    /**
     * \param node a destination node
     * \return the route distances to it (RouteDistancesTo), from the cache
     */
    const std::vector<uint32_t>& DistancesTo(uint32_t node);

    const FabricGraph& m_graph;            //!< the fabric
    std::vector<uint32_t> m_endpointNodes; //!< endpoint -> node
    std::vector<uint32_t> m_endpointOf;    //!< node -> endpoint (UINT32_MAX: none)
    uint32_t m_mtu;                        //!< the fabric's smallest MTU
    std::size_t m_cacheEntries;            //!< most cached distance vectors
    std::list<uint32_t> m_lru;             //!< cached destinations, most recent first
    std::unordered_map<uint32_t, std::pair<std::vector<uint32_t>, std::list<uint32_t>::iterator>>
        m_cache;                          //!< destination -> (distances, place in m_lru)
    std::vector<Load> m_links;            //!< per directed link (2 x link + (a->b ? 0 : 1))
    std::vector<uint32_t> m_touchedLinks; //!< directed links with a load
    std::vector<Load> m_nodes;            //!< per node: inflow towards the destination
    std::vector<std::vector<uint32_t>> m_byDistance; //!< nodes with inflow, by distance
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_BOUND_H */
