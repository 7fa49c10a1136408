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

class Packet;
class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * \brief The forwarding element and shared buffer of a switch node.
 *
 * Forwarding: the routing table maps a destination endpoint to a set of
 * equal-cost egress ports (identical sets are stored once). Among several
 * ports the choice is, per scenario:
 *  * ECMP: a per-flow hash of (source, destination, queue pair), salted per switch;
 *  * SPRAY: a uniformly random port for every packet (seeded stream);
 *  * ADAPTIVE: the port whose egress lane holds the fewest bytes (ties: rotating).
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
 * Conservation: received = queued on an egress port + dropped; pool used =
 * sum of ingress charges.
 */
class FabricSwitch : public Object
{
  public:
    /// Choice among equal-cost ports.
    enum Forwarding : uint8_t
    {
        ECMP = 0,     //!< per-flow hash
        SPRAY = 1,    //!< per-packet random
        ADAPTIVE = 2, //!< per-packet least-queued
    };

    /// Path choice between groups of a Dragonfly+ (Kim et al. ISCA 2008; FACTS.md 1.5/1.6).
    enum PathMode : uint8_t
    {
        MINIMAL = 0, //!< shortest paths only
        VALIANT = 1, //!< every inter-group packet through a random intermediate group
        UGAL = 2,    //!< per packet, minimal or Valiant by queue length x hop count (UGAL-L)
    };

    /// Per-port settings, from the port's link profile.
    struct PortConfig
    {
        bool edge{false};        //!< the port faces an endpoint (GPU or NIC)
        bool global{false};      //!< the port's link joins two groups (Dragonfly+)
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
     * \brief Set the equal-cost egress ports towards an endpoint.
     * \param dst destination endpoint
     * \param ports port indices (non-empty)
     */
    void SetRoute(uint32_t dst, const std::vector<uint16_t>& ports);

    /**
     * \brief Give an endpoint the same egress ports as another one (a set-up shortcut for
     * endpoints behind the same switch port set; no search among the port sets).
     * \param dst destination endpoint
     * \param like an endpoint whose route is set
     */
    void CopyRoute(uint32_t dst, uint32_t like);

    /**
     * \param dst destination endpoint
     * \return the equal-cost egress ports (empty if none)
     */
    const std::vector<uint16_t>& GetRoute(uint32_t dst) const;

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

    /// \param mode how to choose among equal-cost ports
    void SetForwarding(Forwarding mode);

    /**
     * \brief Non-minimal routing between groups (Dragonfly+). A packet entering the
     * fabric at this switch from an endpoint, bound for another group, may be sent
     * through an intermediate group (Valiant, or UGAL by queue length). The switch of
     * that group where the packet turns towards its destination (the spine it enters by,
     * if that spine has a global link on the way, else the leaf it comes down to) clears
     * the detour and moves the packet one virtual lane up. Each lane then carries only
     * up, global, down paths, with no down-up turn, which breaks credit-loop deadlock
     * with two lanes (FACTS.md 1.6).
     * \param mode path choice
     * \param group this switch's group
     * \param groups number of groups
     * \param dstGroup group of every destination endpoint
     */
    void SetGroupRouting(PathMode mode,
                         uint32_t group,
                         uint32_t groups,
                         const std::vector<uint16_t>& dstGroup);
    /**
     * \brief The equal-cost ports towards the nearest switch of a group.
     * \param group the group
     * \param ports port indices (empty for the switch's own group)
     */
    void SetGroupRoute(uint32_t group, const std::vector<uint16_t>& ports);
    /**
     * \param name "minimal", "valiant" or "ugal"
     * \param mode set on success
     * \return true if the name is known
     */
    static bool ParsePathMode(const std::string& name, PathMode& mode);
    /// \return packets this switch sent on a detour through an intermediate group
    uint64_t GetDetoured() const;
    /// \return packets whose detour ended at this switch (it is in their intermediate group)
    uint64_t GetDetoursEnded() const;
    /**
     * \param name "ecmp", "spray" or "adaptive"
     * \param mode set on success
     * \return true if the name is known
     */
    static bool ParseForwarding(const std::string& name, Forwarding& mode);

    /**
     * \brief Assign the random streams (ECMP salt, spraying, ECN marking).
     * \param stream first stream index
     * \return number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// \return number of ports
    uint32_t GetNPorts() const;
    /// \param i port index \return the port
    Ptr<FabricNetDevice> GetPort(uint32_t i) const;
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
     * \brief Non-minimal routing: start a packet's detour through an intermediate group
     * (Receive ends it, at the switch of that group where it turns towards the destination).
     * \param header the packet's header (updated)
     * \param in ingress port
     * \param priority its class on arrival
     * \return true if the header changed
     */
    bool RouteBetweenGroups(FabricFields& header, uint16_t in, uint8_t priority);
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
    /**
     * \param ports candidate ports
     * \param n how many (at least 1)
     * \param src source endpoint
     * \param dst destination endpoint
     * \param qp queue pair
     * \param priority lane
     * \return the chosen port
     */
    uint16_t Choose(const uint16_t* ports,
                    uint32_t n,
                    uint32_t src,
                    uint32_t dst,
                    uint16_t qp,
                    uint8_t priority);

    std::vector<Ptr<FabricNetDevice>> m_ports;   //!< ports by index
    std::vector<PortConfig> m_config;            //!< per port
    std::vector<std::vector<uint64_t>> m_charge; //!< ingress bytes per (port, lane)
    /// PFC: the (port, lane) pairs paused now, in the order they were paused (each is
    /// re-checked whenever the buffer frees: its resume threshold depends on all ports)
    std::vector<std::pair<uint16_t, uint8_t>> m_paused;

    /// A port set as the packet path reads it: one load for a single port.
    struct RouteEntry
    {
        uint32_t offset{0}; //!< the set's first port in m_portPool
        uint16_t count{0};  //!< ports in the set (0: no route)
        uint16_t first{0};  //!< its first port
    };

    /**
     * \param ports a port set (non-empty)
     * \return its index in m_portSets, added if new
     */
    uint32_t AddPortSet(const std::vector<uint16_t>& ports);
    /**
     * \param dst destination endpoint
     * \param set index into m_portSets
     */
    void SetRouteSet(uint32_t dst, uint32_t set);

    std::vector<uint32_t> m_routeSet;              //!< destination -> index into m_portSets
    std::vector<std::vector<uint16_t>> m_portSets; //!< distinct port sets
    std::vector<RouteEntry> m_setEntry;            //!< per port set: its RouteEntry
    std::vector<RouteEntry> m_routeEntry;          //!< destination -> its set's RouteEntry
    std::vector<uint16_t> m_portPool;              //!< every port set's ports, back to back
    Forwarding m_forwarding{ECMP};                 //!< forwarding mode
    PathMode m_pathMode{MINIMAL};                  //!< group path choice
    uint32_t m_group{UINT32_MAX};                  //!< this switch's group
    uint32_t m_groups{0};                          //!< number of groups
    std::vector<uint16_t> m_dstGroup;              //!< group of each destination endpoint
    std::vector<uint32_t> m_groupRoute;            //!< group -> index into m_portSets
    uint64_t m_detoured{0};                        //!< packets sent on a detour
    uint64_t m_detoursEnded{0};                    //!< detours ended here
    uint32_t m_localEndpoint{UINT32_MAX};          //!< endpoint delivered locally, if any
    bool m_hasEdgePorts{false};                    //!< some port faces an endpoint (a leaf)
    Callback<void, FabricNetDevice*, FabricArrival&> m_deliver; //!< local delivery
    uint64_t m_salt{0};                                         //!< ECMP hash salt
    uint32_t m_rotate{0};                                       //!< ADAPTIVE tie-break rotation
    Ptr<UniformRandomVariable> m_rng;                           //!< spraying and ECN decisions
    uint64_t m_bufferSize{0};    //!< BufferSize attribute (0: sum of ports)
    uint64_t m_poolSize{0};      //!< effective shared pool, bytes
    double m_pfcAlpha{0.125};    //!< PFC dynamic threshold factor
    double m_dropAlpha{1.0};     //!< lossy dynamic threshold factor
    uint64_t m_headroomTotal{0}; //!< sum of PFC headroom reserved
    uint64_t m_used{0};          //!< bytes in the pool
    uint64_t m_peakUsed{0};      //!< peak bytes in the pool
    uint64_t m_forwarded{0};     //!< packets forwarded
    uint64_t m_drops{0};         //!< packets dropped
    uint64_t m_losslessDrops{0}; //!< drops on lossless ingress ports
    uint64_t m_ecnMarks{0};      //!< packets marked
    TimeHeap<Delayed> m_delayed; //!< packets waiting to join an egress queue
    ReusableEvent<FabricSwitch, &FabricSwitch::EnqueueDelayed> m_delayedEvent{
        this}; //!< joins the earliest waiting packet, once per packet
    TracedCallback<Ptr<const Packet>, uint32_t> m_dropTrace; //!< drop
    TracedCallback<Ptr<const Packet>, uint32_t> m_ecnTrace;  //!< ECN mark
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_SWITCH_H */
