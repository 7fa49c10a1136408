/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "analytic-model.h"

#include "fabric-graph.h"

#include <algorithm>

namespace ns3
{

AlphaBeta
PathAlphaBeta(const FabricGraph& graph, uint32_t srcGpu, uint32_t dstGpu)
{
    AlphaBeta cost;
    const uint32_t src = graph.GetGpuNode(srcGpu);
    const uint32_t dst = graph.GetGpuNode(dstGpu);
    const std::vector<uint32_t> path = graph.ShortestPath(src, dst);
    if (path.empty())
    {
        return cost;
    }
    const auto& links = graph.GetLinks();
    const auto& profiles = graph.GetProfiles();
    const auto& nodes = graph.GetNodes();
    // The transport cuts messages at the fabric's smallest MTU.
    uint32_t mtuBytes = UINT32_MAX;
    for (const auto& p : profiles)
    {
        mtuBytes = std::min(mtuBytes, p.mtu);
    }
    const double mtu = mtuBytes;

    double fill = 0;
    double worstBeta = -1;
    double bottleneckFirst = 0; // first-packet serialization on the bottleneck link
    double bottleneckMsgHdr = 0;
    uint32_t at = src;
    for (const uint32_t l : path)
    {
        const LinkProfile& p = profiles[links[l].profile];
        const double bytesPerS = p.rate.GetBitRate() / 8.0;
        const double firstBytes = p.WireBytes(mtuBytes, true);
        const double first = firstBytes / bytesPerS;
        const double beta = p.WireBytes(mtuBytes, false) / (mtu * bytesPerS);
        at = (links[l].a == at) ? links[l].b : links[l].a;
        const bool cutThrough = nodes[at].kind == FabricGraph::NodeKind::SWITCH && p.cutThrough;
        // Pipeline fill: a cut-through switch starts forwarding after the first 64 bytes.
        const double fillHere = cutThrough ? std::min(64.0, firstBytes) / bytesPerS : first;
        cost.alphaS += p.propagationDelay.GetSeconds();
        cost.alphaS += (nodes[at].kind == FabricGraph::NodeKind::SWITCH)
                           ? p.switchLatency.GetSeconds()
                           : p.nicLatency.GetSeconds();
        fill += fillHere;
        if (beta >= worstBeta) // on a tie the later link is the bottleneck
        {
            worstBeta = beta;
            bottleneckFirst = fillHere;
            bottleneckMsgHdr = p.messageHeaderBytes / bytesPerS;
        }
    }
    cost.alphaS += fill - bottleneckFirst + bottleneckMsgHdr;
    cost.betaSPerByte = worstBeta;
    cost.hops = path.size();
    return cost;
}

AlphaBeta
RingAlphaBeta(const FabricGraph& graph, const std::vector<uint32_t>& ranks)
{
    AlphaBeta worst;
    for (std::size_t i = 0; i < ranks.size(); ++i)
    {
        const AlphaBeta c = PathAlphaBeta(graph, ranks[i], ranks[(i + 1) % ranks.size()]);
        worst.alphaS = std::max(worst.alphaS, c.alphaS);
        worst.betaSPerByte = std::max(worst.betaSPerByte, c.betaSPerByte);
        worst.hops = std::max(worst.hops, c.hops);
    }
    return worst;
}

double
CollectiveAnalyticTime(const std::string& op,
                       const std::string& algorithm,
                       uint32_t ranks,
                       uint64_t bytes,
                       const AlphaBeta& cost)
{
    if (algorithm != "ring" || ranks < 2)
    {
        return -1;
    }
    const double p = ranks;
    const double n = static_cast<double>(bytes);
    if (op == "all-reduce")
    {
        return 2 * (p - 1) * cost.alphaS + 2 * (p - 1) / p * n * cost.betaSPerByte; // F1
    }
    if (op == "reduce-scatter" || op == "all-gather")
    {
        return (p - 1) * cost.alphaS + (p - 1) / p * n * cost.betaSPerByte; // F2
    }
    return -1;
}

} // namespace ns3
