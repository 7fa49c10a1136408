/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The link-profile presets: names, the values other code relies on, the
 * derived efficiencies FACTS.md quotes, credits that cover the credit loop,
 * and a single long flow that runs at exactly rate x payload / wire bytes on
 * every preset. Also the 'ai-fabric profiles' command.
 */
#include "config/scenario-spec.h"

#include "ns3/config.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/link-profile.h"
#include "ns3/packet.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"

#include <algorithm>
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

using namespace ns3;

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

/**
 * \param source a preset's source text
 * \return its "; "-separated parts
 */
std::vector<std::string>
SourceParts(const std::string& source)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start < source.size())
    {
        const std::size_t end = std::min(source.find("; ", start), source.size());
        parts.push_back(source.substr(start, end - start));
        start = end + 2;
    }
    return parts;
}

/**
 * \param p a profile
 * \return bytes a lane must advertise to keep one flow at line rate: rate x
 *         (MTU packet serialization + 2 x propagation + hop latency) + 4 MTU packets
 */
double
CreditsNeeded(const LinkProfile& p)
{
    const double bytesPerS = p.rate.GetBitRate() / 8.0;
    const double wire = static_cast<double>(p.WireBytes(p.mtu, false));
    const double loopS = wire / bytesPerS + 2 * p.propagationDelay.GetSeconds()
                         + std::max(p.switchLatency, p.nicLatency).GetSeconds();
    return bytesPerS * loopS + 4 * wire;
}

/**
 * \param p a profile
 * \param payload payload bytes
 * \return efficiency of a stream of such packets, percent
 */
double
EfficiencyPercent(const LinkProfile& p, uint64_t payload)
{
    return 100.0 * payload / p.WireBytes(payload, false);
}

/**
 * \ingroup ai-fabric-tests
 * \brief Simulations tear the simulator down after each test.
 */
class ProfilesTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

} // namespace

TEST_F(ProfilesTest, EveryPresetExistsWithItsName)
{
    const auto& presets = LinkProfilePresets();
    ASSERT_EQ(presets.size(), PRESET_NAMES.size());
    for (std::size_t i = 0; i < PRESET_NAMES.size(); ++i)
    {
        const std::string& name = PRESET_NAMES[i];
        EXPECT_EQ(presets[i].name, name) << "position " << i;
        const LinkProfile* p = FindLinkProfile(name);
        ASSERT_NE(p, nullptr) << name;
        EXPECT_EQ(p->name, name);
        EXPECT_GT(p->rate.GetBitRate(), 0u) << name;
        EXPECT_GT(p->mtu, 0u) << name;
        EXPECT_GT(p->headerBytes, 0u) << name;
        EXPECT_GT(p->controlPacketBytes, 0u) << name;
        EXPECT_GE(p->priorities, 1u) << name;
        EXPECT_LT(p->dataPriority, p->priorities) << name;
        EXPECT_LT(p->controlPriority, p->priorities) << name;
        EXPECT_FALSE(p->source.empty()) << name;
        EXPECT_FALSE(p->encoding.empty()) << name;
        EXPECT_GT(p->propagationDelay, Seconds(0)) << name;
        EXPECT_GT(p->switchLatency, Seconds(0)) << name;
        EXPECT_GT(p->bufferPerPort, 0u) << name;
        if (name.rfind("roce-", 0) == 0)
        {
            EXPECT_EQ(p->technology, "roce");
            EXPECT_EQ(p->headerBytes, 62u) << name;
            EXPECT_EQ(p->framingBytes, 20u) << name;
            EXPECT_EQ(p->messageHeaderBytes, 16u) << name;
            EXPECT_EQ(p->controlPacketBytes, 84u) << name;
            EXPECT_EQ(p->flowControl, LinkProfile::FlowControl::PFC) << name;
            EXPECT_EQ(p->priorities, 8u) << name;
            EXPECT_EQ(p->dataPriority, 3u) << name;
            EXPECT_EQ(p->controlPriority, 6u) << name;
        }
        else if (name.rfind("ib-", 0) == 0)
        {
            EXPECT_EQ(p->technology, "infiniband");
            EXPECT_EQ(p->headerBytes, 26u) << name;
            EXPECT_EQ(p->framingBytes, 0u) << name;
            EXPECT_EQ(p->messageHeaderBytes, 16u) << name;
            EXPECT_EQ(p->controlPacketBytes, 30u) << name;
            EXPECT_EQ(p->flowControl, LinkProfile::FlowControl::CREDIT) << name;
            EXPECT_EQ(p->priorities, 2u) << name;
        }
        else
        {
            // NVLink and PCIe: credit-based, headers per 256 B native packet, no RETH.
            EXPECT_EQ(p->flowControl, LinkProfile::FlowControl::CREDIT) << name;
            EXPECT_EQ(p->segmentBytes, 256u) << name;
            EXPECT_EQ(p->messageHeaderBytes, 0u) << name;
            EXPECT_EQ(p->framingBytes, 0u) << name;
        }
    }
    EXPECT_EQ(FindLinkProfile("nosuch"), nullptr);
}

TEST_F(ProfilesTest, RatesFollowFacts)
{
    // FACTS.md 2.2 (IB 4x), 2.3 (Ethernet), 1.7/2.1 (per-GPU NVLink per direction).
    const std::vector<std::pair<std::string, uint64_t>> gbps = {{"ib-hdr", 200},
                                                                {"ib-ndr", 400},
                                                                {"ib-xdr", 800},
                                                                {"roce-100g", 100},
                                                                {"roce-200g", 200},
                                                                {"roce-400g", 400},
                                                                {"roce-800g", 800},
                                                                {"nvlink3", 12 * 25 * 8},
                                                                {"nvlink4", 18 * 25 * 8},
                                                                {"nvlink5", 18 * 50 * 8}};
    for (const auto& [name, rate] : gbps)
    {
        EXPECT_EQ(FindLinkProfile(name)->rate.GetBitRate(), rate * 1000000000ULL) << name;
    }
    // PCIe x16: GT/s x 16 lanes x 128/130, to the nearest bit per second.
    EXPECT_EQ(FindLinkProfile("pcie-gen4")->rate.GetBitRate(), 252061538462ULL);
    EXPECT_EQ(FindLinkProfile("pcie-gen5")->rate.GetBitRate(), 504123076923ULL);
}

TEST_F(ProfilesTest, IbNdrKeepsTheValuesOtherTestsRelyOn)
{
    const LinkProfile& p = *FindLinkProfile("ib-ndr");
    EXPECT_EQ(p.rate, DataRate("400Gbps"));
    EXPECT_EQ(p.mtu, 4096u);
    EXPECT_EQ(p.headerBytes, 26u);
    EXPECT_EQ(p.segmentBytes, 0u);
    EXPECT_EQ(p.messageHeaderBytes, 16u);
    EXPECT_EQ(p.propagationDelay, NanoSeconds(50));
    EXPECT_EQ(p.switchLatency, NanoSeconds(250));
    EXPECT_EQ(p.nicLatency, Seconds(0));
    EXPECT_EQ(p.creditsPerLane, 256u * 1024);
    EXPECT_EQ(p.bufferPerPort, 1024u * 1024);
    EXPECT_EQ(p.priorities, 2u);
    EXPECT_FALSE(p.cutThrough);
}

TEST_F(ProfilesTest, EfficienciesMatchFacts)
{
    // FACTS.md 2.2 [D]: IB 256 B 90.8 %, 1024 B 97.5 %, 4096 B 99.4 %.
    for (const std::string name : {"ib-hdr", "ib-ndr", "ib-xdr"})
    {
        const LinkProfile& p = *FindLinkProfile(name);
        EXPECT_NEAR(EfficiencyPercent(p, 256), 90.8, 0.05) << name;
        EXPECT_NEAR(EfficiencyPercent(p, 1024), 97.5, 0.05) << name;
        EXPECT_NEAR(EfficiencyPercent(p, 4096), 99.4, 0.05) << name;
    }
    // FACTS.md 2.3 [D]: RoCE 256 B 75.7 %, 512 B 86.2 %, 1024 B 92.6 %, 2048 B 96.2 %,
    // 4096 B 98.0 % (49.0 GB/s at 400G).
    for (const std::string name : {"roce-100g", "roce-200g", "roce-400g", "roce-800g"})
    {
        const LinkProfile& p = *FindLinkProfile(name);
        EXPECT_NEAR(EfficiencyPercent(p, 256), 75.7, 0.05) << name;
        EXPECT_NEAR(EfficiencyPercent(p, 512), 86.2, 0.05) << name;
        EXPECT_NEAR(EfficiencyPercent(p, 1024), 92.6, 0.05) << name;
        EXPECT_NEAR(EfficiencyPercent(p, 2048), 96.2, 0.05) << name;
        EXPECT_NEAR(EfficiencyPercent(p, 4096), 98.0, 0.05) << name;
    }
    EXPECT_NEAR(FindLinkProfile("roce-400g")->GoodputBps() / 8e9, 49.0, 0.05);
    // FACTS.md 2.1: 256 B with header + AE + BE flits = 16/19 = 84.2 %, whatever
    // the simulated packet size (every 256 B pays its flits).
    for (const std::string name : {"nvlink3", "nvlink4", "nvlink5"})
    {
        const LinkProfile& p = *FindLinkProfile(name);
        for (const uint64_t payload : {256u, 1024u, 4096u})
        {
            EXPECT_NEAR(EfficiencyPercent(p, payload), 100.0 * 16 / 19, 1e-9) << name;
        }
    }
    // NVLink4: 450 GB/s x 16/19 = 378.9 GB/s, against ~370 GB/s measured (FACTS.md 2.1).
    EXPECT_NEAR(FindLinkProfile("nvlink4")->GoodputBps() / 8e9, 378.95, 0.01);
    // PCIe: 256 B per 280 B TLP = 91.4 %.
    for (const std::string name : {"pcie-gen4", "pcie-gen5"})
    {
        EXPECT_NEAR(EfficiencyPercent(*FindLinkProfile(name), 4096), 100.0 * 256 / 280, 1e-9);
    }
}

TEST_F(ProfilesTest, CreditsCoverTheCreditLoop)
{
    for (const auto& p : LinkProfilePresets())
    {
        if (p.flowControl != LinkProfile::FlowControl::CREDIT)
        {
            EXPECT_EQ(p.creditsPerLane, 0u) << p.name;
            continue;
        }
        EXPECT_GE(static_cast<double>(p.creditsPerLane), CreditsNeeded(p)) << p.name;
        EXPECT_EQ(p.creditsPerLane % p.creditBlockBytes, 0u) << p.name;
        // The advertised credits alone can never overflow the shared pool.
        EXPECT_GE(p.bufferPerPort, p.priorities * p.creditsPerLane) << p.name;
    }
}

TEST_F(ProfilesTest, RoceEcnAndPfcFollowFacts)
{
    for (const auto& p : LinkProfilePresets())
    {
        if (p.technology != "roce")
        {
            EXPECT_EQ(p.ecnKmin, 0u) << p.name;
            EXPECT_EQ(p.ecnKmax, 0u) << p.name;
            EXPECT_EQ(p.pfcReactionTime, Seconds(0)) << p.name;
            continue;
        }
        // HPCC run.py: Kmin = 100 KB x bw/25G, Kmax = 400 KB x bw/25G (KB = 1000 B), Pmax 0.2.
        const uint64_t gbps = p.rate.GetBitRate() / 1000000000ULL;
        EXPECT_EQ(p.ecnKmin, 100000 * gbps / 25) << p.name;
        EXPECT_EQ(p.ecnKmax, 400000 * gbps / 25) << p.name;
        EXPECT_DOUBLE_EQ(p.ecnPmax, 0.2) << p.name;
        EXPECT_GT(p.pfcReactionTime, Seconds(0)) << p.name;
        // Headroom must leave most of the port's buffer share to the shared pool.
        EXPECT_LT(p.PfcHeadroomBytes(), p.bufferPerPort / 4) << p.name;
    }
    // FACTS.md 2.3: the mlx5 formula at 400G, 10 m, 4096 MTU is about 140 KB;
    // with 500 ns of reaction at 50 B/ns on top: +25 KB.
    const LinkProfile& r400 = *FindLinkProfile("roce-400g");
    const double mlx5 = (301 + 2.16 * 10) * 400 + 2.72 * (4096 + 62 + 20 + 16);
    EXPECT_NEAR(static_cast<double>(r400.PfcHeadroomBytes()), mlx5 + 25000, 1.0);
}

TEST_F(ProfilesTest, SourceNotesNameFields)
{
    for (const auto& p : LinkProfilePresets())
    {
        const std::vector<std::string> parts = SourceParts(p.source);
        ASSERT_GE(parts.size(), 2u) << p.name;
        EXPECT_EQ(parts[0].find(": "), std::string::npos) << p.name << ": summary " << parts[0];
        std::set<std::string> noted;
        for (std::size_t i = 1; i < parts.size(); ++i)
        {
            const std::size_t colon = parts[i].find(": ");
            ASSERT_NE(colon, std::string::npos) << p.name << ": " << parts[i];
            const std::string key = parts[i].substr(0, colon);
            EXPECT_EQ(FIELD_KEYS.count(key), 1u) << p.name << ": unknown key '" << key << "'";
            EXPECT_TRUE(noted.insert(key).second) << p.name << ": two notes for " << key;
            EXPECT_GT(parts[i].size(), colon + 2) << p.name << ": empty note for " << key;
        }
        for (const auto& key : FIELD_KEYS)
        {
            EXPECT_EQ(noted.count(key), 1u) << p.name << " has no source for " << key;
        }
    }
}

namespace
{

/// Payload arrivals at one device.
struct Arrivals
{
    uint64_t packets{0};
    uint64_t bytesAfterFirst{0}; //!< payload of every packet but the first
    Time first{-1};
    Time last;
};

void
OnRx(Arrivals* a, Ptr<const Packet> packet)
{
    FabricHeader h;
    packet->PeekHeader(h);
    if (h.IsControl())
    {
        return;
    }
    if (a->first.IsNegative())
    {
        a->first = Simulator::Now();
    }
    else
    {
        a->bytesAfterFirst += h.m_payload;
    }
    ++a->packets;
    a->last = Simulator::Now();
}

} // namespace

TEST_F(ProfilesTest, SingleLongFlowRunsAtProtocolGoodput)
{
    const uint64_t packets = 2000;
    for (const auto& profile : LinkProfilePresets())
    {
        // gpu0 -> sw -> gpu1; link 1 is AddLink(gpu1, sw): gpu1's NIC is its end a.
        FabricGraph g;
        const uint32_t pi = g.AddProfile(profile);
        const uint32_t sw = g.AddSwitch("sw", 1);
        g.AddLink(g.AddGpu("gpu0"), sw, pi);
        g.AddLink(g.AddGpu("gpu1"), sw, pi);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Arrivals a;
        f.devicesA[1]->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, &a));
        f.transports[0]->PostSend(1, 0, packets * profile.mtu);
        Simulator::Run();

        ASSERT_EQ(a.packets, packets) << profile.name;
        EXPECT_EQ(f.transports[1]->GetBytesReceived(), packets * profile.mtu) << profile.name;
        const double measured = a.bytesAfterFirst / (a.last - a.first).GetSeconds();
        const double expected = profile.GoodputBps() / 8;
        std::cout << profile.name << ": " << measured / 1e9 << " GB/s measured, " << expected / 1e9
                  << " GB/s = rate x mtu / WireBytes(mtu)\n";
        EXPECT_NEAR(measured, expected, expected * 0.005) << profile.name;
        Simulator::Destroy();
    }
}

namespace
{

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
