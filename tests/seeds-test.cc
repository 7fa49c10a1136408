/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Statistics over seeds (issue 16 part 4): the maths (mean, sample sd, Student-t 95 %
 * interval), the sweep report's warning when a difference is within the seed-to-seed spread
 * (and its absence when it is not), a multi-seed 'run' end to end against its seeds' own
 * summaries, determinism, and bad input (exit 2, file:line:col or the flag, nothing written).
 */
#include "output/seed-statistics.h"
#include "sweep/parameter-sweep.h"
#include "sweep/seed-runs.h"
#include "tool-runner.h"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace aifabrictest;

namespace
{

/// \return seed runs with seeds 1..n and one metric's values \p xs, all ok
std::vector<ns3::SeedRunResult>
Runs(const std::vector<std::string>& xs)
{
    std::vector<ns3::SeedRunResult> runs;
    for (std::size_t i = 0; i < xs.size(); ++i)
    {
        ns3::SeedRunResult r;
        r.seed = static_cast<uint32_t>(i + 1);
        r.exitCode = 0;
        r.status = "ok";
        r.values = {xs[i]};
        r.found = {true};
        runs.push_back(r);
    }
    return runs;
}

/// \return the number after `"key": ` in the first object of \p json that follows \p after
double
JsonNumberAfter(const std::string& json, const std::string& after, const std::string& key)
{
    const std::size_t at = json.find(after);
    std::smatch m;
    const std::string rest = at == std::string::npos ? "" : json.substr(at);
    const std::regex re("\"" + key + "\": ([-0-9.e+]+)");
    return std::regex_search(rest, m, re) ? std::stod(m[1].str()) : NAN;
}

/// A 24-GPU leaf-spine at 3:1 under ECMP: seeds change the hash, so the results differ.
fs::path
EcmpScenario(const fs::path& dir,
             const std::string& seedLine,
             const std::string& file = "ecmp.yaml")
{
    const fs::path p = dir / file;
    std::ofstream(p) << "name: ecmp\n"
                     << seedLine
                     << "stop_time: 1s\n"
                        "topology:\n"
                        "  kind: leaf-spine\n"
                        "  gpus_per_leaf: 12\n"
                        "  oversubscription: \"3:1\"\n"
                        "  leaves: 2\n"
                        "  link: {profile: ib-ndr}\n"
                        "traffic:\n"
                        "  collectives:\n"
                        "    - {name: ar, op: all-reduce, algorithm: ring, size: 4MiB}\n"
                        "    - {name: a2a, op: all-to-all, algorithm: direct, size: 4MiB}\n";
    return p;
}

} // namespace

TEST(SeedStatistics, StudentTTableAndExpansion)
{
    EXPECT_DOUBLE_EQ(ns3::StudentT975(1), 12.7062);
    EXPECT_DOUBLE_EQ(ns3::StudentT975(4), 2.7764);
    EXPECT_DOUBLE_EQ(ns3::StudentT975(30), 2.0423);
    // Above the table (exact values from R's qt(0.975, dof)).
    EXPECT_NEAR(ns3::StudentT975(40), 2.021075, 1e-5);
    EXPECT_NEAR(ns3::StudentT975(60), 2.000298, 1e-5);
    EXPECT_NEAR(ns3::StudentT975(120), 1.979930, 1e-5);
    EXPECT_NEAR(ns3::StudentT975(100000), 1.959964, 1e-4);
    EXPECT_TRUE(std::isnan(ns3::StudentT975(0)));
}

TEST(SeedStatistics, MeanSdAndIntervalOfKnownValues)
{
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squares about it 32, sample sd sqrt(32 / 7) = 2.13809;
    // half-width t(0.975, 7) x sd / sqrt(8) = 2.3646 x 2.13809 / 2.82843 = 1.78747.
    const ns3::SampleStatistics s = ns3::Summarize({2, 4, 4, 4, 5, 5, 7, 9});
    EXPECT_EQ(s.n, 8u);
    EXPECT_DOUBLE_EQ(s.mean, 5);
    EXPECT_DOUBLE_EQ(s.min, 2);
    EXPECT_DOUBLE_EQ(s.max, 9);
    EXPECT_NEAR(s.stddev, 2.138090, 1e-6);
    EXPECT_NEAR(s.ciHalfWidth, 1.787470, 1e-5);
    // Two values 1 and 3: sd sqrt(2), half-width 12.7062 x sqrt(2) / sqrt(2) = 12.7062.
    EXPECT_NEAR(ns3::Summarize({1, 3}).ciHalfWidth, 12.7062, 1e-12);
    // One value: no interval; none: nothing.
    const ns3::SampleStatistics one = ns3::Summarize({4.5});
    EXPECT_EQ(one.n, 1u);
    EXPECT_DOUBLE_EQ(one.mean, 4.5);
    EXPECT_DOUBLE_EQ(one.stddev, 0);
    EXPECT_TRUE(std::isnan(one.ciHalfWidth));
    EXPECT_EQ(ns3::Summarize({}).n, 0u);
}

TEST(SeedStatistics, FailedSeedsAreNeverAveraged)
{
    std::vector<ns3::SeedRunResult> runs = Runs({"1", "2", "100"});
    runs[2].exitCode = 3;
    runs[2].status = "incomplete";
    const ns3::SampleStatistics s = ns3::MetricStatistics(runs, 0);
    EXPECT_EQ(s.n, 2u);
    EXPECT_DOUBLE_EQ(s.mean, 1.5);
    EXPECT_EQ(ns3::SeedsOk(runs), 2u);
    const std::string text = ns3::SeedSummaryText({{"t_s", "t", {}}}, runs);
    EXPECT_NE(text.find("mean of 2 seeds"), std::string::npos) << text;
    EXPECT_NE(text.find("seed 3: incomplete; left out"), std::string::npos) << text;
    // Booleans count as 1 and 0: the mean of `complete` is the share of seeds that completed.
    double x = -1;
    EXPECT_TRUE(ns3::MetricNumber("true", x));
    EXPECT_DOUBLE_EQ(x, 1);
    EXPECT_FALSE(ns3::MetricNumber("", x));
    EXPECT_FALSE(ns3::MetricNumber("abc", x));
}

TEST(SeedStatistics, SpreadVerdict)
{
    // Means 1.0 and 1.05, intervals about +-0.25: within the spread; seed 3 reverses.
    const auto a = Runs({"0.9", "1.1", "1.0"});
    const auto b = Runs({"1.05", "1.2", "0.9"});
    const ns3::SeedSpreadVerdict v = ns3::CompareOverSeeds(a, b, 0);
    EXPECT_TRUE(v.cisOverlap);
    EXPECT_EQ(v.reversedBy, std::vector<uint32_t>{3});
    EXPECT_TRUE(v.withinSpread);
    // Means 1.0 and 2.0, intervals about +-0.025: a real difference.
    const auto c = Runs({"2.0", "2.01", "1.99"});
    const auto d = Runs({"1.0", "1.01", "0.99"});
    const ns3::SeedSpreadVerdict w = ns3::CompareOverSeeds(d, c, 0);
    EXPECT_FALSE(w.cisOverlap);
    EXPECT_TRUE(w.reversedBy.empty());
    EXPECT_FALSE(w.withinSpread);
    // Identical values at both points (no spread, no difference): nothing to warn about.
    EXPECT_FALSE(ns3::CompareOverSeeds(Runs({"1", "1"}), Runs({"1", "1"}), 0).withinSpread);
}

/// The sweep report warns for the compared pair within the spread, and only for it.
TEST(SeedStatistics, SweepReportWarnsOnlyWithinTheSpread)
{
    const fs::path s = FreshScratch("seeds-report");
    ns3::SweepPlan plan;
    plan.file = "sweep.yaml";
    plan.name = "t";
    plan.baseFile = "base.yaml";
    ns3::SweepParameter p;
    p.key = "topology.oversubscription";
    p.values = {"1:1", "2:1", "3:1"};
    p.labels = p.values;
    plan.parameters = {p};
    plan.metrics = {{"step_s", "training.iterations[0].step_s", {}}};
    plan.seeds = {1, 2, 3};
    plan.seedsFrom = "test";
    std::vector<ns3::SweepPointResult> results(3);
    const std::vector<std::vector<std::string>> values = {{"1.0", "1.01", "0.99"},  // 1:1
                                                          {"1.05", "1.2", "0.9"},   // 2:1
                                                          {"2.0", "2.01", "1.99"}}; // 3:1
    for (uint32_t i = 0; i < 3; ++i)
    {
        ns3::SweepPoint point;
        point.index = i;
        point.choice = {i};
        plan.points.push_back(point);
        results[i].exitCode = 0;
        results[i].status = "ok";
        results[i].seedRuns = Runs(values[i]);
        results[i].metricFound = {true};
        results[i].metricValues
            = {std::to_string(ns3::MetricStatistics(results[i].seedRuns, 0).mean)};
    }
    ns3::WriteSweepReport(plan, results, s.string());
    const std::string report = SlurpFile(s / "report.md");
    EXPECT_NE(report.find("**1 compared difference(s) are within the seed-to-seed spread**"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("* warning: `topology.oversubscription = 2:1` vs `1:1`: the "
                          "difference in step_s"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("with seed 3 the order is the opposite of the means'"), std::string::npos)
        << report;
    EXPECT_EQ(report.find("warning: `topology.oversubscription = 3:1`"), std::string::npos)
        << report;

    // Far apart everywhere: no warning, and the report says so.
    results[1].seedRuns = Runs({"3.0", "3.01", "2.99"});
    ns3::WriteSweepReport(plan, results, s.string());
    const std::string clean = SlurpFile(s / "report.md");
    EXPECT_EQ(clean.find("warning"), std::string::npos) << clean;
    EXPECT_NE(clean.find("No compared difference is within the seed-to-seed spread"),
              std::string::npos)
        << clean;
}

/// `run --seeds 3`: every seed's full results, and an aggregate that matches them.
TEST(SeedsCli, MultiSeedRunMatchesItsSeeds)
{
    const fs::path s = FreshScratch("seeds-run");
    const fs::path scenario = EcmpScenario(s, "");
    const fs::path out = s / "out";
    const ToolOutcome o
        = RunTool("run '" + scenario.string() + "' --seeds 3 --jobs 2 --out '" + out.string() + "'",
                  s);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(std::regex_search(o.out,
                                  std::regex("ar_duration_s [0-9.]+ us \\(mean of 3 seeds, "
                                             "min [0-9.]+ us, max [0-9.]+ us, 95 % CI "
                                             "\\+-[0-9.]+ [mun]?s\\)")))
        << o.out;
    const std::string json = SlurpFile(out / "seeds.json");
    ASSERT_FALSE(json.empty());
    EXPECT_FALSE(fs::exists(out / "summary.json"));
    std::vector<double> durations;
    for (const char* seed : {"1", "2", "3"})
    {
        const std::string summary = SlurpFile(out / "seeds" / seed / "summary.json");
        EXPECT_NE(summary.find("\"seed\": " + std::string(seed) + ","), std::string::npos);
        durations.push_back(JsonNumberAfter(summary, "\"collectives\"", "duration_s"));
    }
    // ECMP: the seeds hash flows differently, so the all-reduce times differ.
    EXPECT_FALSE(durations[0] == durations[1] && durations[1] == durations[2]);
    const ns3::SampleStatistics expect = ns3::Summarize(durations);
    const std::string ar = "\"name\": \"ar_duration_s\"";
    EXPECT_NEAR(JsonNumberAfter(json, ar, "mean"), expect.mean, 1e-12);
    EXPECT_NEAR(JsonNumberAfter(json, ar, "min"), expect.min, 1e-15);
    EXPECT_NEAR(JsonNumberAfter(json, ar, "max"), expect.max, 1e-15);
    EXPECT_NEAR(JsonNumberAfter(json, ar, "stddev"), expect.stddev, 1e-12);
    EXPECT_NEAR(JsonNumberAfter(json, ar, "ci95_half_width"), expect.ciHalfWidth, 1e-12);
    EXPECT_NE(SlurpFile(out / "report.md").find("| ar_duration_s | 3 |"), std::string::npos);

    // A seed's directory is a plain run with that seed.
    const fs::path single = s / "single";
    ASSERT_EQ(
        RunTool("run '" + scenario.string() + "' --seed 2 --quiet --out '" + single.string() + "'",
                s)
            .status,
        0);
    EXPECT_EQ(SlurpFile(single / "flows.csv"), SlurpFile(out / "seeds" / "2" / "flows.csv"));

    // Determinism: the same seeds (here from the scenario's `seeds:`) give identical files.
    const fs::path listed = EcmpScenario(s, "seeds: [1, 2, 3]\n", "listed.yaml");
    const fs::path again = s / "again";
    ASSERT_EQ(
        RunTool("run '" + listed.string() + "' --quiet --out '" + again.string() + "'", s).status,
        0);
    EXPECT_EQ(SlurpFile(again / "seeds.csv"), SlurpFile(out / "seeds.csv"));
    const std::string againJson = SlurpFile(again / "seeds.json");
    EXPECT_EQ(againJson.substr(againJson.find("\"seeds\"")), json.substr(json.find("\"seeds\"")));

    // A single run into the same directory leaves no aggregate of the seeds behind.
    ASSERT_EQ(
        RunTool("run '" + scenario.string() + "' --quiet --out '" + out.string() + "'", s).status,
        0);
    EXPECT_FALSE(fs::exists(out / "seeds.json"));
    EXPECT_FALSE(fs::exists(out / "seeds"));
    EXPECT_TRUE(fs::exists(out / "summary.json"));
}

/// A sweep over seeds: per-point statistics columns, per-seed rows, the points' aggregates.
TEST(SeedsCli, SweepOverSeeds)
{
    const fs::path s = FreshScratch("seeds-sweep");
    const fs::path base = EcmpScenario(s, "");
    const fs::path sweep = s / "sweep.yaml";
    std::ofstream(sweep) << "base: ecmp.yaml\n"
                            "parameters:\n"
                            "  - key: topology.oversubscription\n"
                            "    values: [\"1:1\", \"3:1\"]\n"
                            "metrics:\n"
                            "  - {name: ar_s, path: \"collectives[0].duration_s\"}\n";
    const ToolOutcome o = RunTool("sweep '" + sweep.string() + "' --seeds 2 --jobs 2 --out '"
                                      + (s / "out").string() + "'",
                                  s);
    ASSERT_EQ(o.status, 0) << o.err;
    const std::string csv = SlurpFile(s / "out" / "sweep-points.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "point,topology.oversubscription,ar_s,ar_s_n,ar_s_min,ar_s_max,ar_s_sd,ar_s_ci95,"
              "seeds,seeds_ok,status,exit_code,wall_s");
    const std::string seeds = SlurpFile(s / "out" / "sweep-seeds.csv");
    EXPECT_EQ(std::count(seeds.begin(), seeds.end(), '\n'), 5) << seeds;
    EXPECT_TRUE(fs::exists(s / "out" / "points" / "001" / "seeds" / "2" / "summary.json"));
    EXPECT_TRUE(fs::exists(s / "out" / "points" / "001" / "seeds.json"));
    EXPECT_NE(SlurpFile(s / "out" / "report.md").find("Every point ran once per seed (2 seeds"),
              std::string::npos);
}

/// Bad input on the command line and in sweep files: exit 2, the flag or file:line:col.
TEST(SeedsCli, BadInputIsRefused)
{
    const fs::path s = FreshScratch("seeds-bad");
    const fs::path scenario = EcmpScenario(s, "");
    const fs::path out = s / "out";
    const std::string run = "run '" + scenario.string() + "' --out '" + out.string() + "' ";
    for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
             {"--seeds 0", "--seeds takes an integer from 1 to 1000, not '0'"},
             {"--seeds 1001", "--seeds takes an integer from 1 to 1000"},
             {"--seeds x", "--seeds takes an integer"},
             {"--seeds", "option --seeds needs a value"},
             {"--jobs 2", "--jobs applies to a run over seeds"},
             {"--seed 4294967295 --seeds 2", "--seeds 2 from seed 4294967295 passes 4294967295"}})
    {
        const ToolOutcome o = RunTool(run + flags, s);
        EXPECT_EQ(o.status, 2) << flags;
        EXPECT_NE(o.err.find(message), std::string::npos) << flags << ": " << o.err;
        EXPECT_FALSE(fs::exists(out)) << flags;
    }
    const fs::path sweep = s / "sweep.yaml";
    const auto sweepError = [&](const std::string& text) {
        std::ofstream(sweep) << text;
        const ToolOutcome o
            = RunTool("sweep '" + sweep.string() + "' --out '" + out.string() + "'", s);
        EXPECT_EQ(o.status, 2) << text;
        EXPECT_FALSE(fs::exists(out)) << text;
        return o.err;
    };
    const std::string params = "parameters:\n  - key: topology.leaves\n    values: [2, 3]\n";
    EXPECT_NE(sweepError("base: ecmp.yaml\n" + params + "seeds: [1, 2, 1]\n")
                  .find(sweep.string()
                        + ":5:15: error: seeds: seed 1 is listed twice (first at "
                          "line 5, column 9)"),
              std::string::npos);
    EXPECT_NE(sweepError("base: ecmp.yaml\n" + params + "seeds: 3\n")
                  .find(sweep.string() + ":5:8: error: seeds: expected a list"),
              std::string::npos);
    EXPECT_NE(sweepError("base: ecmp.yaml\nparameters:\n  - key: seed\n    values: [1, 2]\n"
                         "seeds: [1, 2]\n")
                  .find(sweep.string()
                        + ":3:10: error: parameter 'seed' conflicts with the "
                          "sweep's seeds"),
              std::string::npos);
    const ToolOutcome o = RunTool("sweep '" + sweep.string() + "' --seeds 0", s);
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.err.find("--seeds takes an integer from 1 to 1000, not '0'"), std::string::npos);
}
