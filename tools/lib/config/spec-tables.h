/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SPEC_TABLES_H
#define AI_FABRIC_SPEC_TABLES_H

#include "config/spec-schema.h"

#include "ns3/link-profile.h"
#include "ns3/topology-spec.h"

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace spec
{

/// ns-3 attributes to set, as (attribute name, exact ns-3 value string) pairs.
using AttributeList = std::vector<std::pair<std::string, std::string>>;

/**
 * \ingroup ai-fabric
 * \brief The schema of a `link:` mapping (also `host_link:`, `nvlink:` and a custom link's
 * `link:`): every overridable LinkProfile field, in documentation order (`profile`, the
 * preset the keys modify, is read before them and is not in the table).
 * \return the table
 */
const SpecTable<LinkProfile>& LinkKeys();

/**
 * \ingroup ai-fabric
 * \brief The schema of a topology mapping: every key but `name` and `kind`, in reading
 * order, each with the kinds that take it (SpecKey::kinds, never empty).
 * \return the table
 */
const SpecTable<TopologySpec>& TopologyKeys();

/**
 * \ingroup ai-fabric
 * \brief The schema of the scenario's `dcqcn:` mapping (attributes of ns3::Dcqcn).
 * \return the table
 */
const SpecTable<AttributeList>& DcqcnKeys();

/**
 * \ingroup ai-fabric
 * \brief The schema of the go-back-N keys of the scenario's `transport:` mapping
 * (attributes of ns3::RdmaTransport; `reliability` is read before them).
 * \return the table
 */
const SpecTable<AttributeList>& TransportKeys();

/**
 * \ingroup ai-fabric
 * \brief The keys of the scenario's `adaptive_routing:` mapping that set attributes of
 * ns3::AdaptiveRouting (only with `forwarding: adaptive`).
 * \return the table
 */
const SpecTable<AttributeList>& AdaptiveRoutingKeys();

/**
 * \ingroup ai-fabric
 * \brief The keys of the scenario's `adaptive_routing:` mapping that set attributes of
 * ns3::UgalRouting (only on a Dragonfly+ with `routing: ugal`).
 * \return the table
 */
const SpecTable<AttributeList>& UgalRoutingKeys();

struct SweepFileReading;
struct SweepParameterReading;
struct SweepMetricReading;
struct ValidationFileReading;
struct ValidationCaseReading;
struct ValidationRunReading;

/**
 * \ingroup ai-fabric
 * \brief The schema of a sweep file (ReadSweepFile(), docs/sweep.md), in reading order.
 * \return the table
 */
const SpecTable<SweepFileReading>& SweepFileKeys();

/**
 * \ingroup ai-fabric
 * \brief The schema of one entry of a sweep file's `parameters`.
 * \return the table
 */
const SpecTable<SweepParameterReading>& SweepParameterKeys();

/**
 * \ingroup ai-fabric
 * \brief The schema of one entry of a sweep file's `metrics`.
 * \return the table
 */
const SpecTable<SweepMetricReading>& SweepMetricKeys();

/**
 * \ingroup ai-fabric
 * \brief The schema of a validation case file (ReadValidationCaseFile(),
 * docs/validation.md), in reading order.
 * \return the table
 */
const SpecTable<ValidationFileReading>& ValidationFileKeys();

/**
 * \ingroup ai-fabric
 * \brief The schema of one validation case, in reading order.
 * \return the table
 */
const SpecTable<ValidationCaseReading>& ValidationCaseKeys();

/**
 * \ingroup ai-fabric
 * \brief The schema of one entry of a validation case's `runs`.
 * \return the table
 */
const SpecTable<ValidationRunReading>& ValidationRunKeys();

/**
 * \ingroup ai-fabric
 * \brief Write the key reference generated from the schema tables (docs/keys.md; the
 * output of `ai-fabric keys`): one Markdown table per spec kind, with each key's value
 * form, range and meaning (and, for topologies, the kinds that take it).
 * \param os the stream
 */
void WriteKeyReference(std::ostream& os);

} // namespace spec
} // namespace ns3

#endif /* AI_FABRIC_SPEC_TABLES_H */
