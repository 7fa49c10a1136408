/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_UNITS_H
#define AI_FABRIC_UNITS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/spec-error.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A quantity string (size, rate, time) that cannot be parsed exactly: a bad-input
 * error (a SpecError without location), which the tool reports with exit status 2.
 *
 * Message() is a sentence fragment the user can act on, without the key name or
 * the file location: the YAML readers prefix the key and rethrow it as a SpecError
 * located at the value (file:line:col); uncaught, what() is "error: MESSAGE".
 */
class UnitError : public SpecError
{
  public:
    /**
     * \param message what is wrong with the value, and how to write it instead
     */
    explicit UnitError(const std::string& message);
};

/**
 * \ingroup ai-fabric
 * \brief Parse a byte count such as "256MiB", "4096B", "1.5 KiB" or "2GB".
 *
 * Grammar: `DIGITS [ "." DIGITS ] [ SPACES ] UNIT`, where SPACES are blanks or
 * tabs and UNIT is one of B, KB, kB, MB, GB, TB (powers of 1000) or KiB, MiB,
 * GiB, TiB (powers of 1024). Units are case-sensitive. A decimal mantissa is
 * allowed as long as the result is a whole number of bytes ("1.5KiB" = 1536,
 * "1.3B" is an error). The arithmetic is exact (no floating point).
 *
 * \param text the quantity, e.g. "256MiB"
 * \return the number of bytes (0 for a zero quantity: the caller decides whether zero is allowed)
 * \throws UnitError if the text has no unit, an unknown unit, a sign, is not a
 *         whole number of bytes, does not fit in 64 bits, or is not a number
 */
uint64_t ParseBytes(const std::string& text);

/**
 * \ingroup ai-fabric
 * \brief Parse a data rate such as "400Gbps", "100 Gb/s" or "50GB/s".
 *
 * Grammar as ParseBytes(). Bit-rate units: bps, Kbps, kbps, Mbps, Gbps, Tbps,
 * b/s, Kb/s, kb/s, Mb/s, Gb/s, Tb/s (powers of 1000). Byte-rate units: B/s,
 * KB/s, kB/s, MB/s, GB/s, TB/s (powers of 1000 bytes, times 8: GB/s = 8e9 bit/s,
 * as in FACTS.md). The result must be a whole number of bits per second.
 *
 * \param text the rate, e.g. "400Gbps"
 * \return the rate (DataRate(0) for a zero quantity)
 * \throws UnitError on bad input, see ParseBytes()
 */
DataRate ParseDataRate(const std::string& text);

/**
 * \ingroup ai-fabric
 * \brief Parse a duration such as "250ns", "1.5us", "10 ms" or "1s".
 *
 * Grammar as ParseBytes(). Units: s, ms, us, µs (micro sign U+00B5 or Greek mu
 * U+03BC, UTF-8), ns, ps. The result is exact to the picosecond and is built
 * with PicoSeconds(): the program must run at picosecond resolution
 * (Time::SetResolution(Time::PS) in main). Anything finer than 1 ps ("0.5ps",
 * "1.0001ns") is an error, as is anything beyond int64 picoseconds (about 106
 * days).
 *
 * \param text the duration, e.g. "250ns"
 * \return the duration (zero for a zero quantity)
 * \throws UnitError on bad input, see ParseBytes()
 */
Time ParseTime(const std::string& text);

/**
 * \ingroup ai-fabric
 * \brief Format a byte count for reports.
 *
 * Exact when possible, in the unit that gives the shortest text: "256MiB",
 * "2GB", "4122B"; otherwise (large counts that are no whole multiple of a
 * unit) a rounded decimal form such as "1.50GB". Exact forms parse back with
 * ParseBytes().
 *
 * \param bytes the byte count
 * \return the readable text
 */
std::string FormatBytes(uint64_t bytes);

/**
 * \ingroup ai-fabric
 * \brief Format a duration for reports, e.g. "1.234ms", "81.92ns", "1s".
 *
 * Uses the largest of s, ms, us, ns, ps in which the value is at least 1, with
 * at most three decimals (rounded half away from zero; trailing zeros dropped).
 *
 * \param t the duration (may be negative)
 * \return the readable text
 */
std::string FormatTime(Time t);

} // namespace ns3

#endif /* AI_FABRIC_UNITS_H */
