/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SPEC_SCHEMA_H
#define AI_FABRIC_SPEC_SCHEMA_H

#include "config/spec-toolkit.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace spec
{

/**
 * \ingroup ai-fabric
 * \brief One key of a spec kind's schema table: the YAML key, how its value is written,
 * its allowed range, what it means, and how it lands in the spec struct.
 *
 * A table of these (SpecTable) is the one declaration of a kind's keys: it drives the
 * reading (each key's reader in table order), the known-key lists of Mapping (unknown-key
 * hints), the per-kind rejection of topology keys, and the generated key reference
 * (`ai-fabric keys`, docs/keys.md).
 *
 * \tparam Spec the struct the keys fill (LinkProfile, TopologySpec, ...)
 */
template<class Spec>
struct SpecKey
{
    std::string key;                               //!< the YAML key
    std::string value;                             //!< how the value is written, for docs
    std::string range;                             //!< the allowed values, for docs ("" = any)
    std::string doc;                               //!< what the key means, for docs
    std::function<void(const Field&, Spec&)> read; //!< reads the value into its member(s)
    std::vector<std::string> kinds{}; //!< the kinds that take the key; empty = every kind
    /// What ReadKeys() does when the key is not given (a default that depends on other
    /// keys, or a "needs" error), in table order; null: nothing.
    std::function<void(Spec&)> absent{};

    /**
     * \param only the kinds that take the key
     * \return this key, restricted to \p only
     */
    SpecKey For(const std::vector<std::string>& only) const
    {
        SpecKey k = *this;
        k.kinds = only;
        return k;
    }

    /**
     * \param onAbsent what to do when the key is not given
     * \return this key, with \p onAbsent as its absent hook
     */
    SpecKey WhenAbsent(std::function<void(Spec&)> onAbsent) const
    {
        SpecKey k = *this;
        k.absent = std::move(onAbsent);
        return k;
    }
};

/// A spec kind's keys, in reading (and documentation) order.
template<class Spec>
using SpecTable = std::vector<SpecKey<Spec>>;

/// Whether a quantity may be zero.
enum class Zero
{
    ALLOWED,  //!< 0 is a valid value
    REJECTED, //!< the value must be greater than 0
};

/**
 * \brief Read a mapping's keys in table order: each key given is read, each key left out
 * runs its absent hook. The table's order is the reading order, so the first error a
 * file has is the first in table order.
 * \param table the schema table
 * \param fields the mapping's fields (Mapping::Fields(), FieldsOf())
 * \param spec what the keys fill
 */
template<class Spec>
void
ReadKeys(const SpecTable<Spec>& table, const std::vector<Field>& fields, Spec& spec)
{
    for (const auto& k : table)
    {
        if (const Field* f = FindField(fields, k.key))
        {
            k.read(*f, spec);
        }
        else if (k.absent)
        {
            k.absent(spec);
        }
    }
}

/**
 * \param zero whether zero is allowed
 * \return the range in words, for docs
 */
inline std::string
ZeroRange(Zero zero)
{
    return zero == Zero::REJECTED ? "> 0" : ">= 0";
}

/**
 * \param table a schema table
 * \param first keys to put first (keys read outside the table, such as `name`)
 * \return \p first, then the table's keys, in order
 */
template<class Spec>
std::vector<std::string>
KeyNames(const SpecTable<Spec>& table, const std::vector<std::string>& first = {})
{
    std::vector<std::string> names = first;
    for (const auto& k : table)
    {
        names.push_back(k.key);
    }
    return names;
}

/**
 * \brief A data rate member ("400Gbps").
 * \param key the YAML key
 * \param member the member it sets
 * \param zero whether 0 is allowed
 * \param doc what it means
 * \return the key
 */
template<class Spec>
SpecKey<Spec>
RateKey(const std::string& key, DataRate Spec::*member, Zero zero, const std::string& doc)
{
    return {key,
            "data rate",
            ZeroRange(zero) + ", at most 100Tbps",
            doc,
            [member, zero](const Field& f, Spec& s) {
                s.*member = ReadRate(f, zero == Zero::REJECTED);
            }};
}

/**
 * \brief A byte count member ("4096B", "256KiB"), at most \p limit and what the member's type
 * holds.
 * \param key the YAML key
 * \param member the member it sets
 * \param zero whether 0 is allowed
 * \param doc what it means
 * \param limit the largest value the model computes correctly (LinkProfile's maxima)
 * \return the key
 */
template<class Spec, class U>
SpecKey<Spec>
BytesKey(const std::string& key,
         U Spec::*member,
         Zero zero,
         const std::string& doc,
         uint64_t limit = std::numeric_limits<U>::max())
{
    const uint64_t max = std::min<uint64_t>(limit, std::numeric_limits<U>::max());
    std::string range = ZeroRange(zero);
    if (max < std::numeric_limits<uint64_t>::max())
    {
        range += ", at most " + std::to_string(max) + " B";
    }
    return {key, "size", range, doc, [member, zero, max](const Field& f, Spec& s) {
                s.*member = static_cast<U>(ReadBytes(f, zero == Zero::REJECTED, max));
            }};
}

/**
 * \brief A duration member ("250ns"), exact to the picosecond.
 * \param key the YAML key
 * \param member the member it sets
 * \param zero whether 0 is allowed
 * \param doc what it means
 * \return the key
 */
template<class Spec>
SpecKey<Spec>
DurationKey(const std::string& key, Time Spec::*member, Zero zero, const std::string& doc)
{
    return {key, "duration", ZeroRange(zero), doc, [member, zero](const Field& f, Spec& s) {
                s.*member = ReadTime(f, zero == Zero::REJECTED);
            }};
}

/**
 * \brief A boolean member: exactly `true` or `false`.
 * \param key the YAML key
 * \param member the member it sets
 * \param doc what it means
 * \return the key
 */
template<class Spec>
SpecKey<Spec>
BoolKey(const std::string& key, bool Spec::*member, const std::string& doc)
{
    return {key, "`true` or `false`", "", doc, [member](const Field& f, Spec& s) {
                s.*member = ReadBool(f);
            }};
}

/**
 * \brief An integer: plain decimal digits, from \p min to \p max, handed to a setter (for
 * a value that lands in a member of a member, such as a field of a topology's kind).
 * \param key the YAML key
 * \param min the smallest value
 * \param max the largest value
 * \param doc what it means
 * \param set called as set(spec, value)
 * \return the key
 */
template<class Spec, class Set>
SpecKey<Spec>
IntegerKeyTo(const std::string& key, uint64_t min, uint64_t max, const std::string& doc, Set set)
{
    return {key,
            "integer",
            std::to_string(min) + " to " + std::to_string(max),
            doc,
            [set, min, max](const Field& f, Spec& s) {
                set(s, ReadInteger(f, min, max));
            }};
}

/**
 * \brief An integer member: plain decimal digits, from \p min to \p max.
 * \param key the YAML key
 * \param member the member it sets
 * \param min the smallest value
 * \param max the largest value (at most what the member's type holds)
 * \param doc what it means
 * \return the key
 */
template<class Spec, class U>
SpecKey<Spec>
IntegerKey(const std::string& key,
           U Spec::*member,
           uint64_t min,
           uint64_t max,
           const std::string& doc)
{
    return IntegerKeyTo<Spec>(key, min, max, doc, [member](Spec& s, uint64_t value) {
        s.*member = static_cast<U>(value);
    });
}

/**
 * \brief A number member between 0 and 1, plain decimal ("0.2").
 * \param key the YAML key
 * \param member the member it sets
 * \param doc what it means
 * \return the key
 */
template<class Spec>
SpecKey<Spec>
FractionKey(const std::string& key, double Spec::*member, const std::string& doc)
{
    return {key, "number", "0 to 1, plain decimal", doc, [member](const Field& f, Spec& s) {
                s.*member = ReadFraction(f);
            }};
}

/**
 * \brief A key with its own reader (a choice, a ratio, a nested mapping, a list).
 * \param key the YAML key
 * \param value how the value is written, for docs
 * \param range the allowed values, for docs
 * \param doc what it means
 * \param read the reader
 * \return the key
 */
template<class Spec>
SpecKey<Spec>
CustomKey(const std::string& key,
          const std::string& value,
          const std::string& range,
          const std::string& doc,
          std::function<void(const Field&, Spec&)> read)
{
    return {key, value, range, doc, std::move(read)};
}

} // namespace spec
} // namespace ns3

#endif /* AI_FABRIC_SPEC_SCHEMA_H */
