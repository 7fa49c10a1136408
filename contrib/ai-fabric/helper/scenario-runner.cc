/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-runner.h"

#include "analytic-model.h"
#include "fabric-builder.h"
#include "fabric-graph.h"
#include "fabric-stats.h"

#include "ns3/collective-algorithm.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/workload-runner.h"
#include "ns3/workload.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>

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

/// Turn the traffic description into a workload DAG.
void
BuildWorkload(const ScenarioSpec& spec, uint32_t gpus, Workload& wl)
{
    for (const CollectiveSpec& c : spec.traffic.collectives)
    {
        Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(c.algorithm);
        if (!algo)
        {
            throw SpecError(c.where, "unknown algorithm '" + c.algorithm + "'");
        }
        if (!algo->Supports(c.op))
        {
            throw SpecError(c.where,
                            "algorithm '" + c.algorithm + "' does not implement '" + c.op + "'");
        }
        WorkloadGroup g;
        g.name = c.name;
        g.op = c.op;
        g.algorithm = c.algorithm;
        g.bytes = c.bytes;
        g.start = c.start;
        g.ranks = c.ranks;
        g.channels = c.channels;
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
        for (const uint32_t r : g.ranks)
        {
            if (r >= gpus)
            {
                throw SpecError(c.ranksWhere,
                                "rank " + std::to_string(r) + " does not exist: the topology has "
                                    + std::to_string(gpus) + " GPUs");
            }
        }
        const std::string problem = algo->Validate(g);
        if (!problem.empty())
        {
            throw SpecError(c.where, c.algorithm + " " + c.op + ": " + problem);
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
    wl.Finalize();
}

/// Prints a progress line on a timer of simulated time; counts its own events.
class ProgressMonitor
{
  public:
    ProgressMonitor(Ptr<WorkloadRunner> runner, const RunOptions& options, Clock::time_point t0)
        : m_runner(runner)
        , m_out(options.progressOut ? options.progressOut : &std::cerr)
        , m_after(options.progressAfterS)
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
        if (wall >= m_after && wall - m_lastPrint >= 0.5)
        {
            m_lastPrint = wall;
            m_printed = true;
            const double share
                = m_runner->GetBytesTotal() == 0
                      ? 1.0
                      : static_cast<double>(m_runner->GetBytesDone()) / m_runner->GetBytesTotal();
            char line[160];
            std::snprintf(
                line,
                sizeof line,
                "\r[ai-fabric] simulated %.6f s | %5.1f%% of bytes delivered | wall %.1f s",
                Simulator::Now().GetSeconds(),
                100.0 * share,
                wall);
            *m_out << line << std::flush;
        }
        Simulator::Schedule(MicroSeconds(10), &ProgressMonitor::Tick, this);
    }

    void Finish()
    {
        if (m_printed)
        {
            *m_out << "\n" << std::flush;
        }
    }

    uint64_t Events() const
    {
        return m_events;
    }

  private:
    Ptr<WorkloadRunner> m_runner;
    std::ostream* m_out;
    double m_after;
    Clock::time_point m_t0;
    double m_lastPrint{0};
    bool m_printed{false};
    uint64_t m_events{0};
};

/// Ends the run: the scenario's simulated-time limit has passed.
void
StopAtLimit()
{
    Simulator::Stop();
}

/// Stops the simulation the moment the workload is done.
void
StopWhenDone(Ptr<WorkloadRunner> runner, uint32_t /* op */)
{
    if (runner->IsDone())
    {
        Simulator::Stop();
    }
}

/// Sum the flow-control and loss counters of every port and switch.
FabricCounters
CollectCounters(const Fabric& fabric)
{
    FabricCounters k;
    auto port = [&k](const Ptr<FabricNetDevice>& d) {
        k.pauseFrames += d->GetPausesSent();
        k.pausedS += d->GetPausedTime().GetSeconds();
        k.stallS += d->GetStallTime().GetSeconds();
    };
    for (std::size_t i = 0; i < fabric.devicesA.size(); ++i)
    {
        port(fabric.devicesA[i]);
        port(fabric.devicesB[i]);
    }
    for (const auto& sw : fabric.switches)
    {
        if (sw)
        {
            k.drops += sw->GetDrops();
            k.losslessDrops += sw->GetLosslessDrops();
            k.ecnMarks += sw->GetEcnMarks();
            k.peakBufferBytes = std::max(k.peakBufferBytes, sw->GetPeakBufferUsed());
        }
    }
    return k;
}

/// \return the link class between two nodes, by their kinds and tiers
std::string
TierName(const FabricGraph::Node& a, const FabricGraph::Node& b)
{
    auto name = [](const FabricGraph::Node& n) -> std::string {
        switch (n.kind)
        {
            case FabricGraph::NodeKind::GPU:
                return "gpu";
            case FabricGraph::NodeKind::NIC:
                return "nic";
            case FabricGraph::NodeKind::SWITCH:
                break;
        }
        return "switch" + std::to_string(n.tier);
    };
    const std::string x = name(a);
    const std::string y = name(b);
    return x < y ? x + "-" + y : y + "-" + x;
}

/// One record per port: both directions of every link.
std::vector<PortRecord>
CollectPorts(const FabricGraph& graph, const Fabric& fabric)
{
    std::vector<PortRecord> ports;
    const auto& nodes = graph.GetNodes();
    const auto& links = graph.GetLinks();
    ports.reserve(2 * links.size());
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        const auto& link = links[i];
        const std::string tier = TierName(nodes[link.a], nodes[link.b]);
        const std::string tech = graph.GetProfiles()[link.profile].technology;
        for (int end = 0; end < 2; ++end)
        {
            const Ptr<FabricNetDevice>& d = end == 0 ? fabric.devicesA[i] : fabric.devicesB[i];
            PortRecord p;
            p.node = nodes[end == 0 ? link.a : link.b].name;
            p.peer = nodes[end == 0 ? link.b : link.a].name;
            p.tier = tier;
            p.technology = tech;
            p.txPackets = d->GetTxPackets();
            p.txBytes = d->GetTxWireBytes();
            p.busyS = d->GetBusyTime().GetSeconds();
            p.drops = d->GetDrops();
            p.peakQueueBytes = d->GetPeakQueuedBytes();
            p.pausesReceived = d->GetPausesReceived();
            p.pausedS = d->GetPausedTime().GetSeconds();
            p.stallS = d->GetStallTime().GetSeconds();
            ports.push_back(p);
        }
    }
    return ports;
}

} // namespace

RunResults
RunScenario(const ScenarioSpec& spec, const RunOptions& options)
{
    const Clock::time_point t0 = Clock::now();
    RngSeedManager::SetSeed(static_cast<uint32_t>(spec.seed));
    RngSeedManager::SetRun(1);

    // Everything that can be wrong with the input is found before simulating.
    const FabricGraph graph = BuildFabricGraph(spec.topology);
    Workload workload;
    BuildWorkload(spec, graph.GetGpuCount(), workload);
    FabricBuildOptions build;
    if (!FabricSwitch::ParseForwarding(spec.forwarding, build.forwarding))
    {
        throw SpecError(spec.where, "unknown forwarding '" + spec.forwarding + "'");
    }
    if (!FabricSwitch::ParsePathMode(spec.topology.routing, build.pathMode))
    {
        throw SpecError(spec.topology.where,
                        "unknown routing '" + spec.topology.routing
                            + "' (known: minimal, valiant, ugal)");
    }
    build.reliability = spec.reliability;
    build.transportAttributes = spec.transportAttributes;
    std::string cc = spec.congestionControl;
    if (cc == "auto")
    {
        cc = "none";
        for (const auto& p : graph.GetProfiles())
        {
            if (p.ecnKmin > 0)
            {
                cc = "dcqcn"; // the links mark ECN: RoCEv2 runs DCQCN
            }
        }
    }
    if (cc == "dcqcn")
    {
        ObjectFactory factory("ns3::Dcqcn");
        for (const auto& [name, value] : spec.dcqcnAttributes)
        {
            factory.Set(name, StringValue(value));
        }
        build.congestionControl = factory.Create<RdmaCongestionControl>();
    }
    else if (cc != "none")
    {
        throw SpecError(spec.where, "unknown congestion_control '" + cc + "'");
    }
    Fabric fabric = FabricBuilder::Build(graph, spec.topology.where, build);

    Ptr<WorkloadRunner> runner = CreateObject<WorkloadRunner>();
    runner->Setup(&workload, fabric.transports);
    runner->TraceConnectWithoutContext("OpCompleted", MakeBoundCallback(&StopWhenDone, runner));
    Simulator::ScheduleNow(&WorkloadRunner::Start, runner);
    Simulator::Schedule(spec.stopTime, &StopAtLimit);
    ProgressMonitor monitor(runner, options, t0);
    if (options.progress)
    {
        Simulator::ScheduleNow(&ProgressMonitor::Tick, &monitor);
    }
    const double setupS = SecondsSince(t0);

    const uint64_t eventsBefore = Simulator::GetEventCount();
    Simulator::Run();
    monitor.Finish();

    RunResults r;
    r.scenario = spec.name;
    r.scenarioFile = spec.where.file;
    r.topology = spec.topology.name;
    r.traffic = spec.traffic.name;
    r.seed = spec.seed;
    r.gpus = graph.GetGpuCount();
    r.switches = graph.GetSwitchCount();
    r.links = graph.GetLinks().size();
    r.simTimeS = Simulator::Now().GetSeconds();
    // The monitor's own events depend on whether progress is shown: leave them out.
    r.events = Simulator::GetEventCount() - eventsBefore - monitor.Events();
    r.packetHops = fabric.GetPacketHops();
    r.complete = runner->IsDone();
    r.setupTimeS = setupS;
    r.counters = CollectCounters(fabric);
    r.ports = CollectPorts(graph, fabric);
    if (r.counters.losslessDrops > 0)
    {
        r.violations.push_back(std::to_string(r.counters.losslessDrops)
                               + " packets dropped on lossless (credit or PFC) ports");
    }

    const auto& ops = workload.GetOps();
    const auto& groups = workload.GetGroups();
    r.collectives.resize(groups.size());
    std::vector<std::vector<uint32_t>> rankIndex(groups.size());
    for (uint32_t gi = 0; gi < groups.size(); ++gi)
    {
        const WorkloadGroup& g = groups[gi];
        CollectiveResult& c = r.collectives[gi];
        c.name = g.name;
        c.op = g.op;
        c.algorithm = g.algorithm;
        c.ranks = g.ranks.size();
        c.bytes = g.bytes;
        c.startS = g.start.GetSeconds();
        c.rankGpus = g.ranks;
        c.bytesSentPerRank.assign(g.ranks.size(), 0);
        c.finishSPerRank.assign(g.ranks.size(), c.startS);
        rankIndex[gi].assign(graph.GetGpuCount(), UINT32_MAX);
        for (uint32_t i = 0; i < g.ranks.size(); ++i)
        {
            rankIndex[gi][g.ranks[i]] = i;
        }
        const CollectiveCost cost = CollectiveAlphaBeta(graph, g);
        c.alphaS = cost.inter.alphaS;
        c.betaSPerByte = cost.inter.betaSPerByte;
        c.analyticS = CollectiveTime(g, cost, CollectiveModel::FORMULA);
        c.endS = c.startS;
    }

    r.flows.reserve(ops.size());
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        const WorkloadOp& op = ops[i];
        if (op.kind != WorkloadOp::SEND)
        {
            continue;
        }
        CollectiveResult& c = r.collectives[op.group];
        const Time start = runner->GetOpStart(i);
        const Time end = runner->GetOpEnd(i);
        c.bytesSentPerRank[rankIndex[op.group][op.rank]] += op.bytes;
        if (end.IsNegative())
        {
            continue; // never arrived: the run was cut off
        }
        FlowRecord f;
        f.id = r.flows.size();
        f.collective = groups[op.group].name;
        f.step = op.step;
        f.src = op.rank;
        f.dst = op.peer;
        f.bytes = op.bytes;
        f.startS = start.GetSeconds();
        f.endS = end.GetSeconds();
        r.flows.push_back(f);
        c.endS = std::max(c.endS, f.endS);
        double& finish = c.finishSPerRank[rankIndex[op.group][op.peer]];
        finish = std::max(finish, f.endS);
    }
    for (CollectiveResult& c : r.collectives)
    {
        c.durationS = c.endS - c.startS;
        if (c.durationS > 0)
        {
            c.algbwGBps = static_cast<double>(c.bytes) / c.durationS / 1e9;
            c.busbwGBps = c.algbwGBps * BusBandwidthFactor(c.op, c.ranks);
        }
    }

    Simulator::Destroy();
    r.wallTimeS = SecondsSince(t0);
    return r;
}

} // namespace ns3
