/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_REPORT_WRITER_H
#define AI_FABRIC_REPORT_WRITER_H

#include "ns3/run-results.h"

#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Write report.md: the tables a network architect reads, in Markdown
 * (docs/results-format.md, "report.md"). One function per section, called in
 * this order; each writes a `## ` heading and its table, or nothing when the
 * run has nothing for it. The text is a pure function of \p results (the
 * wall-clock figures are left out), so equal runs give byte-identical reports.
 * \param results the run's results
 * \param os the stream to write to
 */
void WriteReportMarkdown(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write report.md to a file, atomically.
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WriteReportMarkdown(const RunResults& results, const std::string& path);

/// \ingroup ai-fabric
/// \brief Title and run header: scenario, fabric, traffic, seed, complete/valid, time.
void WriteReportHeader(const RunResults& r, std::ostream& os);
/// \ingroup ai-fabric
/// \brief Collectives: duration, busbw, analytic, ratio, straggler.
void WriteReportCollectives(const RunResults& r, std::ostream& os);
/// \ingroup ai-fabric
/// \brief Tails: FCT and slowdown percentiles, overall and per collective.
void WriteReportTails(const RunResults& r, std::ostream& os);
/// \ingroup ai-fabric
/// \brief Links per tier class: ports, bytes, utilisation, queues, pauses, stall, ECN, drops.
void WriteReportTierClasses(const RunResults& r, std::ostream& os);
/// \ingroup ai-fabric
/// \brief The 10 hottest ports by utilisation (ties: larger peak queue, then port id).
void WriteReportHottestPorts(const RunResults& r, std::ostream& os);
/// \ingroup ai-fabric
/// \brief Flow control and loss: PFC, credit stalls, ECN, drops, invariants.
void WriteReportFlowControl(const RunResults& r, std::ostream& os);
/// \ingroup ai-fabric
/// \brief Bisection achieved by all-to-all / permutation collectives.
void WriteReportBisection(const RunResults& r, std::ostream& os);
/// \ingroup ai-fabric
/// \brief Training iterations: step time, breakdown, MFU, rank-end straggler.
void WriteReportTraining(const RunResults& r, std::ostream& os);

} // namespace ns3

#endif /* AI_FABRIC_REPORT_WRITER_H */
