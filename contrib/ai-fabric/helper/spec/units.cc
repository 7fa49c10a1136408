/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "units.h"

#include "ns3/abort.h"

#include <cctype>
#include <cstdio>
#include <limits>
#include <vector>

namespace ns3
{

UnitError::UnitError(const std::string& message)
    : SpecError(SpecLocation(), message)
{
}

namespace
{

/// Exact intermediate arithmetic: mantissa (<= 1e25) times unit factor (<= 8e12) fits in 2^128.
/// (__extension__ keeps -Wpedantic quiet about the GCC/Clang built-in type.)
__extension__ typedef unsigned __int128 Uint128;

/// Mantissas are capped at this value, so that mantissa * factor never overflows Uint128.
constexpr Uint128 MANTISSA_CAP = static_cast<Uint128>(10000000000000ULL) * 1000000000000ULL;

/**
 * \ingroup ai-fabric
 * \brief One accepted unit: its spelling and its value in the base unit.
 */
struct UnitDef
{
    const char* name; //!< spelling, case-sensitive
    Uint128 factor;   //!< value of one unit in the base unit (byte, bit/s or ps)
};

/**
 * \ingroup ai-fabric
 * \brief What a parser accepts and how it words its errors.
 */
struct QuantityKind
{
    const char* what;           //!< "size", "data rate", "duration"
    const char* exampleUnit;    //!< unit used in "write e.g." hints
    const char* inexact;        //!< message tail when the value is not a whole base unit
    std::vector<UnitDef> units; //!< accepted units
    Uint128 max;                //!< largest representable value, base units
    std::string maxText;        //!< max, for messages
};

constexpr Uint128 KILO = 1000;
constexpr Uint128 KIBI = 1024;

/// \return the size units (base unit: byte)
const QuantityKind&
BytesKind()
{
    static const QuantityKind kind{"size",
                                   "MiB",
                                   "is not a whole number of bytes",
                                   {{"B", 1},
                                    {"KB", KILO},
                                    {"kB", KILO},
                                    {"MB", KILO * KILO},
                                    {"GB", KILO * KILO * KILO},
                                    {"TB", KILO * KILO * KILO * KILO},
                                    {"KiB", KIBI},
                                    {"MiB", KIBI * KIBI},
                                    {"GiB", KIBI * KIBI * KIBI},
                                    {"TiB", KIBI * KIBI * KIBI * KIBI}},
                                   std::numeric_limits<uint64_t>::max(),
                                   std::to_string(std::numeric_limits<uint64_t>::max()) + " bytes"};
    return kind;
}

/// \return the data-rate units (base unit: bit per second)
const QuantityKind&
RateKind()
{
    static const QuantityKind kind{"data rate",
                                   "Gbps",
                                   "is not a whole number of bits per second",
                                   {{"bps", 1},
                                    {"Kbps", KILO},
                                    {"kbps", KILO},
                                    {"Mbps", KILO * KILO},
                                    {"Gbps", KILO * KILO * KILO},
                                    {"Tbps", KILO * KILO * KILO * KILO},
                                    {"b/s", 1},
                                    {"Kb/s", KILO},
                                    {"kb/s", KILO},
                                    {"Mb/s", KILO * KILO},
                                    {"Gb/s", KILO * KILO * KILO},
                                    {"Tb/s", KILO * KILO * KILO * KILO},
                                    {"B/s", 8},
                                    {"KB/s", 8 * KILO},
                                    {"kB/s", 8 * KILO},
                                    {"MB/s", 8 * KILO * KILO},
                                    {"GB/s", 8 * KILO * KILO * KILO},
                                    {"TB/s", 8 * KILO * KILO * KILO * KILO}},
                                   std::numeric_limits<uint64_t>::max(),
                                   std::to_string(std::numeric_limits<uint64_t>::max()) + "bps"};
    return kind;
}

/// \return the duration units (base unit: picosecond)
const QuantityKind&
TimeKind()
{
    static const QuantityKind kind{"duration",
                                   "us",
                                   "is finer than the simulator's 1 ps resolution",
                                   {{"s", KILO * KILO * KILO * KILO},
                                    {"ms", KILO * KILO * KILO},
                                    {"us", KILO * KILO},
                                    {"\xC2\xB5s", KILO * KILO}, // micro sign U+00B5
                                    {"\xCE\xBCs", KILO * KILO}, // Greek small letter mu U+03BC
                                    {"ns", KILO},
                                    {"ps", 1}},
                                   static_cast<Uint128>(std::numeric_limits<int64_t>::max()),
                                   std::to_string(std::numeric_limits<int64_t>::max())
                                       + "ps, about 106 days"};
    return kind;
}

/**
 * \param c a character
 * \return true for the blanks allowed between number and unit
 */
bool
IsBlank(char c)
{
    return c == ' ' || c == '\t';
}

/**
 * \param c a character
 * \return true for an ASCII decimal digit
 */
bool
IsDigit(char c)
{
    return c >= '0' && c <= '9';
}

/**
 * \param s a string
 * \return s in ASCII lower case
 */
std::string
Lower(const std::string& s)
{
    std::string out = s;
    for (auto& c : out)
    {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

/**
 * \param kind the quantity kind
 * \return "B, KB, kB, ..." (the ASCII spellings; the micro sign is mentioned once)
 */
std::string
AcceptedUnits(const QuantityKind& kind)
{
    std::string out;
    for (const auto& u : kind.units)
    {
        if (!out.empty())
        {
            out += ", ";
        }
        out += u.name;
    }
    return out;
}

/**
 * \param kind the quantity kind
 * \param unit a unit spelling
 * \return the unit's definition, or nullptr
 */
const UnitDef*
FindUnit(const QuantityKind& kind, const std::string& unit)
{
    for (const auto& u : kind.units)
    {
        if (unit == u.name)
        {
            return &u;
        }
    }
    return nullptr;
}

/**
 * \brief Build the message for an unknown unit, with a hint when one is obvious.
 * \param kind the expected quantity kind
 * \param text the whole value
 * \param unit the unit part
 * \return the message
 */
std::string
UnknownUnitMessage(const QuantityKind& kind, const std::string& text, const std::string& unit)
{
    std::string msg = "unknown unit '" + unit + "' in '" + text + "'";
    std::string hint;
    if (!unit.empty() && (unit[0] == 'e' || unit[0] == 'E') && unit.size() > 1
        && (IsDigit(unit[1]) || unit[1] == '-' || unit[1] == '+'))
    {
        hint = "exponent notation is not supported; write the digits out or use a larger unit";
    }
    else if (&kind == &RateKind() && unit.size() >= 3
             && unit.compare(unit.size() - 3, 3, "Bps") == 0)
    {
        const std::string prefix = unit.substr(0, unit.size() - 3);
        hint = "'" + unit + "' is ambiguous; write '" + prefix + "B/s' for bytes per second or '"
               + prefix + "bps' for bits per second";
    }
    else
    {
        for (const QuantityKind* other : {&BytesKind(), &RateKind(), &TimeKind()})
        {
            if (other != &kind && FindUnit(*other, unit))
            {
                hint = "'" + unit + "' is a " + other->what + " unit, but a " + kind.what
                       + " is expected";
                break;
            }
        }
        if (hint.empty())
        {
            static const std::vector<std::pair<std::string, std::string>> aliases = {
                {"sec", "s"},
                {"secs", "s"},
                {"second", "s"},
                {"seconds", "s"},
                {"msec", "ms"},
                {"usec", "us"},
                {"nsec", "ns"},
                {"psec", "ps"},
                {"byte", "B"},
                {"bytes", "B"},
            };
            for (const auto& a : aliases)
            {
                if (Lower(unit) == a.first && FindUnit(kind, a.second))
                {
                    hint = "did you mean '" + a.second + "'?";
                }
            }
        }
        if (hint.empty())
        {
            for (const auto& u : kind.units)
            {
                if (Lower(unit) == Lower(u.name))
                {
                    hint = std::string("did you mean '") + u.name + "'? (units are case-sensitive)";
                    break;
                }
            }
        }
    }
    if (!hint.empty())
    {
        msg += "; " + hint;
    }
    return msg + "; accepted " + kind.what + " units: " + AcceptedUnits(kind);
}

/**
 * \brief Parse "<decimal>[blanks]<unit>" exactly.
 * \param text the value
 * \param kind what is expected
 * \return the value in the kind's base unit, <= kind.max
 */
Uint128
ParseQuantity(const std::string& text, const QuantityKind& kind)
{
    const std::string example = std::string("250") + kind.exampleUnit;
    bool allBlank = true;
    for (char c : text)
    {
        allBlank = allBlank && (IsBlank(c) || c == '\n' || c == '\r');
    }
    if (allBlank)
    {
        throw UnitError(std::string("empty ") + kind.what + "; write e.g. '" + example + "'");
    }
    if (std::isspace(static_cast<unsigned char>(text.front()))
        || std::isspace(static_cast<unsigned char>(text.back())))
    {
        throw UnitError("'" + text + "' has leading or trailing whitespace");
    }
    std::size_t pos = 0;
    if (text[0] == '-')
    {
        throw UnitError("'" + text + "': negative values are not allowed");
    }
    if (text[0] == '+')
    {
        throw UnitError("'" + text + "': write the value without a '+' sign");
    }

    // Integer part.
    Uint128 mantissa = 0;
    bool tooLarge = false;
    const std::size_t intBegin = pos;
    while (pos < text.size() && IsDigit(text[pos]))
    {
        const Uint128 next = mantissa * 10 + static_cast<unsigned>(text[pos] - '0');
        if (tooLarge || next > MANTISSA_CAP)
        {
            tooLarge = true; // the integer part alone exceeds 1e25 of any unit
        }
        else
        {
            mantissa = next;
        }
        ++pos;
    }
    const bool haveInt = pos > intBegin;
    const Uint128 integerPart = mantissa;
    bool tooPrecise = false;

    // Fraction part (trailing zeros do not change the value and are dropped).
    unsigned fractionDigits = 0;
    bool haveFraction = false;
    if (pos < text.size() && text[pos] == '.')
    {
        ++pos;
        const std::size_t fracBegin = pos;
        while (pos < text.size() && IsDigit(text[pos]))
        {
            ++pos;
        }
        haveFraction = pos > fracBegin;
        std::size_t fracEnd = pos;
        while (fracEnd > fracBegin && text[fracEnd - 1] == '0')
        {
            --fracEnd;
        }
        for (std::size_t i = fracBegin; i < fracEnd && !tooLarge && !tooPrecise; ++i)
        {
            const Uint128 next = mantissa * 10 + static_cast<unsigned>(text[i] - '0');
            if (next > MANTISSA_CAP)
            {
                tooPrecise = true;
            }
            else
            {
                mantissa = next;
                ++fractionDigits;
            }
        }
        if (!haveFraction)
        {
            if (!haveInt)
            {
                throw UnitError("'" + text + "' is not a number followed by a unit; write e.g. '"
                                + example + "'");
            }
            throw UnitError("'" + text + "': write at least one digit after the decimal point");
        }
        if (!haveInt)
        {
            throw UnitError("'" + text + "': write a digit before the decimal point, e.g. '0" + text
                            + "'");
        }
    }
    if (!haveInt)
    {
        throw UnitError("'" + text + "' is not a number followed by a unit; write e.g. '" + example
                        + "'");
    }
    const std::string number = text.substr(0, pos);

    while (pos < text.size() && IsBlank(text[pos]))
    {
        ++pos;
    }
    const std::string unit = text.substr(pos);
    if (unit.empty())
    {
        throw UnitError("'" + text + "' has no unit; write e.g. '" + number + kind.exampleUnit
                        + "'");
    }
    const UnitDef* def = FindUnit(kind, unit);
    if (!def)
    {
        throw UnitError(UnknownUnitMessage(kind, text, unit));
    }
    if (tooLarge || integerPart * def->factor > kind.max)
    {
        throw UnitError("'" + text + "' is too large (at most " + kind.maxText + ")");
    }
    if (tooPrecise)
    {
        throw UnitError("'" + text + "' has too many significant digits");
    }

    // value = mantissa * factor / 10^fractionDigits, exactly.
    const Uint128 numerator = mantissa * def->factor; // < 1e25 * 8e12 < 2^128
    if (numerator == 0)
    {
        return 0;
    }
    if (fractionDigits > 38) // 10^39 does not fit, and numerator < 10^38
    {
        throw UnitError("'" + text + "' " + kind.inexact);
    }
    Uint128 denominator = 1;
    for (unsigned i = 0; i < fractionDigits; ++i)
    {
        denominator *= 10;
    }
    if (numerator % denominator != 0)
    {
        throw UnitError("'" + text + "' " + kind.inexact);
    }
    const Uint128 value = numerator / denominator;
    if (value > kind.max)
    {
        throw UnitError("'" + text + "' is too large (at most " + kind.maxText + ")");
    }
    return value;
}

/**
 * \param value a non-negative integer
 * \param unit the unit's size
 * \param decimals decimals to keep
 * \return value / unit rounded half up to \p decimals decimals, trailing zeros kept
 */
std::string
FixedPoint(Uint128 value, Uint128 unit, unsigned decimals)
{
    Uint128 scale = 1;
    for (unsigned i = 0; i < decimals; ++i)
    {
        scale *= 10;
    }
    const Uint128 scaled = (value * scale * 2 + unit) / (unit * 2);
    std::string out = std::to_string(static_cast<uint64_t>(scaled / scale));
    if (decimals > 0)
    {
        std::string frac = std::to_string(static_cast<uint64_t>(scaled % scale));
        out += "." + std::string(decimals - frac.size(), '0') + frac;
    }
    return out;
}

} // namespace

uint64_t
ParseBytes(const std::string& text)
{
    return static_cast<uint64_t>(ParseQuantity(text, BytesKind()));
}

DataRate
ParseDataRate(const std::string& text)
{
    return DataRate(static_cast<uint64_t>(ParseQuantity(text, RateKind())));
}

Time
ParseTime(const std::string& text)
{
    const auto ps = static_cast<int64_t>(ParseQuantity(text, TimeKind()));
    const Time t = PicoSeconds(ps);
    // Not a user error: an entry point forgot Time::SetResolution(Time::PS), and the
    // value would be rounded silently to the coarser resolution.
    NS_ABORT_MSG_IF(t.GetPicoSeconds() != ps,
                    "ParseTime(\"" << text << "\") is not exact at the current time resolution: "
                                   << "call Time::SetResolution(Time::PS) in main()");
    return t;
}

std::string
FormatBytes(uint64_t bytes)
{
    if (bytes == 0)
    {
        return "0B";
    }
    // Exact forms: the shortest text wins; binary units first on a tie.
    std::string best = std::to_string(bytes) + "B";
    static const std::vector<std::pair<const char*, uint64_t>> units = {
        {"TiB", 1ULL << 40},
        {"GiB", 1ULL << 30},
        {"MiB", 1ULL << 20},
        {"KiB", 1ULL << 10},
        {"TB", 1000000000000ULL},
        {"GB", 1000000000ULL},
        {"MB", 1000000ULL},
        {"KB", 1000ULL},
    };
    for (const auto& u : units)
    {
        if (bytes % u.second == 0)
        {
            std::string candidate = std::to_string(bytes / u.second) + u.first;
            if (candidate.size() < best.size())
            {
                best = candidate;
            }
        }
    }
    if (best.size() <= 6 || bytes < 10000)
    {
        return best;
    }
    // Readable, rounded: value in [1, 1000) of the largest decimal unit.
    static const std::vector<std::pair<const char*, uint64_t>> decimal = {
        {"TB", 1000000000000ULL},
        {"GB", 1000000000ULL},
        {"MB", 1000000ULL},
        {"KB", 1000ULL},
    };
    for (const auto& u : decimal)
    {
        // Pick the unit only if the rounded value stays >= 1.00 (0.995 rounds up).
        if (static_cast<Uint128>(bytes) * 1000 >= static_cast<Uint128>(u.second) * 995)
        {
            return FixedPoint(bytes, u.second, 2) + u.first;
        }
    }
    return best;
}

std::string
FormatTime(Time t)
{
    const int64_t ps = t.GetPicoSeconds();
    if (ps == 0)
    {
        return "0s";
    }
    const bool negative = ps < 0;
    const Uint128 mag = negative ? static_cast<Uint128>(-(ps + 1)) + 1 : static_cast<Uint128>(ps);
    static const std::vector<std::pair<const char*, uint64_t>> units = {
        {"s", 1000000000000ULL},
        {"ms", 1000000000ULL},
        {"us", 1000000ULL},
        {"ns", 1000ULL},
        {"ps", 1ULL},
    };
    std::string text;
    for (std::size_t i = 0; i < units.size(); ++i)
    {
        const Uint128 unit = units[i].second;
        if (mag < unit && i + 1 < units.size())
        {
            continue;
        }
        // Rounded to 3 decimals; 999.9996us rounds to 1000.000us: use the next unit up.
        const Uint128 milli = (mag * 1000 * 2 + unit) / (unit * 2);
        if (milli >= 1000000 && i > 0)
        {
            const Uint128 upper = units[i - 1].second;
            const Uint128 m2 = (mag * 1000 * 2 + upper) / (upper * 2);
            text = FixedPoint(m2, 1000, 3) + units[i - 1].first;
        }
        else
        {
            text = FixedPoint(milli, 1000, 3) + units[i].first;
        }
        break;
    }
    // Drop trailing zeros of the fraction, and a bare decimal point.
    const std::size_t dot = text.find('.');
    if (dot != std::string::npos)
    {
        std::size_t unitPos = dot;
        while (unitPos < text.size() && (IsDigit(text[unitPos]) || text[unitPos] == '.'))
        {
            ++unitPos;
        }
        std::size_t end = unitPos;
        while (end > dot && (text[end - 1] == '0'))
        {
            --end;
        }
        if (end == dot + 1)
        {
            end = dot;
        }
        text = text.substr(0, end) + text.substr(unitPos);
    }
    return negative ? "-" + text : text;
}

} // namespace ns3
