/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_MOVE_PTR_H
#define AI_FABRIC_MOVE_PTR_H

#include "ns3/ptr.h"

#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A reference-counted pointer like Ptr<T>, that can also be moved.
 *
 * ns-3 3.37's Ptr has no move constructor or move assignment: every hand-over (into a
 * queue, out of it, onto a cable, into a switch) copies, which increments the object's
 * reference count and decrements it again, touching the object each time. On the packet
 * path that object is a Packet that has waited in a queue or on a cable for microseconds
 * behind tens of thousands of others, so each touch is a cache miss. A MovePtr moves
 * without touching the object: a packet's Packet is touched when it is made and when it is
 * freed, not at every hop. Copies still count references, as Ptr's do.
 *
 * \tparam T the pointee (an ns-3 reference-counted type)
 */
template<typename T>
class MovePtr
{
  public:
    MovePtr() = default;

    /**
     * \brief Share a Ptr's object.
     * \param p the pointer
     */
    MovePtr(const Ptr<T>& p) // NOLINT(google-explicit-constructor): used like a Ptr
        : m_ptr(PeekPointer(p))
    {
        Acquire();
    }

    /// \param o the pointer to share
    MovePtr(const MovePtr& o)
        : m_ptr(o.m_ptr)
    {
        Acquire();
    }

    /// \param o the pointer to take over (left null)
    MovePtr(MovePtr&& o) noexcept
        : m_ptr(std::exchange(o.m_ptr, nullptr))
    {
    }

    ~MovePtr()
    {
        Release();
    }

    /**
     * \param o the pointer to share
     * \return this
     */
    MovePtr& operator=(const MovePtr& o)
    {
        MovePtr copy(o);
        Swap(copy);
        return *this;
    }

    /**
     * \param o the pointer to take over (left null)
     * \return this
     */
    MovePtr& operator=(MovePtr&& o) noexcept
    {
        MovePtr taken(std::move(o));
        Swap(taken);
        return *this;
    }

    /// \return the object
    T* operator->() const
    {
        return m_ptr;
    }

    /// \return the object, without a reference of its own
    T* Peek() const
    {
        return m_ptr;
    }

    /// \return a Ptr sharing the object (for ns-3 APIs and traces)
    Ptr<T> Get() const
    {
        return Ptr<T>(m_ptr);
    }

    /// \return true if not null
    explicit operator bool() const
    {
        return m_ptr != nullptr;
    }

  private:
    /// Count this pointer's reference.
    void Acquire()
    {
        if (m_ptr)
        {
            m_ptr->Ref();
        }
    }

    /// Drop this pointer's reference.
    void Release()
    {
        if (m_ptr)
        {
            m_ptr->Unref();
        }
    }

    /// \param o the pointer to exchange objects with
    void Swap(MovePtr& o) noexcept
    {
        std::swap(m_ptr, o.m_ptr);
    }

    T* m_ptr{nullptr}; //!< the object (one reference held), or null
};

} // namespace ns3

#endif /* AI_FABRIC_MOVE_PTR_H */
