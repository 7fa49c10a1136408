/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-fabric's event schedulers (quad-heap, lane-heap) against ns-3's
 * PriorityQueueScheduler: the same events in the same order on long random
 * operation sequences, and byte-identical results on real scenarios.
 */
#include "config/yaml-scenario-reader.h"
#include "output/results-writer.h"
#include "run/scenario-runner.h"

#include "ns3/lane-heap-scheduler.h"
#include "ns3/object-factory.h"
#include "ns3/priority-queue-scheduler.h"
#include "ns3/quad-heap-scheduler.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

const std::vector<std::string> OURS = {"ns3::QuadHeapScheduler", "ns3::LaneHeapScheduler"};

/// A fake event pointer for uid \p uid (never dereferenced; aligned like a real one).
EventImpl*
FakeImpl(uint32_t uid)
{
    return reinterpret_cast<EventImpl*>(static_cast<uintptr_t>(uid + 1) * 16);
}

/// "ts/uid/context/impl" of \p ev, for messages.
std::string
Show(const Scheduler::Event& ev)
{
    std::ostringstream os;
    os << ev.key.m_ts << "/" << ev.key.m_uid << "/" << ev.key.m_context << "/" << ev.impl;
    return os.str();
}

/**
 * Drive \p ours and ns-3's PriorityQueueScheduler through the same \p ops random
 * operations (seeded by \p seed) and expect the same answers. Time advances with
 * every RemoveNext, as in a simulator; delays come from a few recurring values (the
 * lanes' case: more of them than lanes), from a wide random range, and are 0 (equal
 * time stamps, ordered by uid); some keys lie before the last removed one (not
 * possible in ns-3, still a priority queue's job).
 */
void
CompareWithPriorityQueue(const std::string& ours, uint32_t seed, uint32_t ops)
{
    SCOPED_TRACE(ours + " seed " + std::to_string(seed));
    ObjectFactory factory(ours);
    Ptr<Scheduler> a = factory.Create<Scheduler>();
    ASSERT_NE(a, nullptr);
    Ptr<Scheduler> b = CreateObject<PriorityQueueScheduler>();

    std::mt19937_64 rng(seed);
    std::vector<uint64_t> recurring;
    for (int i = 0; i < 24; ++i)
    {
        recurring.push_back(1 + rng() % 5000);
    }
    // The pending events (for Remove), with each uid's index in the vector.
    std::vector<Scheduler::Event> pending;
    std::unordered_map<uint32_t, std::size_t> where;
    auto forget = [&](uint32_t u) {
        const std::size_t i = where.at(u);
        where[pending.back().key.m_uid] = i;
        pending[i] = pending.back();
        pending.pop_back();
        where.erase(u);
    };
    uint64_t now = 0;
    uint32_t uid = 4;
    for (uint32_t op = 0; op < ops; ++op)
    {
        ASSERT_EQ(a->IsEmpty(), b->IsEmpty()) << "op " << op;
        ASSERT_EQ(a->IsEmpty(), pending.empty()) << "op " << op;
        const uint64_t r = rng() % 100;
        // Phases: grow to thousands pending, then drain, so both small and deep heaps occur.
        const bool growing = (op / 20000) % 2 == 0;
        if (pending.empty() || r < (growing ? 55u : 40u))
        {
            Scheduler::Event ev;
            const uint64_t kind = rng() % 10;
            const uint64_t delay = kind < 6   ? recurring[rng() % recurring.size()]
                                   : kind < 8 ? rng() % 1000000
                                   : kind < 9 ? 0
                                              : rng() % 3;
            ev.key.m_ts = now + delay;
            if (rng() % 50 == 0 && now > 0)
            {
                ev.key.m_ts = now - 1 - rng() % std::min<uint64_t>(now, 1000); // before now
            }
            ev.key.m_uid = uid++;
            ev.key.m_context = static_cast<uint32_t>(rng());
            ev.impl = FakeImpl(ev.key.m_uid);
            a->Insert(ev);
            b->Insert(ev);
            where[ev.key.m_uid] = pending.size();
            pending.push_back(ev);
        }
        else if (r < 92)
        {
            const Scheduler::Event x = a->RemoveNext();
            const Scheduler::Event y = b->RemoveNext();
            ASSERT_EQ(Show(x), Show(y)) << "RemoveNext, op " << op;
            now = std::max(now, x.key.m_ts);
            forget(y.key.m_uid);
        }
        else if (r < 96)
        {
            ASSERT_EQ(Show(a->PeekNext()), Show(b->PeekNext())) << "PeekNext, op " << op;
        }
        else
        {
            // Remove a pending event: any, or the next one (a lane's first event).
            const Scheduler::Event ev = r < 98 ? pending[rng() % pending.size()] : b->PeekNext();
            a->Remove(ev);
            b->Remove(ev);
            forget(ev.key.m_uid);
        }
    }
    // Drain: the rest in the same order.
    while (!b->IsEmpty())
    {
        ASSERT_FALSE(a->IsEmpty());
        ASSERT_EQ(Show(a->RemoveNext()), Show(b->RemoveNext())) << "drain";
    }
    EXPECT_TRUE(a->IsEmpty());
}

} // namespace

TEST(Scheduler, OursAreRegisteredAndNamed)
{
    for (const std::string name : {"quad-heap", "lane-heap"})
    {
        const std::string type = SchedulerTypeName(name);
        ASSERT_FALSE(type.empty()) << name;
        TypeId tid;
        ASSERT_TRUE(TypeId::LookupByNameFailSafe(type, &tid)) << type;
        EXPECT_TRUE(tid.IsChildOf(Scheduler::GetTypeId())) << type;
        EXPECT_EQ(tid.GetGroupName(), "AiFabric");
    }
    EXPECT_EQ(SchedulerTypeName("quad-heap"), "ns3::QuadHeapScheduler");
    EXPECT_EQ(SchedulerTypeName("lane-heap"), "ns3::LaneHeapScheduler");
}

TEST(Scheduler, SameOrderAsPriorityQueueOnRandomOperations)
{
    for (const std::string& ours : OURS)
    {
        for (uint32_t seed = 1; seed <= 4; ++seed)
        {
            CompareWithPriorityQueue(ours, seed, 200000);
        }
    }
}

TEST(Scheduler, EqualTimeStampsLeaveByUid)
{
    // Many events at one time, inserted out of uid order: uid order out, context ignored.
    for (const std::string& ours : OURS)
    {
        ObjectFactory factory(ours);
        Ptr<Scheduler> s = factory.Create<Scheduler>();
        const uint32_t n = 5000;
        for (uint32_t i = 0; i < n; ++i)
        {
            Scheduler::Event ev;
            ev.key.m_ts = 1000;
            ev.key.m_uid = (i * 7919) % n; // a permutation of 0..n-1
            ev.key.m_context = n - ev.key.m_uid;
            ev.impl = FakeImpl(ev.key.m_uid);
            s->Insert(ev);
        }
        for (uint32_t u = 0; u < n; ++u)
        {
            const Scheduler::Event ev = s->RemoveNext();
            ASSERT_EQ(ev.key.m_uid, u) << ours;
            EXPECT_EQ(ev.key.m_ts, 1000u);
            EXPECT_EQ(ev.key.m_context, n - u);
            EXPECT_EQ(ev.impl, FakeImpl(u));
        }
        EXPECT_TRUE(s->IsEmpty()) << ours;
    }
}

TEST(Scheduler, LanesKeepTheHeapSmall)
{
    // Events a few recurring delays ahead go to the lanes: the heap holds one entry per
    // lane, not one per event (what makes lane-heap fast), and the order is still exact.
    Ptr<LaneHeapScheduler> s = CreateObject<LaneHeapScheduler>();
    Ptr<Scheduler> ref = CreateObject<PriorityQueueScheduler>();
    uint32_t uid = 0;
    auto insert = [&](uint64_t ts) {
        Scheduler::Event ev;
        ev.key.m_ts = ts;
        ev.key.m_uid = uid++;
        ev.key.m_context = 0;
        ev.impl = FakeImpl(ev.key.m_uid);
        s->Insert(ev);
        ref->Insert(ev);
    };
    for (int i = 0; i < 3000; ++i)
    {
        for (uint64_t d : {1000u, 21640u, 1301280u})
        {
            insert(d);
        }
    }
    EXPECT_EQ(s->Size(), 9000u);
    EXPECT_EQ(s->HeapSize(), 3u);
    uint64_t now = 0;
    for (int i = 0; i < 20000; ++i)
    {
        const Scheduler::Event ev = s->RemoveNext();
        ASSERT_EQ(Show(ev), Show(ref->RemoveNext()));
        now = ev.key.m_ts;
        insert(now + (i % 2 == 0 ? 21640 : 1301280));
    }
    EXPECT_LE(s->HeapSize(), LaneHeapScheduler::LANES);
    while (!s->IsEmpty())
    {
        ASSERT_EQ(Show(s->RemoveNext()), Show(ref->RemoveNext()));
    }
    EXPECT_TRUE(ref->IsEmpty());
}

TEST(Scheduler, ScenariosGiveIdenticalResultsWithEveryScheduler)
{
    // Real runs through RunScenario: the same events, flows and collective times, to
    // the byte, with priority-queue and with ours. The RoCE incast has ECN marks drawn at
    // random and DCQCN timers, the training job thousands of messages over a leaf-spine,
    // the Dragonfly+ all-to-all random Valiant detours.
    auto render = [](const RunResults& r) {
        std::ostringstream json;
        std::ostringstream csv;
        WriteSummaryJson(r, json);
        WriteFlowsCsv(r, csv);
        WriteCollectivesCsv(r, csv);
        WritePortsCsv(r, csv);
        // wall_time_s is the only wall-clock figure in the summary.
        return std::regex_replace(json.str(), std::regex("\"wall_time_s\": [^,\n]*"), "")
               + csv.str();
    };
    std::vector<std::pair<std::string, ScenarioSpec>> specs;
    for (const char* file : {"examples/roce-incast-dcqcn.yaml",
                             "examples/train-3d-16gpu.yaml",
                             "tests/scenarios/dragonfly-valiant-alltoall.yaml"})
    {
        specs.emplace_back(file, ReadScenarioFile(std::string(AI_FABRIC_SOURCE_DIR) + "/" + file));
    }
    // The incast with DCQCN timers 2 us apart and a 64 kB byte counter: the senders get back
    // to line rate before the end and remove their timers (Simulator::Remove, 8 times).
    ScenarioSpec fast = specs[0].second;
    for (auto& [attribute, value] : fast.dcqcnAttributes)
    {
        if (attribute == "RateIncreasePeriod" || attribute == "AlphaUpdatePeriod")
        {
            value = "2000000ps";
        }
        else if (attribute == "ByteCounter")
        {
            value = "64000";
        }
    }
    specs.emplace_back("roce-incast-dcqcn, fast recovery", fast);
    for (const auto& [file, spec] : specs)
    {
        RunOptions options;
        options.scheduler = "priority-queue";
        const RunResults reference = RunScenario(spec, options);
        ASSERT_TRUE(reference.complete) << file;
        ASSERT_GT(reference.events, 10000u) << file;
        const std::string expected = render(reference);
        for (const std::string name : {"quad-heap", "lane-heap"})
        {
            options.scheduler = name;
            const RunResults r = RunScenario(spec, options);
            EXPECT_EQ(r.events, reference.events) << file << " " << name;
            EXPECT_EQ(r.packetHops, reference.packetHops) << file << " " << name;
            ASSERT_EQ(r.flows.size(), reference.flows.size()) << file << " " << name;
            for (std::size_t i = 0; i < r.flows.size(); ++i)
            {
                EXPECT_EQ(r.flows[i].endS, reference.flows[i].endS) << file << " " << name;
            }
            ASSERT_EQ(r.collectives.size(), reference.collectives.size());
            for (std::size_t i = 0; i < r.collectives.size(); ++i)
            {
                EXPECT_EQ(r.collectives[i].durationS, reference.collectives[i].durationS)
                    << file << " " << name;
            }
            EXPECT_EQ(render(r), expected) << file << " " << name;
        }
    }
}
