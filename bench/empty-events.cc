/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The ns-3 ceiling: how many empty events per second the scheduler runs on
 * this machine. A "hold" model: a population of events, each of which
 * schedules its successor after a pseudo-random delay of 1-2000 ns.
 *
 *   empty-events [EVENTS] [POPULATION] [SCHEDULER]
 *   e.g. empty-events 3000000 1000 ns3::MapScheduler
 *        empty-events 3000000 40000 quad-heap
 * SCHEDULER is an ns-3 TypeId name or a name of `ai-fabric run --scheduler` (map, heap, list,
 * calendar, priority-queue, quad-heap, lane-heap); default ns3::MapScheduler, ns-3's own default.
 * The delays are drawn from 2000 values, so lane-heap's 16 lanes (one per recurring delay)
 * rarely apply here: this measures the heaps, not the lanes (docs/performance.md).
 * Prints one JSON object: {"scheduler":..., "events":..., "population":..., "wall_s":...,
 * "events_per_s":...}
 */
#include "run/scenario-runner.h"

#include "ns3/core-module.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace
{

uint64_t g_remaining = 0;
uint64_t g_lcg = 12345;

void
Hold()
{
    if (g_remaining == 0)
    {
        return;
    }
    --g_remaining;
    g_lcg = g_lcg * 6364136223846793005ull + 1442695040888963407ull;
    ns3::Simulator::Schedule(ns3::NanoSeconds(1 + (g_lcg >> 33) % 2000), &Hold);
}

} // namespace

int
main(int argc, char** argv)
{
    ns3::Time::SetResolution(ns3::Time::PS);
    const uint64_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 3000000;
    const uint64_t population = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
    std::string scheduler = argc > 3 ? argv[3] : "ns3::MapScheduler";
    if (const std::string type = ns3::SchedulerTypeName(scheduler); !type.empty())
    {
        scheduler = type; // an ai-fabric name
    }
    if (events == 0 || population == 0 || population > events)
    {
        std::cerr << "usage: empty-events [EVENTS>0] [0<POPULATION<=EVENTS] [SCHEDULER]\n";
        return 2;
    }
    ns3::TypeId tid;
    if (!ns3::TypeId::LookupByNameFailSafe(scheduler, &tid)
        || !tid.IsChildOf(ns3::Scheduler::GetTypeId()))
    {
        std::cerr << "empty-events: '" << scheduler << "' is not an ns-3 scheduler\n";
        return 2;
    }
    ns3::ObjectFactory factory;
    factory.SetTypeId(scheduler);
    ns3::Simulator::SetScheduler(factory);

    g_remaining = events - population;
    for (uint64_t i = 0; i < population; ++i)
    {
        ns3::Simulator::Schedule(ns3::NanoSeconds(1 + i % 2000), &Hold);
    }
    const auto t0 = std::chrono::steady_clock::now();
    ns3::Simulator::Run();
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t executed = ns3::Simulator::GetEventCount();
    ns3::Simulator::Destroy();
    std::cout << "{\"scheduler\": \"" << scheduler << "\", \"events\": " << executed
              << ", \"population\": " << population << ", \"wall_s\": " << wall
              << ", \"events_per_s\": " << static_cast<double>(executed) / wall << "}\n";
    return 0;
}
