/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "spec-names.h"

#include "ns3/abort.h"
#include "ns3/ecmp-routing.h"

#include <utility>

namespace ns3
{

namespace
{

/**
 * \return every scheduler name with its ns-3 TypeId name, in the order SchedulerNames()
 * lists them
 */
const std::vector<std::pair<std::string, std::string>>&
SchedulerTable()
{
    static const std::vector<std::pair<std::string, std::string>> table = {
        {"map", "ns3::MapScheduler"},
        {"heap", "ns3::HeapScheduler"},
        {"list", "ns3::ListScheduler"},
        {"calendar", "ns3::CalendarScheduler"},
        {"priority-queue", "ns3::PriorityQueueScheduler"},
        {"quad-heap", "ns3::QuadHeapScheduler"}, // model/scheduler/quad-heap-scheduler.h
        {"lane-heap", "ns3::LaneHeapScheduler"}, // model/scheduler/lane-heap-scheduler.h
    };
    return table;
}

/**
 * \param names an enum's names, in the order of its values
 * \param value a value
 * \return its name
 */
template<class E>
const std::string&
NameIn(const std::vector<std::string>& names, E value)
{
    const auto i = static_cast<std::size_t>(value);
    NS_ABORT_MSG_UNLESS(i < names.size(), "no name for setting " << i);
    return names[i];
}

/**
 * \param names an enum's names, in the order of its values
 * \param name a name
 * \param[out] value the value of that name, if known
 * \return true if \p name is in \p names
 */
template<class E>
bool
ParseIn(const std::vector<std::string>& names, const std::string& name, E& value)
{
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == name)
        {
            value = static_cast<E>(i);
            return true;
        }
    }
    return false;
}

} // namespace

const std::vector<std::string>&
CongestionControlNames()
{
    static const std::vector<std::string> names = {"auto", "none", "dcqcn"};
    return names;
}

const std::vector<std::string>&
ReliabilityNames()
{
    static const std::vector<std::string> names = {"auto", "none", "go-back-n"};
    return names;
}

const std::vector<std::string>&
ForwardingNames()
{
    static const std::vector<std::string> names = {"ecmp", "spray", "adaptive"};
    return names;
}

const std::vector<std::string>&
PathChoiceNames()
{
    static const std::vector<std::string> names = {"minimal", "valiant", "ugal"};
    return names;
}

const std::vector<std::string>&
AttributionNames()
{
    static const std::vector<std::string> names = {"auto", "on", "off"};
    return names;
}

const std::string&
SpecName(CongestionControlSetting setting)
{
    return NameIn(CongestionControlNames(), setting);
}

const std::string&
SpecName(ReliabilitySetting setting)
{
    return NameIn(ReliabilityNames(), setting);
}

const std::string&
SpecName(ForwardingMode setting)
{
    return NameIn(ForwardingNames(), setting);
}

const std::string&
SpecName(PathChoice setting)
{
    return NameIn(PathChoiceNames(), setting);
}

const std::string&
SpecName(AttributionSetting setting)
{
    return NameIn(AttributionNames(), setting);
}

bool
ParseSpecName(const std::string& name, CongestionControlSetting& setting)
{
    return ParseIn(CongestionControlNames(), name, setting);
}

bool
ParseSpecName(const std::string& name, ReliabilitySetting& setting)
{
    return ParseIn(ReliabilityNames(), name, setting);
}

bool
ParseSpecName(const std::string& name, ForwardingMode& setting)
{
    return ParseIn(ForwardingNames(), name, setting);
}

bool
ParseSpecName(const std::string& name, PathChoice& setting)
{
    return ParseIn(PathChoiceNames(), name, setting);
}

bool
ParseSpecName(const std::string& name, AttributionSetting& setting)
{
    return ParseIn(AttributionNames(), name, setting);
}

CongestionControlSetting
ResolveCongestionControl(CongestionControlSetting setting, const std::vector<LinkProfile>& profiles)
{
    if (setting != CongestionControlSetting::AUTO)
    {
        return setting;
    }
    for (const auto& p : profiles)
    {
        if (p.ecnKmin > 0)
        {
            return CongestionControlSetting::DCQCN; // the links mark ECN: RoCEv2 runs DCQCN
        }
    }
    return CongestionControlSetting::NONE;
}

ReliabilitySetting
ResolveReliability(ReliabilitySetting setting, const std::vector<LinkProfile>& profiles)
{
    if (setting != ReliabilitySetting::AUTO)
    {
        return setting;
    }
    for (const auto& p : profiles)
    {
        if (p.flowControl == LinkProfile::FlowControl::NONE)
        {
            return ReliabilitySetting::GO_BACK_N;
        }
    }
    return ReliabilitySetting::NONE;
}

bool
ResolveAttribution(AttributionSetting setting, uint64_t messages)
{
    if (setting == AttributionSetting::AUTO)
    {
        return messages <= ATTRIBUTION_AUTO_MAX_MESSAGES;
    }
    return setting == AttributionSetting::ON;
}

std::string
ForwardingTypeName(ForwardingMode mode)
{
    switch (mode)
    {
        case ForwardingMode::ECMP:
            return "ns3::EcmpRouting"; // model/routing/ecmp-routing.h
        case ForwardingMode::SPRAY:
            return "ns3::SprayRouting"; // model/routing/spray-routing.h
        case ForwardingMode::ADAPTIVE:
            return "ns3::AdaptiveRouting"; // model/routing/adaptive-routing.h
    }
    NS_ABORT_MSG("unknown forwarding mode " << static_cast<int>(mode));
    return "";
}

const std::vector<std::string>&
EcmpHashFieldNames()
{
    // In the bit order of EcmpRouting::HashField.
    static const std::vector<std::string> names = {"src", "dst", "qp", "dst_qp"};
    static_assert(EcmpRouting::HASH_SRC == 1 && EcmpRouting::HASH_DST == 2
                      && EcmpRouting::HASH_QP == 4 && EcmpRouting::HASH_DST_QP == 8,
                  "EcmpHashFieldNames() lists the bits of EcmpRouting::HashField in order");
    return names;
}

const std::vector<std::pair<std::string, uint32_t>>&
EcmpHashPresets()
{
    static const std::vector<std::pair<std::string, uint32_t>> presets = {
        {"5-tuple", EcmpRouting::HASH_5_TUPLE},
        {"dst", EcmpRouting::HASH_DST},
        {"enhanced", EcmpRouting::HASH_ENHANCED},
    };
    return presets;
}

std::string
EcmpHashName(uint32_t fields)
{
    for (const auto& [name, preset] : EcmpHashPresets())
    {
        if (preset == fields)
        {
            return name;
        }
    }
    std::string list;
    const auto& names = EcmpHashFieldNames();
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        if (fields & (1U << i))
        {
            list += (list.empty() ? "" : ", ") + names[i];
        }
    }
    return "[" + list + "]";
}

std::string
PathChoiceTypeName(PathChoice choice)
{
    switch (choice)
    {
        case PathChoice::MINIMAL:
            return ""; // the shortest paths are the minimal ones
        case PathChoice::VALIANT:
            return "ns3::ValiantRouting"; // model/routing/valiant-routing.h
        case PathChoice::UGAL:
            return "ns3::UgalRouting"; // model/routing/ugal-routing.h
    }
    NS_ABORT_MSG("unknown path choice " << static_cast<int>(choice));
    return "";
}

const std::vector<std::string>&
SchedulerNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& [name, type] : SchedulerTable())
        {
            n.push_back(name);
        }
        return n;
    }();
    return names;
}

const std::string&
DefaultSchedulerName()
{
    static const std::string name = "lane-heap";
    return name;
}

std::string
SchedulerTypeName(const std::string& name)
{
    for (const auto& [n, type] : SchedulerTable())
    {
        if (n == name)
        {
            return type;
        }
    }
    return "";
}

} // namespace ns3
