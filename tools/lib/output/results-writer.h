/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RESULTS_WRITER_H
#define AI_FABRIC_RESULTS_WRITER_H

#include "ns3/run-results.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Version of the summary.json schema written by WriteSummaryJson
 * (docs/results-format.md). Bumped on any incompatible change.
 */
static constexpr uint32_t RESULTS_SCHEMA_VERSION = 5;

/**
 * \ingroup ai-fabric
 * \brief Write a run's summary as JSON (the summary.json schema of
 * docs/results-format.md) to a stream, followed by one newline.
 *
 * The output is a pure function of \p results: equal results give
 * byte-identical text (see JsonWriter for the number rules).
 *
 * \param results the run's results
 * \param os the stream to write to
 */
void WriteSummaryJson(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write summary.json to a file, atomically.
 *
 * The text goes to `path + ".tmp"`, which is then renamed onto \p path, so a
 * reader never sees a half-written file; on failure the .tmp file is removed.
 *
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WriteSummaryJson(const RunResults& results, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Write the per-flow table as CSV to a stream.
 *
 * Header `flow_id,collective,step,src,dst,bytes,start_ns,end_ns,fct_ns,ideal_ns,slowdown`, then
 * one row per flow in the order of RunResults::flows. Times are rounded to
 * whole picoseconds and printed in nanoseconds with exactly three decimals
 * (e.g. `1234.567`); fct_ns is computed from the rounded values, so
 * fct_ns == end_ns - start_ns holds exactly in the file. ideal_ns is the
 * message's time alone on an empty fabric (MessageIdealTime()), slowdown =
 * fct / ideal with six decimals (empty without an ideal). The collective name is
 * quoted per RFC 4180 when it holds a comma, quote, CR or LF. Lines end in LF.
 *
 * \param results the run's results
 * \param os the stream to write to
 */
void WriteFlowsCsv(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write ports.csv: one row per port (link direction) with its traffic,
 * utilisation over the run, drops, peak queue, PFC pauses and flow-control stalls.
 * Columns: node,peer,tier,technology,tx_packets,tx_bytes,busy_ns,utilization,drops,
 * peak_queue_bytes,pauses_received,paused_ns,stall_ns,port_id,tier_class,ecn_marks,
 * p99_queue_bytes (port_id = the row's 0-based index, the id timeseries.csv uses).
 * \param results the run's results
 * \param os the stream to write to
 */
void WritePortsCsv(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write ports.csv to a file, atomically.
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WritePortsCsv(const RunResults& results, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Write flows.csv to a file, atomically (via `path + ".tmp"` and rename).
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WriteFlowsCsv(const RunResults& results, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Write collectives.csv: one row per collective with its duration,
 * bandwidths, analytic estimate, rank-finish percentiles, straggler and FCT and
 * slowdown percentiles (columns in docs/results-format.md).
 * \param results the run's results
 * \param os the stream to write to
 */
void WriteCollectivesCsv(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write collectives.csv to a file, atomically.
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WriteCollectivesCsv(const RunResults& results, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Write timeseries.csv: `time_ns,port_id,tier_class,utilization,queue_bytes,
 * bin_ns,queue_max_bytes`, one row per (bin, port) for the ports that transmitted
 * during the run, by bin then port id (RunResults::timeseries).
 * \param results the run's results
 * \param os the stream to write to
 */
void WriteTimeSeriesCsv(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write timeseries.csv to a file, atomically.
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WriteTimeSeriesCsv(const RunResults& results, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Print a short human-readable summary of a run.
 *
 * One row per collective (name, op, algorithm, ranks, size, simulated time,
 * analytic time, sim/analytic, algbw, busbw), the flow count with FCT p50, p99
 * and max, then one sentence per collective, e.g.
 * "ring all-reduce of 256MiB over 8 GPUs: 11.25 ms simulated, 11.20 ms analytic
 * (alpha-beta), busbw 41.8 GB/s". Sizes use binary units (KiB, MiB, GiB),
 * bandwidths GB/s (1e9 B/s, as nccl-tests). An incomplete run is flagged.
 *
 * \param results the run's results
 * \param os the stream to print to
 */
void PrintSummaryTable(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write the Chrome trace (trace-event format, docs/results-format.md):
 * `{"traceEvents":[...]}` with one "M" process_name per GPU and thread_name per
 * lane, then one complete ("X") event per RunResults::trace entry: pid = GPU,
 * tid = lane, ts and dur in microseconds.
 * \param results the run's results
 * \param os the stream to write to
 */
void WriteTraceJson(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write trace.json to a file, atomically.
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WriteTraceJson(const RunResults& results, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Write ranks.csv: one row per training iteration and rank. Columns:
 * iteration,rank,gpu,tp,pp,dp,compute_ns,pipeline_idle_ns,exposed_tp_ns,
 * exposed_pp_ns,exposed_ep_ns,exposed_dp_ns,end_ns (the compute, idle and
 * exposed columns add up to the iteration's step time).
 * \param results the run's results
 * \param os the stream to write to
 */
void WriteRanksCsv(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write ranks.csv to a file, atomically.
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WriteRanksCsv(const RunResults& results, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Write sweep.csv: one row per size, nccl-tests' columns
 * size,count,type,op,time,algbw,busbw (time in us, bandwidths in GB/s) then
 * analytic_us,sim_over_analytic.
 * \param results the run's results (RunResults::sweep)
 * \param os the stream to write to
 */
void WriteSweepCsv(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Write sweep.csv to a file, atomically.
 * \param results the run's results
 * \param path the file to create or replace
 * \throw std::runtime_error naming the path if the file cannot be written or renamed
 */
void WriteSweepCsv(const RunResults& results, const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Print the sweep as an nccl-tests-like table: size count type op time
 * algbw busbw, then analytic_us and sim/analytic.
 * \param results the run's results (RunResults::sweep)
 * \param os the stream to print to
 */
void PrintSweepTable(const RunResults& results, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Quote a CSV field per RFC 4180 when it needs it.
 * \param field the raw text
 * \return the field, quoted (with doubled quotes) if it holds , " CR or LF
 */
std::string CsvField(const std::string& field);

} // namespace ns3

#endif /* AI_FABRIC_RESULTS_WRITER_H */
