/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tests-writer.h"

#include "json-writer.h"

#include <cmath>
#include <cstdio>

namespace ns3
{

namespace
{

/// JSON file version nccl-tests 2.19 writes (src/util.cu, JSON_FILE_VERSION).
constexpr int NCCL_TESTS_JSON_VERSION = 3;

/// \return printf of one value into a string
template<typename... Args>
std::string
Format(const char* format, Args... args)
{
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, format, args...);
    return buffer;
}

} // namespace

std::string
NcclTestsNumber(double value, int width)
{
    for (const char* format : {"%*.2f", "%*.1f", "%*.0f"})
    {
        std::string s = Format(format, width, value);
        if (static_cast<int>(s.size()) <= width)
        {
            return s;
        }
    }
    return Format(width >= 7 ? "%*.1e" : "%*.0e", width, value);
}

double
NcclTestsAverageBusBw(const NcclTestsReport& r)
{
    double sum = 0;
    for (const SweepRow& row : r.rows)
    {
        sum += row.busbwGBps;
    }
    return r.rows.empty() ? 0 : sum / static_cast<double>(r.rows.size());
}

void
PrintNcclTestsTable(const NcclTestsReport& r, std::ostream& os)
{
    os << "# nccl-tests " << r.test << ", simulated by ai-fabric (packet-level, deterministic)\n";
    os << Format(
        "# nThread 1 nGpus %u minBytes %llu maxBytes %llu step: %u(factor) warmup iters: 0 "
        "iters: 1 agg iters: 1 validation: 0 graph: 0\n",
        r.ranks,
        static_cast<unsigned long long>(r.minBytes),
        static_cast<unsigned long long>(r.maxBytes),
        r.factor);
    os << "#\n";
    os << "# Topology: " << r.topology << ", " << r.ranks << " ranks (GPUs 0 to " << r.ranks - 1
       << "), algorithm " << r.algorithm << "\n";
    os << "# One simulated run per size: in-place and out-of-place move the same bytes and take the"
          " same time;\n# #wrong is N/A (no data is moved). Last two columns: the analytic "
          "(alpha-beta) time and sim/analytic.\n";
    os << "#\n";
    os << Format(
        "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place "
        "         \n",
        "",
        "",
        "",
        "",
        "");
    os << Format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s   %9s  %7s\n",
                 "size",
                 "count",
                 "type",
                 "redop",
                 "root",
                 "time",
                 "algbw",
                 "busbw",
                 "#wrong",
                 "time",
                 "algbw",
                 "busbw",
                 "#wrong",
                 "analytic",
                 "sim/anl");
    os << Format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s   %9s  %7s\n",
                 "(B)",
                 "(elements)",
                 "",
                 "",
                 "",
                 "(us)",
                 "(GB/s)",
                 "(GB/s)",
                 "",
                 "(us)",
                 "(GB/s)",
                 "(GB/s)",
                 "",
                 "(us)",
                 "");
    for (const SweepRow& row : r.rows)
    {
        os << Format("%12llu  %12llu  %8s  %6s  %6d",
                     static_cast<unsigned long long>(row.bytes),
                     static_cast<unsigned long long>(row.bytes / r.typeBytes),
                     r.type.c_str(),
                     r.redop.c_str(),
                     r.root);
        for (int place = 0; place < 2; ++place)
        {
            os << "  " << NcclTestsNumber(row.timeUs, 7) << "  "
               << NcclTestsNumber(row.algbwGBps, 6) << "  " << NcclTestsNumber(row.busbwGBps, 6)
               << "    N/A";
        }
        os << "   " << NcclTestsNumber(row.analyticUs, 9) << "  "
           << (std::isfinite(row.simOverAnalytic) ? NcclTestsNumber(row.simOverAnalytic, 7)
                                                  : std::string("    n/a"))
           << (row.complete ? "" : "  INCOMPLETE") << "\n";
    }
    os << Format("# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
    os << Format("# %-20s : %g %s\n", "Avg bus bandwidth", NcclTestsAverageBusBw(r), "");
    os << "#\n";
    os << "# Collective test concluded: " << r.test << "\n";
}

void
WriteNcclTestsJson(const NcclTestsReport& r, std::ostream& os)
{
    JsonWriter w(os);
    w.BeginObject();
    w.Key("version").Int(NCCL_TESTS_JSON_VERSION);
    w.Key("start_time").String(r.startTime);
    w.Key("args").BeginArray();
    for (const std::string& a : r.args)
    {
        w.String(a);
    }
    w.EndArray();
    w.Key("simulator").BeginObject();
    w.Key("name").String("ai-fabric");
    w.Key("topology").String(r.topology);
    w.Key("algorithm").String(r.algorithm);
    w.Key("ranks").Uint(r.ranks);
    w.EndObject();
    w.Key("results").BeginArray();
    for (const SweepRow& row : r.rows)
    {
        w.BeginObject();
        w.Key("size").Uint(row.bytes);
        w.Key("count").Uint(row.bytes / r.typeBytes);
        w.Key("type").String(r.type);
        w.Key("redop").String(r.redop);
        w.Key("root").String(Format("%6d", r.root));
        for (const char* place : {"out_of_place", "in_place"})
        {
            w.Key(place).BeginObject();
            w.Key("time").Double(row.timeUs);
            w.Key("alg_bw").Double(row.algbwGBps);
            w.Key("bus_bw").Double(row.busbwGBps);
            w.Key("nwrong").Null();
            w.EndObject();
        }
        w.Key("actual_iterations").Int(1);
        w.Key("experiment_name").String("");
        w.Key("analytic_time").Double(row.analyticUs);
        if (std::isfinite(row.simOverAnalytic))
        {
            w.Key("sim_over_analytic").Double(row.simOverAnalytic);
        }
        else
        {
            w.Key("sim_over_analytic").Null();
        }
        w.Key("complete").Bool(row.complete);
        w.Key("algorithm").String(row.algorithm);
        w.Key("protocol").String(row.protocol);
        w.EndObject();
    }
    w.EndArray();
    w.Key("out_of_bounds").BeginObject();
    w.Key("count").Int(0);
    w.Key("okay").Bool(true);
    w.EndObject();
    w.Key("average_bus_bandwidth").BeginObject();
    w.Key("bandwidth").Double(NcclTestsAverageBusBw(r));
    w.Key("okay").String("unchecked");
    w.EndObject();
    w.Key("end_time").String(r.endTime);
    w.EndObject();
    os << "\n";
}

} // namespace ns3
