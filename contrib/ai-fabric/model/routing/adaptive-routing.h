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
 * A packet's port is the equal-cost port of the least cost, where a port's cost is its egress
 * lane's queued bytes plus DownstreamWeight x the queue the packet would join at the next
 * switch behind it (FabricRouting::DownstreamBytes(): that switch's least loaded port
 * towards the destination). Local state alone cannot see a congested link one hop further:
 * on a leaf-spine every leaf's uplinks are idle while one spine's downlink to the
 * destination leaf is full, and credit back-pressure then blocks the whole uplink for every
 * destination.
 *
 * Granularity: every packet chooses (PACKET), or a flow (source, destination, queue pair)
 * keeps its port while its packets follow each other closer than FlowletGap (FLOWLET,
 * CONGA-style flowlets; a table of FlowletTableSize entries per switch, indexed by the flow's
 * hash as switch ASICs index theirs: two flows that share an entry share its flowlet).
 *
 * Bias: with Bias > 0 the packet stays on its current port (its flowlet's, or for PACKET the
 * port the ECMP hash gives the flow) unless another port costs more than Bias bytes less.
 * With Bias = 0 the candidates are scanned from a rotating start and ties go to the first.
 * DownstreamWeight 0, PACKET and Bias 0 are the local-only strategy of earlier releases.
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

    Granularity m_granularity{PACKET}; //!< Granularity attribute
    Time m_flowletGap;                 //!< FlowletGap attribute
    uint32_t m_tableSize{4096};        //!< FlowletTableSize attribute
    double m_downstreamWeight{0.0};    //!< DownstreamWeight attribute
    uint64_t m_bias{0};                //!< Bias attribute, bytes
    bool m_randomTies{false};          //!< RandomTies attribute
    uint32_t m_rotate{0};              //!< where the next choice starts among the candidates
    std::vector<Flowlet> m_flowlets;   //!< the flowlet table (allocated at the first use)
    uint64_t m_flowletCount{0};        //!< flowlets started
};

} // namespace ns3

#endif /* AI_FABRIC_ADAPTIVE_ROUTING_H */
