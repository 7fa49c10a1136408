/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * scripts/plot-results and '--plots': the PNGs exist, are PNGs, are not empty and have the
 * script's fixed pixel size. matplotlib (Debian python3-matplotlib, installed by
 * scripts/setup) is required when the CI environment variable is set: the tests fail
 * without it there, and are skipped with a message elsewhere.
 */
#include "tool-runner.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace aifabrictest;

namespace
{

/// The size of every figure of scripts/plot-results (FIG_W x FIG_H inches at DPI).
constexpr uint32_t PNG_WIDTH = 1200;
constexpr uint32_t PNG_HEIGHT = 750;

/// \return true if python3 (on PATH, or Debian's /usr/bin/python3) can import matplotlib
bool
HaveMatplotlib()
{
    return std::system("python3 -c 'import matplotlib' >/dev/null 2>&1") == 0
           || std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

/// Skip (or fail under CI) when matplotlib is missing.
#define REQUIRE_MATPLOTLIB()                                                                     \
    do                                                                                           \
    {                                                                                            \
        if (!HaveMatplotlib())                                                                   \
        {                                                                                        \
            if (std::getenv("CI"))                                                               \
            {                                                                                    \
                FAIL() << "matplotlib is missing but CI is set: scripts/setup installs "         \
                          "python3-matplotlib, which the plot tests require";                    \
            }                                                                                    \
            GTEST_SKIP() << "matplotlib is not installed (apt-get install python3-matplotlib); " \
                            "plot tests skipped";                                                \
        }                                                                                        \
    } while (false)

/// Check \p path is a PNG of the plot size with some content.
void
ExpectPlot(const fs::path& path)
{
    SCOPED_TRACE(path.string());
    ASSERT_TRUE(fs::exists(path));
    const std::string png = SlurpFile(path);
    ASSERT_GT(png.size(), 5000u); // a drawn figure, not an empty canvas
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(png.substr(12, 4), "IHDR");
    const auto be32 = [&](std::size_t at) {
        return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16)
               | (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
    };
    EXPECT_EQ(be32(16), PNG_WIDTH);
    EXPECT_EQ(be32(20), PNG_HEIGHT);
    EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
}

/// Run scripts/plot-results with \p args.
ToolOutcome
PlotScript(const std::string& args, const fs::path& scratch)
{
    return RunCommand("python3 '" + SourcePath("scripts/plot-results") + "' " + args, scratch);
}

} // namespace

TEST(Plots, RunWithPlotsDrawsBesideTheResults)
{
    REQUIRE_MATPLOTLIB();
    const fs::path s = FreshScratch("plots-run");
    const fs::path out = s / "out";
    const ToolOutcome o = RunTool("run '" + SourcePath("examples/ring-allreduce-4gpu.yaml")
                                      + "' --plots --out '" + out.string() + "'",
                                  s);
    ASSERT_EQ(o.status, 0) << o.err;
    ExpectPlot(out / "plots" / "fct-cdf.png");
    ExpectPlot(out / "plots" / "timeline.png");
    EXPECT_NE(o.out.find("plot: " + (out / "plots" / "fct-cdf.png").string()), std::string::npos)
        << o.out;
    // Inputs this run does not write are skipped with a note, not an error.
    EXPECT_NE(o.out.find("skipped busbw-vs-size.png (no sweep.csv)"), std::string::npos) << o.out;
}

TEST(Plots, MissingScriptIsAnErrorWithItsOwnStatus)
{
    const fs::path s = FreshScratch("plots-missing");
    const ToolOutcome o
        = RunCommand("AI_FABRIC_PLOT_SCRIPT=/no/such/plot-results '" + std::string(AI_FABRIC_BINARY)
                         + "' run '" + SourcePath("examples/ring-allreduce-4gpu.yaml")
                         + "' --quiet --plots --out '" + (s / "out").string() + "'",
                     s);
    EXPECT_EQ(o.status, 4) << o.err;
    EXPECT_NE(o.err.find("/no/such/plot-results"), std::string::npos) << o.err;
    EXPECT_TRUE(fs::exists(s / "out" / "summary.json")); // the results are written
}

/// The time-series plots from a synthetic timeseries.csv with exactly the columns the
/// metrics writer produces (time_ns,port_id,tier_class,utilization,queue_bytes, ...), and
/// the slowdown CDF from a flows.csv with the slowdown column.
TEST(Plots, TimeSeriesHeatmapQueuesAndSlowdown)
{
    REQUIRE_MATPLOTLIB();
    const fs::path s = FreshScratch("plots-series");
    const fs::path dir = s / "results";
    fs::create_directories(dir);
    {
        std::ofstream ts(dir / "timeseries.csv");
        ts << "time_ns,port_id,tier_class,utilization,queue_bytes,extra\n";
        const char* tiers[] = {"gpu-switch1", "switch1-switch2", "switch2-switch1"};
        for (int bin = 0; bin < 40; ++bin)
        {
            for (int port = 0; port < 12; ++port)
            {
                const double util = ((bin * 7 + port * 13) % 100) / 100.0;
                const int queue = (port % 5) * 1000 * ((bin + port) % 9);
                ts << bin * 1000 << ',' << port << ',' << tiers[port % 3] << ',' << util << ','
                   << queue << ",x\n";
            }
        }
        std::ofstream ports(dir / "ports.csv");
        ports << "node,peer,tier,technology,tx_packets,port_id,tier_class\n";
        for (int port = 0; port < 12; ++port)
        {
            ports << "sw" << port << ",gpu" << port << ",x,infiniband,0," << port << ",x\n";
        }
        std::ofstream flows(dir / "flows.csv");
        flows << "flow_id,collective,step,src,dst,bytes,start_ns,end_ns,fct_ns,ideal_ns,slowdown\n";
        for (int f = 0; f < 50; ++f)
        {
            const double fct = 1000.0 + 37.0 * f;
            flows << f << ",c,0,0,1,4096," << 0 << ".000," << fct << ".000," << fct
                  << ".000,1000.000," << fct / 1000.0 << "\n";
        }
    }
    const ToolOutcome o = PlotScript("'" + dir.string() + "'", s);
    ASSERT_EQ(o.status, 0) << o.err << o.out;
    ExpectPlot(dir / "plots" / "utilization-heatmap.png");
    ExpectPlot(dir / "plots" / "queue-depth.png");
    ExpectPlot(dir / "plots" / "fct-cdf.png");
    EXPECT_NE(o.out.find("skipped timeline.png (no trace.json)"), std::string::npos) << o.out;

    // A timeseries.csv without the expected columns is an error naming the column.
    std::ofstream(dir / "timeseries.csv") << "time_ns,port,util\n0,0,0.5\n";
    const ToolOutcome bad = PlotScript("'" + dir.string() + "' --quiet", s);
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("no column 'port_id'"), std::string::npos) << bad.err;
}

/// The busbw-vs-size form (used by validation/) on a real sweep.csv.
TEST(Plots, BusbwAgainstSizeFromASweepCsv)
{
    REQUIRE_MATPLOTLIB();
    const fs::path s = FreshScratch("plots-busbw");
    std::ofstream(s / "sweep-scenario.yaml")
        << "name: small-sweep\nseed: 1\nstop_time: 1s\n"
           "topology: {kind: single-switch, gpus: 4, link: {profile: ib-ndr}}\n"
           "traffic:\n  collectives:\n"
           "    - {name: s, op: all-reduce, sweep: {min: 64KiB, max: 1MiB, factor: 4}}\n";
    ASSERT_EQ(RunTool("run '" + (s / "sweep-scenario.yaml").string() + "' --quiet --out '"
                          + (s / "out").string() + "'",
                      s)
                  .status,
              0);
    const fs::path png = s / "busbw.png";
    const ToolOutcome o = PlotScript("--busbw '" + (s / "out" / "sweep.csv").string() + "' --out '"
                                         + png.string() + "' --title 'ring all-reduce'",
                                     s);
    ASSERT_EQ(o.status, 0) << o.err;
    ExpectPlot(png);
    // Usage errors: status 2.
    EXPECT_EQ(PlotScript("--busbw '" + (s / "out" / "sweep.csv").string() + "'", s).status, 2);
    EXPECT_EQ(PlotScript("'" + (s / "nothing-here").string() + "'", s).status, 2);
}

/// 'ai-fabric sweep --plots': a plot per metric against the first parameter.
TEST(Plots, SweepPlotsEachMetric)
{
    REQUIRE_MATPLOTLIB();
    const fs::path s = FreshScratch("plots-sweep");
    std::ofstream(s / "sweep.yaml") << "base: " << SourcePath("examples/ring-allreduce-4gpu.yaml")
                                    << "\nparameters:\n"
                                       "  - {key: topology.gpus, values: [4, 6]}\n"
                                       "  - {key: \"traffic.collectives[0].size\", "
                                       "values: [1MiB, 2MiB]}\n"
                                       "metrics:\n"
                                       "  - {name: busbw, path: \"collectives[0].busbw_GBps\"}\n"
                                       "  - {name: complete, path: complete}\n";
    const ToolOutcome o = RunTool("sweep '" + (s / "sweep.yaml").string()
                                      + "' --quiet --plots --out '" + (s / "out").string() + "'",
                                  s);
    ASSERT_EQ(o.status, 0) << o.err;
    ExpectPlot(s / "out" / "plots" / "sweep-busbw.png");
    EXPECT_FALSE(fs::exists(s / "out" / "plots" / "sweep-complete.png")); // not a number
    EXPECT_NE(SlurpFile(s / "out" / "report.md").find("![sweep-busbw.png](plots/sweep-busbw.png)"),
              std::string::npos);
}

namespace
{

/// Run Python code on scripts/plot-results loaded as the module `pr` (its functions, not its
/// command line), with \p arg as sys.argv[2]; \return its output
ToolOutcome
PlotModule(const std::string& code, const fs::path& scratch, const std::string& arg = "")
{
    const fs::path py = scratch / "probe.py";
    std::ofstream(py) << "import importlib.machinery, importlib.util, sys\n"
                         "loader = importlib.machinery.SourceFileLoader('pr', sys.argv[1])\n"
                         "pr = importlib.util.module_from_spec(\n"
                         "    importlib.util.spec_from_loader('pr', loader))\n"
                         "loader.exec_module(pr)\n"
                      << code << "\n";
    return RunCommand("python3 '" + py.string() + "' '" + SourcePath("scripts/plot-results") + "' '"
                          + arg + "'",
                      scratch);
}

} // namespace

/// A DCQCN run with --plots draws the rate plot; the queue-depth plot's peak labels are
/// ports.csv's peak_queue_bytes (the in-bin peaks of timeseries.csv, not the end-of-bin
/// queues).
TEST(Plots, DcqcnRatesAndQueuePeaksAgreeWithPortsCsv)
{
    REQUIRE_MATPLOTLIB();
    const fs::path s = FreshScratch("plots-dcqcn");
    const fs::path out = s / "out";
    const ToolOutcome o = RunTool("run '" + SourcePath("examples/roce-incast-dcqcn.yaml")
                                      + "' --plots --out '" + out.string() + "'",
                                  s);
    ASSERT_EQ(o.status, 0) << o.err;
    ExpectPlot(out / "plots" / "dcqcn-rates.png");
    ExpectPlot(out / "plots" / "queue-depth.png");

    // ports.csv: port_id -> peak_queue_bytes
    std::map<std::string, uint64_t> peak;
    {
        std::istringstream in(SlurpFile(out / "ports.csv"));
        std::string line;
        std::getline(in, line);
        std::vector<std::string> header;
        std::stringstream hs(line);
        for (std::string f; std::getline(hs, f, ',');)
        {
            header.push_back(f);
        }
        while (std::getline(in, line))
        {
            std::map<std::string, std::string> row;
            std::stringstream ls(line);
            std::size_t i = 0;
            for (std::string f; std::getline(ls, f, ',') && i < header.size(); ++i)
            {
                row[header[i]] = f;
            }
            peak[row["port_id"]] = std::stoull(row["peak_queue_bytes"]);
        }
    }
    const ToolOutcome q = PlotModule(
        "for port, label in pr.queue_lines(sys.argv[2])[2]:\n    print(port + '|' + label)",
        s,
        (out / "timeseries.csv").string());
    ASSERT_EQ(q.status, 0) << q.err;
    std::istringstream lines(q.out);
    std::string line;
    int checked = 0;
    while (std::getline(lines, line))
    {
        const std::string port = line.substr(0, line.find('|'));
        ASSERT_TRUE(peak.count(port)) << line;
        char expected[64];
        std::snprintf(expected, sizeof expected, "peak %.1f KiB", peak[port] / 1024.0);
        EXPECT_NE(line.find(expected), std::string::npos) << line << " vs ports.csv " << expected;
        ++checked;
    }
    EXPECT_EQ(checked, 8) << q.out; // the 8 ports with the highest peak
    // The hottest is the switch's port to GPU 0, at the peak the run reports.
    EXPECT_NE(q.out.find("switch0->gpu0"), std::string::npos) << q.out;
}

/// A run without congestion control has no rate columns: the rate plot is skipped with a
/// note. Sweep plots show seconds in a unit chosen from the data.
TEST(Plots, RatePlotSkippedWithoutCongestionControlAndSweepTimeUnits)
{
    REQUIRE_MATPLOTLIB();
    const fs::path s = FreshScratch("plots-units");
    const fs::path out = s / "out";
    const ToolOutcome o = RunTool("run '" + SourcePath("examples/ring-allreduce-4gpu.yaml")
                                      + "' --plots --out '" + out.string() + "'",
                                  s);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_FALSE(fs::exists(out / "plots" / "dcqcn-rates.png"));
    EXPECT_NE(o.out.find("skipped dcqcn-rates.png (no congestion control"), std::string::npos)
        << o.out;
    const ToolOutcome u = PlotModule(
        "print(pr.time_scale([0.0003471, 0.0001]), pr.time_scale([0.0243]), "
        "pr.time_scale([2.5]), pr.time_scale([4e-8]))\n"
        "print(pr.metric_unit({'name': 'allreduce_s', 'path': 'x'}), "
        "pr.metric_unit({'name': 'busbw', 'path': 'collectives[0].busbw_GBps'}), "
        "pr.metric_unit({'name': 'ratio', 'path': 'collectives[0].sim_over_analytic'}))",
        s);
    ASSERT_EQ(u.status, 0) << u.err;
    EXPECT_EQ(u.out,
              "(1000000.0, 'us') (1000.0, 'ms') (1.0, 's') (1000000000.0, 'ns')\n"
              "s GB/s None\n");
}
