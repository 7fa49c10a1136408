/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "spec-names.h"

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

std::string
ResolveCongestionControl(const std::string& setting, const std::vector<LinkProfile>& profiles)
{
    if (setting != "auto")
    {
        return setting;
    }
    for (const auto& p : profiles)
    {
        if (p.ecnKmin > 0)
        {
            return "dcqcn"; // the links mark ECN: RoCEv2 runs DCQCN
        }
    }
    return "none";
}

std::string
ResolveReliability(const std::string& setting, const std::vector<LinkProfile>& profiles)
{
    if (setting != "auto")
    {
        return setting;
    }
    for (const auto& p : profiles)
    {
        if (p.flowControl == LinkProfile::FlowControl::NONE)
        {
            return "go-back-n";
        }
    }
    return "none";
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
