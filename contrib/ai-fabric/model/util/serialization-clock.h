/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SERIALIZATION_CLOCK_H
#define AI_FABRIC_SERIALIZATION_CLOCK_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Exact serialization times in picoseconds: bits * 10^12 / rate, in integers.
 *
 * A port transmits a stream of packets back to back. Rounding each packet's time on its own
 * drifts by up to a picosecond per packet; Next() carries the remainder of the division from
 * one packet to the next instead, so the stream's end is exact: the sum of Next() over a
 * stream equals floor(total bits * 10^12 / rate). Floor() and Ceil() are the one-off forms
 * (an ideal time, a pacing gap).
 */
class SerializationClock
{
  public:
    /// \param bitRate the line rate, bit/s (0 only until SetRate)
    explicit SerializationClock(uint64_t bitRate = 0)
        : m_bps(bitRate)
    {
    }

    /**
     * \brief Change the rate; the carried remainder restarts at 0 (if the rate changes).
     * \param bitRate bit/s, positive
     */
    void SetRate(uint64_t bitRate)
    {
        if (bitRate != m_bps)
        {
            m_bps = bitRate;
            m_remainder = 0;
        }
    }

    /// \return the rate, bit/s
    uint64_t GetRate() const
    {
        return m_bps;
    }

    /**
     * \brief The next packet of the stream.
     * \param bytes its bytes on the wire
     * \return its serialization time, ps (with the rounding remainder carried to the next)
     */
    uint64_t Next(uint64_t bytes)
    {
        const unsigned __int128 num
            = static_cast<unsigned __int128>(bytes) * 8u * PS_PER_S + m_remainder;
        m_remainder = static_cast<uint64_t>(num % m_bps);
        return static_cast<uint64_t>(num / m_bps);
    }

    /**
     * \param bytes bytes on the wire
     * \param bitRate bit/s, positive
     * \return bytes * 8 * 10^12 / bitRate ps, rounded down
     */
    static uint64_t Floor(uint64_t bytes, uint64_t bitRate)
    {
        return static_cast<uint64_t>(static_cast<unsigned __int128>(bytes) * 8u * PS_PER_S
                                     / bitRate);
    }

    /**
     * \param bytes bytes on the wire
     * \param bitRate bit/s, positive
     * \return bytes * 8 * 10^12 / bitRate ps, rounded up
     */
    static uint64_t Ceil(uint64_t bytes, uint64_t bitRate)
    {
        return static_cast<uint64_t>(
            (static_cast<unsigned __int128>(bytes) * 8u * PS_PER_S + bitRate - 1) / bitRate);
    }

  private:
    static constexpr uint64_t PS_PER_S = 1000000000000ull; //!< picoseconds per second

    uint64_t m_bps{0};       //!< the rate, bit/s
    uint64_t m_remainder{0}; //!< carried remainder of the division, bit-ps units
};

} // namespace ns3

#endif /* AI_FABRIC_SERIALIZATION_CLOCK_H */
