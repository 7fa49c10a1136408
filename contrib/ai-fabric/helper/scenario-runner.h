/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SCENARIO_RUNNER_H
#define AI_FABRIC_SCENARIO_RUNNER_H

#include "run-results.h"
#include "scenario-spec.h"

#include <ostream>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Options of one run that do not change its results.
 */
struct RunOptions
{
    bool progress{false};               //!< print a progress line
    std::ostream* progressOut{nullptr}; //!< where to print it (stderr if null)
    double progressAfterS{2.0};         //!< wall seconds before the first progress line
};

/**
 * \ingroup ai-fabric
 * \brief Build the scenario's fabric and workload, run the simulation, and
 * gather the results with their analytic estimates.
 *
 * The simulator is seeded with the scenario's seed; the run stops when every
 * message has arrived, or at the scenario's stop_time (then
 * RunResults::complete is false). Simulator::Destroy() is called before
 * returning, so runs can follow each other in one process.
 *
 * \param spec the scenario
 * \param options run options
 * \return the results
 * \throws SpecError if the scenario is impossible (checked before simulating)
 */
RunResults RunScenario(const ScenarioSpec& spec, const RunOptions& options);

} // namespace ns3

#endif /* AI_FABRIC_SCENARIO_RUNNER_H */
