/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RUN_RESULTS_H
#define AI_FABRIC_RUN_RESULTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One message (flow) of the run: posted at the sender, complete when its
 * last byte has arrived at the receiver.
 */
struct FlowRecord
{
    uint64_t id{0};         //!< flow id, in issue order
    std::string collective; //!< name of the collective it belongs to
    uint32_t step{0};       //!< algorithm step that issued it
    uint32_t src{0};        //!< source GPU index
    uint32_t dst{0};        //!< destination GPU index
    uint64_t bytes{0};      //!< payload bytes
    double startS{0};       //!< time the message was posted, seconds
    double endS{0};         //!< time its last byte arrived, seconds

    double FctS() const
    {
        return endS - startS;
    } //!< flow completion time, seconds
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
    uint32_t ranks{0};              //!< number of ranks
    uint64_t bytes{0};              //!< buffer size S, bytes
    double startS{0};               //!< issue time, seconds
    double endS{0};                 //!< time the last rank finished, seconds
    double durationS{0};            //!< endS - startS, seconds
    double algbwGBps{0};            //!< S / duration, GB/s (1e9 B/s), nccl-tests definition
    double busbwGBps{0};            //!< algbw times the op's bus factor (nccl-tests PERFORMANCE.md)
    double analyticS{0};            //!< alpha-beta estimate for the same fabric, seconds
    double alphaS{0};               //!< alpha used by the estimate (per-step latency), seconds
    double betaSPerByte{0};         //!< beta used by the estimate (1/bandwidth), seconds per byte
    std::vector<uint32_t> rankGpus; //!< GPU index of each rank, in rank order
    std::vector<uint64_t> bytesSentPerRank; //!< payload bytes each rank sent, in rank order
    std::vector<double> finishSPerRank;     //!< time each rank finished (last receive), seconds
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
};

/**
 * \ingroup ai-fabric
 * \brief Fabric-wide flow-control and loss counters, summed over every port.
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
};

/**
 * \ingroup ai-fabric
 * \brief One rank's share of one training iteration (SummarizeTrainingRun()):
 * computeS + pipelineIdleS + exposed*S = the iteration's step time.
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
    double pipelineIdleS{0};    //!< pipeline bubble (waiting for upstream compute, done early), s
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
    double exposedTensorS{0};   //!< mean exposed TP communication, seconds
    double exposedPipelineS{0}; //!< mean exposed PP communication, seconds
    double exposedExpertS{0};   //!< mean exposed EP (MoE all-to-all) communication, seconds
    double exposedDataS{0};     //!< mean exposed DP (gradient bucket) communication, seconds
    double achievedMfu{0};      //!< spec MFU x mean compute / step: the job's effective MFU

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
    std::string kind;     //!< "tp", "pp-forward", "pp-backward", "dp", "expert-dp",
                          //!< "moe-dispatch", "moe-combine", "moe-combine-backward",
                          //!< "moe-dispatch-backward"
    uint64_t groups{0};   //!< groups (collectives, pipeline messages) of this kind
    uint64_t messages{0}; //!< messages (flows) they sent
    uint64_t bytes{0};    //!< payload bytes they sent
    double busyS{0};      //!< sum over groups of first post to last arrival, seconds
    double maxS{0};       //!< the longest such group, seconds
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
 * \brief A message posted but not delivered when the run stopped (the stall report).
 */
struct StalledMessage
{
    uint32_t op{0};        //!< workload op index (SEND)
    std::string group;     //!< the collective or training group it belongs to
    uint32_t step{0};      //!< algorithm step
    uint32_t src{0};       //!< source GPU index
    uint32_t dst{0};       //!< destination GPU index
    uint64_t bytes{0};     //!< payload bytes posted
    uint64_t delivered{0}; //!< payload bytes the receiver had accepted
    double postedS{0};     //!< when it was posted, seconds
};

/**
 * \ingroup ai-fabric
 * \brief Everything a run reports; written as summary.json, flows.csv and a table.
 */
struct RunResults
{
    std::string scenario;     //!< scenario name
    std::string scenarioFile; //!< scenario path as given
    std::string topology;     //!< topology name
    std::string traffic;      //!< traffic name
    uint64_t seed{0};         //!< seed
    uint32_t gpus{0};         //!< GPU endpoints in the fabric
    uint32_t switches{0};     //!< switches in the fabric
    uint32_t links{0};        //!< links (each full duplex) in the fabric
    double simTimeS{0};       //!< simulated time at the end of the run, seconds
    double wallTimeS{0};      //!< wall-clock time of the run, seconds
    double setupTimeS{0};     //!< wall-clock time building the fabric, seconds
    double gatherTimeS{0};    //!< wall-clock time gathering the results after the run, seconds
    uint64_t events{0};       //!< simulator events executed
    uint64_t packetHops{0};   //!< packets transmitted summed over all links
    bool complete{true};      //!< every message completed
    FabricCounters counters;  //!< flow control and loss
    std::vector<std::string> violations;       //!< invariants the run broke (empty: results valid)
    std::vector<CollectiveResult> collectives; //!< per collective
    std::vector<FlowRecord> flows;             //!< per message
    std::vector<PortRecord> ports;             //!< per port, in link order (a->b, then b->a)
    bool hasTraining{false};                   //!< the traffic had a training job
    TrainingResult training;                   //!< the training job, when hasTraining
    std::vector<std::string> traceLanes;       //!< trace thread (tid) names, by tid
    std::vector<TraceEvent> trace;             //!< Chrome trace events (trace.json)
    std::string sweepCollective;               //!< the swept collective ("" if not a sweep)
    std::vector<SweepRow> sweep;               //!< sweep rows, by size
    /// Why the run stopped: "done", "stop_time", "no_progress" (watchdog) or "interrupted".
    std::string stopReason{"done"};
    bool interrupted{false};                 //!< stopped by SIGINT/SIGTERM
    uint64_t openMessages{0};                //!< messages posted and not delivered
    uint64_t waitingOps{0};                  //!< ops that never started
    std::vector<StalledMessage> stallReport; //!< the first open messages, by op
    std::vector<std::string> deadlockCycle;  //!< blocked ports in a cycle ("u->v"), if any
    double memoryEstimateBytes{0};           //!< estimated peak memory of the run, bytes
};

} // namespace ns3

#endif /* AI_FABRIC_RUN_RESULTS_H */
