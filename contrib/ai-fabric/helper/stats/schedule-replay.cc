/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "schedule-replay.h"

#include "ns3/abort.h"
#include "ns3/workload.h"

#include <algorithm>

namespace ns3
{

ScheduleReplay::ScheduleReplay(const Workload& workload,
                               const std::vector<int64_t>& endPs,
                               const std::vector<int64_t>& delayPs)
{
    const std::size_t n = workload.GetOps().size();
    NS_ABORT_MSG_IF(endPs.size() != n || delayPs.size() != n,
                    "ScheduleReplay: " << endPs.size() << " ends and " << delayPs.size()
                                       << " delays for " << n << " ops");
    m_endPs.assign(n, NOT_DONE);
    // Kahn's order: an op is replayed once every op it waits for has been.
    std::vector<uint32_t> waiting(n);
    std::vector<int64_t> readyRun(n, 0);    // its dependencies done, in the run
    std::vector<int64_t> readyReplay(n, 0); // ... and in the replay
    std::vector<char> blocked(n, 0);        // an op it waits for did not finish
    std::vector<uint32_t> order;
    order.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        waiting[i] = workload.GetInDegree(i);
        if (waiting[i] == 0)
        {
            order.push_back(i);
        }
    }
    for (std::size_t k = 0; k < order.size(); ++k)
    {
        const uint32_t i = order[k];
        const bool done = !blocked[i] && endPs[i] != NOT_DONE;
        if (done)
        {
            // Its own time in the run, less the fabric's delay to it.
            const int64_t own = std::max<int64_t>(endPs[i] - readyRun[i], 0);
            m_endPs[i] = readyReplay[i] + std::max<int64_t>(own - delayPs[i], 0);
        }
        for (const uint32_t* s = workload.SuccessorsBegin(i); s != workload.SuccessorsEnd(i); ++s)
        {
            if (done)
            {
                readyRun[*s] = std::max(readyRun[*s], endPs[i]);
                readyReplay[*s] = std::max(readyReplay[*s], m_endPs[i]);
            }
            else
            {
                blocked[*s] = 1;
            }
            if (--waiting[*s] == 0)
            {
                order.push_back(*s);
            }
        }
    }
}

int64_t
ScheduleReplay::GetEndPs(uint32_t op) const
{
    return op < m_endPs.size() ? m_endPs[op] : NOT_DONE;
}

} // namespace ns3
