/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A ring all-reduce among --gpus GPUs on one InfiniBand NDR switch, built with
 * the module's helpers directly (no YAML): the ns-3-style way to embed
 * ai-fabric in your own program. The fabric builder gives every GPU node an
 * RdmaTransport; a WorkloadHelper installs a WorkloadApplication on each GPU node
 * to run its part of the collective. Prints the simulated time beside formula F1.
 *
 *   ai-fabric-ring-allreduce --gpus=8 --bytes=67108864
 */
#include "ns3/analytic-model.h"
#include "ns3/collective-algorithm.h"
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
    uint32_t gpus = 8;
    uint64_t bytes = 64 << 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("gpus", "GPUs in the ring (>= 2)", gpus);
    cmd.AddValue("bytes", "all-reduce buffer size, bytes", bytes);
    cmd.Parse(argc, argv);
    if (gpus < 2)
    {
        std::cerr << "--gpus must be at least 2\n";
        return 2;
    }

    FabricGraph graph;
    const uint32_t p = graph.AddProfile(*FindLinkProfile("ib-ndr"));
    const uint32_t sw = graph.AddSwitch("switch0", 1);
    WorkloadGroup group;
    group.name = "allreduce";
    group.op = "all-reduce";
    group.algorithm = "ring";
    group.bytes = bytes;
    for (uint32_t i = 0; i < gpus; ++i)
    {
        graph.AddLink(graph.AddGpu("gpu" + std::to_string(i)), sw, p);
        group.ranks.push_back(i);
    }
    Fabric fabric = FabricBuilder::Build(graph, SpecLocation{});

    Workload workload;
    const uint32_t g = workload.AddGroup(group);
    WorkloadOp start;
    start.kind = WorkloadOp::DELAY;
    start.group = g;
    const uint32_t startOp = workload.AddOp(start);
    CreateCollectiveAlgorithm("ring")->Build(workload, g, {startOp});
    workload.Finalize();

    WorkloadHelper workloads(&workload);
    ApplicationContainer apps = workloads.Install(fabric.gpuNodes);
    apps.Start(Seconds(0));
    Simulator::Run();
    Ptr<WorkloadExecution> run = workloads.GetExecution();

    const AlphaBeta ab = RingAlphaBeta(graph, group.ranks);
    const double analytic = CollectiveAnalyticTime("all-reduce", "ring", gpus, bytes, ab);
    std::cout << "ring all-reduce of " << bytes << " B over " << gpus << " GPUs\n"
              << "  simulated:  " << Simulator::Now().GetSeconds() * 1e3 << " ms\n"
              << "  F1 (alpha-beta): " << analytic * 1e3 << " ms\n"
              << "  all ops done: " << (run->IsDone() ? "yes" : "no") << "\n";
    const bool done = run->IsDone();
    Simulator::Destroy();
    return done ? 0 : 1;
}
