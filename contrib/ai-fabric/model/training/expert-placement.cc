/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "expert-placement.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ExpertPlacement");

std::vector<std::string>
ExpertPlacementNames()
{
    return {"contiguous", "round-robin", "random", "topology-aware"};
}

ExpertPlacement::ExpertPlacement(const std::string& policy)
    : m_policy(policy)
{
    m_rng = CreateObject<UniformRandomVariable>();
}

std::string
ExpertPlacement::Validate(const std::string& policy, uint32_t experts, uint32_t ranks)
{
    const auto names = ExpertPlacementNames();
    if (std::find(names.begin(), names.end(), policy) == names.end())
    {
        return "unknown expert placement '" + policy
               + "' (expected contiguous, round-robin, random or topology-aware)";
    }
    if (ranks < 1 || experts < 1 || experts % ranks != 0)
    {
        return "the " + std::to_string(experts) + " experts do not divide evenly over the "
               + std::to_string(ranks) + " expert-parallel ranks";
    }
    return "";
}

int64_t
ExpertPlacement::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

std::vector<uint32_t>
ExpertPlacement::Place(uint32_t experts,
                       uint32_t ranks,
                       const std::vector<uint32_t>& rankDomain,
                       const std::vector<double>& affinity)
{
    const std::string problem = Validate(m_policy, experts, ranks);
    NS_ABORT_MSG_IF(!problem.empty(), "ExpertPlacement: " << problem);
    const uint32_t per = experts / ranks;
    std::vector<uint32_t> at(experts);
    if (m_policy == "contiguous")
    {
        for (uint32_t e = 0; e < experts; ++e)
        {
            at[e] = e / per;
        }
    }
    else if (m_policy == "round-robin")
    {
        for (uint32_t e = 0; e < experts; ++e)
        {
            at[e] = e % ranks;
        }
    }
    else if (m_policy == "random")
    {
        std::vector<uint32_t> perm(experts);
        std::iota(perm.begin(), perm.end(), 0);
        for (uint32_t i = experts; i > 1; --i)
        {
            std::swap(perm[i - 1], perm[m_rng->GetInteger(0, i - 1)]);
        }
        for (uint32_t i = 0; i < experts; ++i)
        {
            at[perm[i]] = i / per;
        }
    }
    else
    {
        NS_ABORT_MSG_IF(rankDomain.size() != ranks,
                        "topology-aware placement: one domain per rank");
        NS_ABORT_MSG_IF(affinity.size() != static_cast<std::size_t>(ranks) * experts,
                        "topology-aware placement: affinity must be ranks x experts");
        at = PlaceTopologyAware(experts, ranks, rankDomain, affinity);
    }
    return at;
}

std::vector<uint32_t>
ExpertPlacement::PlaceTopologyAware(uint32_t experts,
                                    uint32_t ranks,
                                    const std::vector<uint32_t>& rankDomain,
                                    const std::vector<double>& affinity) const
{
    const uint32_t per = experts / ranks;
    // Dense domain indices, in order of first appearance.
    std::map<uint32_t, uint32_t> dense;
    std::vector<uint32_t> dom(ranks);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        dom[i] = dense.emplace(rankDomain[i], dense.size()).first->second;
    }
    const uint32_t domains = dense.size();
    std::vector<std::vector<uint32_t>> members(domains);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        members[dom[i]].push_back(i);
    }
    // 1. Capacity and demand per domain.
    std::vector<uint32_t> free(domains);
    for (uint32_t d = 0; d < domains; ++d)
    {
        free[d] = members[d].size() * per;
    }
    std::vector<double> demand(static_cast<std::size_t>(domains) * experts, 0.0);
    std::vector<double> load(experts, 0.0);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        for (uint32_t e = 0; e < experts; ++e)
        {
            const double a = affinity[static_cast<std::size_t>(i) * experts + e];
            demand[static_cast<std::size_t>(dom[i]) * experts + e] += a;
            load[e] += a;
        }
    }
    // 2. Greedy: largest demand first.
    std::vector<uint32_t> pairs(demand.size());
    std::iota(pairs.begin(), pairs.end(), 0);
    std::stable_sort(pairs.begin(), pairs.end(), [&demand](uint32_t a, uint32_t b) {
        return demand[a] > demand[b];
    });
    constexpr uint32_t NONE = UINT32_MAX;
    std::vector<uint32_t> domainOf(experts, NONE);
    for (const uint32_t pr : pairs)
    {
        const uint32_t d = pr / experts;
        const uint32_t e = pr % experts;
        if (demand[pr] <= 0)
        {
            break;
        }
        if (domainOf[e] == NONE && free[d] > 0)
        {
            domainOf[e] = d;
            --free[d];
        }
    }
    for (uint32_t e = 0, d = 0; e < experts; ++e)
    {
        if (domainOf[e] != NONE)
        {
            continue;
        }
        while (free[d] == 0)
        {
            ++d;
        }
        domainOf[e] = d;
        --free[d];
    }
    // 3. Inside each domain: longest processing time first.
    std::vector<uint32_t> byLoad(experts);
    std::iota(byLoad.begin(), byLoad.end(), 0);
    std::stable_sort(byLoad.begin(), byLoad.end(), [&load](uint32_t a, uint32_t b) {
        return load[a] > load[b];
    });
    std::vector<double> rankLoad(ranks, 0.0);
    std::vector<uint32_t> slots(ranks, per);
    std::vector<uint32_t> at(experts, NONE);
    for (const uint32_t e : byLoad)
    {
        uint32_t best = NONE;
        for (const uint32_t i : members[domainOf[e]])
        {
            if (slots[i] == 0)
            {
                continue;
            }
            if (best == NONE || rankLoad[i] < rankLoad[best]
                || (rankLoad[i] == rankLoad[best]
                    && affinity[static_cast<std::size_t>(i) * experts + e]
                           > affinity[static_cast<std::size_t>(best) * experts + e]))
            {
                best = i;
            }
        }
        NS_ABORT_MSG_IF(best == NONE, "topology-aware placement: no free slot");
        at[e] = best;
        --slots[best];
        rankLoad[best] += load[e];
    }
    return at;
}

} // namespace ns3
