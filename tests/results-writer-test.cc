/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
/**
 * \file
 * \ingroup ai-fabric-tests
 * GoogleTest cases for the JSON writer and the results writers (summary.json, flows.csv,
 * the human table). (The sample statistics they print: the ns-3 TestSuite ai-fabric-stats.)
 */
#include "output/json-writer.h"
#include "output/results-writer.h"

#include "ns3/fabric-stats.h"
#include "ns3/run-results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <locale>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using namespace ns3;

/**
 * \ingroup ai-fabric-tests
 * \brief Read a whole file.
 * \param path the file
 * \return its bytes
 */
std::string
ReadFile(const std::string& path)
{
    std::ifstream is(path, std::ios::binary);
    std::ostringstream ss;
    ss << is.rdbuf();
    return ss.str();
}

/**
 * \ingroup ai-fabric-tests
 * \brief A document written by one JsonWriter call sequence.
 * \param body the calls
 * \return the text
 */
template<typename F>
std::string
Json(F&& body)
{
    std::ostringstream os;
    JsonWriter w(os);
    body(w);
    EXPECT_TRUE(w.IsComplete());
    return os.str();
}

/**
 * \ingroup ai-fabric-tests
 * \brief A small two-collective run with hand-checkable numbers.
 *
 * ar0: ring all-reduce of 256 MiB over 4 ranks, 11.25 ms simulated against
 * 11.2 ms analytic; algbw = 268435456 B / 11.25 ms = 23.86 GB/s, busbw =
 * algbw * 2 * 3 / 4 = 35.79 GB/s. Rank 2 finishes last (1 ms + 11.25 ms).
 * ag1: all-gather with no analytic estimate (analyticS = 0).
 */
RunResults
MakeResults()
{
    RunResults r;
    r.scenario = "ring-allreduce";
    r.scenarioFile = "examples/ring allreduce \"8\".yaml";
    r.topology = "single-switch-4";
    r.traffic = "ar-256mib";
    r.seed = 18446744073709551615ULL; // max uint64, must come out exactly
    r.gpus = 4;
    r.switches = 1;
    r.links = 4;
    r.simTimeS = 0.01225;
    r.wallTimeS = 2.5;
    r.setupTimeS = 0.125;
    r.events = 1000000;
    r.packetHops = 123456789;
    r.complete = true;

    CollectiveResult ar;
    ar.name = "ar0";
    ar.op = "all-reduce";
    ar.algorithm = "ring";
    ar.ranks = 4;
    ar.bytes = 256ULL << 20;
    ar.startS = 0.001;
    ar.endS = 0.01225;
    ar.durationS = 0.01125;
    ar.algbwGBps = static_cast<double>(ar.bytes) / ar.durationS / 1e9;
    ar.busbwGBps = ar.algbwGBps * BusBandwidthFactor(ar.op, ar.ranks);
    ar.analyticS = 0.0112;
    ar.alphaS = 1e-6;
    ar.betaSPerByte = 2.5e-11;
    ar.bytesSentPerRank = {201326592, 201326592, 201326592, 201326590};
    ar.finishSPerRank = {0.0122, 0.0121, 0.01225, 0.0120};
    r.collectives.push_back(ar);

    CollectiveResult ag;
    ag.name = "ag1";
    ag.op = "all-gather";
    ag.algorithm = "ring";
    ag.ranks = 2;
    ag.bytes = 1536;
    r.collectives.push_back(ag);

    for (uint32_t i = 0; i < 10; ++i)
    {
        FlowRecord f;
        f.id = i;
        f.collective = (i == 3) ? "odd,name \"q\"" : "ar0";
        f.step = i / 4;
        f.src = i % 4;
        f.dst = (i + 1) % 4;
        f.bytes = 1000 + i;
        f.wireBytes = 2 * f.bytes; // as LL frames it
        f.startS = 0.001 + i * 1e-6;
        f.endS = f.startS + (i + 1) * 1.5e-6;
        r.flows.push_back(f);
    }
    return r;
}

/**
 * \ingroup ai-fabric-tests
 * \brief Fixture with a fresh temporary directory per test.
 */
class ResultsWriterFileTest : public ::testing::Test
{
  protected:
    /// Create the directory.
    void SetUp() override
    {
        std::string tmpl
            = (std::filesystem::temp_directory_path() / "ai-fabric-results-XXXXXX").string();
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
        m_dir = tmpl;
    }

    /// Remove the directory and everything in it.
    void TearDown() override
    {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }

    /**
     * \param name a file name
     * \return its path inside the temporary directory
     */
    std::string Path(const std::string& name) const
    {
        return (m_dir / name).string();
    }

    /// \return the names of the files in the temporary directory
    std::vector<std::string> Listing() const
    {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(m_dir))
        {
            names.push_back(e.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }

    std::filesystem::path m_dir; //!< the temporary directory
};

// Percentile, Summarize and the bus-bandwidth factors (ns3/fabric-stats.h): the ns-3
// TestSuite ai-fabric-stats (contrib/ai-fabric/test/stats-test-suite.cc).

// ---------------------------------------------------------------------------
// JsonWriter

TEST(JsonWriter, PrettyPrintLayout)
{
    const std::string text = Json([](JsonWriter& w) {
        w.BeginObject();
        w.Key("a").Uint(1);
        w.Key("b").BeginArray().Int(-2).Bool(true).Null().EndArray();
        w.Key("c").BeginObject().EndObject();
        w.Key("d").BeginArray().EndArray();
        w.Key("e").BeginObject().Key("x").String("y").EndObject();
        w.EndObject();
    });
    EXPECT_EQ(text,
              "{\n"
              "  \"a\": 1,\n"
              "  \"b\": [\n"
              "    -2,\n"
              "    true,\n"
              "    null\n"
              "  ],\n"
              "  \"c\": {},\n"
              "  \"d\": [],\n"
              "  \"e\": {\n"
              "    \"x\": \"y\"\n"
              "  }\n"
              "}");
}

TEST(JsonWriter, Integers)
{
    EXPECT_EQ(Json([](JsonWriter& w) { w.Uint(18446744073709551615ULL); }), "18446744073709551615");
    EXPECT_EQ(Json([](JsonWriter& w) { w.Int(std::numeric_limits<int64_t>::min()); }),
              "-9223372036854775808");
    EXPECT_EQ(Json([](JsonWriter& w) { w.Uint(0); }), "0");
}

TEST(JsonWriter, Doubles)
{
    EXPECT_EQ(JsonWriter::FormatDouble(0.1), "0.1");
    EXPECT_EQ(JsonWriter::FormatDouble(1.0), "1");
    EXPECT_EQ(JsonWriter::FormatDouble(-2.5), "-2.5");
    EXPECT_EQ(JsonWriter::FormatDouble(0.01125), "0.01125");
    EXPECT_EQ(JsonWriter::FormatDouble(1.0 / 3.0), "0.333333333333");
    EXPECT_EQ(JsonWriter::FormatDouble(2.5e-11), "2.5e-11");
    EXPECT_EQ(JsonWriter::FormatDouble(1e20), "1e+20");
    EXPECT_EQ(JsonWriter::FormatDouble(123456789012345.0), "1.23456789012e+14");
    EXPECT_EQ(JsonWriter::FormatDouble(-0.0), "0");
    EXPECT_EQ(JsonWriter::FormatDouble(0.1 + 0.2), "0.3"); // noise beyond 12 digits hidden
    EXPECT_EQ(JsonWriter::FormatDouble(std::numeric_limits<double>::quiet_NaN()), "null");
    EXPECT_EQ(JsonWriter::FormatDouble(std::numeric_limits<double>::infinity()), "null");
    EXPECT_EQ(JsonWriter::FormatDouble(-std::numeric_limits<double>::infinity()), "null");
    // same as printf %.12g on a sweep of values
    for (double v = 1e-15; v < 1e15; v *= 7.3)
    {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.12g", v);
        EXPECT_EQ(JsonWriter::FormatDouble(v), buf);
    }
    EXPECT_EQ(
        Json([](JsonWriter& w) { w.BeginArray().Double(1.5).Double(std::nan("")).EndArray(); }),
        "[\n  1.5,\n  null\n]");
}

TEST(JsonWriter, StringEscaping)
{
    EXPECT_EQ(JsonWriter::Quote(""), "\"\"");
    EXPECT_EQ(JsonWriter::Quote("plain / text"), "\"plain / text\"");
    EXPECT_EQ(JsonWriter::Quote("q\"b\\"), "\"q\\\"b\\\\\"");
    EXPECT_EQ(JsonWriter::Quote("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
    EXPECT_EQ(JsonWriter::Quote(std::string("\x00\x01\x1f\x7f", 4)),
              "\"\\u0000\\u0001\\u001f\x7f\"");
    // valid UTF-8 (2, 3 and 4 bytes) passes through
    const std::string utf8 = "\xc2\xb5s \xe2\x86\x92 \xf0\x9f\x9a\x80"; // "µs → 🚀"
    EXPECT_EQ(JsonWriter::Quote(utf8), "\"" + utf8 + "\"");
    // invalid UTF-8: each bad byte becomes U+FFFD
    EXPECT_EQ(JsonWriter::Quote("a\xff"
                                "b"),
              "\"a\\ufffdb\"");
    EXPECT_EQ(JsonWriter::Quote("\xc3"), "\"\\ufffd\"");                       // truncated
    EXPECT_EQ(JsonWriter::Quote("\xc0\xaf"), "\"\\ufffd\\ufffd\"");            // overlong '/'
    EXPECT_EQ(JsonWriter::Quote("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\""); // surrogate
    // keys are escaped too
    EXPECT_EQ(Json([](JsonWriter& w) { w.BeginObject().Key("k\"\n").Bool(false).EndObject(); }),
              "{\n  \"k\\\"\\n\": false\n}");
}

TEST(JsonWriter, NumbersIgnoreTheStreamLocale)
{
    // A stream locale with a decimal comma and digit grouping must not leak into the JSON.
    struct CommaPunct : std::numpunct<char>
    {
        char do_decimal_point() const override
        {
            return ',';
        }

        std::string do_grouping() const override
        {
            return "\3";
        }
    };

    std::ostringstream os;
    os.imbue(std::locale(std::locale::classic(), new CommaPunct));
    JsonWriter w(os);
    w.BeginArray().Double(1.5).Uint(1234567).EndArray();
    EXPECT_EQ(os.str(), "[\n  1.5,\n  1234567\n]");
}

TEST(JsonWriter, MisuseThrows)
{
    std::ostringstream os;
    {
        JsonWriter w(os);
        w.BeginObject();
        EXPECT_THROW(w.Uint(1), std::logic_error);    // value without key
        EXPECT_THROW(w.EndArray(), std::logic_error); // wrong closer
        w.Key("a");
        EXPECT_THROW(w.Key("b"), std::logic_error);    // two keys
        EXPECT_THROW(w.EndObject(), std::logic_error); // key without value
        w.Uint(1).EndObject();
        EXPECT_TRUE(w.IsComplete());
        EXPECT_THROW(w.Uint(2), std::logic_error);     // second document
        EXPECT_THROW(w.EndObject(), std::logic_error); // nothing open
    }
    {
        JsonWriter w(os);
        w.BeginArray();
        EXPECT_THROW(w.Key("a"), std::logic_error); // key in array
        EXPECT_FALSE(w.IsComplete());
    }
}

// ---------------------------------------------------------------------------
// summary.json

TEST(ResultsWriter, SummaryJsonHasEveryKey)
{
    std::ostringstream os;
    WriteSummaryJson(MakeResults(), os);
    const std::string text = os.str();
    for (const char* key : {"schema_version",
                            "scenario",
                            "scenario_file",
                            "topology",
                            "traffic",
                            "seed",
                            "gpus",
                            "switches",
                            "links",
                            "sim_time_s",
                            "wall_time_s",
                            "events",
                            "packet_hops",
                            "complete",
                            "collectives",
                            "name",
                            "op",
                            "algorithm",
                            "ranks",
                            "bytes",
                            "start_s",
                            "end_s",
                            "duration_s",
                            "algbw_GBps",
                            "busbw_GBps",
                            "analytic_s",
                            "alpha_s",
                            "beta_s_per_byte",
                            "sim_over_analytic",
                            "bytes_sent_per_rank",
                            "rank_finish_s",
                            "p50",
                            "slowest_rank",
                            "slowest_over_median",
                            "flows",
                            "count",
                            "fct_s",
                            "min",
                            "mean",
                            "p90",
                            "p99",
                            "p999",
                            "max",
                            "receiver_finish_s",
                            "straggler",
                            "slowdown",
                            "tier_classes",
                            "bisection",
                            "timeseries",
                            "interval_s",
                            "automatic",
                            "bins"})
    {
        EXPECT_NE(text.find(std::string("\"") + key + "\": "), std::string::npos) << key;
    }
    EXPECT_EQ(text.rfind("{\n  \"schema_version\": 5,\n", 0), 0u);
    EXPECT_EQ(text.back(), '\n');
}

TEST(ResultsWriter, SummaryJsonValues)
{
    std::ostringstream os;
    WriteSummaryJson(MakeResults(), os);
    const std::string t = os.str();
    auto has = [&t](const std::string& s) {
        return t.find(s) != std::string::npos;
    };
    EXPECT_TRUE(has("\"scenario_file\": \"examples/ring allreduce \\\"8\\\".yaml\","));
    EXPECT_TRUE(has("\"seed\": 18446744073709551615,"));
    EXPECT_FALSE(has("events_per_s")); // wall-clock figures other than wall_time_s stay out
    EXPECT_TRUE(has("\"complete\": true,"));
    EXPECT_TRUE(has("\"bytes\": 268435456,"));
    EXPECT_TRUE(has("\"duration_s\": 0.01125,"));
    EXPECT_TRUE(has("\"busbw_GBps\": 35.7913941333,"));        // 268435456 / 0.01125 / 1e9 * 1.5
    EXPECT_TRUE(has("\"sim_over_analytic\": 1.00446428571,")); // 11.25 / 11.2
    // bytes_sent_per_rank min/max
    EXPECT_TRUE(has("\"bytes_sent_per_rank\": {\n"
                    "        \"min\": 201326590,\n"
                    "        \"max\": 201326592\n"
                    "      },"));
    // finish: sorted 0.0120 0.0121 0.0122 0.01225 -> p50 0.01215, slowest rank 2,
    // (0.01225 - 0.001) / (0.01215 - 0.001) = 1.00896860987
    EXPECT_TRUE(has("\"rank_finish_s\": {\n"
                    "        \"p50\": 0.01215,\n"
                    "        \"max\": 0.01225,\n"
                    "        \"slowest_rank\": 2,\n"
                    "        \"slowest_over_median\": 1.00896860987\n"
                    "      }"));
    // ag1 has no analytic estimate and no per-rank data
    EXPECT_TRUE(has("\"sim_over_analytic\": null,"));
    EXPECT_TRUE(has("\"slowest_rank\": null,"));
    // flows: 10 flows of 1000..1009 bytes; FCT (i + 1) * 1.5 us
    EXPECT_TRUE(has("\"count\": 10,\n    \"bytes\": 10045,"));
    EXPECT_TRUE(has("\"min\": 1.5e-06,"));
    EXPECT_TRUE(has("\"max\": 1.5e-05\n"));
    EXPECT_TRUE(has("\"p50\": 8.25e-06,")); // 5.5 * 1.5 us
}

TEST(ResultsWriter, SummaryJsonZeroWallTimeAndNoFlows)
{
    RunResults r;
    r.complete = false;
    std::ostringstream os;
    WriteSummaryJson(r, os);
    const std::string t = os.str();
    EXPECT_NE(t.find("\"wall_time_s\": 0,"), std::string::npos);
    EXPECT_NE(t.find("\"complete\": false,"), std::string::npos);
    EXPECT_NE(t.find("\"collectives\": [],"), std::string::npos);
    EXPECT_NE(t.find("\"count\": 0,"), std::string::npos);
}

TEST_F(ResultsWriterFileTest, SummaryJsonIsDeterministicAndAtomic)
{
    const RunResults r = MakeResults();
    const std::string a = Path("a.json");
    const std::string b = Path("b.json");
    WriteSummaryJson(r, a);
    WriteSummaryJson(r, b);
    const std::string ta = ReadFile(a);
    EXPECT_FALSE(ta.empty());
    EXPECT_EQ(ta, ReadFile(b));
    // overwrite in place: same bytes, and no .tmp left behind
    WriteSummaryJson(r, a);
    EXPECT_EQ(ReadFile(a), ta);
    EXPECT_EQ(Listing(), (std::vector<std::string>{"a.json", "b.json"}));
    std::ostringstream os;
    WriteSummaryJson(r, os);
    EXPECT_EQ(os.str(), ta);
}

TEST_F(ResultsWriterFileTest, WriteFailureNamesThePath)
{
    const std::string bad = Path("no-such-dir/summary.json");
    try
    {
        WriteSummaryJson(MakeResults(), bad);
        FAIL() << "expected std::runtime_error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
    EXPECT_THROW(WriteFlowsCsv(MakeResults(), bad), std::runtime_error);
    // rename onto a non-empty directory fails: the .tmp must be cleaned up
    std::filesystem::create_directories(Path("dir/x"));
    EXPECT_THROW(WriteFlowsCsv(MakeResults(), Path("dir")), std::runtime_error);
    EXPECT_EQ(Listing(), (std::vector<std::string>{"dir"}));
}

// ---------------------------------------------------------------------------
// flows.csv

TEST_F(ResultsWriterFileTest, FlowsCsvHeaderRowsAndDeterminism)
{
    const RunResults r = MakeResults();
    const std::string path = Path("flows.csv");
    WriteFlowsCsv(r, path);
    const std::string text = ReadFile(path);
    EXPECT_EQ(Listing(), (std::vector<std::string>{"flows.csv"}));

    std::istringstream is(text);
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(is, line))
    {
        lines.push_back(line);
    }
    ASSERT_EQ(lines.size(), 1 + r.flows.size());
    EXPECT_EQ(lines[0],
              "flow_id,collective,step,src,dst,bytes,start_ns,end_ns,fct_ns,ideal_ns,slowdown,"
              "wire_bytes");
    // flow 0: start 1 ms = 1000000 ns, fct 1.5 us = 1500 ns; no ideal: empty
    EXPECT_EQ(lines[1], "0,ar0,0,0,1,1000,1000000.000,1001500.000,1500.000,,,2000");
    // flow 3: quoted name; start 1.003 ms, fct 6 us
    EXPECT_EQ(lines[4],
              "3,\"odd,name \"\"q\"\"\",0,3,0,1003,1003000.000,1009000.000,6000.000,,,2006");
    EXPECT_EQ(text.back(), '\n');

    WriteFlowsCsv(r, Path("again.csv"));
    EXPECT_EQ(ReadFile(Path("again.csv")), text);
    std::ostringstream os;
    WriteFlowsCsv(r, os);
    EXPECT_EQ(os.str(), text);
}

TEST(ResultsWriter, FlowsCsvPicosecondRounding)
{
    RunResults r;
    FlowRecord f;
    f.id = 7;
    f.collective = "c";
    f.startS = 1.2345674e-6; // 1234.5674 ns -> 1234.567
    f.endS = 1.2345676e-6;   // 1234.5676 ns -> 1234.568
    r.flows.push_back(f);
    FlowRecord g = f;
    g.id = 8;
    g.startS = 0;
    g.endS = std::numeric_limits<double>::quiet_NaN();
    r.flows.push_back(g);
    std::ostringstream os;
    WriteFlowsCsv(r, os);
    EXPECT_EQ(os.str(),
              "flow_id,collective,step,src,dst,bytes,start_ns,end_ns,fct_ns,ideal_ns,slowdown,"
              "wire_bytes\n"
              "7,c,0,0,0,0,1234.567,1234.568,0.001,,,0\n"
              "8,c,0,0,0,0,0.000,,,,,0\n");
}

TEST(ResultsWriter, EmptyFlowsCsvIsHeaderOnly)
{
    std::ostringstream os;
    WriteFlowsCsv(RunResults{}, os);
    EXPECT_EQ(os.str(),
              "flow_id,collective,step,src,dst,bytes,start_ns,end_ns,fct_ns,ideal_ns,slowdown,"
              "wire_bytes\n");
}

// ---------------------------------------------------------------------------
// Human table

TEST(ResultsWriter, SummaryTable)
{
    std::ostringstream os;
    PrintSummaryTable(MakeResults(), os);
    const std::string t = os.str();
    auto has = [&t](const std::string& s) {
        return t.find(s) != std::string::npos;
    };
    EXPECT_TRUE(has("collective")) << t;
    EXPECT_TRUE(has("sim/analytic")) << t;
    EXPECT_TRUE(has("256 MiB")) << t;
    EXPECT_TRUE(has("1.5 KiB")) << t;
    EXPECT_TRUE(has("11.25 ms")) << t;
    EXPECT_TRUE(has("1.004")) << t;
    EXPECT_TRUE(has("23.9 GB/s")) << t;
    EXPECT_TRUE(has("flows: 10, FCT p50 8.25 us, p99 14.87 us, max 15.00 us")) << t;
    EXPECT_TRUE(has("ring all-reduce of 256MiB over 4 GPUs: 11.25 ms simulated, 11.20 ms "
                    "analytic (alpha-beta), busbw 35.8 GB/s\n"))
        << t;
    EXPECT_TRUE(has("ring all-gather of 1.5KiB over 2 GPUs: 0 s simulated, no analytic "
                    "estimate, busbw 0.00 GB/s\n"))
        << t;
    EXPECT_FALSE(has("WARNING")) << t;
    // every line of the table has the same length up to its right-aligned last column
    std::istringstream is(t);
    std::string l0;
    std::string l1;
    std::getline(is, l0);
    std::getline(is, l1);
    EXPECT_EQ(l0.size(), l1.size()) << t;

    RunResults incomplete;
    incomplete.complete = false;
    std::ostringstream os2;
    PrintSummaryTable(incomplete, os2);
    EXPECT_NE(os2.str().find("WARNING"), std::string::npos);
    EXPECT_NE(os2.str().find("flows: 0\n"), std::string::npos);
}

} // namespace
