/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Straggler attribution (StragglerLedger, GatherStragglers) and packet capture
 * (PacketCapture, decoded by tshark).
 */
#include "config/scenario-spec.h"
#include "config/yaml-scenario-reader.h"
#include "output/straggler-report.h"
#include "run/pcap-capture.h"
#include "run/scenario-runner.h"

#include "ns3/fabric-header.h"
#include "ns3/link-profile.h"
#include "ns3/spec-error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

/// One transfer of a send-recv: GPU src -> GPU dst.
struct Transfer
{
    uint32_t src;
    uint32_t dst;
    uint64_t bytes;
};

/// A send-recv collective of \p transfers (GPU ids) on the topology of \p s.
void
AddSendRecv(ScenarioSpec& s, const std::vector<Transfer>& transfers)
{
    CollectiveSpec c;
    c.name = "sr";
    c.op = ns3::CollectiveOp::SEND_RECV;
    c.algorithm = "direct";
    c.protocol = Protocol::NONE; // the network alone: packets as sent, no protocol latency
    c.start = Seconds(0);
    for (const Transfer& t : transfers)
    {
        for (const uint32_t g : {t.src, t.dst})
        {
            if (std::find(c.ranks.begin(), c.ranks.end(), g) == c.ranks.end())
            {
                c.ranks.push_back(g);
            }
        }
    }
    for (const Transfer& t : transfers)
    {
        const auto pos = [&c](uint32_t g) {
            return static_cast<uint32_t>(std::find(c.ranks.begin(), c.ranks.end(), g)
                                         - c.ranks.begin());
        };
        c.transferSrc.push_back(pos(t.src));
        c.transferDst.push_back(pos(t.dst));
        c.transferBytes.push_back(t.bytes);
        c.bytes += t.bytes;
    }
    s.traffic.collectives.push_back(c);
}

/// A scenario on one switch of \p gpus GPUs with links of \p profile.
ScenarioSpec
OneSwitch(const LinkProfile& profile, uint32_t gpus)
{
    ScenarioSpec s;
    s.where.file = "<test>";
    s.name = "straggler-test";
    s.seed = 1;
    s.stopTime = Seconds(1);
    s.topology.where.file = "<test>";
    s.topology.name = "one-switch";
    s.topology.SetKind("single-switch");
    s.topology.gpus = gpus;
    s.topology.link = profile;
    s.traffic.name = "t";
    s.attribution = ns3::AttributionSetting::ON;
    s.attributionFlows = 4;
    return s;
}

/// \return the incast: GPUs 1..n each send \p bytes to GPU 0
std::vector<Transfer>
Incast(uint32_t n, uint64_t bytes)
{
    std::vector<Transfer> t;
    for (uint32_t i = 1; i <= n; ++i)
    {
        t.push_back(Transfer{i, 0, bytes});
    }
    return t;
}

/// Every reported flow's contributors add up to its extra delay, which is
/// max(0, FCT - shared - ideal): the ideal of a small message interleaved with
/// others may exceed what it took by a packet's serialization.
void
ExpectConsistent(const RunResults& r)
{
    for (const StragglerFlow& f : r.stragglers.flows)
    {
        double sum = 0;
        for (const StragglerHop& h : f.hops)
        {
            sum += h.attributedS;
            EXPECT_GE(h.attributedS, 0) << h.port;
            EXPECT_NEAR(h.attributedS,
                        h.queueS + h.backPressureS + h.otherS
                            + (h.position == f.pathHops ? h.pauseS + h.creditStallS : 0),
                        1e-12)
                << h.port;
        }
        EXPECT_NEAR(sum, f.extraS, 1e-11) << "flow " << f.flowId;
        EXPECT_NEAR(std::max(0.0, f.fctS - f.sharedS - f.idealS), f.extraS, 1e-11);
        EXPECT_GT(f.fctS - f.sharedS - f.idealS, -1e-8) << "ideal above FCT by more than 10 ns";
        EXPECT_GE(f.sharedS, 0);
    }
}

/// \return the top contributor of the slowest flow
const StragglerHop&
Top(const RunResults& r)
{
    static const StragglerHop none;
    if (r.stragglers.flows.empty() || r.stragglers.flows.front().hops.empty())
    {
        ADD_FAILURE() << "no straggler";
        return none;
    }
    return r.stragglers.flows.front().hops.front();
}

} // namespace

/// IB (credit-based) incast: the switch port to the receiver is the main cause,
/// with most of the extra delay; the senders' credit stall is its back-pressure.
TEST(Stragglers, CreditIncastNamesTheReceiverPort)
{
    ScenarioSpec s = OneSwitch(*FindLinkProfile("ib-ndr"), 5);
    AddSendRecv(s, Incast(4, 1 << 20));
    const RunResults r = RunScenario(s, RunOptions());
    ASSERT_TRUE(r.complete);
    ASSERT_TRUE(r.stragglers.enabled);
    ASSERT_EQ(r.stragglers.flows.size(), 4u);
    const StragglerHop& top = Top(r);
    EXPECT_EQ(top.port, "switch0->gpu0");
    EXPECT_GT(top.share, 0.5);
    EXPECT_EQ(top.tier, "gpu-leaf");
    // 4 x 1 MiB through one 400G port: the slowest waits about 3 MiB of others' data.
    const StragglerFlow& f = r.stragglers.flows.front();
    EXPECT_GT(f.extraS, 0.5 * 3 * (1 << 20) * 8 / 400e9);
    EXPECT_LT(f.extraS, f.fctS);
    ExpectConsistent(r);
    const std::string sentence = DescribeStraggler(f, r.stragglers);
    EXPECT_NE(sentence.find("the tail of sr"), std::string::npos) << sentence;
    EXPECT_NE(sentence.find("switch0->gpu0 (port 0)"), std::string::npos) << sentence;
}

/// The ideal FCT the ledger infers for a contended flow is the FCT of the same
/// flow alone on the idle fabric (same path), within 1 %.
TEST(Stragglers, IdealIsTheFlowAlone)
{
    ScenarioSpec alone = OneSwitch(*FindLinkProfile("ib-ndr"), 5);
    AddSendRecv(alone, {Transfer{1, 0, 1 << 20}});
    const RunResults a = RunScenario(alone, RunOptions());
    ASSERT_EQ(a.flows.size(), 1u);
    ASSERT_EQ(a.stragglers.flows.size(), 1u);
    // Nothing slowed it but the picosecond carry of serialization times at the switch.
    EXPECT_NEAR(a.stragglers.flows[0].extraS, 0, 1e-9);
    EXPECT_NEAR(a.stragglers.flows[0].idealS, a.flows[0].FctS(), 1e-9);

    ScenarioSpec busy = OneSwitch(*FindLinkProfile("ib-ndr"), 5);
    AddSendRecv(busy, Incast(4, 1 << 20));
    const RunResults b = RunScenario(busy, RunOptions());
    for (const StragglerFlow& f : b.stragglers.flows)
    {
        EXPECT_NEAR(f.idealS, a.flows[0].FctS(), 0.01 * a.flows[0].FctS()) << f.flowId;
    }
    const std::string alone0 = DescribeStraggler(a.stragglers.flows[0], a.stragglers);
    EXPECT_NE(alone0.find("no extra delay"), std::string::npos) << alone0;
}

/// RoCE incast with PFC (no DCQCN, small buffers so that PFC pauses the senders):
/// the receiver's switch port is still named, and the pauses are its back-pressure.
TEST(Stragglers, PfcIncastNamesTheReceiverPort)
{
    LinkProfile roce = *FindLinkProfile("roce-400g");
    roce.bufferPerPort = 256 * 1024;
    roce.ecnKmin = 0;
    roce.ecnKmax = 0;
    ScenarioSpec s = OneSwitch(roce, 5);
    s.congestionControl = ns3::CongestionControlSetting::NONE;
    AddSendRecv(s, Incast(4, 1 << 20));
    const RunResults r = RunScenario(s, RunOptions());
    ASSERT_TRUE(r.complete);
    ASSERT_TRUE(r.violations.empty());
    EXPECT_GT(r.counters.pauseFrames, 0u); // PFC did act
    const StragglerHop& top = Top(r);
    EXPECT_EQ(top.port, "switch0->gpu0");
    EXPECT_GT(top.share, 0.5);
    EXPECT_GT(top.backPressureS, 0); // the senders' pauses were charged to it
    bool pausedSource = false;
    for (const StragglerHop& h : r.stragglers.flows.front().hops)
    {
        pausedSource = pausedSource || (h.position == 0 && h.pauseS > 0);
    }
    EXPECT_TRUE(pausedSource);
    ExpectConsistent(r);
}

/// Leaf-spine with one spine: two flows from different leaves to one leaf share
/// spine0->leaf1, the congested spine port; it is named as the main cause.
TEST(Stragglers, CongestedSpinePortIsNamed)
{
    ScenarioSpec s = OneSwitch(*FindLinkProfile("ib-ndr"), 6);
    s.topology.SetKind("leaf-spine");
    s.topology.gpus = 0;
    s.topology.As<LeafSpineSpec>().leaves = 3;
    s.topology.As<LeafSpineSpec>().spines = 1;
    s.topology.As<LeafSpineSpec>().gpusPerLeaf = 2;
    // GPUs 0,1 on leaf0, 2,3 on leaf1, 4,5 on leaf2.
    AddSendRecv(s, {Transfer{0, 2, 2 << 20}, Transfer{4, 3, 2 << 20}});
    const RunResults r = RunScenario(s, RunOptions());
    ASSERT_TRUE(r.complete);
    ASSERT_EQ(r.stragglers.flows.size(), 2u);
    for (const StragglerFlow& f : r.stragglers.flows)
    {
        ASSERT_FALSE(f.hops.empty());
        EXPECT_EQ(f.hops.front().port, "spine0->leaf1") << f.flowId;
        EXPECT_EQ(f.hops.front().tier, "leaf-spine");
        EXPECT_GT(f.hops.front().share, 0.5);
        EXPECT_EQ(f.pathHops, 3u); // leaf, spine, leaf egress ports
    }
    ExpectConsistent(r);
}

/// Attribution off gives the same simulation: flows, ports and event count.
TEST(Stragglers, OffIsTheSameSimulation)
{
    ScenarioSpec on = OneSwitch(*FindLinkProfile("roce-400g"), 5);
    AddSendRecv(on, Incast(4, 512 * 1024));
    ScenarioSpec off = on;
    off.attribution = ns3::AttributionSetting::OFF;
    const RunResults a = RunScenario(on, RunOptions());
    const RunResults b = RunScenario(off, RunOptions());
    EXPECT_TRUE(a.stragglers.enabled);
    EXPECT_FALSE(b.stragglers.enabled);
    EXPECT_TRUE(b.stragglers.flows.empty());
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.packetHops, b.packetHops);
    ASSERT_EQ(a.flows.size(), b.flows.size());
    for (std::size_t i = 0; i < a.flows.size(); ++i)
    {
        EXPECT_EQ(a.flows[i].postedS, b.flows[i].postedS);
        EXPECT_EQ(a.flows[i].endS, b.flows[i].endS);
    }
    ASSERT_EQ(a.ports.size(), b.ports.size());
    for (std::size_t i = 0; i < a.ports.size(); ++i)
    {
        EXPECT_EQ(a.ports[i].txBytes, b.ports[i].txBytes);
        EXPECT_EQ(a.ports[i].busyS, b.ports[i].busyS);
        EXPECT_EQ(a.ports[i].pausedS, b.ports[i].pausedS);
    }
    // auto: on for a run this small.
    ScenarioSpec automatic = on;
    automatic.attribution = ns3::AttributionSetting::AUTO;
    EXPECT_TRUE(RunScenario(automatic, RunOptions()).stragglers.enabled);
}

/// stragglers.csv has one row per (flow, contributor); the report section names the port.
TEST(Stragglers, CsvAndReportSection)
{
    ScenarioSpec s = OneSwitch(*FindLinkProfile("ib-ndr"), 5);
    s.attributionFlows = 2;
    AddSendRecv(s, Incast(4, 256 * 1024));
    const RunResults r = RunScenario(s, RunOptions());
    ASSERT_EQ(r.stragglers.flows.size(), 2u);
    std::ostringstream csv;
    WriteStragglersCsv(r, csv);
    std::size_t rows = 0;
    for (const StragglerFlow& f : r.stragglers.flows)
    {
        rows += f.hops.size();
    }
    const std::string text = csv.str();
    EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), rows + 1);
    EXPECT_EQ(text.rfind("collective,group,training,rank,flow_id,", 0), 0u);
    EXPECT_NE(text.find(",switch0->gpu0,switch0,gpu0,"), std::string::npos) << text;
    EXPECT_NE(text.find("\nsr,sr,0,0,"), std::string::npos)
        << text; // collective, group, not training
    std::ostringstream md;
    WriteStragglerSection(md, r);
    EXPECT_NE(md.str().find("## Stragglers"), std::string::npos);
    EXPECT_NE(md.str().find("switch0->gpu0"), std::string::npos) << md.str();
}

/// A training job's traffic is attributed per kind of group (tp, pp, dp), without
/// flows.csv ids, and the contributors still add up to each flow's extra delay.
TEST(Stragglers, TrainingGroupsPerKind)
{
    ScenarioSpec s
        = ReadScenarioFile(std::string(AI_FABRIC_SOURCE_DIR) + "/examples/train-3d-16gpu.yaml");
    s.attribution = ns3::AttributionSetting::ON;
    s.attributionFlows = 2;
    const RunResults r = RunScenario(s, RunOptions());
    ASSERT_TRUE(r.hasTraining);
    std::vector<std::string> kinds;
    for (const StragglerFlow& f : r.stragglers.flows)
    {
        EXPECT_TRUE(f.training);
        EXPECT_FALSE(f.group.empty());
        EXPECT_LT(f.rank, 2u);
        if (f.rank == 0)
        {
            kinds.push_back(f.collective);
            const std::string sentence = DescribeStraggler(f, r.stragglers);
            EXPECT_NE(sentence.find("the training job's " + f.collective + " traffic (group "),
                      std::string::npos)
                << sentence;
        }
    }
    EXPECT_EQ(kinds, (std::vector<std::string>{"tp", "pp-forward", "pp-backward", "dp"}));
    ExpectConsistent(r);
    std::ostringstream csv;
    WriteStragglersCsv(r, csv);
    EXPECT_NE(csv.str().find("\ntp,gpt-small/tp/"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Packet capture
// ---------------------------------------------------------------------------

namespace
{

/// \return tshark's output of \p args, or "" with \p ok false if tshark cannot run
std::string
Tshark(const std::string& args, bool& ok)
{
    const std::string cmd = "tshark " + args + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    if (!p)
    {
        ok = false;
        return out;
    }
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    {
        out.append(buf, n);
    }
    const int status = pclose(p);
    ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return out;
}

bool
HaveTshark()
{
    return std::system("command -v tshark >/dev/null 2>&1") == 0;
}

/// Skip when tshark is missing, but fail under CI (scripts/setup installs it there), so that
/// the capture tests cannot pass by not running.
#define REQUIRE_TSHARK()                                                                \
    do                                                                                  \
    {                                                                                   \
        if (!HaveTshark())                                                              \
        {                                                                               \
            if (std::getenv("CI"))                                                      \
            {                                                                           \
                FAIL() << "tshark is missing but CI is set: scripts/setup installs it"; \
            }                                                                           \
            GTEST_SKIP() << "tshark is not installed (scripts/setup installs it)";      \
        }                                                                               \
    } while (false)

/// Run \p s and write its first capture to a temporary file; return its path.
fs::path
CaptureToFile(const ScenarioSpec& s, const std::string& name, RunResults& r)
{
    r = RunScenario(s, RunOptions());
    EXPECT_FALSE(r.captures.empty());
    const fs::path dir = fs::temp_directory_path() / ("ai-fabric-pcap-test-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::vector<std::string> files = WriteCaptureFiles(r, dir.string());
    EXPECT_EQ(files.size(), r.captures.size());
    return files.empty() ? dir : dir / files.front();
}

} // namespace

/// A RoCEv2 capture: tshark decodes the BTH opcodes (RDMA WRITE first/middle/last),
/// the destination QP and PSNs as written, the IPv4 checksum is right and UDP goes
/// to 4791; the snap length cuts the frames (caplen < len).
TEST(PacketCapture, TsharkDecodesRoceV2)
{
    REQUIRE_TSHARK();
    ScenarioSpec s = OneSwitch(*FindLinkProfile("roce-400g"), 2);
    s.attribution = ns3::AttributionSetting::OFF;
    AddSendRecv(s, {Transfer{1, 0, 10000}}); // 3 packets: 4096 + 4096 + 1808
    s.capturePorts = {"gpu1->switch0", "switch0->gpu0"};
    s.captureSnapBytes = 96;
    RunResults r;
    const fs::path file = CaptureToFile(s, "roce", r);
    ASSERT_EQ(r.captures.size(), 2u);
    EXPECT_EQ(r.captures[0].packets, 3u);
    EXPECT_EQ(r.captures[0].linkType, 1u);
    bool ok = false;
    const std::string out = Tshark("-r '" + file.string()
                                       + "' -o ip.check_checksum:TRUE -T fields -E separator=, "
                                         "-e infiniband.bth.opcode -e infiniband.bth.destqp "
                                         "-e infiniband.bth.psn -e udp.dstport "
                                         "-e ip.checksum.status -e ip.src -e ip.dst "
                                         "-e frame.len -e frame.cap_len",
                                   ok);
    ASSERT_TRUE(ok) << out;
    // Direct send-recv posts its transfer on queue pair 0: DestQP = (1 + 1) << 8 | 0.
    const std::string qp = "0x000200";
    EXPECT_EQ(PacketCapture::QpNumber(1, 0), 0x200u);
    // frame = Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 (+ RETH 16) + payload + ICRC 4
    // ip.checksum.status 1 = good (Wireshark's PROTO_CHECKSUM_E_GOOD).
    const std::string expect = "6," + qp + ",0,4791,1,10.0.0.2,10.0.0.1,4170,96\n" + "7," + qp
                               + ",1,4791,1,10.0.0.2,10.0.0.1,4154,96\n" + "8," + qp
                               + ",2,4791,1,10.0.0.2,10.0.0.1,1866,96\n";
    EXPECT_EQ(out, expect);
}

/// A full-size RoCEv2 frame decodes without errors (ICRC in place, lengths consistent).
TEST(PacketCapture, FullRoceFrameIsWellFormed)
{
    REQUIRE_TSHARK();
    ScenarioSpec s = OneSwitch(*FindLinkProfile("roce-400g"), 2);
    AddSendRecv(s, {Transfer{1, 0, 6000}});
    s.capturePorts = {"gpu1->switch0"};
    s.captureSnapBytes = 65535;
    RunResults r;
    const fs::path file = CaptureToFile(s, "roce-full", r);
    bool ok = false;
    const std::string out
        = Tshark("-r '" + file.string()
                     + "' -T fields -e _ws.malformed "
                       "-e _ws.expert -e infiniband.reth.dmalen -e infiniband.bth.opcode",
                 ok);
    ASSERT_TRUE(ok);
    EXPECT_EQ(out, "\t\t6000\t6\n\t\t\t8\n");
}

/// An InfiniBand capture (LRH framing, Wireshark exported-PDU records): tshark
/// decodes LRH (VL, SL, LIDs) and BTH.
TEST(PacketCapture, TsharkDecodesInfiniband)
{
    REQUIRE_TSHARK();
    ScenarioSpec s = OneSwitch(*FindLinkProfile("ib-ndr"), 3);
    AddSendRecv(s, {Transfer{2, 1, 4096}});
    s.capturePorts = {"switch0->gpu1"};
    s.captureSnapBytes = 65535;
    RunResults r;
    const fs::path file = CaptureToFile(s, "ib", r);
    ASSERT_EQ(r.captures.size(), 1u);
    EXPECT_EQ(r.captures[0].linkType, 252u);
    bool ok = false;
    const std::string out = Tshark("-r '" + file.string()
                                       + "' -T fields -E separator=, -e infiniband.lrh.vl "
                                         "-e infiniband.lrh.sl -e infiniband.lrh.dlid "
                                         "-e infiniband.lrh.slid -e infiniband.bth.opcode "
                                         "-e infiniband.bth.destqp -e infiniband.reth.dmalen "
                                         "-e _ws.malformed",
                                   ok);
    ASSERT_TRUE(ok) << out;
    // One packet, RDMA WRITE Only (0x0a) with RETH, from LID 3 (GPU 2) to LID 2 (GPU 1).
    EXPECT_EQ(out, "0x00,0,2,3,10,0x000300,4096,\n");
}

/// Bad capture ports are input errors naming the port's location.
TEST(PacketCapture, RejectsUnknownAndUnframedPorts)
{
    ScenarioSpec s = OneSwitch(*FindLinkProfile("ib-ndr"), 2);
    AddSendRecv(s, {Transfer{1, 0, 4096}});
    SpecLocation where;
    where.file = "capture.yaml";
    where.line = 7;
    where.column = 5;
    s.capturePortsWhere = {where};
    for (const std::string bad : {"gpu9->switch0", "gpu0->gpu1", "gpu0-switch0"})
    {
        s.capturePorts = {bad};
        try
        {
            RunScenario(s, RunOptions());
            ADD_FAILURE() << bad << " accepted";
        }
        catch (const SpecError& e)
        {
            EXPECT_EQ(e.Where().line, 7) << e.what();
            EXPECT_NE(e.Message().find(bad), std::string::npos) << e.what();
        }
    }
    ScenarioSpec nv = OneSwitch(*FindLinkProfile("nvlink4"), 2);
    AddSendRecv(nv, {Transfer{1, 0, 4096}});
    nv.capturePorts = {"gpu0->switch0"};
    nv.capturePortsWhere = {where};
    try
    {
        RunScenario(nv, RunOptions());
        ADD_FAILURE() << "nvlink port accepted";
    }
    catch (const SpecError& e)
    {
        EXPECT_NE(e.Message().find("no standard capture framing"), std::string::npos) << e.what();
    }
}

/// A frame's IPv4 header checksum verifies and ECN CE is carried in the TOS byte.
TEST(PacketCapture, EthernetFrameFields)
{
    FabricHeader h;
    h.m_src = 4;
    h.m_dst = 9;
    h.m_qp = 3;
    h.m_priority = 3;
    h.m_kind = FabricHeader::DATA;
    h.m_flags = FabricHeader::FLAG_LAST | FabricHeader::FLAG_ECN_CE;
    h.m_psn = 0x1234567; // 24 bits on the wire
    h.m_payload = 1001;
    const std::string f = PacketCapture::BuildFrame(false, 7, 8, 3, h);
    ASSERT_EQ(f.size(), 14u + 20 + 8 + 12 + 1001 + 3 + 4); // pad to 4 bytes
    const auto byte = [&f](std::size_t i) {
        return static_cast<uint8_t>(f[i]);
    };
    EXPECT_EQ(byte(5), 8);             // destination MAC: node 8
    EXPECT_EQ(byte(11), 7);            // source MAC: node 7
    EXPECT_EQ(byte(15), (3 << 5) | 3); // DSCP CS3, ECN CE
    uint32_t sum = 0;
    for (std::size_t i = 14; i < 34; i += 2)
    {
        sum += (byte(i) << 8) | byte(i + 1);
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    EXPECT_EQ(sum, 0xffffu); // a correct header sums to all ones
    EXPECT_EQ((byte(36) << 8) | byte(37), 4791);
    EXPECT_EQ(byte(42), 0x08);   // RDMA WRITE Last
    EXPECT_EQ(byte(43) >> 4, 3); // pad count
    EXPECT_EQ((byte(51) << 16) | (byte(52) << 8) | byte(53), 0x234567);
}

namespace
{

/// \param frames Ethernet frames \return a pcap file (microsecond variant) holding them
std::string
EthernetPcap(const std::vector<std::string>& frames)
{
    std::string f;
    const auto le32 = [&f](uint32_t v) {
        for (int i = 0; i < 4; ++i)
        {
            f.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
        }
    };
    le32(0xa1b2c3d4);
    f += std::string("\x02\x00\x04\x00", 4);
    le32(0);
    le32(0);
    le32(65535);
    le32(1);
    for (const std::string& frame : frames)
    {
        le32(0);
        le32(0);
        le32(frame.size());
        le32(frame.size());
        f += frame;
    }
    return f;
}

} // namespace

/// ACK, NACK and CNP frames decode as RC Acknowledge (AETH ACK / NAK PSN sequence
/// error) and RoCEv2 CNP, addressed to the data sender's queue pair.
TEST(PacketCapture, TsharkDecodesControlPackets)
{
    REQUIRE_TSHARK();
    FabricHeader h;
    h.m_src = 0; // the data's receiver answers GPU 5 on its queue pair 2
    h.m_dst = 5;
    h.m_qp = 2;
    h.m_priority = 6;
    h.m_psn = 100;
    std::vector<std::string> frames;
    for (const uint8_t kind : {FabricHeader::ACK, FabricHeader::NACK, FabricHeader::CNP})
    {
        h.m_kind = kind;
        frames.push_back(PacketCapture::BuildFrame(false, 3, 4, 0, h));
    }
    const fs::path file = fs::temp_directory_path() / "ai-fabric-pcap-test-control.pcap";
    {
        std::ofstream out(file, std::ios::binary);
        out << EthernetPcap(frames);
    }
    bool ok = false;
    const std::string out = Tshark("-r '" + file.string()
                                       + "' -T fields -E separator=, -e infiniband.bth.opcode "
                                         "-e infiniband.bth.destqp -e infiniband.bth.psn "
                                         "-e infiniband.aeth.syndrome -e ip.dst -e ip.dsfield.dscp",
                                   ok);
    ASSERT_TRUE(ok) << out;
    // DestQP at GPU 5 for its connection to GPU 0, index 2: (0 + 1) << 8 | 2; AETH
    // syndrome 31 = 0x1f (ACK), 96 = 0x60 (NAK, PSN sequence error).
    EXPECT_EQ(out,
              "17,0x000102,99,31,10.0.0.6,48\n"
              "17,0x000102,100,96,10.0.0.6,48\n"
              "129,0x000102,100,,10.0.0.6,48\n");
}

namespace
{

/// Outcome of the tool.
struct ToolOutcome
{
    int status{-1};
    std::string err;
};

/// Run the ai-fabric binary with \p args (shell-quoted) in \p dir.
ToolOutcome
RunTool(const std::string& args, const fs::path& dir)
{
    const fs::path err = dir / "stderr.txt";
    const std::string cmd = std::string("'") + AI_FABRIC_BINARY + "' " + args + " >/dev/null 2>'"
                            + err.string() + "' </dev/null";
    const int raw = std::system(cmd.c_str());
    ToolOutcome o;
    o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    std::ifstream in(err);
    std::ostringstream s;
    s << in.rdbuf();
    o.err = s.str();
    return o;
}

} // namespace

/// The CLI: --pcap and capture: write pcap files; a bad port is exit 2 at its
/// location with nothing written; --attribution off leaves stragglers.csv out.
TEST(PacketCapture, CliOptionsAndErrors)
{
    const fs::path dir = fs::temp_directory_path() / "ai-fabric-pcap-test-cli";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string scenario = (dir / "s.yaml").string();
    // A 3-GPU RoCE all-reduce with the given capture: section.
    auto writeScenario = [&scenario](const std::string& capture) {
        std::ofstream(scenario) << "name: cap\n"
                                   "topology:\n"
                                   "  kind: single-switch\n"
                                   "  gpus: 3\n"
                                   "  link: {profile: roce-400g}\n"
                                   "traffic:\n"
                                   "  collectives:\n"
                                   "    - {name: a, op: all-reduce, algorithm: ring, size: 96KiB}\n"
                                   "capture:\n"
                                << capture;
    };
    writeScenario("  ports: [gpu0->switch0, switch0->gpu9]\n");
    const fs::path out = dir / "out";
    ToolOutcome o = RunTool("run '" + scenario + "' --out '" + out.string() + "' --quiet", dir);
    EXPECT_EQ(o.status, 2) << o.err;
    EXPECT_NE(o.err.find("s.yaml:10:26: error: capture port 'switch0->gpu9': the fabric has no "
                         "node 'gpu9'"),
              std::string::npos)
        << o.err;
    EXPECT_FALSE(fs::exists(out));

    writeScenario("  ports: [gpu0->switch0]\n"
                  "  max_packets: 5\n");
    o = RunTool("run '" + scenario + "' --out '" + out.string() + "' --quiet --pcap 'gpu1>sw'",
                dir);
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.err.find("--pcap takes ports written NODE->PEER"), std::string::npos) << o.err;
    o = RunTool("run '" + scenario + "' --out '" + out.string()
                    + "' --quiet --pcap 'switch0->gpu2,gpu1->spine0'",
                dir);
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.err.find("--pcap: error: capture port 'gpu1->spine0'"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(out));
    o = RunTool("run '" + scenario + "' --out '" + out.string() + "' --quiet --attribution maybe",
                dir);
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.err.find("--attribution takes auto, on or off"), std::string::npos) << o.err;

    o = RunTool("run '" + scenario + "' --out '" + out.string()
                    + "' --quiet --pcap 'switch0->gpu2,gpu0->switch0' --attribution off",
                dir);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(fs::exists(out / "capture-gpu0-switch0.pcap"));
    EXPECT_TRUE(fs::exists(out / "capture-switch0-gpu2.pcap"));
    EXPECT_FALSE(fs::exists(out / "stragglers.csv"));
    // 5 packets at most: 24-byte file header + 5 x (16-byte record header + 128 bytes).
    EXPECT_EQ(fs::file_size(out / "capture-gpu0-switch0.pcap"), 24u + 5 * (16 + 128));
    o = RunTool("run '" + scenario + "' --out '" + out.string() + "' --quiet", dir);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(fs::exists(out / "stragglers.csv")); // auto: on for a small run
}
