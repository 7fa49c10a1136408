/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_VALIANT_ROUTING_H
#define AI_FABRIC_VALIANT_ROUTING_H

#include "ns3/dragonfly-plus-routing.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Valiant routing on a Dragonfly+: every inter-group packet entering the fabric goes
 * through a random intermediate group (Valiant and Brebner 1981; Kim et al. 2008).
 */
class ValiantRouting final : public DragonflyPlusRouting
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ValiantRouting();
    ~ValiantRouting() override;

  protected:
    bool Detour(const FabricFields& header, uint32_t via, uint8_t priority) override;
};

} // namespace ns3

#endif /* AI_FABRIC_VALIANT_ROUTING_H */
