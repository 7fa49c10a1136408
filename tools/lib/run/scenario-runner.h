/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SCENARIO_RUNNER_H
#define AI_FABRIC_SCENARIO_RUNNER_H

#include "config/scenario-spec.h"

#include "ns3/run-results.h"
#include "ns3/spec-names.h"
#include "ns3/workload.h"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;

/**
 * \ingroup ai-fabric
 * \brief Options of one run that do not change its results.
 */
struct RunOptions
{
    bool progress{false};               //!< print a progress line
    std::ostream* progressOut{nullptr}; //!< where to print it (stderr if null)
    /// Rewrite the progress line in place (`\r`, erase to the end of the line: a terminal);
    /// false: one plain line per update (a pipe or a file)
    bool progressInPlace{true};
    double progressAfterS{2.0}; //!< wall seconds before the first progress line
    bool trace{true};           //!< gather Chrome trace events (RunResults::trace)
    /// ns-3 event scheduler (a name of SchedulerNames()); empty: the scenario's `scheduler`
    std::string scheduler;
    /// Refuse (SpecError) a run whose estimated memory (EstimateRunMemoryBytes()) exceeds
    /// this many bytes; 0: the machine's MemAvailable.
    uint64_t memoryLimitBytes{0};
    /// Called once every check of the input has passed, just before the first simulation
    /// starts (the CLI claims its results directory here: ResultsDirLock); may throw.
    std::function<void()> beforeSimulating;
};

/**
 * \ingroup ai-fabric
 * \brief The outcome of an nccl-tests-style sweep (RunSweep()).
 */
struct SweepResults
{
    std::string collective;     //!< name of the swept collective
    std::vector<SweepRow> rows; //!< one per size, in increasing size
    RunResults last;            //!< the full results of the last (largest) size, with
                                //!< RunResults::sweep and sweepCollective filled in
};

/**
 * \ingroup ai-fabric
 * \brief The workload group of one collective of the traffic: its fields, its ranks (the
 * first \p gpus GPUs when the collective lists none: `ranks: all`) and its transfers
 * (send-recv: as given; permutation: the shift i -> i + 1, a derangement with the same
 * bytes per rank as any other, which RunScenario replaces by the seeded random draw).
 * Its channels are planned (PlanChannels(): `channels: auto` and `ring_order`) on \p places.
 * \param c the collective
 * \param gpus GPUs of the fabric
 * \param places per GPU, where it sits (FabricGraph::GetEndpointPlaces()); empty when no
 *        fabric is known (every rank then counts as a server of its own)
 * \param graph the fabric, when known: the protocol is resolved on it (ResolveProtocol():
 *        `protocol: auto` chosen, chunk, slots and latencies filled); without it the
 *        group keeps the protocol as given
 * \return the group, ready for CollectiveAlgorithm::Validate() and the analytic model
 */
WorkloadGroup MakeWorkloadGroup(const CollectiveSpec& c,
                                uint32_t gpus,
                                const std::vector<EndpointPlace>& places,
                                const FabricGraph* graph = nullptr);

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
 * A training job (TrafficSpec::hasTraining) is validated, then its
 * `iterations` iterations are appended after the collectives, each GPU's
 * iteration starting when its previous one ended; RunResults::training holds
 * the step time and per-rank breakdown of every iteration, and the groups it
 * generated are aggregated by kind (not one CollectiveResult each). A swept
 * collective is rejected: use RunSweep().
 *
 * \param spec the scenario
 * \param options run options
 * \return the results
 * \throws SpecError if the scenario is impossible (checked before simulating)
 */
RunResults RunScenario(const ScenarioSpec& spec, const RunOptions& options);

/**
 * \ingroup ai-fabric
 * \param spec a scenario
 * \return the index of its swept collective (CollectiveSpec::sweep), or -1 if none
 * \throws SpecError if more than one collective is swept
 */
int FindSweptCollective(const ScenarioSpec& spec);

/**
 * \ingroup ai-fabric
 * \brief The sizes of a sweep: min, min x factor, ... up to max (inclusive when reached).
 * \param c the swept collective
 * \return the sizes, bytes
 * \throws SpecError if min is 0, max < min or the factor < 2
 */
std::vector<uint64_t> SweepSizes(const CollectiveSpec& c);

/**
 * \ingroup ai-fabric
 * \brief Run an nccl-tests-style sweep: the scenario's swept collective at
 * every size of SweepSizes(), each size its own independent simulation
 * (RunScenario() on the same fabric spec with a fresh simulator; the other
 * collectives and any training job run alongside it each time).
 *
 * \param spec the scenario (exactly one collective has `sweep`)
 * \param options run options (the trace is kept for the last size only)
 * \return a row per size and the results of the last size
 * \throws SpecError if no collective or more than one is swept, or its range is invalid
 */
SweepResults RunSweep(const ScenarioSpec& spec, const RunOptions& options);

} // namespace ns3

#endif /* AI_FABRIC_SCENARIO_RUNNER_H */
