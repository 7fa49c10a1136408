/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The tool's metric outputs: the report and the CSV files of a run are deterministic and
 * follow their contract; the sample interval from the command line and the scenario file.
 * The metrics themselves (ideal FCT and slowdown, tail percentiles, the straggler figure,
 * per-port counters, tier classes, the time series) are the ns-3 TestSuites ai-fabric-stats
 * and ai-fabric-analysis (contrib/ai-fabric/test/).
 */
#include "config/scenario-spec.h"
#include "config/yaml-scenario-reader.h"
#include "output/report-writer.h"
#include "output/results-writer.h"
#include "run/scenario-runner.h"
#include "tool-runner.h"

#include "ns3/link-profile.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>

using namespace ns3;

namespace
{

/// One message of `bytes` from GPU `src` to GPU `dst`, alone on the fabric.
ScenarioSpec
OneMessage(const TopologySpec& topo, uint32_t src, uint32_t dst, uint64_t bytes)
{
    ScenarioSpec s;
    s.where.file = "<test>";
    s.name = "one-message";
    s.seed = 1;
    s.stopTime = Seconds(1);
    s.topology = topo;
    s.topology.where.file = "<test>";
    s.traffic.name = "one";
    CollectiveSpec c;
    c.name = "msg";
    c.op = ns3::CollectiveOp::SEND_RECV;
    c.algorithm = "direct";
    c.ranks = {src, dst};
    c.transferSrc = {0};
    c.transferDst = {1};
    c.transferBytes = {bytes};
    c.bytes = bytes;
    c.start = Seconds(0);
    s.traffic.collectives.push_back(c);
    return s;
}

TopologySpec
SingleSwitch(const std::string& profile, uint32_t gpus)
{
    TopologySpec t;
    t.name = "single-switch";
    t.SetKind("single-switch");
    t.gpus = gpus;
    t.link = *FindLinkProfile(profile);
    return t;
}

/// 4-to-1 incast of 1 MiB per sender on one roce-400g switch (ECN marks, a deep queue).
ScenarioSpec
Incast(Time interval)
{
    ScenarioSpec s = OneMessage(SingleSwitch("roce-400g", 5), 1, 0, 1 << 20);
    CollectiveSpec& c = s.traffic.collectives[0];
    c.ranks = {0, 1, 2, 3, 4};
    c.transferSrc = {1, 2, 3, 4};
    c.transferDst = {0, 0, 0, 0};
    c.transferBytes = {1 << 20, 1 << 20, 1 << 20, 1 << 20};
    c.bytes = 4 << 20;
    s.sampleInterval = interval;
    return s;
}

} // namespace

TEST(Report, OutputsAreDeterministicAndFollowTheContract)
{
    auto texts = []() {
        const RunResults r = RunScenario(Incast(Time(0)), RunOptions{});
        std::ostringstream ts;
        std::ostringstream cs;
        std::ostringstream md;
        std::ostringstream ps;
        WriteTimeSeriesCsv(r, ts);
        WriteCollectivesCsv(r, cs);
        WriteReportMarkdown(r, md);
        WritePortsCsv(r, ps);
        return std::vector<std::string>{ts.str(), cs.str(), md.str(), ps.str()};
    };
    const std::vector<std::string> a = texts();
    EXPECT_EQ(a, texts());
    EXPECT_EQ(a[0].rfind("time_ns,port_id,tier_class,utilization,queue_bytes,", 0), 0u);
    EXPECT_EQ(a[1].rfind("name,op,algorithm,ranks,bytes,start_ns,end_ns,duration_ns,algbw_GBps,"
                         "busbw_GBps,analytic_ns,sim_over_analytic,rank_finish_p50_ns,",
                         0),
              0u);
    EXPECT_NE(a[3].find(",port_id,tier_class,ecn_marks,p99_queue_bytes\n"), std::string::npos);
    for (const char* heading : {"# ai-fabric report: one-message",
                                "## Collectives",
                                "## Tails",
                                "## Links by tier class",
                                "## Hottest ports",
                                "## Flow control and loss"})
    {
        EXPECT_NE(a[2].find(heading), std::string::npos) << heading;
    }
    EXPECT_EQ(a[2].find("## Bisection achieved"), std::string::npos); // no all-to-all
    EXPECT_EQ(a[2].find("## Training"), std::string::npos);
}

namespace
{

namespace fs = std::filesystem;

/// Run the CLI with \p args (shell-quoted); \return its exit status
int
Tool(const std::string& args, const fs::path& scratch)
{
    return aifabrictest::RunTool(args, scratch).status;
}

/// \return a fresh scratch directory for test \p name
fs::path
Scratch(const std::string& name)
{
    return aifabrictest::FreshScratch("metrics-test-" + name);
}

} // namespace

TEST(SampleInterval, CliWritesTheNewFilesWithTheGivenBins)
{
    const fs::path s = Scratch("cli");
    const std::string example
        = std::string(AI_FABRIC_SOURCE_DIR) + "/examples/ring-allreduce-4gpu.yaml";
    ASSERT_EQ(Tool("run '" + example + "' --sample-interval 2us --quiet --out '"
                       + (s / "out").string() + "'",
                   s),
              0)
        << aifabrictest::SlurpFile(s / "stderr.txt");
    const std::string summary = aifabrictest::SlurpFile(s / "out" / "summary.json");
    EXPECT_NE(summary.find("\"interval_s\": 2e-06,\n    \"automatic\": false"), std::string::npos);
    EXPECT_NE(summary.find("\"schema_version\": 5,"), std::string::npos);
    EXPECT_FALSE(aifabrictest::SlurpFile(s / "out" / "collectives.csv").empty());
    EXPECT_EQ(aifabrictest::SlurpFile(s / "out" / "report.md").rfind("# ai-fabric report: ", 0),
              0u);
    std::istringstream ts(aifabrictest::SlurpFile(s / "out" / "timeseries.csv"));
    std::string line;
    std::getline(ts, line);
    EXPECT_EQ(line, "time_ns,port_id,tier_class,utilization,queue_bytes,bin_ns,queue_max_bytes");
    int rows = 0;
    while (std::getline(ts, line))
    {
        const double t = std::stod(line.substr(0, line.find(',')));
        EXPECT_EQ(std::fmod(t, 2000.0), 0.0) << line;
        ++rows;
    }
    EXPECT_GT(rows, 0);

    for (const char* bad : {"--sample-interval 0us", "--sample-interval fast", "--sample-interval"})
    {
        const fs::path out = s / "bad";
        EXPECT_EQ(Tool("run '" + example + "' --out '" + out.string() + "' " + bad, s), 2) << bad;
        EXPECT_FALSE(fs::exists(out)) << bad;
    }
}

TEST(SampleInterval, ScenarioKeyIsReadAsADurationOrAuto)
{
    const fs::path s = Scratch("yaml");
    for (const auto& [text, ps] : std::vector<std::pair<std::string, int64_t>>{{"3us", 3000000},
                                                                               {"auto", 0},
                                                                               {"250ns", 250000}})
    {
        const fs::path p = s / "scenario.yaml";
        std::ofstream(p) << "results:\n  sample_interval: " << text
                         << "\ntopology:\n  kind: single-switch\n  gpus: 4\n  link:\n    "
                            "profile: ib-ndr\ntraffic:\n  collectives:\n    - op: all-reduce\n"
                            "      size: 1MiB\n";
        EXPECT_EQ(ReadScenarioFile(p.string()).sampleInterval.GetPicoSeconds(), ps) << text;
    }
}
