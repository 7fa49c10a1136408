/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fidelity knob on the command line (`--cell-packets N`): its range, its console line and
 * its place in summary.json. The knob itself (`fidelity: {cell_packets: N}`: a simulated
 * packet carries up to N MTU packets' payload with exactly their wire bytes) is tested by the
 * ns-3 TestSuite ai-fabric-link (contrib/ai-fabric/test/link-test-suite.cc).
 */
#include "tool-runner.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>

TEST(Fidelity, CellPacketsFromTheCommandLine)
{
    const auto dir = aifabrictest::FreshScratch("fidelity-cli");
    const std::string example = aifabrictest::SourcePath("examples/ring-allreduce-4gpu.yaml");
    for (const std::string bad : {"0", "65", "x", "-1"})
    {
        const auto o = aifabrictest::RunTool("run '" + example + "' --cell-packets " + bad, dir);
        EXPECT_EQ(o.status, 2) << bad;
        EXPECT_NE(o.err.find("--cell-packets takes an integer from 1 to 64"), std::string::npos)
            << o.err;
    }
    const auto o = aifabrictest::RunTool("run '" + example + "' --cell-packets 4 --out '"
                                             + (dir / "out").string() + "'",
                                         dir);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("fidelity: cell_packets 4:"), std::string::npos) << o.out;
    const std::string summary = aifabrictest::SlurpFile(dir / "out" / "summary.json");
    EXPECT_NE(summary.find("\"cell_packets\": 4"), std::string::npos);
    // Full fidelity says nothing about the knob on the console, and records 1.
    const auto full
        = aifabrictest::RunTool("run '" + example + "' --out '" + (dir / "full").string() + "'",
                                dir);
    ASSERT_EQ(full.status, 0) << full.err;
    EXPECT_EQ(full.out.find("fidelity:"), std::string::npos) << full.out;
    EXPECT_NE(aifabrictest::SlurpFile(dir / "full" / "summary.json").find("\"cell_packets\": 1"),
              std::string::npos);
    std::filesystem::remove_all(dir);
}
