/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_ADAPTIVE_ROUTING_H
#define AI_FABRIC_ADAPTIVE_ROUTING_H

#include "ns3/fabric-routing.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Congestion-aware adaptive routing, as InfiniBand (Quantum adaptive routing) and
 * Ethernet AI fabrics (Spectrum-X, Broadcom dynamic load balancing) do it.
 *
 * A port's cost is its egress lane's queued bytes (packets waiting for credits or a PFC
 * resume included) plus DownstreamWeight x the congestion the packet would meet at the next
 * switch behind it: that switch's least loaded port towards the destination
 * (FabricRouting::DownstreamBytes()) beyond DownstreamThreshold, as an adaptive-routing
 * notification reports a congested port to the switches upstream (InfiniBand ARN, Dragonfly+
 * FPAR: FACTS.md 1.6) rather than every busy one. Local state alone cannot see a congested
 * link one hop further: on a Dragonfly+ a leaf's uplinks look alike while one spine's global
 * link to the destination's group is full.
 *
 * Choice (Band > 0, the default): the cost is quantized into exponential quality bands (band 0
 * below Band bytes, band k from Band x 2^(k-1)), as switch ASICs grade their ports into a few
 * quality bands (Broadcom-based dynamic load balancing: bands 0-7 from queue size and port
 * load, Juniper "Customize Egress Port Link Quality Metrics for DLB"), and the packet takes a
 * random port of the best band. A strict least-cost choice (Band = 0) herds: every packet, and
 * every switch reading the same downstream state, piles onto the port that was least loaded
 * when it was read; and where the leaves' buffers are full (an oversubscribed leaf), the least
 * queue is the port that drains fastest, so traffic follows the spine that head-of-line
 * blocking slows least and leaves the others' downlinks idle (docs/topologies.md, "Adaptive
 * routing and its signals"). With Band = 0 the candidates are scanned from a rotating start
 * (RandomTies: a random one) and ties go to the first.
 *
 * Granularity: every packet chooses (PACKET), or a flow (source, destination, queue pair)
 * keeps its port while its packets follow each other closer than FlowletGap (FLOWLET,
 * CONGA-style flowlets; a table of FlowletTableSize entries per switch, indexed by the flow's
 * hash as switch ASICs index theirs: two flows that share an entry share its flowlet).
 *
 * Bias: with Bias > 0 the packet stays on its current port (its flowlet's, or for PACKET the
 * port the ECMP hash gives the flow) unless another port costs more than Bias bytes less
 * (bands are then not used).
 * DownstreamWeight 0, Band 0, PACKET and Bias 0 are the local least-queue strategy of earlier
 * releases.
 */
class AdaptiveRouting final : public FabricRouting
{
  public:
    /// How often a port is chosen.
    enum Granularity
    {
        PACKET,  //!< every packet
        FLOWLET, //!< at the first packet of a flowlet
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AdaptiveRouting();
    ~AdaptiveRouting() override;

    FabricRoute Route(FabricFields& header, uint16_t inPort, uint8_t priority) override;
    uint16_t Choose(const uint16_t* ports,
                    uint32_t n,
                    const FabricFields& header,
                    uint8_t priority) override;

    /// \return flowlets started (FLOWLET: packets that chose a port afresh)
    uint64_t GetFlowlets() const;

  private:
    /// Most candidates the band compares (more are left out of the band).
    static constexpr uint32_t MAX_SCAN = 64;

    /// One entry of the flowlet table.
    struct Flowlet
    {
        uint64_t key{0};   //!< the flow's hash (0: empty)
        int64_t lastPs{0}; //!< time of its last packet, ps
        uint16_t port{0};  //!< its port
    };

    /**
     * \param port a candidate port
     * \param header the packet's fields
     * \param priority its class
     * \return the port's cost, bytes
     */
    uint64_t Cost(uint16_t port, const FabricFields& header, uint8_t priority);
    /// \param cost a port's cost, bytes \return its quality band (0 best: below Band bytes)
    uint32_t QualityBand(uint64_t cost) const;
    /**
     * \param ports candidates
     * \param n how many
     * \param current the port to keep unless another is better by more than Bias
     * \param header the packet's fields
     * \param priority its class
     * \return the chosen port
     */
    uint16_t Least(const uint16_t* ports,
                   uint32_t n,
                   uint16_t current,
                   const FabricFields& header,
                   uint8_t priority);
    /// \param header the packet's fields \return its flow's hash, never 0
    uint64_t FlowKey(const FabricFields& header) const;

    Granularity m_granularity{PACKET};      //!< Granularity attribute
    Time m_flowletGap;                      //!< FlowletGap attribute
    uint32_t m_tableSize{4096};             //!< FlowletTableSize attribute
    double m_downstreamWeight{1.0};         //!< DownstreamWeight attribute
    uint64_t m_downstreamThreshold{262144}; //!< DownstreamThreshold attribute, bytes
    uint64_t m_bias{0};                     //!< Bias attribute, bytes
    uint64_t m_band{4096};                  //!< Band attribute, bytes
    bool m_randomTies{false};               //!< RandomTies attribute
    uint32_t m_rotate{0};                   //!< where the next choice starts among the candidates
    std::vector<Flowlet> m_flowlets;        //!< the flowlet table (allocated at the first use)
    uint64_t m_flowletCount{0};             //!< flowlets started
};

} // namespace ns3

#endif /* AI_FABRIC_ADAPTIVE_ROUTING_H */
