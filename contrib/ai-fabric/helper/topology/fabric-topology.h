/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_TOPOLOGY_H
#define AI_FABRIC_FABRIC_TOPOLOGY_H

#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"
#include "ns3/topology-spec.h"

#include <cstdint>
#include <optional>
#include <string>

/**
 * \file
 * \ingroup ai-fabric
 * The topology generators behind BuildFabricGraph(), one per kind of
 * TopologyShape, and the sizing each one resolves from a TopologySpec (what the
 * user gave, with every count not given derived or defaulted). The analyzer prices the closed-form
 * bisection formulas on the same sizing, so the formula and the graph never describe different
 * fabrics.
 *
 * Every Resolve*() and Build*Graph() validates its input and throws SpecError
 * at spec.where naming what is wrong. Generators are linear in the number of
 * links they create. Wiring rules and counts: docs/topologies.md.
 */

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Parse an oversubscription ratio.
 * \param text "D:U" (e.g. "3:1", "3:2") or "D" (= "D:1"), positive integers
 * \param ratio set on success, reduced to lowest terms ("6:2" -> 3:1)
 * \return true if the text is a valid ratio
 */
bool ParseOversubscription(const std::string& text, OversubscriptionRatio& ratio);

/**
 * \ingroup ai-fabric
 * \param ratio a ratio, if given
 * \return "D:U", or "unset" if the ratio is not given
 */
std::string FormatRatio(const std::optional<OversubscriptionRatio>& ratio);

/**
 * \ingroup ai-fabric
 * \brief Two-tier leaf-spine (FACTS.md 1.2): every leaf has `gpusPerLeaf` ports down
 * and `uplinks` = spines x linksPerSpine ports up, `linksPerSpine` to each spine.
 */
struct LeafSpineSizing
{
    uint32_t leaves{0};        //!< leaf switches
    uint32_t spines{0};        //!< spine switches
    uint32_t gpusPerLeaf{0};   //!< GPUs (down ports) per leaf
    uint32_t uplinks{0};       //!< up ports per leaf
    uint32_t linksPerSpine{1}; //!< parallel links from each leaf to each spine
};

/**
 * \ingroup ai-fabric
 * \brief Size a leaf-spine (LeafSpineSpec): (1) `leaves`, `spines`, `gpusPerLeaf`,
 * `linksPerSpine` as given; (2) `radix` + `oversubscription` D:U: down = k D/(D+U), up =
 * k U/(D+U), leaves default to radix / linksPerSpine (every spine port used); (3) explicit
 * port counts `gpusPerLeaf` + `uplinks`, spines = uplinks / linksPerSpine.
 * \param spec the topology, of kind leaf-spine
 * \return the sizing
 */
LeafSpineSizing ResolveLeafSpine(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief Three-tier fat-tree: `pods` pods, each a leaf-spine of `leavesPerPod` leaves
 * and `spinesPerPod` spines (every leaf one link to every spine of its pod), under
 * `cores` = spinesPerPod x spineUplinks core switches arranged in spinesPerPod
 * groups: spine j of every pod has one link to each of the spineUplinks cores of
 * group j, so every core has one link into each pod (Al-Fares et al., SIGCOMM 2008;
 * FACTS.md 1.1). With radix k and 1:1 at both tiers this is the k-ary fat-tree:
 * k pods, k/2 leaves and k/2 spines per pod, (k/2)^2 cores, k^3/4 GPUs.
 */
struct FatTreeSizing
{
    uint32_t pods{0};         //!< pods
    uint32_t leavesPerPod{0}; //!< leaf (edge) switches per pod
    uint32_t spinesPerPod{0}; //!< spine (aggregation) switches per pod = leaf uplinks
    uint32_t gpusPerLeaf{0};  //!< GPUs (down ports) per leaf
    uint32_t spineUplinks{0}; //!< core links per spine = cores per core group
    uint32_t cores{0};        //!< core switches
};

/**
 * \ingroup ai-fabric
 * \brief Size a fat-tree (FatTreeSpec) from `radix` and the per-tier ratios
 * (`oversubscription` at the leaves, `spineOversubscription` at the spines; 1:1 if not
 * given), or from explicit counts (`gpusPerLeaf`, `spinesPerPod`, `leavesPerPod`,
 * `spineUplinks`, `pods`).
 * \param spec the topology, of kind fat-tree
 * \return the sizing
 */
FatTreeSizing ResolveFatTree(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief Rail-optimized or rail-only cluster (FACTS.md 1.3, 1.4): scalable units (SU)
 * of `serversPerSu` servers of `gpusPerServer` GPUs, one NIC per GPU; NIC g of every
 * server of an SU on rail switch g of that SU.
 *
 * rail-optimized, shared spine tier (no spinesPerSu, the DGX H100 RA for up to 4 SUs):
 * every rail switch of every SU spreads its `railUplinks` evenly over all `spines`
 * spines (linksPerSpine each). With SU spines (spinesPerSu given, the B200 RA from 16
 * SUs): each rail switch spreads its uplinks over its SU's spines; cores form
 * spinesPerSu groups of coresPerGroup; spine q of every SU spreads its
 * `spineUplinks` over the cores of group q (linksPerCore each).
 * rail-only: no spine shared between rails; with more than one SU, rail r has its
 * own `spines` spines joining rail switch r of every SU (a per-rail leaf-spine).
 */
struct RailSizing
{
    bool railOnly{false};      //!< rail-only (no spine shared between rails)
    bool nvlink{false};        //!< servers have NVLink domains (always for rail-only)
    bool pxn{false};           //!< GPUs relay cross-rail traffic over NVLink (PXN): always for
                               //!< rail-only; rail-optimized with NVLink unless `pxn: false`
    uint32_t gpusPerServer{0}; //!< GPUs (= NICs = rails) per server
    uint32_t serversPerSu{0};  //!< servers per SU (= down ports of a rail switch)
    uint32_t sus{0};           //!< scalable units
    uint32_t railUplinks{0};   //!< uplinks per rail switch (0 for a one-SU rail-only fabric)
    uint32_t spines{0};        //!< shared spines (rail-optimized), spines per rail (rail-only),
                               //!< 0 with SU spines or without a spine tier
    uint32_t linksPerSpine{0}; //!< links from a rail switch to each spine it reaches
    uint32_t spinesPerSu{0};   //!< SU spines (rail-optimized, 3 tiers), else 0
    uint32_t spineUplinks{0};  //!< core links per SU spine (3 tiers), else 0
    uint32_t coresPerGroup{0}; //!< cores per core group (3 tiers), else 0
    uint32_t linksPerCore{0};  //!< links from an SU spine to each core of its group
    uint32_t radix{0};         //!< switch radix used for the checks (given, or rail-switch ports)

    /// \return GPUs in the fabric
    uint64_t Gpus() const;
    /// \return rail switches in the fabric
    uint64_t RailSwitches() const;
    /// \return core switches (3 tiers), else 0
    uint64_t Cores() const;
};

/**
 * \ingroup ai-fabric
 * \brief Size a rail-optimized (RailOptimizedSpec) or rail-only (RailOnlySpec) fabric.
 * Defaults: 8 GPUs per server, 1 SU; railUplinks = serversPerSu (1:1) unless
 * `oversubscription` is given; serversPerSu from the radix (radix/2 alone, or with the ratio)
 * unless railUplinks is given without a ratio, else 32 (a DGX SU). The radix bounds the
 * ports: down + up beyond it is refused (never filled with uplinks). spines = the fewest
 * that divide railUplinks and fit the radix (the radix defaults to the rail switch's
 * serversPerSu + railUplinks); an SU spine's uplinks equal its down ports unless
 * `spine_oversubscription` or `spine_uplinks` is given.
 * \param spec the topology
 * \return the sizing
 */
RailSizing ResolveRail(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief Dragonfly+ (Shpiner et al., HiPINEB 2017; FACTS.md 1.6): `groups` groups,
 * each a leaf/spine bipartite graph (every leaf one link to every spine of its
 * group), `gpusPerLeaf` GPUs per leaf, `globalLinksPerSpine` global links per spine.
 *
 * Global wiring: group i numbers its S = spinesPerGroup x globalLinksPerSpine global
 * ports q = spine x globalLinksPerSpine + port; port q goes to group
 * (i + 1 + q mod (G-1)) mod G, so every pair of groups is joined by
 * linksPerGroupPair = S / (G-1) links, spread over the spines. S must be a multiple
 * of G-1.
 */
struct DragonflyPlusSizing
{
    uint32_t groups{0};              //!< groups G
    uint32_t leavesPerGroup{0};      //!< leaves per group
    uint32_t spinesPerGroup{0};      //!< spines per group
    uint32_t gpusPerLeaf{0};         //!< GPUs (hosts) per leaf
    uint32_t globalLinksPerSpine{0}; //!< global links per spine
    uint32_t linksPerGroupPair{0};   //!< global links between every two groups
};

/**
 * \ingroup ai-fabric
 * \param spec the topology
 * \return the sizing
 */
DragonflyPlusSizing ResolveDragonflyPlus(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief An NVLink domain per server: `switches` NVSwitch nodes (tier 0), each GPU of
 * the server one link to each, every link at the per-GPU rate / switches (the
 * NVLink presets carry a GPU's whole per-direction bandwidth as one logical link;
 * FACTS.md 1.7: DGX H100 = 8 GPUs on one logical NVSwitch at 3600 Gb/s; GB200 NVL72
 * = 72 GPUs, 18 switch chips, one 400 Gb/s link from every GPU to every chip).
 */
struct NvlinkSizing
{
    uint32_t gpusPerServer{0}; //!< GPUs per server (domain)
    uint32_t switches{1};      //!< NVSwitch nodes per server
    LinkProfile perGpu;        //!< the per-GPU profile (rate = the GPU's NVLink bandwidth)
    LinkProfile perLink;       //!< one GPU-to-NVSwitch link: perGpu with rate / switches
};

/**
 * \ingroup ai-fabric
 * \brief The NVLink profile of a topology: spec.nvlinkProfile if given, else
 * the preset "nvlink4" (DGX H100), else (no such preset) the fabric link's profile
 * with technology "nvlink" and rate 3600 Gb/s (H100: 18 x 25 GB/s per direction,
 * FACTS.md 1.7).
 * \param spec the topology
 * \return the per-GPU NVLink profile
 */
LinkProfile NvlinkProfileOf(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \param spec the topology
 * \param defaultGpusPerServer GPUs per server when spec.gpusPerServer is not given (0 =
 * required)
 * \return the NVLink domain sizing
 */
NvlinkSizing ResolveNvlink(const TopologySpec& spec, uint32_t defaultGpusPerServer);

/**
 * \ingroup ai-fabric
 * \brief kind "single-switch": every GPU's NIC on one switch.
 * \param spec the topology
 * \return the graph
 */
FabricGraph BuildSingleSwitchGraph(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief kind "leaf-spine" (see ResolveLeafSpine).
 * \param spec the topology
 * \return the graph
 */
FabricGraph BuildLeafSpineGraph(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief kind "fat-tree" (see FatTreeSizing).
 * \param spec the topology
 * \return the graph
 */
FabricGraph BuildFatTreeGraph(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief kinds "rail-optimized" and "rail-only" (see RailSizing).
 * \param spec the topology
 * \return the graph
 */
FabricGraph BuildRailGraph(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief kind "dragonfly-plus" (see DragonflyPlusSizing).
 * \param spec the topology
 * \return the graph
 */
FabricGraph BuildDragonflyPlusGraph(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief kind "nvlink-domain": one server (or NVL72-like rack) of gpusPerServer GPUs
 * on nvlinkSwitches NVSwitch nodes (see NvlinkSizing); no scale-out NICs.
 * \param spec the topology
 * \return the graph
 */
FabricGraph BuildNvlinkDomainGraph(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief kind "custom": the nodes and links of CustomSpec as listed. Rejects
 * duplicate names, unknown kinds, links to unknown nodes, self-links, fewer than 2
 * GPUs and a disconnected graph (naming a node that is cut off). A link's kind is
 * NVLINK if its profile's technology is "nvlink" and one end is a GPU, HOST if
 * "pcie" between a GPU and a NIC, else FABRIC.
 * \param spec the topology
 * \return the graph
 */
FabricGraph BuildCustomGraph(const TopologySpec& spec);

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_TOPOLOGY_H */
