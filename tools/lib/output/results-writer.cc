/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "results-writer.h"

#include "output/atomic-file.h"
#include "output/json-writer.h"
#include "output/straggler-report.h"

#include "ns3/fabric-stats.h"
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
 * \param seconds a time
 * \return it in nanoseconds with three decimals, or "" if it cannot be represented
 */
std::string
NsOrEmpty(double seconds)
{
    int64_t ps = 0;
    return ToPs(seconds, ps) ? NsFromPs(ps) : std::string();
}

/**
 * \brief Write tail percentiles as a JSON object: count, p50, p90, p99, p999, max.
 * \param w the writer, positioned where a value is due
 * \param t the tails
 */
void
WriteTails(JsonWriter& w, const TailSummary& t)
{
    w.BeginObject();
    w.Key("count").Uint(t.count);
    w.Key("p50").Double(t.p50);
    w.Key("p90").Double(t.p90);
    w.Key("p99").Double(t.p99);
    w.Key("p999").Double(t.p999);
    w.Key("max").Double(t.max);
    w.EndObject();
}

/**
 * \brief Write a straggler figure as a JSON object, or null if not valid.
 * \param w the writer, positioned where a value is due
 * \param f the figure
 */
void
WriteStraggler(JsonWriter& w, const StragglerFigure& f)
{
    if (!f.valid)
    {
        w.Null();
        return;
    }
    w.BeginObject();
    w.Key("rank").Uint(f.position);
    w.Key("gpu").Uint(f.gpu);
    w.Key("finish_s").Double(f.finishS);
    w.Key("median_s").Double(f.medianS);
    w.Key("over_median").Double(f.overMedian);
    w.Key("minus_median_s").Double(f.minusMedianS);
    if (f.scheduled)
    {
        w.Key("fabric_straggler").Bool(f.fabric);
        w.Key("delayed_rank").Uint(f.delayedPosition);
        w.Key("delayed_gpu").Uint(f.delayedGpu);
        w.Key("fabric_delay_s").Double(f.delayS);
        w.Key("median_fabric_delay_s").Double(f.medianDelayS);
        w.Key("last_fabric_delay_s").Double(f.lastDelayS);
    }
    w.EndObject();
}

/**
 * \brief Write a fabric-aware bound as a JSON object (null without one).
 * \param w the writer, positioned where a value is due
 * \param b the bound
 */
void
WriteBound(JsonWriter& w, const BoundFigure& b)
{
    if (b.seconds < 0)
    {
        w.Null();
        return;
    }
    w.BeginObject();
    w.Key("seconds").Double(b.seconds);
    w.Key("bandwidth_s").Double(b.bandwidthS);
    w.Key("latency_s").Double(b.latencyS);
    w.Key("bottleneck");
    if (b.link.empty())
    {
        w.Null();
    }
    else
    {
        w.BeginObject();
        w.Key("link").String(b.link);
        w.Key("tier_class").String(b.tierClass);
        w.Key("wire_bytes").Double(b.wireBytes);
        w.Key("rate_Gbps").Double(b.rateBps / 1e9);
        w.EndObject();
    }
    w.EndObject();
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
    w.Key("protocol").String(c.protocol);
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
    w.Key("alpha_intra_s").Double(c.alphaIntraS);
    w.Key("beta_intra_s_per_byte").Double(c.betaIntraSPerByte);
    w.Key("bound");
    WriteBound(w, c.bound);
    w.Key("sim_over_bound")
        .Double(c.bound.seconds > 0 && c.durationS > 0 ? c.durationS / c.bound.seconds
                                                       : std::numeric_limits<double>::quiet_NaN());

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
    w.Key("receiver_finish_s");
    WriteTails(w, c.rankFinish);
    w.Key("straggler");
    WriteStraggler(w, c.straggler);
    w.Key("fct_s");
    WriteTails(w, c.fct);
    w.Key("slowdown");
    WriteTails(w, c.slowdown);
    w.Key("backlog_s");
    WriteTails(w, c.backlog);
    w.Key("shared_s");
    WriteTails(w, c.shared);

    w.EndObject();
}

/**
 * \brief Write the training object of summary.json.
 * \param w the writer, positioned where a value is due
 * \param t the training results
 */
void
WriteTraining(JsonWriter& w, const TrainingResult& t)
{
    w.BeginObject();
    w.Key("name").String(t.name);
    w.Key("schedule").String(t.schedule);
    w.Key("tp").Uint(t.tp);
    w.Key("pp").Uint(t.pp);
    w.Key("dp").Uint(t.dp);
    w.Key("ep").Uint(t.ep);
    w.Key("micro_batches").Uint(t.microBatches);
    w.Key("parameters").Double(t.parameters);
    w.Key("peak_flops").Double(t.peakFlops);
    w.Key("mfu").Double(t.mfu);
    w.Key("complete").Bool(t.complete);
    w.Key("iterations").BeginArray();
    for (const TrainingIterationResult& it : t.iterations)
    {
        const double step = it.stepS;
        auto share = [step](double x) {
            return step > 0 ? x / step : std::numeric_limits<double>::quiet_NaN();
        };
        w.BeginObject();
        w.Key("iteration").Uint(it.iteration);
        w.Key("start_s").Double(it.startS);
        w.Key("end_s").Double(it.endS);
        w.Key("step_s").Double(it.stepS);
        w.Key("mean_compute_s").Double(it.computeS);
        w.Key("mean_pipeline_idle_s").Double(it.pipelineIdleS);
        w.Key("mean_skew_s").Double(it.skewS);
        w.Key("mean_exposed_s").BeginObject();
        w.Key("tp").Double(it.exposedTensorS);
        w.Key("pp").Double(it.exposedPipelineS);
        w.Key("ep").Double(it.exposedExpertS);
        w.Key("dp").Double(it.exposedDataS);
        w.EndObject();
        w.Key("compute_share").Double(share(it.computeS));
        w.Key("exposed_comm_share").Double(share(it.ExposedS()));
        w.Key("bubble_share").Double(share(it.pipelineIdleS));
        w.Key("skew_share").Double(share(it.skewS));
        w.Key("achieved_mfu").Double(it.achievedMfu);
        w.Key("rank_end_s");
        WriteTails(w, it.rankEnd);
        w.Key("straggler");
        WriteStraggler(w, it.straggler);
        w.EndObject();
    }
    w.EndArray();
    w.Key("communication").BeginArray();
    for (const TrainingCommResult& c : t.communication)
    {
        w.BeginObject();
        w.Key("kind").String(c.kind);
        w.Key("groups").Uint(c.groups);
        w.Key("messages").Uint(c.messages);
        w.Key("bytes").Uint(c.bytes);
        w.Key("busy_s").Double(c.busyS);
        w.Key("max_s").Double(c.maxS);
        w.Key("duration_s");
        WriteTails(w, c.duration);
        w.Key("fct_s");
        WriteTails(w, c.fct);
        w.Key("slowdown");
        WriteTails(w, c.slowdown);
        w.Key("rank_span_s");
        WriteTails(w, c.rankSpan);
        w.Key("sim_over_analytic");
        WriteTails(w, c.simOverAnalytic);
        w.Key("sim_over_bound");
        WriteTails(w, c.simOverBound);
        w.EndObject();
    }
    w.EndArray();
    w.Key("moe");
    if (t.moe)
    {
        w.BeginObject();
        w.Key("locality").String(t.locality);
        w.Key("token_copies").Uint(t.moeTokenCopies);
        w.Key("dropped").Uint(t.moeDropped);
        w.Key("same_gpu").Uint(t.moeSameRank);
        w.Key("same_domain").Uint(t.moeSameDomain);
        w.Key("local_fraction").Double(t.MoeLocalFraction());
        w.Key("network_bytes").Uint(t.moeNetworkBytes);
        w.EndObject();
    }
    else
    {
        w.Null();
    }
    w.EndObject();
}

/**
 * \brief Append a string to a JSON text, quoted and escaped.
 * \param out the text
 * \param s the string (ASCII names; control characters escaped)
 */
void
AppendJsonString(std::string& out, const std::string& s)
{
    out += '"';
    for (const char ch : s)
    {
        const auto u = static_cast<unsigned char>(ch);
        if (ch == '"' || ch == '\\')
        {
            out += '\\';
            out += ch;
        }
        else if (u < 0x20)
        {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        }
        else
        {
            out += ch;
        }
    }
    out += '"';
}

/**
 * \brief Print the training job's iterations, traffic and one-line answer.
 * \param t the training results
 * \param os the stream
 */
void
PrintTraining(const TrainingResult& t, std::ostream& os)
{
    auto pct = [](double x, double of) {
        return of > 0 ? Fixed(100.0 * x / of, 1) + "%" : std::string("n/a");
    };
    os << "\ntraining '" << t.name << "': TP" << t.tp << " PP" << t.pp << " DP" << t.dp;
    if (t.moe)
    {
        os << " EP" << t.ep;
    }
    os << ", " << t.schedule << ", " << t.microBatches << " micro-batches, "
       << (t.parameters >= 1e9 ? Fixed(t.parameters / 1e9, 2) + " B"
                               : Fixed(t.parameters / 1e6, 2) + " M")
       << " parameters\n";
    if (!t.complete)
    {
        os << "WARNING: training did not finish before the stop time: no breakdown\n";
    }
    for (const TrainingIterationResult& it : t.iterations)
    {
        // A bubble only with pipeline stages; without them, the ranks' skew.
        os << "  iteration " << it.iteration << ": step " << HumanTime(it.stepS) << " | compute "
           << pct(it.computeS, it.stepS)
           << (t.pp > 1 ? " | bubble " + pct(it.pipelineIdleS, it.stepS)
                        : " | skew " + pct(it.skewS, it.stepS))
           << " | exposed comm " << pct(it.ExposedS(), it.stepS) << " (tp "
           << pct(it.exposedTensorS, it.stepS) << ", pp " << pct(it.exposedPipelineS, it.stepS)
           << ", ep " << pct(it.exposedExpertS, it.stepS) << ", dp "
           << pct(it.exposedDataS, it.stepS) << ") | MFU " << Fixed(100.0 * it.achievedMfu, 1)
           << "%\n";
        if (it.straggler.valid && it.rankEnd.count > 1)
        {
            os << "    " << StragglerSentence(it.straggler, "ended") << '\n';
        }
    }
    for (const TrainingCommResult& c : t.communication)
    {
        os << "  " << c.kind << ": " << c.groups << " groups, " << c.messages << " messages, "
           << HumanBytes(c.bytes, false) << ", longest " << HumanTime(c.maxS) << "; FCT p99 "
           << HumanTime(c.fct.p99) << ", slowdown p99 " << Fixed(c.slowdown.p99, 2)
           << ", rank span p99 " << HumanTime(c.rankSpan.p99);
        if (c.simOverBound.count > 0)
        {
            os << ", sim/bound p50 " << Fixed(c.simOverBound.p50, 2);
        }
        os << '\n';
    }
    if (t.moe)
    {
        os << "  MoE: local fraction " << Fixed(t.MoeLocalFraction(), 3) << " (" << t.locality
           << "), " << t.moeDropped << " of " << t.moeTokenCopies << " token copies dropped, "
           << HumanBytes(t.moeNetworkBytes, false) << " on the network\n";
    }
    if (t.iterations.empty())
    {
        return;
    }
    double step = 0;
    double exposed = 0;
    double bubble = 0;
    double mfu = 0;
    for (const TrainingIterationResult& it : t.iterations)
    {
        step += it.stepS;
        exposed += it.ExposedS();
        bubble += it.pipelineIdleS;
        mfu += it.achievedMfu;
    }
    const double n = t.iterations.size();
    os << "answer: step time " << HumanTime(step / n) << ", MFU " << Fixed(100.0 * mfu / n, 1)
       << "%, exposed comm " << pct(exposed, step)
       << (t.pp > 1 ? ", bubble " + pct(bubble, step) : std::string(", no pipeline bubble (PP 1)"));
    if (t.moe)
    {
        os << ", MoE local fraction " << Fixed(t.MoeLocalFraction(), 3);
    }
    os << '\n';
}

} // namespace

std::string
StragglerSentence(const StragglerFigure& f, const std::string& ended)
{
    const std::string last = "rank " + std::to_string(f.position) + " (GPU " + std::to_string(f.gpu)
                             + ") " + ended + " " + HumanTime(f.minusMedianS)
                             + " after the median rank";
    if (!f.scheduled)
    {
        return f.minusMedianS <= 0
                   ? "no straggler: the last rank " + ended + " with the median rank"
                   : "straggler: " + last;
    }
    if (f.fabric)
    {
        return "straggler: rank " + std::to_string(f.delayedPosition) + " (GPU "
               + std::to_string(f.delayedGpu) + "), the fabric delayed it "
               + HumanTime(f.delayS - f.medianDelayS) + " more than the median rank"
               + (f.delayedPosition == f.position
                      ? "; it " + ended + " last, " + HumanTime(f.minusMedianS)
                            + " after the median rank"
                      : "; the last was " + last);
    }
    // The last rank ends last by its schedule if the fabric delayed it no more than the median
    // rank (within a nanosecond), else by less than a straggler needs.
    const double over = f.lastDelayS - f.medianDelayS;
    return "no straggler: the fabric delayed no rank more than the median rank by over "
           + Fixed(100.0 * STRAGGLER_SHARE, 0) + " % of its time"
           + (f.minusMedianS <= 0 ? std::string()
              : over <= 1e-9      ? "; " + last + " by its schedule"
                                  : "; " + last + " (the fabric delayed it " + HumanTime(over)
                                   + " more than the median rank)");
}

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

void
WriteTraceJson(const RunResults& r, std::ostream& os)
{
    // Compact, one event per line: traces of large jobs have millions of events.
    os << "{\"traceEvents\":[\n";
    bool firstEvent = true;
    std::string line;
    auto emit = [&]() {
        os << (firstEvent ? "" : ",\n") << line;
        firstEvent = false;
    };
    std::vector<bool> named(r.gpus, false);
    for (const TraceEvent& e : r.trace)
    {
        if (e.pid < named.size() && !named[e.pid])
        {
            named[e.pid] = true;
            line = "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(e.pid)
                   + ",\"tid\":0,\"args\":{\"name\":\"gpu" + std::to_string(e.pid) + "\"}}";
            emit();
            for (std::size_t lane = 0; lane < r.traceLanes.size(); ++lane)
            {
                line = "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(e.pid)
                       + ",\"tid\":" + std::to_string(lane) + ",\"args\":{\"name\":";
                AppendJsonString(line, r.traceLanes[lane]);
                line += "}}";
                emit();
            }
        }
        line = "{\"name\":";
        AppendJsonString(line, e.name);
        line += ",\"cat\":";
        AppendJsonString(line, e.tid < r.traceLanes.size() ? r.traceLanes[e.tid] : "other");
        line += ",\"ph\":\"X\",\"pid\":" + std::to_string(e.pid)
                + ",\"tid\":" + std::to_string(e.tid) + ",\"ts\":" + Fixed(e.tsUs, 6)
                + ",\"dur\":" + Fixed(std::max(0.0, e.durUs), 6) + "}";
        emit();
    }
    os << "\n],\"displayTimeUnit\":\"ns\"}\n";
}

void
WriteTraceJson(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.trace.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteTraceJson(results, os); });
}

void
WriteRanksCsv(const RunResults& r, std::ostream& os)
{
    os << "iteration,rank,gpu,tp,pp,dp,compute_ns,pipeline_idle_ns,skew_ns,exposed_tp_ns,"
          "exposed_pp_ns,exposed_ep_ns,exposed_dp_ns,end_ns,fabric_delay_ns\n";
    for (const TrainingRankResult& k : r.training.ranks)
    {
        os << k.iteration << ',' << k.rank << ',' << k.gpu << ',' << k.tp << ',' << k.pp << ','
           << k.dp << ',' << NsOrEmpty(k.computeS) << ',' << NsOrEmpty(k.pipelineIdleS) << ','
           << NsOrEmpty(k.skewS) << ',' << NsOrEmpty(k.exposedTensorS) << ','
           << NsOrEmpty(k.exposedPipelineS) << ',' << NsOrEmpty(k.exposedExpertS) << ','
           << NsOrEmpty(k.exposedDataS) << ',' << NsOrEmpty(k.endS) << ','
           << NsOrEmpty(k.fabricDelayS) << '\n';
    }
}

void
WriteRanksCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.training.ranks.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteRanksCsv(results, os); });
}

void
WriteSweepCsv(const RunResults& r, std::ostream& os)
{
    os << "size,count,type,op,time,algbw,busbw,analytic_us,sim_over_analytic,algorithm,protocol\n";
    for (const SweepRow& row : r.sweep)
    {
        os << row.bytes << ',' << row.count << ',' << row.type << ',' << CsvField(row.op) << ','
           << Fixed(row.timeUs, 3) << ',' << Fixed(row.algbwGBps, 3) << ','
           << Fixed(row.busbwGBps, 3) << ',' << Fixed(row.analyticUs, 3) << ','
           << (std::isfinite(row.simOverAnalytic) ? Fixed(row.simOverAnalytic, 4) : "") << ','
           << CsvField(row.algorithm) << ',' << CsvField(row.protocol) << '\n';
    }
}

void
WriteSweepCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.sweep.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteSweepCsv(results, os); });
}

void
PrintSweepTable(const RunResults& r, std::ostream& os)
{
    os << "# sweep of '" << r.sweepCollective << "'";
    if (!r.sweep.empty())
    {
        os << ": " << r.sweep.front().algorithm << ' ' << r.sweep.front().op << " over "
           << r.sweep.front().ranks << " GPUs";
    }
    os << '\n';
    char line[256];
    std::snprintf(line,
                  sizeof line,
                  "%12s %12s %8s %14s %12s %8s %8s %12s %9s\n",
                  "size",
                  "count",
                  "type",
                  "op",
                  "time",
                  "algbw",
                  "busbw",
                  "analytic_us",
                  "sim/anl");
    os << line;
    std::snprintf(line,
                  sizeof line,
                  "%12s %12s %8s %14s %12s %8s %8s %12s %9s\n",
                  "(B)",
                  "(elements)",
                  "",
                  "",
                  "(us)",
                  "(GB/s)",
                  "(GB/s)",
                  "(us)",
                  "");
    os << line;
    for (const SweepRow& row : r.sweep)
    {
        const double ratio = row.simOverAnalytic;
        std::snprintf(line,
                      sizeof line,
                      "%12llu %12llu %8s %14s %12s %8s %8s %12s %9s%s\n",
                      static_cast<unsigned long long>(row.bytes),
                      static_cast<unsigned long long>(row.count),
                      row.type.c_str(),
                      row.op.c_str(),
                      Fixed(row.timeUs, 2).c_str(),
                      Fixed(row.algbwGBps, 2).c_str(),
                      Fixed(row.busbwGBps, 2).c_str(),
                      Fixed(row.analyticUs, 2).c_str(),
                      std::isfinite(ratio) ? Fixed(ratio, 3).c_str() : "n/a",
                      row.complete ? "" : "  INCOMPLETE");
        os << line;
    }
}

namespace
{

/**
 * \brief Why the run stopped, the stall report and any deadlock cycle (summary.json).
 * \param r the results
 * \param w the writer, inside the summary object
 */
void
WriteStopJson(const RunResults& r, JsonWriter& w)
{
    w.Key("stop_reason").String(r.stopReason);
    w.Key("interrupted").Bool(r.interrupted);
    w.Key("open_messages").Uint(r.openMessages);
    w.Key("waiting_ops").Uint(r.waitingOps);
    w.Key("memory_estimate_bytes").Double(r.memoryEstimateBytes);
    w.Key("stall_report").BeginArray();
    for (const StalledMessage& m : r.stallReport)
    {
        w.BeginObject();
        w.Key("op").Uint(m.op);
        w.Key("group").String(m.group);
        w.Key("step").Uint(m.step);
        w.Key("src").Uint(m.src);
        w.Key("dst").Uint(m.dst);
        w.Key("bytes").Uint(m.bytes);
        w.Key("bytes_delivered").Uint(m.delivered);
        w.Key("posted_s").Double(m.postedS);
        w.EndObject();
    }
    w.EndArray();
    w.Key("deadlock");
    if (r.deadlockCycle.empty())
    {
        w.Null();
    }
    else
    {
        w.BeginObject();
        w.Key("cycle").BeginArray();
        for (const std::string& port : r.deadlockCycle)
        {
            w.String(port);
        }
        w.EndArray();
        w.EndObject();
    }
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
    w.Key("cell_packets").Uint(r.cellPackets);
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
    WriteStopJson(r, w);
    w.Key("fabric").BeginObject();
    w.Key("drops").Uint(r.counters.drops);
    w.Key("lossless_drops").Uint(r.counters.losslessDrops);
    w.Key("pfc_pause_frames").Uint(r.counters.pauseFrames);
    w.Key("pfc_paused_s").Double(r.counters.pausedS);
    w.Key("flow_control_stall_s").Double(r.counters.stallS);
    w.Key("ecn_marks").Uint(r.counters.ecnMarks);
    w.Key("peak_switch_buffer_bytes").Uint(r.counters.peakBufferBytes);
    w.Key("congestion_control").String(r.congestionControl);
    w.Key("ecn_marked_received").Uint(r.counters.ecnMarkedReceived);
    w.Key("cnps_sent").Uint(r.counters.cnpsSent);
    w.Key("cnps_received").Uint(r.counters.cnpsReceived);
    w.Key("rate_cuts").Uint(r.counters.rateCuts);
    w.Key("rate_increases").Uint(r.counters.rateIncreases);
    w.Key("controlled_qps").Uint(r.counters.controlledQps);
    w.Key("retransmitted_packets").Uint(r.counters.retransmittedPackets);
    w.Key("retransmission_timeouts").Uint(r.counters.retransmissionTimeouts);
    w.Key("out_of_order_drops").Uint(r.counters.outOfOrderDrops);
    w.Key("min_rate_gbps");
    if (r.counters.controlledQps > 0)
    {
        w.Double(r.counters.minRateGbps);
    }
    else
    {
        w.Null();
    }
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
    w.Key("slowdown");
    WriteTails(w, r.slowdown);
    w.Key("backlog_s");
    WriteTails(w, r.backlog);
    w.Key("shared_s");
    WriteTails(w, r.shared);
    w.EndObject();

    w.Key("training");
    if (r.hasTraining)
    {
        WriteTraining(w, r.training);
    }
    else
    {
        w.Null();
    }
    w.Key("sweep");
    if (r.sweepCollective.empty())
    {
        w.Null();
    }
    else
    {
        w.BeginObject();
        w.Key("collective").String(r.sweepCollective);
        w.Key("rows").BeginArray();
        for (const SweepRow& row : r.sweep)
        {
            w.BeginObject();
            w.Key("bytes").Uint(row.bytes);
            w.Key("count").Uint(row.count);
            w.Key("type").String(row.type);
            w.Key("op").String(row.op);
            w.Key("algorithm").String(row.algorithm);
            w.Key("protocol").String(row.protocol);
            w.Key("ranks").Uint(row.ranks);
            w.Key("time_us").Double(row.timeUs);
            w.Key("algbw_GBps").Double(row.algbwGBps);
            w.Key("busbw_GBps").Double(row.busbwGBps);
            w.Key("analytic_us").Double(row.analyticUs);
            w.Key("sim_over_analytic").Double(row.simOverAnalytic);
            w.Key("complete").Bool(row.complete);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    }
    w.Key("stragglers");
    WriteStragglersJson(w, r);

    w.Key("tier_classes").BeginArray();
    for (const TierClassRecord& t : r.tierClasses)
    {
        w.BeginObject();
        w.Key("tier_class").String(t.tierClass);
        w.Key("ports").Uint(t.ports);
        w.Key("active_ports").Uint(t.activePorts);
        w.Key("tx_bytes").Uint(t.txBytes);
        w.Key("mean_utilization").Double(t.meanUtilization);
        w.Key("max_utilization").Double(t.maxUtilization);
        w.Key("peak_queue_bytes").Uint(t.peakQueueBytes);
        w.Key("max_p99_queue_bytes").Uint(t.maxP99QueueBytes);
        w.Key("pauses_received").Uint(t.pausesReceived);
        w.Key("paused_s").Double(t.pausedS);
        w.Key("stall_s").Double(t.stallS);
        w.Key("ecn_marks").Uint(t.ecnMarks);
        w.Key("drops").Uint(t.drops);
        w.EndObject();
    }
    w.EndArray();

    w.Key("bisection").BeginArray();
    for (const BisectionRecord& b : r.bisection)
    {
        auto direction = [&w](const BisectionDirectionRecord& d) {
            w.BeginObject();
            w.Key("wire_bytes").Uint(d.wireBytes);
            w.Key("payload_bytes").Uint(d.payloadBytes);
            w.Key("crossing_wire_bytes").Uint(d.crossingWireBytes);
            w.Key("crossing_payload_bytes").Uint(d.crossingPayloadBytes);
            w.Key("achieved_Gbps").Double(d.achievedGbps);
            w.Key("crossing_Gbps").Double(d.crossingGbps);
            w.Key("crossing_share").Double(d.crossingShare);
            w.Key("utilization_mean").Double(d.utilizationMean);
            w.Key("utilization_max").Double(d.utilizationMax);
            w.EndObject();
        };
        w.BeginObject();
        w.Key("collective").String(b.collective);
        w.Key("op").String(b.op);
        w.Key("split").String(b.split);
        w.Key("side_a_gpus").Uint(b.sideAGpus);
        w.Key("side_b_gpus").Uint(b.sideBGpus);
        w.Key("cut").String(b.cut);
        w.Key("cut_links").Uint(b.cutPorts.size());
        w.Key("cut_ports").BeginArray();
        for (const std::string& port : b.cutPorts)
        {
            w.String(port);
        }
        w.EndArray();
        w.Key("window_s").Double(b.windowS);
        w.Key("window_complete").Bool(b.windowComplete);
        w.Key("analytic_Gbps").Double(b.analyticGbps);
        w.Key("formula_Gbps").Double(b.formulaGbps);
        w.Key("direction").String(b.busierAtoB ? "a_to_b" : "b_to_a");
        w.Key("achieved_Gbps").Double(b.achievedGbps);
        w.Key("achieved_over_analytic").Double(b.ratio);
        w.Key("crossing_Gbps").Double(b.crossingGbps);
        w.Key("crossing_over_analytic").Double(b.crossingRatio);
        w.Key("crossing_share").Double(b.crossingShare);
        w.Key("utilization_mean").Double(b.utilizationMean);
        w.Key("utilization_max").Double(b.utilizationMax);
        w.Key("a_to_b");
        direction(b.aToB);
        w.Key("b_to_a");
        direction(b.bToA);
        w.Key("cross_bytes").Uint(b.crossBytes);
        w.Key("bytes_a_to_b").Uint(b.bytesAtoB);
        w.Key("bytes_b_to_a").Uint(b.bytesBtoA);
        w.Key("flow_achieved_Gbps").Double(b.flowAchievedGbps);
        w.Key("flow_achieved_over_analytic").Double(b.flowRatio);
        w.EndObject();
    }
    w.EndArray();

    w.Key("timeseries").BeginObject();
    w.Key("interval_s").Double(r.sampleIntervalS);
    w.Key("automatic").Bool(r.sampleIntervalAuto);
    uint64_t bins = 0;
    uint64_t ports = 0;
    for (std::size_t i = 0; i < r.timeseries.size(); ++i)
    {
        bins += (i == 0 || r.timeseries[i].timeS != r.timeseries[i - 1].timeS) ? 1 : 0;
    }
    ports = bins > 0 ? r.timeseries.size() / bins : 0;
    w.Key("bins").Uint(bins);
    w.Key("ports").Uint(ports);
    w.Key("rates").Bool(HasRateColumns(r));
    w.EndObject();

    w.EndObject();
    os << '\n';
}

void
WriteSummaryJson(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path);
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteSummaryJson(results, os); });
}

void
WriteFlowsCsv(const RunResults& results, std::ostream& os)
{
    WriteFlowsCsvHeader(os);
    for (const auto& f : results.flows)
    {
        WriteFlowsCsvRow(f, os);
    }
    for (const auto& f : results.trainingFlows)
    {
        WriteFlowsCsvRow(f, os);
    }
}

void
WriteFlowsCsvHeader(std::ostream& os)
{
    os << "flow_id,collective,step,src,dst,bytes,posted_ns,eligible_ns,first_byte_ns,end_ns,"
          "backlog_ns,fct_ns,shared_ns,ideal_ns,slowdown,wire_bytes\n";
}

void
WriteFlowsCsvRow(const FlowRecord& f, std::ostream& os)
{
    os << f.id << ',' << CsvField(f.collective) << ',' << f.step << ',' << f.src << ',' << f.dst
       << ',' << f.bytes << ',';
    // An unrepresentable (or unknown) time leaves its field, and the differences that need
    // it, empty.
    int64_t postedPs = 0;
    int64_t eligiblePs = 0;
    int64_t firstPs = 0;
    int64_t endPs = 0;
    const bool postedOk = ToPs(f.postedS, postedPs);
    const bool eligibleOk = ToPs(f.EligibleS(), eligiblePs);
    const bool firstOk = f.firstByteS >= 0 && ToPs(f.firstByteS, firstPs);
    const bool endOk = ToPs(f.endS, endPs);
    const double slowdown = f.Slowdown();
    os << (postedOk ? NsFromPs(postedPs) : "") << ',' << (eligibleOk ? NsFromPs(eligiblePs) : "")
       << ',' << (firstOk ? NsFromPs(firstPs) : "") << ',' << (endOk ? NsFromPs(endPs) : "") << ','
       << (postedOk && eligibleOk ? NsFromPs(eligiblePs - postedPs) : "") << ','
       << (eligibleOk && endOk ? NsFromPs(endPs - eligiblePs) : "") << ',' << NsOrEmpty(f.sharedS)
       << ',' << (f.idealS > 0 ? NsOrEmpty(f.idealS) : "") << ','
       << (std::isfinite(slowdown) ? Fixed(slowdown, 6) : "") << ',' << f.wireBytes << '\n';
}

void
WriteFlowsCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.flows.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteFlowsCsv(results, os); });
}

void
WritePortsCsv(const RunResults& results, std::ostream& os)
{
    os << "node,peer,tier,technology,tx_packets,tx_bytes,busy_ns,utilization,drops,"
          "peak_queue_bytes,pauses_received,paused_ns,stall_ns,port_id,tier_class,ecn_marks,"
          "p99_queue_bytes\n";
    for (const auto& p : results.ports)
    {
        const double util = results.simTimeS > 0 ? p.busyS / results.simTimeS : 0.0;
        os << CsvField(p.node) << ',' << CsvField(p.peer) << ',' << CsvField(p.tier) << ','
           << CsvField(p.technology) << ',' << p.txPackets << ',' << p.txBytes << ','
           << NsOrEmpty(p.busyS) << ',' << Fixed(util, 6) << ',' << p.drops << ','
           << p.peakQueueBytes << ',' << p.pausesReceived << ',' << NsOrEmpty(p.pausedS) << ','
           << NsOrEmpty(p.stallS) << ',' << p.portId << ',' << CsvField(p.tierClass) << ','
           << p.ecnMarks << ',' << p.p99QueueBytes << '\n';
    }
}

void
WritePortsCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.ports.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WritePortsCsv(results, os); });
}

void
WriteCollectivesCsv(const RunResults& results, std::ostream& os)
{
    os << "name,op,algorithm,ranks,bytes,start_ns,end_ns,duration_ns,algbw_GBps,busbw_GBps,"
          "analytic_ns,sim_over_analytic,rank_finish_p50_ns,rank_finish_p99_ns,"
          "rank_finish_max_ns,straggler_rank,straggler_gpu,straggler_over_median,"
          "straggler_minus_median_ns,fct_p50_ns,fct_p99_ns,fct_max_ns,slowdown_p50,"
          "slowdown_p99,slowdown_max,protocol,kind,iteration,messages,bound_ns,sim_over_bound,"
          "bottleneck,bottleneck_tier,fct_p90_ns,fct_p999_ns,slowdown_p90,slowdown_p999,"
          "rank_span_p50_ns,rank_span_p90_ns,rank_span_p99_ns,rank_span_p999_ns,"
          "rank_span_max_ns,fabric_straggler,straggler_fabric_delay_ns,backlog_p50_ns,"
          "backlog_max_ns\n";
    auto num = [](double v, int decimals) {
        return std::isfinite(v) ? Fixed(v, decimals) : std::string();
    };
    auto boundCells = [&num](const BoundFigure& b, double duration) {
        return (b.seconds > 0 ? NsOrEmpty(b.seconds) : std::string()) + ','
               + (b.seconds > 0 && duration > 0 ? num(duration / b.seconds, 6) : std::string())
               + ',' + CsvField(b.link) + ',' + CsvField(b.tierClass);
    };
    auto tails = [&num](const TailSummary& f, const TailSummary& s) {
        return NsOrEmpty(f.p90) + ',' + NsOrEmpty(f.p999) + ',' + num(s.p90, 6) + ','
               + num(s.p999, 6);
    };
    for (const CollectiveResult& c : results.collectives)
    {
        const StragglerFigure& st = c.straggler;
        uint64_t messages = 0;
        for (const uint64_t b : c.bytesSentPerRank)
        {
            messages += b > 0 ? 1 : 0;
        }
        os << CsvField(c.name) << ',' << CsvField(c.op) << ',' << CsvField(c.algorithm) << ','
           << c.ranks << ',' << c.bytes << ',' << NsOrEmpty(c.startS) << ',' << NsOrEmpty(c.endS)
           << ',' << NsOrEmpty(c.durationS) << ',' << num(c.algbwGBps, 6) << ','
           << num(c.busbwGBps, 6) << ',' << (c.analyticS > 0 ? NsOrEmpty(c.analyticS) : "") << ','
           << num(SimOverAnalytic(c), 6) << ',' << NsOrEmpty(c.rankFinish.p50) << ','
           << NsOrEmpty(c.rankFinish.p99) << ',' << NsOrEmpty(c.rankFinish.max) << ','
           << (st.valid ? std::to_string(st.position) : "") << ','
           << (st.valid ? std::to_string(st.gpu) : "") << ','
           << (st.valid ? num(st.overMedian, 6) : "") << ','
           << (st.valid ? NsOrEmpty(st.minusMedianS) : "") << ',' << NsOrEmpty(c.fct.p50) << ','
           << NsOrEmpty(c.fct.p99) << ',' << NsOrEmpty(c.fct.max) << ',' << num(c.slowdown.p50, 6)
           << ',' << num(c.slowdown.p99, 6) << ',' << num(c.slowdown.max, 6) << ','
           << CsvField(c.protocol) << ",collective,," << c.fct.count << ','
           << boundCells(c.bound, c.durationS) << ',' << tails(c.fct, c.slowdown) << ",,,,,,"
           << (st.scheduled ? (st.fabric ? "1" : "0") : "") << ','
           << (st.scheduled ? NsOrEmpty(st.delayS - st.medianDelayS) : "") << ','
           << NsOrEmpty(c.backlog.p50) << ',' << NsOrEmpty(c.backlog.max) << '\n';
        (void)messages;
    }
    for (const TrainingGroupResult& g : results.training.groups)
    {
        const double algbw = g.durationS > 0 ? static_cast<double>(g.bytes) / g.durationS / 1e9
                                             : std::numeric_limits<double>::quiet_NaN();
        const double factor = g.ranks > 0 ? BusBandwidthFactor(g.op, g.ranks) : 0.0;
        os << CsvField(g.name) << ',' << CsvField(g.op) << ',' << CsvField(g.algorithm) << ','
           << g.ranks << ',' << g.bytes << ',' << NsOrEmpty(g.startS) << ',' << NsOrEmpty(g.endS)
           << ',' << NsOrEmpty(g.durationS) << ',' << num(algbw, 6) << ',' << num(algbw * factor, 6)
           << ',' << (g.analyticS > 0 ? NsOrEmpty(g.analyticS) : "") << ','
           << (g.analyticS > 0 && g.durationS > 0 ? num(g.durationS / g.analyticS, 6) : "")
           << ",,,,,,,," << NsOrEmpty(g.fct.p50) << ',' << NsOrEmpty(g.fct.p99) << ','
           << NsOrEmpty(g.fct.max) << ',' << num(g.slowdown.p50, 6) << ',' << num(g.slowdown.p99, 6)
           << ',' << num(g.slowdown.max, 6) << ',' << CsvField(g.protocol) << ','
           << CsvField(g.kind) << ',' << g.iteration << ',' << g.messages << ','
           << boundCells(g.bound, g.durationS) << ',' << tails(g.fct, g.slowdown) << ','
           << NsOrEmpty(g.rankSpan.p50) << ',' << NsOrEmpty(g.rankSpan.p90) << ','
           << NsOrEmpty(g.rankSpan.p99) << ',' << NsOrEmpty(g.rankSpan.p999) << ','
           << NsOrEmpty(g.rankSpan.max) << ",,,,\n";
    }
}

void
WriteRankPhasesCsv(const RunResults& r, std::ostream& os)
{
    os << "iteration,rank,gpu,kind,groups,messages,bytes,span_p50_ns,span_p90_ns,span_p99_ns,"
          "span_p999_ns,span_max_ns,fct_p50_ns,fct_p90_ns,fct_p99_ns,fct_p999_ns,fct_max_ns,"
          "slowdown_p50,slowdown_p99,slowdown_max\n";
    auto num = [](double v) {
        return std::isfinite(v) ? Fixed(v, 6) : std::string();
    };
    for (const TrainingRankPhase& p : r.training.rankPhases)
    {
        const bool received = p.fct.count > 0;
        os << p.iteration << ',' << p.rank << ',' << p.gpu << ',' << CsvField(p.kind) << ','
           << p.groups << ',' << p.messages << ',' << p.bytes << ',' << NsOrEmpty(p.span.p50) << ','
           << NsOrEmpty(p.span.p90) << ',' << NsOrEmpty(p.span.p99) << ',' << NsOrEmpty(p.span.p999)
           << ',' << NsOrEmpty(p.span.max) << ',' << (received ? NsOrEmpty(p.fct.p50) : "") << ','
           << (received ? NsOrEmpty(p.fct.p90) : "") << ','
           << (received ? NsOrEmpty(p.fct.p99) : "") << ','
           << (received ? NsOrEmpty(p.fct.p999) : "") << ','
           << (received ? NsOrEmpty(p.fct.max) : "") << ',' << (received ? num(p.slowdown.p50) : "")
           << ',' << (received ? num(p.slowdown.p99) : "") << ','
           << (received ? num(p.slowdown.max) : "") << '\n';
    }
}

void
WriteRankPhasesCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.training.rankPhases.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteRankPhasesCsv(results, os); });
}

void
WriteCollectivesCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.collectives.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteCollectivesCsv(results, os); });
}

bool
HasRateColumns(const RunResults& results)
{
    return results.congestionControl != "none";
}

void
WriteTimeSeriesCsv(const RunResults& results, std::ostream& os)
{
    const bool rates = HasRateColumns(results);
    os << "time_ns,port_id,tier_class,utilization,queue_bytes,bin_ns,queue_max_bytes";
    if (rates)
    {
        os << ",paced_qps,min_rate_gbps,mean_rate_gbps,cnps_sent,cnps_received";
    }
    os << '\n';
    // The rate rows are a subset of the (bin, port) rows, in the same order: a merge walk.
    std::size_t next = 0;
    const std::vector<RateSeriesRow>& rs = results.rateSeries;
    for (const TimeSeriesRow& row : results.timeseries)
    {
        const std::string& tier
            = row.portId < results.ports.size() ? results.ports[row.portId].tierClass : "";
        os << NsOrEmpty(row.timeS) << ',' << row.portId << ',' << CsvField(tier) << ','
           << Fixed(row.utilization, 6) << ',' << row.queueBytes << ',' << NsOrEmpty(row.lengthS)
           << ',' << row.queueMaxBytes;
        if (rates)
        {
            while (next < rs.size()
                   && (rs[next].timeS < row.timeS
                       || (rs[next].timeS == row.timeS && rs[next].portId < row.portId)))
            {
                ++next;
            }
            if (next < rs.size() && rs[next].timeS == row.timeS && rs[next].portId == row.portId)
            {
                const RateSeriesRow& x = rs[next];
                os << ',' << x.limitedQps << ',' << Fixed(x.minRateGbps, 6) << ','
                   << Fixed(x.meanRateGbps, 6) << ',' << x.cnpsSent << ',' << x.cnpsReceived;
            }
            else
            {
                os << ",,,,,"; // a port without a transport (a switch port)
            }
        }
        os << '\n';
    }
}

void
WriteQpsCsv(const RunResults& results, std::ostream& os)
{
    os << "src,dst,qp,data_packets,ecn_marked,cnps_sent,cnps_received,rate_cuts,rate_increases,"
          "min_rate_gbps,final_rate_gbps,line_rate_gbps\n";
    for (const QueuePairRecord& q : results.queuePairs)
    {
        os << q.src << ',' << q.dst << ',' << q.qp << ',';
        if (q.controlled)
        {
            os << q.dataPackets;
        }
        os << ',' << q.ecnMarked << ',' << q.cnpsSent << ',' << q.cnpsReceived << ',' << q.rateCuts
           << ',' << q.rateIncreases << ',';
        if (q.controlled)
        {
            os << Fixed(q.minRateGbps, 6) << ',' << Fixed(q.finalRateGbps, 6) << ','
               << Fixed(q.lineRateGbps, 6);
        }
        else
        {
            os << ",,";
        }
        os << '\n';
    }
}

void
WriteQpsCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.queuePairs.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteQpsCsv(results, os); });
}

void
WriteTimeSeriesCsv(const RunResults& results, const std::string& path)
{
    NS_LOG_FUNCTION(path << results.timeseries.size());
    WriteFileAtomically(path, [&results](std::ostream& os) { WriteTimeSeriesCsv(results, os); });
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
        os << "WARNING: incomplete run: not every message completed ("
           << (r.stopReason == "no_progress"   ? "stalled: no progress"
               : r.stopReason == "interrupted" ? "interrupted"
                                               : "stop time reached")
           << ")\n";
    }
    if (r.collectives.empty() && !r.hasTraining)
    {
        os << "no collectives\n";
    }
    else if (r.collectives.empty())
    {
        rows.clear();
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
    if (rows.size() > 1)
    {
        os << '\n';
    }
    if (s.count > 0 || !r.hasTraining)
    {
        os << "flows: " << s.count;
        if (s.count > 0)
        {
            os << ", FCT p50 " << HumanTime(s.p50) << ", p99 " << HumanTime(s.p99) << ", max "
               << HumanTime(s.max);
            if (r.slowdown.count > 0)
            {
                os << "; slowdown vs empty fabric p50 " << Fixed(r.slowdown.p50, 2) << "x, p99 "
                   << Fixed(r.slowdown.p99, 2) << "x";
            }
        }
        os << '\n';
    }
    if (r.hasTraining)
    {
        uint64_t messages = 0;
        for (const TrainingCommResult& c : r.training.communication)
        {
            messages += c.messages;
        }
        os << "training messages: " << messages << " in " << r.training.groups.size()
           << " groups (their tails per kind below; every group in collectives.csv, per rank in "
              "rank-phases.csv";
        if (!r.trainingFlows.empty())
        {
            os << ", " << r.trainingFlows.size() << " in flows.csv";
        }
        os << ")\n";
    }
    const FabricCounters& k = r.counters;
    os << "fabric: " << k.drops << " drops, " << k.pauseFrames << " PFC pauses ("
       << HumanTime(k.pausedS) << " paused), " << HumanTime(k.stallS) << " flow-control stall, "
       << k.ecnMarks << " ECN marks\n";
    if (k.AnyRecovery())
    {
        os << "recovery (go-back-N): " << k.retransmittedPackets << " packets sent again, "
           << k.outOfOrderDrops << " dropped out of order at receivers, "
           << k.retransmissionTimeouts << " timeouts\n";
    }
    if (r.congestionControl != "none")
    {
        os << "congestion control (" << r.congestionControl << "): " << k.cnpsSent << " CNPs sent, "
           << k.cnpsReceived << " received, " << k.rateCuts << " rate cuts on " << k.controlledQps
           << " queue pairs";
        if (k.controlledQps > 0)
        {
            os << ", lowest rate " << Fixed(k.minRateGbps, 2) << " Gb/s";
        }
        os << '\n';
    }
    for (const auto& v : r.violations)
    {
        os << "INVALID: " << v << '\n';
    }
    os << "engine: " << r.events << " events, " << r.packetHops << " packet-hops in "
       << Fixed(r.wallTimeS, 2) << " s wall (set-up " << Fixed(r.setupTimeS, 2) << " s, results "
       << Fixed(r.gatherTimeS, 2) << " s)";
    if (r.wallTimeS > 0)
    {
        os << ", " << Fixed(r.packetHops / r.wallTimeS / 1e6, 2) << " M packet-hops/s";
    }
    os << '\n';
    if (r.cellPackets > 1)
    {
        os << "fidelity: cell_packets " << r.cellPackets << ": each simulated packet carries up to "
           << r.cellPackets
           << " MTU packets (not full fidelity; measured error: docs/performance.md)\n";
    }

    if (!r.collectives.empty())
    {
        os << '\n';
    }
    for (const auto& c : r.collectives)
    {
        os << c.algorithm << ' ' << c.op << " of " << HumanBytes(c.bytes, true)
           << (c.protocol.empty() || c.protocol == "none" ? "" : " (" + c.protocol + ")")
           << " over " << c.ranks << (c.ranks == 1 ? " GPU" : " GPUs") << ": "
           << HumanTime(c.durationS) << " simulated, "
           << (c.analyticS > 0.0 ? HumanTime(c.analyticS) + " analytic (alpha-beta)"
                                 : std::string("no analytic estimate"))
           << ", busbw " << HumanRate(c.busbwGBps) << '\n';
        if (c.bound.seconds > 0)
        {
            os << "  fabric-aware bound " << HumanTime(c.bound.seconds) << " (sim/bound "
               << Fixed(c.durationS / c.bound.seconds, 3) << "): "
               << (c.bound.link.empty()
                       ? std::string("no link crossed")
                       : "bottleneck " + c.bound.link + " (" + c.bound.tierClass + ") carries "
                             + HumanBytes(static_cast<uint64_t>(c.bound.wireBytes), false) + " in "
                             + HumanTime(c.bound.bandwidthS))
               << ", launch and one step " << HumanTime(c.bound.latencyS) << '\n';
        }
        if (c.straggler.valid && c.rankFinish.count > 1)
        {
            os << "  " << StragglerSentence(c.straggler, "finished") << "; FCT p99 "
               << HumanTime(c.fct.p99) << ", slowdown p99 " << Fixed(c.slowdown.p99, 2) << '\n';
        }
        else if (c.fct.count > 0)
        {
            // One receiving rank (an incast, one transfer): no rank to compare, the tails alone.
            os << "  " << (c.rankFinish.count <= 1 ? "no straggler: one rank receives; " : "")
               << "FCT p99 " << HumanTime(c.fct.p99) << ", slowdown p99 "
               << Fixed(c.slowdown.p99, 2) << '\n';
        }
    }
    if (r.hasTraining)
    {
        PrintTraining(r.training, os);
    }
}

} // namespace ns3
