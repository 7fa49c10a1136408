/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_LOCALITY_DOMAINS_H
#define AI_FABRIC_LOCALITY_DOMAINS_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;

/**
 * \ingroup ai-fabric
 * \return the level names GpuLocalityDomains() accepts
 */
std::vector<std::string> LocalityLevelNames();

/**
 * \ingroup ai-fabric
 * \brief The locality domain of every GPU, for topology-aware expert placement
 * and the MoE local fraction (BuildTrainingWorkload()).
 *
 * Levels:
 *  * "leaf": the first scale-out switch (tier >= 1) the GPU's NIC link reaches
 *    (through its NIC node, if any): leaf, edge or rail switch;
 *  * "server": the GPU's server (NVLink domain); a GPU outside any server is
 *    a domain of its own;
 *  * "group": the GPU's group (fat-tree pod, rail scalable unit, Dragonfly+
 *    group); all GPUs without a group share one domain.
 *
 * Domains are numbered densely from 0 in GPU order.
 *
 * \param graph the fabric
 * \param level the level
 * \return per GPU index: its domain; empty if the level is unknown
 */
std::vector<uint32_t> GpuLocalityDomains(const FabricGraph& graph, const std::string& level);

} // namespace ns3

#endif /* AI_FABRIC_LOCALITY_DOMAINS_H */
