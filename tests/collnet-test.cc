/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * InfiniBand SHARP (`algorithm: collnet`, docs/collectives.md, "collnet"): the switches reduce
 * across servers, so a NIC carries S/G each way instead of a ring's 2(N-1)/N S/G.
 */
#include "collective-runs.h"
#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"
#include "test-fabrics.h"
#include "tool-runner.h"

#include "ns3/spec-error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

using namespace ns3;
using aifabrictest::AllReduceOn;
using aifabrictest::SentTowards;

/// 16 GPUs on a leaf-spine, one per server: every NIC sends S once and receives S once (the
/// leaves and a spine add up), where a ring sends 2(P-1)/P S; so the all-reduce takes about
/// P/(2(P-1)) of the ring's time, and the switches' byte counts agree.
TEST(Collnet, NicCarriesTheBufferOnceEachWay)
{
    const char* topo = "topologies/leaf-spine-4x4-ndr.yaml";
    const RunResults sharp = AllReduceOn(topo, "collnet", "64MiB");
    const RunResults ring = AllReduceOn(topo, "ring", "64MiB");
    ASSERT_TRUE(sharp.complete);
    ASSERT_TRUE(ring.complete);
    EXPECT_TRUE(sharp.violations.empty()) << sharp.violations.front();
    EXPECT_EQ(sharp.collectives.at(0).protocol, "simple");
    for (const std::string gpu : {"gpu0", "gpu9"})
    {
        const double out = SentTowards(sharp, gpu, "leaf");
        const double ringOut = SentTowards(ring, gpu, "leaf");
        EXPECT_NEAR(out / ringOut, 16.0 / 30.0, 0.01) << gpu; // S against 2 (15/16) S
    }
    // Every leaf sends each spine-rooted tree one sum, and gets one back: S up, S down.
    uint64_t up = 0;
    for (const std::string leaf : {"leaf0", "leaf1", "leaf2", "leaf3"})
    {
        up += SentTowards(sharp, leaf, "spine");
    }
    EXPECT_NEAR(static_cast<double>(up) / SentTowards(sharp, "gpu0", "leaf"), 4.0, 0.05);
    const double speedup = ring.collectives.at(0).durationS / sharp.collectives.at(0).durationS;
    EXPECT_GT(speedup, 1.7);
    EXPECT_LT(speedup, 1.9);
}

/// 2 servers of 8 H100 on a rail-optimized NDR fabric: with the network's share cut to S/8 per
/// NIC each way, NVLink (the reduce-scatter and all-gather inside the server) is the
/// bottleneck: algbw = NVLink goodput / (2 x 7/8), as NCCL's maintainers describe for CollNet
/// (NVIDIA/nccl#320).
TEST(Collnet, NvlinkBoundOnEightNicServers)
{
    const RunResults r
        = AllReduceOn("validation/fabrics/rail-2x8-h100-ndr.yaml", "collnet", "1GiB");
    ASSERT_TRUE(r.complete);
    EXPECT_TRUE(r.violations.empty()) << r.violations.front();
    const double goodput = 450e9 * 4096 / (4096 + 16 * 48); // the nvlink4 profile, B/s
    EXPECT_NEAR(r.collectives.at(0).algbwGBps * 1e9 / (goodput / 1.75), 1.0, 0.03);
}

/// The simulated time matches the schedule model (one piece's way, then a round per piece at
/// the busiest stage) on one- and two-level trees, small and large buffers.
TEST(Collnet, MatchesTheScheduleModel)
{
    for (const auto& [topo, size] : std::vector<std::pair<std::string, std::string>>{
             {"validation/fabrics/rail-2x8-h100-ndr.yaml", "4MiB"},
             {"validation/fabrics/rail-2x8-h100-ndr.yaml", "256MiB"},
             {"topologies/leaf-spine-4x4-ndr.yaml", "64MiB"},
             {"topologies/leaf-spine-4x4-ndr-pcie.yaml", "16MiB"}})
    {
        const CollectiveResult c = AllReduceOn(topo, "collnet", size).collectives.at(0);
        EXPECT_NEAR(c.durationS / c.analyticS, 1.0, 0.05) << topo << " " << size;
    }
}

/// SHARP runs in InfiniBand switches, needs NICs, and NCCL's Simple protocol.
TEST(Collnet, RefusedWhereThereIsNoSharp)
{
    const auto refusal = [](const std::string& topo, const std::string& extra) {
        try
        {
            AllReduceOn(topo, "collnet", "1MiB", extra);
        }
        catch (const SpecError& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(refusal("topologies/single-switch-16-roce400.yaml", "").find("InfiniBand"),
              std::string::npos);
    EXPECT_NE(refusal("topologies/dgx-h100-node.yaml", "").find("has no NIC"), std::string::npos);
    EXPECT_NE(refusal("validation/fabrics/rail-2x8-h100-ndr.yaml",
                      "      ranks: [0, 1, 2, 3, 4, 5, 6, 7]\n")
                  .find("all ranks are in one server"),
              std::string::npos);
    EXPECT_NE(refusal("topologies/leaf-spine-4x4-ndr.yaml", "      protocol: ll128\n")
                  .find("Simple protocol only"),
              std::string::npos);
}

/// A rank's tree follows its rail, not its place in `ranks`: listing a server's GPUs in another
/// order builds the same trees (each rail switch its rail's), and the run takes the same time.
TEST(Collnet, TreesFollowRailsWhateverTheRankOrder)
{
    const char* topo = "validation/fabrics/rail-2x8-h100-ndr.yaml";
    const double inOrder = AllReduceOn(topo, "collnet", "16MiB").collectives.at(0).durationS;
    const double shuffled
        = AllReduceOn(topo,
                      "collnet",
                      "16MiB",
                      "      ranks: [1, 0, 3, 2, 5, 4, 7, 6, 15, 14, 13, 12, 11, 10, 9, 8]\n")
              .collectives.at(0)
              .durationS;
    EXPECT_NEAR(shuffled / inOrder, 1.0, 1e-9);
}

/// A training job's DP buckets on SHARP (`dp_algorithm: collnet`) and TP all-reduces on NVLS
/// (`tp_algorithm: nvls`): every group builds and delivers its bytes, and the DP reduction is
/// faster than the ring's (each NIC carries a bucket once each way, not 2(N-1)/N of it).
TEST(Collnet, TrainingJobUsesInNetworkReduction)
{
    const ScenarioSpec base
        = ReadScenarioFile(aifabrictest::SourcePath("examples/train-3d-16gpu.yaml"));
    auto dpBusy = [&base](const std::string& dp, const std::string& tp) {
        ScenarioSpec s = base;
        s.traffic.training.dpAlgorithm = dp;
        s.traffic.training.tpAlgorithm = tp;
        const RunResults r = RunScenario(s, RunOptions{});
        EXPECT_TRUE(r.complete) << dp << "/" << tp;
        EXPECT_TRUE(r.violations.empty()) << r.violations.front();
        for (const TrainingCommResult& c : r.training.communication)
        {
            if (c.kind == "dp")
            {
                return c.maxS;
            }
        }
        ADD_FAILURE() << "no dp traffic";
        return 0.0;
    };
    const double ring = dpBusy("ring", "ring");
    const double sharp = dpBusy("collnet", "nvls");
    EXPECT_LT(sharp, 0.8 * ring);
}
