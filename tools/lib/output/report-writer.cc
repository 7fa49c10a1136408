/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "report-writer.h"

#include "output/atomic-file.h"
#include "output/straggler-report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace ns3
{

namespace
{

/// \return \p v with \p decimals decimals (C locale), "n/a" if not finite
std::string
Num(double v, int decimals)
{
    if (!std::isfinite(v))
    {
        return "n/a";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s(buf);
    if (s.size() > 1 && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos)
    {
        s.erase(0, 1);
    }
    return s;
}

/// \return a duration in s, ms, us or ns with 3 significant decimals
std::string
Dur(double seconds)
{
    if (!std::isfinite(seconds))
    {
        return "n/a";
    }
    const double m = std::fabs(seconds);
    if (m == 0)
    {
        return "0 s";
    }
    if (m >= 1)
    {
        return Num(seconds, 3) + " s";
    }
    if (m >= 1e-3)
    {
        return Num(seconds * 1e3, 3) + " ms";
    }
    if (m >= 1e-6)
    {
        return Num(seconds * 1e6, 3) + " us";
    }
    return Num(seconds * 1e9, 3) + " ns";
}

/// \return bytes with a binary unit
std::string
Bytes(uint64_t bytes)
{
    static const char* const UNITS[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    std::size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof UNITS / sizeof UNITS[0])
    {
        v /= 1024;
        ++u;
    }
    return (u == 0 ? std::to_string(bytes) : Num(v, 2)) + " " + UNITS[u];
}

/// \return a share as a percentage with one decimal
std::string
Pct(double share)
{
    return std::isfinite(share) ? Num(100 * share, 1) + " %" : "n/a";
}

/// \return a Markdown table cell: '|' escaped
std::string
Cell(const std::string& text)
{
    std::string out;
    for (const char c : text)
    {
        if (c == '|')
        {
            out += '\\';
        }
        out += (c == '\n' || c == '\r') ? ' ' : c;
    }
    return out;
}

/// Write a Markdown table: header, alignment row (numbers right-aligned), rows.
void
Table(std::ostream& os,
      const std::vector<std::string>& header,
      const std::vector<bool>& right,
      const std::vector<std::vector<std::string>>& rows)
{
    os << '|';
    for (const auto& h : header)
    {
        os << ' ' << Cell(h) << " |";
    }
    os << "\n|";
    for (std::size_t i = 0; i < header.size(); ++i)
    {
        os << (i < right.size() && right[i] ? "---:|" : "---|");
    }
    os << '\n';
    for (const auto& row : rows)
    {
        os << '|';
        for (const auto& c : row)
        {
            os << ' ' << Cell(c) << " |";
        }
        os << '\n';
    }
    os << '\n';
}

/// \return "x1.234 (rank R, GPU G, +D)" or "n/a"
std::string
StragglerText(const StragglerFigure& f)
{
    if (!f.valid)
    {
        return "n/a";
    }
    const std::string last
        = "rank " + std::to_string(f.position) + " (GPU " + std::to_string(f.gpu) + "): "
          + (std::isfinite(f.overMedian) ? Num(f.overMedian, 3) + "x median, " : std::string())
          + "+" + Dur(f.minusMedianS);
    if (!f.scheduled)
    {
        return last;
    }
    if (f.fabric)
    {
        return "rank " + std::to_string(f.delayedPosition) + " (GPU " + std::to_string(f.delayedGpu)
               + "): the fabric delayed it +" + Dur(f.delayS - f.medianDelayS)
               + " over the median rank";
    }
    return "none" + (f.minusMedianS > 0 ? " (last: " + last + ", its schedule)" : std::string());
}

/// \return utilisation of a port over the run
double
Utilization(const PortRecord& p, double runS)
{
    return runS > 0 ? p.busyS / runS : 0.0;
}

} // namespace

/// \return the training job's messages (0 without one)
uint64_t
TrainingMessages(const RunResults& r)
{
    uint64_t messages = 0;
    for (const TrainingCommResult& c : r.training.communication)
    {
        messages += c.messages;
    }
    return messages;
}

void
WriteReportHeader(const RunResults& r, std::ostream& os)
{
    os << "# ai-fabric report: " << r.scenario << "\n\n";
    Table(os,
          {"run", ""},
          {false, false},
          {{"scenario", r.scenario + " (" + r.scenarioFile + ")"},
           {"fabric",
            r.topology + ": " + std::to_string(r.gpus) + (r.gpus == 1 ? " GPU, " : " GPUs, ")
                + std::to_string(r.switches) + (r.switches == 1 ? " switch, " : " switches, ")
                + std::to_string(r.links) + (r.links == 1 ? " link" : " links")},
           {"traffic", r.traffic},
           {"seed", std::to_string(r.seed)},
           {"complete",
            r.complete ? "yes"
                       : "NO: cut off at the stop time (times are lower "
                         "bounds)"},
           {"valid",
            r.violations.empty()
                ? "yes"
                : "NO: " + std::to_string(r.violations.size()) + " invariant(s) broken (below)"},
           {"simulated time", Dur(r.simTimeS)},
           {"messages", std::to_string(r.flows.size() + TrainingMessages(r))},
           {"packet-hops", std::to_string(r.packetHops)}});
}

void
WriteReportCollectives(const RunResults& r, std::ostream& os)
{
    if (r.collectives.empty())
    {
        return;
    }
    os << "## Collectives\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const CollectiveResult& c : r.collectives)
    {
        const double ratio = c.analyticS > 0 ? c.durationS / c.analyticS : NAN;
        const double boundRatio = c.bound.seconds > 0 ? c.durationS / c.bound.seconds : NAN;
        rows.push_back({c.name,
                        c.algorithm + " " + c.op,
                        std::to_string(c.ranks),
                        Bytes(c.bytes),
                        Dur(c.durationS),
                        Num(c.busbwGBps, 2),
                        c.analyticS > 0 ? Dur(c.analyticS) : "n/a",
                        Num(ratio, 3),
                        c.bound.seconds > 0 ? Dur(c.bound.seconds) : "n/a",
                        Num(boundRatio, 3),
                        c.bound.link.empty() ? "-" : c.bound.link + " (" + c.bound.tierClass + ")",
                        StragglerText(c.straggler)});
    }
    os << "*analytic* is the textbook alpha-beta formula on the collective's paths; *bound* is "
          "the fabric-aware bound: the bytes the algorithm puts on its busiest link over that "
          "link's rate, plus the launch latency and the quickest message's alpha "
          "(docs/collectives.md, "
          "\"Fabric-aware bound\"). sim/analytic far from 1 with sim/bound near 1 is the formula's "
          "error, not "
          "the fabric's; sim/bound well above 1 is congestion the fabric adds.\n\n";
    Table(os,
          {"collective",
           "operation",
           "ranks",
           "size",
           "duration",
           "busbw (GB/s)",
           "analytic",
           "sim/analytic",
           "bound",
           "sim/bound",
           "bottleneck",
           "straggler (delayed by the fabric beyond the median rank)"},
          {false, false, true, true, true, true, true, true, true, true, false, false},
          rows);
}

void
WriteReportTails(const RunResults& r, std::ostream& os)
{
    if (r.flows.empty())
    {
        return;
    }
    os << "## Tails\n\n"
       << "Flow completion time (FCT) counts from when the message could leave (the head of its "
          "queue pair: the messages its sender posted before it on that queue pair sent) to its "
          "last byte delivered; the wait before, from its post, is the sender's own backlog. "
          "Slowdown = (FCT - the time the sender's port spent on its other packets while the "
          "message waited its turn) / the message's time alone on an empty fabric, so an idle "
          "fabric shows 1. Percentiles are R-7 (docs/results-format.md, \"Message timing\").\n\n";
    std::vector<std::vector<std::string>> rows;
    auto add = [&rows](const std::string& name,
                       const TailSummary& f,
                       const TailSummary& s,
                       const TailSummary& b) {
        rows.push_back({name,
                        std::to_string(f.count),
                        Dur(f.p50),
                        Dur(f.p90),
                        Dur(f.p99),
                        Dur(f.p999),
                        Dur(f.max),
                        Num(s.p50, 2),
                        Num(s.p99, 2),
                        Num(s.max, 2),
                        Dur(b.p50),
                        Dur(b.max)});
    };
    add("all flows", r.fct, r.slowdown, r.backlog);
    for (const CollectiveResult& c : r.collectives)
    {
        add(c.name, c.fct, c.slowdown, c.backlog);
    }
    Table(os,
          {"flows",
           "count",
           "FCT p50",
           "p90",
           "p99",
           "p99.9",
           "max",
           "slowdown p50",
           "p99",
           "max",
           "sender backlog p50",
           "max"},
          {false, true, true, true, true, true, true, true, true, true, true, true},
          rows);
    bool any = false;
    for (const CollectiveResult& c : r.collectives)
    {
        any = any || c.rankFinish.count > 1;
    }
    if (!any)
    {
        return;
    }
    rows.clear();
    for (const CollectiveResult& c : r.collectives)
    {
        rows.push_back({c.name,
                        Dur(c.rankFinish.p50 - c.startS),
                        Dur(c.rankFinish.p90 - c.startS),
                        Dur(c.rankFinish.p99 - c.startS),
                        Dur(c.rankFinish.max - c.startS)});
    }
    os << "Finish times of the ranks that receive, from each collective's start:\n\n";
    Table(os, {"collective", "p50", "p90", "p99", "max"}, {false, true, true, true, true}, rows);
}

void
WriteReportTierClasses(const RunResults& r, std::ostream& os)
{
    if (r.tierClasses.empty())
    {
        return;
    }
    os << "## Links by tier class\n\n"
       << "Utilisation = busy time / simulated time per port (one direction of a link); "
          "queues are egress queues in wire bytes; p99 queue is time-weighted.\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const TierClassRecord& t : r.tierClasses)
    {
        rows.push_back({t.tierClass,
                        std::to_string(t.ports),
                        std::to_string(t.activePorts),
                        Bytes(t.txBytes),
                        Pct(t.meanUtilization),
                        Pct(t.maxUtilization),
                        Bytes(t.peakQueueBytes),
                        Bytes(t.maxP99QueueBytes),
                        std::to_string(t.pausesReceived),
                        Dur(t.pausedS),
                        Dur(t.stallS),
                        std::to_string(t.ecnMarks),
                        std::to_string(t.drops)});
    }
    Table(os,
          {"tier class",
           "ports",
           "active",
           "bytes",
           "mean util",
           "max util",
           "peak queue",
           "max p99 queue",
           "pauses",
           "paused",
           "credit/PFC stall",
           "ECN marks",
           "drops"},
          {false, true, true, true, true, true, true, true, true, true, true, true, true},
          rows);
}

void
WriteReportHottestPorts(const RunResults& r, std::ostream& os)
{
    std::vector<uint32_t> order;
    for (uint32_t i = 0; i < r.ports.size(); ++i)
    {
        if (r.ports[i].txPackets > 0)
        {
            order.push_back(i);
        }
    }
    if (order.empty())
    {
        return;
    }
    std::stable_sort(order.begin(), order.end(), [&r](uint32_t a, uint32_t b) {
        const PortRecord& x = r.ports[a];
        const PortRecord& y = r.ports[b];
        if (x.busyS != y.busyS)
        {
            return x.busyS > y.busyS;
        }
        return x.peakQueueBytes > y.peakQueueBytes;
    });
    order.resize(std::min<std::size_t>(order.size(), 10));
    os << "## Hottest ports\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const uint32_t i : order)
    {
        const PortRecord& p = r.ports[i];
        rows.push_back({std::to_string(p.portId),
                        p.node + " -> " + p.peer,
                        p.tierClass,
                        Pct(Utilization(p, r.simTimeS)),
                        Bytes(p.txBytes),
                        Bytes(p.peakQueueBytes),
                        Bytes(p.p99QueueBytes),
                        std::to_string(p.pausesReceived),
                        Dur(p.stallS),
                        std::to_string(p.ecnMarks),
                        std::to_string(p.drops)});
    }
    Table(os,
          {"port",
           "link",
           "tier class",
           "util",
           "bytes",
           "peak queue",
           "p99 queue",
           "pauses",
           "stall",
           "ECN",
           "drops"},
          {true, false, false, true, true, true, true, true, true, true, true},
          rows);
}

void
WriteReportFlowControl(const RunResults& r, std::ostream& os)
{
    const FabricCounters& k = r.counters;
    os << "## Flow control and loss\n\n";
    std::vector<std::vector<std::string>> rows{
        {"PFC pause frames sent", std::to_string(k.pauseFrames)},
        {"time lanes were paused (summed)", Dur(k.pausedS)},
        {"flow-control stall (credit or PFC, summed over ports)", Dur(k.stallS)},
        {"ECN marks", std::to_string(k.ecnMarks)},
        {"ECN-marked data packets received", std::to_string(k.ecnMarkedReceived)},
        {"drops", std::to_string(k.drops)},
        {"drops on lossless ports", std::to_string(k.losslessDrops)},
        {"peak switch buffer", Bytes(k.peakBufferBytes)},
        {"congestion control", r.congestionControl}};
    if (k.AnyRecovery())
    {
        rows.push_back({"packets sent again (go-back-N)", std::to_string(k.retransmittedPackets)});
        rows.push_back(
            {"packets dropped out of order at receivers", std::to_string(k.outOfOrderDrops)});
        rows.push_back({"retransmission timeouts", std::to_string(k.retransmissionTimeouts)});
    }
    if (r.congestionControl != "none")
    {
        rows.push_back({"CNPs sent (receivers)", std::to_string(k.cnpsSent)});
        rows.push_back({"CNPs received (senders)", std::to_string(k.cnpsReceived)});
        rows.push_back({"rate cuts", std::to_string(k.rateCuts)});
        rows.push_back({"rate increases", std::to_string(k.rateIncreases)});
        rows.push_back(
            {"queue pairs rate-controlled (received a CNP)", std::to_string(k.controlledQps)});
        rows.push_back({"lowest queue-pair rate",
                        k.controlledQps > 0 ? Num(k.minRateGbps, 2) + " Gb/s" : "-"});
    }
    Table(os, {"counter", "value"}, {false, true}, rows);
    for (const std::string& v : r.violations)
    {
        os << "- INVALID: " << v << '\n';
    }
    if (!r.violations.empty())
    {
        os << '\n';
    }
}

void
WriteReportBisection(const RunResults& r, std::ostream& os)
{
    if (r.bisection.empty())
    {
        return;
    }
    os << "## Bisection achieved\n\n"
       << "What the links of the topology analyzer's bisection cut (the minimum cut between "
          "its two sides) carried during the collective, in their busier direction, beside "
          "their capacity; Gb/s, one direction. *Achieved* is all the payload those links "
          "carried; *between sides* the share of it that went from one side to the other "
          "(the rest passed through between GPUs of one side); *busy* the links' mean and "
          "largest share of the window spent transmitting. *Flows* is the payload of the "
          "collective's messages whose ends are on opposite sides, over the same capacity "
          "(what should have crossed, whatever links it took).\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const BisectionRecord& b : r.bisection)
    {
        rows.push_back({b.collective,
                        b.split + " (" + std::to_string(b.sideAGpus) + " | "
                            + std::to_string(b.sideBGpus) + " GPUs)",
                        b.cut,
                        Num(b.achievedGbps, 1),
                        Num(b.analyticGbps, 1),
                        Pct(b.ratio),
                        Pct(b.crossingShare),
                        Pct(b.utilizationMean) + " / " + Pct(b.utilizationMax),
                        Pct(b.flowRatio)});
    }
    Table(os,
          {"collective",
           "split",
           "cut links",
           "achieved (Gb/s)",
           "capacity (Gb/s)",
           "achieved/capacity",
           "between sides",
           "busy mean / max",
           "flows/capacity"},
          {false, false, false, true, true, true, true, true, true},
          rows);
    for (const BisectionRecord& b : r.bisection)
    {
        if (!b.windowComplete)
        {
            os << "\n"
               << b.collective
               << ": the run stopped before the collective ended; its window ends with the "
                  "run.\n";
        }
    }
}

void
WriteReportTraining(const RunResults& r, std::ostream& os)
{
    if (!r.hasTraining)
    {
        return;
    }
    const TrainingResult& t = r.training;
    os << "## Training: " << t.name << "\n\n"
       << "TP " << t.tp << ", PP " << t.pp << ", DP " << t.dp << ", EP " << t.ep << ", "
       << t.microBatches << " micro-batches, schedule " << t.schedule << ".";
    if (!t.complete)
    {
        os << " INCOMPLETE: not every iteration finished.\n\n";
        return;
    }
    os << "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const TrainingIterationResult& it : t.iterations)
    {
        const double step = it.stepS;
        auto share = [step](double x) {
            return step > 0 ? x / step : NAN;
        };
        rows.push_back({std::to_string(it.iteration),
                        Dur(it.stepS),
                        Pct(share(it.computeS)),
                        t.pp > 1 ? Pct(share(it.pipelineIdleS)) : Pct(share(it.skewS)),
                        Pct(share(it.exposedTensorS)),
                        Pct(share(it.exposedPipelineS)),
                        Pct(share(it.exposedExpertS)),
                        Pct(share(it.exposedDataS)),
                        Num(it.achievedMfu, 3),
                        StragglerText(it.straggler)});
    }
    Table(os,
          {"iteration",
           "step",
           "compute",
           t.pp > 1 ? "bubble" : "skew (no pipeline)",
           "exposed TP",
           "exposed PP",
           "exposed EP",
           "exposed DP",
           "MFU",
           "straggler (delayed by the fabric beyond the median rank)"},
          {true, true, true, true, true, true, true, true, true, false},
          rows);
    if (t.communication.empty())
    {
        return;
    }
    os << "Communication per kind of group (every group's row, and each rank's tails per kind, "
          "are in collectives.csv and rank-phases.csv): FCT from eligible; a rank's span is from "
          "the first post to the last arrival of the messages it sends or receives in a group "
          "(its trace.json event); sim/analytic and sim/bound are each group's duration over "
          "its formula and its fabric-aware bound.\n\n";
    rows.clear();
    for (const TrainingCommResult& c : t.communication)
    {
        rows.push_back({c.kind,
                        std::to_string(c.groups),
                        Dur(c.duration.p50),
                        Dur(c.duration.max),
                        Dur(c.fct.p50),
                        Dur(c.fct.p99),
                        Dur(c.fct.max),
                        Num(c.slowdown.p50, 2),
                        Num(c.slowdown.p99, 2),
                        Dur(c.rankSpan.p50),
                        Dur(c.rankSpan.p99),
                        Dur(c.rankSpan.max),
                        c.simOverAnalytic.count ? Num(c.simOverAnalytic.p50, 3) : "n/a",
                        c.simOverBound.count ? Num(c.simOverBound.p50, 3) : "n/a",
                        c.simOverBound.count ? Num(c.simOverBound.max, 3) : "n/a"});
    }
    Table(
        os,
        {"kind",
         "groups",
         "duration p50",
         "max",
         "FCT p50",
         "p99",
         "max",
         "slowdown p50",
         "p99",
         "rank span p50",
         "p99",
         "max",
         "sim/analytic p50",
         "sim/bound p50",
         "max"},
        {false, true, true, true, true, true, true, true, true, true, true, true, true, true, true},
        rows);
}

void
WriteReportMarkdown(const RunResults& results, std::ostream& os)
{
    WriteReportHeader(results, os);
    WriteReportCollectives(results, os);
    WriteReportTails(results, os);
    WriteStragglerSection(os, results);
    WriteReportTierClasses(results, os);
    WriteReportHottestPorts(results, os);
    WriteReportFlowControl(results, os);
    WriteReportBisection(results, os);
    WriteReportTraining(results, os);
}

void
WriteReportMarkdown(const RunResults& results, const std::string& path)
{
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteReportMarkdown(results, os); });
}

} // namespace ns3
