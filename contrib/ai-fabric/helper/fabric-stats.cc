/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-stats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

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
