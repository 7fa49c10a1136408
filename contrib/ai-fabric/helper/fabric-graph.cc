/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-graph.h"

#include "scenario-spec.h"
#include "spec-error.h"

#include "ns3/abort.h"

#include <deque>

namespace ns3
{

uint32_t
FabricGraph::AddProfile(const LinkProfile& profile)
{
    m_profiles.push_back(profile);
    return m_profiles.size() - 1;
}

uint32_t
FabricGraph::AddGpu(const std::string& name)
{
    m_nodes.push_back(Node{NodeKind::GPU, name, 0, static_cast<uint32_t>(m_gpuNodes.size())});
    m_adjacency.emplace_back();
    m_gpuNodes.push_back(m_nodes.size() - 1);
    return m_nodes.size() - 1;
}

uint32_t
FabricGraph::AddSwitch(const std::string& name, uint32_t tier)
{
    m_nodes.push_back(Node{NodeKind::SWITCH, name, tier, UINT32_MAX});
    m_adjacency.emplace_back();
    ++m_switches;
    return m_nodes.size() - 1;
}

uint32_t
FabricGraph::AddNic(const std::string& name)
{
    m_nodes.push_back(Node{NodeKind::NIC, name, 0, UINT32_MAX});
    m_adjacency.emplace_back();
    ++m_nics;
    return m_nodes.size() - 1;
}

uint32_t
FabricGraph::GetNicCount() const
{
    return m_nics;
}

bool
FabricGraph::IsTransit(uint32_t node) const
{
    return m_nodes[node].kind != NodeKind::GPU;
}

uint32_t
FabricGraph::AddLink(uint32_t a, uint32_t b, uint32_t profile)
{
    NS_ABORT_MSG_IF(a >= m_nodes.size() || b >= m_nodes.size() || a == b, "bad link");
    NS_ABORT_MSG_IF(profile >= m_profiles.size(), "bad link profile");
    m_links.push_back(Link{a, b, profile});
    const uint32_t id = m_links.size() - 1;
    m_adjacency[a].push_back(Adjacency{id, b});
    m_adjacency[b].push_back(Adjacency{id, a});
    return id;
}

const std::vector<FabricGraph::Node>&
FabricGraph::GetNodes() const
{
    return m_nodes;
}

const std::vector<FabricGraph::Link>&
FabricGraph::GetLinks() const
{
    return m_links;
}

const std::vector<LinkProfile>&
FabricGraph::GetProfiles() const
{
    return m_profiles;
}

const std::vector<FabricGraph::Adjacency>&
FabricGraph::GetAdjacency(uint32_t node) const
{
    return m_adjacency[node];
}

uint32_t
FabricGraph::GetGpuCount() const
{
    return m_gpuNodes.size();
}

uint32_t
FabricGraph::GetSwitchCount() const
{
    return m_switches;
}

uint32_t
FabricGraph::GetGpuNode(uint32_t gpu) const
{
    return m_gpuNodes.at(gpu);
}

std::vector<uint32_t>
FabricGraph::DistancesTo(uint32_t target) const
{
    std::vector<uint32_t> dist(m_nodes.size(), UINT32_MAX);
    std::deque<uint32_t> frontier;
    dist[target] = 0;
    frontier.push_back(target);
    while (!frontier.empty())
    {
        const uint32_t n = frontier.front();
        frontier.pop_front();
        // A GPU is an endpoint, never a transit node (except the target itself).
        if (n != target && !IsTransit(n))
        {
            continue;
        }
        for (const Adjacency& adj : m_adjacency[n])
        {
            if (dist[adj.peer] == UINT32_MAX)
            {
                dist[adj.peer] = dist[n] + 1;
                frontier.push_back(adj.peer);
            }
        }
    }
    return dist;
}

std::vector<uint32_t>
FabricGraph::ShortestPath(uint32_t src, uint32_t dst) const
{
    std::vector<uint32_t> path;
    const std::vector<uint32_t> dist = DistancesTo(dst);
    if (src == dst || dist[src] == UINT32_MAX)
    {
        return path;
    }
    uint32_t n = src;
    while (n != dst)
    {
        for (const Adjacency& adj : m_adjacency[n])
        {
            if (dist[adj.peer] + 1 == dist[n])
            {
                path.push_back(adj.link);
                n = adj.peer;
                break;
            }
        }
    }
    return path;
}

namespace
{

/**
 * \brief Add GPU \p index; with a host link, also its NIC node behind it.
 * \param g the graph
 * \param spec the topology (host link settings)
 * \param index GPU index
 * \param hostProfile profile index of the host link (if any)
 * \return the node that carries the GPU's fabric link (the GPU or its NIC)
 */
uint32_t
AddEndpoint(FabricGraph& g, const TopologySpec& spec, uint32_t index, uint32_t hostProfile)
{
    const uint32_t gpu = g.AddGpu("gpu" + std::to_string(index));
    if (!spec.hasHostLink)
    {
        return gpu;
    }
    const uint32_t nic = g.AddNic("nic" + std::to_string(index));
    g.AddLink(gpu, nic, hostProfile);
    return nic;
}

/// \return the host link's profile index, or 0 (unused) without one
uint32_t
AddHostProfile(FabricGraph& g, const TopologySpec& spec)
{
    return spec.hasHostLink ? g.AddProfile(spec.hostLink) : 0;
}

/// kind "single-switch": every GPU's NIC on one switch.
FabricGraph
BuildSingleSwitch(const TopologySpec& spec)
{
    if (spec.gpus < 2)
    {
        throw SpecError(spec.where, "a single-switch topology needs at least 2 GPUs");
    }
    FabricGraph g;
    const uint32_t profile = g.AddProfile(spec.link);
    const uint32_t host = AddHostProfile(g, spec);
    const uint32_t sw = g.AddSwitch("switch0", 1);
    for (uint32_t i = 0; i < spec.gpus; ++i)
    {
        g.AddLink(AddEndpoint(g, spec, i, host), sw, profile);
    }
    return g;
}

/// kind "leaf-spine": two tiers, every leaf linked to every spine.
FabricGraph
BuildLeafSpine(const TopologySpec& spec)
{
    if (spec.leaves < 1 || spec.spines < 1 || spec.gpusPerLeaf < 1 || spec.linksPerSpine < 1)
    {
        throw SpecError(spec.where,
                        "a leaf-spine topology needs at least 1 leaf, 1 spine, 1 GPU per leaf "
                        "and 1 link per spine");
    }
    if (spec.leaves * spec.gpusPerLeaf < 2)
    {
        throw SpecError(spec.where, "a leaf-spine topology needs at least 2 GPUs");
    }
    FabricGraph g;
    const uint32_t profile = g.AddProfile(spec.link);
    const uint32_t host = AddHostProfile(g, spec);
    std::vector<uint32_t> spines;
    for (uint32_t s = 0; s < spec.spines; ++s)
    {
        spines.push_back(g.AddSwitch("spine" + std::to_string(s), 2));
    }
    for (uint32_t l = 0; l < spec.leaves; ++l)
    {
        const uint32_t leaf = g.AddSwitch("leaf" + std::to_string(l), 1);
        for (uint32_t i = 0; i < spec.gpusPerLeaf; ++i)
        {
            g.AddLink(AddEndpoint(g, spec, l * spec.gpusPerLeaf + i, host), leaf, profile);
        }
        for (const uint32_t spine : spines)
        {
            for (uint32_t k = 0; k < spec.linksPerSpine; ++k)
            {
                g.AddLink(leaf, spine, profile);
            }
        }
    }
    return g;
}

} // namespace

FabricGraph
BuildFabricGraph(const TopologySpec& spec)
{
    if (spec.kind == "single-switch")
    {
        return BuildSingleSwitch(spec);
    }
    if (spec.kind == "leaf-spine")
    {
        return BuildLeafSpine(spec);
    }
    std::string known;
    for (const auto& k : TopologyKindNames())
    {
        known += (known.empty() ? "" : ", ") + k;
    }
    throw SpecError(spec.where, "unknown topology kind '" + spec.kind + "' (known: " + known + ")");
}

std::vector<std::string>
TopologyKindNames()
{
    return {"single-switch", "leaf-spine"};
}

} // namespace ns3
