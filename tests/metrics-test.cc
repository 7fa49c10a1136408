/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Metrics of a run: ideal FCT and slowdown, tail percentiles and the straggler
 * figure, per-port counters and tier classes, the time series, the report.
 */
#include "config/scenario-spec.h"
#include "config/yaml-scenario-reader.h"
#include "output/report-writer.h"
#include "output/results-writer.h"
#include "run/scenario-runner.h"
#include "test-fabrics.h"
#include "tool-runner.h"

#include "ns3/analytic-model.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-stats.h"
#include "ns3/link-profile.h"
#include "ns3/port-metrics.h"

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

TopologySpec
LeafSpine(const std::string& profile)
{
    TopologySpec t;
    t.name = "leaf-spine";
    t.SetKind("leaf-spine");
    t.As<LeafSpineSpec>().leaves = 2;
    t.As<LeafSpineSpec>().gpusPerLeaf = 2;
    t.As<LeafSpineSpec>().spines = 2;
    t.link = *FindLinkProfile(profile);
    return t;
}

TopologySpec
NvlinkDomain()
{
    TopologySpec t;
    t.name = "nvlink";
    t.SetKind("nvlink-domain");
    t.gpus = 8;
    t.gpusPerServer = 8;
    t.nvlinkSwitches = 1;
    t.nvlinkProfile = *FindLinkProfile("nvlink4");
    t.link = *FindLinkProfile("ib-ndr");
    return t;
}

} // namespace

TEST(IdealFct, IsolatedMessageTakesItsIdealTimeOnIbRoceAndNvlinkPaths)
{
    struct Case
    {
        std::string what;
        TopologySpec topo;
        uint32_t dst;
    };

    TopologySpec host = SingleSwitch("ib-ndr", 2);
    host.hostLink = *FindLinkProfile("pcie-gen5");
    const std::vector<Case> cases = {
        {"ib-ndr single switch", SingleSwitch("ib-ndr", 2), 1},
        {"ib-ndr with PCIe host links", host, 1},
        {"roce-400g leaf-spine, across the spine", LeafSpine("roce-400g"), 3},
        {"ib-ndr leaf-spine, across the spine", LeafSpine("ib-ndr"), 3},
        {"nvlink4 domain", NvlinkDomain(), 5},
    };
    for (const Case& c : cases)
    {
        for (const uint64_t bytes : {100ull, 4096ull, 4097ull, 1000000ull, 8388608ull})
        {
            const RunResults r = RunScenario(OneMessage(c.topo, 0, c.dst, bytes), RunOptions{});
            ASSERT_TRUE(r.complete) << c.what;
            ASSERT_EQ(r.flows.size(), 1u) << c.what;
            const FlowRecord& f = r.flows[0];
            EXPECT_GT(f.idealS, 0) << c.what;
            // within 0.01 % (and 10 ps): the engine serializes in whole picoseconds
            EXPECT_NEAR(f.FctS(), f.idealS, std::max(10e-12, 1e-4 * f.idealS))
                << c.what << ", " << bytes << " B";
            EXPECT_NEAR(f.Slowdown(), 1.0, 1e-4) << c.what << ", " << bytes << " B";
            EXPECT_NEAR(r.slowdown.max, f.Slowdown(), 1e-12);
            std::printf("%-40s %8llu B: fct %.3f ns ideal %.3f ns slowdown %.6f\n",
                        c.what.c_str(),
                        static_cast<unsigned long long>(bytes),
                        f.FctS() * 1e9,
                        f.idealS * 1e9,
                        f.Slowdown());
        }
    }
}

TEST(TailStats, PercentilesAndStragglerOnKnownInputsAreExact)
{
    std::vector<double> hundred;
    for (int i = 1; i <= 100; ++i)
    {
        hundred.push_back(i);
    }
    const TailSummary t = Tails(hundred);
    EXPECT_EQ(t.count, 100u);
    EXPECT_DOUBLE_EQ(t.p50, 50.5);
    EXPECT_DOUBLE_EQ(t.p90, 90.1);
    EXPECT_DOUBLE_EQ(t.p99, 99.01);
    EXPECT_DOUBLE_EQ(t.p999, 99.901);
    EXPECT_EQ(t.max, 100);

    // odd count; the first of two latest ranks is the straggler
    const StragglerFigure a = StragglerOf({1.0, 3.0, 2.0, 3.0, 1.5}, {10, 11, 12, 13, 14}, 0.5);
    ASSERT_TRUE(a.valid);
    EXPECT_EQ(a.position, 1u);
    EXPECT_EQ(a.gpu, 11u);
    EXPECT_EQ(a.finishS, 3.0);
    EXPECT_EQ(a.medianS, 2.0);
    EXPECT_EQ(a.minusMedianS, 1.0);
    EXPECT_DOUBLE_EQ(a.overMedian, 2.5 / 1.5);

    // even count: the median is the mean of the middle two; no GPU list: gpu = position
    const StragglerFigure b = StragglerOf({4.0, 1.0, 3.0, 2.0}, {}, 0.0);
    EXPECT_EQ(b.position, 0u);
    EXPECT_EQ(b.gpu, 0u);
    EXPECT_EQ(b.medianS, 2.5);
    EXPECT_EQ(b.overMedian, 1.6);
    EXPECT_EQ(b.minusMedianS, 1.5);

    EXPECT_FALSE(StragglerOf({}, {}, 0).valid);
    EXPECT_TRUE(std::isnan(StragglerOf({2.0}, {7}, 2.0).overMedian)); // median == start
}

TEST(TailStats, FillTailsUsesEachCollectivesFlowsAndItsReceivingRanks)
{
    RunResults r;
    CollectiveResult c;
    c.name = "sr";
    c.ranks = 4;
    c.startS = 1.0;
    c.rankGpus = {8, 9, 10, 11};
    c.finishSPerRank = {1.0, 5.0, 3.0, 1.0}; // ranks 0 and 3 only send
    r.collectives.push_back(c);
    CollectiveResult d = c;
    d.name = "other";
    d.finishSPerRank = {2.0, 2.0, 2.0, 2.0};
    r.collectives.push_back(d);
    auto flow = [](const std::string& name, uint32_t src, uint32_t dst, double fct, double ideal) {
        FlowRecord f;
        f.collective = name;
        f.src = src;
        f.dst = dst;
        f.startS = 1.0;
        f.endS = 1.0 + fct;
        f.idealS = ideal;
        return f;
    };
    r.flows = {flow("sr", 8, 9, 4.0, 2.0),
               flow("sr", 11, 10, 2.0, 2.0),
               flow("other", 8, 9, 1.0, 0.5),
               flow("other", 9, 10, 1.0, 0.5),
               flow("other", 10, 11, 1.0, 0.5),
               flow("other", 11, 8, 1.0, 0.5)};
    FillTails(r);
    const CollectiveResult& sr = r.collectives[0];
    EXPECT_EQ(sr.fct.count, 2u);
    EXPECT_EQ(sr.fct.p50, 3.0);
    EXPECT_EQ(sr.fct.max, 4.0);
    EXPECT_EQ(sr.slowdown.p50, 1.5);
    EXPECT_EQ(sr.slowdown.max, 2.0);
    EXPECT_EQ(sr.rankFinish.count, 2u); // GPUs 9 and 10 receive
    EXPECT_EQ(sr.rankFinish.p50, 4.0);
    EXPECT_EQ(sr.straggler.position, 1u);
    EXPECT_EQ(sr.straggler.gpu, 9u);
    EXPECT_EQ(sr.straggler.medianS, 4.0);
    EXPECT_EQ(sr.straggler.overMedian, 4.0 / 3.0);
    EXPECT_EQ(r.collectives[1].rankFinish.count, 4u);
    EXPECT_EQ(r.collectives[1].straggler.overMedian, 1.0);
    EXPECT_EQ(r.collectives[1].slowdown.max, 2.0);
    EXPECT_EQ(r.fct.count, 6u);
    EXPECT_EQ(r.fct.p50, 1.0);
    EXPECT_EQ(r.slowdown.max, 2.0);
}

namespace
{

/// \return the number of links of each tier class, as "class:count " in TierClassNames() order
std::string
ClassCounts(const TopologySpec& t)
{
    const FabricGraph g = BuildFabricGraph(t);
    std::string out;
    for (const std::string& name : TierClassNames())
    {
        uint32_t n = 0;
        for (uint32_t l = 0; l < g.GetLinks().size(); ++l)
        {
            n += TierClassOf(g, l, t.Is<CustomSpec>()) == name ? 1 : 0;
        }
        if (n > 0)
        {
            out += name + ":" + std::to_string(n) + " ";
        }
    }
    return out;
}

} // namespace

TEST(TierClass, DerivedFromNodeKindsTiersGroupsAndLinkKinds)
{
    TopologySpec ls = LeafSpine("ib-ndr");
    EXPECT_EQ(ClassCounts(ls), "gpu-leaf:4 leaf-spine:4 ");
    ls.hostLink = *FindLinkProfile("pcie-gen5");
    EXPECT_EQ(ClassCounts(ls), "pcie:4 gpu-leaf:4 leaf-spine:4 ");
    EXPECT_EQ(ClassCounts(NvlinkDomain()), "nvlink:8 ");

    TopologySpec ft;
    ft.name = "ft";
    ft.SetKind("fat-tree");
    ft.As<FatTreeSpec>().radix = 4; // k = 4: 16 hosts, 8 edge, 8 aggregation, 4 core switches
    ft.link = *FindLinkProfile("ib-ndr");
    EXPECT_EQ(ClassCounts(ft), "gpu-leaf:16 leaf-spine:16 spine-core:16 ");

    TopologySpec df;
    df.name = "df";
    df.SetKind("dragonfly-plus");
    df.As<DragonflyPlusSpec>().groups = 3;
    df.As<DragonflyPlusSpec>().leavesPerGroup = 2;
    df.As<DragonflyPlusSpec>().spinesPerGroup = 2;
    df.As<DragonflyPlusSpec>().gpusPerLeaf = 2;
    df.As<DragonflyPlusSpec>().globalLinksPerSpine = 1;
    df.link = *FindLinkProfile("ib-ndr");
    // per group: 4 GPU links, 4 leaf-spine links; 3 x 2 global ports = 3 global links
    EXPECT_EQ(ClassCounts(df), "gpu-leaf:12 leaf-spine:12 global:3 ");

    TopologySpec cu;
    cu.name = "cu";
    cu.SetKind("custom");
    cu.link = *FindLinkProfile("ib-ndr");
    cu.As<CustomSpec>().nodes = {{{}, "g0", "gpu", 0},
                                 {{}, "g1", "gpu", 0},
                                 {{}, "s1", "switch", 1},
                                 {{}, "s2", "switch", 2}};
    cu.As<CustomSpec>().links = {{{}, "g0", "s1", {}}, {{}, "s1", "s2", {}}, {{}, "s2", "g1", {}}};
    EXPECT_EQ(ClassCounts(cu), "gpu-leaf:2 switch-switch:1 ");
}

namespace
{

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

TEST(PortMetrics, IncastCountsEcnPerPortAndQueueTails)
{
    const RunResults r = RunScenario(Incast(Time(0)), RunOptions{});
    ASSERT_TRUE(r.complete);
    ASSERT_EQ(r.ports.size(), 10u);
    uint64_t ecn = 0;
    for (uint32_t i = 0; i < r.ports.size(); ++i)
    {
        const PortRecord& p = r.ports[i];
        EXPECT_EQ(p.portId, i);
        EXPECT_EQ(p.tierClass, "gpu-leaf");
        EXPECT_LE(p.p99QueueBytes, p.peakQueueBytes) << i;
        ecn += p.ecnMarks;
    }
    EXPECT_GT(r.counters.ecnMarks, 0u);
    EXPECT_EQ(ecn, r.counters.ecnMarks);
    // port 1 = switch -> gpu0, the incast's bottleneck: all marks and a standing queue
    const PortRecord& hot = r.ports[1];
    EXPECT_EQ(hot.node, "switch0");
    EXPECT_EQ(hot.ecnMarks, r.counters.ecnMarks);
    EXPECT_GT(hot.p99QueueBytes, hot.peakQueueBytes / 2);
    EXPECT_EQ(r.ports[0].p99QueueBytes, 0u); // gpu0 -> switch: ACKs only, no standing queue

    ASSERT_EQ(r.tierClasses.size(), 1u);
    const TierClassRecord& t = r.tierClasses[0];
    EXPECT_EQ(t.tierClass, "gpu-leaf");
    EXPECT_EQ(t.ports, 10u);
    EXPECT_EQ(t.ecnMarks, r.counters.ecnMarks);
    EXPECT_EQ(t.peakQueueBytes, hot.peakQueueBytes);
    EXPECT_NEAR(t.maxUtilization, hot.busyS / r.simTimeS, 1e-12);

    // the incast's flows are slowed by sharing the receiver's port
    EXPECT_GT(r.slowdown.max, 3.0);
    EXPECT_GE(r.slowdown.p50, 1.0);
}

TEST(TimeSeries, BinsAccountForEveryPortsBusyTime)
{
    for (const Time& interval : {Time(0), MicroSeconds(5)})
    {
        const RunResults r = RunScenario(Incast(interval), RunOptions{});
        ASSERT_TRUE(r.complete);
        ASSERT_FALSE(r.timeseries.empty());
        const bool automatic = interval.IsZero();
        EXPECT_EQ(r.sampleIntervalAuto, automatic);
        if (!automatic)
        {
            EXPECT_DOUBLE_EQ(r.sampleIntervalS, 5e-6);
        }
        std::vector<double> busy(r.ports.size(), 0.0);
        std::vector<int> rows(r.ports.size(), 0);
        uint32_t bins = 0;
        double binStart = -1;
        for (const TimeSeriesRow& row : r.timeseries)
        {
            ASSERT_LT(row.portId, r.ports.size());
            if (row.timeS != binStart)
            {
                ++bins;
                // every bin starts on a multiple of the width (the last may be shorter)
                EXPECT_NEAR(std::fmod(row.timeS + 1e-15, r.sampleIntervalS), 0, 1e-12);
                EXPECT_GT(row.timeS, binStart);
                binStart = row.timeS;
            }
            EXPECT_GE(row.utilization, 0);
            EXPECT_LE(row.utilization, 1);
            EXPECT_GE(row.queueMaxBytes, row.queueBytes);
            busy[row.portId] += row.utilization * row.lengthS;
            ++rows[row.portId];
        }
        EXPECT_LE(bins, 512u);
        if (!automatic)
        {
            EXPECT_EQ(bins, static_cast<uint32_t>(std::ceil(r.simTimeS / 5e-6)));
        }
        for (uint32_t i = 0; i < r.ports.size(); ++i)
        {
            const PortRecord& p = r.ports[i];
            // only ports that carried traffic, each in every bin
            EXPECT_EQ(rows[i], p.txPackets > 0 ? static_cast<int>(bins) : 0) << i;
            EXPECT_NEAR(busy[i], p.busyS, 1e-12 * bins + 1e-15) << i;
        }
    }
}

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
    EXPECT_NE(summary.find("\"schema_version\": 3,"), std::string::npos);
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
