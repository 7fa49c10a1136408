/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_ADAPTIVE_ROUTING_H
#define AI_FABRIC_ADAPTIVE_ROUTING_H

#include "ns3/fabric-routing.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Congestion-aware adaptive routing: every packet takes the equal-cost port whose
 * egress lane holds the fewest bytes; ties go to the first in a rotating order.
 */
class AdaptiveRouting final : public FabricRouting
{
  public:
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

  private:
    uint32_t m_rotate{0}; //!< where the next choice starts among the candidates
};

} // namespace ns3

#endif /* AI_FABRIC_ADAPTIVE_ROUTING_H */
