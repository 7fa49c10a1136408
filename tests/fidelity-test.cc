/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fidelity knob `fidelity: {cell_packets: N}`: a simulated packet carries up to N MTU
 * packets' payload with exactly their wire bytes, so bytes and serialization are those of
 * full fidelity; only the granularity of queues and arrivals is coarser (a store-and-forward
 * hop holds a whole cell).
 */
#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"
#include "tool-runner.h"

#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/link-profile.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

using namespace ns3;

namespace
{

/// A device with the link overheads of a RoCEv2 port (the numbers only need to differ).
Ptr<FabricNetDevice>
MakePort(uint32_t cellPackets, uint32_t segmentBytes)
{
    Ptr<FabricNetDevice> d = CreateObject<FabricNetDevice>();
    d->SetAttribute("HeaderBytes", UintegerValue(62));
    d->SetAttribute("FramingBytes", UintegerValue(20));
    d->SetAttribute("MessageHeaderBytes", UintegerValue(16));
    d->SetAttribute("SegmentBytes", UintegerValue(segmentBytes));
    d->SetAttribute("PayloadMtu", UintegerValue(1000));
    d->SetAttribute("CellPackets", UintegerValue(cellPackets));
    return d;
}

FabricFields
Data(uint32_t payload, bool first)
{
    FabricFields h;
    h.m_payload = payload;
    h.m_flags = first ? FabricFields::FLAG_FIRST : 0;
    return h;
}

/// Sum of the port's tx wire bytes, over all ports.
uint64_t
TotalWireBytes(const RunResults& r)
{
    uint64_t total = 0;
    for (const auto& p : r.ports)
    {
        total += p.txBytes;
    }
    return total;
}

/// A 16-GPU InfiniBand leaf-spine (credit flow control) running a ring all-reduce.
std::string
WriteRingScenario(const std::filesystem::path& dir, uint32_t cellPackets)
{
    const std::filesystem::path path = dir / ("ring-" + std::to_string(cellPackets) + ".yaml");
    std::ofstream(path) << "name: fidelity-ring\n"
                           "fidelity: {cell_packets: "
                        << cellPackets
                        << "}\n"
                           "topology:\n"
                           "  kind: leaf-spine\n"
                           "  leaves: 4\n"
                           "  spines: 2\n"
                           "  gpus_per_leaf: 4\n"
                           "  link: {profile: ib-ndr}\n"
                           "traffic:\n"
                           "  collectives:\n"
                           "    - {name: ar, op: all-reduce, algorithm: ring, size: 3MiB}\n";
    return path.string();
}

} // namespace

TEST(Fidelity, CellWireBytesAreThoseOfItsPackets)
{
    for (const uint32_t segment : {0u, 256u})
    {
        SCOPED_TRACE("SegmentBytes " + std::to_string(segment));
        Ptr<FabricNetDevice> one = MakePort(1, segment);
        Ptr<FabricNetDevice> cell = MakePort(4, segment);
        EXPECT_EQ(one->GetPayloadMtu(), 1000U);
        EXPECT_EQ(cell->GetPayloadMtu(), 4000U);
        EXPECT_EQ(cell->GetCellPackets(), 4U);
        // Up to one MTU: the same packet.
        for (const uint32_t payload : {0u, 1u, 999u, 1000u})
        {
            EXPECT_EQ(cell->WireBytes(Data(payload, true)), one->WireBytes(Data(payload, true)));
            EXPECT_EQ(cell->WireBytes(Data(payload, false)), one->WireBytes(Data(payload, false)));
        }
        // 3.5 MTU: the first packet (with the message header), two full ones and a half.
        EXPECT_EQ(cell->WireBytes(Data(3500, true)),
                  one->WireBytes(Data(1000, true)) + 2 * one->WireBytes(Data(1000, false))
                      + one->WireBytes(Data(500, false)));
        EXPECT_EQ(cell->WireBytes(Data(4000, false)), 4 * one->WireBytes(Data(1000, false)));
        // Control packets do not change.
        FabricFields ack;
        ack.m_kind = FabricFields::ACK;
        EXPECT_EQ(cell->WireBytes(ack), one->WireBytes(ack));
    }
    Simulator::Destroy();
}

TEST(Fidelity, CellsCarryTheSameBytesInNearlyTheSameTime)
{
    const auto dir = aifabrictest::FreshScratch("fidelity");
    const RunResults full = RunScenario(ReadScenarioFile(WriteRingScenario(dir, 1)), RunOptions{});
    const RunResults cells = RunScenario(ReadScenarioFile(WriteRingScenario(dir, 4)), RunOptions{});
    ASSERT_TRUE(full.complete);
    ASSERT_TRUE(cells.complete);
    EXPECT_TRUE(cells.violations.empty()) << cells.violations.front();
    EXPECT_EQ(full.cellPackets, 1U);
    EXPECT_EQ(cells.cellPackets, 4U);
    ASSERT_EQ(full.collectives.size(), 1U);
    ASSERT_EQ(cells.collectives.size(), 1U);
    // The same payload per rank and, on a lossless fabric without acknowledgements, exactly
    // the same bytes on every wire: a cell's wire bytes are its packets'.
    EXPECT_EQ(cells.collectives[0].bytesSentPerRank, full.collectives[0].bytesSentPerRank);
    EXPECT_EQ(TotalWireBytes(cells), TotalWireBytes(full));
    EXPECT_EQ(cells.counters.drops, 0U);
    // About a quarter of the packets. Time: ib-ndr switches store and forward, so at each
    // switch a message's last cell waits for its whole cell where its last packet waited for
    // one packet: a message ends at most (N - 1) packet times later per switch on its path
    // (at most 3 here, leaf-spine-leaf). The ring's 30 steps are sequential.
    EXPECT_LT(cells.packetHops * 3, full.packetHops);
    const double full_s = full.collectives[0].endS - full.collectives[0].startS;
    const double cells_s = cells.collectives[0].endS - cells.collectives[0].startS;
    const LinkProfile* ndr = nullptr;
    for (const auto& p : LinkProfilePresets())
    {
        ndr = p.name == "ib-ndr" ? &p : ndr;
    }
    ASSERT_NE(ndr, nullptr);
    const double packetS = ndr->WireBytes(ndr->mtu, false) * 8.0 / ndr->rate.GetBitRate();
    const double bound = 30 * 3 * (4 - 1) * packetS;
    EXPECT_GE(cells_s, full_s - 1e-9);
    EXPECT_LE(cells_s - full_s, bound) << full_s << " s vs " << cells_s << " s";
    EXPECT_GT(cells_s - full_s,
              0.0); // the store-and-forward error exists: the bound is not vacuous
    std::filesystem::remove_all(dir);
}

TEST(Fidelity, CellPacketsFromTheCommandLine)
{
    const auto dir = aifabrictest::FreshScratch("fidelity-cli");
    const std::string example = aifabrictest::SourcePath("examples/ring-allreduce-4gpu.yaml");
    for (const std::string bad : {"0", "65", "x", "-1"})
    {
        const auto o = aifabrictest::RunTool("run '" + example + "' --cell-packets " + bad, dir);
        EXPECT_EQ(o.status, 2) << bad;
        EXPECT_NE(o.err.find("--cell-packets takes an integer from 1 to 64"), std::string::npos)
            << o.err;
    }
    const auto o = aifabrictest::RunTool("run '" + example + "' --cell-packets 4 --out '"
                                             + (dir / "out").string() + "'",
                                         dir);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("fidelity: cell_packets 4:"), std::string::npos) << o.out;
    const std::string summary = aifabrictest::SlurpFile(dir / "out" / "summary.json");
    EXPECT_NE(summary.find("\"cell_packets\": 4"), std::string::npos);
    // Full fidelity says nothing about the knob on the console, and records 1.
    const auto full
        = aifabrictest::RunTool("run '" + example + "' --out '" + (dir / "full").string() + "'",
                                dir);
    ASSERT_EQ(full.status, 0) << full.err;
    EXPECT_EQ(full.out.find("fidelity:"), std::string::npos) << full.out;
    EXPECT_NE(aifabrictest::SlurpFile(dir / "full" / "summary.json").find("\"cell_packets\": 1"),
              std::string::npos);
    std::filesystem::remove_all(dir);
}
