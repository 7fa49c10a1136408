/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_TOPOLOGY_SPEC_H
#define AI_FABRIC_TOPOLOGY_SPEC_H

#include "ns3/link-profile.h"
#include "ns3/spec-error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A fabric as the user described it (topologies/NAME.yaml).
 *
 * kind "single-switch": `gpus` GPU endpoints, each with one NIC port linked to
 * one switch.
 * kind "leaf-spine": `leaves` leaf switches with `gpusPerLeaf` GPUs each, every
 * leaf linked to every one of `spines` spine switches by `linksPerSpine`
 * parallel links (gpus = leaves x gpusPerLeaf); or sized from the switch
 * `radix` and the leaf `oversubscription` ratio, or by explicit port counts
 * (`gpusPerLeaf` + `uplinks`).
 * kinds "fat-tree", "rail-optimized", "rail-only", "dragonfly-plus",
 * "nvlink-domain" and "custom": see docs/topologies.md and fabric-topology.h
 * for their fields, counts and wiring rules.
 * With a host link, every GPU reaches its own NIC over it (a PCIe hop), and the
 * NIC carries the fabric link; without, the GPU's NIC is part of the GPU node.
 * With an NVLink domain (`hasNvlink`, or kinds rail-only and nvlink-domain),
 * every server of `gpusPerServer` consecutive GPUs also has NVSwitch nodes, and
 * each of its GPUs has an NVLink link to each of them: such a GPU has two or
 * more links.
 *
 * Zero in a count field means "not given": generators derive it or reject the
 * topology. Fields a kind does not use must stay at their defaults (the reader
 * rejects their keys).
 */
struct TopologySpec
{
    SpecLocation where;        //!< location of the topology mapping (file of the topology)
    std::string name;          //!< free-form name (defaults to the file's stem)
    std::string kind;          //!< one of TopologyKindNames()
    uint32_t gpus{0};          //!< number of GPU endpoints
    uint32_t leaves{0};        //!< leaf-spine: leaf switches
    uint32_t spines{0};        //!< leaf-spine: spine switches; rail-optimized: the shared spine
                               //!< tier; rail-only: spines per rail (0 = derived)
    uint32_t gpusPerLeaf{0};   //!< leaf-spine, fat-tree, dragonfly-plus: GPUs (hosts) per leaf
    uint32_t linksPerSpine{1}; //!< leaf-spine: parallel links from each leaf to each spine
    std::string routing{"minimal"}; //!< dragonfly-plus: minimal, valiant or ugal (adaptive)
    LinkProfile link;               //!< the links' profile: a preset with key-by-key overrides
    bool hasHostLink{false}; //!< GPUs reach their NIC over a host link (PCIe) instead of directly
    LinkProfile hostLink;    //!< the GPU-to-NIC link's profile, when hasHostLink

    /// An oversubscription ratio down:up, e.g. "3:1" (3 units of downlink per unit of uplink).
    struct Ratio
    {
        uint32_t numerator{0};   //!< down share (3 in "3:1"); 0 = not given
        uint32_t denominator{0}; //!< up share (1 in "3:1"); 0 = not given
    };

    /// kind "custom": one node.
    struct CustomNode
    {
        SpecLocation where; //!< location of the node's entry (for errors)
        std::string name;   //!< unique name
        std::string kind;   //!< "gpu", "switch" or "nic"
        uint32_t tier{0};   //!< switch tier (1 = next to the GPUs; 0 = inside a server)
    };

    /// kind "custom": one full-duplex link.
    struct CustomLink
    {
        SpecLocation where;     //!< location of the link's entry (for errors)
        std::string a;          //!< one end's node name
        std::string b;          //!< the other end's node name
        bool hasProfile{false}; //!< the link has its own profile; otherwise `link` applies
        LinkProfile profile;    //!< its profile (a preset with overrides), when hasProfile
    };

    // ---- per-tier sizing (leaf-spine, fat-tree, rail kinds)
    uint32_t radix{0};           //!< switch ports; 0 = not given (sizing from explicit counts;
                                 //!< dragonfly-plus: only checked)
    Ratio oversubscription;      //!< leaf (rail-switch) tier down:up; unset = from the counts
    Ratio spineOversubscription; //!< fat-tree spine (aggregation) tier, rail-optimized SU-spine
                                 //!< tier down:up; unset = from the counts
    uint32_t uplinks{0};         //!< leaf-spine: uplinks per leaf (explicit port counts)

    // ---- fat-tree (pods of leaf-spine under a core tier; k-ary Al-Fares by default)
    uint32_t pods{0};         //!< pods; 0 = radix (the most the core switches can join)
    uint32_t leavesPerPod{0}; //!< leaf (edge) switches per pod; 0 = from radix and ratio
    uint32_t spinesPerPod{0}; //!< spine (aggregation) switches per pod; 0 = leaf uplinks
    uint32_t spineUplinks{0}; //!< uplinks per spine to the core (fat-tree; rail-optimized with
                              //!< SU spines); 0 = from radix and ratio, or non-blocking

    // ---- servers and NVLink domains (rail kinds, nvlink-domain; optional elsewhere)
    uint32_t gpusPerServer{0};  //!< GPUs per server (NVLink domain); 0 = 8 for rail kinds
    bool hasNvlink{false};      //!< add an NVLink domain per server (implied by rail-only and
                                //!< nvlink-domain)
    LinkProfile nvlinkProfile;  //!< per-GPU NVLink profile (all of a GPU's NVLinks as one
                                //!< logical link); rate 0 = default preset nvlink4
    uint32_t nvlinkSwitches{1}; //!< NVSwitch nodes per server; each GPU has one link to each,
                                //!< at nvlinkProfile.rate / nvlinkSwitches (NVL72: 18)

    // ---- rail-optimized, rail-only
    uint32_t serversPerSu{0}; //!< servers per scalable unit; 0 = 32 (DGX SuperPOD)
    uint32_t sus{0};          //!< scalable units; 0 = 1
    uint32_t railUplinks{0};  //!< uplinks per rail switch; 0 = from oversubscription, else
                              //!< serversPerSu (1:1)
    uint32_t spinesPerSu{0};  //!< rail-optimized: spines per SU under a core tier (3 tiers);
                              //!< 0 = one spine tier shared by all SUs (`spines` of them)
    uint32_t cores{0};        //!< rail-optimized with SU spines: core switches; 0 = fewest
                              //!< that fit the radix (fat-tree: derived, must match if given)

    // ---- dragonfly-plus (groups of leaf/spine; hosts per leaf = gpusPerLeaf)
    uint32_t groups{0};              //!< groups
    uint32_t leavesPerGroup{0};      //!< leaves per group
    uint32_t spinesPerGroup{0};      //!< spines per group
    uint32_t globalLinksPerSpine{0}; //!< global links per spine

    // ---- custom
    std::vector<CustomNode> customNodes; //!< nodes, in order (GPUs numbered in this order)
    std::vector<CustomLink> customLinks; //!< links, in order
};

} // namespace ns3

#endif /* AI_FABRIC_TOPOLOGY_SPEC_H */
