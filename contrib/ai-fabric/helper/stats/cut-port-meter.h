/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_CUT_PORT_METER_H
#define AI_FABRIC_CUT_PORT_METER_H

#include "ns3/bisection-meter.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class WorkloadExecution;
struct FabricFields;
struct WorkloadOp;

/**
 * \ingroup ai-fabric
 * \brief Counts what the ports of a bisection cut transmit, and snapshots the counts at the
 * start and end of the windows it is asked to watch (one per collective), so the cut's
 * traffic is measured over exactly each collective's window.
 *
 * Per port, from its TxFields trace (the header fields and wire size of every packet that
 * starts serialization; no Packet is built): wire bytes, payload, and the same for the
 * packets whose source and destination endpoints lie on opposite sides of the cut (an
 * endpoint that is no GPU, an in-network reducer, is on neither side). Busy time is read
 * from the device (FabricNetDevice::GetBusyTimeUntilNow) at each snapshot. Only the cut's
 * ports are connected; nothing else is done per packet and the simulation is unchanged.
 *
 * A window starts at its collective's issue time: a snapshot taken at once if that is now
 * (before the simulation), else by one event scheduled then (before any event the run
 * schedules for that time). It ends when the last SEND op of its group is done (the
 * WorkloadExecution's OpDone trace: the collective's last delivery, in that event), or, if
 * the run stops first, at Finish(). Bytes thus count the packets whose serialization started
 * inside the window; busy time is exact to the picosecond.
 *
 * \code
 *   CutPortMeter meter(cut, fabric.devicesA, fabric.devicesB, gpus);
 *   meter.Watch(group, groupStart, sendsOfGroup);
 *   meter.Connect(execution);
 *   Simulator::Run();
 *   meter.Finish();
 *   const CutWindow* w = meter.GetWindow(group);
 * \endcode
 */
class CutPortMeter
{
  public:
    /**
     * \param cut the cut (its ports and sides)
     * \param devicesA per graph link, the device at end a (port 2i)
     * \param devicesB per graph link, the device at end b (port 2i + 1)
     */
    CutPortMeter(const BisectionCutInfo& cut,
                 const std::vector<Ptr<FabricNetDevice>>& devicesA,
                 const std::vector<Ptr<FabricNetDevice>>& devicesB);
    ~CutPortMeter();
    CutPortMeter(const CutPortMeter&) = delete;
    CutPortMeter& operator=(const CutPortMeter&) = delete;

    /**
     * \brief Measure a window: from \p start (call before Simulator::Run) until the group's
     * last SEND op is done.
     * \param group the workload group (its OpDone notices end the window)
     * \param start the window's start (the group's issue time)
     * \param sends the group's SEND ops
     */
    void Watch(uint32_t group, Time start, uint64_t sends);

    /**
     * \brief End windows as their groups' SEND ops complete.
     * \param execution the run's execution (its OpDone trace, its workload's ops)
     */
    void Connect(Ptr<WorkloadExecution> execution);

    /// \brief End the windows still open at the current time (after Simulator::Run).
    void Finish();

    /**
     * \param group a watched group
     * \return its window's traffic (null if the group was not watched)
     */
    const CutWindow* GetWindow(uint32_t group) const;

    /// \return simulator events the meter executed (bookkeeping, not model)
    uint64_t GetEvents() const;

  private:
    /// A watched window.
    struct Watched
    {
        uint64_t sendsLeft{0};            //!< SEND ops of the group not done yet
        bool started{false};              //!< the start snapshot was taken
        bool ended{false};                //!< the end snapshot was taken
        std::vector<PortTraffic> atStart; //!< the counts at the start
        CutWindow window;                 //!< the result
    };

    /**
     * \brief Trace sink: a packet starts serialization on cut port \p index.
     * \param index the port's index in the cut's port list
     * \param header its fields
     * \param wireBytes its wire size
     */
    void Transmit(uint32_t index, const FabricFields& header, uint32_t wireBytes);
    /// \brief Trace sink: op \p op is done. \param op the op
    void OpDone(uint32_t op);
    /// \return every cut port's counts now
    std::vector<PortTraffic> Snapshot() const;
    /// \brief Take a window's start snapshot. \param group the window's group
    void Start(uint32_t group);
    /// \brief Take a window's end snapshot now. \param w the window
    void End(Watched& w);

    std::vector<Ptr<FabricNetDevice>> m_ports;     //!< per cut port
    std::vector<PortTraffic> m_counts;             //!< per cut port: cumulative (busy time unused)
    std::vector<uint8_t> m_side;                   //!< per endpoint: 0 side A, 1 side B
    std::map<uint32_t, Watched> m_windows;         //!< by group
    const std::vector<WorkloadOp>* m_ops{nullptr}; //!< the workload's ops (after Connect)
    uint64_t m_events{0};                          //!< events executed
};

} // namespace ns3

#endif /* AI_FABRIC_CUT_PORT_METER_H */
