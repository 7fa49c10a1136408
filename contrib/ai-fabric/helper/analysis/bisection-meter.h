/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_BISECTION_METER_H
#define AI_FABRIC_BISECTION_METER_H

#include "ns3/run-results.h"
#include "ns3/topology-analyzer.h"

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
 * closed form assumes, priced by max-flow on the graph, and the links of its minimum cut
 * (SplitMinCut()) with the ports that carry them.
 *
 * Bandwidths are in Gb/s (1e9 bit/s), ONE DIRECTION, as the analyzer reports
 * them (topology.json `bisection`): the rate side A can send to side B at once.
 * Ports are numbered as RunResults::ports: link i's device at end a is port 2i, at end b
 * 2i + 1.
 */
struct BisectionCutInfo
{
    /// One element of the minimum cut (a link direction, or a GPU's injection or ejection).
    struct Element
    {
        std::string name;           //!< "leaf0->spine1", or "gpu3 injection" / "gpu3 ejection"
        double bps{0};              //!< capacity from side A to side B, bits per second
        std::vector<uint32_t> aToB; //!< indices into ports: what carries it from A to B
        std::vector<uint32_t> bToA; //!< indices into ports: the same cables from B to A
    };

    std::string split;             //!< the split in words ("first 2 of 4 leaves")
    std::vector<bool> sideA;       //!< per GPU index: true for side A
    double analyticGbps{0};        //!< max-flow from side A to side B, Gb/s, one direction
    double formulaGbps{0};         //!< the family's closed form, Gb/s (0 without one)
    std::string cut;               //!< where the minimum cut lies, in words
    std::vector<Element> elements; //!< the minimum cut: capacities sum to analyticGbps
    std::vector<uint32_t> ports;   //!< every port the elements use, sorted (RunResults ids)
    std::vector<double> portBps;   //!< per entry of ports: its link's rate, bits per second
};

/**
 * \ingroup ai-fabric
 * \brief What one port transmitted (cumulative, or over a window), split by whether a
 * packet's source and destination endpoints lie on opposite sides of a cut.
 */
struct PortTraffic
{
    uint64_t wireBytes{0};            //!< wire bytes (link overhead included)
    uint64_t payloadBytes{0};         //!< of those, payload (what DATA packets carry)
    uint64_t crossingWireBytes{0};    //!< wire bytes of packets between the two sides
    uint64_t crossingPayloadBytes{0}; //!< payload of packets between the two sides
    int64_t busyPs{0};                //!< serialization time, picoseconds
};

/**
 * \ingroup ai-fabric
 * \brief What the cut's ports carried during one collective's window (CutPortMeter).
 *
 * Bytes count the packets whose serialization started in [start, end): at each edge a
 * port's byte count may differ from a byte-exact split by the one packet it was sending
 * then. Busy time is exact to the picosecond (the part of a packet's serialization that lies
 * inside the window).
 */
struct CutWindow
{
    double startS{0};                 //!< window start: the collective's issue time, seconds
    double endS{0};                   //!< window end, seconds
    bool complete{false};             //!< the end is the collective's last delivery (else the
                                      //!< run stopped first and the end is the run's end)
    std::vector<PortTraffic> traffic; //!< per entry of BisectionCutInfo::ports
};

/**
 * \ingroup ai-fabric
 * \brief Counted: the flows that lie entirely inside the window (startS >= window
 * start and endS <= window end) whose source and destination GPUs are on
 * opposite sides. achievedGbps is the busier direction:
 * max(bytesAtoB, bytesBtoA) x 8 / window / 1e9, so it is comparable with the
 * one-direction capacity (a full-duplex cut carries that much each way). The flows'
 * view: what should have crossed, not what the cut's links carried (BisectionRecord).
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
 * \brief The analyzer's bisection cut of a fabric, its max-flow capacity and its links.
 * \param graph the fabric
 * \param spec the topology it was generated from
 * \return the cut
 */
BisectionCutInfo AnalyticBisectionCut(const FabricGraph& graph, const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief Measure the traffic across a cut by its flows (see BisectionMeasure).
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
 * \brief What the cut's links carried in one direction during a window
 * (BisectionDirectionRecord), from the window's per-port traffic.
 * \param cut the cut
 * \param window what its ports carried
 * \param aToB the direction: side A to side B, or side B to side A
 * \return the figures
 */
BisectionDirectionRecord MeasureCutDirection(const BisectionCutInfo& cut,
                                             const CutWindow& window,
                                             bool aToB);

/**
 * \ingroup ai-fabric
 * \brief The bisection record of one collective: what the cut's links carried during its
 * window (both directions, the busier one's figures at the top) and, as a second metric,
 * the payload of its flows that crossed (MeasureBisection()).
 * \param cut the cut
 * \param collective the collective
 * \param flows its flows
 * \param window what the cut's ports carried during its window
 * \return the record
 */
BisectionRecord MakeBisectionRecord(const BisectionCutInfo& cut,
                                    const CollectiveResult& collective,
                                    const std::vector<FlowRecord>& flows,
                                    const CutWindow& window);

} // namespace ns3

#endif /* AI_FABRIC_BISECTION_METER_H */
