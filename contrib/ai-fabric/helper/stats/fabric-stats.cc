/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-stats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

namespace
{

/**
 * \brief Drop NaNs and sort ascending.
 * \param samples the samples, changed in place
 */
void
SortSamples(std::vector<double>& samples)
{
    samples.erase(
        std::remove_if(samples.begin(), samples.end(), [](double x) { return std::isnan(x); }),
        samples.end());
    std::sort(samples.begin(), samples.end());
}

/**
 * \brief R-7 percentile of samples already sorted ascending, without NaNs.
 * \param sorted the samples, not empty
 * \param p the percentile in percent, in [0, 100]
 * \return the percentile
 */
double
PercentileOfSorted(const std::vector<double>& sorted, double p)
{
    const size_t n = sorted.size();
    // p * (n - 1) is exact for integer p; one rounding in the division.
    const double h = p * static_cast<double>(n - 1) / 100.0;
    const auto k = std::min(static_cast<size_t>(std::floor(h)), n - 1);
    const double frac = h - static_cast<double>(k);
    if (k + 1 >= n || frac == 0.0 || sorted[k] == sorted[k + 1])
    {
        return sorted[k]; // also avoids inf - inf
    }
    return sorted[k] + frac * (sorted[k + 1] - sorted[k]);
}

/**
 * \brief Validate a percentile argument.
 * \param p the percentile in percent
 */
void
CheckPercent(double p)
{
    if (!(p >= 0.0 && p <= 100.0))
    {
        throw std::invalid_argument("Percentile: p must be in [0, 100], got " + std::to_string(p));
    }
}

} // namespace

double
Percentile(std::vector<double> samples, double p)
{
    CheckPercent(p);
    SortSamples(samples);
    if (samples.empty())
    {
        return 0.0;
    }
    return PercentileOfSorted(samples, p);
}

SampleSummary
Summarize(std::vector<double> samples)
{
    SampleSummary s;
    SortSamples(samples);
    if (samples.empty())
    {
        return s;
    }
    s.count = samples.size();
    s.min = samples.front();
    s.max = samples.back();
    double sum = 0.0;
    for (double x : samples)
    {
        sum += x; // ascending order: the result does not depend on the input order
    }
    s.mean = sum / static_cast<double>(samples.size());
    s.p50 = PercentileOfSorted(samples, 50.0);
    s.p90 = PercentileOfSorted(samples, 90.0);
    s.p99 = PercentileOfSorted(samples, 99.0);
    s.p999 = PercentileOfSorted(samples, 99.9);
    return s;
}

TailSummary
Tails(std::vector<double> samples)
{
    const SampleSummary s = Summarize(std::move(samples));
    TailSummary t;
    t.count = s.count;
    t.p50 = s.p50;
    t.p90 = s.p90;
    t.p99 = s.p99;
    t.p999 = s.p999;
    t.max = s.max;
    return t;
}

StragglerFigure
StragglerOf(const std::vector<double>& finishS, const std::vector<uint32_t>& gpus, double startS)
{
    StragglerFigure f;
    if (finishS.empty())
    {
        return f;
    }
    f.valid = true;
    for (uint32_t i = 1; i < finishS.size(); ++i)
    {
        if (finishS[i] > finishS[f.position])
        {
            f.position = i;
        }
    }
    f.gpu = f.position < gpus.size() ? gpus[f.position] : f.position;
    f.finishS = finishS[f.position];
    f.medianS = Percentile(finishS, 50.0);
    f.overMedian = f.medianS > startS ? (f.finishS - startS) / (f.medianS - startS)
                                      : std::numeric_limits<double>::quiet_NaN();
    f.minusMedianS = f.finishS - f.medianS;
    return f;
}

StragglerFigure
StragglerOf(const std::vector<double>& finishS,
            const std::vector<double>& scheduleS,
            const std::vector<uint32_t>& gpus,
            double startS)
{
    StragglerFigure f = StragglerOf(finishS, gpus, startS);
    if (!f.valid || scheduleS.size() != finishS.size())
    {
        return f;
    }
    f.scheduled = true;
    std::vector<double> delay(finishS.size());
    for (std::size_t i = 0; i < finishS.size(); ++i)
    {
        delay[i] = std::max(finishS[i] - scheduleS[i], 0.0);
        if (delay[i] > delay[f.delayedPosition])
        {
            f.delayedPosition = i;
        }
    }
    f.delayedGpu = f.delayedPosition < gpus.size() ? gpus[f.delayedPosition] : f.delayedPosition;
    f.delayS = delay[f.delayedPosition];
    f.medianDelayS = Percentile(delay, 50.0);
    f.lastDelayS = delay[f.position];
    f.fabric = f.delayS - f.medianDelayS
               > STRAGGLER_SHARE * std::max(finishS[f.delayedPosition] - startS, 0.0);
    return f;
}

void
FillTails(RunResults& r)
{
    std::vector<double> fct;
    std::vector<double> slow;
    std::vector<double> backlog;
    std::vector<double> shared;
    fct.reserve(r.flows.size());
    slow.reserve(r.flows.size());
    backlog.reserve(r.flows.size());
    shared.reserve(r.flows.size());
    for (const FlowRecord& f : r.flows)
    {
        fct.push_back(f.FctS());
        slow.push_back(f.Slowdown());
        backlog.push_back(f.BacklogS());
        shared.push_back(f.sharedS);
    }
    r.fct = Tails(fct);
    r.slowdown = Tails(slow);
    r.backlog = Tails(backlog);
    r.shared = Tails(shared);
    std::size_t flow = 0;
    for (CollectiveResult& c : r.collectives)
    {
        // flows are grouped per collective, in collective order
        std::vector<double> cf;
        std::vector<double> cs;
        std::vector<double> cb;
        std::vector<double> ch;
        std::unordered_map<uint32_t, uint32_t> position;
        for (uint32_t i = 0; i < c.rankGpus.size(); ++i)
        {
            position.emplace(c.rankGpus[i], i);
        }
        std::vector<char> receives(c.finishSPerRank.size(), 0);
        while (flow < r.flows.size() && r.flows[flow].collective == c.name)
        {
            cf.push_back(fct[flow]);
            cs.push_back(slow[flow]);
            cb.push_back(backlog[flow]);
            ch.push_back(shared[flow]);
            const auto at = position.find(r.flows[flow].dst);
            if (at != position.end() && at->second < receives.size())
            {
                receives[at->second] = 1;
            }
            ++flow;
        }
        c.fct = Tails(std::move(cf));
        c.slowdown = Tails(std::move(cs));
        c.backlog = Tails(std::move(cb));
        c.shared = Tails(std::move(ch));
        // ranks that receive nothing (a send-recv's senders) have no finish time
        std::vector<double> finish;
        std::vector<double> schedule;
        std::vector<uint32_t> gpus;
        const bool replayed = c.scheduleFinishSPerRank.size() == c.finishSPerRank.size();
        for (uint32_t i = 0; i < receives.size(); ++i)
        {
            if (receives[i])
            {
                finish.push_back(c.finishSPerRank[i]);
                if (replayed)
                {
                    schedule.push_back(c.scheduleFinishSPerRank[i]);
                }
                gpus.push_back(i < c.rankGpus.size() ? c.rankGpus[i] : i);
            }
        }
        c.rankFinish = Tails(finish);
        c.straggler = StragglerOf(finish, schedule, gpus, c.startS);
        if (c.straggler.valid)
        {
            // report the rank's position in the collective, not among the receivers
            c.straggler.position = position.count(c.straggler.gpu) ? position[c.straggler.gpu]
                                                                   : c.straggler.position;
            c.straggler.delayedPosition = position.count(c.straggler.delayedGpu)
                                              ? position[c.straggler.delayedGpu]
                                              : c.straggler.delayedPosition;
        }
    }
    for (TrainingIterationResult& it : r.training.iterations)
    {
        std::vector<double> ends;
        std::vector<double> schedule;
        std::vector<uint32_t> gpus;
        for (const TrainingRankResult& rr : r.training.ranks)
        {
            if (rr.iteration == it.iteration)
            {
                ends.push_back(rr.endS);
                schedule.push_back(rr.endS - rr.fabricDelayS);
                gpus.push_back(rr.gpu);
            }
        }
        it.rankEnd = Tails(ends);
        it.straggler = StragglerOf(ends, schedule, gpus, it.startS);
    }
}

double
BusBandwidthFactor(const std::string& op, uint32_t ranks)
{
    if (ranks == 0)
    {
        throw std::invalid_argument("BusBandwidthFactor: ranks must be at least 1 (op \"" + op
                                    + "\")");
    }
    std::string key;
    for (char c : op)
    {
        if (c != '-' && c != '_')
        {
            key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    const double n = ranks;
    if (key == "allreduce")
    {
        return 2.0 * (n - 1.0) / n;
    }
    if (key == "reducescatter" || key == "allgather" || key == "alltoall")
    {
        return (n - 1.0) / n;
    }
    if (key == "broadcast" || key == "reduce" || key == "sendrecv" || key == "permutation")
    {
        return 1.0;
    }
    throw std::invalid_argument("BusBandwidthFactor: unknown collective op \"" + op + "\"");
}

} // namespace ns3
