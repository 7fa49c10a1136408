/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_ECMP_ROUTING_H
#define AI_FABRIC_ECMP_ROUTING_H

#include "ns3/fabric-routing.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief ECMP as deployed: every packet of a flow takes the same port, chosen by a hash of
 * (source, destination, queue pair) salted per switch (the queue pair is the entropy a RoCEv2
 * NIC puts in the UDP source port).
 */
class EcmpRouting final : public FabricRouting
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    EcmpRouting();
    ~EcmpRouting() override;

    FabricRoute Route(FabricFields& header, uint16_t inPort, uint8_t priority) override;
    uint16_t Choose(const uint16_t* ports,
                    uint32_t n,
                    const FabricFields& header,
                    uint8_t priority) override;
};

} // namespace ns3

#endif /* AI_FABRIC_ECMP_ROUTING_H */
