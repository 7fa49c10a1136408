/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_TIME_HEAP_H
#define AI_FABRIC_TIME_HEAP_H

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A binary min-heap of values keyed by a time: the earliest on top, and among equal
 * times the one pushed first (so the order is that of simulator events scheduled at those
 * times, in the order of the pushes).
 *
 * Used where a model holds items that each become due at their own time and one reusable
 * event per item pops the earliest (a switch's cut-through waits; a transport's paced queue
 * pairs). No allocation once the heap has reached its largest size.
 *
 * \tparam T the value
 */
template<typename T>
class TimeHeap
{
  public:
    /// One value with its key.
    struct Entry
    {
        int64_t at;   //!< when it is due, time steps
        uint64_t seq; //!< order of the pushes (ties)
        T value;      //!< the value
    };

    /// \return true if the heap holds nothing
    bool Empty() const
    {
        return m_heap.empty();
    }

    /// \return values held
    std::size_t Size() const
    {
        return m_heap.size();
    }

    /**
     * \param at when the value is due, time steps
     * \param value the value
     */
    void Push(int64_t at, T&& value)
    {
        m_heap.push_back(Entry{at, m_seq++, std::move(value)});
        std::push_heap(m_heap.begin(), m_heap.end(), Later);
    }

    /// \return the earliest entry (the heap must not be empty)
    const Entry& Top() const
    {
        return m_heap.front();
    }

    /// \return when the earliest value is due, time steps (the heap must not be empty)
    int64_t TopAt() const
    {
        return m_heap.front().at;
    }

    /// \return the earliest value, removed (the heap must not be empty)
    T Pop()
    {
        std::pop_heap(m_heap.begin(), m_heap.end(), Later);
        T value = std::move(m_heap.back().value);
        m_heap.pop_back();
        return value;
    }

    /// \brief Drop every value (the push counter keeps counting).
    void Clear()
    {
        m_heap.clear();
    }

  private:
    /**
     * \param a an entry
     * \param b another
     * \return true if \p a is due after \p b (the heap's order: earliest on top)
     */
    static bool Later(const Entry& a, const Entry& b)
    {
        return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }

    std::vector<Entry> m_heap; //!< the heap
    uint64_t m_seq{0};         //!< next Entry::seq
};

} // namespace ns3

#endif /* AI_FABRIC_TIME_HEAP_H */
