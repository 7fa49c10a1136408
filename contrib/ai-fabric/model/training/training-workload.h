/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_TRAINING_WORKLOAD_H
#define AI_FABRIC_TRAINING_WORKLOAD_H

#include "ns3/moe-routing.h"
#include "ns3/nccl-protocol.h"
#include "ns3/nstime.h"
#include "ns3/pipeline-schedule.h"
#include "ns3/workload.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class Workload;
class WorkloadExecution;

/**
 * \ingroup ai-fabric
 * \brief One training job: the model, the GPU, the parallelism (TP x PP x DP,
 * EP for MoE layers), the rank placement, the pipeline schedule, the
 * data-parallel gradient buckets and the MoE routing. A plain value type; the
 * YAML key of every field is in docs/training-workload.md.
 *
 * Ranks: the canonical rank of (tensor rank t, pipeline stage s, data-parallel
 * replica d) is t + TP (s + PP d). Placement maps canonical ranks to GPU
 * indices (TrainingRankGpus()).
 */
struct TrainingSpec
{
    std::string name{"train"}; //!< prefix of the names of the groups it adds

    // ---- model (a GPT-style decoder stack)
    uint32_t layers{0};          //!< transformer layers L
    uint64_t hidden{0};          //!< hidden size h
    uint64_t sequence{0};        //!< sequence length s, tokens
    uint32_t microBatchSize{1};  //!< sequences per micro-batch b
    uint32_t bytesPerElement{2}; //!< activation bytes per element (2: bf16)
    uint64_t ffnHidden{0};       //!< dense MLP inner size f; 0: 4h
    uint64_t vocabulary{0};      //!< vocabulary V; 0: no embedding and LM head
    uint64_t parameters{0};      //!< total parameters N; 0: derived (TrainingModelSizes)

    // ---- mixture of experts
    uint32_t moeLayers{0};                     //!< MoE layers among the L (spread evenly); 0: dense
    uint32_t experts{0};                       //!< experts E per MoE layer
    uint32_t topK{1};                          //!< experts per token k
    double capacityFactor{0};                  //!< expert capacity factor; <= 0: dropless
    uint64_t expertFfnHidden{0};               //!< expert MLP inner size; 0: f
    uint32_t dispatchBytesPerElement{0};       //!< dispatch bytes per element; 0: bytesPerElement
    uint32_t combineBytesPerElement{0};        //!< combine bytes per element; 0: bytesPerElement
    MoeRoutingSpec routing;                    //!< token routing
    std::string expertPlacement{"contiguous"}; //!< ExpertPlacementNames()

    // ---- GPU
    double peakFlops{0}; //!< peak FLOP/s of one GPU (dense, at the training precision)
    double mfu{0.5};     //!< achieved fraction of the peak (model FLOPs utilisation), (0, 1]

    // ---- parallelism and placement
    uint32_t tp{1};                    //!< tensor-parallel degree
    uint32_t pp{1};                    //!< pipeline stages p
    uint32_t dp{1};                    //!< data-parallel replicas
    uint32_t ep{1};                    //!< expert-parallel degree (divides dp)
    bool sequenceParallel{false};      //!< Megatron sequence parallelism
    std::string rankOrder{"tp,pp,dp"}; //!< GPU index order of the dimensions, innermost first
    std::vector<uint32_t> rankGpus;    //!< explicit GPU per canonical rank (overrides rankOrder)
    uint32_t gpusPerServer{0};         //!< NVLink domain size in GPUs; 0: unknown (no check)
    bool tpInServer{true};             //!< require every TP group inside one NVLink domain

    // ---- pipeline schedule
    std::string schedule{"1f1b"}; //!< PipelineScheduleNames(): "gpipe", "1f1b" or "interleaved"
    uint32_t microBatches{1};     //!< micro-batches m per iteration
    uint32_t virtualStages{1};    //!< interleaved: model chunks v per GPU (>= 2)

    // ---- communication
    std::string tpAlgorithm{"ring"};                   //!< TP collective algorithm
    uint32_t tpChannels{WorkloadGroup::AUTO_CHANNELS}; //!< TP collective channels (AUTO_CHANNELS:
                                                       //!< NCCL's count, PlanChannels())
    std::string dpAlgorithm{"ring"};                   //!< DP (and expert-DP) all-reduce algorithm
    uint32_t dpChannels{WorkloadGroup::AUTO_CHANNELS}; //!< DP all-reduce channels (AUTO_CHANNELS:
                                                       //!< NCCL's count, PlanChannels())
    RingOrder ringOrder{RingOrder::TOPOLOGY};          //!< TP and DP rings: NCCL's channels, or the
                                                       //!< ranks' order (`ring_order: ranks`)
    Protocol protocol{Protocol::NONE}; //!< NCCL protocol of every communication group (AUTO:
                                       //!< NCCL's choice per group, by the resolver)
    uint32_t slots{0};                 //!< slots per connection; 0: the protocol's (NCCL_SLOTS)
    double kernelBytesPerSecond{0};    //!< communication kernels' copy rate per rank, bytes/s;
                                       //!< 0: no limit
    uint64_t chunkBytes{0};            //!< collective pipelining chunk, bytes; 0: whole
    uint64_t bucketBytes{25 * 1024 * 1024}; //!< DP gradient bucket, bytes (PyTorch DDP 25 MiB)
    bool overlapGradReduce{true};           //!< issue buckets during the backward pass
    uint32_t gradBytesPerElement{0};        //!< gradient bytes per element; 0: bytesPerElement
};

/**
 * \ingroup ai-fabric
 * \brief Sizes derived from a TrainingSpec (parameters whole, before TP
 * sharding; see docs/training-workload.md for the formulas).
 */
struct TrainingModelSizes
{
    uint64_t ffn{0};                 //!< dense MLP inner size f
    uint64_t expertFfn{0};           //!< expert MLP inner size
    double attentionParams{0};       //!< per layer: 4h^2 + 4h (QKV, projection) + 2h (norm)
    double mlpParams{0};             //!< per dense layer: 2hf + f + h + 2h (norm)
    double expertParams{0};          //!< one expert: 2h f_e + f_e + h
    double routerParams{0};          //!< per MoE layer: h E, plus 2h (norm)
    double embeddingParams{0};       //!< V h
    double headParams{0};            //!< V h (untied LM head)
    double totalParams{0};           //!< N, after scaling
    double scale{1};                 //!< N given / N derived (1 when derived)
    uint32_t moeLayerCount{0};       //!< MoE layers
    std::vector<bool> isMoe;         //!< per layer
    uint64_t tokensPerMicroBatch{0}; //!< b s
    uint64_t tokensPerEpRank{0};     //!< T: b s, / TP with sequence parallelism
    uint64_t activationBytes{0};     //!< PP message: b s h bytes (/ TP with sequence parallelism)
    uint64_t tpBytes{0};             //!< TP collective buffer: b s h bytes
    double flopsPerSecond{0};        //!< achieved FLOP/s: peak x MFU
};

/**
 * \ingroup ai-fabric
 * \param spec the job
 * \return its derived sizes
 */
TrainingModelSizes DeriveTrainingSizes(const TrainingSpec& spec);

/**
 * \ingroup ai-fabric
 * \brief Check a training job against the fabric before building it.
 * \param spec the job
 * \param gpuCount GPUs of the fabric
 * \param gpuDomain locality domain per GPU (empty: not given)
 * \return "" if the job can be built, else what is wrong, as a sentence (the
 *         caller turns it into a SpecError)
 */
std::string ValidateTrainingSpec(const TrainingSpec& spec,
                                 uint32_t gpuCount,
                                 const std::vector<uint32_t>& gpuDomain = {});

/**
 * \ingroup ai-fabric
 * \param spec a valid job
 * \return the GPU index of every canonical rank t + TP (s + PP d)
 */
std::vector<uint32_t> TrainingRankGpus(const TrainingSpec& spec);

/**
 * \ingroup ai-fabric
 * \brief One compute (DELAY) op of a rank.
 */
struct TrainingComputeOp
{
    /// Pass.
    enum Phase : uint8_t
    {
        FORWARD = 0,         //!< forward
        BACKWARD_INPUT = 1,  //!< backward, input gradient ("B")
        BACKWARD_WEIGHT = 2, //!< backward, weight gradient ("W")
    };

    /// Part of the layer.
    enum Part : uint8_t
    {
        ATTENTION = 0, //!< attention block (and the router of an MoE layer)
        MLP = 1,       //!< dense MLP block
        EXPERTS = 2,   //!< the rank's local experts
        HEAD = 3,      //!< LM head (logits)
    };

    /// What the op waited for besides the GPU being free.
    enum Wait : uint8_t
    {
        WAIT_NONE = 0,     //!< nothing: it only follows the previous compute op
        WAIT_PIPELINE = 1, //!< a pipeline message (activation or gradient)
        WAIT_TENSOR = 2,   //!< a TP collective
        WAIT_EXPERT = 3,   //!< an MoE all-to-all
    };

    uint32_t op{0};                 //!< op index in the workload
    uint32_t microBatch{0};         //!< micro-batch
    uint32_t layer{0};              //!< layer (HEAD: L)
    uint16_t chunk{0};              //!< model chunk
    Phase phase{FORWARD};           //!< pass
    Part part{ATTENTION};           //!< part
    Wait wait{WAIT_NONE};           //!< what it waited for
    uint32_t waitOp{UINT32_MAX};    //!< the communication op it waited for (UINT32_MAX: none)
    uint32_t waitSend{UINT32_MAX};  //!< WAIT_PIPELINE: the message's SEND op
    uint32_t waitReady{UINT32_MAX}; //!< WAIT_PIPELINE: the op after which the message's data
                                    //!< was ready at the sender (its group's start)
};

/**
 * \ingroup ai-fabric
 * \brief One pipeline step of a rank and its compute ops.
 */
struct TrainingStepInfo
{
    PipelineStep step;              //!< the step
    uint32_t firstCompute{0};       //!< index of its first op in TrainingRankInfo::compute
    uint32_t lastCompute{0};        //!< index of its last op in TrainingRankInfo::compute
    uint32_t recvGroup{UINT32_MAX}; //!< group of the pipeline message it waited for, if any
    uint32_t sendGroup{UINT32_MAX}; //!< group of the pipeline message it sent, if any
};

/**
 * \ingroup ai-fabric
 * \brief What the generator built for one rank.
 */
struct TrainingRankInfo
{
    uint32_t gpu{0};                        //!< GPU index
    uint32_t tp{0};                         //!< tensor rank t
    uint32_t pp{0};                         //!< pipeline stage s
    uint32_t dp{0};                         //!< data-parallel replica d
    uint32_t epGroup{UINT32_MAX};           //!< EP group (MoE), UINT32_MAX if none
    uint32_t epPosition{UINT32_MAX};        //!< position in its EP group
    uint32_t startOp{UINT32_MAX};           //!< the op its iteration waited for (UINT32_MAX: none)
    std::vector<TrainingComputeOp> compute; //!< compute ops in issue order (one chain)
    std::vector<TrainingStepInfo> steps;    //!< pipeline steps in issue order
    uint32_t endOp{0};                      //!< done when its compute and its buckets are done
    Time computeTime;                       //!< sum of its compute ops' durations
};

/**
 * \ingroup ai-fabric
 * \brief What one group the generator added is for.
 */
struct TrainingGroupInfo
{
    /// Kinds of group.
    enum Kind : uint8_t
    {
        COMPUTE = 0,               //!< the DELAY ops (compute and joins)
        TENSOR = 1,                //!< TP all-reduce (or reduce-scatter / all-gather)
        PIPELINE_FORWARD = 2,      //!< activation to the next virtual stage
        PIPELINE_BACKWARD = 3,     //!< gradient to the previous virtual stage
        DATA = 4,                  //!< DP gradient bucket all-reduce
        EXPERT_DATA = 5,           //!< expert-DP gradient bucket all-reduce
        MOE_DISPATCH = 6,          //!< forward dispatch all-to-all
        MOE_COMBINE = 7,           //!< forward combine all-to-all
        MOE_COMBINE_BACKWARD = 8,  //!< backward of combine (token owners -> experts)
        MOE_DISPATCH_BACKWARD = 9, //!< backward of dispatch (experts -> token owners)
    };

    uint32_t group{0};               //!< group index in the workload
    Kind kind{COMPUTE};              //!< what it is
    uint32_t stage{UINT32_MAX};      //!< pipeline stage (PP: the sender's)
    uint32_t chunk{UINT32_MAX};      //!< model chunk (PP: the sender's)
    uint32_t microBatch{UINT32_MAX}; //!< micro-batch, if any
    uint32_t layer{UINT32_MAX};      //!< layer, if any
    uint32_t sendOp{UINT32_MAX};     //!< PP: the SEND op
    uint32_t bucket{UINT32_MAX};     //!< DATA, EXPERT_DATA: index into buckets

    static constexpr uint32_t KINDS = 10; //!< number of kinds

    /**
     * \param kind a Kind
     * \return its name in the outputs and the scenario files: "compute", "tp", "pp-forward",
     *         "pp-backward", "dp", "expert-dp", "moe-dispatch", "moe-combine",
     *         "moe-combine-backward", "moe-dispatch-backward" ("unknown" beyond)
     */
    static const char* KindName(uint32_t kind);
};

/**
 * \ingroup ai-fabric
 * \brief One gradient bucket all-reduce.
 */
struct TrainingBucketInfo
{
    uint32_t group{0};              //!< group index
    bool expert{false};             //!< expert parameters (expert-DP group)
    uint32_t stage{0};              //!< pipeline stage
    uint32_t chunk{0};              //!< model chunk
    uint64_t bytes{0};              //!< gradient bytes
    std::vector<uint32_t> ranks;    //!< canonical ranks, in the group's order
    std::vector<uint32_t> readyOps; //!< per member: the W op that completed the bucket
    std::vector<uint32_t> doneOps;  //!< per member: done op of its all-reduce
};

/**
 * \ingroup ai-fabric
 * \brief Routing of one MoE layer in one EP group (the same for every micro-batch).
 */
struct MoeGroupRouting
{
    uint32_t layer{0};                //!< layer
    std::vector<uint32_t> ranks;      //!< canonical ranks by EP position
    std::vector<uint32_t> expertRank; //!< EP position of every expert
    std::vector<uint64_t> copies;     //!< n x E token copies kept, row = source position
    std::vector<uint64_t> pairCopies; //!< n x n kept copies from source position (row) to the
                                      //!< experts of position (column); the diagonal stays local
    std::vector<uint64_t> received;   //!< per position: kept copies its experts process
    uint64_t tokenCopies{0};          //!< copies routed, per micro-batch
    uint64_t dropped{0};              //!< copies dropped by the capacity, per micro-batch
    uint64_t sameRank{0};             //!< kept copies to a local expert, per micro-batch
    uint64_t sameDomain{0};           //!< kept copies inside the source's domain (incl. local)
};

/**
 * \ingroup ai-fabric
 * \brief Iteration totals of the MoE traffic.
 */
struct MoeTrafficTotals
{
    uint64_t tokenCopies{0};  //!< token copies routed
    uint64_t dropped{0};      //!< copies dropped by the capacity
    uint64_t sameRank{0};     //!< kept copies that stay on their GPU
    uint64_t sameDomain{0};   //!< kept copies that stay in their locality domain (incl. same GPU)
    uint64_t networkBytes{0}; //!< bytes all MoE all-to-alls put on the network

    /// \return sameDomain / kept copies (1 if none)
    double LocalFraction() const;
};

/**
 * \ingroup ai-fabric
 * \brief What BuildTrainingWorkload() added, for results, breakdowns and traces.
 */
struct TrainingWorkloadInfo
{
    TrainingModelSizes sizes;                //!< derived sizes
    uint32_t computeGroup{0};                //!< the group of the DELAY ops
    uint32_t firstGroup{0};                  //!< first group added
    uint32_t firstOp{0};                     //!< first op added
    std::vector<TrainingRankInfo> ranks;     //!< by canonical rank
    std::vector<TrainingGroupInfo> groups;   //!< every group added, in order: groups[i] is
                                             //!< workload group firstGroup + i
    std::vector<TrainingBucketInfo> buckets; //!< gradient buckets, in issue order
    std::vector<MoeGroupRouting> moe;        //!< per MoE layer and EP group
    MoeTrafficTotals moeTotals;              //!< MoE totals of the iteration
    int64_t streams{0};                      //!< random variable streams used

    /**
     * \param tp tensor rank \param pp stage \param dp replica
     * \return the canonical rank
     */
    uint32_t Rank(uint32_t tp, uint32_t pp, uint32_t dp) const;
    uint32_t tpSize{1}; //!< TP
    uint32_t ppSize{1}; //!< PP
    uint32_t dpSize{1}; //!< DP
};

/**
 * \ingroup ai-fabric
 * \brief Append one training iteration to a workload (not finalized).
 *
 * Every rank runs its compute ops one at a time in its schedule's order; TP
 * collectives, pipeline messages, MoE all-to-alls and gradient buckets are
 * real groups built by the collective algorithms. docs/training-workload.md
 * describes the DAG. Aborts if ValidateTrainingSpec() finds a problem.
 *
 * \param spec the job
 * \param workload the workload to append to
 * \param gpuCount GPUs of the fabric
 * \param gpuDomain locality domain per GPU (topology-aware placement and the
 *        MoE local fraction); empty: the NVLink domain (gpu / gpusPerServer), or
 *        each GPU alone when gpusPerServer is 0
 * \param startOps per GPU: the op the GPU's iteration waits for (e.g. the end
 *        of the previous iteration); empty: none (it starts at time zero)
 * \param stream first random variable stream (routing and placement)
 * \param resolve resolves each communication group's protocol on the fabric (AUTO chosen,
 *        latencies filled); empty: ApplyProtocol() with Simple for AUTO
 * \return what it built
 */
TrainingWorkloadInfo BuildTrainingWorkload(const TrainingSpec& spec,
                                           Workload& workload,
                                           uint32_t gpuCount,
                                           const std::vector<uint32_t>& gpuDomain = {},
                                           const std::vector<uint32_t>& startOps = {},
                                           int64_t stream = 0,
                                           const ProtocolResolver& resolve = {});

/**
 * \ingroup ai-fabric
 * \brief Where one rank's iteration time went. The parts add up to the
 * iteration time: compute + pipelineIdle + exposed* = iteration.
 */
struct TrainingRankTimes
{
    Time compute;         //!< compute ops
    Time pipelineIdle;    //!< waiting for the upstream stage's compute, and done early
                          //!< (the pipeline's fill and drain; only with PP > 1)
    Time skew;            //!< without a pipeline (PP = 1): waiting for the other ranks to
                          //!< start or end the iteration (not a bubble)
    Time exposedPipeline; //!< waiting for a pipeline message on the wire
    Time exposedTensor;   //!< waiting for TP collectives
    Time exposedExpert;   //!< waiting for MoE all-to-alls
    Time exposedData;     //!< after the last compute, waiting for the gradient buckets
    Time end;             //!< when its end op was done
};

/**
 * \ingroup ai-fabric
 * \brief The iteration as run.
 */
struct TrainingRunSummary
{
    Time start;                           //!< earliest rank start
    Time end;                             //!< latest rank end
    std::vector<TrainingRankTimes> ranks; //!< by canonical rank

    /// \return end - start
    Time Iteration() const;
    /// \param rank canonical rank \return 1 - compute / iteration
    double IdleFraction(uint32_t rank) const;
};

/**
 * \ingroup ai-fabric
 * \brief Split every rank's iteration into compute, pipeline idle and exposed
 * communication, from the ops' start and end times.
 *
 * A gap before a compute op is charged to what that op waited for
 * (TrainingComputeOp::wait): a pipeline wait is idle while the message's
 * sender had not yet sent it and exposed pipeline communication after; a TP or
 * MoE wait is exposed communication of that kind. The time from a rank's last
 * compute op to its end op is exposed data-parallel communication; the time
 * from its end to the iteration's end is pipeline idle.
 *
 * \param info what BuildTrainingWorkload() returned
 * \param runner the workload execution after the run
 * \return the summary
 */
TrainingRunSummary SummarizeTrainingRun(const TrainingWorkloadInfo& info,
                                        const WorkloadExecution& runner);

} // namespace ns3

#endif /* AI_FABRIC_TRAINING_WORKLOAD_H */
