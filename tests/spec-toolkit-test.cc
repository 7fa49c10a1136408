/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
/**
 * \file
 * \ingroup ai-fabric-tests
 * GoogleTest cases for the spec toolkit every reader is built on
 * (config/spec-toolkit.h), the schema tables (config/spec-tables.h) and the
 * key reference generated from them (docs/keys.md, `ai-fabric keys`).
 */

#include "config/spec-tables.h"
#include "config/spec-toolkit.h"

#include "ns3/link-profile.h"
#include "ns3/spec-error.h"
#include "ns3/spec-names.h"
#include "ns3/type-id.h"
#include "ns3/units.h"

#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>

namespace
{

using namespace ns3::spec;

/**
 * \param yaml a YAML mapping
 * \param known its accepted keys
 * \return the message of the SpecError the Mapping throws, or "" if none
 */
std::string
MappingError(const std::string& yaml, const std::vector<std::string>& known)
{
    try
    {
        Mapping m(YAML::Load(yaml), "f.yaml", "link", known);
    }
    catch (const ns3::SpecError& e)
    {
        return e.what();
    }
    return "";
}

TEST(SpecToolkit, LocatesNodesOneBased)
{
    const YAML::Node n = YAML::Load("a: 1\nb:\n  c: 2\n");
    EXPECT_EQ(At("f.yaml", n["b"]["c"].Mark()).ToString(), "f.yaml:3:6");
    EXPECT_EQ(At("f.yaml", YAML::Mark::null_mark()).ToString(), "f.yaml");
}

TEST(SpecToolkit, MappingNamesUnknownKeysWithTheNearestKnownOne)
{
    EXPECT_EQ(MappingError("rat: 1", {"rate", "mtu"}),
              "f.yaml:1:1: error: unknown key 'rat' in link; did you mean 'rate'?");
    EXPECT_EQ(MappingError("zzzz: 1", {"rate", "mtu"}),
              "f.yaml:1:1: error: unknown key 'zzzz' in link; known keys: rate, mtu");
    EXPECT_EQ(MappingError("rate: 1\nrate: 2", {"rate"}),
              "f.yaml:2:1: error: duplicate key 'rate' in link (first given at line 1)");
    EXPECT_EQ(MappingError("rate: 1", {"rate"}), "");
}

TEST(SpecToolkit, TwoDidYouMeanPolicies)
{
    // The readers' policy: folded case and separators, transpositions, prefixes.
    EXPECT_EQ(NearestWord("Gpus-Per-Leaf", {"gpus_per_leaf", "leaves"}), "gpus_per_leaf");
    EXPECT_EQ(NearestWord("rtae", {"rate"}), "rate");
    EXPECT_EQ(NearestWord("gpu", {"gpus"}), "gpus");
    EXPECT_EQ(NearestWord("xyz", {"rate"}), "");
    // The sweep file's: plain Levenshtein within a distance.
    EXPECT_EQ(NearestWithin("rtae", {"rate"}, 2), "rate");
    EXPECT_EQ(NearestWithin("Rate", {"rate"}, 0), "");
    EXPECT_EQ(NearestWithin("metrix", {"metrics", "values"}, 2), "metrics");
    EXPECT_EQ(EditDistance("ab", "ba", true), 1U);
    EXPECT_EQ(EditDistance("ab", "ba", false), 2U);
}

TEST(SpecToolkit, ScalarReadersCheckUnitsAndRanges)
{
    const YAML::Node n = YAML::Load("a: 0B\nb: 4KiB\nc: 17\nd: yes\n");
    const auto field = [&n](const std::string& key) {
        for (auto it = n.begin(); it != n.end(); ++it)
        {
            if (it->first.Scalar() == key)
            {
                return Field{key, it->first, it->second, "f.yaml"};
            }
        }
        return Field{};
    };
    EXPECT_EQ(ReadBytes(field("b"), true), 4096U);
    EXPECT_THROW(ReadBytes(field("a"), true), ns3::SpecError);
    EXPECT_EQ(ReadBytes(field("a"), false), 0U);
    EXPECT_THROW(ReadInteger(field("c"), 1, 16), ns3::SpecError);
    try
    {
        ReadBool(field("d"));
        ADD_FAILURE() << "yes is not a boolean";
    }
    catch (const ns3::SpecError& e)
    {
        EXPECT_STREQ(e.what(), "f.yaml:4:4: error: d: expected true or false, got 'yes'");
    }
}

TEST(SpecToolkit, UnitErrorIsTheBadInputError)
{
    try
    {
        ns3::ParseBytes("4KB/s");
        ADD_FAILURE() << "no UnitError";
    }
    catch (const ns3::SpecError& e)
    {
        EXPECT_NE(dynamic_cast<const ns3::UnitError*>(&e), nullptr);
        EXPECT_EQ(std::string(e.what()), "error: " + e.Message());
        EXPECT_FALSE(e.Message().empty());
    }
}

TEST(SpecTables, EveryKeyIsDeclaredOnceWithItsDocs)
{
    const auto check = [](const auto& table) {
        std::set<std::string> seen;
        for (const auto& k : table)
        {
            EXPECT_TRUE(seen.insert(k.key).second) << "key " << k.key << " twice";
            EXPECT_FALSE(k.value.empty()) << k.key;
            EXPECT_FALSE(k.doc.empty()) << k.key;
            EXPECT_TRUE(static_cast<bool>(k.read)) << k.key;
        }
        EXPECT_FALSE(table.empty());
    };
    check(LinkKeys());
    check(TopologyKeys());
    check(DcqcnKeys());
    check(TransportKeys());
    for (const auto& k : TopologyKeys())
    {
        EXPECT_FALSE(k.kinds.empty()) << k.key;
    }
}

TEST(SpecTables, DocsKeysMdIsTheGeneratedReference)
{
    std::ifstream in(std::string(AI_FABRIC_SOURCE_DIR) + "/docs/keys.md");
    ASSERT_TRUE(in) << "docs/keys.md is missing";
    std::ostringstream file;
    file << in.rdbuf();
    std::ostringstream generated;
    WriteKeyReference(generated);
    EXPECT_EQ(file.str(), generated.str())
        << "docs/keys.md is stale: run 'build/ai-fabric keys > docs/keys.md'";
}

} // namespace

namespace
{

TEST(SpecNames, AutoIsResolvedFromTheLinkProfiles)
{
    ns3::LinkProfile ib = *ns3::FindLinkProfile("ib-ndr");
    ns3::LinkProfile roce = *ns3::FindLinkProfile("roce-400g");
    ns3::LinkProfile lossy = ib;
    lossy.flowControl = ns3::LinkProfile::FlowControl::NONE;
    using Cc = ns3::CongestionControlSetting;
    using Rel = ns3::ReliabilitySetting;
    // congestion_control auto: dcqcn where a link marks ECN (RoCE presets), else none.
    EXPECT_EQ(ns3::ResolveCongestionControl(Cc::AUTO, {ib}), Cc::NONE);
    EXPECT_EQ(ns3::ResolveCongestionControl(Cc::AUTO, {ib, roce}),
              roce.ecnKmin > 0 ? Cc::DCQCN : Cc::NONE);
    EXPECT_EQ(ns3::ResolveCongestionControl(Cc::NONE, {roce}), Cc::NONE);
    // reliability auto: go-back-n if any link is lossy, else none.
    EXPECT_EQ(ns3::ResolveReliability(Rel::AUTO, {ib, roce}), Rel::NONE);
    EXPECT_EQ(ns3::ResolveReliability(Rel::AUTO, {ib, lossy}), Rel::GO_BACK_N);
    EXPECT_EQ(ns3::ResolveReliability(Rel::GO_BACK_N, {ib}), Rel::GO_BACK_N);
    // attribution auto: on up to ATTRIBUTION_AUTO_MAX_MESSAGES messages.
    using Att = ns3::AttributionSetting;
    EXPECT_TRUE(ns3::ResolveAttribution(Att::AUTO, ns3::ATTRIBUTION_AUTO_MAX_MESSAGES));
    EXPECT_FALSE(ns3::ResolveAttribution(Att::AUTO, ns3::ATTRIBUTION_AUTO_MAX_MESSAGES + 1));
    EXPECT_TRUE(ns3::ResolveAttribution(Att::ON, ns3::ATTRIBUTION_AUTO_MAX_MESSAGES + 1));
    EXPECT_FALSE(ns3::ResolveAttribution(Att::OFF, 1));
}

TEST(SpecNames, EveryNameReadsBackAsItsSetting)
{
    // Each enum's values are in the order of its names; a name parses to its value.
    for (const auto& name : ns3::CongestionControlNames())
    {
        ns3::CongestionControlSetting s{};
        ASSERT_TRUE(ns3::ParseSpecName(name, s)) << name;
        EXPECT_EQ(ns3::SpecName(s), name);
    }
    for (const auto& name : ns3::ReliabilityNames())
    {
        ns3::ReliabilitySetting s{};
        ASSERT_TRUE(ns3::ParseSpecName(name, s)) << name;
        EXPECT_EQ(ns3::SpecName(s), name);
    }
    for (const auto& name : ns3::AttributionNames())
    {
        ns3::AttributionSetting s{};
        ASSERT_TRUE(ns3::ParseSpecName(name, s)) << name;
        EXPECT_EQ(ns3::SpecName(s), name);
    }
    for (const auto& name : ns3::ForwardingNames())
    {
        ns3::ForwardingMode m{};
        ASSERT_TRUE(ns3::ParseSpecName(name, m)) << name;
        EXPECT_EQ(ns3::SpecName(m), name);
        ns3::TypeId tid;
        EXPECT_TRUE(ns3::TypeId::LookupByNameFailSafe(ns3::ForwardingTypeName(m), &tid)) << name;
    }
    for (const auto& name : ns3::PathChoiceNames())
    {
        ns3::PathChoice c{};
        ASSERT_TRUE(ns3::ParseSpecName(name, c)) << name;
        EXPECT_EQ(ns3::SpecName(c), name);
        const std::string type = ns3::PathChoiceTypeName(c);
        EXPECT_EQ(type.empty(), c == ns3::PathChoice::MINIMAL) << name;
        ns3::TypeId tid;
        EXPECT_TRUE(type.empty() || ns3::TypeId::LookupByNameFailSafe(type, &tid)) << name;
    }
    ns3::ForwardingMode m{};
    EXPECT_FALSE(ns3::ParseSpecName("random", m));
    ns3::PathChoice c{};
    EXPECT_FALSE(ns3::ParseSpecName("shortest", c));
}

// The scheduler names: the ns-3 TestSuite ai-fabric-scheduler (SchedulerNamesTestCase).

} // namespace
