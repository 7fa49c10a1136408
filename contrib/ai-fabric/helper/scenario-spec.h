/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SCENARIO_SPEC_H
#define AI_FABRIC_SCENARIO_SPEC_H

#include "spec-error.h"

#include "ns3/link-profile.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A fabric as the user described it (topologies/NAME.yaml).
 *
 * kind "single-switch": `gpus` GPU endpoints, each with one NIC port linked to
 * one switch.
 * kind "leaf-spine": `leaves` leaf switches with `gpusPerLeaf` GPUs each, every
 * leaf linked to every one of `spines` spine switches by `linksPerSpine`
 * parallel links (gpus = leaves x gpusPerLeaf).
 * With a host link, every GPU reaches its own NIC over it (a PCIe hop), and the
 * NIC carries the fabric link; without, the GPU's NIC is part of the GPU node.
 * Later kinds (fat-tree, rail-optimized, dragonfly+) extend this struct.
 */
struct TopologySpec
{
    SpecLocation where;        //!< location of the topology mapping (file of the topology)
    std::string name;          //!< free-form name (defaults to the file's stem)
    std::string kind;          //!< "single-switch"
    uint32_t gpus{0};          //!< number of GPU endpoints
    uint32_t leaves{0};        //!< leaf-spine: leaf switches
    uint32_t spines{0};        //!< leaf-spine: spine switches
    uint32_t gpusPerLeaf{0};   //!< leaf-spine: GPUs on each leaf
    uint32_t linksPerSpine{1}; //!< leaf-spine: parallel links from each leaf to each spine
    LinkProfile link;          //!< the links' profile: a preset with key-by-key overrides
    bool hasHostLink{false};   //!< GPUs reach their NIC over a host link (PCIe) instead of directly
    LinkProfile hostLink;      //!< the GPU-to-NIC link's profile, when hasHostLink
};

/**
 * \ingroup ai-fabric
 * \brief One collective operation of the traffic description.
 */
struct CollectiveSpec
{
    SpecLocation where;          //!< location of this collective's mapping
    std::string name;            //!< unique name within the traffic file
    std::string op;              //!< "all-reduce", "reduce-scatter", "all-gather"
    std::string algorithm;       //!< "ring"
    uint64_t bytes{0};           //!< buffer size S, bytes (nccl-tests convention per op)
    std::vector<uint32_t> ranks; //!< GPU indices taking part, in ring order; empty = all GPUs
    SpecLocation ranksWhere;     //!< location of the ranks value (for errors found later)
    Time start;                  //!< when the collective is issued
};

/**
 * \ingroup ai-fabric
 * \brief The traffic a scenario puts on the fabric (traffic/NAME.yaml).
 */
struct TrafficSpec
{
    SpecLocation where;                      //!< location of the traffic mapping
    std::string name;                        //!< free-form name (defaults to the file's stem)
    std::vector<CollectiveSpec> collectives; //!< collectives, in file order
};

/**
 * \ingroup ai-fabric
 * \brief A whole scenario (examples/NAME.yaml): topology + traffic + run options.
 */
struct ScenarioSpec
{
    SpecLocation where; //!< the scenario file
    std::string name;   //!< scenario name (defaults to the file's stem)
    uint64_t seed{1};   //!< RngSeed for every random stream of the run
    Time stopTime;      //!< simulated-time limit; the run is cut off (and fails) past it
    std::string forwarding{"ecmp"}; //!< choice among equal-cost ports: ecmp, spray, adaptive
    TopologySpec topology;          //!< the fabric
    TrafficSpec traffic;            //!< the traffic
};

} // namespace ns3

#endif /* AI_FABRIC_SCENARIO_SPEC_H */
