/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "validation-suite.h"

#include "config/spec-toolkit.h"
#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"

#include "ns3/analytic-model.h"
#include "ns3/bisection-meter.h"
#include "ns3/fabric-graph.h"
#include "ns3/topology-analyzer.h"
#include "ns3/training-workload.h"
#include "ns3/units.h"
#include "ns3/workload.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace ns3
{

namespace
{

namespace fs = std::filesystem;

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// Keys of a case file.
const std::vector<std::string> FILE_KEYS = {"title", "description", "order", "cases"};
/// Keys of one case.
const std::vector<std::string> CASE_KEYS = {"name",
                                            "kind",
                                            "formula",
                                            "measure",
                                            "quantity",
                                            "scenario",
                                            "runs",
                                            "collective",
                                            "model",
                                            "sizes",
                                            "micro_batches",
                                            "tolerance",
                                            "quick",
                                            "claim",
                                            "source",
                                            "claimed",
                                            "claimed_ratio",
                                            "extrapolate_to",
                                            "explain"};
/// Keys of one entry of `runs`.
const std::vector<std::string> RUN_KEYS = {"label", "scenario"};
/// Case kinds.
const std::vector<std::string> KINDS = {"formula", "claim"};
/// Quantities of each measure ("" = the measure takes none).
const std::map<std::string, std::vector<std::string>> QUANTITIES = {
    {"collective-time", {}},
    {"crossover", {}},
    {"pipeline-bubble", {"idle-fraction", "relative-overhead"}},
    {"traffic-volume", {"tp", "pp", "dp", "moe"}},
    {"roofline", {}},
    {"compare",
     {"step-time",
      "tp-time",
      "pp-exposed",
      "pp-bytes-per-boundary",
      "collective-time",
      "moe-local-fraction",
      "moe-network-bytes",
      "moe-dispatch-time"}},
    {"bisection-formula", {"analyzer-formula", "mission-f15"}},
    {"bisection", {}},
};

using spec::Contains;
using spec::JoinList;

/// Reading context: the file and helpers that locate errors at a YAML node.
struct Reader
{
    std::string file; //!< the case file

    SpecLocation At(const YAML::Node& node) const
    {
        return spec::At(file, node.Mark());
    }

    [[noreturn]] void Fail(const YAML::Node& node, const std::string& message) const
    {
        throw SpecError(At(node), message);
    }

    void CheckKeys(const YAML::Node& map,
                   const std::vector<std::string>& known,
                   const std::string& what) const
    {
        if (!map.IsMap())
        {
            Fail(map, what + " must be a mapping");
        }
        for (const auto& kv : map)
        {
            const std::string key = kv.first.as<std::string>();
            if (!Contains(known, key))
            {
                Fail(kv.first,
                     "unknown key '" + key + "' in " + what + "; known keys: " + JoinList(known));
            }
        }
    }

    std::string Text(const YAML::Node& node, const std::string& key) const
    {
        if (!node.IsScalar() || node.Scalar().empty())
        {
            Fail(node, "'" + key + "' must be a non-empty text");
        }
        return node.Scalar();
    }

    std::string Choice(const YAML::Node& node,
                       const std::string& key,
                       const std::vector<std::string>& choices) const
    {
        const std::string v = Text(node, key);
        if (!Contains(choices, v))
        {
            Fail(node, "'" + key + "' must be one of " + JoinList(choices) + ", not '" + v + "'");
        }
        return v;
    }

    bool Bool(const YAML::Node& node, const std::string& key) const
    {
        const std::string v = Text(node, key);
        if (v == "true")
        {
            return true;
        }
        if (v == "false")
        {
            return false;
        }
        Fail(node, "'" + key + "' must be true or false, not '" + v + "'");
    }

    double Number(const YAML::Node& node, const std::string& key) const
    {
        const std::string v = Text(node, key);
        std::istringstream s(v);
        s.imbue(std::locale::classic());
        double d = 0;
        s >> d;
        if (!s || !s.eof() || !std::isfinite(d))
        {
            Fail(node, "'" + key + "' must be a number, not '" + v + "'");
        }
        return d;
    }

    /// "3%" or 0.03.
    double Fraction(const YAML::Node& node, const std::string& key) const
    {
        std::string v = Text(node, key);
        double scale = 1;
        if (v.back() == '%')
        {
            v.pop_back();
            scale = 0.01;
        }
        double d = 0;
        std::istringstream s(v);
        s.imbue(std::locale::classic());
        s >> d;
        if (!s || !s.eof() || !std::isfinite(d) || d <= 0 || d * scale >= 1)
        {
            Fail(node,
                 "'" + key + "' must be a fraction in (0, 1) such as 0.03 or 3%, not '"
                     + node.Scalar() + "'");
        }
        return d * scale;
    }

    uint64_t Bytes(const YAML::Node& node, const std::string& key) const
    {
        const std::string v = Text(node, key);
        uint64_t b = 0;
        try
        {
            b = ParseBytes(v);
        }
        catch (const UnitError& e)
        {
            Fail(node, "'" + key + "': " + e.Message());
        }
        if (b == 0)
        {
            Fail(node, "'" + key + "' must be positive");
        }
        return b;
    }

    /// A claimed figure: "10.85s", "55us", "4.3GB", "80%", or a plain number.
    double Figure(const YAML::Node& node, const std::string& key) const
    {
        const std::string v = Text(node, key);
        if (v == "-")
        {
            return NaN;
        }
        if (v.back() == '%')
        {
            return Number(YAML::Node(v.substr(0, v.size() - 1)), key) / 100.0;
        }
        std::istringstream s(v);
        s.imbue(std::locale::classic());
        double d = 0;
        s >> d;
        if (s && s.eof() && std::isfinite(d))
        {
            return d;
        }
        try
        {
            if (v.back() == 's')
            {
                return ParseTime(v).GetSeconds();
            }
            if (v.back() == 'B')
            {
                return static_cast<double>(ParseBytes(v));
            }
        }
        catch (const UnitError& e)
        {
            Fail(node, "'" + key + "': " + e.Message());
        }
        Fail(node,
             "'" + key
                 + "' entries are numbers, times (10.85s), sizes (4.3GB) or percentages (80%), "
                   "not '"
                 + v + "'");
    }

    YAML::Node List(const YAML::Node& node, const std::string& key) const
    {
        if (!node.IsSequence() || node.size() == 0)
        {
            Fail(node, "'" + key + "' must be a non-empty list");
        }
        return node;
    }
};

/// \return the scenario file named by `node`, resolved against the case file's directory
ValidationRun
ReadRun(const Reader& r, const YAML::Node& node, const std::string& label, bool topologyOnly)
{
    ValidationRun run;
    run.where = r.At(node);
    run.label = label;
    const std::string rel = r.Text(node, "scenario");
    const fs::path base = fs::path(r.file).parent_path();
    run.path = (base / rel).lexically_normal().string();
    std::error_code ec;
    if (!fs::is_regular_file(run.path, ec))
    {
        r.Fail(node, "scenario file '" + run.path + "' does not exist");
    }
    if (topologyOnly)
    {
        run.scenario.topology = ReadTopologyOrScenarioFile(run.path);
        run.scenario.name = fs::path(run.path).stem().string();
    }
    else
    {
        run.scenario = ReadScenarioFile(run.path);
    }
    return run;
}

void
CheckCase(const Reader& r, const YAML::Node& node, ValidationCase& c)
{
    const bool training = c.measure == "pipeline-bubble" || c.measure == "traffic-volume"
                          || c.measure == "roofline";
    const bool collective
        = c.measure == "collective-time" || c.measure == "crossover" || c.measure == "bisection";
    for (const auto& run : c.runs)
    {
        const TrafficSpec& t = run.scenario.traffic;
        if (training && !t.hasTraining)
        {
            throw SpecError(run.where,
                            "measure '" + c.measure + "' needs a scenario with a training job; '"
                                + run.path + "' has none");
        }
        if (collective || (c.measure == "compare" && c.quantity == "collective-time"))
        {
            if (t.collectives.empty())
            {
                throw SpecError(run.where,
                                "measure '" + c.measure + "' needs a scenario with a collective; '"
                                    + run.path + "' has none");
            }
            if (!c.collective.empty())
            {
                bool found = false;
                for (const auto& col : t.collectives)
                {
                    found = found || col.name == c.collective;
                }
                if (!found)
                {
                    r.Fail(node["collective"],
                           "scenario '" + run.path + "' has no collective '" + c.collective + "'");
                }
            }
        }
        if (!c.microBatches.empty())
        {
            for (uint32_t m : c.microBatches)
            {
                TrainingSpec ts = t.training;
                ts.microBatches = m;
                const std::string problem = ValidateTrainingSpec(ts, run.scenario.topology.gpus);
                if (!problem.empty())
                {
                    r.Fail(node["micro_batches"],
                           "micro_batches " + std::to_string(m) + " on '" + run.path
                               + "': " + problem);
                }
            }
        }
    }
    if (c.measure == "crossover" && c.sizes.size() < 2)
    {
        r.Fail(node, "measure 'crossover' needs 'sizes' with at least two sizes");
    }
    if (!c.sizes.empty() && (!collective || c.measure == "bisection")
        && !(c.measure == "compare" && c.quantity == "collective-time"))
    {
        r.Fail(node["sizes"],
               "'sizes' applies to measures collective-time, crossover and compare "
               "(collective-time), not '"
                   + c.measure + "'");
    }
    if (!c.microBatches.empty() && !training)
    {
        r.Fail(node["micro_batches"],
               "'micro_batches' applies to training measures, not '" + c.measure + "'");
    }
    if (c.extrapolateTo > 0 && (c.measure != "collective-time" || c.sizes.size() < 2))
    {
        r.Fail(node["extrapolate_to"],
               "'extrapolate_to' needs measure 'collective-time' and at least two 'sizes'");
    }
    if (c.measure != "compare" && c.runs.size() != 1)
    {
        r.Fail(node["runs"], "measure '" + c.measure + "' takes one 'scenario', not 'runs'");
    }
    if (c.kind == "formula" && (!c.claimed.empty() || c.claimedRatio > 0 || !c.claim.empty()))
    {
        r.Fail(node, "'claim', 'claimed' and 'claimed_ratio' belong to kind 'claim' cases");
    }
    if (c.kind == "formula" && c.measure == "compare")
    {
        r.Fail(node["measure"], "measure 'compare' has no formula: use kind 'claim'");
    }
}

ValidationCase
ReadCase(const Reader& r, const YAML::Node& node, const std::string& group)
{
    r.CheckKeys(node, CASE_KEYS, "a validation case");
    ValidationCase c;
    c.where = r.At(node);
    c.group = group;
    for (const char* required : {"name", "kind", "formula", "measure"})
    {
        if (!node[required])
        {
            r.Fail(node, std::string("a validation case needs '") + required + "'");
        }
    }
    c.name = r.Text(node["name"], "name");
    if (c.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") != std::string::npos)
    {
        r.Fail(node["name"],
               "'name' may contain only lower-case letters, digits, '-', '_' and '.' (it names "
               "result files), not '"
                   + c.name + "'");
    }
    c.kind = r.Choice(node["kind"], "kind", KINDS);
    c.formula = r.Text(node["formula"], "formula");
    {
        bool ok = c.formula == "bisection";
        for (int i = 1; i <= 16; ++i)
        {
            ok = ok || c.formula == "F" + std::to_string(i);
        }
        for (int i = 1; i <= 8; ++i)
        {
            ok = ok || c.formula == "C" + std::to_string(i);
        }
        if (!ok)
        {
            r.Fail(node["formula"],
                   "'formula' must be F1..F16 or C1..C8 (MISSION.md) or 'bisection', not '"
                       + c.formula + "'");
        }
    }
    c.measure = r.Choice(node["measure"], "measure", ValidationMeasureNames());
    const std::vector<std::string>& quantities = QUANTITIES.at(c.measure);
    if (node["quantity"])
    {
        if (quantities.empty())
        {
            r.Fail(node["quantity"], "measure '" + c.measure + "' takes no 'quantity'");
        }
        if (c.measure == "compare" && node["quantity"].IsSequence())
        {
            for (const auto& q : r.List(node["quantity"], "quantity"))
            {
                c.quantities.push_back(r.Choice(q, "quantity", quantities));
            }
        }
        else
        {
            c.quantities.push_back(r.Choice(node["quantity"], "quantity", quantities));
        }
        c.quantity = c.quantities[0];
    }
    else if (!quantities.empty())
    {
        r.Fail(node,
               "measure '" + c.measure + "' needs a 'quantity': one of " + JoinList(quantities));
    }
    const bool topologyOnly = c.measure == "bisection-formula";
    if (node["scenario"] && node["runs"])
    {
        r.Fail(node["runs"], "give either 'scenario' or 'runs', not both");
    }
    if (node["scenario"])
    {
        c.runs.push_back(ReadRun(r, node["scenario"], "", topologyOnly));
    }
    else if (node["runs"])
    {
        std::set<std::string> labels;
        for (const auto& entry : r.List(node["runs"], "runs"))
        {
            r.CheckKeys(entry, RUN_KEYS, "an entry of 'runs'");
            if (!entry["label"] || !entry["scenario"])
            {
                r.Fail(entry, "an entry of 'runs' needs 'label' and 'scenario'");
            }
            const std::string label = r.Text(entry["label"], "label");
            if (!labels.insert(label).second)
            {
                r.Fail(entry["label"], "label '" + label + "' is used twice");
            }
            c.runs.push_back(ReadRun(r, entry["scenario"], label, topologyOnly));
        }
    }
    else
    {
        r.Fail(node, "a validation case needs 'scenario' (or 'runs' for measure 'compare')");
    }
    if (node["collective"])
    {
        c.collective = r.Text(node["collective"], "collective");
    }
    if (node["model"])
    {
        c.model = r.Choice(node["model"], "model", {"formula", "schedule"});
        if (c.measure != "collective-time" && c.measure != "crossover")
        {
            r.Fail(node["model"], "'model' applies to measures collective-time and crossover");
        }
    }
    if (node["sizes"])
    {
        c.sizesWhere = r.At(node["sizes"]);
        for (const auto& s : r.List(node["sizes"], "sizes"))
        {
            const uint64_t b = r.Bytes(s, "sizes");
            if (!c.sizes.empty() && b <= c.sizes.back())
            {
                r.Fail(s, "'sizes' must increase");
            }
            c.sizes.push_back(b);
        }
    }
    if (node["micro_batches"])
    {
        for (const auto& m : r.List(node["micro_batches"], "micro_batches"))
        {
            const double d = r.Number(m, "micro_batches");
            if (d < 1 || d > 100000 || d != std::floor(d))
            {
                r.Fail(m, "'micro_batches' entries are integers from 1 to 100000");
            }
            c.microBatches.push_back(static_cast<uint32_t>(d));
        }
    }
    if (node["tolerance"])
    {
        c.tolerance = r.Fraction(node["tolerance"], "tolerance");
    }
    else if (c.kind == "formula")
    {
        r.Fail(node, "a formula case needs a 'tolerance' (e.g. 3%)");
    }
    if (node["quick"])
    {
        c.quick = r.Bool(node["quick"], "quick");
    }
    if (node["claim"])
    {
        c.claim = r.Text(node["claim"], "claim");
    }
    else if (c.kind == "claim")
    {
        r.Fail(node, "a claim case needs 'claim': the claim as the articles state it");
    }
    if (node["source"])
    {
        c.source = r.Text(node["source"], "source");
    }
    if (node["claimed"])
    {
        for (const auto& v : r.List(node["claimed"], "claimed"))
        {
            c.claimed.push_back(r.Figure(v, "claimed"));
        }
    }
    if (node["claimed_ratio"])
    {
        c.claimedRatio = r.Number(node["claimed_ratio"], "claimed_ratio");
        if (!(c.claimedRatio > 0))
        {
            r.Fail(node["claimed_ratio"], "'claimed_ratio' must be positive");
        }
    }
    if (node["extrapolate_to"])
    {
        c.extrapolateTo = r.Bytes(node["extrapolate_to"], "extrapolate_to");
    }
    if (node["explain"])
    {
        c.explain = r.Text(node["explain"], "explain");
    }
    CheckCase(r, node, c);
    // The number of claimed figures must match the points they stand beside.
    if (!c.claimed.empty())
    {
        std::size_t points = 1;
        if (c.measure == "pipeline-bubble")
        {
            points = std::max<std::size_t>(1, c.microBatches.size());
        }
        else if (c.measure == "collective-time")
        {
            points = c.extrapolateTo > 0 ? 1 : std::max<std::size_t>(1, c.sizes.size());
        }
        else if (c.measure == "compare")
        {
            points = c.runs.size() * std::max<std::size_t>(1, c.sizes.size()) * c.quantities.size();
        }
        if (c.claimed.size() != points)
        {
            r.Fail(node["claimed"],
                   "'claimed' has " + std::to_string(c.claimed.size()) + " figure(s) for "
                       + std::to_string(points) + " point(s) of this case");
        }
    }
    return c;
}

std::string
FormatValue(double v, const std::string& unit)
{
    if (std::isnan(v))
    {
        return "—";
    }
    std::ostringstream s;
    s.imbue(std::locale::classic());
    s << std::setprecision(4);
    if (unit == "s")
    {
        const double a = std::fabs(v);
        if (a < 1e-3)
        {
            s << v * 1e6 << " us";
        }
        else if (a < 1)
        {
            s << v * 1e3 << " ms";
        }
        else
        {
            s << v << " s";
        }
    }
    else if (unit == "B")
    {
        if (v >= 1e9)
        {
            s << v / 1e9 << " GB";
        }
        else if (v >= 1e6)
        {
            s << v / 1e6 << " MB";
        }
        else if (v >= 1e3)
        {
            s << v / 1e3 << " kB";
        }
        else
        {
            s << v << " B";
        }
    }
    else if (unit == "bps")
    {
        if (v >= 8e12)
        {
            s << v / 8e12 << " TB/s";
        }
        else
        {
            s << v / 8e9 << " GB/s";
        }
    }
    else if (unit == "Bps")
    {
        s << v / 1e9 << " GB/s";
    }
    else if (unit == "fraction")
    {
        s << std::setprecision(3) << 100 * v << " %";
    }
    else
    {
        s << std::setprecision(3) << v << "x";
    }
    return s.str();
}

// ---------------------------------------------------------------- running

RunOptions
QuietOptions()
{
    RunOptions o;
    o.progress = false;
    o.trace = false;
    return o;
}

int
CollectiveIndex(const ValidationCase& c, const ScenarioSpec& s)
{
    for (std::size_t i = 0; i < s.traffic.collectives.size(); ++i)
    {
        if (c.collective.empty() || s.traffic.collectives[i].name == c.collective)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

ScenarioSpec
WithSize(const ScenarioSpec& s, int index, uint64_t bytes)
{
    ScenarioSpec one = s;
    CollectiveSpec& col = one.traffic.collectives[index];
    col.sweep = false;
    if (col.op == "send-recv")
    {
        for (auto& b : col.transferBytes)
        {
            b = bytes;
        }
    }
    col.bytes = bytes;
    return one;
}

const CollectiveResult*
FindResult(const RunResults& r, const std::string& name)
{
    for (const auto& x : r.collectives)
    {
        if (x.name == name)
        {
            return &x;
        }
    }
    return nullptr;
}

/// \return what the run's counters say about congestion (empty if nothing)
std::string
CongestionNote(const RunResults& r)
{
    std::vector<std::string> parts;
    if (!r.complete)
    {
        parts.emplace_back("run incomplete (stop_time)");
    }
    for (const auto& v : r.violations)
    {
        parts.push_back("invariant violated: " + v);
    }
    if (r.counters.drops > 0)
    {
        parts.push_back(std::to_string(r.counters.drops) + " drops");
    }
    if (r.counters.pauseFrames > 0)
    {
        parts.push_back(std::to_string(r.counters.pauseFrames) + " PFC pauses");
    }
    if (r.counters.ecnMarks > 0)
    {
        parts.push_back(std::to_string(r.counters.ecnMarks) + " ECN marks");
    }
    if (r.counters.stallS > 0)
    {
        std::ostringstream s;
        s << "flow control held ports " << std::setprecision(3) << r.counters.stallS * 1e6
          << " us in all";
        parts.push_back(s.str());
    }
    return JoinList(parts);
}

SweepRow
MakeSweepRow(const CollectiveResult& cr, bool complete)
{
    SweepRow row;
    row.bytes = cr.bytes;
    row.count = cr.bytes / 4;
    row.op = cr.op;
    row.algorithm = cr.algorithm;
    row.ranks = cr.ranks;
    row.timeUs = cr.durationS * 1e6;
    row.algbwGBps = cr.algbwGBps;
    row.busbwGBps = cr.busbwGBps;
    row.analyticUs = cr.analyticS * 1e6;
    row.simOverAnalytic = cr.analyticS > 0 ? cr.durationS / cr.analyticS : NaN;
    row.complete = complete;
    return row;
}

std::string
Sig(double v, int digits = 4)
{
    std::ostringstream s;
    s.imbue(std::locale::classic());
    s << std::setprecision(digits) << v;
    return s.str();
}

/// A human size for row labels.
std::string
SizeLabel(uint64_t bytes)
{
    return FormatBytes(bytes);
}

/// The collective runs of a case: one per size (or the scenario's own size).
struct CollectivePoint
{
    uint64_t bytes{0};
    CollectiveResult result;
    std::string note;
    bool complete{true};
};

/// \return the closed form `model` of the collective `index` of `spec`, on `graph`
double
ClosedForm(const ScenarioSpec& spec, int index, const FabricGraph& graph, CollectiveModel model)
{
    const WorkloadGroup g = MakeWorkloadGroup(spec.traffic.collectives[index], graph.GetGpuCount());
    return CollectiveTime(g, CollectiveAlphaBeta(graph, g), model);
}

std::vector<CollectivePoint>
RunCollectiveSizes(const ValidationCase& c, const ScenarioSpec& spec)
{
    const int index = CollectiveIndex(c, spec);
    const std::string name = spec.traffic.collectives[index].name;
    std::vector<uint64_t> sizes = c.sizes;
    if (sizes.empty())
    {
        sizes.push_back(spec.traffic.collectives[index].bytes);
    }
    std::vector<CollectivePoint> points;
    const bool schedule = c.model == "schedule";
    const FabricGraph graph = BuildFabricGraph(spec.topology);
    for (uint64_t size : sizes)
    {
        const ScenarioSpec one = WithSize(spec, index, size);
        const RunResults r = RunScenario(one, QuietOptions());
        const CollectiveResult* cr = FindResult(r, name);
        if (cr == nullptr)
        {
            throw std::logic_error("validation: no result for collective '" + name + "'");
        }
        CollectivePoint p;
        p.bytes = size;
        p.result = *cr;
        if (schedule)
        {
            p.result.analyticS = ClosedForm(one, index, graph, CollectiveModel::SCHEDULE);
        }
        p.note = CongestionNote(r);
        p.complete = r.complete && r.violations.empty();
        points.push_back(p);
    }
    return points;
}

void
CollectiveTimeCase(const ValidationCase& c, ValidationOutcome& o)
{
    const std::vector<CollectivePoint> points = RunCollectiveSizes(c, c.runs[0].scenario);
    // The formula is linear in n: its alpha part (intercept) equals its beta part at n*.
    if (points.size() >= 2)
    {
        const auto& a = points.front();
        const auto& b = points.back();
        const double slope
            = (b.result.analyticS - a.result.analyticS) / static_cast<double>(b.bytes - a.bytes);
        const double intercept = a.result.analyticS - slope * static_cast<double>(a.bytes);
        o.crossoverBytes = slope > 0 ? intercept / slope : 0;
    }
    bool below = false;
    bool above = false;
    for (std::size_t i = 0; i < points.size(); ++i)
    {
        const auto& p = points[i];
        ValidationRow row;
        row.point = SizeLabel(p.bytes);
        row.unit = "s";
        row.analytic = p.result.analyticS > 0 ? p.result.analyticS : NaN;
        row.simulated = p.complete ? p.result.durationS : NaN;
        if (o.crossoverBytes > 0)
        {
            row.regime = static_cast<double>(p.bytes) < o.crossoverBytes ? "alpha" : "beta";
            below = below || row.regime == "alpha";
            above = above || row.regime == "beta";
        }
        row.note = p.note;
        if (c.kind == "claim" && !c.claimed.empty() && c.extrapolateTo == 0)
        {
            row.analytic = c.claimed[i];
        }
        o.sweep.push_back(MakeSweepRow(p.result, p.complete));
        o.rows.push_back(row);
    }
    if (c.kind == "formula" && points.size() >= 2 && !(below && above))
    {
        o.problem = "the sizes do not span the crossover n* = "
                    + FormatBytes(static_cast<uint64_t>(o.crossoverBytes))
                    + " (need sizes below and above it)";
    }
    if (c.extrapolateTo > 0)
    {
        // Linear through the two largest sizes (the beta-dominated end).
        const auto& a = points[points.size() - 2];
        const auto& b = points.back();
        const double n = static_cast<double>(c.extrapolateTo);
        const auto line = [&](double ya, double yb) {
            return ya + (yb - ya) * (n - a.bytes) / static_cast<double>(b.bytes - a.bytes);
        };
        const double sim = line(a.result.durationS, b.result.durationS);
        ValidationRow f;
        f.point = SizeLabel(c.extrapolateTo) + " extrapolated, vs "
                  + CollectiveFormulaId(b.result.op, b.result.algorithm);
        f.unit = "s";
        f.analytic = line(a.result.analyticS, b.result.analyticS);
        f.simulated = sim;
        o.rows.push_back(f);
        if (!c.claimed.empty())
        {
            ValidationRow cl;
            cl.point = SizeLabel(c.extrapolateTo) + " extrapolated, vs claim";
            cl.unit = "s";
            cl.analytic = c.claimed[0];
            cl.simulated = sim;
            o.rows.push_back(cl);
            o.summary = "Extrapolated from the simulated sizes, the all-reduce of "
                        + SizeLabel(c.extrapolateTo) + " takes " + Sig(sim) + " s against "
                        + Sig(c.claimed[0]) + " s claimed and " + Sig(f.analytic) + " s by "
                        + f.point.substr(f.point.rfind(' ') + 1) + ".";
        }
    }
    if (c.kind == "claim" && o.summary.empty())
    {
        const auto& p = points.back();
        const double ratio = p.result.durationS / p.result.analyticS;
        const std::string model = c.model == "schedule"
                                      ? std::string("the ideal (the schedule on an idle fabric)")
                                      : CollectiveFormulaId(p.result.op, p.result.algorithm);
        if (points.size() == 1)
        {
            o.summary
                = "At " + SizeLabel(p.bytes) + " the simulation takes "
                  + Sig(p.result.durationS * 1e6) + " us, " + Sig(ratio, 3) + "x " + model + " ("
                  + Sig(p.result.analyticS * 1e6) + " us)"
                  + (c.claimedRatio > 0 ? "; claimed ratio " + Sig(c.claimedRatio, 3) + "x" : "")
                  + ".";
        }
        else
        {
            std::string ratios;
            for (const auto& q : points)
            {
                ratios += (ratios.empty() ? "" : ", ")
                          + Sig(q.result.durationS / q.result.analyticS, 3) + " at "
                          + SizeLabel(q.bytes);
            }
            o.summary = "Simulated / " + model + ": " + ratios + ".";
        }
        if (c.claimedRatio > 0)
        {
            ValidationRow r;
            r.point = "sim / ideal at " + SizeLabel(p.bytes);
            r.unit = "ratio";
            r.analytic = c.claimedRatio;
            r.simulated = ratio;
            o.rows.push_back(r);
        }
    }
}

void
CrossoverCase(const ValidationCase& c, ValidationOutcome& o)
{
    const std::vector<CollectivePoint> points = RunCollectiveSizes(c, c.runs[0].scenario);
    const CollectiveResult& last = points.back().result;
    const double nstar = last.alphaS / last.betaSPerByte;
    // Least-squares fit T = alpha + n beta to the simulated points.
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    const double k = static_cast<double>(points.size());
    for (const auto& p : points)
    {
        const double x = static_cast<double>(p.bytes);
        sx += x;
        sy += p.result.durationS;
        sxx += x * x;
        sxy += x * p.result.durationS;
        ValidationRow row;
        row.point = SizeLabel(p.bytes);
        row.unit = "s";
        row.analytic = p.result.analyticS;
        row.simulated = p.complete ? p.result.durationS : NaN;
        row.regime = x < nstar ? "alpha" : "beta";
        row.note = p.note;
        o.rows.push_back(row);
        o.sweep.push_back(MakeSweepRow(p.result, p.complete));
    }
    const double beta = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    const double alpha = (sy - beta * sx) / k;
    ValidationRow a;
    a.point = "alpha (fit)";
    a.unit = "s";
    a.analytic = last.alphaS;
    a.simulated = alpha;
    ValidationRow b;
    b.point = "1/beta (fit)";
    b.unit = "Bps";
    b.analytic = 1.0 / last.betaSPerByte;
    b.simulated = 1.0 / beta;
    ValidationRow n;
    n.point = "crossover n* = alpha/beta";
    n.unit = "B";
    n.analytic = nstar;
    n.simulated = alpha / beta;
    o.crossoverBytes = nstar;
    o.rows.push_back(a);
    o.rows.push_back(b);
    o.rows.push_back(n);
    o.summary = "Fitted to the simulated times, alpha = " + Sig(alpha * 1e6)
                + " us and 1/beta = " + Sig(1e-9 / beta) + " GB/s give n* = "
                + FormatBytes(static_cast<uint64_t>(std::max(0.0, alpha / beta))) + ".";
}

/// Mean-over-ranks pipeline idle and compute of the first iteration.
const TrainingIterationResult&
FirstIteration(const RunResults& r, const ValidationRun& run)
{
    if (!r.hasTraining || r.training.iterations.empty())
    {
        throw SpecError(run.where, "the training job of '" + run.path + "' did not complete");
    }
    return r.training.iterations[0];
}

void
PipelineBubbleCase(const ValidationCase& c, ValidationOutcome& o)
{
    const ValidationRun& run = c.runs[0];
    std::vector<uint32_t> ms = c.microBatches;
    if (ms.empty())
    {
        ms.push_back(run.scenario.traffic.training.microBatches);
    }
    for (std::size_t i = 0; i < ms.size(); ++i)
    {
        ScenarioSpec spec = run.scenario;
        spec.traffic.training.microBatches = ms[i];
        const RunResults r = RunScenario(spec, QuietOptions());
        const TrainingIterationResult& it = FirstIteration(r, run);
        const double p = spec.traffic.training.pp;
        const double m = ms[i];
        const double v = spec.traffic.training.schedule == "interleaved"
                             ? spec.traffic.training.virtualStages
                             : 1;
        ValidationRow row;
        row.point = "m = " + std::to_string(ms[i]);
        row.unit = "fraction";
        if (c.quantity == "idle-fraction")
        {
            row.analytic = (p - 1) / (m * v + p - 1);
            row.simulated = it.pipelineIdleS / it.stepS;
        }
        else
        {
            row.analytic = (p - 1) / (m * v);
            row.simulated = it.pipelineIdleS / it.computeS;
        }
        if (c.kind == "claim" && !c.claimed.empty())
        {
            row.analytic = c.claimed[i];
        }
        row.note = CongestionNote(r);
        o.rows.push_back(row);
    }
    if (c.kind == "claim")
    {
        std::string sims;
        for (const auto& row : o.rows)
        {
            sims += (sims.empty() ? "" : ", ") + Sig(100 * row.simulated, 3) + " %";
        }
        o.summary = "Simulated " + c.quantity + " for "
                    + (ms.size() > 1
                           ? "m = " + std::to_string(ms.front()) + ".." + std::to_string(ms.back())
                           : o.rows[0].point)
                    + ": " + sims + ".";
    }
}

double
CommBytes(const RunResults& r, const std::vector<std::string>& kinds)
{
    double total = 0;
    for (const auto& comm : r.training.communication)
    {
        if (Contains(kinds, comm.kind))
        {
            total += static_cast<double>(comm.bytes);
        }
    }
    return total;
}

void
TrafficVolumeCase(const ValidationCase& c, ValidationOutcome& o)
{
    const ValidationRun& run = c.runs[0];
    const RunResults r = RunScenario(run.scenario, QuietOptions());
    FirstIteration(r, run);
    const TrainingSpec& t = run.scenario.traffic.training;
    const double iterations = run.scenario.traffic.iterations;
    const double b = t.microBatchSize;
    const double s = t.sequence;
    const double h = static_cast<double>(t.hidden);
    const double bytes = t.bytesPerElement;
    const double m = t.microBatches;
    const double bsh = b * s * h * bytes;
    ValidationRow row;
    row.unit = "B";
    if (c.quantity == "tp")
    {
        // F11: per layer 2 all-reduces of b s h bytes forward and 2 backward, per micro-batch,
        // within each TP group (pp x dp groups, layers split over the stages); a ring
        // all-reduce of S bytes over T ranks sends 2 (T - 1) S bytes in all.
        const double groups = 4.0 * t.layers * m * t.dp;
        row.point = "TP all-reduce bytes (" + Sig(groups) + " all-reduces of "
                    + FormatBytes(static_cast<uint64_t>(bsh)) + ")";
        row.analytic = iterations * groups * 2.0 * (t.tp - 1) * bsh;
        row.simulated = CommBytes(r, {"tp"});
    }
    else if (c.quantity == "pp")
    {
        // F12: one b s h activation per micro-batch per stage boundary forward, one gradient
        // backward, sent by each of the TP ranks of each DP replica (/ TP with SP).
        const double msg = t.sequenceParallel ? bsh / t.tp : bsh;
        row.point = "pipeline bytes, both directions";
        row.analytic = iterations * 2.0 * (t.pp - 1) * m * t.tp * t.dp * msg;
        row.simulated = CommBytes(r, {"pp-forward", "pp-backward"});
    }
    else if (c.quantity == "dp")
    {
        // F13: one all-reduce of the gradients, 2 N bytes ring volume: over D replicas a
        // ring sends 2 (D - 1) N x grad bytes in all (N split over TP x PP shards).
        const TrainingModelSizes sizes = DeriveTrainingSizes(t);
        const double grad = t.gradBytesPerElement ? t.gradBytesPerElement : t.bytesPerElement;
        row.point = "DP gradient all-reduce bytes (N = " + Sig(sizes.totalParams, 4) + ")";
        row.analytic = iterations * 2.0 * (t.dp - 1) * sizes.totalParams * grad;
        row.simulated = CommBytes(r, {"dp"});
    }
    else
    {
        // F14: per MoE layer, dispatch + combine all-to-all forward, about 2 b s h (E-1)/E
        // bytes per rank (E experts spread over the EP ranks: the (EP-1)/EP share leaves).
        const double ranks = static_cast<double>(t.tp) * t.pp * t.dp;
        const double ep = t.ep;
        row.point = "MoE dispatch + combine bytes, forward";
        row.analytic = iterations * ranks / t.tp * t.moeLayers * m * 2.0 * bsh * (ep - 1) / ep;
        row.simulated = CommBytes(r, {"moe-dispatch", "moe-combine"});
    }
    row.note = CongestionNote(r);
    o.rows.push_back(row);
}

void
RooflineCase(const ValidationCase& c, ValidationOutcome& o)
{
    const ValidationRun& run = c.runs[0];
    const TrainingSpec& t0 = run.scenario.traffic.training;
    const FabricGraph graph = BuildFabricGraph(run.scenario.topology);
    const std::vector<uint32_t> ranks = TrainingRankGpus(t0);
    const AlphaBeta ring = RingAlphaBeta(graph, ranks);
    const TrainingModelSizes sizes = DeriveTrainingSizes(t0);
    const double grad = t0.gradBytesPerElement ? t0.gradBytesPerElement : t0.bytesPerElement;
    // Bytes a rank sends per step: ring all-reduce of its N / (TP PP) gradients.
    const double d = t0.dp;
    const double bytesPerRank = 2.0 * (d - 1) / d * sizes.totalParams / (t0.tp * t0.pp) * grad;
    const double flops = t0.peakFlops * t0.mfu;
    const double bandwidth = 1.0 / ring.betaSPerByte;
    std::vector<uint32_t> ms = c.microBatches;
    if (ms.empty())
    {
        ms.push_back(t0.microBatches);
    }
    for (uint32_t m : ms)
    {
        ScenarioSpec spec = run.scenario;
        spec.traffic.training.microBatches = m;
        const RunResults r = RunScenario(spec, QuietOptions());
        const TrainingIterationResult& it = FirstIteration(r, run);
        // FLOPs per rank per step: the model's count, computeS x achieved FLOP/s.
        const double ccr = it.computeS * flops / bytesPerRank;
        const double ridge = flops / bandwidth;
        ValidationRow row;
        row.point = "m = " + std::to_string(m) + ", CCR = " + Sig(ccr, 3) + " FLOP/B";
        row.unit = "ratio";
        row.analytic = ccr / ridge;
        row.simulated = it.computeS / it.exposedDataS;
        row.regime = ccr < ridge ? "comm" : "compute";
        row.note = CongestionNote(r);
        o.rows.push_back(row);
    }
    o.summary = "Ridge CCR* = " + Sig(flops / bandwidth, 4) + " FLOP/B (" + Sig(flops / 1e12, 4)
                + " TFLOP/s achieved over " + Sig(bandwidth / 1e9, 4) + " GB/s).";
}

double
CompareValue(const std::string& q, const RunResults& r, const ValidationRun& run, double collS)
{
    if (q == "collective-time")
    {
        return collS;
    }
    if (q == "moe-local-fraction")
    {
        return r.training.MoeLocalFraction();
    }
    if (q == "moe-network-bytes")
    {
        return static_cast<double>(r.training.moeNetworkBytes);
    }
    const TrainingIterationResult& it = FirstIteration(r, run);
    if (q == "step-time")
    {
        return it.stepS;
    }
    if (q == "pp-exposed")
    {
        return it.exposedPipelineS;
    }
    double busy = 0;
    double maxS = 0;
    double bytes = 0;
    for (const auto& comm : r.training.communication)
    {
        if ((q == "tp-time" && comm.kind == "tp")
            || (q == "moe-dispatch-time" && comm.kind == "moe-dispatch"))
        {
            busy += comm.busyS;
            maxS = std::max(maxS, comm.maxS);
        }
        if (comm.kind == "pp-forward" || comm.kind == "pp-backward")
        {
            bytes += static_cast<double>(comm.bytes);
        }
    }
    if (q == "tp-time")
    {
        return busy;
    }
    if (q == "moe-dispatch-time")
    {
        return maxS;
    }
    // pp-bytes-per-boundary: per step, per stage boundary, per DP replica, both directions.
    const TrainingSpec& t = run.scenario.traffic.training;
    return bytes / (t.pp - 1) / t.dp / run.scenario.traffic.iterations;
}

std::string
CompareUnit(const std::string& q)
{
    if (q == "moe-local-fraction")
    {
        return "fraction";
    }
    if (q == "moe-network-bytes" || q == "pp-bytes-per-boundary")
    {
        return "B";
    }
    return "s";
}

void
CompareCase(const ValidationCase& c, ValidationOutcome& o)
{
    std::vector<uint64_t> sizes = c.sizes;
    if (sizes.empty())
    {
        sizes.push_back(0);
    }
    const std::size_t nq = c.quantities.size();
    std::string summary;
    for (std::size_t si = 0; si < sizes.size(); ++si)
    {
        // values[q][run]
        std::vector<std::vector<double>> values(nq);
        std::vector<ValidationRow> rows;
        for (std::size_t ri = 0; ri < c.runs.size(); ++ri)
        {
            const ValidationRun& run = c.runs[ri];
            ScenarioSpec spec = run.scenario;
            const int index = CollectiveIndex(c, spec);
            if (sizes[si] > 0)
            {
                spec = WithSize(spec, index, sizes[si]);
            }
            const RunResults r = RunScenario(spec, QuietOptions());
            double collS = NaN;
            if (index >= 0 && !spec.traffic.collectives.empty())
            {
                const CollectiveResult* cr = FindResult(r, spec.traffic.collectives[index].name);
                collS = cr ? cr->durationS : NaN;
            }
            for (std::size_t qi = 0; qi < nq; ++qi)
            {
                const std::string& q = c.quantities[qi];
                ValidationRow row;
                row.point
                    = q + ", " + run.label + (sizes[si] > 0 ? " at " + SizeLabel(sizes[si]) : "");
                row.unit = CompareUnit(q);
                const std::size_t k = (qi * sizes.size() + si) * c.runs.size() + ri;
                row.analytic = k < c.claimed.size() ? c.claimed[k] : NaN;
                row.simulated = CompareValue(q, r, run, collS);
                row.note = CongestionNote(r);
                values[qi].push_back(row.simulated);
                o.rows.push_back(row);
            }
        }
        if (c.runs.size() >= 2)
        {
            for (std::size_t qi = 0; qi < nq; ++qi)
            {
                ValidationRow ratio;
                ratio.point = c.quantities[qi] + ", " + c.runs.back().label + " / "
                              + c.runs.front().label
                              + (sizes[si] > 0 ? " at " + SizeLabel(sizes[si]) : "");
                ratio.unit = "ratio";
                ratio.analytic = (qi == 0 && c.claimedRatio > 0) ? c.claimedRatio : NaN;
                ratio.simulated = values[qi].back() / values[qi].front();
                o.rows.push_back(ratio);
                summary += (summary.empty() ? "" : "; ") + ratio.point + " = "
                           + Sig(ratio.simulated, 3) + "x";
            }
        }
        else
        {
            for (std::size_t qi = 0; qi < nq; ++qi)
            {
                summary += (summary.empty() ? "" : "; ") + c.quantities[qi] + " "
                           + FormatValue(values[qi][0], CompareUnit(c.quantities[qi]));
            }
        }
    }
    o.summary = "Simulated: " + summary
                + (c.claimedRatio > 0 ? " (claimed " + Sig(c.claimedRatio, 3) + "x)" : "") + ".";
}

void
BisectionCase(const ValidationCase& c, ValidationOutcome& o)
{
    const ScenarioSpec& spec = c.runs[0].scenario;
    const int index = CollectiveIndex(c, spec);
    const FabricGraph graph = BuildFabricGraph(spec.topology);
    const BisectionCutInfo cut = AnalyticBisectionCut(graph, spec.topology);
    const RunResults r = RunScenario(spec, QuietOptions());
    const CollectiveResult* cr = FindResult(r, spec.traffic.collectives[index].name);
    if (cr == nullptr)
    {
        throw std::logic_error("validation: no result for the measured collective");
    }
    const BisectionMeasure m = MeasureBisection(cut, r.flows, cr->startS, cr->endS);
    // What the cut can carry, payload: the analyzer's max-flow capacity of the cut, or
    // what the hosts can push across it if that is less. A host sends (and receives) at
    // its link's payload rate, split over its destinations in proportion to the bytes:
    // side A -> B carries at most sum over A's senders of rate x (their bytes that
    // cross / their bytes), and over B's receivers likewise.
    const LinkProfile& link
        = spec.topology.hasHostLink ? spec.topology.hostLink : spec.topology.link;
    const double efficiency = static_cast<double>(spec.topology.link.mtu)
                              / spec.topology.link.WireBytes(spec.topology.link.mtu, false);
    const double hostGbps = link.rate.GetBitRate() / 1e9 * efficiency;
    std::vector<double> sent(cut.sideA.size(), 0);
    std::vector<double> sentAcross(cut.sideA.size(), 0);
    std::vector<double> received(cut.sideA.size(), 0);
    std::vector<double> receivedAcross(cut.sideA.size(), 0);
    for (const auto& f : r.flows)
    {
        if (f.collective != cr->name || f.src >= cut.sideA.size() || f.dst >= cut.sideA.size())
        {
            continue;
        }
        const bool across = cut.sideA[f.src] != cut.sideA[f.dst];
        sent[f.src] += f.bytes;
        received[f.dst] += f.bytes;
        if (across)
        {
            sentAcross[f.src] += f.bytes;
            receivedAcross[f.dst] += f.bytes;
        }
    }
    double limit[2] = {0, 0}; // [0]: A -> B, [1]: B -> A
    double recv[2] = {0, 0};
    for (std::size_t g = 0; g < cut.sideA.size(); ++g)
    {
        const int dir = cut.sideA[g] ? 0 : 1;
        if (sent[g] > 0)
        {
            limit[dir] += hostGbps * sentAcross[g] / sent[g];
        }
        if (received[g] > 0)
        {
            recv[1 - dir] += hostGbps * receivedAcross[g] / received[g];
        }
    }
    const double hosts = std::max(std::min(limit[0], recv[0]), std::min(limit[1], recv[1]));
    const double capacity = cut.analyticGbps * efficiency;
    ValidationRow row;
    row.point = cr->op + " " + FormatBytes(cr->bytes) + ", cut: " + cut.split;
    row.unit = "bps";
    row.analytic = std::min(capacity, hosts) * 1e9;
    row.simulated = m.achievedGbps * 1e9;
    row.regime = capacity <= hosts ? "cut-bound" : "host-bound";
    row.note = CongestionNote(r);
    o.rows.push_back(row);
    o.summary = "Across the analyzer's cut (" + cut.split + ", max-flow "
                + Sig(cut.analyticGbps / 8, 4) + " GB/s one direction, formula "
                + Sig(cut.formulaGbps / 8, 4) + " GB/s) the " + cr->op + " carried "
                + Sig(m.achievedGbps / 8, 4)
                + " GB/s of payload in its busier direction; the hosts " + "could push "
                + Sig(hosts / 8, 4) + " GB/s across it.";
}

void
BisectionFormulaCase(const ValidationCase& c, ValidationOutcome& o)
{
    const TopologySpec& spec = c.runs[0].scenario.topology;
    const FabricGraph graph = BuildFabricGraph(spec);
    const TopologyReport report = AnalyzeTopology(graph, spec, TopologyAnalyzerOptions());
    const TopologyReport::Bisection& b = report.bisection;
    ValidationRow row;
    row.unit = "bps";
    row.simulated = b.maxFlowBps;
    if (c.quantity == "analyzer-formula")
    {
        row.point = "formula vs max-flow, " + b.split;
        row.analytic = b.hasFormula ? b.formulaBps : NaN;
    }
    else
    {
        row.point = "MISSION F15 vs max-flow, " + b.split;
        row.analytic = b.missionF15Bps > 0 ? b.missionF15Bps : NaN;
        o.summary = "MISSION F15 gives " + Sig(b.missionF15Bps / 8e9, 6)
                    + " GB/s; max-flow across the same cut finds " + Sig(b.maxFlowBps / 8e9, 6)
                    + " GB/s one direction (" + Sig(b.missionF15Bps / b.maxFlowBps, 3) + "x).";
    }
    o.rows.push_back(row);
}

std::string
Clean(const std::string& s)
{
    std::string out = s;
    std::replace(out.begin(), out.end(), '\t', ' ');
    std::replace(out.begin(), out.end(), '\n', ' ');
    return out;
}

} // namespace

std::vector<std::string>
ValidationMeasureNames()
{
    return {"collective-time",
            "crossover",
            "pipeline-bubble",
            "traffic-volume",
            "roofline",
            "compare",
            "bisection-formula",
            "bisection"};
}

ValidationGroup
ReadValidationCaseFile(const std::string& path)
{
    Reader r;
    r.file = path;
    YAML::Node root;
    try
    {
        root = YAML::LoadFile(path);
    }
    catch (const YAML::BadFile&)
    {
        SpecLocation loc;
        loc.file = path;
        throw SpecError(loc, "cannot read the case file");
    }
    catch (const YAML::Exception& e)
    {
        throw SpecError(spec::At(path, e.mark), "malformed YAML: " + e.msg);
    }
    if (!root.IsMap())
    {
        SpecLocation loc;
        loc.file = path;
        throw SpecError(loc, "a case file is a mapping with 'title' and 'cases'");
    }
    r.CheckKeys(root, FILE_KEYS, "a case file");
    ValidationGroup g;
    g.file = path;
    g.name = fs::path(path).stem().string();
    g.title = root["title"] ? r.Text(root["title"], "title") : g.name;
    if (root["description"])
    {
        g.description = r.Text(root["description"], "description");
    }
    if (root["order"])
    {
        const double order = r.Number(root["order"], "order");
        if (order < 0 || order > 1000000 || order != std::floor(order))
        {
            r.Fail(root["order"], "'order' is an integer from 0 to 1000000");
        }
        g.order = static_cast<uint32_t>(order);
    }
    if (!root["cases"])
    {
        r.Fail(root, "a case file needs 'cases': a list of validation cases");
    }
    std::set<std::string> names;
    for (const auto& node : r.List(root["cases"], "cases"))
    {
        ValidationCase c = ReadCase(r, node, g.name);
        if (!names.insert(c.name).second)
        {
            r.Fail(node["name"], "case name '" + c.name + "' is used twice");
        }
        g.cases.push_back(std::move(c));
    }
    return g;
}

std::vector<ValidationGroup>
ReadValidationSuite(const std::string& dir)
{
    const fs::path cases = fs::path(dir) / "cases";
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::is_directory(cases, ec))
    {
        for (const auto& e : fs::directory_iterator(cases, ec))
        {
            if (e.is_regular_file() && e.path().extension() == ".yaml")
            {
                files.push_back(e.path().string());
            }
        }
    }
    SpecLocation loc;
    loc.file = cases.string();
    if (files.empty())
    {
        throw SpecError(loc, "no case files (*.yaml) in this directory");
    }
    std::sort(files.begin(), files.end());
    std::vector<ValidationGroup> groups;
    std::map<std::string, SpecLocation> seen;
    for (const auto& f : files)
    {
        groups.push_back(ReadValidationCaseFile(f));
        for (const auto& c : groups.back().cases)
        {
            const auto it = seen.find(c.name);
            if (it != seen.end())
            {
                throw SpecError(c.where,
                                "case name '" + c.name + "' is already used at "
                                    + it->second.ToString());
            }
            seen[c.name] = c.where;
        }
    }
    std::stable_sort(
        groups.begin(),
        groups.end(),
        [](const ValidationGroup& a, const ValidationGroup& b) { return a.order < b.order; });
    return groups;
}

ValidationOutcome
RunValidationCase(const ValidationCase& c)
{
    const auto start = std::chrono::steady_clock::now();
    ValidationOutcome o;
    o.caseName = c.name;
    if (c.measure == "collective-time")
    {
        CollectiveTimeCase(c, o);
    }
    else if (c.measure == "crossover")
    {
        CrossoverCase(c, o);
    }
    else if (c.measure == "pipeline-bubble")
    {
        PipelineBubbleCase(c, o);
    }
    else if (c.measure == "traffic-volume")
    {
        TrafficVolumeCase(c, o);
    }
    else if (c.measure == "roofline")
    {
        RooflineCase(c, o);
    }
    else if (c.measure == "compare")
    {
        CompareCase(c, o);
    }
    else if (c.measure == "bisection")
    {
        BisectionCase(c, o);
    }
    else
    {
        BisectionFormulaCase(c, o);
    }
    o.passed = true;
    for (auto& row : o.rows)
    {
        const double err = (row.simulated - row.analytic) / row.analytic;
        row.checked = c.kind == "formula";
        row.agrees = !row.checked || (std::isfinite(err) && std::fabs(err) <= c.tolerance);
        o.passed = o.passed && row.agrees;
    }
    if (c.kind == "formula" && !o.problem.empty())
    {
        o.passed = false;
    }
    if (c.kind == "claim")
    {
        o.passed = true;
    }
    o.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return o;
}

std::string
ValidationVerdict(const ValidationCase& c, const ValidationOutcome& o)
{
    if (c.kind == "claim")
    {
        return "finding";
    }
    return o.passed ? "agrees" : "disagrees";
}

void
WriteValidationOutcome(const ValidationOutcome& o, std::ostream& os)
{
    os << std::setprecision(17);
    os << "case\t" << Clean(o.caseName) << "\n";
    os << "passed\t" << (o.passed ? 1 : 0) << "\n";
    os << "problem\t" << Clean(o.problem) << "\n";
    os << "summary\t" << Clean(o.summary) << "\n";
    os << "crossover\t" << o.crossoverBytes << "\n";
    os << "wall\t" << o.wallS << "\n";
    for (const auto& r : o.rows)
    {
        os << "row\t" << Clean(r.point) << "\t" << r.unit << "\t" << r.analytic << "\t"
           << r.simulated << "\t" << r.regime << "\t" << (r.checked ? 1 : 0) << "\t"
           << (r.agrees ? 1 : 0) << "\t" << Clean(r.note) << "\n";
    }
    for (const auto& s : o.sweep)
    {
        os << "sweep\t" << s.bytes << "\t" << s.count << "\t" << s.type << "\t" << s.op << "\t"
           << s.algorithm << "\t" << s.ranks << "\t" << s.timeUs << "\t" << s.algbwGBps << "\t"
           << s.busbwGBps << "\t" << s.analyticUs << "\t" << s.simOverAnalytic << "\t"
           << (s.complete ? 1 : 0) << "\n";
    }
    os << "end\n";
}

bool
ParseValidationOutcome(const std::string& text, ValidationOutcome& o)
{
    std::istringstream in(text);
    std::string line;
    bool ended = false;
    const auto num = [](const std::string& s) {
        if (s == "nan" || s == "-nan")
        {
            return NaN;
        }
        std::istringstream v(s);
        v.imbue(std::locale::classic());
        double d = NaN;
        v >> d;
        return d;
    };
    while (std::getline(in, line))
    {
        std::vector<std::string> f;
        std::size_t start = 0;
        while (true)
        {
            const std::size_t tab = line.find('\t', start);
            f.push_back(line.substr(start, tab - start));
            if (tab == std::string::npos)
            {
                break;
            }
            start = tab + 1;
        }
        const std::string& k = f[0];
        if (k == "end")
        {
            ended = true;
        }
        else if (f.size() == 2 && k == "case")
        {
            o.caseName = f[1];
        }
        else if (f.size() == 2 && k == "passed")
        {
            o.passed = f[1] == "1";
        }
        else if (f.size() == 2 && k == "problem")
        {
            o.problem = f[1];
        }
        else if (f.size() == 2 && k == "summary")
        {
            o.summary = f[1];
        }
        else if (f.size() == 2 && k == "crossover")
        {
            o.crossoverBytes = num(f[1]);
        }
        else if (f.size() == 2 && k == "wall")
        {
            o.wallS = num(f[1]);
        }
        else if (f.size() == 9 && k == "row")
        {
            ValidationRow r;
            r.point = f[1];
            r.unit = f[2];
            r.analytic = num(f[3]);
            r.simulated = num(f[4]);
            r.regime = f[5];
            r.checked = f[6] == "1";
            r.agrees = f[7] == "1";
            r.note = f[8];
            o.rows.push_back(r);
        }
        else if (f.size() == 13 && k == "sweep")
        {
            SweepRow s;
            s.bytes = std::stoull(f[1]);
            s.count = std::stoull(f[2]);
            s.type = f[3];
            s.op = f[4];
            s.algorithm = f[5];
            s.ranks = static_cast<uint32_t>(std::stoul(f[6]));
            s.timeUs = num(f[7]);
            s.algbwGBps = num(f[8]);
            s.busbwGBps = num(f[9]);
            s.analyticUs = num(f[10]);
            s.simOverAnalytic = num(f[11]);
            s.complete = f[12] == "1";
            o.sweep.push_back(s);
        }
        else
        {
            return false;
        }
    }
    return ended;
}

void
WriteValidationReport(const std::vector<ValidationGroup>& groups,
                      const std::vector<ValidationOutcome>& outcomes,
                      const ValidationReportInfo& info,
                      std::ostream& os)
{
    std::map<std::string, const ValidationOutcome*> byName;
    for (const auto& o : outcomes)
    {
        byName[o.caseName] = &o;
    }
    uint32_t formulas = 0;
    uint32_t agree = 0;
    uint32_t claims = 0;
    std::vector<std::string> failing;
    for (const auto& g : groups)
    {
        for (const auto& c : g.cases)
        {
            const auto it = byName.find(c.name);
            if (it == byName.end())
            {
                continue;
            }
            if (c.kind == "claim")
            {
                ++claims;
            }
            else
            {
                ++formulas;
                agree += it->second->passed ? 1 : 0;
                if (!it->second->passed)
                {
                    failing.push_back(c.name);
                }
            }
        }
    }
    os << "# Validation report\n\n";
    os << "Written by `" << info.command << "`" << (info.quick ? " (the quick CI subset)" : "")
       << "; do not edit by hand (docs/validation.md).\n\n";
    os << (formulas + claims) << " cases: " << formulas << " formula cases (" << agree << " agree, "
       << (formulas - agree) << " disagree) and " << claims << " claims (findings).\n";
    if (!failing.empty())
    {
        os << "\nOut of tolerance: " << JoinList(failing) << ".\n";
    }
    os << "\nColumns: *analytic* is the formula evaluated by code from the scenario's own "
          "parameters (claims: the claimed figure, where the claim gives one); *simulated* "
          "the packet-level figure; *error* = simulated / analytic - 1; *regime* alpha or "
          "beta: the size is below or above the case's crossover n* (the size at which the "
          "formula's latency and bandwidth terms are equal). A formula case agrees when every "
          "point is within its tolerance.\n";
    os << "\n| group | cases | agree | disagree | findings |\n|---|---|---|---|---|\n";
    for (const auto& g : groups)
    {
        uint32_t n = 0;
        uint32_t a = 0;
        uint32_t d = 0;
        uint32_t f = 0;
        for (const auto& c : g.cases)
        {
            const auto it = byName.find(c.name);
            if (it == byName.end())
            {
                continue;
            }
            ++n;
            const std::string v = ValidationVerdict(c, *it->second);
            a += v == "agrees";
            d += v == "disagrees";
            f += v == "finding";
        }
        if (n > 0)
        {
            os << "| " << g.title << " | " << n << " | " << a << " | " << d << " | " << f << " |\n";
        }
    }
    // Coverage: per formula or claim id, the cases and their verdicts.
    std::map<std::string, std::array<uint32_t, 4>> coverage; // cases, agree, disagree, finding
    std::vector<std::string> ids;
    for (const auto& g : groups)
    {
        for (const auto& c : g.cases)
        {
            const auto it = byName.find(c.name);
            if (it == byName.end())
            {
                continue;
            }
            if (coverage.find(c.formula) == coverage.end())
            {
                ids.push_back(c.formula);
                coverage[c.formula] = {0, 0, 0, 0};
            }
            const std::string v = ValidationVerdict(c, *it->second);
            auto& row = coverage[c.formula];
            ++row[0];
            row[1] += v == "agrees";
            row[2] += v == "disagrees";
            row[3] += v == "finding";
        }
    }
    const auto idKey = [](const std::string& id) {
        const int family = id[0] == 'F' ? 0 : (id[0] == 'C' ? 2 : 1);
        const int number = (family == 1) ? 0 : std::atoi(id.c_str() + 1);
        return std::make_pair(family, number);
    };
    std::sort(ids.begin(), ids.end(), [&](const std::string& a, const std::string& b) {
        return idKey(a) < idKey(b);
    });
    os << "\n| id | cases | agree | disagree | findings |\n|---|---|---|---|---|\n";
    for (const auto& id : ids)
    {
        const auto& row = coverage[id];
        os << "| " << id << " | " << row[0] << " | " << row[1] << " | " << row[2] << " | " << row[3]
           << " |\n";
    }
    for (const auto& g : groups)
    {
        bool any = false;
        for (const auto& c : g.cases)
        {
            any = any || byName.count(c.name) > 0;
        }
        if (!any)
        {
            continue;
        }
        os << "\n## " << g.title << "\n\n";
        if (!g.description.empty())
        {
            os << g.description << "\n\n";
        }
        os << "Cases: `" << g.file << "`.\n\n";
        os << "| case | id | point | analytic | simulated | error | regime | verdict |\n"
              "|---|---|---|---|---|---|---|---|\n";
        std::vector<std::string> causes;
        std::vector<std::string> findings;
        std::vector<std::string> notes;
        for (const auto& c : g.cases)
        {
            const auto it = byName.find(c.name);
            if (it == byName.end())
            {
                continue;
            }
            const ValidationOutcome& o = *it->second;
            for (const auto& r : o.rows)
            {
                const double err = (r.simulated - r.analytic) / r.analytic;
                std::ostringstream e;
                e.imbue(std::locale::classic());
                if (std::isfinite(err))
                {
                    e << std::showpos << std::fixed << std::setprecision(1) << 100 * err << " %";
                }
                else
                {
                    e << "—";
                }
                const std::string verdict
                    = c.kind == "claim" ? "finding" : (r.agrees ? "agrees" : "**disagrees**");
                os << "| " << c.name << " | " << c.formula << " | " << r.point << " | "
                   << FormatValue(r.analytic, r.unit) << " | " << FormatValue(r.simulated, r.unit)
                   << " | " << e.str() << " | " << (r.regime.empty() ? "" : r.regime) << " | "
                   << verdict << " |\n";
                if (c.kind == "formula" && !r.agrees)
                {
                    causes.push_back("`" + c.name + "` at " + r.point + ": "
                                     + (r.note.empty() ? "" : r.note + "; ")
                                     + (c.explain.empty() ? "cause not yet explained" : c.explain));
                }
            }
            std::string line = "`" + c.name + "` (" + c.formula + ", tolerance "
                               + (c.kind == "formula" ? Sig(100 * c.tolerance, 3) + " %" : "n/a")
                               + "): " + c.runs[0].path;
            if (c.runs.size() > 1)
            {
                line += " and " + std::to_string(c.runs.size() - 1) + " more";
            }
            if (o.crossoverBytes > 0)
            {
                line += "; n* = " + FormatBytes(static_cast<uint64_t>(o.crossoverBytes));
            }
            if (!o.problem.empty())
            {
                line += "; **" + o.problem + "**";
            }
            if (c.kind == "formula" && o.passed && !o.summary.empty())
            {
                line += ". " + o.summary;
            }
            notes.push_back(line);
            if (c.kind == "claim")
            {
                findings.push_back("**" + c.formula + "** `" + c.name + "`: claim: \"" + c.claim
                                   + "\"" + (c.source.empty() ? "" : " (" + c.source + ")")
                                   + ". Finding: " + o.summary
                                   + (c.explain.empty() ? "" : " " + c.explain));
            }
        }
        os << "\n";
        for (const auto& n : notes)
        {
            os << "- " << n << "\n";
        }
        if (!causes.empty())
        {
            os << "\nDisagreements:\n\n";
            for (const auto& cause : causes)
            {
                os << "- " << cause << "\n";
            }
        }
        if (!findings.empty())
        {
            os << "\nFindings:\n\n";
            for (const auto& f : findings)
            {
                os << "- " << f << "\n";
            }
        }
    }
    os << "\n## Plots\n\n" << info.plotsNote << "\n";
    for (const auto& p : info.plots)
    {
        os << "\n![" << p << "](" << p << ")\n";
    }
}

} // namespace ns3
