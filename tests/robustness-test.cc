/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Robustness (docs/robustness.md): the bytes-per-rank formulas against the
 * messages every algorithm builds, the end-of-run invariants, the watchdog and
 * its deadlock report on a known PFC deadlock, SIGTERM during a run, and the
 * memory estimate (refusal, and within 2x of the measured peak).
 */

#include "config/yaml-scenario-reader.h"
#include "run/run-checks.h"
#include "run/scenario-runner.h"
#include "tool-runner.h"

#include "ns3/collective-algorithm.h"
#include "ns3/workload.h"

#include <cctype>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
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
    return aifabrictest::FreshScratch("robustness-test-" + name);
}

/// The tool in the background, stdout and stderr to files in \p dir.
pid_t
Spawn(const std::vector<std::string>& args, const fs::path& dir)
{
    return aifabrictest::SpawnTool(args, dir, dir / "stdout.txt", dir / "stderr.txt");
}

/// Wait for a child. \return its exit status (-signal if killed); \p maxRssKiB its peak RSS
int
Wait(pid_t pid, long* maxRssKiB = nullptr)
{
    return aifabrictest::WaitTool(pid, maxRssKiB);
}

} // namespace

/// A known PFC deadlock (tests/scenarios/pfc-ring-deadlock.yaml): the watchdog stops
/// the run, the stall report lists the five open messages and the cycle is named.
TEST(Robustness, PfcRingDeadlockIsStoppedAndNamed)
{
    const ScenarioSpec spec
        = ReadScenarioFile(aifabrictest::SourcePath("tests/scenarios/pfc-ring-deadlock.yaml"));
    const RunResults r = RunScenario(spec, RunOptions{});
    EXPECT_FALSE(r.complete);
    EXPECT_EQ(r.stopReason, "no_progress");
    EXPECT_LT(r.simTimeS, 0.01); // long before the 50 ms stop_time
    EXPECT_EQ(r.counters.losslessDrops, 0u);
    EXPECT_TRUE(r.violations.empty()) << r.violations.front();
    const std::vector<std::string> cycle{"sw0->sw1",
                                         "sw1->sw2",
                                         "sw2->sw3",
                                         "sw3->sw4",
                                         "sw4->sw0"};
    EXPECT_EQ(r.deadlockCycle, cycle);
    EXPECT_EQ(r.openMessages, 5u);
    ASSERT_EQ(r.stallReport.size(), 5u);
    for (uint32_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(r.stallReport[i].src, i);
        EXPECT_EQ(r.stallReport[i].dst, (i + 2) % 5);
        EXPECT_EQ(r.stallReport[i].bytes, 8u << 20);
        EXPECT_LT(r.stallReport[i].delivered, r.stallReport[i].bytes);
    }
}

/// The same through the CLI: exit 3, the cycle on stderr and in summary.json.
TEST(Robustness, DeadlockReportOnTheCommandLine)
{
    const fs::path s = Scratch("deadlock");
    const pid_t pid = Spawn({"run",
                             aifabrictest::SourcePath("tests/scenarios/pfc-ring-deadlock.yaml"),
                             "--out",
                             (s / "out").string()},
                            s);
    EXPECT_EQ(Wait(pid), 3);
    const std::string err = aifabrictest::SlurpFile(s / "stderr.txt");
    EXPECT_NE(err.find("sw0->sw1 -> sw1->sw2 -> sw2->sw3 -> sw3->sw4 -> sw4->sw0"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("open message"), std::string::npos) << err;
    const std::string summary = aifabrictest::SlurpFile(s / "out" / "summary.json");
    EXPECT_NE(summary.find("\"complete\": false"), std::string::npos);
    EXPECT_NE(summary.find("\"stop_reason\": \"no_progress\""), std::string::npos);
    EXPECT_NE(summary.find("\"sw4->sw0\""), std::string::npos) << summary.substr(0, 2000);
}

/// The watchdog changes nothing in a run that progresses: the same results with a
/// 1 us no_progress interval (checked every 10 us) as with the default.
TEST(Robustness, WatchdogDoesNotChangeResults)
{
    ScenarioSpec spec
        = ReadScenarioFile(aifabrictest::SourcePath("examples/roce-incast-dcqcn.yaml"));
    RunOptions o;
    o.trace = false;
    const RunResults a = RunScenario(spec, o);
    spec.watchdogNoProgress = MicroSeconds(1);
    const RunResults b = RunScenario(spec, o);
    EXPECT_TRUE(a.complete);
    EXPECT_TRUE(b.complete);
    EXPECT_EQ(a.stopReason, "done");
    EXPECT_TRUE(a.violations.empty());
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.simTimeS, b.simTimeS);
    EXPECT_EQ(a.packetHops, b.packetHops);
    ASSERT_EQ(a.flows.size(), b.flows.size());
    for (std::size_t i = 0; i < a.flows.size(); ++i)
    {
        EXPECT_EQ(a.flows[i].endS, b.flows[i].endS);
    }
}

/// A run cut off by its stop_time lists its open messages; the invariants hold.
TEST(Robustness, StopTimeListsOpenMessages)
{
    ScenarioSpec spec
        = ReadScenarioFile(aifabrictest::SourcePath("examples/ring-allreduce-4gpu.yaml"));
    spec.stopTime = MicroSeconds(100); // past the launch and the first post latency
    const RunResults r = RunScenario(spec, RunOptions{});
    EXPECT_FALSE(r.complete);
    EXPECT_EQ(r.stopReason, "stop_time");
    EXPECT_GT(r.openMessages, 0u);
    EXPECT_EQ(r.stallReport.size(), std::min<uint64_t>(r.openMessages, MAX_STALL_REPORT));
    EXPECT_TRUE(r.deadlockCycle.empty()); // no flow control holds anything
    EXPECT_TRUE(r.violations.empty()) << r.violations.front();
}

namespace
{

/// Start `ai-fabric run` on the long scenario (it runs for seconds), results into \p out.
pid_t
SpawnLongRun(const fs::path& out, const fs::path& scratch)
{
    // --progress: the first progress line on stderr says the simulation has started (the
    // workload is built and the signal handlers are in place), whatever the machine's load.
    return Spawn({"run",
                  aifabrictest::SourcePath("tests/scenarios/long-run.yaml"),
                  "--out",
                  out.string(),
                  "--progress"},
                 scratch);
}

/// Wait until the long run prints its first progress line (it is simulating), at most 120 s
/// of wall time (a machine that slow fails the test rather than hanging it).
/// \return whether it started
bool
WaitUntilSimulating(const fs::path& scratch)
{
    for (int i = 0; i < 2400; ++i)
    {
        if (aifabrictest::SlurpFile(scratch / "stderr.txt").find("[ai-fabric] [")
            != std::string::npos)
        {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

/// No half-written result: no temporary file is left in \p out.
void
ExpectNoTemporaryFiles(const fs::path& out)
{
    for (const auto& e : fs::directory_iterator(out))
    {
        EXPECT_NE(e.path().extension(), ".tmp") << e.path();
    }
}

} // namespace

/// SIGTERM during a long run: it stops, writes summary.json with complete: false and
/// interrupted: true, leaves no temporary file, and exits 143 (128 + SIGTERM).
TEST(Robustness, SigtermWritesPartialResults)
{
    const fs::path s = Scratch("sigterm");
    const fs::path out = s / "out";
    const pid_t pid = SpawnLongRun(out, s);
    EXPECT_TRUE(WaitUntilSimulating(s)) << aifabrictest::SlurpFile(s / "stderr.txt");
    kill(pid, SIGTERM);
    EXPECT_EQ(Wait(pid), 128 + SIGTERM) << aifabrictest::SlurpFile(s / "stderr.txt");
    // summary.json parsed (JSON is YAML): the fields, not their spelling.
    const YAML::Node summary = YAML::LoadFile((out / "summary.json").string());
    EXPECT_FALSE(summary["complete"].as<bool>());
    EXPECT_TRUE(summary["interrupted"].as<bool>());
    EXPECT_EQ(summary["stop_reason"].as<std::string>(), "interrupted");
    EXPECT_GT(summary["sim_time_s"].as<double>(), 0.0);
    ExpectNoTemporaryFiles(out);
    EXPECT_NE(aifabrictest::SlurpFile(s / "stderr.txt").find("interrupted"), std::string::npos);
}

/// --progress early in a real run: the share moves off 0 (bytes count packet by packet, not
/// when the 16 GiB all-reduce's messages complete), the expected end is shown, and once a
/// second of samples exists the ETA is a finite time, not "--". (The estimator's arithmetic:
/// ProgressBar tests in parameter-sweep-test.cc.)
TEST(Robustness, ProgressShowsBytesAndAFiniteEtaEarly)
{
    const fs::path s = Scratch("progress");
    const pid_t pid = SpawnLongRun(s / "out", s);
    std::string withEta;
    for (int i = 0; i < 2400 && withEta.empty(); ++i)
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        // stderr is a file here: one plain line per update (no carriage return, no escape).
        std::istringstream lines(aifabrictest::SlurpFile(s / "stderr.txt"));
        for (std::string line; std::getline(lines, line);)
        {
            if (line.find("[ai-fabric] [") != std::string::npos
                && line.find("ETA --") == std::string::npos
                && line.find("ETA ") != std::string::npos)
            {
                withEta = line;
                break;
            }
        }
    }
    kill(pid, SIGTERM);
    Wait(pid);
    ASSERT_FALSE(withEta.empty()) << aifabrictest::SlurpFile(s / "stderr.txt");
    const std::string all = aifabrictest::SlurpFile(s / "stderr.txt");
    EXPECT_EQ(all.find('\r'), std::string::npos) << "a file gets plain lines";
    EXPECT_EQ(all.find('\033'), std::string::npos) << "a file gets no terminal escapes";
    // "[ai-fabric] [#...]  12.3% bytes | sim 1.234 ms of ~56.789 ms | wall 1.5s | ETA 7s"
    const std::size_t pct = withEta.find("% bytes");
    ASSERT_NE(pct, std::string::npos) << withEta;
    const double share = std::stod(withEta.substr(withEta.rfind(']', pct) + 1));
    EXPECT_GT(share, 0.0) << withEta;
    EXPECT_LT(share, 100.0) << withEta;
    EXPECT_NE(withEta.find(" of ~"), std::string::npos) << withEta;
    const std::string eta = withEta.substr(withEta.find("ETA ") + 4);
    EXPECT_TRUE(!eta.empty() && std::isdigit(static_cast<unsigned char>(eta[0]))) << withEta;
}

/// A second signal exits at once with 128 + signal and leaves no temporary file.
TEST(Robustness, SecondSignalExitsAtOnce)
{
    const fs::path s = Scratch("sigterm2");
    const fs::path out = s / "out";
    const pid_t pid = SpawnLongRun(out, s);
    EXPECT_TRUE(WaitUntilSimulating(s)) << aifabrictest::SlurpFile(s / "stderr.txt");
    kill(pid, SIGINT);
    kill(pid, SIGINT);
    EXPECT_EQ(Wait(pid), 128 + SIGINT);
    if (fs::exists(out))
    {
        ExpectNoTemporaryFiles(out);
    }
}

/// A scenario estimated above --memory-limit is refused up front: exit 2, the estimate
/// and the limit in the message, nothing written.
TEST(Robustness, MemoryLimitRefusesUpFront)
{
    const fs::path s = Scratch("memlimit");
    const pid_t pid = Spawn({"run",
                             aifabrictest::SourcePath("tests/scenarios/memory-mid.yaml"),
                             "--out",
                             (s / "out").string(),
                             "--memory-limit",
                             "8MiB"},
                            s);
    EXPECT_EQ(Wait(pid), 2);
    const std::string err = aifabrictest::SlurpFile(s / "stderr.txt");
    EXPECT_NE(err.find("needs an estimated"), std::string::npos) << err;
    EXPECT_NE(err.find("8.0 MiB (8388608 bytes) of --memory-limit"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(s / "out"));
    const pid_t bad = Spawn(
        {"run", aifabrictest::SourcePath("tests/scenarios/memory-mid.yaml"), "--memory-limit", "8"},
        s);
    EXPECT_EQ(Wait(bad), 2);

    // A fabric too large to even build its graph (2 M GPUs) is refused from its sizing.
    std::ofstream(s / "huge.yaml") << "topology:\n  kind: fat-tree\n  radix: 200\n"
                                   << "  link: {profile: ib-ndr}\ntraffic:\n  collectives:\n"
                                   << "    - {op: all-reduce, size: 1MiB, ranks: [0, 1]}\n";
    const pid_t huge = Spawn({"run",
                              (s / "huge.yaml").string(),
                              "--out",
                              (s / "out").string(),
                              "--memory-limit",
                              "4GiB"},
                             s);
    EXPECT_EQ(Wait(huge), 2);
    const std::string hugeErr = aifabrictest::SlurpFile(s / "stderr.txt");
    EXPECT_NE(hugeErr.find("huge.yaml:2:3: error: the run needs an estimated 26.1 GiB"),
              std::string::npos)
        << hugeErr;
    EXPECT_FALSE(fs::exists(s / "out"));
}

/// The estimate is within a factor 2 of the peak resident memory of a mid-size run.
TEST(Robustness, MemoryEstimateWithinTwoXOfPeak)
{
    const fs::path s = Scratch("memory");
    const pid_t pid = Spawn({"run",
                             aifabrictest::SourcePath("tests/scenarios/memory-mid.yaml"),
                             "--out",
                             (s / "out").string(),
                             "--quiet"},
                            s);
    long rssKiB = 0;
    ASSERT_EQ(Wait(pid, &rssKiB), 0) << aifabrictest::SlurpFile(s / "stderr.txt");
    const std::string summary = aifabrictest::SlurpFile(s / "out" / "summary.json");
    const std::string key = "\"memory_estimate_bytes\": ";
    const std::size_t at = summary.find(key);
    ASSERT_NE(at, std::string::npos);
    const double estimate = std::stod(summary.substr(at + key.size()));
    const double peak = rssKiB * 1024.0;
    RecordProperty("estimate_bytes", std::to_string(estimate));
    RecordProperty("peak_rss_bytes", std::to_string(peak));
    EXPECT_GT(estimate, peak / 2) << "peak " << peak;
    EXPECT_LT(estimate, peak * 2) << "peak " << peak;
}

/// Dragonfly+ with Valiant routing and credit flow control under an all-to-all: the
/// lane change where a detour turns towards its destination keeps the credit waits
/// acyclic, so the run completes (credits do hold packets: flow-control stall time is not
/// zero). Several seeds (ECMP salts, intermediate groups): deadlock freedom must not be
/// the luck of one event order (changing the lane where the detour entered its
/// intermediate group instead deadlocked on seeds 1 and 6).
TEST(Robustness, DragonflyPlusValiantDoesNotDeadlock)
{
    ScenarioSpec spec = ReadScenarioFile(
        aifabrictest::SourcePath("tests/scenarios/dragonfly-valiant-alltoall.yaml"));
    for (uint32_t seed = 1; seed <= 8; ++seed)
    {
        SCOPED_TRACE("seed " + std::to_string(seed));
        spec.seed = seed;
        const RunResults r = RunScenario(spec, RunOptions{});
        EXPECT_TRUE(r.complete) << r.stopReason;
        EXPECT_EQ(r.stopReason, "done");
        EXPECT_TRUE(r.deadlockCycle.empty());
        EXPECT_TRUE(r.violations.empty()) << r.violations.front();
        EXPECT_GT(r.counters.stallS, 0.0);
    }
}
