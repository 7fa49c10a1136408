/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Running one all-reduce on a topology file and reading a run's port bytes: shared by the
 * tests of the collective algorithms that compare runs (collnet, NCCL's tree).
 */
#ifndef AI_FABRIC_COLLECTIVE_RUNS_H
#define AI_FABRIC_COLLECTIVE_RUNS_H

#include "config/yaml-scenario-reader.h"
#include "run/scenario-runner.h"
#include "tool-runner.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace aifabrictest
{

/**
 * \brief Run one all-reduce (collective `c`) on a topology file of the repository.
 * \param topology the topology file, relative to the repository root
 * \param algorithm the collective's algorithm
 * \param size its size
 * \param extra more keys of the collective, each line indented by 6 spaces
 * \return the run's results
 */
inline ns3::RunResults
AllReduceOn(const std::string& topology,
            const std::string& algorithm,
            const std::string& size,
            const std::string& extra = "")
{
    const std::filesystem::path dir = FreshScratch("all-reduce-on");
    const std::filesystem::path p = dir / "s.yaml";
    std::ofstream(p) << "name: all-reduce\nseed: 1\ntopology: " << SourcePath(topology)
                     << "\ntraffic:\n  collectives:\n    - name: c\n      op: all-reduce\n"
                        "      algorithm: "
                     << algorithm << "\n      size: " << size << "\n"
                     << extra;
    return ns3::RunScenario(ns3::ReadScenarioFile(p.string()), ns3::RunOptions{});
}

/**
 * \param r a run's results
 * \param node a node's name
 * \param towards a prefix of peer names
 * \return wire bytes \p node sent on its ports towards peers whose names start with \p towards
 */
inline uint64_t
SentTowards(const ns3::RunResults& r, const std::string& node, const std::string& towards)
{
    uint64_t bytes = 0;
    for (const ns3::PortRecord& port : r.ports)
    {
        if (port.node == node && port.peer.rfind(towards, 0) == 0)
        {
            bytes += port.txBytes;
        }
    }
    return bytes;
}

} // namespace aifabrictest

#endif /* AI_FABRIC_COLLECTIVE_RUNS_H */
