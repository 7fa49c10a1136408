/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_SWITCH_H
#define AI_FABRIC_FABRIC_SWITCH_H

#include "ns3/callback.h"
#include "ns3/fabric-event.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/fabric-net-device.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/time-heap.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class FabricRouting;
class Packet;
class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * \brief The forwarding element and shared buffer of a switch node.
 *
 * Receive: route, admit, mark, forward. The egress port is the choice of the
 * switch's routing strategy (attribute Routing, a FabricRouting: ECMP, spray, adaptive,
 * Dragonfly+ Valiant or UGAL), which owns the routing table; the switch knows no topology.
 *
 * Buffer: one shared pool of BufferSize bytes. A packet is charged, from
 * arrival until it starts leaving its egress port, to its ingress (port, lane)
 * and to the pool. What happens when the pool fills is the ingress port's
 * FabricFlowControl's decision, told each charge (OnCharged) and release (OnBufferFreed):
 *  * CreditFlowControl: the upstream sender only sends into advertised credit, so the
 *    pool cannot overflow; credits go back upstream when the packet leaves.
 *  * PfcFlowControl: when the ingress (port, lane) holds more than the dynamic threshold
 *    PfcAlpha * (BufferSize - reserved headroom - pool used), an XOFF goes
 *    upstream; an XON follows when it falls one frame below. The headroom of
 *    each port (its Headroom attribute) absorbs what is still in flight.
 *  * NoFlowControl (lossy): a packet is dropped when its egress lane would exceed
 *    DropAlpha * (BufferSize - pool used) (dynamic threshold), or the pool is full.
 * A drop on a lossless port is a violation the run reports.
 *
 * ECN: a data packet is marked CE at egress with the RED probability of its
 * egress lane's queue: 0 below Kmin, rising to Pmax at Kmax, 1 above.
 *
 * The switch's port-to-port latency is the ingress ports' RxLatency, so
 * forwarding costs no extra event.
 *
 * Conservation (asserted on every packet): received = delivered + forwarded + dropped,
 * where delivered counts packets handed to the local endpoint and forwarded those admitted
 * towards an egress port; pool used = sum of ingress charges.
 */
class FabricSwitch : public Object
{
  public:
    /// Per-port settings, from the port's link profile.
    struct PortConfig
    {
        uint64_t bufferShare{0}; //!< bytes the port adds to the shared pool
        uint64_t ecnKmin{0};     //!< ECN: marking starts above, bytes (0: no marking)
        uint64_t ecnKmax{0};     //!< ECN: marking probability reaches 1 above, bytes
        double ecnPmax{0};       //!< ECN: probability at Kmax
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricSwitch();
    ~FabricSwitch() override;
    FabricSwitch(const FabricSwitch&) = delete;
    FabricSwitch& operator=(const FabricSwitch&) = delete;

    /**
     * TracedCallback signature for packet events.
     * \param packet the packet
     * \param port the egress port index
     */
    typedef void (*PacketPortTracedCallback)(Ptr<const Packet> packet, uint32_t port);

    /**
     * \brief Add a port; the switch becomes its receive handler and buffer manager (its
     * flow control, set before, tells the PFC headroom it reserves).
     * \param port the port
     * \param config its buffer and marking settings
     * \return the port's index in this switch
     */
    uint32_t AddPort(Ptr<FabricNetDevice> port, const PortConfig& config);

    /**
     * \brief Set the routing strategy (attribute Routing); it is attached to this switch.
     * \param routing the strategy
     */
    void SetRouting(Ptr<FabricRouting> routing);
    /// \return the routing strategy
    Ptr<FabricRouting> GetRouting() const;

    /**
     * \param dst destination endpoint
     * \return the equal-cost egress ports (empty if none), from the routing strategy's table
     */
    const std::vector<uint16_t>& GetRoute(uint32_t dst) const;

    /**
     * \param port a port index
     * \param priority a traffic class
     * \return wire bytes waiting on that egress lane (the local port state a routing
     *         strategy may read)
     */
    uint64_t GetQueuedBytes(uint16_t port, uint8_t priority) const;

    /**
     * \brief Make this the forwarding element of an endpoint node (a GPU with
     * several ports, which may relay traffic, as NCCL's PXN does): packets for
     * \p endpoint are handed to \p deliver instead of being forwarded, and leave
     * the buffer at once.
     * \param endpoint the node's endpoint id
     * \param deliver the local receive handler (the transport)
     */
    void SetLocalEndpoint(uint32_t endpoint,
                          Callback<void, FabricNetDevice*, FabricArrival&> deliver);

    /**
     * \brief Assign the random stream, shared by the routing strategy (its hash salt, then
     * its draws) and ECN marking.
     * \param stream first stream index
     * \return number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// \return number of ports
    uint32_t GetNPorts() const;
    /// \param i port index \return the port
    Ptr<FabricNetDevice> GetPort(uint32_t i) const;
    /// \return packets received on any port
    uint64_t GetReceivedPackets() const;
    /// \return packets delivered to the local endpoint
    uint64_t GetDeliveredPackets() const;
    /// \return packets forwarded
    uint64_t GetForwardedPackets() const;
    /// \return packets dropped
    uint64_t GetDrops() const;
    /// \return packets dropped on lossless (credit or PFC) ingress ports
    uint64_t GetLosslessDrops() const;
    /// \return packets marked CE
    uint64_t GetEcnMarks() const;
    /// \return bytes in the shared buffer now
    uint64_t GetBufferUsed() const;
    /// \return peak bytes in the shared buffer
    uint64_t GetPeakBufferUsed() const;
    /// \return bytes of the buffer reserved as PFC headroom (sum over the PFC ports)
    uint64_t GetPfcHeadroomTotal() const;
    /// \return the PFC dynamic-threshold factor alpha (attribute PfcAlpha)
    double GetPfcAlpha() const;
    /// \return the shared pool, bytes
    uint64_t GetBufferSize() const;
    /// \return the current PFC XOFF threshold per (port, lane), bytes
    uint64_t GetPfcThreshold() const;
    /// \return the shared buffer as the ports' flow control sees it now
    FabricBufferView GetBufferView() const;

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Forward a packet that arrived on a port.
     * \param inPort the ingress port
     * \param arrival the packet, its header, wire size on the ingress link and class
     */
    void Receive(FabricNetDevice* inPort, FabricArrival& arrival);
    /**
     * \brief Hand a packet to the local endpoint (it drains into GPU memory at once).
     * \param inPort the ingress port
     * \param arrival the packet
     */
    void Deliver(FabricNetDevice* inPort, FabricArrival& arrival);
    /**
     * \brief Admission to the shared pool: charge the packet to its ingress (port, lane) and
     * the pool, and pause the ingress (PFC) above its threshold.
     * \param inPort the ingress port
     * \param egress the egress port
     * \param item the packet
     * \return false if it must be dropped
     */
    bool Admit(FabricNetDevice* inPort, FabricNetDevice* egress, const FabricTxItem& item);
    /**
     * \brief Drop a packet that was not admitted.
     * \param inPort the ingress port
     * \param out the egress port index
     * \param item the packet
     */
    void Drop(FabricNetDevice* inPort, uint16_t out, FabricTxItem& item);
    /**
     * \brief ECN: mark the packet CE with the RED probability of its egress lane.
     * \param egress the egress port
     * \param item the packet
     * \return true if marked
     */
    bool MarkEcn(FabricNetDevice* egress, FabricTxItem& item);
    /**
     * \brief Queue an admitted packet on its egress port (after the cut-through wait, if any).
     * \param inPort the ingress port
     * \param out the egress port index
     * \param item the packet
     */
    void Forward(FabricNetDevice* inPort, uint16_t out, FabricTxItem&& item);
    /**
     * \brief A packet charged to this switch starts leaving an egress port.
     * \param item the packet
     */
    void Release(const FabricTxItem& item);

    /// A packet waiting to join an egress queue (cut-through into a faster port).
    struct Delayed
    {
        uint16_t port;     //!< the egress port
        FabricTxItem item; //!< the packet
    };

    /// The earliest waiting packet joins its egress queue (one occurrence per packet).
    void EnqueueDelayed();
    std::vector<Ptr<FabricNetDevice>> m_ports;   //!< ports by index
    std::vector<PortConfig> m_config;            //!< per port
    std::vector<std::vector<uint64_t>> m_charge; //!< ingress bytes per (port, lane)
    /// PFC: the (port, lane) pairs paused now, in the order they were paused (each is
    /// re-checked whenever the buffer frees: its resume threshold depends on all ports)
    std::vector<std::pair<uint16_t, uint8_t>> m_paused;

    Ptr<FabricRouting> m_routing;         //!< chooses the egress port
    uint32_t m_localEndpoint{UINT32_MAX}; //!< endpoint delivered locally, if any
    Callback<void, FabricNetDevice*, FabricArrival&> m_deliver; //!< local delivery
    Ptr<UniformRandomVariable> m_rng; //!< the switch's stream: routing and ECN decisions
    uint64_t m_bufferSize{0};         //!< BufferSize attribute (0: sum of ports)
    uint64_t m_poolSize{0};           //!< effective shared pool, bytes
    double m_pfcAlpha{0.125};         //!< PFC dynamic threshold factor
    double m_dropAlpha{1.0};          //!< lossy dynamic threshold factor
    uint64_t m_headroomTotal{0};      //!< sum of PFC headroom reserved
    uint64_t m_used{0};               //!< bytes in the pool
    uint64_t m_peakUsed{0};           //!< peak bytes in the pool
    uint64_t m_received{0};           //!< packets received
    uint64_t m_delivered{0};          //!< packets delivered to the local endpoint
    uint64_t m_forwarded{0};          //!< packets forwarded
    uint64_t m_drops{0};              //!< packets dropped
    uint64_t m_losslessDrops{0};      //!< drops on lossless ingress ports
    uint64_t m_ecnMarks{0};           //!< packets marked
    TimeHeap<Delayed> m_delayed;      //!< packets waiting to join an egress queue
    ReusableEvent<FabricSwitch, &FabricSwitch::EnqueueDelayed> m_delayedEvent{
        this}; //!< joins the earliest waiting packet, once per packet
    TracedCallback<Ptr<const Packet>, uint32_t> m_dropTrace; //!< drop
    TracedCallback<Ptr<const Packet>, uint32_t> m_ecnTrace;  //!< ECN mark
};

inline uint64_t
FabricSwitch::GetQueuedBytes(uint16_t port, uint8_t priority) const
{
    return m_ports[port]->GetQueuedBytes(priority);
}

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_SWITCH_H */
