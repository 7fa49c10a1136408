/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Reliability (docs/robustness.md, "Guarantees"): results directories checked before the
 * set-up, locked while a run writes them, result sets never mixed; names that stay inside
 * results/; input files that are no regular files; PSNs that wrap; the watchdog asleep over
 * idle simulated time; a workload refused while it is built; what a second signal reports.
 * (The bad-input corpus, tests/bad-inputs/, holds the refusals that need no process games.)
 */

#include "config/yaml-scenario-reader.h"
#include "output/atomic-file.h"
#include "run/scenario-runner.h"
#include "tool-runner.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;
using namespace ns3;

namespace
{

fs::path
Scratch(const std::string& name)
{
    return aifabrictest::FreshScratch("reliability-test-" + name);
}

/// The tool in the background in \p cwd, stdout and stderr to \p tag.out/.err there.
pid_t
Spawn(const std::vector<std::string>& args, const fs::path& cwd, const std::string& tag)
{
    return aifabrictest::SpawnTool(args, cwd, cwd / (tag + ".out"), cwd / (tag + ".err"));
}

/// Wait for a child. \return its exit status (-signal if killed)
int
Wait(pid_t pid)
{
    return aifabrictest::WaitTool(pid);
}

/// Run the tool in \p cwd with a 60 s guard (a hang fails instead of blocking the suite).
aifabrictest::ToolOutcome
Tool(const std::string& args, const fs::path& cwd)
{
    return aifabrictest::RunCommand("cd '" + cwd.string() + "' && timeout 60 '"
                                        + std::string(AI_FABRIC_BINARY) + "' " + args,
                                    cwd);
}

/// \return whether \p dir holds a temporary file (a half-written result)
bool
HoldsTemporaryFile(const fs::path& dir)
{
    for (const auto& e : fs::directory_iterator(dir))
    {
        if (e.path().extension() == ".tmp")
        {
            return true;
        }
    }
    return false;
}

} // namespace

/// An --out that cannot be a results directory is refused before the set-up: exit 2, the
/// problem named, nothing created. (Under --memory-limit 1MiB the set-up would refuse the run
/// for its memory; the directory's message shows that the check came first.)
TEST(Reliability, UnusableOutputDirectoryIsRefusedBeforeSimulating)
{
    const fs::path s = Scratch("out");
    std::ofstream(s / "a-file") << "mine\n";
    fs::create_symlink(s / "nowhere", s / "dangling");
    const std::string scenario = aifabrictest::SourcePath("examples/ring-allreduce-4gpu.yaml");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"a-file", "it exists and is not a directory"},
        {"a-file/below", "'a-file' is a file, not a directory"},
        {"dangling", "it is a dangling symbolic link"},
        {std::string(300, 'x'), "file names have at most 255"},
        {"", "--out needs a directory, not ''"},
    };
    for (const auto& [out, fragment] : cases)
    {
        const auto o
            = Tool("run '" + scenario + "' --quiet --memory-limit 1MiB --out '" + out + "'", s);
        EXPECT_EQ(o.status, 2) << out << ": " << o.err;
        EXPECT_NE(o.err.find(fragment), std::string::npos) << out << ": " << o.err;
        EXPECT_EQ(o.err.find("memory"), std::string::npos) << out << ": set up first: " << o.err;
    }
    EXPECT_EQ(aifabrictest::SlurpFile(s / "a-file"), "mine\n");
    EXPECT_FALSE(fs::exists(s / "nowhere"));
}

/// While a run writes a results directory, a second run into it fails at once (exit 2,
/// the first run's pid named) and the first finishes undisturbed.
TEST(Reliability, SecondRunIntoABusyDirectoryFailsAtOnce)
{
    const fs::path s = Scratch("busy");
    const pid_t first = Spawn({"run",
                               aifabrictest::SourcePath("tests/scenarios/long-run.yaml"),
                               "--out",
                               "out",
                               "--progress"},
                              s,
                              "first");
    bool simulating = false;
    for (int i = 0; i < 2400 && !simulating; ++i)
    {
        simulating
            = aifabrictest::SlurpFile(s / "first.err").find("[ai-fabric] [") != std::string::npos;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(simulating) << aifabrictest::SlurpFile(s / "first.err");
    const auto second = Tool("run '" + aifabrictest::SourcePath("examples/ring-allreduce-4gpu.yaml")
                                 + "' --out out",
                             s);
    EXPECT_EQ(second.status, 2) << second.err;
    EXPECT_NE(second.err.find("is in use by another ai-fabric run (pid " + std::to_string(first)),
              std::string::npos)
        << second.err;
    kill(first, SIGTERM);
    EXPECT_EQ(Wait(first), 128 + SIGTERM);
    const YAML::Node summary = YAML::LoadFile((s / "out" / "summary.json").string());
    EXPECT_EQ(summary["scenario"].as<std::string>(), "long-run");
    EXPECT_FALSE(summary["complete"].as<bool>());
}

/// Two runs of different scenarios started together into one directory, many times: each
/// either finishes (0) or is turned away (2, "in use"), and the directory always holds one
/// complete set from one run: summary.json, report.md and collectives.csv agree, no
/// temporary file is left, no file holds NUL bytes.
TEST(Reliability, ConcurrentRunsNeverMixTheirResults)
{
    const fs::path s = Scratch("concurrent");
    const std::string a = aifabrictest::SourcePath("examples/ring-allreduce-4gpu.yaml");
    const std::string b = aifabrictest::SourcePath("examples/ring-allreduce-8gpu.yaml");
    int turnedAway = 0;
    for (int round = 0; round < 8; ++round)
    {
        const pid_t pa = Spawn({"run", a, "--out", "out", "--quiet"}, s, "a");
        const pid_t pb = Spawn({"run", b, "--out", "out", "--quiet"}, s, "b");
        const int ra = Wait(pa);
        const int rb = Wait(pb);
        for (const auto& [status, tag] : {std::pair<int, std::string>{ra, "a"}, {rb, "b"}})
        {
            EXPECT_TRUE(status == 0 || status == 2) << tag << " exited " << status;
            if (status == 2)
            {
                ++turnedAway;
                EXPECT_NE(aifabrictest::SlurpFile(s / (tag + ".err")).find("in use"),
                          std::string::npos)
                    << aifabrictest::SlurpFile(s / (tag + ".err"));
            }
        }
        EXPECT_TRUE(ra == 0 || rb == 0) << "round " << round;
        const YAML::Node summary = YAML::LoadFile((s / "out" / "summary.json").string());
        const std::string name = summary["scenario"].as<std::string>();
        const std::string ranks = name == "ring-allreduce-4gpu" ? ",4," : ",8,";
        EXPECT_NE(aifabrictest::SlurpFile(s / "out" / "report.md")
                      .find("# ai-fabric report: " + name + "\n"),
                  std::string::npos)
            << "round " << round;
        EXPECT_NE(aifabrictest::SlurpFile(s / "out" / "collectives.csv").find(ranks),
                  std::string::npos)
            << "round " << round << ": collectives.csv is not " << name << "'s";
        for (const auto& e : fs::directory_iterator(s / "out"))
        {
            const std::string bytes = aifabrictest::SlurpFile(e.path());
            EXPECT_EQ(bytes.find('\0'), std::string::npos) << e.path();
        }
        EXPECT_FALSE(HoldsTemporaryFile(s / "out"));
    }
    std::cout << "runs turned away: " << turnedAway << " of 16\n";
}

/// Names become paths: a scenario file called `...yaml` (stem '..') without a name, and a
/// sweep named '../../x', are refused and write nothing outside (or inside) results/.
TEST(Reliability, NamesCannotLeaveTheResultsDirectory)
{
    const fs::path s = Scratch("names");
    std::ofstream(s / "report.md") << "the user's own report\n";
    std::ofstream(s / "...yaml")
        << "topology:\n  kind: single-switch\n  gpus: 4\n"
        << "traffic:\n  collectives:\n    - {op: all-reduce, size: 1MiB}\n";
    const auto dots = Tool("run ...yaml --quiet", s);
    EXPECT_EQ(dots.status, 2) << dots.err;
    EXPECT_NE(dots.err.find("is no usable name"), std::string::npos) << dots.err;
    EXPECT_EQ(aifabrictest::SlurpFile(s / "report.md"), "the user's own report\n");
    EXPECT_FALSE(fs::exists(s / "results"));

    std::ofstream(s / "base.yaml") << "topology:\n  kind: single-switch\n  gpus: 4\n"
                                   << "traffic:\n  collectives:\n"
                                   << "    - {name: ar, op: all-reduce, size: 1MiB}\n";
    // A name no earlier run can have left behind (a stray /tmp/x would fail the check below).
    const std::string escape = "ai-fabric-escape-" + std::to_string(getpid());
    for (const std::string& name : {"../../" + escape, "/tmp/" + escape, std::string("..")})
    {
        std::ofstream(s / "sweep.yaml") << "name: '" << name << "'\nbase: base.yaml\n"
                                        << "parameters:\n  - {key: seed, values: [1, 2]}\n";
        const auto o = Tool("sweep sweep.yaml --quiet", s);
        EXPECT_EQ(o.status, 2) << name << ": " << o.err;
        EXPECT_NE(o.err.find("sweep.yaml:1:7: error: name: "), std::string::npos)
            << name << ": " << o.err;
    }
    EXPECT_FALSE(fs::exists(s / "results"));
    EXPECT_FALSE(fs::exists(s.parent_path() / escape));
    EXPECT_FALSE(fs::exists(fs::path("/tmp") / escape));
}

/// Every file the tool reads goes through the same checks: a FIFO (which would block) as the
/// scenario, a topology, a routing-matrix CSV or a sweep file is refused at once.
TEST(Reliability, FifoInputsAreRefusedNotWaitedFor)
{
    const fs::path s = Scratch("fifo");
    ASSERT_EQ(mkfifo((s / "pipe").c_str(), 0600), 0);
    const std::string topology = "topology:\n  kind: single-switch\n  gpus: 8\n";
    std::ofstream(s / "topo.yaml") << "topology: pipe\ntraffic:\n  collectives:\n"
                                   << "    - {op: all-reduce, size: 1MiB}\n";
    std::ofstream(s / "csv.yaml")
        << topology << "traffic:\n  training:\n    layers: 8\n    hidden: 1024\n"
        << "    sequence: 256\n    peak_flops: 989TFLOPS\n    dp: 8\n    moe_layers: 8\n"
        << "    experts: 4\n    ep: 2\n    routing: {distribution: matrix, matrix: pipe}\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"run pipe", "pipe: error: cannot read scenario file 'pipe': not a regular file"},
        {"run topo.yaml", "topo.yaml:1:11: error: topology: cannot read topology file"},
        {"run csv.yaml",
         "csv.yaml:14:45: error: routing matrix CSV: cannot read routing matrix "
         "CSV file 'pipe': not a regular file"},
        {"sweep pipe", "pipe: error: cannot read sweep file 'pipe': not a regular file"},
    };
    for (const auto& [args, fragment] : cases)
    {
        const auto o = Tool(args + " --quiet", s);
        EXPECT_EQ(o.status, 2) << args << ": " << o.err;
        EXPECT_NE(o.err.find(fragment), std::string::npos) << args << ": " << o.err;
    }
}

/// PSNs wrap as a NIC's do: the lossy go-back-N/DCQCN leaf-spine (28,821 drops) gives the
/// same flows whether its queue pairs start at PSN 0 or 296 packets before the 32-bit wrap.
TEST(Reliability, PsnsWrapAroundWithoutChangingResults)
{
    ScenarioSpec spec
        = ReadScenarioFile(aifabrictest::SourcePath("tests/scenarios/roce-lossy-gbn-dcqcn.yaml"));
    const RunResults zero = RunScenario(spec, RunOptions());
    spec.transportAttributes.emplace_back("InitialPsn", "4294967000");
    const RunResults wrapped = RunScenario(spec, RunOptions());
    ASSERT_TRUE(zero.complete && wrapped.complete);
    EXPECT_TRUE(zero.violations.empty() && wrapped.violations.empty());
    EXPECT_GT(zero.counters.drops, 1000u);
    EXPECT_EQ(wrapped.counters.drops, zero.counters.drops);
    EXPECT_EQ(wrapped.events, zero.events);
    ASSERT_EQ(wrapped.flows.size(), zero.flows.size());
    for (std::size_t i = 0; i < zero.flows.size(); ++i)
    {
        EXPECT_EQ(wrapped.flows[i].endS, zero.flows[i].endS) << i;
    }
}

/// Idle simulated time costs no watchdog ticks: a collective starting at 1000 s finishes
/// with a few ticks (10^8 before, one per 10 us), and its results are those of a start at 0
/// shifted by 1000 s.
TEST(Reliability, IdleTimeCostsNoWatchdogTicks)
{
    const fs::path s = Scratch("idle");
    auto write = [&s](const std::string& file, const std::string& start) {
        std::ofstream(s / file) << "stop_time: 2000s\ntopology:\n  kind: single-switch\n"
                                << "  gpus: 4\ntraffic:\n  collectives:\n"
                                << "    - {op: all-reduce, size: 1MiB, start: " << start << "}\n";
        return ReadScenarioFile((s / file).string());
    };
    const RunResults early = RunScenario(write("early.yaml", "0s"), RunOptions());
    const RunResults late = RunScenario(write("late.yaml", "1000s"), RunOptions());
    ASSERT_TRUE(early.complete && late.complete);
    EXPECT_LT(late.watchdogTicks, early.watchdogTicks + 10);
    ASSERT_EQ(late.collectives.size(), 1u);
    EXPECT_NEAR(late.collectives[0].durationS, early.collectives[0].durationS, 1e-12);
}

/// A workload too large for --memory-limit is refused while it is built, before it takes the
/// memory: exit 2, and building stopped at the ops that fit in the limit (256 MiB / 205 B per
/// op), not at the billions the 64 GiB all-reduce in 4 KiB pieces would have.
TEST(Reliability, MemoryLimitStopsTheWorkloadWhileItIsBuilt)
{
    const fs::path s = Scratch("memory");
    std::ofstream(s / "big.yaml") << "topology:\n  kind: single-switch\n  gpus: 64\n"
                                  << "traffic:\n  collectives:\n"
                                  << "    - {op: all-reduce, size: 64GiB, chunk_size: 4KiB, "
                                     "channels: 1}\n";
    const pid_t pid
        = Spawn({"run", "big.yaml", "--out", "out", "--memory-limit", "256MiB"}, s, "big");
    EXPECT_EQ(Wait(pid), 2);
    const std::string err = aifabrictest::SlurpFile(s / "big.err");
    const std::string marker = "of --memory-limit: the workload passed ";
    const std::size_t at = err.find(marker);
    ASSERT_NE(at, std::string::npos) << err;
    const uint64_t ops = std::stoull(err.substr(at + marker.size()));
    EXPECT_GT(ops, 0u) << err;
    EXPECT_LE(ops, (256u << 20) / 205) << err;
    EXPECT_FALSE(fs::exists(s / "out"));
}

/// A second signal while the results are written reports what was and was not written
/// (async-signal-safe, from the set BeginResultSet() recorded).
TEST(Reliability, SecondSignalReportsTheFilesWritten)
{
    const fs::path s = Scratch("report");
    const fs::path log = s / "stderr.txt";
    const int saved = dup(STDERR_FILENO);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    std::fflush(stderr);
    dup2(fd, STDERR_FILENO);
    BeginResultSet(s.string(), {"collectives.csv", "report.md", "summary.json"});
    WriteFileAtomically((s / "collectives.csv").string(), [](std::ostream& os) { os << "x\n"; });
    ReportResultSetOnSignal();
    EndResultSet();
    ReportResultSetOnSignal(); // no set: nothing
    dup2(saved, STDERR_FILENO);
    close(fd);
    close(saved);
    EXPECT_EQ(aifabrictest::SlurpFile(log),
              "ai-fabric: interrupted again while writing the results into " + s.string()
                  + "; written: collectives.csv; not written: report.md, summary.json "
                    "(summary.json is written last: without it the set is incomplete)\n");
    EXPECT_FALSE(HoldsTemporaryFile(s));
}

/// Command-line text cannot add keys to the scenario nccl-tests writes: a topology path
/// with ' #' in it is quoted, not cut at the comment.
TEST(Reliability, NcclTestsQuotesCommandLineText)
{
    const fs::path s = Scratch("nccl");
    fs::create_directories(s / "sp #x");
    fs::copy_file(aifabrictest::SourcePath("topologies/single-switch-4-ndr.yaml"),
                  s / "sp #x" / "t.yaml");
    const auto o = Tool("nccl-tests all_reduce_perf -b 1M -e 1M --topology 'sp #x/t.yaml' "
                        "--out out",
                        s);
    EXPECT_EQ(o.status, 0) << o.err;
    const std::string scenario = aifabrictest::SlurpFile(s / "out" / "scenario.yaml");
    EXPECT_NE(scenario.find("sp #x/t.yaml\""), std::string::npos) << scenario;
}

/// A swept routing-matrix CSV path is relative to the sweep file, as every path in it is
/// (each point runs from its own directory; the path was resolved there and not found).
TEST(Reliability, SweptMatrixPathsAreRelativeToTheSweepFile)
{
    const fs::path s = Scratch("sweep-matrix");
    std::ofstream(s / "a.csv") << "1,2,3,4\n4,3,2,1\n";
    std::ofstream(s / "b.csv") << "10,0,0,0\n0,0,0,10\n";
    std::ofstream(s / "base.yaml") << "topology:\n  kind: single-switch\n  gpus: 8\n"
                                   << "traffic:\n  training:\n    layers: 2\n    hidden: 256\n"
                                   << "    sequence: 64\n    peak_flops: 989TFLOPS\n    dp: 8\n"
                                   << "    moe_layers: 2\n    experts: 4\n    ep: 2\n"
                                   << "    routing: {distribution: matrix, matrix: a.csv}\n";
    std::ofstream(s / "sweep.yaml")
        << "base: base.yaml\nparameters:\n"
        << "  - {key: traffic.training.routing.matrix, values: [a.csv, b.csv]}\n";
    const auto o = Tool("sweep sweep.yaml --out out --quiet --jobs 1", s);
    EXPECT_EQ(o.status, 0) << o.err;
    const std::string points = aifabrictest::SlurpFile(s / "out" / "sweep-points.csv");
    EXPECT_NE(points.find("0,a.csv,"), std::string::npos) << points;
    EXPECT_NE(points.find("1,b.csv,"), std::string::npos) << points;
    EXPECT_EQ(points.find("failed"), std::string::npos) << points;
}
