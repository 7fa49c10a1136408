/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_SWITCH_H
#define AI_FABRIC_FABRIC_SWITCH_H

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class Packet;

/**
 * \ingroup ai-fabric
 * \brief The forwarding element of a switch node: reads the destination of
 * each arriving packet, picks an egress port among the equal-cost next hops of
 * its precomputed table, and queues the packet there.
 *
 * The routing table maps a destination endpoint to a port set; identical sets
 * are stored once (a leaf of a leaf-spine has one "all uplinks" set for every
 * remote destination). Among several ports the choice is a per-flow hash of
 * (source, destination, queue pair) salted per switch (ECMP).
 *
 * The switch's port-to-port latency is modelled by the ingress ports'
 * RxLatency, so forwarding costs no extra event.
 *
 * Conservation: every packet received is queued on exactly one egress port.
 */
class FabricSwitch : public Object
{
  public:
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
     * \brief Add a port; the switch becomes its receive handler.
     * \param port the port
     * \return the port's index in this switch
     */
    uint32_t AddPort(Ptr<FabricNetDevice> port);

    /**
     * \brief Set the equal-cost egress ports towards an endpoint.
     * \param dst destination endpoint
     * \param ports port indices (non-empty)
     */
    void SetRoute(uint32_t dst, const std::vector<uint16_t>& ports);

    /**
     * \param dst destination endpoint
     * \return the equal-cost egress ports (empty if none)
     */
    const std::vector<uint16_t>& GetRoute(uint32_t dst) const;

    /// \param salt the per-switch ECMP hash salt (drawn from a seeded stream)
    void SetHashSalt(uint64_t salt);

    /// \return number of ports
    uint32_t GetNPorts() const;
    /// \param i port index \return the port
    Ptr<FabricNetDevice> GetPort(uint32_t i) const;
    /// \return packets forwarded
    uint64_t GetForwardedPackets() const;

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Forward a packet that arrived on a port.
     * \param inPort the ingress port
     * \param packet the packet
     */
    void Receive(Ptr<FabricNetDevice> inPort, Ptr<Packet> packet);

    std::vector<Ptr<FabricNetDevice>> m_ports;     //!< ports by index
    std::vector<uint32_t> m_routeSet;              //!< destination -> index into m_portSets
    std::vector<std::vector<uint16_t>> m_portSets; //!< distinct port sets
    uint64_t m_salt{0};                            //!< ECMP hash salt
    uint64_t m_forwarded{0};                       //!< packets forwarded
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_SWITCH_H */
