/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "validation-suite.h"

#include "config/spec-schema.h"
#include "config/spec-tables.h"
#include "config/spec-toolkit.h"
#include "config/yaml-scenario-reader.h"
#include "validation-measure.h"

#include "ns3/training-workload.h"
#include "ns3/units.h"

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
#include <utility>
#include <yaml-cpp/yaml.h>

namespace ns3
{

namespace
{

namespace fs = std::filesystem;

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// Case kinds.
const std::vector<std::string> KINDS = {"formula", "claim"};

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
    const ValidationMeasure& m = *FindValidationMeasure(c.measure);
    const bool training = m.need == ValidationScenarioNeed::TRAINING;
    const bool collective = m.need == ValidationScenarioNeed::COLLECTIVE;
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
    if (m.fitsSizes && c.sizes.size() < 2)
    {
        r.Fail(node, "measure '" + c.measure + "' needs 'sizes' with at least two sizes");
    }
    if (!c.sizes.empty() && !m.takesSizes
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
    if (c.extrapolateTo > 0 && (!m.extrapolates || c.sizes.size() < 2))
    {
        r.Fail(node["extrapolate_to"],
               "'extrapolate_to' needs measure 'collective-time' and at least two 'sizes'");
    }
    if (!m.takesRuns && c.runs.size() != 1)
    {
        r.Fail(node["runs"], "measure '" + c.measure + "' takes one 'scenario', not 'runs'");
    }
    if (c.kind == "formula" && (!c.claimed.empty() || c.claimedRatio > 0 || !c.claim.empty()))
    {
        r.Fail(node, "'claim', 'claimed' and 'claimed_ratio' belong to kind 'claim' cases");
    }
    if (c.kind == "formula" && !m.hasFormula)
    {
        r.Fail(node["measure"], "measure '" + c.measure + "' has no formula: use kind 'claim'");
    }
}

} // namespace

namespace spec
{

/// What the keys of a case file read into (ReadValidationCaseFile()).
struct ValidationFileReading
{
    const Reader* r{nullptr}; //!< the file's reader
    YAML::Node root;          //!< the file's mapping
    ValidationGroup group;    //!< the group so far
};

/// What the keys of one validation case read into.
struct ValidationCaseReading
{
    const Reader* r{nullptr}; //!< the file's reader
    YAML::Node node;          //!< the case's mapping
    ValidationCase c;         //!< the case so far
};

/// What the keys of one entry of a case's `runs` read into.
struct ValidationRunReading
{
    const Reader* r{nullptr};                  //!< the file's reader
    std::set<std::string>* labels{nullptr};    //!< the labels of the case's runs so far
    bool topologyOnly{false};                  //!< the measure needs the topology only
    std::string label;                         //!< `label`
    std::vector<ValidationRun>* runs{nullptr}; //!< the case's runs
};

namespace
{

/// \return the measure a case names (its `measure` is read)
const ValidationMeasure&
MeasureOf(const ValidationCase& c)
{
    return *FindValidationMeasure(c.measure);
}

/// \return true if the case's measure needs only the topology of its scenarios
bool
TopologyOnly(const ValidationCase& c)
{
    return MeasureOf(c).need == ValidationScenarioNeed::TOPOLOGY;
}

} // namespace

const SpecTable<ValidationRunReading>&
ValidationRunKeys()
{
    using R = ValidationRunReading;
    static const SpecTable<R> keys = {
        CustomKey<R>("label",
                     "text",
                     "not empty, unique in the case",
                     "the run's name in the report",
                     [](const Field& f, R& r) {
                         r.label = r.r->Text(f.value, "label");
                         if (!r.labels->insert(r.label).second)
                         {
                             r.r->Fail(f.value, "label '" + r.label + "' is used twice");
                         }
                     }),
        CustomKey<R>("scenario",
                     "path",
                     "a scenario file",
                     "the run's scenario, relative to the case file",
                     [](const Field& f, R& r) {
                         r.runs->push_back(ReadRun(*r.r, f.value, r.label, r.topologyOnly));
                     }),
    };
    return keys;
}

const SpecTable<ValidationCaseReading>&
ValidationCaseKeys()
{
    using R = ValidationCaseReading;
    static const SpecTable<R> keys = {
        CustomKey<R>("name",
                     "text",
                     "lower-case letters, digits, `-`, `_`, `.`; unique in the suite",
                     "the case's name (it names result files)",
                     [](const Field& f, R& r) {
                         ValidationCase& c = r.c;
                         c.name = r.r->Text(f.value, "name");
                         const std::string problem = spec::NameProblem(c.name);
                         if (!problem.empty())
                         {
                             r.r->Fail(f.value, "'name' " + problem);
                         }
                         if (c.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.")
                             != std::string::npos)
                         {
                             r.r->Fail(f.value,
                                       "'name' may contain only lower-case letters, digits, '-', "
                                       "'_' and '.' (it names result files), not '"
                                           + c.name + "'");
                         }
                     }),
        CustomKey<R>("kind",
                     "`formula` or `claim`",
                     "",
                     "checks a formula (with a tolerance) or a published claim",
                     [](const Field& f, R& r) { r.c.kind = r.r->Choice(f.value, "kind", KINDS); }),
        CustomKey<R>("formula",
                     "`F1`..`F16`, `C1`..`C8` or `bisection`",
                     "",
                     "the formula of MISSION.md the case checks",
                     [](const Field& f, R& r) {
                         ValidationCase& c = r.c;
                         c.formula = r.r->Text(f.value, "formula");
                         bool ok = c.formula == "bisection" || c.formula == "published";
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
                             r.r->Fail(f.value,
                                       "'formula' must be F1..F16 or C1..C8 (MISSION.md) or "
                                       "'bisection' or 'published', not '"
                                           + c.formula + "'");
                         }
                     }),
        CustomKey<R>(
            "measure",
            "a measure's name",
            [] {
                std::vector<std::string> quoted;
                for (const auto& name : ValidationMeasureNames())
                {
                    quoted.push_back("`" + name + "`");
                }
                return JoinList(quoted);
            }(),
            "what the case measures (docs/validation.md)",
            [](const Field& f, R& r) {
                r.c.measure = r.r->Choice(f.value, "measure", ValidationMeasureNames());
            }),
        CustomKey<R>("quantity",
                     "a quantity, or (compare) a list of them",
                     "the measure's quantities",
                     "which figure of the measure (its quantities: docs/validation.md)",
                     [](const Field& f, R& r) {
                         ValidationCase& c = r.c;
                         const std::vector<std::string>& quantities = MeasureOf(c).quantities;
                         if (quantities.empty())
                         {
                             r.r->Fail(f.value, "measure '" + c.measure + "' takes no 'quantity'");
                         }
                         if (c.measure == "compare" && f.value.IsSequence())
                         {
                             for (const auto& q : r.r->List(f.value, "quantity"))
                             {
                                 c.quantities.push_back(r.r->Choice(q, "quantity", quantities));
                             }
                         }
                         else
                         {
                             c.quantities.push_back(r.r->Choice(f.value, "quantity", quantities));
                         }
                         c.quantity = c.quantities[0];
                     })
            .WhenAbsent([](R& r) {
                const std::vector<std::string>& quantities = MeasureOf(r.c).quantities;
                if (!quantities.empty())
                {
                    r.r->Fail(r.node,
                              "measure '" + r.c.measure + "' needs a 'quantity': one of "
                                  + JoinList(quantities));
                }
            }),
        CustomKey<R>("scenario",
                     "path",
                     "a scenario file",
                     "the scenario measured, relative to the case file (or `runs`)",
                     [](const Field& f, R& r) {
                         if (std::as_const(r.node)["runs"])
                         {
                             r.r->Fail(std::as_const(r.node)["runs"],
                                       "give either 'scenario' or 'runs', not both");
                         }
                         r.c.runs.push_back(ReadRun(*r.r, f.value, "", TopologyOnly(r.c)));
                     }),
        CustomKey<R>(
            "runs",
            "list of mappings (`label`, `scenario`)",
            "not empty",
            "several scenarios, for measure `compare`",
            [](const Field& f, R& r) {
                std::set<std::string> labels;
                for (const auto& entry : r.r->List(f.value, "runs"))
                {
                    r.r->CheckKeys(entry, KeyNames(ValidationRunKeys()), "an entry of 'runs'");
                    if (!entry["label"] || !entry["scenario"])
                    {
                        r.r->Fail(entry, "an entry of 'runs' needs 'label' and 'scenario'");
                    }
                    ValidationRunReading run;
                    run.r = r.r;
                    run.labels = &labels;
                    run.topologyOnly = TopologyOnly(r.c);
                    run.runs = &r.c.runs;
                    ReadKeys(ValidationRunKeys(), FieldsOf(entry, r.r->file), run);
                }
            })
            .WhenAbsent([](R& r) {
                if (!std::as_const(r.node)["scenario"])
                {
                    r.r->Fail(r.node,
                              "a validation case needs 'scenario' (or 'runs' for measure "
                              "'compare')");
                }
            }),
        CustomKey<R>(
            "collective",
            "a collective's name",
            "",
            "the collective measured (default: the scenario's first)",
            [](const Field& f, R& r) { r.c.collective = r.r->Text(f.value, "collective"); }),
        CustomKey<R>("model",
                     "`formula` or `schedule`",
                     "",
                     "collective measures: the textbook closed form (default) or the schedule "
                     "built",
                     [](const Field& f, R& r) {
                         r.c.model = r.r->Choice(f.value, "model", {"formula", "schedule"});
                         if (!MeasureOf(r.c).takesModel)
                         {
                             r.r->Fail(f.value,
                                       "'model' applies to measures collective-time and crossover");
                         }
                     }),
        CustomKey<R>("sizes",
                     "list of sizes",
                     "increasing",
                     "collective sizes (override the scenario's)",
                     [](const Field& f, R& r) {
                         ValidationCase& c = r.c;
                         c.sizesWhere = r.r->At(f.value);
                         for (const auto& size : r.r->List(f.value, "sizes"))
                         {
                             const uint64_t b = r.r->Bytes(size, "sizes");
                             if (!c.sizes.empty() && b <= c.sizes.back())
                             {
                                 r.r->Fail(size, "'sizes' must increase");
                             }
                             c.sizes.push_back(b);
                         }
                     }),
        CustomKey<R>("micro_batches",
                     "list of integers",
                     "1 to 100000",
                     "training micro-batches (override the scenario's)",
                     [](const Field& f, R& r) {
                         for (const auto& m : r.r->List(f.value, "micro_batches"))
                         {
                             const double d = r.r->Number(m, "micro_batches");
                             if (d < 1 || d > 100000 || d != std::floor(d))
                             {
                                 r.r->Fail(m,
                                           "'micro_batches' entries are integers from 1 to 100000");
                             }
                             r.c.microBatches.push_back(static_cast<uint32_t>(d));
                         }
                     }),
        CustomKey<R>(
            "tolerance",
            "fraction such as `0.03` or `3%`",
            "0 to 1, exclusive",
            "a formula case's tolerance: |simulated / analytic - 1| allowed",
            [](const Field& f, R& r) { r.c.tolerance = r.r->Fraction(f.value, "tolerance"); })
            .WhenAbsent([](R& r) {
                if (r.c.kind == "formula")
                {
                    r.r->Fail(r.node, "a formula case needs a 'tolerance' (e.g. 3%)");
                }
            }),
        CustomKey<R>("quick",
                     "`true` or `false`",
                     "",
                     "part of the CI subset (`--quick`)",
                     [](const Field& f, R& r) { r.c.quick = r.r->Bool(f.value, "quick"); }),
        CustomKey<R>("claim",
                     "text",
                     "",
                     "a claim case: the claim as the articles state it",
                     [](const Field& f, R& r) { r.c.claim = r.r->Text(f.value, "claim"); })
            .WhenAbsent([](R& r) {
                if (r.c.kind == "claim")
                {
                    r.r->Fail(r.node,
                              "a claim case needs 'claim': the claim as the articles state it");
                }
            }),
        CustomKey<R>("source",
                     "text",
                     "",
                     "where the claim or formula comes from",
                     [](const Field& f, R& r) { r.c.source = r.r->Text(f.value, "source"); }),
        CustomKey<R>("claimed",
                     "list of figures (`10.85s`, `4.3GB`, `80%`, a number, or `-`)",
                     "one per point",
                     "a claim case: the claimed figures",
                     [](const Field& f, R& r) {
                         for (const auto& v : r.r->List(f.value, "claimed"))
                         {
                             r.c.claimed.push_back(r.r->Figure(v, "claimed"));
                         }
                     }),
        CustomKey<R>("claimed_ratio",
                     "number",
                     "> 0",
                     "the claimed last/first (or simulated/analytic) ratio",
                     [](const Field& f, R& r) {
                         r.c.claimedRatio = r.r->Number(f.value, "claimed_ratio");
                         if (!(r.c.claimedRatio > 0))
                         {
                             r.r->Fail(f.value, "'claimed_ratio' must be positive");
                         }
                     }),
        CustomKey<R>("extrapolate_to",
                     "size",
                     "> 0",
                     "collective-time: also extrapolate to this size",
                     [](const Field& f, R& r) {
                         r.c.extrapolateTo = r.r->Bytes(f.value, "extrapolate_to");
                     }),
        CustomKey<R>("explain",
                     "text",
                     "",
                     "one line: the known cause of a disagreement or the reason behind a finding",
                     [](const Field& f, R& r) { r.c.explain = r.r->Text(f.value, "explain"); }),
    };
    return keys;
}

} // namespace spec

namespace
{

/// The keys a validation case cannot do without (checked before any is read).
const std::vector<std::string> REQUIRED_CASE_KEYS = {"name", "kind", "formula", "measure"};

ValidationCase
ReadCase(const Reader& r, const YAML::Node& node, const std::string& group)
{
    r.CheckKeys(node, spec::KeyNames(spec::ValidationCaseKeys()), "a validation case");
    spec::ValidationCaseReading reading;
    reading.r = &r;
    reading.node = node;
    ValidationCase& c = reading.c;
    c.where = r.At(node);
    c.group = group;
    for (const std::string& required : REQUIRED_CASE_KEYS)
    {
        if (!node[required])
        {
            r.Fail(node, "a validation case needs '" + required + "'");
        }
    }
    spec::ReadKeys(spec::ValidationCaseKeys(), spec::FieldsOf(node, r.file), reading);
    CheckCase(r, node, c);
    // The number of claimed figures must match the points they stand beside.
    if (!c.claimed.empty())
    {
        const std::size_t points = FindValidationMeasure(c.measure)->points(c);
        if (c.claimed.size() != points)
        {
            r.Fail(node["claimed"],
                   "'claimed' has " + std::to_string(c.claimed.size()) + " figure(s) for "
                       + std::to_string(points) + " point(s) of this case");
        }
    }
    return c;
}

} // namespace

const spec::SpecTable<spec::ValidationFileReading>&
spec::ValidationFileKeys()
{
    using R = ValidationFileReading;
    static const SpecTable<R> keys = {
        CustomKey<R>("title",
                     "text",
                     "",
                     "the group's heading in the report (default: the file's stem)",
                     [](const Field& f, R& r) { r.group.title = r.r->Text(f.value, "title"); })
            .WhenAbsent([](R& r) { r.group.title = r.group.name; }),
        CustomKey<R>(
            "description",
            "text",
            "",
            "a paragraph under the heading",
            [](const Field& f, R& r) { r.group.description = r.r->Text(f.value, "description"); }),
        CustomKey<R>("order",
                     "integer",
                     "0 to 1000000",
                     "the group's place in the report (ties: file name; default 1000)",
                     [](const Field& f, R& r) {
                         const double order = r.r->Number(f.value, "order");
                         if (order < 0 || order > 1000000 || order != std::floor(order))
                         {
                             r.r->Fail(f.value, "'order' is an integer from 0 to 1000000");
                         }
                         r.group.order = static_cast<uint32_t>(order);
                     }),
        CustomKey<R>("cases",
                     "list of validation cases",
                     "not empty; names unique",
                     "the cases, in report order (their keys: the next table)",
                     [](const Field& f, R& r) {
                         std::set<std::string> names;
                         for (const auto& node : r.r->List(f.value, "cases"))
                         {
                             ValidationCase c = ReadCase(*r.r, node, r.group.name);
                             if (!names.insert(c.name).second)
                             {
                                 r.r->Fail(node["name"],
                                           "case name '" + c.name + "' is used twice");
                             }
                             r.group.cases.push_back(std::move(c));
                         }
                     })
            .WhenAbsent([](R& r) {
                r.r->Fail(r.root, "a case file needs 'cases': a list of validation cases");
            }),
    };
    return keys;
}

namespace
{

std::string
Clean(const std::string& s)
{
    std::string out = s;
    std::replace(out.begin(), out.end(), '\t', ' ');
    std::replace(out.begin(), out.end(), '\n', ' ');
    return out;
}

} // namespace

std::string
FormatSignificant(double v, int digits)
{
    std::ostringstream s;
    s.imbue(std::locale::classic());
    s << std::setprecision(digits) << v;
    return s.str();
}

std::string
FormatValidationValue(double v, const std::string& unit)
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

ValidationGroup
ReadValidationCaseFile(const std::string& path)
{
    Reader r;
    r.file = path;
    const YAML::Node root = spec::LoadYamlFile(path,
                                               "validation case",
                                               nullptr,
                                               spec::KeyNames(spec::ValidationFileKeys()));
    if (!root.IsMap())
    {
        SpecLocation loc;
        loc.file = path;
        throw SpecError(loc, "a case file is a mapping with 'title' and 'cases'");
    }
    r.CheckKeys(root, spec::KeyNames(spec::ValidationFileKeys()), "a case file");
    spec::ValidationFileReading reading;
    reading.r = &r;
    reading.root = root;
    reading.group.file = path;
    reading.group.name = spec::CheckedDefaultName(spec::Stem(path), SpecLocation{path, 1, 1});
    spec::ReadKeys(spec::ValidationFileKeys(), spec::FieldsOf(root, path), reading);
    return reading.group;
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
    FindValidationMeasure(c.measure)->run(c, o);
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
                   << FormatValidationValue(r.analytic, r.unit) << " | "
                   << FormatValidationValue(r.simulated, r.unit) << " | " << e.str() << " | "
                   << (r.regime.empty() ? "" : r.regime) << " | " << verdict << " |\n";
                if (c.kind == "formula" && !r.agrees)
                {
                    causes.push_back("`" + c.name + "` at " + r.point + ": "
                                     + (r.note.empty() ? "" : r.note + "; ")
                                     + (c.explain.empty() ? "cause not yet explained" : c.explain));
                }
            }
            std::string line
                = "`" + c.name + "` (" + c.formula + ", tolerance "
                  + (c.kind == "formula" ? FormatSignificant(100 * c.tolerance, 3) + " %" : "n/a")
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
