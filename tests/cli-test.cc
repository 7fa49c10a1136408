/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The ai-fabric tool end to end, as a user runs it: exit statuses, messages,
 * files written (or not), and determinism across runs.
 */
#include "tool-runner.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace fs = std::filesystem;

namespace
{

/// What one run of the tool did (tests/tool-runner.h).
using Outcome = aifabrictest::ToolOutcome;

/// \param p a file \return its content ("" if it cannot be read)
std::string
Slurp(const fs::path& p)
{
    return aifabrictest::SlurpFile(p);
}

/// \param name the test's name \return a fresh, empty scratch directory
fs::path
Scratch(const std::string& name)
{
    return aifabrictest::FreshScratch("cli-test-" + name);
}

/// Run the tool with \p args (already shell-quoted), capturing stdout and stderr in \p scratch.
Outcome
Tool(const std::string& args, const fs::path& scratch)
{
    return aifabrictest::RunTool(args, scratch);
}

/// \param rel a path relative to the repository root \return the absolute path
std::string
Src(const std::string& rel)
{
    return aifabrictest::SourcePath(rel);
}

} // namespace

TEST(Cli, HelpAndVersion)
{
    const fs::path s = Scratch("help");
    Outcome o = Tool("--help", s);
    EXPECT_EQ(o.status, 0);
    EXPECT_NE(o.out.find("ai-fabric run SCENARIO.yaml"), std::string::npos);
    o = Tool("--version", s);
    EXPECT_EQ(o.status, 0);
    EXPECT_NE(o.out.find("ai-fabric "), std::string::npos);
}

TEST(Cli, UsageErrorsExitWithStatus2)
{
    const fs::path s = Scratch("usage");
    const std::string example = Src("examples/ring-allreduce-4gpu.yaml");
    for (const std::string& args : std::vector<std::string>{"",
                                                            "frobnicate",
                                                            "run",
                                                            "run a.yaml b.yaml",
                                                            "run --bogus x.yaml",
                                                            "run --out",
                                                            "run " + example + " --seed 0",
                                                            "run " + example + " --seed x"})
    {
        const Outcome o = Tool(args, s);
        EXPECT_EQ(o.status, 2) << args;
        EXPECT_NE(o.err.find("error"), std::string::npos) << args << ": " << o.err;
    }
}

TEST(Cli, MissingScenarioFileIsNamed)
{
    const fs::path s = Scratch("missing");
    const Outcome o = Tool("run no/such/scenario.yaml --out '" + (s / "out").string() + "'", s);
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.err.find("no/such/scenario.yaml"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(s / "out"));
}

/// Every case of the bad-input corpus: exit 2, the expected message and
/// location on stderr, and no results directory.
TEST(Cli, BadInputCorpus)
{
    const fs::path corpus = Src("tests/bad-inputs");
    int cases = 0;
    for (const auto& entry : fs::directory_iterator(corpus))
    {
        if (!entry.is_directory())
        {
            continue;
        }
        ++cases;
        const std::string name = entry.path().filename().string();
        std::istringstream expect(Slurp(entry.path() / "expect"));
        std::string fragment;
        std::string lineCol;
        std::string file;
        std::getline(expect, fragment);
        std::getline(expect, lineCol);
        std::getline(expect, file);
        const fs::path s = Scratch("bad-" + name);
        const fs::path outDir = s / "out";
        const Outcome o = Tool("run '" + (entry.path() / "scenario.yaml").string() + "' --out '"
                                   + outDir.string() + "' --quiet",
                               s);
        EXPECT_EQ(o.status, 2) << name << ": " << o.err;
        EXPECT_NE(o.err.find(fragment), std::string::npos)
            << name << ": expected '" << fragment << "' in: " << o.err;
        if (!lineCol.empty() && lineCol != "-" && !file.empty())
        {
            const std::string where = file + ":" + lineCol + ":";
            EXPECT_NE(o.err.find(where), std::string::npos)
                << name << ": expected location '" << where << "' in: " << o.err;
        }
        EXPECT_FALSE(fs::exists(outDir)) << name << ": results written for bad input";
        EXPECT_TRUE(o.out.empty()) << name << ": " << o.out;
    }
    EXPECT_GE(cases, 20);
}

/// Every scenario under examples/ runs to completion and writes its results.
TEST(Cli, EveryExampleRuns)
{
    int examples = 0;
    for (const auto& entry : fs::directory_iterator(Src("examples")))
    {
        if (entry.path().extension() != ".yaml")
        {
            continue;
        }
        ++examples;
        const std::string name = entry.path().stem().string();
        const fs::path s = Scratch("example-" + name);
        const Outcome o
            = Tool("run '" + entry.path().string() + "' --out '" + (s / "out").string() + "'", s);
        ASSERT_EQ(o.status, 0) << name << ": " << o.err;
        const std::string summary = Slurp(s / "out" / "summary.json");
        const bool training = summary.find("\"training\": {") != std::string::npos;
        // Every run ends in a one-line answer: a collective's or a training step's.
        EXPECT_NE(o.out.find(training ? "answer: step time" : "simulated"), std::string::npos)
            << o.out;
        std::vector<const char*> keys{"\"scenario\"",
                                      "\"seed\"",
                                      "\"sim_time_s\"",
                                      "\"wall_time_s\"",
                                      "\"events\"",
                                      "\"collectives\"",
                                      "\"flows\""};
        const std::vector<const char*> more
            = training ? std::vector<const char*>{"\"step_s\"",
                                                  "\"compute_share\"",
                                                  "\"bubble_share\"",
                                                  "\"exposed_comm_share\""}
                       : std::vector<const char*>{"\"algbw_GBps\"",
                                                  "\"busbw_GBps\"",
                                                  "\"analytic_s\"",
                                                  "\"p99\""};
        keys.insert(keys.end(), more.begin(), more.end());
        for (const char* key : keys)
        {
            EXPECT_NE(summary.find(key), std::string::npos) << name << " lacks " << key;
        }
        if (training)
        {
            EXPECT_EQ(Slurp(s / "out" / "trace.json").rfind("{\"traceEvents\":[", 0), 0u);
            EXPECT_FALSE(Slurp(s / "out" / "ranks.csv").empty());
        }
        const std::string ports = Slurp(s / "out" / "ports.csv");
        EXPECT_EQ(ports.rfind("node,peer,tier,technology,tx_packets", 0), 0u)
            << ports.substr(0, 80);
        const std::string flows = Slurp(s / "out" / "flows.csv");
        EXPECT_EQ(flows.rfind("flow_id,", 0), 0u) << flows.substr(0, 80);
        EXPECT_FALSE(fs::exists(s / "out" / "summary.json.tmp"));
    }
    EXPECT_GE(examples, 1);
}

/// Two runs of one scenario: identical summary.json apart from wall_time_s, identical flows.csv.
TEST(Cli, SameScenarioTwiceGivesIdenticalResults)
{
    const fs::path s = Scratch("determinism");
    const std::string scenario = Src("examples/ring-allreduce-4gpu.yaml");
    ASSERT_EQ(Tool("run '" + scenario + "' --quiet --out '" + (s / "a").string() + "'", s).status,
              0);
    ASSERT_EQ(Tool("run '" + scenario + "' --quiet --out '" + (s / "b").string() + "'", s).status,
              0);
    const std::regex wall("\"wall_time_s\": [^,\n]*");
    EXPECT_EQ(std::regex_replace(Slurp(s / "a" / "summary.json"), wall, ""),
              std::regex_replace(Slurp(s / "b" / "summary.json"), wall, ""));
    EXPECT_EQ(Slurp(s / "a" / "flows.csv"), Slurp(s / "b" / "flows.csv"));
}

TEST(Cli, QuietPrintsNothingOnSuccess)
{
    const fs::path s = Scratch("quiet");
    const Outcome o = Tool("run '" + Src("examples/ring-allreduce-4gpu.yaml") + "' --quiet --out '"
                               + (s / "out").string() + "'",
                           s);
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_TRUE(o.err.empty()) << o.err;
    EXPECT_TRUE(fs::exists(s / "out" / "summary.json"));
}

TEST(Cli, EverySchedulerGivesIdenticalResults)
{
    // Events run in (time, insertion) order with every ns-3 scheduler: the choice
    // (--scheduler, or the scenario's 'scheduler') changes the speed, never the results.
    // The RoCE incast mixes PFC, ECN marks drawn at random, CNPs and DCQCN timers.
    const fs::path s = Scratch("schedulers");
    const std::string scenario = Src("examples/roce-incast-dcqcn.yaml");
    const std::regex wall("\"wall_time_s\": [^,\n]*");
    std::string reference;
    std::string referenceFlows;
    for (const std::string name :
         {"priority-queue", "map", "heap", "list", "calendar", "quad-heap", "lane-heap"})
    {
        const fs::path out = s / name;
        const Outcome o = Tool("run '" + scenario + "' --quiet --scheduler " + name + " --out '"
                                   + out.string() + "'",
                               s);
        ASSERT_EQ(o.status, 0) << name << ": " << o.err;
        const std::string summary = std::regex_replace(Slurp(out / "summary.json"), wall, "");
        if (reference.empty())
        {
            reference = summary;
            referenceFlows = Slurp(out / "flows.csv");
            continue;
        }
        EXPECT_EQ(summary, reference) << name;
        EXPECT_EQ(Slurp(out / "flows.csv"), referenceFlows) << name;
    }

    // The scenario key: the same results again.
    {
        std::ofstream yaml(s / "scenario.yaml");
        yaml << "name: roce-incast-dcqcn\nseed: 1\nstop_time: 100ms\nscheduler: quad-heap\n"
             << "topology: '" << Src("topologies/single-switch-16-roce400.yaml") << "'\n"
             << "traffic: '" << Src("traffic/incast-8to1-sendrecv.yaml") << "'\n";
    }
    const Outcome o = Tool("run '" + (s / "scenario.yaml").string() + "' --quiet --out '"
                               + (s / "yaml").string() + "'",
                           s);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(Slurp(s / "yaml" / "flows.csv"), referenceFlows);

    // A name that is not a scheduler is a usage error.
    const Outcome bad = Tool("run '" + scenario + "' --scheduler fifo", s);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--scheduler takes"), std::string::npos) << bad.err;
}
