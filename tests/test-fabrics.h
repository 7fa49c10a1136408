/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Small scenario builders shared by the tests (no YAML involved).
 */
#ifndef AI_FABRIC_TEST_FABRICS_H
#define AI_FABRIC_TEST_FABRICS_H

#include "config/scenario-spec.h"

#include "ns3/link-profile.h"

#include <string>

namespace aifabrictest
{

/// A scenario: \p gpus GPUs on one ib-ndr switch running one ring collective.
inline ns3::ScenarioSpec
SingleSwitchRing(uint32_t gpus,
                 uint64_t bytes,
                 ns3::CollectiveOp op = ns3::CollectiveOp::ALL_REDUCE)
{
    ns3::ScenarioSpec s;
    s.where.file = "<test>";
    s.name = "test-ring";
    s.seed = 1;
    s.stopTime = ns3::Seconds(10);
    s.topology.where.file = "<test>";
    s.topology.name = "single-switch";
    s.topology.SetKind("single-switch");
    s.topology.gpus = gpus;
    s.topology.link = *ns3::FindLinkProfile("ib-ndr");
    s.traffic.name = "ring";
    ns3::CollectiveSpec c;
    c.name = "c0";
    c.op = op;
    c.algorithm = "ring";
    c.bytes = bytes;
    c.start = ns3::Seconds(0);
    s.traffic.collectives.push_back(c);
    return s;
}

} // namespace aifabrictest

#endif /* AI_FABRIC_TEST_FABRICS_H */
