/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_ROUTING_H
#define AI_FABRIC_FABRIC_ROUTING_H

#include "ns3/abort.h"
#include "ns3/fabric-header.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class FabricSwitch;
class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * \brief A routing decision: the egress port of a packet and the class it leaves in.
 */
struct FabricRoute
{
    uint16_t port{0};    //!< egress port index
    uint8_t priority{0}; //!< traffic class on the egress port
    bool rewrite{false}; //!< the strategy changed the packet's header (tag or priority)
};

/**
 * \ingroup ai-fabric
 * \brief A port set of a routing table as the packet path reads it: one load for a single
 * port.
 */
struct FabricPortSet
{
    uint32_t offset{0}; //!< the set's first port in the table's port pool
    uint16_t count{0};  //!< ports in the set (0: no route)
    uint16_t first{0};  //!< its first port
};

/**
 * \ingroup ai-fabric
 * \brief How a switch chooses the egress port of a packet (a strategy selected per switch by
 * its attribute "Routing", as TcpSocketBase selects its CongestionOps).
 *
 * The strategy owns the switch's routing table: for each destination endpoint, its set of
 * equal-cost egress ports (identical sets are stored once), filled by FabricRoutingHelper.
 * Route() picks one of them for a packet, reading the switch's port queues where the strategy
 * needs them (FabricSwitch::GetQueuedBytes). A strategy may keep state in the packet's
 * routing tag (FabricFields::m_routingTag): the tag means what the strategy that set it says
 * (0: none), and no other part of the fabric reads it.
 *
 * Randomness: the strategy draws from its switch's random stream, shared with the switch's
 * ECN marking (one ns-3 stream per switch). The stream's first two draws are a 64-bit hash
 * salt (GetSalt), drawn whatever the strategy, so a switch's later draws (its ECN marks) do
 * not depend on which strategy it runs.
 */
class FabricRouting : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricRouting();
    ~FabricRouting() override;
    FabricRouting(const FabricRouting&) = delete;
    FabricRouting& operator=(const FabricRouting&) = delete;

    /**
     * \brief Choose the egress port of a packet that arrived on a port of the switch.
     * \param header the packet's fields; the strategy may change its routing tag and priority
     *        (then it says so in FabricRoute::rewrite)
     * \param inPort the ingress port index
     * \param priority the traffic class the packet arrived in
     * \return the egress port and class
     */
    virtual FabricRoute Route(FabricFields& header, uint16_t inPort, uint8_t priority) = 0;

    /**
     * \brief Choose one of several equal-cost ports for a packet.
     * \param ports candidate ports
     * \param n how many (at least 1)
     * \param header the packet's fields
     * \param priority the class the packet leaves in
     * \return the chosen port
     */
    virtual uint16_t Choose(const uint16_t* ports,
                            uint32_t n,
                            const FabricFields& header,
                            uint8_t priority)
        = 0;

    /**
     * \brief Attach the strategy to its switch (FabricSwitch::SetRouting, and again when the
     * switch's stream is assigned): it reads the switch's port queues and draws from the
     * switch's random variable. Draws the hash salt.
     * \param sw the switch (not owned: the switch owns its strategy)
     * \param rng the switch's random variable
     */
    virtual void Attach(const FabricSwitch* sw, Ptr<UniformRandomVariable> rng);

    /**
     * \brief Set the equal-cost egress ports towards an endpoint.
     * \param dst destination endpoint
     * \param ports port indices (non-empty)
     */
    void SetRoute(uint32_t dst, const std::vector<uint16_t>& ports);

    /**
     * \brief Give an endpoint the same egress ports as another one (a set-up shortcut for
     * endpoints behind the same switch port set; no search among the port sets).
     * \param dst destination endpoint
     * \param like an endpoint whose route is set
     */
    void CopyRoute(uint32_t dst, uint32_t like);

    /**
     * \param dst destination endpoint
     * \return the equal-cost egress ports (empty if none)
     */
    const std::vector<uint16_t>& GetRoute(uint32_t dst) const;

    /**
     * \brief The queue a packet for \p dst would join at this switch if it took its least
     * loaded equal-cost port: what an upstream switch reads as this switch's downstream
     * state towards \p dst (DownstreamBytes()).
     * \param dst destination endpoint
     * \param priority the packet's class
     * \return wire bytes on the least loaded of the destination's egress lanes (0 if the
     *         switch has no route to it: it is delivered here)
     */
    uint64_t GetLeastQueuedTowards(uint32_t dst, uint8_t priority) const;

  protected:
    void DoDispose() override;

    /**
     * \brief The route of a strategy that only chooses among the destination's equal-cost
     * ports: a single port is taken as it is, several go to S::Choose (called directly, not
     * through a second virtual call).
     * \tparam S the strategy
     * \param header the packet's fields
     * \param priority the class it arrived in (and leaves in)
     * \return the route
     */
    template<class S>
    FabricRoute RouteEqualCost(const FabricFields& header, uint8_t priority)
    {
        const FabricPortSet& set = GetCandidates(header.m_dst);
        const uint16_t port
            = set.count == 1
                  ? set.first
                  : static_cast<S*>(this)->S::Choose(GetPorts(set), set.count, header, priority);
        return FabricRoute{port, priority, false};
    }

    /**
     * \param dst destination endpoint
     * \return its equal-cost ports (aborts if there is none: tables are verified when built)
     */
    const FabricPortSet& GetCandidates(uint32_t dst) const;
    /**
     * \param set a port set
     * \return its ports, back to back
     */
    const uint16_t* GetPorts(const FabricPortSet& set) const;
    /**
     * \param ports a port set (non-empty)
     * \return its index, added if new
     */
    uint32_t AddPortSet(const std::vector<uint16_t>& ports);
    /// \param set index of a port set \return the set
    const FabricPortSet& GetPortSet(uint32_t set) const;
    /// \param set index of a port set \return its ports
    const std::vector<uint16_t>& GetPortSetPorts(uint32_t set) const;
    /// \return the hash salt (the first two draws of the switch's stream)
    uint64_t GetSalt() const;
    /**
     * \brief The splitmix64 finaliser: a cheap, well-mixed 64-bit hash step.
     * \param x the value
     * \return its hash
     */
    static uint64_t Mix(uint64_t x);
    /**
     * \brief Downstream state: the queue the packet would join at the next forwarding
     * element behind \p port (GetLeastQueuedTowards() of that switch's strategy). It is read
     * when the packet is routed, an ideal congestion notification without delay (real
     * fabrics carry it back within a round trip: docs/topologies.md#routing).
     * \param port an egress port of this switch
     * \param dst the packet's destination
     * \param priority its class
     * \return wire bytes (0 if an endpoint without forwarding is behind the port)
     */
    uint64_t DownstreamBytes(uint16_t port, uint32_t dst, uint8_t priority);
    /**
     * \param port an egress port of this switch
     * \return the strategy of the forwarding element behind it (null: an endpoint)
     */
    const FabricRouting* GetNextRouting(uint16_t port);
    /**
     * \brief Attach without drawing the salt (a strategy that delegates its equal-cost choice
     * lets the delegate draw it).
     * \param sw the switch
     * \param rng its random variable
     */
    void SetSwitch(const FabricSwitch* sw, Ptr<UniformRandomVariable> rng);

    const FabricSwitch* m_switch{nullptr}; //!< the switch (not owned)
    Ptr<UniformRandomVariable> m_rng;      //!< the switch's random variable

  private:
    /**
     * \param dst destination endpoint
     * \param set index into m_portSets
     */
    void SetRouteSet(uint32_t dst, uint32_t set);

    std::vector<uint32_t> m_routeSet;              //!< destination -> index into m_portSets
    std::vector<std::vector<uint16_t>> m_portSets; //!< distinct port sets
    std::vector<FabricPortSet> m_setEntry;         //!< per port set: its FabricPortSet
    std::vector<FabricPortSet> m_routeEntry;       //!< destination -> its set's FabricPortSet
    std::vector<uint16_t> m_portPool;              //!< every port set's ports, back to back
    uint64_t m_salt{0};                            //!< hash salt
    /// Per port, the strategy of the forwarding element behind it (null: an endpoint),
    /// found at the first DownstreamBytes() (the links are all in place by then).
    std::vector<const FabricRouting*> m_next;
};

inline const FabricPortSet&
FabricRouting::GetCandidates(uint32_t dst) const
{
    // Routes are verified complete when the fabric is built.
    NS_ABORT_MSG_IF(dst >= m_routeEntry.size() || m_routeEntry[dst].count == 0,
                    "no route to endpoint " << dst);
    return m_routeEntry[dst];
}

inline const uint16_t*
FabricRouting::GetPorts(const FabricPortSet& set) const
{
    return &m_portPool[set.offset];
}

inline const FabricPortSet&
FabricRouting::GetPortSet(uint32_t set) const
{
    return m_setEntry[set];
}

inline uint64_t
FabricRouting::GetSalt() const
{
    return m_salt;
}

inline uint64_t
FabricRouting::Mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_ROUTING_H */
