/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the per-node workload applications (WorkloadApplication,
 * WorkloadExecution, WorkloadHelper) and the RdmaTransportHelper: runs in-tree through
 * test.py (./test.py -s ai-fabric-workload) and out of tree through tests/ns3-test-runner.
 */
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/double.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-net-device.h"
#include "ns3/go-back-n-recovery.h"
#include "ns3/link-profile.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"
#include "ns3/workload-application.h"
#include "ns3/workload-execution.h"
#include "ns3/workload-helper.h"
#include "ns3/workload.h"

#include <vector>

using namespace ns3;

namespace
{
/// Trace sink: remember the order in which ops completed.
void
RecordOp(std::vector<uint32_t>* order, uint32_t op)
{
    order->push_back(op);
}

/**
 * \param packets full 4096 B packets of a message (ib-ndr)
 * \return its time from post to delivery between two idle GPUs through one switch, ps
 */
int64_t
MessagePs(uint64_t packets)
{
    // Wire bytes: 4122 per packet, the first +16 B (RETH); 20 ps per byte at 400 Gb/s.
    // The first link carries all packets back to back; the second starts the first
    // packet (4138 B) after 50 ns + 250 ns and stays busy: sum(w)/R + w1/R + 2 x 50 ns
    // + 250 ns (the store-and-forward formula, as in the ai-fabric suite).
    return static_cast<int64_t>((packets * 4122 + 16) + 4138) * 20 + 350000;
}
} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief A message DAG between two GPUs, each with its own WorkloadApplication:
 * ops on both nodes finish in dependency order, at the times the serialization
 * formula gives, and the execution's view adds the applications' counts.
 */
class WorkloadTwoGpuDagTestCase : public TestCase
{
  public:
    WorkloadTwoGpuDagTestCase()
        : TestCase("Per-node applications run a two-GPU message DAG in dependency order")
    {
    }

  private:
    void DoRun() override
    {
        FabricGraph g;
        const uint32_t prof = g.AddProfile(*FindLinkProfile("ib-ndr"));
        const uint32_t sw = g.AddSwitch("sw", 1);
        g.AddLink(g.AddGpu("a"), sw, prof);
        g.AddLink(g.AddGpu("b"), sw, prof);
        Fabric f = FabricBuilder::Build(g, SpecLocation{});

        // op 0: GPU 0 waits 1 us; op 1: then sends 10 packets to GPU 1; op 2: GPU 1 answers
        // with one packet once op 1 has arrived; op 3: GPU 1 also waits 2 us after op 1;
        // op 4: GPU 0 sends one packet when both op 2 and op 3 are done.
        Workload wl;
        WorkloadGroup group;
        group.name = "dag";
        group.ranks = {0, 1};
        const uint32_t gi = wl.AddGroup(group);
        auto delay = [&](uint32_t rank, Time d) {
            WorkloadOp op;
            op.kind = WorkloadOp::DELAY;
            op.group = gi;
            op.rank = rank;
            op.duration = d;
            return wl.AddOp(op);
        };
        auto send = [&](uint32_t rank, uint32_t peer, uint64_t bytes) {
            WorkloadOp op;
            op.kind = WorkloadOp::SEND;
            op.group = gi;
            op.rank = rank;
            op.peer = peer;
            op.bytes = bytes;
            return wl.AddOp(op);
        };
        const uint32_t wait0 = delay(0, MicroSeconds(1));
        const uint32_t big = send(0, 1, 10 * 4096);
        const uint32_t reply = send(1, 0, 4096);
        const uint32_t wait1 = delay(1, MicroSeconds(2));
        const uint32_t last = send(0, 1, 4096);
        wl.AddDependency(wait0, big);
        wl.AddDependency(big, reply);
        wl.AddDependency(big, wait1);
        wl.AddDependency(reply, last);
        wl.AddDependency(wait1, last);
        wl.Finalize();

        WorkloadHelper helper(&wl);
        ApplicationContainer apps = helper.Install(f.gpuNodes);
        NS_TEST_ASSERT_MSG_EQ(apps.GetN(), 2U, "one application per GPU node");
        apps.Start(Seconds(0));
        std::vector<uint32_t> order;
        Config::ConnectWithoutContext(
            "/NodeList/*/ApplicationList/*/$ns3::WorkloadApplication/OpCompleted",
            MakeBoundCallback(&RecordOp, &order));
        Simulator::Run();

        Ptr<WorkloadExecution> run = helper.GetExecution();
        NS_TEST_EXPECT_MSG_EQ(run->IsDone(), true, "every op done");
        const std::vector<uint32_t> expected = {wait0, big, reply, wait1, last};
        NS_TEST_ASSERT_MSG_EQ(order.size(), expected.size(), "ops completed");
        for (std::size_t i = 0; i < order.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(order[i], expected[i], "completion order");
        }

        // Exact at picosecond resolution; at ns-3's default nanosecond resolution
        // (test.py in an ns-3 tree) each serialization rounds.
        const int64_t tol = (Time::GetResolution() == Time::PS) ? 0 : 100000;
        const int64_t bigEnd = 1000000 + MessagePs(10);
        auto expectPs = [&](Time t, int64_t ps, const char* what) {
            NS_TEST_EXPECT_MSG_EQ_TOL(t.GetPicoSeconds(), ps, tol, what);
        };
        expectPs(run->GetOpStart(wait0), 0, "the delay starts at once");
        expectPs(run->GetOpEnd(wait0), 1000000, "the delay ends after 1 us");
        expectPs(run->GetOpStart(big), 1000000, "the message is posted when the delay ends");
        expectPs(run->GetOpEnd(big), bigEnd, "10 packets: the serialization formula");
        expectPs(run->GetOpStart(reply), bigEnd, "the reply starts at the delivery (other node)");
        expectPs(run->GetOpEnd(reply), bigEnd + MessagePs(1), "1 packet: the formula");
        expectPs(run->GetOpStart(wait1), bigEnd, "the other node's delay starts at the delivery");
        expectPs(run->GetOpEnd(wait1), bigEnd + 2000000, "and lasts 2 us");
        expectPs(run->GetOpStart(last), bigEnd + 2000000, "the join starts at its last input");
        expectPs(run->GetOpEnd(last), bigEnd + 2000000 + MessagePs(1), "1 packet: the formula");

        // Each application owns the ops of its endpoint; the view adds them up.
        Ptr<WorkloadApplication> a = DynamicCast<WorkloadApplication>(apps.Get(0));
        Ptr<WorkloadApplication> b = DynamicCast<WorkloadApplication>(apps.Get(1));
        NS_TEST_EXPECT_MSG_EQ(a->GetEndpoint(), 0U, "endpoint of GPU 0's application");
        NS_TEST_EXPECT_MSG_EQ(b->GetEndpoint(), 1U, "endpoint of GPU 1's application");
        NS_TEST_EXPECT_MSG_EQ(a->GetOpCount(), 3U, "GPU 0 runs ops 0, 1 and 4");
        NS_TEST_EXPECT_MSG_EQ(b->GetOpCount(), 2U, "GPU 1 runs ops 2 and 3");
        NS_TEST_EXPECT_MSG_EQ(a->GetMessagesPosted(), 2U, "GPU 0 posted two messages");
        NS_TEST_EXPECT_MSG_EQ(b->GetMessagesPosted(), 1U, "GPU 1 posted one message");
        NS_TEST_EXPECT_MSG_EQ(run->GetMessagesDelivered(), 3U, "three messages delivered");
        NS_TEST_EXPECT_MSG_EQ(run->GetBytesTotal(), 12U * 4096, "bytes of all SEND ops");
        NS_TEST_EXPECT_MSG_EQ(run->GetBytesDone(), 12U * 4096, "all delivered");
        NS_TEST_EXPECT_MSG_EQ(run->GetConservationErrors().empty(), true, "bytes conserved");
        NS_TEST_EXPECT_MSG_EQ(run->GetMessageOp(1, run->GetMessageId(reply)),
                              reply,
                              "message id <-> op");
        NS_TEST_EXPECT_MSG_EQ(f.gpuNodes.Get(1)->GetObject<RdmaTransport>(),
                              f.transports[1],
                              "the transport is aggregated to its node");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief RdmaTransportHelper on two nodes wired by FabricHelper (no FabricBuilder): each node
 * gets a configured transport, aggregated to it, on which a WorkloadApplication sends.
 */
class RdmaTransportHelperTestCase : public TestCase
{
  public:
    RdmaTransportHelperTestCase()
        : TestCase("RdmaTransportHelper installs configured transports that applications drive")
    {
    }

  private:
    void DoRun() override
    {
        // Two GPUs on one cable: 400 Gb/s, 50 ns, 26 B of headers per packet, no flow control
        // (the device and channel defaults).
        NodeContainer nodes;
        nodes.Create(2);
        FabricHelper fabric;
        fabric.Install(nodes);

        RdmaTransportHelper rdma;
        rdma.SetTransportAttribute("DataPriority", UintegerValue(2));
        rdma.SetRecoveryOps("ns3::GoBackNRecovery", "AckInterval", UintegerValue(8));
        rdma.SetCongestionControl("ns3::Dcqcn", "AlphaGain", DoubleValue(0.5));
        const std::vector<Ptr<RdmaTransport>> transports = rdma.Install(nodes);
        NS_TEST_ASSERT_MSG_EQ(transports.size(), 2U, "one transport per node");
        for (uint32_t i = 0; i < 2; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(transports[i]->GetEndpoint(), i, "endpoint = node position");
            NS_TEST_EXPECT_MSG_EQ(nodes.Get(i)->GetObject<RdmaTransport>(),
                                  transports[i],
                                  "aggregated to its node");
            UintegerValue prio;
            transports[i]->GetAttribute("DataPriority", prio);
            NS_TEST_EXPECT_MSG_EQ(prio.Get(), 2U, "transport attribute set");
            PointerValue rec;
            transports[i]->GetAttribute("RecoveryOps", rec);
            Ptr<GoBackNRecovery> gbn = rec.Get<GoBackNRecovery>();
            NS_TEST_ASSERT_MSG_NE(gbn, nullptr, "recovery prototype forked per transport");
            UintegerValue ack;
            gbn->GetAttribute("AckInterval", ack);
            NS_TEST_EXPECT_MSG_EQ(ack.Get(), 8U, "its attribute set");
            PointerValue cc;
            transports[i]->GetAttribute("CongestionControl", cc);
            Ptr<Dcqcn> dcqcn = cc.Get<Dcqcn>();
            NS_TEST_ASSERT_MSG_NE(dcqcn, nullptr, "congestion-control prototype set");
            DoubleValue gain;
            dcqcn->GetAttribute("AlphaGain", gain);
            NS_TEST_EXPECT_MSG_EQ_TOL(gain.Get(), 0.5, 1e-12, "its attribute set");
        }

        Workload wl;
        wl.AddGroup(WorkloadGroup{});
        WorkloadOp op;
        op.kind = WorkloadOp::SEND;
        op.rank = 1;
        op.peer = 0;
        op.bytes = 10 * 4096;
        const uint32_t send = wl.AddOp(op);
        wl.Finalize();
        WorkloadHelper helper(&wl);
        helper.Install(nodes);
        Simulator::Run();

        // 10 packets of 4096 + 26 B, the first +16 B (RETH), back to back at 20 ps per byte,
        // then 50 ns on the cable: the last bit arrives at 824.72 ns + 50 ns.
        const int64_t tol = (Time::GetResolution() == Time::PS) ? 0 : 11000;
        NS_TEST_EXPECT_MSG_EQ_TOL(helper.GetExecution()->GetOpEnd(send).GetPicoSeconds(),
                                  int64_t{(10 * 4122 + 16) * 20 + 50000},
                                  tol,
                                  "delivered at the serialization formula's time");
        NS_TEST_EXPECT_MSG_EQ(transports[0]->GetBytesReceived(), 10U * 4096, "bytes received");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The workload TestSuite.
 */
class WorkloadTestSuite : public TestSuite
{
  public:
    WorkloadTestSuite()
        : TestSuite("ai-fabric-workload", UNIT)
    {
        AddTestCase(new WorkloadTwoGpuDagTestCase, TestCase::QUICK);
        AddTestCase(new RdmaTransportHelperTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static WorkloadTestSuite g_workloadTestSuite;
