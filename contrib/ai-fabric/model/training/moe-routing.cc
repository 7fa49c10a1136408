/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "moe-routing.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MoeRouter");

namespace
{

/// Draws of an expert a token already picked before the exact fallback.
constexpr uint32_t MAX_REJECTIONS = 64;

/**
 * \brief Build a Walker/Vose alias table.
 * \param w weights (sum 1)
 * \param prob filled with the acceptance probabilities
 * \param alias filled with the aliases
 */
void
BuildAlias(const std::vector<double>& w, std::vector<double>& prob, std::vector<uint32_t>& alias)
{
    const uint32_t n = w.size();
    prob.assign(n, 1.0);
    alias.resize(n);
    std::iota(alias.begin(), alias.end(), 0);
    std::vector<double> scaled(n);
    std::vector<uint32_t> small;
    std::vector<uint32_t> large;
    for (uint32_t i = 0; i < n; ++i)
    {
        scaled[i] = w[i] * n;
        (scaled[i] < 1.0 ? small : large).push_back(i);
    }
    while (!small.empty() && !large.empty())
    {
        const uint32_t s = small.back();
        small.pop_back();
        const uint32_t l = large.back();
        prob[s] = scaled[s];
        alias[s] = l;
        scaled[l] = (scaled[l] + scaled[s]) - 1.0;
        if (scaled[l] < 1.0)
        {
            large.pop_back();
            small.push_back(l);
        }
    }
    // What is left is 1 up to rounding.
    for (const uint32_t i : small)
    {
        prob[i] = 1.0;
    }
    for (const uint32_t i : large)
    {
        prob[i] = 1.0;
    }
}

} // namespace

std::vector<std::string>
MoeRoutingNames()
{
    return {"uniform", "zipf", "hot-expert", "matrix"};
}

MoeRouter::MoeRouter(const MoeRoutingSpec& spec, uint32_t sources, uint32_t experts, uint32_t topK)
    : m_spec(spec)
    , m_sources(sources)
    , m_experts(experts)
    , m_topK(topK)
    , m_groups(std::max<uint32_t>(1, std::min(spec.affinityGroups, sources)))
{
    const std::string problem = Validate(spec, sources, experts, topK);
    NS_ABORT_MSG_IF(!problem.empty(), "MoeRouter: " << problem);
    m_relabel = CreateObject<UniformRandomVariable>();
    m_tokens = CreateObject<UniformRandomVariable>();
    m_weight.resize(m_groups);
    m_prob.resize(m_groups);
    m_alias.resize(m_groups);
    m_top.assign(m_groups, 0);
}

std::string
MoeRouter::Validate(const MoeRoutingSpec& spec, uint32_t sources, uint32_t experts, uint32_t topK)
{
    const auto names = MoeRoutingNames();
    if (std::find(names.begin(), names.end(), spec.distribution) == names.end())
    {
        return "unknown MoE routing '" + spec.distribution
               + "' (expected uniform, zipf, hot-expert or matrix)";
    }
    if (sources < 1 || experts < 1)
    {
        return "MoE routing needs at least one source rank and one expert";
    }
    if (topK < 1 || topK > experts)
    {
        return "top-k must be between 1 and the number of experts (" + std::to_string(experts)
               + "), got " + std::to_string(topK);
    }
    if (spec.distribution == "zipf"
        && !(spec.zipfExponent >= 0 && std::isfinite(spec.zipfExponent)))
    {
        return "the zipf exponent must be a finite number >= 0";
    }
    if (spec.distribution == "hot-expert" && !(spec.hotFraction >= 0 && spec.hotFraction <= 1))
    {
        return "the hot-expert fraction must be between 0 and 1";
    }
    if (spec.affinityGroups < 1 || spec.affinityGroups > sources)
    {
        return "routing affinity groups must be between 1 and the EP group size ("
               + std::to_string(sources) + "), got " + std::to_string(spec.affinityGroups);
    }
    if (spec.distribution == "matrix")
    {
        const uint64_t want = static_cast<uint64_t>(sources) * experts;
        if (spec.matrix.size() != want)
        {
            return "the routing matrix must have EP ranks x experts = " + std::to_string(sources)
                   + " x " + std::to_string(experts) + " = " + std::to_string(want)
                   + " entries (token copies per source rank and expert), got "
                   + std::to_string(spec.matrix.size());
        }
    }
    else if (!spec.matrix.empty())
    {
        return "a routing matrix is only read by the 'matrix' routing";
    }
    return "";
}

int64_t
MoeRouter::AssignStreams(int64_t stream)
{
    m_relabel->SetStream(stream);
    m_tokens->SetStream(stream + 1);
    return 2;
}

void
MoeRouter::NewLayer()
{
    if (m_spec.distribution == "matrix")
    {
        return;
    }
    // pi: a seeded Fisher-Yates relabelling of the experts.
    std::vector<uint32_t> pi(m_experts);
    std::iota(pi.begin(), pi.end(), 0);
    for (uint32_t i = m_experts; i > 1; --i)
    {
        const uint32_t j = m_relabel->GetInteger(0, i - 1);
        std::swap(pi[i - 1], pi[j]);
    }
    // Weight by popularity rank r.
    std::vector<double> byRank(m_experts, 1.0 / m_experts);
    if (m_spec.distribution == "zipf")
    {
        double sum = 0;
        for (uint32_t r = 0; r < m_experts; ++r)
        {
            byRank[r] = 1.0 / std::pow(r + 1.0, m_spec.zipfExponent);
            sum += byRank[r];
        }
        for (double& w : byRank)
        {
            w /= sum;
        }
    }
    else if (m_spec.distribution == "hot-expert")
    {
        for (uint32_t r = 0; r < m_experts; ++r)
        {
            byRank[r] = m_experts == 1 ? 1.0
                        : r == 0       ? m_spec.hotFraction
                                       : (1.0 - m_spec.hotFraction) / (m_experts - 1);
        }
    }
    for (uint32_t g = 0; g < m_groups; ++g)
    {
        const uint64_t shift = static_cast<uint64_t>(g) * m_experts / m_groups;
        std::vector<double>& w = m_weight[g];
        w.assign(m_experts, 0.0);
        for (uint32_t r = 0; r < m_experts; ++r)
        {
            w[pi[(r + shift) % m_experts]] = byRank[r];
        }
        m_top[g] = pi[shift % m_experts];
        BuildAlias(w, m_prob[g], m_alias[g]);
    }
}

double
MoeRouter::Weight(uint32_t source, uint32_t expert) const
{
    if (m_spec.distribution == "matrix")
    {
        const uint64_t* row = m_spec.matrix.data() + static_cast<std::size_t>(source) * m_experts;
        const uint64_t sum = std::accumulate(row, row + m_experts, uint64_t{0});
        return sum == 0 ? 0.0 : static_cast<double>(row[expert]) / sum;
    }
    NS_ABORT_MSG_IF(m_weight[0].empty(), "MoeRouter: NewLayer() was not called");
    return m_weight[static_cast<uint64_t>(source) * m_groups / m_sources][expert];
}

std::vector<double>
MoeRouter::ExpectedCopies(uint64_t tokensPerSource) const
{
    std::vector<double> out(static_cast<std::size_t>(m_sources) * m_experts);
    for (uint32_t i = 0; i < m_sources; ++i)
    {
        for (uint32_t e = 0; e < m_experts; ++e)
        {
            out[static_cast<std::size_t>(i) * m_experts + e]
                = m_spec.distribution == "matrix"
                      ? static_cast<double>(
                          m_spec.matrix[static_cast<std::size_t>(i) * m_experts + e])
                      : static_cast<double>(tokensPerSource) * m_topK * Weight(i, e);
        }
    }
    return out;
}

uint32_t
MoeRouter::DrawOne(uint32_t group)
{
    const double x = m_tokens->GetValue() * m_experts;
    const uint32_t i = std::min<uint32_t>(static_cast<uint32_t>(x), m_experts - 1);
    if (m_spec.distribution == "uniform")
    {
        return i;
    }
    return (x - i) < m_prob[group][i] ? i : m_alias[group][i];
}

uint32_t
MoeRouter::DrawExcluding(uint32_t group, const uint32_t* chosen, uint32_t count)
{
    const std::vector<double>& w = m_weight[group];
    auto excluded = [&](uint32_t e) {
        return std::find(chosen, chosen + count, e) != chosen + count;
    };
    double rest = 0;
    for (uint32_t e = 0; e < m_experts; ++e)
    {
        rest += excluded(e) ? 0.0 : w[e];
    }
    uint32_t last = m_experts;
    if (rest > 0)
    {
        double u = m_tokens->GetValue() * rest;
        for (uint32_t e = 0; e < m_experts; ++e)
        {
            if (excluded(e) || w[e] <= 0)
            {
                continue;
            }
            last = e;
            u -= w[e];
            if (u < 0)
            {
                return e;
            }
        }
        if (last < m_experts)
        {
            return last; // rounding
        }
    }
    // Only zero-weight experts are left: the first of them.
    for (uint32_t e = 0; e < m_experts; ++e)
    {
        if (!excluded(e))
        {
            return e;
        }
    }
    NS_ABORT_MSG("MoeRouter: no expert left to draw");
    return 0;
}

std::vector<uint64_t>
MoeRouter::Draw(uint64_t tokensPerSource)
{
    if (m_spec.distribution == "matrix")
    {
        return m_spec.matrix;
    }
    NS_ABORT_MSG_IF(m_weight[0].empty(), "MoeRouter: NewLayer() was not called");
    std::vector<uint64_t> copies(static_cast<std::size_t>(m_sources) * m_experts, 0);
    std::vector<uint32_t> chosen(m_topK);
    for (uint32_t i = 0; i < m_sources; ++i)
    {
        const uint32_t g = static_cast<uint64_t>(i) * m_groups / m_sources;
        uint64_t* row = copies.data() + static_cast<std::size_t>(i) * m_experts;
        if (m_topK == m_experts)
        {
            // Every token picks every expert: nothing to draw.
            for (uint32_t e = 0; e < m_experts; ++e)
            {
                row[e] += tokensPerSource;
            }
            continue;
        }
        for (uint64_t t = 0; t < tokensPerSource; ++t)
        {
            for (uint32_t c = 0; c < m_topK; ++c)
            {
                uint32_t e = DrawOne(g);
                uint32_t tries = 0;
                while (std::find(chosen.begin(), chosen.begin() + c, e) != chosen.begin() + c)
                {
                    if (++tries >= MAX_REJECTIONS)
                    {
                        e = DrawExcluding(g, chosen.data(), c);
                        break;
                    }
                    e = DrawOne(g);
                }
                chosen[c] = e;
                ++row[e];
            }
        }
    }
    return copies;
}

uint32_t
MoeRouter::TopExpert(uint32_t group) const
{
    return m_top.at(group);
}

uint64_t
ApplyExpertCapacity(std::vector<uint64_t>& copies,
                    uint32_t sources,
                    uint32_t experts,
                    double capacityFactor)
{
    if (capacityFactor <= 0)
    {
        return 0;
    }
    const uint64_t total = std::accumulate(copies.begin(), copies.end(), uint64_t{0});
    const uint64_t capacity
        = static_cast<uint64_t>(std::ceil(capacityFactor * static_cast<double>(total) / experts));
    uint64_t dropped = 0;
    std::vector<uint64_t> keep(sources);
    std::vector<uint32_t> order(sources);
    std::vector<long double> remainder(sources);
    for (uint32_t e = 0; e < experts; ++e)
    {
        uint64_t load = 0;
        for (uint32_t i = 0; i < sources; ++i)
        {
            load += copies[static_cast<std::size_t>(i) * experts + e];
        }
        if (load <= capacity)
        {
            continue;
        }
        uint64_t kept = 0;
        for (uint32_t i = 0; i < sources; ++i)
        {
            const long double share
                = static_cast<long double>(copies[static_cast<std::size_t>(i) * experts + e])
                  * capacity / load;
            keep[i] = static_cast<uint64_t>(share);
            remainder[i] = share - keep[i];
            kept += keep[i];
        }
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return remainder[a] > remainder[b];
        });
        for (uint32_t r = 0; kept < capacity && r < sources; ++r)
        {
            if (keep[order[r]] < copies[static_cast<std::size_t>(order[r]) * experts + e])
            {
                ++keep[order[r]];
                ++kept;
            }
        }
        for (uint32_t i = 0; i < sources; ++i)
        {
            uint64_t& c = copies[static_cast<std::size_t>(i) * experts + e];
            dropped += c - keep[i];
            c = keep[i];
        }
    }
    return dropped;
}

} // namespace ns3
