/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_QUEUE_DEPTH_HISTOGRAM_H
#define AI_FABRIC_QUEUE_DEPTH_HISTOGRAM_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Time spent at each depth of a queue, in geometric buckets, for time-weighted
 * percentiles.
 *
 * Buckets: one for an empty queue, then 4 per octave: bucket [2^e (1 + s/4),
 * 2^e (1 + (s+1)/4)) for s = 0..3 and e = 0..63. The owner calls Account() with the depth
 * that held since the previous call, before each change of depth: O(1), and no allocation
 * after the first call. Percentile() returns the upper edge of the bucket holding the
 * percentile, capped at the peak depth: at most 25 % above the true value, exactly 0 for an
 * empty queue.
 */
class QueueDepthHistogram
{
  public:
    /// Buckets: 0 = empty, then 4 per octave of 2^e for e = 0..63.
    static constexpr uint32_t BUCKETS = 1 + 4 * 64;

    /**
     * \param depth a queue depth
     * \return its bucket
     */
    static uint32_t BucketOf(uint64_t depth)
    {
        if (depth == 0)
        {
            return 0;
        }
        const uint32_t e = 63 - __builtin_clzll(depth);
        // the two bits below the leading one
        const uint32_t sub
            = e >= 2 ? static_cast<uint32_t>(depth >> (e - 2)) & 3 : (e == 1 ? (depth & 1) * 2 : 0);
        return 1 + 4 * e + sub;
    }

    /**
     * \param bucket a bucket
     * \return its upper edge (exclusive)
     */
    static double BucketUpper(uint32_t bucket);

    /**
     * \brief Credit the time since the previous call to the depth that held in between.
     * \param now the current time, time steps
     * \param depth the depth since the previous call
     */
    void Account(int64_t now, uint64_t depth)
    {
        if (m_time.empty())
        {
            m_time.assign(BUCKETS, 0);
        }
        m_time[BucketOf(depth)] += now - m_since;
        m_since = now;
    }

    /**
     * \brief Time-weighted percentile of the depth over [0, now].
     * \param now the current time, time steps
     * \param depth the depth now (it has held since the last Account())
     * \param peak the largest depth so far
     * \param p percent, 0 < p <= 100
     * \return the depth
     */
    uint64_t Percentile(int64_t now, uint64_t depth, uint64_t peak, double p) const;

  private:
    std::vector<int64_t> m_time; //!< time steps per bucket (allocated at the first Account)
    int64_t m_since{0};          //!< time of the last Account(), time steps
};

} // namespace ns3

#endif /* AI_FABRIC_QUEUE_DEPTH_HISTOGRAM_H */
