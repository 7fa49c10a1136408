/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Bisection achieved, measured on the links of the analyzer's cut (issue 17): a run's
 * summary.json `bisection` entry against an independent computation from its ports.csv and
 * flows.csv. A 3:1 leaf-spine of 4 leaves x 6 GPUs, 2 uplinks each, adaptive routing: the
 * analyzer's split is leaves 0-1 | 2-3 and its cut side A's 4 leaf uplinks (1600 Gb/s).
 */
#include "sweep/parameter-sweep.h"
#include "tool-runner.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace aifabrictest;
namespace fs = std::filesystem;

namespace
{

constexpr uint32_t GPUS = 24;    //!< GPUs of the fabric
constexpr uint32_t HALF = 12;    //!< side A: GPUs 0-11 (leaves 0 and 1)
constexpr uint32_t PER_LEAF = 6; //!< GPUs per leaf

/**
 * \param name the scenario's name
 * \param crossOnly only pairs across the cut (else every pair)
 * \return a direct all-to-all of 1 MiB per pair on the 3:1 leaf-spine
 */
std::string
Scenario(const std::string& name, bool crossOnly)
{
    std::ostringstream s;
    s << "name: " << name << "\nseed: 1\nstop_time: 10s\nforwarding: adaptive\n"
      << "topology:\n  name: ls24-3to1\n  kind: leaf-spine\n  leaves: 4\n  gpus_per_leaf: 6\n"
      << "  uplinks: 2\n  link: {profile: ib-ndr}\n"
      << "traffic:\n  collectives:\n    - name: a2a\n      op: all-to-all\n"
      << "      protocol: none\n      algorithm: direct\n      matrix:\n";
    for (uint32_t i = 0; i < GPUS; ++i)
    {
        s << "        - [";
        for (uint32_t j = 0; j < GPUS; ++j)
        {
            const bool send = i != j && (!crossOnly || (i < HALF) != (j < HALF));
            s << (j > 0 ? ", " : "") << (send ? "1MiB" : "0B");
        }
        s << "]\n";
    }
    return s.str();
}

/// A CSV file: its header and rows, cells by column name.
struct Csv
{
    std::vector<std::map<std::string, std::string>> rows; //!< rows, cell by column
};

/// \param path a CSV file with a header row (no quoted cells) \return its rows
Csv
ReadCsv(const fs::path& path)
{
    Csv csv;
    std::istringstream in(SlurpFile(path));
    std::string line;
    std::vector<std::string> header;
    auto split = [](const std::string& l) {
        std::vector<std::string> cells;
        std::istringstream ls(l);
        std::string cell;
        while (std::getline(ls, cell, ','))
        {
            cells.push_back(cell);
        }
        return cells;
    };
    std::getline(in, line);
    header = split(line);
    while (std::getline(in, line))
    {
        const std::vector<std::string> cells = split(line);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
        {
            row[header[i]] = cells[i];
        }
        csv.rows.push_back(row);
    }
    return csv;
}

/// The run of a scenario: its results directory.
class BisectionRun
{
  public:
    /// \param name scenario name \param crossOnly only pairs across the cut
    BisectionRun(const std::string& name, bool crossOnly)
        : m_dir(FreshScratch("bisection-" + name))
    {
        std::ofstream(m_dir / "scenario.yaml") << Scenario(name, crossOnly);
        const ToolOutcome o = RunTool("run '" + (m_dir / "scenario.yaml").string() + "' --out '"
                                          + (m_dir / "out").string() + "' --quiet",
                                      m_dir);
        m_status = o.status;
        m_err = o.err;
    }

    ~BisectionRun()
    {
        fs::remove_all(m_dir);
    }

    /// \return the tool's exit status
    int Status() const
    {
        return m_status;
    }

    /// \return its stderr
    const std::string& Err() const
    {
        return m_err;
    }

    /// \param path a key path into summary.json ("bisection[0].cut_links") \return its text
    std::string Text(const std::string& path) const
    {
        bool found = false;
        const std::string v
            = ns3::ReadJsonPathValue((m_dir / "out" / "summary.json").string(), path, found);
        EXPECT_TRUE(found) << path;
        return v;
    }

    /// \param path a key path into summary.json \return its number
    double Num(const std::string& path) const
    {
        return std::strtod(Text(path).c_str(), nullptr);
    }

    /// \param file a CSV file of the results \return its rows
    Csv Read(const std::string& file) const
    {
        return ReadCsv(m_dir / "out" / file);
    }

  private:
    fs::path m_dir;    //!< scratch directory
    int m_status{-1};  //!< exit status
    std::string m_err; //!< stderr
};

/// What the test computes from the CSV files.
struct Independent
{
    double cutWireBytes{0};  //!< ports.csv: bytes the cut's ports (side A to B) sent
    double cutBusyNs{0};     //!< ports.csv: their busy time, summed
    double cutPorts{0};      //!< how many
    double crossingBytes{0}; //!< flows.csv: payload from side A to side B
    double leavingBytes{0};  //!< flows.csv: payload from side A's GPUs to other leaves
};

/**
 * \param run a finished run
 * \param cut the cut's ports, "leaf0->spine0", ...
 * \return the figures computed from ports.csv and flows.csv alone
 */
Independent
Compute(const BisectionRun& run, const std::set<std::string>& cut)
{
    Independent x;
    for (const auto& row : run.Read("ports.csv").rows)
    {
        if (cut.count(row.at("node") + "->" + row.at("peer")) > 0)
        {
            x.cutWireBytes += std::stod(row.at("tx_bytes"));
            x.cutBusyNs += std::stod(row.at("busy_ns"));
            ++x.cutPorts;
        }
    }
    for (const auto& row : run.Read("flows.csv").rows)
    {
        const uint32_t src = std::stoul(row.at("src"));
        const uint32_t dst = std::stoul(row.at("dst"));
        const double bytes = std::stod(row.at("bytes"));
        if (src < HALF && dst >= HALF)
        {
            x.crossingBytes += bytes;
        }
        // minimal routes on a leaf-spine: a message leaves its leaf by an uplink iff its
        // destination is on another leaf
        if (src < HALF && src / PER_LEAF != dst / PER_LEAF)
        {
            x.leavingBytes += bytes;
        }
    }
    return x;
}

/// \param run a finished run \return its cut's ports, side A to side B
std::set<std::string>
CutPorts(const BisectionRun& run)
{
    std::set<std::string> ports;
    const int n = static_cast<int>(run.Num("bisection[0].cut_links"));
    for (int i = 0; i < n; ++i)
    {
        ports.insert(run.Text("bisection[0].cut_ports[" + std::to_string(i) + "]"));
    }
    return ports;
}

} // namespace

// Every GPU of side A sends 1 MiB to every GPU of side B and back: nothing passes through
// the cut's links within one side, and with adaptive routing the cut is saturated.
TEST(Bisection, CrossCutAllToAllReachesTheCutsCapacity)
{
    const BisectionRun run("xcut", true);
    ASSERT_EQ(run.Status(), 0) << run.Err();
    EXPECT_EQ(run.Text("bisection[0].split"), "first 2 of 4 leaves");
    EXPECT_EQ(run.Text("bisection[0].cut"), "4 leaf->spine links");
    const std::set<std::string> cut = CutPorts(run);
    EXPECT_EQ(cut,
              (std::set<std::string>{"leaf0->spine0",
                                     "leaf0->spine1",
                                     "leaf1->spine0",
                                     "leaf1->spine1"}));
    EXPECT_DOUBLE_EQ(run.Num("bisection[0].analytic_Gbps"), 1600);
    const double ratio = run.Num("bisection[0].achieved_over_analytic");
    EXPECT_GT(ratio, 0.95);
    EXPECT_LE(ratio, 1.0);
    EXPECT_DOUBLE_EQ(run.Num("bisection[0].crossing_share"), 1);
    EXPECT_GT(run.Num("bisection[0].utilization_mean"), 0.95);

    // The same figures from ports.csv and flows.csv: the run is this one collective from
    // t = 0 to its last delivery, so the ports' totals are the window's.
    const Independent x = Compute(run, cut);
    ASSERT_EQ(x.cutPorts, 4);
    const double window = run.Num("bisection[0].window_s");
    EXPECT_DOUBLE_EQ(window, run.Num("collectives[0].duration_s"));
    EXPECT_DOUBLE_EQ(run.Num("bisection[0].a_to_b.wire_bytes"), x.cutWireBytes);
    EXPECT_DOUBLE_EQ(run.Num("bisection[0].a_to_b.crossing_payload_bytes"), x.crossingBytes);
    EXPECT_DOUBLE_EQ(x.crossingBytes, 12.0 * 12 * (1 << 20));
    EXPECT_NEAR(run.Num("bisection[0].a_to_b.achieved_Gbps"),
                x.crossingBytes * 8 / window / 1e9,
                1e-6);
    // busy_ns counts a packet whole when it starts; the window its part up to the end
    EXPECT_NEAR(run.Num("bisection[0].a_to_b.utilization_mean"),
                x.cutBusyNs * 1e-9 / window / x.cutPorts,
                1e-3);
    // The flows' view agrees here: every byte between the sides crosses the cut once.
    EXPECT_NEAR(run.Num("bisection[0].flow_achieved_over_analytic"), ratio, 1e-9);
}

// A full all-to-all: side A's uplinks also carry the traffic between leaves 0 and 1, so
// the cut is ~100 % busy while only 2/3 of its payload goes between the sides (each
// leaf-0 GPU sends to 6 GPUs of leaf 1 and 12 of side B). The flows' old figure reads the
// crossing part alone (~66 %).
TEST(Bisection, FullAllToAllLoadsTheCutWithTrafficWithinASide)
{
    const BisectionRun run("full", false);
    ASSERT_EQ(run.Status(), 0) << run.Err();
    const std::set<std::string> cut = CutPorts(run);
    ASSERT_EQ(cut.size(), 4U);
    const double busy = run.Num("bisection[0].utilization_mean");
    EXPECT_GT(busy, 0.95);
    EXPECT_GT(run.Num("bisection[0].utilization_max"), 0.95);
    EXPECT_GT(run.Num("bisection[0].achieved_over_analytic"), 0.95);
    const double share = run.Num("bisection[0].crossing_share");
    EXPECT_LT(share, 0.75);

    const Independent x = Compute(run, cut);
    const double window = run.Num("bisection[0].window_s");
    EXPECT_DOUBLE_EQ(run.Num("bisection[0].a_to_b.wire_bytes"), x.cutWireBytes);
    EXPECT_DOUBLE_EQ(run.Num("bisection[0].a_to_b.crossing_payload_bytes"), x.crossingBytes);
    // the payload the uplinks carried: every message of side A to another leaf
    EXPECT_DOUBLE_EQ(run.Num("bisection[0].a_to_b.payload_bytes"), x.leavingBytes);
    EXPECT_NEAR(run.Num("bisection[0].a_to_b.crossing_share"),
                x.crossingBytes / x.leavingBytes,
                1e-9);
    EXPECT_NEAR(x.crossingBytes / x.leavingBytes, 12.0 / 18, 1e-9);
    EXPECT_NEAR(run.Num("bisection[0].a_to_b.utilization_mean"),
                x.cutBusyNs * 1e-9 / window / x.cutPorts,
                1e-3);
    EXPECT_NEAR(run.Num("bisection[0].crossing_over_analytic"),
                x.crossingBytes * 8 / window / 1e9 / 1600,
                1e-6);
    // the flows' figure is the crossing part: below the cut's load by the share
    EXPECT_NEAR(run.Num("bisection[0].flow_achieved_over_analytic"),
                run.Num("bisection[0].crossing_over_analytic"),
                1e-9);
    EXPECT_LT(run.Num("bisection[0].flow_achieved_over_analytic"), 0.7);
}
