/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the ai-fabric module: runs in-tree through test.py
 * (./test.py -s ai-fabric) and out of tree through tests/ns3-test-runner.
 */
#include "ns3/analytic-model.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-net-device.h"
#include "ns3/link-profile.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

using namespace ns3;

namespace
{
/// Trace sink: remember when the message arrived.
void
RecordArrival(Time* at, uint32_t, uint32_t, uint32_t, uint64_t)
{
    *at = Simulator::Now();
}
} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief One message between two GPUs through one switch arrives when the
 * store-and-forward formula says, and every payload byte arrives.
 */
class AiFabricSwitchedMessageTestCase : public TestCase
{
  public:
    AiFabricSwitchedMessageTestCase()
        : TestCase("A message through one switch arrives at the store-and-forward time")
    {
    }

  private:
    void DoRun() override
    {
        const LinkProfile* ndr = FindLinkProfile("ib-ndr");
        NS_TEST_ASSERT_MSG_NE(ndr, nullptr, "ib-ndr preset exists");
        FabricGraph g;
        const uint32_t prof = g.AddProfile(*ndr);
        const uint32_t sw = g.AddSwitch("sw", 1);
        g.AddLink(g.AddGpu("a"), sw, prof);
        g.AddLink(g.AddGpu("b"), sw, prof);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});

        // 10 full packets of 4096 B: wire 4122 B each, the first +16 B (RETH).
        const uint64_t bytes = 10 * 4096;
        Time arrived;
        f.transports[1]->TraceConnectWithoutContext("MessageDelivered",
                                                    MakeBoundCallback(&RecordArrival, &arrived));
        f.transports[0]->PostSend(1, 0, bytes);
        Simulator::Run();

        // Link 1 carries all packets back to back: (10 * 4122 + 16) B * 20 ps/B at 400 Gb/s.
        // Link 2 starts the first packet (4138 B) after 50 ns + 250 ns and then stays busy,
        // so the last bit arrives after sum(w)/R + w1/R + 2 * 50 ns + 250 ns.
        const double expectS = (10 * 4122 + 16) * 20e-12 + 4138 * 20e-12 + 100e-9 + 250e-9;
        // Exact at picosecond resolution (our runners); in an ns-3 tree, test.py runs at the
        // default nanosecond resolution, which rounds each of the 11 + 1 serializations.
        const double tol = (Time::GetResolution() == Time::PS) ? 1e-12 : 12e-9;
        NS_TEST_EXPECT_MSG_EQ_TOL(arrived.GetSeconds(), expectS, tol, "arrival time");
        NS_TEST_EXPECT_MSG_EQ(f.transports[1]->GetBytesReceived(), bytes, "bytes delivered");
        const AlphaBeta ab = PathAlphaBeta(g, 0, 1);
        NS_TEST_EXPECT_MSG_EQ_TOL(ab.alphaS + bytes * ab.betaSPerByte,
                                  expectS,
                                  tol,
                                  "alpha-beta equals the formula for whole packets");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The ai-fabric TestSuite.
 */
class AiFabricTestSuite : public TestSuite
{
  public:
    AiFabricTestSuite()
        : TestSuite("ai-fabric", UNIT)
    {
        AddTestCase(new AiFabricSwitchedMessageTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static AiFabricTestSuite g_aiFabricTestSuite;
