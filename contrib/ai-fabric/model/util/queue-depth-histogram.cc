/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "queue-depth-histogram.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

double
QueueDepthHistogram::BucketUpper(uint32_t bucket)
{
    if (bucket == 0)
    {
        return 0;
    }
    const uint32_t e = (bucket - 1) / 4;
    const uint32_t sub = (bucket - 1) % 4;
    return std::ldexp(1.0 + (sub + 1) / 4.0, static_cast<int>(e));
}

uint64_t
QueueDepthHistogram::Percentile(int64_t now, uint64_t depth, uint64_t peak, double p) const
{
    if (m_time.empty())
    {
        return 0;
    }
    const uint32_t current = BucketOf(depth);
    int64_t total = now - m_since;
    for (const int64_t t : m_time)
    {
        total += t;
    }
    if (total <= 0)
    {
        return 0;
    }
    // the smallest bucket b with (time in buckets <= b) >= p% of the total
    const double need = total * (p / 100.0);
    double acc = 0;
    for (uint32_t b = 0; b < BUCKETS; ++b)
    {
        acc += m_time[b] + (b == current ? now - m_since : 0);
        if (acc >= need && acc > 0)
        {
            const double upper = BucketUpper(b);
            return std::min<uint64_t>(peak,
                                      upper >= 1.8e19 ? peak
                                                      : static_cast<uint64_t>(std::ceil(upper)));
        }
    }
    return peak;
}

} // namespace ns3
