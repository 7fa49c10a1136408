/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-fabric: the 'sweep' command and the '--plots' step shared by 'run' and 'sweep'.
 */
#ifndef AI_FABRIC_SWEEP_COMMAND_H
#define AI_FABRIC_SWEEP_COMMAND_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
struct ScenarioSpec;
}

namespace aifabric
{

/// Exit status when --plots was asked for and the plots could not be drawn.
constexpr int EXIT_PLOTS_FAILED = 4;

/**
 * \brief The 'sweep' command: ai-fabric sweep SWEEP.yaml [--out DIR] [--jobs N] [--plots]
 * [--quiet] (docs/sweep.md).
 * \param args the arguments after 'sweep'
 * \return exit status
 */
int Sweep(const std::vector<std::string>& args);

/**
 * \brief A multi-seed 'run' (`--seeds N` or the scenario's `seeds:`): the scenario once per
 * seed, each an 'ai-fabric run --seed S' child process into OUT/seeds/S (at most \p jobs at
 * once), then the aggregate (OUT/seeds.json, seeds.csv, report.md) and, unless quiet, each
 * headline metric's mean, min, max and 95 % confidence interval (docs/results-format.md).
 * \param scenarioFile the scenario as given
 * \param spec the scenario, read and checked (with the command line's overrides)
 * \param seeds the seeds, distinct
 * \param runArgs options passed on to every seed's run (--scheduler, --plots, ...)
 * \param outDir the results directory (not yet claimed)
 * \param jobs runs at once; 0 = the number of online cores
 * \param quiet print nothing but errors
 * \return exit status: 0 every seed ok, 3 some seed did not finish ok, 128 + signal if
 *         interrupted
 */
int RunSeedsCommand(const std::string& scenarioFile,
                    const ns3::ScenarioSpec& spec,
                    const std::vector<uint32_t>& seeds,
                    const std::vector<std::string>& runArgs,
                    const std::string& outDir,
                    uint32_t jobs,
                    bool quiet);

/**
 * \brief Draw the plots of a results directory (of 'run' or 'sweep') into DIR/plots with
 * scripts/plot-results: the path configured at build time, or $AI_FABRIC_PLOT_SCRIPT.
 * \param dir the results directory
 * \param quiet print nothing but errors
 * \return true if the script ran and succeeded; false after printing why not
 */
bool DrawPlots(const std::string& dir, bool quiet);

/**
 * \brief Run a program with an argument vector (posix_spawnp: no shell, so no argument is
 * ever interpreted) and wait for it.
 * \param args the program (searched in PATH) and its arguments
 * \param discardOutput send its stdout and stderr to /dev/null
 * \return its exit status; -1 if it could not be started or did not exit (errno-like reason
 *         in \p why)
 */
int RunProgram(const std::vector<std::string>& args,
               bool discardOutput,
               std::string* why = nullptr);

} // namespace aifabric

#endif /* AI_FABRIC_SWEEP_COMMAND_H */
