/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lane-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LaneHeapScheduler");

NS_OBJECT_ENSURE_REGISTERED(LaneHeapScheduler);

namespace
{

/// First ring size of a lane (events), a power of two.
constexpr std::size_t FIRST_RING = 64;

} // namespace

TypeId
LaneHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LaneHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<LaneHeapScheduler>();
    return tid;
}

LaneHeapScheduler::LaneHeapScheduler()
{
    NS_LOG_FUNCTION(this);
}

LaneHeapScheduler::~LaneHeapScheduler()
{
    NS_LOG_FUNCTION(this);
}

void
LaneHeapScheduler::GrowLane(uint32_t l)
{
    Lane& lane = m_lanes[l];
    std::vector<Item> ring(std::max(FIRST_RING, 2 * lane.ring.size()));
    const std::size_t mask = lane.ring.size() - 1;
    for (uint32_t p = 0; p < lane.size; ++p)
    {
        ring[p] = lane.ring[(lane.head + p) & mask];
    }
    lane.ring.swap(ring);
    lane.head = 0;
}

inline void
LaneHeapScheduler::Append(uint32_t l, Key key, const Scheduler::Event& ev)
{
    Lane& lane = m_lanes[l];
    if (lane.size == lane.ring.size())
    {
        GrowLane(l);
    }
    const std::size_t mask = lane.ring.size() - 1;
    lane.ring[(lane.head + lane.size) & mask]
        = Item{ev.key.m_ts,
               (static_cast<uint64_t>(ev.key.m_uid) << 32) | ev.key.m_context,
               ev.impl};
    ++lane.size;
    lane.last = key;
    m_busy |= 1u << l;
}

inline void
LaneHeapScheduler::PopLaneHead(uint32_t l, std::size_t i)
{
    Lane& lane = m_lanes[l];
    const std::size_t mask = lane.ring.size() - 1;
    lane.head = static_cast<uint32_t>((lane.head + 1) & mask);
    --lane.size;
    if (lane.size > 0)
    {
        const Item& next = lane.ring[lane.head];
        // The lane's next event is usually close behind: top-down stops early.
        m_heap.IncreaseKey(i, (static_cast<Key>(next.ts) << 64) | next.uidCtx, LaneWord(l));
    }
    else
    {
        m_busy &= ~(1u << l);
        m_heap.Erase(i);
    }
}

void
LaneHeapScheduler::Insert(const Scheduler::Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    const Key key = QuadHeapScheduler::MakeKey(ev);
    ++m_size;
    // The lane of this delay, else an empty lane, else the heap.
    const uint64_t delay = ev.key.m_ts - m_now;
    uint32_t match = 0;
    for (uint32_t l = 0; l < LANES; ++l)
    {
        match |= static_cast<uint32_t>(m_laneDelay[l] == delay) << l;
    }
    if (match != 0)
    {
        const auto l = static_cast<uint32_t>(__builtin_ctz(match));
        const Lane& lane = m_lanes[l];
        if (lane.size == 0)
        {
            Append(l, key, ev);
            m_heap.Push(key, LaneWord(l));
        }
        else if (lane.last < key)
        {
            Append(l, key, ev); // the lane's heap entry keeps its first event's key
        }
        else
        {
            m_heap.Push(key, reinterpret_cast<uintptr_t>(ev.impl)); // does not fit behind
        }
        return;
    }
    const uint32_t empty = ~m_busy & ((1u << LANES) - 1);
    if (empty != 0)
    {
        const auto l = static_cast<uint32_t>(__builtin_ctz(empty));
        m_laneDelay[l] = delay;
        Append(l, key, ev);
        m_heap.Push(key, LaneWord(l));
        return;
    }
    m_heap.Push(key, reinterpret_cast<uintptr_t>(ev.impl));
}

bool
LaneHeapScheduler::IsEmpty() const
{
    return m_size == 0;
}

std::size_t
LaneHeapScheduler::Size() const
{
    return m_size;
}

std::size_t
LaneHeapScheduler::HeapSize() const
{
    return m_heap.Size();
}

Scheduler::Event
LaneHeapScheduler::PeekNext() const
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT(m_size > 0);
    const uintptr_t word = m_heap.WordAt(0);
    if (word & 1)
    {
        const Lane& lane = m_lanes[word >> 1];
        return QuadHeapScheduler::MakeEvent(m_heap.KeyAt(0), lane.ring[lane.head].impl);
    }
    return QuadHeapScheduler::MakeEvent(m_heap.KeyAt(0), reinterpret_cast<EventImpl*>(word));
}

Scheduler::Event
LaneHeapScheduler::RemoveNext()
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT(m_size > 0);
    const uintptr_t word = m_heap.WordAt(0);
    Scheduler::Event ev;
    if (word & 1)
    {
        const auto l = static_cast<uint32_t>(word >> 1);
        ev = QuadHeapScheduler::MakeEvent(m_heap.KeyAt(0), m_lanes[l].ring[m_lanes[l].head].impl);
        PopLaneHead(l, 0);
    }
    else
    {
        ev = QuadHeapScheduler::MakeEvent(m_heap.KeyAt(0), reinterpret_cast<EventImpl*>(word));
        m_heap.Erase(0);
    }
    --m_size;
    m_now = ev.key.m_ts;
    return ev;
}

void
LaneHeapScheduler::Remove(const Scheduler::Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    // Events are equal when their uids are (ns-3's operator== of Scheduler::EventKey).
    const uint32_t uid = ev.key.m_uid;
    for (std::size_t i = 0; i < m_heap.Size(); ++i)
    {
        if (!(m_heap.WordAt(i) & 1) && static_cast<uint32_t>(m_heap.KeyAt(i) >> 32) == uid)
        {
            m_heap.Erase(i);
            --m_size;
            return;
        }
    }
    for (uint32_t l = 0; l < LANES; ++l)
    {
        Lane& lane = m_lanes[l];
        const std::size_t mask = lane.ring.size() - 1;
        for (uint32_t p = 0; p < lane.size; ++p)
        {
            if (static_cast<uint32_t>(lane.ring[(lane.head + p) & mask].uidCtx >> 32) != uid)
            {
                continue;
            }
            if (p == 0)
            {
                // The lane's first event: its heap entry takes the next one's key (or goes).
                std::size_t i = 0;
                while (m_heap.WordAt(i) != LaneWord(l))
                {
                    ++i;
                }
                PopLaneHead(l, i);
            }
            else
            {
                for (uint32_t q = p + 1; q < lane.size; ++q)
                {
                    lane.ring[(lane.head + q - 1) & mask] = lane.ring[(lane.head + q) & mask];
                }
                --lane.size;
                const Item& last = lane.ring[(lane.head + lane.size - 1) & mask];
                lane.last = (static_cast<Key>(last.ts) << 64) | last.uidCtx;
            }
            --m_size;
            return;
        }
    }
    NS_ASSERT_MSG(false, "LaneHeapScheduler::Remove: event " << uid << " not found");
}

} // namespace ns3
