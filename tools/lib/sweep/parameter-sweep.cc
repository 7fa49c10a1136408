/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "parameter-sweep.h"

#include "config/scenario-spec.h"
#include "config/spec-schema.h"
#include "config/spec-tables.h"
#include "config/spec-toolkit.h"
#include "config/yaml-scenario-reader.h"
#include "output/atomic-file.h"
#include "output/json-writer.h"
#include "output/results-writer.h"
#include "run/child-process.h"
#include "seed-runs.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

namespace ns3
{

namespace
{

namespace fs = std::filesystem;
using spec::At;

/// Most points a sweep may have (a guard against a runaway grid).
constexpr std::size_t MAX_POINTS = 10000;

/// One step of a key path: a mapping key or a sequence index.
struct PathStep
{
    bool isIndex{false};  //!< an index `[i]`
    std::string key;      //!< the key, if not an index
    std::size_t index{0}; //!< the index, if an index
};

/// \return the steps of \p path (`a.b[2].c`); throws std::invalid_argument if malformed
std::vector<PathStep>
ParseKeyPath(const std::string& path)
{
    std::vector<PathStep> steps;
    std::size_t i = 0;
    const auto isKeyChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    };
    if (path.empty())
    {
        throw std::invalid_argument("the key path is empty");
    }
    while (i < path.size())
    {
        std::size_t j = i;
        while (j < path.size() && isKeyChar(path[j]))
        {
            ++j;
        }
        if (j == i)
        {
            throw std::invalid_argument("expected a key at character " + std::to_string(i + 1)
                                        + " of '" + path + "' (keys are letters, digits, _ and -)");
        }
        steps.push_back(PathStep{false, path.substr(i, j - i), 0});
        i = j;
        while (i < path.size() && path[i] == '[')
        {
            const std::size_t close = path.find(']', i);
            const std::string digits
                = close == std::string::npos ? "" : path.substr(i + 1, close - i - 1);
            if (digits.empty() || digits.size() > 6
                || digits.find_first_not_of("0123456789") != std::string::npos)
            {
                throw std::invalid_argument("expected an index [0], [1], ... at character "
                                            + std::to_string(i + 1) + " of '" + path + "'");
            }
            steps.push_back(PathStep{true, "", static_cast<std::size_t>(std::stoul(digits))});
            i = close + 1;
        }
        if (i < path.size())
        {
            if (path[i] != '.' || i + 1 == path.size())
            {
                throw std::invalid_argument("unexpected '" + path.substr(i, 1) + "' at character "
                                            + std::to_string(i + 1) + " of '" + path
                                            + "' (write key.key[index].key)");
            }
            ++i;
        }
    }
    return steps;
}

/// \return "a.b[2]" for the first \p n steps
std::string
PathPrefix(const std::vector<PathStep>& steps, std::size_t n)
{
    std::string s;
    for (std::size_t i = 0; i < n; ++i)
    {
        if (steps[i].isIndex)
        {
            s += "[" + std::to_string(steps[i].index) + "]";
        }
        else
        {
            s += (s.empty() ? "" : ".") + steps[i].key;
        }
    }
    return s.empty() ? "the top level" : "'" + s + "'";
}

/// \return the keys of a mapping, comma separated
std::string
MapKeys(const YAML::Node& map)
{
    std::string s;
    for (auto it = map.begin(); it != map.end(); ++it)
    {
        s += (s.empty() ? "" : ", ") + it->first.as<std::string>();
    }
    return s;
}

/**
 * \brief Set \p value at \p steps under \p root (cloned by the caller).
 * \throws std::invalid_argument naming the failing step
 */
void
SetPath(YAML::Node root, const std::vector<PathStep>& steps, const YAML::Node& value)
{
    YAML::Node cur;
    cur.reset(root);
    for (std::size_t i = 0; i < steps.size(); ++i)
    {
        const PathStep& s = steps[i];
        const bool last = i + 1 == steps.size();
        const std::string at = PathPrefix(steps, i);
        if (s.isIndex)
        {
            if (!cur.IsSequence())
            {
                throw std::invalid_argument(at + " is not a list, so [" + std::to_string(s.index)
                                            + "] does not apply");
            }
            if (s.index >= cur.size())
            {
                throw std::invalid_argument(at + " has " + std::to_string(cur.size())
                                            + " entries, so there is no [" + std::to_string(s.index)
                                            + "] (indices start at 0)");
            }
            if (last)
            {
                cur[s.index] = YAML::Clone(value);
                return;
            }
            YAML::Node next = cur[s.index];
            cur.reset(next);
            continue;
        }
        if (!cur.IsMap())
        {
            throw std::invalid_argument(at + " is not a mapping, so it has no key '" + s.key + "'");
        }
        const YAML::Node& constCur = cur;
        const bool exists = static_cast<bool>(constCur[s.key]);
        if (last)
        {
            cur[s.key] = YAML::Clone(value);
            return;
        }
        if (!exists)
        {
            std::vector<std::string> keys;
            for (auto it = cur.begin(); it != cur.end(); ++it)
            {
                keys.push_back(it->first.as<std::string>());
            }
            const std::string near = spec::NearestWithin(s.key, keys, 2);
            throw std::invalid_argument("there is no key '" + s.key + "' in "
                                        + (i == 0 ? "the base scenario" : at)
                                        + (near.empty() ? "" : "; did you mean '" + near + "'?")
                                        + " (keys there: " + MapKeys(cur) + ")");
        }
        YAML::Node next = cur[s.key];
        cur.reset(next);
    }
}

/// Make every relative `matrix: FILE` path under \p node absolute, from \p dir.
void
AbsoluteMatrixPaths(YAML::Node node, const fs::path& dir)
{
    if (node.IsMap())
    {
        for (auto it = node.begin(); it != node.end(); ++it)
        {
            if (it->first.IsScalar() && it->first.Scalar() == "matrix" && it->second.IsScalar())
            {
                const fs::path p(it->second.Scalar());
                if (p.is_relative())
                {
                    it->second = fs::absolute(dir / p).lexically_normal().string();
                }
            }
            else
            {
                AbsoluteMatrixPaths(it->second, dir);
            }
        }
    }
    else if (node.IsSequence())
    {
        for (std::size_t i = 0; i < node.size(); ++i)
        {
            AbsoluteMatrixPaths(node[i], dir);
        }
    }
}

/// \return the mapping of a topology or traffic file (\p what) named at \p namedAt, named and
/// with absolute matrix paths
YAML::Node
LoadSection(const std::string& file, const std::string& what, const SpecLocation& namedAt)
{
    YAML::Node node = spec::LoadYamlFile(file, what, &namedAt, {});
    if (!node.IsMap())
    {
        throw SpecError(namedAt, "'" + file + "' does not hold a mapping");
    }
    if (!node["name"])
    {
        node["name"] = spec::CheckedDefaultName(spec::Stem(file), SpecLocation{file, 1, 1});
    }
    AbsoluteMatrixPaths(node, fs::path(file).parent_path());
    return node;
}

/// \return the scenario file as one mapping (see InlineScenarioYaml())
YAML::Node
InlineScenario(const std::string& scenarioFile)
{
    YAML::Node root = spec::LoadYamlFile(scenarioFile, "scenario", nullptr, {});
    if (!root.IsMap())
    {
        throw SpecError(SpecLocation{scenarioFile, 0, 0}, "the scenario is not a mapping");
    }
    const fs::path dir = fs::path(scenarioFile).parent_path();
    for (const char* section : {"topology", "traffic"})
    {
        YAML::Node v = root[section];
        if (v && v.IsScalar())
        {
            const std::string file = (dir / v.Scalar()).lexically_normal().string();
            root[section] = LoadSection(file, section, At(scenarioFile, v.Mark()));
        }
        else if (v && v.IsMap())
        {
            AbsoluteMatrixPaths(v, dir);
        }
    }
    if (!root["name"])
    {
        root["name"]
            = spec::CheckedDefaultName(spec::Stem(scenarioFile), SpecLocation{scenarioFile, 1, 1});
    }
    return root;
}

/// \return \p node as block YAML text
std::string
Emit(const YAML::Node& node)
{
    YAML::Emitter out;
    out << node;
    return std::string(out.c_str()) + "\n";
}

/// \return \p node as one-line text: a scalar's own text, else flow YAML
std::string
Label(const YAML::Node& node)
{
    if (node.IsScalar())
    {
        return node.Scalar();
    }
    if (node.IsNull())
    {
        return "null";
    }
    YAML::Emitter out;
    out << YAML::Flow << node;
    return out.c_str();
}

/// \return \p name with characters other than letters, digits, _ . - replaced by _
std::string
ColumnName(const std::string& name)
{
    std::string s = name;
    for (char& c : s)
    {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
        {
            c = '_';
        }
    }
    return s;
}

/// Removes a directory tree when it goes out of scope.
struct TempDir
{
    fs::path path;

    TempDir()
    {
        std::string tmpl = (fs::temp_directory_path() / "ai-fabric-sweep-XXXXXX").string();
        if (!mkdtemp(tmpl.data()))
        {
            throw std::runtime_error("cannot create a temporary directory: "
                                     + std::string(std::strerror(errno)));
        }
        path = tmpl;
    }

    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }

    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

/// The line \p line (1-based) of \p text, trimmed, or "".
std::string
LineOf(const std::string& text, int line)
{
    std::istringstream in(text);
    std::string s;
    for (int i = 1; std::getline(in, s); ++i)
    {
        if (i == line)
        {
            const std::size_t a = s.find_first_not_of(' ');
            return a == std::string::npos ? "" : s.substr(a);
        }
    }
    return "";
}

/**
 * \brief Check a scenario text by reading it from a temporary file.
 * \param yaml the scenario
 * \param dir the temporary directory
 * \param[out] problem the reader's message, with the offending line when in the scenario
 * \return true if valid
 */
bool
ScenarioIsValid(const std::string& yaml, const fs::path& dir, std::string& problem)
{
    const std::string file = (dir / "scenario.yaml").string();
    {
        std::ofstream os(file, std::ios::binary | std::ios::trunc);
        os << yaml;
        if (!os)
        {
            throw std::runtime_error("cannot write " + file);
        }
    }
    try
    {
        ReadScenarioFile(file);
        return true;
    }
    catch (const SpecError& e)
    {
        problem = e.Message();
        if (e.Where().file == file)
        {
            const std::string line = LineOf(yaml, e.Where().line);
            if (!line.empty())
            {
                problem += " (at '" + line + "' of the point's scenario)";
            }
        }
        else
        {
            problem = e.Where().ToString() + ": " + problem;
        }
        return false;
    }
}

/// Reads a mapping of the sweep file: unknown keys are errors with a suggestion.
void
CheckKeys(const YAML::Node& map,
          const std::string& file,
          const std::string& what,
          const std::vector<std::string>& known)
{
    const std::string list = spec::JoinList(known);
    for (auto it = map.begin(); it != map.end(); ++it)
    {
        const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
        if (std::find(known.begin(), known.end(), key) == known.end())
        {
            const std::string near = spec::NearestWithin(key, known, 2);
            throw SpecError(At(file, it->first.Mark()),
                            "unknown key '" + key + "' in " + what + "; "
                                + (near.empty() ? "" : "did you mean '" + near + "'? ")
                                + "known: " + list);
        }
    }
}

/// \return the name of point \p i's directory: zero-padded to the width of the last index
std::string
PointDirName(std::size_t i, std::size_t count)
{
    const std::size_t width = std::max<std::size_t>(3, std::to_string(count - 1).size());
    std::string s = std::to_string(i);
    return std::string(width - std::min(width, s.size()), '0') + s;
}

/// \return \p text parsed as a finite double
bool
ParseNumber(const std::string& text, double& value)
{
    if (text.empty())
    {
        return false;
    }
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end && *end == '\0' && std::isfinite(value);
}

/// \return \p v as summary.json writes numbers (%.12g); "" if not finite
std::string
NumberText(double v)
{
    if (!std::isfinite(v))
    {
        return "";
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", v);
    return buf;
}

} // namespace

namespace spec
{

/// What the keys of a sweep file read into (ReadSweepFile()).
struct SweepFileReading
{
    std::string path;                            //!< the sweep file
    SpecLocation where;                          //!< its top-level mapping
    SweepPlan plan;                              //!< the plan so far (no points yet)
    ScenarioSpec base;                           //!< the base scenario, read
    YAML::Node inlined;                          //!< the base scenario, inlined
    std::vector<std::vector<YAML::Node>> values; //!< per parameter, its values (inlined)
    std::vector<std::vector<PathStep>> steps;    //!< per parameter, its key path
    SpecLocation seedsWhere;                     //!< the `seeds` key, if given
};

/// What the keys of one entry of `parameters` read into.
struct SweepParameterReading
{
    SweepFileReading* file{nullptr}; //!< the sweep file
    SpecLocation where;              //!< the entry
    SweepParameter parameter;        //!< the parameter so far
    std::vector<YAML::Node> values;  //!< its values (a section file inlined)
};

/// What the keys of one entry of `metrics` read into.
struct SweepMetricReading
{
    const SweepFileReading* file{nullptr}; //!< the sweep file
    SpecLocation where;                    //!< the entry
    SweepMetric metric;                    //!< the metric so far
};

namespace
{

/**
 * \param f a field
 * \return its value, a non-empty scalar
 * \throws SpecError at the value otherwise
 */
std::string
SweepText(const Field& f)
{
    if (!f.value.IsScalar() || f.value.Scalar().empty())
    {
        throw SpecError(At(f.file, f.value.Mark()), "'" + f.key + "' must be a non-empty text");
    }
    return f.value.Scalar();
}

/**
 * \param where the mapping
 * \param what the mapping in words ("the sweep file", "a parameter")
 * \param key the missing key
 * \return the "needs" error of a required key
 */
SpecError
SweepNeeds(const SpecLocation& where, const std::string& what, const std::string& key)
{
    return SpecError(where, what + " needs '" + key + "'");
}

/// Largest `jobs`.
constexpr uint64_t MAX_SWEEP_JOBS = 1024;

} // namespace

const SpecTable<SweepParameterReading>&
SweepParameterKeys()
{
    using R = SweepParameterReading;
    static const SpecTable<R> keys = {
        CustomKey<R>("key",
                     "key path such as `topology.oversubscription`",
                     "a key of the base scenario",
                     "what the parameter sets: a path of keys and [indices] into the base "
                     "scenario, its topology and traffic inlined",
                     [](const Field& f, R& r) {
                         SweepParameter& sp = r.parameter;
                         sp.key = SweepText(f);
                         sp.where = At(f.file, f.value.Mark());
                         for (const auto& other : r.file->plan.parameters)
                         {
                             if (other.key == sp.key)
                             {
                                 throw SpecError(sp.where,
                                                 "parameter '" + sp.key
                                                     + "' is already swept at line "
                                                     + std::to_string(other.where.line));
                             }
                         }
                         try
                         {
                             r.file->steps.push_back(ParseKeyPath(sp.key));
                         }
                         catch (const std::invalid_argument& e)
                         {
                             throw SpecError(sp.where, "bad key path: " + std::string(e.what()));
                         }
                     })
            .WhenAbsent([](R& r) { throw SweepNeeds(r.where, "a parameter", "key"); }),
        CustomKey<R>(
            "values",
            "list of YAML values",
            "not empty, distinct",
            "the values, in order; for `topology` or `traffic`, a file path (relative to the "
            "sweep file) or a mapping",
            [](const Field& f, R& r) {
                SweepParameter& sp = r.parameter;
                const YAML::Node& v = f.value;
                if (!v.IsSequence() || v.size() == 0)
                {
                    throw SpecError(At(f.file, v.Mark()),
                                    "'values' of '" + sp.key + "' must be a non-empty list");
                }
                std::set<std::string> seen;
                const bool section = sp.key == "topology" || sp.key == "traffic";
                const fs::path sweepDir = fs::path(r.file->path).parent_path();
                for (const YAML::Node& value : v)
                {
                    YAML::Node use = value;
                    const SpecLocation vw = At(f.file, value.Mark());
                    if (section && value.IsScalar())
                    {
                        // A topology or traffic file, relative to the sweep file: inline it.
                        const std::string file
                            = (sweepDir / value.Scalar()).lexically_normal().string();
                        use.reset(LoadSection(file, sp.key, vw));
                    }
                    else if (value.IsScalar()
                             && (sp.key == "matrix"
                                 || (sp.key.size() > 7
                                     && sp.key.compare(sp.key.size() - 7, 7, ".matrix") == 0)))
                    {
                        // A routing-matrix CSV, relative to the sweep file (the point runs
                        // from its own directory).
                        const fs::path csv(value.Scalar());
                        use.reset(YAML::Node(
                            csv.is_relative()
                                ? fs::absolute(sweepDir / csv).lexically_normal().string()
                                : csv.string()));
                    }
                    else if (!value.IsScalar())
                    {
                        // An inline mapping or list: its matrix paths, relative to the sweep
                        // file.
                        use.reset(YAML::Clone(value));
                        AbsoluteMatrixPaths(use, sweepDir);
                    }
                    const std::string label = Label(value);
                    if (!seen.insert(label).second)
                    {
                        throw SpecError(vw,
                                        "value '" + label + "' of '" + sp.key
                                            + "' is listed twice");
                    }
                    sp.labels.push_back(label);
                    sp.values.push_back(Emit(use));
                    sp.valueWhere.push_back(vw);
                    r.values.push_back(use);
                }
            })
            .WhenAbsent([](R& r) {
                throw SpecError(r.where, "parameter '" + r.parameter.key + "' needs 'values'");
            }),
    };
    return keys;
}

const SpecTable<SweepMetricReading>&
SweepMetricKeys()
{
    using R = SweepMetricReading;
    static const SpecTable<R> keys = {
        CustomKey<R>("name",
                     "text",
                     "letters, digits, `_`, `.` and `-`; unique",
                     "the column's name (default: the path, other characters replaced by `_`)",
                     [](const Field& f, R& r) {
                         r.metric.name = SweepText(f);
                         if (ColumnName(r.metric.name) != r.metric.name)
                         {
                             throw SpecError(At(f.file, f.value.Mark()),
                                             "a metric name may hold letters, digits, _ . and -, "
                                             "not '"
                                                 + r.metric.name + "'");
                         }
                     }),
        CustomKey<R>("path",
                     "JSON path such as `collectives[0].busbw_GBps`",
                     "",
                     "the value's path in each point's summary.json",
                     [](const Field& f, R& r) {
                         r.metric.path = SweepText(f);
                         r.metric.where = At(f.file, f.value.Mark());
                         try
                         {
                             ParseKeyPath(r.metric.path);
                         }
                         catch (const std::invalid_argument& e)
                         {
                             throw SpecError(r.metric.where,
                                             "bad JSON path: " + std::string(e.what()));
                         }
                     })
            .WhenAbsent([](R& r) { throw SweepNeeds(r.where, "a metric", "path"); }),
    };
    return keys;
}

const SpecTable<SweepFileReading>&
SweepFileKeys()
{
    using R = SweepFileReading;
    static const SpecTable<R> keys = {
        CustomKey<R>("name",
                     "text",
                     "a name: one safe path component (it names `results/NAME`)",
                     "the sweep's name (default: the file's stem)",
                     [](const Field& f, R& r) { r.plan.name = spec::ReadName(f); })
            .WhenAbsent(
                [](R& r) { r.plan.name = spec::CheckedDefaultName(spec::Stem(r.path), r.where); }),
        CustomKey<R>("base",
                     "path",
                     "a scenario file",
                     "the base scenario, relative to the sweep file; every point is it with the "
                     "parameters set (read first, as `ai-fabric run` reads it)",
                     [](const Field& f, R& r) {
                         const std::string base = SweepText(f);
                         const SpecLocation baseWhere = At(f.file, f.value.Mark());
                         r.plan.baseFile
                             = (fs::path(r.path).parent_path() / base).lexically_normal().string();
                         std::error_code ec;
                         if (!fs::is_regular_file(r.plan.baseFile, ec))
                         {
                             throw SpecError(
                                 baseWhere,
                                 "base: cannot open scenario file '" + r.plan.baseFile
                                     + "': no such file (the path is relative to the sweep "
                                       "file)");
                         }
                         // Read as 'run' would (its own errors name its own lines).
                         r.base = ReadScenarioFile(r.plan.baseFile);
                         r.inlined = InlineScenario(r.plan.baseFile);
                     })
            .WhenAbsent([](R& r) { throw SweepNeeds(r.where, "the sweep file", "base"); }),
        CustomKey<R>(
            "parameters",
            "list of mappings (`key`, `values`)",
            "not empty; at most " + std::to_string(MAX_POINTS) + " points in all",
            "the grid: every combination of one value per parameter is a point",
            [](const Field& f, R& r) {
                const YAML::Node& params = f.value;
                if (!params.IsSequence() || params.size() == 0)
                {
                    throw SpecError(At(f.file, params.Mark()),
                                    "'parameters' must be a non-empty list of {key: PATH, "
                                    "values: [...]}");
                }
                std::size_t total = 1;
                for (const YAML::Node& p : params)
                {
                    if (!p.IsMap())
                    {
                        throw SpecError(At(f.file, p.Mark()),
                                        "a parameter must be a mapping {key: PATH, values: "
                                        "[...]}");
                    }
                    CheckKeys(p, f.file, "a parameter", KeyNames(SweepParameterKeys()));
                    SweepParameterReading entry;
                    entry.file = &r;
                    entry.where = At(f.file, p.Mark());
                    ReadKeys(SweepParameterKeys(), FieldsOf(p, f.file), entry);
                    SweepParameter& sp = entry.parameter;
                    try
                    {
                        SetPath(YAML::Clone(r.inlined), r.steps.back(), entry.values.front());
                    }
                    catch (const std::invalid_argument& e)
                    {
                        throw SpecError(sp.where,
                                        "key path '" + sp.key + "' does not fit the base scenario '"
                                            + r.plan.baseFile + "': " + e.what());
                    }
                    total *= entry.values.size();
                    if (total > MAX_POINTS)
                    {
                        throw SpecError(At(f.file, p["values"].Mark()),
                                        "the grid has more than " + std::to_string(MAX_POINTS)
                                            + " points");
                    }
                    r.values.push_back(entry.values);
                    r.plan.parameters.push_back(sp);
                }
            })
            .WhenAbsent([](R& r) { throw SweepNeeds(r.where, "the sweep file", "parameters"); }),
        CustomKey<R>("metrics",
                     "list of mappings (`name`, `path`)",
                     "not empty",
                     "the CSV's columns, read from each point's summary.json (default: the "
                     "collectives' times and bus bandwidths or the training step, docs/sweep.md)",
                     [](const Field& f, R& r) {
                         const YAML::Node& ms = f.value;
                         if (!ms.IsSequence() || ms.size() == 0)
                         {
                             throw SpecError(At(f.file, ms.Mark()),
                                             "'metrics' must be a non-empty list of {name: NAME, "
                                             "path: JSON.PATH}");
                         }
                         for (const YAML::Node& m : ms)
                         {
                             if (!m.IsMap())
                             {
                                 throw SpecError(At(f.file, m.Mark()),
                                                 "a metric must be a mapping {name: NAME, path: "
                                                 "JSON.PATH}");
                             }
                             CheckKeys(m, f.file, "a metric", KeyNames(SweepMetricKeys()));
                             SweepMetricReading entry;
                             entry.file = &r;
                             entry.where = At(f.file, m.Mark());
                             ReadKeys(SweepMetricKeys(), FieldsOf(m, f.file), entry);
                             SweepMetric& sm = entry.metric;
                             if (sm.name.empty())
                             {
                                 sm.name = ColumnName(sm.path);
                             }
                             for (const auto& other : r.plan.metrics)
                             {
                                 if (other.name == sm.name)
                                 {
                                     throw SpecError(sm.where,
                                                     "metric name '" + sm.name
                                                         + "' is used twice (line "
                                                         + std::to_string(other.where.line) + ")");
                                 }
                             }
                             r.plan.metrics.push_back(sm);
                         }
                     })
            .WhenAbsent([](R& r) {
                r.plan.metrics = DefaultSweepMetrics(r.base, r.path);
                r.plan.defaultMetrics = true;
            }),
        CustomKey<R>("seeds",
                     "list of integers",
                     "distinct, each 1 to 4294967295; at most " + std::to_string(MAX_SEEDS),
                     "run every point once per seed and report each metric's mean, min, max "
                     "and 95 % confidence interval over them (default: the base scenario's "
                     "`seeds`, else one run with its `seed`; --seeds N wins)",
                     [](const Field& f, R& r) {
                         r.plan.seeds = ReadSeedList(f);
                         r.seedsWhere = f.KeyWhere();
                         r.plan.seedsFrom = "`seeds:` of the sweep file";
                     }),
        CustomKey<R>(
            "jobs",
            "integer",
            "1 to " + std::to_string(MAX_SWEEP_JOBS),
            "runs at once (points, or points x seeds; default: the number of online cores; "
            "--jobs wins)",
            [](const Field& f, R& r) {
                const YAML::Node& j = f.value;
                const std::string t = j.IsScalar() ? j.Scalar() : "";
                if (t.empty() || t.size() > 4
                    || t.find_first_not_of("0123456789") != std::string::npos || std::stoul(t) < 1
                    || std::stoul(t) > MAX_SWEEP_JOBS)
                {
                    throw SpecError(At(f.file, j.Mark()),
                                    "'jobs' must be an integer from 1 to 1024");
                }
                r.plan.jobs = static_cast<uint32_t>(std::stoul(t));
            }),
    };
    return keys;
}

} // namespace spec

std::vector<SweepMetric>
DefaultSweepMetrics(const ScenarioSpec& base, const std::string& sweepFile)
{
    std::vector<SweepMetric> m;
    const SpecLocation where{sweepFile, 0, 0};
    const auto& cs = base.traffic.collectives;
    for (std::size_t i = 0; i < cs.size(); ++i)
    {
        const std::string c = "collectives[" + std::to_string(i) + "].";
        const std::string n = ColumnName(cs[i].name);
        m.push_back({n + "_duration_s", c + "duration_s", where});
        m.push_back({n + "_busbw_GBps", c + "busbw_GBps", where});
    }
    if (!cs.empty())
    {
        m.push_back({"fct_p99_s", "flows.fct_s.p99", where});
    }
    if (base.traffic.hasTraining)
    {
        const std::string it
            = "training.iterations[" + std::to_string(base.traffic.iterations - 1) + "].";
        m.push_back({"step_s", it + "step_s", where});
        m.push_back({"exposed_comm_share", it + "exposed_comm_share", where});
        m.push_back({"bubble_share", it + "bubble_share", where});
    }
    m.push_back({"sim_time_s", "sim_time_s", where});
    m.push_back({"complete", "complete", where});
    m.push_back({"valid", "valid", where});
    return m;
}

std::vector<std::vector<uint32_t>>
ExpandGrid(const std::vector<uint32_t>& counts)
{
    std::vector<std::vector<uint32_t>> grid;
    if (counts.empty())
    {
        return grid;
    }
    std::size_t total = 1;
    for (const uint32_t c : counts)
    {
        total *= c;
    }
    std::vector<uint32_t> cur(counts.size(), 0);
    for (std::size_t p = 0; p < total; ++p)
    {
        grid.push_back(cur);
        for (std::size_t d = counts.size(); d-- > 0;)
        {
            if (++cur[d] < counts[d])
            {
                break;
            }
            cur[d] = 0;
        }
    }
    return grid;
}

std::string
InlineScenarioYaml(const std::string& scenarioFile)
{
    return Emit(InlineScenario(scenarioFile));
}

std::string
SetYamlKeyPath(const std::string& yaml, const std::string& keyPath, const std::string& valueYaml)
{
    const std::vector<PathStep> steps = ParseKeyPath(keyPath);
    YAML::Node root = YAML::Load(yaml);
    SetPath(root, steps, YAML::Load(valueYaml));
    return Emit(root);
}

std::string
ReadJsonPathValue(const std::string& file, const std::string& path, bool& found)
{
    found = false;
    YAML::Node cur;
    try
    {
        cur = YAML::LoadFile(file);
    }
    catch (const YAML::Exception&)
    {
        return "";
    }
    for (const PathStep& s : ParseKeyPath(path))
    {
        YAML::Node next;
        if (s.isIndex)
        {
            if (!cur.IsSequence() || s.index >= cur.size())
            {
                return "";
            }
            next = cur[s.index];
        }
        else
        {
            if (!cur.IsMap() || !cur[s.key])
            {
                return "";
            }
            next = cur[s.key];
        }
        cur.reset(next);
    }
    found = true;
    return cur.IsScalar() ? cur.Scalar() : "";
}

SweepPlan
ReadSweepFile(const std::string& path, uint32_t seedCount)
{
    const SpecLocation fileOnly{path, 0, 0};
    const YAML::Node root
        = spec::LoadYamlFile(path, "sweep", nullptr, spec::KeyNames(spec::SweepFileKeys()));
    if (!root.IsMap())
    {
        throw SpecError(fileOnly,
                        "the sweep file must be a mapping with 'base' and 'parameters' (and "
                        "optionally name, metrics, jobs)");
    }
    CheckKeys(root, path, "the sweep file", spec::KeyNames(spec::SweepFileKeys()));

    spec::SweepFileReading reading;
    reading.path = path;
    reading.where = At(path, root.Mark());
    reading.plan.file = path;
    spec::ReadKeys(spec::SweepFileKeys(), spec::FieldsOf(root, path), reading);
    SweepPlan& plan = reading.plan;
    const YAML::Node& inlined = reading.inlined;
    const std::vector<std::vector<YAML::Node>>& values = reading.values;
    const std::vector<std::vector<PathStep>>& steps = reading.steps;
    // The seeds: --seeds N, else the sweep file's, else the base scenario's.
    if (seedCount > 0)
    {
        const ScenarioSpec& base = reading.base;
        const uint64_t first = base.seeds.empty() ? base.seed : base.seeds.front();
        if (!ConsecutiveSeeds(first, seedCount, plan.seeds))
        {
            throw SpecError(SpecLocation{plan.baseFile, 0, 0},
                            "--seeds " + std::to_string(seedCount) + " from the base's seed "
                                + std::to_string(first) + " passes 4294967295");
        }
        plan.seedsFrom = "--seeds " + std::to_string(seedCount) + " (from the base's seed "
                         + std::to_string(first) + ")";
    }
    else if (plan.seeds.empty() && !reading.base.seeds.empty())
    {
        plan.seeds = reading.base.seeds;
        plan.seedsFrom = "`seeds:` of the base scenario";
    }
    if (!plan.seeds.empty())
    {
        for (const auto& p : plan.parameters)
        {
            if (p.key == "seed" || p.key == "seeds")
            {
                throw SpecError(p.where,
                                "parameter '" + p.key + "' conflicts with the sweep's seeds ("
                                    + plan.seedsFrom
                                    + "): every point already runs each of them; sweep "
                                      "'seed' without seeds, or drop the parameter");
            }
        }
        // The CSV's columns per metric with seeds.
        for (const auto& m : plan.metrics)
        {
            for (const auto& other : plan.metrics)
            {
                for (const char* suffix : {"_n", "_min", "_max", "_sd", "_ci95"})
                {
                    if (other.name == m.name + suffix)
                    {
                        throw SpecError(other.where,
                                        "metric name '" + other.name + "' is the column of '"
                                            + m.name + "' over seeds");
                    }
                }
            }
            if (m.name == "seeds" || m.name == "seeds_ok" || m.name == "seed")
            {
                throw SpecError(m.where, "metric name '" + m.name + "' is reserved (a CSV column)");
            }
        }
    }
    for (const auto& m : plan.metrics)
    {
        for (const auto& p : plan.parameters)
        {
            if (m.name == p.key)
            {
                throw SpecError(m.where, "metric name '" + m.name + "' is a parameter's key");
            }
        }
        if (m.name == "point" || m.name == "status" || m.name == "exit_code" || m.name == "wall_s")
        {
            throw SpecError(m.where, "metric name '" + m.name + "' is reserved (a CSV column)");
        }
    }

    // The grid: every point's scenario, checked before anything runs.
    std::vector<uint32_t> counts;
    for (const auto& vs : values)
    {
        counts.push_back(static_cast<uint32_t>(vs.size()));
    }
    const TempDir tmp;
    const std::vector<std::vector<uint32_t>> grid = ExpandGrid(counts);
    for (std::size_t i = 0; i < grid.size(); ++i)
    {
        YAML::Node scenario = YAML::Clone(inlined);
        std::string settings;
        for (std::size_t p = 0; p < grid[i].size(); ++p)
        {
            SetPath(scenario, steps[p], values[p][grid[i][p]]);
            settings += (p ? ", " : "") + plan.parameters[p].key + " = "
                        + plan.parameters[p].labels[grid[i][p]];
        }
        SweepPoint point;
        point.index = static_cast<uint32_t>(i);
        point.choice = grid[i];
        point.scenarioYaml = "# Point " + std::to_string(i) + " of sweep '" + plan.name + "' ("
                             + path + "): " + settings + "\n# Base scenario: " + plan.baseFile
                             + " (topology and traffic inlined)\n" + Emit(scenario);
        std::string problem;
        if (!ScenarioIsValid(point.scenarioYaml, tmp.path, problem))
        {
            // Blame the one value that breaks the base on its own, if there is one.
            SpecLocation where = plan.parameters.front().valueWhere[grid[i][0]];
            std::string blame = "the combination of values";
            for (std::size_t p = 0; p < grid[i].size(); ++p)
            {
                YAML::Node alone = YAML::Clone(inlined);
                SetPath(alone, steps[p], values[p][grid[i][p]]);
                std::string ignored;
                if (!ScenarioIsValid(Emit(alone), tmp.path, ignored))
                {
                    where = plan.parameters[p].valueWhere[grid[i][p]];
                    blame = "the value '" + plan.parameters[p].labels[grid[i][p]] + "' of '"
                            + plan.parameters[p].key + "'";
                    break;
                }
            }
            throw SpecError(where,
                            "point " + std::to_string(i) + " (" + settings + "): " + blame
                                + " makes the base scenario '" + plan.baseFile
                                + "' invalid: " + problem);
        }
        plan.points.push_back(point);
    }
    return plan;
}

std::vector<SweepPointResult>
RunSweepPoints(const SweepPlan& plan, const std::string& outDir, const SweepRunOptions& options)
{
    const std::size_t n = plan.points.size();
    std::vector<SweepPointResult> results(n);
    std::vector<std::string> dirs(n);
    {
        // An earlier sweep's points (the caller holds the directory's lock): a point that
        // fails now must not show the results it had then.
        std::error_code ec;
        fs::remove_all(fs::path(outDir) / "points", ec);
        if (ec)
        {
            throw std::runtime_error("cannot clear '" + outDir + "/points': " + ec.message());
        }
    }
    // One child per point, or per point and seed (point-major, seeds in order).
    const bool withSeeds = !plan.seeds.empty();
    const std::size_t perPoint = withSeeds ? plan.seeds.size() : 1;
    std::vector<ChildJob> children;
    std::vector<std::string> runDirs;
    for (std::size_t i = 0; i < n; ++i)
    {
        dirs[i] = (fs::path(outDir) / "points" / PointDirName(i, n)).string();
        std::error_code ec;
        fs::create_directories(dirs[i], ec);
        if (ec)
        {
            throw std::runtime_error("cannot create directory '" + dirs[i] + "': " + ec.message());
        }
        const std::string scenario = plan.points[i].scenarioYaml;
        WriteFileAtomically(dirs[i] + "/scenario.yaml", [&](std::ostream& os) { os << scenario; });
        for (std::size_t k = 0; k < perPoint; ++k)
        {
            ChildJob job;
            job.args = {options.executable, "run", dirs[i] + "/scenario.yaml"};
            std::string dir = dirs[i];
            if (withSeeds)
            {
                dir = (fs::path(dirs[i]) / "seeds" / std::to_string(plan.seeds[k])).string();
                fs::create_directories(dir, ec);
                if (ec)
                {
                    throw std::runtime_error("cannot create directory '" + dir
                                             + "': " + ec.message());
                }
                job.args.emplace_back("--seed");
                job.args.push_back(std::to_string(plan.seeds[k]));
            }
            job.args.emplace_back("--out");
            job.args.push_back(dir);
            job.args.emplace_back("--quiet");
            job.logPath = dir + "/run.log";
            children.push_back(job);
            runDirs.push_back(dir);
        }
    }

    std::size_t finished = 0;
    const auto onFinish = [&](std::size_t c, const ChildOutcome& o) {
        ++finished;
        if (!options.progress)
        {
            return;
        }
        const std::size_t i = c / perPoint;
        std::string settings;
        for (std::size_t p = 0; p < plan.parameters.size(); ++p)
        {
            settings += (p ? ", " : "") + plan.parameters[p].key + "="
                        + plan.parameters[p].labels[plan.points[i].choice[p]];
        }
        std::ostringstream line;
        line << "[sweep] " << finished << "/" << children.size() << " point " << PointDirName(i, n);
        if (withSeeds)
        {
            line << " seed " << plan.seeds[c % perPoint];
        }
        line << " " << o.status << " in " << std::fixed << std::setprecision(2) << o.wallS << " s ("
             << settings << ")";
        if (o.exitCode != 0)
        {
            line << "; see " << runDirs[c] << "/run.log";
        }
        *options.progress << line.str() << "\n" << std::flush;
    };
    const std::vector<ChildOutcome> outcomes = RunChildProcesses(children,
                                                                 options.jobs,
                                                                 options.interrupt,
                                                                 onFinish,
                                                                 options.maxRunning);

    for (std::size_t i = 0; i < n; ++i)
    {
        SweepPointResult& r = results[i];
        if (!withSeeds)
        {
            const ChildOutcome& o = outcomes[i];
            r.status = o.status;
            r.exitCode = o.exitCode;
            r.wallS = o.wallS;
            if (!o.started)
            {
                r.metricValues.assign(plan.metrics.size(), "");
                r.metricFound.assign(plan.metrics.size(), false);
                continue;
            }
            SeedRunResult run;
            ReadSeedMetrics(dirs[i] + "/summary.json", plan.metrics, run);
            r.metricValues = run.values;
            r.metricFound = run.found;
            continue;
        }
        r.status = "ok";
        r.exitCode = 0;
        for (std::size_t k = 0; k < perPoint; ++k)
        {
            const std::size_t c = i * perPoint + k;
            SeedRunResult run;
            run.seed = plan.seeds[k];
            run.exitCode = outcomes[c].exitCode;
            run.status = outcomes[c].status;
            run.wallS = outcomes[c].wallS;
            ReadSeedMetrics(runDirs[c] + "/summary.json", plan.metrics, run);
            r.wallS += run.wallS;
            if (run.exitCode != 0 && r.exitCode == 0)
            {
                r.status = run.status;
                r.exitCode = run.exitCode;
            }
            r.seedRuns.push_back(run);
        }
        r.metricFound.assign(plan.metrics.size(), false);
        for (std::size_t m = 0; m < plan.metrics.size(); ++m)
        {
            for (const auto& run : r.seedRuns)
            {
                r.metricFound[m] = r.metricFound[m] || run.found[m];
            }
            const SampleStatistics st = MetricStatistics(r.seedRuns, m);
            r.metricValues.push_back(st.n > 0 ? NumberText(st.mean) : "");
        }
        SeedAggregateInfo info;
        info.title = plan.name + " point " + PointDirName(i, n);
        info.scenarioFile = dirs[i] + "/scenario.yaml";
        info.runCommand
            = "ai-fabric run " + info.scenarioFile + " --seed SEED --out DIR/seeds/SEED --quiet";
        WriteSeedAggregate(dirs[i], info, plan.metrics, r.seedRuns);
    }
    return results;
}

void
WriteSweepCsv(const SweepPlan& plan,
              const std::vector<SweepPointResult>& results,
              const std::string& outDir)
{
    WriteFileAtomically(outDir + "/sweep-points.csv", [&](std::ostream& os) {
        os << "point";
        for (const auto& p : plan.parameters)
        {
            os << ',' << CsvField(p.key);
        }
        const bool withSeeds = !plan.seeds.empty();
        for (const auto& m : plan.metrics)
        {
            os << ',' << CsvField(m.name);
            if (withSeeds)
            {
                for (const char* suffix : {"_n", "_min", "_max", "_sd", "_ci95"})
                {
                    os << ',' << CsvField(m.name + suffix);
                }
            }
        }
        os << (withSeeds ? ",seeds,seeds_ok" : "") << ",status,exit_code,wall_s\n";
        for (std::size_t i = 0; i < plan.points.size(); ++i)
        {
            const SweepPointResult& r = results[i];
            os << i;
            for (std::size_t p = 0; p < plan.parameters.size(); ++p)
            {
                os << ',' << CsvField(plan.parameters[p].labels[plan.points[i].choice[p]]);
            }
            for (std::size_t m = 0; m < plan.metrics.size(); ++m)
            {
                os << ',' << CsvField(m < r.metricValues.size() ? r.metricValues[m] : "");
                if (withSeeds)
                {
                    const SampleStatistics st = MetricStatistics(r.seedRuns, m);
                    os << ',' << st.n << ',' << NumberText(st.min) << ',' << NumberText(st.max)
                       << ',' << (st.n >= 2 ? NumberText(st.stddev) : "") << ','
                       << NumberText(st.ciHalfWidth);
                }
            }
            if (withSeeds)
            {
                os << ',' << r.seedRuns.size() << ',' << SeedsOk(r.seedRuns);
            }
            char wall[32];
            std::snprintf(wall, sizeof wall, "%.3f", r.wallS);
            os << ',' << r.status << ',' << r.exitCode << ',' << wall << '\n';
        }
    });
    if (!plan.seeds.empty())
    {
        WriteFileAtomically(outDir + "/sweep-seeds.csv", [&](std::ostream& os) {
            os << "point";
            for (const auto& p : plan.parameters)
            {
                os << ',' << CsvField(p.key);
            }
            os << ",seed";
            for (const auto& m : plan.metrics)
            {
                os << ',' << CsvField(m.name);
            }
            os << ",status,exit_code,wall_s\n";
            for (std::size_t i = 0; i < plan.points.size(); ++i)
            {
                for (const SeedRunResult& run : results[i].seedRuns)
                {
                    os << i;
                    for (std::size_t p = 0; p < plan.parameters.size(); ++p)
                    {
                        os << ',' << CsvField(plan.parameters[p].labels[plan.points[i].choice[p]]);
                    }
                    os << ',' << run.seed;
                    for (std::size_t m = 0; m < plan.metrics.size(); ++m)
                    {
                        os << ',' << CsvField(m < run.values.size() ? run.values[m] : "");
                    }
                    char wall[32];
                    std::snprintf(wall, sizeof wall, "%.3f", run.wallS);
                    os << ',' << run.status << ',' << run.exitCode << ',' << wall << '\n';
                }
            }
        });
    }
    else
    {
        std::error_code ec;
        fs::remove(fs::path(outDir) / "sweep-seeds.csv", ec);
    }
    WriteFileAtomically(outDir + "/sweep.json", [&](std::ostream& os) {
        JsonWriter w(os);
        w.BeginObject();
        w.Key("sweep").String(plan.name);
        w.Key("sweep_file").String(plan.file);
        w.Key("base").String(plan.baseFile);
        w.Key("points").Uint(plan.points.size());
        w.Key("csv").String("sweep-points.csv");
        if (!plan.seeds.empty())
        {
            w.Key("seeds").BeginArray();
            for (const uint32_t seed : plan.seeds)
            {
                w.Uint(seed);
            }
            w.EndArray();
            w.Key("seeds_csv").String("sweep-seeds.csv");
        }
        w.Key("parameters").BeginArray();
        for (const auto& p : plan.parameters)
        {
            w.BeginObject();
            w.Key("key").String(p.key);
            w.Key("values").BeginArray();
            for (const auto& l : p.labels)
            {
                w.String(l);
            }
            w.EndArray();
            w.EndObject();
        }
        w.EndArray();
        w.Key("metrics").BeginArray();
        for (const auto& m : plan.metrics)
        {
            w.BeginObject();
            w.Key("name").String(m.name);
            w.Key("path").String(m.path);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
        os << '\n';
    });
}

void
WriteSweepReport(const SweepPlan& plan,
                 const std::vector<SweepPointResult>& results,
                 const std::string& outDir)
{
    const std::size_t n = plan.points.size();
    const SweepParameter& first = plan.parameters.front();
    WriteFileAtomically(outDir + "/report.md", [&](std::ostream& os) {
        os << "# Sweep " << plan.name << "\n\n";
        os << "Sweep file `" << plan.file << "`, base scenario `" << plan.baseFile << "`, " << n
           << " points (the grid of";
        for (const auto& p : plan.parameters)
        {
            os << " `" << p.key << "` x " << p.values.size() << ";";
        }
        os << " first parameter slowest). Each point ran as its own `ai-fabric run` in "
              "`points/NNN/` (scenario.yaml, summary.json, run.log, ...); the table is "
              "`sweep-points.csv`.\n\n";
        const bool withSeeds = !plan.seeds.empty();
        if (withSeeds)
        {
            os << "Every point ran once per seed (" << plan.seeds.size() << " seeds from "
               << plan.seedsFrom << ":";
            for (std::size_t k = 0; k < plan.seeds.size(); ++k)
            {
                os << (k ? ", " : " ") << plan.seeds[k];
            }
            os << "), each in `points/NNN/seeds/SEED/`, with the point's statistics in "
                  "`points/NNN/seeds.json`; a value below is the mean over the seeds that "
                  "finished ok, +- the half-width of its 95 % confidence interval (Student's "
                  "t); the values per seed are `sweep-seeds.csv`.\n\n";
        }

        std::size_t failed = 0;
        for (const auto& r : results)
        {
            failed += r.exitCode != 0;
        }
        if (failed > 0)
        {
            os << "**" << failed << " of " << n
               << " points did not finish with status ok** (see their run.log); their "
                  "metrics are left out of the comparison below.\n\n";
        }

        // The table of every point.
        os << "## Points\n\n| point |";
        for (const auto& p : plan.parameters)
        {
            os << " " << p.key << " |";
        }
        for (const auto& m : plan.metrics)
        {
            os << " " << m.name << " |";
        }
        os << (withSeeds ? " seeds ok |" : "") << " status |\n|---|";
        for (std::size_t c = 0;
             c < plan.parameters.size() + plan.metrics.size() + 1 + (withSeeds ? 1 : 0);
             ++c)
        {
            os << "---|";
        }
        os << "\n";
        for (std::size_t i = 0; i < n; ++i)
        {
            os << "| " << i << " |";
            for (std::size_t p = 0; p < plan.parameters.size(); ++p)
            {
                os << " " << plan.parameters[p].labels[plan.points[i].choice[p]] << " |";
            }
            for (std::size_t m = 0; m < results[i].metricValues.size(); ++m)
            {
                const std::string& v = results[i].metricValues[m];
                double x = 0;
                os << " " << (ParseNumber(v, x) ? FormatMetricValue(plan.metrics[m], x) : v);
                if (withSeeds)
                {
                    const SampleStatistics st = MetricStatistics(results[i].seedRuns, m);
                    if (std::isfinite(st.ciHalfWidth))
                    {
                        os << " +-" << FormatMetricValue(plan.metrics[m], st.ciHalfWidth);
                    }
                }
                os << " |";
            }
            if (withSeeds)
            {
                os << " " << SeedsOk(results[i].seedRuns) << "/" << results[i].seedRuns.size()
                   << " |";
            }
            os << " " << results[i].status << " |\n";
        }

        // Per metric: the change against the first parameter, per combination of the others;
        // with seeds, a warning for each difference within the seed-to-seed spread.
        std::ostringstream body;
        std::size_t warnings = 0;
        std::size_t compared = 0; // pairs of points compared over seeds
        body << "\n## Against `" << first.key << "`\n\n"
             << "Each metric at every value of `" << first.key
             << "`, with its ratio to the value at `" << first.labels.front()
             << "` (the first listed), for each combination of the other parameters.\n";
        std::map<std::vector<uint32_t>, std::vector<int>> groups; // others -> point per value
        std::vector<std::vector<uint32_t>> order;
        for (std::size_t i = 0; i < n; ++i)
        {
            const auto& choice = plan.points[i].choice;
            const std::vector<uint32_t> others(choice.begin() + 1, choice.end());
            auto [it, inserted] = groups.emplace(others, std::vector<int>(first.values.size(), -1));
            if (inserted)
            {
                order.push_back(others);
            }
            it->second[choice[0]] = static_cast<int>(i);
        }
        for (std::size_t m = 0; m < plan.metrics.size(); ++m)
        {
            bool numeric = false;
            bool anyFound = false;
            for (std::size_t i = 0; i < n; ++i)
            {
                double x = 0;
                numeric
                    = numeric
                      || (results[i].exitCode == 0 && ParseNumber(results[i].metricValues[m], x));
                anyFound = anyFound || results[i].metricFound[m];
            }
            body << "\n### " << plan.metrics[m].name << " (`" << plan.metrics[m].path << "`)\n\n";
            if (!anyFound)
            {
                body << "Not found in any point's summary.json: check the path against "
                        "docs/results-format.md.\n";
                continue;
            }
            if (!numeric)
            {
                body << "Not a number; see the table above.\n";
                continue;
            }
            body << "|";
            for (std::size_t p = 1; p < plan.parameters.size(); ++p)
            {
                body << " " << plan.parameters[p].key << " |";
            }
            for (const auto& l : first.labels)
            {
                body << " " << first.key << " = " << l << " |";
            }
            body << "\n|";
            for (std::size_t c = 1; c < plan.parameters.size() + first.values.size(); ++c)
            {
                body << "---|";
            }
            body << "\n";
            // Per value of the first parameter: the range of ratios over the groups.
            std::vector<double> lo(first.values.size(), INFINITY);
            std::vector<double> hi(first.values.size(), -INFINITY);
            for (const auto& others : order)
            {
                const std::vector<int>& pts = groups[others];
                body << "|";
                for (std::size_t p = 1; p < plan.parameters.size(); ++p)
                {
                    body << " " << plan.parameters[p].labels[others[p - 1]] << " |";
                }
                double ref = NAN;
                const int p0 = pts[0];
                if (p0 >= 0 && results[p0].exitCode == 0)
                {
                    ParseNumber(results[p0].metricValues[m], ref);
                }
                for (std::size_t v = 0; v < pts.size(); ++v)
                {
                    double x = 0;
                    if (pts[v] < 0 || results[pts[v]].exitCode != 0
                        || !ParseNumber(results[pts[v]].metricValues[m], x))
                    {
                        body << " - |";
                        continue;
                    }
                    body << " " << FormatMetricValue(plan.metrics[m], x);
                    if (v > 0 && std::isfinite(ref) && ref != 0)
                    {
                        const double ratio = x / ref;
                        body << " (x" << std::fixed << std::setprecision(3) << ratio
                             << std::defaultfloat << ")";
                        lo[v] = std::min(lo[v], ratio);
                        hi[v] = std::max(hi[v], ratio);
                    }
                    body << " |";
                }
                body << "\n";
            }
            body << "\n";
            for (std::size_t v = 1; v < first.values.size(); ++v)
            {
                if (!std::isfinite(lo[v]))
                {
                    continue;
                }
                std::ostringstream r;
                r << std::fixed << std::setprecision(3) << "x" << lo[v];
                if (hi[v] - lo[v] > 5e-4)
                {
                    r << " to x" << hi[v];
                }
                body << "* `" << first.key << " = " << first.labels[v] << "` vs `"
                     << first.labels.front() << "`: " << plan.metrics[m].name << " " << r.str();
                if (plan.parameters.size() > 1)
                {
                    body << " (over " << order.size() << " combinations of the other parameters)";
                }
                body << "\n";
            }
            for (const auto& others : order)
            {
                const std::vector<int>& pts = groups[others];
                for (std::size_t v = 1; withSeeds && v < pts.size(); ++v)
                {
                    if (pts[0] < 0 || pts[v] < 0 || results[pts[0]].exitCode != 0
                        || results[pts[v]].exitCode != 0)
                    {
                        continue;
                    }
                    ++compared;
                    const SeedSpreadVerdict verdict
                        = CompareOverSeeds(results[pts[0]].seedRuns, results[pts[v]].seedRuns, m);
                    if (!verdict.withinSpread)
                    {
                        continue;
                    }
                    ++warnings;
                    body << "* warning: `" << first.key << " = " << first.labels[v] << "` vs `"
                         << first.labels.front() << "`";
                    if (plan.parameters.size() > 1)
                    {
                        body << " (";
                        for (std::size_t p = 1; p < plan.parameters.size(); ++p)
                        {
                            body << (p > 1 ? ", " : "") << plan.parameters[p].key << " = "
                                 << plan.parameters[p].labels[others[p - 1]];
                        }
                        body << ")";
                    }
                    body << ": the difference in " << plan.metrics[m].name << " (mean "
                         << FormatMetricValue(plan.metrics[m], verdict.b.mean) << " vs "
                         << FormatMetricValue(plan.metrics[m], verdict.a.mean);
                    if (verdict.a.mean != 0)
                    {
                        body << ", x" << std::fixed << std::setprecision(3)
                             << verdict.b.mean / verdict.a.mean << std::defaultfloat;
                    }
                    body << ") is within the seed-to-seed spread:";
                    if (verdict.cisOverlap)
                    {
                        body << " the 95 % confidence intervals (+-"
                             << FormatMetricValue(plan.metrics[m], verdict.b.ciHalfWidth)
                             << " and +-"
                             << FormatMetricValue(plan.metrics[m], verdict.a.ciHalfWidth)
                             << ") overlap";
                    }
                    if (!verdict.reversedBy.empty())
                    {
                        body << (verdict.cisOverlap ? ";" : "") << " with seed"
                             << (verdict.reversedBy.size() > 1 ? "s" : "");
                        for (std::size_t k = 0; k < verdict.reversedBy.size(); ++k)
                        {
                            body << (k ? ", " : " ") << verdict.reversedBy[k];
                        }
                        body << " the order is the opposite of the means'";
                    }
                    body << "\n";
                }
            }
        }

        if (withSeeds)
        {
            os << "\n"
               << (compared == 0 ? "No difference is compared over seeds: `" + first.key
                                       + "` has one value, or no two of its points finished.\n"
                   : warnings == 0
                       ? "No compared difference is within the seed-to-seed spread: every "
                         "difference of means below exceeds the two 95 % confidence intervals "
                         "and no seed reverses it.\n"
                       : "**" + std::to_string(warnings)
                             + " compared difference(s) are within the seed-to-seed spread** "
                               "(the 95 % confidence intervals of the two means overlap, or "
                               "some seed orders the two points the other way): see the "
                               "warnings below; more seeds narrow the intervals.\n");
        }
        os << body.str();

        // Plots, if scripts/plot-results drew them.
        std::vector<std::string> pngs;
        std::error_code ec;
        if (fs::is_directory(outDir + "/plots", ec))
        {
            for (const auto& e : fs::directory_iterator(outDir + "/plots", ec))
            {
                if (e.path().extension() == ".png")
                {
                    pngs.push_back(e.path().filename().string());
                }
            }
        }
        std::sort(pngs.begin(), pngs.end());
        if (!pngs.empty())
        {
            os << "\n## Plots\n\n";
            for (const auto& p : pngs)
            {
                os << "![" << p << "](plots/" << p << ")\n";
            }
        }
    });
}

} // namespace ns3
