/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "validation-measure.h"

#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"

#include "ns3/analytic-model.h"
#include "ns3/bisection-meter.h"
#include "ns3/fabric-graph.h"
#include "ns3/pipeline-schedule.h"
#include "ns3/topology-analyzer.h"
#include "ns3/training-workload.h"
#include "ns3/units.h"
#include "ns3/workload.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

namespace
{

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

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
    if (col.op == CollectiveOp::SEND_RECV)
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
    std::string note;
    for (const auto& part : parts)
    {
        note += (note.empty() ? "" : ", ") + part;
    }
    return note;
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
    const WorkloadGroup g = MakeWorkloadGroup(spec.traffic.collectives[index],
                                              graph.GetGpuCount(),
                                              graph.GetEndpointPlaces(),
                                              &graph);
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
                        + SizeLabel(c.extrapolateTo) + " takes " + FormatSignificant(sim)
                        + " s against " + FormatSignificant(c.claimed[0]) + " s claimed and "
                        + FormatSignificant(f.analytic) + " s by "
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
            o.summary = "At " + SizeLabel(p.bytes) + " the simulation takes "
                        + FormatSignificant(p.result.durationS * 1e6) + " us, "
                        + FormatSignificant(ratio, 3) + "x " + model + " ("
                        + FormatSignificant(p.result.analyticS * 1e6) + " us)"
                        + (c.claimedRatio > 0
                               ? "; claimed ratio " + FormatSignificant(c.claimedRatio, 3) + "x"
                               : "")
                        + ".";
        }
        else
        {
            std::string ratios;
            for (const auto& q : points)
            {
                ratios += (ratios.empty() ? "" : ", ")
                          + FormatSignificant(q.result.durationS / q.result.analyticS, 3) + " at "
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
    o.summary = "Fitted to the simulated times, alpha = " + FormatSignificant(alpha * 1e6)
                + " us and 1/beta = " + FormatSignificant(1e-9 / beta) + " GB/s give n* = "
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
        // v is 1 unless the schedule is interleaved (ValidateTrainingSpec).
        const double v = spec.traffic.training.virtualStages;
        const Ptr<PipelineSchedule> schedule
            = CreatePipelineSchedule(spec.traffic.training.schedule);
        ValidationRow row;
        row.point = "m = " + std::to_string(ms[i]);
        row.unit = "fraction";
        if (c.quantity == "idle-fraction")
        {
            row.analytic = schedule->IdleFraction(p, m, v);
            row.simulated = it.pipelineIdleS / it.stepS;
        }
        else
        {
            row.analytic = schedule->RelativeOverhead(p, m, v);
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
            sims += (sims.empty() ? "" : ", ") + FormatSignificant(100 * row.simulated, 3) + " %";
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
        if (std::find(kinds.begin(), kinds.end(), comm.kind) != kinds.end())
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
        row.point = "TP all-reduce bytes (" + FormatSignificant(groups) + " all-reduces of "
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
        row.point
            = "DP gradient all-reduce bytes (N = " + FormatSignificant(sizes.totalParams, 4) + ")";
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
        row.point = "m = " + std::to_string(m) + ", CCR = " + FormatSignificant(ccr, 3) + " FLOP/B";
        row.unit = "ratio";
        row.analytic = ccr / ridge;
        row.simulated = it.computeS / it.exposedDataS;
        row.regime = ccr < ridge ? "comm" : "compute";
        row.note = CongestionNote(r);
        o.rows.push_back(row);
    }
    o.summary = "Ridge CCR* = " + FormatSignificant(flops / bandwidth, 4) + " FLOP/B ("
                + FormatSignificant(flops / 1e12, 4) + " TFLOP/s achieved over "
                + FormatSignificant(bandwidth / 1e9, 4) + " GB/s).";
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
                           + FormatSignificant(ratio.simulated, 3) + "x";
            }
        }
        else
        {
            for (std::size_t qi = 0; qi < nq; ++qi)
            {
                summary += (summary.empty() ? "" : "; ") + c.quantities[qi] + " "
                           + FormatValidationValue(values[qi][0], CompareUnit(c.quantities[qi]));
            }
        }
    }
    o.summary
        = "Simulated: " + summary
          + (c.claimedRatio > 0 ? " (claimed " + FormatSignificant(c.claimedRatio, 3) + "x)" : "")
          + ".";
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
    const BisectionRecord* m = nullptr;
    for (const BisectionRecord& b : r.bisection)
    {
        m = b.collective == cr->name ? &b : m;
    }
    if (m == nullptr)
    {
        throw std::logic_error("validation: no bisection measured for the collective");
    }
    // What the cut can carry, payload: the analyzer's max-flow capacity of the cut, or
    // what the hosts can push across it if that is less. A host sends (and receives) at
    // its link's payload rate, split over its destinations in proportion to the bytes:
    // side A -> B carries at most sum over A's senders of rate x (their bytes that
    // cross / their bytes), and over B's receivers likewise.
    const LinkProfile& link = spec.topology.hostLink ? *spec.topology.hostLink : spec.topology.link;
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
    row.simulated = m->crossingGbps * 1e9;
    row.regime = capacity <= hosts ? "cut-bound" : "host-bound";
    row.note = CongestionNote(r);
    o.rows.push_back(row);
    o.summary = "Across the analyzer's cut (" + cut.split + ": " + cut.cut + ", max-flow "
                + FormatSignificant(cut.analyticGbps / 8, 4) + " GB/s one direction, formula "
                + FormatSignificant(cut.formulaGbps / 8, 4) + " GB/s) the " + cr->op
                + "'s payload between the sides crossed the cut's links at "
                + FormatSignificant(m->crossingGbps / 8, 4)
                + " GB/s in their busier direction (the links "
                + FormatSignificant(100 * m->utilizationMean, 3) + " % busy, "
                + FormatSignificant(100 * m->crossingShare, 3)
                + " % of their payload between the sides); the hosts could push "
                + FormatSignificant(hosts / 8, 4) + " GB/s across it.";
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
        o.summary = "MISSION F15 gives " + FormatSignificant(b.missionF15Bps / 8e9, 6)
                    + " GB/s; max-flow across the same cut finds "
                    + FormatSignificant(b.maxFlowBps / 8e9, 6) + " GB/s one direction ("
                    + FormatSignificant(b.missionF15Bps / b.maxFlowBps, 3) + "x).";
    }
    o.rows.push_back(row);
}

// ---------------------------------------------------------------- points

/// \return one point
std::size_t
OnePoint(const ValidationCase& /* c */)
{
    return 1;
}

/// \return a point per micro-batch count (or the scenario's one)
std::size_t
MicroBatchPoints(const ValidationCase& c)
{
    return std::max<std::size_t>(1, c.microBatches.size());
}

/// \return a point per size (or the scenario's one); one when extrapolating
std::size_t
SizePoints(const ValidationCase& c)
{
    return c.extrapolateTo > 0 ? 1 : std::max<std::size_t>(1, c.sizes.size());
}

/// \return a point per run, size and quantity
std::size_t
ComparePoints(const ValidationCase& c)
{
    return c.runs.size() * std::max<std::size_t>(1, c.sizes.size()) * c.quantities.size();
}

} // namespace

// ---------------------------------------------------------------- registry

const std::vector<ValidationMeasure>&
ValidationMeasures()
{
    using Need = ValidationScenarioNeed;
    // name, unit, computed, quantities, need, sizes, fits, model, extrapolates, runs, formula,
    // run, points
    static const std::vector<ValidationMeasure> measures = {
        {"collective-time",
         "s",
         "the collective's duration at each size",
         {},
         Need::COLLECTIVE,
         true,
         false,
         true,
         true,
         false,
         true,
         &CollectiveTimeCase,
         &SizePoints},
        {"crossover",
         "s",
         "the duration at each size; alpha, beta and n* = alpha/beta by a least-squares fit",
         {},
         Need::COLLECTIVE,
         true,
         true,
         true,
         false,
         false,
         true,
         &CrossoverCase,
         &OnePoint},
        {"pipeline-bubble",
         "fraction",
         "iteration 0 at each m: mean pipeline idle over step time, or over compute time",
         {"idle-fraction", "relative-overhead"},
         Need::TRAINING,
         false,
         false,
         false,
         false,
         false,
         true,
         &PipelineBubbleCase,
         &MicroBatchPoints},
        {"traffic-volume",
         "B",
         "payload bytes of the training groups of the quantity's kind",
         {"tp", "pp", "dp", "moe"},
         Need::TRAINING,
         false,
         false,
         false,
         false,
         false,
         true,
         &TrafficVolumeCase,
         &OnePoint},
        {"roofline",
         "ratio",
         "compute time over exposed data-parallel communication time",
         {},
         Need::TRAINING,
         false,
         false,
         false,
         false,
         false,
         true,
         &RooflineCase,
         &OnePoint},
        {"compare",
         "per quantity (s, B or fraction)",
         "the quantity in every run, and the ratio last run / first run",
         {"step-time",
          "tp-time",
          "pp-exposed",
          "pp-bytes-per-boundary",
          "collective-time",
          "moe-local-fraction",
          "moe-network-bytes",
          "moe-dispatch-time"},
         Need::ANY,
         false,
         false,
         false,
         false,
         true,
         false,
         &CompareCase,
         &ComparePoints},
        {"bisection-formula",
         "bps",
         "max-flow across the analyzer's split (no simulation)",
         {"analyzer-formula", "mission-f15"},
         Need::TOPOLOGY,
         false,
         false,
         false,
         false,
         false,
         true,
         &BisectionFormulaCase,
         &OnePoint},
        {"bisection",
         "bps",
         "payload rate across the cut in the busier direction over the collective's window",
         {},
         Need::COLLECTIVE,
         false,
         false,
         false,
         false,
         false,
         true,
         &BisectionCase,
         &OnePoint},
    };
    return measures;
}

const ValidationMeasure*
FindValidationMeasure(const std::string& name)
{
    for (const ValidationMeasure& m : ValidationMeasures())
    {
        if (m.name == name)
        {
            return &m;
        }
    }
    return nullptr;
}

std::vector<std::string>
ValidationMeasureNames()
{
    std::vector<std::string> names;
    for (const ValidationMeasure& m : ValidationMeasures())
    {
        names.push_back(m.name);
    }
    return names;
}

} // namespace ns3
