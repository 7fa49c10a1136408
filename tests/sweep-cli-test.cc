/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * 'ai-fabric sweep' end to end: the combined CSV against the points' own results and an
 * independent 'ai-fabric run', determinism, bad input (exit 2, file:line, nothing
 * written), and every sweep under examples/sweeps/.
 */
#include "tool-runner.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace aifabrictest;

namespace
{

/// \return the lines of \p text
std::vector<std::string>
Lines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
    {
        lines.push_back(l);
    }
    return lines;
}

/// \return the comma-separated fields of \p line (no quoting in these tests)
std::vector<std::string>
Fields(const std::string& line)
{
    std::vector<std::string> f;
    std::istringstream in(line);
    for (std::string x; std::getline(in, x, ',');)
    {
        f.push_back(x);
    }
    if (!line.empty() && line.back() == ',')
    {
        f.emplace_back();
    }
    return f;
}

/// \return the text of the first `"key": VALUE` in a summary.json
std::string
FirstJsonValue(const std::string& json, const std::string& key)
{
    std::smatch m;
    const std::regex re("\"" + key + "\": ([^,\n]*)");
    return std::regex_search(json, m, re) ? m[1].str() : "<absent>";
}

/// A 2 x 2 sweep over the 4-GPU ring example: GPUs x size.
std::string
TwoByTwo(const fs::path& dir)
{
    const fs::path p = dir / "sweep.yaml";
    std::ofstream(p) << "# a 2 x 2 sweep for the tests\n"
                        "base: "
                     << SourcePath("examples/ring-allreduce-4gpu.yaml")
                     << "\n"
                        "parameters:\n"
                        "  - key: topology.gpus\n"
                        "    values: [4, 8]\n"
                        "  - key: traffic.collectives[0].size\n"
                        "    values: [1MiB, 4MiB]\n";
    return p.string();
}

} // namespace

TEST(SweepCli, TwoByTwoGridMatchesThePointsAndAnIndependentRun)
{
    const fs::path s = FreshScratch("sweep-cli-2x2");
    const std::string sweep = TwoByTwo(s);
    const ToolOutcome o
        = RunTool("sweep '" + sweep + "' --jobs 2 --out '" + (s / "out").string() + "'", s);
    ASSERT_EQ(o.status, 0) << o.err;
    // One progress line per finished point on stderr.
    EXPECT_EQ(std::regex_search(o.err, std::regex("\\[sweep\\] 4/4 point 00[0-3] ok")), true)
        << o.err;
    const std::vector<std::string> rows = Lines(SlurpFile(s / "out" / "sweep-points.csv"));
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[0],
              "point,topology.gpus,traffic.collectives[0].size,bucket-allreduce_duration_s,"
              "bucket-allreduce_busbw_GBps,fct_p99_s,sim_time_s,complete,valid,status,exit_code,"
              "wall_s");
    const std::vector<std::pair<std::string, std::string>> grid
        = {{"4", "1MiB"}, {"4", "4MiB"}, {"8", "1MiB"}, {"8", "4MiB"}};
    std::vector<std::string> busbw;
    for (std::size_t i = 0; i < 4; ++i)
    {
        const std::vector<std::string> f = Fields(rows[i + 1]);
        ASSERT_EQ(f.size(), 12u) << rows[i + 1];
        EXPECT_EQ(f[0], std::to_string(i));
        EXPECT_EQ(f[1], grid[i].first);
        EXPECT_EQ(f[2], grid[i].second);
        const std::string json
            = SlurpFile(s / "out" / "points" / ("00" + std::to_string(i)) / "summary.json");
        EXPECT_EQ(f[3], FirstJsonValue(json, "duration_s")) << i;
        EXPECT_EQ(f[4], FirstJsonValue(json, "busbw_GBps")) << i;
        // flows.fct_s.p99: the first "p99" after the top-level "flows" object opens.
        const std::size_t flows = json.find("\"flows\": {");
        ASSERT_NE(flows, std::string::npos) << json;
        EXPECT_EQ(f[5], FirstJsonValue(json.substr(flows), "p99")) << i;
        EXPECT_EQ(f[6], FirstJsonValue(json, "sim_time_s")) << i;
        EXPECT_EQ(f[7], "true");
        EXPECT_EQ(f[8], "true");
        EXPECT_EQ(f[9], "ok");
        EXPECT_EQ(f[10], "0");
        EXPECT_EQ(FirstJsonValue(json, "gpus"), grid[i].first);
        busbw.push_back(f[4]);
    }
    // More GPUs on the ring: busbw stays near the link rate but is not the same number.
    EXPECT_NE(busbw[1], busbw[3]);

    // Point 3 by hand, as a user would write it: the same busbw.
    const fs::path hand = s / "hand.yaml";
    std::ofstream(hand) << "name: hand\nseed: 1\nstop_time: 1s\n"
                           "topology: {kind: single-switch, gpus: 8, link: {profile: ib-ndr}}\n"
                           "traffic:\n  collectives:\n"
                           "    - {name: x, op: all-reduce, size: 4MiB}\n";
    ASSERT_EQ(
        RunTool("run '" + hand.string() + "' --quiet --out '" + (s / "hand").string() + "'", s)
            .status,
        0);
    EXPECT_EQ(FirstJsonValue(SlurpFile(s / "hand" / "summary.json"), "busbw_GBps"), busbw[3]);

    // The report compares each metric against the first parameter.
    const std::string report = SlurpFile(s / "out" / "report.md");
    EXPECT_NE(report.find("## Against `topology.gpus`"), std::string::npos) << report;
    EXPECT_NE(report.find("`topology.gpus = 8` vs `4`: bucket-allreduce_busbw_GBps x"),
              std::string::npos)
        << report;
    EXPECT_NE(o.out.find("sweep: 4 of 4 points ok"), std::string::npos) << o.out;

    // Determinism: again, one job at a time: the same CSV but for the wall_s column.
    const ToolOutcome again
        = RunTool("sweep '" + sweep + "' --jobs 1 --quiet --out '" + (s / "again").string() + "'",
                  s);
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_TRUE(again.out.empty() && again.err.empty()) << again.out << again.err;
    const std::regex wall(",[0-9.]+\n");
    EXPECT_EQ(std::regex_replace(SlurpFile(s / "out" / "sweep-points.csv"), wall, "\n"),
              std::regex_replace(SlurpFile(s / "again" / "sweep-points.csv"), wall, "\n"));
    EXPECT_EQ(SlurpFile(s / "out" / "points" / "002" / "scenario.yaml"),
              SlurpFile(s / "again" / "points" / "002" / "scenario.yaml"));
}

TEST(SweepCli, BadInputExitsWithStatus2AndWritesNothing)
{
    const fs::path s = FreshScratch("sweep-cli-bad");

    struct Case
    {
        std::string values; // the YAML after "parameters:\n"
        std::string where;  // expected "sweep.yaml:LINE:"
        std::string fragment;
    };

    const std::vector<Case> cases = {
        {"  - key: topology.gpuz.n\n    values: [4]\n",
         "sweep.yaml:3:",
         "key path 'topology.gpuz.n' does not fit the base scenario"},
        {"  - key: topology.gpus\n    values: [4, 0]\n", "sweep.yaml:4:", "point 1"},
        {"  - key: topology.gpus\n    values: [4]\n  - key: traffic.collectives[0].size\n"
         "    values: [1MiB, -1]\n",
         "sweep.yaml:6:",
         "point 1 (topology.gpus = 4, traffic.collectives[0].size = -1)"},
    };
    for (const Case& c : cases)
    {
        std::ofstream(s / "sweep.yaml")
            << "base: " << SourcePath("examples/ring-allreduce-4gpu.yaml") << "\nparameters:\n"
            << c.values;
        const ToolOutcome o = RunTool("sweep '" + (s / "sweep.yaml").string() + "' --out '"
                                          + (s / "out").string() + "'",
                                      s);
        EXPECT_EQ(o.status, 2) << c.values << o.err;
        EXPECT_NE(o.err.find(c.where), std::string::npos) << c.values << o.err;
        EXPECT_NE(o.err.find(c.fragment), std::string::npos) << c.values << o.err;
        EXPECT_FALSE(fs::exists(s / "out")) << c.values;
        EXPECT_TRUE(o.out.empty()) << o.out;
    }
    for (const std::string& args : std::vector<std::string>{"sweep",
                                                            "sweep a.yaml b.yaml",
                                                            "sweep --jobs 0 a.yaml",
                                                            "sweep --jobs x a.yaml",
                                                            "sweep --bogus a.yaml",
                                                            "sweep no/such/sweep.yaml"})
    {
        const ToolOutcome o = RunTool(args, s);
        EXPECT_EQ(o.status, 2) << args;
        EXPECT_NE(o.err.find("error"), std::string::npos) << args << ": " << o.err;
    }
}

/// Every sweep file under examples/sweeps/ runs with 'ai-fabric sweep' (and every other
/// scenario there, a sweep's base, with 'ai-fabric run'); examples/*.yaml are run by
/// Cli.EveryExampleRuns.
TEST(SweepCli, EverySweepExampleRuns)
{
    int sweeps = 0;
    for (const auto& entry : fs::directory_iterator(SourcePath("examples/sweeps")))
    {
        if (entry.path().extension() != ".yaml")
        {
            continue;
        }
        const std::string name = entry.path().stem().string();
        const fs::path s = FreshScratch("sweep-example-" + name);
        const std::string text = SlurpFile(entry.path());
        const bool isSweep = std::regex_search(text, std::regex("(^|\n)base:"));
        const ToolOutcome o
            = RunTool(std::string(isSweep ? "sweep" : "run") + " '" + entry.path().string()
                          + "' --quiet --out '" + (s / "out").string() + "'",
                      s);
        ASSERT_EQ(o.status, 0) << name << ": " << o.err;
        if (!isSweep)
        {
            EXPECT_TRUE(fs::exists(s / "out" / "summary.json")) << name;
            continue;
        }
        ++sweeps;
        const std::vector<std::string> rows = Lines(SlurpFile(s / "out" / "sweep-points.csv"));
        ASSERT_GE(rows.size(), 3u) << name;
        for (std::size_t i = 1; i < rows.size(); ++i)
        {
            EXPECT_NE(rows[i].find(",ok,0,"), std::string::npos) << name << ": " << rows[i];
        }
        EXPECT_TRUE(fs::exists(s / "out" / "report.md")) << name;
        EXPECT_TRUE(fs::exists(s / "out" / "sweep.json")) << name;
    }
    EXPECT_GE(sweeps, 1);
}

/// SIGTERM to a running sweep: the running point gets it, no more start, and the CSV and
/// report are written with the points that did not run marked not-run; exit status 3.
TEST(SweepCli, SigtermWritesWhatRan)
{
    const fs::path s = FreshScratch("sweep-cli-sigterm");
    std::ofstream(s / "sweep.yaml") << "base: " << SourcePath("examples/ring-allreduce-4gpu.yaml")
                                    << "\nparameters:\n"
                                       "  - key: traffic.collectives[0].size\n"
                                       "    values: [1MiB, 2MiB, 3MiB, 4MiB, 5MiB, 6MiB, 7MiB, "
                                       "8MiB]\n";
    const fs::path out = s / "out";
    // Start it, wait until the second point has started, then SIGTERM the sweep alone.
    std::ofstream(s / "kill.sh") << "'" << AI_FABRIC_BINARY << "' sweep '"
                                 << (s / "sweep.yaml").string() << "' --jobs 1 --quiet --out '"
                                 << out.string() << "' &\npid=$!\nfor i in $(seq 600); do\n"
                                 << "  [ -e '" << (out / "points" / "001" / "run.log").string()
                                 << "' ] && break\n  sleep 0.05\ndone\n"
                                 << "kill -TERM $pid\nwait $pid\n";
    const ToolOutcome o = RunCommand("sh '" + (s / "kill.sh").string() + "'", s);
    EXPECT_EQ(o.status, 3) << o.err;
    EXPECT_NE(o.err.find("sweep interrupted by signal 15"), std::string::npos) << o.err;
    const std::vector<std::string> rows = Lines(SlurpFile(out / "sweep-points.csv"));
    ASSERT_EQ(rows.size(), 9u);
    EXPECT_NE(rows[1].find(",ok,0,"), std::string::npos) << rows[1];
    EXPECT_NE(rows[8].find(",not-run,-1,"), std::string::npos) << rows[8];
    EXPECT_TRUE(fs::exists(out / "report.md"));
}
