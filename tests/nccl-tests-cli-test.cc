/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * 'ai-fabric nccl-tests': nccl-tests' flags in, nccl-tests' table and JSON out
 * (docs/nccl-tests.md), and one clear error (exit 2) for every bad flag or file.
 */

#include "output/nccl-tests-writer.h"
#include "tool-runner.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace
{

namespace fs = std::filesystem;
using Outcome = aifabrictest::ToolOutcome;

fs::path
Scratch(const std::string& name)
{
    return aifabrictest::FreshScratch("nccl-tests-" + name);
}

Outcome
Tool(const std::string& args, const fs::path& scratch)
{
    return aifabrictest::RunTool(args, scratch);
}

std::string
Src(const std::string& rel)
{
    return aifabrictest::SourcePath(rel);
}

/// \return the lines of \p text that do not start with '#'
std::vector<std::string>
DataLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
    {
        if (!line.empty() && line[0] != '#' && line.rfind("results:", 0) != 0)
        {
            lines.push_back(line);
        }
    }
    return lines;
}

/// \return whitespace-separated fields of a line
std::vector<std::string>
Fields(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> f;
    std::string w;
    while (in >> w)
    {
        f.push_back(w);
    }
    return f;
}

TEST(NcclTestsNumber, FollowsNcclTestsWidthRule)
{
    EXPECT_EQ(ns3::NcclTestsNumber(1.5, 7), "   1.50");
    EXPECT_EQ(ns3::NcclTestsNumber(378.88, 6), "378.88");
    EXPECT_EQ(ns3::NcclTestsNumber(1234.56, 6), "1234.6");
    EXPECT_EQ(ns3::NcclTestsNumber(12345.678, 7), "12345.7");
    EXPECT_EQ(ns3::NcclTestsNumber(123456.0, 6), "123456");
    EXPECT_EQ(ns3::NcclTestsNumber(1234567.0, 6), " 1e+06");
    EXPECT_EQ(ns3::NcclTestsNumber(123456789.0, 7), "1.2e+08");
}

TEST(NcclTestsCli, AllReducePrintsNcclTestsTableAndJson)
{
    const fs::path s = Scratch("allreduce");
    const Outcome o
        = Tool("nccl-tests all_reduce_perf --topology " + Src("topologies/single-switch-8-ndr.yaml")
                   + " -b 1K -e 4M -f 64 -g 4 -d half -n 20 --protocol none --out "
                   + (s / "out").string() + " -J " + (s / "r.json").string(),
               s);
    ASSERT_EQ(o.status, 0) << o.err;
    // nccl-tests' header (src/util.cu writeResultHeader), then our two columns.
    EXPECT_NE(o.out.find("#       size         count      type   redop    root     time   algbw   "
                         "busbw  #wrong     time   algbw   busbw  #wrong    analytic  sim/anl"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("nGpus 4 minBytes 1024 maxBytes 4194304 step: 64(factor)"),
              std::string::npos);
    EXPECT_NE(o.out.find("-n 20"), std::string::npos) << "the ignored flag is listed";
    const std::vector<std::string> rows = DataLines(o.out);
    ASSERT_EQ(rows.size(), 3U) << o.out; // 1 KiB, 64 KiB, 4 MiB
    double busbwSum = 0;
    const uint64_t sizes[] = {1024, 65536, 4194304};
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        const std::vector<std::string> f = Fields(rows[i]);
        ASSERT_EQ(f.size(), 15U) << rows[i];
        EXPECT_EQ(f[0], std::to_string(sizes[i]));
        EXPECT_EQ(f[1], std::to_string(sizes[i] / 2)) << "half: 2 bytes per element";
        EXPECT_EQ(f[2], "half");
        EXPECT_EQ(f[3], "sum");
        EXPECT_EQ(f[4], "-1");
        EXPECT_EQ(f[5], f[9]) << "in place and out of place take the same time";
        EXPECT_EQ(f[7], f[11]);
        EXPECT_EQ(f[8], "N/A");
        // busbw = algbw x 2(n-1)/n on 4 ranks (nccl-tests PERFORMANCE.md)
        EXPECT_NEAR(std::stod(f[7]), std::stod(f[6]) * 1.5, 0.02 * std::stod(f[7]) + 0.01);
        busbwSum += std::stod(f[7]);
    }
    // The largest size runs near the NDR link rate (the sim/analytic ratio within 5 %).
    EXPECT_NEAR(std::stod(Fields(rows[2])[14]), 1.0, 0.05);
    EXPECT_NE(o.out.find("# Avg bus bandwidth    : "), std::string::npos);
    const std::string json = aifabrictest::SlurpFile(s / "r.json");
    EXPECT_EQ(json, aifabrictest::SlurpFile(s / "out" / "nccl-tests.json"));
    for (const char* key : {"\"version\": 3",
                            "\"results\"",
                            "\"out_of_place\"",
                            "\"in_place\"",
                            "\"bus_bw\"",
                            "\"nwrong\": null",
                            "\"average_bus_bandwidth\"",
                            "\"type\": \"half\"",
                            "\"size\": 4194304"})
    {
        EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
    }
    // The scenario it ran is written and is an ordinary scenario.
    EXPECT_TRUE(fs::exists(s / "out" / "scenario.yaml"));
    EXPECT_EQ(aifabrictest::SlurpFile(s / "out" / "nccl-tests.txt").empty(), false);
    (void)busbwSum;
}

TEST(NcclTestsCli, RootedAndNonReducingTestsPrintRootAndRedop)
{
    const fs::path s = Scratch("bcast");
    const Outcome b
        = Tool("nccl-tests broadcast_perf --topology " + Src("topologies/single-switch-4-ndr.yaml")
                   + " -b 64K -e 64K -r 2 --out " + (s / "b").string(),
               s);
    ASSERT_EQ(b.status, 0) << b.err;
    const std::vector<std::string> rb = Fields(DataLines(b.out).at(0));
    EXPECT_EQ(rb[3], "none");
    EXPECT_EQ(rb[4], "2");
    const Outcome g
        = Tool("nccl-tests all_gather_perf --topology " + Src("topologies/single-switch-4-ndr.yaml")
                   + " -b 64K -e 64K -o max --out " + (s / "ag").string(),
               s);
    ASSERT_EQ(g.status, 0) << g.err;
    const std::vector<std::string> rg = Fields(DataLines(g.out).at(0));
    EXPECT_EQ(rg[3], "none");
    EXPECT_EQ(rg[4], "-1");
}

TEST(NcclTestsCli, BadFlagsAreRefusedWithExit2)
{
    const fs::path s = Scratch("bad");
    const std::string topo = " --topology " + Src("topologies/single-switch-4-ndr.yaml") + " --out "
                             + (s / "out").string();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"nccl-tests", "name the nccl-tests binary"},
        {"nccl-tests allreduce_perf" + topo, "unknown test 'allreduce_perf'"},
        {"nccl-tests all_reduce_perf --out " + (s / "out").string(), "--topology FILE is required"},
        {"nccl-tests all_reduce_perf" + topo + " -b abc", "-b: 'abc' is not a size"},
        {"nccl-tests all_reduce_perf" + topo + " -b 0", "is not a size of at least 1 byte"},
        {"nccl-tests all_reduce_perf" + topo + " -b 1M -e 1K", "is below -b"},
        {"nccl-tests all_reduce_perf" + topo + " -f 1", "step factor must be an integer"},
        {"nccl-tests all_reduce_perf" + topo + " -i 1024", "additive steps are not supported"},
        {"nccl-tests all_reduce_perf" + topo + " -d float32", "unknown datatype 'float32'"},
        {"nccl-tests all_reduce_perf" + topo + " -o mulsum", "unknown reduction 'mulsum'"},
        {"nccl-tests all_reduce_perf" + topo + " -J " + (s / "out.txt").string(),
         "must end in .json"},
        {"nccl-tests all_reduce_perf" + topo + " -q 1", "unknown option '-q'"},
        {"nccl-tests all_reduce_perf" + topo + " -g 1", "at least 2"},
        {"nccl-tests all_reduce_perf" + topo + " -g 64", "ranks"},
        {"nccl-tests all_reduce_perf" + topo + " -b", "needs a value"},
        {"nccl-tests all_reduce_perf --topology " + (s / "nowhere.yaml").string(), "cannot read"},
        {"nccl-tests all_reduce_perf" + topo + " --algorithm nope", "algorithm"},
        {"nccl-tests all_reduce_perf" + topo + " --protocol ll64", "unknown protocol 'll64'"},
    };
    for (const auto& [args, needle] : cases)
    {
        const Outcome o = Tool(args, s);
        EXPECT_EQ(o.status, 2) << args << "\n" << o.err;
        EXPECT_NE(o.err.find(needle), std::string::npos) << args << "\n" << o.err;
        EXPECT_EQ(o.err.find("internal error"), std::string::npos) << args;
    }
    // A malformed topology file: its own file, line and column.
    {
        std::ofstream(s / "bad-topo.yaml") << "name: t\nkind: single-switch\ngpus: [1\n";
        const Outcome o
            = Tool("nccl-tests all_reduce_perf --topology " + (s / "bad-topo.yaml").string()
                       + " --out " + (s / "out").string(),
                   s);
        EXPECT_EQ(o.status, 2) << o.err;
        EXPECT_NE(o.err.find("bad-topo.yaml:"), std::string::npos) << o.err;
    }
}

} // namespace

/// --protocol is NCCL_PROTO: each size runs with the protocol given, and auto resolves per size
/// (the JSON names what each size ran with).
TEST(NcclTestsCli, ProtocolFlagChoosesTheProtocol)
{
    const fs::path s = Scratch("protocol");
    auto protocols = [&s](const std::string& flag) {
        const fs::path json = s / ("r" + std::to_string(flag.size()) + ".json");
        const Outcome o
            = Tool("nccl-tests all_reduce_perf --topology "
                       + Src("topologies/single-switch-4-ndr.yaml") + " -b 1K -e 64M -f 256 " + flag
                       + " --out " + (s / "out").string() + " -J " + json.string(),
                   s);
        EXPECT_EQ(o.status, 0) << o.err;
        const std::string text = aifabrictest::SlurpFile(json);
        std::vector<std::string> found;
        for (std::size_t at = text.find("\"protocol\": \""); at != std::string::npos;
             at = text.find("\"protocol\": \"", at + 1))
        {
            const std::size_t from = at + 13;
            found.push_back(text.substr(from, text.find('"', from) - from));
        }
        return found;
    };
    EXPECT_EQ(protocols("--protocol ll"), (std::vector<std::string>{"ll", "ll", "ll"}));
    EXPECT_EQ(protocols("--protocol simple"),
              (std::vector<std::string>{"simple", "simple", "simple"}));
    const std::vector<std::string> chosen = protocols("");
    ASSERT_EQ(chosen.size(), 3U);
    EXPECT_EQ(chosen.front(), "ll"); // 1 KiB: latency-bound
    EXPECT_NE(chosen.back(), "ll");  // 64 MiB: LL's half-rate wire loses
}

/// `--algorithm nvls` and `--algorithm collnet` reach the in-network algorithms: each size's
/// JSON row names them; on a fabric without what they reduce in, exit 2 naming why.
TEST(NcclTestsCli, AlgorithmFlagReachesInNetworkReduction)
{
    const fs::path s = Scratch("in-network");
    auto algorithms = [&s](const std::string& topology, const std::string& algorithm) {
        const fs::path json = s / (algorithm + ".json");
        const Outcome o = Tool("nccl-tests all_reduce_perf --topology " + Src(topology)
                                   + " -b 1M -e 4M -f 4 --algorithm " + algorithm + " --out "
                                   + (s / "out").string() + " -J " + json.string(),
                               s);
        EXPECT_EQ(o.status, 0) << o.err;
        const std::string text = aifabrictest::SlurpFile(json);
        std::vector<std::string> found;
        for (std::size_t at = text.find("\"algorithm\": \""); at != std::string::npos;
             at = text.find("\"algorithm\": \"", at + 1))
        {
            const std::size_t from = at + 14;
            found.push_back(text.substr(from, text.find('"', from) - from));
        }
        return found;
    };
    EXPECT_EQ(algorithms("topologies/dgx-h100-node.yaml", "nvls"),
              (std::vector<std::string>{"nvls", "nvls", "nvls"}));
    EXPECT_EQ(algorithms("validation/fabrics/rail-2x8-h100-ndr.yaml", "collnet"),
              (std::vector<std::string>{"collnet", "collnet", "collnet"}));
    const Outcome bad
        = Tool("nccl-tests all_reduce_perf --topology " + Src("topologies/dgx-h100-node.yaml")
                   + " -b 1M -e 1M --algorithm collnet --out " + (s / "bad").string(),
               s);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("has no NIC"), std::string::npos) << bad.err;
}
