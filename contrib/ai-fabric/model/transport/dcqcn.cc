/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dcqcn.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Dcqcn");
NS_OBJECT_ENSURE_REGISTERED(Dcqcn);

// Defaults: FACTS.md 2.3, DCQCN table, column "paper-style (htsim dcqcn.cpp)" [S code;
// paper values U]: g = 1/256, alpha period 55 us, CNP interval 50 us, T 55 us,
// B 10 MB (htsim: _B = 10000000 bytes), F 5, R_AI = line/20, R_HAI = line/10,
// min rate 100 Mb/s, initial alpha 1.
TypeId
Dcqcn::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::Dcqcn")
              .SetParent<RdmaCongestionControl>()
              .SetGroupName("AiFabric")
              .AddConstructor<Dcqcn>()
              .AddAttribute("AlphaGain",
                            "g: weight of a CNP in alpha (FACTS.md 2.3: 1/256)",
                            DoubleValue(1.0 / 256),
                            MakeDoubleAccessor(&Dcqcn::m_g),
                            MakeDoubleChecker<double>(0, 1))
              .AddAttribute("InitialAlpha",
                            "alpha of a queue pair at its first CNP (FACTS.md 2.3: 1)",
                            DoubleValue(1.0),
                            MakeDoubleAccessor(&Dcqcn::m_initialAlpha),
                            MakeDoubleChecker<double>(0, 1))
              .AddAttribute("AlphaUpdatePeriod",
                            "alpha decays by (1 - g) every period without a CNP "
                            "(FACTS.md 2.3: 55 us)",
                            TimeValue(MicroSeconds(55)),
                            MakeTimeAccessor(&Dcqcn::m_alphaPeriod),
                            MakeTimeChecker(PicoSeconds(1)))
              .AddAttribute("RateIncreasePeriod",
                            "T: period of the rate-increase timer (FACTS.md 2.3: 55 us)",
                            TimeValue(MicroSeconds(55)),
                            MakeTimeAccessor(&Dcqcn::m_increasePeriod),
                            MakeTimeChecker(PicoSeconds(1)))
              .AddAttribute("ByteCounter",
                            "B: bytes sent per byte-counter increase event, bytes "
                            "(FACTS.md 2.3: 10 MB; htsim 10000000)",
                            UintegerValue(10000000),
                            MakeUintegerAccessor(&Dcqcn::m_byteCounter),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("FastRecoverySteps",
                            "F: increase events per counter spent in fast recovery "
                            "(FACTS.md 2.3: 5)",
                            UintegerValue(5),
                            MakeUintegerAccessor(&Dcqcn::m_fastRecovery),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("RateAi",
                            "R_AI: additive-increase step of the target rate; 0 means line "
                            "rate / 20 (FACTS.md 2.3, htsim)",
                            DataRateValue(DataRate(0)),
                            MakeDataRateAccessor(&Dcqcn::m_rateAi),
                            MakeDataRateChecker())
              .AddAttribute("RateHai",
                            "R_HAI: hyper-increase step of the target rate; 0 means line "
                            "rate / 10 (FACTS.md 2.3, htsim)",
                            DataRateValue(DataRate(0)),
                            MakeDataRateAccessor(&Dcqcn::m_rateHai),
                            MakeDataRateChecker())
              .AddAttribute("MinRate",
                            "Lowest sending rate (FACTS.md 2.3: 100 Mb/s)",
                            DataRateValue(DataRate("100Mbps")),
                            MakeDataRateAccessor(&Dcqcn::m_minRate),
                            MakeDataRateChecker())
              .AddAttribute("CnpInterval",
                            "Notification point: least time between two CNPs for one queue "
                            "pair (FACTS.md 2.3: 50 us)",
                            TimeValue(MicroSeconds(50)),
                            MakeTimeAccessor(&Dcqcn::m_cnpInterval),
                            MakeTimeChecker(Seconds(0)));
    return tid;
}

Dcqcn::Dcqcn()
{
}

Dcqcn::~Dcqcn()
{
}

void
Dcqcn::DoDispose()
{
    m_alphaTimer.Cancel();
    m_increaseTimer.Cancel();
    RdmaCongestionControl::DoDispose();
}

Ptr<RdmaCongestionControl>
Dcqcn::Fork() const
{
    Ptr<Dcqcn> d = CreateObject<Dcqcn>();
    d->m_g = m_g;
    d->m_initialAlpha = m_initialAlpha;
    d->m_alphaPeriod = m_alphaPeriod;
    d->m_increasePeriod = m_increasePeriod;
    d->m_byteCounter = m_byteCounter;
    d->m_fastRecovery = m_fastRecovery;
    d->m_rateAi = m_rateAi;
    d->m_rateHai = m_rateHai;
    d->m_minRate = m_minRate;
    d->m_cnpInterval = m_cnpInterval;
    return d;
}

Time
Dcqcn::GetNotificationInterval() const
{
    return m_cnpInterval;
}

uint64_t
Dcqcn::RateAiBps() const
{
    return m_rateAi.GetBitRate() > 0 ? m_rateAi.GetBitRate() : GetLineRateBps() / 20;
}

uint64_t
Dcqcn::RateHaiBps() const
{
    return m_rateHai.GetBitRate() > 0 ? m_rateHai.GetBitRate() : GetLineRateBps() / 10;
}

void
Dcqcn::DoStart()
{
    m_alpha = m_initialAlpha;
    m_targetBps = GetLineRateBps();
    m_timerCount = 0;
    m_byteCount = 0;
    m_bytes = 0;
    m_lastAlphaUpdate = Simulator::Now();
}

void
Dcqcn::DoNotifyCongestion()
{
    const Time now = Simulator::Now();
    ++m_cnps;
    if (!m_alphaTimer.IsRunning())
    {
        // The alpha timer was stopped at line rate: apply the decays it would have made.
        const int64_t periods = (now - m_lastAlphaUpdate).GetTimeStep()
                                / std::max<int64_t>(1, m_alphaPeriod.GetTimeStep());
        if (periods > 0)
        {
            m_alpha *= std::pow(1 - m_g, static_cast<double>(periods));
        }
    }
    const uint64_t rate = GetRateBps();
    const uint64_t minBps = std::min(m_minRate.GetBitRate(), GetLineRateBps());
    m_targetBps = rate;
    const auto cut
        = static_cast<uint64_t>(std::llround(static_cast<double>(rate) * (1 - m_alpha / 2)));
    const uint64_t next = std::max(minBps, cut);
    m_alpha = (1 - m_g) * m_alpha + m_g;
    m_timerCount = 0;
    m_byteCount = 0;
    m_bytes = 0;
    m_lastAlphaUpdate = now;
    NS_LOG_DEBUG("CNP: RT " << m_targetBps << " RC " << next << " alpha " << m_alpha);
    SetRateBps(next);
    m_alphaTimer.Cancel();
    m_increaseTimer.Cancel();
    if (IsLimited())
    {
        m_alphaTimer = Simulator::Schedule(m_alphaPeriod, &Dcqcn::AlphaTimer, this);
        m_increaseTimer = Simulator::Schedule(m_increasePeriod, &Dcqcn::IncreaseTimer, this);
    }
}

void
Dcqcn::DoNotifySent(uint32_t wireBytes)
{
    if (!IsLimited())
    {
        return;
    }
    m_bytes += wireBytes;
    while (m_bytes >= m_byteCounter && IsLimited())
    {
        m_bytes -= m_byteCounter;
        ++m_byteCount;
        Increase();
    }
}

void
Dcqcn::AlphaTimer()
{
    m_alpha *= (1 - m_g);
    m_lastAlphaUpdate = Simulator::Now();
    m_alphaTimer = Simulator::Schedule(m_alphaPeriod, &Dcqcn::AlphaTimer, this);
}

void
Dcqcn::IncreaseTimer()
{
    ++m_timerCount;
    Increase();
    if (IsLimited())
    {
        m_increaseTimer = Simulator::Schedule(m_increasePeriod, &Dcqcn::IncreaseTimer, this);
    }
}

void
Dcqcn::Increase()
{
    const uint64_t line = GetLineRateBps();
    const uint32_t hi = std::max(m_timerCount, m_byteCount);
    const uint32_t lo = std::min(m_timerCount, m_byteCount);
    if (hi <= m_fastRecovery)
    {
        // fast recovery: RT unchanged
    }
    else if (lo > m_fastRecovery)
    {
        m_targetBps += static_cast<uint64_t>(lo - m_fastRecovery) * RateHaiBps();
    }
    else
    {
        m_targetBps += RateAiBps();
    }
    m_targetBps = std::min(m_targetBps, line);
    const uint64_t rate = GetRateBps();
    // (RT + RC) / 2 rounded up, so that the rate reaches the line rate exactly.
    const uint64_t next = rate + (m_targetBps > rate ? (m_targetBps - rate + 1) / 2 : 0)
                          - (m_targetBps < rate ? (rate - m_targetBps) / 2 : 0);
    NS_LOG_DEBUG("increase T " << m_timerCount << " BC " << m_byteCount << " RT " << m_targetBps
                               << " RC " << next);
    SetRateBps(next);
    if (!IsLimited())
    {
        StopTimers();
    }
}

void
Dcqcn::StopTimers()
{
    // Cancelled, not removed: ns-3 3.37's HeapScheduler::Remove swaps the last event in and
    // only sifts it down, which breaks the heap order (events then run out of time order).
    // A cancelled timer stays in the event list until its time and runs as a no-op.
    for (EventId* timer : {&m_alphaTimer, &m_increaseTimer})
    {
        if (timer->IsRunning())
        {
            timer->Cancel();
        }
    }
}

double
Dcqcn::GetAlpha() const
{
    return m_alpha;
}

DataRate
Dcqcn::GetTargetRate() const
{
    return DataRate(m_targetBps);
}

uint32_t
Dcqcn::GetTimerCount() const
{
    return m_timerCount;
}

uint32_t
Dcqcn::GetByteCount() const
{
    return m_byteCount;
}

uint64_t
Dcqcn::GetCnpsReceived() const
{
    return m_cnps;
}

bool
Dcqcn::AreTimersRunning() const
{
    return m_alphaTimer.IsRunning() || m_increaseTimer.IsRunning();
}

} // namespace ns3
