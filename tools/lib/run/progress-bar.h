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
 * \brief Estimates the wall time left of a run from the rate at which a measure of its
 * progress grows (the run's simulated time, or a share of bytes delivered), measured over a
 * sliding window of the last max(MIN_WINDOW_S, WINDOW_FRACTION x elapsed) wall seconds, so
 * that bursts and pauses move the estimate only part of the way: the time the measure needs
 * at that rate to reach a target (the expected end, or 1). When the measure did not grow
 * within the window, the average rate since the first sample is used.
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
     * \param progress the measure: simulated seconds, or a share of bytes delivered (0 to 1)
     */
    void Add(double wallS, double progress);

    /**
     * \param target the measure's value at the run's end (the expected end, or 1 for a
     *        share); negative if unknown
     * \return estimated wall seconds left, or a negative value if not yet meaningful
     * (under MIN_WALL_S of samples, the measure still 0, or the target unknown)
     */
    double SecondsLeft(double target = 1.0) const;

  private:
    /// One sample.
    struct Sample
    {
        double wall;  //!< wall seconds
        double share; //!< the measure
    };

    std::deque<Sample> m_window; //!< samples in the window, oldest first (plus one before it)
    bool m_have{false};          //!< a sample was added
    double m_firstWall{0};       //!< wall time of the first sample
    double m_firstShare{0};      //!< the measure at the first sample
};

/**
 * \ingroup ai-fabric
 * \brief The simulated time a run is expected to end at (the progress bar's "of ~T"): the
 * larger of the workload's contention-free end (WorkloadIdealEnd()) and the time the bytes
 * delivered so far project (simS / share: the run so far, scaled to all bytes), but not past
 * the scenario's stop time. Early in a run, or when the fabric runs the workload as fast as
 * an empty one would, the contention-free end holds; when contention slows it, the
 * projection takes over.
 * \param simS simulated seconds so far
 * \param share fraction of the workload's bytes delivered, 0 to 1
 * \param idealEndS the contention-free end, seconds (0 or negative: unknown)
 * \param stopS the scenario's stop time, seconds (0 or negative: none)
 * \return seconds, or a negative value if unknown (nothing delivered and no estimate ahead)
 */
double ExpectedEndS(double simS, double share, double idealEndS, double stopS);

/**
 * \ingroup ai-fabric
 * \brief A duration for people: "42s", "3m05s", "1h02m"; "--" if negative.
 * \param seconds the duration
 * \return the text
 */
std::string FormatDuration(double seconds);

/**
 * \ingroup ai-fabric
 * \brief What the progress line shows.
 */
struct ProgressState
{
    double simS{0};          //!< simulated seconds
    double expectedEndS{-1}; //!< expected end, simulated seconds (ExpectedEndS; negative: unknown)
    double share{0};         //!< fraction of bytes delivered, 0 to 1 (clamped)
    double wallS{0};         //!< wall seconds so far
    double etaS{-1};         //!< wall seconds left, negative if unknown ("ETA --")
};

/**
 * \ingroup ai-fabric
 * \brief The progress line of a run (without "\r" or newline), e.g.
 * `[ai-fabric] [##########..........]  50.0% bytes | sim 1.250 ms of ~2.500 ms | wall 3.2s |
 * ETA 3s` (" of ~T" only when the expected end is known).
 * \param state what to show
 * \param barWidth characters inside the bar's brackets
 * \return the line
 */
std::string FormatProgressLine(const ProgressState& state, uint32_t barWidth = 20);

} // namespace ns3

#endif /* AI_FABRIC_PROGRESS_BAR_H */
