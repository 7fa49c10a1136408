/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "analytic-model.h"

#include "ns3/collective-algorithm.h"
#include "ns3/fabric-graph.h"
#include "ns3/tree-collective.h"
#include "ns3/workload.h"

#include <algorithm>
#include <array>
#include <tuple>

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

namespace
{

/// The fabric's smallest MTU: the transport cuts messages at it.
uint32_t
FabricMtu(const FabricGraph& graph)
{
    uint32_t mtu = UINT32_MAX;
    for (const auto& p : graph.GetProfiles())
    {
        mtu = std::min(mtu, p.mtu);
    }
    return mtu;
}

/**
 * \brief MessageIdealTime() of a path given as links from the source node.
 * \param graph the fabric
 * \param src the source node
 * \param path the links, in order
 * \param mtu the fabric's MTU
 * \param bytes payload bytes
 * \return seconds
 */
double
IdealOnPath(const FabricGraph& graph,
            uint32_t src,
            const std::vector<uint32_t>& path,
            uint32_t mtu,
            uint64_t bytes)
{
    if (path.empty())
    {
        return 0;
    }
    const auto& links = graph.GetLinks();
    const auto& profiles = graph.GetProfiles();
    const auto& nodes = graph.GetNodes();
    const uint64_t packets = std::max<uint64_t>(1, (bytes + mtu - 1) / mtu);
    const uint64_t payload[3] = {std::min<uint64_t>(bytes, mtu), mtu, bytes - (packets - 1) * mtu};
    const std::size_t hops = path.size();
    // Per hop and packet kind (0 first, 1 middle, 2 last): the serialization
    // (`down`: the next packet waits for it) and the hand-on delay (`right`: the
    // packet's own next hop waits for it; the first 64 bytes into a cut-through switch).
    std::vector<std::array<double, 3>> down(hops);
    std::vector<std::array<double, 3>> right(hops);
    double latency = 0;
    uint32_t at = src;
    for (std::size_t h = 0; h < hops; ++h)
    {
        const LinkProfile& p = profiles[links[path[h]].profile];
        const double bytesPerS = p.rate.GetBitRate() / 8.0;
        at = (links[path[h]].a == at) ? links[path[h]].b : links[path[h]].a;
        const bool toSwitch = nodes[at].kind == FabricGraph::NodeKind::SWITCH;
        latency += p.propagationDelay.GetSeconds();
        latency += toSwitch ? p.switchLatency.GetSeconds() : p.nicLatency.GetSeconds();
        for (int kind = 0; kind < 3; ++kind)
        {
            const bool first = kind == 0 || (kind == 2 && packets == 1);
            const double wire = p.WireBytes(payload[kind], first);
            down[h][kind] = wire / bytesPerS;
            right[h][kind] = (toSwitch && p.cutThrough ? std::min(64.0, wire) : wire) / bytesPerS;
        }
    }
    // Max-plus tandem: the arrival of the last bit is the heaviest monotone path
    // through the (packet, hop) lattice. Rows: the first packet, M identical middle
    // packets, the last packet; the path leaves the first row at hop a and enters
    // the last at hop c >= a, spending the middle rows' extra cells on the slowest
    // hop in [a, c].
    if (packets == 1)
    {
        double t = latency;
        for (std::size_t h = 0; h + 1 < hops; ++h)
        {
            t += right[h][0];
        }
        return t + down[hops - 1][0];
    }
    const double middle = static_cast<double>(packets - 2);
    std::vector<double> lastRows(hops); // the last row from hop c to the end
    lastRows[hops - 1] = down[hops - 1][2];
    for (std::size_t c = hops - 1; c-- > 0;)
    {
        lastRows[c] = lastRows[c + 1] + right[c][2];
    }
    double best = 0;
    double firstRow = 0; // sum of right[j][0], j < a
    for (std::size_t a = 0; a < hops; ++a)
    {
        double block = 0;   // sum of right[j][1], a <= j < c
        double slowest = 0; // max of down[j][1], a <= j <= c
        for (std::size_t c = a; c < hops; ++c)
        {
            slowest = std::max(slowest, down[c][1]);
            double t = firstRow + down[a][0] + lastRows[c];
            if (packets >= 3)
            {
                t += block + down[c][1] + (middle - 1) * slowest;
            }
            else if (c != a)
            {
                break; // no middle rows: the path goes straight down at a
            }
            best = std::max(best, t);
            block += right[c][1];
        }
        firstRow += right[a][0];
    }
    return latency + best;
}

} // namespace

double
MessageIdealTime(const FabricGraph& graph, uint32_t srcGpu, uint32_t dstGpu, uint64_t bytes)
{
    const uint32_t src = graph.GetGpuNode(srcGpu);
    return IdealOnPath(graph,
                       src,
                       graph.ShortestPath(src, graph.GetGpuNode(dstGpu)),
                       FabricMtu(graph),
                       bytes);
}

std::vector<double>
MessageIdealTimes(const FabricGraph& graph, const std::vector<MessageQuery>& queries)
{
    std::vector<double> out(queries.size(), 0.0);
    std::vector<uint32_t> order(queries.size());
    for (uint32_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&queries](uint32_t x, uint32_t y) {
        return std::tie(queries[x].dst, queries[x].src) < std::tie(queries[y].dst, queries[y].src);
    });
    const uint32_t mtu = FabricMtu(graph);
    std::vector<uint32_t> dist;
    std::vector<uint32_t> path;
    std::vector<uint32_t> hops;
    uint32_t distFor = UINT32_MAX;
    uint32_t pathFor = UINT32_MAX;
    for (const uint32_t q : order)
    {
        const uint32_t dst = graph.GetGpuNode(queries[q].dst);
        const uint32_t src = graph.GetGpuNode(queries[q].src);
        if (dst != distFor)
        {
            dist = graph.RouteDistancesTo(dst);
            distFor = dst;
            pathFor = UINT32_MAX;
        }
        if (src != pathFor)
        {
            // FabricGraph::ShortestPath() with the distances kept
            path.clear();
            pathFor = src;
            uint32_t n = src;
            if (src != dst && dist[src] != UINT32_MAX)
            {
                while (n != dst)
                {
                    graph.NextHops(n, dst, dist, hops);
                    if (hops.empty())
                    {
                        path.clear();
                        break;
                    }
                    const FabricGraph::Adjacency& adj = graph.GetAdjacency(n)[hops.front()];
                    path.push_back(adj.link);
                    n = adj.peer;
                }
            }
        }
        out[q] = IdealOnPath(graph, src, path, mtu, queries[q].bytes);
    }
    return out;
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

namespace
{

/// Inputs shared by the closed forms.
struct Terms
{
    double p;       //!< ranks
    double n;       //!< buffer bytes
    double c;       //!< channels
    double gamma;   //!< seconds per reduced byte
    double alpha;   //!< inter alpha, s
    double beta;    //!< inter beta, s/B
    uint64_t chunk; //!< chunk bytes
};

/// \return log2 of the smallest power of two >= p
double
CeilLog2(uint32_t p)
{
    uint32_t l = 0;
    while ((uint64_t{1} << l) < p)
    {
        ++l;
    }
    return l;
}

/**
 * \brief Pipelined ring (RingCollectiveAlgorithm::BuildRing) on an idle fabric.
 *
 * Piece (s, k) (step s, piece k) leaves a rank when the link is free and piece
 * (s-1, k) has arrived from its predecessor (and is reduced): with all ranks
 * alike, start(s, k) = max(start(s, k-1) + m', start(s-1, k) + L_{s-1}), whose
 * solution is start(s, k) = (s c + k) m' + sum_{s'<s} max(0, L_s' - c m').
 * \param steps N
 * \param reduceSteps the first reduceSteps steps' arrivals are reduced
 * \param ringBytes the buffer the ring works on (all channels)
 * \param members ranks in the ring
 * \param channels C
 * \param chunk largest piece
 * \param ab the ring edges' cost
 * \param gamma reduction cost
 * \return seconds (0 without steps)
 */
double
RingPipeline(uint32_t steps,
             uint32_t reduceSteps,
             uint64_t ringBytes,
             uint32_t members,
             uint32_t channels,
             uint64_t chunk,
             const AlphaBeta& ab,
             double gamma)
{
    if (steps == 0 || members < 2)
    {
        return 0;
    }
    // The builder cuts channel 0's largest block; all channels alike.
    const uint64_t block0
        = CollectiveAlgorithm::SplitShare(CollectiveAlgorithm::SplitShare(ringBytes, channels, 0),
                                          members,
                                          0);
    const double pieces = CollectiveAlgorithm::PieceCount(block0, chunk);
    const double piece = static_cast<double>(ringBytes) / members / channels / pieces;
    const double mp = channels * piece * ab.betaSPerByte; // link time of one piece
    double t = (steps * pieces - 1) * mp;
    for (uint32_t s = 0; s + 1 < steps; ++s)
    {
        const double l = ab.alphaS + mp + (s < reduceSteps ? piece * gamma : 0);
        t += std::max(0.0, l - pieces * mp);
    }
    return t + ab.alphaS + mp + (steps - 1 < reduceSteps ? piece * gamma : 0);
}

/// Pipelined chain of P ranks (ring broadcast/reduce).
double
ChainPipeline(const WorkloadGroup& g, const Terms& x, bool reduce, const AlphaBeta& ab)
{
    if (x.p < 2)
    {
        return 0;
    }
    const uint64_t ch0 = CollectiveAlgorithm::SplitShare(g.bytes, g.channels, 0);
    const double pieces = CollectiveAlgorithm::PieceCount(ch0, x.chunk);
    const double piece = x.n / x.c / pieces;
    const double mp = x.c * piece * ab.betaSPerByte;
    const double l = ab.alphaS + mp + (reduce ? piece * x.gamma : 0);
    return (x.p - 1) * l + (pieces - 1) * mp;
}

/**
 * \brief Pipelined NCCL double binary tree all-reduce, or one binary tree
 * (broadcast, reduce): the busiest NIC's bytes W at line rate, plus the
 * pipeline's fill and drain: one alpha per tree hop a piece travels (up, then
 * down), and about two pieces' time per hop but the last (interior ranks
 * share their port between about two neighbours at a time).
 */
double
TreePipeline(const WorkloadGroup& g, const Terms& x)
{
    const uint32_t p = g.ranks.size();
    if (p < 2)
    {
        return 0;
    }
    const bool allReduce = g.op == "all-reduce";
    const bool up = g.op != "broadcast";
    const bool down = g.op != "reduce";
    const uint32_t trees = allReduce ? 2 : 1;
    double worst = 0;
    uint32_t depth = 0;
    for (uint32_t r = 0; r < p; ++r)
    {
        double sent = 0;
        double received = 0;
        for (uint32_t t = 0; t < trees; ++t)
        {
            const auto node = TreeCollectiveAlgorithm::DoubleBinaryTreeNode(p, r, t);
            const double share = x.n / trees;
            const double parent = node.parent >= 0 ? 1 : 0;
            const double children = (node.child0 >= 0 ? 1 : 0) + (node.child1 >= 0 ? 1 : 0);
            sent += share * ((up ? parent : 0) + (down ? children : 0));
            received += share * ((up ? children : 0) + (down ? parent : 0));
            uint32_t d = 0;
            for (int32_t v = r; v >= 0;
                 v = TreeCollectiveAlgorithm::DoubleBinaryTreeNode(p, v, t).parent)
            {
                ++d;
            }
            depth = std::max(depth, d - 1);
        }
        worst = std::max({worst, sent, received});
    }
    const uint64_t tree0
        = CollectiveAlgorithm::SplitShare(CollectiveAlgorithm::SplitShare(g.bytes, g.channels, 0),
                                          trees,
                                          0);
    const double pieces = CollectiveAlgorithm::PieceCount(tree0, x.chunk);
    const double piece = x.n / x.c / trees / pieces;
    const double mp = x.c * piece * x.beta;
    const double hops = (up && down) ? 2.0 * depth : depth;
    const double reduce = up ? 2 * piece * x.gamma * depth : 0;
    return worst * x.beta + hops * x.alpha + (hops - 1) * 2 * mp + reduce;
}

/// Largest bytes a rank sends or receives in a direct all-to-all, send-recv or permutation.
double
DirectLoad(const WorkloadGroup& g)
{
    const uint32_t p = g.ranks.size();
    std::vector<double> out(p, 0);
    std::vector<double> in(p, 0);
    if (g.op == "send-recv" || g.op == "permutation")
    {
        for (const WorkloadTransfer& t : g.transfers)
        {
            if (t.src < p && t.dst < p)
            {
                out[t.src] += t.bytes;
                in[t.dst] += t.bytes;
            }
        }
    }
    else if (!g.matrix.empty())
    {
        for (uint32_t i = 0; i < p; ++i)
        {
            for (uint32_t j = 0; j < p; ++j)
            {
                if (i != j && static_cast<std::size_t>(i) * p + j < g.matrix.size())
                {
                    out[i] += g.matrix[static_cast<std::size_t>(i) * p + j];
                    in[j] += g.matrix[static_cast<std::size_t>(i) * p + j];
                }
            }
        }
    }
    else
    {
        return (p - 1.0) / p * static_cast<double>(g.bytes);
    }
    double worst = 0;
    for (uint32_t i = 0; i < p; ++i)
    {
        worst = std::max({worst, out[i], in[i]});
    }
    return worst;
}

/// FORMULA model: MISSION.md F1-F7.
double
Formula(const WorkloadGroup& g, const CollectiveCost& cost, const Terms& x)
{
    const double p = x.p;
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma;
    const std::string& op = g.op;
    const std::string& algo = g.algorithm;
    if (algo == "ring")
    {
        if (op == "all-reduce")
        {
            return 2 * (p - 1) * a + 2 * (p - 1) / p * n * b + (p - 1) / p * n * y; // F1
        }
        if (op == "reduce-scatter" || op == "all-gather")
        {
            return (p - 1) * a + (p - 1) / p * n * b
                   + (op == "reduce-scatter" ? (p - 1) / p * n * y : 0); // F2
        }
    }
    if ((algo == "tree" || algo == "binomial") && op == "all-reduce")
    {
        const double l = CeilLog2(g.ranks.size());
        return 2 * l * a + 2 * l * n * b + l * n * y; // F3
    }
    if (algo == "halving-doubling")
    {
        const double l = CeilLog2(g.ranks.size());
        const double rs = l * a + (p - 1) / p * n * b;
        if (op == "all-reduce")
        {
            return 2 * rs + (p - 1) / p * n * y; // F4
        }
        if (op == "reduce-scatter")
        {
            return rs + (p - 1) / p * n * y;
        }
        if (op == "all-gather")
        {
            return rs;
        }
    }
    if (algo == "naive" && op == "all-reduce")
    {
        return 2 * (p - 1) * a + 2 * (p - 1) * n * b + (p - 1) * n * y; // F5
    }
    if (algo == "direct" && op == "all-to-all")
    {
        return (p - 1) * a + DirectLoad(g) * b; // F6
    }
    if (algo == "hierarchical" && op == "all-reduce")
    {
        if (g.ranksPerNode == 0 || g.ranks.size() % g.ranksPerNode != 0)
        {
            return -1;
        }
        const double gpn = g.ranksPerNode;
        const double nodes = p / gpn;
        return 2 * (gpn - 1) * cost.intra.alphaS + 2 * (gpn - 1) / gpn * n * cost.intra.betaSPerByte
               + 2 * (nodes - 1) * a + 2 * (nodes - 1) / nodes * (n / gpn) * b
               + ((gpn - 1) / gpn * n + (nodes - 1) / nodes * n / gpn) * y; // F7
    }
    return -2; // no textbook formula: use the schedule
}

/// SCHEDULE model.
double
Schedule(const WorkloadGroup& g, const CollectiveCost& cost, const Terms& x)
{
    const uint32_t p = g.ranks.size();
    const double pd = x.p;
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma / x.c; // a channel reduces its share
    const std::string& op = g.op;
    const std::string& algo = g.algorithm;
    if (algo == "ring")
    {
        if (op == "all-reduce")
        {
            return RingPipeline(2 * (p - 1),
                                p - 1,
                                g.bytes,
                                p,
                                g.channels,
                                x.chunk,
                                cost.inter,
                                x.gamma);
        }
        if (op == "reduce-scatter")
        {
            return RingPipeline(p - 1, p - 1, g.bytes, p, g.channels, x.chunk, cost.inter, x.gamma);
        }
        if (op == "all-gather")
        {
            return RingPipeline(p - 1, 0, g.bytes, p, g.channels, x.chunk, cost.inter, 0);
        }
        if (op == "broadcast" || op == "reduce")
        {
            return ChainPipeline(g, x, op == "reduce", cost.inter);
        }
    }
    if (algo == "tree" && (op == "all-reduce" || op == "broadcast" || op == "reduce"))
    {
        return TreePipeline(g, x);
    }
    if (algo == "binomial")
    {
        const double l = CeilLog2(p);
        if (op == "all-reduce")
        {
            return 2 * l * (a + n * b) + l * n * y;
        }
        return l * (a + n * b) + (op == "reduce" ? l * n * y : 0);
    }
    if (algo == "halving-doubling" || algo == "naive")
    {
        Terms perChannel = x;
        perChannel.gamma = y;
        WorkloadGroup textbook = g;
        textbook.algorithm = algo;
        const double t = Formula(textbook, cost, perChannel);
        if (t >= 0 || algo != "naive")
        {
            return t;
        }
        if (op == "broadcast")
        {
            return (pd - 1) * (a + n * b);
        }
        if (op == "reduce")
        {
            return (pd - 1) * (a + n * b + n * y);
        }
        return -1;
    }
    if (algo == "direct")
    {
        if (op == "all-to-all" || op == "send-recv" || op == "permutation")
        {
            return p < 2 && op == "all-to-all" ? 0 : a + DirectLoad(g) * b;
        }
        if (p < 2)
        {
            return 0;
        }
        if (op == "broadcast")
        {
            return a + (pd - 1) * n * b;
        }
        if (op == "reduce")
        {
            return a + (pd - 1) * n * b + (pd - 1) * n * y;
        }
        const double phase = a + (pd - 1) / pd * n * b;
        if (op == "reduce-scatter")
        {
            return phase + (pd - 1) / pd * n * y;
        }
        if (op == "all-gather")
        {
            return phase;
        }
        if (op == "all-reduce")
        {
            return 2 * phase + (pd - 1) / pd * n * y;
        }
    }
    if (algo == "hierarchical" && op == "all-reduce")
    {
        if (g.ranksPerNode == 0 || p % g.ranksPerNode != 0)
        {
            return -1;
        }
        const uint32_t gpn = g.ranksPerNode;
        const uint32_t nodes = p / gpn;
        const uint64_t shard = CollectiveAlgorithm::SplitShare(g.bytes, gpn, 0);
        return RingPipeline(gpn - 1,
                            gpn - 1,
                            g.bytes,
                            gpn,
                            g.channels,
                            x.chunk,
                            cost.intra,
                            x.gamma)
               + RingPipeline(2 * (nodes - 1),
                              nodes - 1,
                              shard,
                              nodes,
                              g.channels,
                              x.chunk,
                              cost.inter,
                              x.gamma)
               + RingPipeline(gpn - 1, 0, g.bytes, gpn, g.channels, x.chunk, cost.intra, 0);
    }
    return -1;
}

/// Worst alpha and worst beta over some GPU pairs.
void
Worst(AlphaBeta& worst, const AlphaBeta& c)
{
    worst.alphaS = std::max(worst.alphaS, c.alphaS);
    worst.betaSPerByte = std::max(worst.betaSPerByte, c.betaSPerByte);
    worst.hops = std::max(worst.hops, c.hops);
}

} // namespace

double
CollectiveTime(const WorkloadGroup& g, const CollectiveCost& cost, CollectiveModel model)
{
    auto algo = CreateCollectiveAlgorithm(g.algorithm);
    if (!algo || !algo->Validate(g).empty())
    {
        return -1;
    }
    Terms x;
    x.p = g.ranks.size();
    x.n = static_cast<double>(g.bytes);
    x.c = g.channels;
    x.gamma = g.gammaSecondsPerByte;
    x.alpha = cost.inter.alphaS;
    x.beta = cost.inter.betaSPerByte;
    x.chunk = g.chunkBytes;
    if (model == CollectiveModel::FORMULA)
    {
        const double t = Formula(g, cost, x);
        if (t != -2)
        {
            return t;
        }
    }
    return Schedule(g, cost, x);
}

std::string
CollectiveFormulaId(const std::string& op, const std::string& algorithm)
{
    if (algorithm == "ring" && op == "all-reduce")
    {
        return "F1";
    }
    if (algorithm == "ring" && (op == "reduce-scatter" || op == "all-gather"))
    {
        return "F2";
    }
    if ((algorithm == "tree" || algorithm == "binomial") && op == "all-reduce")
    {
        return "F3";
    }
    if (algorithm == "halving-doubling" && op == "all-reduce")
    {
        return "F4";
    }
    if (algorithm == "naive" && op == "all-reduce")
    {
        return "F5";
    }
    if (algorithm == "direct" && op == "all-to-all")
    {
        return "F6";
    }
    if (algorithm == "hierarchical" && op == "all-reduce")
    {
        return "F7";
    }
    return "";
}

CollectiveCost
CollectiveAlphaBeta(const FabricGraph& graph, const WorkloadGroup& g)
{
    CollectiveCost cost;
    const std::vector<uint32_t>& r = g.ranks;
    const uint32_t p = r.size();
    if (p < 2)
    {
        return cost;
    }
    auto pair = [&graph, &r](AlphaBeta& worst, uint32_t i, uint32_t j) {
        Worst(worst, PathAlphaBeta(graph, r[i], r[j]));
    };
    if (g.algorithm == "hierarchical" && g.ranksPerNode > 0 && p % g.ranksPerNode == 0)
    {
        const uint32_t gpn = g.ranksPerNode;
        const uint32_t nodes = p / gpn;
        for (uint32_t i = 0; i < p; ++i)
        {
            const uint32_t n = i / gpn;
            const uint32_t l = i % gpn;
            if (gpn > 1)
            {
                pair(cost.intra, i, n * gpn + (l + 1) % gpn);
            }
            if (nodes > 1)
            {
                pair(cost.inter, i, ((n + 1) % nodes) * gpn + l);
            }
        }
        return cost;
    }
    if (g.algorithm == "tree")
    {
        for (uint32_t t = 0; t < (g.op == "all-reduce" ? 2 : 1); ++t)
        {
            for (uint32_t i = 0; i < p; ++i)
            {
                const auto node = TreeCollectiveAlgorithm::DoubleBinaryTreeNode(p, i, t);
                if (node.parent >= 0)
                {
                    const uint32_t a = (g.op == "all-reduce") ? i : (i + g.root) % p;
                    const uint32_t b
                        = (g.op == "all-reduce") ? node.parent : (node.parent + g.root) % p;
                    pair(cost.inter, a, b);
                    pair(cost.inter, b, a);
                }
            }
        }
        return cost;
    }
    if (g.algorithm == "binomial")
    {
        const uint32_t root = g.op == "all-reduce" ? 0 : g.root;
        for (uint32_t d = 1; d < p; d <<= 1)
        {
            for (uint32_t v = 0; v + d < p; v += 2 * d)
            {
                pair(cost.inter, (v + root) % p, (v + d + root) % p);
                pair(cost.inter, (v + d + root) % p, (v + root) % p);
            }
        }
        return cost;
    }
    if (g.algorithm == "halving-doubling")
    {
        for (uint32_t d = 1; d < p; d <<= 1)
        {
            for (uint32_t i = 0; i < p; ++i)
            {
                pair(cost.inter, i, i ^ d);
            }
        }
        return cost;
    }
    if (g.algorithm == "direct")
    {
        for (uint32_t j = 1; j < p; ++j)
        {
            pair(cost.inter, 0, j);
            pair(cost.inter, j, 0);
        }
        return cost;
    }
    // ring, naive: ring successors (the naive root talks to everyone: both ways)
    for (uint32_t i = 0; i < p; ++i)
    {
        pair(cost.inter, i, (i + 1) % p);
        if (g.algorithm == "naive")
        {
            pair(cost.inter, (i + 1) % p, i);
        }
    }
    return cost;
}

double
CollectiveAnalyticTime(const std::string& op,
                       const std::string& algorithm,
                       uint32_t ranks,
                       uint64_t bytes,
                       const AlphaBeta& cost)
{
    WorkloadGroup g;
    g.op = op;
    g.algorithm = algorithm;
    g.bytes = bytes;
    g.ranks.resize(ranks);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        g.ranks[i] = i;
    }
    if (ranks < 2)
    {
        return -1;
    }
    CollectiveCost c;
    c.inter = cost;
    c.intra = cost;
    return CollectiveTime(g, c, CollectiveModel::FORMULA);
}

} // namespace ns3
