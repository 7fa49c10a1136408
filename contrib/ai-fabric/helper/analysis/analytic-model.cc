/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "analytic-model.h"

#include "ns3/collective-algorithm.h"
#include "ns3/fabric-graph.h"
#include "ns3/workload.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace ns3
{

namespace
{

/**
 * \param graph the fabric
 * \param link an NVLink (a GPU to an NVSwitch chip)
 * \return the NVLinks of the link's GPU (its links to every chip of its domain)
 */
double
NvlinkWidth(const FabricGraph& graph, const FabricGraph::Link& link)
{
    const uint32_t gpu
        = graph.GetNodes()[link.a].kind == FabricGraph::NodeKind::GPU ? link.a : link.b;
    double n = 0;
    for (const auto& adj : graph.GetAdjacency(gpu))
    {
        n += graph.GetLinks()[adj.link].kind == FabricGraph::LinkKind::NVLINK ? 1 : 0;
    }
    return std::max(n, 1.0);
}

} // namespace

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
        // A GPU sends and receives over all its NVLinks at once (one to each NVSwitch chip,
        // packet by packet): the stream's rate on an NVLink hop is the GPU's NVLink
        // bandwidth, whichever chip the path above goes through; a packet still crosses
        // one link (first).
        const double width
            = links[l].kind == FabricGraph::LinkKind::NVLINK ? NvlinkWidth(graph, links[l]) : 1.0;
        const double beta = p.WireBytes(mtuBytes, false) / (mtu * bytesPerS * width);
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

/**
 * \brief MessageIdealTime() of a path given as links from the source node.
 * \param graph the fabric
 * \param src the source node
 * \param path the links, in order
 * \param mtu the fabric's MTU
 * \param bytes payload bytes
 * \param width NVLinks the message stripes over (a GPU spreads a message over its equal-cost
 *        NVLinks packet by packet: its packets follow each other width times faster on the
 *        NVLink hops); 1: none
 * \return seconds
 */
double
IdealOnPath(const FabricGraph& graph,
            uint32_t src,
            const std::vector<uint32_t>& path,
            uint32_t mtu,
            uint64_t bytes,
            uint32_t width = 1)
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
        const double lanes
            = links[path[h]].kind == FabricGraph::LinkKind::NVLINK ? std::max(width, 1u) : 1.0;
        for (int kind = 0; kind < 3; ++kind)
        {
            const bool first = kind == 0 || (kind == 2 && packets == 1);
            const double wire = p.WireBytes(payload[kind], first);
            down[h][kind] = wire / bytesPerS / lanes;
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

namespace
{

/**
 * \param graph the fabric
 * \param src a source node
 * \param dst a destination node
 * \param dist RouteDistancesTo(dst)
 * \param hops scratch
 * \return the NVLinks a message from src to dst stripes over: the source GPU's equal-cost next
 *         hops when every one is an NVLink (FabricBuilder's stripe selector), else 1
 */
uint32_t
StripeWidth(const FabricGraph& graph,
            uint32_t src,
            uint32_t dst,
            const std::vector<uint32_t>& dist,
            std::vector<uint32_t>& hops)
{
    if (graph.GetNodes()[src].kind != FabricGraph::NodeKind::GPU)
    {
        return 1;
    }
    graph.NextHops(src, dst, dist, hops);
    for (const uint32_t h : hops)
    {
        if (graph.GetLinks()[graph.GetAdjacency(src)[h].link].kind != FabricGraph::LinkKind::NVLINK)
        {
            return 1;
        }
    }
    return std::max<uint32_t>(hops.size(), 1);
}

} // namespace

double
MessageIdealTime(const FabricGraph& graph, uint32_t srcGpu, uint32_t dstGpu, uint64_t bytes)
{
    return MessageIdealTimes(graph, {MessageQuery{srcGpu, dstGpu, bytes}}).front();
}

namespace
{

/// The first and last link of a message's path (NO_LINK for an empty path).
struct PathEnds
{
    static constexpr uint32_t NO_LINK = UINT32_MAX; //!< no path
    uint32_t first{NO_LINK};                        //!< the link it leaves its source by
    uint32_t last{NO_LINK};                         //!< the link it reaches its destination by
};

/**
 * MessageIdealTimes(), and when \p ends is given, the first and last link of each query's
 * path.
 */
std::vector<double>
IdealTimesOnPaths(const FabricGraph& graph,
                  const std::vector<MessageQuery>& queries,
                  std::vector<PathEnds>* ends)
{
    std::vector<double> out(queries.size(), 0.0);
    if (ends)
    {
        ends->assign(queries.size(), PathEnds());
    }
    std::vector<uint32_t> order(queries.size());
    for (uint32_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&queries](uint32_t x, uint32_t y) {
        return std::tie(queries[x].dst, queries[x].src) < std::tie(queries[y].dst, queries[y].src);
    });
    const uint32_t mtu = graph.GetSmallestMtu();
    std::vector<uint32_t> dist;
    std::vector<uint32_t> path;
    std::vector<uint32_t> hops;
    uint32_t distFor = UINT32_MAX;
    uint32_t pathFor = UINT32_MAX;
    uint32_t width = 1;
    const std::vector<uint32_t> nodes = graph.GetEndpointNodes(); // GPUs, then reducers
    for (const uint32_t q : order)
    {
        const uint32_t dst = nodes.at(queries[q].dst);
        const uint32_t src = nodes.at(queries[q].src);
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
            width = src != dst && dist[src] != UINT32_MAX ? StripeWidth(graph, src, dst, dist, hops)
                                                          : 1;
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
        out[q] = IdealOnPath(graph, src, path, mtu, queries[q].bytes, width);
        if (ends && !path.empty())
        {
            (*ends)[q] = PathEnds{path.front(), path.back()};
        }
    }
    return out;
}

} // namespace

std::vector<double>
MessageIdealTimes(const FabricGraph& graph, const std::vector<MessageQuery>& queries)
{
    return IdealTimesOnPaths(graph, queries, nullptr);
}

double
WorkloadIdealEnd(const FabricGraph& graph, const Workload& workload)
{
    const std::vector<WorkloadOp>& ops = workload.GetOps();
    const uint32_t mtu = graph.GetSmallestMtu();
    // Each distinct (source, destination, bytes) is costed once (a ring's chunks share a few),
    // beside its first packet alone.
    std::vector<MessageQuery> queries; // per distinct message: it, then its first packet
    std::map<std::tuple<uint32_t, uint32_t, uint64_t>, uint32_t> distinct;
    std::vector<uint32_t> sends;
    std::vector<uint32_t> queryOf; // per send: its message's index in queries / 2
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (ops[i].kind != WorkloadOp::SEND)
        {
            continue;
        }
        sends.push_back(i);
        const uint64_t bytes = WireBytes(ops[i].wire, ops[i].bytes);
        const auto [it, inserted]
            = distinct.try_emplace(std::make_tuple(ops[i].rank, ops[i].peer, bytes),
                                   static_cast<uint32_t>(queries.size() / 2));
        if (inserted)
        {
            queries.push_back(MessageQuery{ops[i].rank, ops[i].peer, bytes});
            queries.push_back(
                MessageQuery{ops[i].rank, ops[i].peer, std::min<uint64_t>(bytes, mtu)});
        }
        queryOf.push_back(it->second);
    }
    std::vector<PathEnds> ends;
    const std::vector<double> times = IdealTimesOnPaths(graph, queries, &ends);
    std::vector<double> ideal(sends.size());
    // The streaming floor: what follows a message's first packet streams through its path's
    // bottleneck, and an endpoint's messages that leave by one link (or arrive by one) share
    // it, so no run ends before the busiest (endpoint, link)'s sum of those times.
    std::unordered_map<uint64_t, double> stream;
    double streamFloor = 0;
    for (std::size_t k = 0; k < sends.size(); ++k)
    {
        const std::size_t q = 2 * static_cast<std::size_t>(queryOf[k]);
        ideal[k] = times[q];
        const PathEnds& e = ends[q];
        if (e.first == PathEnds::NO_LINK)
        {
            continue;
        }
        const double rest = std::max(0.0, times[q] - times[q + 1]);
        const WorkloadOp& op = ops[sends[k]];
        for (const uint64_t key : {(uint64_t{op.rank} << 33) | e.first,
                                   (uint64_t{op.peer} << 33) | (uint64_t{1} << 32) | e.last})
        {
            streamFloor = std::max(streamFloor, stream[key] += rest);
        }
    }
    std::vector<double> duration(ops.size());
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        duration[i] = ops[i].duration.GetSeconds();
    }
    for (std::size_t k = 0; k < sends.size(); ++k)
    {
        duration[sends[k]] += ideal[k];
    }
    // Longest path, in topological order (Kahn): an op starts when its last dependency ends.
    std::vector<uint32_t> waiting(ops.size());
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        waiting[i] = workload.GetInDegree(i);
        if (waiting[i] == 0)
        {
            ready.push_back(i);
        }
    }
    std::vector<double> start(ops.size(), 0.0);
    double end = 0;
    while (!ready.empty())
    {
        const uint32_t i = ready.back();
        ready.pop_back();
        const double finish = start[i] + duration[i];
        end = std::max(end, finish);
        for (const uint32_t* s = workload.SuccessorsBegin(i); s != workload.SuccessorsEnd(i); ++s)
        {
            start[*s] = std::max(start[*s], finish);
            if (--waiting[*s] == 0)
            {
                ready.push_back(*s);
            }
        }
    }
    return std::max(end, streamFloor);
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

/// \return whether traffic from GPU \p a to GPU \p b leaves a server (through the NIC):
/// they are in different servers, or \p a is in none
bool
CrossesServers(const FabricGraph& graph, uint32_t a, uint32_t b)
{
    const auto& nodes = graph.GetNodes();
    const auto& na = nodes[graph.GetGpuNode(a)];
    const auto& nb = nodes[graph.GetGpuNode(b)];
    return na.server == FabricGraph::NONE || na.server != nb.server;
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
    CollectiveTerms x;
    x.p = g.ranks.size();
    x.n = static_cast<double>(g.bytes);
    x.c = g.channels;
    x.gamma = g.gammaSecondsPerByte;
    x.alpha = cost.inter.alphaS;
    x.beta = cost.inter.betaSPerByte;
    x.chunk = g.chunkBytes;
    // The launch latency (the protocol's base latency) comes before any of it.
    const double launch = g.launchLatency.GetSeconds();
    if (model == CollectiveModel::FORMULA)
    {
        const double t = algo->FormulaTime(g, cost, x);
        if (t != CollectiveAlgorithm::NO_FORMULA)
        {
            return t < 0 ? t : launch + t;
        }
    }
    const double t = algo->ScheduleTime(g, cost, x);
    return t < 0 ? t : launch + t;
}

std::string
CollectiveFormulaId(const std::string& op, const std::string& algorithm)
{
    const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(algorithm);
    return algo ? algo->FormulaId(op) : "";
}

CollectiveCost
CollectiveAlphaBeta(const FabricGraph& graph, const WorkloadGroup& g)
{
    CollectiveCost cost;
    const std::vector<uint32_t>& r = g.ranks;
    if (r.size() < 2)
    {
        return cost;
    }
    const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
    std::vector<CollectivePath> paths;
    if (algo)
    {
        algo->CostPaths(g, paths);
    }
    else
    {
        CollectiveAlgorithm::RingPaths(r.size(), paths);
    }
    // Paths that carry a share of the bytes (channels spread over NICs): a GPU port's load
    // is the sum of the shares through it, each at its path's beta. Ports: a GPU's NVLinks
    // (to a GPU of its server) and its NIC (elsewhere), each way. What leaves (enters) a
    // server is priced on the server's NICs, not on the ones the paths name: spread over
    // them as evenly as whole channels allow (a channel leaves a server through one NIC),
    // so that the estimate does not share the simulated channels' choice of NIC.
    std::map<std::tuple<uint32_t, bool, bool>, double> portLoad; // (gpu, nic?, out?) -> s/B
    std::map<std::pair<uint32_t, bool>, double> serverLoad;      // (server, out?) -> s/B
    // Channels are what spreads over a server's NICs: pooled per server for algorithms whose
    // channels follow the topology (rings, trees); the others' paths keep their GPU's NIC.
    const CollectiveCapabilities can = algo ? algo->GetCapabilities() : CollectiveCapabilities{};
    const bool pool = can.ringOrdered || can.treeOrdered;
    const auto& nodes = graph.GetNodes();
    auto serverOf = [&graph, &nodes](uint32_t gpu) {
        return nodes[graph.GetGpuNode(gpu)].server;
    };
    bool shared = false;
    bool interCrosses = false; // an inter path leaves its server (the network hop latency)
    for (const CollectivePath& path : paths)
    {
        const AlphaBeta ab = PathAlphaBeta(graph, r[path.from], r[path.to]);
        double& quickest = path.intra ? cost.fastestIntraS : cost.fastestInterS;
        quickest = quickest < 0 ? ab.alphaS : std::min(quickest, ab.alphaS);
        AlphaBeta& into = path.intra ? cost.intra : cost.inter;
        const bool crosses = CrossesServers(graph, r[path.from], r[path.to]);
        interCrosses = interCrosses || (!path.intra && crosses);
        if (path.share >= 1)
        {
            Worst(into, ab);
            continue;
        }
        shared = true;
        into.alphaS = std::max(into.alphaS, ab.alphaS);
        into.hops = std::max(into.hops, ab.hops);
        const double load = path.share * ab.betaSPerByte;
        const uint32_t fromServer = serverOf(r[path.from]);
        const uint32_t toServer = serverOf(r[path.to]);
        if (pool && crosses && fromServer != FabricGraph::NONE)
        {
            serverLoad[{fromServer, true}] += load;
        }
        else
        {
            portLoad[{r[path.from], crosses, true}] += load;
        }
        if (pool && crosses && toServer != FabricGraph::NONE)
        {
            serverLoad[{toServer, false}] += load;
        }
        else
        {
            portLoad[{r[path.to], crosses, false}] += load;
        }
    }
    if (shared)
    {
        for (const auto& [port, load] : portLoad)
        {
            cost.inter.betaSPerByte = std::max(cost.inter.betaSPerByte, load);
        }
        // A server's NICs: those of its ranks (a GPU's network link, or the NIC node its host
        // link reaches; GPUs may share one).
        std::map<uint32_t, std::set<uint32_t>> nics; // server -> NIC (node)
        for (const uint32_t e : r)
        {
            const uint32_t node = graph.GetGpuNode(e);
            for (const auto& adj : graph.GetAdjacency(node))
            {
                const auto kind = graph.GetLinks()[adj.link].kind;
                if (kind != FabricGraph::LinkKind::NVLINK)
                {
                    nics[nodes[node].server].insert(kind == FabricGraph::LinkKind::HOST ? adj.peer
                                                                                        : node);
                }
            }
        }
        const double channels = std::max<uint32_t>(g.channels, 1);
        for (const auto& [port, load] : serverLoad)
        {
            const double count = std::max<std::size_t>(nics[port.first].size(), 1);
            // channels / count whole channels on the busiest NIC, at most all of them
            const double busiest = std::min(std::ceil(channels / count), channels) / channels;
            cost.inter.betaSPerByte = std::max(cost.inter.betaSPerByte, load * busiest);
        }
    }
    AddProtocolCost(g, interCrosses, cost);
    return cost;
}

void
AddProtocolCost(const WorkloadGroup& g, bool interCrosses, CollectiveCost& cost)
{
    // The framing stretches every byte (LL: 16 wire bytes per 8; LL128: 128 per 120), and
    // every message waits its hop's post latency before it leaves.
    const WireFormat wire = g.protocol == Protocol::NONE || g.protocol == Protocol::AUTO
                                ? WireFormat::RAW
                                : GetProtocolProfile(g.protocol).wire;
    const double stretch
        = static_cast<double>(WireBytes(wire, 120 * 8)) / static_cast<double>(120 * 8);
    cost.intra.betaSPerByte *= stretch;
    cost.inter.betaSPerByte *= stretch;
    if (g.kernelBytesPerSecond > 0)
    {
        // The kernel's copies pipeline with the transfers: the slower of the two sets the pace.
        const double kernel = stretch / g.kernelBytesPerSecond;
        cost.intra.betaSPerByte = std::max(cost.intra.betaSPerByte, kernel);
        cost.inter.betaSPerByte = std::max(cost.inter.betaSPerByte, kernel);
    }
    const double postIntra = g.hopLatencyIntra.GetSeconds();
    const double postInter = (interCrosses ? g.hopLatencyInter : g.hopLatencyIntra).GetSeconds();
    cost.intra.alphaS += postIntra;
    cost.inter.alphaS += postInter;
    if (cost.fastestIntraS >= 0)
    {
        cost.fastestIntraS += postIntra;
    }
    if (cost.fastestInterS >= 0)
    {
        cost.fastestInterS += postInter;
    }
}

void
AttachReducers(const FabricGraph& graph, WorkloadGroup& g)
{
    const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
    const CollectiveCapabilities caps = algo ? algo->GetCapabilities() : CollectiveCapabilities();
    g.tree = InNetworkTree();
    g.switches.clear();
    if (caps.inNetwork && caps.networkTree)
    {
        // A group without a tree keeps none; its Validate() says why (SharpTreeProblem()).
        if (!graph.GetSharpTree(g.ranks, g.tree, g.switches).empty())
        {
            g.tree = InNetworkTree();
            g.switches.clear();
        }
    }
    else if (caps.inNetwork)
    {
        g.switches = graph.GetReducersOf(g.ranks);
    }
}

std::string
InNetworkProblem(const FabricGraph& graph, const WorkloadGroup& g)
{
    const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
    if (!algo || !algo->GetCapabilities().networkTree || g.ranks.size() < 2)
    {
        return "";
    }
    InNetworkTree tree;
    std::vector<uint32_t> switches;
    return graph.GetSharpTree(g.ranks, tree, switches);
}

Protocol
ResolveProtocol(const FabricGraph& graph,
                WorkloadGroup& g,
                const ProtocolOverrides& given,
                bool chooseAlgorithm)
{
    std::vector<std::string> algorithms{g.algorithm};
    if (chooseAlgorithm && g.op == "all-reduce")
    {
        algorithms = {"ring", "tree", "nvls"}; // NCCL's all-reduce algorithms here
    }
    // In-network reduction (NVLS) sends to the NVSwitch chips of the ranks' domain.
    AttachReducers(graph, g);
    if (g.protocol != Protocol::AUTO && algorithms.size() == 1)
    {
        ApplyProtocol(g, g.protocol, given);
        return g.protocol;
    }
    const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
    if (algorithms.size() == 1 && algo && algo->GetCapabilities().pointToPoint)
    {
        // NCCL's point-to-point rule: LL for small messages, Simple otherwise.
        const Protocol p
            = LargestPeerMessage(g) <= NCCL_P2P_LL_THRESHOLD ? Protocol::LL : Protocol::SIMPLE;
        ApplyProtocol(g, p, given);
        return p;
    }
    // NCCL's choice for its collectives: the (algorithm, protocol) its cost model (latency +
    // size / bandwidth) finds fastest for this size, here with the fabric's own alpha and
    // beta; the first on ties (ring, Simple).
    bool interCrosses = false;
    for (const uint32_t e : g.ranks)
    {
        interCrosses = interCrosses || CrossesServers(graph, e, g.ranks.front());
    }
    WorkloadGroup best = g;
    double bestTime = -1;
    for (const std::string& a : algorithms)
    {
        const std::vector<Protocol> protocols = g.protocol == Protocol::AUTO
                                                    ? ProtocolsOf(a, AutoProtocolCandidates())
                                                    : std::vector<Protocol>{g.protocol};
        // The fabric alone: ApplyProtocol() and AddProtocolCost() add the rest once.
        WorkloadGroup probe = g;
        probe.algorithm = a;
        AttachReducers(graph, probe);
        const Ptr<CollectiveAlgorithm> candidateAlgo = CreateCollectiveAlgorithm(a);
        if (chooseAlgorithm && !given.channels && a != g.algorithm && candidateAlgo
            && !candidateAlgo->GetCapabilities().ncclChannels)
        {
            // `channels: auto` was planned for the default algorithm's NCCL channels; an
            // algorithm NCCL does not run on them (NVLS) gets one.
            probe.channels = 1;
            probe.rings.clear();
        }
        probe.protocol = Protocol::NONE;
        probe.launchLatency = Time();
        probe.hopLatencyIntra = Time();
        probe.hopLatencyInter = Time();
        probe.kernelBytesPerSecond = 0;
        if (!candidateAlgo || !candidateAlgo->Validate(probe).empty())
        {
            continue;
        }
        const CollectiveCost raw = CollectiveAlphaBeta(graph, probe);
        for (const Protocol p : protocols)
        {
            WorkloadGroup candidate = probe;
            ApplyProtocol(candidate, p, given);
            CollectiveCost cost = raw;
            AddProtocolCost(candidate, interCrosses, cost);
            const double t = CollectiveTime(candidate, cost, CollectiveModel::SCHEDULE);
            if (t >= 0 && (bestTime < 0 || t < bestTime))
            {
                best = candidate;
                bestTime = t;
            }
        }
    }
    if (bestTime < 0)
    {
        ApplyProtocol(g, g.protocol == Protocol::AUTO ? Protocol::SIMPLE : g.protocol, given);
        return g.protocol;
    }
    g = best;
    return g.protocol;
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
