/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the packet path: NIC -> link -> switch -> link -> NIC, against the
 * store-and-forward formula computed independently here.
 */
#include "ns3/analytic-model.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/link-profile.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Trace sink of MessageDelivered: when, and how many.
void
RecordArrival(Time* at, uint64_t* count, uint32_t, uint32_t, uint32_t, uint64_t)
{
    *at = Simulator::Now();
    ++*count;
}

/// \param profile every link's profile \return two GPUs on one switch
FabricGraph
TwoGpuGraph(const LinkProfile& profile)
{
    FabricGraph g;
    const uint32_t p = g.AddProfile(profile);
    const uint32_t sw = g.AddSwitch("sw", 1);
    g.AddLink(g.AddGpu("a"), sw, p);
    g.AddLink(g.AddGpu("b"), sw, p);
    return g;
}

/**
 * Store-and-forward over H identical links, written as the per-packet
 * recurrence: packet i leaves hop h when it has fully arrived there (plus the
 * switch latency) and the previous packet has left.
 * \param p the links' profile
 * \param bytes message bytes
 * \param hops links crossed
 * \return the arrival of the last bit at the receiver, s
 */
double
StoreAndForwardS(const LinkProfile& p, uint64_t bytes, uint32_t hops)
{
    std::vector<double> wire;
    uint64_t left = bytes;
    do
    {
        const uint64_t payload = std::min<uint64_t>(p.mtu, left);
        wire.push_back(static_cast<double>(p.WireBytes(payload, wire.empty())) * 8
                       / p.rate.GetBitRate());
        left -= payload;
    } while (left > 0);
    const double prop = p.propagationDelay.GetSeconds();
    const double sw = p.switchLatency.GetSeconds();
    std::vector<double> ready(wire.size(), 0.0); // when packet i may start on the current hop
    double arrival = 0;
    for (uint32_t h = 0; h < hops; ++h)
    {
        double linkFree = 0;
        for (std::size_t i = 0; i < wire.size(); ++i)
        {
            const double start = std::max(ready[i], linkFree);
            linkFree = start + wire[i];
            const bool lastHop = (h + 1 == hops);
            ready[i] = linkFree + prop + (lastHop ? p.nicLatency.GetSeconds() : sw);
            arrival = ready[i];
        }
    }
    return arrival;
}

/**
 * \param packets serializations in the result
 * \return the tolerance of a simulated time: exact at picosecond resolution (our runners);
 *         in an ns-3 tree test.py runs at nanosecond resolution, which rounds each
 *         serialization
 */
double
Tolerance(double packets)
{
    return (Time::GetResolution() == Time::PS) ? 2e-12 : (packets + 2) * 1e-9;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief One message through one switch arrives when store-and-forward says.
 */
class StoreAndForwardTestCase : public TestCase
{
  public:
    StoreAndForwardTestCase()
        : TestCase("One message through one switch matches store-and-forward")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile ndr = *FindLinkProfile("ib-ndr");
        for (const uint64_t bytes : {1ull, 4096ull, 4097ull, 100000ull, 1ull << 20, 16ull << 20})
        {
            const FabricGraph g = TwoGpuGraph(ndr);
            Fabric f = FabricBuilder::Build(g, SpecLocation{});
            Time at;
            uint64_t delivered = 0;
            f.transports[1]->TraceConnectWithoutContext(
                "MessageDelivered",
                MakeBoundCallback(&RecordArrival, &at, &delivered));
            f.transports[0]->PostSend(1, 0, bytes);
            Simulator::Run();

            const uint64_t packets = (bytes + ndr.mtu - 1) / ndr.mtu;
            const double expect = StoreAndForwardS(ndr, bytes, 2);
            NS_TEST_EXPECT_MSG_EQ(delivered, 1u, "bytes=" << bytes);
            NS_TEST_EXPECT_MSG_EQ(f.transports[1]->GetBytesReceived(), bytes, "every byte");
            // Integer serialization with a carried remainder: exact to the picosecond here.
            NS_TEST_EXPECT_MSG_EQ_TOL(at.GetSeconds(),
                                      expect,
                                      Tolerance(packets),
                                      "bytes=" << bytes);
            NS_TEST_EXPECT_MSG_EQ(f.GetPacketHops(), 2 * packets, "one hop per packet per link");
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The alpha-beta model of a path is exact for whole packets.
 */
class AlphaBetaTestCase : public TestCase
{
  public:
    AlphaBetaTestCase()
        : TestCase("Alpha-beta is exact for whole packets")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile ndr = *FindLinkProfile("ib-ndr");
        const FabricGraph g = TwoGpuGraph(ndr);
        const AlphaBeta ab = PathAlphaBeta(g, 0, 1);
        NS_TEST_EXPECT_MSG_EQ(ab.hops, 2u, "two links");
        // beta: 4122 wire bytes per 4096 payload bytes at 50 GB/s.
        NS_TEST_EXPECT_MSG_EQ_TOL(ab.betaSPerByte, 4122.0 / 4096 / 50e9, 1e-20, "beta");
        for (const uint64_t packets : {1ull, 7ull, 256ull})
        {
            const uint64_t bytes = packets * ndr.mtu;
            const double expect = StoreAndForwardS(ndr, bytes, 2);
            NS_TEST_EXPECT_MSG_EQ_TOL(ab.alphaS + bytes * ab.betaSPerByte,
                                      expect,
                                      1e-12,
                                      "packets=" << packets);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A stream is exact at a rate of a non-integral number of picoseconds per byte.
 */
class StreamSerializationTestCase : public TestCase
{
  public:
    StreamSerializationTestCase()
        : TestCase("Stream serialization is exact at non-integral picoseconds per byte")
    {
    }

  private:
    void DoRun() override
    {
        // 3.6 Tb/s (450 GB/s, an NVLink4 GPU's per-direction rate): 2.222... ps per byte.
        LinkProfile fast = *FindLinkProfile("ib-ndr");
        fast.rate = DataRate("3600Gbps");
        fast.propagationDelay = Seconds(0);
        fast.switchLatency = Seconds(0);
        const FabricGraph g = TwoGpuGraph(fast);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        const uint64_t bytes = 1000 * 4096ull;
        Time at;
        uint64_t delivered = 0;
        f.transports[1]->TraceConnectWithoutContext(
            "MessageDelivered",
            MakeBoundCallback(&RecordArrival, &at, &delivered));
        f.transports[0]->PostSend(1, 0, bytes);
        Simulator::Run();
        const double wire = 1000 * 4122.0 + 16;
        const double expect = (wire + 4138) * 8 / 3600e9;
        const double tol = (Time::GetResolution() == Time::PS) ? 3e-12 : 1002e-9;
        NS_TEST_EXPECT_MSG_EQ_TOL(at.GetSeconds(), expect, tol, "arrival");
        // The NIC was busy exactly wire * 8 / rate, to the picosecond.
        NS_TEST_EXPECT_MSG_EQ_TOL(f.devicesA[0]->GetStats().busyTime.GetSeconds(),
                                  wire * 8 / 3600e9,
                                  (Time::GetResolution() == Time::PS) ? 1e-12 : 1001e-9,
                                  "busy time");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Two queue pairs share a NIC round robin.
 */
class QueuePairRoundRobinTestCase : public TestCase
{
  public:
    QueuePairRoundRobinTestCase()
        : TestCase("Queue pairs share the NIC round robin")
    {
    }

  private:
    void DoRun() override
    {
        // GPU 0 sends 64 packets to GPU 1 and 64 to GPU 2 at once. The NIC serves the two
        // queue pairs one packet each in turn (the first queue pair got one packet ahead
        // before the second was posted), so both finish within two packet times, and the
        // second finishes when all 128 packets have crossed the NIC and its last packet
        // the idle second hop.
        const LinkProfile ndr = *FindLinkProfile("ib-ndr");
        FabricGraph g;
        const uint32_t p = g.AddProfile(ndr);
        const uint32_t sw = g.AddSwitch("sw", 1);
        for (int i = 0; i < 3; ++i)
        {
            g.AddLink(g.AddGpu("g" + std::to_string(i)), sw, p);
        }
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Time at1;
        Time at2;
        uint64_t n1 = 0;
        uint64_t n2 = 0;
        f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                    MakeBoundCallback(&RecordArrival, &at1, &n1));
        f.transports[2]->TraceConnectWithoutContext("MessageDelivered",
                                                    MakeBoundCallback(&RecordArrival, &at2, &n2));
        const uint64_t bytes = 64 * 4096;
        f.transports[0]->PostSend(1, 0, bytes);
        f.transports[0]->PostSend(2, 0, bytes);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(n1, 1u, "first message");
        NS_TEST_ASSERT_MSG_EQ(n2, 1u, "second message");
        const double packetTime = 4122 * 20e-12; // 4122 B at 400 Gb/s
        NS_TEST_EXPECT_MSG_LT(at1, at2, "the first finishes first");
        const double tol = (Time::GetResolution() == Time::PS) ? 1e-12 : 132e-9;
        NS_TEST_EXPECT_MSG_EQ_TOL(at2.GetSeconds() - at1.GetSeconds(),
                                  2 * packetTime,
                                  tol,
                                  "two packet times apart");
        // NIC: 128 packets + two RETHs; then 50 ns + 250 ns + 4122 B + 50 ns.
        const double expect = (128 * 4122 + 32) * 20e-12 + 350e-9 + packetTime;
        NS_TEST_EXPECT_MSG_EQ_TOL(at2.GetSeconds(), expect, tol, "second arrival");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A switch stores each distinct route set once and routes port i to GPU i.
 */
class RouteSetTestCase : public TestCase
{
  public:
    RouteSetTestCase()
        : TestCase("A switch stores each route set once")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile ndr = *FindLinkProfile("ib-ndr");
        FabricGraph g;
        const uint32_t p = g.AddProfile(ndr);
        const uint32_t sw = g.AddSwitch("sw", 1);
        for (int i = 0; i < 8; ++i)
        {
            g.AddLink(g.AddGpu("g" + std::to_string(i)), sw, p);
        }
        Fabric f = FabricBuilder::Build(g, SpecLocation{});
        Ptr<FabricSwitch> s = f.switches[sw];
        NS_TEST_ASSERT_MSG_EQ((PeekPointer(s) != nullptr), true, "the switch");
        for (uint32_t dst = 0; dst < 8; ++dst)
        {
            NS_TEST_ASSERT_MSG_EQ(s->GetRoute(dst).size(), 1u, "one port");
            NS_TEST_EXPECT_MSG_EQ(s->GetRoute(dst)[0], dst, "port i leads to GPU i");
        }
        NS_TEST_EXPECT_MSG_EQ(s->GetRoute(8).empty(), true, "no such endpoint");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The packet path.
 */
class AiFabricLinkTestSuite : public TestSuite
{
  public:
    AiFabricLinkTestSuite()
        : TestSuite("ai-fabric-link", UNIT)
    {
        AddTestCase(new StoreAndForwardTestCase, TestCase::QUICK);
        AddTestCase(new AlphaBetaTestCase, TestCase::QUICK);
        AddTestCase(new StreamSerializationTestCase, TestCase::QUICK);
        AddTestCase(new QueuePairRoundRobinTestCase, TestCase::QUICK);
        AddTestCase(new RouteSetTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static AiFabricLinkTestSuite g_aiFabricLinkTestSuite;
