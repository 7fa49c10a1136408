/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_TOPOLOGY_SPEC_H
#define AI_FABRIC_TOPOLOGY_SPEC_H

#include "ns3/abort.h"
#include "ns3/link-profile.h"
#include "ns3/spec-error.h"
#include "ns3/spec-names.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

/**
 * \file
 * \ingroup ai-fabric
 * A fabric as the user described it (topologies/NAME.yaml): TopologySpec, its fields
 * common to every kind, and one struct per kind (TopologyShape). Wiring rules and counts:
 * docs/topologies.md and fabric-topology.h.
 *
 * A count the user left out is std::nullopt: the kind's generator derives or defaults it
 * (ResolveLeafSpine(), ResolveFatTree(), ResolveRail()) or rejects the topology. Keys of
 * other kinds have no field to land in: the reader rejects them.
 */

namespace ns3
{

/// An oversubscription ratio down:up, e.g. "3:1" (3 units of downlink per unit of uplink).
struct OversubscriptionRatio
{
    uint32_t numerator{0};   //!< down share (3 in "3:1")
    uint32_t denominator{0}; //!< up share (1 in "3:1")
};

/**
 * \ingroup ai-fabric
 * \brief kind "single-switch": `gpus` GPU endpoints (TopologySpec::gpus), each with one NIC
 * port linked to one switch.
 */
struct SingleSwitchSpec
{
    static constexpr const char* KIND = "single-switch"; //!< the kind's name
};

/**
 * \ingroup ai-fabric
 * \brief kind "leaf-spine": `leaves` leaf switches with `gpusPerLeaf` GPUs each, every leaf
 * linked to every one of `spines` spine switches by `linksPerSpine` parallel links; or sized
 * from the switch `radix` and the leaf `oversubscription`, or by explicit port counts
 * (`gpusPerLeaf` + `uplinks`). ResolveLeafSpine() derives what is not given.
 */
struct LeafSpineSpec
{
    static constexpr const char* KIND = "leaf-spine"; //!< the kind's name

    std::optional<uint32_t> leaves;      //!< leaf switches (not given: radix / linksPerSpine)
    std::optional<uint32_t> spines;      //!< spine switches (not given: uplinks / linksPerSpine)
    std::optional<uint32_t> gpusPerLeaf; //!< GPUs (ports down) per leaf
    uint32_t linksPerSpine{1};           //!< parallel links from each leaf to each spine
    std::optional<uint32_t> uplinks;     //!< ports up per leaf (explicit port counts)
    std::optional<uint32_t> radix;       //!< ports of every switch
    std::optional<OversubscriptionRatio> oversubscription; //!< leaf tier down:up
};

/**
 * \ingroup ai-fabric
 * \brief kind "fat-tree": pods of leaf-spine under a core tier (k-ary Al-Fares by default;
 * FatTreeSizing). ResolveFatTree() derives what is not given.
 */
struct FatTreeSpec
{
    static constexpr const char* KIND = "fat-tree"; //!< the kind's name

    std::optional<uint32_t> radix;                              //!< ports of every switch
    std::optional<OversubscriptionRatio> oversubscription;      //!< leaf tier down:up
    std::optional<OversubscriptionRatio> spineOversubscription; //!< spine tier down:up
    std::optional<uint32_t> gpusPerLeaf;                        //!< GPUs (ports down) per leaf
    std::optional<uint32_t> pods;                               //!< pods (not given: the radix)
    std::optional<uint32_t> leavesPerPod;                       //!< leaf (edge) switches per pod
    std::optional<uint32_t> spinesPerPod; //!< spine (aggregation) switches per pod
    std::optional<uint32_t> spineUplinks; //!< core links per spine
    std::optional<uint32_t> cores;        //!< core switches (derived; must match if given)
};

/**
 * \ingroup ai-fabric
 * \brief What the rail kinds share (RailOptimizedSpec, RailOnlySpec): scalable units (SU)
 * of `serversPerSu` servers, NIC g of every server of an SU on rail switch g of that SU
 * (RailSizing). ResolveRail() derives or defaults what is not given.
 */
struct RailSpec
{
    std::optional<uint32_t> radix;                         //!< ports of every switch
    std::optional<OversubscriptionRatio> oversubscription; //!< rail-switch tier down:up
    std::optional<uint32_t> spines;       //!< rail-optimized: the shared spine tier; rail-only:
                                          //!< spines per rail (not given: the fewest that fit)
    std::optional<uint32_t> serversPerSu; //!< servers per SU (not given: 32, a DGX SuperPOD SU)
    std::optional<uint32_t> sus;          //!< scalable units (not given: 1)
    std::optional<uint32_t> railUplinks;  //!< uplinks per rail switch (not given: from the
                                          //!< oversubscription, else serversPerSu, 1:1)
};

/**
 * \ingroup ai-fabric
 * \brief kind "rail-optimized": rail switches under one spine tier shared by every SU, or
 * (with `spinesPerSu`) SU spines under a core tier.
 */
struct RailOptimizedSpec : RailSpec
{
    static constexpr const char* KIND = "rail-optimized"; //!< the kind's name

    std::optional<OversubscriptionRatio> spineOversubscription; //!< SU-spine tier down:up
    std::optional<uint32_t> spinesPerSu;  //!< SU spines under a core tier (three tiers); not
                                          //!< given: one spine tier shared by all SUs
    std::optional<uint32_t> spineUplinks; //!< core links per SU spine (with spinesPerSu)
    std::optional<uint32_t> cores;        //!< core switches (with spinesPerSu; not given: the
                                          //!< fewest that fit the radix)
    std::optional<bool> pxn; //!< NCCL's PXN (NCCL_PXN_DISABLE=0, NCCL's default): a GPU sends
                             //!< to another rail of another server over NVLink to the GPU of
                             //!< that rail, which sends on its rail; not given: on with NVLink
};

/**
 * \ingroup ai-fabric
 * \brief kind "rail-only": no spine shared between rails; servers always have an NVLink
 * domain, over which cross-rail traffic is relayed (PXN).
 */
struct RailOnlySpec : RailSpec
{
    static constexpr const char* KIND = "rail-only"; //!< the kind's name
};

/**
 * \ingroup ai-fabric
 * \brief kind "dragonfly-plus": `groups` groups of leaf/spine, `gpusPerLeaf` hosts per leaf,
 * `globalLinksPerSpine` global links per spine (DragonflyPlusSizing). The five counts are
 * required.
 */
struct DragonflyPlusSpec
{
    static constexpr const char* KIND = "dragonfly-plus"; //!< the kind's name

    uint32_t groups{0};                      //!< groups
    uint32_t leavesPerGroup{0};              //!< leaves per group
    uint32_t spinesPerGroup{0};              //!< spines per group
    uint32_t gpusPerLeaf{0};                 //!< GPUs (hosts) per leaf
    uint32_t globalLinksPerSpine{0};         //!< global links per spine
    std::optional<uint32_t> radix;           //!< switch ports, only checked
    PathChoice routing{PathChoice::MINIMAL}; //!< path choice between groups (`routing:`)
};

/**
 * \ingroup ai-fabric
 * \brief kind "nvlink-domain": one server (or NVL72-like rack) of TopologySpec::gpusPerServer
 * GPUs (required) on TopologySpec::nvlinkSwitches NVSwitch nodes; no scale-out NICs.
 */
struct NvlinkDomainSpec
{
    static constexpr const char* KIND = "nvlink-domain"; //!< the kind's name
};

/**
 * \ingroup ai-fabric
 * \brief kind "custom": the nodes and links as listed.
 */
struct CustomSpec
{
    static constexpr const char* KIND = "custom"; //!< the kind's name

    /// One node.
    struct Node
    {
        SpecLocation where; //!< location of the node's entry (for errors)
        std::string name;   //!< unique name
        std::string kind;   //!< "gpu", "switch" or "nic"
        uint32_t tier{0};   //!< switch tier (1 = next to the GPUs; 0 = inside a server)
    };

    /// One full-duplex link.
    struct Link
    {
        SpecLocation where;                 //!< location of the link's entry (for errors)
        std::string a;                      //!< one end's node name
        std::string b;                      //!< the other end's node name
        std::optional<LinkProfile> profile; //!< its own profile (a preset with overrides);
                                            //!< not given: TopologySpec::link
    };

    std::vector<Node> nodes; //!< nodes, in order (GPUs numbered in this order)
    std::vector<Link> links; //!< links, in order
};

/**
 * \ingroup ai-fabric
 * \brief One struct per topology kind, in TopologyKindNames() order (each names its kind in
 * KIND).
 */
using TopologyShape = std::variant<SingleSwitchSpec,
                                   LeafSpineSpec,
                                   FatTreeSpec,
                                   RailOptimizedSpec,
                                   RailOnlySpec,
                                   DragonflyPlusSpec,
                                   NvlinkDomainSpec,
                                   CustomSpec>;

/**
 * \ingroup ai-fabric
 * \brief A fabric as the user described it (topologies/NAME.yaml): the fields every kind
 * has, and the kind's own in `shape`.
 *
 * With a host link, every GPU reaches its own NIC over it (a PCIe hop), and the NIC carries
 * the fabric link; without, the GPU's NIC is part of the GPU node. With an NVLink domain
 * (`hasNvlink`, or kinds rail-only and nvlink-domain), every server of `gpusPerServer`
 * consecutive GPUs also has NVSwitch nodes, and each of its GPUs has an NVLink link to each
 * of them: such a GPU has two or more links. Servers and NVLink do not apply to kind custom,
 * nor a host link to kinds nvlink-domain and custom (the reader rejects their keys).
 */
struct TopologySpec
{
    SpecLocation where; //!< location of the topology mapping (file of the topology)
    std::string name;   //!< free-form name (defaults to the file's stem)
    uint32_t gpus{0};   //!< GPU endpoints: given for single-switch; for every kind, the reader
                        //!< sets it to the built graph's GPU count
    LinkProfile link;   //!< the links' profile: a preset with key-by-key overrides
    std::optional<LinkProfile> hostLink; //!< the GPU-to-NIC link's profile (PCIe), if GPUs
                                         //!< reach their NIC over one

    // ---- servers and NVLink domains (all kinds but custom)
    std::optional<uint32_t> gpusPerServer;    //!< GPUs per server (NVLink domain); not given: 8
                                              //!< for rail kinds, no servers elsewhere
    bool hasNvlink{false};                    //!< add an NVLink domain per server (implied by
                                              //!< rail-only and nvlink-domain)
    std::optional<LinkProfile> nvlinkProfile; //!< per-GPU NVLink profile (all of a GPU's
                                              //!< NVLinks as one logical link); not given:
                                              //!< the preset nvlink4 (NvlinkProfileOf())
    uint32_t nvlinkSwitches{1}; //!< NVSwitch nodes per server; each GPU has one link to each,
                                //!< at the NVLink rate / nvlinkSwitches (NVL72: 18)

    TopologyShape shape; //!< the kind and its own fields

    /// \return the kind's name, one of TopologyKindNames()
    std::string Kind() const;

    /**
     * \brief Make the topology one of \p kind, with that kind's defaults (the common
     * fields are kept).
     * \param kind a name of TopologyKindNames()
     * \throws SpecError at `where` if \p kind is unknown, listing the known kinds
     */
    void SetKind(const std::string& kind);

    /// \return true if the topology is of kind \p S
    template<class S>
    bool Is() const
    {
        return std::holds_alternative<S>(shape);
    }

    /// \return the fields of kind \p S (aborts if the topology is of another kind)
    template<class S>
    S& As()
    {
        S* s = std::get_if<S>(&shape);
        NS_ABORT_MSG_UNLESS(s, "topology of kind " << Kind() << " is not " << S::KIND);
        return *s;
    }

    /// \return the fields of kind \p S (aborts if the topology is of another kind)
    template<class S>
    const S& As() const
    {
        const S* s = std::get_if<S>(&shape);
        NS_ABORT_MSG_UNLESS(s, "topology of kind " << Kind() << " is not " << S::KIND);
        return *s;
    }
};

/**
 * \ingroup ai-fabric
 * \return the topology kinds, in TopologyShape order: single-switch, leaf-spine, fat-tree,
 * rail-optimized, rail-only, dragonfly-plus, nvlink-domain, custom
 */
std::vector<std::string> TopologyKindNames();

} // namespace ns3

#endif /* AI_FABRIC_TOPOLOGY_SPEC_H */
