/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "run-outputs.h"

#include "ns3/spec-names.h"

#include <algorithm>

namespace ns3
{

bool
ParseRunOutputOption(const std::string& option,
                     const std::string& value,
                     std::vector<std::string>& ports,
                     std::string& attribution)
{
    if (option == "--attribution")
    {
        AttributionSetting setting = AttributionSetting::AUTO;
        if (!ParseSpecName(value, setting))
        {
            return false;
        }
        attribution = value;
        return true;
    }
    if (option != "--pcap")
    {
        return false;
    }
    std::size_t start = 0;
    while (start <= value.size())
    {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const std::string port = value.substr(start, comma - start);
        if (port.find("->") == std::string::npos)
        {
            return false; // also an empty entry
        }
        ports.push_back(port);
        start = comma + 1;
    }
    return true;
}

void
ApplyRunOutputOptions(const std::vector<std::string>& ports,
                      const std::string& attribution,
                      ScenarioSpec& spec)
{
    for (const std::string& p : ports)
    {
        spec.capturePorts.push_back(p);
        SpecLocation where;
        where.file = "--pcap";
        spec.capturePortsWhere.push_back(where);
    }
    AttributionSetting setting = AttributionSetting::AUTO;
    if (ParseSpecName(attribution, setting)) // "" (not given) keeps the scenario's
    {
        spec.attribution = setting;
    }
}

} // namespace ns3
