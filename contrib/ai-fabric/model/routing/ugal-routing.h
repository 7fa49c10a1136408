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
 * \brief UGAL on a Dragonfly+: per packet, the minimal path unless its queue estimate times
 * its hop count exceeds the Valiant path's by more than Threshold (Kim et al. 2008): a
 * minimal inter-group path crosses at most 3 switch-to-switch hops, a Valiant one 5.
 *
 * A path's queue estimate is the same signal AdaptiveRouting reads: the egress queue of the
 * port the equal-cost choice takes, plus DownstreamWeight x the queue the packet would join
 * at the next switch (towards the destination on the minimal path; towards the intermediate
 * group, or from inside it towards the destination, on the detour). With DownstreamWeight 0
 * this is UGAL-L, the local queues alone.
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

  private:
    double m_downstreamWeight{1.0}; //!< DownstreamWeight attribute
    uint64_t m_threshold{0};        //!< Threshold attribute, bytes
};

} // namespace ns3

#endif /* AI_FABRIC_UGAL_ROUTING_H */
