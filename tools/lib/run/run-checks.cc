/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "run-checks.h"

#include "config/scenario-spec.h"
#include "output/atomic-file.h"

#include "ns3/collective-algorithm.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-topology.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/spec-error.h"
#include "ns3/workload-execution.h"
#include "ns3/workload.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <signal.h>
#include <sstream>
#include <unistd.h>

namespace ns3
{

namespace
{

/// The pending interrupt signal (0: none).
volatile std::sig_atomic_t g_interrupt = 0;
/// Non-zero once a simulation started: a signal is deferred to the watchdog.
volatile std::sig_atomic_t g_deferSignals = 0;

// Memory-estimate constants (see EstimateRunMemoryBytes()), fitted to the peak RSS
// (/usr/bin/time -v) of Release runs on Debian 12 / ns-3 3.37 (docs/robustness.md):
// 2 GPUs: 11.5 MB; 16-GPU ring all-reduce with 16 KiB pieces, 123 k and 492 k ops:
// 32 MB and 114 MB; fat-tree radix 16 (3,072 links, 327,680 routes) and radix 24
// (10,368 links, 2.49 M routes), one message: 35 MB and 100 MB.
constexpr double MEM_BASE_BYTES = 11.5e6;       //!< process with ns-3 loaded
constexpr double MEM_PER_OP_BYTES = 205;        //!< workload op, runner state and results
constexpr double MEM_PER_DEPENDENCY_BYTES = 12; //!< a dependency (edge list, then CSR)
constexpr double MEM_PER_LINK_BYTES = 7000;     //!< nodes, two ports, channel, switch ports
constexpr double MEM_PER_ROUTE_BYTES = 8;       //!< one switch's next hops to one GPU
constexpr double MEM_PER_GPU_BYTES = 0;         //!< (in the link's cost)

/// Most invariant violations of one kind spelled out (then counted).
constexpr std::size_t MAX_VIOLATIONS_PER_KIND = 5;

} // namespace

void
RequestRunInterrupt(int signal)
{
    g_interrupt = signal;
}

int
RunInterruptSignal()
{
    return g_interrupt;
}

namespace
{

/// SIGINT/SIGTERM: the first asks the run to stop, the second exits at once.
extern "C" void
OnRunSignal(int signal)
{
    if (g_interrupt != 0 || g_deferSignals == 0)
    {
        // A second signal, or one during the set-up (nothing written yet): stop now, and
        // say which results were written if they were being written.
        RemovePendingAtomicFile();
        ReportResultSetOnSignal();
        _exit(128 + signal);
    }
    g_interrupt = signal;
}

} // namespace

void
DeferRunSignals()
{
    g_deferSignals = 1;
}

void
InstallRunSignalHandlers()
{
    struct sigaction sa = {};
    sa.sa_handler = OnRunSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

RunWatchdog::RunWatchdog(const Fabric& fabric, Ptr<WorkloadExecution> runner, Time noProgress)
    : m_fabric(fabric)
    , m_runner(runner)
    , m_noProgress(noProgress)
{
}

RunWatchdog::~RunWatchdog()
{
    if (m_sleeping)
    {
        m_runner->NotifyNextOpDone(Callback<void>());
    }
}

void
RunWatchdog::Start()
{
    DeferRunSignals();
    m_lastProgress = Simulator::Now();
    m_nextCheck = Simulator::Now() + m_noProgress;
    Simulator::ScheduleNow(&RunWatchdog::Tick, this);
}

void
RunWatchdog::Tick()
{
    ++m_events;
    m_lastTickPs = Simulator::Now().GetPicoSeconds();
    if (g_interrupt != 0)
    {
        m_interrupted = true;
        Simulator::Stop();
        return;
    }
    if (m_runner->IsDone())
    {
        return;
    }
    if (m_runner->GetSendsOpen() == 0)
    {
        // No message in flight: only delays (compute, start times) run until the next op
        // completes, nothing can stall, and the simulator crosses the gap at once. Sleep until
        // then instead of ticking through it (a 'start: 1000s' cost 10^8 ticks).
        m_sleeping = true;
        if (m_wake.IsNull())
        {
            m_wake = MakeCallback(&RunWatchdog::Wake, this); // made once: no allocation per sleep
        }
        m_runner->NotifyNextOpDone(m_wake);
        return;
    }
    const Time now = Simulator::Now();
    if (m_noProgress.IsStrictlyPositive() && now >= m_nextCheck)
    {
        // O(links), once per interval: packet hops and completed ops.
        const uint64_t hops = m_fabric.GetPacketHops();
        const uint64_t ops = m_runner->GetOpsDone();
        const bool open = m_runner->GetMessagesPosted() > m_runner->GetMessagesDelivered();
        if (hops != m_hops || ops != m_opsDone || !open)
        {
            m_hops = hops;
            m_opsDone = ops;
            m_lastProgress = now;
        }
        else if (now - m_lastProgress >= m_noProgress)
        {
            m_stalled = true;
            Simulator::Stop();
            return;
        }
        m_nextCheck = now + m_noProgress;
    }
    Simulator::Schedule(PicoSeconds(PERIOD_PS), &RunWatchdog::Tick, this);
}

void
RunWatchdog::Wake()
{
    m_sleeping = false;
    m_lastProgress = Simulator::Now();
    m_nextCheck = Simulator::Now() + m_noProgress;
    // Back on the tick grid: never more often than once per PERIOD (a training job's compute
    // phases complete ops far more often than that).
    const int64_t now = Simulator::Now().GetPicoSeconds();
    const int64_t next = std::max(now, m_lastTickPs + PERIOD_PS);
    Simulator::Schedule(PicoSeconds(next - now), &RunWatchdog::Tick, this);
}

uint64_t
RunWatchdog::Events() const
{
    return m_events;
}

bool
RunWatchdog::Stalled() const
{
    return m_stalled;
}

Time
RunWatchdog::LastProgress() const
{
    return m_lastProgress;
}

bool
RunWatchdog::Interrupted() const
{
    return m_interrupted;
}

std::vector<std::string>
FindBlockedPortCycle(const FabricGraph& graph, const Fabric& fabric)
{
    const auto& nodes = graph.GetNodes();
    const auto& links = graph.GetLinks();
    // Port 2i: link i's end a -> b; port 2i+1: b -> a.
    const std::size_t ports = 2 * links.size();
    auto from = [&links](std::size_t p) {
        return p % 2 == 0 ? links[p / 2].a : links[p / 2].b;
    };
    auto to = [&links](std::size_t p) {
        return p % 2 == 0 ? links[p / 2].b : links[p / 2].a;
    };
    std::vector<char> blocked(ports, 0);
    std::vector<std::vector<uint32_t>> out(nodes.size()); // blocked ports leaving a node
    for (std::size_t p = 0; p < ports; ++p)
    {
        const Ptr<FabricNetDevice>& d
            = p % 2 == 0 ? fabric.devicesA[p / 2] : fabric.devicesB[p / 2];
        if (d && d->IsFlowControlBlocked())
        {
            blocked[p] = 1;
            out[from(p)].push_back(static_cast<uint32_t>(p));
        }
    }
    // Iterative DFS, colours 0 white, 1 on the stack, 2 done; ports in index order.
    std::vector<uint8_t> colour(ports, 0);
    std::vector<std::pair<uint32_t, std::size_t>> stack;
    for (std::size_t s = 0; s < ports; ++s)
    {
        if (!blocked[s] || colour[s] != 0)
        {
            continue;
        }
        stack.assign(1, {static_cast<uint32_t>(s), 0});
        colour[s] = 1;
        while (!stack.empty())
        {
            auto& [p, next] = stack.back();
            const auto& succ = out[to(p)];
            if (next >= succ.size())
            {
                colour[p] = 2;
                stack.pop_back();
                continue;
            }
            const uint32_t q = succ[next++];
            if (to(q) == from(p))
            {
                continue; // straight back where it came from: not a forwarding dependency
            }
            if (colour[q] == 1)
            {
                std::vector<uint32_t> cycle{q};
                for (std::size_t i = stack.size(); i-- > 0 && stack[i].first != q;)
                {
                    cycle.push_back(stack[i].first);
                }
                std::reverse(cycle.begin() + 1, cycle.end());
                std::vector<std::string> names;
                for (const uint32_t c : cycle)
                {
                    names.push_back(nodes[from(c)].name + "->" + nodes[to(c)].name);
                }
                return names;
            }
            if (colour[q] == 0)
            {
                colour[q] = 1;
                stack.emplace_back(q, 0);
            }
        }
    }
    return {};
}

void
CheckRun(const FabricGraph& graph,
         const Fabric& fabric,
         const Workload& workload,
         const WorkloadExecution& runner,
         RunResults& r)
{
    const auto& ops = workload.GetOps();
    const auto& groups = workload.GetGroups();

    // Conservation: every delivered message, as many bytes as were posted.
    const auto& errors = runner.GetConservationErrors();
    for (std::size_t i = 0; i < errors.size() && i < MAX_VIOLATIONS_PER_KIND; ++i)
    {
        const auto& e = errors[i];
        const WorkloadOp& op = ops[e.op];
        r.violations.push_back(
            "conservation: message " + std::to_string(e.op) + " of '" + groups[op.group].name
            + "' (GPU " + std::to_string(op.rank) + " -> " + std::to_string(op.peer) + ") "
            + (e.duplicate ? "was delivered twice"
                           : "delivered " + std::to_string(e.delivered) + " bytes of "
                                 + std::to_string(WireBytes(op.wire, op.bytes)) + " sent"));
    }
    if (errors.size() > MAX_VIOLATIONS_PER_KIND)
    {
        r.violations.push_back("conservation: "
                               + std::to_string(errors.size() - MAX_VIOLATIONS_PER_KIND)
                               + " more messages with wrong byte counts");
    }

    // The stall report: posted, not delivered. Ops that never started are counted.
    r.openMessages = 0;
    r.waitingOps = 0;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        const bool started = !runner.GetOpStart(i).IsStrictlyNegative();
        if (!started)
        {
            ++r.waitingOps;
            continue;
        }
        if (ops[i].kind != WorkloadOp::SEND || !runner.GetOpEnd(i).IsStrictlyNegative())
        {
            continue;
        }
        ++r.openMessages;
        if (r.stallReport.size() < MAX_STALL_REPORT)
        {
            const WorkloadOp& op = ops[i];
            StalledMessage m;
            m.op = i;
            m.group = groups[op.group].name;
            m.step = op.step;
            m.src = op.rank;
            m.dst = op.peer;
            m.bytes = WireBytes(op.wire, op.bytes); // as the transport counts them
            const uint32_t msgId = runner.GetMessageId(i);
            if (msgId != UINT32_MAX && op.peer < fabric.transports.size())
            {
                // A SEND split over its connection's queue pairs: its parts' bytes so far.
                const uint32_t parts = runner.GetMessageParts(i);
                for (uint32_t k = 0; k < parts; ++k)
                {
                    m.delivered += fabric.transports[op.peer]->GetPartialBytes(op.rank, msgId + k);
                }
            }
            m.postedS = runner.GetOpStart(i).GetSeconds();
            r.stallReport.push_back(std::move(m));
        }
    }
    // Every message issued is delivered or listed.
    if (runner.GetMessagesPosted() != runner.GetMessagesDelivered() + r.openMessages)
    {
        r.violations.push_back("accounting: " + std::to_string(runner.GetMessagesPosted())
                               + " messages posted, but "
                               + std::to_string(runner.GetMessagesDelivered()) + " delivered and "
                               + std::to_string(r.openMessages) + " open");
    }
    uint64_t transportDelivered = 0;
    for (const auto& t : fabric.transports)
    {
        transportDelivered += t->GetMessagesDelivered();
    }
    if (transportDelivered != runner.GetPartsDelivered())
    {
        r.violations.push_back("accounting: the transports delivered "
                               + std::to_string(transportDelivered) + " messages, the workload saw "
                               + std::to_string(runner.GetPartsDelivered()));
    }

    if (!r.complete)
    {
        r.deadlockCycle = FindBlockedPortCycle(graph, fabric);
        return; // per-rank totals need every message
    }

    // Bytes per rank against the algorithm's formula (complete runs).
    const Workload::GroupSends bucketed = workload.GetSendsByGroup();
    const std::vector<uint32_t>& first = bucketed.first;
    const std::vector<uint32_t>& sends = bucketed.sends;
    std::vector<uint32_t> position(fabric.transports.size(), UINT32_MAX);
    std::vector<uint64_t> expected;
    std::vector<uint64_t> actual;
    std::size_t wrong = 0;
    std::map<std::string, Ptr<CollectiveAlgorithm>> algorithms; // one registry look-up per name
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        const WorkloadGroup& wg = groups[g];
        auto algo = algorithms.find(wg.algorithm);
        if (algo == algorithms.end())
        {
            algo = algorithms.emplace(wg.algorithm, CreateCollectiveAlgorithm(wg.algorithm)).first;
        }
        if (!algo->second || !algo->second->BytesPerRank(wg, expected))
        {
            continue; // compute groups: no messages, no formula
        }
        for (uint32_t i = 0; i < wg.ranks.size(); ++i)
        {
            position[wg.ranks[i]] = i;
        }
        actual.assign(wg.ranks.size(), 0);
        for (uint32_t j = first[g]; j < first[g + 1]; ++j)
        {
            const WorkloadOp& op = ops[sends[j]];
            if (op.rank < position.size() && position[op.rank] != UINT32_MAX)
            {
                actual[position[op.rank]] += op.bytes;
            }
        }
        for (uint32_t i = 0; i < wg.ranks.size(); ++i)
        {
            position[wg.ranks[i]] = UINT32_MAX;
            if (actual[i] != expected[i] && wrong++ < MAX_VIOLATIONS_PER_KIND)
            {
                r.violations.push_back("bytes per rank: " + wg.algorithm + " " + wg.op + " '"
                                       + wg.name + "': rank " + std::to_string(i) + " (GPU "
                                       + std::to_string(wg.ranks[i]) + ") sent "
                                       + std::to_string(actual[i]) + " bytes, the formula gives "
                                       + std::to_string(expected[i]));
            }
        }
    }
    if (wrong > MAX_VIOLATIONS_PER_KIND)
    {
        r.violations.push_back("bytes per rank: " + std::to_string(wrong - MAX_VIOLATIONS_PER_KIND)
                               + " more ranks off their formula");
    }
}

namespace
{

/// \return "GPU <i>", or for an in-network reducer (an endpoint after the GPUs: an NVSwitch
/// or, with SHARP, an InfiniBand switch) "switch endpoint <i>"
std::string
EndpointName(const RunResults& r, uint32_t endpoint)
{
    return (endpoint < r.gpus ? "GPU " : "switch endpoint ") + std::to_string(endpoint);
}

} // namespace

void
PrintStallReport(const RunResults& r, std::ostream& os, std::size_t lines)
{
    if (r.complete)
    {
        return;
    }
    os << "ai-fabric: stopped (" << r.stopReason << ") at simulated " << r.simTimeS
       << " s: " << r.openMessages << " message(s) posted and not delivered, " << r.waitingOps
       << " op(s) never started\n";
    if (!r.deadlockCycle.empty())
    {
        os << "ai-fabric: deadlock: cycle of flow-control-blocked ports: ";
        for (std::size_t i = 0; i < r.deadlockCycle.size(); ++i)
        {
            os << (i ? " -> " : "") << r.deadlockCycle[i];
        }
        os << " -> " << r.deadlockCycle.front() << "\n";
    }
    for (std::size_t i = 0; i < r.stallReport.size() && i < lines; ++i)
    {
        const StalledMessage& m = r.stallReport[i];
        os << "ai-fabric:   open message " << m.op << " '" << m.group << "' step " << m.step << ": "
           << EndpointName(r, m.src) << " -> " << EndpointName(r, m.dst) << ", " << m.delivered
           << " of " << m.bytes << " bytes delivered, posted at " << m.postedS << " s\n";
    }
    if (r.openMessages > lines)
    {
        os << "ai-fabric:   ... and "
           << (r.openMessages - std::min<uint64_t>(lines, r.openMessages))
           << " more (summary.json \"stall_report\")\n";
    }
}

double
LimitWorkloadToMemory(const FabricGraph& graph, uint64_t memoryLimit, Workload& workload)
{
    const double fabric = EstimateRunMemoryBytes(graph, Workload());
    if (memoryLimit > 0)
    {
        const double room = std::max(0.0, static_cast<double>(memoryLimit) - fabric);
        workload.SetLimits(static_cast<uint64_t>(room / MEM_PER_OP_BYTES),
                           static_cast<uint64_t>(room / MEM_PER_DEPENDENCY_BYTES));
    }
    return fabric;
}

double
EstimateRunMemoryBytes(const FabricGraph& graph, const Workload& workload)
{
    // Per-item costs, bytes, measured with /usr/bin/time -v (peak RSS) on runs that
    // vary one item at a time (docs/robustness.md, "Memory estimate").
    constexpr double BASE = MEM_BASE_BYTES;
    constexpr double PER_OP = MEM_PER_OP_BYTES;
    constexpr double PER_DEPENDENCY = MEM_PER_DEPENDENCY_BYTES;
    constexpr double PER_LINK = MEM_PER_LINK_BYTES;
    constexpr double PER_ROUTE = MEM_PER_ROUTE_BYTES;
    constexpr double PER_GPU = MEM_PER_GPU_BYTES;
    const double ops = workload.GetOps().size();
    const double deps = workload.GetDependencyCount();
    const double links = graph.GetLinks().size();
    const double gpus = graph.GetGpuCount();
    const double routes = static_cast<double>(graph.GetSwitchCount()) * gpus;
    return BASE + PER_OP * ops + PER_DEPENDENCY * deps + PER_LINK * links + PER_ROUTE * routes
           + PER_GPU * gpus;
}

double
EstimateTopologyFloorBytes(const TopologySpec& t)
{
    double gpus = 0;
    try
    {
        if (t.Is<LeafSpineSpec>())
        {
            const LeafSpineSizing z = ResolveLeafSpine(t);
            gpus = static_cast<double>(z.leaves) * z.gpusPerLeaf;
        }
        else if (t.Is<FatTreeSpec>())
        {
            const FatTreeSizing z = ResolveFatTree(t);
            gpus = static_cast<double>(z.pods) * z.leavesPerPod * z.gpusPerLeaf;
        }
        else if (t.Is<RailOptimizedSpec>() || t.Is<RailOnlySpec>())
        {
            const RailSizing z = ResolveRail(t);
            gpus = static_cast<double>(z.gpusPerServer) * z.serversPerSu * z.sus;
        }
        else if (t.Is<DragonflyPlusSpec>())
        {
            const DragonflyPlusSizing z = ResolveDragonflyPlus(t);
            gpus = static_cast<double>(z.groups) * z.leavesPerGroup * z.gpusPerLeaf;
        }
        else if (t.Is<CustomSpec>())
        {
            gpus = static_cast<double>(t.As<CustomSpec>().nodes.size());
        }
        else
        {
            gpus = t.gpus;
        }
    }
    catch (const SpecError&)
    {
        gpus = 0; // the graph builder gives the message
    }
    return MEM_BASE_BYTES + 2 * MEM_PER_LINK_BYTES * gpus;
}

uint64_t
AvailableMemoryBytes()
{
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line))
    {
        if (line.rfind("MemAvailable:", 0) == 0)
        {
            std::istringstream ls(line.substr(13));
            uint64_t kib = 0;
            ls >> kib;
            return kib * 1024;
        }
    }
    return 0;
}

} // namespace ns3
