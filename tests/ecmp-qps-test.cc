/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ECMP as deployed (docs/topologies.md, "ECMP hash fields") and NCCL's queue pairs per
 * connection (docs/transport.md, "Queue pairs per connection"): the hash reads exactly the
 * configured fields; N queue pairs carry exactly a message's bytes, split as NCCL splits
 * them; more queue pairs spread a connection over more spines; runs repeat under a seed.
 */
#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"
#include "tool-runner.h"

#include "ns3/ecmp-routing.h"
#include "ns3/fabric-header.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// An ECMP strategy hashing \p fields, with 8 equal-cost ports towards endpoints 0 to 63.
Ptr<EcmpRouting>
MakeEcmp(uint32_t fields, bool setFields = true)
{
    ObjectFactory factory("ns3::EcmpRouting");
    if (setFields)
    {
        factory.Set("HashFields", UintegerValue(fields));
    }
    Ptr<EcmpRouting> r = factory.Create<EcmpRouting>();
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(11);
    r->Attach(nullptr, rng);
    for (uint32_t dst = 0; dst < 64; ++dst)
    {
        r->SetRoute(dst, {1, 2, 3, 4, 5, 6, 7, 8});
    }
    return r;
}

/// The port \p r routes a data packet of (src, dst, qp) to.
uint16_t
PortOf(const Ptr<EcmpRouting>& r, uint32_t src, uint32_t dst, uint16_t qp)
{
    FabricFields h;
    h.m_src = src;
    h.m_dst = dst;
    h.m_qp = qp;
    return r->Route(h, 0, 0).port;
}

/// Which field of (src, dst, qp) a variation changes.
enum Field
{
    SRC,
    DST,
    QP
};

/// \return whether changing \p field of a few base flows ever moves them to another port
bool
FieldMatters(const Ptr<EcmpRouting>& r, Field field)
{
    for (uint32_t base = 0; base < 4; ++base)
    {
        const uint16_t first = PortOf(r, 40 + base, base, static_cast<uint16_t>(base));
        for (uint32_t v = 0; v < 60; ++v)
        {
            const uint32_t src = field == SRC ? v : 40 + base;
            const uint32_t dst = field == DST ? v : base;
            const auto qp = static_cast<uint16_t>(field == QP ? v : base);
            if (PortOf(r, src, dst, qp) != first)
            {
                return true;
            }
        }
    }
    return false;
}

/// Run a scenario written into a scratch directory.
RunResults
RunYaml(const std::string& yaml)
{
    const std::filesystem::path dir = aifabrictest::FreshScratch("ecmp-qps");
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << yaml;
    return RunScenario(ReadScenarioFile(p.string()), RunOptions{});
}

/// A 2-leaf, 4-spine NDR leaf-spine (1 GPU per leaf), one send of \p bytes from GPU 0 to
/// GPU 1 in NCCL's Simple protocol (wire bytes = payload), with \p keys at the scenario's top
/// level.
std::string
OneSend(const std::string& keys, const std::string& bytes)
{
    return "name: one-send\nseed: 3\n" + keys
           + "topology:\n  kind: leaf-spine\n  leaves: 2\n  spines: 4\n  gpus_per_leaf: 1\n"
             "  link: {profile: ib-ndr}\n"
             "traffic:\n  collectives:\n    - name: s\n      op: send-recv\n      ranks: [0, 1]\n"
             "      protocol: simple\n"
             "      transfers: [{src: 0, dst: 1, size: "
           + bytes + "}]\n";
}

/// Wire bytes each spine received from leaf 0 (the leaf->spine ports of leaf 0).
std::vector<uint64_t>
SpineLoads(const RunResults& r)
{
    std::vector<uint64_t> loads;
    for (const PortRecord& port : r.ports)
    {
        if (port.node.rfind("leaf0", 0) == 0 && port.peer.rfind("spine", 0) == 0)
        {
            loads.push_back(port.txBytes);
        }
    }
    return loads;
}

/// Spines leaf 0 sent anything to.
uint32_t
SpinesUsed(const RunResults& r)
{
    uint32_t used = 0;
    for (const uint64_t b : SpineLoads(r))
    {
        used += b > 0 ? 1 : 0;
    }
    return used;
}

/// Packets GPU 0's port sent.
uint64_t
GpuPackets(const RunResults& r)
{
    for (const PortRecord& port : r.ports)
    {
        if (port.node == "gpu0")
        {
            return port.txPackets;
        }
    }
    return 0;
}

} // namespace

/// The default hash is the 5-tuple (src, dst, qp), the module's hash before the fields were
/// configurable: the same ports as a strategy with no attribute set.
TEST(EcmpHash, DefaultIsTheFiveTuple)
{
    const Ptr<EcmpRouting> plain = MakeEcmp(0, false);
    const Ptr<EcmpRouting> tuple = MakeEcmp(EcmpRouting::HASH_5_TUPLE);
    EXPECT_EQ(plain->GetHashFields(), static_cast<uint32_t>(EcmpRouting::HASH_5_TUPLE));
    for (uint32_t src = 0; src < 32; ++src)
    {
        for (uint16_t qp = 0; qp < 8; ++qp)
        {
            EXPECT_EQ(PortOf(plain, src, src % 7, qp), PortOf(tuple, src, src % 7, qp));
        }
    }
    Simulator::Destroy();
}

/// Changing a field the hash does not read never moves a flow; changing one it reads can.
TEST(EcmpHash, ReadsExactlyTheConfiguredFields)
{
    using E = EcmpRouting;
    for (const uint32_t fields : {uint32_t{E::HASH_5_TUPLE},
                                  uint32_t{E::HASH_DST},
                                  uint32_t{E::HASH_SRC},
                                  uint32_t{E::HASH_QP},
                                  uint32_t{E::HASH_SRC | E::HASH_DST},
                                  uint32_t{E::HASH_DST | E::HASH_QP}})
    {
        const Ptr<EcmpRouting> r = MakeEcmp(fields);
        EXPECT_EQ(FieldMatters(r, SRC), (fields & E::HASH_SRC) != 0) << fields;
        EXPECT_EQ(FieldMatters(r, DST), (fields & E::HASH_DST) != 0) << fields;
        EXPECT_EQ(FieldMatters(r, QP), (fields & E::HASH_QP) != 0) << fields;
    }
    // The destination queue pair belongs to the connection (source, destination, source
    // queue pair): hashed alone, each of the three can move a flow.
    const Ptr<EcmpRouting> dstQp = MakeEcmp(E::HASH_DST_QP);
    EXPECT_TRUE(FieldMatters(dstQp, SRC));
    EXPECT_TRUE(FieldMatters(dstQp, DST));
    EXPECT_TRUE(FieldMatters(dstQp, QP));
    // Enhanced reads the 5-tuple and the destination queue pair: another choice than the
    // 5-tuple's for some flows, the same port for every packet of a flow.
    const Ptr<EcmpRouting> tuple = MakeEcmp(E::HASH_5_TUPLE);
    const Ptr<EcmpRouting> enhanced = MakeEcmp(E::HASH_ENHANCED);
    uint32_t differ = 0;
    for (uint16_t qp = 0; qp < 64; ++qp)
    {
        differ += PortOf(tuple, 1, 2, qp) != PortOf(enhanced, 1, 2, qp) ? 1 : 0;
        EXPECT_EQ(PortOf(enhanced, 1, 2, qp), PortOf(enhanced, 1, 2, qp));
    }
    EXPECT_GT(differ, 0U);
    Simulator::Destroy();
}

/// The destination queue pair of an ACK is the data sender's, not the receiver's: the two
/// directions of a connection carry different BTH DestQPs.
TEST(EcmpHash, DestinationQpnPerDirection)
{
    FabricFields data;
    data.m_src = 3;
    data.m_dst = 9;
    data.m_qp = 2;
    FabricFields ack = data;
    ack.m_kind = FabricFields::ACK;
    ack.m_src = 9;
    ack.m_dst = 3;
    EXPECT_NE(EcmpRouting::DestinationQpn(data), EcmpRouting::DestinationQpn(ack));
    EXPECT_LT(EcmpRouting::DestinationQpn(data), 1U << 24);
    FabricFields other = data;
    other.m_qp = 3;
    EXPECT_NE(EcmpRouting::DestinationQpn(data), EcmpRouting::DestinationQpn(other));
}

/// N queue pairs deliver exactly the bytes. Split (NCCL_IB_SPLIT_DATA_ON_QPS=1), a message of
/// 200 B over 4 queue pairs is 128 + 72 + 0 + 0 B (DIVUP(DIVUP(200, 4), 128) x 128 per queue
/// pair): 4 packets, two of them header-only; 10000 B is 2560 x 3 + 2320 B, 4 packets where
/// one queue pair needs 3. Round robin (the default) keeps each message whole.
TEST(QpsPerConnection, SplitAsNcclDoes)
{
    for (const char* bytes : {"200B", "10000B", "1MiB"})
    {
        const RunResults one = RunYaml(OneSend("", bytes));
        const RunResults rr = RunYaml(OneSend("qps_per_connection: 4\n", bytes));
        const RunResults split
            = RunYaml(OneSend("qps_per_connection: 4\nsplit_data_on_qps: true\n", bytes));
        for (const RunResults* r : {&one, &rr, &split})
        {
            ASSERT_TRUE(r->complete) << bytes;
            EXPECT_TRUE(r->violations.empty()) << bytes << ": " << r->violations.front();
            EXPECT_EQ(r->collectives.at(0).bytesSentPerRank,
                      one.collectives.at(0).bytesSentPerRank);
        }
        EXPECT_EQ(GpuPackets(rr), GpuPackets(one)) << bytes;
        const std::string b = bytes;
        if (b == "200B")
        {
            EXPECT_EQ(GpuPackets(one), 1U);
            EXPECT_EQ(GpuPackets(split), 4U);
        }
        else if (b == "10000B")
        {
            EXPECT_EQ(GpuPackets(one), 3U);
            EXPECT_EQ(GpuPackets(split), 4U);
        }
        else
        {
            EXPECT_EQ(GpuPackets(split), GpuPackets(one)); // 256 packets either way
        }
    }
}

/// One connection takes one spine with one queue pair; split over 8 queue pairs it spreads
/// over several (with the 5-tuple or the enhanced hash), but not when the switches hash the
/// destination only (InfiniBand's forwarding table), where every queue pair shares the path.
TEST(QpsPerConnection, MoreQueuePairsSpreadOverSpines)
{
    const std::string split = "qps_per_connection: 8\nsplit_data_on_qps: true\n";
    const RunResults one = RunYaml(OneSend("", "8MiB"));
    const RunResults many = RunYaml(OneSend(split, "8MiB"));
    const RunResults enhanced = RunYaml(OneSend(split + "ecmp_hash: enhanced\n", "8MiB"));
    const RunResults dst = RunYaml(OneSend(split + "ecmp_hash: dst\n", "8MiB"));
    for (const RunResults* r : {&one, &many, &enhanced, &dst})
    {
        ASSERT_TRUE(r->complete);
        EXPECT_TRUE(r->violations.empty()) << r->violations.front();
    }
    EXPECT_EQ(SpinesUsed(one), 1U);
    EXPECT_GE(SpinesUsed(many), 3U);
    EXPECT_GE(SpinesUsed(enhanced), 3U);
    EXPECT_EQ(SpinesUsed(dst), 1U);
    // Spread over the spines, the one connection is no faster (its NIC is the bottleneck),
    // but no slower either beyond the headers of the extra first packets.
    EXPECT_LT(many.collectives.at(0).durationS, 1.01 * one.collectives.at(0).durationS);
}

/// Same scenario, same seed: the same result, port by port.
TEST(QpsPerConnection, DeterministicUnderTheSeed)
{
    const std::string yaml
        = "name: perm\nseed: 5\nqps_per_connection: 4\necmp_hash: enhanced\n"
          "topology: "
          + aifabrictest::SourcePath("topologies/leaf-spine-4x4-ndr.yaml")
          + "\ntraffic: " + aifabrictest::SourcePath("traffic/permutation-2mb.yaml") + "\n";
    const std::filesystem::path dir = aifabrictest::FreshScratch("ecmp-qps-seed");
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << yaml;
    ScenarioSpec spec = ReadScenarioFile(p.string());
    const RunResults a = RunScenario(spec, RunOptions{});
    const RunResults b = RunScenario(spec, RunOptions{});
    ASSERT_TRUE(a.complete);
    EXPECT_EQ(a.collectives.at(0).durationS, b.collectives.at(0).durationS);
    ASSERT_EQ(a.ports.size(), b.ports.size());
    for (std::size_t i = 0; i < a.ports.size(); ++i)
    {
        EXPECT_EQ(a.ports[i].txBytes, b.ports[i].txBytes) << a.ports[i].node;
    }
}

/// The nccl-tests command passes NCCL's variables on as the scenario's keys, and refuses
/// a count out of range.
TEST(QpsPerConnection, NcclTestsFlags)
{
    const std::filesystem::path out = aifabrictest::FreshScratch("ecmp-qps-nccl-tests");
    const std::string topology = aifabrictest::SourcePath("topologies/leaf-spine-4x4-ndr.yaml");
    const aifabrictest::ToolOutcome ok = aifabrictest::RunTool(
        "nccl-tests all_reduce_perf --topology '" + topology
            + "' -b 1M -e 1M --qps-per-connection 4 --split-data-on-qps 1 --ecmp-hash enhanced "
              "--out '"
            + (out / "run").string() + "'",
        out);
    EXPECT_EQ(ok.status, 0) << ok.err;
    std::ifstream in(out / "run" / "scenario.yaml");
    const std::string scenario((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    EXPECT_NE(scenario.find("qps_per_connection: 4"), std::string::npos);
    EXPECT_NE(scenario.find("split_data_on_qps: true"), std::string::npos);
    EXPECT_NE(scenario.find("ecmp_hash: \"enhanced\""), std::string::npos);
    const aifabrictest::ToolOutcome bad = aifabrictest::RunTool(
        "nccl-tests all_reduce_perf --topology '" + topology + "' --qps-per-connection 129",
        out);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("1 to 128"), std::string::npos) << bad.err;
}
