/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-runner.h"

#include "output/straggler-report.h"
#include "run/pcap-capture.h"
#include "run/progress-bar.h"
#include "run/run-checks.h"

#include "ns3/analytic-model.h"
#include "ns3/bisection-meter.h"
#include "ns3/boolean.h"
#include "ns3/channel-plan.h"
#include "ns3/collective-algorithm.h"
#include "ns3/cut-port-meter.h"
#include "ns3/direct-collective.h"
#include "ns3/fabric-bound.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fabric-stats.h"
#include "ns3/locality-domains.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/rdma-transport.h"
#include "ns3/relay-wait-meter.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/schedule-replay.h"
#include "ns3/simulator.h"
#include "ns3/straggler-ledger.h"
#include "ns3/string.h"
#include "ns3/training-workload.h"
#include "ns3/uinteger.h"
#include "ns3/workload-application.h"
#include "ns3/workload-execution.h"
#include "ns3/workload-helper.h"
#include "ns3/workload.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

using Clock = std::chrono::steady_clock;

double
SecondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// First random variable stream of the permutation collectives (one each, by index), far
/// above the training job's streams (TRAINING_STREAM_BASE up).
constexpr int64_t PERMUTATION_STREAM_BASE = int64_t{1} << 40;

/// \return what the collective's user gave of the values a protocol or algorithm fills
ProtocolOverrides
GivenOf(const CollectiveSpec& c)
{
    ProtocolOverrides given = c.given;
    given.channels = c.channels != WorkloadGroup::AUTO_CHANNELS;
    return given;
}

/// Turn the traffic description into a workload DAG.
void
BuildWorkload(const ScenarioSpec& spec, const FabricGraph& graph, Workload& wl)
{
    const uint32_t gpus = graph.GetGpuCount();
    for (std::size_t ci = 0; ci < spec.traffic.collectives.size(); ++ci)
    {
        const CollectiveSpec& c = spec.traffic.collectives[ci];
        Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(c.algorithm);
        if (!algo)
        {
            throw SpecError(c.where, "unknown algorithm '" + c.algorithm + "'");
        }
        if (!algo->Supports(c.op))
        {
            throw SpecError(c.where,
                            "algorithm '" + c.algorithm + "' does not implement '"
                                + CollectiveOpName(c.op) + "'");
        }
        WorkloadGroup g = MakeWorkloadGroup(c, gpus, wl.GetPlaces());
        for (const uint32_t r : g.ranks)
        {
            if (r >= gpus)
            {
                throw SpecError(c.ranksWhere,
                                "rank " + std::to_string(r) + " does not exist: the topology has "
                                    + std::to_string(gpus) + " GPUs");
            }
        }
        ResolveProtocol(graph, g, GivenOf(c), c.algorithmAuto); // and `algorithm: auto`
        if (g.op == "permutation" && g.ranks.size() >= 2)
        {
            // One stream per collective, seeded by the scenario (RngSeedManager).
            Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
            rng->SetStream(PERMUTATION_STREAM_BASE + static_cast<int64_t>(ci));
            g.transfers = MakePermutationTransfers(g.ranks.size(), g.bytes, rng);
        }
        // `algorithm: auto` was chosen on the fabric (MakeWorkloadGroup()).
        algo = CreateCollectiveAlgorithm(g.algorithm);
        const std::string tree = InNetworkProblem(graph, g); // SHARP's tree on this fabric
        if (!tree.empty())
        {
            throw SpecError(c.where, g.algorithm + " " + g.op + ": " + tree);
        }
        const std::string problem = algo->Validate(g);
        if (!problem.empty())
        {
            throw SpecError(c.where, g.algorithm + " " + g.op + ": " + problem);
        }
        const uint32_t group = wl.AddGroup(g);
        WorkloadOp start;
        start.kind = WorkloadOp::DELAY;
        start.group = group;
        start.rank = g.ranks.front();
        start.duration = c.start;
        const uint32_t startOp = wl.AddOp(start);
        algo->Build(wl, group, {startOp});
    }
}

/// First random variable stream of the training job (collectives use none).
constexpr int64_t TRAINING_STREAM_BASE = 1000;

/// What the training job added to the workload.
struct TrainingBuild
{
    TrainingSpec spec;                            //!< the job, gpusPerServer filled in
    std::vector<TrainingWorkloadInfo> iterations; //!< per iteration
};

/**
 * \param graph the fabric
 * \return GPUs per server when every GPU sits in a server of consecutive GPUs
 *         of one size, else 0 (unknown)
 */
uint32_t
GpusPerServer(const FabricGraph& graph)
{
    std::vector<uint32_t> serverOf(graph.GetGpuCount(), FabricGraph::NONE);
    for (const auto& n : graph.GetNodes())
    {
        if (n.kind == FabricGraph::NodeKind::GPU && n.gpu < serverOf.size())
        {
            serverOf[n.gpu] = n.server;
        }
    }
    if (serverOf.empty() || serverOf[0] == FabricGraph::NONE)
    {
        return 0;
    }
    uint32_t k = 0;
    while (k < serverOf.size() && serverOf[k] == serverOf[0])
    {
        ++k;
    }
    for (uint32_t g = 0; g < serverOf.size(); ++g)
    {
        if (serverOf[g] == FabricGraph::NONE || serverOf[g] != serverOf[(g / k) * k])
        {
            return 0;
        }
    }
    return serverOf.size() % k == 0 ? k : 0;
}

/// Validate the training job and append its iterations, chained per GPU.
void
BuildTraining(const ScenarioSpec& spec, const FabricGraph& graph, Workload& wl, TrainingBuild& tb)
{
    const TrafficSpec& t = spec.traffic;
    const uint32_t gpus = graph.GetGpuCount();
    tb.spec = t.training;
    if (tb.spec.gpusPerServer == 0)
    {
        tb.spec.gpusPerServer = GpusPerServer(graph);
    }
    const std::vector<uint32_t> domains = GpuLocalityDomains(graph, t.locality);
    if (domains.empty())
    {
        std::string known;
        for (const auto& l : LocalityLevelNames())
        {
            known += (known.empty() ? "" : ", ") + l;
        }
        throw SpecError(t.trainingWhere,
                        "unknown locality '" + t.locality + "' (known: " + known + ")");
    }
    if (t.iterations < 1)
    {
        throw SpecError(t.trainingWhere, "iterations must be at least 1");
    }
    const std::string problem = ValidateTrainingSpec(tb.spec, gpus, domains);
    if (!problem.empty())
    {
        throw SpecError(t.trainingWhere, "training: " + problem);
    }
    // `protocol: auto` is chosen per group on this fabric; groups of the same shape (op,
    // algorithm, size, channels, ranks) get the same choice, computed once.
    std::map<
        std::tuple<std::string, std::string, uint64_t, uint32_t, std::vector<uint32_t>, uint64_t>,
        Protocol>
        chosen;
    const auto choose = [&graph, &chosen](WorkloadGroup& g, const ProtocolOverrides& given) {
        if (g.protocol != Protocol::AUTO)
        {
            ApplyProtocol(g, g.protocol, given);
            return;
        }
        const auto key = std::make_tuple(g.op,
                                         g.algorithm,
                                         g.bytes,
                                         g.channels,
                                         g.ranks,
                                         LargestPeerMessage(g)); // the p2p rule reads it
        if (auto it = chosen.find(key); it != chosen.end())
        {
            ApplyProtocol(g, it->second, given);
            return;
        }
        chosen.emplace(key, ResolveProtocol(graph, g, given));
    };
    const ProtocolResolver resolve
        = [&graph, &choose, &t](WorkloadGroup& g, const ProtocolOverrides& given) {
              AttachReducers(graph, g); // the switches of `nvls` or `collnet` groups
              choose(g, given);
              // What only the fabric tells: NVLS needs the group in one NVSwitch domain, SHARP a
              // tree (and NCCL's Simple protocol).
              const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
              if (algo && algo->GetCapabilities().inNetwork)
              {
                  const std::string tree = InNetworkProblem(graph, g); // SHARP's tree
                  const std::string problem = tree.empty() ? algo->Validate(g) : tree;
                  if (!problem.empty())
                  {
                      throw SpecError(t.trainingWhere,
                                      "training: " + g.algorithm + " " + g.op + " of group '"
                                          + g.name + "': " + problem);
                  }
              }
          };
    std::vector<uint32_t> startOps;
    int64_t stream = TRAINING_STREAM_BASE;
    for (uint32_t it = 0; it < t.iterations; ++it)
    {
        TrainingSpec s = tb.spec;
        if (t.iterations > 1)
        {
            s.name = tb.spec.name + "/it" + std::to_string(it);
        }
        tb.iterations.push_back(
            BuildTrainingWorkload(s, wl, gpus, domains, startOps, stream, resolve));
        const TrainingWorkloadInfo& info = tb.iterations.back();
        stream += info.streams; // fresh routing draws every iteration
        startOps.assign(gpus, UINT32_MAX);
        for (const TrainingRankInfo& r : info.ranks)
        {
            startOps[r.gpu] = r.endOp;
        }
    }
    // `results: flows` names only kinds of group this job has (every iteration has the same).
    for (size_t i = 0; i < spec.resultFlowKinds.size(); ++i)
    {
        const std::string& k = spec.resultFlowKinds[i];
        const auto& groups = tb.iterations.front().groups;
        if (k != "all" && std::none_of(groups.begin(), groups.end(), [&k](const auto& g) {
                return k == TrainingGroupInfo::KindName(g.kind);
            }))
        {
            std::set<std::string> present;
            for (const TrainingGroupInfo& g : groups)
            {
                if (g.kind != TrainingGroupInfo::COMPUTE)
                {
                    present.insert(TrainingGroupInfo::KindName(g.kind));
                }
            }
            std::string names;
            for (const std::string& n : present)
            {
                names += (names.empty() ? "'" : ", '") + n + "'";
            }
            throw SpecError(i < spec.resultFlowKindsWhere.size() ? spec.resultFlowKindsWhere[i]
                                                                 : spec.resultFlowsWhere,
                            "flows: the training job has no '" + k
                                + "' group (tp needs tp > 1, pp-* pp > 1, dp dp > 1, expert-dp "
                                  "an expert-DP group of 2 or more, moe-* moe_layers and ep > 1); "
                                  "its kinds: "
                                + (names.empty() ? "none" : names));
        }
    }
}

/**
 * Prints a progress bar (FormatProgressLine()) on a timer of simulated time; counts its own
 * events. The timer adapts so that ticks come about every 20 to 200 ms of wall time: it
 * starts at 10 us simulated, doubles while ticks come faster than that (up to 1 s) and halves
 * when slower (down to 1 us), so the monitor costs a few dozen events per wall second.
 *
 * The share is of the workload's wire bytes accepted by the receivers, packet by packet
 * (the transports' byte counters, read at each print: nothing per packet). The ETA is the
 * wall time the simulated clock needs, at its rate over the EtaEstimator's window, to reach
 * the expected end (ExpectedEndS(): the workload's contention-free end, or the bytes'
 * projection when larger, capped by the stop time). Only reads: the run's results do not
 * depend on it.
 */
class ProgressMonitor
{
  public:
    /**
     * \param runner the workload's execution
     * \param transports the transports whose received bytes count
     * \param bytesTotal wire bytes the workload's messages carry, in all
     * \param idealEndS the workload's contention-free end, seconds (WorkloadIdealEnd)
     * \param stopS the scenario's stop time, seconds
     * \param options where to print, and after how long
     * \param t0 the run's wall-clock start
     */
    ProgressMonitor(Ptr<WorkloadExecution> runner,
                    std::vector<Ptr<RdmaTransport>> transports,
                    uint64_t bytesTotal,
                    double idealEndS,
                    double stopS,
                    const RunOptions& options,
                    Clock::time_point t0)
        : m_runner(runner)
        , m_transports(std::move(transports))
        , m_bytesTotal(bytesTotal)
        , m_idealEndS(idealEndS)
        , m_stopS(stopS)
        , m_out(options.progressOut ? options.progressOut : &std::cerr)
        , m_after(options.progressAfterS)
        , m_inPlace(options.progressInPlace)
        , m_t0(t0)
    {
    }

    void Tick()
    {
        ++m_events;
        if (m_runner->IsDone())
        {
            return;
        }
        const double wall = SecondsSince(m_t0);
        const double sinceTick = wall - m_lastTick;
        m_lastTick = wall;
        if (sinceTick < 0.02 && m_interval < Seconds(1))
        {
            m_interval = m_interval * 2;
        }
        else if (sinceTick > 0.2 && m_interval > MicroSeconds(1))
        {
            m_interval = m_interval / 2;
        }
        if (wall - m_lastPrint >= 0.5)
        {
            m_lastPrint = wall;
            m_eta.Add(wall, Simulator::Now().GetSeconds());
            if (wall >= m_after)
            {
                Print(wall);
            }
        }
        Simulator::Schedule(m_interval, &ProgressMonitor::Tick, this);
    }

    void Finish()
    {
        if (m_printed)
        {
            // The last state (100% when every byte arrived), then end the line.
            Print(SecondsSince(m_t0));
            if (m_inPlace)
            {
                *m_out << "\n" << std::flush;
            }
        }
    }

    uint64_t Events() const
    {
        return m_events;
    }

  private:
    double Share() const
    {
        if (m_bytesTotal == 0 || m_runner->IsDone())
        {
            return 1.0;
        }
        uint64_t delivered = 0;
        for (const Ptr<RdmaTransport>& t : m_transports)
        {
            delivered += t->GetBytesReceived();
        }
        return std::min(1.0, static_cast<double>(delivered) / static_cast<double>(m_bytesTotal));
    }

    void Print(double wall)
    {
        m_printed = true;
        ProgressState state;
        state.simS = Simulator::Now().GetSeconds();
        state.share = Share();
        state.wallS = wall;
        state.expectedEndS = m_runner->IsDone()
                                 ? state.simS
                                 : ExpectedEndS(state.simS, state.share, m_idealEndS, m_stopS);
        state.etaS = m_runner->IsDone() ? 0.0 : m_eta.SecondsLeft(state.expectedEndS);
        if (m_inPlace)
        {
            *m_out << "\r" << FormatProgressLine(state) << "\033[K" << std::flush;
        }
        else
        {
            *m_out << FormatProgressLine(state) << '\n' << std::flush;
        }
    }

    Ptr<WorkloadExecution> m_runner;
    std::vector<Ptr<RdmaTransport>> m_transports;
    uint64_t m_bytesTotal;
    double m_idealEndS;
    double m_stopS;
    std::ostream* m_out;
    double m_after;
    bool m_inPlace; //!< RunOptions::progressInPlace
    Clock::time_point m_t0;
    double m_lastPrint{0};
    double m_lastTick{0};
    Time m_interval{MicroSeconds(10)};
    EtaEstimator m_eta;
    bool m_printed{false};
    uint64_t m_events{0};
};

/// \return bytes in readable binary units, e.g. "38.4 MiB"
std::string
ReadableBytes(double bytes)
{
    static const char* const UNIT[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4)
    {
        bytes /= 1024;
        ++u;
    }
    char text[40];
    std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, UNIT[u]);
    return text;
}

/// \return the message refusing a run that would not fit in memory
std::string
MemoryRefusal(double estimate, uint64_t limit, bool explicitLimit)
{
    return "the run needs an estimated " + ReadableBytes(estimate) + " of memory ("
           + std::to_string(static_cast<uint64_t>(estimate)) + " bytes), more than the "
           + ReadableBytes(static_cast<double>(limit)) + " (" + std::to_string(limit) + " bytes) "
           + (explicitLimit ? "of --memory-limit" : "the machine has available (MemAvailable)")
           + "; refusing to start it";
}

/// Ends the run: the scenario's simulated-time limit has passed.
void
StopAtLimit()
{
    Simulator::Stop();
}

/// Stops the simulation the moment the workload is done (trace sink of its "Done").
void
StopWhenDone()
{
    Simulator::Stop();
}

/**
 * \brief Is straggler attribution on for this run (`attribution: enabled`: on, off, or auto =
 * on up to ATTRIBUTION_AUTO_MAX_MESSAGES messages, ResolveAttribution())?
 * \param spec the scenario
 * \param workload the workload
 * \return true to keep a straggler ledger
 */
bool
AttributionOn(const ScenarioSpec& spec, const Workload& workload)
{
    uint64_t messages = 0; // counted only where the setting depends on it
    if (spec.attribution == AttributionSetting::AUTO)
    {
        for (const WorkloadOp& op : workload.GetOps())
        {
            messages += op.kind == WorkloadOp::SEND ? 1 : 0;
        }
    }
    return ResolveAttribution(spec.attribution, messages);
}

/// Trace lanes (tid) of RunResults::traceLanes.
enum TraceLane : uint32_t
{
    LANE_COMPUTE = 0,    //!< compute ops
    LANE_TENSOR = 1,     //!< TP collectives
    LANE_PIPELINE = 2,   //!< pipeline messages
    LANE_DATA = 3,       //!< gradient bucket all-reduces
    LANE_EXPERT = 4,     //!< MoE all-to-alls
    LANE_COLLECTIVE = 5, //!< the traffic's collectives
};

/// \return the lane names, by TraceLane
std::vector<std::string>
TraceLaneNames()
{
    return {"compute", "tp", "pp", "dp", "ep", "collectives"};
}

/// Number of TrainingGroupInfo::Kind values.
constexpr uint32_t TRAINING_KINDS = TrainingGroupInfo::KINDS;

/// \param kind a TrainingGroupInfo::Kind \return its name in the results
const char*
TrainingKindName(uint32_t kind)
{
    return TrainingGroupInfo::KindName(kind);
}

/// \param kind a TrainingGroupInfo::Kind \return its trace lane
uint32_t
TrainingKindLane(uint32_t kind)
{
    switch (kind)
    {
        case TrainingGroupInfo::TENSOR:
            return LANE_TENSOR;
        case TrainingGroupInfo::PIPELINE_FORWARD:
        case TrainingGroupInfo::PIPELINE_BACKWARD:
            return LANE_PIPELINE;
        case TrainingGroupInfo::DATA:
        case TrainingGroupInfo::EXPERT_DATA:
            return LANE_DATA;
        case TrainingGroupInfo::COMPUTE:
            return LANE_COMPUTE;
        default:
            return LANE_EXPERT;
    }
}

/**
 * \brief Every op of the run timed (docs/results-format.md, "Message timing"): when it ended,
 * a SEND's ideal time alone on an empty fabric, the fabric's delay to it, and when each op
 * would have ended without those delays (ScheduleReplay).
 */
struct OpTimes
{
    std::vector<int64_t> endPs;    //!< per op: its end, ps (-1: not done)
    std::vector<double> idealS;    //!< per op: a SEND's ideal FCT, seconds (NaN otherwise)
    std::vector<int64_t> delayPs;  //!< per op: a SEND's FCT - shared - ideal (>= 0), ps
    std::vector<int64_t> sharedPs; //!< per op: a SEND's shared time: its source port's time
                                   //!< on the sender's other packets, and its last packet's
                                   //!< wait at a relaying GPU's port (PXN), ps
    std::vector<int64_t> replayPs; //!< per op: its end without the fabric's delays, ps
};

/**
 * \brief Time every op of the run.
 * \param graph the fabric
 * \param workload the workload
 * \param runner the run
 * \param relay the relayed messages' waits at GPU ports (null: none)
 * \return the ops' times
 */
OpTimes
MeasureOps(const FabricGraph& graph,
           const Workload& workload,
           const WorkloadExecution& runner,
           const RelayWaitMeter* relay)
{
    const auto& ops = workload.GetOps();
    OpTimes t;
    t.endPs.resize(ops.size());
    t.idealS.assign(ops.size(), std::numeric_limits<double>::quiet_NaN());
    t.delayPs.assign(ops.size(), 0);
    t.sharedPs.assign(ops.size(), 0);
    std::vector<MessageQuery> queries;
    std::vector<uint32_t> sendOps;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        t.endPs[i] = runner.GetOpEnd(i).GetPicoSeconds();
        if (ops[i].kind == WorkloadOp::SEND && t.endPs[i] >= 0)
        {
            queries.push_back(
                MessageQuery{ops[i].rank, ops[i].peer, WireBytes(ops[i].wire, ops[i].bytes)});
            sendOps.push_back(i);
        }
    }
    const std::vector<double> ideal = MessageIdealTimes(graph, queries);
    for (std::size_t k = 0; k < sendOps.size(); ++k)
    {
        const uint32_t i = sendOps[k];
        t.idealS[i] = ideal[k];
        const WorkloadSendTiming st = runner.GetSendTiming(i);
        if (st.eligible.IsNegative())
        {
            continue;
        }
        // Relayed (PXN): the relay's NIC is its sending port, shared with the server's other
        // traffic; before its first packet left, its own port.
        const int64_t relayed
            = relay ? relay->GetSharedPs(ops[i].rank, runner.GetMessageId(i)) : -1;
        t.sharedPs[i] = relayed >= 0 ? st.sharedBeforeFirst.GetPicoSeconds() + relayed
                                     : st.shared.GetPicoSeconds();
        if (!(ideal[k] > 0))
        {
            continue;
        }
        const int64_t fabric = t.endPs[i] - st.eligible.GetPicoSeconds() - t.sharedPs[i]
                               - static_cast<int64_t>(std::llround(ideal[k] * 1e12));
        t.delayPs[i] = std::max<int64_t>(fabric, 0);
    }
    const ScheduleReplay replay(workload, t.endPs, t.delayPs);
    t.replayPs.resize(ops.size());
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        t.replayPs[i] = replay.GetEndPs(i);
    }
    return t;
}

/**
 * \brief The fabric-aware bound of a group (docs/collectives.md, "Fabric-aware bound"): its
 * messages' busiest link (FabricBound) plus the latency no schedule overlaps: the launch
 * latency and the quickest message's alpha on the algorithm's paths (with its level's post
 * latency; CollectiveCost::FastestAlphaS()).
 * \param bound the fabric's bound
 * \param graph the fabric
 * \param ports the run's ports (names and tier classes)
 * \param g the group
 * \param cost its paths' costs (CollectiveAlphaBeta())
 * \param ops the workload's ops
 * \param sends SEND ops bucketed by group (Workload::GroupSends::sends)
 * \param from the group's first entry in sends
 * \param to past its last
 * \param endpointSeconds if given: per endpoint, the time its busiest own link needs for the
 *        group's messages (FabricBound::Of()), seconds
 * \return the bound
 */
BoundFigure
GroupBound(FabricBound& bound,
           const FabricGraph& graph,
           const std::vector<PortRecord>& ports,
           const WorkloadGroup& g,
           const CollectiveCost& cost,
           const std::vector<WorkloadOp>& ops,
           const std::vector<uint32_t>& sends,
           uint32_t from,
           uint32_t to,
           std::vector<double>* endpointSeconds = nullptr)
{
    std::vector<BoundMessage> messages;
    messages.reserve(to - from);
    for (uint32_t j = from; j < to; ++j)
    {
        const WorkloadOp& op = ops[sends[j]];
        messages.push_back(BoundMessage{op.rank, op.peer, WireBytes(op.wire, op.bytes)});
    }
    const FabricBoundResult b = bound.Of(messages, endpointSeconds);
    BoundFigure f;
    f.bandwidthS = b.seconds;
    // The latency no schedule overlaps: the launch, then the quickest message's way along
    // the algorithm's paths (its alpha, with its level's post latency).
    const double step = cost.FastestAlphaS() >= 0 ? cost.FastestAlphaS() : cost.inter.alphaS;
    f.latencyS = g.launchLatency.GetSeconds() + std::max(step, 0.0);
    f.seconds = f.bandwidthS + f.latencyS;
    if (b.link >= 0)
    {
        const auto& link = graph.GetLinks()[b.link];
        const auto& nodes = graph.GetNodes();
        f.link = nodes[b.aToB ? link.a : link.b].name + "->" + nodes[b.aToB ? link.b : link.a].name;
        const std::size_t port = 2 * static_cast<std::size_t>(b.link) + (b.aToB ? 0 : 1);
        f.tierClass = port < ports.size() ? ports[port].tierClass : "";
        f.wireBytes = b.wireBytes;
        f.rateBps = b.rateBps;
    }
    return f;
}

/**
 * \brief Copy a SEND's sender-side timing into its flow record (left unknown if its last
 * packet never left).
 * \param t the timing (WorkloadExecution::GetSendTiming())
 * \param sharedPs its shared time (OpTimes::sharedPs)
 * \param f the flow
 */
void
SetSendTiming(const WorkloadSendTiming& t, int64_t sharedPs, FlowRecord& f)
{
    if (!t.eligible.IsNegative())
    {
        f.eligibleS = t.eligible.GetSeconds();
        f.firstByteS = t.firstByte.GetSeconds();
        f.sharedS = sharedPs * 1e-12;
    }
}

/**
 * \brief The tails of a training job's communication (docs/results-format.md, "Training
 * tails"): every group's time, FCT and slowdown tails, each rank's span in it, formula and
 * fabric-aware bound; per kind of group and per rank and kind, the same tails; the training
 * flows chosen for flows.csv.
 */
class TrainingTails
{
  public:
    /**
     * \param graph the fabric
     * \param training the job's iterations
     * \param spec the scenario (`results: flows`, `flow_sample`)
     * \param ports the run's ports (the bound's bottleneck names)
     * \param bound the fabric-aware bound
     */
    TrainingTails(const FabricGraph& graph,
                  const TrainingBuild& training,
                  const ScenarioSpec& spec,
                  const std::vector<PortRecord>& ports,
                  FabricBound& bound)
        : m_graph(graph)
        , m_ports(ports)
        , m_bound(bound)
        , m_kinds(TRAINING_KINDS)
        , m_rankOf(graph.GetGpuCount(), UINT32_MAX)
        , m_spanStart(graph.GetGpuCount(), INT64_MAX)
        , m_spanEnd(graph.GetGpuCount(), INT64_MIN)
        , m_sample(spec.resultFlowSample)
    {
        if (!training.iterations.empty())
        {
            const auto& ranks = training.iterations.front().ranks;
            for (uint32_t k = 0; k < ranks.size(); ++k)
            {
                if (ranks[k].gpu < m_rankOf.size())
                {
                    m_rankOf[ranks[k].gpu] = k;
                }
            }
        }
        m_chosen.assign(TRAINING_KINDS, spec.resultFlowKinds.empty() && spec.resultFlowSampleGiven);
        for (const std::string& k : spec.resultFlowKinds)
        {
            for (uint32_t kind = 0; kind < TRAINING_KINDS; ++kind)
            {
                m_chosen[kind] = m_chosen[kind] || k == "all" || k == TrainingKindName(kind);
            }
        }
        if (m_sample < 1.0)
        {
            // A stream of its own, far beyond the fabric's and the workload's: sampling the
            // rows changes no other draw.
            m_rng = CreateObject<UniformRandomVariable>();
            m_rng->SetStream(FLOW_SAMPLE_STREAM);
        }
    }

    /**
     * \brief Gather one group.
     * \param g the group
     * \param kind its TrainingGroupInfo::Kind
     * \param iteration its iteration
     * \param ops the workload's ops
     * \param sends its SEND ops (from, to: in Workload::GroupSends::sends)
     * \param from its first entry
     * \param to past its last
     * \param runner the run
     * \param times every op timed
     * \param issuePs when the group was issued: its first op (its launch, or a send's
     *        dependencies done) started, ps (-1: unknown)
     * \param trace add its trace.json spans
     * \param r the results (trace, training flows)
     */
    void AddGroup(const WorkloadGroup& g,
                  uint32_t kind,
                  uint32_t iteration,
                  int64_t issuePs,
                  const std::vector<WorkloadOp>& ops,
                  const std::vector<uint32_t>& sends,
                  uint32_t from,
                  uint32_t to,
                  const WorkloadExecution& runner,
                  const OpTimes& times,
                  bool trace,
                  RunResults& r)
    {
        const uint32_t gpus = m_rankOf.size();
        Kind& k = m_kinds[kind];
        TrainingCommResult& c = k.result;
        ++c.groups;
        TrainingGroupResult tg;
        tg.name = g.name;
        tg.kind = TrainingKindName(kind);
        tg.iteration = iteration;
        tg.op = g.op;
        tg.algorithm = g.algorithm;
        tg.protocol = ProtocolName(g.protocol);
        tg.ranks = g.ranks.size();
        tg.bytes = g.bytes;
        int64_t gs = INT64_MAX;
        int64_t ge = INT64_MIN;
        std::vector<double> fct;
        std::vector<double> slow;
        for (uint32_t j = from; j < to; ++j)
        {
            const uint32_t i = sends[j];
            const WorkloadOp& op = ops[i];
            if (op.rank < gpus) // what the GPUs sent (not a switch's NVLS or SHARP sends)
            {
                ++c.messages;
                c.bytes += op.bytes;
            }
            ++tg.messages;
            const int64_t s = runner.GetOpStart(i).GetPicoSeconds();
            const int64_t e = times.endPs[i];
            if (e < 0 || s < 0)
            {
                continue;
            }
            gs = std::min(gs, s);
            ge = std::max(ge, e);
            for (const uint32_t gpu : {op.rank, op.peer})
            {
                if (gpu >= gpus)
                {
                    continue; // an in-network switch: not a GPU's span
                }
                if (m_spanStart[gpu] == INT64_MAX)
                {
                    m_touched.push_back(gpu);
                }
                m_spanStart[gpu] = std::min(m_spanStart[gpu], s);
                m_spanEnd[gpu] = std::max(m_spanEnd[gpu], e);
            }
            FlowRecord f;
            f.collective = g.name;
            f.step = op.step;
            f.src = op.rank;
            f.dst = op.peer;
            f.bytes = op.bytes;
            f.wireBytes = WireBytes(op.wire, op.bytes);
            f.postedS = s * 1e-12;
            f.endS = e * 1e-12;
            SetSendTiming(runner.GetSendTiming(i), times.sharedPs[i], f);
            f.idealS = times.idealS[i];
            f.op = i;
            fct.push_back(f.FctS());
            slow.push_back(f.Slowdown());
            k.fct.push_back(fct.back());
            k.slowdown.push_back(slow.back());
            if (op.peer < gpus)
            {
                Phase& p = PhaseOf(iteration, op.peer, kind);
                ++p.messages;
                p.bytes += op.bytes;
                p.fct.push_back(fct.back());
                p.slowdown.push_back(slow.back());
            }
            if (m_chosen[kind] && (!m_rng || m_rng->GetValue() < m_sample))
            {
                r.trainingFlows.push_back(std::move(f));
            }
        }
        std::vector<double> spans;
        for (const uint32_t gpu : m_touched)
        {
            const double span = (m_spanEnd[gpu] - m_spanStart[gpu]) * 1e-12;
            spans.push_back(span);
            k.rankSpan.push_back(span);
            Phase& p = PhaseOf(iteration, gpu, kind);
            ++p.groups;
            p.span.push_back(span);
            if (trace)
            {
                r.trace.push_back(TraceEvent{g.name,
                                             gpu,
                                             TrainingKindLane(kind),
                                             m_spanStart[gpu] * 1e-6,
                                             (m_spanEnd[gpu] - m_spanStart[gpu]) * 1e-6});
            }
            m_spanStart[gpu] = INT64_MAX;
            m_spanEnd[gpu] = INT64_MIN;
        }
        m_touched.clear();
        if (ge >= gs)
        {
            // From its issue (as a collective's), so that its formula and bound, which
            // count the launch and post latencies, compare with it.
            const int64_t from = issuePs >= 0 ? std::min(issuePs, gs) : gs;
            tg.startS = from * 1e-12;
            tg.endS = ge * 1e-12;
            tg.durationS = (ge - from) * 1e-12;
            c.busyS += tg.durationS;
            c.maxS = std::max(c.maxS, tg.durationS);
            k.duration.push_back(tg.durationS);
        }
        tg.fct = Tails(std::move(fct));
        tg.slowdown = Tails(std::move(slow));
        tg.rankSpan = Tails(std::move(spans));
        const CollectiveCost cost = CollectiveAlphaBeta(m_graph, g);
        tg.analyticS = CollectiveTime(g, cost, CollectiveModel::FORMULA);
        tg.bound = GroupBound(m_bound, m_graph, m_ports, g, cost, ops, sends, from, to);
        if (tg.durationS > 0 && tg.analyticS > 0)
        {
            k.simOverAnalytic.push_back(tg.durationS / tg.analyticS);
        }
        if (tg.durationS > 0 && tg.bound.seconds > 0)
        {
            k.simOverBound.push_back(tg.durationS / tg.bound.seconds);
        }
        r.training.groups.push_back(std::move(tg));
    }

    /**
     * \brief The per-kind and per-rank tails, into the results.
     * \param r the results
     */
    void Finish(RunResults& r)
    {
        for (uint32_t kind = 0; kind < TRAINING_KINDS; ++kind)
        {
            Kind& k = m_kinds[kind];
            if (k.result.groups == 0)
            {
                continue;
            }
            k.result.kind = TrainingKindName(kind);
            k.result.duration = Tails(std::move(k.duration));
            k.result.fct = Tails(std::move(k.fct));
            k.result.slowdown = Tails(std::move(k.slowdown));
            k.result.rankSpan = Tails(std::move(k.rankSpan));
            k.result.simOverAnalytic = Tails(std::move(k.simOverAnalytic));
            k.result.simOverBound = Tails(std::move(k.simOverBound));
            r.training.communication.push_back(std::move(k.result));
        }
        std::vector<uint64_t> keys;
        keys.reserve(m_phases.size());
        for (const auto& [key, p] : m_phases)
        {
            keys.push_back(key);
        }
        std::sort(keys.begin(), keys.end());
        for (const uint64_t key : keys)
        {
            Phase& p = m_phases[key];
            TrainingRankPhase out;
            out.iteration = static_cast<uint32_t>(key >> 40);
            out.gpu = static_cast<uint32_t>((key >> 8) & 0xffffffffull);
            out.rank = m_rankOf[out.gpu];
            out.kind = TrainingKindName(key & 0xff);
            out.groups = p.groups;
            out.messages = p.messages;
            out.bytes = p.bytes;
            out.span = Tails(std::move(p.span));
            out.fct = Tails(std::move(p.fct));
            out.slowdown = Tails(std::move(p.slowdown));
            r.training.rankPhases.push_back(std::move(out));
        }
    }

  private:
    /// The sampling stream of the training flows written (far beyond every other stream).
    static constexpr int64_t FLOW_SAMPLE_STREAM = int64_t{1} << 40;

    /// One kind's samples.
    struct Kind
    {
        TrainingCommResult result;           //!< counts and the tails, at the end
        std::vector<double> duration;        //!< group durations
        std::vector<double> fct;             //!< message FCTs
        std::vector<double> slowdown;        //!< message slowdowns
        std::vector<double> rankSpan;        //!< rank spans
        std::vector<double> simOverAnalytic; //!< group duration / formula
        std::vector<double> simOverBound;    //!< group duration / bound
    };

    /// One (iteration, rank, kind)'s samples.
    struct Phase
    {
        uint64_t groups{0};           //!< groups
        uint64_t messages{0};         //!< messages received
        uint64_t bytes{0};            //!< their payload
        std::vector<double> span;     //!< spans
        std::vector<double> fct;      //!< FCTs of the messages received
        std::vector<double> slowdown; //!< their slowdowns
    };

    /**
     * \param iteration an iteration
     * \param gpu a GPU
     * \param kind a kind
     * \return its samples
     */
    Phase& PhaseOf(uint32_t iteration, uint32_t gpu, uint32_t kind)
    {
        return m_phases[(static_cast<uint64_t>(iteration) << 40) | (static_cast<uint64_t>(gpu) << 8)
                        | kind];
    }

    const FabricGraph& m_graph;                   //!< the fabric
    const std::vector<PortRecord>& m_ports;       //!< the run's ports
    FabricBound& m_bound;                         //!< the fabric-aware bound
    std::vector<Kind> m_kinds;                    //!< per kind
    std::unordered_map<uint64_t, Phase> m_phases; //!< per (iteration, GPU, kind)
    std::vector<uint32_t> m_rankOf;               //!< GPU -> canonical rank
    std::vector<int64_t> m_spanStart;             //!< per GPU, the group's span, ps
    std::vector<int64_t> m_spanEnd;               //!< per GPU
    std::vector<uint32_t> m_touched;              //!< GPUs with a span in the group
    std::vector<bool> m_chosen;                   //!< per kind: its flows to flows.csv
    double m_sample{1.0};                         //!< share of them written
    Ptr<UniformRandomVariable> m_rng;             //!< sampling draws (null: all)
};

/**
 * \brief Per-collective results, flows and trace events of the traffic's
 * collectives, and the training groups aggregated by kind.
 *
 * O(ops + sum of group sizes): SEND ops are bucketed by group once, and one
 * GPU-indexed scratch map is reused by every group; the alpha-beta estimate is
 * evaluated for the traffic's collectives only.
 *
 * \param graph the fabric
 * \param workload the workload as run
 * \param runner the workload execution after the run
 * \param times every op timed (MeasureOps())
 * \param bound the fabric-aware bound of the fabric
 * \param training the training job's iterations (may be empty)
 * \param spec the scenario (which training flows go to flows.csv)
 * \param trace gather trace events
 * \param r the results to fill
 */
void
GatherGroups(const FabricGraph& graph,
             const Workload& workload,
             const WorkloadExecution& runner,
             const OpTimes& times,
             FabricBound& bound,
             const TrainingBuild& training,
             const ScenarioSpec& spec,
             bool trace,
             RunResults& r)
{
    const auto& ops = workload.GetOps();
    const auto& groups = workload.GetGroups();
    constexpr int8_t COLLECTIVE = -1;
    std::vector<int8_t> kindOf(groups.size(), COLLECTIVE);
    std::vector<uint32_t> iterationOf(groups.size(), 0);
    for (uint32_t it = 0; it < training.iterations.size(); ++it)
    {
        const TrainingWorkloadInfo& info = training.iterations[it];
        for (std::size_t i = 0; i < info.groups.size(); ++i)
        {
            kindOf[info.firstGroup + i] = static_cast<int8_t>(info.groups[i].kind);
            iterationOf[info.firstGroup + i] = it;
        }
    }
    TrainingTails tails(graph, training, spec, r.ports, bound);
    // A training group's issue: its first op's start (a launch op's, or a send's dependencies
    // done: its post less its post latency).
    std::vector<int64_t> issuePs(groups.size(), -1);
    if (!training.iterations.empty())
    {
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            const WorkloadOp& op = ops[i];
            if (kindOf[op.group] == COLLECTIVE || kindOf[op.group] == TrainingGroupInfo::COMPUTE)
            {
                continue;
            }
            const int64_t s = runner.GetOpStart(i).GetPicoSeconds();
            if (s < 0)
            {
                continue;
            }
            const int64_t ready
                = op.kind == WorkloadOp::SEND ? s - op.duration.GetPicoSeconds() : s;
            int64_t& issue = issuePs[op.group];
            issue = issue < 0 ? ready : std::min(issue, ready);
        }
    }

    // SEND ops bucketed by group (a counting sort: O(ops)).
    const Workload::GroupSends bucketed = workload.GetSendsByGroup();
    const std::vector<uint32_t>& first = bucketed.first;
    const std::vector<uint32_t>& sends = bucketed.sends;

    // Scratch shared by every group, indexed by endpoint (GPUs, then the in-network reducers
    // NVLS sends to) and reset after each group.
    const std::size_t endpointCount = graph.GetEndpointNodes().size();
    std::vector<uint32_t> position(endpointCount, UINT32_MAX);
    if (trace)
    {
        r.traceLanes = TraceLaneNames();
    }
    std::size_t collectiveSends = 0; // at most one flow each: reserved, not grown by doubling
    for (uint32_t gi = 0; gi < groups.size(); ++gi)
    {
        collectiveSends += kindOf[gi] == COLLECTIVE ? first[gi + 1] - first[gi] : 0;
    }
    r.flows.reserve(r.flows.size() + collectiveSends);

    for (uint32_t gi = 0; gi < groups.size(); ++gi)
    {
        const WorkloadGroup& g = groups[gi];
        if (kindOf[gi] != COLLECTIVE)
        {
            const auto kind = static_cast<uint32_t>(kindOf[gi]);
            if (kind != TrainingGroupInfo::COMPUTE) // (the DELAY ops: reported per rank)
            {
                tails.AddGroup(g,
                               kind,
                               iterationOf[gi],
                               issuePs[gi],
                               ops,
                               sends,
                               first[gi],
                               first[gi + 1],
                               runner,
                               times,
                               trace,
                               r);
            }
            continue;
        }

        CollectiveResult c;
        c.group = gi;
        c.name = g.name;
        c.op = g.op;
        c.algorithm = g.algorithm;
        c.protocol = ProtocolName(g.protocol);
        c.ranks = g.ranks.size();
        c.bytes = g.bytes;
        c.startS = g.start.GetSeconds();
        c.rankGpus = g.ranks;
        c.bytesSentPerRank.assign(g.ranks.size(), 0);
        c.finishSPerRank.assign(g.ranks.size(), c.startS);
        c.scheduleFinishSPerRank.assign(g.ranks.size(), c.startS);
        for (uint32_t i = 0; i < g.ranks.size(); ++i)
        {
            position[g.ranks[i]] = i;
        }
        const CollectiveCost cost = CollectiveAlphaBeta(graph, g);
        c.alphaS = cost.inter.alphaS;
        c.betaSPerByte = cost.inter.betaSPerByte;
        c.alphaIntraS = cost.intra.alphaS;
        c.betaIntraSPerByte = cost.intra.betaSPerByte;
        c.analyticS = CollectiveTime(g, cost, CollectiveModel::FORMULA);
        std::vector<double> ownLinks; // per endpoint: its own links' time for this collective
        c.bound = GroupBound(bound,
                             graph,
                             r.ports,
                             g,
                             cost,
                             ops,
                             sends,
                             first[gi],
                             first[gi + 1],
                             &ownLinks);
        c.endS = c.startS;
        for (uint32_t j = first[gi]; j < first[gi + 1]; ++j)
        {
            const uint32_t i = sends[j];
            const WorkloadOp& op = ops[i];
            const Time start = runner.GetOpStart(i);
            const Time end = runner.GetOpEnd(i);
            if (position[op.rank] != UINT32_MAX) // (not an in-network switch's send)
            {
                c.bytesSentPerRank[position[op.rank]] += op.bytes;
            }
            if (end.IsNegative())
            {
                continue; // never arrived: the run was cut off
            }
            FlowRecord f;
            f.collective = g.name;
            f.step = op.step;
            f.src = op.rank;
            f.dst = op.peer;
            f.bytes = op.bytes;
            f.wireBytes = WireBytes(op.wire, op.bytes);
            f.postedS = start.GetSeconds();
            f.endS = end.GetSeconds();
            SetSendTiming(runner.GetSendTiming(i), times.sharedPs[i], f);
            f.idealS = times.idealS[i];
            c.endS = std::max(c.endS, f.endS);
            if (position[op.peer] != UINT32_MAX) // (not to an in-network switch)
            {
                double& finish = c.finishSPerRank[position[op.peer]];
                finish = std::max(finish, f.endS);
                if (times.replayPs[i] >= 0)
                {
                    double& schedule = c.scheduleFinishSPerRank[position[op.peer]];
                    schedule = std::max(schedule, times.replayPs[i] * 1e-12);
                }
            }
            r.flows.push_back(std::move(f));
        }
        // No schedule finishes a rank before its own links have carried its share of the
        // collective (a hot expert's receiver in an all-to-all): that wait is the workload's,
        // not a delay the fabric added.
        for (uint32_t k = 0; k < g.ranks.size(); ++k)
        {
            if (g.ranks[k] < ownLinks.size())
            {
                double& schedule = c.scheduleFinishSPerRank[k];
                schedule
                    = std::max(schedule,
                               c.startS + std::max(c.bound.latencyS, 0.0) + ownLinks[g.ranks[k]]);
            }
        }
        for (const uint32_t gpu : g.ranks)
        {
            position[gpu] = UINT32_MAX;
        }
        c.durationS = c.endS - c.startS;
        if (c.durationS > 0)
        {
            c.algbwGBps = static_cast<double>(c.bytes) / c.durationS / 1e9;
            c.busbwGBps = c.algbwGBps * BusBandwidthFactor(c.op, c.ranks);
        }
        if (trace)
        {
            for (uint32_t i = 0; i < c.ranks; ++i)
            {
                r.trace.push_back(TraceEvent{c.name,
                                             c.rankGpus[i],
                                             LANE_COLLECTIVE,
                                             c.startS * 1e6,
                                             (c.finishSPerRank[i] - c.startS) * 1e6});
            }
        }
        r.collectives.push_back(std::move(c));
    }
    // The collectives' ops are contiguous per group, in group order: flows are in op order;
    // the training flows written follow.
    for (std::size_t i = 0; i < r.flows.size(); ++i)
    {
        r.flows[i].id = i;
    }
    for (std::size_t i = 0; i < r.trainingFlows.size(); ++i)
    {
        r.trainingFlows[i].id = r.flows.size() + i;
    }
    tails.Finish(r);
}

/// \param op a collective's operation \return true if its bisection is measured
bool
MeasuresBisection(const std::string& op)
{
    return op == "all-to-all" || op == "permutation";
}

/**
 * \brief The collectives (not a training job's groups) whose bisection is measured: every
 * all-to-all and permutation.
 * \param workload the workload
 * \param training the training job's groups
 * \return their group indices, in order
 */
std::vector<uint32_t>
BisectionGroups(const Workload& workload, const TrainingBuild& training)
{
    const auto& groups = workload.GetGroups();
    std::vector<bool> trainingGroup(groups.size(), false);
    for (const TrainingWorkloadInfo& info : training.iterations)
    {
        for (std::size_t i = 0; i < info.groups.size(); ++i)
        {
            trainingGroup[info.firstGroup + i] = true;
        }
    }
    std::vector<uint32_t> out;
    for (uint32_t gi = 0; gi < groups.size(); ++gi)
    {
        if (!trainingGroup[gi] && MeasuresBisection(groups[gi].op))
        {
            out.push_back(gi);
        }
    }
    return out;
}

/**
 * \brief Bisection throughput of every all-to-all and permutation collective, from what
 * the cut's ports carried during its window (CutPortMeter) and its flows.
 * \param cut the cut
 * \param meter the cut's meter (null: no such collective)
 * \param r the results (collectives and flows filled; bisection appended)
 */
void
GatherBisection(const BisectionCutInfo& cut, const CutPortMeter* meter, RunResults& r)
{
    if (meter == nullptr)
    {
        return;
    }
    std::size_t flow = 0;
    for (const CollectiveResult& c : r.collectives)
    {
        // flows are grouped per collective, in collective order
        const std::size_t first = flow;
        while (flow < r.flows.size() && r.flows[flow].collective == c.name)
        {
            ++flow;
        }
        const CutWindow* window = meter->GetWindow(c.group);
        if (!MeasuresBisection(c.op) || window == nullptr)
        {
            continue;
        }
        const std::vector<FlowRecord> mine(r.flows.begin() + first, r.flows.begin() + flow);
        r.bisection.push_back(MakeBisectionRecord(cut, c, mine, *window));
    }
}

/// \param c a compute op \return its trace name, e.g. "F attn l3 mb2"
std::string
ComputeName(const TrainingComputeOp& c)
{
    static const char* const PHASE[] = {"F", "B", "W"};
    static const char* const PART[] = {"attn", "mlp", "experts", "head"};
    std::string n = PHASE[c.phase < 3 ? c.phase : 0];
    n += ' ';
    n += PART[c.part < 4 ? c.part : 0];
    n += " l" + std::to_string(c.layer) + " mb" + std::to_string(c.microBatch);
    if (c.chunk > 0)
    {
        n += " v" + std::to_string(c.chunk);
    }
    return n;
}

/**
 * \brief The training job's iterations, per-rank breakdown, MoE totals and
 * compute trace events.
 * \param tb the job as built
 * \param times every op timed (MeasureOps())
 * \param runner the workload execution after the run
 * \param trace gather trace events
 * \param r the results to fill
 */
void
GatherTraining(const TrainingBuild& tb,
               const WorkloadExecution& runner,
               const OpTimes& times,
               bool trace,
               RunResults& r)
{
    const TrainingSpec& spec = tb.spec;
    TrainingResult& t = r.training;
    r.hasTraining = true;
    t.name = spec.name;
    t.schedule = spec.schedule;
    t.tp = spec.tp;
    t.pp = spec.pp;
    t.dp = spec.dp;
    t.ep = spec.ep;
    t.microBatches = spec.microBatches;
    t.peakFlops = spec.peakFlops;
    t.mfu = spec.mfu;
    t.moe = spec.moeLayers > 0;
    if (!tb.iterations.empty())
    {
        t.parameters = tb.iterations.front().sizes.totalParams;
    }
    for (const TrainingWorkloadInfo& info : tb.iterations)
    {
        t.moeTokenCopies += info.moeTotals.tokenCopies;
        t.moeDropped += info.moeTotals.dropped;
        t.moeSameRank += info.moeTotals.sameRank;
        t.moeSameDomain += info.moeTotals.sameDomain;
        t.moeNetworkBytes += info.moeTotals.networkBytes;
        for (const TrainingRankInfo& ri : info.ranks)
        {
            if (runner.GetOpEnd(ri.endOp).IsNegative()
                || (ri.startOp != UINT32_MAX && runner.GetOpEnd(ri.startOp).IsNegative()))
            {
                t.complete = false;
            }
            if (!trace)
            {
                continue;
            }
            for (const TrainingComputeOp& c : ri.compute)
            {
                const int64_t s = runner.GetOpStart(c.op).GetPicoSeconds();
                const int64_t e = runner.GetOpEnd(c.op).GetPicoSeconds();
                if (s >= 0 && e >= s)
                {
                    r.trace.push_back(
                        TraceEvent{ComputeName(c), ri.gpu, LANE_COMPUTE, s * 1e-6, (e - s) * 1e-6});
                }
            }
        }
    }
    if (!t.complete)
    {
        return; // SummarizeTrainingRun needs every iteration finished
    }
    for (uint32_t it = 0; it < tb.iterations.size(); ++it)
    {
        const TrainingWorkloadInfo& info = tb.iterations[it];
        const TrainingRunSummary sum = SummarizeTrainingRun(info, runner);
        TrainingIterationResult ir;
        ir.iteration = it;
        ir.startS = sum.start.GetSeconds();
        ir.endS = sum.end.GetSeconds();
        ir.stepS = sum.Iteration().GetSeconds();
        const double n = std::max<std::size_t>(1, sum.ranks.size());
        for (uint32_t rank = 0; rank < sum.ranks.size(); ++rank)
        {
            const TrainingRankTimes& rt = sum.ranks[rank];
            const TrainingRankInfo& ri = info.ranks[rank];
            TrainingRankResult rr;
            rr.iteration = it;
            rr.rank = rank;
            rr.gpu = ri.gpu;
            rr.tp = ri.tp;
            rr.pp = ri.pp;
            rr.dp = ri.dp;
            rr.computeS = rt.compute.GetSeconds();
            rr.pipelineIdleS = rt.pipelineIdle.GetSeconds();
            rr.skewS = rt.skew.GetSeconds();
            rr.exposedTensorS = rt.exposedTensor.GetSeconds();
            rr.exposedPipelineS = rt.exposedPipeline.GetSeconds();
            rr.exposedExpertS = rt.exposedExpert.GetSeconds();
            rr.exposedDataS = rt.exposedData.GetSeconds();
            rr.endS = rt.end.GetSeconds();
            const int64_t replayed = times.replayPs[ri.endOp];
            rr.fabricDelayS = replayed >= 0 ? std::max(rr.endS - replayed * 1e-12, 0.0) : 0.0;
            ir.computeS += rr.computeS / n;
            ir.pipelineIdleS += rr.pipelineIdleS / n;
            ir.skewS += rr.skewS / n;
            ir.exposedTensorS += rr.exposedTensorS / n;
            ir.exposedPipelineS += rr.exposedPipelineS / n;
            ir.exposedExpertS += rr.exposedExpertS / n;
            ir.exposedDataS += rr.exposedDataS / n;
            t.ranks.push_back(rr);
        }
        ir.achievedMfu = ir.stepS > 0 ? spec.mfu * ir.computeS / ir.stepS : 0.0;
        t.iterations.push_back(ir);
    }
}

/**
 * \brief Refuse, before simulating, a message that would need more packets than a queue pair
 * can order (RdmaTransport::MAX_MESSAGE_PACKETS, the receiver's PSN window) at the fabric's
 * smallest MTU (a 5 GiB transfer over 1-byte packets).
 * \param spec the scenario (for the location: the message's collective, else the traffic)
 * \param graph the fabric
 * \param workload the built workload
 * \throws SpecError naming the message, its packets and the limit
 */
void
CheckMessagePackets(const ScenarioSpec& spec, const FabricGraph& graph, const Workload& workload)
{
    const uint64_t mtu = graph.GetSmallestMtu();
    const WorkloadOp* largest = nullptr;
    uint64_t largestWire = 0; // bytes on the wire: the protocol's lines (WireBytes())
    for (const WorkloadOp& op : workload.GetOps())
    {
        const uint64_t wire = op.kind == WorkloadOp::SEND ? WireBytes(op.wire, op.bytes) : 0;
        if (op.kind == WorkloadOp::SEND && (!largest || wire > largestWire))
        {
            largest = &op;
            largestWire = wire;
        }
    }
    if (!largest || mtu == 0 || (largestWire + mtu - 1) / mtu <= RdmaTransport::MAX_MESSAGE_PACKETS)
    {
        return;
    }
    const std::string group = workload.GetGroups()[largest->group].name;
    SpecLocation where = spec.traffic.where;
    for (const CollectiveSpec& c : spec.traffic.collectives)
    {
        if (c.name == group)
        {
            where = c.where;
        }
    }
    throw SpecError(where,
                    "a message of '" + group + "' (" + std::to_string(largest->bytes) + " B, "
                        + std::to_string(largestWire) + " B on the wire) needs "
                        + std::to_string((largestWire + mtu - 1) / mtu)
                        + " packets at the fabric's smallest mtu (" + std::to_string(mtu)
                        + " B); a message can have at most "
                        + std::to_string(RdmaTransport::MAX_MESSAGE_PACKETS)
                        + " (the receiver orders a message's 32-bit PSNs within a window of "
                          "2^31): raise the mtu, or cut the message (chunk_size) or the size");
}

} // namespace

WorkloadGroup
MakeWorkloadGroup(const CollectiveSpec& c,
                  uint32_t gpus,
                  const std::vector<EndpointPlace>& places,
                  const FabricGraph* graph)
{
    WorkloadGroup g;
    g.name = c.name;
    g.op = CollectiveOpName(c.op);
    g.algorithm = c.algorithm;
    g.bytes = c.bytes;
    g.start = c.start;
    g.ranks = c.ranks;
    g.channels = c.channels;
    g.ringOrder = c.ringOrder;
    g.chunkBytes = c.chunkBytes;
    g.gammaSecondsPerByte = c.gammaSecondsPerByte;
    g.root = c.root;
    g.ranksPerNode = c.ranksPerNode;
    g.matrix = c.matrix;
    for (std::size_t t = 0; t < c.transferSrc.size(); ++t)
    {
        g.transfers.push_back(
            WorkloadTransfer{c.transferSrc[t], c.transferDst[t], c.transferBytes[t]});
    }
    if (g.ranks.empty())
    {
        for (uint32_t i = 0; i < gpus; ++i)
        {
            g.ranks.push_back(i);
        }
    }
    if (g.op == "permutation" && g.ranks.size() >= 2)
    {
        const auto p = static_cast<uint32_t>(g.ranks.size());
        for (uint32_t i = 0; i < p; ++i)
        {
            g.transfers.push_back(WorkloadTransfer{i, (i + 1) % p, g.bytes});
        }
    }
    PlanChannels(g, places);
    g.protocol = c.protocol;
    g.slots = c.slots;
    g.launchLatency = c.launchLatency;
    g.hopLatencyIntra = c.hopLatencyIntra;
    g.hopLatencyInter = c.hopLatencyInter;
    g.kernelBytesPerSecond = c.kernelBytesPerSecond;
    if (graph)
    {
        ResolveProtocol(*graph, g, GivenOf(c), c.algorithmAuto);
    }
    return g;
}

RunResults
RunScenario(const ScenarioSpec& spec, const RunOptions& options)
{
    const Clock::time_point t0 = Clock::now();
    RngSeedManager::SetSeed(static_cast<uint32_t>(spec.seed));
    RngSeedManager::SetRun(1);
    // The event scheduler: the command line's, else the scenario's, else the default.
    const std::string scheduler = !options.scheduler.empty() ? options.scheduler
                                  : !spec.scheduler.empty()  ? spec.scheduler
                                                             : DefaultSchedulerName();
    const std::string schedulerType = SchedulerTypeName(scheduler);
    if (schedulerType.empty())
    {
        throw SpecError(spec.where, "unknown scheduler '" + scheduler + "'");
    }
    Simulator::SetScheduler(ObjectFactory(schedulerType));

    // Everything that can be wrong with the input is found before simulating.
    const uint64_t memoryLimit
        = options.memoryLimitBytes > 0 ? options.memoryLimitBytes : AvailableMemoryBytes();
    const double memoryFloor = EstimateTopologyFloorBytes(spec.topology);
    if (memoryLimit > 0 && memoryFloor > static_cast<double>(memoryLimit))
    {
        throw SpecError(spec.topology.where,
                        MemoryRefusal(memoryFloor, memoryLimit, options.memoryLimitBytes > 0));
    }
    const FabricGraph graph = BuildFabricGraph(spec.topology);
    const int swept = FindSweptCollective(spec);
    if (swept >= 0)
    {
        throw SpecError(spec.traffic.collectives[swept].where,
                        "collective '" + spec.traffic.collectives[swept].name
                            + "' is a sweep: run it with RunSweep (ai-fabric run)");
    }
    // The workload is built within the memory left beside the fabric: past it, building
    // stops (Workload::LimitError) and the run is refused, before the memory is taken.
    Workload workload;
    const double fabricEstimate = LimitWorkloadToMemory(graph, memoryLimit, workload);
    if (memoryLimit > 0 && fabricEstimate > static_cast<double>(memoryLimit))
    {
        throw SpecError(spec.topology.where,
                        MemoryRefusal(fabricEstimate, memoryLimit, options.memoryLimitBytes > 0));
    }
    workload.SetPlaces(graph.GetEndpointPlaces());
    TrainingBuild training;
    try
    {
        BuildWorkload(spec, graph, workload);
        if (spec.traffic.hasTraining)
        {
            BuildTraining(spec, graph, workload, training);
        }
    }
    catch (const Workload::LimitError& e)
    {
        throw SpecError(spec.where,
                        "the run needs more memory than the "
                            + ReadableBytes(static_cast<double>(memoryLimit)) + " ("
                            + std::to_string(memoryLimit) + " bytes) of "
                            + (options.memoryLimitBytes > 0 ? "--memory-limit"
                                                            : "available memory (MemAvailable)")
                            + ": " + e.what()
                            + " while being built, more than fit beside the fabric; refusing "
                              "to start it");
    }
    catch (const std::bad_alloc&)
    {
        throw SpecError(spec.where,
                        "the run ran out of memory while its workload was being built; "
                        "refusing to start it (see docs/robustness.md, memory)");
    }
    workload.Finalize();
    CheckMessagePackets(spec, graph, workload);
    const double memoryEstimate = EstimateRunMemoryBytes(graph, workload);
    if (memoryLimit > 0 && memoryEstimate > static_cast<double>(memoryLimit))
    {
        throw SpecError(spec.where,
                        MemoryRefusal(memoryEstimate, memoryLimit, options.memoryLimitBytes > 0));
    }
    FabricBuildOptions build;
    build.routing.SetForwarding(spec.forwarding);
    if (spec.forwarding == ForwardingMode::ECMP)
    {
        build.routing.SetEcmpHash(spec.ecmpHash);
    }
    build.routing.SetPathChoice(spec.topology.Is<DragonflyPlusSpec>()
                                    ? spec.topology.As<DragonflyPlusSpec>().routing
                                    : PathChoice::MINIMAL);
    for (const auto& [name, value] : spec.adaptiveRoutingAttributes)
    {
        build.routing.SetRoutingAttribute(name, StringValue(value));
    }
    for (const auto& [name, value] : spec.ugalRoutingAttributes)
    {
        build.routing.SetGroupRoutingAttribute(name, StringValue(value));
    }
    build.reliability = spec.reliability;
    build.transportAttributes = spec.transportAttributes;
    build.cellPackets = spec.cellPackets;
    build.cellPacketsWhere = spec.fidelityWhere;
    const CongestionControlSetting congestionControl
        = ResolveCongestionControl(spec.congestionControl, graph.GetProfiles());
    if (congestionControl == CongestionControlSetting::DCQCN)
    {
        ObjectFactory factory("ns3::Dcqcn");
        for (const auto& [name, value] : spec.dcqcnAttributes)
        {
            factory.Set(name, StringValue(value));
        }
        build.congestionControl = factory.Create<RdmaCongestionControl>();
    }
    // NVLS and SHARP send to switches: they are endpoints only when some group uses them.
    std::set<uint32_t> network; // SHARP's switches, routed to from everywhere
    for (const WorkloadGroup& g : workload.GetGroups())
    {
        build.reducers = build.reducers || !g.switches.empty();
        if (!g.tree.attach.empty())
        {
            network.insert(g.switches.begin(), g.switches.end());
        }
    }
    build.networkReducers.assign(network.begin(), network.end());
    Fabric fabric = FabricBuilder::Build(graph, spec.topology.where, build);
    // Results from the devices, switches and transports: time series, counters, ports, and
    // the straggler ledger (fed by their trace sources) when attribution is on.
    FabricStatsHelper stats;
    stats.SetSampleInterval(spec.sampleInterval);
    stats.SetCustomTopology(spec.topology.Is<CustomSpec>());
    if (AttributionOn(spec, workload))
    {
        stats.EnableStragglerLedger();
    }
    PacketCapture capture(spec, graph, fabric);

    // One WorkloadApplication per endpoint (GPU, and switch when it reduces), each driving
    // its node's transport. The workload
    // starts in this event (every op without dependencies, in op order), before the
    // monitors' first ticks; the applications' own start events find it started.
    WorkloadHelper workloads(&workload);
    workloads.SetAttribute("QpsPerConnection", UintegerValue(spec.qpsPerConnection));
    workloads.SetAttribute("SplitDataOnQps", BooleanValue(spec.splitDataOnQps));
    const ApplicationContainer apps = workloads.Install(fabric.endpointNodes);
    Ptr<WorkloadExecution> runner = workloads.GetExecution();
    runner->TraceConnectWithoutContext("Done", MakeCallback(&StopWhenDone));
    Simulator::ScheduleNow(&WorkloadExecution::Start, runner);
    Simulator::Schedule(spec.stopTime, &StopAtLimit);
    uint64_t wireBytesTotal = 0;
    for (const WorkloadOp& op : workload.GetOps())
    {
        wireBytesTotal += op.kind == WorkloadOp::SEND ? WireBytes(op.wire, op.bytes) : 0;
    }
    ProgressMonitor monitor(runner,
                            fabric.transports,
                            wireBytesTotal,
                            options.progress ? WorkloadIdealEnd(graph, workload) : 0.0,
                            spec.stopTime.GetSeconds(),
                            options,
                            t0);
    if (options.progress)
    {
        Simulator::ScheduleNow(&ProgressMonitor::Tick, &monitor);
    }
    stats.Install(graph, fabric);
    // The bisection of every all-to-all and permutation: what its cut's ports carry over
    // its window.
    BisectionCutInfo cut;
    std::unique_ptr<CutPortMeter> cutMeter;
    if (const std::vector<uint32_t> measured = BisectionGroups(workload, training);
        !measured.empty())
    {
        cut = AnalyticBisectionCut(graph, spec.topology);
        cutMeter = std::make_unique<CutPortMeter>(cut, fabric.devicesA, fabric.devicesB);
        const Workload::GroupSends bucketed = workload.GetSendsByGroup();
        for (const uint32_t gi : measured)
        {
            cutMeter->Watch(gi,
                            workload.GetGroups()[gi].start,
                            bucketed.first[gi + 1] - bucketed.first[gi]);
        }
        cutMeter->Connect(runner);
    }
    if (options.beforeSimulating)
    {
        options.beforeSimulating();
    }
    RunWatchdog watchdog(fabric, runner, spec.watchdogNoProgress);
    watchdog.Start();
    const double setupS = SecondsSince(t0);

    const uint64_t eventsBefore = Simulator::GetEventCount();
    Simulator::Run();
    monitor.Finish();
    FabricStatsResults fabricStats = stats.Collect();
    if (cutMeter)
    {
        cutMeter->Finish();
    }

    RunResults r;
    r.scenario = spec.name;
    r.scenarioFile = spec.where.file;
    r.topology = spec.topology.name;
    r.traffic = spec.traffic.name;
    r.seed = spec.seed;
    r.cellPackets = spec.cellPackets;
    r.gpus = graph.GetGpuCount();
    r.switches = graph.GetSwitchCount();
    r.links = graph.GetLinks().size();
    r.simTimeS = Simulator::Now().GetSeconds();
    // The monitor's own events depend on whether progress is shown: leave them out.
    // The sampler's and the watchdog's events are bookkeeping too: leave them out, and so
    // are the applications' start-up events (ns-3's Application::Initialize, one per
    // application, always run before the workload's start; StartApplication, once each
    // unless the run stopped first), which find the workload started.
    uint64_t appEvents = apps.GetN();
    for (uint32_t i = 0; i < apps.GetN(); ++i)
    {
        appEvents += DynamicCast<WorkloadApplication>(apps.Get(i))->HasStarted() ? 1 : 0;
    }
    r.events = Simulator::GetEventCount() - eventsBefore - monitor.Events() - stats.GetEvents()
               - watchdog.Events() - appEvents - (cutMeter ? cutMeter->GetEvents() : 0);
    r.watchdogTicks = watchdog.Events();
    r.packetHops = fabricStats.packetHops;
    r.complete = runner->IsDone();
    r.interrupted = !r.complete && watchdog.Interrupted();
    r.stopReason = r.complete           ? "done"
                   : r.interrupted      ? "interrupted"
                   : watchdog.Stalled() ? "no_progress"
                                        : "stop_time";
    r.setupTimeS = setupS;
    r.memoryEstimateBytes = memoryEstimate;
    r.counters = fabricStats.counters;
    r.ports = std::move(fabricStats.ports);
    r.tierClasses = std::move(fabricStats.tierClasses);
    r.sampleIntervalS = fabricStats.sampleIntervalS;
    r.sampleIntervalAuto = fabricStats.sampleIntervalAuto;
    r.timeseries = std::move(fabricStats.timeseries);
    r.congestionControl = fabricStats.congestionControl ? SpecName(congestionControl) : "none";
    r.rateSeries = std::move(fabricStats.rateSeries);
    r.queuePairs = std::move(fabricStats.queuePairs);
    if (r.counters.losslessDrops > 0)
    {
        r.violations.push_back(std::to_string(r.counters.losslessDrops)
                               + " packets dropped on lossless (credit or PFC) ports");
    }

    const Clock::time_point gather0 = Clock::now();
    const OpTimes times = MeasureOps(graph, workload, *runner, stats.GetRelayWaitMeter());
    FabricBound bound(graph);
    GatherGroups(graph, workload, *runner, times, bound, training, spec, options.trace, r);
    GatherBisection(cut, cutMeter.get(), r);
    if (spec.traffic.hasTraining)
    {
        GatherTraining(training, *runner, times, options.trace, r);
        r.training.locality = spec.traffic.locality;
    }
    FillTails(r);
    if (const StragglerLedger* ledger = stats.GetStragglerLedger())
    {
        // Training groups are attributed per kind (tp, dp, ...), collectives one by one.
        std::vector<std::string> trainingKind(workload.GetGroups().size());
        for (const TrainingWorkloadInfo& info : training.iterations)
        {
            for (std::size_t i = 0; i < info.groups.size(); ++i)
            {
                trainingKind[info.firstGroup + i] = TrainingKindName(info.groups[i].kind);
            }
        }
        GatherStragglers(graph,
                         fabric,
                         workload,
                         *runner,
                         *ledger,
                         trainingKind,
                         times.sharedPs,
                         times.idealS,
                         spec.attributionFlows,
                         r);
        // The mechanisms the run has, so that attribution names no other.
        r.stragglers.congestionControl = build.congestionControl != nullptr;
        r.stragglers.goBackN = ResolveReliability(build.reliability, graph.GetProfiles())
                               == ReliabilitySetting::GO_BACK_N;
        for (const LinkProfile& p : graph.GetProfiles())
        {
            r.stragglers.pfc = r.stragglers.pfc || p.flowControl == LinkProfile::FlowControl::PFC;
            r.stragglers.credits
                = r.stragglers.credits || p.flowControl == LinkProfile::FlowControl::CREDIT;
        }
    }
    r.captures = capture.Finish();
    CheckRun(graph, fabric, workload, *runner, r);
    r.gatherTimeS = SecondsSince(gather0);

    Simulator::Destroy();
    r.wallTimeS = SecondsSince(t0);
    return r;
}

int
FindSweptCollective(const ScenarioSpec& spec)
{
    int found = -1;
    const auto& cs = spec.traffic.collectives;
    for (std::size_t i = 0; i < cs.size(); ++i)
    {
        if (!cs[i].sweep)
        {
            continue;
        }
        if (found >= 0)
        {
            throw SpecError(cs[i].where,
                            "only one collective per scenario can be swept; '" + cs[found].name
                                + "' already is");
        }
        found = static_cast<int>(i);
    }
    return found;
}

std::vector<uint64_t>
SweepSizes(const CollectiveSpec& c)
{
    if (c.sweepMinBytes == 0)
    {
        throw SpecError(c.where, "sweep: the minimum size must be at least 1 byte");
    }
    if (c.sweepMaxBytes < c.sweepMinBytes)
    {
        throw SpecError(c.where, "sweep: the maximum size is below the minimum");
    }
    if (c.sweepFactor < 2)
    {
        throw SpecError(c.where, "sweep: the factor must be at least 2");
    }
    std::vector<uint64_t> sizes;
    for (uint64_t b = c.sweepMinBytes; b <= c.sweepMaxBytes; b *= c.sweepFactor)
    {
        sizes.push_back(b);
        if (b > std::numeric_limits<uint64_t>::max() / c.sweepFactor)
        {
            break;
        }
    }
    return sizes;
}

SweepResults
RunSweep(const ScenarioSpec& spec, const RunOptions& options)
{
    const int swept = FindSweptCollective(spec);
    if (swept < 0)
    {
        throw SpecError(spec.traffic.where, "no collective has a sweep");
    }
    const CollectiveSpec& c = spec.traffic.collectives[swept];
    const std::vector<uint64_t> sizes = SweepSizes(c);
    SweepResults out;
    out.collective = c.name;
    for (std::size_t i = 0; i < sizes.size(); ++i)
    {
        ScenarioSpec one = spec;
        CollectiveSpec& oc = one.traffic.collectives[swept];
        oc.sweep = false;
        oc.bytes = sizes[i];
        RunOptions o = options;
        o.trace = options.trace && i + 1 == sizes.size();
        RunResults r = RunScenario(one, o);
        const CollectiveResult* cr = nullptr;
        for (const auto& x : r.collectives)
        {
            if (x.name == c.name)
            {
                cr = &x;
            }
        }
        if (cr == nullptr)
        {
            throw std::logic_error("RunSweep: no result for collective '" + c.name + "'");
        }
        SweepRow row;
        row.bytes = cr->bytes;
        row.count = cr->bytes / 4; // float32 elements, as nccl-tests -d float
        row.op = cr->op;
        row.algorithm = cr->algorithm;
        row.protocol = cr->protocol;
        row.ranks = cr->ranks;
        row.timeUs = cr->durationS * 1e6;
        row.algbwGBps = cr->algbwGBps;
        row.busbwGBps = cr->busbwGBps;
        row.analyticUs = cr->analyticS * 1e6;
        row.simOverAnalytic = cr->analyticS > 0 ? cr->durationS / cr->analyticS
                                                : std::numeric_limits<double>::quiet_NaN();
        row.complete = r.complete;
        out.rows.push_back(row);
        if (i + 1 == sizes.size() || r.interrupted)
        {
            out.last = std::move(r);
        }
        if (out.last.interrupted)
        {
            break; // SIGINT/SIGTERM: the sizes run so far
        }
    }
    out.last.sweepCollective = out.collective;
    out.last.sweep = out.rows;
    return out;
}

} // namespace ns3
