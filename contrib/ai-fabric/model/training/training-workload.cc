/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-workload.h"

#include "ns3/abort.h"
#include "ns3/channel-plan.h"
#include "ns3/collective-algorithm.h"
#include "ns3/expert-placement.h"
#include "ns3/log.h"
#include "ns3/workload-execution.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingWorkload");

namespace
{

constexpr uint32_t NONE = UINT32_MAX;

/// First queue pair index of the gradient buckets: NCCL runs the DP all-reduce
/// on its own communicator, so its messages never queue behind (or in front of)
/// an MoE all-to-all message between the same two GPUs (the MoE all-to-alls use one
/// channel: queue pair 0).
constexpr uint16_t DP_QP_BASE = 32;

/// \param s a comma-separated list \return its trimmed items
std::vector<std::string>
SplitList(const std::string& s)
{
    std::vector<std::string> out;
    std::string cur;
    for (const char ch : s + ",")
    {
        if (ch == ',')
        {
            const auto b = cur.find_first_not_of(" \t");
            const auto e = cur.find_last_not_of(" \t");
            out.push_back(b == std::string::npos ? "" : cur.substr(b, e - b + 1));
            cur.clear();
        }
        else
        {
            cur += ch;
        }
    }
    return out;
}

/**
 * \param jobChunk the job's chunk_bytes (0: whole steps)
 * \param algo a group's algorithm
 * \return the group's chunk: the job's; for an in-network algorithm (NVLS, CollNet), which
 *         pipelines only by its pieces, NCCL's chunk when the job gives none
 */
uint64_t
ChunkOf(uint64_t jobChunk, const CollectiveAlgorithm& algo)
{
    return jobChunk == 0 && algo.GetCapabilities().inNetwork ? WorkloadGroup::NCCL_CHUNK_BYTES
                                                             : jobChunk;
}

/// \param x a number \return it as a string
std::string
Str(uint64_t x)
{
    return std::to_string(x);
}

/// \param x a size, bytes \return it as a string with 4 significant digits ("1.126e+15")
std::string
SizeText(long double x)
{
    std::ostringstream s;
    s << std::setprecision(4) << static_cast<double>(x);
    return s.str();
}

/**
 * \brief Build a collective whose SEND ops use queue pairs qpBase + channel:
 * built into a scratch workload, then copied over.
 * \param algo the algorithm
 * \param wl the workload (its group \p group describes the collective)
 * \param group the group index
 * \param startOps per member: its start op
 * \param qpBase added to every SEND's queue pair index
 * \return per member: its done op
 */
std::vector<uint32_t>
BuildWithQpBase(const CollectiveAlgorithm& algo,
                Workload& wl,
                uint32_t group,
                const std::vector<uint32_t>& startOps,
                uint16_t qpBase)
{
    Workload scratch;
    scratch.SetPlaces(wl.GetPlaces()); // the protocol's per-hop latency depends on them
    scratch.AddGroup(wl.GetGroups()[group]);
    // One placeholder per distinct start op, so that the builder sees the same
    // sharing of start ops as in the real workload.
    std::map<uint32_t, uint32_t> placeholderOf;
    std::vector<uint32_t> real;
    std::vector<uint32_t> local(startOps.size());
    for (std::size_t i = 0; i < startOps.size(); ++i)
    {
        auto it = placeholderOf.find(startOps[i]);
        if (it == placeholderOf.end())
        {
            WorkloadOp p;
            p.kind = WorkloadOp::DELAY;
            it = placeholderOf.emplace(startOps[i], scratch.AddOp(p)).first;
            real.push_back(startOps[i]);
        }
        local[i] = it->second;
    }
    const std::vector<uint32_t> done = algo.Build(scratch, 0, local);
    scratch.Finalize();
    const auto& ops = scratch.GetOps();
    std::vector<uint32_t> map(ops.size());
    for (uint32_t k = 0; k < ops.size(); ++k)
    {
        if (k < real.size())
        {
            map[k] = real[k];
            continue;
        }
        WorkloadOp op = ops[k];
        op.group = group;
        if (op.kind == WorkloadOp::SEND)
        {
            op.qp += qpBase;
        }
        map[k] = wl.AddOp(op);
    }
    for (uint32_t k = 0; k < ops.size(); ++k)
    {
        for (const uint32_t* s = scratch.SuccessorsBegin(k); s != scratch.SuccessorsEnd(k); ++s)
        {
            wl.AddDependency(map[k], map[*s]);
        }
    }
    std::vector<uint32_t> out(done.size());
    for (std::size_t i = 0; i < done.size(); ++i)
    {
        out[i] = map[done[i]];
    }
    return out;
}

} // namespace

// ---------------------------------------------------------------- model sizes

TrainingModelSizes
DeriveTrainingSizes(const TrainingSpec& spec)
{
    TrainingModelSizes z;
    const double h = spec.hidden;
    z.ffn = spec.ffnHidden != 0 ? spec.ffnHidden : 4 * spec.hidden;
    z.expertFfn = spec.expertFfnHidden != 0 ? spec.expertFfnHidden : z.ffn;
    const double f = z.ffn;
    const double fe = z.expertFfn;
    z.attentionParams = 4 * h * h + 4 * h + 2 * h;
    z.mlpParams = 2 * h * f + f + h + 2 * h;
    z.expertParams = 2 * h * fe + fe + h;
    z.routerParams = h * spec.experts + 2 * h;
    z.embeddingParams = static_cast<double>(spec.vocabulary) * h;
    z.headParams = z.embeddingParams;
    const uint32_t layers = spec.layers;
    const uint32_t moe = std::min(spec.moeLayers, layers);
    z.isMoe.assign(layers, false);
    double derived = z.embeddingParams + z.headParams;
    for (uint32_t l = 0; l < layers; ++l)
    {
        // Spread evenly: layer l is an MoE layer when floor((l+1) M / L) steps up.
        z.isMoe[l] = moe > 0
                     && (static_cast<uint64_t>(l + 1) * moe) / layers
                            > (static_cast<uint64_t>(l) * moe) / layers;
        z.moeLayerCount += z.isMoe[l] ? 1 : 0;
        derived += z.attentionParams
                   + (z.isMoe[l] ? z.routerParams + spec.experts * z.expertParams : z.mlpParams);
    }
    z.scale = spec.parameters != 0 && derived > 0 ? spec.parameters / derived : 1.0;
    z.totalParams = derived * z.scale;
    const uint32_t tp = std::max<uint32_t>(1, spec.tp);
    z.tokensPerMicroBatch = static_cast<uint64_t>(spec.microBatchSize) * spec.sequence;
    z.tokensPerEpRank = spec.sequenceParallel ? z.tokensPerMicroBatch / tp : z.tokensPerMicroBatch;
    z.tpBytes = z.tokensPerMicroBatch * spec.hidden * spec.bytesPerElement;
    z.activationBytes = spec.sequenceParallel ? z.tpBytes / tp : z.tpBytes;
    z.flopsPerSecond = spec.peakFlops * spec.mfu;
    return z;
}

// ----------------------------------------------------------------- validation

std::vector<uint32_t>
TrainingRankGpus(const TrainingSpec& spec)
{
    if (!spec.rankGpus.empty())
    {
        return spec.rankGpus;
    }
    const uint32_t n = spec.tp * spec.pp * spec.dp;
    const std::vector<std::string> order = SplitList(spec.rankOrder);
    std::vector<uint32_t> out(n);
    for (uint32_t d = 0; d < spec.dp; ++d)
    {
        for (uint32_t s = 0; s < spec.pp; ++s)
        {
            for (uint32_t t = 0; t < spec.tp; ++t)
            {
                uint64_t gpu = 0;
                uint64_t stride = 1;
                for (const std::string& dim : order)
                {
                    const uint32_t coord = dim == "tp" ? t : dim == "pp" ? s : d;
                    const uint32_t size = dim == "tp" ? spec.tp : dim == "pp" ? spec.pp : spec.dp;
                    gpu += coord * stride;
                    stride *= size;
                }
                out[t + spec.tp * (s + spec.pp * d)] = gpu;
            }
        }
    }
    return out;
}

std::string
ValidateTrainingSpec(const TrainingSpec& spec,
                     uint32_t gpuCount,
                     const std::vector<uint32_t>& gpuDomain)
{
    if (spec.layers < 1 || spec.hidden < 1 || spec.sequence < 1 || spec.microBatchSize < 1)
    {
        return "a training job needs layers, hidden size, sequence length and micro-batch size "
               "of at least 1";
    }
    if (spec.bytesPerElement < 1)
    {
        return "bytes per element must be at least 1";
    }
    if (spec.microBatches < 1)
    {
        return "a training iteration needs at least 1 micro-batch";
    }
    if (!(spec.peakFlops > 0) || !std::isfinite(spec.peakFlops))
    {
        return "the GPU's peak FLOP/s must be a positive number";
    }
    if (!(spec.mfu > 0 && spec.mfu <= 1))
    {
        return "the MFU (achieved fraction of the peak) must be in (0, 1], got "
               + std::to_string(spec.mfu);
    }
    if (spec.tp < 1 || spec.pp < 1 || spec.dp < 1 || spec.ep < 1)
    {
        return "the tensor, pipeline, data and expert parallel degrees must be at least 1";
    }
    const Ptr<PipelineSchedule> schedule = CreatePipelineSchedule(spec.schedule);
    if (!schedule)
    {
        return "unknown pipeline schedule '" + spec.schedule
               + "' (expected gpipe, 1f1b or interleaved)";
    }
    const uint32_t p = spec.pp;
    const uint32_t m = spec.microBatches;
    const uint32_t v = spec.virtualStages;
    if (const std::string problem = schedule->Check(p, m, v); !problem.empty())
    {
        return problem;
    }
    if (spec.layers % (p * v) != 0)
    {
        return "the " + Str(spec.layers) + " layers do not divide evenly over " + Str(p)
               + " stages x " + Str(v) + " model chunks";
    }
    const uint64_t ranks = static_cast<uint64_t>(spec.tp) * spec.pp * spec.dp;
    if (spec.rankGpus.empty())
    {
        std::vector<std::string> order = SplitList(spec.rankOrder);
        std::vector<std::string> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        if (sorted != std::vector<std::string>{"dp", "pp", "tp"})
        {
            return "the rank order must be a permutation of tp, pp and dp, e.g. \"tp,pp,dp\" "
                   "(innermost first), got \""
                   + spec.rankOrder + "\"";
        }
        if (ranks != gpuCount)
        {
            return "TP x PP x DP = " + Str(spec.tp) + " x " + Str(spec.pp) + " x " + Str(spec.dp)
                   + " = " + Str(ranks) + " ranks, but the fabric has " + Str(gpuCount) + " GPUs";
        }
    }
    else
    {
        if (spec.rankGpus.size() != ranks)
        {
            return "the explicit rank placement lists " + Str(spec.rankGpus.size())
                   + " GPUs, but TP x PP x DP = " + Str(ranks);
        }
        std::set<uint32_t> seen;
        for (const uint32_t g : spec.rankGpus)
        {
            if (g >= gpuCount)
            {
                return "the explicit rank placement names GPU " + Str(g) + ", but the fabric has "
                       + Str(gpuCount) + " GPUs";
            }
            if (!seen.insert(g).second)
            {
                return "the explicit rank placement names GPU " + Str(g) + " twice";
            }
        }
    }
    if (spec.tpInServer && spec.tp > 1 && spec.gpusPerServer > 0)
    {
        const std::vector<uint32_t> gpus = TrainingRankGpus(spec);
        for (uint32_t d = 0; d < spec.dp; ++d)
        {
            for (uint32_t s = 0; s < spec.pp; ++s)
            {
                const uint32_t first = gpus[spec.tp * (s + spec.pp * d)];
                for (uint32_t t = 1; t < spec.tp; ++t)
                {
                    const uint32_t g = gpus[t + spec.tp * (s + spec.pp * d)];
                    if (g / spec.gpusPerServer != first / spec.gpusPerServer)
                    {
                        return "the TP group of stage " + Str(s) + ", replica " + Str(d)
                               + " spans NVLink domains (GPUs " + Str(first) + " and " + Str(g)
                               + " with " + Str(spec.gpusPerServer)
                               + " GPUs per server); put TP innermost or allow it with "
                                 "tp_in_server: false";
                    }
                }
            }
        }
    }
    if (spec.sequenceParallel
        && (static_cast<uint64_t>(spec.microBatchSize) * spec.sequence) % spec.tp != 0)
    {
        return "sequence parallelism needs b x s divisible by TP";
    }
    if (spec.moeLayers > 0)
    {
        if (spec.moeLayers > spec.layers)
        {
            return "more MoE layers (" + Str(spec.moeLayers) + ") than layers (" + Str(spec.layers)
                   + ")";
        }
        if (spec.experts < 1)
        {
            return "MoE layers need at least 1 expert";
        }
        if (spec.dp % spec.ep != 0)
        {
            return "the expert-parallel degree " + Str(spec.ep)
                   + " must divide the data-parallel degree " + Str(spec.dp)
                   + " (EP groups are carved out of DP)";
        }
        if (spec.experts % spec.ep != 0)
        {
            return "the " + Str(spec.experts) + " experts do not divide evenly over the "
                   + Str(spec.ep) + " expert-parallel ranks";
        }
        if (!std::isfinite(spec.capacityFactor))
        {
            return "the capacity factor must be a finite number";
        }
        std::string problem = MoeRouter::Validate(spec.routing, spec.ep, spec.experts, spec.topK);
        if (!problem.empty())
        {
            return problem;
        }
        problem = ExpertPlacement::Validate(spec.expertPlacement, spec.experts, spec.ep);
        if (!problem.empty())
        {
            return problem;
        }
    }
    if (spec.bucketBytes < 1)
    {
        return "the gradient bucket size must be at least 1 byte";
    }
    auto checkAlgo = [](const std::string& name,
                        const std::string& what,
                        const std::vector<std::string>& ops,
                        uint32_t channels) -> std::string {
        Ptr<CollectiveAlgorithm> a = CreateCollectiveAlgorithm(name);
        if (!a)
        {
            return "unknown " + what + " algorithm '" + name + "'";
        }
        for (const std::string& op : ops)
        {
            if (!a->Supports(op))
            {
                return what + " algorithm '" + name + "' does not implement '" + op + "'";
            }
        }
        if (channels > CollectiveAlgorithm::MAX_CHANNELS)
        {
            return what + " channels must be auto or between 1 and "
                   + Str(CollectiveAlgorithm::MAX_CHANNELS);
        }
        return "";
    };
    std::string problem
        = checkAlgo(spec.tpAlgorithm,
                    "tensor-parallel",
                    spec.sequenceParallel ? std::vector<std::string>{"reduce-scatter", "all-gather"}
                                          : std::vector<std::string>{"all-reduce"},
                    spec.tpChannels);
    if (problem.empty())
    {
        problem = checkAlgo(spec.dpAlgorithm, "data-parallel", {"all-reduce"}, spec.dpChannels);
    }
    if (!problem.empty())
    {
        return problem;
    }
    if (!gpuDomain.empty() && gpuDomain.size() != gpuCount)
    {
        return "the locality domains list " + Str(gpuDomain.size()) + " GPUs, the fabric has "
               + Str(gpuCount);
    }
    // The sizes the job derives (products of the keys above) stay in the range the model
    // computes in 64-bit bytes: a message of at most 2^50 B (1 PiB), and so the whole model's
    // gradients. Computed in long double, which cannot overflow here.
    {
        constexpr long double LIMIT = 1125899906842624.0L; // 2^50
        const long double h = static_cast<long double>(spec.hidden);
        const long double bpe = std::max({spec.bytesPerElement,
                                          spec.dispatchBytesPerElement,
                                          spec.combineBytesPerElement,
                                          spec.gradBytesPerElement});
        const long double tokens = static_cast<long double>(spec.microBatchSize) * spec.sequence;
        const long double message = tokens * h * bpe * std::max<uint32_t>(1, spec.topK);
        if (message > LIMIT)
        {
            return "micro-batch size x sequence x hidden x bytes per element (x top-k) gives "
                   "messages of "
                   + SizeText(message)
                   + " B; the model computes messages of at most 2^50 B (1 PiB)";
        }
        const long double f = spec.ffnHidden != 0 ? spec.ffnHidden : 4 * h;
        const long double fe = spec.expertFfnHidden != 0 ? spec.expertFfnHidden : f;
        const long double layer
            = 4 * h * h + 6 * h
              + std::max(2 * h * f + f + 3 * h,
                         spec.experts * (2 * h * fe + fe + h) + h * spec.experts + 2 * h);
        const long double params = spec.parameters > 0
                                       ? static_cast<long double>(spec.parameters)
                                       : layer * spec.layers + 2.0L * spec.vocabulary * h;
        if (params * bpe > LIMIT)
        {
            return "the model's gradients would be " + SizeText(params * bpe)
                   + " B; the model computes at most 2^50 B (1 PiB)";
        }
    }
    return "";
}

// ------------------------------------------------------------------- builder

namespace
{

/**
 * \brief Writes one training iteration into a workload (BuildTrainingWorkload()).
 *
 * Every pipeline step is built for all ranks of its stage at once (the TP,
 * EP and DP groups of a stage follow the same schedule), segment by segment,
 * so that each collective finds the start ops of all its members. Stages
 * advance in a list-scheduling loop: a step is built once the pipeline
 * message it consumes exists.
 */
class TrainingBuilder
{
  public:
    /**
     * \param spec the job (valid)
     * \param wl the workload to append to
     * \param gpuCount GPUs of the fabric
     * \param gpuDomain locality domain per GPU (may be empty)
     * \param startOps start op per GPU (may be empty)
     * \param stream first random variable stream
     */
    TrainingBuilder(const TrainingSpec& spec,
                    Workload& wl,
                    uint32_t gpuCount,
                    const std::vector<uint32_t>& gpuDomain,
                    const std::vector<uint32_t>& startOps,
                    int64_t stream,
                    const ProtocolResolver& resolve);

    /// \return what was built (call once)
    TrainingWorkloadInfo Build();

  private:
    /// Parameters of one backward segment and the W ops that complete it.
    struct Segment
    {
        double params{0};        //!< parameters per rank
        bool expert{false};      //!< expert parameters
        std::vector<uint32_t> w; //!< W op per stage-local rank (t + TP d)
    };

    /// \param t tensor rank \param s stage \param d replica \return the canonical rank
    uint32_t Rank(uint32_t t, uint32_t s, uint32_t d) const
    {
        return t + m_tp * (s + m_pp * d);
    }

    /// \param flops FLOPs \return their compute time at peak x MFU, to the picosecond
    Time Duration(double flops) const
    {
        return PicoSeconds(std::llround(flops / m_z.flopsPerSecond * 1e12));
    }

    /**
     * \param g the group \param gi what it is for
     * \return the group index
     */
    uint32_t AddGroup(const WorkloadGroup& g, const TrainingGroupInfo& gi);
    /**
     * \brief Add a compute op on rank r after its previous one (and after its input,
     * if \p waitInput and the input is communication).
     * \param r rank \param d duration \param phase pass \param part part
     * \param layer layer \param mb micro-batch \param chunk chunk
     * \param waitInput wait for the rank's current input
     * \return the op
     */
    uint32_t Compute(uint32_t r,
                     Time d,
                     TrainingComputeOp::Phase phase,
                     TrainingComputeOp::Part part,
                     uint32_t layer,
                     uint32_t mb,
                     uint32_t chunk,
                     bool waitInput);
    /**
     * \param r rank \param a an op (or NONE) \param b an op (or NONE)
     * \return an op done when both are: one of them, or a new zero DELAY on r
     */
    uint32_t Join(uint32_t r, uint32_t a, uint32_t b);
    /// \param r a rank \return the op after which its current tensor is ready (never NONE)
    uint32_t Input(uint32_t r);
    /**
     * \brief Every rank of stage s runs one compute op; unless it is a W op, the
     * rank's current tensor is its output.
     * \param s stage \param phase pass \param part part \param layer layer
     * \param mb micro-batch \param chunk chunk \param d duration
     * \param ops if given: filled with the op per stage-local rank
     */
    void StageCompute(uint32_t s,
                      TrainingComputeOp::Phase phase,
                      TrainingComputeOp::Part part,
                      uint32_t layer,
                      uint32_t mb,
                      uint32_t chunk,
                      Time d,
                      std::vector<uint32_t>* ops = nullptr);
    /**
     * \brief The TP all-reduce (or reduce-scatter + all-gather) of every TP group of a stage.
     * \param s stage \param what name suffix \param layer layer \param mb micro-batch
     */
    void TensorCollective(uint32_t s, const std::string& what, uint32_t layer, uint32_t mb);
    /**
     * \brief One MoE all-to-all in every EP group of a stage.
     * \param s stage \param layer layer \param mb micro-batch \param kind which one
     */
    void ExpertAllToAll(uint32_t s, uint32_t layer, uint32_t mb, TrainingGroupInfo::Kind kind);
    /**
     * \brief Every rank of a stage computes its local experts' share.
     * \param s stage \param phase pass \param layer layer \param mb micro-batch
     * \param chunk chunk \param ops if given: filled with the op per stage-local rank
     */
    void ExpertCompute(uint32_t s,
                       TrainingComputeOp::Phase phase,
                       uint32_t layer,
                       uint32_t mb,
                       uint32_t chunk,
                       std::vector<uint32_t>* ops);
    /**
     * \brief Every rank of a stage sends its activation (gradient) to the next
     * (previous) virtual stage.
     * \param s stage \param vs sending virtual stage \param forward activation or gradient
     * \param mb micro-batch
     */
    void PipelineSend(uint32_t s, uint32_t vs, bool forward, uint32_t mb);

    /**
     * \param forward activation or gradient \param vsDst receiving virtual stage
     * \param mb micro-batch \param t tensor rank \param d replica
     * \return index into the message tables
     */
    std::size_t MessageIndex(bool forward,
                             uint32_t vsDst,
                             uint32_t mb,
                             uint32_t t,
                             uint32_t d) const
    {
        return ((((forward ? 0u : 1u) * m_pv + vsDst) * static_cast<std::size_t>(m_m) + mb) * m_dp
                + d)
                   * m_tp
               + t;
    }

    /// \param s stage \param st step \return true if the message it consumes exists
    bool StepReady(uint32_t s, const PipelineStep& st) const;
    /// \param s stage \param st the step to build for all ranks of the stage
    void BuildStep(uint32_t s, const PipelineStep& st);
    /**
     * \brief Cut a chunk's gradients into buckets and issue their all-reduces.
     * \param s stage \param c chunk \param segs parameter segments in backward order
     * \param atEnd the buckets wait for the rank's last compute op (no overlap)
     */
    void EmitBuckets(uint32_t s, uint32_t c, const std::vector<Segment>& segs, bool atEnd);
    /**
     * \brief One bucket's all-reduce in every DP (or expert-DP) group of a stage.
     * \param s stage \param c chunk \param expert expert parameters \param bytes size
     * \param ready W op per stage-local rank \param atEnd wait for the last compute op instead
     */
    void Bucket(uint32_t s,
                uint32_t c,
                bool expert,
                double bytes,
                const std::vector<uint32_t>& ready,
                bool atEnd);
    /// Draw the routing and placement of every MoE layer and EP group.
    void PrepareMoe();

    /**
     * \param layer MoE layer \param t tensor rank \param block EP block
     * \return its routing
     */
    const MoeGroupRouting& Routing(uint32_t layer, uint32_t t, uint32_t block) const
    {
        return m_info.moe[m_moeIndex[layer] + t * m_blocks + block];
    }

    const TrainingSpec& m_spec;         //!< the job
    const ProtocolResolver& m_resolve;  //!< resolves a group's protocol (may be empty)
    Workload& m_wl;                     //!< the workload
    TrainingWorkloadInfo m_info;        //!< what is built
    TrainingModelSizes m_z;             //!< derived sizes
    uint32_t m_tp;                      //!< TP
    uint32_t m_pp;                      //!< PP
    uint32_t m_dp;                      //!< DP
    uint32_t m_ep;                      //!< EP (1 without MoE)
    uint32_t m_v;                       //!< chunks per GPU
    uint32_t m_m;                       //!< micro-batches
    uint32_t m_pv;                      //!< virtual stages p v
    uint32_t m_lc;                      //!< layers per chunk
    uint32_t m_blocks;                  //!< EP blocks per DP group (DP / EP)
    std::string m_prefix;               //!< group name prefix
    std::vector<uint32_t> m_gpu;        //!< canonical rank -> GPU
    std::vector<uint32_t> m_domain;     //!< GPU -> locality domain
    std::vector<uint32_t> m_start;      //!< canonical rank -> start op
    int64_t m_stream;                   //!< first random stream
    Ptr<CollectiveAlgorithm> m_tpAlgo;  //!< TP algorithm
    Ptr<CollectiveAlgorithm> m_dpAlgo;  //!< DP algorithm
    Ptr<CollectiveAlgorithm> m_direct;  //!< direct (pipeline messages, all-to-all)
    std::vector<uint32_t> m_chain;      //!< per rank: last compute op
    std::vector<uint32_t> m_x;          //!< per rank: op after which its current tensor is ready
    std::vector<uint8_t> m_xKind;       //!< per rank: TrainingComputeOp::Wait of m_x
    std::vector<uint32_t> m_xSend;      //!< per rank: WAIT_PIPELINE: the SEND op
    std::vector<uint32_t> m_xReady;     //!< per rank: WAIT_PIPELINE: its data-ready op
    std::vector<uint32_t> m_lastBucket; //!< per rank: done op of its last bucket
    std::vector<uint32_t> m_msgDone;    //!< per message: receiver's done op
    std::vector<uint32_t> m_msgSend;    //!< per message: SEND op
    std::vector<uint32_t> m_msgReady;   //!< per message: the op its data was ready after
    std::vector<uint32_t> m_msgGroup;   //!< per message: group
    std::vector<uint32_t> m_moeIndex;   //!< layer -> first index into m_info.moe
    /// Per stage: (chunk, segments) whose buckets wait for the end (no overlap).
    std::vector<std::vector<std::pair<uint32_t, std::vector<Segment>>>> m_pending;
    std::vector<std::vector<uint32_t>> m_lastBwdMb; //!< [stage][chunk] -> last backward mb
};

TrainingBuilder::TrainingBuilder(const TrainingSpec& spec,
                                 Workload& wl,
                                 uint32_t gpuCount,
                                 const std::vector<uint32_t>& gpuDomain,
                                 const std::vector<uint32_t>& startOps,
                                 int64_t stream,
                                 const ProtocolResolver& resolve)
    : m_spec(spec)
    , m_resolve(resolve)
    , m_wl(wl)
    , m_z(DeriveTrainingSizes(spec))
    , m_tp(spec.tp)
    , m_pp(spec.pp)
    , m_dp(spec.dp)
    , m_ep(spec.moeLayers > 0 ? spec.ep : 1)
    , m_v(spec.virtualStages)
    , m_m(spec.microBatches)
    , m_pv(spec.pp * spec.virtualStages)
    , m_lc(spec.layers / (spec.pp * spec.virtualStages))
    , m_blocks(spec.dp / (spec.moeLayers > 0 ? spec.ep : 1))
    , m_prefix(spec.name)
    , m_gpu(TrainingRankGpus(spec))
    , m_stream(stream)
{
    m_domain.resize(gpuCount);
    for (uint32_t g = 0; g < gpuCount; ++g)
    {
        m_domain[g] = !gpuDomain.empty()       ? gpuDomain[g]
                      : spec.gpusPerServer > 0 ? g / spec.gpusPerServer
                                               : g;
    }
    const uint32_t ranks = m_gpu.size();
    m_start.assign(ranks, NONE);
    if (!startOps.empty())
    {
        for (uint32_t r = 0; r < ranks; ++r)
        {
            m_start[r] = startOps[m_gpu[r]];
        }
    }
    m_tpAlgo = CreateCollectiveAlgorithm(spec.tpAlgorithm);
    m_dpAlgo = CreateCollectiveAlgorithm(spec.dpAlgorithm);
    m_direct = CreateCollectiveAlgorithm("direct");
    m_chain.assign(ranks, NONE);
    m_x.assign(ranks, NONE);
    m_xKind.assign(ranks, TrainingComputeOp::WAIT_NONE);
    m_xSend.assign(ranks, NONE);
    m_xReady.assign(ranks, NONE);
    m_lastBucket.assign(ranks, NONE);
    const std::size_t msgs = 2 * static_cast<std::size_t>(m_pv) * m_m * m_dp * m_tp;
    m_msgDone.assign(msgs, NONE);
    m_msgSend.assign(msgs, NONE);
    m_msgReady.assign(msgs, NONE);
    m_msgGroup.assign(msgs, NONE);
    m_pending.resize(m_pp);
    m_info.sizes = m_z;
    m_info.tpSize = m_tp;
    m_info.ppSize = m_pp;
    m_info.dpSize = m_dp;
}

uint32_t
TrainingBuilder::AddGroup(const WorkloadGroup& g, const TrainingGroupInfo& gi)
{
    uint32_t index = 0;
    if (g.algorithm.empty() || g.algorithm == "none")
    {
        index = m_wl.AddGroup(g); // compute: no messages
    }
    else
    {
        // Every communication group runs the job's protocol; its chunk is the job's.
        WorkloadGroup r = g;
        ProtocolOverrides given;
        given.chunk = true;
        given.slots = m_spec.slots > 0;
        r.protocol = m_spec.protocol;
        r.slots = m_spec.slots;
        r.kernelBytesPerSecond = m_spec.kernelBytesPerSecond;
        if (m_resolve)
        {
            m_resolve(r, given);
        }
        else
        {
            ApplyProtocol(r, r.protocol == Protocol::AUTO ? Protocol::SIMPLE : r.protocol, given);
        }
        index = m_wl.AddGroup(r);
    }
    m_info.groups.push_back(gi);
    m_info.groups.back().group = index;
    return index;
}

uint32_t
TrainingBuilder::Compute(uint32_t r,
                         Time d,
                         TrainingComputeOp::Phase phase,
                         TrainingComputeOp::Part part,
                         uint32_t layer,
                         uint32_t mb,
                         uint32_t chunk,
                         bool waitInput)
{
    WorkloadOp op;
    op.kind = WorkloadOp::DELAY;
    op.group = m_info.computeGroup;
    op.rank = m_gpu[r];
    op.duration = d;
    const uint32_t id = m_wl.AddOp(op);
    const uint32_t prev = m_chain[r] != NONE ? m_chain[r] : m_start[r];
    if (prev != NONE)
    {
        m_wl.AddDependency(prev, id);
    }
    TrainingComputeOp c;
    c.op = id;
    c.microBatch = mb;
    c.layer = layer;
    c.chunk = chunk;
    c.phase = phase;
    c.part = part;
    if (waitInput && m_x[r] != NONE && m_xKind[r] != TrainingComputeOp::WAIT_NONE)
    {
        m_wl.AddDependency(m_x[r], id);
        c.wait = static_cast<TrainingComputeOp::Wait>(m_xKind[r]);
        c.waitOp = m_x[r];
        c.waitSend = m_xSend[r];
        c.waitReady = m_xReady[r];
    }
    TrainingRankInfo& ri = m_info.ranks[r];
    ri.compute.push_back(c);
    ri.computeTime += d;
    m_chain[r] = id;
    return id;
}

uint32_t
TrainingBuilder::Join(uint32_t r, uint32_t a, uint32_t b)
{
    if (a == NONE || b == NONE || a == b)
    {
        return a == NONE ? b : a;
    }
    WorkloadOp op;
    op.kind = WorkloadOp::DELAY;
    op.group = m_info.computeGroup;
    op.rank = m_gpu[r];
    const uint32_t id = m_wl.AddOp(op);
    m_wl.AddDependency(a, id);
    m_wl.AddDependency(b, id);
    return id;
}

uint32_t
TrainingBuilder::Input(uint32_t r)
{
    if (m_x[r] != NONE)
    {
        return m_x[r];
    }
    if (m_chain[r] != NONE)
    {
        return m_chain[r];
    }
    if (m_start[r] != NONE)
    {
        return m_start[r];
    }
    WorkloadOp op;
    op.kind = WorkloadOp::DELAY;
    op.group = m_info.computeGroup;
    op.rank = m_gpu[r];
    return m_wl.AddOp(op);
}

void
TrainingBuilder::StageCompute(uint32_t s,
                              TrainingComputeOp::Phase phase,
                              TrainingComputeOp::Part part,
                              uint32_t layer,
                              uint32_t mb,
                              uint32_t chunk,
                              Time d,
                              std::vector<uint32_t>* ops)
{
    const bool weight = phase == TrainingComputeOp::BACKWARD_WEIGHT;
    for (uint32_t dd = 0; dd < m_dp; ++dd)
    {
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            const uint32_t r = Rank(t, s, dd);
            const uint32_t id = Compute(r, d, phase, part, layer, mb, chunk, !weight);
            if (ops)
            {
                (*ops)[t + m_tp * dd] = id;
            }
            if (!weight)
            {
                // A W op does not produce the tensor that flows on.
                m_x[r] = id;
                m_xKind[r] = TrainingComputeOp::WAIT_NONE;
                m_xSend[r] = NONE;
                m_xReady[r] = NONE;
            }
        }
    }
}

void
TrainingBuilder::TensorCollective(uint32_t s, const std::string& what, uint32_t layer, uint32_t mb)
{
    if (m_tp == 1)
    {
        return;
    }
    const std::vector<std::string> ops
        = m_spec.sequenceParallel ? std::vector<std::string>{"reduce-scatter", "all-gather"}
                                  : std::vector<std::string>{"all-reduce"};
    for (uint32_t d = 0; d < m_dp; ++d)
    {
        WorkloadGroup g;
        g.algorithm = m_spec.tpAlgorithm;
        g.bytes = m_z.tpBytes;
        g.channels = m_spec.tpChannels;
        g.chunkBytes = ChunkOf(m_spec.chunkBytes, *m_tpAlgo);
        g.ranks.resize(m_tp);
        std::vector<uint32_t> starts(m_tp);
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            g.ranks[t] = m_gpu[Rank(t, s, d)];
            starts[t] = Input(Rank(t, s, d));
        }
        g.ringOrder = m_spec.ringOrder;
        PlanChannels(g, m_wl.GetPlaces());
        TrainingGroupInfo gi;
        gi.kind = TrainingGroupInfo::TENSOR;
        gi.stage = s;
        gi.microBatch = mb;
        gi.layer = layer;
        for (const std::string& op : ops)
        {
            g.op = op;
            g.name = m_prefix + "/tp/s" + Str(s) + "/d" + Str(d) + "/l" + Str(layer) + "/mb"
                     + Str(mb) + "/" + what
                     + (ops.size() > 1 ? (op[0] == 'r' ? "-rs" : "-ag") : "");
            const uint32_t gid = AddGroup(g, gi);
            starts = m_tpAlgo->Build(m_wl, gid, starts);
        }
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            const uint32_t r = Rank(t, s, d);
            m_x[r] = starts[t];
            m_xKind[r] = TrainingComputeOp::WAIT_TENSOR;
            m_xSend[r] = NONE;
            m_xReady[r] = NONE;
        }
    }
}

void
TrainingBuilder::ExpertAllToAll(uint32_t s,
                                uint32_t layer,
                                uint32_t mb,
                                TrainingGroupInfo::Kind kind)
{
    if (m_ep == 1)
    {
        return; // every expert is local
    }
    const bool ownersSend = kind == TrainingGroupInfo::MOE_DISPATCH
                            || kind == TrainingGroupInfo::MOE_COMBINE_BACKWARD;
    const bool dispatchType = kind == TrainingGroupInfo::MOE_DISPATCH
                              || kind == TrainingGroupInfo::MOE_DISPATCH_BACKWARD;
    const uint64_t perElement
        = dispatchType ? (m_spec.dispatchBytesPerElement ? m_spec.dispatchBytesPerElement
                                                         : m_spec.bytesPerElement)
                       : (m_spec.combineBytesPerElement ? m_spec.combineBytesPerElement
                                                        : m_spec.bytesPerElement);
    const uint64_t perCopy = m_spec.hidden * perElement;
    const char* names[]
        = {"", "", "", "", "", "", "dispatch", "combine", "combine-bwd", "dispatch-bwd"};
    const uint32_t n = m_ep;
    for (uint32_t t = 0; t < m_tp; ++t)
    {
        for (uint32_t b = 0; b < m_blocks; ++b)
        {
            const MoeGroupRouting& rt = Routing(layer, t, b);
            WorkloadGroup g;
            g.name = m_prefix + "/ep/s" + Str(s) + "/t" + Str(t) + "/b" + Str(b) + "/l" + Str(layer)
                     + "/mb" + Str(mb) + "/" + names[kind];
            g.op = "all-to-all";
            g.algorithm = "direct";
            g.bytes = m_z.tokensPerEpRank * m_spec.topK * perCopy;
            g.ranks.resize(n);
            g.matrix.assign(static_cast<std::size_t>(n) * n, 0);
            std::vector<uint32_t> starts(n);
            for (uint32_t q = 0; q < n; ++q)
            {
                const uint32_t r = Rank(t, s, b * m_ep + q);
                g.ranks[q] = m_gpu[r];
                starts[q] = Input(r);
                for (uint32_t q2 = 0; q2 < n; ++q2)
                {
                    const uint64_t c = rt.pairCopies[static_cast<std::size_t>(q) * n + q2];
                    // Owners -> experts: row q (source); experts -> owners: the transpose.
                    const std::size_t at = ownersSend ? static_cast<std::size_t>(q) * n + q2
                                                      : static_cast<std::size_t>(q2) * n + q;
                    g.matrix[at] = q == q2 ? 0 : c * perCopy;
                }
            }
            TrainingGroupInfo gi;
            gi.kind = kind;
            gi.stage = s;
            gi.microBatch = mb;
            gi.layer = layer;
            const uint32_t gid = AddGroup(g, gi);
            const std::vector<uint32_t> done = m_direct->Build(m_wl, gid, starts);
            for (uint32_t q = 0; q < n; ++q)
            {
                const uint32_t r = Rank(t, s, b * m_ep + q);
                m_x[r] = done[q];
                m_xKind[r] = TrainingComputeOp::WAIT_EXPERT;
                m_xSend[r] = NONE;
                m_xReady[r] = NONE;
            }
        }
    }
}

void
TrainingBuilder::ExpertCompute(uint32_t s,
                               TrainingComputeOp::Phase phase,
                               uint32_t layer,
                               uint32_t mb,
                               uint32_t chunk,
                               std::vector<uint32_t>* ops)
{
    const bool weight = phase == TrainingComputeOp::BACKWARD_WEIGHT;
    const double perCopy = 2 * m_z.expertParams * m_z.scale;
    for (uint32_t d = 0; d < m_dp; ++d)
    {
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            const uint32_t r = Rank(t, s, d);
            const uint32_t b = d / m_ep;
            const uint32_t q = d % m_ep;
            const double copies = Routing(layer, t, b).received[q];
            const uint32_t id = Compute(r,
                                        Duration(perCopy * copies),
                                        phase,
                                        TrainingComputeOp::EXPERTS,
                                        layer,
                                        mb,
                                        chunk,
                                        !weight);
            if (ops)
            {
                (*ops)[t + m_tp * d] = id;
            }
            if (!weight)
            {
                m_x[r] = id;
                m_xKind[r] = TrainingComputeOp::WAIT_NONE;
                m_xSend[r] = NONE;
                m_xReady[r] = NONE;
            }
        }
    }
}

void
TrainingBuilder::PipelineSend(uint32_t s, uint32_t vs, bool forward, uint32_t mb)
{
    const uint32_t vsDst = forward ? vs + 1 : vs - 1;
    const uint32_t sDst = vsDst % m_pp;
    for (uint32_t d = 0; d < m_dp; ++d)
    {
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            const uint32_t r = Rank(t, s, d);
            const uint32_t rd = Rank(t, sDst, d);
            WorkloadGroup g;
            g.name = m_prefix + "/pp/" + (forward ? "fwd" : "bwd") + "/v" + Str(vs) + "-v"
                     + Str(vsDst) + "/mb" + Str(mb) + "/t" + Str(t) + "/d" + Str(d);
            g.op = "send-recv";
            g.algorithm = "direct";
            g.bytes = m_z.activationBytes;
            g.ranks = {m_gpu[r], m_gpu[rd]};
            g.transfers.push_back(WorkloadTransfer{0, 1, m_z.activationBytes});
            TrainingGroupInfo gi;
            gi.kind = forward ? TrainingGroupInfo::PIPELINE_FORWARD
                              : TrainingGroupInfo::PIPELINE_BACKWARD;
            gi.stage = s;
            gi.chunk = vs / m_pp;
            gi.microBatch = mb;
            uint32_t sendOp = m_wl.GetOps().size();
            const uint32_t gid = AddGroup(g, gi);
            const uint32_t ready = Input(r);
            const std::vector<uint32_t> done = m_direct->Build(m_wl, gid, {ready});
            // Its one SEND (after the launch op, when the protocol has a launch latency).
            while (sendOp < m_wl.GetOps().size() && m_wl.GetOps()[sendOp].kind != WorkloadOp::SEND)
            {
                ++sendOp;
            }
            NS_ABORT_MSG_IF(sendOp == m_wl.GetOps().size(),
                            "pipeline message: the direct send-recv has no SEND");
            m_info.groups.back().sendOp = sendOp;
            const std::size_t k = MessageIndex(forward, vsDst, mb, t, d);
            m_msgDone[k] = done[1];
            m_msgSend[k] = sendOp;
            m_msgReady[k] = ready;
            m_msgGroup[k] = gid;
            m_info.ranks[r].steps.back().sendGroup = gid;
        }
    }
}

bool
TrainingBuilder::StepReady(uint32_t s, const PipelineStep& st) const
{
    const uint32_t vs = st.chunk * m_pp + s;
    if (st.forward)
    {
        return vs == 0 || m_msgDone[MessageIndex(true, vs, st.microBatch, 0, 0)] != NONE;
    }
    return vs == m_pv - 1 || m_msgDone[MessageIndex(false, vs, st.microBatch, 0, 0)] != NONE;
}

void
TrainingBuilder::BuildStep(uint32_t s, const PipelineStep& st)
{
    using C = TrainingComputeOp;
    const uint32_t c = st.chunk;
    const uint32_t mb = st.microBatch;
    const uint32_t vs = c * m_pp + s;
    const bool first = vs == 0;
    const bool last = vs == m_pv - 1;
    const bool head = last && m_spec.vocabulary > 0;
    const double tokens = m_z.tokensPerMicroBatch;
    const double sc = m_z.scale;
    const double attnScore = 4.0 * m_spec.microBatchSize * m_spec.sequence * m_spec.sequence
                             * static_cast<double>(m_spec.hidden);
    const double router = m_z.routerParams * sc;

    // Inputs and step bookkeeping.
    for (uint32_t d = 0; d < m_dp; ++d)
    {
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            const uint32_t r = Rank(t, s, d);
            TrainingStepInfo si;
            si.step = st;
            si.firstCompute = m_info.ranks[r].compute.size();
            const bool receives = st.forward ? !first : !last;
            m_x[r] = NONE;
            m_xKind[r] = C::WAIT_NONE;
            m_xSend[r] = NONE;
            m_xReady[r] = NONE;
            if (receives)
            {
                const std::size_t k = MessageIndex(st.forward, vs, mb, t, d);
                m_x[r] = m_msgDone[k];
                m_xKind[r] = C::WAIT_PIPELINE;
                m_xSend[r] = m_msgSend[k];
                m_xReady[r] = m_msgReady[k];
                si.recvGroup = m_msgGroup[k];
            }
            m_info.ranks[r].steps.push_back(si);
        }
    }
    const uint32_t firstLayer = vs * m_lc;
    if (st.forward)
    {
        for (uint32_t l = firstLayer; l < firstLayer + m_lc; ++l)
        {
            const bool moe = m_z.isMoe[l];
            const double attn = 2 * tokens * m_z.attentionParams * sc + attnScore
                                + (moe ? 2 * tokens * router : 0);
            StageCompute(s, C::FORWARD, C::ATTENTION, l, mb, c, Duration(attn / m_tp));
            TensorCollective(s, "fwd-attn", l, mb);
            if (!moe)
            {
                StageCompute(s,
                             C::FORWARD,
                             C::MLP,
                             l,
                             mb,
                             c,
                             Duration(2 * tokens * m_z.mlpParams * sc / m_tp));
                TensorCollective(s, "fwd-mlp", l, mb);
            }
            else
            {
                ExpertAllToAll(s, l, mb, TrainingGroupInfo::MOE_DISPATCH);
                ExpertCompute(s, C::FORWARD, l, mb, c, nullptr);
                ExpertAllToAll(s, l, mb, TrainingGroupInfo::MOE_COMBINE);
            }
        }
        if (head)
        {
            StageCompute(s,
                         C::FORWARD,
                         C::HEAD,
                         m_spec.layers,
                         mb,
                         c,
                         Duration(2 * tokens * m_z.headParams * sc / m_tp));
        }
        if (!last)
        {
            PipelineSend(s, vs, true, mb);
        }
    }
    else
    {
        const bool lastBackward = mb == m_lastBwdMb[s][c];
        std::vector<Segment> segs;
        const std::size_t stageRanks = static_cast<std::size_t>(m_tp) * m_dp;
        auto segment = [&](double params, bool expert) -> std::vector<uint32_t>* {
            if (!lastBackward)
            {
                return nullptr;
            }
            segs.push_back(Segment{params, expert, std::vector<uint32_t>(stageRanks, NONE)});
            return &segs.back().w;
        };
        if (head)
        {
            const Time d = Duration(2 * tokens * m_z.headParams * sc / m_tp);
            StageCompute(s, C::BACKWARD_INPUT, C::HEAD, m_spec.layers, mb, c, d);
            TensorCollective(s, "bwd-head", m_spec.layers, mb);
            StageCompute(s,
                         C::BACKWARD_WEIGHT,
                         C::HEAD,
                         m_spec.layers,
                         mb,
                         c,
                         d,
                         segment(m_z.headParams * sc / m_tp, false));
        }
        for (uint32_t l = firstLayer + m_lc; l-- > firstLayer;)
        {
            const bool moe = m_z.isMoe[l];
            if (!moe)
            {
                const Time d = Duration(2 * tokens * m_z.mlpParams * sc / m_tp);
                StageCompute(s, C::BACKWARD_INPUT, C::MLP, l, mb, c, d);
                TensorCollective(s, "bwd-mlp", l, mb);
                StageCompute(s,
                             C::BACKWARD_WEIGHT,
                             C::MLP,
                             l,
                             mb,
                             c,
                             d,
                             segment(m_z.mlpParams * sc / m_tp, false));
            }
            else
            {
                ExpertAllToAll(s, l, mb, TrainingGroupInfo::MOE_COMBINE_BACKWARD);
                ExpertCompute(s, C::BACKWARD_INPUT, l, mb, c, nullptr);
                ExpertAllToAll(s, l, mb, TrainingGroupInfo::MOE_DISPATCH_BACKWARD);
                ExpertCompute(
                    s,
                    C::BACKWARD_WEIGHT,
                    l,
                    mb,
                    c,
                    segment(static_cast<double>(m_spec.experts / m_ep) * m_z.expertParams * sc,
                            true));
            }
            const double weights
                = 2 * tokens * m_z.attentionParams * sc + (moe ? 2 * tokens * router : 0);
            StageCompute(s,
                         C::BACKWARD_INPUT,
                         C::ATTENTION,
                         l,
                         mb,
                         c,
                         Duration((weights + 2 * attnScore) / m_tp));
            TensorCollective(s, "bwd-attn", l, mb);
            StageCompute(s,
                         C::BACKWARD_WEIGHT,
                         C::ATTENTION,
                         l,
                         mb,
                         c,
                         Duration(weights / m_tp),
                         segment(m_z.attentionParams * sc / m_tp + (moe ? router : 0), false));
        }
        if (first && m_spec.vocabulary > 0 && lastBackward)
        {
            // The embedding's gradient is complete with the chunk's last W op.
            Segment e{m_z.embeddingParams * sc / m_tp, false, segs.back().w};
            segs.push_back(e);
        }
        if (!first)
        {
            // Megatron sends the input gradient when backward_step() returns: after the
            // whole autograd pass, the last W op included.
            for (uint32_t d = 0; d < m_dp; ++d)
            {
                for (uint32_t t = 0; t < m_tp; ++t)
                {
                    const uint32_t r = Rank(t, s, d);
                    if (m_xKind[r] != C::WAIT_NONE)
                    {
                        m_x[r] = Join(r, m_x[r], m_chain[r]);
                        m_xKind[r] = C::WAIT_NONE;
                    }
                    else
                    {
                        m_x[r] = m_chain[r];
                    }
                }
            }
            PipelineSend(s, vs, false, mb);
        }
        if (lastBackward)
        {
            if (m_spec.overlapGradReduce)
            {
                EmitBuckets(s, c, segs, false);
            }
            else
            {
                m_pending[s].emplace_back(c, std::move(segs));
            }
        }
    }
    for (uint32_t d = 0; d < m_dp; ++d)
    {
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            TrainingRankInfo& ri = m_info.ranks[Rank(t, s, d)];
            ri.steps.back().lastCompute = ri.compute.size() - 1;
        }
    }
}

void
TrainingBuilder::EmitBuckets(uint32_t s, uint32_t c, const std::vector<Segment>& segs, bool atEnd)
{
    const double gradBytes
        = m_spec.gradBytesPerElement ? m_spec.gradBytesPerElement : m_spec.bytesPerElement;
    double acc[2] = {0, 0};
    const std::vector<uint32_t>* lastW[2] = {nullptr, nullptr};
    for (const Segment& seg : segs)
    {
        const int e = seg.expert ? 1 : 0;
        acc[e] += seg.params * gradBytes;
        lastW[e] = &seg.w;
        if (acc[e] >= static_cast<double>(m_spec.bucketBytes))
        {
            Bucket(s, c, seg.expert, acc[e], seg.w, atEnd);
            acc[e] = 0;
        }
    }
    for (int e = 0; e < 2; ++e)
    {
        if (acc[e] > 0)
        {
            Bucket(s, c, e == 1, acc[e], *lastW[e], atEnd);
        }
    }
}

void
TrainingBuilder::Bucket(uint32_t s,
                        uint32_t c,
                        bool expert,
                        double bytes,
                        const std::vector<uint32_t>& ready,
                        bool atEnd)
{
    // Member lists (canonical ranks): DP: same (t, s), every d; expert DP: same
    // (s, EP position q), every t and EP block.
    std::vector<std::vector<uint32_t>> groups;
    if (!expert)
    {
        if (m_dp == 1)
        {
            return;
        }
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            groups.emplace_back();
            for (uint32_t d = 0; d < m_dp; ++d)
            {
                groups.back().push_back(Rank(t, s, d));
            }
        }
    }
    else
    {
        if (m_tp * m_blocks == 1)
        {
            return;
        }
        for (uint32_t q = 0; q < m_ep; ++q)
        {
            groups.emplace_back();
            for (uint32_t b = 0; b < m_blocks; ++b)
            {
                for (uint32_t t = 0; t < m_tp; ++t)
                {
                    groups.back().push_back(Rank(t, s, b * m_ep + q));
                }
            }
        }
    }
    const uint64_t size = std::max<uint64_t>(1, std::llround(bytes));
    for (const std::vector<uint32_t>& members : groups)
    {
        TrainingBucketInfo bi;
        bi.expert = expert;
        bi.stage = s;
        bi.chunk = c;
        bi.bytes = size;
        bi.ranks = members;
        WorkloadGroup g;
        g.name = m_prefix + (expert ? "/edp/s" : "/dp/s") + Str(s) + "/c" + Str(c) + "/bucket"
                 + Str(m_info.buckets.size());
        g.op = "all-reduce";
        g.algorithm = m_spec.dpAlgorithm;
        g.bytes = size;
        g.channels = m_spec.dpChannels;
        g.chunkBytes = ChunkOf(m_spec.chunkBytes, *m_dpAlgo);
        std::vector<uint32_t> starts;
        for (const uint32_t r : members)
        {
            const uint32_t t = r % m_tp;
            const uint32_t d = r / (m_tp * m_pp);
            const uint32_t rdy = atEnd ? m_chain[r] : ready[t + m_tp * d];
            g.ranks.push_back(m_gpu[r]);
            bi.readyOps.push_back(rdy);
            starts.push_back(Join(r, rdy, m_lastBucket[r]));
        }
        g.ringOrder = m_spec.ringOrder;
        PlanChannels(g, m_wl.GetPlaces());
        TrainingGroupInfo gi;
        gi.kind = expert ? TrainingGroupInfo::EXPERT_DATA : TrainingGroupInfo::DATA;
        gi.stage = s;
        gi.chunk = c;
        gi.bucket = m_info.buckets.size();
        const uint32_t gid = AddGroup(g, gi);
        bi.group = gid;
        bi.doneOps = BuildWithQpBase(*m_dpAlgo, m_wl, gid, starts, DP_QP_BASE);
        for (std::size_t i = 0; i < members.size(); ++i)
        {
            m_lastBucket[members[i]] = bi.doneOps[i];
        }
        m_info.buckets.push_back(std::move(bi));
    }
}

void
TrainingBuilder::PrepareMoe()
{
    m_moeIndex.assign(m_spec.layers, NONE);
    if (m_z.moeLayerCount == 0)
    {
        return;
    }
    const uint32_t n = m_ep;
    const uint32_t experts = m_spec.experts;
    MoeRouter router(m_spec.routing, n, experts, m_spec.topK);
    ExpertPlacement placement(m_spec.expertPlacement);
    m_info.streams += router.AssignStreams(m_stream);
    m_info.streams += placement.AssignStreams(m_stream + 2);
    const bool aware = m_spec.expertPlacement == "topology-aware";
    const uint64_t tokens = m_z.tokensPerEpRank;
    const uint64_t bd
        = m_spec.dispatchBytesPerElement ? m_spec.dispatchBytesPerElement : m_spec.bytesPerElement;
    const uint64_t bc
        = m_spec.combineBytesPerElement ? m_spec.combineBytesPerElement : m_spec.bytesPerElement;
    for (uint32_t l = 0; l < m_spec.layers; ++l)
    {
        if (!m_z.isMoe[l])
        {
            continue;
        }
        router.NewLayer();
        const uint32_t s = (l / m_lc) % m_pp;
        std::vector<uint32_t> layerAt;
        std::vector<double> affinity;
        if (aware)
        {
            affinity = router.ExpectedCopies(tokens);
        }
        else
        {
            layerAt = placement.Place(experts, n, {}, {});
        }
        m_moeIndex[l] = m_info.moe.size();
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            for (uint32_t b = 0; b < m_blocks; ++b)
            {
                MoeGroupRouting rt;
                rt.layer = l;
                std::vector<uint32_t> dom(n);
                for (uint32_t q = 0; q < n; ++q)
                {
                    rt.ranks.push_back(Rank(t, s, b * n + q));
                    dom[q] = m_domain[m_gpu[rt.ranks.back()]];
                }
                rt.copies = router.Draw(tokens);
                rt.tokenCopies = std::accumulate(rt.copies.begin(), rt.copies.end(), uint64_t{0});
                rt.dropped = ApplyExpertCapacity(rt.copies, n, experts, m_spec.capacityFactor);
                rt.expertRank = aware ? placement.Place(experts, n, dom, affinity) : layerAt;
                rt.pairCopies.assign(static_cast<std::size_t>(n) * n, 0);
                rt.received.assign(n, 0);
                for (uint32_t q = 0; q < n; ++q)
                {
                    for (uint32_t e = 0; e < experts; ++e)
                    {
                        const uint64_t c = rt.copies[static_cast<std::size_t>(q) * experts + e];
                        const uint32_t q2 = rt.expertRank[e];
                        rt.pairCopies[static_cast<std::size_t>(q) * n + q2] += c;
                        rt.received[q2] += c;
                        rt.sameRank += q == q2 ? c : 0;
                        rt.sameDomain += dom[q] == dom[q2] ? c : 0;
                    }
                }
                uint64_t remote = 0;
                for (uint32_t q = 0; q < n; ++q)
                {
                    for (uint32_t q2 = 0; q2 < n; ++q2)
                    {
                        remote += q == q2 ? 0 : rt.pairCopies[static_cast<std::size_t>(q) * n + q2];
                    }
                }
                MoeTrafficTotals& tot = m_info.moeTotals;
                tot.tokenCopies += rt.tokenCopies * m_m;
                tot.dropped += rt.dropped * m_m;
                tot.sameRank += rt.sameRank * m_m;
                tot.sameDomain += rt.sameDomain * m_m;
                // Forward dispatch + combine and their backward pair, per micro-batch.
                tot.networkBytes += n > 1 ? 2 * remote * m_spec.hidden * (bd + bc) * m_m : 0;
                m_info.moe.push_back(std::move(rt));
            }
        }
    }
}

TrainingWorkloadInfo
TrainingBuilder::Build()
{
    const uint32_t ranks = m_gpu.size();
    m_info.firstGroup = m_wl.GetGroups().size();
    m_info.firstOp = m_wl.GetOps().size();
    // Rough op and dependency counts, so the vectors grow once.
    const uint64_t layersPerStage = static_cast<uint64_t>(m_lc) * m_v;
    const uint64_t perRankStep = layersPerStage * (6 + (m_tp > 1 ? 4 * (2 * m_tp + 1) : 0));
    const uint64_t estimate = ranks * static_cast<uint64_t>(m_m) * perRankStep;
    m_wl.Reserve(m_wl.GetOps().size() + estimate, 2 * estimate);

    WorkloadGroup compute;
    compute.name = m_prefix + "/compute";
    compute.op = "compute";
    compute.algorithm = "none";
    compute.ranks = m_gpu;
    TrainingGroupInfo ci;
    ci.kind = TrainingGroupInfo::COMPUTE;
    m_info.computeGroup = AddGroup(compute, ci);

    m_info.ranks.resize(ranks);
    for (uint32_t d = 0; d < m_dp; ++d)
    {
        for (uint32_t s = 0; s < m_pp; ++s)
        {
            for (uint32_t t = 0; t < m_tp; ++t)
            {
                TrainingRankInfo& ri = m_info.ranks[Rank(t, s, d)];
                ri.gpu = m_gpu[Rank(t, s, d)];
                ri.tp = t;
                ri.pp = s;
                ri.dp = d;
                ri.startOp = m_start[Rank(t, s, d)];
                if (m_z.moeLayerCount > 0)
                {
                    ri.epGroup = (s * m_tp + t) * m_blocks + d / m_ep;
                    ri.epPosition = d % m_ep;
                }
            }
        }
    }
    PrepareMoe();

    const Ptr<PipelineSchedule> schedule = CreatePipelineSchedule(m_spec.schedule);
    NS_ABORT_MSG_IF(!schedule, "unknown pipeline schedule '" << m_spec.schedule << "'");
    std::vector<std::vector<PipelineStep>> order(m_pp);
    for (uint32_t s = 0; s < m_pp; ++s)
    {
        order[s] = schedule->Order(m_pp, s, m_m, m_v);
    }
    // The last backward micro-batch of every chunk: its W ops complete the buckets.
    m_lastBwdMb.assign(m_pp, std::vector<uint32_t>(m_v, NONE));
    for (uint32_t s = 0; s < m_pp; ++s)
    {
        for (const PipelineStep& st : order[s])
        {
            if (!st.forward)
            {
                m_lastBwdMb[s][st.chunk] = st.microBatch;
            }
        }
    }
    std::vector<std::size_t> next(m_pp, 0);
    uint32_t finished = 0;
    while (finished < m_pp)
    {
        bool progress = false;
        for (uint32_t s = 0; s < m_pp; ++s)
        {
            if (next[s] == order[s].size())
            {
                continue;
            }
            while (next[s] < order[s].size() && StepReady(s, order[s][next[s]]))
            {
                BuildStep(s, order[s][next[s]]);
                ++next[s];
                progress = true;
            }
            if (next[s] == order[s].size())
            {
                ++finished;
                for (auto& [c, segs] : m_pending[s])
                {
                    EmitBuckets(s, c, segs, true);
                }
                m_pending[s].clear();
            }
        }
        NS_ABORT_MSG_IF(!progress, "BuildTrainingWorkload: the pipeline schedule deadlocks");
    }
    for (uint32_t r = 0; r < ranks; ++r)
    {
        WorkloadOp op;
        op.kind = WorkloadOp::DELAY;
        op.group = m_info.computeGroup;
        op.rank = m_gpu[r];
        const uint32_t end = m_wl.AddOp(op);
        for (const uint32_t before : {m_chain[r], m_lastBucket[r], m_start[r]})
        {
            if (before != NONE)
            {
                m_wl.AddDependency(before, end);
            }
        }
        m_info.ranks[r].endOp = end;
    }
    return std::move(m_info);
}

} // namespace

TrainingWorkloadInfo
BuildTrainingWorkload(const TrainingSpec& spec,
                      Workload& workload,
                      uint32_t gpuCount,
                      const std::vector<uint32_t>& gpuDomain,
                      const std::vector<uint32_t>& startOps,
                      int64_t stream,
                      const ProtocolResolver& resolve)
{
    NS_LOG_FUNCTION(gpuCount << stream);
    const std::string problem = ValidateTrainingSpec(spec, gpuCount, gpuDomain);
    NS_ABORT_MSG_IF(!problem.empty(), "BuildTrainingWorkload: " << problem);
    NS_ABORT_MSG_IF(!startOps.empty() && startOps.size() != gpuCount,
                    "BuildTrainingWorkload: one start op per GPU");
    TrainingBuilder b(spec, workload, gpuCount, gpuDomain, startOps, stream, resolve);
    return b.Build();
}

// --------------------------------------------------------------------- info

uint32_t
TrainingWorkloadInfo::Rank(uint32_t tp, uint32_t pp, uint32_t dp) const
{
    return tp + tpSize * (pp + ppSize * dp);
}

double
MoeTrafficTotals::LocalFraction() const
{
    const uint64_t kept = tokenCopies - dropped;
    return kept == 0 ? 1.0 : static_cast<double>(sameDomain) / kept;
}

Time
TrainingRunSummary::Iteration() const
{
    return end - start;
}

double
TrainingRunSummary::IdleFraction(uint32_t rank) const
{
    const Time it = Iteration();
    return it.IsStrictlyPositive() ? 1.0 - ranks.at(rank).compute.GetSeconds() / it.GetSeconds()
                                   : 0.0;
}

const char*
TrainingGroupInfo::KindName(uint32_t kind)
{
    static const char* const NAMES[KINDS] = {"compute",
                                             "tp",
                                             "pp-forward",
                                             "pp-backward",
                                             "dp",
                                             "expert-dp",
                                             "moe-dispatch",
                                             "moe-combine",
                                             "moe-combine-backward",
                                             "moe-dispatch-backward"};
    return kind < KINDS ? NAMES[kind] : "unknown";
}

TrainingRunSummary
SummarizeTrainingRun(const TrainingWorkloadInfo& info, const WorkloadExecution& runner)
{
    TrainingRunSummary sum;
    const uint32_t n = info.ranks.size();
    sum.ranks.resize(n);
    std::vector<int64_t> startPs(n, 0);
    int64_t first = INT64_MAX;
    int64_t last = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        const TrainingRankInfo& ri = info.ranks[r];
        startPs[r] = ri.startOp == NONE ? 0 : runner.GetOpEnd(ri.startOp).GetPicoSeconds();
        const int64_t end = runner.GetOpEnd(ri.endOp).GetPicoSeconds();
        NS_ABORT_MSG_IF(end < 0 || startPs[r] < 0,
                        "SummarizeTrainingRun: the iteration of rank " << r << " did not finish");
        first = std::min(first, startPs[r]);
        last = std::max(last, end);
    }
    sum.start = PicoSeconds(n ? first : 0);
    sum.end = PicoSeconds(last);
    for (uint32_t r = 0; r < n; ++r)
    {
        const TrainingRankInfo& ri = info.ranks[r];
        TrainingRankTimes& rt = sum.ranks[r];
        int64_t prevEnd = startPs[r];
        int64_t compute = 0;
        int64_t idle = startPs[r] - first;
        int64_t pipe = 0;
        int64_t tensor = 0;
        int64_t expert = 0;
        for (const TrainingComputeOp& c : ri.compute)
        {
            const int64_t s = runner.GetOpStart(c.op).GetPicoSeconds();
            const int64_t e = runner.GetOpEnd(c.op).GetPicoSeconds();
            const int64_t gap = s - prevEnd;
            if (gap > 0)
            {
                switch (c.wait)
                {
                    case TrainingComputeOp::WAIT_PIPELINE: {
                        // When the data was ready at the sender: the end of the op its
                        // message waited for (launch, post latency and kernel copy are
                        // communication, not the sender's compute).
                        const int64_t sent = c.waitReady != UINT32_MAX
                                                 ? runner.GetOpEnd(c.waitReady).GetPicoSeconds()
                                                 : runner.GetOpStart(c.waitSend).GetPicoSeconds();
                        const int64_t before = std::clamp<int64_t>(sent - prevEnd, 0, gap);
                        idle += before;
                        pipe += gap - before;
                        break;
                    }
                    case TrainingComputeOp::WAIT_TENSOR:
                        tensor += gap;
                        break;
                    case TrainingComputeOp::WAIT_EXPERT:
                        expert += gap;
                        break;
                    default:
                        idle += gap;
                        break;
                }
            }
            compute += e - s;
            prevEnd = e;
        }
        const int64_t end = runner.GetOpEnd(ri.endOp).GetPicoSeconds();
        rt.compute = PicoSeconds(compute);
        rt.exposedData = PicoSeconds(end - prevEnd);
        // A late start, a gap behind nothing but the previous compute op, and an early end are
        // the pipeline's fill and drain with stages; without them, the ranks' skew.
        const int64_t waiting = idle + (last - end);
        (info.ppSize > 1 ? rt.pipelineIdle : rt.skew) = PicoSeconds(waiting);
        rt.exposedPipeline = PicoSeconds(pipe);
        rt.exposedTensor = PicoSeconds(tensor);
        rt.exposedExpert = PicoSeconds(expert);
        rt.end = PicoSeconds(end);
    }
    return sum;
}

} // namespace ns3
