/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
/**
 * \file
 * \ingroup ai-fabric-tests
 * GoogleTest cases for the exact unit parsers and formatters (units.h).
 * Needs picosecond resolution: the gtest main calls Time::SetResolution(Time::PS).
 */

#include "ns3/units.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <string>

namespace
{

using ns3::ParseBytes;
using ns3::ParseDataRate;
using ns3::ParseTime;
using ns3::UnitError;

/**
 * \ingroup ai-fabric-tests
 * \brief The message of the UnitError thrown by \p f, or "" if none was thrown.
 * \param f a callable
 * \return the message
 */
template<typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const UnitError& e)
    {
        return e.Message();
    }
    return "";
}

TEST(ParseBytes, AcceptsEveryUnit)
{
    EXPECT_EQ(ParseBytes("0B"), 0U);
    EXPECT_EQ(ParseBytes("1B"), 1U);
    EXPECT_EQ(ParseBytes("4096B"), 4096U);
    EXPECT_EQ(ParseBytes("1KB"), 1000U);
    EXPECT_EQ(ParseBytes("1kB"), 1000U);
    EXPECT_EQ(ParseBytes("2MB"), 2000000U);
    EXPECT_EQ(ParseBytes("3GB"), 3000000000ULL);
    EXPECT_EQ(ParseBytes("4TB"), 4000000000000ULL);
    EXPECT_EQ(ParseBytes("1KiB"), 1024U);
    EXPECT_EQ(ParseBytes("256MiB"), 268435456ULL);
    EXPECT_EQ(ParseBytes("1GiB"), 1073741824ULL);
    EXPECT_EQ(ParseBytes("2TiB"), 2199023255552ULL);
}

TEST(ParseBytes, AcceptsExactDecimalsAndBlanks)
{
    EXPECT_EQ(ParseBytes("1.5KiB"), 1536U);
    EXPECT_EQ(ParseBytes("1.5 KiB"), 1536U);
    EXPECT_EQ(ParseBytes("1.5\tKiB"), 1536U);
    EXPECT_EQ(ParseBytes("0.5MB"), 500000U);
    EXPECT_EQ(ParseBytes("1.000000000000000000000000000000000000000000KB"), 1000U);
    EXPECT_EQ(ParseBytes("0.001KB"), 1U);
    EXPECT_EQ(ParseBytes("007B"), 7U);
    EXPECT_EQ(ParseBytes("0.0B"), 0U);
    EXPECT_EQ(ParseBytes("0.25KiB"), 256U);
}

TEST(ParseBytes, AcceptsTheLargestValue)
{
    EXPECT_EQ(ParseBytes("18446744073709551615B"), std::numeric_limits<uint64_t>::max());
    // 16 EiB - 1 is 2^64 - 1; 16777216 TiB is 2^64: one too many.
    EXPECT_NE(ErrorOf([] { ParseBytes("18446744073709551616B"); }).find("too large"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("16777216TiB"); }).find("too large"), std::string::npos);
    EXPECT_EQ(ParseBytes("16777215TiB"), 16777215ULL << 40);
    EXPECT_NE(ErrorOf([] {
                  ParseBytes("99999999999999999999999999999999999999999999B");
              }).find("too large"),
              std::string::npos);
}

TEST(ParseBytes, RejectsMissingUnit)
{
    EXPECT_EQ(ErrorOf([] { ParseBytes("400"); }), "'400' has no unit; write e.g. '400MiB'");
    EXPECT_EQ(ErrorOf([] { ParseBytes("1.5"); }), "'1.5' has no unit; write e.g. '1.5MiB'");
}

TEST(ParseBytes, RejectsUnknownUnitListingTheAcceptedOnes)
{
    const std::string msg = ErrorOf([] { ParseBytes("4Kb"); });
    EXPECT_NE(msg.find("unknown unit 'Kb' in '4Kb'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("accepted size units: B, KB, kB, MB, GB, TB, KiB, MiB, GiB, TiB"),
              std::string::npos)
        << msg;
    EXPECT_NE(ErrorOf([] { ParseBytes("4mib"); }).find("did you mean 'MiB'?"), std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("4Gbps"); }).find("'Gbps' is a data rate unit"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("4bytes"); }).find("did you mean 'B'?"), std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("1e9B"); }).find("exponent notation"), std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("4 MiB x"); }).find("unknown unit 'MiB x'"),
              std::string::npos);
}

TEST(ParseBytes, RejectsSignsGarbageAndEmpty)
{
    EXPECT_EQ(ErrorOf([] { ParseBytes("-5MiB"); }), "'-5MiB': negative values are not allowed");
    EXPECT_EQ(ErrorOf([] { ParseBytes("-0B"); }), "'-0B': negative values are not allowed");
    EXPECT_NE(ErrorOf([] { ParseBytes("+5MiB"); }).find("'+'"), std::string::npos);
    EXPECT_EQ(ErrorOf([] { ParseBytes(""); }), "empty size; write e.g. '250MiB'");
    EXPECT_EQ(ErrorOf([] { ParseBytes("   "); }), "empty size; write e.g. '250MiB'");
    EXPECT_NE(ErrorOf([] { ParseBytes("abc"); }).find("is not a number followed by a unit"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("MiB"); }).find("is not a number followed by a unit"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes(".5KiB"); }).find("write a digit before the decimal point"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("5.KiB"); }).find("at least one digit after"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes(" 5KiB"); }).find("leading or trailing whitespace"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("5KiB "); }).find("leading or trailing whitespace"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("1.2.3KiB"); }).find("unknown unit"), std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseBytes("0x10B"); }).find("unknown unit"), std::string::npos);
}

TEST(ParseBytes, RejectsFractionsOfAByte)
{
    EXPECT_EQ(ErrorOf([] { ParseBytes("1.3B"); }), "'1.3B' is not a whole number of bytes");
    EXPECT_NE(ErrorOf([] { ParseBytes("1.0001KB"); }).find("not a whole number of bytes"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] {
                  ParseBytes("0.000000000000000000000000000000000000000001TB");
              }).find("not a whole number of bytes"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] {
                  ParseBytes("1.00000000000000000000000000000000000001B");
              }).find("too many significant digits"),
              std::string::npos);
}

TEST(ParseBytes, ThrowsTheBadInputError)
{
    // UnitError is a SpecError: uncaught, the tool reports it with exit status 2.
    EXPECT_THROW(ParseBytes("x"), ns3::SpecError);
}

TEST(ParseDataRate, AcceptsBitRates)
{
    EXPECT_EQ(ParseDataRate("400Gbps").GetBitRate(), 400000000000ULL);
    EXPECT_EQ(ParseDataRate("400 Gb/s").GetBitRate(), 400000000000ULL);
    EXPECT_EQ(ParseDataRate("1bps").GetBitRate(), 1U);
    EXPECT_EQ(ParseDataRate("1b/s").GetBitRate(), 1U);
    EXPECT_EQ(ParseDataRate("10Kbps").GetBitRate(), 10000U);
    EXPECT_EQ(ParseDataRate("10kbps").GetBitRate(), 10000U);
    EXPECT_EQ(ParseDataRate("10Kb/s").GetBitRate(), 10000U);
    EXPECT_EQ(ParseDataRate("10kb/s").GetBitRate(), 10000U);
    EXPECT_EQ(ParseDataRate("25Mbps").GetBitRate(), 25000000U);
    EXPECT_EQ(ParseDataRate("25Mb/s").GetBitRate(), 25000000U);
    EXPECT_EQ(ParseDataRate("1.6Tbps").GetBitRate(), 1600000000000ULL);
    EXPECT_EQ(ParseDataRate("1.6Tb/s").GetBitRate(), 1600000000000ULL);
    EXPECT_EQ(ParseDataRate("106.25Gbps").GetBitRate(), 106250000000ULL);
    EXPECT_EQ(ParseDataRate("0Gbps").GetBitRate(), 0U);
}

TEST(ParseDataRate, ConvertsByteRatesTimesEight)
{
    // FACTS.md: GB/s = 1e9 B/s.
    EXPECT_EQ(ParseDataRate("50GB/s").GetBitRate(), 400000000000ULL);
    EXPECT_EQ(ParseDataRate("900GB/s").GetBitRate(), 7200000000000ULL);
    EXPECT_EQ(ParseDataRate("1B/s").GetBitRate(), 8U);
    EXPECT_EQ(ParseDataRate("1KB/s").GetBitRate(), 8000U);
    EXPECT_EQ(ParseDataRate("1kB/s").GetBitRate(), 8000U);
    EXPECT_EQ(ParseDataRate("1MB/s").GetBitRate(), 8000000U);
    EXPECT_EQ(ParseDataRate("1TB/s").GetBitRate(), 8000000000000ULL);
    EXPECT_EQ(ParseDataRate("0.125B/s").GetBitRate(), 1U);
}

TEST(ParseDataRate, RejectsBadRates)
{
    EXPECT_EQ(ErrorOf([] { ParseDataRate("400"); }), "'400' has no unit; write e.g. '400Gbps'");
    EXPECT_EQ(ErrorOf([] { ParseDataRate("0.5bps"); }),
              "'0.5bps' is not a whole number of bits per second");
    EXPECT_NE(ErrorOf([] { ParseDataRate("0.1B/s"); }).find("not a whole number of bits"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseDataRate("-1Gbps"); }).find("negative values are not allowed"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseDataRate("50GBps"); }).find("write 'GB/s' for bytes per second"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseDataRate("400gbps"); }).find("did you mean 'Gbps'?"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] {
                  ParseDataRate("400Gbit");
              }).find("accepted data rate units: bps, Kbps, kbps, Mbps, Gbps, Tbps, b/s"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseDataRate("4MiB"); }).find("'MiB' is a size unit"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseDataRate("3000000TB/s"); }).find("too large"), std::string::npos);
}

TEST(ParseTime, AcceptsEveryUnitExactly)
{
    EXPECT_EQ(ParseTime("1s").GetPicoSeconds(), 1000000000000LL);
    EXPECT_EQ(ParseTime("10ms").GetPicoSeconds(), 10000000000LL);
    EXPECT_EQ(ParseTime("1.5us").GetPicoSeconds(), 1500000LL);
    EXPECT_EQ(ParseTime("1.5\xC2\xB5s").GetPicoSeconds(), 1500000LL); // micro sign
    EXPECT_EQ(ParseTime("2\xCE\xBCs").GetPicoSeconds(), 2000000LL);   // Greek mu
    EXPECT_EQ(ParseTime("250ns").GetPicoSeconds(), 250000LL);
    EXPECT_EQ(ParseTime("81.92ns").GetPicoSeconds(), 81920LL);
    EXPECT_EQ(ParseTime("1ps").GetPicoSeconds(), 1LL);
    EXPECT_EQ(ParseTime("0.000000000001s").GetPicoSeconds(), 1LL);
    EXPECT_EQ(ParseTime("0us").GetPicoSeconds(), 0LL);
    EXPECT_EQ(ParseTime("10 ms"), ns3::MilliSeconds(10));
}

TEST(ParseTime, RejectsBadDurations)
{
    EXPECT_EQ(ErrorOf([] { ParseTime("5"); }), "'5' has no unit; write e.g. '5us'");
    EXPECT_EQ(ErrorOf([] { ParseTime("0.5ps"); }),
              "'0.5ps' is finer than the simulator's 1 ps resolution");
    EXPECT_NE(ErrorOf([] { ParseTime("1.0001ns"); }).find("finer than"), std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseTime("-1us"); }).find("negative values are not allowed"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseTime("5sec"); }).find("did you mean 's'?"), std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseTime("5usec"); }).find("did you mean 'us'?"), std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseTime("5min"); }).find("accepted duration units: s, ms, us"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseTime("5GB"); }).find("'GB' is a size unit"), std::string::npos);
    // int64 picoseconds end at about 106 days.
    EXPECT_EQ(ParseTime("9223372036854775807ps").GetPicoSeconds(),
              std::numeric_limits<int64_t>::max());
    EXPECT_NE(ErrorOf([] { ParseTime("9223372036854775808ps"); }).find("too large"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseTime("10000000s"); }).find("too large"), std::string::npos);
}

TEST(FormatBytes, IsExactWhenPossible)
{
    EXPECT_EQ(ns3::FormatBytes(0), "0B");
    EXPECT_EQ(ns3::FormatBytes(1), "1B");
    EXPECT_EQ(ns3::FormatBytes(1000), "1KB");
    EXPECT_EQ(ns3::FormatBytes(1024), "1KiB");
    EXPECT_EQ(ns3::FormatBytes(4122), "4122B");
    EXPECT_EQ(ns3::FormatBytes(268435456ULL), "256MiB");
    EXPECT_EQ(ns3::FormatBytes(2000000000ULL), "2GB");
    EXPECT_EQ(ns3::FormatBytes(1ULL << 40), "1TiB");
    EXPECT_EQ(ns3::FormatBytes(1536), "1536B");
    EXPECT_EQ(ns3::FormatBytes(33554432ULL), "32MiB");
}

TEST(FormatBytes, RoundsWhenNotExact)
{
    EXPECT_EQ(ns3::FormatBytes(1500000001ULL), "1.50GB");
    EXPECT_EQ(ns3::FormatBytes(33767440ULL), "33.77MB");
    EXPECT_EQ(ns3::FormatBytes(999999999ULL), "1.00GB");
    EXPECT_EQ(ns3::FormatBytes(std::numeric_limits<uint64_t>::max()), "18446744.07TB");
}

TEST(FormatBytes, ExactFormsParseBack)
{
    for (uint64_t b : {1ULL,
                       999ULL,
                       1000ULL,
                       1024ULL,
                       4096ULL,
                       9999ULL,
                       1048576ULL,
                       268435456ULL,
                       3000000000ULL,
                       5ULL << 40})
    {
        EXPECT_EQ(ParseBytes(ns3::FormatBytes(b)), b) << ns3::FormatBytes(b);
    }
}

TEST(FormatTime, IsReadable)
{
    EXPECT_EQ(ns3::FormatTime(ns3::Seconds(0)), "0s");
    EXPECT_EQ(ns3::FormatTime(ns3::PicoSeconds(1234000000)), "1.234ms");
    EXPECT_EQ(ns3::FormatTime(ns3::PicoSeconds(81920)), "81.92ns");
    EXPECT_EQ(ns3::FormatTime(ns3::Seconds(1)), "1s");
    EXPECT_EQ(ns3::FormatTime(ns3::NanoSeconds(250)), "250ns");
    EXPECT_EQ(ns3::FormatTime(ns3::PicoSeconds(7)), "7ps");
    EXPECT_EQ(ns3::FormatTime(ns3::PicoSeconds(1500)), "1.5ns");
    EXPECT_EQ(ns3::FormatTime(ns3::PicoSeconds(1234567)), "1.235us");
    EXPECT_EQ(ns3::FormatTime(ns3::PicoSeconds(999999999)), "1ms");
    EXPECT_EQ(ns3::FormatTime(ns3::Seconds(120)), "120s");
    EXPECT_EQ(ns3::FormatTime(ns3::NanoSeconds(-250)), "-250ns");
    EXPECT_EQ(ns3::FormatTime(ns3::PicoSeconds(9454883200)), "9.455ms");
}

TEST(FormatTime, RoundTripsThroughParseTime)
{
    for (int64_t ps : {1LL, 999LL, 1000LL, 81920LL, 250000LL, 1500000LL, 1000000000000LL})
    {
        EXPECT_EQ(ParseTime(ns3::FormatTime(ns3::PicoSeconds(ps))).GetPicoSeconds(), ps);
    }
}

} // namespace
