/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_PORT_METRICS_H
#define AI_FABRIC_PORT_METRICS_H

#include "ns3/run-results.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;

/**
 * \ingroup ai-fabric
 * \brief The tier classes, in report order: nvlink, pcie, gpu-leaf, leaf-spine,
 * spine-core, intra-group, global, switch-switch.
 * \return the names
 */
const std::vector<std::string>& TierClassNames();

/**
 * \ingroup ai-fabric
 * \brief The tier class of a link, from the graph (docs/results-format.md):
 *  * `nvlink`: an NVLink link (GPU to NVSwitch), or any link whose profile's
 *    technology is nvlink;
 *  * `pcie`: a host link, GPU to its own NIC node;
 *  * `gpu-leaf`: a GPU or NIC node to a switch of tier >= 1 (its first switch tier);
 *  * on a custom topology every other link is `switch-switch`; otherwise between
 *    two switches: `global` if both are placed in groups and the groups differ
 *    (Dragonfly+ inter-group links), `leaf-spine` between tiers 1 and 2,
 *    `spine-core` between tiers 2 and 3, `intra-group` between two switches of
 *    one tier in the same group, and `switch-switch` for anything else.
 * \param graph the fabric
 * \param link a link index
 * \param custom the graph is a custom topology
 * \return the class name
 */
std::string TierClassOf(const FabricGraph& graph, uint32_t link, bool custom);

/**
 * \ingroup ai-fabric
 * \brief Aggregate ports per tier class: one record per class present, in
 * TierClassNames() order. Utilisation of a port = busyS / runS.
 * \param ports the ports (tierClass filled)
 * \param runS the run's simulated time, seconds (0: utilisations 0)
 * \return the records
 */
std::vector<TierClassRecord> SummarizeTierClasses(const std::vector<PortRecord>& ports,
                                                  double runS);

} // namespace ns3

#endif /* AI_FABRIC_PORT_METRICS_H */
