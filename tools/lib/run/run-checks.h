/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RUN_CHECKS_H
#define AI_FABRIC_RUN_CHECKS_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/run-results.h"

#include <csignal>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

struct Fabric;
class FabricGraph;
struct TopologySpec;
class Workload;
class WorkloadExecution;

/**
 * \ingroup ai-fabric
 * \brief Ask every run in progress to stop at its next watchdog tick (async-signal-safe:
 * it only stores \p signal in a sig_atomic_t). The CLI's SIGINT/SIGTERM handler calls it.
 * \param signal the signal number (non-zero)
 */
void RequestRunInterrupt(int signal);

/**
 * \ingroup ai-fabric
 * \return the signal passed to RequestRunInterrupt(), 0 if none
 */
int RunInterruptSignal();

/**
 * \ingroup ai-fabric
 * \brief Install SIGINT and SIGTERM handlers for a run: the first signal calls
 * RequestRunInterrupt() (the run stops at its next watchdog tick and its partial
 * results are written, marked "complete": false); a second one removes the
 * temporary file being written (RemovePendingAtomicFile()) and exits at once with
 * status 128 + signal, writing nothing more.
 */
void InstallRunSignalHandlers();

/**
 * \ingroup ai-fabric
 * \brief From now on a signal asks the run to stop (RequestRunInterrupt()) instead of
 * exiting at once: called when the simulation starts (RunWatchdog::Start()). Before it,
 * in the set-up, nothing has been written and the handler exits at once.
 */
void DeferRunSignals();

/**
 * \ingroup ai-fabric
 * \brief Estimate a run's peak memory before building its fabric, from per-item
 * costs measured on this code (docs/robustness.md, "Memory estimate"): a base, per
 * workload op and dependency, per link (two ports, channel, counters), per switch
 * routing entry (switches x GPUs), per GPU endpoint, and the packets the switch
 * buffers and port queues can hold.
 * \param graph the fabric graph
 * \param workload the workload (finalized)
 * \return estimated peak resident memory, bytes
 */
double EstimateRunMemoryBytes(const FabricGraph& graph, const Workload& workload);

/**
 * \ingroup ai-fabric
 * \brief A lower bound of a run's memory from the topology's sizing alone (before its
 * graph is built, which for an absurd size would itself exhaust memory): the base plus
 * two links per GPU.
 * \param topology the topology
 * \return bytes (the base alone if the kind's sizing is invalid: the graph builder
 *         reports that)
 */
double EstimateTopologyFloorBytes(const TopologySpec& topology);

/**
 * \ingroup ai-fabric
 * \brief Bound a workload about to be built to what fits in \p memoryLimit beside the
 * fabric (EstimateRunMemoryBytes()'s costs): Workload::SetLimits() with the ops alone, and the
 * dependencies alone, that would exceed it, so that building stops (Workload::LimitError)
 * before the memory is taken.
 * \param graph the fabric
 * \param memoryLimit the limit, bytes (0: none)
 * \param workload the empty workload
 * \return the estimate of the fabric alone (the base, links and routes), bytes
 */
double LimitWorkloadToMemory(const FabricGraph& graph, uint64_t memoryLimit, Workload& workload);

/**
 * \ingroup ai-fabric
 * \return MemAvailable of /proc/meminfo, bytes (0 if unknown)
 */
uint64_t AvailableMemoryBytes();

/**
 * \ingroup ai-fabric
 * \brief The run's watchdog: one event every PERIOD of simulated time (not per
 * packet). It stops the simulation when an interrupt was requested
 * (RequestRunInterrupt()), or when messages are open but neither a packet moved on
 * any link nor an op completed for the scenario's `watchdog: no_progress` interval
 * (a PFC or credit deadlock, or a stall). While no message is in flight it sleeps until
 * the next op completes (WorkloadExecution::NotifyNextOpDone()), so idle simulated time
 * (a late start, a long compute phase) costs no ticks. Its events are not counted in the
 * run's events, and it changes nothing else, so results do not depend on it.
 */
class RunWatchdog
{
  public:
    /// Simulated time between ticks (the interrupt check).
    static constexpr int64_t PERIOD_PS = 10000000; // 10 us

    /**
     * \param fabric the fabric (packet-hop counters)
     * \param runner the workload execution
     * \param noProgress how long without progress is a stall (zero or negative: never)
     */
    RunWatchdog(const Fabric& fabric, Ptr<WorkloadExecution> runner, Time noProgress);
    /// Withdraws its wake-up call (NotifyNextOpDone) if it sleeps: the runner may outlive it.
    ~RunWatchdog();
    RunWatchdog(const RunWatchdog&) = delete;
    RunWatchdog& operator=(const RunWatchdog&) = delete;

    /// Schedule the first tick (now).
    void Start();
    /// \return events the watchdog executed
    uint64_t Events() const;
    /// \return true if it stopped the run for lack of progress
    bool Stalled() const;
    /// \return the last time progress was seen, when Stalled()
    Time LastProgress() const;
    /// \return true if it stopped the run because of an interrupt
    bool Interrupted() const;

  private:
    /// One tick: check the interrupt flag; every interval, the progress.
    void Tick();
    /// An op completed while the watchdog slept (no message in flight): tick again.
    void Wake();

    const Fabric& m_fabric;           //!< the fabric
    Ptr<WorkloadExecution> m_runner;  //!< the workload execution
    Time m_noProgress;                //!< stall interval
    Time m_nextCheck;                 //!< next progress check
    Time m_lastProgress;              //!< last time progress was seen
    uint64_t m_hops{0};               //!< packet hops at the last check
    uint64_t m_opsDone{0};            //!< ops done at the last check
    uint64_t m_events{0};             //!< ticks executed
    bool m_stalled{false};            //!< stopped for lack of progress
    bool m_interrupted{false};        //!< stopped by an interrupt
    bool m_sleeping{false};           //!< waiting for the next op to complete (Wake())
    int64_t m_lastTickPs{-PERIOD_PS}; //!< when the last tick ran, ps
    Callback<void> m_wake;            //!< Wake(), made once
};

/**
 * \ingroup ai-fabric
 * \brief Fill the end-of-run checks into \p r: the stall report (messages posted and
 * not delivered, RunResults::stallReport, at most MAX_STALL_REPORT of them kept), the
 * cycle of flow-control-blocked ports (RunResults::deadlockCycle) when the run did not
 * complete, and the invariants (RunResults::violations): byte conservation per
 * delivered message, every collective's bytes per rank equal to its algorithm's
 * formula (ExpectedBytesPerRank(), complete runs), every posted message delivered or
 * in the stall report, and the transports' delivery count equal to the workload's.
 * \param graph the fabric graph
 * \param fabric the fabric after the run
 * \param workload the workload
 * \param runner the workload execution after the run
 * \param r the results (complete, stopReason already set)
 */
void CheckRun(const FabricGraph& graph,
              const Fabric& fabric,
              const Workload& workload,
              const WorkloadExecution& runner,
              RunResults& r);

/// Most stalled messages kept in RunResults::stallReport.
constexpr std::size_t MAX_STALL_REPORT = 200;

/**
 * \ingroup ai-fabric
 * \brief Find a cycle in the wait-for graph of blocked ports: port u->v (flow control
 * holds a packet) waits for every blocked port v->w (w != u) of the node it feeds.
 * \param graph the fabric graph
 * \param fabric the fabric
 * \return the ports of the first cycle found ("u->v" names, in wait order), empty if none
 */
std::vector<std::string> FindBlockedPortCycle(const FabricGraph& graph, const Fabric& fabric);

/**
 * \ingroup ai-fabric
 * \brief Print why a run is incomplete or invalid: the stop reason, the deadlock
 * cycle, the first \p lines stalled messages and a count of the rest.
 * \param r the results
 * \param os the stream (stderr)
 * \param lines most stalled messages to print
 */
void PrintStallReport(const RunResults& r, std::ostream& os, std::size_t lines = 10);

} // namespace ns3

#endif /* AI_FABRIC_RUN_CHECKS_H */
