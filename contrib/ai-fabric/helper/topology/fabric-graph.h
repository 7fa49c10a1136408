/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_GRAPH_H
#define AI_FABRIC_FABRIC_GRAPH_H

#include "ns3/link-profile.h"
#include "ns3/workload.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

struct TopologySpec;

/**
 * \ingroup ai-fabric
 * \brief The one description of what is connected to what: GPUs, switches and
 * links with their profiles. Topology generators write it; the FabricBuilder
 * turns it into ns-3 nodes and devices, routing reads it, and the analytic
 * model prices paths on it, so simulation and analysis never disagree.
 *
 * Tiers: GPUs and NIC nodes are tier 0; switches of the scale-out fabric are
 * tier 1 (leaf, edge, rail switch), 2 (spine, aggregation) and 3 (core).
 * NVSwitches of an NVLink domain (inside a server or rack) are switches of
 * tier 0. Generators name their tiers (SetTierName).
 *
 * A GPU has one link to its NIC or fabric switch (kind FABRIC, or HOST towards
 * a NIC node) and, in an NVLink domain, one NVLINK link to each NVSwitch of its
 * server: such a GPU has more than one port (GetGpuNicLink picks the NIC one).
 *
 * Placement: generators record, per node, the server, the rail (local GPU or
 * NIC index in its server; for a rail switch its rail) and the group (fat-tree
 * pod, rail scalable unit, Dragonfly+ group) it belongs to, or NONE, so that
 * routing rules (rail-only PXN, Dragonfly+ minimal) and placement never
 * recompute indices from names.
 */
class FabricGraph
{
  public:
    /// "No such index" in the placement fields and lookups.
    static constexpr uint32_t NONE = UINT32_MAX;

    /// Node kinds.
    enum class NodeKind : uint8_t
    {
        GPU,    //!< a GPU endpoint (with its NIC, unless a NIC node is attached)
        SWITCH, //!< a switch
        NIC,    //!< a NIC reached from its GPU over a host link (PCIe): forwards like a switch
    };

    /// A node.
    struct Node
    {
        NodeKind kind;         //!< kind
        std::string name;      //!< unique name, e.g. "gpu3", "leaf0"
        uint32_t tier;         //!< 0 for GPUs, 1 for the first switch tier, ...
        uint32_t gpu;          //!< GPU index for GPUs (dense from 0), UINT32_MAX for switches
        uint32_t server{NONE}; //!< server (NVLink domain) index, NONE if not in one
        uint32_t rail{NONE};   //!< rail: the GPU's local index in its server (its NIC's rail),
                               //!< a rail switch's rail; NONE if not rail-aligned
        uint32_t group{NONE};  //!< pod (fat-tree), scalable unit (rail kinds) or group
                               //!< (Dragonfly+); NONE if none
    };

    /// What a link is for.
    enum class LinkKind : uint8_t
    {
        FABRIC, //!< scale-out network link (GPU or NIC to switch, switch to switch)
        HOST,   //!< GPU to its own NIC node (PCIe)
        NVLINK, //!< GPU to an NVSwitch of its NVLink domain (scale-up)
    };

    /// A full-duplex link.
    struct Link
    {
        uint32_t a;                      //!< one end (node index)
        uint32_t b;                      //!< other end (node index)
        uint32_t profile;                //!< index into GetProfiles()
        LinkKind kind{LinkKind::FABRIC}; //!< what the link is for
    };

    /// An adjacency entry.
    struct Adjacency
    {
        uint32_t link; //!< link index
        uint32_t peer; //!< node at the other end
    };

    /**
     * \param profile a link profile
     * \return its index
     */
    uint32_t AddProfile(const LinkProfile& profile);
    /**
     * \param name unique name
     * \return node index
     */
    uint32_t AddGpu(const std::string& name);
    /**
     * \param name unique name
     * \param tier switch tier (1 = closest to GPUs)
     * \return node index
     */
    uint32_t AddSwitch(const std::string& name, uint32_t tier);
    /**
     * \param name unique name
     * \return node index
     */
    uint32_t AddNic(const std::string& name);
    /**
     * \param a one end
     * \param b the other end
     * \param profile profile index
     * \return link index
     */
    uint32_t AddLink(uint32_t a, uint32_t b, uint32_t profile);
    /**
     * \param a one end
     * \param b the other end
     * \param profile profile index
     * \param kind what the link is for
     * \return link index
     */
    uint32_t AddLink(uint32_t a, uint32_t b, uint32_t profile, LinkKind kind);
    /**
     * \brief Record where a node sits (see the class comment); NONE leaves a field unset.
     * \param node the node
     * \param server server index
     * \param rail rail index
     * \param group pod, scalable unit or group index
     */
    void SetPlacement(uint32_t node, uint32_t server, uint32_t rail, uint32_t group);
    /**
     * \brief Name a switch tier, for reports ("leaf", "spine", "core", "nvswitch").
     * \param tier the tier
     * \param name its name
     */
    void SetTierName(uint32_t tier, const std::string& name);
    /// \param tier a tier \return its name, or "tier<N>" if unnamed
    std::string GetTierName(uint32_t tier) const;

    /// \return nodes
    const std::vector<Node>& GetNodes() const;
    /// \return links
    const std::vector<Link>& GetLinks() const;
    /// \return link profiles
    const std::vector<LinkProfile>& GetProfiles() const;
    /// \return the smallest `mtu` of its profiles (the transport cuts messages at it),
    ///         UINT32_MAX without profiles
    uint32_t GetSmallestMtu() const;
    /// \param node a node \return its adjacencies, in link order
    const std::vector<Adjacency>& GetAdjacency(uint32_t node) const;
    /// \return number of GPUs
    uint32_t GetGpuCount() const;
    /**
     * \brief Where each GPU sits, for NCCL-like channel plans (PlanChannels()).
     * \return per GPU index: its server and its local index there (its rail on rail-aligned
     *         fabrics, else its rank among the server's GPUs by index)
     */
    std::vector<EndpointPlace> GetEndpointPlaces() const;
    /// \return number of switches
    uint32_t GetSwitchCount() const;
    /**
     * \brief The in-network reducers: the NVSwitch nodes (switches every link of which is an
     * NVLink; NVLink SHARP, `algorithm: nvls`), then the InfiniBand switches (switches every
     * link of which is InfiniBand; SHARP, `algorithm: collnet`), each in node order. Reducer k is
     * endpoint GetGpuCount() + k when a fabric is built with them (FabricBuildOptions::reducers).
     * \return their node indices
     */
    std::vector<uint32_t> GetReducerNodes() const;
    /// \param node a node \return true if it is an NVSwitch (a switch all of whose links are
    ///         NVLinks)
    bool IsNvSwitch(uint32_t node) const;
    /**
     * \brief The SHARP aggregation tree of a group (InNetworkTree): each GPU attaches to the
     * switch its NIC reaches first; the GPUs with one local index (one per server) are reduced
     * by the switch they share, or by their switches and one switch linked to all of those
     * (the root). A GPU without a server is a server of its own.
     * \param gpus GPU indices (a collective's ranks)
     * \param[out] tree the tree (switches are indices into \p switches)
     * \param[out] switches reducer endpoint ids of the tree's switches
     * \return "" or why there is no such tree, as a sentence
     */
    std::string GetSharpTree(const std::vector<uint32_t>& gpus,
                             InNetworkTree& tree,
                             std::vector<uint32_t>& switches) const;
    /**
     * \param gpus GPU indices (a collective's ranks)
     * \return the reducer endpoint ids of the one server (NVLink domain) all of them are in:
     *         the NVSwitches every one of them links to; empty if they span servers or there
     *         is none
     */
    std::vector<uint32_t> GetReducersOf(const std::vector<uint32_t>& gpus) const;
    /// \return per endpoint id, its node: the GPUs (by index), then the reducers
    ///         (GetReducerNodes())
    std::vector<uint32_t> GetEndpointNodes() const;
    /// \return number of NIC nodes
    uint32_t GetNicCount() const;
    /// \param node a node \return true if it forwards packets (a switch or a NIC node)
    bool IsTransit(uint32_t node) const;
    /// \param gpu GPU index \return its node index
    uint32_t GetGpuNode(uint32_t gpu) const;
    /**
     * \param server server index
     * \param rail rail (local GPU index in the server)
     * \return the GPU index at that place, or NONE
     */
    uint32_t FindGpu(uint32_t server, uint32_t rail) const;
    /**
     * \param gpu GPU index
     * \return the GPU's link towards its NIC or fabric switch (kind FABRIC or HOST,
     * the lowest link index if several), or NONE if it has only NVLink links
     */
    uint32_t GetGpuNicLink(uint32_t gpu) const;

    /**
     * \brief Hop distances from every node to \p target over paths whose
     * intermediate nodes are switches or NIC nodes (GPUs are not transit nodes).
     * \param target the node
     * \return distance per node, UINT32_MAX where unreachable
     */
    std::vector<uint32_t> DistancesTo(uint32_t target) const;

    /**
     * \brief Hop distances from every node to \p target when GPUs may relay too
     * (a GPU forwarding between its NVLink and its NIC, as NCCL's PXN does on a
     * rail-only fabric). Equal to DistancesTo() where that is finite on fabrics
     * whose GPUs have a single link.
     * \param target the node
     * \return distance per node, UINT32_MAX where unreachable
     */
    std::vector<uint32_t> RelayDistancesTo(uint32_t target) const;

    /**
     * \brief Routing policy: may GPUs relay traffic between their NVLink and their
     * NIC (NCCL PXN)? Set by the rail-only generator.
     * \param relay true to allow it
     */
    void SetGpuRelay(bool relay);
    /// \return true if GPUs relay traffic (rail-only fabrics)
    bool GetGpuRelay() const;
    /**
     * \brief Routing policy of a Dragonfly+: a path takes a link between two groups (a
     * switch-to-switch link whose ends are in different groups) only into the destination's
     * group, so a minimal path crosses at most one, and never passes through a third group
     * even where that would be shorter (a spine without a global link to the destination's
     * group goes down and up inside its own group). Set by the dragonfly-plus generator;
     * distances (DistancesTo(), RelayDistancesTo()) and NextHops() follow it.
     * \param minimal true to apply it
     */
    void SetGroupMinimal(bool minimal);
    /// \return true if paths cross at most one group boundary, into the destination's group
    bool GetGroupMinimal() const;
    /**
     * \param a a node
     * \param b a node adjacent to it
     * \return true if a and b are switches of two different groups (a global link)
     */
    bool JoinsGroups(uint32_t a, uint32_t b) const;
    /**
     * \brief Hop distances from every switch to the nearest switch of a group, under the
     * group-minimal policy when it is set (the first leg of a Valiant detour).
     * \param group a group
     * \return distance per node (0 in the group), UINT32_MAX for non-switches and the
     *         unreachable
     */
    std::vector<uint32_t> SwitchDistancesToGroup(uint32_t group) const;
    /**
     * \brief Hop distances used by routing: RelayDistancesTo() if GPUs relay,
     * else DistancesTo().
     * \param target the destination node
     * \return distance per node, UINT32_MAX where unreachable
     */
    std::vector<uint32_t> RouteDistancesTo(uint32_t target) const;
    /**
     * \brief The equal-cost next hops of \p node towards \p target, under the routing
     * policy: shortest paths whose transit nodes are switches, NIC nodes and (if
     * GPUs relay) GPUs; inside one server only NVLink links; a GPU sending out of
     * its server uses its own NIC whenever that is a shortest path, except that on
     * a relaying (rail-only) fabric a GPU whose rail differs from the destination's
     * sends over NVLink to the GPU of the destination's rail in its own server,
     * which sends on that rail (NCCL PXN).
     * \param node the node choosing
     * \param target the destination GPU's node
     * \param dist RouteDistancesTo(target)
     * \param out filled with indices into GetAdjacency(node)
     */
    void NextHops(uint32_t node,
                  uint32_t target,
                  const std::vector<uint32_t>& dist,
                  std::vector<uint32_t>& out) const;

    /**
     * \brief One routed path between two nodes: the first of NextHops() at each hop.
     * \param src source node
     * \param dst destination node
     * \return the links in order; empty if unreachable or src == dst
     */
    std::vector<uint32_t> ShortestPath(uint32_t src, uint32_t dst) const;

  private:
    /**
     * \brief Breadth-first hop distances to \p target.
     * \param target the node
     * \param gpusRelay whether GPUs may be transit nodes
     * \return distance per node, UINT32_MAX where unreachable
     */
    std::vector<uint32_t> Distances(uint32_t target, bool gpusRelay) const;

    /// Build m_reducerIndex if the graph has changed since (GetReducersOf(), GetSharpTree()).
    void UpdateReducerIndex() const;

    std::vector<Node> m_nodes;                       //!< nodes
    std::vector<Link> m_links;                       //!< links
    std::vector<LinkProfile> m_profiles;             //!< profiles
    std::vector<std::vector<Adjacency>> m_adjacency; //!< per node
    std::vector<uint32_t> m_gpuNodes;                //!< GPU index -> node
    uint32_t m_switches{0};                          //!< switch count
    bool m_gpuRelay{false};                          //!< GPUs relay (PXN)
    bool m_groupMinimal{false}; //!< at most one link between groups, into the destination's
    uint32_t m_nics{0};         //!< NIC node count
    std::map<uint32_t, std::string> m_tierNames;               //!< switch tier names
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_gpuAt; //!< (server, rail) -> GPU index
    /// GetReducersOf()'s memo: per node, its reducer index k (NONE if not a reducer), for the
    /// graph of m_reducerMemoLinks links (rebuilt when links are added)
    mutable std::vector<uint32_t> m_reducerIndex;
    mutable std::size_t m_reducerMemoLinks{SIZE_MAX}; //!< links when the memo was built
};

/**
 * \ingroup ai-fabric
 * \brief Generate the graph of a topology description (dispatch on its kind,
 * TopologySpec::shape; the generators live in fabric-topology.h).
 * \param spec the topology
 * \return the graph
 * \throws SpecError if the topology is impossible
 */
FabricGraph BuildFabricGraph(const TopologySpec& spec);

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_GRAPH_H */
