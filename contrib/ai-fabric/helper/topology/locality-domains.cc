/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "locality-domains.h"

#include "ns3/fabric-graph.h"

#include <map>

namespace ns3
{

std::vector<std::string>
LocalityLevelNames()
{
    return {"leaf", "server", "group"};
}

std::vector<uint32_t>
GpuLocalityDomains(const FabricGraph& graph, const std::string& level)
{
    constexpr uint32_t NONE = FabricGraph::NONE;
    const uint32_t gpus = graph.GetGpuCount();
    const auto& nodes = graph.GetNodes();
    std::vector<uint64_t> key(gpus);
    for (uint32_t g = 0; g < gpus; ++g)
    {
        const uint32_t node = graph.GetGpuNode(g);
        if (level == "leaf")
        {
            uint64_t k = (uint64_t{1} << 40) + g; // no fabric switch: alone
            const uint32_t link = graph.GetGpuNicLink(g);
            if (link != NONE)
            {
                const auto& l = graph.GetLinks()[link];
                uint32_t at = l.a == node ? l.b : l.a;
                if (nodes[at].kind == FabricGraph::NodeKind::NIC)
                {
                    for (const auto& adj : graph.GetAdjacency(at))
                    {
                        if (nodes[adj.peer].kind == FabricGraph::NodeKind::SWITCH
                            && nodes[adj.peer].tier >= 1)
                        {
                            at = adj.peer;
                            break;
                        }
                    }
                }
                if (nodes[at].kind == FabricGraph::NodeKind::SWITCH)
                {
                    k = at;
                }
            }
            key[g] = k;
        }
        else if (level == "server")
        {
            key[g] = nodes[node].server != NONE ? nodes[node].server : (uint64_t{1} << 40) + g;
        }
        else if (level == "group")
        {
            key[g] = nodes[node].group;
        }
        else
        {
            return {};
        }
    }
    std::map<uint64_t, uint32_t> dense;
    std::vector<uint32_t> out(gpus);
    for (uint32_t g = 0; g < gpus; ++g)
    {
        out[g] = dense.emplace(key[g], dense.size()).first->second;
    }
    return out;
}

} // namespace ns3
