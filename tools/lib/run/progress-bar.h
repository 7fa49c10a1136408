/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_PROGRESS_BAR_H
#define AI_FABRIC_PROGRESS_BAR_H

#include <cstdint>
#include <deque>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Estimates the wall time left of a run from the rate at which its share of
 * bytes delivered grows, measured over a sliding window of the last
 * max(MIN_WINDOW_S, WINDOW_FRACTION x elapsed) wall seconds, so that the step-wise growth
 * of delivered bytes (a message counts when its last byte arrives) and short bursts or
 * pauses move the estimate only part of the way. When nothing was delivered within the
 * window, the average rate since the first sample is used.
 */
class EtaEstimator
{
  public:
    /// Shortest window, wall seconds.
    static constexpr double MIN_WINDOW_S = 5.0;
    /// Window as a fraction of the elapsed wall time, when that is longer.
    static constexpr double WINDOW_FRACTION = 0.25;
    /// Wall seconds of samples needed before an estimate is given.
    static constexpr double MIN_WALL_S = 1.0;

    /**
     * \brief Add a sample.
     * \param wallS wall seconds since the run started (increasing)
     * \param share fraction of the workload's bytes delivered, 0 to 1
     */
    void Add(double wallS, double share);

    /// \return estimated wall seconds left, or a negative value if not yet meaningful
    /// (under MIN_WALL_S of samples, or nothing delivered yet)
    double SecondsLeft() const;

  private:
    /// One sample.
    struct Sample
    {
        double wall;  //!< wall seconds
        double share; //!< share delivered
    };

    std::deque<Sample> m_window; //!< samples in the window, oldest first (plus one before it)
    bool m_have{false};          //!< a sample was added
    double m_firstWall{0};       //!< wall time of the first sample
    double m_firstShare{0};      //!< share at the first sample
};

/**
 * \ingroup ai-fabric
 * \brief A duration for people: "42s", "3m05s", "1h02m"; "--" if negative.
 * \param seconds the duration
 * \return the text
 */
std::string FormatDuration(double seconds);

/**
 * \ingroup ai-fabric
 * \brief The progress line of a run (without "\r" or newline), e.g.
 * `[ai-fabric] [##########..........]  50.0% bytes | sim 1.250000 ms | wall 3.2s | ETA 3s`.
 * \param simS simulated seconds
 * \param share fraction of bytes delivered, 0 to 1 (clamped)
 * \param wallS wall seconds so far
 * \param etaS wall seconds left, negative if unknown ("ETA --")
 * \param barWidth characters inside the bar's brackets
 * \return the line
 */
std::string FormatProgressLine(double simS,
                               double share,
                               double wallS,
                               double etaS,
                               uint32_t barWidth = 20);

} // namespace ns3

#endif /* AI_FABRIC_PROGRESS_BAR_H */
