/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "results-writer.h"

#include "fabric-stats.h"
#include "json-writer.h"

#include "ns3/log.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ResultsWriter");

namespace
{

/**
 * \brief Format a double with a fixed number of decimals, locale-independently.
 * \param value the value (finite)
 * \param decimals digits after the point
 * \return the text, e.g. "11.25"
 */
std::string
Fixed(double value, int decimals)
{
    if (!std::isfinite(value))
    {
        return "n/a";
    }
    char buf[400]; // enough for any finite double in fixed notation
    const auto res
        = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed, decimals);
    std::string s(buf, res.ptr);
    if (s.size() > 1 && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos)
    {
        s.erase(0, 1); // "-0.00" -> "0.00"
    }
    return s;
}

/**
 * \brief Human-readable byte count with binary units.
 * \param bytes the count
 * \param compact true for "256MiB" (as in YAML), false for "256 MiB"
 * \return the text, with at most two decimals and no trailing zeros
 */
std::string
HumanBytes(uint64_t bytes, bool compact)
{
    static const char* const UNITS[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    size_t unit = 0;
    double value = static_cast<double>(bytes);
    while (value >= 1024.0 && unit + 1 < sizeof(UNITS) / sizeof(UNITS[0]))
    {
        value /= 1024.0;
        ++unit;
    }
    std::string number = Fixed(value, unit == 0 ? 0 : 2);
    if (number.find('.') != std::string::npos)
    {
        number.erase(number.find_last_not_of('0') + 1);
        if (number.back() == '.')
        {
            number.pop_back();
        }
    }
    return number + (compact ? "" : " ") + UNITS[unit];
}

/**
 * \brief Human-readable duration, two decimals in s, ms, us or ns.
 * \param seconds the duration, seconds
 * \return the text, e.g. "11.25 ms"; "n/a" if not finite
 */
std::string
HumanTime(double seconds)
{
    if (!std::isfinite(seconds))
    {
        return "n/a";
    }
    const double mag = std::fabs(seconds);
    if (mag == 0.0)
    {
        return "0 s";
    }
    if (mag >= 1.0)
    {
        return Fixed(seconds, 2) + " s";
    }
    if (mag >= 1e-3)
    {
        return Fixed(seconds * 1e3, 2) + " ms";
    }
    if (mag >= 1e-6)
    {
        return Fixed(seconds * 1e6, 2) + " us";
    }
    return Fixed(seconds * 1e9, 2) + " ns";
}

/**
 * \brief Human-readable bandwidth in GB/s (1e9 bytes per second).
 * \param gbps the bandwidth, GB/s
 * \return one decimal from 10 GB/s up, two below, e.g. "41.8 GB/s"
 */
std::string
HumanRate(double gbps)
{
    if (!std::isfinite(gbps))
    {
        return "n/a";
    }
    return Fixed(gbps, std::fabs(gbps) >= 10.0 ? 1 : 2) + " GB/s";
}

/**
 * \brief Simulated over analytic time.
 * \param c the collective
 * \return the ratio; NaN when there is no analytic estimate (analyticS <= 0)
 */
double
SimOverAnalytic(const CollectiveResult& c)
{
    if (!(c.analyticS > 0.0))
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return c.durationS / c.analyticS;
}

/**
 * \brief Write a whole file through `path + ".tmp"` and a rename.
 * \param path the final path
 * \param body writes the content to the stream it is given
 * \tparam F callable as body(std::ostream&)
 */
template<typename F>
void
WriteAtomically(const std::string& path, F&& body)
{
    const std::string tmp = path + ".tmp";
    {
        errno = 0;
        std::ofstream os(tmp, std::ios::out | std::ios::binary | std::ios::trunc);
        if (!os)
        {
            const std::string why = errno != 0 ? std::string(": ") + std::strerror(errno) : "";
            throw std::runtime_error("cannot write " + path + " (opening " + tmp + " failed" + why
                                     + ")");
        }
        try
        {
            body(os);
            os.flush();
            os.close();
        }
        catch (...)
        {
            os.close();
            std::remove(tmp.c_str());
            throw;
        }
        if (os.fail())
        {
            std::remove(tmp.c_str());
            throw std::runtime_error("cannot write " + path + " (I/O error writing " + tmp + ")");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write " + path + " (renaming " + tmp + " failed: " + why
                                 + ")");
    }
}

/**
 * \brief A time in seconds as nanoseconds with three decimals (whole picoseconds).
 * \param ps the time, picoseconds
 * \return e.g. "1234.567", "-0.001", "0.000"
 */
std::string
NsFromPs(int64_t ps)
{
    const bool negative = ps < 0;
    // magnitude as unsigned so that INT64_MIN is safe
    const uint64_t mag = negative ? ~static_cast<uint64_t>(ps) + 1 : static_cast<uint64_t>(ps);
    const uint64_t frac = mag % 1000;
    std::string s = (negative ? "-" : "") + std::to_string(mag / 1000) + ".";
    s += static_cast<char>('0' + frac / 100);
    s += static_cast<char>('0' + (frac / 10) % 10);
    s += static_cast<char>('0' + frac % 10);
    return s;
}

/**
 * \brief Round seconds to whole picoseconds.
 * \param seconds the time, seconds
 * \param ps receives the rounded value
 * \return false if the value is not finite or does not fit in int64 picoseconds
 */
bool
ToPs(double seconds, int64_t& ps)
{
    const double v = std::round(seconds * 1e12);
    if (!std::isfinite(v) || std::fabs(v) >= 9.2e18)
    {
        return false;
    }
    ps = static_cast<int64_t>(v);
    return true;
}

/**
 * \brief Quote a CSV field per RFC 4180 when it needs it.
 * \param field the raw text
 * \return the field, quoted (with doubled quotes) if it holds , " CR or LF
 */
std::string
CsvField(const std::string& field)
{
    if (field.find_first_of(",\"\r\n") == std::string::npos)
    {
        return field;
    }
    std::string out = "\"";
    for (char c : field)
    {
        if (c == '"')
        {
            out += '"';
        }
        out += c;
    }
    out += '"';
    return out;
}

/**
 * \brief Write the summary of one collective as a JSON object.
 * \param w the writer, positioned where a value is due
 * \param c the collective
 */
void
WriteCollective(JsonWriter& w, const CollectiveResult& c)
{
    w.BeginObject();
    w.Key("name").String(c.name);
    w.Key("op").String(c.op);
    w.Key("algorithm").String(c.algorithm);
    w.Key("ranks").Uint(c.ranks);
    w.Key("bytes").Uint(c.bytes);
    w.Key("start_s").Double(c.startS);
    w.Key("end_s").Double(c.endS);
    w.Key("duration_s").Double(c.durationS);
    w.Key("algbw_GBps").Double(c.algbwGBps);
    w.Key("busbw_GBps").Double(c.busbwGBps);
    w.Key("analytic_s").Double(c.analyticS);
    w.Key("alpha_s").Double(c.alphaS);
    w.Key("beta_s_per_byte").Double(c.betaSPerByte);
    w.Key("sim_over_analytic").Double(SimOverAnalytic(c)); // NaN -> null

    w.Key("bytes_sent_per_rank").BeginObject();
    if (c.bytesSentPerRank.empty())
    {
        w.Key("min").Uint(0);
        w.Key("max").Uint(0);
    }
    else
    {
        const auto mm = std::minmax_element(c.bytesSentPerRank.begin(), c.bytesSentPerRank.end());
        w.Key("min").Uint(*mm.first);
        w.Key("max").Uint(*mm.second);
    }
    w.EndObject();

    w.Key("rank_finish_s").BeginObject();
    const SampleSummary finish = Summarize(c.finishSPerRank);
    w.Key("p50").Double(finish.p50);
    w.Key("max").Double(finish.max);
    if (c.finishSPerRank.empty())
    {
        w.Key("slowest_rank").Null();
        w.Key("slowest_over_median").Null();
    }
    else
    {
        // the first rank (in rank order) with the latest finish, as its GPU index
        const auto slowest = std::max_element(c.finishSPerRank.begin(), c.finishSPerRank.end());
        const auto at = static_cast<std::size_t>(slowest - c.finishSPerRank.begin());
        w.Key("slowest_rank").Uint(at < c.rankGpus.size() ? c.rankGpus[at] : at);
        // elapsed since the collective's start: slowest rank over median rank
        const double medianElapsed = finish.p50 - c.startS;
        w.Key("slowest_over_median")
            .Double(medianElapsed > 0.0 ? (finish.max - c.startS) / medianElapsed
                                        : std::numeric_limits<double>::quiet_NaN());
    }
    w.EndObject();

    w.EndObject();
}

} // namespace

void
WriteSummaryJson(const RunResults& r, std::ostream& os)
{
    JsonWriter w(os);
    w.BeginObject();
    w.Key("schema_version").Uint(RESULTS_SCHEMA_VERSION);
    w.Key("scenario").String(r.scenario);
    w.Key("scenario_file").String(r.scenarioFile);
    w.Key("topology").String(r.topology);
    w.Key("traffic").String(r.traffic);
    w.Key("seed").Uint(r.seed);
    w.Key("gpus").Uint(r.gpus);
    w.Key("switches").Uint(r.switches);
    w.Key("links").Uint(r.links);
    w.Key("sim_time_s").Double(r.simTimeS);
    w.Key("wall_time_s").Double(r.wallTimeS);
    // wall_time_s is the only wall-clock figure: everything else is a function
    // of the scenario and seed, so two runs give the same file but for it.
    w.Key("events").Uint(r.events);
    w.Key("packet_hops").Uint(r.packetHops);
    w.Key("complete").Bool(r.complete);
    w.Key("valid").Bool(r.violations.empty());
    w.Key("violations").BeginArray();
    for (const auto& v : r.violations)
    {
        w.String(v);
    }
    w.EndArray();
    w.Key("fabric").BeginObject();
    w.Key("drops").Uint(r.counters.drops);
    w.Key("lossless_drops").Uint(r.counters.losslessDrops);
    w.Key("pfc_pause_frames").Uint(r.counters.pauseFrames);
    w.Key("pfc_paused_s").Double(r.counters.pausedS);
    w.Key("flow_control_stall_s").Double(r.counters.stallS);
    w.Key("ecn_marks").Uint(r.counters.ecnMarks);
    w.Key("peak_switch_buffer_bytes").Uint(r.counters.peakBufferBytes);
    w.EndObject();

    w.Key("collectives").BeginArray();
    for (const auto& c : r.collectives)
    {
        WriteCollective(w, c);
    }
    w.EndArray();

    std::vector<double> fct;
    fct.reserve(r.flows.size());
    uint64_t bytes = 0;
    for (const auto& f : r.flows)
    {
        fct.push_back(f.FctS());
        bytes += f.bytes;
    }
    const SampleSummary s = Summarize(std::move(fct));
    w.Key("flows").BeginObject();
    w.Key("count").Uint(r.flows.size());
    w.Key("bytes").Uint(bytes);
    w.Key("fct_s").BeginObject();
    w.Key("min").Double(s.min);
    w.Key("mean").Double(s.mean);
    w.Key("p50").Double(s.p50);
    w.Key("p90").Double(s.p90);
    w.Key("p99").Double(s.p99);
    w.Key("p999").Double(s.p999);
    w.Key("max").Double(s.max);
    w.EndObject();
    w.EndObject();

    w.EndObject();
    os << '\n';
}

void
WriteSummaryJson(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path);
    WriteAtomically(path, [&results](std::ostream& os) { WriteSummaryJson(results, os); });
}

void
WriteFlowsCsv(const RunResults& results, std::ostream& os)
{
    os << "flow_id,collective,step,src,dst,bytes,start_ns,end_ns,fct_ns\n";
    for (const auto& f : results.flows)
    {
        os << f.id << ',' << CsvField(f.collective) << ',' << f.step << ',' << f.src << ',' << f.dst
           << ',' << f.bytes << ',';
        int64_t startPs = 0;
        int64_t endPs = 0;
        const bool startOk = ToPs(f.startS, startPs);
        const bool endOk = ToPs(f.endS, endPs);
        // an unrepresentable time leaves its field (and fct_ns) empty
        os << (startOk ? NsFromPs(startPs) : "") << ',' << (endOk ? NsFromPs(endPs) : "") << ','
           << (startOk && endOk ? NsFromPs(endPs - startPs) : "") << '\n';
    }
}

void
WriteFlowsCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.flows.size());
    WriteAtomically(path, [&results](std::ostream& os) { WriteFlowsCsv(results, os); });
}

void
WritePortsCsv(const RunResults& results, std::ostream& os)
{
    os << "node,peer,tier,technology,tx_packets,tx_bytes,busy_ns,utilization,drops,"
          "peak_queue_bytes,pauses_received,paused_ns,stall_ns\n";
    auto ns = [](double seconds) {
        int64_t ps = 0;
        return ToPs(seconds, ps) ? NsFromPs(ps) : std::string();
    };
    for (const auto& p : results.ports)
    {
        const double util = results.simTimeS > 0 ? p.busyS / results.simTimeS : 0.0;
        os << CsvField(p.node) << ',' << CsvField(p.peer) << ',' << CsvField(p.tier) << ','
           << CsvField(p.technology) << ',' << p.txPackets << ',' << p.txBytes << ',' << ns(p.busyS)
           << ',' << Fixed(util, 6) << ',' << p.drops << ',' << p.peakQueueBytes << ','
           << p.pausesReceived << ',' << ns(p.pausedS) << ',' << ns(p.stallS) << '\n';
    }
}

void
WritePortsCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.ports.size());
    WriteAtomically(path, [&results](std::ostream& os) { WritePortsCsv(results, os); });
}

void
PrintSummaryTable(const RunResults& r, std::ostream& os)
{
    // Build the table as text first, then pad every column to its widest cell.
    const std::vector<std::string> header = {"collective",
                                             "op",
                                             "algorithm",
                                             "ranks",
                                             "size",
                                             "simulated",
                                             "analytic",
                                             "sim/analytic",
                                             "algbw",
                                             "busbw"};
    const std::vector<bool> rightAlign
        = {false, false, false, true, true, true, true, true, true, true};
    std::vector<std::vector<std::string>> rows{header};
    for (const auto& c : r.collectives)
    {
        const double ratio = SimOverAnalytic(c);
        rows.push_back({c.name,
                        c.op,
                        c.algorithm,
                        std::to_string(c.ranks),
                        HumanBytes(c.bytes, false),
                        HumanTime(c.durationS),
                        c.analyticS > 0.0 ? HumanTime(c.analyticS) : "n/a",
                        std::isfinite(ratio) ? Fixed(ratio, 3) : "n/a",
                        HumanRate(c.algbwGBps),
                        HumanRate(c.busbwGBps)});
    }
    std::vector<size_t> width(header.size(), 0);
    for (const auto& row : rows)
    {
        for (size_t i = 0; i < row.size(); ++i)
        {
            width[i] = std::max(width[i], row[i].size());
        }
    }

    if (!r.complete)
    {
        os << "WARNING: incomplete run: not every message completed before the stop time\n";
    }
    if (r.collectives.empty())
    {
        os << "no collectives\n";
    }
    else
    {
        for (const auto& row : rows)
        {
            std::string line;
            for (size_t i = 0; i < row.size(); ++i)
            {
                const std::string pad(width[i] - row[i].size(), ' ');
                line += (i > 0 ? "  " : "");
                line += rightAlign[i] ? pad + row[i] : row[i] + pad;
            }
            line.erase(line.find_last_not_of(' ') + 1);
            os << line << '\n';
        }
    }

    std::vector<double> fct;
    fct.reserve(r.flows.size());
    for (const auto& f : r.flows)
    {
        fct.push_back(f.FctS());
    }
    const SampleSummary s = Summarize(std::move(fct));
    os << '\n' << "flows: " << s.count;
    if (s.count > 0)
    {
        os << ", FCT p50 " << HumanTime(s.p50) << ", p99 " << HumanTime(s.p99) << ", max "
           << HumanTime(s.max);
    }
    os << '\n';
    const FabricCounters& k = r.counters;
    os << "fabric: " << k.drops << " drops, " << k.pauseFrames << " PFC pauses ("
       << HumanTime(k.pausedS) << " paused), " << HumanTime(k.stallS) << " flow-control stall, "
       << k.ecnMarks << " ECN marks\n";
    for (const auto& v : r.violations)
    {
        os << "INVALID: " << v << '\n';
    }
    os << "engine: " << r.events << " events, " << r.packetHops << " packet-hops in "
       << Fixed(r.wallTimeS, 2) << " s wall (set-up " << Fixed(r.setupTimeS, 2) << " s)";
    if (r.wallTimeS > 0)
    {
        os << ", " << Fixed(r.packetHops / r.wallTimeS / 1e6, 2) << " M packet-hops/s";
    }
    os << '\n';

    if (!r.collectives.empty())
    {
        os << '\n';
    }
    for (const auto& c : r.collectives)
    {
        os << c.algorithm << ' ' << c.op << " of " << HumanBytes(c.bytes, true) << " over "
           << c.ranks << (c.ranks == 1 ? " GPU" : " GPUs") << ": " << HumanTime(c.durationS)
           << " simulated, "
           << (c.analyticS > 0.0 ? HumanTime(c.analyticS) + " analytic (alpha-beta)"
                                 : std::string("no analytic estimate"))
           << ", busbw " << HumanRate(c.busbwGBps) << '\n';
    }
}

} // namespace ns3
