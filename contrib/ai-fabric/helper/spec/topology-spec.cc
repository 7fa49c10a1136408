/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "topology-spec.h"

#include <utility>

namespace ns3
{

namespace
{

/**
 * \return the KIND of every alternative of TopologyShape, in order
 */
template<std::size_t... I>
std::vector<std::string>
KindsOf(std::index_sequence<I...>)
{
    return {std::variant_alternative_t<I, TopologyShape>::KIND...};
}

/**
 * \brief Emplace the alternative of TopologyShape named \p kind, trying alternatives I and on.
 * \param shape the shape
 * \param kind a kind name
 * \return true if some alternative is named \p kind
 */
template<std::size_t I = 0>
bool
EmplaceKind(TopologyShape& shape, const std::string& kind)
{
    if constexpr (I == std::variant_size_v<TopologyShape>)
    {
        return false;
    }
    else
    {
        if (kind == std::variant_alternative_t<I, TopologyShape>::KIND)
        {
            shape.emplace<I>();
            return true;
        }
        return EmplaceKind<I + 1>(shape, kind);
    }
}

} // namespace

std::vector<std::string>
TopologyKindNames()
{
    return KindsOf(std::make_index_sequence<std::variant_size_v<TopologyShape>>());
}

std::string
TopologySpec::Kind() const
{
    return std::visit([](const auto& s) -> std::string { return s.KIND; }, shape);
}

void
TopologySpec::SetKind(const std::string& kind)
{
    if (!EmplaceKind(shape, kind))
    {
        std::string known;
        for (const auto& k : TopologyKindNames())
        {
            known += (known.empty() ? "" : ", ") + k;
        }
        throw SpecError(where, "unknown topology kind '" + kind + "' (known: " + known + ")");
    }
}

} // namespace ns3
