/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SPRAY_ROUTING_H
#define AI_FABRIC_SPRAY_ROUTING_H

#include "ns3/fabric-routing.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Packet spraying: every packet takes a uniformly random equal-cost port (the switch's
 * random stream).
 */
class SprayRouting final : public FabricRouting
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    SprayRouting();
    ~SprayRouting() override;

    FabricRoute Route(FabricFields& header, uint16_t inPort, uint8_t priority) override;
    uint16_t Choose(const uint16_t* ports,
                    uint32_t n,
                    const FabricFields& header,
                    uint8_t priority) override;
};

} // namespace ns3

#endif /* AI_FABRIC_SPRAY_ROUTING_H */
