/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite "ai-fabric-scheduler": ai-fabric's event schedulers
 * (quad-heap, lane-heap) against ns-3's PriorityQueueScheduler: the same
 * events in the same order on long random operation sequences; their names.
 */
#include "ns3/lane-heap-scheduler.h"
#include "ns3/object-factory.h"
#include "ns3/priority-queue-scheduler.h"
#include "ns3/quad-heap-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/spec-names.h"
#include "ns3/test.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

/// The schedulers of the module.
const char* const OURS[] = {"ns3::QuadHeapScheduler", "ns3::LaneHeapScheduler"};

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

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief The module's schedulers are registered ns-3 Schedulers of the AiFabric group.
 */
class SchedulerRegisteredTestCase : public TestCase
{
  public:
    SchedulerRegisteredTestCase()
        : TestCase("The module's schedulers are registered ns-3 Schedulers")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* type : OURS)
        {
            TypeId tid;
            NS_TEST_ASSERT_MSG_EQ(TypeId::LookupByNameFailSafe(type, &tid), true, type);
            NS_TEST_EXPECT_MSG_EQ(tid.IsChildOf(Scheduler::GetTypeId()), true, type);
            NS_TEST_EXPECT_MSG_EQ(tid.GetGroupName(), "AiFabric", type);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Drive a scheduler and ns-3's PriorityQueueScheduler through the same random
 * operations and expect the same answers. Time advances with every RemoveNext, as in a
 * simulator; delays come from a few recurring values (the lanes' case: more of them than
 * lanes), from a wide random range, and are 0 (equal time stamps, ordered by uid); some
 * keys lie before the last removed one (not possible in ns-3, still a priority queue's
 * job).
 */
class SchedulerRandomOperationsTestCase : public TestCase
{
  public:
    SchedulerRandomOperationsTestCase()
        : TestCase("Same order as PriorityQueueScheduler on random operations")
    {
    }

  private:
    /**
     * \param ours the scheduler's type name
     * \param seed the random seed
     * \param ops the number of operations
     * \param removes whether to Remove pending events too
     * \param past whether to insert events before the last one removed (the Simulator never
     *        does; the module's schedulers take them, ns-3's calendar does not)
     */
    void Compare(const std::string& ours,
                 uint32_t seed,
                 uint32_t ops,
                 bool removes = true,
                 bool past = true)
    {
        const std::string what = ours + " seed " + std::to_string(seed);
        ObjectFactory factory(ours);
        Ptr<Scheduler> a = factory.Create<Scheduler>();
        NS_TEST_ASSERT_MSG_EQ((a != nullptr), true, what);
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
            NS_TEST_ASSERT_MSG_EQ(a->IsEmpty(), b->IsEmpty(), what << " op " << op);
            NS_TEST_ASSERT_MSG_EQ(a->IsEmpty(), pending.empty(), what << " op " << op);
            const uint64_t r = rng() % 100;
            // Phases: grow to thousands pending, then drain, so both small and deep heaps
            // occur.
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
                if (rng() % 50 == 0 && now > 0 && past)
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
                NS_TEST_ASSERT_MSG_EQ(Show(x), Show(y), what << " RemoveNext, op " << op);
                now = std::max(now, x.key.m_ts);
                forget(y.key.m_uid);
            }
            else if (r < 96 || !removes)
            {
                NS_TEST_ASSERT_MSG_EQ(Show(a->PeekNext()),
                                      Show(b->PeekNext()),
                                      what << " PeekNext, op " << op);
            }
            else
            {
                // Remove a pending event: any, or the next one (a lane's first event).
                const Scheduler::Event ev
                    = r < 98 ? pending[rng() % pending.size()] : b->PeekNext();
                a->Remove(ev);
                b->Remove(ev);
                forget(ev.key.m_uid);
            }
        }
        // Drain: the rest in the same order.
        while (!b->IsEmpty())
        {
            NS_TEST_ASSERT_MSG_EQ(a->IsEmpty(), false, what << " drain");
            NS_TEST_ASSERT_MSG_EQ(Show(a->RemoveNext()), Show(b->RemoveNext()), what << " drain");
        }
        NS_TEST_EXPECT_MSG_EQ(a->IsEmpty(), true, what << " empty");
    }

    void DoRun() override
    {
        for (const char* ours : OURS)
        {
            for (uint32_t seed = 1; seed <= 4; ++seed)
            {
                Compare(ours, seed, 200000);
            }
        }
        // ns-3's own schedulers, which --scheduler offers too. The module never calls
        // Simulator::Remove (timers are cancelled lazily): ns-3 3.37's HeapScheduler::Remove
        // swaps the last event in and only sifts it down, which breaks the heap order, so
        // the heap runs here without removals and the others with them.
        for (const char* theirs : {"ns3::MapScheduler",
                                   "ns3::ListScheduler",
                                   "ns3::CalendarScheduler",
                                   "ns3::HeapScheduler"})
        {
            const bool removes = std::string(theirs) != "ns3::HeapScheduler";
            for (uint32_t seed = 1; seed <= 2; ++seed)
            {
                Compare(theirs, seed, 60000, removes, false);
            }
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Many events at one time, inserted out of uid order: uid order out, context ignored.
 */
class SchedulerEqualTimeStampsTestCase : public TestCase
{
  public:
    SchedulerEqualTimeStampsTestCase()
        : TestCase("Equal time stamps leave by uid")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* ours : OURS)
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
                NS_TEST_ASSERT_MSG_EQ(ev.key.m_uid, u, ours);
                NS_TEST_EXPECT_MSG_EQ(ev.key.m_ts, 1000u, ours);
                NS_TEST_EXPECT_MSG_EQ(ev.key.m_context, n - u, ours);
                NS_TEST_EXPECT_MSG_EQ(ev.impl, FakeImpl(u), ours);
            }
            NS_TEST_EXPECT_MSG_EQ(s->IsEmpty(), true, ours);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Events a few recurring delays ahead go to the lanes: the heap holds one entry per
 * lane, not one per event (what makes lane-heap fast), and the order is still exact.
 */
class SchedulerLanesTestCase : public TestCase
{
  public:
    SchedulerLanesTestCase()
        : TestCase("Lanes keep the heap small")
    {
    }

  private:
    void DoRun() override
    {
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
        NS_TEST_EXPECT_MSG_EQ(s->Size(), 9000u, "events");
        NS_TEST_EXPECT_MSG_EQ(s->HeapSize(), 3u, "one heap entry per lane");
        uint64_t now = 0;
        for (int i = 0; i < 20000; ++i)
        {
            const Scheduler::Event ev = s->RemoveNext();
            NS_TEST_ASSERT_MSG_EQ(Show(ev), Show(ref->RemoveNext()), "order, step " << i);
            now = ev.key.m_ts;
            insert(now + (i % 2 == 0 ? 21640 : 1301280));
        }
        NS_TEST_EXPECT_MSG_LT_OR_EQ(s->HeapSize(), LaneHeapScheduler::LANES, "heap size");
        while (!s->IsEmpty())
        {
            NS_TEST_ASSERT_MSG_EQ(Show(s->RemoveNext()), Show(ref->RemoveNext()), "drain");
        }
        NS_TEST_EXPECT_MSG_EQ(ref->IsEmpty(), true, "both empty");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The scheduler names map to the module's types.
 * (Moved from Scheduler.NamesMapToOurTypes, tests/scheduler-test.cc.)
 */
class SchedulerNamesTestCase : public TestCase
{
  public:
    SchedulerNamesTestCase()
        : TestCase("Scheduler names map to the module's types")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(SchedulerTypeName("quad-heap"), "ns3::QuadHeapScheduler", "quad");
        NS_TEST_EXPECT_MSG_EQ(SchedulerTypeName("lane-heap"), "ns3::LaneHeapScheduler", "lane");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Every scheduler name has its type, the default is the lane heap, an unknown name
 * has none. (Moved from SpecNames.EverySchedulerNameHasItsTypeId, tests/spec-toolkit-test.cc.)
 */
class SchedulerNameTableTestCase : public TestCase
{
  public:
    SchedulerNameTableTestCase()
        : TestCase("Every scheduler name has its type")
    {
    }

  private:
    void DoRun() override
    {
        for (const auto& name : SchedulerNames())
        {
            NS_TEST_EXPECT_MSG_EQ(SchedulerTypeName(name).empty(), false, name);
        }
        NS_TEST_EXPECT_MSG_EQ(SchedulerTypeName(DefaultSchedulerName()),
                              "ns3::LaneHeapScheduler",
                              "the default");
        NS_TEST_EXPECT_MSG_EQ(SchedulerTypeName("nope"), "", "an unknown name");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The event schedulers.
 */
class AiFabricSchedulerTestSuite : public TestSuite
{
  public:
    AiFabricSchedulerTestSuite()
        : TestSuite("ai-fabric-scheduler")
    {
        AddTestCase(new SchedulerRegisteredTestCase);
        AddTestCase(new SchedulerRandomOperationsTestCase);
        AddTestCase(new SchedulerEqualTimeStampsTestCase);
        AddTestCase(new SchedulerLanesTestCase);
        AddTestCase(new SchedulerNamesTestCase);
        AddTestCase(new SchedulerNameTableTestCase);
    }
};

/// The suite's one instance.
static AiFabricSchedulerTestSuite g_aiFabricSchedulerTestSuite;
