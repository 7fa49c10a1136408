/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_DRAGONFLY_PLUS_ROUTING_H
#define AI_FABRIC_DRAGONFLY_PLUS_ROUTING_H

#include "ns3/fabric-routing.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Non-minimal routing between the groups of a Dragonfly+ (Kim et al. ISCA 2008;
 * FACTS.md 1.5/1.6): the base of ValiantRouting and UgalRouting, owning the group knowledge
 * (this switch's group, every destination's group, the ports towards each group, which ports
 * face endpoints and which join two groups).
 *
 * A packet entering the fabric at this switch from an endpoint, bound for another group, may
 * be sent through a random intermediate group (Detour() decides). The strategy keeps the
 * detour in the packet's routing tag (intermediate group + 1; 0: none). The switch of that
 * group where the packet turns towards its destination (the spine it enters by, if that spine
 * has a global link on the way, else the leaf it comes down to) clears the tag and moves the
 * packet one virtual lane up. Each lane then carries only up, global, down paths, with no
 * down-up turn, which breaks credit-loop deadlock with two lanes (FACTS.md 1.6). Among
 * equal-cost ports the choice is the strategy of type EqualCostRouting (ECMP by default).
 *
 * Minimal Dragonfly+ routing is the equal-cost strategy alone: the routing tables hold the
 * shortest (minimal) paths.
 */
class DragonflyPlusRouting : public FabricRouting
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DragonflyPlusRouting();
    ~DragonflyPlusRouting() override;

    FabricRoute Route(FabricFields& header, uint16_t inPort, uint8_t priority) override;
    uint16_t Choose(const uint16_t* ports,
                    uint32_t n,
                    const FabricFields& header,
                    uint8_t priority) override;
    void Attach(const FabricSwitch* sw, Ptr<UniformRandomVariable> rng) override;

    /**
     * \brief The switch's place among the groups.
     * \param group this switch's group
     * \param groups number of groups
     * \param dstGroup group of every destination endpoint
     */
    void SetGroups(uint32_t group, uint32_t groups, const std::vector<uint16_t>& dstGroup);
    /**
     * \brief The equal-cost ports towards the nearest switch of a group.
     * \param group the group
     * \param ports port indices (empty for the switch's own group)
     */
    void SetGroupRoute(uint32_t group, const std::vector<uint16_t>& ports);
    /**
     * \brief What a port's link joins.
     * \param port the port index
     * \param edge the port faces an endpoint (a GPU or a NIC)
     * \param global the port's link joins two groups
     */
    void SetPortKind(uint16_t port, bool edge, bool global);

    /**
     * \brief The queue a packet bound for a group would join here on its least loaded port
     * towards that group (a UGAL source's downstream state for the detour).
     * \param group a group
     * \param priority the packet's class
     * \return wire bytes (0 if the switch is in that group or has no route to it)
     */
    uint64_t GetLeastQueuedTowardsGroup(uint32_t group, uint8_t priority) const;

    /// \return this switch's group
    uint32_t GetGroup() const;

    /// \return packets this switch sent on a detour through an intermediate group
    uint64_t GetDetoured() const;
    /// \return packets whose detour ended at this switch (it is in their intermediate group)
    uint64_t GetDetoursEnded() const;
    /// \return the strategy that chooses among equal-cost ports
    Ptr<FabricRouting> GetEqualCostRouting() const;
    /**
     * \brief Set the strategy that chooses among equal-cost ports (with its attributes, e.g.
     * an EcmpRouting's hash fields), before the strategy is attached to its switch; without
     * it, Attach() creates one of the type "EqualCostRouting" with default attributes.
     * \param routing the strategy
     */
    void SetEqualCostRouting(Ptr<FabricRouting> routing);

  protected:
    void DoDispose() override;

    /**
     * \brief Whether a packet entering the fabric here, bound for another group, goes through
     * the intermediate group \p via (which has a route).
     * \param header the packet's fields
     * \param via the intermediate group
     * \param priority the packet's class
     * \return true to detour
     */
    virtual bool Detour(const FabricFields& header, uint32_t via, uint8_t priority) = 0;
    /// \param group a group that has a route \return the ports towards it
    const std::vector<uint16_t>& GetGroupPorts(uint32_t group) const;
    /**
     * \param port a port index
     * \param priority a class
     * \return wire bytes waiting on that egress lane of the switch
     */
    uint64_t GetQueuedBytes(uint16_t port, uint8_t priority) const;

  private:
    /// Bits of m_portKind.
    enum PortKind : uint8_t
    {
        EDGE = 1,   //!< faces an endpoint
        GLOBAL = 2, //!< joins two groups
    };

    /**
     * \brief Draw an intermediate group for a packet entering the fabric here and start its
     * detour if Detour() agrees.
     * \param header the packet's fields (its tag set on a detour)
     * \param priority its class
     * \return true if the header changed
     */
    bool StartDetour(FabricFields& header, uint8_t priority);
    /// \param port a port \param kind a PortKind bit \return true if the port has it
    bool IsPort(uint16_t port, PortKind kind) const;

    TypeId m_equalCostType;             //!< EqualCostRouting attribute
    Ptr<FabricRouting> m_equalCost;     //!< chooses among equal-cost ports
    uint32_t m_group{UINT32_MAX};       //!< this switch's group
    uint32_t m_groups{0};               //!< number of groups
    std::vector<uint16_t> m_dstGroup;   //!< group of each destination endpoint
    std::vector<uint32_t> m_groupRoute; //!< group -> index of its port set
    std::vector<uint8_t> m_portKind;    //!< PortKind bits per port
    bool m_hasEdgePorts{false};         //!< some port faces an endpoint (a leaf)
    uint64_t m_detoured{0};             //!< packets sent on a detour
    uint64_t m_detoursEnded{0};         //!< detours ended here
};

} // namespace ns3

#endif /* AI_FABRIC_DRAGONFLY_PLUS_ROUTING_H */
