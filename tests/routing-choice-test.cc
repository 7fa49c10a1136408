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

/// Write a scenario of \p head (run keys) + \p topology (DF9 by default) with \p routing +
/// ALL_TO_ALL; return its path.
std::string
Write(const std::string& name,
      const std::string& head,
      const std::string& routing,
      const std::string& topology = DF9)
{
    const std::filesystem::path dir = aifabrictest::FreshScratch("routing-choice-" + name);
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << "name: " << name << "\n"
                     << head << topology << "  routing: " << routing << "\n"
                     << ALL_TO_ALL;
    return p.string();
}

/// Run \p head + \p topology (DF9 by default) with \p routing.
RunResults
RunDf9(const std::string& name,
       const std::string& head,
       const std::string& routing,
       const std::string& topology = DF9)
{
    return RunScenario(ReadScenarioFile(Write(name, head, routing, topology)), RunOptions{});
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

// `adaptive_routing:` reaches the strategy: the defaults written out give identical ports,
// flowlets and the local least-queue choice change the paths.
TEST(RoutingChoice, AdaptiveRoutingKeysReachTheSwitches)
{
    const std::string adaptive = "seed: 1\nforwarding: adaptive\n";
    const RunResults plain = RunDf9("plain", adaptive, "minimal");
    const RunResults defaults
        = RunDf9("defaults",
                 adaptive
                     + "adaptive_routing:\n  granularity: packet\n  downstream_weight: 1\n"
                       "  downstream_threshold: 256KiB\n  band: 4KiB\n  bias: 0B\n",
                 "minimal");
    const RunResults flowlet = RunDf9("flowlet",
                                      adaptive
                                          + "adaptive_routing:\n  granularity: flowlet\n"
                                            "  flowlet_gap: 1us\n  bias: 4KiB\n",
                                      "minimal");
    const RunResults least
        = RunDf9("least",
                 adaptive + "adaptive_routing:\n  band: 0B\n  downstream_weight: 0\n",
                 "minimal");
    ASSERT_EQ(plain.ports.size(), defaults.ports.size());
    const auto same = [&](const RunResults& a) {
        for (std::size_t i = 0; i < plain.ports.size(); ++i)
        {
            if (plain.ports[i].txBytes != a.ports[i].txBytes)
            {
                return false;
            }
        }
        return true;
    };
    EXPECT_TRUE(same(defaults));
    EXPECT_FALSE(same(flowlet));
    EXPECT_FALSE(same(least));
    EXPECT_TRUE(least.complete);
    EXPECT_TRUE(flowlet.complete);
}

// No credit or PFC deadlock under the new routings: over 8 seeds each run completes (the
// watchdog stays quiet) with every invariant held and nothing dropped.
TEST(RoutingChoice, NoDeadlockOverEightSeeds)
{
    // DF9 on RoCE: PFC instead of credits, the lanes as classes.
    std::string roce = DF9;
    roce.replace(roce.find("ib-ndr"), 6, "roce-400g");

    const struct
    {
        const char* head;
        const char* routing;
        bool pfc;
    } cases[] = {
        {"forwarding: adaptive\n", "minimal", false},
        {"forwarding: adaptive\nadaptive_routing:\n  band: 0B\n  random_ties: true\n",
         "valiant",
         false},
        {"forwarding: adaptive\nadaptive_routing:\n  granularity: flowlet\n"
         "  ugal_downstream_weight: 2\n",
         "ugal",
         false},
        {"forwarding: spray\n", "ugal", false},
        {"forwarding: adaptive\n", "ugal", true},
        {"forwarding: adaptive\n", "valiant", true},
    };

    int k = 0;
    for (const auto& c : cases)
    {
        for (uint32_t seed = 1; seed <= 8; ++seed)
        {
            const RunResults r = RunDf9("seed-" + std::to_string(k++),
                                        "seed: " + std::to_string(seed) + "\n" + c.head,
                                        c.routing,
                                        c.pfc ? roce : DF9);
            const std::string what = std::string(c.routing) + (c.pfc ? " (PFC)" : " (credits)")
                                     + " seed " + std::to_string(seed);
            EXPECT_TRUE(r.complete) << what << ": " << r.stopReason;
            EXPECT_TRUE(r.violations.empty()) << what;
            EXPECT_TRUE(r.deadlockCycle.empty()) << what;
            EXPECT_EQ(r.counters.drops, 0u) << what;
        }
    }
}

namespace
{

/// One small fabric of each family the bisection target names (issue 16), with several paths
/// between the two halves of the analyzer's cut, and the per-pair size that saturates it.
struct Family
{
    const char* name;     //!< the family
    const char* topology; //!< its topology mapping
    uint32_t gpus;        //!< GPUs
    const char* pair;     //!< bytes each cross pair exchanges
};

const Family FAMILIES[] = {
    {"fat-tree", "  kind: fat-tree\n  radix: 4\n  link: {profile: ib-ndr}\n", 16, "2MiB"},
    {"leaf-spine-3to1",
     "  kind: leaf-spine\n  radix: 16\n  oversubscription: \"3:1\"\n  leaves: 4\n"
     "  link: {profile: ib-ndr}\n",
     48,
     "1MiB"},
    {"rail-optimized",
     "  kind: rail-optimized\n  gpus_per_server: 4\n  servers_per_su: 4\n  sus: 2\n"
     "  nvlink: true\n  link: {profile: ib-ndr}\n",
     32,
     "1MiB"},
    {"dragonfly-plus",
     "  kind: dragonfly-plus\n  groups: 4\n  leaves_per_group: 2\n  spines_per_group: 3\n"
     "  gpus_per_leaf: 3\n  global_links_per_spine: 2\n  link: {profile: ib-ndr}\n",
     24,
     "1MiB"},
};

/// The cross-cut all-to-all on \p f (every GPU of the first half sends the pair size to every
/// GPU of the second half and back) under \p forwarding; the achieved share of the bisection.
double
CrossCut(const Family& f, const std::string& forwarding, uint32_t seed)
{
    const std::string tag = std::string(f.name) + "-" + forwarding + "-" + std::to_string(seed);
    const std::filesystem::path dir = aifabrictest::FreshScratch("cross-cut-" + tag);
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream out(p);
    out << "name: cross-cut\nseed: " << seed << "\nforwarding: " << forwarding << "\ntopology:\n"
        << f.topology
        << "traffic:\n  collectives:\n    - name: x\n      op: all-to-all\n"
           "      protocol: none\n      algorithm: direct\n      matrix:\n";
    const uint32_t half = f.gpus / 2;
    for (uint32_t i = 0; i < f.gpus; ++i)
    {
        out << "        - [";
        for (uint32_t j = 0; j < f.gpus; ++j)
        {
            out << (j ? ", " : "") << (((i < half) != (j < half)) ? f.pair : "0B");
        }
        out << "]\n";
    }
    out.close();
    const RunResults r = RunScenario(ReadScenarioFile(p.string()), RunOptions{});
    EXPECT_TRUE(r.complete) << tag;
    EXPECT_TRUE(r.violations.empty()) << tag;
    if (r.bisection.size() != 1 || r.bisection[0].sideAGpus != half)
    {
        ADD_FAILURE() << tag << ": the analyzer's cut is not the first half";
        return 0;
    }
    return r.bisection[0].ratio;
}

} // namespace

// The target: a cross-cut all-to-all reaches 95 % of the analyzer's bisection with
// adaptive routing on the fat-tree, 3:1 leaf-spine, rail-optimized and Dragonfly+ families,
// over seeds, where ECMP's flow collisions leave a large share unused (measured 0.47-0.81
// here; docs/bisection-efficiency.md has the sample fabrics).
TEST(RoutingChoice, AdaptiveRoutingReachesNinetyFivePercentOfTheBisection)
{
    for (const Family& f : FAMILIES)
    {
        for (uint32_t seed = 1; seed <= 2; ++seed)
        {
            EXPECT_GE(CrossCut(f, "adaptive", seed), 0.95) << f.name << " seed " << seed;
        }
        if (std::string(f.name) != "dragonfly-plus")
        {
            EXPECT_LT(CrossCut(f, "ecmp", 1), 0.9) << f.name;
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
    // What recovery cost is counted (summary.json fabric, the printed recovery line): without
    // the window, reordered packets are dropped at the receivers and sent again.
    EXPECT_GT(none.counters.outOfOrderDrops, 0u);
    EXPECT_GT(none.counters.retransmittedPackets, none.counters.drops);
    EXPECT_LT(held.counters.retransmittedPackets * 4, none.counters.retransmittedPackets);
    EXPECT_LT(held.counters.outOfOrderDrops, none.counters.outOfOrderDrops);
}

// reorder_window: at most 65536 packets or auto, only where go-back-N runs.
TEST(RoutingChoice, ReorderWindowRefusals)
{
    const auto write = [](const std::string& name, const std::string& transport) {
        const std::filesystem::path dir = aifabrictest::FreshScratch("reorder-bad-" + name);
        const std::filesystem::path p = dir / "s.yaml";
        std::ofstream(p) << "name: bad\nforwarding: spray\ntransport:\n"
                         << transport << DF9 << ALL_TO_ALL;
        return p.string();
    };
    EXPECT_NE(ErrorOf(write("too-far", "  reliability: go-back-n\n  reorder_window: 70000\n"))
                  .find("s.yaml:5:19: error: "),
              std::string::npos);
    EXPECT_NE(ErrorOf(write("lossless", "  reorder_window: 64\n"))
                  .find("'reorder_window' applies only to go-back-n reliability"),
              std::string::npos);
}
