/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Path choice as real switches make it (docs/topologies.md#routing): Valiant detours bounded
 * to two global links, UGAL and adaptive routing with downstream state, flowlets, and the
 * scenario's `adaptive_routing:` keys, their refusals and their runs without deadlock.
 */
#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"
#include "tool-runner.h"

#include "ns3/spec-error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

using namespace ns3;

namespace
{

/// A 9-group Dragonfly+ whose spines reach 2 of the 8 other groups each: a spine without a
/// link to the destination's group is 2 global hops away through a third group but 3 hops
/// away inside its own, so shortest paths alone would cross three groups.
const char* const DF9 = "topology:\n  kind: dragonfly-plus\n  groups: 9\n  leaves_per_group: 2\n"
                        "  spines_per_group: 4\n  gpus_per_leaf: 2\n  global_links_per_spine: 2\n"
                        "  radix: 8\n  link: {profile: ib-ndr}\n";

/// A uniform all-to-all of 4 MiB per rank.
const char* const ALL_TO_ALL = "traffic:\n  collectives:\n    - name: a\n      op: all-to-all\n"
                               "      protocol: none\n      algorithm: direct\n      size: 4MiB\n";

/// Write a scenario of \p head (run keys) + DF9 with \p routing + ALL_TO_ALL; return its path.
std::string
Write(const std::string& name, const std::string& head, const std::string& routing)
{
    const std::filesystem::path dir = aifabrictest::FreshScratch("routing-choice-" + name);
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << "name: " << name << "\n"
                     << head << DF9 << "  routing: " << routing << "\n"
                     << ALL_TO_ALL;
    return p.string();
}

/// Run \p head + DF9 with \p routing.
RunResults
RunDf9(const std::string& name, const std::string& head, const std::string& routing)
{
    return RunScenario(ReadScenarioFile(Write(name, head, routing)), RunOptions{});
}

/// Wire bytes sent on links between two spines of different groups.
uint64_t
GlobalBytes(const RunResults& r)
{
    uint64_t bytes = 0;
    for (const PortRecord& port : r.ports)
    {
        const auto group = [](const std::string& n) {
            return n.substr(0, n.find('-'));
        };
        if (port.node.find("spine") != std::string::npos
            && port.peer.find("spine") != std::string::npos && group(port.node) != group(port.peer))
        {
            bytes += port.txBytes;
        }
    }
    return bytes;
}

/// The error reading the scenario gives (empty if none).
std::string
ErrorOf(const std::string& path)
{
    try
    {
        ReadScenarioFile(path);
    }
    catch (const SpecError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

// Valiant's detour crosses exactly two global links (no return through the source group,
// no third group), so a uniform all-to-all moves twice minimal routing's global bytes. With
// shortest paths alone it moved 2.36x on this fabric.
TEST(RoutingChoice, ValiantCrossesTwoGlobalLinksAndDoublesGlobalBytes)
{
    const RunResults minimal = RunDf9("minimal", "seed: 1\n", "minimal");
    const RunResults valiant = RunDf9("valiant", "seed: 1\n", "valiant");
    ASSERT_TRUE(minimal.complete);
    ASSERT_TRUE(valiant.complete);
    EXPECT_TRUE(valiant.violations.empty());
    const double ratio = static_cast<double>(GlobalBytes(valiant)) / GlobalBytes(minimal);
    EXPECT_NEAR(ratio, 2.0, 0.02) << GlobalBytes(valiant) << " / " << GlobalBytes(minimal);
}

// UGAL detours only part of the traffic: its global bytes lie between minimal's and
// Valiant's; the downstream signal is reachable from the scenario and changes the choice.
TEST(RoutingChoice, UgalDetoursBetweenMinimalAndValiant)
{
    const RunResults minimal = RunDf9("u-minimal", "seed: 1\n", "minimal");
    const RunResults ugal = RunDf9("ugal", "seed: 1\n", "ugal");
    const RunResults local
        = RunDf9("ugal-local", "seed: 1\nadaptive_routing:\n  ugal_downstream_weight: 0\n", "ugal");
    ASSERT_TRUE(ugal.complete);
    ASSERT_TRUE(local.complete);
    EXPECT_GE(GlobalBytes(ugal), GlobalBytes(minimal));
    EXPECT_LE(GlobalBytes(ugal), 2 * GlobalBytes(minimal));
    EXPECT_NE(GlobalBytes(ugal), GlobalBytes(local));
}

// `adaptive_routing:` reaches the strategy: downstream_weight 0 and packet granularity are
// the defaults (identical ports), flowlets and the downstream signal change the paths.
TEST(RoutingChoice, AdaptiveRoutingKeysReachTheSwitches)
{
    const std::string adaptive = "seed: 1\nforwarding: adaptive\n";
    const RunResults plain = RunDf9("plain", adaptive, "minimal");
    const RunResults defaults = RunDf9(
        "defaults",
        adaptive + "adaptive_routing:\n  granularity: packet\n  downstream_weight: 0\n  bias: 0B\n",
        "minimal");
    const RunResults flowlet = RunDf9("flowlet",
                                      adaptive
                                          + "adaptive_routing:\n  granularity: flowlet\n"
                                            "  flowlet_gap: 1us\n  bias: 4KiB\n",
                                      "minimal");
    ASSERT_EQ(plain.ports.size(), defaults.ports.size());
    bool sameAsDefaults = true;
    bool sameAsFlowlet = true;
    for (std::size_t i = 0; i < plain.ports.size(); ++i)
    {
        sameAsDefaults = sameAsDefaults && plain.ports[i].txBytes == defaults.ports[i].txBytes;
        sameAsFlowlet = sameAsFlowlet && plain.ports[i].txBytes == flowlet.ports[i].txBytes;
    }
    EXPECT_TRUE(sameAsDefaults);
    EXPECT_FALSE(sameAsFlowlet);
    EXPECT_TRUE(flowlet.complete);
}

// No credit deadlock under the new routings: over 8 seeds each run completes (the watchdog
// stays quiet) with every invariant held.
TEST(RoutingChoice, NoDeadlockOverEightSeeds)
{
    const struct
    {
        const char* head;
        const char* routing;
    } cases[] = {
        {"forwarding: adaptive\nadaptive_routing:\n  downstream_weight: 1\n  random_ties: true\n",
         "valiant"},
        {"forwarding: adaptive\nadaptive_routing:\n  granularity: flowlet\n"
         "  ugal_downstream_weight: 2\n",
         "ugal"},
        {"forwarding: spray\n", "ugal"},
    };

    int k = 0;
    for (const auto& c : cases)
    {
        for (uint32_t seed = 1; seed <= 8; ++seed)
        {
            const RunResults r = RunDf9("seed-" + std::to_string(k++),
                                        "seed: " + std::to_string(seed) + "\n" + c.head,
                                        c.routing);
            EXPECT_TRUE(r.complete) << c.routing << " seed " << seed << ": " << r.stopReason;
            EXPECT_TRUE(r.violations.empty()) << c.routing << " seed " << seed;
        }
    }
}

// Keys of adaptive routing are refused, at the key, where nothing would read them.
TEST(RoutingChoice, AdaptiveRoutingKeysRefusedWhereNotUsed)
{
    EXPECT_NE(
        ErrorOf(Write("ecmp", "forwarding: ecmp\nadaptive_routing:\n  bias: 1KiB\n", "minimal"))
            .find("s.yaml:4:3: error: 'bias' sets a parameter of adaptive routing, but "
                  "forwarding is 'ecmp'"),
        std::string::npos);
    EXPECT_NE(ErrorOf(Write("no-ugal",
                            "forwarding: adaptive\nadaptive_routing:\n  ugal_threshold: 1KiB\n",
                            "valiant"))
                  .find("s.yaml:4:3: error: 'ugal_threshold' sets a parameter of UGAL"),
              std::string::npos);
    EXPECT_NE(ErrorOf(Write("gran",
                            "forwarding: adaptive\nadaptive_routing:\n  granularity: flow\n",
                            "minimal"))
                  .find("s.yaml:4:16: error: "),
              std::string::npos);
    EXPECT_NE(ErrorOf(Write("unknown",
                            "forwarding: adaptive\nadaptive_routing:\n  downstream: 1\n",
                            "minimal"))
                  .find("s.yaml:4:3: error: "),
              std::string::npos);
    EXPECT_NE(ErrorOf(Write("weight",
                            "forwarding: adaptive\nadaptive_routing:\n  downstream_weight: -1\n",
                            "minimal"))
                  .find("s.yaml:4:22: error: "),
              std::string::npos);
}

namespace
{

/// A lossy 4:1 RoCE leaf-spine (2 leaves of 8 GPUs, 2 spines) under spraying, with go-back-N
/// and \p window as `reorder_window`.
RunResults
RunLossySpray(const std::string& window)
{
    const std::filesystem::path dir = aifabrictest::FreshScratch("reorder-" + window);
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << "name: reorder\nseed: 1\nforwarding: spray\n"
                        "transport:\n  reliability: go-back-n\n  reorder_window: "
                     << window
                     << "\ntopology:\n  kind: leaf-spine\n  leaves: 2\n  spines: 2\n"
                        "  gpus_per_leaf: 8\n  link: {profile: roce-400g, flow_control: none}\n"
                     << ALL_TO_ALL;
    return RunScenario(ReadScenarioFile(p.string()), RunOptions{});
}

} // namespace

// Spraying reorders a queue pair's packets. A receiver that drops every packet ahead of the
// expected one answers reordering with go-back-N (measured: 3.6x the time, 8x the drops); the
// reorder window (`auto` = 256 packets under spraying) holds them, so only buffer overflow
// costs a resend.
TEST(RoutingChoice, ReorderWindowKeepsReorderingFromTriggeringGoBackN)
{
    const RunResults none = RunLossySpray("0");
    const RunResults held = RunLossySpray("auto");
    ASSERT_TRUE(none.complete);
    ASSERT_TRUE(held.complete);
    ASSERT_EQ(none.collectives.size(), 1u);
    EXPECT_LT(held.collectives[0].durationS, 0.5 * none.collectives[0].durationS);
    EXPECT_LT(held.counters.drops * 4, none.counters.drops);
}

// reorder_window: a power of two or auto, only where go-back-N runs.
TEST(RoutingChoice, ReorderWindowRefusals)
{
    const auto write = [](const std::string& name, const std::string& transport) {
        const std::filesystem::path dir = aifabrictest::FreshScratch("reorder-bad-" + name);
        const std::filesystem::path p = dir / "s.yaml";
        std::ofstream(p) << "name: bad\nforwarding: spray\ntransport:\n"
                         << transport << DF9 << ALL_TO_ALL;
        return p.string();
    };
    EXPECT_NE(ErrorOf(write("three", "  reliability: go-back-n\n  reorder_window: 3\n"))
                  .find("s.yaml:5:19: error: "),
              std::string::npos);
    EXPECT_NE(ErrorOf(write("lossless", "  reorder_window: 64\n"))
                  .find("'reorder_window' applies only to go-back-n reliability"),
              std::string::npos);
}
