/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * 'ai-fabric sweep' in-process: grid expansion, key paths, reading and checking sweep
 * files (errors located in the sweep file), the jobs limit of the point runner; and the
 * progress bar's pure functions.
 */
#include "config/scenario-spec.h"
#include "config/yaml-scenario-reader.h"
#include "run/progress-bar.h"
#include "sweep/parameter-sweep.h"
#include "tool-runner.h"

#include "ns3/nstime.h"
#include "ns3/spec-error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

fs::path
Scratch(const std::string& name)
{
    return aifabrictest::FreshScratch("sweep-test-" + name);
}

void
Write(const fs::path& p, const std::string& text)
{
    std::ofstream os(p, std::ios::binary);
    os << text;
}

/// A sweep file in \p dir over examples/ring-allreduce-4gpu.yaml with \p body after `base:`.
std::string
SweepOverRing(const fs::path& dir, const std::string& body)
{
    const std::string path = (dir / "sweep.yaml").string();
    Write(path,
          "name: t\nbase: " + aifabrictest::SourcePath("examples/ring-allreduce-4gpu.yaml") + "\n"
              + body);
    return path;
}

/// The SpecError thrown by ReadSweepFile(\p path), or a failure.
SpecError
SweepError(const std::string& path)
{
    try
    {
        ReadSweepFile(path);
    }
    catch (const SpecError& e)
    {
        return e;
    }
    ADD_FAILURE() << path << " was accepted";
    return SpecError(SpecLocation{}, "");
}

} // namespace

TEST(ParameterSweep, GridIsTheCartesianProductFirstParameterSlowest)
{
    const std::vector<std::vector<uint32_t>> grid = ExpandGrid({2, 3});
    const std::vector<std::vector<uint32_t>> expected
        = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
    EXPECT_EQ(grid, expected);
    EXPECT_EQ(ExpandGrid({4}).size(), 4u);
    EXPECT_EQ(ExpandGrid({2, 2, 2}).back(), (std::vector<uint32_t>{1, 1, 1}));
    EXPECT_EQ(ExpandGrid({3, 1, 2}).size(), 6u);
    EXPECT_TRUE(ExpandGrid({}).empty());
}

TEST(ParameterSweep, KeyPathSetsExactlyOneValue)
{
    const std::string base = "a: 1\n"
                             "b:\n  c: x\n  d: [1, 2, 3]\n"
                             "e:\n  - {f: 1, g: 2}\n  - {f: 3}\n";
    EXPECT_EQ(SetYamlKeyPath(base, "a", "7"), SetYamlKeyPath(base, "a", "7"));
    const std::string a = SetYamlKeyPath(base, "a", "7");
    EXPECT_NE(a.find("a: 7\n"), std::string::npos) << a;
    EXPECT_NE(a.find("c: x"), std::string::npos) << a;
    const std::string c = SetYamlKeyPath(base, "b.c", "\"3:1\"");
    EXPECT_NE(c.find("c: 3:1"), std::string::npos) << c;
    EXPECT_NE(c.find("a: 1\n"), std::string::npos) << c;
    const std::string d = SetYamlKeyPath(base, "b.d[2]", "9");
    EXPECT_NE(d.find("[1, 2, 9]"), std::string::npos) << d;
    const std::string f = SetYamlKeyPath(base, "e[1].f", "5");
    EXPECT_NE(f.find("{f: 5}"), std::string::npos) << f;
    EXPECT_NE(f.find("{f: 1, g: 2}"), std::string::npos) << f;
    // A new last key in an existing mapping: an optional key the base left out.
    const std::string g = SetYamlKeyPath(base, "e[1].g", "4");
    EXPECT_NE(g.find("{f: 3, g: 4}"), std::string::npos) << g;
    // A whole mapping as the value.
    const std::string m = SetYamlKeyPath(base, "b", "{k: 1}");
    EXPECT_NE(m.find("b: {k: 1}"), std::string::npos) << m;
    EXPECT_EQ(m.find("c: x"), std::string::npos) << m;
}

TEST(ParameterSweep, BadKeyPathsNameTheStep)
{
    const std::string base = "a: 1\nb:\n  c: x\n  d: [1, 2]\n";
    const auto message = [&](const std::string& path) {
        try
        {
            SetYamlKeyPath(base, path, "1");
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message("bb.c").find("no key 'bb' in the base scenario; did you mean 'b'?"),
              std::string::npos)
        << message("bb.c");
    EXPECT_NE(message("b.x.y").find("no key 'x' in 'b'"), std::string::npos) << message("b.x.y");
    EXPECT_NE(message("b.d[2]").find("'b.d' has 2 entries, so there is no [2]"), std::string::npos)
        << message("b.d[2]");
    EXPECT_NE(message("b.c[0]").find("'b.c' is not a list"), std::string::npos);
    EXPECT_NE(message("a.z").find("'a' is not a mapping"), std::string::npos);
    EXPECT_NE(message("b..c").find("expected a key"), std::string::npos);
    EXPECT_NE(message("b[x]").find("expected an index"), std::string::npos);
    EXPECT_NE(message("").find("empty"), std::string::npos);
}

TEST(ParameterSweep, InlinedScenarioReadsAsTheSameScenario)
{
    const fs::path s = Scratch("inline");
    const std::string file = aifabrictest::SourcePath("examples/ring-allreduce-4gpu.yaml");
    const std::string yaml = InlineScenarioYaml(file);
    EXPECT_EQ(yaml.find("../topologies"), std::string::npos) << yaml;
    Write(s / "inlined.yaml", yaml);
    const ScenarioSpec a = ReadScenarioFile(file);
    const ScenarioSpec b = ReadScenarioFile((s / "inlined.yaml").string());
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.topology.name, b.topology.name);
    EXPECT_EQ(a.topology.gpus, b.topology.gpus);
    EXPECT_EQ(a.traffic.name, b.traffic.name);
    ASSERT_EQ(b.traffic.collectives.size(), 1u);
    EXPECT_EQ(a.traffic.collectives[0].bytes, b.traffic.collectives[0].bytes);
}

TEST(ParameterSweep, ReadsTheGridAndEveryPointsScenario)
{
    const fs::path s = Scratch("read");
    const std::string path = SweepOverRing(s,
                                           "jobs: 3\n"
                                           "parameters:\n"
                                           "  - key: traffic.collectives[0].size\n"
                                           "    values: [1MiB, 4MiB, 16MiB]\n"
                                           "  - key: topology.gpus\n"
                                           "    values: [4, 8]\n");
    const SweepPlan plan = ReadSweepFile(path);
    EXPECT_EQ(plan.name, "t");
    EXPECT_EQ(plan.jobs, 3u);
    ASSERT_EQ(plan.parameters.size(), 2u);
    EXPECT_EQ(plan.parameters[0].labels, (std::vector<std::string>{"1MiB", "4MiB", "16MiB"}));
    EXPECT_EQ(plan.parameters[1].where.line, 7);
    EXPECT_EQ(plan.parameters[1].valueWhere[1].line, 8);
    ASSERT_EQ(plan.points.size(), 6u);
    EXPECT_EQ(plan.points[3].choice, (std::vector<uint32_t>{1, 1}));
    // Point 3 = 4 MiB on 8 GPUs, exactly.
    Write(s / "p3.yaml", plan.points[3].scenarioYaml);
    const ScenarioSpec p3 = ReadScenarioFile((s / "p3.yaml").string());
    EXPECT_EQ(p3.topology.gpus, 8u);
    EXPECT_EQ(p3.traffic.collectives[0].bytes, 4u * 1024 * 1024);
    EXPECT_EQ(p3.name, "ring-allreduce-4gpu");
    // Default metrics for a collective: its duration and busbw, the p99 FCT, flags.
    EXPECT_TRUE(plan.defaultMetrics);
    std::vector<std::string> names;
    for (const auto& m : plan.metrics)
    {
        names.push_back(m.name);
    }
    EXPECT_EQ(names,
              (std::vector<std::string>{"bucket-allreduce_duration_s",
                                        "bucket-allreduce_busbw_GBps",
                                        "fct_p99_s",
                                        "sim_time_s",
                                        "complete",
                                        "valid"}));
    EXPECT_EQ(plan.metrics[1].path, "collectives[0].busbw_GBps");
}

TEST(ParameterSweep, ErrorsNameTheSweepFileLine)
{
    const fs::path s = Scratch("errors");

    struct Case
    {
        std::string body;
        int line;
        std::string fragment;
    };

    const std::vector<Case> cases = {
        {"parameters:\n  - key: topology.gpu_count.x\n    values: [1]\n",
         4,
         "key path 'topology.gpu_count.x' does not fit the base scenario"},
        {"parameters:\n  - key: traffic.collectives[3].size\n    values: [1MiB]\n",
         4,
         "'traffic.collectives' has 1 entries, so there is no [3]"},
        {"parameters:\n  - key: topology.gpus\n    values: [4, 1]\n",
         5,
         "point 1 (topology.gpus = 1): the value '1' of 'topology.gpus' makes the base "
         "scenario"},
        {"parameters:\n  - key: traffic.collectives[0].size\n    values: [1MiB, lots]\n",
         5,
         "point 1"},
        {"parameters:\n  - key: topology.gpus\n    value: [4]\n", 5, "did you mean 'values'?"},
        {"paramters: []\n", 3, "unknown key 'paramters' in the sweep file; did you mean"},
        {"parameters: []\n", 3, "non-empty list"},
        {"parameters:\n  - key: topology.gpus\n    values: [4, 4]\n", 5, "listed twice"},
        {"jobs: 0\nparameters:\n  - key: topology.gpus\n    values: [4]\n", 3, "'jobs'"},
        {"parameters:\n  - key: topology.gpus\n    values: [4]\nmetrics:\n  - {name: a b, "
         "path: x}\n",
         7,
         "a metric name may hold"},
    };
    for (const Case& c : cases)
    {
        const SpecError e = SweepError(SweepOverRing(s, c.body));
        EXPECT_EQ(e.Where().file, (s / "sweep.yaml").string()) << c.body;
        EXPECT_EQ(e.Where().line, c.line) << c.body << e.what();
        EXPECT_NE(e.Message().find(c.fragment), std::string::npos) << c.body << e.what();
    }
    // A base that does not exist is named at the 'base' line.
    Write(s / "nobase.yaml", "base: no/such.yaml\nparameters: []\n");
    const SpecError e = SweepError((s / "nobase.yaml").string());
    EXPECT_EQ(e.Where().line, 1);
    EXPECT_NE(e.Message().find("no/such.yaml"), std::string::npos) << e.what();
}

/// The runner never has more than `jobs` children at once: each fake child counts the
/// children alive beside it (a marker file each) and the most seen must not exceed 2.
TEST(ParameterSweep, RunnerKeepsToTheJobsLimit)
{
    const fs::path s = Scratch("jobs");
    fs::create_directories(s / "alive");
    const fs::path exe = s / "fake-ai-fabric";
    // Called as: EXE run SCENARIO --out DIR --quiet
    Write(exe,
          "#!/bin/sh\n"
          "touch '"
              + (s / "alive").string()
              + "'/$$\n"
                "ls '"
              + (s / "alive").string() + "' | wc -l >> '" + (s / "counts").string()
              + "'\n"
                "sleep 0.2\n"
                "ls '"
              + (s / "alive").string() + "' | wc -l >> '" + (s / "counts").string()
              + "'\n"
                "echo '{\"complete\": true, \"x\": {\"y\": [1, 2.5]}}' > \"$4/summary.json\"\n"
                "rm '"
              + (s / "alive").string()
              + "'/$$\n"
                "case \"$2\" in *points/003/*) exit 3;; esac\n");
    fs::permissions(exe, fs::perms::owner_all);
    const std::string path = SweepOverRing(s,
                                           "parameters:\n"
                                           "  - key: topology.gpus\n"
                                           "    values: [2, 3, 4, 5, 6, 7]\n"
                                           "metrics:\n"
                                           "  - {name: y1, path: \"x.y[1]\"}\n"
                                           "  - {name: missing, path: x.z}\n");
    const SweepPlan plan = ReadSweepFile(path);
    SweepRunOptions options;
    options.executable = exe.string();
    options.jobs = 2;
    uint32_t maxRunning = 0;
    options.maxRunning = &maxRunning;
    const std::vector<SweepPointResult> r = RunSweepPoints(plan, (s / "out").string(), options);
    ASSERT_EQ(r.size(), 6u);
    EXPECT_EQ(maxRunning, 2u);
    std::istringstream counts(aifabrictest::SlurpFile(s / "counts"));
    int n = 0;
    int most = 0;
    for (int c = 0; counts >> c; ++n)
    {
        most = std::max(most, c);
    }
    EXPECT_EQ(n, 12);
    EXPECT_GE(most, 1);
    EXPECT_LE(most, 2);
    for (std::size_t i = 0; i < r.size(); ++i)
    {
        EXPECT_EQ(r[i].exitCode, i == 3 ? 3 : 0) << i;
        EXPECT_EQ(r[i].status, i == 3 ? "incomplete" : "ok") << i;
        EXPECT_EQ(r[i].metricValues, (std::vector<std::string>{"2.5", ""})) << i;
        EXPECT_EQ(r[i].metricFound, (std::vector<bool>{true, false})) << i;
        EXPECT_TRUE(
            fs::exists(s / "out" / "points" / ("00" + std::to_string(i)) / "scenario.yaml"));
    }
    WriteSweepCsv(plan, r, (s / "out").string());
    std::istringstream csv(aifabrictest::SlurpFile(s / "out" / "sweep-points.csv"));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "point,topology.gpus,y1,missing,status,exit_code,wall_s");
    std::getline(csv, line);
    EXPECT_EQ(line.rfind("0,2,2.5,,ok,0,", 0), 0u) << line;
    for (int i = 0; i < 3; ++i)
    {
        std::getline(csv, line);
    }
    EXPECT_EQ(line.rfind("3,5,2.5,,incomplete,3,", 0), 0u) << line;
    WriteSweepReport(plan, r, (s / "out").string());
    const std::string report = aifabrictest::SlurpFile(s / "out" / "report.md");
    EXPECT_NE(report.find("1 of 6 points did not finish with status ok"), std::string::npos);
    EXPECT_NE(report.find("Not found in any point's summary.json"), std::string::npos);
}

/// The report shows a metric in the unit its name or path implies (seconds scaled to s, ms,
/// us or ns; GB/s): "347.1 us", not "0.0003471"; sweep-points.csv keeps the raw number.
TEST(ParameterSweep, ReportShowsMetricsInReadableUnits)
{
    const fs::path s = Scratch("units");
    SweepPlan plan;
    plan.file = "sweep.yaml";
    plan.name = "t";
    plan.baseFile = "base.yaml";
    SweepParameter p;
    p.key = "topology.oversubscription";
    p.values = {"1:1", "2:1"};
    p.labels = p.values;
    plan.parameters = {p};
    plan.metrics = {{"allreduce_s", "collectives[0].duration_s", {}},
                    {"busbw", "collectives[0].busbw_GBps", {}},
                    {"ratio", "collectives[0].sim_over_analytic", {}}};
    const std::vector<std::vector<std::string>> values
        = {{"0.0003471", "45.5", "1.25"}, {"0.0006942", "22.75", "2.5"}};
    std::vector<SweepPointResult> results(2);
    for (uint32_t i = 0; i < 2; ++i)
    {
        SweepPoint point;
        point.index = i;
        point.choice = {i};
        plan.points.push_back(point);
        results[i].exitCode = 0;
        results[i].status = "ok";
        results[i].metricFound = {true, true, true};
        results[i].metricValues = values[i];
    }
    WriteSweepReport(plan, results, s.string());
    const std::string report = aifabrictest::SlurpFile(s / "report.md");
    EXPECT_NE(report.find("| 0 | 1:1 | 347.1 us | 45.5 GB/s | 1.25 | ok |"), std::string::npos)
        << report;
    EXPECT_NE(report.find("| 347.1 us | 694.2 us (x2.000) |"), std::string::npos) << report;
    EXPECT_NE(report.find("| 45.5 GB/s | 22.75 GB/s (x0.500) |"), std::string::npos) << report;
    EXPECT_EQ(report.find("0.0003471"), std::string::npos) << report;
}

TEST(ProgressBar, DurationText)
{
    EXPECT_EQ(FormatDuration(-1), "--");
    EXPECT_EQ(FormatDuration(0), "0s");
    EXPECT_EQ(FormatDuration(42.4), "42s");
    EXPECT_EQ(FormatDuration(59.6), "1m00s");
    EXPECT_EQ(FormatDuration(185), "3m05s");
    EXPECT_EQ(FormatDuration(3720), "1h02m");
}

TEST(ProgressBar, LineShowsBarShareSimWallAndEta)
{
    ProgressState state;
    state.simS = 0.00125;
    state.share = 0.5;
    state.wallS = 3.24;
    state.etaS = 3.2;
    EXPECT_EQ(FormatProgressLine(state, 20),
              "[ai-fabric] [##########..........]  50.0% bytes | sim 1.250 ms | wall 3.2s | "
              "ETA 3s");
    state.expectedEndS = 0.0025;
    EXPECT_EQ(FormatProgressLine(state, 20),
              "[ai-fabric] [##########..........]  50.0% bytes | sim 1.250 ms of ~2.500 ms | "
              "wall 3.2s | ETA 3s");
    EXPECT_EQ(FormatProgressLine(ProgressState{2.5e-5, -1, 0, 0.5, -1}, 10),
              "[ai-fabric] [..........]   0.0% bytes | sim 25.000 us | wall 0.5s | ETA --");
    EXPECT_EQ(FormatProgressLine(ProgressState{12.0, 12.0, 1.2, 100, 0}, 4),
              "[ai-fabric] [####] 100.0% bytes | sim 12.000000 s of ~12.000000 s | wall 100.0s | "
              "ETA 0s");
}

TEST(ProgressBar, ExpectedEndFromTheIdealEndAndTheBytesProjection)
{
    // Nothing delivered yet: the contention-free end, while it lies ahead.
    EXPECT_DOUBLE_EQ(ExpectedEndS(1e-6, 0, 1e-3, 10), 1e-3);
    EXPECT_LT(ExpectedEndS(2e-3, 0, 1e-3, 0), 0);          // past it, no basis for an estimate
    EXPECT_DOUBLE_EQ(ExpectedEndS(2e-3, 0, 1e-3, 10), 10); // the stop time bounds the run
    // The bytes' projection once it says more: 25 % at 0.5 ms projects 2 ms.
    EXPECT_DOUBLE_EQ(ExpectedEndS(0.5e-3, 0.25, 1e-3, 10), 2e-3);
    EXPECT_DOUBLE_EQ(ExpectedEndS(0.1e-3, 0.25, 1e-3, 10), 1e-3);       // the ideal end is later
    EXPECT_DOUBLE_EQ(ExpectedEndS(0.5e-3, 0.25, 1e-3, 1.5e-3), 1.5e-3); // capped by the stop
    EXPECT_DOUBLE_EQ(ExpectedEndS(0.5e-3, 0.25, 0, 0), 2e-3);           // no ideal, no stop
}

/// Early in a run the bytes arrive packet by packet, so the share moves off 0 at once, and
/// the ETA (simulated time towards the expected end at the clock's recent rate) is finite
/// after a second of samples: a run of 1.12 ms simulated at 0.1 ms per wall second, whose
/// contention-free end is 0.8 ms and whose bytes arrive evenly.
TEST(ProgressBar, EarlyInARunTheShareAndEtaAreSane)
{
    EtaEstimator eta;
    const double simEnd = 1.12e-3;
    const double simPerWall = 1e-4;
    std::string line;
    for (double wall = 0.5; wall <= 1.51; wall += 0.5)
    {
        ProgressState state;
        state.wallS = wall;
        state.simS = simPerWall * wall;
        state.share = state.simS / simEnd; // delivered evenly, packet by packet
        eta.Add(wall, state.simS);
        state.expectedEndS = ExpectedEndS(state.simS, state.share, 0.8e-3, 0.1);
        state.etaS = eta.SecondsLeft(state.expectedEndS);
        line = FormatProgressLine(state);
        if (wall < 1.4)
        {
            continue;
        }
        // At 1.5 s: 13.4 % delivered, the projection (1.12 ms) is past the ideal end
        // (0.8 ms); 0.97 ms left at 0.1 ms per wall second.
        EXPECT_NEAR(state.expectedEndS, 1.12e-3, 1e-12);
        EXPECT_NEAR(state.etaS, 9.7, 1e-6);
    }
    EXPECT_EQ(line,
              "[ai-fabric] [##..................]  13.4% bytes | sim 150.000 us of ~1.120 ms | "
              "wall 1.5s | ETA 10s");
}

TEST(ProgressBar, EtaFromTheDeliveryRateOverTheWindow)
{
    EtaEstimator eta;
    EXPECT_LT(eta.SecondsLeft(), 0);
    eta.Add(0.5, 0.0);
    eta.Add(1.0, 0.0);
    EXPECT_LT(eta.SecondsLeft(), 0); // nothing delivered yet
    // 10 % per wall second from t = 1 s; the window (5 s) reaches back to the first sample
    // (t = 0.5 s): 20 % in 2.5 s = 8 %/s, so 80 % left takes 10 s.
    eta.Add(2.0, 0.1);
    eta.Add(3.0, 0.2);
    EXPECT_NEAR(eta.SecondsLeft(), 10.0, 1e-9);
    // Long after, at 5 %/s over the last window (5 s): the old fast rate is forgotten.
    for (int t = 4; t <= 12; ++t)
    {
        eta.Add(t, 0.2 + 0.05 * (t - 3));
    }
    EXPECT_NEAR(eta.SecondsLeft(), (1 - 0.65) / 0.05, 1e-9);
    // A stall within the window: the window's rate drops, the estimate grows.
    eta.Add(13, 0.65);
    eta.Add(14, 0.65);
    EXPECT_NEAR(eta.SecondsLeft(), 0.35 / ((0.65 - 0.5) / 5.0), 1e-9);
}

/// A sweep interrupted before it starts runs no point: every result is "not-run".
TEST(ParameterSweep, InterruptedRunnerStartsNoMorePoints)
{
    const fs::path s = Scratch("interrupt");
    const std::string path = SweepOverRing(s,
                                           "parameters:\n"
                                           "  - key: topology.gpus\n"
                                           "    values: [2, 3, 4]\n");
    const SweepPlan plan = ReadSweepFile(path);
    SweepRunOptions options;
    options.executable = "/bin/false";
    options.jobs = 2;
    const volatile std::sig_atomic_t stop = SIGTERM;
    options.interrupt = &stop;
    const std::vector<SweepPointResult> r = RunSweepPoints(plan, (s / "out").string(), options);
    ASSERT_EQ(r.size(), 3u);
    for (const auto& p : r)
    {
        EXPECT_EQ(p.status, "not-run");
        EXPECT_EQ(p.exitCode, -1);
        EXPECT_EQ(p.metricValues.size(), plan.metrics.size());
    }
    EXPECT_FALSE(fs::exists(s / "out" / "points" / "000" / "run.log"));
}
