/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RDMA_CONGESTION_CONTROL_H
#define AI_FABRIC_RDMA_CONGESTION_CONTROL_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Rate-based congestion control of one RDMA queue pair (the strategy
 * an RdmaTransport applies to its queue pairs).
 *
 * The transport holds one configured instance as a prototype (its
 * "CongestionControl" attribute; null means no congestion control, every
 * queue pair at line rate) and gives each queue pair that needs one its own
 * instance, made with Fork(), started with Start() at the line rate.
 *
 * Reaction point (sender) events, called by the transport:
 *  * NotifyCongestion(): a congestion notification (RoCEv2 CNP) for the queue pair;
 *  * NotifySent(): wire bytes the queue pair put on the link.
 * The algorithm keeps the queue pair's current rate (GetRate()) between its
 * minimum and the line rate and reports every change through the rate
 * callback; the transport paces the queue pair at that rate.
 *
 * Notification point (receiver): GetNotificationInterval() tells the
 * receiving transport how often it may send a congestion notification per
 * queue pair when data arrives marked ECN CE.
 *
 * The public non-virtual methods keep the rate bookkeeping and call the
 * private Do* virtuals (template method): the notifications received, the
 * rate cuts (changes down) and increases (changes up), and the lowest rate
 * the queue pair was held to, for observers (qps.csv, docs/results-format.md).
 */
class RdmaCongestionControl : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaCongestionControl();
    ~RdmaCongestionControl() override;
    RdmaCongestionControl(const RdmaCongestionControl&) = delete;
    RdmaCongestionControl& operator=(const RdmaCongestionControl&) = delete;

    /// Told the new rate whenever the queue pair's rate changes.
    typedef Callback<void, DataRate> RateCallback;

    /**
     * \brief Make a controller for one queue pair.
     * \return a new instance of the same type and attribute values, not started
     */
    virtual Ptr<RdmaCongestionControl> Fork() const = 0;

    /**
     * \brief Notification point: the least time between two congestion
     * notifications a receiver sends for one queue pair.
     * \return the interval; negative if the algorithm uses no notifications
     */
    virtual Time GetNotificationInterval() const = 0;

    /**
     * \brief Start controlling a queue pair, at line rate.
     * \param lineRate the NIC's data rate
     * \param cb told every rate change (may be null)
     */
    void Start(DataRate lineRate, RateCallback cb);

    /// \brief Reaction point: a congestion notification arrived for the queue pair.
    void NotifyCongestion();

    /**
     * \brief Reaction point: the queue pair sent a packet.
     * \param wireBytes its size on the wire, bytes
     */
    void NotifySent(uint32_t wireBytes);

    /// \return the current sending rate (never above the line rate)
    DataRate GetRate() const;
    /// \return the line rate given to Start()
    DataRate GetLineRate() const;
    /// \return true while the rate is below the line rate
    bool IsLimited() const;
    /// \return congestion notifications received (NotifyCongestion() calls)
    uint64_t GetNotifications() const;
    /// \return rate cuts: changes of the rate to a lower one (DCQCN: a CNP's decrease; a CNP
    /// that finds the rate at its minimum cuts nothing)
    uint64_t GetRateCuts() const;
    /// \return rate increases: changes of the rate to a higher one
    uint64_t GetRateIncreases() const;
    /// \return the lowest rate since Start() (the line rate if never cut)
    DataRate GetMinRate() const;

  protected:
    void DoDispose() override;

    /**
     * \brief Set the current rate, clamped to the line rate; tells the rate
     * callback if it changed.
     * \param bps the new rate, bits per second
     */
    void SetRateBps(uint64_t bps);
    /// \return the current rate, bits per second
    uint64_t GetRateBps() const;
    /// \return the line rate, bits per second
    uint64_t GetLineRateBps() const;

  private:
    /// Called by Start() once the line rate and rate are set.
    virtual void DoStart() = 0;
    /// Called by NotifyCongestion().
    virtual void DoNotifyCongestion() = 0;
    /**
     * \brief Called by NotifySent().
     * \param wireBytes bytes sent
     */
    virtual void DoNotifySent(uint32_t wireBytes) = 0;

    uint64_t m_lineBps{0};       //!< line rate, bits per second
    uint64_t m_rateBps{0};       //!< current rate, bits per second
    uint64_t m_minRateBps{0};    //!< lowest rate since Start(), bits per second
    uint64_t m_notifications{0}; //!< NotifyCongestion() calls
    uint64_t m_cuts{0};          //!< changes of the rate to a lower one
    uint64_t m_increases{0};     //!< changes of the rate to a higher one
    RateCallback m_rateCb;       //!< told every rate change
};

} // namespace ns3

#endif /* AI_FABRIC_RDMA_CONGESTION_CONTROL_H */
