/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-fabric: the command-line tool.
 *
 *   ai-fabric run SCENARIO.yaml [--out DIR] [--seed N] [--seeds N [--jobs N]] [--scheduler S]
 *                 [--sample-interval T] [--quiet] [--progress] [--plots] [--pcap PORTS]
 *                 [--attribution auto|on|off]
 *   ai-fabric sweep SWEEP.yaml [--out DIR] [--jobs N] [--seeds N] [--quiet] [--plots]
 *   ai-fabric analyze TOPOLOGY.yaml [--json FILE] [--dot FILE]
 *   ai-fabric profiles [NAME]
 *   ai-fabric validate DIR [--quick] [--report FILE] [--jobs N]
 *   ai-fabric keys
 *   ai-fabric --help | --version
 *
 * Exit status: 0 success; 1 internal error; 2 bad input (scenario files or
 * flags: nothing is written); 3 the run did not complete or broke an
 * invariant (results are written and marked "complete"/"valid": false); 4 --plots was
 * given and the plots could not be drawn (results are written).
 */

#include "config/spec-tables.h"
#include "config/yaml-scenario-reader.h"
#include "nccl-tests-command.h"
#include "output/report-writer.h"
#include "output/results-dir.h"
#include "output/results-writer.h"
#include "output/straggler-report.h"
#include "output/topology-report-writer.h"
#include "run/pcap-capture.h"
#include "run/run-checks.h"
#include "run/run-outputs.h"
#include "run/scenario-runner.h"
#include "sweep-command.h"
#include "sweep/seed-runs.h"
#include "validate-command.h"

#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"
#include "ns3/nstime.h"
#include "ns3/spec-error.h"
#include "ns3/topology-analyzer.h"
#include "ns3/units.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef AI_FABRIC_VERSION
#    define AI_FABRIC_VERSION "0.0.0"
#endif

namespace
{

constexpr int EXIT_OK = 0;
constexpr int EXIT_INTERNAL = 1;
constexpr int EXIT_BAD_INPUT = 2;
constexpr int EXIT_INCOMPLETE = 3;

const char* const USAGE
    = R"(ai-fabric: packet-level simulation of AI-training traffic on GPU fabrics

Usage:
  ai-fabric run SCENARIO.yaml [--out DIR] [--seed N] [--scheduler S] [--sample-interval T]
                [--quiet] [--progress] [--plots] [--pcap NODE->PEER[,NODE->PEER...]]
                [--attribution auto|on|off] [--memory-limit SIZE] [--cell-packets N]
                [--seeds N [--jobs N]]
  ai-fabric sweep SWEEP.yaml [--out DIR] [--jobs N] [--seeds N] [--quiet] [--plots]
  ai-fabric analyze TOPOLOGY.yaml [--json FILE] [--dot FILE]
  ai-fabric profiles [NAME]
  ai-fabric validate DIR [--quick] [--report FILE] [--jobs N]
  ai-fabric nccl-tests TEST --topology FILE [-b MIN] [-e MAX] [-f FACTOR] [-g N]
                       [-d TYPE] [-o OP] [-r ROOT] [-J FILE.json] [--algorithm A] [--out DIR]
  ai-fabric keys
  ai-fabric --help
  ai-fabric --version

Commands:
  run        Build the scenario's fabric, run its traffic packet by packet, and
             write DIR/summary.json, DIR/flows.csv, DIR/ports.csv,
             DIR/collectives.csv, DIR/timeseries.csv (per-port utilisation
             and queue over time), DIR/report.md (tables for a network
             architect) and DIR/trace.json (Chrome trace; DIR/ranks.csv for a
             training job); print a summary table. A collective with a sweep runs once per
             size (nccl-tests style) and also writes DIR/sweep.csv.
  sweep      Run a grid of variations of a base scenario (any key path x a
             list of values; docs/sweep.md), each point its own 'run' child
             process (at most --jobs at once), and write DIR/sweep-points.csv
             (a row per point: values, metrics, status), DIR/report.md (each
             metric against the first parameter) and DIR/points/NNN/. With
             seeds (--seeds N or 'seeds:'), every point runs once per seed.
  analyze    Build the fabric of a topology file (or of a scenario file's
             topology) without simulating it and print its analysis: counts
             per tier and link class, oversubscription per tier, diameter and
             equal-cost paths, and bisection bandwidth by the kind's formula,
             by max-flow on the same split, and the worst balanced split found.
  profiles   List the link-profile presets (rate, MTU, overhead, flow control,
             switch latency, goodput per payload size); with NAME, show every
             field of that preset with its source.
  validate   Run the validation suite DIR/cases/*.yaml (docs/validation.md):
             each case's scenario against its formula (F1-F16) or claim
             (C1-C8); write DIR/REPORT.md and busbw-vs-size CSVs (and plots,
             with scripts/plot-results) under DIR/plots/. Exit 4 if a
             formula case is out of tolerance (named on stderr).
  nccl-tests Simulate an nccl-tests binary (all_reduce_perf, all_gather_perf,
             reduce_scatter_perf, broadcast_perf, reduce_perf, alltoall_perf)
             with its flags on a topology, and print nccl-tests' table (size,
             count, type, redop, root, out-of-place and in-place time, algbw,
             busbw, #wrong) with the analytic time beside; -J writes its JSON
             (docs/nccl-tests.md). 'ai-fabric nccl-tests --help' lists the flags.
  keys       Print the key reference of the scenario files (link, topology,
             dcqcn and transport keys: value, range, meaning), generated from
             the reader's schema tables; docs/keys.md is its output.

Options for run:
  --out DIR  Results directory (default: results/<scenario name>).
  --seed N   Override the scenario's seed (an integer >= 1); alone, it runs that
             one seed even if the scenario lists 'seeds'.
  --seeds N  Run the scenario once per seed, seeds S..S+N-1 (S: --seed, else the
             scenario's seed or first listed seed; N 1 to 1000), each an 'ai-fabric
             run --seed' child into DIR/seeds/SEED, and write DIR/seeds.json,
             DIR/seeds.csv and DIR/report.md: each headline answer's mean, min,
             max and 95 % confidence interval (Student's t); a failed seed is
             listed, never averaged (exit 3). Overrides the scenario's 'seeds:',
             which does the same without the flag (docs/results-format.md).
  --jobs N   Seeds run at once in a run over seeds (default: online cores).
  --sample-interval T
             Time-series bin width, e.g. 10us, or 'auto' (default: the
             scenario's results: sample_interval, else automatic bins that
             double in width to stay between 256 and 512 bins).
  --scheduler S  event scheduler: lane-heap (default) or quad-heap (ai-fabric's
                 own), priority-queue, map, heap, list or calendar (ns-3's);
                 overrides the scenario's 'scheduler'. Results are identical
                 with every scheduler, only speed differs.
  --quiet    No progress bar and no table; errors are still printed.
  --progress Show the progress bar (simulated time, share of bytes delivered,
             wall time, time left) even when stderr is not a terminal; by
             default it shows on a terminal, after 2 s of wall time.
  --plots    Then draw PNG plots into DIR/plots with scripts/plot-results
             (python3 + matplotlib; AI_FABRIC_PLOT_SCRIPT overrides the path).
  --pcap PORTS
             Capture these ports (comma-separated NODE->PEER, quote the '>' in a
             shell) to DIR/capture-NODE-PEER.pcap with RoCEv2 or InfiniBand
             framing, in addition to the scenario's 'capture:' ports.
  --attribution auto|on|off
             Straggler attribution (DIR/stragglers.csv, summary.json
             "stragglers"); overrides the scenario's 'attribution: enabled'.

  --memory-limit SIZE
             Refuse (exit 2) a run whose estimated memory exceeds SIZE (e.g.
             8GiB); default: the machine's available memory (MemAvailable).
  --cell-packets N
             Fidelity knob, off (1) by default: each simulated packet carries
             up to N MTU packets' payload, with all their wire bytes; fewer
             events, coarser queues. Overrides the scenario's 'fidelity:
             cell_packets'. Measured error: docs/performance.md.

Options for sweep:
  --out DIR  Results directory (default: results/<sweep name>).
  --jobs N   Runs at once (default: the file's 'jobs', else the number of
             online cores).
  --seeds N  Run every point with seeds S..S+N-1 (S: the base scenario's seed);
             overrides the file's 'seeds:'. Each metric becomes a mean with its
             n, min, max, sd and 95 % CI, and the report warns where a compared
             difference is within the seed-to-seed spread (docs/sweep.md).
  --quiet    No line per finished point and no findings; errors are printed.
  --plots    Also plot each metric against the first parameter (DIR/plots).

Options for analyze:
  --json FILE  Also write the analysis as JSON (bandwidths in Gb/s, one direction).
  --dot FILE   Also write the graph in Graphviz DOT (scripts/render-dot FILE
               draws it as PNG).

Options for validate:
  --quick        Only the cases marked 'quick: true' (the CI subset).
  --report FILE  Write the report to FILE (default DIR/REPORT.md).
  --jobs N       Run N cases at once, each in its own process (default 1).

Exit status: 0 success, 1 internal error, 2 bad input (nothing written),
3 the run hit its stop_time or stalled (watchdog) before every message
arrived, or broke an invariant (e.g. a drop on a lossless fabric); results are
written and marked (sweep: a point did not finish with status ok, or the sweep
was interrupted); 4 --plots could not draw the plots (python3 or matplotlib
missing, or the script failed; results are written), or (validate) a formula
case is out of tolerance; 130/143 the run was interrupted by SIGINT/SIGTERM
(partial results written, "complete": false; a second signal exits at once).
See docs/scenario-format.md, docs/sweep.md, docs/plots.md, docs/validation.md,
docs/robustness.md, docs/topologies.md, docs/results-format.md and
docs/link-profiles.md.
)";

int
UsageError(const std::string& message)
{
    std::cerr << "ai-fabric: error: " << message << "\n"
              << "Run 'ai-fabric --help' for usage.\n";
    return EXIT_BAD_INPUT;
}

bool
ParseSeed(const std::string& text, uint64_t& seed)
{
    if (text.empty() || text.size() > 10
        || text.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    seed = std::stoull(text);
    return seed >= 1 && seed <= UINT32_MAX;
}

bool
ParseMemoryLimit(const std::string& text, uint64_t& bytes)
{
    try
    {
        bytes = ns3::ParseBytes(text);
    }
    catch (const std::exception&)
    {
        return false;
    }
    return bytes > 0;
}

int
Run(const std::vector<std::string>& args)
{
    std::string scenarioPath;
    std::string outDir;
    bool quiet = false;
    bool forceProgress = false;
    bool plots = false;
    bool haveSeed = false;
    uint64_t seed = 0;
    std::string sampleInterval;
    std::string scheduler;
    std::vector<std::string> pcapPorts;
    std::string attribution;
    uint64_t memoryLimit = 0;
    uint64_t cellPackets = 0; // 0: the scenario's
    uint64_t seedCount = 0;   // --seeds N; 0: not given
    uint64_t jobs = 0;        // --jobs N; 0: not given
    // The options a multi-seed run passes on to every seed's run.
    std::vector<std::string> seedRunArgs;
    for (std::size_t i = 0; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        if (a == "--pcap" || a == "--attribution" || a == "--sample-interval" || a == "--scheduler"
            || a == "--memory-limit" || a == "--cell-packets")
        {
            if (i + 1 < args.size())
            {
                seedRunArgs.insert(seedRunArgs.end(), {a, args[i + 1]});
            }
        }
        if (a == "--seeds" || a == "--jobs" || a == "-j")
        {
            if (i + 1 >= args.size())
            {
                return UsageError("option " + a + " needs a value");
            }
            const std::string& v = args[++i];
            uint64_t& n = a == "--seeds" ? seedCount : jobs;
            const uint64_t max = a == "--seeds" ? ns3::spec::MAX_SEEDS : 1024;
            if (!ParseSeed(v, n) || n > max)
            {
                return UsageError((a == "-j" ? std::string("--jobs") : a)
                                  + " takes an integer from 1 to " + std::to_string(max) + ", not '"
                                  + v + "'");
            }
        }
        else if (a == "--pcap" || a == "--attribution")
        {
            if (i + 1 >= args.size())
            {
                return UsageError("option " + a + " needs a value");
            }
            if (!ns3::ParseRunOutputOption(a, args[++i], pcapPorts, attribution))
            {
                return UsageError(
                    a == "--pcap" ? "--pcap takes ports written NODE->PEER, comma-separated"
                                  : "--attribution takes auto, on or off, not '" + args[i] + "'");
            }
        }
        else if (a == "--out" || a == "--seed" || a == "--sample-interval" || a == "--scheduler"
                 || a == "--memory-limit")
        {
            if (i + 1 >= args.size())
            {
                return UsageError("option " + a + " needs a value");
            }
            const std::string& v = args[++i];
            if (a == "--out")
            {
                if (v.empty())
                {
                    return UsageError("--out needs a directory, not ''");
                }
                outDir = v;
            }
            else if (a == "--sample-interval")
            {
                sampleInterval = v;
                if (v != "auto")
                {
                    try
                    {
                        if (!ns3::ParseTime(v).IsStrictlyPositive())
                        {
                            return UsageError("--sample-interval must be greater than 0, not '" + v
                                              + "'");
                        }
                    }
                    catch (const ns3::UnitError& e)
                    {
                        return UsageError("--sample-interval: " + e.Message());
                    }
                }
            }
            else if (a == "--scheduler")
            {
                const auto& names = ns3::SchedulerNames();
                if (std::find(names.begin(), names.end(), v) == names.end())
                {
                    return UsageError("--scheduler takes lane-heap, quad-heap, "
                                      "priority-queue, map, heap, list or calendar, not '"
                                      + v + "'");
                }
                scheduler = v;
            }
            else if (a == "--memory-limit")
            {
                if (!ParseMemoryLimit(v, memoryLimit))
                {
                    return UsageError("--memory-limit takes a size such as 8GiB, not '" + v + "'");
                }
            }
            else if (!ParseSeed(v, seed))
            {
                return UsageError("--seed takes an integer from 1 to 4294967295, not '" + v + "'");
            }
            else
            {
                haveSeed = true;
            }
        }
        else if (a == "--cell-packets")
        {
            if (i + 1 >= args.size())
            {
                return UsageError("option " + a + " needs a value");
            }
            const std::string& v = args[++i];
            if (!ParseSeed(v, cellPackets) || cellPackets > 64)
            {
                return UsageError("--cell-packets takes an integer from 1 to 64, not '" + v + "'");
            }
        }
        else if (a == "--quiet" || a == "-q")
        {
            quiet = true;
        }
        else if (a == "--progress")
        {
            forceProgress = true;
        }
        else if (a == "--plots")
        {
            plots = true;
            seedRunArgs.push_back(a);
        }
        else if (!a.empty() && a[0] == '-')
        {
            return UsageError("unknown option '" + a + "' for 'run'");
        }
        else if (scenarioPath.empty())
        {
            scenarioPath = a;
        }
        else
        {
            return UsageError("'run' takes one scenario file; '" + a + "' is one too many");
        }
    }
    if (scenarioPath.empty())
    {
        return UsageError("'run' needs a scenario file: ai-fabric run SCENARIO.yaml");
    }

    ns3::ScenarioSpec spec = ns3::ReadScenarioFile(scenarioPath);
    // The seeds of a multi-seed run: --seeds N (from --seed, else the scenario's first seed),
    // else the scenario's `seeds:` unless --seed picks one; none: one run, as always.
    std::vector<uint32_t> seeds;
    if (seedCount > 0)
    {
        const uint64_t first = haveSeed ? seed : spec.seed;
        if (!ns3::ConsecutiveSeeds(first, seedCount, seeds))
        {
            return UsageError("--seeds " + std::to_string(seedCount) + " from seed "
                              + std::to_string(first) + " passes 4294967295");
        }
    }
    else if (!haveSeed)
    {
        seeds = spec.seeds;
    }
    if (jobs > 0 && seeds.empty())
    {
        return UsageError("--jobs applies to a run over seeds (--seeds N, or the scenario's "
                          "'seeds:'); this run has one seed");
    }
    if (haveSeed)
    {
        spec.seed = seed;
    }
    if (cellPackets > 0)
    {
        spec.cellPackets = static_cast<uint32_t>(cellPackets);
    }
    if (!sampleInterval.empty())
    {
        spec.sampleInterval
            = sampleInterval == "auto" ? ns3::Time(0) : ns3::ParseTime(sampleInterval);
    }
    ns3::ApplyRunOutputOptions(pcapPorts, attribution, spec);
    if (outDir.empty())
    {
        outDir = "results/" + spec.name;
    }
    // An unusable results directory is found now, before the set-up and the simulation;
    // it is created and locked (a second run into it fails at once) just before simulating,
    // after every check of the input, so that bad input writes nothing.
    const std::string outProblem = ns3::ResultsDirProblem(outDir);
    if (!outProblem.empty())
    {
        return UsageError("results directory '" + outDir + "': " + outProblem);
    }
    if (!seeds.empty())
    {
        return aifabric::RunSeedsCommand(scenarioPath,
                                         spec,
                                         seeds,
                                         seedRunArgs,
                                         outDir,
                                         static_cast<uint32_t>(jobs),
                                         quiet);
    }
    ns3::ResultsDirLock outLock;

    ns3::RunOptions options;
    options.beforeSimulating = [&outLock, &outDir]() {
        outLock.Claim(outDir);
    };
    options.progress = !quiet && (forceProgress || isatty(STDERR_FILENO));
    options.progressInPlace = isatty(STDERR_FILENO);
    if (forceProgress)
    {
        options.progressAfterS = 0;
    }
    options.scheduler = scheduler;
    options.memoryLimitBytes = memoryLimit;
    ns3::InstallRunSignalHandlers();
    // A swept collective (nccl-tests style) runs once per size, each its own simulation.
    const bool sweep = ns3::FindSweptCollective(spec) >= 0;
    // Input refused late (a sweep's larger size) leaves nothing behind: the claimed
    // directory is abandoned (removed if this run created it).
    const ns3::RunResults results = [&]() {
        try
        {
            return sweep ? ns3::RunSweep(spec, options).last : ns3::RunScenario(spec, options);
        }
        catch (...)
        {
            outLock.Abandon();
            throw;
        }
    }();

    const std::vector<std::string> written = ns3::WriteRunResultSet(results, outDir, sweep);
    if (!quiet)
    {
        ns3::PrintSummaryTable(results, std::cout);
        ns3::PrintStragglerSummary(results, std::cout);
        if (sweep)
        {
            std::cout << '\n';
            ns3::PrintSweepTable(results, std::cout);
        }
        std::cout << "results:";
        for (std::size_t i = 0; i < written.size(); ++i)
        {
            std::cout << (i ? ", " : " ") << outDir << '/' << written[i];
        }
        std::cout << "\n";
    }
    const bool plotted = !plots || aifabric::DrawPlots(outDir, quiet);
    bool sweepComplete = true;
    for (const auto& row : results.sweep)
    {
        sweepComplete = sweepComplete && row.complete;
    }
    ns3::PrintStallReport(results, std::cerr);
    for (const auto& v : results.violations)
    {
        std::cerr << "ai-fabric: error: invariant violated: " << v
                  << "; results are marked \"valid\": false\n";
    }
    if (results.interrupted)
    {
        std::cerr << "ai-fabric: interrupted (signal " << ns3::RunInterruptSignal()
                  << "); partial results are marked \"complete\": false\n";
        return 128 + ns3::RunInterruptSignal();
    }
    if (!results.violations.empty())
    {
        return EXIT_INCOMPLETE;
    }
    if (!results.complete || !sweepComplete)
    {
        std::cerr << (results.stopReason == "no_progress"
                          ? "ai-fabric: error: the run stalled (no progress for the watchdog's "
                            "no_progress interval) before every message arrived; "
                          : "ai-fabric: error: the run reached its stop_time before every "
                            "message arrived; ")
                  << "results are marked \"complete\": false\n";
        return EXIT_INCOMPLETE;
    }
    return plotted ? EXIT_OK : aifabric::EXIT_PLOTS_FAILED;
}

/**
 * \brief The 'analyze' command: read a topology (or a scenario's), build its graph,
 * analyze it, print the report and write the JSON and DOT files asked for. Nothing is
 * written unless the input is good (the writers go through a temporary file and a rename).
 * \param args the arguments after 'analyze'
 * \return exit status
 */
int
Analyze(const std::vector<std::string>& args)
{
    std::string topologyPath;
    std::string jsonPath;
    std::string dotPath;
    for (std::size_t i = 0; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        if (a == "--json" || a == "--dot")
        {
            if (i + 1 >= args.size() || args[i + 1].empty())
            {
                return UsageError("option " + a + " needs a file name");
            }
            (a == "--json" ? jsonPath : dotPath) = args[++i];
        }
        else if (!a.empty() && a[0] == '-')
        {
            return UsageError("unknown option '" + a + "' for 'analyze'");
        }
        else if (topologyPath.empty())
        {
            topologyPath = a;
        }
        else
        {
            return UsageError("'analyze' takes one topology file; '" + a + "' is one too many");
        }
    }
    if (topologyPath.empty())
    {
        return UsageError("'analyze' needs a topology file: ai-fabric analyze TOPOLOGY.yaml");
    }
    if (!jsonPath.empty() && jsonPath == dotPath)
    {
        return UsageError("--json and --dot name the same file '" + jsonPath + "'");
    }
    for (const auto& [option, path] :
         {std::pair<const char*, const std::string&>{"--json", jsonPath}, {"--dot", dotPath}})
    {
        const std::string problem = path.empty() ? "" : ns3::OutputFileProblem(path);
        if (!problem.empty())
        {
            return UsageError(std::string(option) + " " + path + ": " + problem);
        }
    }

    const ns3::TopologySpec spec = ns3::ReadTopologyOrScenarioFile(topologyPath);
    const ns3::FabricGraph graph = ns3::BuildFabricGraph(spec);
    const ns3::TopologyReport report = ns3::AnalyzeTopology(graph, spec);
    ns3::PrintTopologyReport(report, std::cout);
    if (!jsonPath.empty())
    {
        ns3::WriteTopologyJson(report, jsonPath);
        std::cout << "json: " << jsonPath << "\n";
    }
    if (!dotPath.empty())
    {
        ns3::WriteDot(graph, dotPath);
        std::cout << "dot: " << dotPath << "\n";
    }
    return EXIT_OK;
}

/// Payload sizes the profile table reports goodput for, bytes (the MTU is added).
const std::vector<uint32_t> TABLE_PAYLOADS = {256, 1024, 4096};

/**
 * \param value a number
 * \param decimals digits after the point
 * \return the number in fixed notation
 */
std::string
Fixed(double value, int decimals)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(decimals) << value;
    return s.str();
}

/**
 * \param p a profile
 * \param payload payload bytes of one packet
 * \return "GB/s (efficiency %)" of a long stream of such packets
 */
std::string
GoodputCell(const ns3::LinkProfile& p, uint32_t payload)
{
    const double efficiency = static_cast<double>(payload) / p.WireBytes(payload, false);
    const double gbytesPerS = p.rate.GetBitRate() * efficiency / 8e9;
    return Fixed(gbytesPerS, 2) + " (" + Fixed(100 * efficiency, 1) + "%)";
}

/**
 * \param p a profile
 * \return the overhead of an MTU packet: header x segments + framing, e.g. "16x48=768 B"
 */
std::string
OverheadText(const ns3::LinkProfile& p)
{
    const uint64_t total = p.WireBytes(p.mtu, false) - p.mtu;
    const uint64_t segments
        = (p.segmentBytes == 0) ? 1 : (p.mtu + p.segmentBytes - 1) / p.segmentBytes;
    std::string text = (segments == 1)
                           ? std::to_string(p.headerBytes)
                           : std::to_string(segments) + "x" + std::to_string(p.headerBytes);
    if (p.framingBytes > 0)
    {
        text += "+" + std::to_string(p.framingBytes);
    }
    if (segments > 1 || p.framingBytes > 0)
    {
        text += "=" + std::to_string(total);
    }
    return text + " B";
}

/**
 * \brief Split a preset's source text into its summary and per-field notes.
 * \param source "summary; key: note; key: note; ..." (see link-profile.cc)
 * \param summary set to the parts that name no field
 * \return the notes by YAML key
 */
std::map<std::string, std::string>
SourceNotes(const std::string& source, std::string& summary)
{
    std::map<std::string, std::string> notes;
    std::size_t start = 0;
    while (start < source.size())
    {
        std::size_t end = source.find("; ", start);
        if (end == std::string::npos)
        {
            end = source.size();
        }
        const std::string part = source.substr(start, end - start);
        const std::size_t colon = part.find(": ");
        const std::string key = (colon == std::string::npos) ? "" : part.substr(0, colon);
        if (!key.empty()
            && key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos)
        {
            notes[key] = part.substr(colon + 2);
        }
        else if (!part.empty())
        {
            summary += (summary.empty() ? "" : "; ") + part;
        }
        start = end + 2;
    }
    return notes;
}

/**
 * \brief Print the table of every preset.
 * \param os the stream
 */
void
PrintProfileTable(std::ostream& os)
{
    const auto& presets = ns3::LinkProfilePresets();
    os << "Link profiles (rates per direction; GB = 1e9 bytes). Override any field under\n"
          "'link:' in a topology file; see 'ai-fabric profiles NAME' and "
          "docs/link-profiles.md.\n\n";
    os << std::left << std::setw(11) << "NAME" << std::setw(12) << "TECHNOLOGY" << std::right
       << std::setw(9) << "Gb/s" << std::setw(9) << "GB/s" << std::setw(6) << "MTU"
       << "  " << std::left << std::setw(15) << "OVERHEAD/PKT" << std::setw(8) << "FLOW"
       << "SWITCH LATENCY\n";
    for (const auto& p : presets)
    {
        const double bps = static_cast<double>(p.rate.GetBitRate());
        os << std::left << std::setw(11) << p.name << std::setw(12) << p.technology << std::right
           << std::setw(9) << Fixed(bps / 1e9, 2) << std::setw(9) << Fixed(bps / 8e9, 2)
           << std::setw(6) << p.mtu << "  " << std::left << std::setw(15) << OverheadText(p)
           << std::setw(8) << p.FlowControlName() << ns3::FormatTime(p.switchLatency) << "\n";
    }
    os << "\nGoodput of a long transfer in GB/s (efficiency) = rate x payload / wire bytes,\n"
          "by payload per packet:\n\n";
    os << std::left << std::setw(11) << "NAME";
    for (const uint32_t payload : TABLE_PAYLOADS)
    {
        os << std::setw(17) << std::to_string(payload) + " B";
    }
    os << "MTU\n";
    for (const auto& p : presets)
    {
        os << std::left << std::setw(11) << p.name;
        for (const uint32_t payload : TABLE_PAYLOADS)
        {
            os << std::setw(17) << GoodputCell(p, payload);
        }
        os << GoodputCell(p, p.mtu) << "\n";
    }
}

/**
 * \brief Print one preset: every field, its value and its source.
 * \param p the preset
 * \param os the stream
 */
void
PrintProfile(const ns3::LinkProfile& p, std::ostream& os)
{
    std::string summary;
    const std::map<std::string, std::string> notes = SourceNotes(p.source, summary);
    const auto bytes = [](uint64_t b) {
        return ns3::FormatBytes(b);
    };
    const double bps = static_cast<double>(p.rate.GetBitRate());
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"technology", p.technology},
        {"encoding", p.encoding},
        {"rate",
         std::to_string(p.rate.GetBitRate()) + "bps (" + Fixed(bps / 1e9, 2)
             + " Gb/s = " + Fixed(bps / 8e9, 2) + " GB/s per direction)"},
        {"mtu", bytes(p.mtu)},
        {"header_size", bytes(p.headerBytes) + (p.segmentBytes ? " per segment" : " per packet")},
        {"segment_size",
         p.segmentBytes ? bytes(p.segmentBytes) : std::string("0B (headers once per packet)")},
        {"framing_size", bytes(p.framingBytes)},
        {"message_header_size", bytes(p.messageHeaderBytes)},
        {"control_packet_size", bytes(p.controlPacketBytes)},
        {"propagation_delay", ns3::FormatTime(p.propagationDelay)},
        {"switch_latency", ns3::FormatTime(p.switchLatency)},
        {"nic_latency", ns3::FormatTime(p.nicLatency)},
        {"cut_through", p.cutThrough ? "true" : "false"},
        {"buffer_per_port", bytes(p.bufferPerPort)},
        {"flow_control", p.FlowControlName()},
        {"priorities", std::to_string(+p.priorities)},
        {"data_priority", std::to_string(+p.dataPriority)},
        {"control_priority", std::to_string(+p.controlPriority)},
        {"credit_block_size", bytes(p.creditBlockBytes)},
        {"credits_per_lane", bytes(p.creditsPerLane)},
        {"pfc_reaction_time", ns3::FormatTime(p.pfcReactionTime)},
        {"ecn_kmin", p.ecnKmin ? bytes(p.ecnKmin) : std::string("0B (no ECN marking)")},
        {"ecn_kmax", bytes(p.ecnKmax)},
        {"ecn_pmax", Fixed(p.ecnPmax, 2)},
    };
    os << p.name << ": " << summary << "\n\n";
    os << "Fields: the key under 'link:' in a topology file, the value, and where it comes\n"
          "from ([S] solid, [M] medium, [D] derived, [U] uncertain, as in FACTS.md):\n\n";
    for (const auto& [key, value] : rows)
    {
        os << "  " << std::left << std::setw(20) << key << " " << value << "\n";
        const auto note = notes.find(key);
        if (note != notes.end())
        {
            os << "  " << std::setw(20) << ""
               << "   " << note->second << "\n";
        }
    }
    const uint64_t wire = p.WireBytes(p.mtu, false);
    os << "\nDerived:\n";
    os << "  MTU packet on the wire: " << wire << " B (overhead " << OverheadText(p) << "; +"
       << p.messageHeaderBytes << " B on a message's first packet)\n";
    os << "  goodput, GB/s (efficiency), by payload:";
    for (const uint32_t payload : TABLE_PAYLOADS)
    {
        os << " " << payload << " B " << GoodputCell(p, payload) << ",";
    }
    os << " MTU " << GoodputCell(p, p.mtu) << "\n";
    if (p.flowControl == ns3::LinkProfile::FlowControl::CREDIT)
    {
        const ns3::Time latency = std::max(p.switchLatency, p.nicLatency);
        const double loopNs = wire * 8e9 / bps + 2 * p.propagationDelay.GetSeconds() * 1e9
                              + latency.GetSeconds() * 1e9;
        const double needed = bps / 8e9 * loopNs + 4.0 * wire;
        os << "  credit loop: " << Fixed(loopNs, 1)
           << " ns (MTU packet + 2 x propagation + latency); rate x loop + 4 MTU packets = "
           << Fixed(needed, 0) << " B, credits per lane " << p.creditsPerLane << " B\n";
    }
    if (p.flowControl == ns3::LinkProfile::FlowControl::PFC)
    {
        os << "  PFC headroom per port (mlx5 formula + reaction time): "
           << ns3::FormatBytes(p.PfcHeadroomBytes()) << " of " << bytes(p.bufferPerPort)
           << " buffer per port\n";
    }
}

/**
 * \brief The 'profiles' command.
 * \param args the arguments after 'profiles'
 * \return exit status
 */
int
Profiles(const std::vector<std::string>& args)
{
    for (const auto& a : args)
    {
        if (!a.empty() && a[0] == '-')
        {
            return UsageError("unknown option '" + a + "' for 'profiles'");
        }
    }
    if (args.empty())
    {
        PrintProfileTable(std::cout);
        return EXIT_OK;
    }
    if (args.size() > 1)
    {
        return UsageError("'profiles' takes at most one profile name; '" + args[1]
                          + "' is one too many");
    }
    const ns3::LinkProfile* p = ns3::FindLinkProfile(args[0]);
    if (!p)
    {
        std::string names;
        for (const auto& preset : ns3::LinkProfilePresets())
        {
            names += (names.empty() ? "" : ", ") + preset.name;
        }
        return UsageError("unknown link profile '" + args[0] + "'; known profiles: " + names);
    }
    PrintProfile(*p, std::cout);
    return EXIT_OK;
}

/**
 * \brief The 'keys' command: the key reference generated from the schema tables.
 * \param args the arguments after 'keys'
 * \return exit status
 */
int
Keys(const std::vector<std::string>& args)
{
    if (!args.empty())
    {
        return UsageError("'keys' takes no arguments; '" + args[0] + "' is one too many");
    }
    ns3::spec::WriteKeyReference(std::cout);
    return EXIT_OK;
}

} // namespace

int
main(int argc, char** argv)
{
    // Picosecond resolution: at 400-800 Gb/s a packet takes tens of ns, and ns
    // resolution would round every serialization time (STYLE.md 2.5).
    ns3::Time::SetResolution(ns3::Time::PS);

    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty())
    {
        std::cerr << USAGE;
        return EXIT_BAD_INPUT;
    }
    const std::string cmd = args[0];
    if (cmd == "--help" || cmd == "-h" || cmd == "help")
    {
        std::cout << USAGE;
        return EXIT_OK;
    }
    if (cmd == "--version")
    {
        std::cout << "ai-fabric " << AI_FABRIC_VERSION << " (ns-3 3.37)\n";
        return EXIT_OK;
    }
    try
    {
        if (cmd == "run")
        {
            return Run(std::vector<std::string>(args.begin() + 1, args.end()));
        }
        if (cmd == "sweep")
        {
            return aifabric::Sweep(std::vector<std::string>(args.begin() + 1, args.end()));
        }
        if (cmd == "analyze")
        {
            return Analyze(std::vector<std::string>(args.begin() + 1, args.end()));
        }
        if (cmd == "profiles")
        {
            return Profiles(std::vector<std::string>(args.begin() + 1, args.end()));
        }
        if (cmd == "validate")
        {
            return ValidateCommand(std::vector<std::string>(args.begin() + 1, args.end()));
        }
        if (cmd == "nccl-tests")
        {
            return NcclTestsCommand(std::vector<std::string>(args.begin() + 1, args.end()));
        }
        if (cmd == "keys")
        {
            return Keys(std::vector<std::string>(args.begin() + 1, args.end()));
        }
        return UsageError("unknown command '" + cmd
                          + "' (known: run, sweep, analyze, profiles, validate, nccl-tests, keys)");
    }
    catch (const ns3::SpecError& e)
    {
        std::cerr << e.what() << "\n";
        return EXIT_BAD_INPUT;
    }
    catch (const ns3::ResultsDirError& e)
    {
        std::cerr << "ai-fabric: error: " << e.what() << "\n";
        return EXIT_BAD_INPUT;
    }
    catch (const std::exception& e)
    {
        std::cerr << "ai-fabric: internal error: " << e.what() << "\n";
        return EXIT_INTERNAL;
    }
}
