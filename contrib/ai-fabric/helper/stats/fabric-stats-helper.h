/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_STATS_HELPER_H
#define AI_FABRIC_FABRIC_STATS_HELPER_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/run-results.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

struct Fabric;
class FabricGraph;
class FabricNetDevice;
class FabricSwitch;
class PortSampler;
class RdmaTransport;
class StragglerLedger;
class RelayWaitMeter;

/**
 * \ingroup ai-fabric
 * \brief What FabricStatsHelper gathered from a fabric's devices and switches after a run:
 * the fabric's part of RunResults.
 */
struct FabricStatsResults
{
    uint64_t packetHops{0};                   //!< packets transmitted, summed over all ports
    FabricCounters counters;                  //!< flow-control and loss counters, summed
    std::vector<PortRecord> ports;            //!< per port, in link order (a->b, then b->a)
    std::vector<TierClassRecord> tierClasses; //!< per tier class present (SummarizeTierClasses)
    double sampleIntervalS{0};                //!< time-series bin width used, seconds
    bool sampleIntervalAuto{true};            //!< bins were sized automatically
    std::vector<TimeSeriesRow> timeseries;    //!< by bin, then port id; active ports only
    bool congestionControl{false};            //!< the transports ran congestion control
    std::vector<RateSeriesRow> rateSeries;    //!< with congestion control: by bin, then port
    std::vector<QueuePairRecord> queuePairs;  //!< with congestion control: by (src, dst, qp)
};

/**
 * \ingroup ai-fabric
 * \brief Gathers a run's results from a fabric's devices, switches and transports (ns-3
 * helper style, like FlowMonitorHelper): Install before Simulator::Run, Collect after.
 *
 * \code
 *   FabricStatsHelper stats;
 *   stats.SetSampleInterval(MicroSeconds(1));
 *   stats.EnableStragglerLedger();
 *   stats.Install(graph, fabric);
 *   Simulator::Run();
 *   FabricStatsResults results = stats.Collect();
 *   const StragglerLedger* ledger = stats.GetStragglerLedger();
 * \endcode
 *
 * Ports are numbered as RunResults::ports: link i's device at end a is port 2i, at end b
 * 2i + 1. Install schedules the time series' first bin edge (PortSampler: one event per bin,
 * nothing per packet) and, when enabled, connects a StragglerLedger to the trace sources
 * (every port's LastPacketDequeue; every transport's MessagePosted, FirstPacketSent and
 * LastPacketSent). When the transports run congestion control, the same bin edges also
 * sample every NIC port's queue pairs below line rate and its CNPs (no event of their own).
 * Collect closes the last bin and reads the devices' Stats, their queue percentiles, the
 * switches' counters and the transports' congestion-control counters (per queue pair
 * that was marked or received a CNP) at the current time. Nothing it does changes the
 * simulation.
 */
class FabricStatsHelper
{
  public:
    FabricStatsHelper();
    ~FabricStatsHelper();
    FabricStatsHelper(const FabricStatsHelper&) = delete;
    FabricStatsHelper& operator=(const FabricStatsHelper&) = delete;

    /**
     * \param interval bin width of the ports' time series; zero (the default) for automatic
     *        bins (PortSampler)
     */
    void SetSampleInterval(Time interval);
    /**
     * \param custom name tier classes as for a custom topology: every link between two
     *        switches is "switch-switch" (TierClassOf)
     */
    void SetCustomTopology(bool custom);
    /// \brief Keep a StragglerLedger of the run (straggler attribution), fed by trace sources.
    void EnableStragglerLedger();

    /**
     * \brief Start gathering (before Simulator::Run): schedule the time series, connect the
     * ledger if enabled.
     * \param graph the fabric's graph (names, tiers); must outlive Collect()
     * \param fabric its ns-3 objects
     */
    void Install(const FabricGraph& graph, const Fabric& fabric);

    /**
     * \brief Gather (after Simulator::Run, before Simulator::Destroy): close the time
     * series' last bin at the current time, read every port and switch.
     * \return the results
     */
    FabricStatsResults Collect();

    /// \return the straggler ledger, once installed with EnableStragglerLedger; else null
    const StragglerLedger* GetStragglerLedger() const;
    /// \return the waits of relayed messages at multi-port GPUs' ports, once installed
    const RelayWaitMeter* GetRelayWaitMeter() const;
    /// \return simulator events the helper's time series executed (bookkeeping, not model)
    uint64_t GetEvents() const;

  private:
    /**
     * \brief The transports' congestion-control counters, and with congestion control the
     * queue pairs it touched and the rate rows of the time series.
     * \param r filled
     */
    void CollectCongestionControl(FabricStatsResults& r) const;

    Time m_sampleInterval;                        //!< time-series bin width (zero: automatic)
    bool m_custom{false};                         //!< tier classes of a custom topology
    bool m_ledgerEnabled{false};                  //!< EnableStragglerLedger was called
    const FabricGraph* m_graph{nullptr};          //!< the installed fabric's graph
    std::vector<Ptr<FabricNetDevice>> m_ports;    //!< every port, by port id
    std::vector<Ptr<FabricSwitch>> m_switches;    //!< every forwarding element
    std::vector<Ptr<RdmaTransport>> m_transports; //!< every endpoint's transport
    bool m_congestionControl{false};              //!< some transport has a controller
    std::unique_ptr<PortSampler> m_sampler;       //!< the time series
    std::unique_ptr<StragglerLedger> m_ledger;    //!< straggler attribution, if enabled
    std::unique_ptr<RelayWaitMeter> m_relay;      //!< relayed messages' waits at GPU ports
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_STATS_HELPER_H */
