/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's PXN on rail-optimized fabrics (docs/topologies.md, "pxn"): traffic to another rail of
 * another server crosses NVLink to the GPU of that rail first, then stays on the rail.
 */
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

namespace
{

/// A 2-server x 4-GPU rail-optimized NDR fabric with NVLink, with \p extra topology keys.
std::string
RailFabric(const std::string& extra)
{
    return "topology:\n  kind: rail-optimized\n  servers_per_su: 2\n  gpus_per_server: 4\n"
           "  spines: 2\n  nvlink: true\n  link: {profile: ib-ndr}\n"
           + extra;
}

/// Run \p traffic on RailFabric(\p extra).
RunResults
RunOn(const std::string& extra, const std::string& traffic)
{
    const std::filesystem::path dir = aifabrictest::FreshScratch("pxn");
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << "name: pxn\nseed: 1\n" << RailFabric(extra) << traffic;
    return RunScenario(ReadScenarioFile(p.string()), RunOptions{});
}

/// Wire bytes every port of a node whose name starts with \p prefix sent.
uint64_t
SentBy(const RunResults& r, const std::string& prefix)
{
    uint64_t bytes = 0;
    for (const PortRecord& port : r.ports)
    {
        if (port.node.rfind(prefix, 0) == 0)
        {
            bytes += port.txBytes;
        }
    }
    return bytes;
}

const char* const ALL_TO_ALL
    = "traffic:\n  collectives:\n    - name: a\n      op: all-to-all\n      size: 16MiB\n";

} // namespace

/// With PXN (the default with NVLink) an all-to-all between two servers puts nothing on the
/// spines: every byte for the other server leaves on the destination's rail, after an
/// NVLink hop when the rails differ; without it (`pxn: false`, NCCL_PXN_DISABLE=1) the
/// cross-rail bytes climb to the spines, where ECMP collisions make it slower. The same
/// bytes arrive either way, and each NIC carries half of its GPU's buffer each way.
TEST(Pxn, AllToAllStaysOnRails)
{
    const RunResults pxn = RunOn("", ALL_TO_ALL);
    const RunResults off = RunOn("  pxn: false\n", ALL_TO_ALL);
    ASSERT_TRUE(pxn.complete);
    ASSERT_TRUE(off.complete);
    EXPECT_TRUE(pxn.violations.empty()) << pxn.violations.front();
    EXPECT_EQ(SentBy(pxn, "spine"), 0U);
    EXPECT_GT(SentBy(off, "spine"), 0U);
    const CollectiveResult& a = pxn.collectives.at(0);
    const CollectiveResult& b = off.collectives.at(0);
    EXPECT_EQ(a.bytesSentPerRank, b.bytesSentPerRank);
    EXPECT_LT(a.durationS, 0.9 * b.durationS); // (the spines' ECMP collisions cost the other)
    // A GPU's NIC sends what its rail's GPUs of its server send to the other server: half
    // of each of the 4 buffers' other-server share, S/2 in all (plus headers).
    const uint64_t s = 16 << 20;
    for (const std::string gpu : {"gpu0", "gpu5"})
    {
        uint64_t nic = 0;
        for (const PortRecord& port : pxn.ports)
        {
            if (port.node == gpu && port.peer.rfind("su0-rail", 0) == 0)
            {
                nic += port.txBytes;
            }
        }
        EXPECT_NEAR(static_cast<double>(nic) / (s / 2.0), 1.0, 0.02) << gpu;
    }
    // The NICs are the bound: S/2 each at NDR's goodput, plus a few latencies.
    const double nic = s / 2.0 / (50e9 * 4096 / (4096 + 26));
    EXPECT_GT(a.durationS, nic);
    EXPECT_LT(a.durationS, 1.2 * nic);
    // The analytic column prices the NVLink and NIC shares apart: its beta times a rank's
    // bytes (7/8 S) is the NIC's S/2, not every byte at the NIC's rate.
    EXPECT_NEAR(a.betaSPerByte * (7.0 / 8.0 * s) / nic, 1.0, 0.02);
    // Channels do not spread an all-to-all's messages over other NICs: the same estimate.
    const RunResults four = RunOn("",
                                  "traffic:\n  collectives:\n    - name: a\n      op: all-to-all\n"
                                  "      size: 16MiB\n      channels: 4\n");
    ASSERT_TRUE(four.complete);
    EXPECT_EQ(four.collectives.at(0).betaSPerByte, a.betaSPerByte);
}

/// Rings and trees already follow the rails between servers: PXN changes nothing for them.
TEST(Pxn, RailAlignedCollectivesAreUnchanged)
{
    const std::string ring
        = "traffic:\n  collectives:\n    - name: r\n      op: all-reduce\n      size: 8MiB\n";
    const RunResults a = RunOn("", ring);
    const RunResults b = RunOn("  pxn: false\n", ring);
    ASSERT_TRUE(a.complete);
    EXPECT_EQ(a.collectives.at(0).durationS, b.collectives.at(0).durationS);
    EXPECT_EQ(SentBy(a, "spine"), 0U);
}

/// PXN needs NVLink, and only rail-optimized fabrics take the key.
TEST(Pxn, RefusedWithoutNvlink)
{
    const std::filesystem::path dir = aifabrictest::FreshScratch("pxn-bad");
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << "topology:\n  kind: rail-optimized\n  servers_per_su: 2\n"
                        "  gpus_per_server: 4\n  pxn: true\n"
                     << ALL_TO_ALL;
    try
    {
        RunScenario(ReadScenarioFile(p.string()), RunOptions{});
        ADD_FAILURE() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Message().find("pxn: true needs nvlink"), std::string::npos) << e.what();
        EXPECT_EQ(e.Where().line, 5) << e.what();
    }
    std::ofstream(p) << "topology:\n  kind: leaf-spine\n  leaves: 2\n  spines: 1\n"
                        "  gpus_per_leaf: 2\n  pxn: false\n"
                     << ALL_TO_ALL;
    EXPECT_THROW(ReadScenarioFile(p.string()), SpecError);
}
