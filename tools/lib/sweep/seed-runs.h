/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SEED_RUNS_H
#define AI_FABRIC_SEED_RUNS_H

#include "config/scenario-spec.h"
#include "output/seed-statistics.h"

#include <csignal>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The seeds first, first + 1, ..., first + count - 1 (`--seeds N`).
 * \param first the first seed (>= 1)
 * \param count how many (1 to spec::MAX_SEEDS)
 * \param[out] seeds the seeds
 * \return false if the last would pass 4294967295 (ns-3's seed is 32-bit)
 */
bool ConsecutiveSeeds(uint64_t first, uint64_t count, std::vector<uint32_t>& seeds);

/**
 * \ingroup ai-fabric
 * \brief The headline answers of a scenario that a multi-seed run summarizes: the metrics a
 * sweep picks by default (DefaultSweepMetrics(): the collectives' times and bus bandwidths,
 * the flows' p99, the training step and its shares, sim_time_s, complete, valid), plus per
 * all-to-all or permutation collective the bandwidth achieved across the bisection cut
 * (`bisection[i].achieved_Gbps`).
 * \param spec the scenario
 * \return the metrics
 */
std::vector<ResultMetric> SeedRunMetrics(const ScenarioSpec& spec);

/**
 * \ingroup ai-fabric
 * \brief Read every metric of one seed's run from its summary.json into \p run (absent
 * file: every value "").
 * \param summaryFile the summary.json
 * \param metrics the metrics
 * \param run the run, values and found filled in
 */
void ReadSeedMetrics(const std::string& summaryFile,
                     const std::vector<ResultMetric>& metrics,
                     SeedRunResult& run);

/**
 * \ingroup ai-fabric
 * \brief A multi-seed run: one scenario, run once per seed.
 */
struct SeedRunPlan
{
    std::string executable;            //!< the ai-fabric binary (invoked as EXE run ...)
    std::string scenarioFile;          //!< the scenario, as given
    std::string title;                 //!< its name
    std::vector<uint32_t> seeds;       //!< the seeds, distinct
    std::vector<std::string> runArgs;  //!< options passed on to every seed's run
    std::vector<ResultMetric> metrics; //!< what the aggregate summarizes
};

/**
 * \ingroup ai-fabric
 * \brief Run the scenario once per seed as child processes
 * `EXE run SCENARIO --seed S --out OUT/seeds/S --quiet RUNARGS` (stdout and stderr to
 * OUT/seeds/S/run.log), at most \p jobs at once, then write the aggregate (WriteSeedAggregate())
 * into \p outDir. An earlier run's `OUT/seeds/` and single-run result files are removed first,
 * so the directory never mixes two runs. The caller holds \p outDir's lock.
 * \param plan the plan
 * \param outDir the results directory (exists)
 * \param jobs children at once (>= 1)
 * \param interrupt stop flag (RunChildProcesses()), or null
 * \param progress one line per finished seed, if set
 * \return one result per seed, in plan order
 * \throws std::runtime_error if a directory cannot be made or a child spawned
 */
std::vector<SeedRunResult> RunSeeds(const SeedRunPlan& plan,
                                    const std::string& outDir,
                                    uint32_t jobs,
                                    const volatile std::sig_atomic_t* interrupt,
                                    std::ostream* progress);

} // namespace ns3

#endif /* AI_FABRIC_SEED_RUNS_H */
