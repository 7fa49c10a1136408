/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "straggler-report.h"

#include "output/atomic-file.h"
#include "output/json-writer.h"
#include "output/results-writer.h"

#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/straggler-ledger.h"
#include "ns3/workload-execution.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace ns3
{

namespace
{

/// The source entry for the wait before the first packet left.
const char* const SOURCE_START = "source-start";
/// The source entry for sending below line rate.
const char* const SOURCE_RATE = "source-rate";

/// One entry of a path while blame is passed along it, in ps.
struct PathEntry
{
    uint32_t port{StragglerLedger::NONE}; //!< ledger port id
    int64_t queue{0};                     //!< own plain queueing
    int64_t hold{0};                      //!< own flow-control hold
    int64_t received{0};                  //!< back-pressure received from upstream
    int64_t kept{0};                      //!< of that, kept here
};

/// \param ps picoseconds \return seconds
double
Sec(int64_t ps)
{
    return ps * 1e-12;
}

/// \param s seconds \return "12.345" nanoseconds with ps precision
std::string
Ns(double s)
{
    const long long ps = std::llround(s * 1e12);
    char buf[48];
    std::snprintf(buf,
                  sizeof buf,
                  "%s%lld.%03lld",
                  ps < 0 ? "-" : "",
                  std::llabs(ps) / 1000,
                  std::llabs(ps) % 1000);
    return buf;
}

/// \param s seconds \return a short human duration
std::string
Human(double s)
{
    char buf[48];
    const double a = std::fabs(s);
    if (a >= 1e-3)
    {
        std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
    }
    else if (a >= 1e-6)
    {
        std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
    }
    else
    {
        std::snprintf(buf, sizeof buf, "%.1f ns", s * 1e9);
    }
    return buf;
}

/// \param x a share \return "71 %"
std::string
Percent(double x)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f %%", 100.0 * x);
    return buf;
}

/// Build one straggler's record from its ledger entry.
StragglerFlow
AttributeFlow(const FabricGraph& graph,
              const Fabric& fabric,
              const RunResults& r,
              const StragglerLedger& ledger,
              const StragglerLedger::Message& m,
              int64_t endPs,
              int64_t sharedPs,
              double idealS)
{
    StragglerFlow f;
    // From when the message could leave (its queue pair's head), less the source port's time
    // on the sender's other packets: the sender's own traffic is not the fabric's delay.
    const bool known = m.eligiblePs >= 0;
    const int64_t eligible = known ? m.eligiblePs : m.postPs;
    const int64_t heldEligible = known ? m.heldEligiblePs : m.holdMarkPs;
    const int64_t fct = endPs - eligible;
    // Injection delay: waiting for the first packet to start, then sending slower
    // than line rate; each part less the flow-control hold of the source port in it.
    const int64_t first = m.firstPs >= 0 ? m.firstPs : m.injectPs;
    const int64_t holdFirst = m.firstPs >= 0 ? m.holdFirstPs : m.holdMarkPs + m.sourceHoldPs;
    const int64_t startWait = std::max<int64_t>(first - eligible - m.sharedFirstPs, 0);
    const int64_t sending
        = std::max<int64_t>(m.injectPs - first - m.idealInjectPs - (m.sharedPs - m.sharedFirstPs),
                            0);
    const int64_t holdBefore = std::clamp<int64_t>(holdFirst - heldEligible, 0, startWait);
    // The port's held time while injecting, from eligible (sourceHoldPs counts from the post).
    const int64_t heldSince = std::max<int64_t>(m.holdMarkPs + m.sourceHoldPs - heldEligible, 0);
    const int64_t holdDuring = std::clamp<int64_t>(heldSince - holdBefore, 0, sending);
    const int64_t inject = startWait + sending;
    const int64_t sourceHold = holdBefore + holdDuring;

    std::vector<PathEntry> path;
    path.push_back(PathEntry{m.sourcePort, 0, sourceHold, 0, 0});
    int64_t waits = 0;
    int64_t relayed = 0; // queueing at a relaying GPU's port (PXN): the server's own sharing
    const auto& links = graph.GetLinks();
    const auto& nodes = graph.GetNodes();
    for (uint32_t i = m.head; i != StragglerLedger::NONE; i = ledger.GetHop(i).next)
    {
        const StragglerLedger::Hop& h = ledger.GetHop(i);
        const uint32_t node = h.port / 2 < links.size()
                                  ? (h.port % 2 == 0 ? links[h.port / 2].a : links[h.port / 2].b)
                                  : UINT32_MAX;
        const bool relay = node != UINT32_MAX && nodes[node].kind == FabricGraph::NodeKind::GPU;
        const int64_t queue = h.waitPs - h.holdPs;
        relayed += relay ? queue : 0;
        path.push_back(PathEntry{h.port, relay ? 0 : queue, h.holdPs, 0, 0});
        waits += relay ? h.holdPs : h.waitPs;
    }
    // The contributors as the ledger sees them (the last packet's journey against the
    // line-rate injection and unloaded path), scaled to the flow's extra delay over its ideal
    // as flows.csv has them (MeasureOps: the shared time of its port or PXN relay, and
    // MessageIdealTime, which also counts the pipelining of a short last packet), so both
    // files agree and the shares stay the ledger's.
    const int64_t raw = inject + waits;
    const int64_t shared = sharedPs >= 0 ? sharedPs : m.sharedPs + relayed;
    const int64_t ideal
        = idealS > 0 ? static_cast<int64_t>(std::llround(idealS * 1e12)) : fct - shared - raw;
    const int64_t extra = raw > 0 ? std::max<int64_t>(fct - shared - ideal, 0) : 0;
    const long double scale = raw > 0 ? static_cast<long double>(extra) / raw : 0.0L;
    f.fctS = Sec(fct);
    f.sharedS = Sec(shared);
    f.extraS = Sec(extra);
    f.idealS = Sec(ideal);
    f.pathHops = path.size() - 1;

    // Back-pressure: a port's flow-control hold was caused downstream; pass it on.
    int64_t carry = 0;
    for (std::size_t i = 0; i < path.size(); ++i)
    {
        PathEntry& e = path[i];
        e.received = carry;
        if (i + 1 == path.size())
        {
            e.kept = carry;
            break;
        }
        const int64_t own = e.queue + e.hold;
        e.kept
            = own == 0 ? 0 : static_cast<int64_t>(static_cast<long double>(carry) * e.queue / own);
        carry = carry - e.kept + e.hold;
    }

    for (std::size_t i = 0; i < path.size(); ++i)
    {
        const PathEntry& e = path[i];
        if (e.port == StragglerLedger::NONE)
        {
            continue;
        }
        const uint32_t link = e.port / 2;
        const uint32_t end = e.port % 2;
        const auto& l = links[link];
        const Ptr<FabricNetDevice>& dev = end == 0 ? fabric.devicesA[link] : fabric.devicesB[link];
        StragglerHop h;
        h.node = nodes[end == 0 ? l.a : l.b].name;
        h.peer = nodes[end == 0 ? l.b : l.a].name;
        h.port = h.node + "->" + h.peer;
        h.link = link;
        const bool isSwitch = fabric.switches[end == 0 ? l.a : l.b] != nullptr;
        h.portIndex = isSwitch ? static_cast<int64_t>(dev->GetSwitchPort()) : -1;
        h.portRecord = e.port < r.ports.size() ? static_cast<int64_t>(e.port) : -1;
        // The tier class (gpu-leaf, leaf-spine, global, ...): what an architect calls the link.
        h.tier = h.portRecord < 0                    ? ""
                 : r.ports[e.port].tierClass.empty() ? r.ports[e.port].tier
                                                     : r.ports[e.port].tierClass;
        h.position = i;
        h.queueS = Sec(e.queue);
        const bool pfc = DynamicCast<PfcFlowControl>(dev->GetFlowControl()) != nullptr;
        const bool last = i + 1 == path.size();
        (pfc ? h.pauseS : h.creditStallS) = Sec(e.hold);
        h.backPressureS = Sec(e.kept);
        h.attributedS = Sec(e.queue + e.kept + (last ? e.hold : 0));
        f.hops.push_back(h);
    }
    const std::string sourceNode = f.hops.empty() ? "" : f.hops.front().node;
    for (const auto& [name, ps] : {std::make_pair(SOURCE_START, startWait - holdBefore),
                                   std::make_pair(SOURCE_RATE, sending - holdDuring)})
    {
        if (ps > 0)
        {
            StragglerHop h;
            h.port = name;
            h.node = sourceNode;
            h.tier = "source";
            h.otherS = Sec(ps);
            h.attributedS = h.otherS;
            f.hops.push_back(h);
        }
    }
    for (StragglerHop& h : f.hops)
    {
        const auto scaled = [scale](double s) {
            return static_cast<double>(s * scale);
        };
        h.share = raw > 0 ? h.attributedS / Sec(raw) : 0.0;
        h.queueS = scaled(h.queueS);
        h.pauseS = scaled(h.pauseS);
        h.creditStallS = scaled(h.creditStallS);
        h.backPressureS = scaled(h.backPressureS);
        h.otherS = scaled(h.otherS);
        h.attributedS = scaled(h.attributedS);
    }
    std::stable_sort(f.hops.begin(), f.hops.end(), [](const auto& a, const auto& b) {
        return a.attributedS > b.attributedS;
    });
    return f;
}

/// \param f a straggler \return what it is the tail of
std::string
Subject(const StragglerFlow& f)
{
    return f.training ? "the training job's " + f.collective + " traffic" : f.collective;
}

/// \param f a straggler \return "flow 12", or "group NAME" for a training flow
std::string
FlowName(const StragglerFlow& f)
{
    return f.training ? "group " + f.group : "flow " + std::to_string(f.flowId);
}

} // namespace

void
GatherStragglers(const FabricGraph& graph,
                 const Fabric& fabric,
                 const Workload& workload,
                 const WorkloadExecution& runner,
                 const StragglerLedger& ledger,
                 const std::vector<std::string>& trainingKind,
                 const std::vector<int64_t>& sharedPs,
                 const std::vector<double>& idealS,
                 uint32_t k,
                 RunResults& r)
{
    std::unordered_map<uint32_t, uint64_t> trainingFlowId;
    for (const FlowRecord& f : r.trainingFlows)
    {
        trainingFlowId.emplace(f.op, f.id);
    }
    StragglerAttribution& out = r.stragglers;
    out.enabled = true;
    out.flowsPerCollective = k;
    const auto& ops = workload.GetOps();
    const auto& groups = workload.GetGroups();
    // An endpoint's name in the reports: "gpu<i>", or a reducing switch's node name (NVLS, SHARP).
    const std::vector<uint32_t> endpointNodes = graph.GetEndpointNodes();
    const auto label = [&graph, &endpointNodes](uint32_t e) {
        return e < graph.GetGpuCount() || e >= endpointNodes.size()
                   ? "gpu" + std::to_string(e)
                   : graph.GetNodes()[endpointNodes[e]].name;
    };

    // Message of every SEND op.
    std::vector<uint32_t> msgOf(ops.size(), StragglerLedger::NONE);
    for (uint32_t src = 0; src < ledger.GetEndpoints(); ++src)
    {
        for (uint32_t id = 0; id < ledger.GetMessages(src); ++id)
        {
            const uint32_t op = runner.GetMessageOp(src, id);
            // A SEND split over its connection's queue pairs: its first part stands for it.
            if (op < ops.size() && msgOf[op] == StragglerLedger::NONE)
            {
                msgOf[op] = id;
            }
        }
    }
    // SEND ops of every group, in op order: the order flows.csv numbers them in.
    const Workload::GroupSends sends = workload.GetSendsByGroup();

    struct Candidate
    {
        int64_t fct;  //!< its FCT less the shared time (the fabric's part), ps
        uint64_t id;  //!< flows.csv id (collectives)
        uint32_t op;  //!< the SEND op
        uint32_t grp; //!< its workload group
    };

    // One bucket per collective, one per training group kind (first-seen order).
    std::vector<std::string> bucketName;
    std::vector<std::vector<Candidate>> buckets;
    std::vector<bool> bucketTraining;
    uint64_t flowId = 0;
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        if (sends.first[g] == sends.first[g + 1])
        {
            continue;
        }
        const bool isTraining = g < trainingKind.size() && !trainingKind[g].empty();
        const std::string name = isTraining ? trainingKind[g] : groups[g].name;
        std::size_t b = buckets.size();
        if (isTraining)
        {
            for (std::size_t x = 0; x < buckets.size(); ++x)
            {
                if (bucketTraining[x] && bucketName[x] == name)
                {
                    b = x;
                }
            }
        }
        if (b == buckets.size())
        {
            bucketName.push_back(name);
            bucketTraining.push_back(isTraining);
            buckets.emplace_back();
        }
        for (uint32_t j = sends.first[g]; j < sends.first[g + 1]; ++j)
        {
            const uint32_t i = sends.sends[j];
            const int64_t end = runner.GetOpEnd(i).GetPicoSeconds();
            if (end < 0)
            {
                continue; // not in flows.csv either
            }
            // The fabric's share of its time: from eligible, less the sender's own traffic.
            const WorkloadSendTiming t = runner.GetSendTiming(i);
            const int64_t from = t.eligible.IsNegative() ? runner.GetOpStart(i).GetPicoSeconds()
                                                         : t.eligible.GetPicoSeconds();
            const int64_t shared = i < sharedPs.size() ? sharedPs[i] : 0;
            buckets[b].push_back(Candidate{end - from - shared, isTraining ? 0 : flowId++, i, g});
        }
    }

    for (std::size_t b = 0; b < buckets.size(); ++b)
    {
        std::vector<Candidate>& done = buckets[b];
        std::stable_sort(done.begin(), done.end(), [](const Candidate& x, const Candidate& y) {
            return x.fct > y.fct;
        });
        uint32_t rank = 0;
        for (const Candidate& c : done)
        {
            if (rank >= k)
            {
                break;
            }
            const WorkloadOp& op = ops[c.op];
            const StragglerLedger::Message* m = msgOf[c.op] == StragglerLedger::NONE
                                                    ? nullptr
                                                    : ledger.Find(op.rank, msgOf[c.op]);
            if (!m || m->injectPs < 0)
            {
                continue;
            }
            StragglerFlow f = AttributeFlow(graph,
                                            fabric,
                                            r,
                                            ledger,
                                            *m,
                                            runner.GetOpEnd(c.op).GetPicoSeconds(),
                                            c.op < sharedPs.size() ? sharedPs[c.op] : -1,
                                            c.op < idealS.size() ? idealS[c.op] : 0.0);
            f.flowId = c.id;
            if (bucketTraining[b])
            {
                // A training flow's id, if flows.csv lists it (`results: flows`).
                const auto listed = trainingFlowId.find(c.op);
                f.flowId = listed != trainingFlowId.end() ? listed->second : NO_FLOW_ID;
            }
            f.collective = bucketName[b];
            f.group = groups[c.grp].name;
            f.training = bucketTraining[b];
            f.rank = rank++;
            f.src = op.rank;
            f.dst = op.peer;
            f.srcName = label(op.rank);
            f.dstName = label(op.peer);
            f.bytes = op.bytes;
            out.flows.push_back(std::move(f));
        }
    }
}

std::string
DescribeStraggler(const StragglerFlow& f, const StragglerAttribution& run)
{
    // Below 0.1 % of the ideal FCT the extra delay is the picosecond carry of
    // serialization times, not a straggler.
    if (f.hops.empty() || f.extraS <= 1e-3 * f.idealS || f.hops.front().attributedS <= 0)
    {
        return "the slowest flow of " + Subject(f) + " (" + FlowName(f) + ", " + f.srcName + " to "
               + f.dstName + ") took its ideal time (within 0.1 %): no extra delay to attribute";
    }
    const StragglerHop& h = f.hops.front();
    std::string s = "the tail of " + Subject(f) + " (" + FlowName(f) + ", " + Human(f.extraS)
                    + " over its ideal " + Human(f.idealS) + ") came from ";
    // What can keep a source below line rate once its own traffic is set aside: only the
    // mechanisms this run has.
    std::vector<std::string> causes;
    if (run.congestionControl)
    {
        causes.emplace_back("DCQCN pacing its queue pair");
    }
    if (run.goBackN)
    {
        causes.emplace_back("go-back-N resends and its send window");
    }
    const auto because = [&causes]() {
        std::string t;
        for (std::size_t i = 0; i < causes.size(); ++i)
        {
            t += (i == 0 ? " (" : i + 1 == causes.size() ? " or " : ", ") + causes[i];
        }
        return causes.empty() ? t : t + ")";
    };
    if (h.port == SOURCE_START)
    {
        return s + "the source " + h.node + ": " + Percent(h.share)
               + " of the extra delay, waiting before its first packet could leave" + because();
    }
    if (h.port == SOURCE_RATE)
    {
        return s + "the source " + h.node + ": " + Percent(h.share)
               + " of the extra delay, sending below line rate" + because();
    }
    s += h.port;
    if (h.portIndex >= 0)
    {
        s += " (port " + std::to_string(h.portIndex) + ")";
    }
    else
    {
        s += " (link " + std::to_string(h.link) + ")";
    }
    s += ": " + Percent(h.share) + " of the extra delay, ";
    const double parts[] = {h.queueS, h.pauseS, h.creditStallS, h.backPressureS};
    const std::size_t top = std::max_element(std::begin(parts), std::end(parts)) - parts;
    switch (top)
    {
        case 0:
            s += "queueing";
            break;
        case 1:
            s += "PFC pause";
            break;
        case 2:
            s += "credit stall";
            break;
        default:
            s += "its queue back-pressuring the hops before it";
            break;
    }
    if (top == 0 && h.backPressureS > 0)
    {
        s += std::string(" (with the back-pressure it caused upstream")
             + (run.pfc && !run.credits   ? ": PFC pauses)"
                : run.credits && !run.pfc ? ": credit stalls)"
                                          : ")");
    }
    return s + " at a " + h.tier + " link";
}

void
PrintStragglerSummary(const RunResults& r, std::ostream& os)
{
    for (const StragglerFlow& f : r.stragglers.flows)
    {
        if (f.rank == 0)
        {
            os << "attribution: " << DescribeStraggler(f, r.stragglers) << "\n";
        }
    }
}

void
WriteStragglersJson(JsonWriter& w, const RunResults& r)
{
    const StragglerAttribution& a = r.stragglers;
    if (!a.enabled)
    {
        w.Null();
        return;
    }
    w.BeginObject();
    w.Key("flows_per_collective").Uint(a.flowsPerCollective);
    w.Key("flows").BeginArray();
    for (const StragglerFlow& f : a.flows)
    {
        w.BeginObject();
        w.Key("collective").String(f.collective);
        w.Key("group").String(f.group);
        w.Key("training").Bool(f.training);
        w.Key("rank").Uint(f.rank);
        w.Key("flow_id");
        if (f.flowId == NO_FLOW_ID)
        {
            w.Null();
        }
        else
        {
            w.Uint(f.flowId);
        }
        w.Key("src").Uint(f.src);
        w.Key("dst").Uint(f.dst);
        w.Key("bytes").Uint(f.bytes);
        w.Key("fct_s").Double(f.fctS);
        w.Key("shared_s").Double(f.sharedS);
        w.Key("ideal_s").Double(f.idealS);
        w.Key("extra_s").Double(f.extraS);
        w.Key("path_hops").Uint(f.pathHops);
        w.Key("explanation").String(DescribeStraggler(f, a));
        w.Key("hops").BeginArray();
        for (const StragglerHop& h : f.hops)
        {
            w.BeginObject();
            w.Key("port").String(h.port);
            w.Key("node").String(h.node);
            w.Key("peer").String(h.peer);
            w.Key("link").Int(h.link);
            w.Key("switch_port").Int(h.portIndex);
            w.Key("tier").String(h.tier);
            w.Key("position").Uint(h.position);
            w.Key("queue_s").Double(h.queueS);
            w.Key("pause_s").Double(h.pauseS);
            w.Key("credit_stall_s").Double(h.creditStallS);
            w.Key("back_pressure_s").Double(h.backPressureS);
            w.Key("other_s").Double(h.otherS);
            w.Key("attributed_s").Double(h.attributedS);
            w.Key("share").Double(h.share);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
}

void
WriteStragglersCsv(const RunResults& r, std::ostream& os)
{
    os << "collective,group,training,rank,flow_id,src,dst,bytes,fct_ns,shared_ns,ideal_ns,extra_ns,"
          "hop_rank,"
          "position,port,node,peer,link,switch_port,tier,queue_ns,pause_ns,credit_stall_ns,"
          "back_pressure_ns,other_ns,attributed_ns,share\n";
    for (const StragglerFlow& f : r.stragglers.flows)
    {
        for (std::size_t i = 0; i < f.hops.size(); ++i)
        {
            const StragglerHop& h = f.hops[i];
            char share[32];
            std::snprintf(share, sizeof share, "%.6f", h.share);
            os << CsvField(f.collective) << ',' << CsvField(f.group) << ',' << (f.training ? 1 : 0)
               << ',' << f.rank << ','
               << (f.flowId == NO_FLOW_ID ? std::string() : std::to_string(f.flowId)) << ','
               << f.src << ',' << f.dst << ',' << f.bytes << ',' << Ns(f.fctS) << ','
               << Ns(f.sharedS) << ',' << Ns(f.idealS) << ',' << Ns(f.extraS) << ',' << i << ','
               << h.position << ',' << h.port << ',' << h.node << ',' << h.peer << ','
               << (h.link >= 0 ? std::to_string(h.link) : "") << ','
               << (h.portIndex >= 0 ? std::to_string(h.portIndex) : "") << ',' << h.tier << ','
               << Ns(h.queueS) << ',' << Ns(h.pauseS) << ',' << Ns(h.creditStallS) << ','
               << Ns(h.backPressureS) << ',' << Ns(h.otherS) << ',' << Ns(h.attributedS) << ','
               << share << '\n';
        }
    }
}

void
WriteStragglersCsv(const RunResults& r, const std::string& path)
{
    WriteFileAtomically(path, [&r](std::ostream& os) { WriteStragglersCsv(r, os); });
}

void
WriteStragglerSection(std::ostream& os, const RunResults& r)
{
    os << "## Stragglers\n\n";
    if (!r.stragglers.enabled)
    {
        os << "Straggler attribution was off for this run (`attribution: {enabled: true}` "
              "turns it on).\n\n";
        return;
    }
    if (r.stragglers.flows.empty())
    {
        os << "No flow completed: nothing to attribute.\n\n";
        return;
    }
    os << "The " << r.stragglers.flowsPerCollective
       << " slowest flows of each collective (of a training job: of each kind of group), by FCT "
          "less shared time; extra = FCT - shared - ideal (FCT from when the message could leave, "
          "shared the time its port spent on the sender's other packets, ideal the same flow "
          "alone on an idle fabric), split over the ports on its last packet's path "
          "(stragglers.csv).\n\n";
    std::string current;
    for (const StragglerFlow& f : r.stragglers.flows)
    {
        if (f.collective != current || f.rank == 0)
        {
            if (!current.empty())
            {
                os << "\n";
            }
            current = f.collective;
            os << "### " << (f.training ? "training: " : "") << f.collective << "\n\n"
               << DescribeStraggler(f, r.stragglers) << ".\n\n";
            os << "| flow | src | dst | FCT | ideal | extra | top contributors |\n";
            os << "|---|---|---|---|---|---|---|\n";
        }
        std::string top;
        for (std::size_t i = 0; i < f.hops.size() && i < 3; ++i)
        {
            if (f.hops[i].attributedS <= 0)
            {
                break;
            }
            top += (top.empty() ? "" : "; ") + f.hops[i].port + " " + Percent(f.hops[i].share);
        }
        os << "| " << FlowName(f) << " | " << f.srcName << " | " << f.dstName << " | "
           << Human(f.fctS) << " | " << Human(f.idealS) << " | " << Human(f.extraS) << " | "
           << (top.empty() ? "-" : top) << " |\n";
    }
    os << "\n";
}

} // namespace ns3
