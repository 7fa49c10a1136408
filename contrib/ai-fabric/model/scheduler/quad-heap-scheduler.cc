/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "quad-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>
#include <new>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("QuadHeapScheduler");

NS_OBJECT_ENSURE_REGISTERED(QuadHeapScheduler);

namespace
{

/// Alignment of the keys array: one cache line.
constexpr std::size_t LINE = 64;

/// First capacity (entries), a multiple of 4.
constexpr std::size_t FIRST_CAPACITY = 256;

} // namespace

QuadHeap::~QuadHeap()
{
    ::operator delete[](m_keys, std::align_val_t(LINE));
    ::operator delete[](m_words, std::align_val_t(LINE));
}

void
QuadHeap::Grow()
{
    const std::size_t capacity = m_capacity == 0 ? FIRST_CAPACITY : 2 * m_capacity;
    auto* keys = static_cast<Key*>(
        ::operator new[]((capacity + KEY_OFFSET) * sizeof(Key), std::align_val_t(LINE)));
    auto* words = static_cast<uintptr_t*>(
        ::operator new[](capacity * sizeof(uintptr_t), std::align_val_t(LINE)));
    std::fill(keys, keys + KEY_OFFSET + capacity, NO_KEY);
    if (m_capacity > 0)
    {
        std::copy(m_keys + KEY_OFFSET, m_keys + KEY_OFFSET + m_size, keys + KEY_OFFSET);
        std::copy(m_words, m_words + m_size, words);
    }
    ::operator delete[](m_keys, std::align_val_t(LINE));
    ::operator delete[](m_words, std::align_val_t(LINE));
    m_keys = keys;
    m_words = words;
    m_capacity = capacity;
}

TypeId
QuadHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QuadHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<QuadHeapScheduler>();
    return tid;
}

QuadHeapScheduler::QuadHeapScheduler()
{
    NS_LOG_FUNCTION(this);
}

QuadHeapScheduler::~QuadHeapScheduler()
{
    NS_LOG_FUNCTION(this);
}

void
QuadHeapScheduler::Insert(const Scheduler::Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    m_heap.Push(MakeKey(ev), reinterpret_cast<uintptr_t>(ev.impl));
}

bool
QuadHeapScheduler::IsEmpty() const
{
    return m_heap.Size() == 0;
}

std::size_t
QuadHeapScheduler::Size() const
{
    return m_heap.Size();
}

Scheduler::Event
QuadHeapScheduler::PeekNext() const
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT(m_heap.Size() > 0);
    return MakeEvent(m_heap.KeyAt(0), reinterpret_cast<EventImpl*>(m_heap.WordAt(0)));
}

Scheduler::Event
QuadHeapScheduler::RemoveNext()
{
    NS_LOG_FUNCTION(this);
    const Scheduler::Event next = PeekNext();
    m_heap.Erase(0);
    return next;
}

void
QuadHeapScheduler::Remove(const Scheduler::Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    // Events are equal when their uids are (ns-3's operator== of Scheduler::EventKey).
    for (std::size_t i = 0; i < m_heap.Size(); ++i)
    {
        if (static_cast<uint32_t>(m_heap.KeyAt(i) >> 32) == ev.key.m_uid)
        {
            m_heap.Erase(i);
            return;
        }
    }
    NS_ASSERT_MSG(false, "QuadHeapScheduler::Remove: event " << ev.key.m_uid << " not found");
}

} // namespace ns3
