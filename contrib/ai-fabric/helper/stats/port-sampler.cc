/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "port-sampler.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

PortSampler::PortSampler(std::vector<Ptr<FabricNetDevice>> ports, Time interval)
    : m_ports(std::move(ports))
    , m_auto(!interval.IsStrictlyPositive())
    , m_intervalPs(m_auto ? AUTO_FIRST_INTERVAL_PS : interval.GetPicoSeconds())
    , m_maxBins(AUTO_MAX_BINS)
{
    if (m_auto && !m_ports.empty())
    {
        const uint64_t cap = std::max<uint64_t>(16, AUTO_MAX_CELLS / m_ports.size());
        m_maxBins = static_cast<uint32_t>(std::min<uint64_t>(AUTO_MAX_BINS, cap)) & ~1u;
    }
    m_intervalPs = std::max<int64_t>(1, m_intervalPs);
    m_prevBusyPs.assign(m_ports.size(), 0);
}

void
PortSampler::AddTransport(Ptr<RdmaTransport> transport, const std::vector<uint32_t>& portIds)
{
    for (uint32_t i = 0; i < portIds.size() && i < transport->GetNPorts(); ++i)
    {
        if (portIds[i] < m_ports.size())
        {
            m_probes.push_back(RateProbe{transport, i, portIds[i], 0, 0});
        }
    }
    std::stable_sort(m_probes.begin(), m_probes.end(), [](const RateProbe& a, const RateProbe& b) {
        return a.portId < b.portId;
    });
}

void
PortSampler::Start()
{
    Simulator::Schedule(PicoSeconds(m_intervalPs), &PortSampler::Sample, this);
}

void
PortSampler::Record()
{
    const std::size_t n = m_ports.size();
    const int64_t now = Simulator::Now().GetPicoSeconds();
    if (m_auto && m_bins == 0)
    {
        // Auto bins never exceed m_maxBins: take it at once rather than growing by doubling
        // (which holds the old and the new arrays together at every step).
        const std::size_t cells = static_cast<std::size_t>(m_maxBins) + 1;
        m_busyPs.reserve(cells * n);
        m_queue.reserve(cells * n);
        m_queueMax.reserve(cells * n);
        m_rates.reserve(cells * m_probes.size());
        m_binEndPs.reserve(cells);
    }
    m_busyPs.resize(m_busyPs.size() + n);
    m_queue.resize(m_queue.size() + n);
    m_queueMax.resize(m_queueMax.size() + n);
    const std::size_t base = static_cast<std::size_t>(m_bins) * n;
    for (std::size_t i = 0; i < n; ++i)
    {
        FabricNetDevice& d = *m_ports[i];
        const int64_t busy = d.GetBusyTimeUntilNow().GetPicoSeconds();
        m_busyPs[base + i] = busy - m_prevBusyPs[i];
        m_prevBusyPs[i] = busy;
        m_queue[base + i] = d.GetQueuedBytes();
        m_queueMax[base + i] = d.TakeWindowPeakQueuedBytes();
    }
    RecordRates();
    m_binEndPs.push_back(now);
    m_lastEdgePs = now;
    ++m_bins;
}

void
PortSampler::RecordRates()
{
    for (RateProbe& p : m_probes)
    {
        const RdmaTransport::PortRateSample s = p.transport->GetPortRateSample(p.index);
        m_rates.push_back(RateCell{s.limitedQps,
                                   s.minBps,
                                   s.sumBps,
                                   s.lineBps,
                                   s.cnpsSent - p.prevCnpsSent,
                                   s.cnpsReceived - p.prevCnpsReceived});
        p.prevCnpsSent = s.cnpsSent;
        p.prevCnpsReceived = s.cnpsReceived;
    }
}

void
PortSampler::Merge()
{
    const std::size_t n = m_ports.size();
    const uint32_t half = m_bins / 2;
    for (uint32_t b = 0; b < half; ++b)
    {
        const std::size_t to = static_cast<std::size_t>(b) * n;
        const std::size_t x = static_cast<std::size_t>(2 * b) * n;
        const std::size_t y = x + n;
        for (std::size_t i = 0; i < n; ++i)
        {
            m_busyPs[to + i] = m_busyPs[x + i] + m_busyPs[y + i];
            m_queue[to + i] = m_queue[y + i];
            m_queueMax[to + i] = std::max(m_queueMax[x + i], m_queueMax[y + i]);
        }
        m_binEndPs[b] = m_binEndPs[2 * b + 1];
        const std::size_t k = m_probes.size();
        for (std::size_t i = 0; i < k; ++i)
        {
            // The later bin's rates (at the merged bin's end), the CNPs of both.
            const RateCell& x = m_rates[2 * b * k + i];
            RateCell merged = m_rates[(2 * b + 1) * k + i];
            merged.cnpsSent += x.cnpsSent;
            merged.cnpsReceived += x.cnpsReceived;
            m_rates[b * k + i] = merged;
        }
    }
    m_bins = half;
    m_busyPs.resize(static_cast<std::size_t>(half) * n);
    m_queue.resize(static_cast<std::size_t>(half) * n);
    m_queueMax.resize(static_cast<std::size_t>(half) * n);
    m_binEndPs.resize(half);
    m_rates.resize(static_cast<std::size_t>(half) * m_probes.size());
    m_intervalPs *= 2;
}

void
PortSampler::Sample()
{
    ++m_events;
    Record();
    if (m_auto && m_bins >= m_maxBins)
    {
        Merge();
    }
    else if (!m_auto && m_bins % 2 == 0
             && static_cast<uint64_t>(m_bins) * m_ports.size() >= FIXED_MAX_CELLS)
    {
        Merge(); // a fixed width too fine for the run's length: keep memory bounded
    }
    if (!Simulator::IsFinished())
    {
        // the next edge: bins stay aligned on multiples of the (possibly doubled) width
        const int64_t next = (m_lastEdgePs / m_intervalPs + 1) * m_intervalPs;
        Simulator::Schedule(PicoSeconds(next - m_lastEdgePs), &PortSampler::Sample, this);
    }
}

void
PortSampler::Finish()
{
    if (Simulator::Now().GetPicoSeconds() > m_lastEdgePs)
    {
        Record();
    }
}

uint64_t
PortSampler::Events() const
{
    return m_events;
}

double
PortSampler::IntervalS() const
{
    return m_intervalPs * 1e-12;
}

std::vector<TimeSeriesRow>
PortSampler::Rows() const
{
    const std::size_t n = m_ports.size();
    std::vector<uint32_t> active;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (m_ports[i]->GetStats().txPackets > 0)
        {
            active.push_back(i);
        }
    }
    std::vector<TimeSeriesRow> rows;
    rows.reserve(static_cast<std::size_t>(m_bins) * active.size());
    int64_t start = 0;
    for (uint32_t b = 0; b < m_bins; ++b)
    {
        const int64_t len = m_binEndPs[b] - start;
        for (const uint32_t i : active)
        {
            const std::size_t c = static_cast<std::size_t>(b) * n + i;
            TimeSeriesRow r;
            r.timeS = start * 1e-12;
            r.lengthS = len * 1e-12;
            r.portId = i;
            r.utilization = len > 0 ? std::min(1.0, static_cast<double>(m_busyPs[c]) / len) : 0.0;
            r.queueBytes = m_queue[c];
            r.queueMaxBytes = m_queueMax[c];
            rows.push_back(r);
        }
        start = m_binEndPs[b];
    }
    return rows;
}

std::vector<RateSeriesRow>
PortSampler::RateRows() const
{
    std::vector<uint32_t> active;
    for (uint32_t i = 0; i < m_probes.size(); ++i)
    {
        if (m_ports[m_probes[i].portId]->GetStats().txPackets > 0)
        {
            active.push_back(i);
        }
    }
    std::vector<RateSeriesRow> rows;
    rows.reserve(static_cast<std::size_t>(m_bins) * active.size());
    int64_t start = 0;
    for (uint32_t b = 0; b < m_bins; ++b)
    {
        for (const uint32_t i : active)
        {
            const RateCell& c = m_rates[static_cast<std::size_t>(b) * m_probes.size() + i];
            RateSeriesRow r;
            r.timeS = start * 1e-12;
            r.portId = m_probes[i].portId;
            r.limitedQps = c.limited;
            r.minRateGbps = static_cast<double>(c.minBps) * 1e-9;
            r.meanRateGbps = c.limited > 0 ? static_cast<double>(c.sumBps) / c.limited * 1e-9
                                           : static_cast<double>(c.lineBps) * 1e-9;
            r.cnpsSent = c.cnpsSent;
            r.cnpsReceived = c.cnpsReceived;
            rows.push_back(r);
        }
        start = m_binEndPs[b];
    }
    return rows;
}

} // namespace ns3
