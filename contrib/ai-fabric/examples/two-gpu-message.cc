/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Two GPUs on one InfiniBand NDR switch: one RDMA WRITE of --bytes from GPU 0
 * to GPU 1, as a workload of one SEND op that a WorkloadApplication on each GPU
 * node executes on the node's RdmaTransport. Prints the simulated completion time
 * beside the alpha-beta (store-and-forward) formula of the same path.
 *
 *   ai-fabric-two-gpu-message --bytes=1048576
 */
#include "ns3/analytic-model.h"
#include "ns3/core-module.h"
#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"
#include "ns3/workload-execution.h"
#include "ns3/workload-helper.h"
#include "ns3/workload.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    uint64_t bytes = 1 << 20;
    std::string profileName = "ib-ndr";
    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "message size, bytes", bytes);
    cmd.AddValue("profile", "link profile", profileName);
    cmd.Parse(argc, argv);

    const LinkProfile* profile = FindLinkProfile(profileName);
    if (!profile)
    {
        std::cerr << "unknown profile '" << profileName << "'\n";
        return 2;
    }
    FabricGraph graph;
    const uint32_t p = graph.AddProfile(*profile);
    const uint32_t sw = graph.AddSwitch("switch0", 1);
    graph.AddLink(graph.AddGpu("gpu0"), sw, p);
    graph.AddLink(graph.AddGpu("gpu1"), sw, p);
    Fabric fabric = FabricBuilder::Build(graph, SpecLocation{});

    // The workload: one message from GPU 0 to GPU 1.
    Workload workload;
    WorkloadGroup group;
    group.name = "message";
    group.op = "send-recv";
    group.bytes = bytes;
    group.ranks = {0, 1};
    WorkloadOp send;
    send.kind = WorkloadOp::SEND;
    send.group = workload.AddGroup(group);
    send.rank = 0;
    send.peer = 1;
    send.bytes = bytes;
    const uint32_t op = workload.AddOp(send);
    workload.Finalize();

    WorkloadHelper workloads(&workload);
    ApplicationContainer apps = workloads.Install(fabric.gpuNodes);
    apps.Start(Seconds(0));
    Simulator::Run();
    const Time arrived = workloads.GetExecution()->GetOpEnd(op);

    const AlphaBeta ab = PathAlphaBeta(graph, 0, 1);
    std::cout << "message of " << bytes << " B over " << profile->name << " through one switch\n"
              << "  simulated: " << arrived.GetSeconds() * 1e6 << " us\n"
              << "  alpha-beta: " << (ab.alphaS + bytes * ab.betaSPerByte) * 1e6 << " us (alpha "
              << ab.alphaS * 1e9 << " ns, goodput " << 1e-9 / ab.betaSPerByte << " GB/s)\n"
              << "  packet-hops: " << fabric.GetPacketHops() << "\n";
    Simulator::Destroy();
    return 0;
}
