/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_BISECTION_METER_H
#define AI_FABRIC_BISECTION_METER_H

#include "ns3/run-results.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;
struct TopologySpec;

/**
 * \ingroup ai-fabric
 * \brief A bisection cut and its capacity: the split the topology analyzer's
 * closed form assumes, priced by max-flow on the graph.
 *
 * Bandwidths are in Gb/s (1e9 bit/s), ONE DIRECTION, as the analyzer reports
 * them (topology.json `bisection`): the rate side A can send to side B at once.
 */
struct BisectionCutInfo
{
    std::string split;       //!< the split in words ("first 2 of 4 leaves")
    std::vector<bool> sideA; //!< per GPU index: true for side A
    double analyticGbps{0};  //!< max-flow from side A to side B, Gb/s, one direction
    double formulaGbps{0};   //!< the family's closed form, Gb/s (0 without one)
};

/**
 * \ingroup ai-fabric
 * \brief What crossed a bisection cut during a time window, beside the cut's capacity.
 *
 * Counted: the flows that lie entirely inside the window (startS >= window
 * start and endS <= window end) whose source and destination GPUs are on
 * opposite sides. achievedGbps is the busier direction:
 * max(bytesAtoB, bytesBtoA) x 8 / window / 1e9, so it is comparable with the
 * one-direction capacity (a full-duplex cut carries that much each way).
 */
struct BisectionMeasure
{
    uint64_t crossBytes{0}; //!< payload bytes that crossed the cut, both directions
    uint64_t bytesAtoB{0};  //!< of those, side A to side B
    uint64_t bytesBtoA{0};  //!< of those, side B to side A
    uint64_t crossFlows{0}; //!< flows that crossed the cut
    double windowS{0};      //!< the window's length, seconds
    double achievedGbps{0}; //!< busier direction's payload rate, Gb/s (0 for an empty window)
    double analyticGbps{0}; //!< the cut's capacity, Gb/s, one direction
    double ratio{0};        //!< achievedGbps / analyticGbps (0 without a capacity)
};

/**
 * \ingroup ai-fabric
 * \brief The analyzer's bisection cut of a fabric and its max-flow capacity.
 * \param graph the fabric
 * \param spec the topology it was generated from
 * \return the cut
 */
BisectionCutInfo AnalyticBisectionCut(const FabricGraph& graph, const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief Measure the traffic across a cut (see BisectionMeasure).
 * \param cut the cut (sideA indexed by GPU; flows naming GPUs beyond it are ignored)
 * \param flows the flows (src and dst are GPU indices)
 * \param startS window start, seconds
 * \param endS window end, seconds
 * \return the measure
 */
BisectionMeasure MeasureBisection(const BisectionCutInfo& cut,
                                  const std::vector<FlowRecord>& flows,
                                  double startS,
                                  double endS);

/**
 * \ingroup ai-fabric
 * \brief AnalyticBisectionCut() then MeasureBisection().
 * \param graph the fabric
 * \param spec the topology it was generated from
 * \param flows the flows
 * \param startS window start, seconds
 * \param endS window end, seconds
 * \return the measure
 */
BisectionMeasure MeasureBisection(const FabricGraph& graph,
                                  const TopologySpec& spec,
                                  const std::vector<FlowRecord>& flows,
                                  double startS,
                                  double endS);

} // namespace ns3

#endif /* AI_FABRIC_BISECTION_METER_H */
