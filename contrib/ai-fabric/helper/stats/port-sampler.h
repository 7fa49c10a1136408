/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_PORT_SAMPLER_H
#define AI_FABRIC_PORT_SAMPLER_H

#include "ns3/fabric-net-device.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/rdma-transport.h"
#include "ns3/run-results.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Samples every port's utilisation and egress queue into time bins
 * (timeseries.csv).
 *
 * One simulator event per bin edge reads the devices' counters (busy time up to
 * now, queue, the queue's peak since the previous edge): nothing is done per
 * packet. Bins start at t = 0 and have one width; the last bin ends with the run.
 *
 * Fixed interval: bins of exactly that width (memory: ports x bins x 20 bytes),
 * up to FIXED_MAX_CELLS (bin, port) cells (640 MiB); a longer run merges pairs
 * as below from there on, and IntervalS() reports the width in use.
 * Automatic (interval 0): bins start at AUTO_FIRST_INTERVAL and, whenever their
 * count reaches the cap, adjacent pairs are merged (busy time added, end queue
 * of the later bin, the larger peak) and the width doubles, so a run keeps
 * between cap/2 and cap bins whatever its length. The cap is
 * min(AUTO_MAX_BINS, max(16, AUTO_MAX_CELLS / ports)), rounded down to even, so
 * memory stays under about AUTO_MAX_CELLS x 20 bytes (80 MiB) however many ports.
 *
 * Rates (AddTransport()): at the same bin edges, in the same events, it also reads
 * each added transport port's queue pairs below line rate (their count, lowest and
 * mean rate at the edge) and its CNP counters (RdmaTransport::GetPortRateSample(),
 * which walks only the queue pairs below line rate); merged bins keep the later bin's
 * rates and add the CNPs.
 *
 * The sampler stops rescheduling itself when no other event is pending, so it
 * never keeps a finished (or stalled) simulation alive.
 */
class PortSampler
{
  public:
    static constexpr int64_t AUTO_FIRST_INTERVAL_PS = 100000; //!< 100 ns
    static constexpr uint32_t AUTO_MAX_BINS = 512;            //!< bins kept at most
    static constexpr uint64_t AUTO_MAX_CELLS = 4u << 20;      //!< (bin, port) cells at most
    static constexpr uint64_t FIXED_MAX_CELLS = 32u << 20;    //!< fixed width: cells at most

    /**
     * \param ports the devices, in port-id order
     * \param interval the bin width; zero for automatic bins
     */
    PortSampler(std::vector<Ptr<FabricNetDevice>> ports, Time interval);

    /**
     * \brief Also sample the rates and CNPs of a transport's ports (before Start()).
     * \param transport the transport
     * \param portIds per transport port index, its port id (an index into the devices
     *        given to the constructor), or UINT32_MAX for a port not among them
     */
    void AddTransport(Ptr<RdmaTransport> transport, const std::vector<uint32_t>& portIds);

    /// \brief Schedule the first bin edge (call before Simulator::Run()).
    void Start();

    /// \brief Close the last (partial) bin at the current time (after Simulator::Run()).
    void Finish();

    /// \return simulator events the sampler executed
    uint64_t Events() const;

    /// \return the bin width in use, seconds
    double IntervalS() const;

    /**
     * \brief The rows of the ports that transmitted at least one packet, by bin
     * then port id.
     * \return the rows
     */
    std::vector<TimeSeriesRow> Rows() const;

    /**
     * \brief The rate rows of the transport ports (AddTransport()) that transmitted at least
     * one packet, by bin then port id.
     * \return the rows (empty without transports)
     */
    std::vector<RateSeriesRow> RateRows() const;

  private:
    /// \brief Close the bin that ends now; schedule the next edge.
    void Sample();
    /// \brief Read every port into bin m_bins.
    void Record();
    /// \brief Read every transport port's rates into bin m_bins.
    void RecordRates();
    /// \brief Merge adjacent bins pairwise and double the width (automatic mode).
    void Merge();

    std::vector<Ptr<FabricNetDevice>> m_ports; //!< the devices
    bool m_auto;                               //!< automatic bins
    int64_t m_intervalPs;                      //!< bin width, picoseconds
    uint32_t m_maxBins;                        //!< automatic: merge when reached
    uint32_t m_bins{0};                        //!< closed bins
    int64_t m_lastEdgePs{0};                   //!< time of the last closed edge, ps
    std::vector<int64_t> m_prevBusyPs;         //!< per port: busy time at the last edge
    std::vector<int64_t> m_busyPs;             //!< per (bin, port): busy time in the bin
    std::vector<uint64_t> m_queue;             //!< per (bin, port): queue at the bin's end
    std::vector<uint64_t> m_queueMax;          //!< per (bin, port): largest queue in the bin
    std::vector<int64_t> m_binEndPs;           //!< per bin: its end, ps

    /// A transport port whose rates are sampled.
    struct RateProbe
    {
        Ptr<RdmaTransport> transport; //!< the transport
        uint32_t index;               //!< the port's index in the transport
        uint32_t portId;              //!< its port id
        uint64_t prevCnpsSent;        //!< CNPs sent at the last edge
        uint64_t prevCnpsReceived;    //!< CNPs received at the last edge
    };

    /// A transport port's rates in one bin.
    struct RateCell
    {
        uint32_t limited;      //!< queue pairs below line rate at the bin's end
        uint64_t minBps;       //!< their lowest rate (line rate when none)
        uint64_t sumBps;       //!< the sum of their rates
        uint64_t lineBps;      //!< the port's line rate
        uint64_t cnpsSent;     //!< CNPs sent during the bin
        uint64_t cnpsReceived; //!< CNPs received during the bin
    };

    std::vector<RateProbe> m_probes; //!< sampled transport ports, by port id
    std::vector<RateCell> m_rates;   //!< per (bin, probe)
    uint64_t m_events{0};            //!< events executed
};

} // namespace ns3

#endif /* AI_FABRIC_PORT_SAMPLER_H */
