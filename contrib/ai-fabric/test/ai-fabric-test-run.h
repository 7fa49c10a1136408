/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What several of the module's TestSuites share: topology specs and small graphs, collective
 * groups, gtest-style double comparison, and RunCollectives(), which builds a fabric with
 * FabricBuilder, runs collectives on it through WorkloadHelper and gathers what the suites
 * check (flows, per-collective figures, ports, counters, the time series, the bisection
 * achieved, the run's invariants) into a RunResults, the way a runner built on the module
 * would. Header only: every suite that includes it gets its own inline copy.
 */
#ifndef AI_FABRIC_TEST_RUN_H
#define AI_FABRIC_TEST_RUN_H

#include "ns3/analytic-model.h"
#include "ns3/bisection-meter.h"
#include "ns3/collective-algorithm.h"
#include "ns3/cut-port-meter.h"
#include "ns3/direct-collective.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-stats.h"
#include "ns3/fabric-switch.h"
#include "ns3/link-profile.h"
#include "ns3/object-factory.h"
#include "ns3/port-metrics.h"
#include "ns3/port-sampler.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/run-results.h"
#include "ns3/simulator.h"
#include "ns3/spec-names.h"
#include "ns3/topology-spec.h"
#include "ns3/workload-application.h"
#include "ns3/workload-execution.h"
#include "ns3/workload-helper.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{
namespace aifabrictest
{

/**
 * \param kind a topology kind
 * \param profile the links' profile
 * \return the kind's spec, to be sized by the caller
 */
inline TopologySpec
KindSpec(const std::string& kind, const std::string& profile = "ib-ndr")
{
    TopologySpec s;
    s.where.file = "<test>";
    s.name = kind;
    s.SetKind(kind);
    s.link = *FindLinkProfile(profile);
    return s;
}

/**
 * \param gpus GPUs
 * \param profile the links' profile
 * \return "switch0" with GPUs "gpu0" ... on links of \p profile
 */
inline FabricGraph
SingleSwitchGraph(uint32_t gpus, const std::string& profile = "ib-ndr")
{
    FabricGraph graph;
    const uint32_t prof = graph.AddProfile(*FindLinkProfile(profile));
    const uint32_t sw = graph.AddSwitch("switch0", 1);
    for (uint32_t i = 0; i < gpus; ++i)
    {
        graph.AddLink(graph.AddGpu("gpu" + std::to_string(i)), sw, prof);
    }
    return graph;
}

/**
 * \param op the operation
 * \param algorithm the algorithm
 * \param p ranks: GPUs 0 .. p-1
 * \param bytes the buffer size
 * \return the group, chunked as traffic YAML defaults to
 */
inline WorkloadGroup
MakeGroup(const std::string& op, const std::string& algorithm, uint32_t p, uint64_t bytes)
{
    WorkloadGroup g;
    g.name = op + "/" + algorithm;
    g.op = op;
    g.algorithm = algorithm;
    g.bytes = bytes;
    g.ranks.resize(p);
    std::iota(g.ranks.begin(), g.ranks.end(), 0);
    g.chunkBytes = WorkloadGroup::NCCL_CHUNK_BYTES;
    return g;
}

/**
 * \brief GoogleTest's EXPECT_DOUBLE_EQ: \p a and \p b are within 4 units in the last place
 * (and neither is NaN).
 * \param a a double
 * \param b another
 * \return true if they are that close
 */
inline bool
DoubleEq(double a, double b)
{
    if (std::isnan(a) || std::isnan(b))
    {
        return false;
    }
    // Sign and magnitude to a biased integer, as googletest's FloatingPoint does.
    auto biased = [](double x) {
        uint64_t bits;
        std::memcpy(&bits, &x, sizeof bits);
        const uint64_t sign = uint64_t{1} << 63;
        return (bits & sign) ? ~bits + 1 : bits | sign;
    };
    const uint64_t x = biased(a);
    const uint64_t y = biased(b);
    return (x >= y ? x - y : y - x) <= 4;
}

/**
 * \param values some values
 * \return them, space-separated (for messages)
 */
template<typename T>
std::string
Join(const std::vector<T>& values)
{
    std::ostringstream os;
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        os << (i > 0 ? " " : "") << values[i];
    }
    return os.str();
}

/**
 * \brief How RunCollectives() builds and runs.
 */
struct RunSetup
{
    uint64_t seed{1};           //!< RngSeedManager seed (run 1)
    Time stopTime{Seconds(10)}; //!< simulated-time limit
    CongestionControlSetting congestionControl{
        CongestionControlSetting::AUTO}; //!< auto (dcqcn on RoCE), none or dcqcn
    FabricBuildOptions build;            //!< routing, reliability, cell packets, ...
    Time sampleInterval{0};              //!< time-series bins; zero for automatic
    /// The topology the graph was built from: its Dragonfly+ path choice is used and the
    /// bisection of every all-to-all and permutation is measured across its cut.
    const TopologySpec* topology{nullptr};
};

/// First random stream of the permutations' draws, one per group (as a runner does).
constexpr int64_t PERMUTATION_STREAM = int64_t{1} << 40;

/// Trace sink of WorkloadExecution Done: the run ends when the workload does.
inline void
StopWhenDone()
{
    Simulator::Stop();
}

/**
 * \brief Build \p graph into a fabric, run \p groups on it (each from its own DELAY op of
 * its start time, permutations drawn from the seeded stream PERMUTATION_STREAM + index)
 * until they are done or the stop time, and gather the results. Simulator::Destroy() is
 * called before returning.
 *
 * RunResults filled: complete, events (without the sampler's and the applications' start
 * events), packetHops, simTimeS, gpus, switches, links, counters, ports, tierClasses,
 * timeseries with sampleIntervalS and sampleIntervalAuto, flows (with their ideal FCT, in
 * op order), collectives (one per group), bisection (with RunSetup::topology), the tails
 * (FillTails) and violations: packets dropped on lossless ports, byte conservation per
 * message, messages posted = delivered + open, the transports' delivery count, and (complete
 * runs) each group's bytes per rank against its algorithm's formula.
 *
 * \param graph the fabric
 * \param groups the collectives (empty ranks: every GPU)
 * \param setup how to build and run
 * \return the results
 */
inline RunResults
RunCollectives(const FabricGraph& graph,
               std::vector<WorkloadGroup> groups,
               const RunSetup& setup = RunSetup())
{
    RngSeedManager::SetSeed(static_cast<uint32_t>(setup.seed));
    RngSeedManager::SetRun(1);
    Simulator::SetScheduler(ObjectFactory(SchedulerTypeName(DefaultSchedulerName())));
    const uint32_t gpus = graph.GetGpuCount();

    Workload wl;
    for (std::size_t gi = 0; gi < groups.size(); ++gi)
    {
        WorkloadGroup& g = groups[gi];
        if (g.ranks.empty())
        {
            g.ranks.resize(gpus);
            std::iota(g.ranks.begin(), g.ranks.end(), 0);
        }
        const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
        if (algo && algo->GetCapabilities().inNetwork && g.switches.empty())
        {
            AttachReducers(graph, g); // the NVSwitch chips, or SHARP's tree
        }
        if (g.op == "permutation" && g.ranks.size() >= 2)
        {
            Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
            rng->SetStream(PERMUTATION_STREAM + static_cast<int64_t>(gi));
            g.transfers
                = MakePermutationTransfers(static_cast<uint32_t>(g.ranks.size()), g.bytes, rng);
        }
        const uint32_t group = wl.AddGroup(g);
        WorkloadOp start;
        start.kind = WorkloadOp::DELAY;
        start.group = group;
        start.rank = g.ranks.front();
        start.duration = g.start;
        const uint32_t startOp = wl.AddOp(start);
        CreateCollectiveAlgorithm(g.algorithm)->Build(wl, group, {startOp});
    }
    wl.Finalize();

    FabricBuildOptions build = setup.build;
    for (const WorkloadGroup& g : wl.GetGroups())
    {
        build.reducers = build.reducers || !g.switches.empty();
        if (!g.tree.attach.empty())
        {
            build.networkReducers.insert(build.networkReducers.end(),
                                         g.switches.begin(),
                                         g.switches.end());
        }
    }
    if (setup.topology)
    {
        build.routing.SetPathChoice(setup.topology->Is<DragonflyPlusSpec>()
                                        ? setup.topology->As<DragonflyPlusSpec>().routing
                                        : PathChoice::MINIMAL);
    }
    if (ResolveCongestionControl(setup.congestionControl, graph.GetProfiles())
            == CongestionControlSetting::DCQCN
        && !build.congestionControl)
    {
        build.congestionControl = ObjectFactory("ns3::Dcqcn").Create<RdmaCongestionControl>();
    }
    Fabric fabric = FabricBuilder::Build(graph, SpecLocation{}, build);
    WorkloadHelper workloads(&wl);
    const ApplicationContainer apps = workloads.Install(fabric.endpointNodes);
    Ptr<WorkloadExecution> run = workloads.GetExecution();
    run->TraceConnectWithoutContext("Done", MakeCallback(&StopWhenDone));
    Simulator::ScheduleNow(&WorkloadExecution::Start, run);
    Simulator::Stop(setup.stopTime);
    std::vector<Ptr<FabricNetDevice>> devices;
    for (std::size_t i = 0; i < fabric.devicesA.size(); ++i)
    {
        devices.push_back(fabric.devicesA[i]);
        devices.push_back(fabric.devicesB[i]);
    }
    PortSampler sampler(devices, setup.sampleInterval);
    sampler.Start();
    // The bisection of every all-to-all and permutation: its cut's ports over its window.
    BisectionCutInfo cut;
    std::unique_ptr<CutPortMeter> cutMeter;
    if (setup.topology)
    {
        const Workload::GroupSends bucketed = wl.GetSendsByGroup();
        for (uint32_t gi = 0; gi < wl.GetGroups().size(); ++gi)
        {
            const WorkloadGroup& g = wl.GetGroups()[gi];
            if (g.op != "all-to-all" && g.op != "permutation")
            {
                continue;
            }
            if (!cutMeter)
            {
                cut = AnalyticBisectionCut(graph, *setup.topology);
                cutMeter = std::make_unique<CutPortMeter>(cut, fabric.devicesA, fabric.devicesB);
                cutMeter->Connect(run);
            }
            cutMeter->Watch(gi, g.start, bucketed.first[gi + 1] - bucketed.first[gi]);
        }
    }
    const uint64_t eventsBefore = Simulator::GetEventCount();
    Simulator::Run();
    sampler.Finish();
    if (cutMeter)
    {
        cutMeter->Finish();
    }

    RunResults r;
    r.gpus = gpus;
    r.switches = graph.GetSwitchCount();
    r.links = graph.GetLinks().size();
    r.simTimeS = Simulator::Now().GetSeconds();
    uint64_t appEvents = apps.GetN();
    for (uint32_t i = 0; i < apps.GetN(); ++i)
    {
        appEvents += DynamicCast<WorkloadApplication>(apps.Get(i))->HasStarted() ? 1 : 0;
    }
    r.events = Simulator::GetEventCount() - eventsBefore - sampler.Events() - appEvents
               - (cutMeter ? cutMeter->GetEvents() : 0);
    r.packetHops = fabric.GetPacketHops();
    r.complete = run->IsDone();

    // Counters and ports (port 2i: link i from end a, 2i + 1: from end b).
    for (const auto& sw : fabric.switches)
    {
        if (sw)
        {
            r.counters.drops += sw->GetDrops();
            r.counters.losslessDrops += sw->GetLosslessDrops();
            r.counters.ecnMarks += sw->GetEcnMarks();
            r.counters.peakBufferBytes
                = std::max(r.counters.peakBufferBytes, sw->GetPeakBufferUsed());
        }
    }
    const auto& nodes = graph.GetNodes();
    const auto& links = graph.GetLinks();
    for (uint32_t l = 0; l < links.size(); ++l)
    {
        for (int end = 0; end < 2; ++end)
        {
            const Ptr<FabricNetDevice>& d = end == 0 ? fabric.devicesA[l] : fabric.devicesB[l];
            const FabricNetDevice::Stats s = d->GetStats();
            r.counters.pauseFrames += s.pausesSent;
            r.counters.pausedS += s.pausedTime.GetSeconds();
            r.counters.stallS += s.stallTime.GetSeconds();
            PortRecord p;
            p.node = nodes[end == 0 ? links[l].a : links[l].b].name;
            p.peer = nodes[end == 0 ? links[l].b : links[l].a].name;
            p.technology = graph.GetProfiles()[links[l].profile].technology;
            p.txPackets = s.txPackets;
            p.txBytes = s.txWireBytes;
            p.busyS = s.busyTime.GetSeconds();
            p.drops = s.drops;
            p.peakQueueBytes = s.peakQueuedBytes;
            p.pausesReceived = s.pausesReceived;
            p.pausedS = s.pausedTime.GetSeconds();
            p.stallS = s.stallTime.GetSeconds();
            p.portId = static_cast<uint32_t>(r.ports.size());
            p.tierClass = TierClassOf(graph, l, setup.topology && setup.topology->Is<CustomSpec>());
            p.ecnMarks = s.ecnMarks;
            p.p99QueueBytes = d->GetQueuePercentileBytes(99.0);
            p.rateBps
                = static_cast<double>(graph.GetProfiles()[links[l].profile].rate.GetBitRate());
            r.ports.push_back(p);
        }
    }
    r.tierClasses = SummarizeTierClasses(r.ports, r.simTimeS);
    r.sampleIntervalS = sampler.IntervalS();
    r.sampleIntervalAuto = !setup.sampleInterval.IsStrictlyPositive();
    r.timeseries = sampler.Rows();
    if (r.counters.losslessDrops > 0)
    {
        r.violations.push_back(std::to_string(r.counters.losslessDrops)
                               + " packets dropped on lossless ports");
    }

    // Flows and collectives, group by group (a group's ops follow its start op).
    const auto& ops = wl.GetOps();
    std::vector<std::vector<uint32_t>> sendsOf(groups.size());
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (ops[i].kind == WorkloadOp::SEND)
        {
            sendsOf[ops[i].group].push_back(i);
        }
    }
    for (std::size_t gi = 0; gi < groups.size(); ++gi)
    {
        const WorkloadGroup& g = wl.GetGroups()[gi];
        CollectiveResult c;
        c.group = static_cast<uint32_t>(gi);
        c.name = g.name;
        c.op = g.op;
        c.algorithm = g.algorithm;
        c.ranks = static_cast<uint32_t>(g.ranks.size());
        c.bytes = g.bytes;
        c.startS = g.start.GetSeconds();
        c.rankGpus = g.ranks;
        c.bytesSentPerRank.assign(g.ranks.size(), 0);
        c.finishSPerRank.assign(g.ranks.size(), c.startS);
        auto position = [&g](uint32_t gpu) {
            return static_cast<std::size_t>(std::find(g.ranks.begin(), g.ranks.end(), gpu)
                                            - g.ranks.begin());
        };
        const CollectiveCost cost = CollectiveAlphaBeta(graph, g);
        c.alphaS = cost.inter.alphaS;
        c.betaSPerByte = cost.inter.betaSPerByte;
        c.analyticS = CollectiveTime(g, cost, CollectiveModel::FORMULA);
        c.endS = c.startS;
        for (const uint32_t i : sendsOf[gi])
        {
            const WorkloadOp& op = ops[i];
            c.bytesSentPerRank[position(op.rank)] += op.bytes;
            const Time end = run->GetOpEnd(i);
            if (end.IsNegative())
            {
                continue;
            }
            FlowRecord f;
            f.id = r.flows.size();
            f.collective = g.name;
            f.step = op.step;
            f.src = op.rank;
            f.dst = op.peer;
            f.bytes = op.bytes;
            f.postedS = run->GetOpStart(i).GetSeconds();
            f.endS = end.GetSeconds();
            const WorkloadSendTiming t = run->GetSendTiming(i);
            if (!t.eligible.IsNegative())
            {
                f.eligibleS = t.eligible.GetSeconds();
                f.firstByteS = t.firstByte.GetSeconds();
                f.sharedS = t.shared.GetSeconds();
            }
            c.endS = std::max(c.endS, f.endS);
            double& finish = c.finishSPerRank[position(op.peer)];
            finish = std::max(finish, f.endS);
            r.flows.push_back(f);
        }
        c.durationS = c.endS - c.startS;
        if (c.durationS > 0)
        {
            c.algbwGBps = static_cast<double>(c.bytes) / c.durationS / 1e9;
            c.busbwGBps = c.algbwGBps * BusBandwidthFactor(c.op, c.ranks);
        }
        // Bytes per rank against the algorithm's formula (complete runs).
        std::vector<uint64_t> expected;
        if (r.complete && CreateCollectiveAlgorithm(g.algorithm)->BytesPerRank(g, expected))
        {
            for (std::size_t k = 0; k < expected.size(); ++k)
            {
                if (expected[k] != c.bytesSentPerRank[k])
                {
                    r.violations.push_back("bytes per rank: '" + g.name + "' rank "
                                           + std::to_string(k) + " sent "
                                           + std::to_string(c.bytesSentPerRank[k])
                                           + ", the formula gives " + std::to_string(expected[k]));
                }
            }
        }
        r.collectives.push_back(c);
    }
    std::vector<MessageQuery> queries;
    for (const FlowRecord& f : r.flows)
    {
        queries.push_back(MessageQuery{f.src, f.dst, f.bytes});
    }
    const std::vector<double> ideal = MessageIdealTimes(graph, queries);
    for (std::size_t i = 0; i < r.flows.size(); ++i)
    {
        r.flows[i].idealS = ideal[i];
    }
    FillTails(r);

    // The bisection achieved by every all-to-all and permutation.
    if (cutMeter)
    {
        for (const CollectiveResult& c : r.collectives)
        {
            const CutWindow* window = cutMeter->GetWindow(c.group);
            if (window == nullptr)
            {
                continue;
            }
            std::vector<FlowRecord> mine;
            for (const FlowRecord& f : r.flows)
            {
                if (f.collective == c.name)
                {
                    mine.push_back(f);
                }
            }
            r.bisection.push_back(MakeBisectionRecord(cut, c, mine, *window));
        }
    }

    // The invariants of the run.
    for (const auto& e : run->GetConservationErrors())
    {
        r.violations.push_back("conservation: message " + std::to_string(e.op)
                               + (e.duplicate
                                      ? " was delivered twice"
                                      : " delivered " + std::to_string(e.delivered) + " bytes of "
                                            + std::to_string(ops[e.op].bytes)));
    }
    uint64_t open = 0;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        open += ops[i].kind == WorkloadOp::SEND && !run->GetOpStart(i).IsStrictlyNegative()
                        && run->GetOpEnd(i).IsStrictlyNegative()
                    ? 1
                    : 0;
    }
    if (run->GetMessagesPosted() != run->GetMessagesDelivered() + open)
    {
        r.violations.push_back("accounting: " + std::to_string(run->GetMessagesPosted())
                               + " messages posted, " + std::to_string(run->GetMessagesDelivered())
                               + " delivered, " + std::to_string(open) + " open");
    }
    uint64_t delivered = 0;
    for (const auto& t : fabric.transports)
    {
        delivered += t->GetMessagesDelivered();
    }
    if (delivered != run->GetMessagesDelivered())
    {
        r.violations.push_back("accounting: the transports delivered " + std::to_string(delivered)
                               + " messages, the workload saw "
                               + std::to_string(run->GetMessagesDelivered()));
    }

    Simulator::Destroy();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    return r;
}

} // namespace aifabrictest
} // namespace ns3

#endif /* AI_FABRIC_TEST_RUN_H */
