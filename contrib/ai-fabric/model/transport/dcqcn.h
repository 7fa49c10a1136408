/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_DCQCN_H
#define AI_FABRIC_DCQCN_H

#include "ns3/event-id.h"
#include "ns3/rdma-congestion-control.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief DCQCN (Zhu et al., SIGCOMM 2015, "Congestion Control for
 * Large-Scale RDMA Deployments"), reaction point of one queue pair, and the
 * notification point's CNP interval.
 *
 * Notification point (receiver transport): data marked ECN CE triggers a CNP
 * for its queue pair unless one was sent in the last CnpInterval.
 *
 * Reaction point, with current rate RC, target rate RT, alpha, timer count T
 * and byte count BC (FACTS.md 2.3; htsim sim/dcqcn.cpp):
 *  * CNP: RT <- RC; RC <- RC (1 - alpha/2); alpha <- (1 - g) alpha + g;
 *    T, BC and the byte counter reset; both timers restart.
 *  * Alpha timer, every AlphaUpdatePeriod without a CNP: alpha <- (1 - g) alpha.
 *  * Increase events: the rate-increase timer (every RateIncreasePeriod,
 *    T <- T + 1) and the byte counter (every ByteCounter bytes sent,
 *    BC <- BC + 1). After counting the event:
 *     - max(T, BC) <= F: fast recovery, RC <- (RT + RC) / 2;
 *     - min(T, BC) > F: hyper increase, RT <- RT + (min(T, BC) - F) R_HAI, RC <- (RT + RC) / 2;
 *     - otherwise: additive increase, RT <- RT + R_AI, RC <- (RT + RC) / 2.
 *    Counting before the test gives exactly F fast-recovery steps per timer
 *    (the "max(T, BC) < F" of the paper's wording counts after the test).
 *  * RC and RT stay within [MinRate, line rate]; RC rounds (RT + RC) / 2 up,
 *    so it reaches the line rate exactly.
 *
 * Timers run only while the queue pair is rate-limited (RC below the line
 * rate): a queue pair at line rate costs no events. The alpha decay it would
 * have had meanwhile is applied, period by period, when the next CNP comes,
 * so alpha evolves exactly as with a free-running timer. A queue pair gets
 * its controller at its first CNP with alpha = InitialAlpha (the first-CNP
 * behaviour of NVIDIA firmware, FACTS.md 2.3).
 *
 * Rates are whole bits per second.
 */
class Dcqcn : public RdmaCongestionControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    Dcqcn();
    ~Dcqcn() override;
    Dcqcn(const Dcqcn&) = delete;
    Dcqcn& operator=(const Dcqcn&) = delete;

    Ptr<RdmaCongestionControl> Fork() const override;
    Time GetNotificationInterval() const override;

    /// \return alpha, the congestion estimate in [0, 1]
    double GetAlpha() const;
    /// \return the target rate RT
    DataRate GetTargetRate() const;
    /// \return increase-timer expiries since the last CNP (T)
    uint32_t GetTimerCount() const;
    /// \return byte-counter expiries since the last CNP (BC)
    uint32_t GetByteCount() const;
    /// \return CNPs received
    uint64_t GetCnpsReceived() const;
    /// \return true while the timers are running
    bool AreTimersRunning() const;

  protected:
    void DoDispose() override;

  private:
    void DoStart() override;
    void DoNotifyCongestion() override;
    void DoNotifySent(uint32_t wireBytes) override;

    /// Alpha timer expiry.
    void AlphaTimer();
    /// Rate-increase timer expiry.
    void IncreaseTimer();
    /// One rate-increase event (T or BC already counted).
    void Increase();
    /// Stop both timers (the rate is back at the line rate).
    void StopTimers();
    /// \return R_AI in bits per second (RateAi, or line rate / 20)
    uint64_t RateAiBps() const;
    /// \return R_HAI in bits per second (RateHai, or line rate / 10)
    uint64_t RateHaiBps() const;

    // Attributes (copied by Fork()).
    double m_g;              //!< alpha gain g
    double m_initialAlpha;   //!< alpha of a new controller
    Time m_alphaPeriod;      //!< alpha update period
    Time m_increasePeriod;   //!< rate-increase timer period T
    uint64_t m_byteCounter;  //!< byte counter B, bytes
    uint32_t m_fastRecovery; //!< F, fast-recovery steps
    DataRate m_rateAi;       //!< R_AI (0: line rate / 20)
    DataRate m_rateHai;      //!< R_HAI (0: line rate / 10)
    DataRate m_minRate;      //!< lowest rate
    Time m_cnpInterval;      //!< notification point: least time between CNPs per queue pair

    // State.
    double m_alpha{1};        //!< congestion estimate
    uint64_t m_targetBps{0};  //!< RT, bits per second
    uint32_t m_timerCount{0}; //!< T
    uint32_t m_byteCount{0};  //!< BC
    uint64_t m_bytes{0};      //!< bytes counted towards the next byte-counter event
    uint64_t m_cnps{0};       //!< CNPs received
    Time m_lastAlphaUpdate;   //!< last alpha update (CNP or alpha timer)
    EventId m_alphaTimer;     //!< alpha timer
    EventId m_increaseTimer;  //!< rate-increase timer
};

} // namespace ns3

#endif /* AI_FABRIC_DCQCN_H */
