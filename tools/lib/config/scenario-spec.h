/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SCENARIO_SPEC_H
#define AI_FABRIC_SCENARIO_SPEC_H

#include "ns3/collective-algorithm.h"
#include "ns3/ecmp-routing.h"
#include "ns3/link-profile.h"
#include "ns3/nccl-protocol.h"
#include "ns3/nstime.h"
#include "ns3/spec-error.h"
#include "ns3/spec-names.h"
#include "ns3/topology-spec.h"
#include "ns3/training-workload.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One collective operation of the traffic description.
 */
struct CollectiveSpec
{
    SpecLocation where;                        //!< location of this collective's mapping
    std::string name;                          //!< unique name within the traffic file
    CollectiveOp op{CollectiveOp::ALL_REDUCE}; //!< the operation (`op:`, CollectiveOpNames())
    std::string algorithm;       //!< CollectiveAlgorithmNames(): "ring", "tree", ... (the name an
                                 //!< algorithm registers, CreateCollectiveAlgorithm())
    bool algorithmAuto{false};   //!< `algorithm: auto` on all-reduce: NCCL's choice between ring
                                 //!< and tree per size (ResolveProtocol()); `algorithm` is ring
    uint64_t bytes{0};           //!< buffer size S, bytes (nccl-tests convention per op)
    std::vector<uint32_t> ranks; //!< GPU indices taking part, in ring order; empty = all GPUs
    SpecLocation ranksWhere;     //!< location of the ranks value (for errors found later)
    Time start;                  //!< when the collective is issued
    uint32_t channels{WorkloadGroup::AUTO_CHANNELS}; //!< parallel channels (NCCL rings/trees),
                                                     //!< each its own QP; AUTO_CHANNELS: NCCL's
                                                     //!< count (`channels: auto`, the default)
    RingOrder ringOrder{RingOrder::TOPOLOGY};        //!< `ring_order:` topology (NCCL) or ranks
    uint64_t chunkBytes{512 * 1024};     //!< pipelining unit (NCCL Simple: 512 KiB); 0: whole steps
    Protocol protocol{Protocol::AUTO};   //!< `protocol:` (AUTO: NCCL's choice by size)
    uint32_t slots{0};                   //!< `slots:` per connection, when given
    Time launchLatency;                  //!< `launch_latency:`, when given
    Time hopLatencyIntra;                //!< `nvlink_hop_latency:`, when given
    Time hopLatencyInter;                //!< `net_hop_latency:`, when given
    ProtocolOverrides given;             //!< which of chunk, slots and latencies were given
    double kernelBytesPerSecond{0};      //!< `kernel_bandwidth:` per rank, bytes/s; 0: no limit
    double gammaSecondsPerByte{0};       //!< reduction cost, seconds per reduced byte
    uint32_t root{0};                    //!< broadcast/reduce root: position in ranks
    uint32_t ranksPerNode{0};            //!< hierarchical: GPUs per node (ranks node-major)
    std::vector<uint64_t> matrix;        //!< all-to-all: P x P bytes, row = source (empty: uniform)
    std::vector<uint32_t> transferSrc;   //!< send-recv: source positions in ranks
    std::vector<uint32_t> transferDst;   //!< send-recv: destination positions in ranks
    std::vector<uint64_t> transferBytes; //!< send-recv: payload bytes per transfer
    bool sweep{false};                   //!< nccl-tests-style sweep: one run per size
    uint64_t sweepMinBytes{0};           //!< sweep: first size, bytes
    uint64_t sweepMaxBytes{0};           //!< sweep: last size (inclusive when reached), bytes
    uint32_t sweepFactor{2};             //!< sweep: each size is the previous times this
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
    bool hasTraining{false};                 //!< a training job (the `training:` mapping)
    TrainingSpec training;                   //!< the job, when hasTraining
    SpecLocation trainingWhere;              //!< location of the `training:` mapping
    std::string locality{"leaf"};            //!< locality domain for expert placement:
                                             //!< leaf, server or group (GpuLocalityDomains)
    uint32_t iterations{1};                  //!< training iterations, chained per rank
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
    /// `seeds:`, the seeds of a multi-seed run (distinct, in file order); empty without the
    /// key. When given, `seed` is the first of them (what a single run of it uses).
    std::vector<uint32_t> seeds;
    SpecLocation seedsWhere; //!< the `seeds` key (the file without it)
    Time stopTime;           //!< simulated-time limit; the run is cut off (and fails) past it
    ForwardingMode forwarding{ForwardingMode::ECMP}; //!< choice among equal-cost ports
    /// `ecmp_hash:` the fields ECMP hashes, a mask of EcmpRouting::HashField (default: the
    /// 5-tuple, src dst qp)
    uint32_t ecmpHash{EcmpRouting::HASH_5_TUPLE};
    /// `qps_per_connection:` queue pairs per connection (NCCL_IB_QPS_PER_CONNECTION)
    uint32_t qpsPerConnection{1};
    /// `split_data_on_qps:` every message split over the connection's queue pairs
    /// (NCCL_IB_SPLIT_DATA_ON_QPS); else messages take them round robin
    bool splitDataOnQps{false};
    /// ns-3 event scheduler (`scheduler:`, a name of SchedulerNames()); empty: the default
    std::string scheduler;
    /// Congestion control; AUTO is resolved by ResolveCongestionControl() (DCQCN where links
    /// mark ECN, i.e. RoCE; else none).
    CongestionControlSetting congestionControl{CongestionControlSetting::AUTO};
    /// ns3::Dcqcn attributes to override (attribute name, value as an ns-3 string).
    std::vector<std::pair<std::string, std::string>> dcqcnAttributes;
    /// ns3::AdaptiveRouting attributes (`adaptive_routing:`; name, value as an ns-3 string).
    std::vector<std::pair<std::string, std::string>> adaptiveRoutingAttributes;
    /// ns3::UgalRouting attributes (`adaptive_routing:` ugal_ keys).
    std::vector<std::pair<std::string, std::string>> ugalRoutingAttributes;
    /// Transport reliability; AUTO is resolved by ResolveReliability() (go-back-N if any
    /// link is lossy, else none).
    ReliabilitySetting reliability{ReliabilitySetting::AUTO};
    /// Further ns3::RdmaTransport attributes (name, value as an ns-3 string).
    std::vector<std::pair<std::string, std::string>> transportAttributes;
    TopologySpec topology; //!< the fabric
    TrafficSpec traffic;   //!< the traffic
    /// Time-series bin width (`results: sample_interval`); 0 = automatic bins
    /// (docs/results-format.md, timeseries.csv).
    Time sampleInterval{0};
    /// Training flows written to flows.csv (`results: flows`): group kinds ("tp", "dp",
    /// "moe-dispatch", ...; TrainingGroupInfo::KindName) or "all"; empty: none unless
    /// resultFlowSample is given (then every kind)
    std::vector<std::string> resultFlowKinds;
    double resultFlowSample{1.0};      //!< share of the chosen training flows written (0, 1]
    bool resultFlowSampleGiven{false}; //!< `results: flow_sample` was given
    SpecLocation resultFlowsWhere;     //!< where `results: flows` (or flow_sample) was given
    std::vector<SpecLocation> resultFlowKindsWhere; //!< where each of resultFlowKinds was written

    /// Straggler attribution (`attribution:`); AUTO is resolved by ResolveAttribution() (on
    /// up to ATTRIBUTION_AUTO_MAX_MESSAGES messages).
    AttributionSetting attribution{AttributionSetting::AUTO};
    uint32_t attributionFlows{3}; //!< slowest flows reported per collective (training: per kind)
    /// Packet capture (`capture:`, and `--pcap`): port names "node->peer".
    std::vector<std::string> capturePorts;
    std::vector<SpecLocation> capturePortsWhere; //!< where each port was named
    uint64_t captureMaxPackets{10000};           //!< packets captured per port at most
    uint32_t captureSnapBytes{128};              //!< bytes kept of each packet at most

    /// Watchdog: messages open and no packet moved nor op completed for this long stops
    /// the run as stalled (`watchdog: {no_progress: ...}`; default 50 ms).
    Time watchdogNoProgress{MilliSeconds(50)};
    SpecLocation watchdogWhere; //!< where `watchdog` is (the scenario file if absent)
    /// Fidelity knob (`fidelity: {cell_packets: N}`, `--cell-packets N`): one simulated
    /// packet carries up to N MTU packets' payload with all their wire bytes; 1 (the
    /// default) is full fidelity. docs/performance.md states its measured error.
    uint32_t cellPackets{1};
    SpecLocation fidelityWhere; //!< where the knob is set (the scenario file if absent)
};

} // namespace ns3

#endif /* AI_FABRIC_SCENARIO_SPEC_H */
