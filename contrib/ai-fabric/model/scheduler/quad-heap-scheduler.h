/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_QUAD_HEAP_SCHEDULER_H
#define AI_FABRIC_QUAD_HEAP_SCHEDULER_H

#include "ns3/assert.h"
#include "ns3/scheduler.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{

class EventImpl;

/**
 * \ingroup ai-fabric
 * \brief A 4-ary implicit min-heap of (128-bit key, word) entries laid out for the
 * cache: the store of ns3::QuadHeapScheduler and ns3::LaneHeapScheduler.
 *
 *  - the keys live in their own array of 16-byte keys and the words (an EventImpl*
 *    or a tag) in a parallel array: a sift reads only keys;
 *  - a node's 4 children are contiguous and the keys array is offset so that the
 *    4 children of every node share one 64-byte cache line: a 4-ary heap has half
 *    the levels of a binary one and each level costs one line;
 *  - removing or replacing an entry moves the hole down to a leaf along the
 *    smallest children (3 branch-free comparisons per level, none with the entry
 *    that fills it), then places that entry at the leaf and sifts it up, which is
 *    short when it is large (events far in the future, as most are);
 *  - the slots after the last entry up to the end of its children's line hold a key
 *    larger than any (NO_KEY), so every level compares 4 children without a bounds
 *    test. Keys must stay below NO_KEY (ns-3 time stamps are below 2^63).
 */
class QuadHeap
{
  public:
    /// A key; smaller keys leave first.
    __extension__ typedef unsigned __int128 Key;

    /// Larger than every key that may be stored.
    static constexpr Key NO_KEY = ~static_cast<Key>(0);

    QuadHeap() = default;
    ~QuadHeap();
    QuadHeap(const QuadHeap&) = delete;
    QuadHeap& operator=(const QuadHeap&) = delete;

    /// \return the number of entries
    std::size_t Size() const
    {
        return m_size;
    }

    /**
     * \param i an index in [0, Size()); 0 is the smallest entry
     * \return the key of entry \p i
     */
    Key KeyAt(std::size_t i) const
    {
        return m_keys[KEY_OFFSET + i];
    }

    /**
     * \param i an index in [0, Size()); 0 is the smallest entry
     * \return the word of entry \p i
     */
    uintptr_t WordAt(std::size_t i) const
    {
        return m_words[i];
    }

    /**
     * Add an entry.
     * \param key its key (below NO_KEY)
     * \param word its word
     */
    void Push(Key key, uintptr_t word);

    /**
     * Replace entry \p i by (\p key, \p word), whatever the new key, and restore the order.
     * \param i an index in [0, Size())
     * \param key the new key (below NO_KEY)
     * \param word the new word
     */
    void Replace(std::size_t i, Key key, uintptr_t word);

    /**
     * Give entry \p i the key \p key, not smaller than its old one, and the word \p word,
     * and restore the order top-down: cheaper than Replace when the new key stays near \p i.
     * \param i an index in [0, Size())
     * \param key the new key, >= KeyAt(i) (below NO_KEY)
     * \param word the new word
     */
    void IncreaseKey(std::size_t i, Key key, uintptr_t word);

    /**
     * Remove entry \p i.
     * \param i an index in [0, Size())
     */
    void Erase(std::size_t i);

  private:
    /**
     * Put (\p key, \p word) at the free slot \p hole and sift it up.
     * \param hole a free slot
     * \param key the key to place
     * \param word its word
     */
    void SiftUp(std::size_t hole, Key key, uintptr_t word);
    /**
     * \param k the keys (m_keys + KEY_OFFSET)
     * \param c the first of four siblings
     * \return the index of the smallest of them (3 branch-free comparisons; the slots after
     *         the last entry hold NO_KEY, so a partial last group needs no bounds test)
     */
    static std::size_t MinOfFour(const Key* k, std::size_t c);
    /// Double the capacity (keeps every entry).
    void Grow();

    /// Slots a descent may read past the last entry (the rest of its children's line).
    static constexpr std::size_t SLACK = 4;

    /// Key of entry i is m_keys[i + KEY_OFFSET]: children 4i+1..4i+4 of i then start
    /// at a multiple of 4 keys (64 bytes) from the aligned start of the array.
    static constexpr std::size_t KEY_OFFSET = 3;

    Key* m_keys{nullptr};        //!< keys, 64-byte aligned, m_capacity + KEY_OFFSET slots
    uintptr_t* m_words{nullptr}; //!< word of entry i at m_words[i], m_capacity slots
    std::size_t m_size{0};       //!< entries
    std::size_t m_capacity{0};   //!< slots (entries) of both arrays
};

/**
 * \ingroup ai-fabric
 * \brief An ns-3 event scheduler: a 4-ary implicit min-heap laid out for the cache
 * (QuadHeap; `scheduler: quad-heap`, `ai-fabric run --scheduler quad-heap`).
 *
 * Events leave in exactly ns-3's order, by Scheduler::EventKey (time stamp, then
 * uid), as with every ns-3 scheduler, so a run gives byte-identical results with
 * this scheduler and with ns3::PriorityQueueScheduler; only the speed differs. The
 * key of an event is (time stamp << 64) | (uid << 32) | context: one unsigned
 * 128-bit comparison orders by (time stamp, uid), and uids are unique.
 *
 * Faster than the binary heap of ns3::PriorityQueueScheduler when tens of thousands
 * of events are pending (the heap does not fit in L1/L2 and every level a sift
 * visits is a cache miss): half the levels, one cache line per level, keys apart
 * from the event pointers, bottom-up removal (see QuadHeap).
 *
 * Insert and RemoveNext are O(log4 n); Remove is linear in the number of pending
 * events (a scan of the keys for the uid), as in ns-3's own heap schedulers; ns-3
 * calls it only for Simulator::Remove.
 */
class QuadHeapScheduler : public Scheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    QuadHeapScheduler();
    ~QuadHeapScheduler() override;

    // Inherited
    void Insert(const Scheduler::Event& ev) override;
    bool IsEmpty() const override;
    Scheduler::Event PeekNext() const override;
    Scheduler::Event RemoveNext() override;
    void Remove(const Scheduler::Event& ev) override;

    /// \return the number of pending events
    std::size_t Size() const;

    /**
     * \param ev an event
     * \return its key: (time stamp << 64) | (uid << 32) | context
     */
    static QuadHeap::Key MakeKey(const Scheduler::Event& ev);
    /**
     * \param key a key of MakeKey
     * \param impl the event
     * \return the event of \p key and \p impl
     */
    static Scheduler::Event MakeEvent(QuadHeap::Key key, EventImpl* impl);

  private:
    QuadHeap m_heap; //!< the pending events (word: the EventImpl*)
};

inline void
QuadHeap::SiftUp(std::size_t hole, Key key, uintptr_t word)
{
    Key* const k = m_keys + KEY_OFFSET;
    while (hole > 0)
    {
        const std::size_t parent = (hole - 1) >> 2;
        if (!(key < k[parent]))
        {
            break;
        }
        k[hole] = k[parent];
        m_words[hole] = m_words[parent];
        hole = parent;
    }
    k[hole] = key;
    m_words[hole] = word;
}

inline std::size_t
QuadHeap::MinOfFour(const Key* k, std::size_t c)
{
    const std::size_t a = k[c + 1] < k[c] ? c + 1 : c;
    const std::size_t b = k[c + 3] < k[c + 2] ? c + 3 : c + 2;
    return k[b] < k[a] ? b : a;
}

inline void
QuadHeap::Push(Key key, uintptr_t word)
{
    if (m_size + SLACK > m_capacity)
    {
        Grow();
    }
    SiftUp(m_size++, key, word);
}

inline void
QuadHeap::Replace(std::size_t hole, Key key, uintptr_t word)
{
    NS_ASSERT(hole < m_size);
    Key* const k = m_keys + KEY_OFFSET;
    const std::size_t n = m_size;
    // Down to a leaf along the smallest children.
    for (std::size_t c = 4 * hole + 1; c < n; c = 4 * hole + 1)
    {
        const std::size_t m = MinOfFour(k, c);
        k[hole] = k[m];
        m_words[hole] = m_words[m];
        hole = m;
    }
    SiftUp(hole, key, word);
}

inline void
QuadHeap::IncreaseKey(std::size_t hole, Key key, uintptr_t word)
{
    NS_ASSERT(hole < m_size && !(key < KeyAt(hole)));
    Key* const k = m_keys + KEY_OFFSET;
    const std::size_t n = m_size;
    for (std::size_t c = 4 * hole + 1; c < n; c = 4 * hole + 1)
    {
        const std::size_t m = MinOfFour(k, c);
        if (!(k[m] < key))
        {
            break;
        }
        k[hole] = k[m];
        m_words[hole] = m_words[m];
        hole = m;
    }
    k[hole] = key;
    m_words[hole] = word;
}

inline void
QuadHeap::Erase(std::size_t i)
{
    NS_ASSERT(i < m_size);
    const std::size_t last = --m_size;
    Key* const k = m_keys + KEY_OFFSET;
    const Key lastKey = k[last];
    k[last] = NO_KEY;
    if (i != last)
    {
        Replace(i, lastKey, m_words[last]);
    }
}

inline QuadHeap::Key
QuadHeapScheduler::MakeKey(const Scheduler::Event& ev)
{
    return (static_cast<QuadHeap::Key>(ev.key.m_ts) << 64)
           | (static_cast<QuadHeap::Key>(ev.key.m_uid) << 32) | ev.key.m_context;
}

inline Scheduler::Event
QuadHeapScheduler::MakeEvent(QuadHeap::Key key, EventImpl* impl)
{
    Scheduler::Event ev;
    ev.impl = impl;
    ev.key.m_ts = static_cast<uint64_t>(key >> 64);
    ev.key.m_uid = static_cast<uint32_t>(key >> 32);
    ev.key.m_context = static_cast<uint32_t>(key);
    return ev;
}

} // namespace ns3

#endif // AI_FABRIC_QUAD_HEAP_SCHEDULER_H
