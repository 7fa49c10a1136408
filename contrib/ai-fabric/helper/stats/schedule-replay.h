/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SCHEDULE_REPLAY_H
#define AI_FABRIC_SCHEDULE_REPLAY_H

#include <cstdint>
#include <vector>

namespace ns3
{

class Workload;

/**
 * \ingroup ai-fabric
 * \brief When every op of a run would have ended had the fabric not delayed its messages:
 * the schedule's own timing, against which a late rank is a straggler
 * (docs/results-format.md, "Stragglers").
 *
 * The workload's ops are replayed in dependency order: an op becomes ready when its
 * dependencies are done, and takes what it took in the run (from its dependencies done to its
 * end: compute, protocol and kernel latencies, its queue pair's backlog, the sender's port
 * shared with its other traffic, the transfer) less the fabric's delay to it (a message's FCT
 * less its shared time less its ideal time alone on an empty fabric; 0 for compute). A rank
 * that ends later in the run than in the replay by more than the median rank was delayed by
 * the fabric; a rank that ends last in both (the first stage after a 1F1B drain, a tree's
 * root) ends last by its schedule. On an idle fabric the replay is the run.
 *
 * The replay keeps the run's backlogs (a message waiting behind an earlier one on its queue
 * pair keeps that wait, although the earlier one would have left sooner): the delays it finds
 * are a lower bound of what the fabric cost each rank.
 */
class ScheduleReplay
{
  public:
    static constexpr int64_t NOT_DONE = -1; //!< an op that did not finish in the run

    /**
     * \brief Replay a finalized workload.
     * \param workload the workload (finalized)
     * \param endPs per op, when it ended in the run, ps (NOT_DONE if it did not)
     * \param delayPs per op, the fabric's delay to it, ps (>= 0; 0 for compute ops)
     */
    ScheduleReplay(const Workload& workload,
                   const std::vector<int64_t>& endPs,
                   const std::vector<int64_t>& delayPs);

    /// \param op an op \return when it would have ended without the fabric's delays, ps
    /// (NOT_DONE if it, or an op it waits for, did not finish in the run)
    int64_t GetEndPs(uint32_t op) const;

  private:
    std::vector<int64_t> m_endPs; //!< per op: replayed end, ps
};

} // namespace ns3

#endif /* AI_FABRIC_SCHEDULE_REPLAY_H */
