/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: the unit parsers (ParseBytes, ParseDataRate, ParseTime). A
 * UnitError is the expected answer to bad text; anything else is a bug. A value
 * that parses must parse again to the same value from its own decimal form.
 * docs/robustness.md, "Fuzzing".
 */

#include "ns3/link-profile.h"
#include "ns3/nstime.h"
#include "ns3/units.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int
LLVMFuzzerInitialize(int* /* argc */, char*** /* argv */)
{
    ns3::Time::SetResolution(ns3::Time::PS);
    return 0;
}

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try
    {
        const uint64_t b = ns3::ParseBytes(text);
        if (ns3::ParseBytes(std::to_string(b) + "B") != b)
        {
            std::abort(); // a size that does not round-trip
        }
        // Range ends the readers accept: a packet of up to MAX_PACKET_WIRE_BYTES (as mtu, or
        // as header on 1-byte segments of a 4 KiB packet... any mix within the limit) stays
        // a 32-bit size in cells of 64 packets.
        if (b <= ns3::LinkProfile::MAX_PACKET_WIRE_BYTES)
        {
            ns3::LinkProfile p;
            p.mtu = static_cast<uint32_t>(b);
            p.headerBytes = static_cast<uint32_t>(ns3::LinkProfile::MAX_PACKET_WIRE_BYTES - b);
            if (p.WireBytes(p.mtu, false) * 64 > UINT32_MAX)
            {
                std::abort();
            }
        }
    }
    catch (const ns3::UnitError&)
    {
    }
    try
    {
        const ns3::DataRate r = ns3::ParseDataRate(text);
        if (ns3::ParseDataRate(std::to_string(r.GetBitRate()) + "bps") != r)
        {
            std::abort(); // a rate that does not round-trip
        }
        // Up to the readers' MAX_RATE_BPS, even a 64-byte packet takes at least 1 ps.
        if (r.GetBitRate() > 0 && r.GetBitRate() <= ns3::LinkProfile::MAX_RATE_BPS
            && r.CalculateBytesTxTime(64).GetPicoSeconds() < 1)
        {
            std::abort();
        }
    }
    catch (const ns3::UnitError&)
    {
    }
    try
    {
        const ns3::Time t = ns3::ParseTime(text);
        if (!t.IsStrictlyNegative()
            && ns3::ParseTime(std::to_string(t.GetPicoSeconds()) + "ps") != t)
        {
            std::abort(); // a duration that does not round-trip
        }
    }
    catch (const ns3::UnitError&)
    {
    }
    return 0;
}
