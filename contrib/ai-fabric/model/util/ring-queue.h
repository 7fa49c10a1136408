/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RING_QUEUE_H
#define AI_FABRIC_RING_QUEUE_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A growable FIFO in one array: a ring whose capacity is a power of two and doubles
 * when full.
 *
 * The packet path keeps FIFOs that are pushed and popped once per packet: a port's egress
 * lanes, a cable's packets in flight, a port's credit returns in flight. A ring allocates
 * only when it grows (to the largest depth reached, then never again) and keeps its elements
 * contiguous; std::deque allocates and frees blocks as the FIFO moves through memory.
 * A popped slot keeps its moved-from value until the ring reuses it. The ring's own state is
 * 24 bytes (a pointer and four 32-bit counters), so that it shares a cache line with the
 * state next to it in the objects that hold one.
 *
 * \tparam T the element (default-constructible, move-assignable)
 */
template<typename T>
class RingQueue
{
  public:
    /// \param minCapacity the capacity of the first allocation (a power of two)
    explicit RingQueue(std::size_t minCapacity = 8)
        : m_minCapacity(static_cast<uint32_t>(minCapacity))
    {
    }

    /// \return true if the queue holds nothing
    bool Empty() const
    {
        return m_count == 0;
    }

    /// \return elements held
    std::size_t Size() const
    {
        return m_count;
    }

    /// \return the capacity allocated now
    std::size_t Capacity() const
    {
        return m_capacity;
    }

    /// \return the oldest element (the queue must not be empty)
    T& Front()
    {
        return m_ring[m_head];
    }

    /// \return the oldest element (the queue must not be empty)
    const T& Front() const
    {
        return m_ring[m_head];
    }

    /**
     * \param i position from the oldest (0) to Size() - 1
     * \return the element
     */
    T& operator[](std::size_t i)
    {
        return m_ring[(m_head + i) & (m_capacity - 1)];
    }

    /**
     * \param i position from the oldest (0) to Size() - 1
     * \return the element
     */
    const T& operator[](std::size_t i) const
    {
        return m_ring[(m_head + i) & (m_capacity - 1)];
    }

    /**
     * \brief Make room for one element at the back and return it (its slot may hold an old,
     * moved-from value: assign every field).
     * \return the new last element
     */
    T& PushSlot()
    {
        if (m_count == m_capacity)
        {
            Grow();
        }
        T& slot = m_ring[(m_head + m_count) & (m_capacity - 1)];
        ++m_count;
        return slot;
    }

    /// \param value appended at the back
    void PushBack(T&& value)
    {
        PushSlot() = std::move(value);
    }

    /// \param value appended at the back
    void PushBack(const T& value)
    {
        PushSlot() = value;
    }

    /**
     * \brief Drop the oldest element (the queue must not be empty); its slot is reused later.
     *
     * A queue that empties starts again at slot 0: a FIFO that drains often (a port's lane,
     * a credit return ring) then keeps reusing its first, cache-warm slots instead of
     * walking through the whole capacity it once grew to.
     */
    void PopFront()
    {
        m_head = --m_count == 0 ? 0 : (m_head + 1) & (m_capacity - 1);
    }

    /// \brief Drop every element and the storage.
    void Clear()
    {
        m_ring.reset();
        m_capacity = 0;
        m_head = 0;
        m_count = 0;
    }

  private:
    /// Full ring: double it (a power of two), oldest first.
    void Grow()
    {
        const uint32_t capacity = std::max(m_minCapacity, 2 * m_capacity);
        // 32-bit counters: a FIFO of 2^31 packets would not fit in memory first.
        std::unique_ptr<T[]> grown(new T[capacity]());
        for (uint32_t i = 0; i < m_count; ++i)
        {
            grown[i] = std::move(m_ring[(m_head + i) & (m_capacity - 1)]);
        }
        m_ring = std::move(grown);
        m_capacity = capacity;
        m_head = 0;
    }

    std::unique_ptr<T[]> m_ring; //!< the slots
    uint32_t m_capacity{0};      //!< slots allocated: 0 or a power of two
    uint32_t m_head{0};          //!< index of the oldest element
    uint32_t m_count{0};         //!< elements held
    uint32_t m_minCapacity;      //!< first allocation, slots (a power of two)
};

} // namespace ns3

#endif /* AI_FABRIC_RING_QUEUE_H */
