/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Byte-identical results of the tool (its scenario runner and writers) with ai-fabric's
 * event schedulers (quad-heap, lane-heap), ns-3's (priority-queue, map, heap, list, calendar), on
 * example scenarios. (The schedulers' own tests, their names included: the ns-3 TestSuite
 * ai-fabric-scheduler, contrib/ai-fabric/test/scheduler-test-suite.cc.)
 */
#include "config/yaml-scenario-reader.h"
#include "output/results-writer.h"
#include "run/scenario-runner.h"

#include "ns3/spec-names.h"

#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

// The schedulers' order against PriorityQueueScheduler, their registration, their lanes and
// their names: the ns-3 TestSuite ai-fabric-scheduler (contrib/ai-fabric/test/).

TEST(Scheduler, ScenariosGiveIdenticalResultsWithEveryScheduler)
{
    // Real runs through RunScenario: the same events, flows and collective times, to
    // the byte, with priority-queue and with ours (in-network reduction: switches as endpoints
    // too). The RoCE incast has ECN marks drawn at
    // random and DCQCN timers, the training job thousands of messages over a leaf-spine,
    // the Dragonfly+ all-to-all random Valiant detours, the lossy RoCE leaf-spine drops,
    // go-back-N and DCQCN timers armed and cancelled thousands of times (with
    // Simulator::Remove, ns-3 3.37's HeapScheduler ran its events out of order: 1.6155 ms
    // instead of 1.5921 ms; the module now cancels its timers lazily).
    auto render = [](const RunResults& r) {
        std::ostringstream json;
        std::ostringstream csv;
        WriteSummaryJson(r, json);
        WriteFlowsCsv(r, csv);
        WriteCollectivesCsv(r, csv);
        WritePortsCsv(r, csv);
        // wall_time_s is the only wall-clock figure in the summary.
        return std::regex_replace(json.str(), std::regex("\"wall_time_s\": [^,\n]*"), "")
               + csv.str();
    };
    std::vector<std::pair<std::string, ScenarioSpec>> specs;
    for (const char* file : {"examples/roce-incast-dcqcn.yaml",
                             "examples/train-3d-16gpu.yaml",
                             "tests/scenarios/dragonfly-valiant-alltoall.yaml",
                             "tests/scenarios/roce-lossy-gbn-dcqcn.yaml",
                             "tests/scenarios/in-network-reduction.yaml",
                             "tests/scenarios/tree-pxn-rails.yaml"})
    {
        specs.emplace_back(file, ReadScenarioFile(std::string(AI_FABRIC_SOURCE_DIR) + "/" + file));
    }
    // The incast with DCQCN timers 2 us apart and a 64 kB byte counter: the senders get back
    // to line rate before the end and cancel their timers.
    ScenarioSpec fast = specs[0].second;
    for (auto& [attribute, value] : fast.dcqcnAttributes)
    {
        if (attribute == "RateIncreasePeriod" || attribute == "AlphaUpdatePeriod")
        {
            value = "2000000ps";
        }
        else if (attribute == "ByteCounter")
        {
            value = "64000";
        }
    }
    specs.emplace_back("roce-incast-dcqcn, fast recovery", fast);
    // The training job with its DP buckets on SHARP and its TP all-reduces on NVLS: the
    // switches as endpoints, their joins and multicasts.
    ScenarioSpec inNetwork = specs[1].second;
    inNetwork.traffic.training.dpAlgorithm = "collnet";
    inNetwork.traffic.training.tpAlgorithm = "nvls";
    specs.emplace_back("train-3d-16gpu, collnet and nvls", inNetwork);
    for (const auto& [file, spec] : specs)
    {
        RunOptions options;
        options.scheduler = "priority-queue";
        const RunResults reference = RunScenario(spec, options);
        ASSERT_TRUE(reference.complete) << file;
        ASSERT_GT(reference.events, 10000u) << file;
        const std::string expected = render(reference);
        for (const std::string& name : SchedulerNames())
        {
            if (name == "priority-queue")
            {
                continue;
            }
            options.scheduler = name;
            const RunResults r = RunScenario(spec, options);
            EXPECT_EQ(r.events, reference.events) << file << " " << name;
            EXPECT_EQ(r.packetHops, reference.packetHops) << file << " " << name;
            ASSERT_EQ(r.flows.size(), reference.flows.size()) << file << " " << name;
            for (std::size_t i = 0; i < r.flows.size(); ++i)
            {
                EXPECT_EQ(r.flows[i].endS, reference.flows[i].endS) << file << " " << name;
            }
            ASSERT_EQ(r.collectives.size(), reference.collectives.size());
            for (std::size_t i = 0; i < r.collectives.size(); ++i)
            {
                EXPECT_EQ(r.collectives[i].durationS, reference.collectives[i].durationS)
                    << file << " " << name;
            }
            EXPECT_EQ(render(r), expected) << file << " " << name;
        }
    }
}
