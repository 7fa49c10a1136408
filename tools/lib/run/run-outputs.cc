/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "run-outputs.h"

#include "output/atomic-file.h"
#include "output/report-writer.h"
#include "output/results-writer.h"
#include "output/straggler-report.h"
#include "pcap-capture.h"

#include "ns3/spec-names.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace ns3
{

bool
ParseRunOutputOption(const std::string& option,
                     const std::string& value,
                     std::vector<std::string>& ports,
                     std::string& attribution)
{
    if (option == "--attribution")
    {
        AttributionSetting setting = AttributionSetting::AUTO;
        if (!ParseSpecName(value, setting))
        {
            return false;
        }
        attribution = value;
        return true;
    }
    if (option != "--pcap")
    {
        return false;
    }
    std::size_t start = 0;
    while (start <= value.size())
    {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const std::string port = value.substr(start, comma - start);
        if (port.find("->") == std::string::npos)
        {
            return false; // also an empty entry
        }
        ports.push_back(port);
        start = comma + 1;
    }
    return true;
}

void
ApplyRunOutputOptions(const std::vector<std::string>& ports,
                      const std::string& attribution,
                      ScenarioSpec& spec)
{
    for (const std::string& p : ports)
    {
        spec.capturePorts.push_back(p);
        SpecLocation where;
        where.file = "--pcap";
        spec.capturePortsWhere.push_back(where);
    }
    AttributionSetting setting = AttributionSetting::AUTO;
    if (ParseSpecName(attribution, setting)) // "" (not given) keeps the scenario's
    {
        spec.attribution = setting;
    }
}

std::vector<std::string>
WriteRunResultSet(const RunResults& r, const std::string& dir, bool sweep)
{
    namespace fs = std::filesystem;
    std::vector<std::string> planned{"collectives.csv",
                                     "timeseries.csv",
                                     "report.md",
                                     "flows.csv",
                                     "ports.csv",
                                     "trace.json"};
    if (r.hasTraining)
    {
        planned.emplace_back("ranks.csv");
        planned.emplace_back("rank-phases.csv");
    }
    if (sweep)
    {
        planned.emplace_back("sweep.csv");
    }
    if (r.stragglers.enabled)
    {
        planned.emplace_back("stragglers.csv");
    }
    if (HasRateColumns(r))
    {
        planned.emplace_back("qps.csv");
    }
    for (const PacketCaptureFile& c : r.captures)
    {
        planned.push_back(CaptureFileName(c.node, c.peer));
    }
    planned.emplace_back("summary.json");
    BeginResultSet(dir, planned);

    struct EndSet
    {
        ~EndSet()
        {
            EndResultSet(); // also when a writer throws
        }
    } endSet;

    // The commit marker goes first, then whatever an earlier run left that this set lacks.
    std::error_code ec;
    fs::remove(dir + "/summary.json", ec);
    const std::set<std::string> mine(planned.begin(), planned.end());
    for (const char* optional :
         {"ranks.csv", "rank-phases.csv", "sweep.csv", "stragglers.csv", "qps.csv"})
    {
        if (mine.count(optional) == 0)
        {
            fs::remove(dir + "/" + optional, ec);
        }
    }
    for (const auto& e : fs::directory_iterator(dir, ec))
    {
        const std::string name = e.path().filename().string();
        if (name.rfind("capture-", 0) == 0 && e.path().extension() == ".pcap")
        {
            fs::remove(e.path(), ec);
        }
    }
    fs::remove_all(dir + "/plots", ec);
    // An earlier multi-seed run's aggregate and seeds (ai-fabric run --seeds).
    fs::remove(dir + "/seeds.json", ec);
    fs::remove(dir + "/seeds.csv", ec);
    fs::remove_all(dir + "/seeds", ec);

    std::vector<std::string> written{"summary.json",
                                     "flows.csv",
                                     "ports.csv",
                                     "collectives.csv",
                                     "timeseries.csv",
                                     "report.md",
                                     "trace.json"};
    WriteCollectivesCsv(r, dir + "/collectives.csv");
    WriteTimeSeriesCsv(r, dir + "/timeseries.csv");
    WriteReportMarkdown(r, dir + "/report.md");
    WriteFlowsCsv(r, dir + "/flows.csv");
    WritePortsCsv(r, dir + "/ports.csv");
    WriteTraceJson(r, dir + "/trace.json");
    if (r.hasTraining)
    {
        WriteRanksCsv(r, dir + "/ranks.csv");
        written.emplace_back("ranks.csv");
        WriteRankPhasesCsv(r, dir + "/rank-phases.csv");
        written.emplace_back("rank-phases.csv");
    }
    if (sweep)
    {
        WriteSweepCsv(r, dir + "/sweep.csv");
        written.emplace_back("sweep.csv");
    }
    if (r.stragglers.enabled)
    {
        WriteStragglersCsv(r, dir + "/stragglers.csv");
        written.emplace_back("stragglers.csv");
    }
    if (HasRateColumns(r))
    {
        WriteQpsCsv(r, dir + "/qps.csv");
        written.emplace_back("qps.csv");
    }
    for (const auto& name : WriteCaptureFiles(r, dir))
    {
        written.push_back(name);
    }
    WriteSummaryJson(r, dir + "/summary.json");
    return written;
}

} // namespace ns3
