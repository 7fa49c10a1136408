/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_UGAL_ROUTING_H
#define AI_FABRIC_UGAL_ROUTING_H

#include "ns3/dragonfly-plus-routing.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief UGAL-L on a Dragonfly+: per packet, the minimal path unless its egress queue times
 * its hop count exceeds the Valiant path's (Kim et al. 2008): a minimal inter-group path
 * crosses at most 3 switch-to-switch hops, a Valiant one 5.
 */
class UgalRouting final : public DragonflyPlusRouting
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    UgalRouting();
    ~UgalRouting() override;

  protected:
    bool Detour(const FabricFields& header, uint32_t via, uint8_t priority) override;
};

} // namespace ns3

#endif /* AI_FABRIC_UGAL_ROUTING_H */
