/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
/**
 * \file
 * \ingroup ai-fabric-tests
 * `ai-fabric analyze` end to end, as a user runs it: every sample topology is
 * analyzed, the JSON is valid and carries the bisection figures, the DOT file is
 * a Graphviz graph, a scenario file gives its topology, and bad input exits with
 * status 2 and writes nothing.
 */

#include "tool-runner.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace
{

namespace fs = std::filesystem;

/// What one run of the tool did (tests/tool-runner.h).
using Outcome = aifabrictest::ToolOutcome;

/// \param p a file \return its content ("" if it cannot be read)
std::string
Slurp(const fs::path& p)
{
    return aifabrictest::SlurpFile(p);
}

/// \param name the test's name \return a fresh, empty scratch directory
fs::path
Scratch(const std::string& name)
{
    return aifabrictest::FreshScratch("analyze-test-" + name);
}

/// Run the tool with \p args (already shell-quoted), capturing stdout and stderr in \p scratch.
Outcome
Tool(const std::string& args, const fs::path& scratch)
{
    return aifabrictest::RunTool(args, scratch);
}

/// \param rel a path relative to the repository root \return the absolute path
std::string
Src(const std::string& rel)
{
    return aifabrictest::SourcePath(rel);
}

/// \return every topologies/*.yaml, sorted
std::vector<fs::path>
SampleTopologies()
{
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(Src("topologies")))
    {
        if (e.is_regular_file() && e.path().extension() == ".yaml")
        {
            files.push_back(e.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

/**
 * \ingroup ai-fabric-tests
 * \brief A strict JSON reader (RFC 8259) that keeps the numbers, by path
 * ("bisection.max_flow_gbps", "switch_tiers[0].count"); enough to check that a
 * file is valid JSON and to read figures from it.
 */
class JsonNumbers
{
  public:
    /**
     * \param text the document
     * \param[out] error what is wrong, if the text is not valid JSON
     * \return true if the text is one valid JSON value (with surrounding whitespace)
     */
    bool Parse(const std::string& text, std::string& error)
    {
        m_text = text;
        m_pos = 0;
        m_numbers.clear();
        try
        {
            Value("");
            Blank();
            if (m_pos != m_text.size())
            {
                Fail("text after the value");
            }
        }
        catch (const std::runtime_error& e)
        {
            error = e.what();
            return false;
        }
        return true;
    }

    /// \return the numbers by path
    const std::map<std::string, double>& Numbers() const
    {
        return m_numbers;
    }

  private:
    /// \param what the problem
    [[noreturn]] void Fail(const std::string& what) const
    {
        throw std::runtime_error(what + " at offset " + std::to_string(m_pos));
    }

    /// Skip whitespace.
    void Blank()
    {
        while (m_pos < m_text.size()
               && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' || m_text[m_pos] == '\t'
                   || m_text[m_pos] == '\r'))
        {
            ++m_pos;
        }
    }

    /// \param word a literal to consume
    void Literal(const std::string& word)
    {
        if (m_text.compare(m_pos, word.size(), word) != 0)
        {
            Fail("expected " + word);
        }
        m_pos += word.size();
    }

    /// \return a string's content (escapes kept as written)
    std::string String()
    {
        Literal("\"");
        std::string s;
        while (m_pos < m_text.size() && m_text[m_pos] != '"')
        {
            const char c = m_text[m_pos++];
            if (static_cast<unsigned char>(c) < 0x20)
            {
                Fail("control character in a string");
            }
            if (c == '\\')
            {
                if (m_pos >= m_text.size()
                    || std::string("\"\\/bfnrtu").find(m_text[m_pos]) == std::string::npos)
                {
                    Fail("bad escape");
                }
                if (m_text[m_pos] == 'u')
                {
                    for (int i = 1; i <= 4; ++i)
                    {
                        if (m_pos + i >= m_text.size()
                            || !std::isxdigit(static_cast<unsigned char>(m_text[m_pos + i])))
                        {
                            Fail("bad \\u escape");
                        }
                    }
                    m_pos += 4;
                }
                ++m_pos;
                continue;
            }
            s += c;
        }
        Literal("\"");
        return s;
    }

    /// \param path where the number sits
    void Number(const std::string& path)
    {
        const std::size_t start = m_pos;
        auto digits = [this] {
            const std::size_t from = m_pos;
            while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
            {
                ++m_pos;
            }
            if (m_pos == from)
            {
                Fail("expected a digit");
            }
        };
        if (m_text[m_pos] == '-')
        {
            ++m_pos;
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '0')
        {
            ++m_pos;
        }
        else
        {
            digits();
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '.')
        {
            ++m_pos;
            digits();
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E'))
        {
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
            {
                ++m_pos;
            }
            digits();
        }
        m_numbers[path] = std::stod(m_text.substr(start, m_pos - start));
    }

    /// \param path where the value sits
    void Value(const std::string& path)
    {
        Blank();
        if (m_pos >= m_text.size())
        {
            Fail("unexpected end");
        }
        const char c = m_text[m_pos];
        if (c == '{')
        {
            ++m_pos;
            Blank();
            if (m_text[m_pos] == '}')
            {
                ++m_pos;
                return;
            }
            while (true)
            {
                Blank();
                const std::string key = String();
                Blank();
                Literal(":");
                Value(path.empty() ? key : path + "." + key);
                Blank();
                if (m_pos < m_text.size() && m_text[m_pos] == ',')
                {
                    ++m_pos;
                    continue;
                }
                Literal("}");
                return;
            }
        }
        if (c == '[')
        {
            ++m_pos;
            Blank();
            if (m_text[m_pos] == ']')
            {
                ++m_pos;
                return;
            }
            for (int i = 0;; ++i)
            {
                Value(path + "[" + std::to_string(i) + "]");
                Blank();
                if (m_pos < m_text.size() && m_text[m_pos] == ',')
                {
                    ++m_pos;
                    continue;
                }
                Literal("]");
                return;
            }
        }
        if (c == '"')
        {
            String();
        }
        else if (c == 't')
        {
            Literal("true");
        }
        else if (c == 'f')
        {
            Literal("false");
        }
        else if (c == 'n')
        {
            Literal("null");
        }
        else if (c == '-' || std::isdigit(static_cast<unsigned char>(c)))
        {
            Number(path);
        }
        else
        {
            Fail(std::string("unexpected '") + c + "'");
        }
    }

    std::string m_text;                      //!< the document
    std::size_t m_pos{0};                    //!< read position
    std::map<std::string, double> m_numbers; //!< numbers by path
};

TEST(JsonNumbers, AcceptsJsonAndRejectsTheRest)
{
    JsonNumbers j;
    std::string error;
    EXPECT_TRUE(
        j.Parse("{\"a\": [1, -2.5e3, {\"b\": 0}], \"c\": \"x\\\"y\", \"d\": null}\n", error))
        << error;
    EXPECT_EQ(j.Numbers().at("a[1]"), -2500.0);
    EXPECT_EQ(j.Numbers().at("a[2].b"), 0.0);
    for (const std::string bad : {"{\"a\": 1,}",
                                  "{a: 1}",
                                  "[1 2]",
                                  "{\"a\": 01}",
                                  "{\"a\": .5}",
                                  "{\"a\": nan}",
                                  "{} {}",
                                  "{\"a\": \"\\x\"}",
                                  ""})
    {
        EXPECT_FALSE(j.Parse(bad, error)) << bad;
    }
}

/// The samples the analyze command is demonstrated with (docs/topologies.md).
TEST(AnalyzeCli, TheSampleTopologiesExist)
{
    for (const char* name : {"dgx-h100-node",
                             "nvl72-rack",
                             "leaf-spine-288-1to1",
                             "leaf-spine-288-2to1",
                             "leaf-spine-288-3to1",
                             "superpod-h100-1su",
                             "superpod-h100-1su-rail-only",
                             "dragonfly-plus-8g",
                             "fat-tree-k8",
                             "custom-ring-4"})
    {
        const fs::path p = Src(std::string("topologies/") + name + ".yaml");
        ASSERT_TRUE(fs::exists(p)) << p;
        // Each starts with a comment block saying what it models and its sources.
        const std::string text = Slurp(p);
        EXPECT_EQ(text.rfind("# " + std::string(name) + ":", 0), 0U) << p;
        EXPECT_NE(text.find("FACTS.md"), std::string::npos) << p;
    }
}

TEST(AnalyzeCli, EverySampleTopologyIsAnalyzed)
{
    const auto files = SampleTopologies();
    ASSERT_GE(files.size(), 10U);
    for (const auto& f : files)
    {
        const std::string name = f.stem().string();
        const fs::path s = Scratch("sample-" + name);
        const Outcome o = Tool("analyze '" + f.string() + "'", s);
        EXPECT_EQ(o.status, 0) << name << ": " << o.err;
        EXPECT_TRUE(o.err.empty()) << name << ": " << o.err;
        EXPECT_EQ(o.out.rfind("topology " + name + " (", 0), 0U) << o.out.substr(0, 200);
        EXPECT_NE(o.out.find("bisection bandwidth, one direction"), std::string::npos)
            << name << ":\n"
            << o.out;
        EXPECT_NE(o.out.find("    max-flow "), std::string::npos) << name;
        EXPECT_EQ(o.out.find("DISAGREES"), std::string::npos) << name << ":\n" << o.out;
        EXPECT_EQ(o.out.find("UNREACHABLE"), std::string::npos) << name << ":\n" << o.out;
    }
}

TEST(AnalyzeCli, JsonCarriesTheBisectionFigures)
{
    const fs::path s = Scratch("json");
    const fs::path json = s / "fat-tree.json";
    const Outcome o = Tool("analyze '" + Src("topologies/fat-tree-k8.yaml") + "' --json '"
                               + json.string() + "'",
                           s);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("bisection bandwidth"), std::string::npos); // the report too
    EXPECT_NE(o.out.find("json: " + json.string()), std::string::npos) << o.out;
    EXPECT_FALSE(fs::exists(json.string() + ".tmp"));
    JsonNumbers j;
    std::string error;
    ASSERT_TRUE(j.Parse(Slurp(json), error)) << error;
    const auto& n = j.Numbers();
    for (const char* key : {"gpus",
                            "switches",
                            "links",
                            "bisection.formula_gbps",
                            "bisection.max_flow_gbps",
                            "bisection.worst_gbps",
                            "bisection.full_gbps",
                            "paths.diameter_hops"})
    {
        EXPECT_EQ(n.count(key), 1U) << key;
    }
    // Al-Fares k = 8 (FACTS.md 1.1): 128 GPUs, 80 switches, 384 links, full bisection
    // 64 x 400 Gb/s.
    EXPECT_EQ(n.at("gpus"), 128.0);
    EXPECT_EQ(n.at("switches"), 80.0);
    EXPECT_EQ(n.at("links"), 384.0);
    EXPECT_EQ(n.at("bisection.formula_gbps"), 25600.0);
    EXPECT_EQ(n.at("bisection.max_flow_gbps"), 25600.0);
    EXPECT_EQ(n.at("bisection.full_gbps"), 25600.0);

    // The three leaf-spines of the same 288 GPUs: 1/r of the full bisection (FACTS.md 1.2).
    for (const auto& [file, gbps] : std::map<std::string, double>{{"leaf-spine-288-1to1", 57600},
                                                                  {"leaf-spine-288-2to1", 28800},
                                                                  {"leaf-spine-288-3to1", 19200}})
    {
        const fs::path out = s / (file + ".json");
        ASSERT_EQ(Tool("analyze '" + Src("topologies/" + file + ".yaml") + "' --json '"
                           + out.string() + "'",
                       s)
                      .status,
                  0)
            << file;
        ASSERT_TRUE(j.Parse(Slurp(out), error)) << file << ": " << error;
        EXPECT_EQ(j.Numbers().at("gpus"), 288.0) << file;
        EXPECT_EQ(j.Numbers().at("bisection.formula_gbps"), gbps) << file;
        EXPECT_EQ(j.Numbers().at("bisection.max_flow_gbps"), gbps) << file;
        EXPECT_EQ(j.Numbers().at("bisection.full_gbps"), 57600.0) << file;
    }
}

TEST(AnalyzeCli, DotIsAGraphvizGraphOfEveryLink)
{
    const fs::path s = Scratch("dot");
    const fs::path dot = s / "ring.dot";
    const fs::path json = s / "ring.json";
    const Outcome o = Tool("analyze '" + Src("topologies/custom-ring-4.yaml") + "' --dot '"
                               + dot.string() + "' --json '" + json.string() + "'",
                           s);
    ASSERT_EQ(o.status, 0) << o.err;
    const std::string text = Slurp(dot);
    EXPECT_TRUE(text.rfind("graph", 0) == 0 || text.rfind("digraph", 0) == 0) << text.substr(0, 80);
    EXPECT_EQ(text.substr(text.size() - 2), "}\n");
    EXPECT_FALSE(fs::exists(dot.string() + ".tmp"));
    std::size_t edges = 0;
    for (std::size_t at = text.find(" -- "); at != std::string::npos;
         at = text.find(" -- ", at + 1))
    {
        ++edges;
    }
    JsonNumbers j;
    std::string error;
    ASSERT_TRUE(j.Parse(Slurp(json), error)) << error;
    EXPECT_EQ(static_cast<double>(edges), j.Numbers().at("links"));
    for (const char* node : {"\"gpu0\"", "\"gpu3\"", "\"sw0\"", "\"sw3\""})
    {
        EXPECT_NE(text.find(node), std::string::npos) << node;
    }
}

TEST(AnalyzeCli, ScenarioFileGivesItsTopology)
{
    const fs::path s = Scratch("scenario");
    const Outcome o = Tool("analyze '" + Src("examples/ring-allreduce-8gpu.yaml") + "'", s);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out.rfind("topology single-switch-8-ndr (single-switch): 8 GPUs", 0), 0U)
        << o.out.substr(0, 200);
}

TEST(AnalyzeCli, OutputIsDeterministic)
{
    const fs::path s = Scratch("determinism");
    const std::string topo = Src("topologies/dragonfly-plus-8g.yaml");
    const Outcome a = Tool("analyze '" + topo + "' --json '" + (s / "a.json").string() + "' --dot '"
                               + (s / "a.dot").string() + "'",
                           s);
    const Outcome b = Tool("analyze '" + topo + "' --json '" + (s / "b.json").string() + "' --dot '"
                               + (s / "b.dot").string() + "'",
                           s);
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;
    const auto report = [](const std::string& out) {
        return out.substr(0, out.find("json: "));
    };
    EXPECT_EQ(report(a.out), report(b.out));
    EXPECT_EQ(Slurp(s / "a.json"), Slurp(s / "b.json"));
    EXPECT_EQ(Slurp(s / "a.dot"), Slurp(s / "b.dot"));
}

TEST(AnalyzeCli, BadInputExitsWithStatus2AndWritesNothing)
{
    const fs::path s = Scratch("bad");
    const fs::path json = s / "out.json";
    const fs::path dot = s / "out.dot";
    const std::string outputs = " --json '" + json.string() + "' --dot '" + dot.string() + "'";
    const fs::path bad = s / "bad.yaml";
    std::ofstream(bad) << "kind: leaf-spine\nradix: 30\noversubscription: \"3:1\"\n";
    const fs::path corpus = Src("tests/bad-inputs/custom-disconnected/topo.yaml");

    struct Case
    {
        std::string args;  //!< the arguments
        std::string error; //!< what stderr must contain
    };

    const std::vector<Case> cases = {
        {"analyze '" + bad.string() + "'" + outputs,
         bad.string() + ":3:1: error: leaf oversubscription 3:1 needs a radix divisible by 4"},
        {"analyze '" + corpus.string() + "'" + outputs,
         corpus.string() + ":4:5: error: the custom topology is disconnected"},
        {"analyze '" + (s / "missing.yaml").string() + "'" + outputs, "no such file"},
        {"analyze" + outputs, "'analyze' needs a topology file"},
        {"analyze '" + bad.string() + "' --bogus", "unknown option '--bogus'"},
        {"analyze '" + bad.string() + "' --json", "option --json needs a file name"},
        {"analyze a.yaml b.yaml", "one too many"},
        {"analyze '" + Src("topologies/fat-tree-k8.yaml") + "' --json '"
             + (s / "no" / "such" / "dir.json").string() + "'",
         "does not exist"},
        {"analyze '" + Src("topologies/fat-tree-k8.yaml") + "' --json '" + json.string()
             + "' --dot '" + json.string() + "'",
         "name the same file"},
    };
    for (const auto& c : cases)
    {
        const Outcome o = Tool(c.args, s);
        EXPECT_EQ(o.status, 2) << c.args << ": " << o.err;
        EXPECT_NE(o.err.find(c.error), std::string::npos)
            << c.args << ": expected '" << c.error << "' in: " << o.err;
        EXPECT_TRUE(o.out.empty()) << c.args << ": " << o.out;
        for (const fs::path& p : {json, dot})
        {
            EXPECT_FALSE(fs::exists(p)) << c.args << " wrote " << p;
            EXPECT_FALSE(fs::exists(p.string() + ".tmp")) << c.args;
        }
    }
}

TEST(AnalyzeCli, HelpShowsTheCommand)
{
    const fs::path s = Scratch("help");
    const Outcome o = Tool("--help", s);
    EXPECT_EQ(o.status, 0);
    EXPECT_NE(o.out.find("ai-fabric analyze TOPOLOGY.yaml [--json FILE] [--dot FILE]"),
              std::string::npos)
        << o.out;
}

} // namespace
