/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SPEC_NAMES_H
#define AI_FABRIC_SPEC_NAMES_H

#include "ns3/link-profile.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

/**
 * \file
 * \ingroup ai-fabric
 * The settings a scenario chooses by name, as enums, with the one table of their names
 * each (the YAML spelling; every enum's values are in the order of its names) and the one
 * function that resolves each `auto` (the reader's checks, the runner and the fabric
 * builder all call it). Collective ops and algorithms have their tables in the module's
 * collective room (CollectiveOpNames(), CollectiveAlgorithmNames()).
 */

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Congestion control of a run (`congestion_control:`).
 */
enum class CongestionControlSetting : uint8_t
{
    AUTO,  //!< "auto": resolved by ResolveCongestionControl()
    NONE,  //!< "none": every queue pair sends at line rate
    DCQCN, //!< "dcqcn": ns3::Dcqcn at every endpoint
};

/**
 * \ingroup ai-fabric
 * \brief Transport reliability (`transport: {reliability}`).
 */
enum class ReliabilitySetting : uint8_t
{
    AUTO,      //!< "auto": resolved by ResolveReliability()
    NONE,      //!< "none": no ACKs, no retransmission (a lossless fabric)
    GO_BACK_N, //!< "go-back-n": ACKs, NACKs and go-back-N retransmission
};

/**
 * \ingroup ai-fabric
 * \brief The choice among equal-cost ports at every switch (`forwarding:`).
 */
enum class ForwardingMode : uint8_t
{
    ECMP,     //!< "ecmp": one port per flow (queue pair hash), as deployed (ns3::EcmpRouting)
    SPRAY,    //!< "spray": a port per packet (ns3::SprayRouting)
    ADAPTIVE, //!< "adaptive": the least-loaded port (ns3::AdaptiveRouting)
};

/**
 * \ingroup ai-fabric
 * \brief A Dragonfly+ topology's path choice between groups (`routing:`).
 */
enum class PathChoice : uint8_t
{
    MINIMAL, //!< "minimal": the shortest paths (no group strategy)
    VALIANT, //!< "valiant": through a random intermediate group (ns3::ValiantRouting)
    UGAL,    //!< "ugal": minimal or Valiant by queue depth (ns3::UgalRouting)
};

/**
 * \ingroup ai-fabric
 * \brief Straggler attribution of a run (`attribution: {enabled}`, `--attribution`).
 */
enum class AttributionSetting : uint8_t
{
    AUTO, //!< "auto": resolved by ResolveAttribution()
    ON,   //!< "on" (YAML `true`)
    OFF,  //!< "off" (YAML `false`)
};

/**
 * \ingroup ai-fabric
 * \return the names of CongestionControlSetting: "auto", "none", "dcqcn"
 */
const std::vector<std::string>& CongestionControlNames();

/**
 * \ingroup ai-fabric
 * \return the names of ReliabilitySetting: "auto", "none", "go-back-n"
 */
const std::vector<std::string>& ReliabilityNames();

/**
 * \ingroup ai-fabric
 * \return the names of ForwardingMode: "ecmp", "spray", "adaptive"
 */
const std::vector<std::string>& ForwardingNames();

/**
 * \ingroup ai-fabric
 * \return the names of PathChoice: "minimal", "valiant", "ugal"
 */
const std::vector<std::string>& PathChoiceNames();

/**
 * \ingroup ai-fabric
 * \return the names of AttributionSetting: "auto", "on", "off"
 */
const std::vector<std::string>& AttributionNames();

/**
 * \ingroup ai-fabric
 * \param setting a setting
 * \return its name
 */
const std::string& SpecName(CongestionControlSetting setting);

/// \copydoc SpecName(CongestionControlSetting)
const std::string& SpecName(ReliabilitySetting setting);

/// \copydoc SpecName(CongestionControlSetting)
const std::string& SpecName(ForwardingMode setting);

/// \copydoc SpecName(CongestionControlSetting)
const std::string& SpecName(PathChoice setting);

/// \copydoc SpecName(CongestionControlSetting)
const std::string& SpecName(AttributionSetting setting);

/**
 * \ingroup ai-fabric
 * \param name a name
 * \param[out] setting the setting of that name, if known
 * \return true if \p name is one of the setting's names
 */
bool ParseSpecName(const std::string& name, CongestionControlSetting& setting);

/// \copydoc ParseSpecName(const std::string&,CongestionControlSetting&)
bool ParseSpecName(const std::string& name, ReliabilitySetting& setting);

/// \copydoc ParseSpecName(const std::string&,CongestionControlSetting&)
bool ParseSpecName(const std::string& name, ForwardingMode& setting);

/// \copydoc ParseSpecName(const std::string&,CongestionControlSetting&)
bool ParseSpecName(const std::string& name, PathChoice& setting);

/// \copydoc ParseSpecName(const std::string&,CongestionControlSetting&)
bool ParseSpecName(const std::string& name, AttributionSetting& setting);

/**
 * \ingroup ai-fabric
 * \brief The one place `congestion_control: auto` is resolved (the reader's checks and
 * the runner call it): DCQCN where some link marks ECN (ecn_kmin > 0, i.e. RoCEv2 runs
 * DCQCN), else none. Any other setting is returned as it is.
 * \param setting the setting
 * \param profiles the link profiles of the built fabric (FabricGraph::GetProfiles())
 * \return NONE or DCQCN
 */
CongestionControlSetting ResolveCongestionControl(CongestionControlSetting setting,
                                                  const std::vector<LinkProfile>& profiles);

/**
 * \ingroup ai-fabric
 * \brief The one place `reliability: auto` is resolved (the reader's checks and the
 * fabric builder call it): go-back-N if any link is lossy (flow_control none), since a
 * drop anywhere needs end-to-end recovery and every endpoint must agree; else none.
 * Any other setting is returned as it is.
 * \param setting the setting
 * \param profiles the link profiles of the built fabric (FabricGraph::GetProfiles())
 * \return NONE or GO_BACK_N
 */
ReliabilitySetting ResolveReliability(ReliabilitySetting setting,
                                      const std::vector<LinkProfile>& profiles);

/**
 * \ingroup ai-fabric
 * \brief The one place `attribution: auto` is resolved (the runner calls it): on up to
 * ATTRIBUTION_AUTO_MAX_MESSAGES messages, off beyond.
 * \param setting the setting
 * \param messages the messages (SEND ops) of the run's workload
 * \return true if the straggler ledger is on
 */
bool ResolveAttribution(AttributionSetting setting, uint64_t messages);

/// `attribution: auto` turns the straggler ledger on up to this many messages.
constexpr uint64_t ATTRIBUTION_AUTO_MAX_MESSAGES = 200000;

/**
 * \ingroup ai-fabric
 * \param mode a forwarding mode
 * \return the FabricRouting TypeId name that implements it (e.g. "ns3::EcmpRouting")
 */
std::string ForwardingTypeName(ForwardingMode mode);

/**
 * \ingroup ai-fabric
 * \return the fields ECMP may hash (`ecmp_hash: [...]`), bit i of EcmpRouting's "HashFields"
 * for the i-th: "src", "dst", "qp" (the source queue pair: RoCEv2's UDP source port),
 * "dst_qp" (the destination queue pair)
 */
const std::vector<std::string>& EcmpHashFieldNames();

/**
 * \ingroup ai-fabric
 * \return the presets of `ecmp_hash:` with their fields (a mask of EcmpRouting::HashField):
 * "5-tuple" (src, dst, qp: RoCEv2's IP addresses and UDP source port; the default), "dst"
 * (InfiniBand's linear forwarding table), "enhanced" (the 5-tuple and dst_qp)
 */
const std::vector<std::pair<std::string, uint32_t>>& EcmpHashPresets();

/**
 * \ingroup ai-fabric
 * \param fields a non-zero mask of EcmpRouting::HashField
 * \return its preset's name, or its fields as a YAML list ("[src, dst_qp]")
 */
std::string EcmpHashName(uint32_t fields);

/**
 * \ingroup ai-fabric
 * \param choice a path choice
 * \return the DragonflyPlusRouting TypeId name that implements it ("ns3::ValiantRouting",
 * "ns3::UgalRouting"), or "" for minimal (no group strategy)
 */
std::string PathChoiceTypeName(PathChoice choice);

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
