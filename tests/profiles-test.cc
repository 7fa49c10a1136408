/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The 'ai-fabric profiles' command: it lists every link-profile preset, shows one with its
 * sources, and refuses an unknown name. The presets themselves (names, the values other code
 * relies on, efficiencies, credits, ECN and PFC, sources, a long flow at the protocol
 * goodput) are the ns-3 TestSuite ai-fabric-link (contrib/ai-fabric/test/link-test-suite.cc).
 */
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#ifndef AI_FABRIC_BINARY
#    error "AI_FABRIC_BINARY must name the ai-fabric executable"
#endif

namespace
{

/// Every preset, in the order LinkProfilePresets() lists them.
const std::vector<std::string> PRESET_NAMES = {"nvlink3",
                                               "nvlink4",
                                               "nvlink5",
                                               "ib-hdr",
                                               "ib-ndr",
                                               "ib-xdr",
                                               "roce-100g",
                                               "roce-200g",
                                               "roce-400g",
                                               "roce-800g",
                                               "pcie-gen4",
                                               "pcie-gen5"};

/// The YAML link keys (snake_case struct fields) a source note may name.
const std::set<std::string> FIELD_KEYS = {"rate",
                                          "mtu",
                                          "header_size",
                                          "segment_size",
                                          "framing_size",
                                          "message_header_size",
                                          "control_packet_size",
                                          "propagation_delay",
                                          "switch_latency",
                                          "nic_latency",
                                          "cut_through",
                                          "buffer_per_port",
                                          "flow_control",
                                          "priorities",
                                          "data_priority",
                                          "control_priority",
                                          "credit_block_size",
                                          "credits_per_lane",
                                          "pfc_reaction_time",
                                          "ecn_kmin",
                                          "ecn_kmax",
                                          "ecn_pmax"};

/// The tool's exit status and output.
struct ToolRun
{
    int status{-1};
    std::string out;
    std::string err;
};

/**
 * \param tag names the scratch directory (one per test: ctest runs tests in parallel)
 * \param args the arguments, shell-quoted
 * \return what the tool did
 */
ToolRun
RunTool(const std::string& tag, const std::string& args)
{
    const std::filesystem::path dir
        = std::filesystem::temp_directory_path() / ("ai-fabric-profiles-test-" + tag);
    std::filesystem::create_directories(dir);
    const std::filesystem::path out = dir / "stdout.txt";
    const std::filesystem::path err = dir / "stderr.txt";
    const std::string cmd = std::string("'") + AI_FABRIC_BINARY + "' " + args + " >'" + out.string()
                            + "' 2>'" + err.string() + "' </dev/null";
    const int raw = std::system(cmd.c_str());
    ToolRun r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    std::ifstream o(out);
    std::ostringstream os;
    os << o.rdbuf();
    r.out = os.str();
    std::ifstream e(err);
    std::ostringstream es;
    es << e.rdbuf();
    r.err = es.str();
    return r;
}

} // namespace

TEST(ProfilesCli, ListsEveryPreset)
{
    const ToolRun r = RunTool("list", "profiles");
    EXPECT_EQ(r.status, 0) << r.err;
    for (const auto& name : PRESET_NAMES)
    {
        EXPECT_NE(r.out.find("\n" + name + " "), std::string::npos) << name;
    }
    // ib-ndr at 4096 B: 400 Gb/s x 4096 / 4122 = 49.68 GB/s (99.4 %).
    EXPECT_NE(r.out.find("49.68 (99.4%)"), std::string::npos) << r.out;
    EXPECT_EQ(RunTool("list", "profiles").out, r.out) << "output must be deterministic";
    EXPECT_NE(RunTool("list", "--help").out.find("ai-fabric profiles [NAME]"), std::string::npos);
}

TEST(ProfilesCli, ShowsOnePresetWithSources)
{
    const ToolRun r = RunTool("one", "profiles roce-400g");
    EXPECT_EQ(r.status, 0) << r.err;
    for (const auto& key : FIELD_KEYS)
    {
        EXPECT_NE(r.out.find("  " + key + " "), std::string::npos) << key;
    }
    EXPECT_NE(r.out.find("400000000000bps"), std::string::npos);
    EXPECT_NE(r.out.find("HPCC"), std::string::npos) << "the ECN thresholds' source";
}

TEST(ProfilesCli, UnknownNameExitsWithStatus2)
{
    const ToolRun r = RunTool("unknown", "profiles nosuch");
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("unknown link profile 'nosuch'"), std::string::npos) << r.err;
    for (const auto& name : PRESET_NAMES)
    {
        EXPECT_NE(r.err.find(name), std::string::npos) << name;
    }
    EXPECT_EQ(RunTool("unknown", "profiles ib-ndr ib-hdr").status, 2);
    EXPECT_EQ(RunTool("unknown", "profiles --bogus").status, 2);
}
