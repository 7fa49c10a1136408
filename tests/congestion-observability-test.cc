/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion control made observable (issue 17, part 6): on the DCQCN incast example, the
 * CNPs the receivers sent are the CNPs the senders received, rates were cut, qps.csv's rows
 * add up to summary.json's totals, and timeseries.csv's sampled rates lie between DCQCN's
 * minimum rate and the line rate; without congestion control there is no qps.csv, no rate
 * column and no CNP; the outputs are identical for a seed under two schedulers, and the rate
 * sampling (the time series' bin edges) changes no result. The model's counters themselves:
 * the ns-3 TestSuite ai-fabric-transport.
 */
#include "tool-runner.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace aifabrictest;

namespace
{

/// A CSV file as rows of named fields (no quoting: these files quote nothing).
struct Csv
{
    std::vector<std::string> header;                      //!< column names
    std::vector<std::map<std::string, std::string>> rows; //!< by column name
};

Csv
ReadCsv(const fs::path& path)
{
    Csv csv;
    std::istringstream in(SlurpFile(path));
    std::string line;
    auto split = [](const std::string& l) {
        std::vector<std::string> f;
        std::stringstream ss(l);
        std::string x;
        while (std::getline(ss, x, ','))
        {
            f.push_back(x);
        }
        if (!l.empty() && l.back() == ',')
        {
            f.emplace_back();
        }
        return f;
    };
    if (!std::getline(in, line))
    {
        return csv;
    }
    csv.header = split(line);
    while (std::getline(in, line))
    {
        const std::vector<std::string> f = split(line);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < csv.header.size(); ++i)
        {
            row[csv.header[i]] = i < f.size() ? f[i] : "";
        }
        csv.rows.push_back(std::move(row));
    }
    return csv;
}

/// \return the text after `"key": ` in a summary.json (up to the next comma or newline)
std::string
JsonField(const std::string& json, const std::string& key)
{
    const std::string tag = "\"" + key + "\": ";
    const std::size_t at = json.find(tag);
    if (at == std::string::npos)
    {
        return "<missing " + key + ">";
    }
    const std::size_t from = at + tag.size();
    return json.substr(from, json.find_first_of(",\n", from) - from);
}

uint64_t
JsonUint(const std::string& json, const std::string& key)
{
    return std::stoull(JsonField(json, key));
}

/// summary.json without its one wall-clock field
std::string
WithoutWallTime(std::string json)
{
    const std::size_t at = json.find("\"wall_time_s\": ");
    if (at != std::string::npos)
    {
        json.erase(at, json.find('\n', at) - at);
    }
    return json;
}

/// The DCQCN incast example, with \p extra options, into \p out.
ToolOutcome
RunIncast(const fs::path& out, const fs::path& scratch, const std::string& extra = "")
{
    return RunTool("run '" + SourcePath("examples/roce-incast-dcqcn.yaml") + "' --quiet --out '"
                       + out.string() + "' " + extra,
                   scratch);
}

/// The same incast without congestion control (a scenario in \p scratch).
fs::path
IncastWithoutCongestionControl(const fs::path& scratch)
{
    const fs::path yaml = scratch / "incast-no-cc.yaml";
    std::ofstream(yaml) << "name: incast-no-cc\nseed: 1\nstop_time: 100ms\n"
                           "congestion_control: none\n"
                        << "topology: " << SourcePath("topologies/single-switch-16-roce400.yaml")
                        << "\ntraffic: " << SourcePath("traffic/incast-8to1-sendrecv.yaml") << "\n";
    return yaml;
}

} // namespace

TEST(CongestionObservability, DcqcnIncastCountsCnpsCutsAndRates)
{
    const fs::path s = FreshScratch("cc-incast");
    const fs::path out = s / "out";
    const ToolOutcome o = RunIncast(out, s);
    ASSERT_EQ(o.status, 0) << o.err;
    const std::string summary = SlurpFile(out / "summary.json");
    EXPECT_EQ(JsonField(summary, "congestion_control"), "\"dcqcn\"");
    const uint64_t cnpsSent = JsonUint(summary, "cnps_sent");
    const uint64_t cnpsReceived = JsonUint(summary, "cnps_received");
    const uint64_t cuts = JsonUint(summary, "rate_cuts");
    const uint64_t marked = JsonUint(summary, "ecn_marked_received");
    EXPECT_GT(cnpsSent, 0u);
    EXPECT_EQ(cnpsSent, cnpsReceived); // lossless: every CNP arrives
    EXPECT_GT(cuts, 0u);
    EXPECT_GT(marked, 0u);
    EXPECT_LE(marked, JsonUint(summary, "ecn_marks"));  // a switch marks each packet at most once
    EXPECT_EQ(JsonUint(summary, "controlled_qps"), 8u); // every sender was slowed
    EXPECT_EQ(JsonField(SlurpFile(out / "summary.json"), "rates"), "true");

    // qps.csv: one row per queue pair (8 senders to GPU 0); the rows add up to the totals.
    const Csv qps = ReadCsv(out / "qps.csv");
    ASSERT_EQ(qps.rows.size(), 8u) << SlurpFile(out / "qps.csv");
    uint64_t sent = 0;
    uint64_t received = 0;
    uint64_t qpCuts = 0;
    uint64_t qpMarked = 0;
    for (const auto& r : qps.rows)
    {
        EXPECT_EQ(r.at("dst"), "0");
        sent += std::stoull(r.at("cnps_sent"));
        received += std::stoull(r.at("cnps_received"));
        qpCuts += std::stoull(r.at("rate_cuts"));
        qpMarked += std::stoull(r.at("ecn_marked"));
        EXPECT_EQ(r.at("data_packets"), "1024"); // 4 MiB in 4 KiB packets
        const double minRate = std::stod(r.at("min_rate_gbps"));
        const double finalRate = std::stod(r.at("final_rate_gbps"));
        EXPECT_GE(minRate, 0.1); // min_rate: 100Mbps
        EXPECT_LT(minRate, 400.0);
        EXPECT_GE(finalRate, minRate);
        EXPECT_LE(finalRate, 400.0);
        EXPECT_EQ(r.at("line_rate_gbps"), "400.000000");
    }
    EXPECT_EQ(sent, cnpsSent);
    EXPECT_EQ(received, cnpsReceived);
    EXPECT_EQ(qpCuts, cuts);
    EXPECT_EQ(qpMarked, marked);

    // timeseries.csv: the sampled rates lie between the minimum rate and the line rate; the
    // CNPs of the bins add up to the totals.
    const Csv ts = ReadCsv(out / "timeseries.csv");
    ASSERT_EQ(ts.header.size(), 12u);
    EXPECT_EQ(ts.header[7], "paced_qps");
    EXPECT_EQ(ts.header[11], "cnps_received");
    uint64_t binSent = 0;
    uint64_t binReceived = 0;
    uint64_t pacedSamples = 0;
    for (const auto& r : ts.rows)
    {
        if (r.at("min_rate_gbps").empty())
        {
            EXPECT_TRUE(r.at("paced_qps").empty()); // a switch port
            continue;
        }
        const double lo = std::stod(r.at("min_rate_gbps"));
        const double mean = std::stod(r.at("mean_rate_gbps"));
        EXPECT_GE(lo, 0.1);
        EXPECT_LE(lo, 400.0);
        EXPECT_GE(mean, lo);
        EXPECT_LE(mean, 400.0);
        pacedSamples += std::stoull(r.at("paced_qps"));
        binSent += std::stoull(r.at("cnps_sent"));
        binReceived += std::stoull(r.at("cnps_received"));
    }
    EXPECT_GT(pacedSamples, 0u);
    EXPECT_EQ(binSent, cnpsSent);
    EXPECT_EQ(binReceived, cnpsReceived);

    const std::string report = SlurpFile(out / "report.md");
    EXPECT_NE(report.find("| CNPs sent (receivers) | " + std::to_string(cnpsSent) + " |"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("| rate cuts | " + std::to_string(cuts) + " |"), std::string::npos);
}

TEST(CongestionObservability, WithoutCongestionControlNoQpsNoRatesNoCnps)
{
    const fs::path s = FreshScratch("cc-none");
    const fs::path out = s / "out";
    // An earlier DCQCN run's qps.csv in the directory is removed with the rest of its set.
    ASSERT_EQ(RunIncast(out, s).status, 0);
    ASSERT_TRUE(fs::exists(out / "qps.csv"));
    const ToolOutcome o = RunTool("run '" + IncastWithoutCongestionControl(s).string()
                                      + "' --quiet --out '" + out.string() + "'",
                                  s);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_FALSE(fs::exists(out / "qps.csv"));
    const Csv ts = ReadCsv(out / "timeseries.csv");
    EXPECT_EQ(ts.header.size(), 7u); // no rate columns
    const std::string summary = SlurpFile(out / "summary.json");
    EXPECT_EQ(JsonField(summary, "congestion_control"), "\"none\"");
    EXPECT_EQ(JsonUint(summary, "cnps_sent"), 0u);
    EXPECT_EQ(JsonUint(summary, "cnps_received"), 0u);
    EXPECT_EQ(JsonUint(summary, "rate_cuts"), 0u);
    EXPECT_EQ(JsonUint(summary, "rate_increases"), 0u);
    EXPECT_EQ(JsonUint(summary, "controlled_qps"), 0u);
    EXPECT_EQ(JsonField(summary, "min_rate_gbps"), "null");
    EXPECT_EQ(JsonField(summary, "rates"), "false");
    // The switch still marks, and the receiver still sees the marks: nobody answers them.
    EXPECT_GT(JsonUint(summary, "ecn_marked_received"), 0u);
    EXPECT_EQ(SlurpFile(out / "report.md").find("CNPs sent"), std::string::npos);
}

TEST(CongestionObservability, SameSeedSameFilesUnderTwoSchedulers)
{
    const fs::path s = FreshScratch("cc-determinism");
    ASSERT_EQ(RunIncast(s / "map", s, "--scheduler map").status, 0);
    ASSERT_EQ(RunIncast(s / "lane", s, "--scheduler lane-heap").status, 0);
    for (const char* file : {"qps.csv", "timeseries.csv", "flows.csv", "ports.csv", "report.md"})
    {
        EXPECT_EQ(SlurpFile(s / "map" / file), SlurpFile(s / "lane" / file)) << file;
    }
    EXPECT_EQ(WithoutWallTime(SlurpFile(s / "map" / "summary.json")),
              WithoutWallTime(SlurpFile(s / "lane" / "summary.json")));
}

/// The rates are read at the time series' bin edges: bins of another width change the
/// time series and nothing else (no event counted, no flow, no CNP, no queue pair).
TEST(CongestionObservability, RateSamplingChangesNoResult)
{
    const fs::path s = FreshScratch("cc-sampling");
    ASSERT_EQ(RunIncast(s / "auto", s).status, 0);
    ASSERT_EQ(RunIncast(s / "fine", s, "--sample-interval 200ns").status, 0);
    for (const char* file : {"qps.csv", "flows.csv", "ports.csv", "stragglers.csv"})
    {
        EXPECT_EQ(SlurpFile(s / "auto" / file), SlurpFile(s / "fine" / file)) << file;
    }
    const std::string a = SlurpFile(s / "auto" / "summary.json");
    const std::string b = SlurpFile(s / "fine" / "summary.json");
    for (const char* key : {"events", "packet_hops", "cnps_sent", "rate_cuts", "rate_increases"})
    {
        EXPECT_EQ(JsonField(a, key), JsonField(b, key)) << key;
    }
    EXPECT_NE(JsonField(a, "interval_s"), JsonField(b, "interval_s"));
}
