/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SPEC_TOOLKIT_H
#define AI_FABRIC_SPEC_TOOLKIT_H

#include "ns3/data-rate.h"
#include "ns3/link-profile.h"
#include "ns3/nstime.h"
#include "ns3/spec-error.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The one toolkit every YAML reader of the tool is built on (scenario, topology,
 * traffic, sweep and validation-case files).
 *
 * Locations (At()), word lists and did-you-mean hints (JoinList(), NearestWord(),
 * NearestWithin()), a checked mapping with known keys (Mapping) and its fields (Field),
 * scalar readers with units and ranges (ReadInteger(), ReadBytes(), ReadTime(),
 * ReadRate(), ReadBool(), ReadFraction(), ReadName(), ReadChoice()) and the guarded file
 * loader (LoadYamlFile()). Every user error is thrown as a SpecError located at the
 * offending node.
 */
namespace spec
{

/// Largest YAML file a reader accepts, bytes (64 MiB): a scenario, topology or traffic file
/// is a few KiB, a matrix of a few thousand ranks a few tens of MiB.
constexpr std::uintmax_t MAX_YAML_FILE_BYTES = 64ull << 20;

/// Longest duration a reader accepts (10^6 s = 10^18 ps): a start plus a stop time plus
/// delays stay below ns-3's 2^63 ps (106 days).
constexpr int64_t MAX_DURATION_PS = 1000000000000000000LL;

/**
 * \param file the file a node came from
 * \param mark the node's yaml-cpp mark (0-based)
 * \return the 1-based location, or the file alone if the mark is unknown
 */
SpecLocation At(const std::string& file, const YAML::Mark& mark);

/**
 * \param items words
 * \return "a, b, c"
 */
std::string JoinList(const std::vector<std::string>& items);

/**
 * \param list words
 * \param word a word
 * \return true if \p list holds \p word
 */
bool Contains(const std::vector<std::string>& list, const std::string& word);

/**
 * \param path a path
 * \return the file name without directory and extension
 */
std::string Stem(const std::string& path);

/// Longest name (scenario, topology, traffic, collective, sweep, case), bytes: names become
/// directory and file names (results/NAME/, NAME-capture-...pcap) and table cells.
constexpr std::size_t MAX_NAME_BYTES = 128;

/**
 * \brief The one check for names that become paths or table cells.
 *
 * A name is a single safe path component: not empty, not '.' or '..', at most
 * MAX_NAME_BYTES bytes, valid UTF-8, no leading or trailing whitespace, and no '/', '\\',
 * ',', '"', NUL or other control character.
 *
 * \param name a name
 * \return what is wrong with it ("" if nothing), e.g. "must not be '..'"
 */
std::string NameProblem(const std::string& name);

/**
 * \brief The name of a file without a `name:` key (its stem, Stem()), checked as a name.
 * \param stem the default name
 * \param where where to report a stem that is no usable name (the file's mapping)
 * \return \p stem
 * \throws SpecError at \p where if the stem fails NameProblem() (a file named `...yaml`
 *         would otherwise write its results into `results/..`, the current directory)
 */
std::string CheckedDefaultName(const std::string& stem, const SpecLocation& where);

/**
 * \param text a string
 * \return true if \p text is valid UTF-8 (no overlong forms, surrogates or code points
 *         above U+10FFFF)
 */
bool IsValidUtf8(const std::string& text);

/**
 * \brief Read a whole input file the user named, with the checks every reader shares.
 *
 * Refuses a path holding a NUL byte, a missing file, a directory, anything that is no
 * regular file (a FIFO would block, a device could be endless: the file is opened without
 * blocking and checked on its descriptor) and a file over \p maxBytes, each with a
 * SpecError at \p referencedAt (where the file was named) or at the file itself.
 *
 * \param file the path to open and to name in locations
 * \param what the file's kind in messages ("scenario", "sweep", "routing matrix CSV")
 * \param referencedAt where the file was named (nullptr for a file named on the command line)
 * \param maxBytes the largest file accepted
 * \return the file's bytes
 */
std::string ReadInputFile(const std::string& file,
                          const std::string& what,
                          const SpecLocation* referencedAt,
                          std::uintmax_t maxBytes = MAX_YAML_FILE_BYTES);

/**
 * \brief Edit distance: Levenshtein, plus adjacent transpositions (optimal string
 * alignment) when \p transpositions is set.
 * \param a a word
 * \param b a word
 * \param transpositions whether swapping two adjacent letters counts as one edit
 * \return the number of edits turning \p a into \p b
 */
std::size_t EditDistance(const std::string& a, const std::string& b, bool transpositions = true);

/**
 * \brief The did-you-mean of the scenario reader: case, '-' and ' ' folded to '_',
 * transpositions count one edit, a prefix or an extension of a known word is close, and
 * a word is close within a third of its length (at least 1).
 * \param word what the user wrote
 * \param known the accepted words
 * \return the nearest accepted word when it is close enough to be a typo, else ""
 */
std::string NearestWord(const std::string& word, const std::vector<std::string>& known);

/**
 * \brief A plain did-you-mean: the first of \p known with the smallest Levenshtein
 * distance to \p word, if at most \p maxDistance (the sweep reader's hint).
 * \param word what the user wrote
 * \param known the accepted words
 * \param maxDistance the largest distance still suggested
 * \return the nearest word, or ""
 */
std::string NearestWithin(const std::string& word,
                          const std::vector<std::string>& known,
                          std::size_t maxDistance);

/**
 * \param node a YAML node
 * \return its kind in words, for "expected X, got Y" messages
 */
std::string Describe(const YAML::Node& node);

/**
 * \ingroup ai-fabric
 * \brief One key: value pair of a mapping, with both nodes (for their locations).
 */
struct Field
{
    std::string key;    //!< the key
    YAML::Node keyNode; //!< the key node
    YAML::Node value;   //!< the value node
    std::string file;   //!< the file both came from

    /// \return the key's location
    SpecLocation KeyWhere() const;

    /// \return the value's location (the key's for an empty value, whose mark points past it)
    SpecLocation ValueWhere() const;

    /**
     * \brief Throw a SpecError at the value, prefixed with the key.
     * \param message what is wrong
     */
    [[noreturn]] void Fail(const std::string& message) const;
};

/**
 * \ingroup ai-fabric
 * \brief A checked YAML mapping: only known keys, each at most once.
 */
class Mapping
{
  public:
    /**
     * \param node the node, which must be a mapping
     * \param file the file it came from
     * \param section the section's name in messages ("topology", "link", ...)
     * \param known the accepted keys
     * \param hints extra advice for particular unknown keys (misplaced keys, aliases)
     * \param listed the keys an unknown key without a near match lists; empty = \p known
     * \param listedAs how the message introduces \p listed ("known keys", "keys of kind X")
     * \throws SpecError if the node is no mapping, or has an unknown or duplicate key
     */
    Mapping(const YAML::Node& node,
            const std::string& file,
            const std::string& section,
            const std::vector<std::string>& known,
            const std::map<std::string, std::string>& hints = {},
            const std::vector<std::string>& listed = {},
            const std::string& listedAs = "known keys");

    /**
     * \param key a key
     * \return the field, or nullptr if the key is absent
     */
    const Field* Find(const std::string& key) const;

    /**
     * \param key a required key
     * \return the field
     * \throws SpecError located at this mapping if the key is absent
     */
    const Field& Require(const std::string& key) const;

    /// \return the fields, in file order
    const std::vector<Field>& Fields() const;

    /// \return the mapping's location
    SpecLocation Where() const;

    /// \return the file the mapping came from
    const std::string& File() const;

  private:
    YAML::Node m_node;           //!< the mapping
    std::string m_file;          //!< its file
    std::string m_section;       //!< its name in messages
    std::vector<Field> m_fields; //!< its fields, in file order
};

/**
 * \brief The fields of a mapping node, in file order, with no check: for a reader that
 * words its own key errors (the sweep and validation-case readers check the keys with
 * their own messages first). A key that is no scalar has the key "".
 * \param map the node, a mapping
 * \param file the file it came from
 * \return its fields
 */
std::vector<Field> FieldsOf(const YAML::Node& map, const std::string& file);

/**
 * \param fields fields
 * \param key a key
 * \return the first field with that key, or nullptr
 */
const Field* FindField(const std::vector<Field>& fields, const std::string& key);

/**
 * \param f a field
 * \param expected what the value should be, for the message ("a string", "an integer")
 * \return the scalar's text
 * \throws SpecError at the value if it is not a scalar
 */
std::string ScalarOf(const Field& f, const std::string& expected);

/**
 * \brief Strict decimal integer: digits only (no sign, spaces, leading zeros, hex, fraction).
 * \param text the scalar's text
 * \param max the largest allowed value
 * \return the value
 * \throws UnitError (reused for its message) on anything else
 */
uint64_t StrictInteger(const std::string& text, uint64_t max);

/**
 * \param f a field
 * \param min the smallest allowed value
 * \param max the largest allowed value
 * \return the integer value
 * \throws SpecError at the value
 */
uint64_t ReadInteger(const Field& f, uint64_t min, uint64_t max);

/// Most seeds a `seeds:` list may hold (a scenario's or a sweep file's).
constexpr std::size_t MAX_SEEDS = 1000;

/**
 * \brief Read a `seeds:` list: 1 to MAX_SEEDS distinct integers, each 1 to 4294967295 (ns-3's
 * seed is 32-bit).
 * \param f the field
 * \return the seeds, in the order given
 * \throws SpecError at the list or at the offending entry
 */
std::vector<uint32_t> ReadSeedList(const Field& f);

/**
 * \param f a field
 * \param positive whether zero is rejected
 * \param max the largest allowed value, bytes
 * \return the byte count
 * \throws SpecError at the value
 */
uint64_t ReadBytes(const Field& f,
                   bool positive,
                   uint64_t max = std::numeric_limits<uint64_t>::max());

/**
 * \param f a field
 * \param positive whether zero is rejected
 * \return the duration
 * \throws SpecError at the value
 */
Time ReadTime(const Field& f, bool positive);

/**
 * \param f a field
 * \param positive whether zero is rejected
 * \return the data rate
 * \throws SpecError at the value
 */
DataRate ReadRate(const Field& f, bool positive = true);

/**
 * \param t a duration
 * \return it as an ns-3 time string in whole picoseconds, e.g. "55000000ps" (exact)
 */
std::string PicoSecondsText(Time t);

/**
 * \param rate a data rate
 * \return it as an ns-3 data-rate string in bits per second, e.g. "400000000000bps" (exact)
 */
std::string BitRateText(DataRate rate);

/**
 * \param value a finite number
 * \return the shortest decimal text (C locale) that reads back as exactly \p value
 */
std::string DoubleText(double value);

/**
 * \brief A boolean: exactly `true` or `false` (quoted or not). YAML 1.1 spellings that
 * yaml-cpp would also accept (yes, no, on, off, True, y) are rejected, so that a value
 * means the same to every YAML reader.
 * \param f a field
 * \return the value
 * \throws SpecError at the value
 */
bool ReadBool(const Field& f);

/**
 * \brief A plain decimal number between 0 and 1: `DIGITS [ "." DIGITS ]`, no sign,
 * exponent, unit or leading zeros (`0.2`, `1`, `0.05`).
 * \param f a field
 * \return the value, in [0, 1]
 * \throws SpecError at the value
 */
double ReadFraction(const Field& f);

/**
 * \brief A plain decimal number between 0 and \p max, in ReadFraction()'s grammar (no sign,
 * exponent, unit or leading zeros).
 * \param f a field
 * \param max the largest value
 * \param example a value to show in the error
 * \return the value, in [0, max]
 * \throws SpecError at the value
 */
double ReadPlainDecimal(const Field& f, double max, const std::string& example);

/**
 * \brief A name: non-empty, no surrounding spaces, none of / \ , " or control characters
 * (names end up in result paths and CSV cells).
 * \param f a field
 * \return the name
 * \throws SpecError at the value
 */
std::string ReadName(const Field& f);

/**
 * \param f a field
 * \param what the value's name in messages ("op", "topology kind")
 * \param choices the accepted values
 * \return the value, one of \p choices
 * \throws SpecError at the value, suggesting the nearest choice
 */
std::string ReadChoice(const Field& f,
                       const std::string& what,
                       const std::vector<std::string>& choices);

/**
 * \brief Open and parse one YAML file holding one top-level mapping.
 *
 * Refuses what is no regular file, a file over MAX_YAML_FILE_BYTES, malformed YAML, an
 * empty file and more than one document, each with a located SpecError.
 *
 * \param file the path to open and to name in locations
 * \param what "scenario", "topology" or "traffic"
 * \param referencedAt where the file was named (nullptr for the top-level file)
 * \param keys the file's keys, for the empty-file message
 * \return the top-level node (a mapping is checked by the caller's Mapping)
 */
YAML::Node LoadYamlFile(const std::string& file,
                        const std::string& what,
                        const SpecLocation* referencedAt,
                        const std::vector<std::string>& keys);

} // namespace spec
} // namespace ns3

#endif /* AI_FABRIC_SPEC_TOOLKIT_H */
