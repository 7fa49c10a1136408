/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
/**
 * \file
 * \ingroup ai-fabric-tests
 * GoogleTest cases for the YAML scenario reader (yaml-scenario-reader.h):
 * the bad-input corpus in tests/bad-inputs/, every sample file under
 * topologies/, traffic/ and examples/, defaults, inline mappings and error
 * locations.
 */

#include "ns3/link-profile.h"
#include "ns3/spec-error.h"
#include "ns3/units.h"
#include "ns3/yaml-scenario-reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>
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
        ns3::ReadScenarioFile(scenario);
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
    EXPECT_EQ(s.topology.kind, "single-switch");
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
    EXPECT_EQ(c.op, "all-reduce");
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
    EXPECT_EQ(s.forwarding, "ecmp");
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
    EXPECT_EQ(s.traffic.collectives[0].op, "all-gather");
    EXPECT_EQ(s.traffic.collectives[1].op, "reduce-scatter");
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
    EXPECT_EQ(s.forwarding, "spray");
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
    EXPECT_EQ(c.op, "reduce-scatter");
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
    EXPECT_EQ(s.topology.kind, "leaf-spine");
    EXPECT_EQ(s.topology.leaves, 4U);
    EXPECT_EQ(s.topology.spines, 2U);
    EXPECT_EQ(s.topology.gpusPerLeaf, 8U);
    EXPECT_EQ(s.topology.linksPerSpine, 4U);
    EXPECT_EQ(s.topology.gpus, 32U); // leaves x gpus_per_leaf
    const std::string dflt
        = Write("t.yaml", "kind: leaf-spine\nleaves: 2\nspines: 1\ngpus_per_leaf: 1\n");
    EXPECT_EQ(ns3::ReadTopologyFile(dflt).linksPerSpine, 1U);
    EXPECT_EQ(ns3::ReadTopologyFile(dflt).gpus, 2U);
    // A single-switch topology leaves the leaf-spine fields at their defaults.
    const std::string ss = Write("u.yaml", "kind: single-switch\ngpus: 4\n");
    EXPECT_EQ(ns3::ReadTopologyFile(ss).leaves, 0U);
    const std::string huge = Write("h.yaml",
                                   "kind: leaf-spine\nleaves: 65536\nspines: 1\n"
                                   "gpus_per_leaf: 65536\n");
    EXPECT_THROW(ns3::ReadTopologyFile(huge), SpecError);
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
                  "unknown key 'colour' in topology; known keys: name, kind, gpus, leaves, "
                  "spines, gpus_per_leaf, links_per_spine, link");
        EXPECT_EQ(e.Where().line, 3);
        EXPECT_EQ(e.Where().column, 1);
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
