/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_PARAMETER_SWEEP_H
#define AI_FABRIC_PARAMETER_SWEEP_H

#include "output/seed-statistics.h"

#include "ns3/spec-error.h"

#include <csignal>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One parameter of a sweep file: a key path into the base scenario and its values.
 */
struct SweepParameter
{
    std::string key;                      //!< dotted key path, e.g. topology.oversubscription
    SpecLocation where;                   //!< the `key:` value in the sweep file
    std::vector<std::string> values;      //!< each value as YAML text
    std::vector<std::string> labels;      //!< each value as a CSV/report cell
    std::vector<SpecLocation> valueWhere; //!< each value in the sweep file
};

/**
 * \ingroup ai-fabric
 * \brief One column of a sweep's results: a path into each point's summary.json (`where`:
 * the entry in the sweep file, the file only for a default metric).
 */
using SweepMetric = ResultMetric;

/**
 * \ingroup ai-fabric
 * \brief One point of the grid: a value of every parameter and the scenario it gives.
 */
struct SweepPoint
{
    uint32_t index{0};            //!< 0-based, in grid order (first parameter slowest)
    std::vector<uint32_t> choice; //!< per parameter, the index of its value
    std::string scenarioYaml;     //!< the point's fully inlined scenario
};

/**
 * \ingroup ai-fabric
 * \brief A sweep file, read and checked: the grid expanded and every point's scenario valid.
 */
struct SweepPlan
{
    std::string file;                       //!< the sweep file as named
    std::string name;                       //!< `name`, default the file's stem
    std::string baseFile;                   //!< the base scenario's path (normalized)
    uint32_t jobs{0};                       //!< `jobs`, 0 = number of online cores
    std::vector<SweepParameter> parameters; //!< in file order
    std::vector<SweepMetric> metrics;       //!< given, or the defaults
    bool defaultMetrics{false};             //!< true if `metrics` was left out
    std::vector<SweepPoint> points;         //!< the grid
    /// Every point runs once per seed (`seeds:`, `--seeds N` or the base's `seeds:`); empty:
    /// once, with its scenario's seed (the sweep's outputs are then as before seeds existed).
    std::vector<uint32_t> seeds;
    std::string seedsFrom; //!< where the seeds came from, in words (for the report)
};

struct ScenarioSpec;

/**
 * \ingroup ai-fabric
 * \brief The metrics of a sweep that names none (docs/sweep.md): per collective its
 * duration and bus bandwidth, with any collective the flows' p99, with a training job its
 * last iteration's step time, exposed-communication and bubble shares; always sim_time_s,
 * complete and valid.
 * \param base the base scenario
 * \param file the file to name as their location
 * \return the metrics
 */
std::vector<SweepMetric> DefaultSweepMetrics(const ScenarioSpec& base, const std::string& file);

/**
 * \ingroup ai-fabric
 * \brief The cartesian product of value counts, first dimension slowest.
 * \param counts number of values per parameter (each >= 1)
 * \return every combination of value indices, e.g. {2,3} -> (0,0),(0,1),(0,2),(1,0),...
 */
std::vector<std::vector<uint32_t>> ExpandGrid(const std::vector<uint32_t>& counts);

/**
 * \ingroup ai-fabric
 * \brief A scenario file as one YAML document: `topology:` and `traffic:` given as paths
 * are replaced by the files' mappings (with `name` set to the file's stem if absent, as the
 * reader names them), relative routing-matrix CSV paths (`matrix: FILE.csv`) made absolute,
 * and `name` set to the scenario's stem if absent. The result reads as the same scenario
 * from any directory. The file must be a valid scenario (ReadScenarioFile()).
 * \param scenarioFile the scenario
 * \return the YAML text
 * \throws SpecError if the file cannot be read
 */
std::string InlineScenarioYaml(const std::string& scenarioFile);

/**
 * \ingroup ai-fabric
 * \brief Set one key path of a YAML document.
 *
 * The path is `key(.key)*` where every key may be followed by `[i]` indices into a
 * sequence, e.g. `traffic.collectives[1].size`. Every step but the last must exist;
 * the last key may be new in an existing mapping (an optional key the base left out).
 * \param yaml the document
 * \param keyPath the path
 * \param valueYaml the value, as YAML text (a scalar, or a flow/block sequence or mapping)
 * \return the document with the value set, emitted as block YAML
 * \throws std::invalid_argument with a sentence naming the failing step
 */
std::string SetYamlKeyPath(const std::string& yaml,
                           const std::string& keyPath,
                           const std::string& valueYaml);

/**
 * \ingroup ai-fabric
 * \brief Read a sweep file (docs/sweep.md): the base scenario, the parameters, the
 * metrics and `jobs`; expand the grid and check every point's scenario in-process
 * (ReadScenarioFile() on a temporary copy), before anything runs or is written.
 * \param path the sweep file
 * \param seedCount `--seeds N`: every point runs seeds S..S+N-1 (S: the base scenario's seed,
 *        or its first listed seed), overriding the sweep file's and the base's `seeds:`; 0 =
 *        no override
 * \return the plan
 * \throws SpecError on any user error, located in the sweep file (a point's scenario
 *         error names the point and the value(s) of the sweep file that caused it)
 */
SweepPlan ReadSweepFile(const std::string& path, uint32_t seedCount = 0);

/**
 * \ingroup ai-fabric
 * \brief The outcome of one point's run.
 */
struct SweepPointResult
{
    int exitCode{-1};                      //!< the child's exit status; -1 if it did not exit
    std::string status;                    //!< ok, incomplete, bad-input, internal-error, signal N
    double wallS{0};                       //!< wall-clock seconds of the child
    std::vector<std::string> metricValues; //!< per metric, the JSON value's text ("" if absent)
    std::vector<bool> metricFound;         //!< per metric, whether the path was in summary.json
    /// With seeds (SweepPlan::seeds): each seed's run, in seed order. The point's status and
    /// exit code are then those of its first seed that did not finish ok ("ok" if none),
    /// wallS their sum, and metricValues the mean over the seeds that finished ok.
    std::vector<SeedRunResult> seedRuns;
};

/**
 * \ingroup ai-fabric
 * \brief How RunSweepPoints() runs the points.
 */
struct SweepRunOptions
{
    std::string executable;          //!< the ai-fabric binary (invoked as EXE run ...)
    uint32_t jobs{1};                //!< children at once (>= 1)
    std::ostream* progress{nullptr}; //!< one line per finished point, if set
    uint32_t* maxRunning{nullptr};   //!< if set, the most children that ran at once
    /// If set and it becomes non-zero (a signal handler's flag, the signal's number), the
    /// runner sends that signal to the running children, starts no more points, waits for
    /// the children and returns; the points not started get status "not-run".
    const volatile std::sig_atomic_t* interrupt{nullptr};
};

/**
 * \ingroup ai-fabric
 * \brief Write every point's scenario to OUT/points/NNN/scenario.yaml and run it as a
 * child process `EXE run OUT/points/NNN/scenario.yaml --out OUT/points/NNN --quiet`
 * (stdout and stderr to OUT/points/NNN/run.log), at most `jobs` at once; then read each
 * point's metrics from its summary.json. A point that fails is a result with its status.
 * (SweepRunOptions::interrupt stops the sweep early; see there.)
 * \param plan the plan
 * \param outDir the sweep's results directory (created)
 * \param options how to run
 * \return one result per point, in point order
 * \throws std::runtime_error if a directory or file cannot be created or a child spawned
 */
std::vector<SweepPointResult> RunSweepPoints(const SweepPlan& plan,
                                             const std::string& outDir,
                                             const SweepRunOptions& options);

/**
 * \ingroup ai-fabric
 * \brief The text of a JSON path in a JSON (or YAML) file.
 * \param file the file
 * \param path e.g. `training.iterations[0].step_s`
 * \param[out] found whether the path exists
 * \return the scalar's text, "" for null, a missing path or a non-scalar
 */
std::string ReadJsonPathValue(const std::string& file, const std::string& path, bool& found);

/**
 * \ingroup ai-fabric
 * \brief Write OUT/sweep-points.csv (one row per point: point, the parameters' values,
 * the metrics, status, exit_code, wall_s) and OUT/sweep.json (the parameters and metrics,
 * for scripts/plot-results), each atomically.
 * \param plan the plan
 * \param results its results
 * \param outDir the results directory
 */
void WriteSweepCsv(const SweepPlan& plan,
                   const std::vector<SweepPointResult>& results,
                   const std::string& outDir);

/**
 * \ingroup ai-fabric
 * \brief Write OUT/report.md: the grid, the table of every point, and per metric how
 * it changes against the first parameter (ratio to its first value, per combination of
 * the other parameters); links the plots found in OUT/plots.
 * \param plan the plan
 * \param results its results
 * \param outDir the results directory
 */
void WriteSweepReport(const SweepPlan& plan,
                      const std::vector<SweepPointResult>& results,
                      const std::string& outDir);

} // namespace ns3

#endif /* AI_FABRIC_PARAMETER_SWEEP_H */
