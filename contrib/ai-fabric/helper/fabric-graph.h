/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_GRAPH_H
#define AI_FABRIC_FABRIC_GRAPH_H

#include "ns3/link-profile.h"

#include <cstdint>
#include <string>
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
 */
class FabricGraph
{
  public:
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
        NodeKind kind;    //!< kind
        std::string name; //!< unique name, e.g. "gpu3", "leaf0"
        uint32_t tier;    //!< 0 for GPUs, 1 for the first switch tier, ...
        uint32_t gpu;     //!< GPU index for GPUs (dense from 0), UINT32_MAX for switches
    };

    /// A full-duplex link.
    struct Link
    {
        uint32_t a;       //!< one end (node index)
        uint32_t b;       //!< other end (node index)
        uint32_t profile; //!< index into GetProfiles()
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

    /// \return nodes
    const std::vector<Node>& GetNodes() const;
    /// \return links
    const std::vector<Link>& GetLinks() const;
    /// \return link profiles
    const std::vector<LinkProfile>& GetProfiles() const;
    /// \param node a node \return its adjacencies, in link order
    const std::vector<Adjacency>& GetAdjacency(uint32_t node) const;
    /// \return number of GPUs
    uint32_t GetGpuCount() const;
    /// \return number of switches
    uint32_t GetSwitchCount() const;
    /// \return number of NIC nodes
    uint32_t GetNicCount() const;
    /// \param node a node \return true if it forwards packets (a switch or a NIC node)
    bool IsTransit(uint32_t node) const;
    /// \param gpu GPU index \return its node index
    uint32_t GetGpuNode(uint32_t gpu) const;

    /**
     * \brief Hop distances from every node to \p target over paths whose
     * intermediate nodes are switches or NIC nodes (GPUs are not transit nodes).
     * \param target the node
     * \return distance per node, UINT32_MAX where unreachable
     */
    std::vector<uint32_t> DistancesTo(uint32_t target) const;

    /**
     * \brief One shortest path (lowest link index at each hop) between two nodes.
     * \param src source node
     * \param dst destination node
     * \return the links in order; empty if unreachable or src == dst
     */
    std::vector<uint32_t> ShortestPath(uint32_t src, uint32_t dst) const;

  private:
    std::vector<Node> m_nodes;                       //!< nodes
    std::vector<Link> m_links;                       //!< links
    std::vector<LinkProfile> m_profiles;             //!< profiles
    std::vector<std::vector<Adjacency>> m_adjacency; //!< per node
    std::vector<uint32_t> m_gpuNodes;                //!< GPU index -> node
    uint32_t m_switches{0};                          //!< switch count
    uint32_t m_nics{0};                              //!< NIC node count
};

/**
 * \ingroup ai-fabric
 * \brief Generate the graph of a topology description.
 * \param spec the topology
 * \return the graph
 * \throws SpecError if the topology is impossible
 */
FabricGraph BuildFabricGraph(const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \return the topology kinds BuildFabricGraph() knows
 */
std::vector<std::string> TopologyKindNames();

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_GRAPH_H */
