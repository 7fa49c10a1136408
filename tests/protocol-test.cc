/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's protocols and slots (docs/collectives.md, "Protocols"): the wire framing, the
 * latencies, the slot flow control and the choice `protocol: auto` makes.
 */
#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"
#include "test-fabrics.h"
#include "tool-runner.h"

#include "ns3/analytic-model.h"
#include "ns3/fabric-graph.h"
#include "ns3/nccl-protocol.h"
#include "ns3/workload.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <tuple>

using namespace ns3;

namespace
{

/// \return the schedule model's time (CollectiveModel::SCHEDULE) of the scenario's collective
double
ScheduleModel(const ScenarioSpec& s)
{
    const FabricGraph graph = BuildFabricGraph(s.topology);
    const WorkloadGroup g = MakeWorkloadGroup(s.traffic.collectives[0],
                                              graph.GetGpuCount(),
                                              graph.GetEndpointPlaces(),
                                              &graph);
    return CollectiveTime(g, CollectiveAlphaBeta(graph, g), CollectiveModel::SCHEDULE);
}

/// A ring all-reduce of \p bytes on 8 GPUs of one NDR switch with protocol \p p.
RunResults
RingWith(Protocol p, uint64_t bytes, uint32_t channels = 1)
{
    ScenarioSpec s = aifabrictest::SingleSwitchRing(8, bytes);
    s.traffic.collectives[0].protocol = p;
    s.traffic.collectives[0].channels = channels;
    return RunScenario(s, RunOptions{});
}

/// One send of \p bytes from GPU 1 to GPU 0 on one NDR switch with protocol \p p.
RunResults
SendWith(Protocol p, uint64_t bytes)
{
    ScenarioSpec s = aifabrictest::SingleSwitchRing(2, bytes, CollectiveOp::SEND_RECV);
    CollectiveSpec& c = s.traffic.collectives[0];
    c.algorithm = "direct";
    c.protocol = p;
    c.ranks = {1, 0};
    c.transferSrc = {0};
    c.transferDst = {1};
    c.transferBytes = {bytes};
    return RunScenario(s, RunOptions{});
}

} // namespace

TEST(Protocol, WireBytesAreWholeLines)
{
    EXPECT_EQ(WireBytes(WireFormat::RAW, 1000), 1000u);
    EXPECT_EQ(WireBytes(WireFormat::LL, 8), 16u);
    EXPECT_EQ(WireBytes(WireFormat::LL, 9), 32u);
    EXPECT_EQ(WireBytes(WireFormat::LL128, 120), 128u);
    EXPECT_EQ(WireBytes(WireFormat::LL128, 121), 256u);
    EXPECT_EQ(WireBytes(WireFormat::LL, 0), 0u);
}

/// LL puts two wire bytes on the link per data byte, LL128 128 per 120: a large message
/// takes that much longer on an idle link, and its flow carries those wire bytes.
TEST(Protocol, FramingStretchesTheTransfer)
{
    const uint64_t n = 4 << 20;
    const RunResults simple = SendWith(Protocol::SIMPLE, n);
    const RunResults ll = SendWith(Protocol::LL, n);
    const RunResults ll128 = SendWith(Protocol::LL128, n);
    for (const RunResults* r : {&simple, &ll, &ll128})
    {
        ASSERT_TRUE(r->complete);
        ASSERT_EQ(r->flows.size(), 1u);
        EXPECT_EQ(r->flows[0].bytes, n);
    }
    EXPECT_EQ(simple.flows[0].wireBytes, n);
    EXPECT_EQ(ll.flows[0].wireBytes, 2 * n);
    EXPECT_EQ(ll128.flows[0].wireBytes, (n + 119) / 120 * 128);
    // The flow time is the network's (from the post): it scales with the wire bytes.
    EXPECT_NEAR(ll.flows[0].FctS() / simple.flows[0].FctS(), 2.0, 0.01);
    EXPECT_NEAR(ll128.flows[0].FctS() / simple.flows[0].FctS(), 128.0 / 120, 0.01);
    // The message is posted after its hop latency (NCCL's NET row: Simple 14 us, LL 2.7 us).
    EXPECT_NEAR(simple.flows[0].postedS - simple.collectives[0].startS, 8.4e-6 + 14e-6, 1e-9);
    EXPECT_NEAR(ll.flows[0].postedS - ll.collectives[0].startS, 6.6e-6 + 2.7e-6, 1e-9);
}

/// LL's low latency wins for small buffers, Simple's full-rate wire for large ones.
TEST(Protocol, LlBeatsSimpleBelowItsCrossoverAndLosesAbove)
{
    const RunResults llSmall = RingWith(Protocol::LL, 4096);
    const RunResults simpleSmall = RingWith(Protocol::SIMPLE, 4096);
    const RunResults llLarge = RingWith(Protocol::LL, 64 << 20);
    const RunResults simpleLarge = RingWith(Protocol::SIMPLE, 64 << 20);
    for (const RunResults* r : {&llSmall, &simpleSmall, &llLarge, &simpleLarge})
    {
        ASSERT_TRUE(r->complete);
        ASSERT_EQ(r->collectives.size(), 1u);
        EXPECT_TRUE(r->violations.empty()) << r->violations.front();
    }
    const double ls = llSmall.collectives[0].durationS;
    const double ss = simpleSmall.collectives[0].durationS;
    const double ll = llLarge.collectives[0].durationS;
    const double sl = simpleLarge.collectives[0].durationS;
    EXPECT_LT(ls, ss);
    EXPECT_GT(ll, sl);
    // Small: NCCL's latency model, base + 2(P-1) network hops (every GPU is its own server
    // here): LL 6.6 + 14 x 2.7 us, Simple 8.4 + 14 x 14 us; plus the wire, under 1 us a
    // step for 1 KiB over two NDR links and a switch.
    EXPECT_GT(ls, 6.6e-6 + 14 * 2.7e-6);
    EXPECT_LT(ls, 6.6e-6 + 14 * (2.7e-6 + 1e-6));
    EXPECT_GT(ss, 8.4e-6 + 14 * 14e-6);
    EXPECT_LT(ss, 8.4e-6 + 14 * (14e-6 + 1e-6));
    // Large: LL runs at half the wire rate (busbw x 0.5, as NCCL's model has it).
    EXPECT_NEAR(llLarge.collectives[0].busbwGBps / simpleLarge.collectives[0].busbwGBps, 0.5, 0.03);
    // The schedule model carries the same protocol: within 3 % at both sizes.
    for (const Protocol p : {Protocol::LL, Protocol::SIMPLE})
    {
        for (const uint64_t n : {uint64_t{4096}, uint64_t{64} << 20})
        {
            ScenarioSpec s = aifabrictest::SingleSwitchRing(8, n);
            s.traffic.collectives[0].protocol = p;
            s.traffic.collectives[0].channels = 1;
            const double sim = RunScenario(s, RunOptions{}).collectives[0].durationS;
            EXPECT_NEAR(sim / ScheduleModel(s), 1.0, 0.03) << ProtocolName(p) << ' ' << n;
        }
    }
}

/// `protocol: auto` takes NCCL's choice: for collectives the protocol the cost model finds
/// fastest at the size (LL small, Simple large); for point-to-point, LL up to 16 KiB.
TEST(Protocol, AutoFollowsNcclsChoice)
{
    EXPECT_EQ(RingWith(Protocol::AUTO, 4096).collectives[0].protocol, "ll");
    EXPECT_EQ(RingWith(Protocol::AUTO, 256 << 20).collectives[0].protocol, "simple");
    EXPECT_EQ(SendWith(Protocol::AUTO, 16 * 1024).collectives[0].protocol, "ll");
    EXPECT_EQ(SendWith(Protocol::AUTO, 16 * 1024 + 1).collectives[0].protocol, "simple");
    // Auto is never slower than the protocols it chose among, at any size tried.
    for (const uint64_t n : {uint64_t{1024}, uint64_t{1} << 20, uint64_t{16} << 20})
    {
        const double a = RingWith(Protocol::AUTO, n).collectives[0].durationS;
        for (const Protocol p : AutoProtocolCandidates())
        {
            EXPECT_LE(a, 1.02 * RingWith(p, n).collectives[0].durationS)
                << n << " B, " << ProtocolName(p);
        }
    }
    EXPECT_EQ(RingWith(Protocol::NONE, 4096).collectives[0].protocol, "none");
}

/// Slot flow control: a connection's send j is posted only after send j - slots has
/// arrived (and been reduced), so a sender runs at most `slots` pieces ahead.
TEST(Protocol, SlotsBoundASendersLead)
{
    for (const uint32_t slots : {1u, 2u, 8u})
    {
        ScenarioSpec s = aifabrictest::SingleSwitchRing(4, 16 << 20);
        CollectiveSpec& c = s.traffic.collectives[0];
        c.protocol = Protocol::SIMPLE;
        c.channels = 1;
        c.chunkBytes = 64 * 1024;
        c.given.chunk = true;
        c.slots = slots;
        c.given.slots = true;
        const RunResults r = RunScenario(s, RunOptions{});
        ASSERT_TRUE(r.complete);
        // Flows are in op order; per connection (one channel: src -> dst), send j starts
        // after send j - slots ended.
        std::map<std::pair<uint32_t, uint32_t>, std::vector<const FlowRecord*>> byConnection;
        for (const FlowRecord& f : r.flows)
        {
            byConnection[{f.src, f.dst}].push_back(&f);
        }
        ASSERT_EQ(byConnection.size(), 4u);
        uint32_t maxInFlight = 0;
        for (const auto& [conn, flows] : byConnection)
        {
            ASSERT_GT(flows.size(), 2u * slots);
            for (std::size_t j = slots; j < flows.size(); ++j)
            {
                EXPECT_GE(flows[j]->postedS, flows[j - slots]->endS - 1e-12)
                    << "slots " << slots << ", send " << j;
            }
            // In flight at each post: at most `slots`, and the limit is reached.
            for (std::size_t j = 0; j < flows.size(); ++j)
            {
                uint32_t open = 0;
                for (std::size_t k = 0; k <= j; ++k)
                {
                    open += flows[k]->endS > flows[j]->postedS ? 1 : 0;
                }
                maxInFlight = std::max(maxInFlight, open);
            }
        }
        EXPECT_LE(maxInFlight, slots);
        EXPECT_EQ(maxInFlight, slots);
    }
    // Without slots (protocol none) step 0 posts all its pieces at once.
    ScenarioSpec s = aifabrictest::SingleSwitchRing(4, 16 << 20);
    s.traffic.collectives[0].protocol = Protocol::NONE;
    s.traffic.collectives[0].channels = 1;
    s.traffic.collectives[0].chunkBytes = 64 * 1024;
    const RunResults r = RunScenario(s, RunOptions{});
    uint32_t atZero = 0;
    for (const FlowRecord& f : r.flows)
    {
        atZero += f.src == 0 && f.postedS == 0 ? 1 : 0;
    }
    EXPECT_EQ(atZero, (16u << 20) / 4 / (64 * 1024));
}

/// Given latencies override the protocol's: the run and the schedule model both move by
/// the launch and per-hop differences.
TEST(Protocol, GivenLatenciesOverrideTheProtocols)
{
    ScenarioSpec s = aifabrictest::SingleSwitchRing(8, 4096);
    CollectiveSpec& c = s.traffic.collectives[0];
    c.protocol = Protocol::LL;
    c.channels = 1;
    const RunResults base = RunScenario(s, RunOptions{});
    c.launchLatency = MicroSeconds(0);
    c.given.launch = true;
    c.hopLatencyInter = MicroSeconds(1);
    c.given.hopInter = true;
    const RunResults given = RunScenario(s, RunOptions{});
    ASSERT_TRUE(base.complete);
    ASSERT_TRUE(given.complete);
    const double t = given.collectives[0].durationS;
    // The model prices each hop's store-and-forward at a full MTU packet, a little above
    // these 1 KiB ones (4 % at this size).
    EXPECT_NEAR(t / ScheduleModel(s), 1.0, 0.05);
    // Launch 6.6 us -> 0, and the 14 hops of the critical path at 2.7 us -> 1 us (at this
    // size nothing else overlaps them).
    const double saved = base.collectives[0].durationS - t;
    EXPECT_NEAR(saved, 6.6e-6 + 14 * 1.7e-6, 0.1 * (6.6e-6 + 14 * 1.7e-6));
}

/// A kernel copy rate below the link rate paces every rank's sends: an all-to-all then
/// takes its bytes per rank over that rate, and the schedule model says so too.
TEST(Protocol, KernelBandwidthPacesTheRanks)
{
    ScenarioSpec s = aifabrictest::SingleSwitchRing(8, 64 << 20, CollectiveOp::ALL_TO_ALL);
    CollectiveSpec& c = s.traffic.collectives[0];
    c.algorithm = "direct";
    c.protocol = Protocol::SIMPLE;
    const RunResults free = RunScenario(s, RunOptions{});
    c.kernelBytesPerSecond = 10e9; // a fifth of NDR's 50 GB/s
    const RunResults paced = RunScenario(s, RunOptions{});
    ASSERT_TRUE(free.complete);
    ASSERT_TRUE(paced.complete);
    const double perRank = 7.0 / 8 * (64 << 20);
    const double t = paced.collectives[0].durationS;
    // The copies one after the other, then the last 8 MiB message at NDR's rate, plus the
    // launch and one post latency.
    EXPECT_GT(t, perRank / 10e9);
    EXPECT_LT(t, perRank / 10e9 + (8 << 20) / 45e9 + 30e-6);
    EXPECT_LT(free.collectives[0].durationS, 0.3 * t);
    EXPECT_NEAR(t / ScheduleModel(s), 1.0, 0.05);
    // The wait is before the post: no flow takes longer than in the unpaced run.
    double slowestFree = 0;
    double slowestPaced = 0;
    for (std::size_t i = 0; i < free.flows.size(); ++i)
    {
        slowestFree = std::max(slowestFree, free.flows[i].FctS());
        slowestPaced = std::max(slowestPaced, paced.flows[i].FctS());
    }
    EXPECT_LE(slowestPaced, slowestFree);
}

/// `algorithm: auto` on an all-reduce takes NCCL's choice between ring and tree per size. On
/// two servers the tree (a chain in each server, the servers linked by every NIC in turn)
/// sends each server's data across once where the ring sends it almost twice, so it wins at
/// every size, as NCCL picks Tree there (nccl-tests#196: "on 2 nodes ... busbw can exceed the
/// NIC rate"); on four servers the ring wins large buffers. The choice is never slower than
/// the algorithm it passed over.
TEST(Protocol, AlgorithmAutoPicksRingOrTreeBySize)
{
    const std::filesystem::path dir = aifabrictest::FreshScratch("protocol-auto");
    auto run =
        [&dir](const std::string& fabric, const std::string& algorithm, const std::string& size) {
            const std::filesystem::path p
                = dir / ("s-" + fabric + "-" + algorithm + "-" + size + ".yaml");
            std::ofstream(p) << "name: a\nseed: 1\ntopology: "
                             << aifabrictest::SourcePath("validation/fabrics/" + fabric + ".yaml")
                             << "\ntraffic:\n  collectives:\n    - name: ar\n      op: all-reduce\n"
                                "      algorithm: "
                             << algorithm << "\n      size: " << size << "\n";
            const RunResults r = RunScenario(ReadScenarioFile(p.string()), RunOptions{});
            EXPECT_TRUE(r.complete);
            return r.collectives.at(0);
        };
    const std::string two = "rail-2x8-h100-ndr";
    const CollectiveResult small = run(two, "auto", "8B");
    const CollectiveResult large = run(two, "auto", "128MiB");
    EXPECT_EQ(small.algorithm, "tree");
    EXPECT_EQ(large.algorithm, "tree");
    EXPECT_EQ(large.protocol, "simple");
    EXPECT_LE(small.durationS, run(two, "ring", "8B").durationS);
    EXPECT_LT(large.durationS, run(two, "ring", "128MiB").durationS);
    // The chosen run is the explicit algorithm's run, protocol and all.
    const CollectiveResult tree = run(two, "tree", "8B");
    EXPECT_EQ(small.durationS, tree.durationS);
    EXPECT_EQ(small.protocol, tree.protocol);
    // Four servers of four GPUs: the ring for a large buffer.
    const CollectiveResult four = run("rail-4x4", "auto", "256MiB");
    EXPECT_EQ(four.algorithm, "ring");
    EXPECT_LT(four.durationS, run("rail-4x4", "tree", "256MiB").durationS);
}

/// A training job's `protocol`, `slots` and `kernel_bandwidth` reach every communication
/// group: the same bytes move, LL's framing and latencies make the TP all-reduces slower
/// than the transport alone, and a slow kernel slows them further.
TEST(Protocol, TrainingJobKeysReachEveryGroup)
{
    const ScenarioSpec base
        = ReadScenarioFile(aifabrictest::SourcePath("examples/train-3d-16gpu.yaml"));
    auto run = [&base](Protocol p, double kernel) {
        ScenarioSpec s = base;
        s.traffic.training.protocol = p;
        s.traffic.training.slots = 2;
        s.traffic.training.kernelBytesPerSecond = kernel;
        const RunResults r = RunScenario(s, RunOptions{});
        EXPECT_TRUE(r.complete);
        EXPECT_TRUE(r.violations.empty()) << r.violations.front();
        std::map<std::string, TrainingCommResult> byKind;
        for (const TrainingCommResult& c : r.training.communication)
        {
            byKind[c.kind] = c;
        }
        return byKind;
    };
    auto none = run(Protocol::NONE, 0);
    auto ll = run(Protocol::LL, 0);
    auto slow = run(Protocol::LL, 5e9);
    ASSERT_TRUE(none.count("tp"));
    for (const auto& [kind, c] : none)
    {
        EXPECT_EQ(ll.at(kind).bytes, c.bytes) << kind;
        EXPECT_EQ(ll.at(kind).messages, c.messages) << kind;
    }
    EXPECT_GT(ll.at("tp").busyS, none.at("tp").busyS);
    EXPECT_GT(slow.at("tp").busyS, ll.at("tp").busyS);
}
