/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_FABRIC_EVENT_H
#define AI_FABRIC_FABRIC_EVENT_H

#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/simulator.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A member-function event that is scheduled again and again without allocation.
 *
 * Simulator::Schedule(delay, &T::F, obj) allocates an EventImpl for every event and frees
 * it after the event ran. An object whose events all call the same member function without
 * arguments (a port's next transmission, a cable's next arrival: the function finds its work
 * in the object's own state) can own one EventImpl instead and hand the scheduler a
 * reference to it for each occurrence: the scheduler holds one reference per pending
 * occurrence and drops it after the occurrence ran (or at Simulator::Destroy), the owner
 * holds its own until it dies. Several occurrences may be pending at once; they run in the
 * order of their times and, at equal times, of scheduling. Occurrences are never cancelled.
 *
 * \tparam T the owner
 * \tparam F the member function to call
 */
template<typename T, void (T::*F)()>
class ReusableEvent
{
  public:
    /**
     * \param owner the object whose member function the event calls; it must outlive
     *        every pending occurrence that can still run
     */
    explicit ReusableEvent(T* owner)
        : m_impl(Create<Impl>(owner))
    {
    }

    ReusableEvent(const ReusableEvent&) = delete;
    ReusableEvent& operator=(const ReusableEvent&) = delete;

    /**
     * \brief Schedule one occurrence in the current context.
     * \param delay from now
     */
    void Schedule(const Time& delay) const
    {
        ScheduleWithContext(Simulator::GetContext(), delay);
    }

    /**
     * \brief Schedule one occurrence in a node's context.
     * \param context the node id the event runs in
     * \param delay from now
     */
    void ScheduleWithContext(uint32_t context, const Time& delay) const
    {
        m_impl->Ref(); // the scheduler's reference, dropped after the event ran
        Simulator::ScheduleWithContext(context, delay, PeekPointer(m_impl));
    }

  private:
    /// The event body.
    class Impl : public EventImpl
    {
      public:
        /// \param owner the object called
        explicit Impl(T* owner)
            : m_owner(owner)
        {
        }

      protected:
        void Notify() override
        {
            (m_owner->*F)();
        }

      private:
        T* m_owner; //!< the object called
    };

    Ptr<EventImpl> m_impl; //!< the one event body, shared by every occurrence
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_EVENT_H */
