/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The topology report writers of the tool (output/topology-report-writer.h): JSON, DOT and
 * the console report are deterministic and carry the analyzer's figures. The generators and
 * the analyzer themselves (counts, bisection formula against max-flow, reachability, errors)
 * are the ns-3 TestSuite ai-fabric-topology (contrib/ai-fabric/test/topology-test-suite.cc).
 */
#include "output/topology-report-writer.h"

#include "ns3/fabric-graph.h"
#include "ns3/link-profile.h"
#include "ns3/topology-analyzer.h"
#include "ns3/topology-spec.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/// A topology of \p kind with ib-ndr links (400 Gb/s).
TopologySpec
Spec(const std::string& kind)
{
    TopologySpec s;
    s.where.file = "<test>";
    s.name = kind;
    s.SetKind(kind);
    s.link = *FindLinkProfile("ib-ndr");
    return s;
}

TEST(Topology, JsonAndDotAreDeterministic)
{
    TopologySpec spec = Spec("rail-optimized");
    spec.gpusPerServer = 4;
    spec.As<RailOptimizedSpec>().serversPerSu = 4;
    spec.As<RailOptimizedSpec>().sus = 2;
    spec.hasNvlink = true;
    const FabricGraph g = BuildFabricGraph(spec);
    std::ostringstream j1;
    std::ostringstream j2;
    WriteTopologyJson(AnalyzeTopology(g, spec), j1);
    WriteTopologyJson(AnalyzeTopology(g, spec), j2);
    EXPECT_EQ(j1.str(), j2.str());
    for (const char* key : {"\"bisection\"",
                            "\"formula_gbps\"",
                            "\"max_flow_gbps\"",
                            "\"worst_gbps\"",
                            "\"oversubscription\"",
                            "\"diameter_hops\"",
                            "\"link_classes\""})
    {
        EXPECT_NE(j1.str().find(key), std::string::npos) << key;
    }
    std::ostringstream dot;
    WriteDot(g, dot);
    EXPECT_EQ(dot.str().rfind("graph fabric {", 0), 0u);
    EXPECT_NE(dot.str().find("\"gpu0\" -- \"su0-rail0\" [label=\"infiniband\""), std::string::npos);
    EXPECT_NE(dot.str().find("[label=\"nvlink\""), std::string::npos);
    std::ostringstream text;
    PrintTopologyReport(AnalyzeTopology(g, spec), text);
    EXPECT_NE(text.str().find("max-flow"), std::string::npos);
}

} // namespace
