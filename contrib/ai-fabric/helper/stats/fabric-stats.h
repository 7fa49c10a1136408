/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_STATS_H
#define AI_FABRIC_FABRIC_STATS_H

#include "ns3/run-results.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The p-th percentile of a set of samples, by linear interpolation
 * between closest ranks (Hyndman & Fan 1996 definition 7, "R-7": R's default
 * `quantile(type = 7)`, numpy's default `percentile(method = "linear")`,
 * Excel's PERCENTILE.INC).
 *
 * With the n samples sorted ascending as x[0] <= ... <= x[n-1]:
 *   h = (n - 1) * p / 100,  k = floor(h),
 *   Percentile = x[k] + (h - k) * (x[k+1] - x[k])   (x[k] when k = n - 1).
 * So p = 0 gives the minimum, p = 100 the maximum, p = 50 the usual median
 * (mean of the two middle samples for even n), and 1, 2, ..., 100 gives
 * p50 = 50.5, p90 = 90.1, p99 = 99.01, p99.9 = 99.901.
 *
 * NaN samples are ignored. The order of the input does not matter.
 *
 * \param samples the samples (taken by value: they are sorted here)
 * \param p the percentile, in percent, 0 <= p <= 100
 * \return the percentile; 0 if there is no (non-NaN) sample
 * \throw std::invalid_argument if p is NaN or outside [0, 100]
 */
double Percentile(std::vector<double> samples, double p);

/**
 * \ingroup ai-fabric
 * \brief Count, extremes, mean and tail percentiles of a set of samples.
 *
 * Percentiles follow Percentile(). An empty input (or only NaNs) gives
 * count 0 and every other field 0.
 */
struct SampleSummary
{
    uint64_t count{0}; //!< number of (non-NaN) samples
    double min{0};     //!< smallest sample
    double mean{0}; //!< arithmetic mean (summed in ascending order, so input order does not matter)
    double p50{0};  //!< 50th percentile (median)
    double p90{0};  //!< 90th percentile
    double p99{0};  //!< 99th percentile
    double p999{0}; //!< 99.9th percentile
    double max{0};  //!< largest sample
};

/**
 * \ingroup ai-fabric
 * \brief Summarize samples (see SampleSummary; same unit as the samples).
 * \param samples the samples (taken by value: they are sorted here); NaNs are ignored
 * \return the summary; all zeros for no samples
 */
SampleSummary Summarize(std::vector<double> samples);

/**
 * \ingroup ai-fabric
 * \brief The tail percentiles of samples: Summarize() without min and mean.
 * \param samples the samples (NaNs are ignored)
 * \return count, p50, p90, p99, p99.9 and max; all zeros for no samples
 */
TailSummary Tails(std::vector<double> samples);

/**
 * \ingroup ai-fabric
 * \brief The straggler of a group of ranks.
 *
 * slowest = the rank with the latest finish (the first in rank order on a tie);
 * median = Percentile(finish, 50) (R-7: the mean of the two middle ranks for an
 * even count); overMedian = (finish[slowest] - start) / (median - start), NaN
 * when median == start; minusMedian = finish[slowest] - median.
 * \param finishS finish time of each rank, seconds (absolute)
 * \param gpus GPU index of each rank (same order; shorter: gpu = position)
 * \param startS the group's start, seconds
 * \return the figure (valid false for no ranks)
 */
StragglerFigure StragglerOf(const std::vector<double>& finishS,
                            const std::vector<uint32_t>& gpus,
                            double startS);

/**
 * \ingroup ai-fabric
 * \brief A straggler that knows the schedule: StragglerOf() for the last rank, plus the rank
 * the fabric delayed most (ScheduleReplay: its finish in the run less its finish had the
 * fabric not delayed its messages). A straggler is reported (StragglerFigure::fabric) when
 * that rank's delay exceeds the median rank's by more than STRAGGLER_SHARE of its own time
 * from the start: a rank that ends last by its schedule (a 1F1B pipeline's first
 * stage, a tree's root) is not one, and on an idle fabric there is none.
 * \param finishS finish time of each rank in the run, seconds (absolute)
 * \param scheduleS its finish in the replay without the fabric's delays, seconds (same
 *        order; empty: no replay, the figure is StragglerOf()'s)
 * \param gpus GPU index of each rank (same order; shorter: gpu = position)
 * \param startS the group's start, seconds
 * \return the figure
 */
StragglerFigure StragglerOf(const std::vector<double>& finishS,
                            const std::vector<double>& scheduleS,
                            const std::vector<uint32_t>& gpus,
                            double startS);

/// A rank delayed by the fabric more than the median rank by this share of its own time from
/// the start is a straggler (StragglerOf() with a schedule): a documented threshold, above the
/// few percent a fully loaded link loses to its start and drain.
constexpr double STRAGGLER_SHARE = 0.05;

/**
 * \ingroup ai-fabric
 * \brief Fill the tail figures of a run from its flows, collectives and training
 * ranks: RunResults::fct and slowdown, each collective's rankFinish and
 * straggler (over the ranks that receive at least one of its flows: a
 * send-recv's senders have no finish), fct and slowdown (its flows, by name), each training
 * iteration's rankEnd and straggler (from the iteration's start). \param r the results (flows,
 * collectives, training filled)
 */
void FillTails(RunResults& r);

/**
 * \ingroup ai-fabric
 * \brief nccl-tests' bus-bandwidth factor: busbw = algbw * factor
 * (nccl-tests doc/PERFORMANCE.md; FACTS.md 3.6).
 *
 * | op                                  | factor     |
 * |-------------------------------------|------------|
 * | all-reduce                          | 2(n - 1)/n |
 * | reduce-scatter, all-gather, all-to-all | (n - 1)/n |
 * | broadcast, reduce, send-recv        | 1          |
 *
 * The op name is matched ignoring case, '-' and '_', so "all-reduce",
 * "all_reduce", "allreduce" and "AllReduce" are the same; "alltoall" and
 * "sendrecv" are accepted too.
 *
 * \param op the collective operation
 * \param ranks number of ranks n taking part, n >= 1 (n = 1 gives 0 for the (n-1) ops)
 * \return the factor
 * \throw std::invalid_argument for an unknown op or n = 0
 */
double BusBandwidthFactor(const std::string& op, uint32_t ranks);

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_STATS_H */
