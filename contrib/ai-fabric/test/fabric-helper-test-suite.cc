/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of FabricHelper: a cable is two FabricNetDevices on one FabricChannel with the
 * helper's attributes; flow control and routing set through the helper reach one object per
 * device and per switch; FabricBuilder's cables are the helper's.
 */
#include "ns3/boolean.h"
#include "ns3/credit-flow-control.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/link-profile.h"
#include "ns3/no-flow-control.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/simulator.h"
#include "ns3/spray-routing.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;

/**
 * \ingroup ai-fabric-tests
 * \brief Install connects two nodes by one channel, with the device and channel attributes
 * set on the helper and each end's own.
 */
class FabricHelperInstallTestCase : public TestCase
{
  public:
    FabricHelperInstallTestCase()
        : TestCase("FabricHelper Install makes two devices on one channel with the attributes set")
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer nodes;
        nodes.Create(2);
        FabricHelper fabric;
        fabric.SetDeviceAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        fabric.SetDeviceAttribute("HeaderBytes", UintegerValue(30));
        fabric.SetChannelAttribute("Delay", TimeValue(NanoSeconds(123)));
        FabricHelper::PortAttributes switchEnd;
        switchEnd.Set("RxLatency", TimeValue(NanoSeconds(300)));
        switchEnd.Set("CutThrough", BooleanValue(true));
        const NetDeviceContainer d
            = fabric.Install(nodes.Get(0), FabricHelper::PortAttributes(), nodes.Get(1), switchEnd);

        NS_TEST_ASSERT_MSG_EQ(d.GetN(), 2U, "two devices");
        Ptr<FabricNetDevice> a = DynamicCast<FabricNetDevice>(d.Get(0));
        Ptr<FabricNetDevice> b = DynamicCast<FabricNetDevice>(d.Get(1));
        NS_TEST_ASSERT_MSG_NE(a, nullptr, "a FabricNetDevice at end a");
        NS_TEST_ASSERT_MSG_NE(b, nullptr, "a FabricNetDevice at end b");
        if (!a || !b)
        {
            Simulator::Destroy();
            return;
        }
        NS_TEST_EXPECT_MSG_EQ(a->GetNode(), nodes.Get(0), "end a on the first node");
        NS_TEST_EXPECT_MSG_EQ(b->GetNode(), nodes.Get(1), "end b on the second node");
        NS_TEST_EXPECT_MSG_EQ(nodes.Get(0)->GetNDevices(), 1U, "added to its node");

        Ptr<FabricChannel> ch = a->GetFabricChannel();
        NS_TEST_ASSERT_MSG_NE(ch, nullptr, "attached");
        NS_TEST_EXPECT_MSG_EQ(b->GetFabricChannel(), ch, "one channel");
        if (!ch)
        {
            Simulator::Destroy();
            return;
        }
        NS_TEST_ASSERT_MSG_EQ(ch->GetNDevices(), 2U, "the channel has both ends");
        NS_TEST_EXPECT_MSG_EQ(ch->GetDevice(0), d.Get(0), "a first");
        NS_TEST_EXPECT_MSG_EQ(ch->GetDevice(1), d.Get(1), "then b");
        NS_TEST_EXPECT_MSG_EQ(ch->GetPeer(PeekPointer(a)), b, "a's peer is b");
        TimeValue delay;
        ch->GetAttribute("Delay", delay);
        NS_TEST_EXPECT_MSG_EQ(delay.Get(), NanoSeconds(123), "channel attribute");

        for (const Ptr<FabricNetDevice>& dev : {a, b})
        {
            NS_TEST_EXPECT_MSG_EQ(dev->GetDataRate(), DataRate("100Gbps"), "device attribute");
            // A non-first data packet of 1000 B: 1000 + 30 B of headers (no framing, no RETH).
            FabricFields h;
            h.m_kind = FabricFields::DATA;
            h.m_payload = 1000;
            NS_TEST_EXPECT_MSG_EQ(dev->WireBytes(h), 1030U, "HeaderBytes reached the device");
        }
        NS_TEST_EXPECT_MSG_EQ(a->GetRxLatency(), Time(0), "end a keeps the default");
        NS_TEST_EXPECT_MSG_EQ(b->GetRxLatency(), NanoSeconds(300), "end b's own latency");
        NS_TEST_EXPECT_MSG_EQ(a->IsCutThrough(), false, "end a stores and forwards");
        NS_TEST_EXPECT_MSG_EQ(b->IsCutThrough(), true, "end b cuts through");

        // A second cable between the same nodes, from a NodeContainer.
        const NetDeviceContainer d2 = fabric.Install(nodes);
        NS_TEST_EXPECT_MSG_EQ(nodes.Get(1)->GetNDevices(), 2U, "a second port on each node");
        NS_TEST_EXPECT_MSG_NE(DynamicCast<FabricNetDevice>(d2.Get(0))->GetFabricChannel(),
                              ch,
                              "its own channel");
        NS_TEST_EXPECT_MSG_NE(d2.Get(0)->GetAddress(), d.Get(0)->GetAddress(), "new addresses");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief SetFlowControl and SetRouting give every device and switch its own strategy object
 * of that type, with the attributes given.
 */
class FabricHelperStrategiesTestCase : public TestCase
{
  public:
    FabricHelperStrategiesTestCase()
        : TestCase("Flow control and routing set through FabricHelper reach every device and "
                   "switch, one object each")
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer nodes;
        nodes.Create(3);

        // Defaults: the device's own NoFlowControl, a switch without a routing strategy.
        FabricHelper plain;
        Ptr<FabricSwitch> bare = plain.InstallSwitch(nodes.Get(0));
        NS_TEST_EXPECT_MSG_EQ(bare->GetRouting(), nullptr, "no routing unless set");
        const NetDeviceContainer p = plain.Install(nodes.Get(0), nodes.Get(1));
        NS_TEST_EXPECT_MSG_NE(
            DynamicCast<NoFlowControl>(DynamicCast<FabricNetDevice>(p.Get(0))->GetFlowControl()),
            nullptr,
            "no flow control unless set");

        FabricHelper fabric;
        fabric.SetFlowControl("ns3::CreditFlowControl",
                              "CreditsPerLane",
                              UintegerValue(65536),
                              "CreditBlockBytes",
                              UintegerValue(128));
        fabric.SetRouting("ns3::SprayRouting");
        fabric.SetSwitchAttribute("BufferSize", UintegerValue(1 << 20));
        Ptr<FabricSwitch> s1 = fabric.InstallSwitch(nodes.Get(1));
        Ptr<FabricSwitch> s2 = fabric.InstallSwitch(nodes.Get(2));
        NS_TEST_EXPECT_MSG_EQ(nodes.Get(1)->GetObject<FabricSwitch>(), s1, "aggregated");
        NS_TEST_ASSERT_MSG_NE(DynamicCast<SprayRouting>(s1->GetRouting()),
                              nullptr,
                              "the routing type reached the switch");
        NS_TEST_EXPECT_MSG_NE(s1->GetRouting(), s2->GetRouting(), "one strategy per switch");
        UintegerValue buffer;
        s1->GetAttribute("BufferSize", buffer);
        NS_TEST_EXPECT_MSG_EQ(buffer.Get(), 1U << 20, "switch attribute");

        const NetDeviceContainer d = fabric.Install(nodes.Get(1), nodes.Get(2));
        Ptr<FabricNetDevice> a = DynamicCast<FabricNetDevice>(d.Get(0));
        Ptr<FabricNetDevice> b = DynamicCast<FabricNetDevice>(d.Get(1));
        Ptr<CreditFlowControl> fa = DynamicCast<CreditFlowControl>(a->GetFlowControl());
        Ptr<CreditFlowControl> fb = DynamicCast<CreditFlowControl>(b->GetFlowControl());
        NS_TEST_ASSERT_MSG_NE(fa, nullptr, "the flow-control type reached end a");
        NS_TEST_ASSERT_MSG_NE(fb, nullptr, "and end b");
        if (!fa || !fb)
        {
            Simulator::Destroy();
            return;
        }
        NS_TEST_EXPECT_MSG_NE(fa, fb, "one flow control per device");
        UintegerValue block;
        fb->GetAttribute("CreditBlockBytes", block);
        NS_TEST_EXPECT_MSG_EQ(block.Get(), 128U, "flow-control attribute");
        a->Initialize(); // lanes, and their credits
        NS_TEST_EXPECT_MSG_EQ(a->GetCredits(0), 65536, "the advertised credits");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief FabricBuilder's cables come from FabricHelper: the profile's attributes on both
 * ends, each end's receive latency, cut-through and credit return by what its node is.
 */
class FabricBuilderCablesTestCase : public TestCase
{
  public:
    FabricBuilderCablesTestCase()
        : TestCase("FabricBuilder cables carry their profile and each end's role")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* name : {"ib-ndr", "roce-400g"})
        {
            const LinkProfile profile = *FindLinkProfile(name);
            FabricGraph g;
            const uint32_t p = g.AddProfile(profile);
            const uint32_t sw = g.AddSwitch("sw", 1);
            g.AddLink(g.AddGpu("a"), sw, p); // link 0: end a the GPU, end b the switch
            g.AddLink(g.AddGpu("b"), sw, p);
            const Fabric f = FabricBuilder::Build(g, SpecLocation{});
            NS_TEST_ASSERT_MSG_EQ(f.channels.size(), 2U, "one channel per link");
            Ptr<FabricNetDevice> gpu = f.devicesA[0];
            Ptr<FabricNetDevice> port = f.devicesB[0];
            NS_TEST_EXPECT_MSG_EQ(gpu->GetFabricChannel(), f.channels[0], "on the link's channel");
            NS_TEST_EXPECT_MSG_EQ(port->GetFabricChannel(), f.channels[0], "both ends");
            TimeValue delay;
            f.channels[0]->GetAttribute("Delay", delay);
            NS_TEST_EXPECT_MSG_EQ(delay.Get(), profile.propagationDelay, "cable delay");
            for (const Ptr<FabricNetDevice>& dev : {gpu, port})
            {
                NS_TEST_EXPECT_MSG_EQ(dev->GetDataRate(), profile.rate, "rate");
                NS_TEST_EXPECT_MSG_EQ(dev->GetPayloadMtu(), profile.mtu, "MTU");
            }
            NS_TEST_EXPECT_MSG_EQ(gpu->GetRxLatency(), profile.nicLatency, "NIC latency");
            NS_TEST_EXPECT_MSG_EQ(port->GetRxLatency(), profile.switchLatency, "switch latency");
            NS_TEST_EXPECT_MSG_EQ(gpu->IsCutThrough(), false, "a GPU stores");
            NS_TEST_EXPECT_MSG_EQ(port->IsCutThrough(), profile.cutThrough, "as the profile");
            BooleanValue gpuReturns;
            BooleanValue portReturns;
            gpu->GetAttribute("ReturnCreditsOnReceive", gpuReturns);
            port->GetAttribute("ReturnCreditsOnReceive", portReturns);
            NS_TEST_EXPECT_MSG_EQ(gpuReturns.Get(), true, "a GPU's buffer drains at once");
            NS_TEST_EXPECT_MSG_EQ(portReturns.Get(), false, "a switch returns on forwarding");
            if (profile.flowControl == LinkProfile::FlowControl::CREDIT)
            {
                Ptr<CreditFlowControl> fc = DynamicCast<CreditFlowControl>(gpu->GetFlowControl());
                NS_TEST_ASSERT_MSG_NE(fc, nullptr, "credit flow control");
                UintegerValue credits;
                if (fc)
                {
                    fc->GetAttribute("CreditsPerLane", credits);
                }
                NS_TEST_EXPECT_MSG_EQ(credits.Get(), profile.creditsPerLane, "its credits");
            }
            else
            {
                NS_TEST_EXPECT_MSG_NE(DynamicCast<PfcFlowControl>(port->GetFlowControl()),
                                      nullptr,
                                      "PFC");
            }
            NS_TEST_EXPECT_MSG_NE(gpu->GetFlowControl(),
                                  port->GetFlowControl(),
                                  "one flow control per port");
            Simulator::Destroy();
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief FabricHelper.
 */
class AiFabricHelperTestSuite : public TestSuite
{
  public:
    AiFabricHelperTestSuite()
        : TestSuite("ai-fabric-fabric-helper", UNIT)
    {
        AddTestCase(new FabricHelperInstallTestCase, TestCase::QUICK);
        AddTestCase(new FabricHelperStrategiesTestCase, TestCase::QUICK);
        AddTestCase(new FabricBuilderCablesTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static AiFabricHelperTestSuite g_aiFabricHelperTestSuite;
