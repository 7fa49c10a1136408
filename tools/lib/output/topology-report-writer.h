/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_TOPOLOGY_REPORT_WRITER_H
#define AI_FABRIC_TOPOLOGY_REPORT_WRITER_H

#include "ns3/fabric-graph.h"
#include "ns3/topology-analyzer.h"

#include <ostream>
#include <string>

// The topology analyzer's report as text, JSON and Graphviz DOT (`ai-fabric analyze`).

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Write the report as JSON (deterministic; bandwidths in Gb/s, one direction).
 * \param report the report
 * \param os the stream
 */
void WriteTopologyJson(const TopologyReport& report, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write the report as JSON to a file (through a temporary file and a rename).
 * \param report the report
 * \param path the file
 * \throws std::runtime_error if the file cannot be written
 */
void WriteTopologyJson(const TopologyReport& report, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Print the report as text, the bisection figures side by side.
 * \param report the report
 * \param os the stream
 */
void PrintTopologyReport(const TopologyReport& report, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write the graph in Graphviz DOT: nodes filled by kind and tier (GPU, NIC,
 * NVSwitch, tier 1, 2, 3, ...), one rank per tier, every link an edge labelled with
 * its technology and colored by its kind (fabric, host, NVLink).
 * \param graph the fabric
 * \param os the stream
 */
void WriteDot(const FabricGraph& graph, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief WriteDot() to a file (through a temporary file and a rename).
 * \param graph the fabric
 * \param path the file
 * \throws std::runtime_error if the file cannot be written
 */
void WriteDot(const FabricGraph& graph, const std::string& path);

} // namespace ns3

#endif /* AI_FABRIC_TOPOLOGY_REPORT_WRITER_H */
