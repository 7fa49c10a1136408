/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

uint64_t
WireBytes(WireFormat format, uint64_t bytes)
{
    // Whole lines (NCCL src/include/device.h): LL, a 16-byte ncclLLFifoLine of two 4-byte
    // data words and two 4-byte flags; LL128, 128-byte lines of 15 data words and a flag.
    switch (format)
    {
        case WireFormat::LL:
            return (bytes + 7) / 8 * 16;
        case WireFormat::LL128:
            return (bytes + 119) / 120 * 128;
        case WireFormat::RAW:
            break;
    }
    return bytes;
}

uint32_t
Workload::AddGroup(const WorkloadGroup& group)
{
    m_groups.push_back(group);
    return m_groups.size() - 1;
}

void
Workload::SetLimits(uint64_t maxOps, uint64_t maxDependencies)
{
    m_maxOps = maxOps;
    m_maxDependencies = maxDependencies;
}

uint32_t
Workload::AddOp(const WorkloadOp& op)
{
    NS_ABORT_MSG_IF(m_finalized, "Workload::AddOp after Finalize");
    if (m_ops.size() >= m_maxOps)
    {
        throw LimitError("the workload passed " + std::to_string(m_maxOps) + " ops");
    }
    m_ops.push_back(op);
    return m_ops.size() - 1;
}

void
Workload::AddDependency(uint32_t before, uint32_t after)
{
    NS_ABORT_MSG_IF(m_finalized, "Workload::AddDependency after Finalize");
    NS_ABORT_MSG_IF(before >= m_ops.size() || after >= m_ops.size() || before == after,
                    "bad dependency " << before << " -> " << after);
    if (m_edges.size() >= m_maxDependencies)
    {
        throw LimitError("the workload passed " + std::to_string(m_maxDependencies)
                         + " dependencies");
    }
    m_edges.emplace_back(before, after);
}

void
Workload::Reserve(std::size_t ops, std::size_t dependencies)
{
    // A guess may overshoot: reserve at most the limits (AddOp() and AddDependency() enforce
    // them).
    ops = std::min<uint64_t>(ops, m_maxOps);
    dependencies = std::min<uint64_t>(dependencies, m_maxDependencies);
    m_ops.reserve(ops);
    if (!m_finalized)
    {
        m_edges.reserve(dependencies);
    }
}

Workload::GroupSends
Workload::GetSendsByGroup() const
{
    GroupSends b;
    b.first.assign(m_groups.size() + 1, 0);
    for (const WorkloadOp& op : m_ops)
    {
        if (op.kind == WorkloadOp::SEND && op.group < m_groups.size())
        {
            ++b.first[op.group + 1];
        }
    }
    for (std::size_t g = 0; g < m_groups.size(); ++g)
    {
        b.first[g + 1] += b.first[g];
    }
    b.sends.resize(b.first.back());
    std::vector<uint32_t> cursor(b.first.begin(), b.first.end() - 1);
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        const WorkloadOp& op = m_ops[i];
        if (op.kind == WorkloadOp::SEND && op.group < m_groups.size())
        {
            b.sends[cursor[op.group]++] = i;
        }
    }
    return b;
}

void
Workload::Finalize()
{
    NS_ABORT_MSG_IF(m_finalized, "Workload::Finalize called twice");
    const std::size_t n = m_ops.size();
    m_inDegree.assign(n, 0);
    m_succStart.assign(n + 1, 0);
    for (const auto& [before, after] : m_edges)
    {
        ++m_succStart[before + 1];
        ++m_inDegree[after];
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        m_succStart[i + 1] += m_succStart[i];
    }
    m_succ.assign(m_edges.size(), 0);
    std::vector<uint32_t> fill(m_succStart.begin(), m_succStart.end() - 1);
    for (const auto& [before, after] : m_edges)
    {
        m_succ[fill[before]++] = after;
    }
    m_edges.clear();
    m_edges.shrink_to_fit();
    m_finalized = true;
}

const std::vector<WorkloadOp>&
Workload::GetOps() const
{
    return m_ops;
}

const std::vector<WorkloadGroup>&
Workload::GetGroups() const
{
    return m_groups;
}

uint32_t
Workload::GetInDegree(uint32_t op) const
{
    return m_inDegree[op];
}

const uint32_t*
Workload::SuccessorsBegin(uint32_t op) const
{
    return m_succ.data() + m_succStart[op];
}

const uint32_t*
Workload::SuccessorsEnd(uint32_t op) const
{
    return m_succ.data() + m_succStart[op + 1];
}

std::size_t
Workload::GetDependencyCount() const
{
    return m_finalized ? m_succ.size() : m_edges.size();
}

} // namespace ns3
