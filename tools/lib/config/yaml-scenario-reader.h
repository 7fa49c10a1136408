/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_YAML_SCENARIO_READER_H
#define AI_FABRIC_YAML_SCENARIO_READER_H

#include "config/scenario-spec.h"

#include "ns3/spec-error.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Read a scenario file (examples/ *.yaml) with its topology and traffic.
 *
 * The format is documented in docs/scenario-format.md. `topology` and
 * `traffic` are either paths relative to the scenario file's directory or
 * inline mappings. The topology is read first, and the traffic is checked
 * against it: every rank must be a GPU index below `gpus` (the graph's GPU
 * count), and with `ranks: all` the checks that need the number of ranks P
 * (rank positions of `root`, `matrix` and `transfers`, `ranks_per_node`, the
 * algorithm's own CollectiveAlgorithm::Validate()) run with P = `gpus`.
 *
 * The run options `congestion_control`, `dcqcn` and `transport` fill
 * ScenarioSpec::congestionControl, dcqcnAttributes (ns3::Dcqcn attribute
 * names with exact ns-3 value strings: "55000000ps", "20000000000bps",
 * "10000000", "0.00390625"), reliability and transportAttributes (of
 * ns3::GoBackNRecovery, the transports' recovery). Keys that would be ignored are errors: `dcqcn`
 * unless DCQCN runs, go-back-N keys unless go-back-N runs, `auto` being resolved as the runner does
 * (from the built graph's link profiles).
 *
 * Every user error (missing or unreadable file, malformed YAML, unknown or
 * missing key, wrong type, bad unit, impossible value) is thrown as a
 * SpecError located at the offending node: the file it came from and its
 * 1-based line and column.
 *
 * Time values are built with PicoSeconds(): call Time::SetResolution(Time::PS)
 * before reading.
 *
 * \param path the scenario file, as the user named it
 * \return the scenario, with defaults filled in
 * \throws SpecError on any user error
 */
ScenarioSpec ReadScenarioFile(const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Read a topology file (topologies/ *.yaml) on its own.
 *
 * `kind` is one of TopologyKindNames(); the other keys (docs/scenario-format.md,
 * docs/topologies.md) map one to one to TopologySpec fields, and a key the kind
 * does not use is an error naming the kind. `link:` (every fabric link), the
 * optional `host_link:` (GPU to NIC), `nvlink:` (the per-GPU NVLink profile) and
 * a custom link's own `link:` are each a preset from LinkProfilePresets() with
 * key-by-key overrides of any LinkProfile field; the checks between fields
 * (priorities, credits against the largest packet, ECN thresholds) run once all
 * overrides are applied.
 *
 * The topology's graph is built once (BuildFabricGraph()) so that what the
 * generators reject is reported with its location: at the key the message
 * names (else the topology mapping), or at a custom node or link entry. `gpus`
 * is set to the graph's GPU count for every kind.
 *
 * \param path the topology file
 * \return the topology, with defaults filled in (name = file stem if absent)
 * \throws SpecError on any user error
 */
TopologySpec ReadTopologyFile(const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Read the topology of a topology file or of a scenario file (a file whose
 * top-level mapping has a `topology` key), for tools that need only the fabric
 * (`ai-fabric analyze`). A scenario file is read whole (ReadScenarioFile()), so
 * its traffic must be valid too.
 *
 * \param path the topology or scenario file
 * \return the topology, as ReadTopologyFile() or ReadScenarioFile() gives it
 * \throws SpecError on any user error
 */
TopologySpec ReadTopologyOrScenarioFile(const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Read a traffic file (traffic/ *.yaml) on its own.
 *
 * Checks everything that does not need the topology: ranks distinct, at least
 * two; every collective key against its op and algorithm (CollectiveOpNames(),
 * CollectiveAlgorithmNames(), CollectiveAlgorithm::Supports()); and, when the
 * collective lists its ranks, what needs their number P (rank positions, the
 * matrix's shape, `ranks_per_node`, CollectiveAlgorithm::Validate()). With
 * `ranks: all`, P and ranks against `gpus` are checked by ReadScenarioFile().
 *
 * \param path the traffic file
 * \return the traffic, with defaults filled in (name = file stem if absent)
 * \throws SpecError on any user error
 */
TrafficSpec ReadTrafficFile(const std::string& path);

} // namespace ns3

#endif /* AI_FABRIC_YAML_SCENARIO_READER_H */
