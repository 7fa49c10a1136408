/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "seed-statistics.h"

#include "atomic-file.h"
#include "json-writer.h"
#include "results-writer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{

/// t(0.975, dof) for dof = 1..30 (standard tables, 4 decimals).
constexpr double T975[30]
    = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
       2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
       2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};

/// \return \p v with 4 significant digits
std::string
Short(double v)
{
    std::ostringstream s;
    s << std::setprecision(4) << v;
    return s.str();
}

/// \return whether \p name ends with \p suffix
bool
EndsWith(const std::string& name, const std::string& suffix)
{
    return name.size() >= suffix.size()
           && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// \return the seeds that did not finish ok, as "seed 5 (incomplete), seed 7 (bad-input)"
std::string
FailedSeeds(const std::vector<SeedRunResult>& runs)
{
    std::string s;
    for (const auto& r : runs)
    {
        if (r.exitCode != 0)
        {
            s += (s.empty() ? "" : ", ") + std::string("seed ") + std::to_string(r.seed) + " ("
                 + r.status + ")";
        }
    }
    return s;
}

} // namespace

double
StudentT975(uint32_t dof)
{
    if (dof == 0)
    {
        return NAN;
    }
    if (dof <= 30)
    {
        return T975[dof - 1];
    }
    // Cornish-Fisher expansion of t's quantile in powers of 1/dof around the normal's
    // (Abramowitz and Stegun 26.7.5); at dof = 30 it gives 2.04227, the exact 2.042272.
    const double z = 1.959963984540054;
    const double z2 = z * z;
    const double g1 = (z2 + 1) * z / 4;
    const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
    const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
    const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
    const double v = dof;
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

SampleStatistics
Summarize(const std::vector<double>& values)
{
    SampleStatistics s;
    s.n = static_cast<uint32_t>(values.size());
    if (values.empty())
    {
        s.mean = s.min = s.max = s.stddev = s.ciHalfWidth = NAN;
        return s;
    }
    double sum = 0;
    s.min = values.front();
    s.max = values.front();
    for (const double v : values)
    {
        sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    s.mean = sum / s.n;
    if (s.n < 2)
    {
        s.stddev = 0;
        s.ciHalfWidth = NAN;
        return s;
    }
    double squares = 0;
    for (const double v : values)
    {
        squares += (v - s.mean) * (v - s.mean);
    }
    s.stddev = std::sqrt(squares / (s.n - 1));
    s.ciHalfWidth = StudentT975(s.n - 1) * s.stddev / std::sqrt(static_cast<double>(s.n));
    return s;
}

bool
MetricNumber(const std::string& text, double& value)
{
    if (text == "true" || text == "false")
    {
        value = text == "true" ? 1 : 0;
        return true;
    }
    if (text.empty())
    {
        return false;
    }
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end && *end == '\0' && std::isfinite(value);
}

SampleStatistics
MetricStatistics(const std::vector<SeedRunResult>& runs, std::size_t m)
{
    std::vector<double> values;
    for (const auto& r : runs)
    {
        double x = 0;
        if (r.exitCode == 0 && m < r.values.size() && MetricNumber(r.values[m], x))
        {
            values.push_back(x);
        }
    }
    return Summarize(values);
}

std::size_t
SeedsOk(const std::vector<SeedRunResult>& runs)
{
    return static_cast<std::size_t>(
        std::count_if(runs.begin(), runs.end(), [](const auto& r) { return r.exitCode == 0; }));
}

SeedSpreadVerdict
CompareOverSeeds(const std::vector<SeedRunResult>& a,
                 const std::vector<SeedRunResult>& b,
                 std::size_t m)
{
    SeedSpreadVerdict v;
    v.a = MetricStatistics(a, m);
    v.b = MetricStatistics(b, m);
    if (v.a.n == 0 || v.b.n == 0)
    {
        return v;
    }
    const double diff = v.b.mean - v.a.mean;
    if (std::isfinite(v.a.ciHalfWidth) && std::isfinite(v.b.ciHalfWidth))
    {
        const double spread = v.a.ciHalfWidth + v.b.ciHalfWidth;
        v.cisOverlap = spread > 0 && std::fabs(diff) <= spread;
    }
    if (diff != 0)
    {
        for (const auto& ra : a)
        {
            for (const auto& rb : b)
            {
                double xa = 0;
                double xb = 0;
                if (ra.seed == rb.seed && ra.exitCode == 0 && rb.exitCode == 0
                    && m < ra.values.size() && m < rb.values.size()
                    && MetricNumber(ra.values[m], xa) && MetricNumber(rb.values[m], xb)
                    && (xb - xa) * diff < 0)
                {
                    v.reversedBy.push_back(ra.seed);
                }
            }
        }
    }
    v.withinSpread = v.cisOverlap || !v.reversedBy.empty();
    return v;
}

std::string
FormatMetricValue(const std::string& name, double value)
{
    if (!std::isfinite(value))
    {
        return "-";
    }
    if (EndsWith(name, "_s"))
    {
        const double a = std::fabs(value);
        if (a == 0 || a >= 1)
        {
            return Short(value) + " s";
        }
        if (a >= 1e-3)
        {
            return Short(value * 1e3) + " ms";
        }
        if (a >= 1e-6)
        {
            return Short(value * 1e6) + " us";
        }
        return Short(value * 1e9) + " ns";
    }
    if (EndsWith(name, "_GBps"))
    {
        return Short(value) + " GB/s";
    }
    if (EndsWith(name, "_Gbps"))
    {
        return Short(value) + " Gb/s";
    }
    return Short(value);
}

std::string
FormatMetricValue(const ResultMetric& metric, double value)
{
    for (const char* unit : {"_s", "_GBps", "_Gbps"})
    {
        if (EndsWith(metric.name, unit))
        {
            return FormatMetricValue(metric.name, value);
        }
    }
    // The path's last key, without its indices: collectives[0].duration_s -> duration_s.
    std::string key = metric.path.substr(metric.path.rfind('.') + 1);
    key = key.substr(0, key.find('['));
    return FormatMetricValue(key, value);
}

std::string
SeedSummaryText(const std::vector<ResultMetric>& metrics, const std::vector<SeedRunResult>& runs)
{
    std::ostringstream os;
    for (std::size_t m = 0; m < metrics.size(); ++m)
    {
        const SampleStatistics s = MetricStatistics(runs, m);
        if (s.n == 0)
        {
            continue;
        }
        const std::string& name = metrics[m].name;
        os << name << " " << FormatMetricValue(metrics[m], s.mean) << " (mean of " << s.n << " seed"
           << (s.n == 1 ? "" : "s") << ", min " << FormatMetricValue(metrics[m], s.min) << ", max "
           << FormatMetricValue(metrics[m], s.max);
        if (std::isfinite(s.ciHalfWidth))
        {
            os << ", 95 % CI +-" << FormatMetricValue(metrics[m], s.ciHalfWidth);
        }
        else
        {
            os << ", no confidence interval from one seed";
        }
        os << ")\n";
    }
    for (const auto& r : runs)
    {
        if (r.exitCode != 0)
        {
            os << "seed " << r.seed << ": " << r.status << "; left out of the statistics above\n";
        }
    }
    return os.str();
}

std::vector<std::string>
WriteSeedAggregate(const std::string& dir,
                   const SeedAggregateInfo& info,
                   const std::vector<ResultMetric>& metrics,
                   const std::vector<SeedRunResult>& runs)
{
    // seeds.json marks a complete set: removed first, written last.
    std::error_code ec;
    std::filesystem::remove(dir + "/seeds.json", ec);
    const std::size_t ok = SeedsOk(runs);
    std::vector<SampleStatistics> stats;
    for (std::size_t m = 0; m < metrics.size(); ++m)
    {
        stats.push_back(MetricStatistics(runs, m));
    }

    WriteFileAtomically(dir + "/seeds.csv", [&](std::ostream& os) {
        os << "seed";
        for (const auto& m : metrics)
        {
            os << ',' << CsvField(m.name);
        }
        os << ",status,exit_code\n";
        for (const auto& r : runs)
        {
            os << r.seed;
            for (std::size_t m = 0; m < metrics.size(); ++m)
            {
                os << ',' << CsvField(m < r.values.size() ? r.values[m] : "");
            }
            os << ',' << r.status << ',' << r.exitCode << '\n';
        }
    });

    WriteFileAtomically(dir + "/report.md", [&](std::ostream& os) {
        os << "# " << info.title << " over " << runs.size() << " seed"
           << (runs.size() == 1 ? "" : "s") << "\n\n";
        os << "Scenario `" << info.scenarioFile << "`, seeds";
        for (const auto& r : runs)
        {
            os << (&r == runs.data() ? " " : ", ") << r.seed;
        }
        os << ". Each seed ran as `" << info.runCommand
           << "`, its full results in `seeds/SEED/`; the values per seed are `seeds.csv`, the "
              "statistics `seeds.json`.\n\n";
        if (ok < runs.size())
        {
            os << "**" << runs.size() - ok << " of " << runs.size()
               << " seeds did not finish with status ok** (" << FailedSeeds(runs)
               << "; see `seeds/SEED/run.log`); they are left out of the statistics.\n\n";
        }
        os << "## Statistics over the seeds\n\n"
              "Mean, min, max and sample standard deviation over the seeds that finished ok; "
              "the 95 % confidence interval of the mean is Student's t interval "
              "(mean +- t(0.975, n-1) x sd / sqrt(n)); none from a single seed. A boolean "
              "counts as 1 (true) or 0 (false).\n\n"
              "| metric | n | mean | min | max | sd | 95 % CI of the mean |\n"
              "|---|---|---|---|---|---|---|\n";
        for (std::size_t m = 0; m < metrics.size(); ++m)
        {
            const SampleStatistics& s = stats[m];
            const std::string& name = metrics[m].name;
            os << "| " << name << " | " << s.n << " | ";
            if (s.n == 0)
            {
                os << "- | - | - | - | - |\n";
                continue;
            }
            os << FormatMetricValue(metrics[m], s.mean) << " | "
               << FormatMetricValue(metrics[m], s.min) << " | "
               << FormatMetricValue(metrics[m], s.max) << " | "
               << (s.n > 1 ? FormatMetricValue(metrics[m], s.stddev) : std::string("-")) << " | ";
            if (std::isfinite(s.ciHalfWidth))
            {
                os << "+-" << FormatMetricValue(metrics[m], s.ciHalfWidth) << " ("
                   << FormatMetricValue(metrics[m], s.mean - s.ciHalfWidth) << " to "
                   << FormatMetricValue(metrics[m], s.mean + s.ciHalfWidth) << ")";
            }
            else
            {
                os << "-";
            }
            os << " |\n";
        }
        os << "\n## Per seed\n\n| seed |";
        for (const auto& m : metrics)
        {
            os << " " << m.name << " |";
        }
        os << " status |\n|---|";
        for (std::size_t c = 0; c <= metrics.size(); ++c)
        {
            os << "---|";
        }
        os << "\n";
        for (const auto& r : runs)
        {
            os << "| " << r.seed << " |";
            for (std::size_t m = 0; m < metrics.size(); ++m)
            {
                const std::string v = m < r.values.size() ? r.values[m] : "";
                double x = 0;
                os << " "
                   << (v == "true" || v == "false" || !MetricNumber(v, x)
                           ? (v.empty() ? "-" : v)
                           : FormatMetricValue(metrics[m].name, x))
                   << " |";
            }
            os << " " << r.status << " |\n";
        }
    });

    WriteFileAtomically(dir + "/seeds.json", [&](std::ostream& os) {
        JsonWriter w(os);
        w.BeginObject();
        w.Key("schema_version").Uint(1);
        w.Key("scenario").String(info.title);
        w.Key("scenario_file").String(info.scenarioFile);
        w.Key("seeds").BeginArray();
        for (const auto& r : runs)
        {
            w.Uint(r.seed);
        }
        w.EndArray();
        w.Key("seeds_ok").Uint(ok);
        w.Key("complete").Bool(ok == runs.size());
        w.Key("failed").BeginArray();
        for (const auto& r : runs)
        {
            if (r.exitCode != 0)
            {
                w.BeginObject();
                w.Key("seed").Uint(r.seed);
                w.Key("status").String(r.status);
                w.Key("exit_code").Int(r.exitCode);
                w.EndObject();
            }
        }
        w.EndArray();
        w.Key("confidence").Double(0.95);
        w.Key("metrics").BeginArray();
        for (std::size_t m = 0; m < metrics.size(); ++m)
        {
            const SampleStatistics& s = stats[m];
            w.BeginObject();
            w.Key("name").String(metrics[m].name);
            w.Key("path").String(metrics[m].path);
            w.Key("n").Uint(s.n);
            w.Key("mean").Double(s.mean);
            w.Key("min").Double(s.min);
            w.Key("max").Double(s.max);
            w.Key("stddev").Double(s.n == 0 ? NAN : s.stddev);
            w.Key("ci95_half_width").Double(s.ciHalfWidth);
            w.Key("ci95_low").Double(s.mean - s.ciHalfWidth);
            w.Key("ci95_high").Double(s.mean + s.ciHalfWidth);
            w.Key("values").BeginArray();
            for (const auto& r : runs)
            {
                double x = 0;
                if (r.exitCode == 0 && m < r.values.size() && MetricNumber(r.values[m], x))
                {
                    w.Double(x);
                }
                else
                {
                    w.Null();
                }
            }
            w.EndArray();
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
        os << '\n';
    });
    return {"seeds.json", "seeds.csv", "report.md"};
}

} // namespace ns3
