/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
/**
 * \file
 * \ingroup ai-fabric-tests
 * GoogleTest cases for the YAML scenario reader (yaml-scenario-reader.h):
 * the bad-input corpus in tests/bad-inputs/, every sample file under
 * topologies/, traffic/ and examples/, defaults, inline mappings, error
 * locations, every topology kind's keys landing in TopologySpec, and the
 * run options (congestion control, DCQCN, transport) and collective keys
 * landing in ScenarioSpec and CollectiveSpec.
 */

#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"

#include "ns3/collective-algorithm.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-topology.h"
#include "ns3/link-profile.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-recovery-ops.h"
#include "ns3/spec-error.h"
#include "ns3/string.h"
#include "ns3/training-workload.h"
#include "ns3/uinteger.h"
#include "ns3/units.h"
#include "ns3/workload.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <vector>

#ifndef AI_FABRIC_SOURCE_DIR
#    error "AI_FABRIC_SOURCE_DIR must name the repository root (a compile definition)"
#endif

namespace
{

namespace fs = std::filesystem;
using ns3::SpecError;

/// \return the repository root
fs::path
SourceDir()
{
    return fs::path(AI_FABRIC_SOURCE_DIR);
}

/**
 * \param dir a directory under the repository root
 * \param ext the extension to keep, with the dot
 * \return the files of \p dir with that extension, sorted
 */
std::vector<fs::path>
FilesIn(const std::string& dir, const std::string& ext)
{
    std::vector<fs::path> out;
    const fs::path d = SourceDir() / dir;
    if (fs::is_directory(d))
    {
        for (const auto& e : fs::directory_iterator(d))
        {
            if (e.is_regular_file() && e.path().extension() == ext)
            {
                out.push_back(e.path());
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

/**
 * \param p a path
 * \return the path made absolute and lexically normal, for comparisons
 */
fs::path
Normal(const fs::path& p)
{
    return fs::absolute(p).lexically_normal();
}

// ---------------------------------------------------------------------------
// The bad-input corpus: tests/bad-inputs/<case>/{scenario.yaml, expect, ...}
// ---------------------------------------------------------------------------

/**
 * \ingroup ai-fabric-tests
 * \brief One corpus case as read from its `expect` file.
 */
struct BadInputCase
{
    std::string name;     //!< directory name
    fs::path dir;         //!< the case directory
    std::string fragment; //!< must appear in the error message
    int line{0};          //!< expected 1-based line (0 when the location has no line)
    int column{0};        //!< expected 1-based column (0 when the location has no line)
    std::string file;     //!< expected location file, relative to dir
};

/**
 * \brief Print a case by name in gtest messages (instead of a byte dump).
 * \param c the case
 * \param os the stream
 */
void
PrintTo(const BadInputCase& c, std::ostream* os)
{
    *os << c.name;
}

/// \return every corpus case, sorted by name
std::vector<BadInputCase>
ListBadInputs()
{
    std::vector<BadInputCase> cases;
    const fs::path root = SourceDir() / "tests" / "bad-inputs";
    if (!fs::is_directory(root))
    {
        return cases;
    }
    for (const auto& e : fs::directory_iterator(root))
    {
        if (!e.is_directory())
        {
            continue;
        }
        BadInputCase c;
        c.name = e.path().filename().string();
        c.dir = e.path();
        std::ifstream in(e.path() / "expect");
        std::string loc;
        std::getline(in, c.fragment);
        std::getline(in, loc);
        std::getline(in, c.file);
        if (loc != "-")
        {
            char colon = 0;
            std::istringstream ls(loc);
            ls >> c.line >> colon >> c.column;
        }
        cases.push_back(c);
    }
    std::sort(cases.begin(), cases.end(), [](const BadInputCase& a, const BadInputCase& b) {
        return a.name < b.name;
    });
    return cases;
}

/**
 * \ingroup ai-fabric-tests
 * \brief One test per corpus case.
 */
class BadInputTest : public ::testing::TestWithParam<BadInputCase>
{
};

TEST_P(BadInputTest, IsRejectedAtTheRightPlace)
{
    const BadInputCase& c = GetParam();
    ASSERT_FALSE(c.fragment.empty()) << c.dir / "expect"
                                     << " has no fragment line";
    ASSERT_FALSE(c.file.empty()) << c.dir / "expect"
                                 << " has no file line";
    const std::string scenario = (c.dir / "scenario.yaml").string();
    try
    {
        const ns3::ScenarioSpec spec = ns3::ReadScenarioFile(scenario);
        // Some errors need the built fabric (e.g. a PFC buffer below its headroom): they
        // are thrown by RunScenario before the simulation starts (by RunSweep for a swept
        // collective, as `ai-fabric run` does, for a size beyond the first).
        if (ns3::FindSweptCollective(spec) >= 0)
        {
            ns3::RunSweep(spec, ns3::RunOptions{});
        }
        else
        {
            ns3::RunScenario(spec, ns3::RunOptions{});
        }
        FAIL() << c.name << ": no SpecError was thrown";
    }
    catch (const SpecError& e)
    {
        const std::string what = e.what();
        EXPECT_NE(e.Message().find(c.fragment), std::string::npos)
            << c.name << ": message lacks '" << c.fragment << "'\n  got: " << what;
        EXPECT_EQ(Normal(e.Where().file), Normal(c.dir / c.file)) << c.name << ": " << what;
        EXPECT_EQ(e.Where().line, c.line) << c.name << ": " << what;
        EXPECT_EQ(e.Where().column, c.column) << c.name << ": " << what;
        EXPECT_EQ(what, e.Where().ToString() + ": error: " + e.Message());
    }
    catch (const std::exception& e)
    {
        FAIL() << c.name << ": threw something other than SpecError: " << e.what();
    }
}

/**
 * \param info the parameter
 * \return a gtest-safe name ('-' is not allowed)
 */
std::string
CaseName(const ::testing::TestParamInfo<BadInputCase>& info)
{
    std::string n = info.param.name;
    std::replace_if(
        n.begin(),
        n.end(),
        [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); },
        '_');
    return n;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInputTest, ::testing::ValuesIn(ListBadInputs()), CaseName);

TEST(BadInputCorpus, HasAtLeastTwentyCases)
{
    EXPECT_GE(ListBadInputs().size(), 20U);
}

// ---------------------------------------------------------------------------
// The sample files
// ---------------------------------------------------------------------------

TEST(SampleFiles, EveryTopologyParses)
{
    const auto files = FilesIn("topologies", ".yaml");
    EXPECT_FALSE(files.empty());
    for (const auto& f : files)
    {
        EXPECT_NO_THROW(ns3::ReadTopologyFile(f.string())) << f;
    }
}

TEST(SampleFiles, EveryTrafficParses)
{
    const auto files = FilesIn("traffic", ".yaml");
    EXPECT_FALSE(files.empty());
    for (const auto& f : files)
    {
        EXPECT_NO_THROW(ns3::ReadTrafficFile(f.string())) << f;
    }
}

TEST(SampleFiles, EveryExampleScenarioParses)
{
    const auto files = FilesIn("examples", ".yaml");
    EXPECT_FALSE(files.empty());
    for (const auto& f : files)
    {
        try
        {
            ns3::ReadScenarioFile(f.string());
        }
        catch (const SpecError& e)
        {
            ADD_FAILURE() << e.what();
        }
    }
}

TEST(SampleFiles, MainDemoIsEightGpusRingAllReduce256MiB)
{
    const ns3::ScenarioSpec s
        = ns3::ReadScenarioFile((SourceDir() / "examples" / "ring-allreduce-8gpu.yaml").string());
    EXPECT_EQ(s.name, "ring-allreduce-8gpu");
    EXPECT_EQ(s.seed, 1U);
    EXPECT_EQ(s.stopTime, ns3::Seconds(1));
    EXPECT_EQ(s.topology.name, "single-switch-8-ndr");
    EXPECT_EQ(s.topology.Kind(), "single-switch");
    EXPECT_EQ(s.topology.gpus, 8U);
    EXPECT_EQ(s.topology.link.name, "ib-ndr");
    EXPECT_EQ(s.topology.link.rate.GetBitRate(), 400000000000ULL);
    EXPECT_EQ(s.topology.link.mtu, 4096U);
    EXPECT_EQ(s.topology.link.headerBytes, 26U);
    EXPECT_EQ(s.topology.link.messageHeaderBytes, 16U);
    EXPECT_EQ(s.topology.link.propagationDelay, ns3::NanoSeconds(50));
    EXPECT_EQ(s.topology.link.switchLatency, ns3::NanoSeconds(250));
    EXPECT_EQ(s.topology.link.nicLatency, ns3::Seconds(0));
    EXPECT_EQ(Normal(s.topology.where.file),
              Normal(SourceDir() / "topologies" / "single-switch-8-ndr.yaml"));
    EXPECT_EQ(s.traffic.name, "allreduce-ring-256mib");
    ASSERT_EQ(s.traffic.collectives.size(), 1U);
    const ns3::CollectiveSpec& c = s.traffic.collectives[0];
    EXPECT_EQ(c.name, "grad-allreduce");
    EXPECT_EQ(ns3::CollectiveOpName(c.op), "all-reduce");
    EXPECT_EQ(c.algorithm, "ring");
    EXPECT_EQ(c.bytes, 256ULL << 20);
    EXPECT_TRUE(c.ranks.empty());
    EXPECT_EQ(c.start, ns3::Seconds(0));
    EXPECT_GT(c.where.line, 0);
}

TEST(SampleFiles, SmallDemoIsFourGpus)
{
    const ns3::ScenarioSpec s
        = ns3::ReadScenarioFile((SourceDir() / "examples" / "ring-allreduce-4gpu.yaml").string());
    EXPECT_EQ(s.topology.gpus, 4U);
    ASSERT_EQ(s.traffic.collectives.size(), 1U);
    EXPECT_EQ(s.traffic.collectives[0].bytes, 64ULL << 20);
}

// ---------------------------------------------------------------------------
// Files written on the fly: defaults, inline mappings, overrides, locations
// ---------------------------------------------------------------------------

/**
 * \ingroup ai-fabric-tests
 * \brief A fresh scratch directory per test, removed afterwards.
 */
class ScratchDir : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path()
                / ("ai-fabric-reader-" + std::string(info->name()) + "-"
                   + std::to_string(static_cast<long>(::getpid())));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }

    void TearDown() override
    {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }

    /**
     * \param name file name inside the scratch directory (may contain a subdirectory)
     * \param content the file's text
     * \return the file's path
     */
    std::string Write(const std::string& name, const std::string& content)
    {
        const fs::path p = m_dir / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << content;
        return p.string();
    }

    fs::path m_dir; //!< the scratch directory
};

TEST_F(ScratchDir, DefaultsAreFilledIn)
{
    const std::string path = Write("my-run.yaml",
                                   "topology:\n"
                                   "  kind: single-switch\n"
                                   "  gpus: 4\n"
                                   "traffic:\n"
                                   "  collectives:\n"
                                   "    - op: all-gather\n"
                                   "      size: 1MiB\n"
                                   "    - op: reduce-scatter\n"
                                   "      size: 2MiB\n");
    const ns3::ScenarioSpec s = ns3::ReadScenarioFile(path);
    EXPECT_EQ(s.name, "my-run");
    EXPECT_EQ(s.seed, 1U);
    EXPECT_EQ(s.stopTime, ns3::Seconds(10));
    EXPECT_EQ(ns3::SpecName(s.forwarding), "ecmp");
    EXPECT_EQ(s.where.file, path);
    EXPECT_EQ(s.topology.name, "my-run-topology");
    EXPECT_EQ(s.topology.where.file, path);
    EXPECT_EQ(s.topology.where.line, 2);
    EXPECT_EQ(s.topology.where.column, 3);
    const ns3::LinkProfile* ndr = ns3::FindLinkProfile("ib-ndr");
    ASSERT_NE(ndr, nullptr);
    EXPECT_EQ(s.topology.link.name, ndr->name);
    EXPECT_EQ(s.topology.link.rate, ndr->rate);
    EXPECT_EQ(s.topology.link.mtu, ndr->mtu);
    EXPECT_EQ(s.topology.link.source, ndr->source);
    EXPECT_EQ(s.traffic.name, "my-run-traffic");
    ASSERT_EQ(s.traffic.collectives.size(), 2U);
    EXPECT_EQ(s.traffic.collectives[0].name, "c0");
    EXPECT_EQ(s.traffic.collectives[1].name, "c1");
    EXPECT_EQ(s.traffic.collectives[0].algorithm, "ring");
    EXPECT_EQ(ns3::CollectiveOpName(s.traffic.collectives[0].op), "all-gather");
    EXPECT_EQ(ns3::CollectiveOpName(s.traffic.collectives[1].op), "reduce-scatter");
    EXPECT_EQ(s.traffic.collectives[1].bytes, 2ULL << 20);
    EXPECT_TRUE(s.traffic.collectives[0].ranks.empty());
    EXPECT_EQ(s.traffic.collectives[0].start, ns3::Seconds(0));
    EXPECT_EQ(s.traffic.collectives[0].where.line, 6);
    EXPECT_EQ(s.traffic.collectives[0].where.column, 7);
    EXPECT_EQ(s.traffic.collectives[0].ranksWhere.line, 6);
}

TEST_F(ScratchDir, EveryKeyIsRead)
{
    Write("topo/t.yaml",
          "name: my-topo\n"
          "kind: single-switch\n"
          "gpus: 16\n"
          "link:\n"
          "  profile: ib-ndr\n"
          "  rate: 800Gbps\n"
          "  mtu: 2KiB\n"
          "  header_size: 30B\n"
          "  message_header_size: 0B\n"
          "  propagation_delay: 0.1us\n"
          "  switch_latency: 130ns\n"
          "  nic_latency: 1.5ns\n");
    Write("traffic/w.yaml",
          "name: my-traffic\n"
          "collectives:\n"
          "  - name: first\n"
          "    op: reduce-scatter\n"
          "    algorithm: ring\n"
          "    size: 1.5KiB\n"
          "    ranks: [3, 1, 15, 0]\n"
          "    start: 2.5us\n");
    const std::string path = Write("scen/s.yaml",
                                   "name: my-scenario\n"
                                   "seed: 42\n"
                                   "stop_time: 250ms\n"
                                   "forwarding: spray\n"
                                   "topology: ../topo/t.yaml\n"
                                   "traffic: ../traffic/w.yaml\n");
    const ns3::ScenarioSpec s = ns3::ReadScenarioFile(path);
    EXPECT_EQ(s.name, "my-scenario");
    EXPECT_EQ(s.seed, 42U);
    EXPECT_EQ(s.stopTime, ns3::MilliSeconds(250));
    EXPECT_EQ(ns3::SpecName(s.forwarding), "spray");
    EXPECT_EQ(s.topology.name, "my-topo");
    EXPECT_EQ(s.topology.gpus, 16U);
    EXPECT_EQ(s.topology.link.rate.GetBitRate(), 800000000000ULL);
    EXPECT_EQ(s.topology.link.mtu, 2048U);
    EXPECT_EQ(s.topology.link.headerBytes, 30U);
    EXPECT_EQ(s.topology.link.messageHeaderBytes, 0U);
    EXPECT_EQ(s.topology.link.propagationDelay, ns3::NanoSeconds(100));
    EXPECT_EQ(s.topology.link.switchLatency, ns3::NanoSeconds(130));
    EXPECT_EQ(s.topology.link.nicLatency, ns3::PicoSeconds(1500));
    EXPECT_NE(s.topology.link.source.find("overridden in"), std::string::npos);
    EXPECT_NE(s.topology.link.source.find("rate, mtu, header_size"), std::string::npos);
    EXPECT_EQ(Normal(s.topology.where.file), Normal(m_dir / "topo" / "t.yaml"));
    // The path is shown lexically normalised, without "scen/..".
    EXPECT_EQ(s.topology.where.file.find(".."), std::string::npos) << s.topology.where.file;
    EXPECT_EQ(s.traffic.name, "my-traffic");
    ASSERT_EQ(s.traffic.collectives.size(), 1U);
    const ns3::CollectiveSpec& c = s.traffic.collectives[0];
    EXPECT_EQ(c.name, "first");
    EXPECT_EQ(ns3::CollectiveOpName(c.op), "reduce-scatter");
    EXPECT_EQ(c.bytes, 1536U);
    EXPECT_EQ(c.ranks, (std::vector<uint32_t>{3, 1, 15, 0}));
    EXPECT_EQ(c.start, ns3::NanoSeconds(2500));
    EXPECT_EQ(Normal(c.ranksWhere.file), Normal(m_dir / "traffic" / "w.yaml"));
    EXPECT_EQ(c.ranksWhere.line, 7);
    EXPECT_EQ(c.ranksWhere.column, 12);
}

TEST_F(ScratchDir, LeafSpineKeysAreRead)
{
    const std::string path = Write("s.yaml",
                                   "topology:\n"
                                   "  kind: leaf-spine\n"
                                   "  leaves: 4\n"
                                   "  spines: 2\n"
                                   "  gpus_per_leaf: 8\n"
                                   "  links_per_spine: 4\n"
                                   "traffic:\n"
                                   "  collectives:\n"
                                   "    - op: all-reduce\n"
                                   "      size: 1MiB\n"
                                   "      ranks: [0, 8, 16, 31]\n");
    const ns3::ScenarioSpec s = ns3::ReadScenarioFile(path);
    EXPECT_EQ(s.topology.Kind(), "leaf-spine");
    const auto& ls = s.topology.As<ns3::LeafSpineSpec>();
    EXPECT_EQ(ls.leaves, 4U);
    EXPECT_EQ(ls.spines, 2U);
    EXPECT_EQ(ls.gpusPerLeaf, 8U);
    EXPECT_EQ(ls.linksPerSpine, 4U);
    EXPECT_EQ(s.topology.gpus, 32U); // leaves x gpus_per_leaf
    const std::string dflt
        = Write("t.yaml", "kind: leaf-spine\nleaves: 2\nspines: 1\ngpus_per_leaf: 1\n");
    EXPECT_EQ(ns3::ReadTopologyFile(dflt).As<ns3::LeafSpineSpec>().linksPerSpine, 1U);
    EXPECT_EQ(ns3::ReadTopologyFile(dflt).gpus, 2U);
    // A single-switch topology has no leaf-spine fields.
    const std::string ss = Write("u.yaml", "kind: single-switch\ngpus: 4\n");
    EXPECT_TRUE(ns3::ReadTopologyFile(ss).Is<ns3::SingleSwitchSpec>());
    const std::string huge = Write("h.yaml",
                                   "kind: leaf-spine\nleaves: 65536\nspines: 1\n"
                                   "gpus_per_leaf: 65536\n");
    EXPECT_THROW(ns3::ReadTopologyFile(huge), SpecError);
}

TEST_F(ScratchDir, EveryLinkKeyOverridesItsField)
{
    const std::string path = Write("t.yaml",
                                   "kind: single-switch\n"
                                   "gpus: 4\n"
                                   "link:\n"
                                   "  profile: ib-ndr\n"
                                   "  rate: 200Gbps\n"
                                   "  mtu: 2KiB\n"
                                   "  header_size: 20B\n"
                                   "  segment_size: 256B\n"
                                   "  framing_size: 20B\n"
                                   "  message_header_size: 0B\n"
                                   "  control_packet_size: 84B\n"
                                   "  propagation_delay: 0ns\n"
                                   "  switch_latency: 600ns\n"
                                   "  nic_latency: 1us\n"
                                   "  cut_through: true\n"
                                   "  buffer_per_port: 2MB\n"
                                   "  flow_control: none\n"
                                   "  priorities: 8\n"
                                   "  data_priority: 3\n"
                                   "  control_priority: 6\n"
                                   "  credit_block_size: 128B\n"
                                   "  credits_per_lane: 0B\n"
                                   "  pfc_reaction_time: 1.5us\n"
                                   "  ecn_kmin: 100KB\n"
                                   "  ecn_kmax: 400KB\n"
                                   "  ecn_pmax: 0.2\n");
    const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
    const ns3::LinkProfile& l = t.link;
    EXPECT_EQ(l.name, "ib-ndr");
    EXPECT_EQ(l.rate.GetBitRate(), 200000000000ULL);
    EXPECT_EQ(l.mtu, 2048U);
    EXPECT_EQ(l.headerBytes, 20U);
    EXPECT_EQ(l.segmentBytes, 256U);
    EXPECT_EQ(l.framingBytes, 20U);
    EXPECT_EQ(l.messageHeaderBytes, 0U);
    EXPECT_EQ(l.controlPacketBytes, 84U);
    EXPECT_EQ(l.propagationDelay, ns3::Seconds(0));
    EXPECT_EQ(l.switchLatency, ns3::NanoSeconds(600));
    EXPECT_EQ(l.nicLatency, ns3::MicroSeconds(1));
    EXPECT_TRUE(l.cutThrough);
    EXPECT_EQ(l.bufferPerPort, 2000000U);
    EXPECT_EQ(l.flowControl, ns3::LinkProfile::FlowControl::NONE);
    EXPECT_EQ(l.priorities, 8U);
    EXPECT_EQ(l.dataPriority, 3U);
    EXPECT_EQ(l.controlPriority, 6U);
    EXPECT_EQ(l.creditBlockBytes, 128U);
    EXPECT_EQ(l.creditsPerLane, 0U); // allowed: the link is not credit-based any more
    EXPECT_EQ(l.pfcReactionTime, ns3::NanoSeconds(1500));
    EXPECT_EQ(l.ecnKmin, 100000U);
    EXPECT_EQ(l.ecnKmax, 400000U);
    EXPECT_DOUBLE_EQ(l.ecnPmax, 0.2);
    // 2048 B in 8 segments of 256 B: 2048 + 8 x 20 + 20 = 2228 B on the wire.
    EXPECT_EQ(l.WireBytes(2048, false), 2228U);
    EXPECT_FALSE(t.hostLink);
    const ns3::LinkProfile* ndr = ns3::FindLinkProfile("ib-ndr");
    ASSERT_NE(ndr, nullptr);
    EXPECT_EQ(l.source,
              ndr->source + "; overridden in " + path
                  + ": rate, mtu, header_size, segment_size, framing_size, "
                    "message_header_size, control_packet_size, propagation_delay, "
                    "switch_latency, nic_latency, cut_through, buffer_per_port, flow_control, "
                    "priorities, data_priority, control_priority, credit_block_size, "
                    "credits_per_lane, pfc_reaction_time, ecn_kmin, ecn_kmax, ecn_pmax");
}

TEST_F(ScratchDir, KeysLeftOutKeepThePresetValues)
{
    const ns3::LinkProfile* ndr = ns3::FindLinkProfile("ib-ndr");
    ASSERT_NE(ndr, nullptr);
    const ns3::LinkProfile l = ns3::ReadTopologyFile(Write("t.yaml",
                                                           "kind: single-switch\ngpus: 2\n"
                                                           "link:\n  ecn_pmax: 1\n"))
                                   .link;
    EXPECT_EQ(l.ecnPmax, 1.0);
    EXPECT_EQ(l.flowControl, ndr->flowControl);
    EXPECT_EQ(l.creditsPerLane, ndr->creditsPerLane);
    EXPECT_EQ(l.bufferPerPort, ndr->bufferPerPort);
    EXPECT_EQ(l.priorities, ndr->priorities);
    EXPECT_EQ(l.cutThrough, ndr->cutThrough);
    EXPECT_EQ(l.segmentBytes, ndr->segmentBytes);
    EXPECT_EQ(l.source,
              ndr->source + "; overridden in " + (m_dir / "t.yaml").string() + ": ecn_pmax");
}

TEST_F(ScratchDir, FlowControlNamesMapToTheEnum)
{
    const std::vector<std::pair<std::string, ns3::LinkProfile::FlowControl>> kinds = {
        {"none", ns3::LinkProfile::FlowControl::NONE},
        {"credit", ns3::LinkProfile::FlowControl::CREDIT},
        {"pfc", ns3::LinkProfile::FlowControl::PFC},
    };
    for (const auto& [name, kind] : kinds)
    {
        const std::string path
            = Write("t.yaml",
                    "kind: single-switch\ngpus: 2\nlink:\n  flow_control: " + name + "\n");
        const ns3::LinkProfile l = ns3::ReadTopologyFile(path).link;
        EXPECT_EQ(l.flowControl, kind) << name;
        EXPECT_EQ(l.FlowControlName(), name);
    }
    for (const std::string bad : {"PFC", "lossless", "credits", "\"\"", "[pfc]", "true"})
    {
        const std::string path
            = Write("t.yaml", "kind: single-switch\ngpus: 2\nlink:\n  flow_control: " + bad + "\n");
        EXPECT_THROW(ns3::ReadTopologyFile(path), SpecError) << bad;
    }
}

TEST_F(ScratchDir, CutThroughIsTrueOrFalseOnly)
{
    for (const auto& [text, value] : std::vector<std::pair<std::string, bool>>{{"true", true},
                                                                               {"false", false},
                                                                               {"\"true\"", true}})
    {
        const std::string path
            = Write("t.yaml", "kind: single-switch\ngpus: 2\nlink:\n  cut_through: " + text + "\n");
        EXPECT_EQ(ns3::ReadTopologyFile(path).link.cutThrough, value) << text;
    }
    // yaml-cpp reads all of these as booleans; the format does not.
    for (const std::string bad : {"yes", "no", "on", "off", "True", "FALSE", "y", "1", "0", "~"})
    {
        const std::string path
            = Write("t.yaml", "kind: single-switch\ngpus: 2\nlink:\n  cut_through: " + bad + "\n");
        EXPECT_THROW(ns3::ReadTopologyFile(path), SpecError) << bad;
    }
}

TEST_F(ScratchDir, EcnPmaxIsAPlainNumberFromZeroToOne)
{
    for (const auto& [text, value] : std::vector<std::pair<std::string, double>>{{"0", 0.0},
                                                                                 {"1", 1.0},
                                                                                 {"1.0", 1.0},
                                                                                 {"0.2", 0.2},
                                                                                 {"0.01", 0.01},
                                                                                 {"\"0.5\"", 0.5}})
    {
        const std::string path
            = Write("t.yaml", "kind: single-switch\ngpus: 2\nlink:\n  ecn_pmax: " + text + "\n");
        EXPECT_DOUBLE_EQ(ns3::ReadTopologyFile(path).link.ecnPmax, value) << text;
    }
    for (const std::string bad : {"1.5",
                                  "2",
                                  "1.0000001",
                                  "-0.1",
                                  "+0.5",
                                  ".5",
                                  "5.",
                                  "1e-1",
                                  "20%",
                                  "01",
                                  "0.5 ",
                                  "x",
                                  "~"})
    {
        const std::string path
            = Write("t.yaml", "kind: single-switch\ngpus: 2\nlink:\n  ecn_pmax: \"" + bad + "\"\n");
        EXPECT_THROW(ns3::ReadTopologyFile(path), SpecError) << bad;
    }
}

TEST_F(ScratchDir, RangesOfSingleLinkValues)
{
    const auto read = [this](const std::string& line) {
        return ns3::ReadTopologyFile(
                   Write("t.yaml", "kind: single-switch\ngpus: 2\nlink:\n  " + line + "\n"))
            .link;
    };
    EXPECT_EQ(read("priorities: 16").priorities, 16U);
    EXPECT_EQ(read("priorities: 1").priorities, 1U);
    EXPECT_EQ(read("segment_size: 0B").segmentBytes, 0U);
    EXPECT_EQ(read("framing_size: 0B").framingBytes, 0U);
    EXPECT_EQ(read("message_header_size: 0B").messageHeaderBytes, 0U);
    EXPECT_EQ(read("propagation_delay: 0s").propagationDelay, ns3::Seconds(0));
    EXPECT_EQ(read("pfc_reaction_time: 0ns").pfcReactionTime, ns3::Seconds(0));
    EXPECT_EQ(read("buffer_per_port: 64MiB").bufferPerPort, 64ULL << 20);
    for (const std::string bad : {"priorities: 0",
                                  "priorities: 17",
                                  "priorities: 2.0",
                                  "data_priority: 16",
                                  "control_priority: -1",
                                  "mtu: 0B",
                                  "mtu: 4GiB",
                                  "header_size: 26",
                                  "control_packet_size: 0B",
                                  "credit_block_size: 0B",
                                  "buffer_per_port: 0B",
                                  "segment_size: -256B",
                                  "ecn_kmin: 100",
                                  "pfc_reaction_time: 1",
                                  "switch_latency: 100Gbps",
                                  "rate: 0Gbps",
                                  "profile: [ib-ndr]"})
    {
        EXPECT_THROW(read(bad), SpecError) << bad;
    }
}

TEST_F(ScratchDir, ChecksBetweenLinkFieldsRunAfterAllOverrides)
{
    const auto read = [this](const std::string& lines) {
        return ns3::ReadTopologyFile(
                   Write("t.yaml", "kind: single-switch\ngpus: 2\nlink:\n" + lines))
            .link;
    };
    // data_priority before priorities in the file: fine, the check sees both.
    EXPECT_EQ(read("  data_priority: 3\n  priorities: 4\n").dataPriority, 3U);
    EXPECT_EQ(read("  control_priority: 7\n  priorities: 8\n").controlPriority, 7U);
    // Credits: ib-ndr's largest packet is 4096 + 26 + 16 = 4138 B, 4160 B in 64 B blocks.
    EXPECT_EQ(read("  flow_control: credit\n  credits_per_lane: 4160B\n").creditsPerLane, 4160U);
    EXPECT_THROW(read("  flow_control: credit\n  credits_per_lane: 4159B\n"), SpecError);
    // A smaller MTU makes 4 KiB enough: 2048 + 42 = 2090 B, 2112 B in blocks.
    EXPECT_EQ(read("  mtu: 2KiB\n  credits_per_lane: 4KiB\n").creditsPerLane, 4096U);
    // Segments pay the header each: 4096 B in 16 segments of 256 B = 4096 + 16 x 26 + 16
    // = 4528 B, 4544 B in blocks.
    EXPECT_NO_THROW(read("  segment_size: 256B\n  credits_per_lane: 4544B\n"));
    EXPECT_THROW(read("  segment_size: 256B\n  credits_per_lane: 4543B\n"), SpecError);
    // 1-byte credit blocks: exactly one packet.
    EXPECT_NO_THROW(read("  credit_block_size: 1B\n  credits_per_lane: 4138B\n"));
    // Without credit flow control, credits_per_lane is not used.
    EXPECT_NO_THROW(read("  flow_control: pfc\n  credits_per_lane: 0B\n"));
    EXPECT_NO_THROW(read("  flow_control: none\n  credits_per_lane: 1B\n"));
    // ECN: off (kmin 0) needs nothing; kmin == kmax is a step.
    EXPECT_NO_THROW(read("  ecn_kmin: 0B\n  ecn_kmax: 0B\n"));
    EXPECT_NO_THROW(read("  ecn_kmax: 0B\n"));
    EXPECT_NO_THROW(read("  ecn_kmin: 30KB\n  ecn_kmax: 30KB\n"));
    EXPECT_THROW(read("  ecn_kmin: 30KB\n"), SpecError); // the preset's kmax is below
    EXPECT_THROW(read("  ecn_kmin: 30001B\n  ecn_kmax: 30KB\n"), SpecError);
}

TEST_F(ScratchDir, ErrorsBetweenLinkFieldsAreLocatedAtTheKeyToBlame)
{
    const auto where = [this](const std::string& lines) -> ns3::SpecLocation {
        try
        {
            ns3::ReadTopologyFile(Write("t.yaml", "kind: single-switch\ngpus: 2\nlink:\n" + lines));
        }
        catch (const SpecError& e)
        {
            return e.Where();
        }
        ADD_FAILURE() << "no SpecError for " << lines;
        return {};
    };
    // The key itself was given: it is to blame.
    ns3::SpecLocation at = where("  priorities: 2\n  data_priority: 5\n");
    EXPECT_EQ(at.line, 5);
    EXPECT_EQ(at.column, 3);
    // Only the MTU changed: the preset's credits no longer hold a packet; blame the MTU.
    at = where("  profile: ib-ndr\n  mtu: 1MiB\n");
    EXPECT_EQ(at.line, 5);
    EXPECT_EQ(at.column, 3);
    // Both ECN thresholds given: ecn_kmin is named first.
    at = where("  ecn_kmax: 1KB\n  ecn_kmin: 2KB\n");
    EXPECT_EQ(at.line, 5);
    try
    {
        ns3::ReadTopologyFile(
            Write("u.yaml", "kind: single-switch\ngpus: 2\nlink:\n  credits_per_lane: 1KiB\n"));
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(),
                  "credits_per_lane: credits_per_lane 1024 B is smaller than one largest packet, "
                  "4160 B (mtu 4096 + 1 x header_size 26 + framing_size 0 + message_header_size "
                  "16 = 4138 B, in whole 64 B credit blocks), so such a packet could never be "
                  "sent");
        EXPECT_EQ(e.Where().line, 4);
        EXPECT_EQ(e.Where().column, 3);
    }
}

TEST_F(ScratchDir, HostLinkIsRead)
{
    const std::string path = Write("t.yaml",
                                   "kind: leaf-spine\n"
                                   "leaves: 2\n"
                                   "spines: 2\n"
                                   "gpus_per_leaf: 2\n"
                                   "link:\n"
                                   "  profile: ib-ndr\n"
                                   "host_link:\n"
                                   "  profile: ib-ndr\n"
                                   "  rate: 252Gbps\n"
                                   "  segment_size: 256B\n"
                                   "  header_size: 24B\n"
                                   "  flow_control: none\n"
                                   "  propagation_delay: 5ns\n");
    const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
    EXPECT_TRUE(t.hostLink);
    EXPECT_EQ(t.hostLink->name, "ib-ndr");
    EXPECT_EQ(t.hostLink->rate.GetBitRate(), 252000000000ULL);
    EXPECT_EQ(t.hostLink->segmentBytes, 256U);
    EXPECT_EQ(t.hostLink->headerBytes, 24U);
    EXPECT_EQ(t.hostLink->flowControl, ns3::LinkProfile::FlowControl::NONE);
    EXPECT_EQ(t.hostLink->propagationDelay, ns3::NanoSeconds(5));
    EXPECT_NE(t.hostLink->source.find("overridden in " + path
                                      + ": rate, header_size, segment_size, propagation_delay, "
                                        "flow_control"),
              std::string::npos)
        << t.hostLink->source;
    // The fabric link is untouched by the host link's overrides.
    EXPECT_EQ(t.link.rate.GetBitRate(), 400000000000ULL);
    EXPECT_EQ(t.link.segmentBytes, ns3::FindLinkProfile("ib-ndr")->segmentBytes);
    EXPECT_EQ(t.link.source, ns3::FindLinkProfile("ib-ndr")->source);
    EXPECT_EQ(t.gpus, 4U);
}

TEST_F(ScratchDir, HostLinkWithoutProfileDefaultsToPcieGen5)
{
    const std::string path = Write("t.yaml",
                                   "kind: single-switch\n"
                                   "gpus: 2\n"
                                   "host_link:\n"
                                   "  nic_latency: 100ns\n");
    const ns3::LinkProfile* gen5 = ns3::FindLinkProfile("pcie-gen5");
    if (gen5)
    {
        const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
        EXPECT_TRUE(t.hostLink);
        EXPECT_EQ(t.hostLink->name, "pcie-gen5");
        EXPECT_EQ(t.hostLink->rate, gen5->rate);
        EXPECT_EQ(t.hostLink->nicLatency, ns3::NanoSeconds(100));
        const std::string empty = Write("u.yaml", "kind: single-switch\ngpus: 2\nhost_link: {}\n");
        EXPECT_EQ(ns3::ReadTopologyFile(empty).hostLink->source, gen5->source);
    }
    else
    {
        // Without the preset there is no default: profile is required.
        try
        {
            ns3::ReadTopologyFile(path);
            FAIL() << "no SpecError";
        }
        catch (const SpecError& e)
        {
            EXPECT_NE(e.Message().find("missing required key 'profile' in host_link"),
                      std::string::npos)
                << e.what();
            EXPECT_EQ(e.Where().line, 4);
            EXPECT_EQ(e.Where().column, 3);
        }
    }
}

TEST_F(ScratchDir, HostLinkDataClassNeedNotExistOnTheFabricLink)
{
    // Traffic classes are end to end and map onto a link's lanes
    // (FabricNetDevice::LaneOf), so any host-link class is accepted.
    const std::string base = "kind: single-switch\ngpus: 2\nlink:\n  priorities: 4\n";
    const std::string ok
        = Write("ok.yaml",
                base + "host_link:\n  profile: ib-ndr\n  priorities: 8\n  data_priority: 6\n");
    EXPECT_EQ(ns3::ReadTopologyFile(ok).hostLink->dataPriority, 6U);
}

TEST_F(ScratchDir, EveryPresetIsAcceptedAsIsOnBothLinks)
{
    ASSERT_FALSE(ns3::LinkProfilePresets().empty());
    for (const auto& p : ns3::LinkProfilePresets())
    {
        const std::string path = Write("t.yaml",
                                       "kind: single-switch\ngpus: 2\nlink:\n  profile: " + p.name
                                           + "\nhost_link:\n  profile: " + p.name + "\n");
        try
        {
            const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
            EXPECT_EQ(t.link.name, p.name);
            EXPECT_EQ(t.hostLink->name, p.name);
            EXPECT_EQ(t.link.source, p.source) << "no override, so no 'overridden' note";
        }
        catch (const SpecError& e)
        {
            ADD_FAILURE() << "preset " << p.name << ": " << e.what();
        }
    }
}

TEST_F(ScratchDir, UnknownProfileListsEveryPreset)
{
    for (const std::string section : {"link", "host_link"})
    {
        const std::string path
            = Write("t.yaml",
                    "kind: single-switch\ngpus: 2\n" + section + ":\n  profile: no-such-link\n");
        try
        {
            ns3::ReadTopologyFile(path);
            FAIL() << "no SpecError";
        }
        catch (const SpecError& e)
        {
            for (const auto& p : ns3::LinkProfilePresets())
            {
                EXPECT_NE(e.Message().find(p.name), std::string::npos) << e.what();
            }
            EXPECT_EQ(e.Where().line, 4);
            EXPECT_EQ(e.Where().column, 12);
        }
    }
}

TEST_F(ScratchDir, StandaloneFilesGetTheirStemAsName)
{
    const std::string topo = Write("fab.yaml", "kind: single-switch\ngpus: 2\n");
    const std::string traffic
        = Write("load.yaml", "collectives:\n  - op: all-reduce\n    size: 4KiB\n    ranks: all\n");
    EXPECT_EQ(ns3::ReadTopologyFile(topo).name, "fab");
    EXPECT_EQ(ns3::ReadTopologyFile(topo).gpus, 2U);
    EXPECT_EQ(ns3::ReadTrafficFile(traffic).name, "load");
    EXPECT_EQ(ns3::ReadTrafficFile(traffic).where.file, traffic);
}

TEST_F(ScratchDir, TrafficFileAloneDoesNotKnowTheGpuCount)
{
    // Rank 100 is fine until a topology says otherwise.
    const std::string traffic
        = Write("t.yaml",
                "collectives:\n  - op: all-reduce\n    size: 4KiB\n    ranks: [0, 100]\n");
    EXPECT_EQ(ns3::ReadTrafficFile(traffic).collectives[0].ranks.back(), 100U);
}

TEST_F(ScratchDir, MissingTopLevelFileIsNamedWithoutLine)
{
    const std::string path = (m_dir / "nope.yaml").string();
    try
    {
        ns3::ReadScenarioFile(path);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Where().file, path);
        EXPECT_EQ(e.Where().line, 0);
        EXPECT_EQ(e.Where().column, 0);
        EXPECT_NE(e.Message().find("no such file"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()), path + ": error: " + e.Message());
    }
    EXPECT_THROW(ns3::ReadTopologyFile(path), SpecError);
    EXPECT_THROW(ns3::ReadTrafficFile(path), SpecError);
}

TEST_F(ScratchDir, EmptyScenarioFileIsReported)
{
    const std::string path = Write("empty.yaml", "");
    try
    {
        ns3::ReadScenarioFile(path);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Message().find("the scenario file is empty"), std::string::npos) << e.what();
        EXPECT_EQ(e.Where().line, 0);
    }
}

TEST_F(ScratchDir, InlineErrorsAreLocatedInTheScenarioFile)
{
    const std::string path = Write("s.yaml",
                                   "topology:\n"
                                   "  kind: single-switch\n"
                                   "  gpus: 8\n"
                                   "  link:\n"
                                   "    propagation_delay: 5\n"
                                   "traffic:\n"
                                   "  collectives:\n"
                                   "    - op: all-reduce\n"
                                   "      size: 1MiB\n");
    try
    {
        ns3::ReadScenarioFile(path);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  path + ":5:24: error: propagation_delay: '5' has no unit; write e.g. '5us'");
    }
}

TEST_F(ScratchDir, StrictIntegersRejectWhatYamlCppWouldAccept)
{
    for (const std::string gpus : {"\"-1\"",
                                   "1.5",
                                   "0x10",
                                   "\" 8\"",
                                   "8e0",
                                   "08",
                                   "+8",
                                   "eight",
                                   "99999999999",
                                   "true",
                                   "~"})
    {
        const std::string path = Write("t.yaml", "kind: single-switch\ngpus: " + gpus + "\n");
        EXPECT_THROW(ns3::ReadTopologyFile(path), SpecError) << "gpus: " << gpus;
    }
    const std::string ok = Write("ok.yaml", "kind: single-switch\ngpus: \"8\"\n");
    EXPECT_EQ(ns3::ReadTopologyFile(ok).gpus, 8U);
}

TEST_F(ScratchDir, SeedFitsNs3RngSeed)
{
    // RngSeedManager::SetSeed takes a uint32_t: 1 to 4294967295.
    const std::string traffic = "traffic: {collectives: [{op: all-reduce, size: 1MiB}]}\n";
    const std::string topo = "topology: {kind: single-switch, gpus: 2}\n";
    const std::string path = Write("s.yaml", "seed: 4294967295\n" + topo + traffic);
    EXPECT_EQ(ns3::ReadScenarioFile(path).seed, 4294967295ULL);
    const std::string over = Write("o.yaml", "seed: 4294967296\n" + topo + traffic);
    try
    {
        ns3::ReadScenarioFile(over);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(), "seed: '4294967296' is too large (at most 4294967295)");
        EXPECT_EQ(e.Where().line, 1);
        EXPECT_EQ(e.Where().column, 7);
    }
}

TEST_F(ScratchDir, UnknownKeyWithoutNearMatchListsTheKnownKeys)
{
    const std::string path = Write("t.yaml", "kind: single-switch\ngpus: 8\ncolour: blue\n");
    try
    {
        ns3::ReadTopologyFile(path);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(),
                  "unknown key 'colour' in topology; keys of kind single-switch: name, kind, "
                  "gpus, gpus_per_server, nvlink, nvlink_switches, link, host_link");
        EXPECT_EQ(e.Where().line, 3);
        EXPECT_EQ(e.Where().column, 1);
    }
    // Without a valid kind, every topology key is listed.
    const std::string noKind = Write("u.yaml", "kind: torus\ncolour: blue\n");
    try
    {
        ns3::ReadTopologyFile(noKind);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message().rfind("unknown key 'colour' in topology; known keys: name, kind, "
                                    "gpus, leaves, spines",
                                    0),
                  0U)
            << e.Message();
        for (const char* key : {"radix", "global_links_per_spine", "nodes", "links", "host_link"})
        {
            EXPECT_NE(e.Message().find(key), std::string::npos) << key;
        }
    }
}

TEST_F(ScratchDir, AbsolutePathsAreUsedAsGiven)
{
    const std::string topo = Write("elsewhere/topo.yaml", "kind: single-switch\ngpus: 3\n");
    const std::string path
        = Write("s.yaml",
                "topology: " + topo + "\ntraffic: {collectives: [{op: all-reduce, size: 3KiB}]}\n");
    EXPECT_EQ(ns3::ReadScenarioFile(path).topology.gpus, 3U);
}

// ---------------------------------------------------------------------------
// Topology kinds: keys landing in TopologySpec
// ---------------------------------------------------------------------------

/**
 * \brief Expect reading \p path (a topology file) to fail.
 * \param path the file
 * \param fragment what the message must contain
 * \param line expected line
 * \param column expected column
 */
void
ExpectTopologyError(const std::string& path, const std::string& fragment, int line, int column)
{
    try
    {
        ns3::ReadTopologyFile(path);
        ADD_FAILURE() << path << ": no SpecError (expected '" << fragment << "')";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Message().find(fragment), std::string::npos)
            << "expected '" << fragment << "' in: " << e.what();
        EXPECT_EQ(e.Where().line, line) << e.what();
        EXPECT_EQ(e.Where().column, column) << e.what();
    }
}

TEST_F(ScratchDir, LeafSpineSizedByRadixAndRatio)
{
    const std::string path = Write("t.yaml",
                                   "kind: leaf-spine\n"
                                   "radix: 16\n"
                                   "oversubscription: \"3:1\"\n"
                                   "gpus_per_server: 4\n");
    const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
    EXPECT_EQ(t.As<ns3::LeafSpineSpec>().radix, 16U);
    EXPECT_EQ(t.As<ns3::LeafSpineSpec>().oversubscription->numerator, 3U);
    EXPECT_EQ(t.As<ns3::LeafSpineSpec>().oversubscription->denominator, 1U);
    EXPECT_EQ(t.gpusPerServer, 4U);
    EXPECT_FALSE(t.hasNvlink);
    EXPECT_FALSE(t.As<ns3::LeafSpineSpec>().leaves); // derived by the generator, not filled in
    EXPECT_EQ(t.gpus, 192U); // 16 leaves x 12 GPUs (FACTS.md 1.2, k = 16 at 3:1)

    // Explicit port counts.
    const std::string ports = Write("p.yaml",
                                    "kind: leaf-spine\n"
                                    "gpus_per_leaf: 8\n"
                                    "uplinks: 4\n"
                                    "leaves: 3\n"
                                    "links_per_spine: 2\n");
    const ns3::TopologySpec p = ns3::ReadTopologyFile(ports);
    EXPECT_EQ(p.As<ns3::LeafSpineSpec>().gpusPerLeaf, 8U);
    EXPECT_EQ(p.As<ns3::LeafSpineSpec>().uplinks, 4U);
    EXPECT_EQ(p.As<ns3::LeafSpineSpec>().leaves, 3U);
    EXPECT_EQ(p.As<ns3::LeafSpineSpec>().linksPerSpine, 2U);
    EXPECT_EQ(p.gpus, 24U);
}

TEST_F(ScratchDir, RatiosAreParsedAndReduced)
{
    // text, numerator, denominator, GPUs of 2 leaves of radix 20 (down = 20 D / (D + U)).
    const std::vector<std::tuple<std::string, uint32_t, uint32_t, uint32_t>> cases = {
        {"\"3:1\"", 3, 1, 30},
        {"3:1", 3, 1, 30},
        {"\"6:2\"", 3, 1, 30},
        {"\"3:2\"", 3, 2, 24},
        {"3", 3, 1, 30},
        {"\"1:1\"", 1, 1, 20},
    };
    for (const auto& [text, num, den, gpus] : cases)
    {
        const std::string path
            = Write("t.yaml",
                    "kind: leaf-spine\nradix: 20\nleaves: 2\noversubscription: " + text + "\n");
        const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
        EXPECT_EQ(t.As<ns3::LeafSpineSpec>().oversubscription->numerator, num) << text;
        EXPECT_EQ(t.As<ns3::LeafSpineSpec>().oversubscription->denominator, den) << text;
        EXPECT_EQ(t.gpus, gpus) << text;
    }
    for (const std::string bad :
         {"\"3:0\"", "\"0:1\"", "\"3:\"", "three", "\"-3:1\"", "\"3:1:1\"", "[3, 1]"})
    {
        const std::string path
            = Write("b.yaml", "kind: leaf-spine\nradix: 20\noversubscription: " + bad + "\n");
        ExpectTopologyError(path, "oversubscription: ", 3, 19);
    }
}

TEST_F(ScratchDir, FatTreeKeysAreRead)
{
    const std::string path = Write("t.yaml",
                                   "kind: fat-tree\n"
                                   "radix: 4\n"
                                   "oversubscription: \"1:1\"\n"
                                   "spine_oversubscription: \"1:1\"\n"
                                   "gpus_per_leaf: 2\n"
                                   "spines_per_pod: 2\n"
                                   "leaves_per_pod: 2\n"
                                   "spine_uplinks: 2\n"
                                   "pods: 4\n"
                                   "cores: 4\n"
                                   "gpus_per_server: 2\n"
                                   "nvlink: {}\n"
                                   "nvlink_switches: 2\n"
                                   "host_link: {profile: pcie-gen5}\n");
    const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
    EXPECT_EQ(t.Kind(), "fat-tree");
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().radix, 4U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().oversubscription->numerator, 1U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().spineOversubscription->numerator, 1U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().spineOversubscription->denominator, 1U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().gpusPerLeaf, 2U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().spinesPerPod, 2U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().leavesPerPod, 2U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().spineUplinks, 2U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().pods, 4U);
    EXPECT_EQ(t.As<ns3::FatTreeSpec>().cores, 4U);
    EXPECT_EQ(t.gpusPerServer, 2U);
    EXPECT_TRUE(t.hasNvlink);
    EXPECT_EQ(t.nvlinkProfile->name, "nvlink4"); // `nvlink: {}` = the default preset
    EXPECT_EQ(t.nvlinkSwitches, 2U);
    EXPECT_TRUE(t.hostLink);
    EXPECT_EQ(t.hostLink->name, "pcie-gen5");
    EXPECT_EQ(t.gpus, 16U); // 4 pods x 2 leaves x 2 GPUs

    // The k-ary fat-tree from the radix alone (FACTS.md 1.1): k^3/4 GPUs.
    EXPECT_EQ(ns3::ReadTopologyFile(Write("k.yaml", "kind: fat-tree\nradix: 8\n")).gpus, 128U);
}

TEST_F(ScratchDir, RailKeysAreRead)
{
    const std::string path = Write("t.yaml",
                                   "kind: rail-optimized\n"
                                   "sus: 2\n"
                                   "servers_per_su: 4\n"
                                   "gpus_per_server: 4\n"
                                   "rail_uplinks: 4\n"
                                   "radix: 12\n"
                                   "spines_per_su: 2\n"
                                   "spine_oversubscription: \"2:1\"\n"
                                   "spine_uplinks: 4\n"
                                   "cores: 4\n"
                                   "nvlink:\n"
                                   "  profile: nvlink4\n"
                                   "  rate: 1800Gbps\n"
                                   "nvlink_switches: 2\n");
    const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
    EXPECT_EQ(t.As<ns3::RailOptimizedSpec>().sus, 2U);
    EXPECT_EQ(t.As<ns3::RailOptimizedSpec>().serversPerSu, 4U);
    EXPECT_EQ(t.gpusPerServer, 4U);
    EXPECT_EQ(t.As<ns3::RailOptimizedSpec>().railUplinks, 4U);
    EXPECT_EQ(t.As<ns3::RailOptimizedSpec>().radix, 12U);
    EXPECT_EQ(t.As<ns3::RailOptimizedSpec>().spinesPerSu, 2U);
    EXPECT_EQ(t.As<ns3::RailOptimizedSpec>().spineOversubscription->numerator, 2U);
    EXPECT_EQ(t.As<ns3::RailOptimizedSpec>().spineUplinks, 4U);
    EXPECT_EQ(t.As<ns3::RailOptimizedSpec>().cores, 4U);
    EXPECT_TRUE(t.hasNvlink);
    EXPECT_EQ(t.nvlinkProfile->name, "nvlink4");
    EXPECT_EQ(t.nvlinkProfile->rate.GetBitRate(), 1800000000000ULL);
    EXPECT_NE(t.nvlinkProfile->source.find("overridden in"), std::string::npos);
    EXPECT_EQ(t.nvlinkSwitches, 2U);
    EXPECT_EQ(t.gpus, 32U); // 4 GPUs x 4 servers x 2 SUs

    const std::string shared = Write("s.yaml",
                                     "kind: rail-optimized\n"
                                     "sus: 2\n"
                                     "servers_per_su: 4\n"
                                     "gpus_per_server: 2\n"
                                     "oversubscription: \"2:1\"\n"
                                     "radix: 6\n"
                                     "spines: 2\n");
    const ns3::TopologySpec s = ns3::ReadTopologyFile(shared);
    EXPECT_EQ(s.As<ns3::RailOptimizedSpec>().spines, 2U);
    EXPECT_EQ(s.As<ns3::RailOptimizedSpec>().oversubscription->numerator, 2U);
    EXPECT_FALSE(s.hasNvlink);
    EXPECT_EQ(s.gpus, 16U);

    const std::string railOnly = Write("r.yaml",
                                       "kind: rail-only\n"
                                       "sus: 2\n"
                                       "servers_per_su: 4\n"
                                       "gpus_per_server: 4\n"
                                       "oversubscription: \"2:1\"\n"
                                       "radix: 6\n"
                                       "rail_uplinks: 2\n"
                                       "spines: 2\n"
                                       "nvlink_switches: 2\n");
    const ns3::TopologySpec r = ns3::ReadTopologyFile(railOnly);
    EXPECT_EQ(r.Kind(), "rail-only");
    EXPECT_EQ(r.As<ns3::RailOnlySpec>().spines, 2U);
    EXPECT_EQ(r.As<ns3::RailOnlySpec>().railUplinks, 2U);
    EXPECT_EQ(r.nvlinkSwitches, 2U); // NVLink is implied; no `nvlink` key needed
    EXPECT_EQ(r.gpus, 32U);

    // The defaults: one DGX H100 SU (FACTS.md 1.3), 256 GPUs.
    EXPECT_EQ(ns3::ReadTopologyFile(Write("d.yaml", "kind: rail-optimized\n")).gpus, 256U);
    EXPECT_EQ(ns3::ReadTopologyFile(Write("o.yaml", "kind: rail-only\n")).gpus, 256U);
}

TEST_F(ScratchDir, DragonflyPlusKeysAreRead)
{
    const std::string path = Write("t.yaml",
                                   "kind: dragonfly-plus\n"
                                   "groups: 4\n"
                                   "leaves_per_group: 2\n"
                                   "spines_per_group: 3\n"
                                   "gpus_per_leaf: 3\n"
                                   "global_links_per_spine: 2\n"
                                   "radix: 6\n"
                                   "gpus_per_server: 3\n"
                                   "nvlink: true\n");
    const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
    EXPECT_EQ(t.As<ns3::DragonflyPlusSpec>().groups, 4U);
    EXPECT_EQ(t.As<ns3::DragonflyPlusSpec>().leavesPerGroup, 2U);
    EXPECT_EQ(t.As<ns3::DragonflyPlusSpec>().spinesPerGroup, 3U);
    EXPECT_EQ(t.As<ns3::DragonflyPlusSpec>().gpusPerLeaf, 3U);
    EXPECT_EQ(t.As<ns3::DragonflyPlusSpec>().globalLinksPerSpine, 2U);
    EXPECT_EQ(t.As<ns3::DragonflyPlusSpec>().radix, 6U);
    EXPECT_EQ(t.gpusPerServer, 3U);
    EXPECT_TRUE(t.hasNvlink);
    EXPECT_FALSE(t.nvlinkProfile); // `true`: the generator's default
    EXPECT_EQ(t.gpus, 24U);
}

TEST_F(ScratchDir, NvlinkDomainAndNvlinkValuesAreRead)
{
    const ns3::TopologySpec t = ns3::ReadTopologyFile(Write("t.yaml",
                                                            "kind: nvlink-domain\n"
                                                            "gpus_per_server: 72\n"
                                                            "nvlink_switches: 18\n"
                                                            "nvlink:\n"
                                                            "  profile: nvlink5\n"));
    EXPECT_EQ(t.gpusPerServer, 72U);
    EXPECT_EQ(t.nvlinkSwitches, 18U);
    EXPECT_EQ(t.nvlinkProfile->name, "nvlink5");
    EXPECT_EQ(t.gpus, 72U);
    // `nvlink: false` on a kind where it is optional: no domains.
    const ns3::TopologySpec off = ns3::ReadTopologyFile(
        Write("f.yaml", "kind: single-switch\ngpus: 16\ngpus_per_server: 8\nnvlink: false\n"));
    EXPECT_FALSE(off.hasNvlink);
    EXPECT_EQ(off.gpusPerServer, 8U);
    const ns3::TopologySpec on = ns3::ReadTopologyFile(
        Write("n.yaml", "kind: single-switch\ngpus: 16\ngpus_per_server: 8\nnvlink: true\n"));
    EXPECT_TRUE(on.hasNvlink);
    EXPECT_EQ(on.gpus, 16U);
}

TEST_F(ScratchDir, CustomNodesAndLinksAreRead)
{
    const std::string path = Write("t.yaml",
                                   "kind: custom\n"
                                   "link:\n"
                                   "  profile: roce-400g\n"
                                   "  mtu: 1024B\n"
                                   "nodes:\n"
                                   "  - {name: g0, kind: gpu}\n"
                                   "  - name: g1\n"
                                   "    kind: gpu\n"
                                   "  - {name: n1, kind: nic}\n"
                                   "  - {name: leaf, kind: switch}\n"
                                   "  - {name: nvsw, kind: switch, tier: 0}\n"
                                   "links:\n"
                                   "  - {a: g0, b: leaf}\n"
                                   "  - {a: g1, b: n1, link: {profile: pcie-gen5}}\n"
                                   "  - a: n1\n"
                                   "    b: leaf\n"
                                   "    link:\n"
                                   "      rate: 800Gbps\n"
                                   "  - {a: g0, b: nvsw, link: {profile: nvlink4}}\n"
                                   "  - {a: g1, b: nvsw, link: {profile: nvlink4}}\n");
    const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
    ASSERT_EQ(t.As<ns3::CustomSpec>().nodes.size(), 5U);
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[0].name, "g0");
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[0].kind, "gpu");
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[0].where.line, 6);
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[0].where.column, 5);
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[1].name, "g1");
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[1].where.line, 7);
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[1].where.column, 5);
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[2].kind, "nic");
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[3].kind, "switch");
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[3].tier, 1U); // the default tier of a switch
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[4].tier, 0U);
    EXPECT_EQ(t.As<ns3::CustomSpec>().nodes[0].where.file, path);
    ASSERT_EQ(t.As<ns3::CustomSpec>().links.size(), 5U);
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[0].a, "g0");
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[0].b, "leaf");
    EXPECT_FALSE(t.As<ns3::CustomSpec>().links[0].profile);
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[0].where.line, 13);
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[0].where.column, 5);
    EXPECT_TRUE(t.As<ns3::CustomSpec>().links[1].profile);
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[1].profile->name, "pcie-gen5");
    // A link mapping without `profile` modifies the topology's link, overrides included.
    EXPECT_TRUE(t.As<ns3::CustomSpec>().links[2].profile);
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[2].profile->name, "roce-400g");
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[2].profile->mtu, 1024U);
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[2].profile->rate.GetBitRate(), 800000000000ULL);
    EXPECT_EQ(t.As<ns3::CustomSpec>().links[2].where.line, 15);
    EXPECT_EQ(t.link.rate.GetBitRate(), 400000000000ULL);
    EXPECT_EQ(t.gpus, 2U);

    // The generator classifies the links by technology and ends.
    const ns3::FabricGraph g = ns3::BuildFabricGraph(t);
    EXPECT_EQ(g.GetLinks()[1].kind, ns3::FabricGraph::LinkKind::HOST);
    EXPECT_EQ(g.GetLinks()[3].kind, ns3::FabricGraph::LinkKind::NVLINK);
}

/// Minimal valid topology of every kind. A kind added to TopologyKindNames() must be
/// wired into the reader and added here.
TEST_F(ScratchDir, EveryKindOfTheGeneratorsIsRead)
{
    const std::map<std::string, std::pair<std::string, uint32_t>> minimal = {
        {"single-switch", {"gpus: 4\n", 4}},
        {"leaf-spine", {"leaves: 2\nspines: 1\ngpus_per_leaf: 2\n", 4}},
        {"fat-tree", {"radix: 4\n", 16}},
        {"rail-optimized", {"servers_per_su: 2\ngpus_per_server: 2\n", 4}},
        {"rail-only", {"servers_per_su: 2\ngpus_per_server: 2\n", 4}},
        {"dragonfly-plus",
         {"groups: 3\nleaves_per_group: 1\nspines_per_group: 1\ngpus_per_leaf: 2\n"
          "global_links_per_spine: 2\n",
          6}},
        {"nvlink-domain", {"gpus_per_server: 4\n", 4}},
        {"custom",
         {"nodes: [{name: a, kind: gpu}, {name: b, kind: gpu}]\nlinks: [{a: a, b: b}]\n", 2}},
    };
    for (const auto& kind : ns3::TopologyKindNames())
    {
        const auto it = minimal.find(kind);
        ASSERT_NE(it, minimal.end()) << "no minimal topology for kind " << kind;
        const std::string path = Write(kind + ".yaml", "kind: " + kind + "\n" + it->second.first);
        try
        {
            const ns3::TopologySpec t = ns3::ReadTopologyFile(path);
            EXPECT_EQ(t.Kind(), kind);
            EXPECT_EQ(t.gpus, it->second.second) << kind;
        }
        catch (const SpecError& e)
        {
            ADD_FAILURE() << kind << ": " << e.what();
        }
    }
    // And the kind list in the error is TopologyKindNames().
    try
    {
        ns3::ReadTopologyFile(Write("x.yaml", "kind: torus\n"));
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        std::string known;
        for (const auto& k : ns3::TopologyKindNames())
        {
            known += (known.empty() ? "" : ", ") + k;
        }
        EXPECT_NE(e.Message().find("known: " + known), std::string::npos) << e.Message();
    }
}

TEST_F(ScratchDir, KeysOfOtherKindsAreRejectedNamingTheKind)
{
    const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
        {"kind: single-switch\ngpus: 4\n",
         "radix: 8\n",
         "'radix' applies only to kinds leaf-spine, fat-tree, rail-optimized, rail-only, "
         "dragonfly-plus, not single-switch"},
        {"kind: fat-tree\nradix: 4\n",
         "leaves: 2\n",
         "'leaves' applies only to kind leaf-spine, not fat-tree"},
        {"kind: leaf-spine\nleaves: 2\nspines: 1\ngpus_per_leaf: 2\n",
         "pods: 2\n",
         "'pods' applies only to kind fat-tree, not leaf-spine"},
        {"kind: rail-only\n",
         "spines_per_su: 2\n",
         "'spines_per_su' applies only to kind rail-optimized, not rail-only"},
        {"kind: fat-tree\nradix: 4\n",
         "sus: 2\n",
         "'sus' applies only to kinds rail-optimized, rail-only, not fat-tree"},
        {"kind: nvlink-domain\ngpus_per_server: 8\n", "radix: 8\n", "not nvlink-domain"},
        {"kind: dragonfly-plus\ngroups: 3\nleaves_per_group: 1\nspines_per_group: 1\n"
         "gpus_per_leaf: 2\nglobal_links_per_spine: 2\n",
         "gpus: 6\n",
         "'gpus' does not apply to kind dragonfly-plus: its GPU count is groups"},
        {"kind: custom\nnodes: [{name: a, kind: gpu}, {name: b, kind: gpu}]\n"
         "links: [{a: a, b: b}]\n",
         "nvlink: true\n",
         "'nvlink' does not apply to kind custom"},
        {"kind: custom\nnodes: [{name: a, kind: gpu}, {name: b, kind: gpu}]\n"
         "links: [{a: a, b: b}]\n",
         "gpus_per_server: 2\n",
         "'gpus_per_server' does not apply to kind custom"},
        {"kind: single-switch\ngpus: 4\n",
         "nodes: []\n",
         "'nodes' applies only to kind custom, not single-switch"},
    };
    for (const auto& [base, key, fragment] : cases)
    {
        const std::string path = Write("t.yaml", base + key);
        const int line = static_cast<int>(std::count(base.begin(), base.end(), '\n')) + 1;
        ExpectTopologyError(path, fragment, line, 1);
    }
}

TEST_F(ScratchDir, GeneratorErrorsAreLocatedAtTheKeyTheyName)
{
    // The ratio the radix cannot realise: at `oversubscription`, not the mapping.
    ExpectTopologyError(Write("r.yaml", "kind: leaf-spine\nradix: 30\noversubscription: \"3:1\"\n"),
                        "leaf oversubscription 3:1 needs a radix divisible by 4",
                        3,
                        1);
    // "spine oversubscription" names spine_oversubscription, not oversubscription.
    ExpectTopologyError(Write("s.yaml",
                              "kind: fat-tree\nradix: 8\noversubscription: \"3:1\"\n"
                              "spine_oversubscription: \"2:1\"\n"),
                        "spine oversubscription 2:1",
                        4,
                        1);
    // Ports beyond the radix: at `radix`.
    ExpectTopologyError(
        Write("p.yaml", "kind: leaf-spine\ngpus_per_leaf: 12\nuplinks: 8\nradix: 16\nleaves: 2\n"),
        "more than the radix 16",
        4,
        1);
    // A message naming no key the file gives: at the topology mapping (inline too).
    const std::string scenario = Write("sc.yaml",
                                       "topology:\n"
                                       "  kind: leaf-spine\n"
                                       "  leaves: 1\n"
                                       "  spines: 1\n"
                                       "  gpus_per_leaf: 1\n"
                                       "traffic: {collectives: [{op: all-reduce, size: 1MiB}]}\n");
    try
    {
        ns3::ReadScenarioFile(scenario);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(), "a leaf-spine topology needs at least 2 GPUs");
        EXPECT_EQ(e.Where().file, scenario);
        EXPECT_EQ(e.Where().line, 2);
        EXPECT_EQ(e.Where().column, 3);
    }
    // Errors at a custom entry keep the entry's location.
    ExpectTopologyError(Write("c.yaml",
                              "kind: custom\n"
                              "nodes:\n"
                              "  - {name: a, kind: gpu}\n"
                              "  - {name: b, kind: gpu}\n"
                              "links:\n"
                              "  - {a: a, b: b}\n"
                              "  - {a: b, b: b}\n"),
                        "link b - b connects a node to itself",
                        7,
                        5);
}

TEST_F(ScratchDir, RanksAreCheckedAgainstTheGraphOfEveryKind)
{
    const std::string ok = Write("ok.yaml",
                                 "topology: {kind: fat-tree, radix: 4}\n"
                                 "traffic: {collectives: [{op: all-reduce, size: 1MiB, "
                                 "ranks: [0, 15]}]}\n");
    EXPECT_EQ(ns3::ReadScenarioFile(ok).topology.gpus, 16U);
    const std::string bad = Write("bad.yaml",
                                  "topology: {kind: nvlink-domain, gpus_per_server: 8}\n"
                                  "traffic: {collectives: [{op: all-reduce, size: 1MiB, "
                                  "ranks: [0, 8]}]}\n");
    try
    {
        ns3::ReadScenarioFile(bad);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Message().find("has 8 GPUs (indices 0 to 7)"), std::string::npos)
            << e.Message();
    }
}

TEST_F(ScratchDir, TopologyKeysInTheScenarioSayWhereTheyBelong)
{
    const std::string path = Write("s.yaml",
                                   "radix: 8\n"
                                   "topology: {kind: fat-tree, radix: 4}\n"
                                   "traffic: {collectives: [{op: all-reduce, size: 1MiB}]}\n");
    try
    {
        ns3::ReadScenarioFile(path);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(), "unknown key 'radix' in scenario; 'radix' belongs in the topology");
    }
}

TEST_F(ScratchDir, TopologyOrScenarioFileGivesTheTopology)
{
    const std::string topo = Write("t/ft.yaml", "kind: fat-tree\nradix: 4\n");
    const ns3::TopologySpec direct = ns3::ReadTopologyOrScenarioFile(topo);
    EXPECT_EQ(direct.Kind(), "fat-tree");
    EXPECT_EQ(direct.name, "ft");
    EXPECT_EQ(direct.gpus, 16U);
    const std::string byPath = Write("s.yaml",
                                     "topology: t/ft.yaml\n"
                                     "traffic: {collectives: [{op: all-reduce, size: 1MiB}]}\n");
    EXPECT_EQ(ns3::ReadTopologyOrScenarioFile(byPath).name, "ft");
    EXPECT_EQ(ns3::ReadTopologyOrScenarioFile(byPath).gpus, 16U);
    const std::string inlined = Write("i.yaml",
                                      "topology: {kind: single-switch, gpus: 6}\n"
                                      "traffic: {collectives: [{op: all-reduce, size: 1MiB}]}\n");
    EXPECT_EQ(ns3::ReadTopologyOrScenarioFile(inlined).gpus, 6U);
    EXPECT_EQ(ns3::ReadTopologyOrScenarioFile(inlined).name, "i-topology");
    // A scenario without traffic is reported as a scenario.
    const std::string noTraffic = Write("n.yaml", "topology: t/ft.yaml\n");
    try
    {
        ns3::ReadTopologyOrScenarioFile(noTraffic);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(), "missing required key 'traffic' in scenario");
    }
}

// ---------------------------------------------------------------------------
// Run options: congestion control, DCQCN, transport; Dragonfly+ routing
// ---------------------------------------------------------------------------

/**
 * \brief Expect ReadScenarioFile() to throw a SpecError with \p fragment at \p line:\p column.
 * \param path the scenario file
 * \param fragment a part of the expected message
 * \param line the expected 1-based line
 * \param column the expected 1-based column
 */
void
ExpectScenarioError(const std::string& path, const std::string& fragment, int line, int column)
{
    try
    {
        ns3::ReadScenarioFile(path);
        ADD_FAILURE() << path << ": no SpecError (expected '" << fragment << "')";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Message().find(fragment), std::string::npos)
            << "expected '" << fragment << "' in: " << e.what();
        EXPECT_EQ(e.Where().line, line) << e.what();
        EXPECT_EQ(e.Where().column, column) << e.what();
    }
}

/// An 8-GPU RoCE topology (PFC, ECN marking) as an inline scenario mapping.
const std::string ROCE_TOPOLOGY = "topology: {kind: single-switch, gpus: 8, "
                                  "link: {profile: roce-400g}}\n";
/// A one-collective inline traffic.
const std::string SMALL_TRAFFIC = "traffic: {collectives: [{op: all-reduce, size: 1MiB}]}\n";

TEST_F(ScratchDir, RunOptionsDefaultToAuto)
{
    const ns3::ScenarioSpec s
        = ns3::ReadScenarioFile(Write("s.yaml", ROCE_TOPOLOGY + SMALL_TRAFFIC));
    EXPECT_EQ(ns3::SpecName(s.congestionControl), "auto");
    EXPECT_TRUE(s.dcqcnAttributes.empty());
    EXPECT_EQ(ns3::SpecName(s.reliability), "auto");
    EXPECT_TRUE(s.transportAttributes.empty());
    for (const char* cc : {"auto", "none", "dcqcn"})
    {
        const std::string path = Write("c.yaml",
                                       std::string("congestion_control: ") + cc + "\n"
                                           + ROCE_TOPOLOGY + SMALL_TRAFFIC);
        EXPECT_EQ(ns3::SpecName(ns3::ReadScenarioFile(path).congestionControl), cc);
    }
    for (const char* mode : {"auto", "none", "go-back-n"})
    {
        const std::string path = Write("r.yaml",
                                       std::string("transport: {reliability: ") + mode + "}\n"
                                           + ROCE_TOPOLOGY + SMALL_TRAFFIC);
        const ns3::ScenarioSpec r = ns3::ReadScenarioFile(path);
        EXPECT_EQ(ns3::SpecName(r.reliability), mode);
        EXPECT_TRUE(r.transportAttributes.empty());
    }
}

TEST_F(ScratchDir, EveryDcqcnKeyBecomesItsAttribute)
{
    const std::string path = Write("s.yaml",
                                   "congestion_control: dcqcn\n"
                                   "dcqcn:\n"
                                   "  cnp_interval: 4us\n" // file order is not table order
                                   "  alpha_gain: 0.1\n"
                                   "  initial_alpha: 0.5\n"
                                   "  alpha_update_period: 1.5us\n"
                                   "  rate_increase_period: 300us\n"
                                   "  byte_counter: 64KiB\n"
                                   "  fast_recovery_steps: 1\n"
                                   "  rate_ai: 80Mbps\n"
                                   "  rate_hai: 0Gbps\n"
                                   "  min_rate: 1GB/s\n"
                                       + ROCE_TOPOLOGY + SMALL_TRAFFIC);
    const ns3::ScenarioSpec s = ns3::ReadScenarioFile(path);
    EXPECT_EQ(ns3::SpecName(s.congestionControl), "dcqcn");
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"AlphaGain", "0.1"},
        {"InitialAlpha", "0.5"},
        {"AlphaUpdatePeriod", "1500000ps"},
        {"RateIncreasePeriod", "300000000ps"},
        {"ByteCounter", "65536"},
        {"FastRecoverySteps", "1"},
        {"RateAi", "80000000bps"},
        {"RateHai", "0bps"}, // 0: the attribute's own default, line rate / 10
        {"MinRate", "8000000000bps"},
        {"CnpInterval", "4000000ps"},
    };
    EXPECT_EQ(s.dcqcnAttributes, expected);

    // The strings are what ns-3 parses: set them as the runner does and read them back.
    ns3::ObjectFactory factory("ns3::Dcqcn");
    for (const auto& [name, value] : s.dcqcnAttributes)
    {
        factory.Set(name, ns3::StringValue(value));
    }
    const ns3::Ptr<ns3::Object> dcqcn = factory.Create<ns3::Object>();
    ns3::DoubleValue d;
    dcqcn->GetAttribute("AlphaGain", d);
    EXPECT_EQ(d.Get(), 0.1);
    dcqcn->GetAttribute("InitialAlpha", d);
    EXPECT_EQ(d.Get(), 0.5);
    ns3::TimeValue t;
    dcqcn->GetAttribute("AlphaUpdatePeriod", t);
    EXPECT_EQ(t.Get(), ns3::NanoSeconds(1500));
    dcqcn->GetAttribute("RateIncreasePeriod", t);
    EXPECT_EQ(t.Get(), ns3::MicroSeconds(300));
    dcqcn->GetAttribute("CnpInterval", t);
    EXPECT_EQ(t.Get(), ns3::MicroSeconds(4));
    ns3::UintegerValue u;
    dcqcn->GetAttribute("ByteCounter", u);
    EXPECT_EQ(u.Get(), 65536U);
    dcqcn->GetAttribute("FastRecoverySteps", u);
    EXPECT_EQ(u.Get(), 1U);
    ns3::DataRateValue r;
    dcqcn->GetAttribute("RateAi", r);
    EXPECT_EQ(r.Get().GetBitRate(), 80000000U);
    dcqcn->GetAttribute("RateHai", r);
    EXPECT_EQ(r.Get().GetBitRate(), 0U);
    dcqcn->GetAttribute("MinRate", r);
    EXPECT_EQ(r.Get().GetBitRate(), 8000000000ULL);
}

TEST_F(ScratchDir, DcqcnValuesAreExactAndChecked)
{
    // Doubles: the shortest text that reads back exactly.
    const std::vector<std::pair<std::string, std::string>> gains = {
        {"0.00390625", "0.00390625"},
        {"1", "1"},
        {"0.3", "0.3"},
        {"0.123456789012345678", "0.12345678901234568"},
    };
    for (const auto& [text, attr] : gains)
    {
        const std::string path
            = Write("g.yaml",
                    "dcqcn: {alpha_gain: " + text + "}\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC);
        const ns3::ScenarioSpec s = ns3::ReadScenarioFile(path);
        ASSERT_EQ(s.dcqcnAttributes.size(), 1U);
        EXPECT_EQ(s.dcqcnAttributes[0].second, attr) << text;
    }
    // Large values stay exact, up to the readers' maxima: 10^6 s (10^18 ps), 100 Tbps.
    const std::string big = Write("b.yaml",
                                  "dcqcn: {cnp_interval: 1000000000000000000ps, "
                                  "min_rate: 100Tbps, byte_counter: 16EB}\n"
                                      + ROCE_TOPOLOGY + SMALL_TRAFFIC);
    try
    {
        ns3::ReadScenarioFile(big);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        // 16 EB is not a unit; the two other values were fine.
        EXPECT_NE(e.Message().find("byte_counter: "), std::string::npos) << e.what();
    }
    const std::string exact = Write("e.yaml",
                                    "dcqcn: {cnp_interval: 1000000000000000000ps, "
                                    "min_rate: 100Tbps}\n"
                                        + ROCE_TOPOLOGY + SMALL_TRAFFIC);
    const ns3::ScenarioSpec e = ns3::ReadScenarioFile(exact);
    const std::vector<std::pair<std::string, std::string>> bigExpected = {
        {"MinRate", "100000000000000bps"},
        {"CnpInterval", "1000000000000000000ps"},
    };
    EXPECT_EQ(e.dcqcnAttributes, bigExpected);

    // Ranges, each at the value (line 2: the key's line, column 3 + key + 2).
    const std::vector<std::tuple<std::string, std::string, int>> bad = {
        {"alpha_gain: 1.5", "alpha_gain: must be between 0 and 1, got 1.5", 15},
        {"alpha_gain: 0.0", "alpha_gain: must be greater than 0", 15},
        {"initial_alpha: -0.5", "without a sign", 18},
        {"alpha_update_period: 0ps", "must be greater than 0", 24},
        {"rate_increase_period: 55", "has no unit", 25},
        {"byte_counter: 0B", "byte_counter: must be greater than 0", 17},
        {"fast_recovery_steps: 5.5", "is not a whole number", 24},
        {"rate_ai: 20GBps", "rate_ai: ", 12},
        {"min_rate: 0bps", "min_rate: must be greater than 0", 13},
        {"cnp_interval: 1", "cnp_interval: '1' has no unit", 17},
        {"min_rate: 101Tbps", "min_rate: '101Tbps' is too fast: at most 100Tbps", 13},
        {"cnp_interval: 1000001s", "cnp_interval: '1000001s' is too long", 17},
    };
    for (const auto& [line, fragment, column] : bad)
    {
        const std::string path
            = Write("x.yaml", "dcqcn:\n  " + line + "\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC);
        ExpectScenarioError(path, fragment, 2, column);
    }
    // Zero is allowed where it means something: rate_ai/rate_hai (line rate / 20, / 10),
    // fast_recovery_steps, initial_alpha and cnp_interval.
    const std::string zeros = Write("z.yaml",
                                    "dcqcn: {rate_ai: 0bps, fast_recovery_steps: 0, "
                                    "initial_alpha: 0, cnp_interval: 0us}\n"
                                        + ROCE_TOPOLOGY + SMALL_TRAFFIC);
    EXPECT_EQ(ns3::ReadScenarioFile(zeros).dcqcnAttributes.size(), 4U);
}

TEST_F(ScratchDir, DcqcnKeysThatWouldBeIgnoredAreErrors)
{
    // auto on links that mark ECN runs DCQCN: its keys apply.
    EXPECT_EQ(ns3::ReadScenarioFile(
                  Write("a.yaml", "dcqcn: {min_rate: 1Gbps}\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC))
                  .dcqcnAttributes.size(),
              1U);
    // dcqcn named explicitly applies even where no link marks (no CNP will come).
    EXPECT_EQ(ns3::ReadScenarioFile(Write("d.yaml",
                                          "congestion_control: dcqcn\ndcqcn: {min_rate: 1Gbps}\n"
                                          "topology: {kind: single-switch, gpus: 4}\n"
                                              + SMALL_TRAFFIC))
                  .congestionControl,
              ns3::CongestionControlSetting::DCQCN);
    // An ECN-marking host link counts too (the runner looks at every link profile).
    EXPECT_NO_THROW(ns3::ReadScenarioFile(
        Write("h.yaml",
              "dcqcn: {min_rate: 1Gbps}\n"
              "topology: {kind: single-switch, gpus: 4, host_link: {profile: pcie-gen5, "
              "ecn_kmin: 100KB, ecn_kmax: 400KB}}\n"
                  + SMALL_TRAFFIC)));
    ExpectScenarioError(Write("n.yaml",
                              "congestion_control: none\n"
                              "dcqcn: {}\n"
                                  + ROCE_TOPOLOGY + SMALL_TRAFFIC),
                        "but congestion_control is none",
                        2,
                        1);
    ExpectScenarioError(Write("i.yaml",
                              "dcqcn: {min_rate: 1Gbps}\n"
                              "topology: {kind: single-switch, gpus: 4}\n"
                                  + SMALL_TRAFFIC),
                        "congestion_control is auto and no link of the topology 'i-topology' "
                        "marks ECN",
                        1,
                        1);
    ExpectScenarioError(Write("m.yaml", "dcqcn: 1Gbps\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC),
                        "dcqcn: expected a mapping of DCQCN parameters",
                        1,
                        8);
    ExpectScenarioError(
        Write("k.yaml", "dcqcn:\n  ecn_kmin: 1MB\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC),
        "'ecn_kmin' belongs under the topology's 'link:'",
        2,
        3);
}

TEST_F(ScratchDir, TransportKeysBecomeRdmaTransportAttributes)
{
    const std::string path = Write("s.yaml",
                                   "transport:\n"
                                   "  retransmit_timeout: 20us\n"
                                   "  reliability: go-back-n\n"
                                   "  send_window: 0\n"
                                   "  ack_interval: 4\n"
                                       + ROCE_TOPOLOGY + SMALL_TRAFFIC);
    const ns3::ScenarioSpec s = ns3::ReadScenarioFile(path);
    EXPECT_EQ(ns3::SpecName(s.reliability), "go-back-n");
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"AckInterval", "4"},
        {"SendWindow", "0"},
        {"RetransmitTimeout", "20000000ps"},
    };
    EXPECT_EQ(s.transportAttributes, expected);
    ns3::ObjectFactory factory;
    factory.SetTypeId(ns3::RdmaRecoveryTypeId(ns3::SpecName(s.reliability)));
    for (const auto& [name, value] : s.transportAttributes)
    {
        factory.Set(name, ns3::StringValue(value));
    }
    const ns3::Ptr<ns3::Object> transport = factory.Create<ns3::Object>();
    ns3::UintegerValue u;
    transport->GetAttribute("AckInterval", u);
    EXPECT_EQ(u.Get(), 4U);
    transport->GetAttribute("SendWindow", u);
    EXPECT_EQ(u.Get(), 0U);
    ns3::TimeValue t;
    transport->GetAttribute("RetransmitTimeout", t);
    EXPECT_EQ(t.Get(), ns3::MicroSeconds(20));

    // auto on a lossy fabric is go-back-n: the keys apply.
    const std::string lossy = Write("l.yaml",
                                    "transport: {send_window: 64}\n"
                                    "topology: {kind: single-switch, gpus: 4, "
                                    "link: {profile: roce-400g, flow_control: none}}\n"
                                        + SMALL_TRAFFIC);
    EXPECT_EQ(ns3::ReadScenarioFile(lossy).transportAttributes.size(), 1U);
    ExpectScenarioError(
        Write("n.yaml",
              "transport: {reliability: none, send_window: 64}\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC),
        "'send_window' applies only to go-back-n reliability, but reliability "
        "is none",
        1,
        32);
    ExpectScenarioError(
        Write("a.yaml", "transport:\n  ack_interval: 8\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC),
        "reliability is auto and every link of the topology 'a-topology' is "
        "lossless",
        2,
        3);
    ExpectScenarioError(Write("r.yaml", "transport:\n  rto: 8us\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC),
                        "unknown key 'rto' in transport; did you mean 'retransmit_timeout'?",
                        2,
                        3);
    ExpectScenarioError(Write("w.yaml",
                              "transport:\n  reliability: go-back-n\n  send_window: -1\n"
                                  + ROCE_TOPOLOGY + SMALL_TRAFFIC),
                        "send_window: '-1': negative values are not allowed",
                        3,
                        16);
    ExpectScenarioError(Write("t.yaml",
                              "transport:\n  reliability: go-back-n\n  retransmit_timeout: 0s\n"
                                  + ROCE_TOPOLOGY + SMALL_TRAFFIC),
                        "retransmit_timeout: must be greater than 0",
                        3,
                        23);
    ExpectScenarioError(Write("p.yaml", "reliability: none\n" + ROCE_TOPOLOGY + SMALL_TRAFFIC),
                        "'reliability' belongs under 'transport:'",
                        1,
                        1);
}

TEST_F(ScratchDir, DragonflyPlusRoutingIsRead)
{
    const std::string base = "kind: dragonfly-plus\ngroups: 3\nleaves_per_group: 1\n"
                             "spines_per_group: 1\ngpus_per_leaf: 2\nglobal_links_per_spine: 2\n";
    EXPECT_EQ(ns3::ReadTopologyFile(Write("d.yaml", base)).As<ns3::DragonflyPlusSpec>().routing,
              ns3::PathChoice::MINIMAL);
    for (const char* mode : {"minimal", "valiant", "ugal"})
    {
        const std::string path = Write("r.yaml", base + "routing: " + mode + "\n");
        EXPECT_EQ(ns3::SpecName(ns3::ReadTopologyFile(path).As<ns3::DragonflyPlusSpec>().routing),
                  mode);
    }
    ExpectTopologyError(Write("u.yaml", base + "routing: Valiant\n"),
                        "routing: unknown routing 'Valiant'; did you mean 'valiant'? known: "
                        "minimal, valiant, ugal",
                        7,
                        10);
    ExpectTopologyError(Write("l.yaml",
                              "kind: leaf-spine\nleaves: 2\nspines: 1\ngpus_per_leaf: 2\n"
                              "routing: ugal\n"),
                        "'routing' applies only to kind dragonfly-plus, not leaf-spine",
                        5,
                        1);
    // Minimal routing is fine on 2 groups; the detours need a third.
    const std::string two = "kind: dragonfly-plus\ngroups: 2\nleaves_per_group: 1\n"
                            "spines_per_group: 1\ngpus_per_leaf: 2\nglobal_links_per_spine: 1\n";
    EXPECT_EQ(ns3::ReadTopologyFile(Write("m.yaml", two + "routing: minimal\n"))
                  .As<ns3::DragonflyPlusSpec>()
                  .routing,
              ns3::PathChoice::MINIMAL);
    ExpectTopologyError(Write("v.yaml", two + "routing: ugal\n"),
                        "routing: ugal routing detours through an intermediate group, so it "
                        "needs at least 3 groups",
                        7,
                        10);
}

// ---------------------------------------------------------------------------
// Collective keys
// ---------------------------------------------------------------------------

TEST_F(ScratchDir, CollectiveKeysDefault)
{
    const ns3::ScenarioSpec s = ns3::ReadScenarioFile(Write("s.yaml",
                                                            "topology: {kind: single-switch, "
                                                            "gpus: 4}\n"
                                                                + SMALL_TRAFFIC));
    ASSERT_EQ(s.traffic.collectives.size(), 1U);
    const ns3::CollectiveSpec& c = s.traffic.collectives[0];
    EXPECT_EQ(c.algorithm, "ring");
    EXPECT_EQ(c.channels, ns3::WorkloadGroup::AUTO_CHANNELS) << "channels: auto";
    EXPECT_EQ(c.ringOrder, ns3::RingOrder::TOPOLOGY);
    EXPECT_EQ(c.chunkBytes, ns3::WorkloadGroup::NCCL_CHUNK_BYTES);
    EXPECT_EQ(c.chunkBytes, 512U * 1024);
    EXPECT_EQ(c.gammaSecondsPerByte, 0.0);
    EXPECT_EQ(c.root, 0U);
    EXPECT_EQ(c.ranksPerNode, 0U);
    EXPECT_TRUE(c.matrix.empty());
    EXPECT_TRUE(c.transferSrc.empty());
    EXPECT_TRUE(c.transferDst.empty());
    EXPECT_TRUE(c.transferBytes.empty());
}

TEST_F(ScratchDir, CollectiveKeysLandInTheSpec)
{
    Write("traffic.yaml",
          "collectives:\n"
          "  - name: ar\n"
          "    op: all-reduce\n"
          "    algorithm: hierarchical\n"
          "    size: 64MiB\n"
          "    ranks_per_node: 4\n"
          "    channels: 64\n"
          "    chunk_size: 0B\n"
          "    reduction_bandwidth: 200GB/s\n"
          "  - name: bc\n"
          "    op: broadcast\n"
          "    algorithm: tree\n"
          "    size: 8MiB\n"
          "    ranks: [7, 5, 3]\n"
          "    root: 2\n"
          "    chunk_size: 128KiB\n"
          "  - name: rd\n"
          "    op: reduce\n"
          "    size: 1MiB\n"
          "    root: 7\n"
          "    reduction_bandwidth: 1Tbps\n"
          "  - name: a2a\n"
          "    op: all-to-all\n"
          "    ranks: [2, 0, 1]\n"
          "    matrix: [[5MiB, 1KiB, 0], [0, 0B, 2MiB], [3B, 4B, 0]]\n"
          "  - name: sr\n"
          "    op: send-recv\n"
          "    ranks: [4, 6]\n"
          "    channels: 2\n"
          "    transfers:\n"
          "      - {src: 0, dst: 1, size: 1MiB}\n"
          "      - {src: 1, dst: 0, size: 3KiB}\n"
          "      - {src: 0, dst: 1, size: 1B}\n"
          "  - op: all-to-all\n"
          "    size: 8MiB\n");
    const std::string path
        = Write("s.yaml", "topology: {kind: single-switch, gpus: 8}\ntraffic: traffic.yaml\n");
    const ns3::ScenarioSpec s = ns3::ReadScenarioFile(path);
    ASSERT_EQ(s.traffic.collectives.size(), 6U);
    const auto& ar = s.traffic.collectives[0];
    EXPECT_EQ(ar.algorithm, "hierarchical");
    EXPECT_EQ(ar.ranksPerNode, 4U);
    EXPECT_EQ(ar.channels, 64U);
    EXPECT_EQ(ar.chunkBytes, 0U);
    EXPECT_DOUBLE_EQ(ar.gammaSecondsPerByte, 5e-12); // 1 / 200 GB/s
    const auto& bc = s.traffic.collectives[1];
    EXPECT_EQ(ns3::CollectiveOpName(bc.op), "broadcast");
    EXPECT_EQ(bc.algorithm, "tree");
    EXPECT_EQ(bc.root, 2U);
    EXPECT_EQ(bc.chunkBytes, 128U * 1024);
    const auto& rd = s.traffic.collectives[2];
    EXPECT_EQ(rd.algorithm, "ring"); // the default where ring implements the op
    EXPECT_EQ(rd.root, 7U);          // a position among all 8 GPUs
    EXPECT_DOUBLE_EQ(rd.gammaSecondsPerByte, 8e-12);
    const auto& a2a = s.traffic.collectives[3];
    EXPECT_EQ(a2a.algorithm, "direct"); // the only algorithm with all-to-all
    EXPECT_EQ(a2a.matrix, (std::vector<uint64_t>{5ULL << 20, 1024, 0, 0, 0, 2ULL << 20, 3, 4, 0}));
    EXPECT_EQ(a2a.bytes, (5ULL << 20) + 1024); // the largest row, diagonal included
    const auto& sr = s.traffic.collectives[4];
    EXPECT_EQ(sr.algorithm, "direct");
    EXPECT_EQ(sr.channels, 2U);
    EXPECT_EQ(sr.transferSrc, (std::vector<uint32_t>{0, 1, 0}));
    EXPECT_EQ(sr.transferDst, (std::vector<uint32_t>{1, 0, 1}));
    EXPECT_EQ(sr.transferBytes, (std::vector<uint64_t>{1ULL << 20, 3072, 1}));
    EXPECT_EQ(sr.bytes, (1ULL << 20) + 3072 + 1); // the sum of the transfers
    const auto& uniform = s.traffic.collectives[5];
    EXPECT_EQ(uniform.algorithm, "direct");
    EXPECT_EQ(uniform.bytes, 8ULL << 20);
    EXPECT_TRUE(uniform.matrix.empty());
    // Algorithms that send whole messages have no chunk (0); the pipelined ones 512 KiB.
    EXPECT_EQ(uniform.chunkBytes, 0U);
    EXPECT_EQ(sr.chunkBytes, 0U);
    EXPECT_EQ(rd.chunkBytes, ns3::WorkloadGroup::NCCL_CHUNK_BYTES);
}

TEST_F(ScratchDir, EveryOpAndAlgorithmPairIsAcceptedExactlyWhereImplemented)
{
    for (const auto& op : ns3::CollectiveOpNames())
    {
        std::vector<std::string> implementing;
        for (const auto& algorithm : ns3::CollectiveAlgorithmNames())
        {
            if (ns3::CreateCollectiveAlgorithm(algorithm)->Supports(op))
            {
                implementing.push_back(algorithm);
            }
        }
        ASSERT_FALSE(implementing.empty()) << op;
        for (const auto& algorithm : ns3::CollectiveAlgorithmNames())
        {
            std::string entry = "    - op: " + op + "\n      algorithm: " + algorithm + "\n";
            if (op == "send-recv")
            {
                entry += "      transfers: [{src: 1, dst: 0, size: 1MiB}]\n";
            }
            else
            {
                entry += "      size: 1MiB\n";
            }
            if (algorithm == "hierarchical")
            {
                entry += "      ranks_per_node: 2\n";
            }
            const std::string path = Write("s.yaml",
                                           "topology: {kind: single-switch, gpus: 8}\n"
                                           "traffic:\n  collectives:\n"
                                               + entry);
            const bool supported = ns3::CreateCollectiveAlgorithm(algorithm)->Supports(op);
            try
            {
                const ns3::ScenarioSpec s = ns3::ReadScenarioFile(path);
                EXPECT_TRUE(supported) << algorithm << " " << op << " was accepted";
                EXPECT_EQ(s.traffic.collectives[0].algorithm, algorithm);
            }
            catch (const SpecError& e)
            {
                EXPECT_FALSE(supported) << e.what();
                std::string list;
                for (const auto& a : implementing)
                {
                    list += (list.empty() ? "" : ", ") + a;
                }
                EXPECT_EQ(e.Message(),
                          "algorithm: algorithm " + algorithm + " does not implement " + op
                              + "; algorithms that do: " + list);
                EXPECT_EQ(e.Where().line, 5) << e.what();
                EXPECT_EQ(e.Where().column, 18) << e.what();
            }
        }
        // Without `algorithm`: the first that implements the op.
        const std::string dflt
            = Write("d.yaml",
                    "topology: {kind: single-switch, gpus: 8}\n"
                    "traffic:\n  collectives:\n    - op: "
                        + op + "\n"
                        + (op == "send-recv" ? "      transfers: [{src: 1, dst: 0, size: 1B}]\n"
                                             : "      size: 1MiB\n"));
        EXPECT_EQ(ns3::ReadScenarioFile(dflt).traffic.collectives[0].algorithm,
                  implementing.front());
    }
}

TEST(Docs, OpAndAlgorithmTableMatchesTheAlgorithms)
{
    // docs/scenario-format.md, "Ops and algorithms": a header row naming every algorithm,
    // then one row per op with "yes" (or "yes (default)") where the algorithm implements it.
    std::ifstream in(SourceDir() / "docs" / "scenario-format.md");
    ASSERT_TRUE(in) << "docs/scenario-format.md";
    auto cells = [](const std::string& row) {
        std::vector<std::string> out;
        std::istringstream is(row);
        std::string cell;
        std::getline(is, cell, '|'); // before the first '|'
        while (std::getline(is, cell, '|'))
        {
            const auto b = cell.find_first_not_of(" `");
            const auto e = cell.find_last_not_of(" `");
            out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
        }
        if (!out.empty() && out.back().empty())
        {
            out.pop_back();
        }
        return out;
    };
    std::string line;
    std::vector<std::string> header;
    std::map<std::string, std::vector<std::string>> rows;
    while (std::getline(in, line))
    {
        if (line.rfind("| op | `ring` |", 0) == 0)
        {
            header = cells(line);
            std::getline(in, line); // |---|
            while (std::getline(in, line) && line.rfind("| `", 0) == 0)
            {
                const auto c = cells(line);
                rows[c.front()] = c;
            }
            break;
        }
    }
    ASSERT_FALSE(header.empty()) << "table not found";
    EXPECT_EQ(std::vector<std::string>(header.begin() + 1, header.end()),
              ns3::CollectiveAlgorithmNames());
    ASSERT_EQ(rows.size(), ns3::CollectiveOpNames().size());
    for (const auto& op : ns3::CollectiveOpNames())
    {
        ASSERT_EQ(rows.count(op), 1U) << op;
        const auto& row = rows[op];
        bool defaultSeen = false;
        for (std::size_t a = 1; a < header.size(); ++a)
        {
            const std::string cell = a < row.size() ? row[a] : "";
            const bool supported = ns3::CreateCollectiveAlgorithm(header[a])->Supports(op);
            EXPECT_EQ(cell.rfind("yes", 0) == 0, supported) << op << " / " << header[a];
            if (supported && !defaultSeen)
            {
                EXPECT_EQ(cell, "yes (default)") << op << " / " << header[a];
                defaultSeen = true;
            }
        }
    }
}

TEST_F(ScratchDir, CollectiveKeysThatDoNotApplyAreErrorsAtTheKey)
{
    const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
        {"op: all-gather\nsize: 1MiB\n",
         "root: 0\n",
         "'root' applies only to ops broadcast, reduce"},
        {"op: all-to-all\nsize: 1MiB\n",
         "reduction_bandwidth: 1Tbps\n",
         "'reduction_bandwidth' applies only to ops that reduce (all-reduce, reduce-scatter, "
         "reduce), not all-to-all"},
        {"op: all-reduce\nalgorithm: halving-doubling\nsize: 1MiB\n",
         "chunk_size: 1MiB\n",
         "not halving-doubling, which sends whole messages"},
        {"op: all-reduce\nalgorithm: naive\nsize: 1MiB\n", "chunk_size: 1MiB\n", "not naive"},
        {"op: reduce\nalgorithm: binomial\nsize: 1MiB\n", "chunk_size: 1MiB\n", "not binomial"},
        {"op: all-reduce\nalgorithm: tree\nsize: 1MiB\n",
         "ranks_per_node: 4\n",
         "'ranks_per_node' applies only to algorithm hierarchical, not tree"},
        {"op: broadcast\nsize: 1MiB\n",
         "matrix: [[0, 1B], [1B, 0]]\n",
         "'matrix' applies only to op all-to-all, not broadcast"},
        {"op: all-to-all\nsize: 1MiB\n",
         "transfers: []\n",
         "'transfers' applies only to op send-recv, not all-to-all"},
        {"op: send-recv\ntransfers: [{src: 0, dst: 1, size: 1B}]\n",
         "size: 1MiB\n",
         "'size' does not apply to op send-recv"},
    };
    for (const auto& [base, key, fragment] : cases)
    {
        std::string entry;
        std::istringstream lines(base + key);
        std::string line;
        bool first = true;
        while (std::getline(lines, line))
        {
            entry += (first ? "  - " : "    ") + line + "\n";
            first = false;
        }
        const std::string path = Write("t.yaml", "collectives:\n" + entry);
        const int keyLine = static_cast<int>(std::count(base.begin(), base.end(), '\n')) + 2;
        try
        {
            ns3::ReadTrafficFile(path);
            ADD_FAILURE() << key << ": no SpecError";
        }
        catch (const SpecError& e)
        {
            EXPECT_NE(e.Message().find(fragment), std::string::npos) << e.what();
            EXPECT_EQ(e.Where().line, keyLine) << e.what();
            EXPECT_EQ(e.Where().column, 5) << e.what();
        }
    }
}

TEST_F(ScratchDir, RankPositionChecksWaitForTheTopologyWhenRanksAreAll)
{
    // Alone, a traffic file with `ranks: all` cannot know P: positions pass.
    Write("t/traffic.yaml",
          "collectives:\n"
          "  - op: all-to-all\n"
          "    matrix: [[0, 1MiB, 1MiB], [1MiB, 0, 1MiB], [1MiB, 1MiB, 0]]\n"
          "  - op: broadcast\n"
          "    size: 1MiB\n"
          "    root: 5\n"
          "  - op: send-recv\n"
          "    transfers: [{src: 5, dst: 0, size: 1MiB}]\n"
          "  - op: all-reduce\n"
          "    algorithm: hierarchical\n"
          "    size: 1MiB\n"
          "    ranks_per_node: 3\n"
          "  - op: all-reduce\n"
          "    algorithm: halving-doubling\n"
          "    size: 1MiB\n");
    const ns3::TrafficSpec alone = ns3::ReadTrafficFile((m_dir / "t" / "traffic.yaml").string());
    ASSERT_EQ(alone.collectives.size(), 5U);
    EXPECT_EQ(alone.collectives[0].matrix.size(), 9U);
    EXPECT_EQ(alone.collectives[1].root, 5U);
    // In a scenario of 6 GPUs everything fits: a 6 x 6 matrix is needed, though.
    ExpectScenarioError(Write("six.yaml",
                              "topology: {kind: single-switch, gpus: 6}\n"
                              "traffic: t/traffic.yaml\n"),
                        "matrix: has 3 rows, but the collective has 6 ranks",
                        3,
                        13);
    // With 3 GPUs: the matrix fits, root 5 does not.
    ExpectScenarioError(Write("three.yaml",
                              "topology: {kind: single-switch, gpus: 3}\n"
                              "traffic: t/traffic.yaml\n"),
                        "root: rank position 5 is out of range: the collective has 3 ranks "
                        "(positions 0 to 2)",
                        6,
                        11);
    // In the traffic file alone, explicit ranks give P: checked at once.
    const std::string explicitRanks = Write("e.yaml",
                                            "collectives:\n"
                                            "  - op: send-recv\n"
                                            "    ranks: [10, 20]\n"
                                            "    transfers: [{src: 0, dst: 2, size: 1MiB}]\n");
    try
    {
        ns3::ReadTrafficFile(explicitRanks);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(),
                  "dst: rank position 2 is out of range: the collective has 2 ranks (positions "
                  "0 to 1); positions index 'ranks', they are not GPU indices");
        EXPECT_EQ(e.Where().line, 4);
        EXPECT_EQ(e.Where().column, 31);
    }
    // The algorithm's own check (a power of two for halving-doubling) runs once P is known.
    ExpectScenarioError(Write("hd.yaml",
                              "topology: {kind: single-switch, gpus: 12}\n"
                              "traffic:\n"
                              "  collectives:\n"
                              "    - op: all-reduce\n"
                              "      algorithm: halving-doubling\n"
                              "      size: 1MiB\n"),
                        "halving-doubling all-reduce: halving-doubling needs a power-of-two "
                        "number of ranks, got 12",
                        5,
                        18);
}

TEST_F(ScratchDir, MatrixAndTransferValuesAreChecked)
{
    const std::string head = "collectives:\n  - op: all-to-all\n    ranks: [0, 1]\n";
    const std::vector<std::tuple<std::string, std::string, int, int>> matrices = {
        {"    matrix: 1MiB\n", "matrix: expected a list of rows", 4, 13},
        {"    matrix: [[0, 1MiB]]\n", "matrix: expected one row per rank, at least 2", 4, 13},
        {"    matrix: [[0, 1MiB], 1MiB]\n", "matrix: row 1: expected a list of 2 sizes", 4, 25},
        {"    matrix: [[0, 1MiB], [1MiB, 0, 0]]\n", "matrix: row 1 has 3 entries", 4, 25},
        {"    matrix: [[0, 1MiB], [1MiB, -1B]]\n", "matrix[1][1]: '-1B': negative", 4, 32},
        {"    matrix: [[0, 1Mbps], [1MiB, 0]]\n",
         "'Mbps' is a data rate unit, but a size is expected",
         4,
         18},
        {"    matrix: [[0, 16EiB], [1MiB, 0]]\n", "matrix[0][1]: unknown unit", 4, 18},
        {"    matrix: [[0, 20000000TiB], [1MiB, 0]]\n",
         "matrix[0][1]: '20000000TiB' is too large",
         4,
         18},
        {"    matrix: [[0, 0], [0B, 0]]\n", "every entry off the diagonal is 0", 4, 13},
    };
    for (const auto& [text, fragment, line, column] : matrices)
    {
        try
        {
            ns3::ReadTrafficFile(Write("m.yaml", head + text));
            ADD_FAILURE() << text << ": no SpecError";
        }
        catch (const SpecError& e)
        {
            EXPECT_NE(e.Message().find(fragment), std::string::npos) << text << e.what();
            EXPECT_EQ(e.Where().line, line) << text << e.what();
            EXPECT_EQ(e.Where().column, column) << text << e.what();
        }
    }
    // Row sums that do not fit in 64 bits.
    try
    {
        ns3::ReadTrafficFile(
            Write("o.yaml", head + "    matrix: [[10000000TB, 10000000TB], [0, 1B]]\n"));
        ADD_FAILURE() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Message().find("the sizes of row 0 add up to more than 2^64-1 bytes"),
                  std::string::npos)
            << e.what();
    }

    const std::string sr = "collectives:\n  - op: send-recv\n    ranks: [0, 1, 2]\n";
    const std::vector<std::tuple<std::string, std::string, int, int>> transfers = {
        {"    transfers: {src: 0, dst: 1, size: 1B}\n", "transfers: expected a list", 4, 16},
        {"    transfers: []\n", "transfers: the list is empty", 4, 16},
        {"    transfers: [[0, 1, 1B]]\n", "transfers: entry 0: expected a mapping", 4, 17},
        {"    transfers: [{src: 0, size: 1B}]\n", "missing required key 'dst' in transfer", 4, 17},
        {"    transfers: [{src: 0, dst: 1, size: 0B}]\n", "size: must be greater than 0", 4, 40},
        {"    transfers: [{src: 0, dst: 1}]\n", "missing required key 'size' in transfer", 4, 17},
        {"    transfers: [{src: -1, dst: 1, size: 1B}]\n", "src: '-1': negative", 4, 23},
        {"    transfers: [{src: 0, dst: 3, size: 1B}]\n",
         "dst: rank position 3 is out of range",
         4,
         31},
        {"    transfers: [{from: 0, dst: 1, size: 1B}]\n",
         "unknown key 'from' in transfer; did you mean 'src'?",
         4,
         18},
    };
    for (const auto& [text, fragment, line, column] : transfers)
    {
        try
        {
            ns3::ReadTrafficFile(Write("s.yaml", sr + text));
            ADD_FAILURE() << text << ": no SpecError";
        }
        catch (const SpecError& e)
        {
            EXPECT_NE(e.Message().find(fragment), std::string::npos) << text << e.what();
            EXPECT_EQ(e.Where().line, line) << text << e.what();
            EXPECT_EQ(e.Where().column, column) << text << e.what();
        }
    }
}

TEST_F(ScratchDir, ChannelsChunksAndReductionBandwidthAreChecked)
{
    const std::string head = "collectives:\n  - op: all-reduce\n    size: 1GiB\n";
    const std::vector<std::tuple<std::string, std::string, int>> cases = {
        {"    channels: 0\n",
         "channels: must be 'auto' or an integer from 1 to 64 (NCCL's MAXCHANNELS), got '0'",
         15},
        {"    channels: 65\n",
         "channels: must be 'auto' or an integer from 1 to 64 (NCCL's MAXCHANNELS), got '65'",
         15},
        {"    channels: 99999999999\n",
         "channels: must be 'auto' or an integer from 1 to 64 (NCCL's MAXCHANNELS), got "
         "'99999999999'",
         15},
        {"    channels: 1.5\n",
         "channels: must be 'auto' or an integer from 1 to 64 (NCCL's MAXCHANNELS), got '1.5'",
         15},
        {"    channels: auto5\n",
         "channels: must be 'auto' or an integer from 1 to 64 (NCCL's MAXCHANNELS), got 'auto5'",
         15},
        {"    chunk_size: 512\n", "chunk_size: '512' has no unit", 17},
        {"    chunk_size: 32B\n",
         "cuts the 1073741824 B buffer into more than 16777216 pieces",
         17},
        {"    reduction_bandwidth: 0GB/s\n", "reduction_bandwidth: must be greater than 0", 26},
        {"    reduction_bandwidth: 200GiB\n", "reduction_bandwidth: ", 26},
        {"    root: 0\n", "'root' applies only to ops broadcast, reduce", 5},
        {"    channels: [auto]\n", "channels: expected 'auto' or an integer, got a sequence", 15},
        {"    ring_order: flat\n",
         "ring_order: unknown ring order 'flat'; known: topology, ranks",
         17},
        {"    ring_order: ranks\n    algorithm: halving-doubling\n",
         "'ring_order' applies only to algorithms ring, tree (their channels follow the "
         "topology), not halving-doubling",
         5},
    };
    for (const auto& [text, fragment, column] : cases)
    {
        try
        {
            ns3::ReadTrafficFile(Write("c.yaml", head + text));
            ADD_FAILURE() << text << ": no SpecError";
        }
        catch (const SpecError& e)
        {
            EXPECT_NE(e.Message().find(fragment), std::string::npos) << text << e.what();
            EXPECT_EQ(e.Where().line, 4) << text << e.what();
            EXPECT_EQ(e.Where().column, column) << text << e.what();
        }
    }
    // 64 channels and 64 B chunks (exactly 2^24 pieces of 1 GiB) are the limits.
    const ns3::TrafficSpec ok
        = ns3::ReadTrafficFile(Write("ok.yaml", head + "    channels: 64\n    chunk_size: 64B\n"));
    EXPECT_EQ(ok.collectives[0].channels, 64U);
    EXPECT_EQ(ok.collectives[0].chunkBytes, 64U);
    const ns3::TrafficSpec autoRanks = ns3::ReadTrafficFile(
        Write("auto.yaml", head + "    channels: auto\n    ring_order: ranks\n"));
    EXPECT_EQ(autoRanks.collectives[0].channels, ns3::WorkloadGroup::AUTO_CHANNELS);
    EXPECT_EQ(autoRanks.collectives[0].ringOrder, ns3::RingOrder::RANKS);
}

TEST_F(ScratchDir, CollectiveKeysInTheWrongPlaceSayWhereTheyBelong)
{
    try
    {
        ns3::ReadTrafficFile(
            Write("t.yaml", "channels: 2\ncollectives: [{op: all-reduce, size: 1B}]\n"));
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(),
                  "unknown key 'channels' in traffic; 'channels' belongs in an entry of "
                  "'collectives'");
    }
    try
    {
        ns3::ReadTrafficFile(
            Write("g.yaml", "collectives: [{op: all-reduce, size: 1B, gamma: 5e-12}]\n"));
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_EQ(e.Message(),
                  "unknown key 'gamma' in collective; write 'reduction_bandwidth' (a data rate; "
                  "gamma = 1 / bandwidth)");
    }
}

TEST(SampleFiles, AllReduceAlgorithmsAreStaggered)
{
    const ns3::TrafficSpec t = ns3::ReadTrafficFile(
        (SourceDir() / "traffic" / "allreduce-algorithms-64mib.yaml").string());
    ASSERT_EQ(t.collectives.size(), 3U);
    const std::vector<std::string> algorithms = {"ring", "tree", "halving-doubling"};
    for (std::size_t i = 0; i < 3; ++i)
    {
        const ns3::CollectiveSpec& c = t.collectives[i];
        EXPECT_EQ(ns3::CollectiveOpName(c.op), "all-reduce");
        EXPECT_EQ(c.algorithm, algorithms[i]);
        EXPECT_EQ(c.bytes, 64ULL << 20);
        EXPECT_TRUE(c.ranks.empty());
        // Far enough apart for 64 MiB at 400 Gb/s on 8 GPUs (about 2.4 to 2.8 ms each).
        EXPECT_EQ(c.start, ns3::MilliSeconds(10 * static_cast<int64_t>(i)));
    }
    // It runs on the 8-GPU sample topology (halving-doubling: a power of two).
    const std::string scenario = (fs::temp_directory_path() / "ai-fabric-algorithms.yaml").string();
    std::ofstream(scenario)
        << "topology: " << (SourceDir() / "topologies" / "single-switch-8-ndr.yaml").string()
        << "\ntraffic: " << (SourceDir() / "traffic" / "allreduce-algorithms-64mib.yaml").string()
        << "\n";
    EXPECT_EQ(ns3::ReadScenarioFile(scenario).traffic.collectives.size(), 3U);
    fs::remove(scenario);
}

TEST(SampleFiles, SkewedAllToAllHasAHotReceiver)
{
    const ns3::TrafficSpec t
        = ns3::ReadTrafficFile((SourceDir() / "traffic" / "alltoall-skewed-8gpu.yaml").string());
    ASSERT_EQ(t.collectives.size(), 1U);
    const ns3::CollectiveSpec& c = t.collectives[0];
    EXPECT_EQ(ns3::CollectiveOpName(c.op), "all-to-all");
    EXPECT_EQ(c.algorithm, "direct");
    ASSERT_EQ(c.ranks.size(), 8U);
    ASSERT_EQ(c.matrix.size(), 64U);
    uint64_t total = 0;
    for (uint32_t i = 0; i < 8; ++i)
    {
        for (uint32_t j = 0; j < 8; ++j)
        {
            const uint64_t expected = i == j ? 0 : (j == 0 ? 4ULL << 20 : 1ULL << 20);
            EXPECT_EQ(c.matrix[i * 8 + j], expected) << i << "," << j;
            total += c.matrix[i * 8 + j];
        }
    }
    EXPECT_EQ(total, 77ULL << 20);
    EXPECT_EQ(c.bytes, 10ULL << 20); // the largest row
}

TEST(SampleFiles, RoceIncastUsesDcqcn)
{
    const ns3::ScenarioSpec s
        = ns3::ReadScenarioFile((SourceDir() / "examples" / "roce-incast-dcqcn.yaml").string());
    EXPECT_EQ(ns3::SpecName(s.congestionControl), "dcqcn");
    EXPECT_EQ(ns3::SpecName(s.reliability), "auto");
    EXPECT_TRUE(s.transportAttributes.empty());
    EXPECT_EQ(s.topology.link.name, "roce-400g");
    EXPECT_GT(s.topology.link.ecnKmin, 0U);
    const std::vector<std::pair<std::string, std::string>> dcqcn = {
        {"AlphaGain", "0.00390625"},
        {"InitialAlpha", "1"},
        {"AlphaUpdatePeriod", "55000000ps"},
        {"RateIncreasePeriod", "55000000ps"},
        {"ByteCounter", "10000000"},
        {"FastRecoverySteps", "5"},
        {"RateAi", "20000000000bps"},
        {"RateHai", "40000000000bps"},
        {"MinRate", "100000000bps"},
        {"CnpInterval", "50000000ps"},
    };
    EXPECT_EQ(s.dcqcnAttributes, dcqcn);
    ASSERT_EQ(s.traffic.collectives.size(), 1U);
    const ns3::CollectiveSpec& c = s.traffic.collectives[0];
    EXPECT_EQ(ns3::CollectiveOpName(c.op), "send-recv");
    EXPECT_EQ(c.algorithm, "direct");
    EXPECT_EQ(c.ranks.size(), 9U);
    ASSERT_EQ(c.transferSrc.size(), 8U);
    for (uint32_t t = 0; t < 8; ++t)
    {
        EXPECT_EQ(c.transferSrc[t], t + 1);
        EXPECT_EQ(c.transferDst[t], 0U);
        EXPECT_EQ(c.transferBytes[t], 4ULL << 20);
    }
    EXPECT_EQ(c.bytes, 32ULL << 20);
}

TEST(SpecLocation, FormatsWhatIsKnown)
{
    EXPECT_EQ((ns3::SpecLocation{"a.yaml", 3, 7}).ToString(), "a.yaml:3:7");
    EXPECT_EQ((ns3::SpecLocation{"a.yaml", 3, 0}).ToString(), "a.yaml:3");
    EXPECT_EQ((ns3::SpecLocation{"a.yaml", 0, 0}).ToString(), "a.yaml");
    EXPECT_EQ(std::string(SpecError(ns3::SpecLocation{"a.yaml", 3, 7}, "bad").what()),
              "a.yaml:3:7: error: bad");
    EXPECT_EQ(std::string(SpecError(ns3::SpecLocation{}, "bad").what()), "error: bad");
}

} // namespace

// ---------------------------------------------------------------------------
// Training jobs and collective sweeps
// ---------------------------------------------------------------------------

TEST_F(ScratchDir, EveryTrainingKeyLandsInTheSpec)
{
    const std::string path = Write("t.yaml",
                                   "training:\n"
                                   "  name: job\n"
                                   "  layers: 8\n"
                                   "  hidden: 1024\n"
                                   "  sequence: 512\n"
                                   "  micro_batch_size: 2\n"
                                   "  bytes_per_element: 4\n"
                                   "  ffn_hidden: 3000\n"
                                   "  vocabulary: 32000\n"
                                   "  parameters: 70000000000\n"
                                   "  moe_layers: 4\n"
                                   "  experts: 8\n"
                                   "  top_k: 2\n"
                                   "  capacity_factor: 1.25\n"
                                   "  expert_ffn_hidden: 1408\n"
                                   "  dispatch_bytes_per_element: 1\n"
                                   "  combine_bytes_per_element: 2\n"
                                   "  routing: {distribution: zipf, zipf_exponent: 1.2, "
                                   "affinity_groups: 2}\n"
                                   "  expert_placement: topology-aware\n"
                                   "  peak_flops: 989TFLOPS\n"
                                   "  mfu: 0.4\n"
                                   "  tp: 2\n"
                                   "  pp: 2\n"
                                   "  dp: 4\n"
                                   "  ep: 2\n"
                                   "  sequence_parallel: true\n"
                                   "  rank_order: tp, dp, pp\n"
                                   "  gpus_per_server: 4\n"
                                   "  tp_in_server: false\n"
                                   "  schedule: interleaved\n"
                                   "  micro_batches: 4\n"
                                   "  virtual_stages: 2\n"
                                   "  tp_algorithm: ring\n"
                                   "  tp_channels: 2\n"
                                   "  dp_algorithm: tree\n"
                                   "  dp_channels: 4\n"
                                   "  chunk_bytes: 1MiB\n"
                                   "  bucket_bytes: 40MiB\n"
                                   "  overlap_grad_reduce: false\n"
                                   "  grad_bytes_per_element: 4\n"
                                   "locality: server\n"
                                   "iterations: 3\n");
    const ns3::TrafficSpec tr = ns3::ReadTrafficFile(path);
    ASSERT_TRUE(tr.hasTraining);
    EXPECT_TRUE(tr.collectives.empty());
    EXPECT_EQ(tr.trainingWhere.line, 2);
    EXPECT_EQ(tr.locality, "server");
    EXPECT_EQ(tr.iterations, 3U);
    const ns3::TrainingSpec& t = tr.training;
    EXPECT_EQ(t.name, "job");
    EXPECT_EQ(t.layers, 8U);
    EXPECT_EQ(t.hidden, 1024U);
    EXPECT_EQ(t.sequence, 512U);
    EXPECT_EQ(t.microBatchSize, 2U);
    EXPECT_EQ(t.bytesPerElement, 4U);
    EXPECT_EQ(t.ffnHidden, 3000U);
    EXPECT_EQ(t.vocabulary, 32000U);
    EXPECT_EQ(t.parameters, 70000000000ULL);
    EXPECT_EQ(t.moeLayers, 4U);
    EXPECT_EQ(t.experts, 8U);
    EXPECT_EQ(t.topK, 2U);
    EXPECT_DOUBLE_EQ(t.capacityFactor, 1.25);
    EXPECT_EQ(t.expertFfnHidden, 1408U);
    EXPECT_EQ(t.dispatchBytesPerElement, 1U);
    EXPECT_EQ(t.combineBytesPerElement, 2U);
    EXPECT_EQ(t.routing.distribution, "zipf");
    EXPECT_DOUBLE_EQ(t.routing.zipfExponent, 1.2);
    EXPECT_EQ(t.routing.affinityGroups, 2U);
    EXPECT_EQ(t.expertPlacement, "topology-aware");
    EXPECT_DOUBLE_EQ(t.peakFlops, 989e12);
    EXPECT_DOUBLE_EQ(t.mfu, 0.4);
    EXPECT_EQ(t.tp, 2U);
    EXPECT_EQ(t.pp, 2U);
    EXPECT_EQ(t.dp, 4U);
    EXPECT_EQ(t.ep, 2U);
    EXPECT_TRUE(t.sequenceParallel);
    EXPECT_EQ(t.rankOrder, "tp,dp,pp");
    EXPECT_EQ(t.gpusPerServer, 4U);
    EXPECT_FALSE(t.tpInServer);
    EXPECT_EQ(t.schedule, "interleaved");
    EXPECT_EQ(t.microBatches, 4U);
    EXPECT_EQ(t.virtualStages, 2U);
    EXPECT_EQ(t.tpAlgorithm, "ring");
    EXPECT_EQ(t.tpChannels, 2U);
    EXPECT_EQ(t.dpAlgorithm, "tree");
    EXPECT_EQ(t.dpChannels, 4U);
    EXPECT_EQ(t.chunkBytes, 1ULL << 20);
    EXPECT_EQ(t.bucketBytes, 40ULL << 20);
    EXPECT_FALSE(t.overlapGradReduce);
    EXPECT_EQ(t.gradBytesPerElement, 4U);
}

TEST_F(ScratchDir, TrainingDefaultsAndRoutingForms)
{
    const std::string base = "training:\n  layers: 4\n  hidden: 64\n  sequence: 8\n"
                             "  peak_flops: 1e12\n";
    ns3::TrafficSpec tr = ns3::ReadTrafficFile(Write("a.yaml", base));
    const ns3::TrainingSpec defaults;
    EXPECT_EQ(tr.training.name, "train");
    EXPECT_DOUBLE_EQ(tr.training.peakFlops, 1e12);
    EXPECT_EQ(tr.training.schedule, defaults.schedule);
    EXPECT_EQ(tr.training.bucketBytes, 25ULL << 20);
    EXPECT_TRUE(tr.training.overlapGradReduce);
    EXPECT_EQ(tr.training.gpusPerServer, 0U);
    EXPECT_EQ(tr.locality, "leaf");
    EXPECT_EQ(tr.iterations, 1U);

    // peak_flops units, and routing as a bare name, hot-expert and a matrix.
    const std::vector<std::pair<std::string, double>> flops = {{"989TFLOPS", 989e12},
                                                               {"1.5 PFLOPS", 1.5e15},
                                                               {"312TFLOP/s", 312e12},
                                                               {"2e9", 2e9},
                                                               {"400GFLOPS", 400e9}};
    for (const auto& [text, value] : flops)
    {
        tr = ns3::ReadTrafficFile(Write("f.yaml",
                                        "training:\n  layers: 4\n  hidden: 64\n  sequence: 8\n"
                                        "  peak_flops: "
                                            + text + "\n"));
        EXPECT_DOUBLE_EQ(tr.training.peakFlops, value) << text;
    }
    const std::string moe = base + "  dp: 2\n  moe_layers: 2\n  experts: 4\n  ep: 2\n";
    tr = ns3::ReadTrafficFile(Write("r1.yaml", moe + "  routing: uniform\n"));
    EXPECT_EQ(tr.training.routing.distribution, "uniform");
    tr = ns3::ReadTrafficFile(
        Write("r2.yaml", moe + "  routing: {distribution: hot-expert, hot_fraction: 0.7}\n"));
    EXPECT_EQ(tr.training.routing.distribution, "hot-expert");
    EXPECT_DOUBLE_EQ(tr.training.routing.hotFraction, 0.7);
    tr = ns3::ReadTrafficFile(
        Write("r3.yaml",
              moe + "  routing: {distribution: matrix, matrix: [[1, 2, 3, 4], [5, 6, 7, 8]]}\n"));
    EXPECT_EQ(tr.training.routing.matrix, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8}));

    // rank_gpus.
    tr = ns3::ReadTrafficFile(Write("g.yaml", base + "  dp: 2\n  rank_gpus: [3, 1]\n"));
    EXPECT_EQ(tr.training.rankGpus, (std::vector<uint32_t>{3, 1}));
}

TEST_F(ScratchDir, TrainingValuesAreCheckedAtTheirKey)
{
    const std::string base = "training:\n  layers: 4\n  hidden: 64\n  sequence: 8\n"
                             "  peak_flops: 1e12\n";
    // {extra lines, fragment, line, column}
    const std::vector<std::tuple<std::string, std::string, int, int>> cases = {
        {"  mfu: 0\n", "must be in (0, 1]", 6, 8},
        {"  mfu: 1.5\n", "must be between 0 and 1", 6, 8},
        {"  tp: 0\n", "must be at least 1", 6, 7},
        {"  rank_order: tp,tp,dp\n", "is not a permutation of tp, pp and dp", 6, 15},
        {"  dp: 2\n  rank_gpus: [0, 0]\n", "GPU 0 appears twice", 7, 18},
        {"  dp: 2\n  rank_gpus: [0, 1, 2]\n", "lists 3 GPUs, but TP x PP x DP", 7, 14},
        {"  virtual_stages: 2\n", "'virtual_stages' applies only to schedule interleaved", 6, 3},
        {"  pp: 2\n  schedule: interleaved\n", "needs 'virtual_stages'", 7, 3},
        {"  layers_x: 1\n", "unknown key 'layers_x' in training", 6, 3},
        {"  ffn: 1\n", "did you mean 'ffn_hidden'?", 6, 3},
        {"  locality: leaf\n", "belongs in the traffic mapping", 6, 3},
        {"  pp: 3\n", "the 4 layers do not divide evenly over 3 stages", 2, 3},
        {"  dp: 4\n  moe_layers: 1\n  experts: 4\n  ep: 3\n",
         "expert-parallel degree 3 must divide",
         9,
         3},
        {"  moe_layers: 1\n  experts: 4\n  top_k: 5\n", "top-k must be between 1", 8, 3},
        {"  moe_layers: 1\n  experts: 4\n  routing: {distribution: uniform, hot_fraction: "
         "0.5}\n",
         "'hot_fraction' applies only to distribution hot-expert",
         8,
         36},
        {"  bucket_bytes: 0B\n", "must be greater than 0", 6, 17},
        {"  tp: 2\n  sequence_parallel: true\n  tp_algorithm: binomial\n",
         "tensor-parallel algorithm 'binomial' does not implement 'reduce-scatter'",
         8,
         3},
    };
    for (const auto& [extra, fragment, line, column] : cases)
    {
        const std::string path = Write("t.yaml", base + extra);
        try
        {
            ns3::ReadTrafficFile(path);
            ADD_FAILURE() << extra << ": no SpecError";
        }
        catch (const SpecError& e)
        {
            EXPECT_NE(e.Message().find(fragment), std::string::npos) << extra << e.what();
            EXPECT_EQ(e.Where().line, line) << extra << e.what();
            EXPECT_EQ(e.Where().column, column) << extra << e.what();
        }
    }
}

TEST_F(ScratchDir, TrainingIsCheckedAgainstTheTopology)
{
    // gpus_per_server comes from the topology's servers when absent.
    Write("t.yaml",
          "training:\n  layers: 4\n  hidden: 64\n  sequence: 8\n  peak_flops: 1e12\n"
          "  tp: 8\n  dp: 2\n");
    const ns3::ScenarioSpec s = ns3::ReadScenarioFile(
        Write("s.yaml",
              "topology: {kind: single-switch, gpus: 16, gpus_per_server: 8, nvlink: true}\n"
              "traffic: t.yaml\n"));
    EXPECT_EQ(s.traffic.training.gpusPerServer, 8U);
    // A TP group across servers is located at the key to change.
    Write("t2.yaml",
          "training:\n  layers: 4\n  hidden: 64\n  sequence: 8\n  peak_flops: 1e12\n"
          "  tp: 8\n  dp: 2\n  rank_order: dp,tp,pp\n");
    try
    {
        ns3::ReadScenarioFile(
            Write("s2.yaml",
                  "topology: {kind: single-switch, gpus: 16, gpus_per_server: 8, nvlink: true}\n"
                  "traffic: t2.yaml\n"));
        ADD_FAILURE() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Message().find("spans NVLink domains"), std::string::npos) << e.what();
        EXPECT_EQ(Normal(e.Where().file), Normal(m_dir / "t2.yaml"));
        EXPECT_EQ(e.Where().line, 8) << e.what();
    }
}

TEST_F(ScratchDir, SweepKeysLandInTheSpec)
{
    ns3::TrafficSpec tr = ns3::ReadTrafficFile(
        Write("t.yaml",
              "collectives:\n  - op: all-reduce\n    sweep: {min: 1KiB, max: 1GiB, factor: 4}\n"
              "  - op: all-gather\n    sweep: {min: 8B, max: 8B}\n"));
    ASSERT_EQ(tr.collectives.size(), 2U);
    EXPECT_TRUE(tr.collectives[0].sweep);
    EXPECT_EQ(tr.collectives[0].sweepMinBytes, 1024U);
    EXPECT_EQ(tr.collectives[0].sweepMaxBytes, 1ULL << 30);
    EXPECT_EQ(tr.collectives[0].sweepFactor, 4U);
    EXPECT_EQ(tr.collectives[0].bytes, 1024U);
    EXPECT_EQ(tr.collectives[1].sweepFactor, 2U);
    EXPECT_EQ(tr.collectives[1].sweepMinBytes, tr.collectives[1].sweepMaxBytes);
    EXPECT_FALSE(tr.hasTraining);

    // Training and collectives together.
    tr = ns3::ReadTrafficFile(Write("b.yaml",
                                    "collectives:\n  - op: all-reduce\n    size: 1MiB\n"
                                    "training:\n  layers: 2\n  hidden: 64\n  sequence: 8\n"
                                    "  peak_flops: 1e12\n"));
    EXPECT_TRUE(tr.hasTraining);
    EXPECT_EQ(tr.collectives.size(), 1U);

    // A sweep does not apply where the sizes come from elsewhere.
    EXPECT_THROW(ns3::ReadTrafficFile(
                     Write("c.yaml",
                           "collectives:\n  - op: send-recv\n    transfers: [{src: 0, dst: 1, "
                           "size: 1B}]\n    sweep: {min: 1B, max: 2B}\n")),
                 SpecError);
}

TEST(SampleFiles, TrainingSamplesFitTheirTopologies)
{
    const std::vector<std::pair<std::string, std::string>> samples = {
        {"dense-70b-tp8-pp4-dp2-1f1b.yaml",
         "{kind: single-switch, gpus: 64, gpus_per_server: 8, nvlink: true}"},
        {"moe-mixtral-like-random.yaml", "leaf-spine-4x4-ndr.yaml"},
        {"moe-mixtral-like-topology-aware.yaml", "leaf-spine-4x4-ndr.yaml"},
        {"moe-deepseek-like-random.yaml", "leaf-spine-4x4-ndr.yaml"},
        {"moe-deepseek-like-topology-aware.yaml", "leaf-spine-4x4-ndr.yaml"},
    };
    const fs::path dir
        = fs::temp_directory_path() / ("ai-fabric-training-samples-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const auto& [traffic, topology] : samples)
    {
        const std::string topo
            = topology[0] == '{' ? topology : (SourceDir() / "topologies" / topology).string();
        const fs::path scenario = dir / "s.yaml";
        std::ofstream(scenario) << "topology: " << topo
                                << "\ntraffic: " << (SourceDir() / "traffic" / traffic).string()
                                << "\n";
        try
        {
            const ns3::ScenarioSpec s = ns3::ReadScenarioFile(scenario.string());
            EXPECT_TRUE(s.traffic.hasTraining) << traffic;
        }
        catch (const SpecError& e)
        {
            ADD_FAILURE() << traffic << ": " << e.what();
        }
    }
    // The twins differ only in the placement.
    const auto a
        = ns3::ReadTrafficFile((SourceDir() / "traffic" / "moe-mixtral-like-random.yaml").string());
    const auto b = ns3::ReadTrafficFile(
        (SourceDir() / "traffic" / "moe-mixtral-like-topology-aware.yaml").string());
    EXPECT_EQ(a.training.expertPlacement, "random");
    EXPECT_EQ(b.training.expertPlacement, "topology-aware");
    EXPECT_EQ(a.training.experts, 8U);
    EXPECT_EQ(a.training.topK, 2U);
    EXPECT_EQ(a.training.routing.distribution, "zipf");
    const auto sweep
        = ns3::ReadTrafficFile((SourceDir() / "traffic" / "allreduce-ring-sweep.yaml").string());
    ASSERT_EQ(sweep.collectives.size(), 1U);
    EXPECT_EQ(sweep.collectives[0].sweepMinBytes, 1024U);
    EXPECT_EQ(sweep.collectives[0].sweepMaxBytes, 256ULL << 20);
    std::error_code ec;
    fs::remove_all(dir, ec);
}

TEST_F(ScratchDir, MoeRoutingMatrixFromCsv)
{
    // The mixtral-like sample with its routing taken from a CSV file beside it.
    std::ifstream in(std::string(AI_FABRIC_SOURCE_DIR) + "/traffic/moe-mixtral-like-random.yaml");
    std::stringstream text;
    text << in.rdbuf();
    std::string yaml = text.str();
    const std::string from
        = "    distribution: zipf\n    zipf_exponent: 1.2\n    affinity_groups: 2\n";
    ASSERT_NE(yaml.find(from), std::string::npos);
    yaml.replace(yaml.find(from),
                 from.size(),
                 "    distribution: matrix\n    matrix: routing.csv\n");
    std::string csv = "# 8 EP ranks x 8 experts, token copies\n";
    for (int r = 0; r < 8; ++r)
    {
        for (int e = 0; e < 8; ++e)
        {
            csv += (e ? "," : "") + std::to_string(r == e ? 100 : 10 + e);
        }
        csv += "\n";
    }
    Write("routing.csv", csv);
    const std::string traffic = Write("moe.yaml", yaml);
    const ns3::TrafficSpec t = ns3::ReadTrafficFile(traffic);
    ASSERT_EQ(t.training.routing.matrix.size(), 64u);
    EXPECT_EQ(t.training.routing.matrix[0], 100u);
    EXPECT_EQ(t.training.routing.matrix[1], 11u);
    EXPECT_EQ(t.training.routing.matrix[63], 100u);

    // A bad cell is reported in the CSV, by line and column.
    std::string bad = csv;
    bad.replace(bad.find("100,11"), 6, "100,x1");
    Write("routing.csv", bad);
    try
    {
        ns3::ReadTrafficFile(traffic);
        FAIL() << "no SpecError";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Where().file.find("routing.csv"), std::string::npos) << e.what();
        EXPECT_EQ(e.Where().line, 2);
        EXPECT_EQ(e.Where().column, 5);
    }
    // A missing row is named too.
    Write("routing.csv", csv.substr(0, csv.rfind('\n', csv.size() - 2) + 1));
    EXPECT_THROW(ns3::ReadTrafficFile(traffic), SpecError);
}
