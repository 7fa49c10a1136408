/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_STRAGGLER_REPORT_H
#define AI_FABRIC_STRAGGLER_REPORT_H

#include "ns3/run-results.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;
class JsonWriter;
class StragglerLedger;
class Workload;
class WorkloadExecution;
struct Fabric;

/**
 * \ingroup ai-fabric
 * \brief Fill RunResults::stragglers: for every collective of the traffic, and for
 * every kind of group of a training job (all its groups together), its \p k
 * slowest flows (largest FCT) with their extra delay split over the ports on the
 * path of their last packet and the source's injection.
 *
 * Per flow (StragglerLedger): extra = injection delay + sum of the last packet's
 * waits. The wait at a port splits into queueing and time its lane was held by
 * flow control (PFC pause, credit stall). Flow-control hold is back-pressure from
 * downstream: it is passed along the path to the next port, which keeps the share
 * its own queueing has of its own delay and passes the rest on; the last port
 * keeps what reaches it. The injection delay splits into the source port's hold
 * (a path entry like the others) and two residual entries: "source-start" (the
 * wait before the first packet left: earlier messages of the queue pair, other
 * queue pairs) and "source-rate" (sending below line rate: NIC shared with other
 * queue pairs, DCQCN rate, pacing). The entries sum to the extra delay.
 *
 * \param graph the fabric graph
 * \param fabric the built fabric
 * \param workload the workload as run
 * \param runner the workload execution after the run
 * \param ledger the ledger after the run
 * \param trainingKind per workload group: its training kind ("tp", "dp", ...), or
 * empty for a collective of the traffic
 * \param sharedPs per op: a message's shared time (its port's or PXN relay's time on the
 *        sender's other packets), ps, as flows.csv has it (empty: the ledger's own)
 * \param idealS per op: a message's ideal FCT (MessageIdealTime), seconds, as flows.csv has
 *        it (empty: the ledger's own ideal)
 * \param k flows per collective
 * \param r the results (flows and ports already gathered) to complete
 */
void GatherStragglers(const FabricGraph& graph,
                      const Fabric& fabric,
                      const Workload& workload,
                      const WorkloadExecution& runner,
                      const StragglerLedger& ledger,
                      const std::vector<std::string>& trainingKind,
                      const std::vector<int64_t>& sharedPs,
                      const std::vector<double>& idealS,
                      uint32_t k,
                      RunResults& r);

/**
 * \ingroup ai-fabric
 * \param f a straggler
 * \param run the run's attribution: which mechanisms it has (DCQCN, go-back-N, PFC,
 *        credits), so that the sentence names no other
 * \return one sentence: "the tail of C came from NODE->PEER (port P): 71 % of the
 * extra delay, queueing at a switch-switch link"
 */
std::string DescribeStraggler(const StragglerFlow& f, const StragglerAttribution& run);

/**
 * \ingroup ai-fabric
 * \brief Print the sentence of each collective's slowest flow (stdout summary).
 * \param r the results
 * \param os the stream
 */
void PrintStragglerSummary(const RunResults& r, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief The "stragglers" value of summary.json (null when attribution was off).
 * \param w the writer, positioned after the key
 * \param r the results
 */
void WriteStragglersJson(JsonWriter& w, const RunResults& r);

/**
 * \ingroup ai-fabric
 * \brief stragglers.csv: one row per (flow, contributor).
 * \param r the results
 * \param os the stream
 */
void WriteStragglersCsv(const RunResults& r, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write stragglers.csv atomically.
 * \param r the results
 * \param path the file
 */
void WriteStragglersCsv(const RunResults& r, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief The report.md section on stragglers (markdown).
 * \param os the stream
 * \param r the results
 */
void WriteStragglerSection(std::ostream& os, const RunResults& r);

} // namespace ns3

#endif /* AI_FABRIC_STRAGGLER_REPORT_H */
