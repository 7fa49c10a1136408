/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_ROUTING_HELPER_H
#define AI_FABRIC_FABRIC_ROUTING_HELPER_H

#include "ns3/object-factory.h"
#include "ns3/ptr.h"
#include "ns3/spec-error.h"
#include "ns3/spec-names.h"

#include <string>
#include <utility>

namespace ns3
{

struct Fabric;
class FabricGraph;
class FabricRouting;
class FabricSwitch;

/**
 * \ingroup ai-fabric
 * \brief Installs a routing strategy (FabricRouting) on every forwarding element of a fabric
 * and fills its routing table (ns-3 helper style, like Ipv4GlobalRoutingHelper).
 *
 * Tables: for every destination GPU, each switch's equal-cost next hops are the neighbours
 * one hop closer to it on shortest paths that transit only switches (up/down in a tree; the
 * graph's routing policy: NVLink inside a server, PXN relay on rail-only fabrics). The helper
 * then verifies them: from every GPU, following them reaches every other GPU without a loop;
 * an unreachable pair or a broken table is a SpecError.
 *
 * Strategies: SetRouting's (ECMP by default) on every forwarding element; with
 * SetGroupRouting (a DragonflyPlusRouting: Valiant, UGAL), that one on the switches that
 * belong to a group, which then also learn the groups (every endpoint's group, the ports
 * towards each group, which ports face endpoints and which join two groups), and choose among
 * equal-cost ports with SetRouting's type.
 */
class FabricRoutingHelper
{
  public:
    FabricRoutingHelper();

    /**
     * \brief The strategy of every forwarding element (and the equal-cost choice of a group
     * strategy).
     * \tparam Ts attribute name and value pairs
     * \param type the FabricRouting type, e.g. "ns3::EcmpRouting"
     * \param args attributes of the strategy
     */
    template<typename... Ts>
    void SetRouting(const std::string& type, Ts&&... args);

    /**
     * \brief The strategy of the switches that belong to a group (Dragonfly+ path choice).
     * \tparam Ts attribute name and value pairs
     * \param type a DragonflyPlusRouting type, e.g. "ns3::ValiantRouting"
     * \param args attributes of the strategy
     */
    template<typename... Ts>
    void SetGroupRouting(const std::string& type, Ts&&... args);

    /**
     * \brief Set an attribute of the strategy of every forwarding element (and of the
     * equal-cost choice of a group strategy); after SetRouting() or SetForwarding().
     * \param name the attribute
     * \param value its value
     */
    void SetRoutingAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Set an attribute of the group strategy; after SetGroupRouting() or
     * SetPathChoice() (ignored when there is none).
     * \param name the attribute
     * \param value its value
     */
    void SetGroupRoutingAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Select the strategy by a scenario's `forwarding:` (ForwardingTypeName()).
     * \param mode the forwarding mode
     */
    void SetForwarding(ForwardingMode mode);

    /**
     * \brief Select the strategy by a scenario's `forwarding:` name (ForwardingNames()).
     * \param name "ecmp", "spray" or "adaptive"
     * \return false if the name is unknown
     */
    bool SetForwarding(const std::string& name);

    /**
     * \brief The fields ECMP hashes (a scenario's `ecmp_hash:`), after SetForwarding(ECMP):
     * the attribute "HashFields" of EcmpRouting (also where a group strategy delegates its
     * equal-cost choice to it).
     * \param fields a non-zero mask of EcmpRouting::HashField
     */
    void SetEcmpHash(uint32_t fields);

    /**
     * \brief Select the path choice between groups by a Dragonfly+ topology's `routing:`
     * (PathChoiceTypeName(); minimal: no group strategy, the shortest paths are the minimal
     * ones).
     * \param choice the path choice
     */
    void SetPathChoice(PathChoice choice);

    /**
     * \brief Select the path choice between groups by its name (PathChoiceNames()).
     * \param name "minimal", "valiant" or "ugal"
     * \return false if the name is unknown
     */
    bool SetPathChoice(const std::string& name);

    /**
     * \brief Create a strategy and set it as the switch's Routing.
     * \param sw the switch
     * \param inGroup the switch belongs to a group (it gets the group strategy, if any)
     * \return the strategy
     */
    Ptr<FabricRouting> Install(Ptr<FabricSwitch> sw, bool inGroup = false) const;

    /**
     * \brief Install a strategy on every forwarding element of a built fabric and fill and
     * verify the routing tables.
     * \param graph the fabric's graph
     * \param fabric its ns-3 objects (devices on every link, switches added their ports)
     * \param where location of the topology, for errors
     * \throws SpecError if some GPU cannot reach another, a table is broken, or a group
     *         strategy is set on a fabric of fewer than 3 groups
     */
    void Install(const FabricGraph& graph, const Fabric& fabric, const SpecLocation& where) const;

    /**
     * \brief Route an extra endpoint (an in-network reducer) on every forwarding element of
     * an installed fabric: its equal-cost next hops towards the endpoint's node, as towards a
     * GPU (FabricGraph::NextHops()).
     * \param graph the fabric's graph
     * \param fabric its ns-3 objects, their strategies installed
     * \param target the endpoint's node
     * \param endpoint its endpoint id
     */
    static void InstallRoutesTo(const FabricGraph& graph,
                                const Fabric& fabric,
                                uint32_t target,
                                uint32_t endpoint);

  private:
    /**
     * \brief Fill the group strategies' group knowledge (a multi-source breadth-first search
     * over switches per group).
     * \param graph the fabric's graph
     * \param fabric its ns-3 objects
     * \param where location of the topology, for errors
     */
    void SetUpGroups(const FabricGraph& graph,
                     const Fabric& fabric,
                     const SpecLocation& where) const;

    ObjectFactory m_routing;       //!< the strategy of every forwarding element
    ObjectFactory m_groupRouting;  //!< the strategy of the switches in a group
    bool m_hasGroupRouting{false}; //!< SetGroupRouting was called (and not undone)
};

template<typename... Ts>
void
FabricRoutingHelper::SetRouting(const std::string& type, Ts&&... args)
{
    m_routing = ObjectFactory(type);
    m_routing.Set(std::forward<Ts>(args)...);
}

template<typename... Ts>
void
FabricRoutingHelper::SetGroupRouting(const std::string& type, Ts&&... args)
{
    m_groupRouting = ObjectFactory(type);
    m_groupRouting.Set(std::forward<Ts>(args)...);
    m_hasGroupRouting = true;
}

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_ROUTING_HELPER_H */
