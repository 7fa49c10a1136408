/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SPEC_NAMES_H
#define AI_FABRIC_SPEC_NAMES_H

#include "ns3/link-profile.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Names of the run options' settings (`congestion_control:`): "auto", "none",
 * "dcqcn". "auto" is resolved by ResolveCongestionControl().
 * \return the names
 */
const std::vector<std::string>& CongestionControlNames();

/**
 * \ingroup ai-fabric
 * \brief Names of the transport reliability settings (`transport: {reliability}`):
 * "auto", "none", "go-back-n". "auto" is resolved by ResolveReliability().
 * \return the names
 */
const std::vector<std::string>& ReliabilityNames();

/**
 * \ingroup ai-fabric
 * \brief The one place `congestion_control: auto` is resolved (the reader's checks and
 * the runner call it): "dcqcn" where some link marks ECN (ecn_kmin > 0, i.e. RoCEv2
 * runs DCQCN), else "none". Any other setting is returned as it is.
 * \param setting a name of CongestionControlNames()
 * \param profiles the link profiles of the built fabric (FabricGraph::GetProfiles())
 * \return "none" or "dcqcn" for "auto"; else \p setting
 */
std::string ResolveCongestionControl(const std::string& setting,
                                     const std::vector<LinkProfile>& profiles);

/**
 * \ingroup ai-fabric
 * \brief The one place `reliability: auto` is resolved (the reader's checks and the
 * fabric builder call it): "go-back-n" if any link is lossy (flow_control none), since a
 * drop anywhere needs end-to-end recovery and every endpoint must agree; else "none".
 * Any other setting is returned as it is.
 * \param setting a name of ReliabilityNames()
 * \param profiles the link profiles of the built fabric (FabricGraph::GetProfiles())
 * \return "none" or "go-back-n" for "auto"; else \p setting
 */
std::string ResolveReliability(const std::string& setting,
                               const std::vector<LinkProfile>& profiles);

/**
 * \ingroup ai-fabric
 * \brief Names of the ns-3 event schedulers a run may use (`scheduler:`, `--scheduler`):
 * ns-3's map, heap, list, calendar, priority-queue and the module's own quad-heap
 * (QuadHeapScheduler) and lane-heap (LaneHeapScheduler). Every one gives the same results
 * (events run in (time, insertion) order); only the speed differs (docs/performance.md).
 * \return the names
 */
const std::vector<std::string>& SchedulerNames();

/**
 * \ingroup ai-fabric
 * \brief The scheduler a run uses when neither the scenario nor the command line names
 * one: "lane-heap", measured the fastest on perm-320, ring-64 and the 16-GPU training
 * example (docs/performance.md).
 * \return the name
 */
const std::string& DefaultSchedulerName();

/**
 * \ingroup ai-fabric
 * \param name a name of SchedulerNames()
 * \return its ns-3 TypeId name (e.g. "ns3::PriorityQueueScheduler"), empty if unknown
 */
std::string SchedulerTypeName(const std::string& name);

} // namespace ns3

#endif /* AI_FABRIC_SPEC_NAMES_H */
