/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "progress-bar.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ns3
{

void
EtaEstimator::Add(double wallS, double progress)
{
    if (!m_have)
    {
        m_have = true;
        m_firstWall = wallS;
        m_firstShare = progress;
    }
    else if (wallS <= m_window.back().wall)
    {
        return;
    }
    m_window.push_back(Sample{wallS, progress});
    const double window = std::max(MIN_WINDOW_S, WINDOW_FRACTION * (wallS - m_firstWall));
    // Keep one sample at or before the window's start.
    while (m_window.size() > 2 && m_window[1].wall <= wallS - window)
    {
        m_window.pop_front();
    }
}

double
EtaEstimator::SecondsLeft(double target) const
{
    if (!m_have || !(target >= 0) || !std::isfinite(target))
    {
        return -1;
    }
    const Sample& last = m_window.back();
    const Sample& first = m_window.front();
    if (last.share <= 0 || last.wall - m_firstWall < MIN_WALL_S)
    {
        return -1;
    }
    double rate
        = last.wall > first.wall ? (last.share - first.share) / (last.wall - first.wall) : 0;
    if (rate <= 0)
    {
        rate = (last.share - m_firstShare) / (last.wall - m_firstWall);
    }
    if (rate <= 0)
    {
        return -1;
    }
    return std::max(0.0, target - last.share) / rate;
}

double
ExpectedEndS(double simS, double share, double idealEndS, double stopS)
{
    double end = idealEndS > 0 ? idealEndS : -1;
    if (share > 0 && std::isfinite(share))
    {
        end = std::max(end, simS / std::min(share, 1.0));
    }
    else if (end < simS)
    {
        end = -1; // nothing delivered, past the estimate: no basis for one
    }
    if (stopS > 0 && (end < 0 || end > stopS))
    {
        end = stopS; // the run stops there at the latest
    }
    return end;
}

std::string
FormatDuration(double seconds)
{
    if (!(seconds >= 0) || !std::isfinite(seconds))
    {
        return "--";
    }
    const auto s = static_cast<uint64_t>(std::llround(seconds));
    char text[32];
    if (s < 60)
    {
        std::snprintf(text, sizeof text, "%llus", static_cast<unsigned long long>(s));
    }
    else if (s < 3600)
    {
        std::snprintf(text,
                      sizeof text,
                      "%llum%02llus",
                      static_cast<unsigned long long>(s / 60),
                      static_cast<unsigned long long>(s % 60));
    }
    else
    {
        std::snprintf(text,
                      sizeof text,
                      "%lluh%02llum",
                      static_cast<unsigned long long>(s / 3600),
                      static_cast<unsigned long long>((s % 3600) / 60));
    }
    return text;
}

namespace
{

/// \return simulated seconds in the unit that keeps them readable ("1.250 ms")
std::string
SimText(double simS)
{
    char sim[32];
    if (simS < 1e-3)
    {
        std::snprintf(sim, sizeof sim, "%.3f us", simS * 1e6);
    }
    else if (simS < 1)
    {
        std::snprintf(sim, sizeof sim, "%.3f ms", simS * 1e3);
    }
    else
    {
        std::snprintf(sim, sizeof sim, "%.6f s", simS);
    }
    return sim;
}

} // namespace

std::string
FormatProgressLine(const ProgressState& state, uint32_t barWidth)
{
    const double share = std::isfinite(state.share) ? std::clamp(state.share, 0.0, 1.0) : 0.0;
    const auto filled = static_cast<uint32_t>(std::floor(share * barWidth));
    std::string bar(filled, '#');
    bar.append(barWidth - filled, '.');
    std::string sim = SimText(state.simS);
    if (state.expectedEndS >= 0 && std::isfinite(state.expectedEndS))
    {
        sim += " of ~" + SimText(state.expectedEndS);
    }
    char wall[32];
    std::snprintf(wall, sizeof wall, "%.1fs", state.wallS);
    char line[256];
    std::snprintf(line,
                  sizeof line,
                  "[ai-fabric] [%s] %5.1f%% bytes | sim %s | wall %s | ETA %s",
                  bar.c_str(),
                  100.0 * share,
                  sim.c_str(),
                  wall,
                  FormatDuration(state.etaS).c_str());
    return line;
}

} // namespace ns3
