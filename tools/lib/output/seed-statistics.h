/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SEED_STATISTICS_H
#define AI_FABRIC_SEED_STATISTICS_H

#include "ns3/spec-error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Statistics of one metric over the seeds of a multi-seed run or sweep point.
 *
 * The confidence interval is Student's t interval of the mean:
 * mean +- t(0.975, n-1) x stddev / sqrt(n), with the sample standard deviation (n - 1 in
 * the denominator). With fewer than 2 values there is no interval (ciHalfWidth is NaN).
 */
struct SampleStatistics
{
    uint32_t n{0};         //!< values
    double mean{0};        //!< arithmetic mean
    double min{0};         //!< smallest value
    double max{0};         //!< largest value
    double stddev{0};      //!< sample standard deviation (n - 1); 0 for n = 1
    double ciHalfWidth{0}; //!< half-width of the 95 % CI of the mean; NaN for n < 2
};

/**
 * \ingroup ai-fabric
 * \brief The 0.975 quantile of Student's t distribution (two-sided 95 %).
 *
 * A table for 1 to 30 degrees of freedom (4 decimals, as printed in statistics tables), and
 * the Cornish-Fisher expansion around the normal quantile 1.959964 above (error < 1e-5).
 * \param dof degrees of freedom (>= 1)
 * \return t(0.975, dof), e.g. 12.7062 for 1, 2.7764 for 4, 2.0423 for 30
 */
double StudentT975(uint32_t dof);

/**
 * \ingroup ai-fabric
 * \brief Summarize values (mean, min, max, sample stddev, 95 % CI of the mean).
 * \param values the values (may be empty: n = 0, everything else NaN)
 * \return the statistics
 */
SampleStatistics Summarize(const std::vector<double>& values);

/**
 * \ingroup ai-fabric
 * \brief A metric's text from a summary.json as a number: a finite number, or a JSON
 * boolean as 1 (true) or 0 (false), so that the mean of `complete` is the share of seeds
 * that completed.
 * \param text the value's text (ReadJsonPathValue())
 * \param[out] value the number
 * \return whether the text is a number or a boolean
 */
bool MetricNumber(const std::string& text, double& value);

/**
 * \ingroup ai-fabric
 * \brief One headline value of a run: a name and its path into summary.json.
 */
struct ResultMetric
{
    std::string name;   //!< column name
    std::string path;   //!< JSON path, e.g. collectives[0].busbw_GBps
    SpecLocation where; //!< where it was named (file only for a default metric)
};

/**
 * \ingroup ai-fabric
 * \brief One seed's run: how it ended and its metrics.
 */
struct SeedRunResult
{
    uint32_t seed{0};                //!< the seed
    int exitCode{-1};                //!< the run's exit status; -1 if it did not exit
    std::string status;              //!< ok, incomplete, bad-input, ..., not-run
    double wallS{0};                 //!< wall-clock seconds (not written: not deterministic)
    std::vector<std::string> values; //!< per metric, the value's text ("" if absent)
    std::vector<bool> found;         //!< per metric, whether the path was in summary.json
};

/**
 * \ingroup ai-fabric
 * \brief The statistics of metric \p m over the seeds that finished with status ok (a
 * failed or incomplete seed is never averaged in; the writers list it).
 * \param runs the seeds' runs
 * \param m the metric's index
 * \return the statistics (n = 0 if no ok seed has a number there)
 */
SampleStatistics MetricStatistics(const std::vector<SeedRunResult>& runs, std::size_t m);

/**
 * \ingroup ai-fabric
 * \param runs the seeds' runs
 * \return how many finished with status ok
 */
std::size_t SeedsOk(const std::vector<SeedRunResult>& runs);

/**
 * \ingroup ai-fabric
 * \brief A value with 4 significant digits and the unit its metric name implies: a name
 * ending in `_s` is a time (shown in s, ms, us or ns), `_GBps` GB/s, `_Gbps` Gb/s;
 * otherwise the bare number.
 * \param name the metric's name
 * \param value the value
 * \return e.g. "24.51 ms"
 */
std::string FormatMetricValue(const std::string& name, double value);

/**
 * \ingroup ai-fabric
 * \brief FormatMetricValue() with the unit of the metric's name, or, when the name implies
 * none (e.g. `busbw`), of its path's last key (`collectives[0].busbw_GBps`): the one
 * formatter of the seeds' and the sweeps' reports (the CSV files keep the raw SI numbers).
 * \param metric the metric
 * \param value the value
 * \return e.g. "347.1 us"
 */
std::string FormatMetricValue(const ResultMetric& metric, double value);

/**
 * \ingroup ai-fabric
 * \brief One line per numeric metric: `NAME MEAN (mean of N seeds, min A, max B, 95 % CI
 * +-H)`, then one line per seed that did not finish ok (left out of the statistics).
 * \param metrics the metrics
 * \param runs the seeds' runs
 * \return the lines, each ending in a newline
 */
std::string SeedSummaryText(const std::vector<ResultMetric>& metrics,
                            const std::vector<SeedRunResult>& runs);

/**
 * \ingroup ai-fabric
 * \brief Whether the difference between two points' means of a metric is within the
 * seed-to-seed spread (CompareOverSeeds()).
 */
struct SeedSpreadVerdict
{
    SampleStatistics a;               //!< the statistics of the reference point
    SampleStatistics b;               //!< the statistics of the compared point
    bool cisOverlap{false};           //!< both have a CI (n >= 2) and they overlap
    std::vector<uint32_t> reversedBy; //!< seeds (ok in both) whose order opposes the means'
    bool withinSpread{false};         //!< cisOverlap, or some seed reverses the order
};

/**
 * \ingroup ai-fabric
 * \brief Compare metric \p m of two points that ran the same seeds.
 *
 * The difference of the means is within the seed-to-seed spread when the two 95 % CIs of
 * the means overlap (|mean_b - mean_a| <= h_a + h_b, the spread not zero), or when some seed
 * run at both points orders them against the means (with seed 2, 3:1 was faster than 1:1
 * while on average it is slower). Seeds that did not finish ok at both are not paired.
 * \param a the reference point's seeds
 * \param b the compared point's seeds
 * \param m the metric's index
 * \return the verdict
 */
SeedSpreadVerdict CompareOverSeeds(const std::vector<SeedRunResult>& a,
                                   const std::vector<SeedRunResult>& b,
                                   std::size_t m);

/**
 * \ingroup ai-fabric
 * \brief What the aggregate of a multi-seed run describes.
 */
struct SeedAggregateInfo
{
    std::string title;        //!< the scenario's (or point's) name
    std::string scenarioFile; //!< the scenario file the seeds ran
    std::string runCommand;   //!< how each seed ran, for the report (with SEED and DIR)
};

/**
 * \ingroup ai-fabric
 * \brief Write the aggregate of a multi-seed run into \p dir, each file atomically:
 * `seeds.csv` (a row per seed: seed, metrics, status, exit_code), `report.md` (the
 * statistics of every metric and the per-seed table) and `seeds.json` (statistics and
 * per-seed values; written last, removed first: its presence marks a complete set). The
 * files hold no wall time, so the same seeds give byte-identical files.
 * \param dir the directory (exists)
 * \param info what the seeds ran
 * \param metrics the metrics
 * \param runs the seeds' runs, in seed order as given
 * \return the files written, seeds.json first
 */
std::vector<std::string> WriteSeedAggregate(const std::string& dir,
                                            const SeedAggregateInfo& info,
                                            const std::vector<ResultMetric>& metrics,
                                            const std::vector<SeedRunResult>& runs);

} // namespace ns3

#endif /* AI_FABRIC_SEED_STATISTICS_H */
