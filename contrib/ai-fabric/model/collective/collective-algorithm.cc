/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-algorithm.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/nccl-protocol.h"
#include "ns3/object-factory.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);

// -------------------------------------------------------------------- ops

namespace
{

/// One operation's row in the table.
struct CollectiveOpRow
{
    CollectiveOp op;  //!< the operation
    const char* name; //!< its YAML name
    bool reduces;     //!< whether it reduces data
};

/// The operations, in CollectiveOp order: the one place their names are written.
constexpr CollectiveOpRow COLLECTIVE_OPS[COLLECTIVE_OP_COUNT] = {
    {CollectiveOp::ALL_REDUCE, "all-reduce", true},
    {CollectiveOp::REDUCE_SCATTER, "reduce-scatter", true},
    {CollectiveOp::ALL_GATHER, "all-gather", false},
    {CollectiveOp::BROADCAST, "broadcast", false},
    {CollectiveOp::REDUCE, "reduce", true},
    {CollectiveOp::ALL_TO_ALL, "all-to-all", false},
    {CollectiveOp::SEND_RECV, "send-recv", false},
    {CollectiveOp::PERMUTATION, "permutation", false},
};

} // namespace

std::string
CollectiveOpName(CollectiveOp op)
{
    return COLLECTIVE_OPS[static_cast<uint32_t>(op)].name;
}

bool
CollectiveOpFromName(const std::string& name, CollectiveOp& op)
{
    for (const CollectiveOpRow& row : COLLECTIVE_OPS)
    {
        if (name == row.name)
        {
            op = row.op;
            return true;
        }
    }
    return false;
}

std::vector<std::string>
CollectiveOpNames()
{
    std::vector<std::string> names;
    for (const CollectiveOpRow& row : COLLECTIVE_OPS)
    {
        names.emplace_back(row.name);
    }
    return names;
}

bool
CollectiveOpReduces(CollectiveOp op)
{
    return COLLECTIVE_OPS[static_cast<uint32_t>(op)].reduces;
}

bool
CollectiveOpReduces(const std::string& op)
{
    CollectiveOp o;
    return CollectiveOpFromName(op, o) && CollectiveOpReduces(o);
}

// ---------------------------------------------------------------- builder

CollectiveBuilder::CollectiveBuilder(Workload& workload,
                                     uint32_t group,
                                     const std::vector<uint32_t>& startOps)
    : m_workload(workload)
    , m_group(group)
    , m_startOps(startOps)
    , m_endpoints(workload.GetGroups()[group].ranks)
    , m_ranks(m_endpoints.size())
    , m_perRankStart(false)
    , m_gamma(workload.GetGroups()[group].gammaSecondsPerByte)
    , m_done(m_endpoints.size())
{
    const uint32_t p = m_ranks;
    const std::vector<uint32_t>& switches = workload.GetGroups()[group].switches;
    m_endpoints.insert(m_endpoints.end(), switches.begin(), switches.end());
    NS_ABORT_MSG_IF(startOps.empty() || (startOps.size() != 1 && startOps.size() != p),
                    "one start op, or one per rank");
    for (const uint32_t s : startOps)
    {
        m_perRankStart = m_perRankStart || s != startOps.front();
    }
    const WorkloadGroup& g = Group();
    if (g.launchLatency.IsStrictlyPositive())
    {
        // The launch (NCCL's base latency): each rank's part starts this long after its
        // start op. Ranks that share a start op share the launch op.
        for (uint32_t i = 0; i < m_startOps.size(); ++i)
        {
            WorkloadOp op;
            op.kind = WorkloadOp::DELAY;
            op.group = m_group;
            op.rank = m_endpoints[i];
            op.duration = g.launchLatency;
            const uint32_t launch = m_workload.AddOp(op);
            m_workload.AddDependency(m_startOps[i], launch);
            m_startOps[i] = launch;
        }
    }
    const auto& places = m_workload.GetPlaces();
    m_server.resize(m_endpoints.size(), EndpointPlace::NONE);
    for (uint32_t i = 0; i < p; ++i)
    {
        if (m_endpoints[i] < places.size())
        {
            m_server[i] = places[m_endpoints[i]].server;
        }
    }
    // A reducer is in the ranks' server when they share one (NVLS: their NVLink domain).
    uint32_t common = p > 0 ? m_server[0] : EndpointPlace::NONE;
    for (uint32_t i = 1; i < p; ++i)
    {
        common = m_server[i] == common ? common : EndpointPlace::NONE;
    }
    for (uint32_t i = p; i < m_endpoints.size(); ++i)
    {
        m_server[i] = common;
    }
}

const WorkloadGroup&
CollectiveBuilder::Group() const
{
    return m_workload.GetGroups()[m_group];
}

uint32_t
CollectiveBuilder::Ranks() const
{
    return m_ranks;
}

uint32_t
CollectiveBuilder::Switches() const
{
    return m_endpoints.size() - m_ranks;
}

uint32_t
CollectiveBuilder::Start(uint32_t pos) const
{
    NS_ABORT_MSG_IF(pos >= m_ranks, "a reducer (position " << pos << ") has no start op");
    return m_startOps.size() == 1 ? m_startOps[0] : m_startOps[pos];
}

void
CollectiveBuilder::AfterStart(uint32_t pos, uint32_t op)
{
    if (!m_perRankStart)
    {
        m_workload.AddDependency(Start(pos), op);
    }
}

uint32_t
CollectiveBuilder::Send(uint32_t step, uint32_t src, uint32_t dst, uint16_t qp, uint64_t bytes)
{
    const WorkloadGroup& g = Group();
    NS_ABORT_MSG_IF(g.protocol == Protocol::AUTO,
                    "group '" << g.name << "': protocol auto must be resolved before building");
    WorkloadOp op;
    op.kind = WorkloadOp::SEND;
    op.wire = GetProtocolProfile(g.protocol).wire;
    op.group = m_group;
    op.step = step;
    op.rank = m_endpoints[src];
    op.peer = m_endpoints[dst];
    op.qp = qp;
    op.bytes = bytes;
    const bool intra = m_server[src] != EndpointPlace::NONE && m_server[src] == m_server[dst];
    op.duration = intra ? g.hopLatencyIntra : g.hopLatencyInter;
    if (src >= m_ranks)
    {
        op.flags |= WorkloadOp::IN_NETWORK; // the switch forwards its result at once
        op.duration = Time();
    }
    m_maxStep = std::max(m_maxStep, step);
    const uint32_t i = m_workload.AddOp(op);
    if (m_perRankStart && src < m_ranks)
    {
        m_workload.AddDependency(Start(src), i);
    }
    if (g.slots > 0)
    {
        // Slot flow control: the connection's send j waits until send j - slots has been
        // consumed at the receiver (its arrival, or the reduction that reads it).
        const uint64_t key
            = (static_cast<uint64_t>(src) << 40) | (static_cast<uint64_t>(dst) << 16) | qp;
        Connection& c = m_connections[key];
        const std::size_t s = c.sent % g.slots;
        if (c.release.size() < g.slots)
        {
            c.release.push_back(i); // slots are added as they are first used
            c.occupant.push_back(i);
        }
        else
        {
            m_workload.AddDependency(c.release[s], i);
            // The send that held this slot hands it to send i: if its data is reduced
            // later (Reduce()), that reduction must come before send i too.
            m_slotOf.erase(c.occupant[s]);
            m_slotTaker[c.occupant[s]] = i;
            c.release[s] = i;
            c.occupant[s] = i;
        }
        m_slotOf[i] = {&c, static_cast<uint32_t>(s)};
        ++c.sent;
    }
    return i;
}

uint32_t
CollectiveBuilder::Reduce(uint32_t step,
                          uint32_t pos,
                          uint64_t bytes,
                          uint32_t input,
                          uint32_t& chain)
{
    if (m_gamma <= 0)
    {
        return input;
    }
    WorkloadOp op;
    op.kind = WorkloadOp::DELAY;
    op.group = m_group;
    op.step = step;
    op.rank = m_endpoints[pos];
    // Rounded to the picosecond, so the result does not depend on the Time resolution.
    op.duration = PicoSeconds(std::llround(static_cast<double>(bytes) * m_gamma * 1e12));
    const uint32_t i = m_workload.AddOp(op);
    m_workload.AddDependency(input, i);
    if (chain != NONE)
    {
        m_workload.AddDependency(chain, i);
    }
    if (m_perRankStart)
    {
        m_workload.AddDependency(Start(pos), i);
    }
    chain = i;
    // The slot the input arrived in is free once the reduction has read it: the next send
    // to take the slot waits for the reduction (directly, if it is already built).
    if (auto it = m_slotOf.find(input);
        it != m_slotOf.end() && it->second.first->release[it->second.second] == input)
    {
        it->second.first->release[it->second.second] = i;
    }
    else if (auto taker = m_slotTaker.find(input); taker != m_slotTaker.end())
    {
        m_workload.AddDependency(i, taker->second);
        m_slotTaker.erase(taker);
    }
    return i;
}

uint32_t
CollectiveBuilder::Join(uint32_t step, uint32_t pos, const std::vector<uint32_t>& deps)
{
    WorkloadOp op;
    op.kind = WorkloadOp::DELAY;
    op.group = m_group;
    op.step = step;
    op.rank = m_endpoints[pos];
    const uint32_t i = m_workload.AddOp(op);
    for (const uint32_t d : deps)
    {
        m_workload.AddDependency(d, i);
    }
    if (deps.empty() || (m_perRankStart && pos < m_ranks))
    {
        m_workload.AddDependency(Start(pos), i);
    }
    return i;
}

void
CollectiveBuilder::Depend(uint32_t before, uint32_t after)
{
    m_workload.AddDependency(before, after);
}

std::vector<uint32_t>&
CollectiveBuilder::Finals(uint32_t pos)
{
    return m_done[pos];
}

std::vector<uint32_t>
CollectiveBuilder::Finish()
{
    std::vector<uint32_t> done(m_done.size());
    const uint32_t step = m_maxStep + 1;
    for (uint32_t i = 0; i < m_done.size(); ++i)
    {
        done[i] = Join(step, i, m_done[i]);
        m_done[i].clear();
        m_done[i].shrink_to_fit();
    }
    return done;
}

// -------------------------------------------------------------- algorithm

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

CollectiveAlgorithm::CollectiveAlgorithm()
{
}

CollectiveAlgorithm::~CollectiveAlgorithm()
{
}

std::string
CollectiveAlgorithm::GetName() const
{
    return GetCapabilities().name;
}

bool
CollectiveAlgorithm::Supports(CollectiveOp op) const
{
    return (GetCapabilities().ops & CollectiveCapabilities::OpBit(op)) != 0;
}

bool
CollectiveAlgorithm::Supports(const std::string& op) const
{
    CollectiveOp o;
    return CollectiveOpFromName(op, o) && Supports(o);
}

bool
CollectiveAlgorithm::BytesPerRank(const WorkloadGroup& g, std::vector<uint64_t>& bytes) const
{
    bytes.assign(g.ranks.size(), 0);
    const uint32_t channels = g.channels == 0 ? 1 : g.channels;
    for (uint32_t c = 0; c < channels; ++c)
    {
        if (!AddChannelBytes(g, SplitShare(g.bytes, channels, c), c, bytes))
        {
            bytes.clear();
            return false;
        }
    }
    return true;
}

void
CollectiveAlgorithm::RingPaths(uint32_t ranks, std::vector<CollectivePath>& paths)
{
    for (uint32_t i = 0; i < ranks; ++i)
    {
        paths.push_back({i, (i + 1) % ranks, false});
    }
}

void
CollectiveAlgorithm::CostPaths(const WorkloadGroup& g, std::vector<CollectivePath>& paths) const
{
    RingPaths(g.ranks.size(), paths);
}

std::string
CollectiveAlgorithm::FormulaId(const std::string& /* op */) const
{
    return "";
}

double
CollectiveAlgorithm::FormulaTime(const WorkloadGroup& /* g */,
                                 const CollectiveCost& /* cost */,
                                 const CollectiveTerms& /* x */) const
{
    return NO_FORMULA;
}

std::vector<double>
CollectiveAlgorithm::StepTimes(const WorkloadGroup& /* g */,
                               const CollectiveCost& /* cost */,
                               const CollectiveTerms& /* x */) const
{
    return {};
}

double
CollectiveAlgorithm::CeilLog2(uint32_t p)
{
    uint32_t l = 0;
    while ((uint64_t{1} << l) < p)
    {
        ++l;
    }
    return l;
}

double
CollectiveAlgorithm::TextbookTreeAllReduceTime(const WorkloadGroup& g, const CollectiveTerms& x)
{
    const double n = x.n;
    const double a = x.alpha;
    const double b = x.beta;
    const double y = x.gamma;
    const double l = CeilLog2(g.ranks.size());
    return 2 * l * a + 2 * l * n * b + l * n * y; // F3
}

std::vector<double>
CollectiveAlgorithm::TextbookTreeAllReduceSteps(const WorkloadGroup& g, const CollectiveTerms& x)
{
    const uint32_t steps = CeilLog2(g.ranks.size());
    std::vector<double> times(steps, x.alpha + x.n * x.beta + x.n * x.gamma);
    times.insert(times.end(), steps, x.alpha + x.n * x.beta);
    return times;
}

std::vector<uint64_t>
CollectiveAlgorithm::SplitChunks(uint64_t bytes, uint32_t ranks)
{
    std::vector<uint64_t> chunks(ranks, bytes / ranks);
    for (uint32_t c = 0; c < bytes % ranks; ++c)
    {
        ++chunks[c];
    }
    return chunks;
}

uint64_t
CollectiveAlgorithm::SplitShare(uint64_t bytes, uint32_t parts, uint32_t index)
{
    return bytes / parts + (index < bytes % parts ? 1 : 0);
}

uint32_t
CollectiveAlgorithm::PieceCount(uint64_t bytes, uint64_t chunkBytes)
{
    if (chunkBytes == 0 || bytes <= chunkBytes)
    {
        return 1;
    }
    return static_cast<uint32_t>((bytes + chunkBytes - 1) / chunkBytes);
}

std::string
CollectiveAlgorithm::Validate(const WorkloadGroup& g) const
{
    const std::string name = "algorithm '" + g.algorithm + "'";
    if (!Supports(g.op))
    {
        return name + " does not implement '" + g.op + "'";
    }
    const uint32_t p = g.ranks.size();
    if (p == 0)
    {
        return "a collective needs at least one rank";
    }
    std::vector<uint32_t> sorted = g.ranks;
    std::sort(sorted.begin(), sorted.end());
    const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end())
    {
        return "rank " + std::to_string(*dup) + " appears twice in ranks";
    }
    if (g.channels < 1 || g.channels > MAX_CHANNELS)
    {
        return "channels must be between 1 and " + std::to_string(MAX_CHANNELS)
               + " (NCCL's "
                 "MAXCHANNELS), got "
               + std::to_string(g.channels);
    }
    for (const std::vector<uint32_t>& ring : g.rings)
    {
        std::vector<uint32_t> members = ring;
        std::sort(members.begin(), members.end());
        for (uint32_t i = 0; i < p; ++i)
        {
            if (members.size() != p || members[i] != i)
            {
                return "a channel's ring order is not a permutation of the " + std::to_string(p)
                       + " rank positions";
            }
        }
    }
    for (const auto& tree : g.trees)
    {
        std::vector<uint32_t> members;
        for (const std::vector<uint32_t>& chain : tree)
        {
            if (chain.empty())
            {
                return "a channel's tree has a server without ranks";
            }
            members.insert(members.end(), chain.begin(), chain.end());
        }
        std::sort(members.begin(), members.end());
        for (uint32_t i = 0; i < p; ++i)
        {
            if (members.size() != p || members[i] != i)
            {
                return "a channel's tree is not a partition of the " + std::to_string(p)
                       + " rank positions";
            }
        }
    }
    if (GetCapabilities().inNetwork && g.protocol != Protocol::SIMPLE
        && g.protocol != Protocol::NONE && g.protocol != Protocol::AUTO)
    {
        return g.algorithm + " runs NCCL's Simple protocol only (protocol: simple, auto or none)";
    }
    if (g.chunkBytes > 0 && g.bytes / g.chunkBytes > MAX_PIECES)
    {
        return "chunk size " + std::to_string(g.chunkBytes) + " B cuts the "
               + std::to_string(g.bytes) + " B buffer into more than " + std::to_string(MAX_PIECES)
               + " pieces; use a larger chunk";
    }
    if (!(g.gammaSecondsPerByte >= 0) || !std::isfinite(g.gammaSecondsPerByte))
    {
        return "the reduction cost gamma must be a finite, non-negative number of seconds per "
               "byte";
    }
    if ((g.op == "broadcast" || g.op == "reduce") && g.root >= p)
    {
        return "root " + std::to_string(g.root) + " is not a rank position: the group has "
               + std::to_string(p) + " ranks (positions 0 to " + std::to_string(p - 1) + ")";
    }
    if (g.op == "all-to-all" && !g.matrix.empty() && g.matrix.size() != uint64_t{p} * p)
    {
        return "the all-to-all matrix must have P x P = " + std::to_string(uint64_t{p} * p)
               + " entries (P = " + std::to_string(p) + " ranks), got "
               + std::to_string(g.matrix.size());
    }
    if (g.op == "permutation")
    {
        if (p < 2)
        {
            return "a permutation needs at least 2 ranks, got " + std::to_string(p);
        }
        std::vector<bool> sends(p, false);
        std::vector<bool> receives(p, false);
        for (const WorkloadTransfer& t : g.transfers)
        {
            if (t.src >= p || t.dst >= p || t.src == t.dst || sends[t.src] || receives[t.dst])
            {
                return "the permutation's transfers are not a derangement of the "
                       + std::to_string(p) + " rank positions";
            }
            sends[t.src] = true;
            receives[t.dst] = true;
        }
        if (g.transfers.size() != p)
        {
            return "a permutation has one transfer per rank (" + std::to_string(p) + "), got "
                   + std::to_string(g.transfers.size());
        }
    }
    if (g.op == "send-recv")
    {
        if (g.transfers.empty())
        {
            return "send-recv needs at least one transfer (src, dst, bytes)";
        }
        for (std::size_t i = 0; i < g.transfers.size(); ++i)
        {
            const WorkloadTransfer& t = g.transfers[i];
            if (t.src >= p || t.dst >= p)
            {
                return "transfer " + std::to_string(i) + " names rank position "
                       + std::to_string(std::max(t.src, t.dst)) + ", but the group has "
                       + std::to_string(p) + " ranks";
            }
            if (t.src == t.dst)
            {
                return "transfer " + std::to_string(i) + " sends from rank position "
                       + std::to_string(t.src) + " to itself";
            }
        }
    }
    const CollectiveCapabilities caps = GetCapabilities();
    if (caps.needsRanksPerNode)
    {
        if (g.ranksPerNode == 0)
        {
            return caps.name + " needs the number of ranks per node (G)";
        }
        if (p % g.ranksPerNode != 0)
        {
            return caps.name + " needs the ranks (" + std::to_string(p)
                   + ") to be a multiple of the ranks per node (" + std::to_string(g.ranksPerNode)
                   + ")";
        }
    }
    return "";
}

std::vector<uint32_t>
CollectiveAlgorithm::Build(Workload& workload,
                           uint32_t group,
                           const std::vector<uint32_t>& startOps) const
{
    NS_LOG_FUNCTION(this << group);
    const WorkloadGroup& g = workload.GetGroups()[group];
    const std::string problem = Validate(g);
    NS_ABORT_MSG_IF(!problem.empty(), "collective '" << g.name << "': " << problem);
    CollectiveBuilder b(workload, group, startOps);
    for (uint32_t c = 0; c < g.channels; ++c)
    {
        DoBuildChannel(b, c, SplitShare(g.bytes, g.channels, c));
    }
    return b.Finish();
}

// --------------------------------------------------------------- registry

namespace
{

/**
 * \brief Visit one new object of every registered algorithm class, in TypeId order.
 * \param visit called with each; returns true to stop
 * \return the object visit() stopped at, or nullptr
 */
template<typename Visit>
Ptr<CollectiveAlgorithm>
ForEachAlgorithm(Visit visit)
{
    const TypeId base = CollectiveAlgorithm::GetTypeId();
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        if (tid != base && tid.HasConstructor() && tid.IsChildOf(base))
        {
            ObjectFactory factory;
            factory.SetTypeId(tid);
            Ptr<CollectiveAlgorithm> algo = factory.Create<CollectiveAlgorithm>();
            if (visit(algo))
            {
                return algo;
            }
        }
    }
    return nullptr;
}

} // namespace

std::vector<Ptr<CollectiveAlgorithm>>
CollectiveAlgorithms()
{
    std::vector<Ptr<CollectiveAlgorithm>> algorithms;
    ForEachAlgorithm([&algorithms](const Ptr<CollectiveAlgorithm>& a) {
        algorithms.push_back(a);
        return false;
    });
    std::sort(algorithms.begin(),
              algorithms.end(),
              [](const Ptr<CollectiveAlgorithm>& a, const Ptr<CollectiveAlgorithm>& b) {
                  return a->GetCapabilities().listPosition < b->GetCapabilities().listPosition;
              });
    return algorithms;
}

Ptr<CollectiveAlgorithm>
CreateCollectiveAlgorithm(const std::string& name)
{
    return ForEachAlgorithm(
        [&name](const Ptr<CollectiveAlgorithm>& a) { return a->GetName() == name; });
}

std::vector<std::string>
CollectiveAlgorithmNames()
{
    std::vector<std::string> names;
    for (const Ptr<CollectiveAlgorithm>& a : CollectiveAlgorithms())
    {
        names.push_back(a->GetName());
    }
    return names;
}

bool
ExpectedBytesPerRank(const WorkloadGroup& g, std::vector<uint64_t>& bytes)
{
    const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(g.algorithm);
    if (!algo)
    {
        bytes.clear();
        return false;
    }
    return algo->BytesPerRank(g, bytes);
}

} // namespace ns3
