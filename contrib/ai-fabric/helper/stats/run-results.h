/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RUN_RESULTS_H
#define AI_FABRIC_RUN_RESULTS_H

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One message (flow) of the run, timed in three parts (docs/results-format.md,
 * "Message timing"): posted -> eligible (the sender's own backlog: the messages before it on
 * its queue pair), eligible -> first byte on the wire, first byte -> last byte delivered.
 */
struct FlowRecord
{
    uint64_t id{0};          //!< flow id, in issue order
    std::string collective;  //!< name of the collective (or training group) it belongs to
    uint32_t step{0};        //!< algorithm step that issued it
    uint32_t src{0};         //!< source GPU index
    uint32_t dst{0};         //!< destination GPU index
    uint64_t bytes{0};       //!< payload bytes
    uint64_t wireBytes{0};   //!< bytes on the wire: the payload in its protocol's lines
                             //!< (WireBytes(); equal to bytes for Simple or no protocol)
    double postedS{0};       //!< time the message was posted to its queue pair (its
                             //!< dependencies and slots done, plus its protocol's post
                             //!< latency and its kernel's copy), seconds
    double eligibleS{-1};    //!< time it became the head of its queue pair (the messages before
                             //!< it sent), from when it could leave, seconds (-1: unknown: the
                             //!< posted time is used)
    double firstByteS{-1};   //!< time its first packet started leaving the source, seconds
    double endS{0};          //!< time its last byte arrived, seconds
    double sharedS{0};       //!< from eligible to its last packet leaving, the time the source
                             //!< port spent sending the sender's other packets while this
                             //!< message waited for its turn in the round robin, seconds
    double idealS{0};        //!< its FCT alone on an empty fabric (MessageIdealTime()), seconds
    uint32_t op{UINT32_MAX}; //!< its workload op (internal: not written)

    /// \return when it could leave: eligibleS, or postedS if unknown
    double EligibleS() const
    {
        return eligibleS >= 0 ? eligibleS : postedS;
    }

    /// \return flow completion time, from eligible to the last byte delivered, seconds
    double FctS() const
    {
        return endS - EligibleS();
    }

    /// \return the sender's own backlog: posted to eligible, seconds
    double BacklogS() const
    {
        return EligibleS() - postedS;
    }

    /// \return (FctS() - sharedS) / idealS: 1 = as fast as alone on an empty fabric with the
    /// sender's port to itself; NaN without an ideal
    double Slowdown() const
    {
        return idealS > 0 ? (FctS() - sharedS) / idealS : std::numeric_limits<double>::quiet_NaN();
    }
};

/**
 * \ingroup ai-fabric
 * \brief Tail percentiles of a set of samples (fabric-stats Percentile(), R-7).
 */
struct TailSummary
{
    uint64_t count{0}; //!< samples
    double p50{0};     //!< median
    double p90{0};     //!< 90th percentile
    double p99{0};     //!< 99th percentile
    double p999{0};    //!< 99.9th percentile
    double max{0};     //!< largest sample
};

/**
 * \ingroup ai-fabric
 * \brief The straggler of a group of ranks: the rank that finished last beside
 * the median rank (StragglerOf(), fabric-stats.h).
 */
struct StragglerFigure
{
    bool valid{false};           //!< there was at least one rank
    uint32_t position{0};        //!< the slowest rank's position (first on a tie)
    uint32_t gpu{0};             //!< its GPU index
    double finishS{0};           //!< its finish time, seconds (absolute)
    double medianS{0};           //!< the median finish time over ranks, seconds (absolute)
    double overMedian{0};        //!< (finish - start) / (median - start); NaN if median == start
    double minusMedianS{0};      //!< finish - median, seconds
    bool scheduled{false};       //!< the fields below were measured against the schedule
    bool fabric{false};          //!< a straggler: a rank the fabric delayed more than the median
                                 //!< rank by over STRAGGLER_SHARE of its own time
    uint32_t delayedPosition{0}; //!< the rank the fabric delayed most (first on a tie)
    uint32_t delayedGpu{0};      //!< its GPU index
    double delayS{0};            //!< its finish less its finish without the fabric's delays, s
    double medianDelayS{0};      //!< the median rank's such delay, seconds
    double lastDelayS{0};        //!< the last rank's such delay, seconds
};

/**
 * \ingroup ai-fabric
 * \brief The fabric-aware bound of a group of messages (FabricBound; docs/collectives.md,
 * "Fabric-aware bound"): the busiest link's wire bytes over its rate, plus the launch latency and
 * the quickest message's alpha on its paths.
 */
struct BoundFigure
{
    double seconds{-1};    //!< bandwidthS + latencyS (negative: none)
    double bandwidthS{0};  //!< the bottleneck link's wire bytes / rate, seconds
    double latencyS{0};    //!< the launch latency and the quickest message's alpha, seconds
    std::string link;      //!< the bottleneck: "node->peer" (empty: no link crossed)
    std::string tierClass; //!< its tier class (gpu-leaf, leaf-spine, nvlink, ...)
    double wireBytes{0};   //!< the bytes the group puts on it, with headers
    double rateBps{0};     //!< its rate, bits per second
};

/**
 * \ingroup ai-fabric
 * \brief One collective's outcome beside its analytic estimate.
 */
struct CollectiveResult
{
    std::string name;               //!< collective name
    std::string op;                 //!< operation
    std::string algorithm;          //!< algorithm
    std::string protocol;           //!< NCCL protocol it ran with (`protocol: auto` resolved)
    uint32_t ranks{0};              //!< number of ranks
    uint64_t bytes{0};              //!< buffer size S, bytes
    double startS{0};               //!< issue time, seconds
    double endS{0};                 //!< time the last rank finished, seconds
    double durationS{0};            //!< endS - startS, seconds
    double algbwGBps{0};            //!< S / duration, GB/s (1e9 B/s), nccl-tests definition
    double busbwGBps{0};            //!< algbw times the op's bus factor (nccl-tests PERFORMANCE.md)
    double analyticS{0};            //!< alpha-beta estimate for the same fabric, seconds
    double alphaS{0};               //!< alpha used by the estimate (per-step latency), seconds;
                                    //!< hierarchical: between servers, along a rail
    double betaSPerByte{0};         //!< beta used by the estimate (1/bandwidth), seconds per byte
    double alphaIntraS{0};          //!< hierarchical: alpha inside a server, seconds (else 0)
    double betaIntraSPerByte{0};    //!< hierarchical: beta inside a server, s/B (else 0)
    BoundFigure bound;              //!< the fabric-aware bound
    uint32_t group{0};              //!< index of its group in the workload
    std::vector<uint32_t> rankGpus; //!< GPU index of each rank, in rank order
    std::vector<uint64_t> bytesSentPerRank; //!< payload bytes each rank sent, in rank order
    std::vector<double> finishSPerRank;     //!< time each rank finished (last receive), seconds
    /// when each rank would have finished had the fabric not delayed the run's messages
    /// (ScheduleReplay), seconds; empty without a replay
    std::vector<double> scheduleFinishSPerRank;
    TailSummary rankFinish;    //!< finish-time percentiles (absolute) of the ranks that receive, s
    StragglerFigure straggler; //!< slowest receiving rank vs the median receiving rank
    TailSummary fct;           //!< FCT percentiles of its flows (from eligible), seconds
    TailSummary slowdown;      //!< slowdown ((FCT - shared) / ideal) percentiles of its flows
    TailSummary backlog;       //!< posted-to-eligible waits of its flows (the senders' own
                               //!< backlog), seconds
    TailSummary shared;        //!< its flows' shared port time (the senders' other packets), s
};

/**
 * \ingroup ai-fabric
 * \brief One port (one direction of one link) at the end of the run.
 */
struct PortRecord
{
    std::string node;       //!< name of the node that transmits on this port
    std::string peer;       //!< name of the node at the other end
    std::string tier;       //!< link class: "gpu-nic", "nic-switch", "switch-switch", ...
    std::string technology; //!< the link's technology
    uint64_t txPackets{0};  //!< packets transmitted
    uint64_t txBytes{0};    //!< wire bytes transmitted
    double busyS{0};        //!< time spent serializing, seconds
    uint64_t drops{0};      //!< packets dropped because this port's queue or the buffer was full
    uint64_t peakQueueBytes{0}; //!< largest egress queue, wire bytes
    uint64_t pausesReceived{0}; //!< PFC XOFF frames received (this port was paused)
    double pausedS{0};          //!< time lanes of this port were paused, seconds
    double stallS{0};           //!< time this port had packets but flow control held them, seconds
    uint32_t portId{0};         //!< index in RunResults::ports (link i: 2i = a->b, 2i+1 = b->a)
    std::string tierClass;      //!< TierClassOf(): nvlink, pcie, gpu-leaf, leaf-spine, ...
    uint64_t ecnMarks{0};       //!< packets marked CE on their way out of this port
    uint64_t p99QueueBytes{0};  //!< time-weighted p99 of the egress queue over the run, bytes
    double rateBps{0};          //!< the link's data rate, bits per second
};

/**
 * \ingroup ai-fabric
 * \brief The ports of one tier class, aggregated (SummarizeTierClasses()).
 */
struct TierClassRecord
{
    std::string tierClass;        //!< the class
    uint32_t ports{0};            //!< ports (link directions) of the class
    uint32_t activePorts{0};      //!< of those, ports that transmitted at least one packet
    uint64_t txBytes{0};          //!< wire bytes transmitted
    double meanUtilization{0};    //!< mean over the class's ports of busy / run time
    double maxUtilization{0};     //!< the busiest port's busy / run time
    uint64_t peakQueueBytes{0};   //!< the largest egress queue of any port
    uint64_t maxP99QueueBytes{0}; //!< the largest time-weighted p99 queue of any port
    uint64_t pausesReceived{0};   //!< PFC XOFF frames received
    double pausedS{0};            //!< paused time, summed over ports and lanes, seconds
    double stallS{0};             //!< flow-control stall time, summed over ports, seconds
    uint64_t ecnMarks{0};         //!< packets marked CE
    uint64_t drops{0};            //!< packets dropped
};

/**
 * \ingroup ai-fabric
 * \brief One (bin, port) of the time series (timeseries.csv).
 */
struct TimeSeriesRow
{
    double timeS{0};           //!< bin start, seconds
    double lengthS{0};         //!< bin length, seconds (the last bin ends with the run)
    uint32_t portId{0};        //!< PortRecord::portId
    double utilization{0};     //!< busy share of the bin, 0..1
    uint64_t queueBytes{0};    //!< egress queue at the bin's end, wire bytes
    uint64_t queueMaxBytes{0}; //!< largest egress queue during the bin, wire bytes
};

/**
 * \ingroup ai-fabric
 * \brief The congestion-control state of one NIC port in one time bin (the rate columns of
 * timeseries.csv): its queue pairs held below line rate at the bin's end, and the CNPs of
 * the bin.
 */
struct RateSeriesRow
{
    double timeS{0};          //!< bin start, seconds (as TimeSeriesRow::timeS)
    uint32_t portId{0};       //!< PortRecord::portId of the NIC port
    uint32_t limitedQps{0};   //!< queue pairs on the port below line rate at the bin's end
    double minRateGbps{0};    //!< the lowest of their rates (line rate when none), Gb/s
    double meanRateGbps{0};   //!< the mean of their rates (line rate when none), Gb/s
    uint64_t cnpsSent{0};     //!< CNPs the endpoint sent out of this port during the bin
    uint64_t cnpsReceived{0}; //!< CNPs received during the bin for queue pairs on this port
};

/**
 * \ingroup ai-fabric
 * \brief One queue pair that congestion control touched (qps.csv): its sender received a
 * CNP, or its receiver saw a packet of it marked ECN CE.
 */
struct QueuePairRecord
{
    uint32_t src{0};           //!< source endpoint
    uint32_t dst{0};           //!< destination endpoint
    uint16_t qp{0};            //!< queue pair index
    bool controlled{false};    //!< the sender gave it a controller (it received a CNP)
    uint64_t dataPackets{0};   //!< data packets its messages were cut into (controlled only)
    uint64_t ecnMarked{0};     //!< its data packets the receiver got marked CE
    uint64_t cnpsSent{0};      //!< CNPs the receiver sent to it
    uint64_t cnpsReceived{0};  //!< CNPs the sender received for it
    uint64_t rateCuts{0};      //!< changes of its rate to a lower one
    uint64_t rateIncreases{0}; //!< changes of its rate to a higher one
    double minRateGbps{0};     //!< lowest rate it was held to, Gb/s (line rate if never cut)
    double finalRateGbps{0};   //!< its rate when the run ended, Gb/s
    double lineRateGbps{0};    //!< its port's line rate, Gb/s
};

/**
 * \ingroup ai-fabric
 * \brief Fabric-wide flow-control, loss and congestion-control counters, summed over every
 * port and transport.
 */
struct FabricCounters
{
    uint64_t drops{0};           //!< packets dropped by switches (full buffer)
    uint64_t losslessDrops{0};   //!< of those, on credit or PFC ports (an invariant violation)
    uint64_t pauseFrames{0};     //!< PFC XOFF frames sent
    double pausedS{0};           //!< time lanes spent paused, summed over ports and lanes, seconds
    double stallS{0};            //!< time ports had packets but flow control held them, seconds
    uint64_t ecnMarks{0};        //!< packets marked CE
    uint64_t peakBufferBytes{0}; //!< largest shared-buffer occupancy of any switch, bytes
    uint64_t ecnMarkedReceived{0};      //!< data packets receivers got marked CE
    uint64_t cnpsSent{0};               //!< CNPs sent (notification points)
    uint64_t cnpsReceived{0};           //!< CNPs received (reaction points)
    uint64_t rateCuts{0};               //!< queue pairs' rate changes to a lower rate
    uint64_t rateIncreases{0};          //!< queue pairs' rate changes to a higher rate
    uint64_t controlledQps{0};          //!< queue pairs that got a controller (received a CNP)
    double minRateGbps{0};              //!< lowest rate any queue pair was held to, Gb/s (0: none)
    uint64_t retransmittedPackets{0};   //!< data packets sent again (go-back-N)
    uint64_t retransmissionTimeouts{0}; //!< timeouts that rewound a queue pair
    uint64_t outOfOrderDrops{0}; //!< data packets receivers dropped for arriving ahead of the
                                 //!< expected PSN (beyond the reorder window)

    /// \return whether go-back-N recovered anything (a resend, a timeout or an out-of-order
    /// drop): the printed summary and report.md show the recovery figures only then
    bool AnyRecovery() const
    {
        return retransmittedPackets > 0 || outOfOrderDrops > 0 || retransmissionTimeouts > 0;
    }
};

/**
 * \ingroup ai-fabric
 * \brief One rank's share of one training iteration (SummarizeTrainingRun()):
 * computeS + pipelineIdleS + skewS + exposed*S = the iteration's step time.
 */
struct TrainingRankResult
{
    uint32_t iteration{0};      //!< iteration, from 0
    uint32_t rank{0};           //!< canonical rank t + TP (s + PP d)
    uint32_t gpu{0};            //!< GPU index
    uint32_t tp{0};             //!< tensor rank t
    uint32_t pp{0};             //!< pipeline stage s
    uint32_t dp{0};             //!< data-parallel replica d
    double computeS{0};         //!< compute ops, seconds
    double pipelineIdleS{0};    //!< pipeline bubble (waiting for upstream compute, done early:
                                //!< the fill and drain), seconds; 0 without PP
    double skewS{0};            //!< without PP: waiting for the other ranks to start or end the
                                //!< iteration (not a bubble), seconds
    double fabricDelayS{0};     //!< how much later it ended than without the fabric's delays
                                //!< to its messages (ScheduleReplay), seconds
    double exposedTensorS{0};   //!< waiting for TP collectives, seconds
    double exposedPipelineS{0}; //!< waiting for pipeline messages on the wire, seconds
    double exposedExpertS{0};   //!< waiting for MoE all-to-alls, seconds
    double exposedDataS{0};     //!< after the last compute, waiting for gradient buckets, seconds
    double endS{0};             //!< when the rank's iteration ended (absolute), seconds

    /// \return the exposed communication of every kind, seconds
    double ExposedS() const
    {
        return exposedTensorS + exposedPipelineS + exposedExpertS + exposedDataS;
    }
};

/**
 * \ingroup ai-fabric
 * \brief One training iteration: its step time and the mean rank breakdown.
 */
struct TrainingIterationResult
{
    uint32_t iteration{0};      //!< iteration, from 0
    double startS{0};           //!< earliest rank start, seconds
    double endS{0};             //!< latest rank end, seconds
    double stepS{0};            //!< endS - startS, seconds
    double computeS{0};         //!< mean over ranks of the compute time, seconds
    double pipelineIdleS{0};    //!< mean pipeline idle (bubble), seconds
    double skewS{0};            //!< mean rank skew (no pipeline), seconds
    double exposedTensorS{0};   //!< mean exposed TP communication, seconds
    double exposedPipelineS{0}; //!< mean exposed PP communication, seconds
    double exposedExpertS{0};   //!< mean exposed EP (MoE all-to-all) communication, seconds
    double exposedDataS{0};     //!< mean exposed DP (gradient bucket) communication, seconds
    double achievedMfu{0};      //!< spec MFU x mean compute / step: the job's effective MFU
    TailSummary rankEnd;        //!< percentiles of the ranks' end times (absolute), seconds
    StragglerFigure straggler;  //!< the rank that ended last vs the median (from startS)

    /// \return mean exposed communication of every kind, seconds
    double ExposedS() const
    {
        return exposedTensorS + exposedPipelineS + exposedExpertS + exposedDataS;
    }
};

/**
 * \ingroup ai-fabric
 * \brief The training-generated groups of one kind (TP, PP, DP, ...), aggregated.
 */
struct TrainingCommResult
{
    std::string kind;            //!< "tp", "pp-forward", "pp-backward", "dp", "expert-dp",
                                 //!< "moe-dispatch", "moe-combine", "moe-combine-backward",
                                 //!< "moe-dispatch-backward"
    uint64_t groups{0};          //!< groups (collectives, pipeline messages) of this kind
    uint64_t messages{0};        //!< messages (flows) they sent
    uint64_t bytes{0};           //!< payload bytes they sent
    double busyS{0};             //!< sum over groups of first post to last arrival, seconds
    double maxS{0};              //!< the longest such group, seconds
    TailSummary duration;        //!< its groups' durations, seconds
    TailSummary fct;             //!< FCT percentiles of its messages, seconds
    TailSummary slowdown;        //!< slowdown percentiles of its messages
    TailSummary rankSpan;        //!< every rank's span in every group of the kind, seconds
    TailSummary simOverAnalytic; //!< its groups' duration / formula
    TailSummary simOverBound;    //!< its groups' duration / fabric-aware bound
};

/**
 * \ingroup ai-fabric
 * \brief One group of a training job (a TP all-reduce, a pipeline message, a DP bucket, an MoE
 * dispatch or combine): its time, tails, formula and bound (collectives.csv rows with a
 * `kind`).
 */
struct TrainingGroupResult
{
    std::string name;      //!< group name
    std::string kind;      //!< TrainingGroupInfo::KindName()
    uint32_t iteration{0}; //!< iteration, from 0
    std::string op;        //!< operation
    std::string algorithm; //!< algorithm
    std::string protocol;  //!< NCCL protocol it ran with
    uint32_t ranks{0};     //!< ranks
    uint64_t bytes{0};     //!< buffer size S, bytes
    uint64_t messages{0};  //!< messages it sent
    double startS{0};      //!< its first message's post, seconds
    double endS{0};        //!< its last message's arrival, seconds
    double durationS{0};   //!< endS - startS, seconds
    double analyticS{-1};  //!< alpha-beta formula (CollectiveTime FORMULA), seconds
    BoundFigure bound;     //!< the fabric-aware bound
    TailSummary fct;       //!< FCT percentiles of its messages (from eligible), seconds
    TailSummary slowdown;  //!< slowdown percentiles of its messages
    TailSummary rankSpan;  //!< per GPU in it: first post to last arrival of the messages it
                           //!< sends or receives (its trace.json span), seconds
};

/**
 * \ingroup ai-fabric
 * \brief One rank's groups of one kind in one iteration (rank-phases.csv): how long the
 * rank spent in each, and the FCT of the messages it received.
 */
struct TrainingRankPhase
{
    uint32_t iteration{0}; //!< iteration, from 0
    uint32_t rank{0};      //!< canonical rank
    uint32_t gpu{0};       //!< GPU index
    std::string kind;      //!< group kind
    uint64_t groups{0};    //!< groups of this kind the rank took part in
    uint64_t messages{0};  //!< messages it received in them
    uint64_t bytes{0};     //!< their payload bytes
    TailSummary span;      //!< its span in each group (TrainingGroupResult::rankSpan), seconds
    TailSummary fct;       //!< FCT of the messages it received, seconds
    TailSummary slowdown;  //!< their slowdown
};

/**
 * \ingroup ai-fabric
 * \brief A training run: the job, every iteration, every rank, the traffic.
 */
struct TrainingResult
{
    std::string name;         //!< job name (TrainingSpec::name)
    std::string schedule;     //!< pipeline schedule
    uint32_t tp{1};           //!< TP
    uint32_t pp{1};           //!< PP
    uint32_t dp{1};           //!< DP
    uint32_t ep{1};           //!< EP
    uint32_t microBatches{1}; //!< micro-batches per iteration
    double peakFlops{0};      //!< peak FLOP/s per GPU
    double mfu{0};            //!< MFU of the compute ops (spec)
    double parameters{0};     //!< total parameters N
    bool complete{true};      //!< every iteration finished (else the lists below are empty)
    std::vector<TrainingIterationResult> iterations; //!< per iteration
    std::vector<TrainingRankResult> ranks;           //!< per iteration, then canonical rank
    std::vector<TrainingCommResult> communication;   //!< per group kind that occurred
    std::vector<TrainingGroupResult> groups;         //!< every communication group, in order
    std::vector<TrainingRankPhase> rankPhases;       //!< per iteration, rank and kind
    bool moe{false};                                 //!< the job has MoE layers
    uint64_t moeTokenCopies{0};                      //!< token copies routed, all iterations
    uint64_t moeDropped{0};                          //!< copies dropped by the expert capacity
    uint64_t moeSameRank{0};                         //!< kept copies that stayed on their GPU
    uint64_t moeSameDomain{0};   //!< kept copies that stayed in their locality domain
    uint64_t moeNetworkBytes{0}; //!< bytes the MoE all-to-alls put on the network
    std::string locality;        //!< locality level of the domains

    /// \return sameDomain / kept copies (1 when none kept)
    double MoeLocalFraction() const
    {
        const uint64_t kept = moeTokenCopies - moeDropped;
        return kept == 0 ? 1.0 : static_cast<double>(moeSameDomain) / kept;
    }
};

/**
 * \ingroup ai-fabric
 * \brief One complete ("X") event of the Chrome trace (trace.json).
 */
struct TraceEvent
{
    std::string name; //!< what ran: a compute op or a group's name
    uint32_t pid{0};  //!< GPU index
    uint32_t tid{0};  //!< lane: index into RunResults::traceLanes
    double tsUs{0};   //!< start, microseconds
    double durUs{0};  //!< duration, microseconds
};

/**
 * \ingroup ai-fabric
 * \brief One size of an nccl-tests-style sweep (its own simulation).
 */
struct SweepRow
{
    uint64_t bytes{0};         //!< size S, bytes
    uint64_t count{0};         //!< elements: S / 4 (float32)
    std::string type{"float"}; //!< element type
    std::string op;            //!< operation
    std::string algorithm;     //!< algorithm
    std::string protocol;      //!< NCCL protocol it ran with (`protocol: auto` resolved)
    uint32_t ranks{0};         //!< ranks
    double timeUs{0};          //!< simulated duration, microseconds
    double algbwGBps{0};       //!< S / time, GB/s
    double busbwGBps{0};       //!< algbw x the op's bus factor, GB/s
    double analyticUs{0};      //!< alpha-beta estimate, microseconds
    double simOverAnalytic{0}; //!< timeUs / analyticUs (NaN without an estimate)
    bool complete{true};       //!< the size's run completed
};

/**
 * \ingroup ai-fabric
 * \brief What a bisection cut's links carried in one direction during a collective's window
 * (MeasureCutDirection(), helper/bisection-meter.h). Gb/s, one direction.
 */
struct BisectionDirectionRecord
{
    uint64_t wireBytes{0};            //!< wire bytes the cut's ports sent this way
    uint64_t payloadBytes{0};         //!< of those, payload
    uint64_t crossingWireBytes{0};    //!< wire bytes of packets between the two sides
    uint64_t crossingPayloadBytes{0}; //!< payload of packets between the two sides
    double achievedGbps{0};           //!< payloadBytes x 8 / window, Gb/s
    double crossingGbps{0};           //!< crossingPayloadBytes x 8 / window, Gb/s
    double crossingShare{0};          //!< crossingPayloadBytes / payloadBytes (NaN if none)
    double utilizationMean{0};        //!< mean over the cut's elements of busy share of window
    double utilizationMax{0};         //!< the busiest element's
};

/**
 * \ingroup ai-fabric
 * \brief Throughput an all-to-all or permutation collective achieved across the
 * topology analyzer's bisection cut, measured on the links of the cut's minimum cut,
 * beside the cut's capacity (MakeBisectionRecord(), helper/bisection-meter.h), and the
 * flows' view of it. Gb/s, one direction.
 */
struct BisectionRecord
{
    std::string collective;            //!< the collective
    std::string op;                    //!< its operation
    std::string split;                 //!< the split in words
    uint32_t sideAGpus{0};             //!< GPUs on side A
    uint32_t sideBGpus{0};             //!< GPUs on side B
    std::string cut;                   //!< where the minimum cut lies, in words
    std::vector<std::string> cutPorts; //!< its elements, side A to side B ("leaf0->spine1")
    uint64_t crossBytes{0};    //!< flows: payload of the flows between the sides, both directions
    uint64_t bytesAtoB{0};     //!< flows: side A to side B
    uint64_t bytesBtoA{0};     //!< flows: side B to side A
    double windowS{0};         //!< the window: the collective's duration, seconds
    bool windowComplete{true}; //!< the window ended with the collective (not the run)
    double analyticGbps{0};    //!< the cut's max-flow capacity, Gb/s, one direction
    double formulaGbps{0};     //!< the family's closed form, Gb/s (0 without one)
    BisectionDirectionRecord aToB; //!< the cut's links, side A to side B
    BisectionDirectionRecord bToA; //!< the cut's links, side B to side A
    bool busierAtoB{true};         //!< side A to side B carried at least as much payload
    double achievedGbps{0};        //!< the busier direction's payload on the cut's links, Gb/s
    double ratio{0};               //!< achievedGbps / analyticGbps
    double crossingGbps{0};        //!< the busier direction's payload between the sides, Gb/s
    double crossingShare{0};       //!< the busier direction's crossing share (NaN if none)
    double crossingRatio{0};       //!< crossingGbps / analyticGbps
    double utilizationMean{0};     //!< the busier direction's mean utilization
    double utilizationMax{0};      //!< the busier direction's busiest element
    double flowAchievedGbps{0};    //!< flows: busier direction's crossing payload rate, Gb/s
    double flowRatio{0};           //!< flows: flowAchievedGbps / analyticGbps
};

/**
 * \ingroup ai-fabric
 * \brief One contributor to a straggler's extra delay: an egress port on the path
 * of its last packet, or the source's injection (docs/results-format.md).
 */
struct StragglerHop
{
    std::string port;        //!< "node->peer", or "source-start"/"source-rate"
    std::string node;        //!< transmitting node
    std::string peer;        //!< receiving node ("" for a source entry)
    int64_t link{-1};        //!< graph link index (-1 for a source entry)
    int64_t portIndex{-1};   //!< index of the port in its switch (-1: not a switch port)
    int64_t portRecord{-1};  //!< index in RunResults::ports (-1 for a source entry)
    std::string tier;        //!< tier class of the port ("source" for a source entry)
    uint32_t position{0};    //!< 0 = source port, 1.. = egress ports in path order
    double queueS{0};        //!< the last packet's plain queueing here, seconds
    double pauseS{0};        //!< its wait while PFC paused this port's lane, seconds
    double creditStallS{0};  //!< its wait while this port stalled for credits, seconds
    double backPressureS{0}; //!< upstream pause/credit stall charged to this port, seconds
    double otherS{0};        //!< source entry: injection delay not from flow control, s
    double attributedS{0};   //!< delay charged to this entry in all, seconds
    double share{0};         //!< attributedS / the flow's extra delay
};

/// StragglerFlow::flowId of a flow flows.csv does not list (a training flow not chosen by
/// `results: flows`).
constexpr uint64_t NO_FLOW_ID = UINT64_MAX;

/**
 * \ingroup ai-fabric
 * \brief One of the slowest flows of a collective and where its extra delay came from.
 */
struct StragglerFlow
{
    uint64_t flowId{0};             //!< FlowRecord::id (NO_FLOW_ID: not in flows.csv)
    std::string collective;         //!< collective name, or the training group kind ("dp", ...)
    std::string group;              //!< the workload group (= collective for a collective)
    bool training{false};           //!< a training job's flow: collective is its group kind
    uint32_t rank{0};               //!< its place among the collective's flows, 0 = slowest
    uint32_t src{0};                //!< source endpoint (GPU index; NVLS: an NVSwitch after them)
    uint32_t dst{0};                //!< destination endpoint
    std::string srcName;            //!< source as reports name it: "gpu<i>", or the NVSwitch
    std::string dstName;            //!< destination, named as srcName
    uint64_t bytes{0};              //!< payload bytes
    double fctS{0};                 //!< flow completion time (from eligible), seconds
    double sharedS{0};              //!< of which the source port sent the sender's other
                                    //!< packets while it waited its turn, seconds
    double idealS{0};               //!< FCT alone on an idle fabric (same path), seconds
    double extraS{0};               //!< fctS - sharedS - idealS: the fabric's delay, seconds
    uint32_t pathHops{0};           //!< egress ports on the last packet's path (source excluded)
    std::vector<StragglerHop> hops; //!< contributors, largest attributedS first
};

/**
 * \ingroup ai-fabric
 * \brief Straggler attribution of a run (RunResults::stragglers).
 */
struct StragglerAttribution
{
    bool enabled{false};              //!< the ledger ran
    uint32_t flowsPerCollective{0};   //!< k: slowest flows reported per collective
    bool congestionControl{false};    //!< DCQCN ran: it can pace a queue pair below line rate
    bool goBackN{false};              //!< go-back-N ran: resends, a send window
    bool pfc{false};                  //!< some link has PFC
    bool credits{false};              //!< some link has credit flow control
    std::vector<StragglerFlow> flows; //!< per collective (in order), slowest first
};

/**
 * \ingroup ai-fabric
 * \brief A packet capture of one port, in pcap format (written as
 * DIR/capture-NODE-PEER.pcap).
 */
struct PacketCaptureFile
{
    std::string node;     //!< transmitting node
    std::string peer;     //!< receiving node
    uint32_t linkType{0}; //!< pcap LINKTYPE (1 Ethernet; 252 exported PDU for InfiniBand)
    uint64_t packets{0};  //!< packets captured
    uint64_t missed{0};   //!< packets past max_packets, not captured
    std::string bytes;    //!< the whole pcap file
};

/**
 * \ingroup ai-fabric
 * \brief A message posted but not delivered when the run stopped (the stall report).
 */
struct StalledMessage
{
    uint32_t op{0};        //!< workload op index (SEND)
    std::string group;     //!< the collective or training group it belongs to
    uint32_t step{0};      //!< algorithm step
    uint32_t src{0};       //!< source GPU index
    uint32_t dst{0};       //!< destination GPU index
    uint64_t bytes{0};     //!< bytes posted to the transport (the payload in its protocol's
                           //!< lines, WireBytes())
    uint64_t delivered{0}; //!< of those, the bytes the receiver had accepted
    double postedS{0};     //!< when it was posted, seconds
};

/**
 * \ingroup ai-fabric
 * \brief Everything a run reports; written as summary.json, flows.csv and a table.
 */
struct RunResults
{
    std::string scenario;      //!< scenario name
    std::string scenarioFile;  //!< scenario path as given
    std::string topology;      //!< topology name
    std::string traffic;       //!< traffic name
    uint64_t seed{0};          //!< seed
    uint32_t cellPackets{1};   //!< fidelity knob: MTU packets per simulated packet (1: off)
    uint32_t gpus{0};          //!< GPU endpoints in the fabric
    uint32_t switches{0};      //!< switches in the fabric
    uint32_t links{0};         //!< links (each full duplex) in the fabric
    double simTimeS{0};        //!< simulated time at the end of the run, seconds
    double wallTimeS{0};       //!< wall-clock time of the run, seconds
    double setupTimeS{0};      //!< wall-clock time building the fabric, seconds
    double gatherTimeS{0};     //!< wall-clock time gathering the results after the run, seconds
    uint64_t events{0};        //!< simulator events executed
    uint64_t watchdogTicks{0}; //!< the watchdog's own events (not in events, not written)
    uint64_t packetHops{0};    //!< packets transmitted summed over all links
    bool complete{true};       //!< every message completed
    FabricCounters counters;   //!< flow control and loss
    std::vector<std::string> violations;       //!< invariants the run broke (empty: results valid)
    std::vector<CollectiveResult> collectives; //!< per collective
    std::vector<FlowRecord> flows;             //!< per message of the traffic's collectives
    /// the training flows chosen for flows.csv (`results: flows`, `flow_sample`), after the
    /// collectives' flows in flows.csv (their ids continue)
    std::vector<FlowRecord> trainingFlows;
    std::vector<PortRecord> ports;            //!< per port, in link order (a->b, then b->a)
    bool hasTraining{false};                  //!< the traffic had a training job
    TrainingResult training;                  //!< the training job, when hasTraining
    std::vector<std::string> traceLanes;      //!< trace thread (tid) names, by tid
    std::vector<TraceEvent> trace;            //!< Chrome trace events (trace.json)
    std::string sweepCollective;              //!< the swept collective ("" if not a sweep)
    std::vector<SweepRow> sweep;              //!< sweep rows, by size
    std::vector<BisectionRecord> bisection;   //!< per all-to-all / permutation collective
    TailSummary fct;                          //!< FCT percentiles over all flows, seconds
    TailSummary slowdown;                     //!< slowdown percentiles over all flows
    TailSummary backlog;                      //!< posted-to-eligible waits over all flows, s
    TailSummary shared;                       //!< shared port time over all flows, seconds
    std::vector<TierClassRecord> tierClasses; //!< per tier class present, in TierClassNames()
                                              //!< order
    double sampleIntervalS{0};                //!< time-series bin width used, seconds
    bool sampleIntervalAuto{true};            //!< bins were sized automatically
    std::vector<TimeSeriesRow> timeseries;    //!< by bin, then port id; active ports only
    /// The congestion control the run used: "dcqcn", or "none" (no CNP, no rates: qps.csv and
    /// the rate columns of timeseries.csv are not written)
    std::string congestionControl{"none"};
    std::vector<RateSeriesRow> rateSeries;   //!< by bin, then port id: active NIC ports
    std::vector<QueuePairRecord> queuePairs; //!< by (src, dst, qp): marked or CNP'd ones
    StragglerAttribution stragglers;         //!< where the slowest flows' delay came from
    std::vector<PacketCaptureFile> captures; //!< packet captures of the chosen ports
    /// Why the run stopped: "done", "stop_time", "no_progress" (watchdog) or "interrupted".
    std::string stopReason{"done"};
    bool interrupted{false};                 //!< stopped by SIGINT/SIGTERM
    uint64_t openMessages{0};                //!< messages posted and not delivered
    uint64_t waitingOps{0};                  //!< ops that never started (sends in their
                                             //!< protocol's or kernel's wait included)
    std::vector<StalledMessage> stallReport; //!< the first open messages, by op
    std::vector<std::string> deadlockCycle;  //!< blocked ports in a cycle ("u->v"), if any
    double memoryEstimateBytes{0};           //!< estimated peak memory of the run, bytes
};

} // namespace ns3

#endif /* AI_FABRIC_RUN_RESULTS_H */
