/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Every sample under topologies/ is read from its YAML, built into ns-3
 * objects (routing tables verified: every GPU pair reachable, no loop) and
 * runs a small ring all-reduce over all its GPUs to completion.
 */
#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"

#include "ns3/fabric-graph.h"

#include <filesystem>
#include <gtest/gtest.h>

#ifndef AI_FABRIC_SOURCE_DIR
#    error "AI_FABRIC_SOURCE_DIR must name the repository root"
#endif

using namespace ns3;
namespace fs = std::filesystem;

TEST(SampleTopologies, EverySampleRunsAnAllReduce)
{
    int samples = 0;
    for (const auto& entry :
         fs::directory_iterator(std::string(AI_FABRIC_SOURCE_DIR) + "/topologies"))
    {
        if (entry.path().extension() != ".yaml")
        {
            continue;
        }
        ++samples;
        ScenarioSpec s;
        s.where.file = entry.path().string();
        s.name = "sample-" + entry.path().stem().string();
        s.stopTime = Seconds(1);
        s.topology = ReadTopologyFile(entry.path().string());
        const uint32_t p = BuildFabricGraph(s.topology).GetGpuCount();
        CollectiveSpec c;
        c.name = "ar";
        c.op = ns3::CollectiveOp::ALL_REDUCE;
        c.algorithm = "ring";
        c.bytes = 4096ull * p; // one packet per ring step
        c.channels = 1;        // (one channel: channels: auto would cut it into 16-64)
        s.traffic.collectives.push_back(c);
        const RunResults r = RunScenario(s, RunOptions{});
        EXPECT_TRUE(r.complete) << entry.path();
        EXPECT_TRUE(r.violations.empty()) << entry.path();
        ASSERT_EQ(r.collectives.size(), 1u);
        EXPECT_EQ(r.collectives[0].ranks, p);
        for (const uint64_t b : r.collectives[0].bytesSentPerRank)
        {
            EXPECT_EQ(b, 2 * (p - 1) * c.bytes / p) << entry.path();
        }
    }
    EXPECT_GE(samples, 10);
}
