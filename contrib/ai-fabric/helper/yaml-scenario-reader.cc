/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "yaml-scenario-reader.h"

#include "units.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace ns3
{

namespace
{

namespace fs = std::filesystem;

/// Keys of a scenario file.
const std::vector<std::string> SCENARIO_KEYS
    = {"name", "seed", "stop_time", "forwarding", "topology", "traffic"};
/// Keys of a topology mapping.
const std::vector<std::string> TOPOLOGY_KEYS
    = {"name", "kind", "gpus", "leaves", "spines", "gpus_per_leaf", "links_per_spine", "link"};
/// Topology keys that only kind "leaf-spine" takes.
const std::vector<std::string> LEAF_SPINE_KEYS
    = {"leaves", "spines", "gpus_per_leaf", "links_per_spine"};
/// Keys of a topology's link mapping.
const std::vector<std::string> LINK_KEYS = {"profile",
                                            "rate",
                                            "mtu",
                                            "header_size",
                                            "message_header_size",
                                            "propagation_delay",
                                            "switch_latency",
                                            "nic_latency"};
/// Keys of a traffic mapping.
const std::vector<std::string> TRAFFIC_KEYS = {"name", "collectives"};
/// Keys of one collective.
const std::vector<std::string> COLLECTIVE_KEYS
    = {"name", "op", "algorithm", "size", "ranks", "start"};

/// Topology kinds the builder knows.
const std::vector<std::string> TOPOLOGY_KINDS = {"single-switch", "leaf-spine"};
/// Collective operations.
const std::vector<std::string> COLLECTIVE_OPS = {"all-reduce", "reduce-scatter", "all-gather"};
/// Collective algorithms.
const std::vector<std::string> COLLECTIVE_ALGORITHMS = {"ring"};
/// Switch forwarding modes (FabricSwitch::ParseForwarding).
const std::vector<std::string> FORWARDING_MODES = {"ecmp", "spray", "adaptive"};

/// Default simulated-time limit, picoseconds (10 s).
constexpr int64_t DEFAULT_STOP_TIME_PS = 10000000000000LL;

/**
 * \param file the file a node came from
 * \param mark the node's yaml-cpp mark (0-based)
 * \return the 1-based location, or the file alone if the mark is unknown
 */
SpecLocation
At(const std::string& file, const YAML::Mark& mark)
{
    SpecLocation loc;
    loc.file = file;
    if (!mark.is_null() && mark.line >= 0 && mark.column >= 0)
    {
        loc.line = mark.line + 1;
        loc.column = mark.column + 1;
    }
    return loc;
}

/**
 * \param items words
 * \return "a, b, c"
 */
std::string
JoinList(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& i : items)
    {
        out += (out.empty() ? "" : ", ") + i;
    }
    return out;
}

/**
 * \param s a word
 * \return the word lower-cased, with '-' and ' ' read as '_', for fuzzy comparison
 */
std::string
Fold(const std::string& s)
{
    std::string out = s;
    for (auto& c : out)
    {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (c == '-' || c == ' ')
        {
            c = '_';
        }
    }
    return out;
}

/**
 * \brief Optimal-string-alignment distance (Levenshtein plus adjacent transpositions).
 * \param a a word
 * \param b a word
 * \return the number of edits turning \p a into \p b
 */
std::size_t
EditDistance(const std::string& a, const std::string& b)
{
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
    {
        d[i][0] = i;
    }
    for (std::size_t j = 0; j <= b.size(); ++j)
    {
        d[0][j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
            {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

/**
 * \param word what the user wrote
 * \param known the accepted words
 * \return the nearest accepted word when it is close enough to be a typo, else ""
 */
std::string
NearestWord(const std::string& word, const std::vector<std::string>& known)
{
    const std::string folded = Fold(word);
    std::string best;
    std::size_t bestDistance = std::numeric_limits<std::size_t>::max();
    for (const auto& k : known)
    {
        const std::string fk = Fold(k);
        std::size_t dist = EditDistance(folded, fk);
        // A prefix or an extension of a known word ("gpu", "sizes") is close too.
        if (fk.size() > 2 && folded.size() > 2
            && (fk.rfind(folded, 0) == 0 || folded.rfind(fk, 0) == 0))
        {
            dist = std::min<std::size_t>(dist, 1);
        }
        const std::size_t limit = std::max<std::size_t>(1, std::max(fk.size(), folded.size()) / 3);
        if (dist <= limit && dist < bestDistance)
        {
            best = k;
            bestDistance = dist;
        }
    }
    return best;
}

/**
 * \param node a YAML node
 * \return its kind in words, for "expected X, got Y" messages
 */
std::string
Describe(const YAML::Node& node)
{
    switch (node.Type())
    {
        case YAML::NodeType::Null:
            return "nothing";
        case YAML::NodeType::Scalar:
            if (node.Scalar().size() > 60)
            {
                return "'" + node.Scalar().substr(0, 57) + "...'";
            }
            return "'" + node.Scalar() + "'";
        case YAML::NodeType::Sequence:
            return "a sequence";
        case YAML::NodeType::Map:
            return "a mapping";
        default:
            return "an undefined value";
    }
}

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
    SpecLocation KeyWhere() const
    {
        return At(file, keyNode.Mark());
    }

    /// \return the value's location (the key's for an empty value, whose mark points past it)
    SpecLocation ValueWhere() const
    {
        if (value.IsNull() || value.Mark().is_null())
        {
            return KeyWhere();
        }
        return At(file, value.Mark());
    }

    /**
     * \brief Throw a SpecError at the value, prefixed with the key.
     * \param message what is wrong
     */
    [[noreturn]] void Fail(const std::string& message) const
    {
        throw SpecError(ValueWhere(), key + ": " + message);
    }
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
     */
    Mapping(const YAML::Node& node,
            const std::string& file,
            const std::string& section,
            const std::vector<std::string>& known,
            const std::map<std::string, std::string>& hints = {})
        : m_node(node)
        , m_file(file)
        , m_section(section)
    {
        if (!node.IsMap())
        {
            throw SpecError(At(file, node.Mark()),
                            "expected a mapping for the " + section + " (keys: " + JoinList(known)
                                + "), got " + Describe(node));
        }
        for (auto it = node.begin(); it != node.end(); ++it)
        {
            Field f{"", it->first, it->second, file};
            if (!it->first.IsScalar())
            {
                throw SpecError(f.KeyWhere(),
                                "keys in the " + section + " must be plain names, got "
                                    + Describe(it->first));
            }
            f.key = it->first.Scalar();
            if (std::find(known.begin(), known.end(), f.key) == known.end())
            {
                std::string msg = "unknown key '" + f.key + "' in " + section + "; ";
                const auto hint = hints.find(f.key);
                const std::string nearest = NearestWord(f.key, known);
                if (f.key == "<<")
                {
                    msg += "YAML merge keys are not supported; write the keys out";
                }
                else if (hint != hints.end())
                {
                    msg += hint->second;
                }
                else if (!nearest.empty())
                {
                    msg += "did you mean '" + nearest + "'?";
                }
                else
                {
                    msg += "known keys: " + JoinList(known);
                }
                throw SpecError(f.KeyWhere(), msg);
            }
            for (const auto& seen : m_fields)
            {
                if (seen.key == f.key)
                {
                    throw SpecError(f.KeyWhere(),
                                    "duplicate key '" + f.key + "' in " + section
                                        + " (first given at line "
                                        + std::to_string(seen.KeyWhere().line) + ")");
                }
            }
            m_fields.push_back(f);
        }
    }

    /**
     * \param key a key
     * \return the field, or nullptr if the key is absent
     */
    const Field* Find(const std::string& key) const
    {
        for (const auto& f : m_fields)
        {
            if (f.key == key)
            {
                return &f;
            }
        }
        return nullptr;
    }

    /**
     * \param key a required key
     * \return the field
     * \throws SpecError located at this mapping if the key is absent
     */
    const Field& Require(const std::string& key) const
    {
        const Field* f = Find(key);
        if (!f)
        {
            throw SpecError(Where(), "missing required key '" + key + "' in " + m_section);
        }
        return *f;
    }

    /// \return the mapping's location
    SpecLocation Where() const
    {
        return At(m_file, m_node.Mark());
    }

    /// \return the file the mapping came from
    const std::string& File() const
    {
        return m_file;
    }

  private:
    YAML::Node m_node;           //!< the mapping
    std::string m_file;          //!< its file
    std::string m_section;       //!< its name in messages
    std::vector<Field> m_fields; //!< its fields, in file order
};

/**
 * \param f a field
 * \param expected what the value should be, for the message ("a string", "an integer")
 * \return the scalar's text
 * \throws SpecError at the value if it is not a scalar
 */
std::string
ScalarOf(const Field& f, const std::string& expected)
{
    if (!f.value.IsScalar())
    {
        f.Fail("expected " + expected + ", got " + Describe(f.value));
    }
    return f.value.Scalar();
}

/**
 * \brief Strict decimal integer: digits only (no sign, spaces, leading zeros, hex, fraction).
 * \param text the scalar's text
 * \param max the largest allowed value
 * \return the value
 * \throws UnitError (reused for its message) on anything else
 */
uint64_t
StrictInteger(const std::string& text, uint64_t max)
{
    if (text.empty())
    {
        throw UnitError("expected an integer, got an empty string");
    }
    if (std::isspace(static_cast<unsigned char>(text.front()))
        || std::isspace(static_cast<unsigned char>(text.back())))
    {
        throw UnitError("'" + text + "' has leading or trailing whitespace");
    }
    if (text[0] == '-')
    {
        throw UnitError("'" + text + "': negative values are not allowed");
    }
    if (text.size() > 1 && text[0] == '0'
        && (text[1] == 'x' || text[1] == 'X' || text[1] == 'o' || text[1] == 'b'))
    {
        throw UnitError("'" + text + "' is not a decimal integer");
    }
    uint64_t value = 0;
    bool tooLarge = false;
    for (char c : text)
    {
        if (c < '0' || c > '9')
        {
            if (c == '.' || c == 'e' || c == 'E')
            {
                throw UnitError("'" + text + "' is not a whole number");
            }
            throw UnitError("'" + text + "' is not an integer");
        }
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (value > (max - digit) / 10)
        {
            tooLarge = true;
        }
        else
        {
            value = value * 10 + digit;
        }
    }
    if (text.size() > 1 && text[0] == '0')
    {
        throw UnitError("'" + text + "': leading zeros are not allowed");
    }
    if (tooLarge)
    {
        throw UnitError("'" + text + "' is too large (at most " + std::to_string(max) + ")");
    }
    return value;
}

/**
 * \param f a field
 * \param min the smallest allowed value
 * \param max the largest allowed value
 * \return the integer value
 * \throws SpecError at the value
 */
uint64_t
ReadInteger(const Field& f, uint64_t min, uint64_t max)
{
    const std::string text = ScalarOf(f, "an integer");
    uint64_t value = 0;
    try
    {
        value = StrictInteger(text, max);
    }
    catch (const UnitError& e)
    {
        f.Fail(e.what());
    }
    if (value < min)
    {
        f.Fail("must be at least " + std::to_string(min) + ", got " + text);
    }
    return value;
}

/**
 * \param f a field
 * \param positive whether zero is rejected
 * \param max the largest allowed value, bytes
 * \return the byte count
 * \throws SpecError at the value
 */
uint64_t
ReadBytes(const Field& f, bool positive, uint64_t max = std::numeric_limits<uint64_t>::max())
{
    const std::string text = ScalarOf(f, "a size such as '256MiB'");
    uint64_t value = 0;
    try
    {
        value = ParseBytes(text);
    }
    catch (const UnitError& e)
    {
        f.Fail(e.what());
    }
    if (positive && value == 0)
    {
        f.Fail("must be greater than 0, got '" + text + "'");
    }
    if (value > max)
    {
        f.Fail("'" + text + "' is too large (at most " + std::to_string(max) + " bytes)");
    }
    return value;
}

/**
 * \param f a field
 * \param positive whether zero is rejected
 * \return the duration
 * \throws SpecError at the value
 */
Time
ReadTime(const Field& f, bool positive)
{
    const std::string text = ScalarOf(f, "a duration such as '250ns'");
    Time value;
    try
    {
        value = ParseTime(text);
    }
    catch (const UnitError& e)
    {
        f.Fail(e.what());
    }
    if (positive && value.IsZero())
    {
        f.Fail("must be greater than 0, got '" + text + "'");
    }
    return value;
}

/**
 * \param f a field
 * \return the data rate, > 0
 * \throws SpecError at the value
 */
DataRate
ReadRate(const Field& f)
{
    const std::string text = ScalarOf(f, "a data rate such as '400Gbps'");
    DataRate value;
    try
    {
        value = ParseDataRate(text);
    }
    catch (const UnitError& e)
    {
        f.Fail(e.what());
    }
    if (value.GetBitRate() == 0)
    {
        f.Fail("must be greater than 0, got '" + text + "'");
    }
    return value;
}

/**
 * \brief A name: non-empty, no surrounding spaces, none of / \ , " or control characters
 * (names end up in result paths and CSV cells).
 * \param f a field
 * \return the name
 * \throws SpecError at the value
 */
std::string
ReadName(const Field& f)
{
    const std::string text = ScalarOf(f, "a name");
    if (text.empty())
    {
        f.Fail("must not be empty");
    }
    if (std::isspace(static_cast<unsigned char>(text.front()))
        || std::isspace(static_cast<unsigned char>(text.back())))
    {
        f.Fail("'" + text + "' has leading or trailing whitespace");
    }
    for (char c : text)
    {
        if (c == '/' || c == '\\' || c == ',' || c == '"' || static_cast<unsigned char>(c) < 0x20
            || c == 0x7f)
        {
            f.Fail("'" + text + "' must not contain '/', '\\', ',', '\"' or control characters");
        }
    }
    return text;
}

/**
 * \param f a field
 * \param what the value's name in messages ("op", "topology kind")
 * \param choices the accepted values
 * \return the value, one of \p choices
 * \throws SpecError at the value, suggesting the nearest choice
 */
std::string
ReadChoice(const Field& f, const std::string& what, const std::vector<std::string>& choices)
{
    const std::string text = ScalarOf(f, "one of " + JoinList(choices));
    if (std::find(choices.begin(), choices.end(), text) != choices.end())
    {
        return text;
    }
    std::string msg = "unknown " + what + " '" + text + "'; ";
    const std::string nearest = NearestWord(text, choices);
    if (!nearest.empty())
    {
        msg += "did you mean '" + nearest + "'? ";
    }
    f.Fail(msg + "known: " + JoinList(choices));
}

/**
 * \brief Open and parse one YAML file holding one top-level mapping.
 * \param file the path to open and to name in locations
 * \param what "scenario", "topology" or "traffic"
 * \param referencedAt where the file was named (nullptr for the top-level file)
 * \param keys the file's keys, for the empty-file message
 * \return the top-level node (a mapping is checked by the caller's Mapping)
 */
YAML::Node
LoadYamlFile(const std::string& file,
             const std::string& what,
             const SpecLocation* referencedAt,
             const std::vector<std::string>& keys)
{
    const SpecLocation fileOnly{file, 0, 0};
    const SpecLocation where = referencedAt ? *referencedAt : fileOnly;
    const std::string prefix = referencedAt ? what + ": " : "";
    const std::string tail
        = referencedAt ? " (paths are relative to the directory of the file naming them)" : "";
    std::error_code ec;
    const fs::file_status status = fs::status(file, ec);
    if (!fs::exists(status))
    {
        throw SpecError(where,
                        prefix + "cannot open " + what + " file '" + file
                            + "': no such file or directory" + tail);
    }
    if (fs::is_directory(status))
    {
        throw SpecError(where,
                        prefix + "cannot read " + what + " file '" + file + "': it is a directory");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in)
    {
        throw SpecError(where,
                        prefix + "cannot open " + what + " file '" + file
                            + "': " + std::strerror(errno));
    }
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad())
    {
        throw SpecError(where, prefix + "cannot read " + what + " file '" + file + "'");
    }

    std::vector<YAML::Node> docs;
    try
    {
        docs = YAML::LoadAll(content.str());
    }
    catch (const YAML::Exception& e)
    {
        throw SpecError(At(file, e.mark), "malformed YAML: " + e.msg);
    }
    if (docs.empty() || (docs.size() == 1 && docs[0].IsNull()))
    {
        throw SpecError(fileOnly,
                        "the " + what + " file is empty; expected a mapping with keys "
                            + JoinList(keys));
    }
    if (docs.size() > 1)
    {
        throw SpecError(At(file, docs[1].Mark()),
                        "the " + what + " file holds more than one YAML document; expected one");
    }
    return docs[0];
}

/**
 * \param path a path
 * \return the file name without directory and extension
 */
std::string
Stem(const std::string& path)
{
    return fs::path(path).stem().string();
}

/**
 * \brief Parse a topology mapping.
 * \param node the mapping
 * \param file the file it came from
 * \param defaultName the name when the mapping has none
 * \return the topology
 */
TopologySpec
ParseTopology(const YAML::Node& node, const std::string& file, const std::string& defaultName)
{
    static const std::map<std::string, std::string> hints = {
        {"rate", "'rate' belongs under 'link:'"},
        {"mtu", "'mtu' belongs under 'link:'"},
        {"profile", "'profile' belongs under 'link:'"},
        {"header_size", "'header_size' belongs under 'link:'"},
        {"message_header_size", "'message_header_size' belongs under 'link:'"},
        {"propagation_delay", "'propagation_delay' belongs under 'link:'"},
        {"switch_latency", "'switch_latency' belongs under 'link:'"},
        {"nic_latency", "'nic_latency' belongs under 'link:'"},
        {"collectives", "'collectives' belongs in the traffic"},
        {"seed", "'seed' belongs in the scenario file"},
        {"stop_time", "'stop_time' belongs in the scenario file"},
        {"forwarding", "'forwarding' belongs in the scenario file"},
        {"link_profile", "write 'link:' with 'profile:' under it"},
        {"num_gpus", "did you mean 'gpus'?"},
        {"gpu_count", "did you mean 'gpus'?"},
        {"type", "did you mean 'kind'?"},
        {"leafs", "did you mean 'leaves'?"},
    };
    const Mapping m(node, file, "topology", TOPOLOGY_KEYS, hints);
    TopologySpec t;
    t.where = m.Where();
    t.name = defaultName;
    if (const Field* f = m.Find("name"))
    {
        t.name = ReadName(*f);
    }
    t.kind = ReadChoice(m.Require("kind"), "topology kind", TOPOLOGY_KINDS);
    const uint64_t u32max = std::numeric_limits<uint32_t>::max();
    if (t.kind == "single-switch")
    {
        for (const auto& key : LEAF_SPINE_KEYS)
        {
            if (const Field* f = m.Find(key))
            {
                throw SpecError(f->KeyWhere(),
                                "'" + key + "' applies only to kind leaf-spine, not " + t.kind);
            }
        }
        t.gpus = static_cast<uint32_t>(ReadInteger(m.Require("gpus"), 2, u32max));
    }
    else // leaf-spine
    {
        if (const Field* f = m.Find("gpus"))
        {
            throw SpecError(f->KeyWhere(),
                            "'gpus' does not apply to kind leaf-spine: its GPU count is "
                            "leaves x gpus_per_leaf");
        }
        t.leaves = static_cast<uint32_t>(ReadInteger(m.Require("leaves"), 1, u32max));
        t.spines = static_cast<uint32_t>(ReadInteger(m.Require("spines"), 1, u32max));
        t.gpusPerLeaf = static_cast<uint32_t>(ReadInteger(m.Require("gpus_per_leaf"), 1, u32max));
        t.linksPerSpine = 1;
        if (const Field* f = m.Find("links_per_spine"))
        {
            t.linksPerSpine = static_cast<uint32_t>(ReadInteger(*f, 1, u32max));
        }
        // Products of two uint32 values fit in uint64.
        const uint64_t gpus = static_cast<uint64_t>(t.leaves) * t.gpusPerLeaf;
        if (gpus < 2)
        {
            throw SpecError(t.where,
                            "a leaf-spine topology needs at least 2 GPUs; leaves x gpus_per_leaf "
                            "= " + std::to_string(gpus));
        }
        const uint64_t uplinks = static_cast<uint64_t>(t.spines) * t.linksPerSpine;
        if (gpus > u32max || uplinks > u32max || uplinks * t.leaves > u32max)
        {
            throw SpecError(t.where,
                            "the leaf-spine topology is too large: " + std::to_string(gpus)
                                + " GPUs and " + std::to_string(uplinks * t.leaves)
                                + " leaf-spine links (at most 4294967295 each)");
        }
        t.gpus = static_cast<uint32_t>(gpus);
    }

    std::string profile = "ib-ndr";
    const Field* linkField = m.Find("link");
    std::vector<std::string> overridden;
    if (linkField)
    {
        static const std::map<std::string, std::string> linkHints = {
            {"name", "choose the preset with 'profile'"},
            {"preset", "did you mean 'profile'?"},
            {"gpus", "'gpus' belongs in the topology, not under 'link:'"},
            {"kind", "'kind' belongs in the topology, not under 'link:'"},
            {"bandwidth", "did you mean 'rate'?"},
            {"latency", "write 'propagation_delay', 'switch_latency' or 'nic_latency'"},
        };
        if (!linkField->value.IsMap())
        {
            linkField->Fail("expected a mapping (e.g. 'profile: ib-ndr' on the next line, "
                            "indented), got "
                            + Describe(linkField->value));
        }
        const Mapping link(linkField->value, file, "link", LINK_KEYS, linkHints);
        if (const Field* f = link.Find("profile"))
        {
            profile = ScalarOf(*f, "a link profile name");
            if (!FindLinkProfile(profile))
            {
                std::vector<std::string> names;
                for (const auto& p : LinkProfilePresets())
                {
                    names.push_back(p.name);
                }
                std::string msg = "unknown link profile '" + profile + "'; ";
                const std::string nearest = NearestWord(profile, names);
                if (!nearest.empty())
                {
                    msg += "did you mean '" + nearest + "'? ";
                }
                f->Fail(msg + "known profiles: " + JoinList(names));
            }
        }
        t.link = *FindLinkProfile(profile);
        const uint64_t u32 = std::numeric_limits<uint32_t>::max();
        for (const auto& key : LINK_KEYS)
        {
            const Field* f = link.Find(key);
            if (!f || key == "profile")
            {
                continue;
            }
            overridden.push_back(key);
            if (key == "rate")
            {
                t.link.rate = ReadRate(*f);
            }
            else if (key == "mtu")
            {
                t.link.mtu = static_cast<uint32_t>(ReadBytes(*f, true, u32));
            }
            else if (key == "header_size")
            {
                t.link.headerBytes = static_cast<uint32_t>(ReadBytes(*f, false, u32));
            }
            else if (key == "message_header_size")
            {
                t.link.messageHeaderBytes = static_cast<uint32_t>(ReadBytes(*f, false, u32));
            }
            else if (key == "propagation_delay")
            {
                t.link.propagationDelay = ReadTime(*f, false);
            }
            else if (key == "switch_latency")
            {
                t.link.switchLatency = ReadTime(*f, false);
            }
            else if (key == "nic_latency")
            {
                t.link.nicLatency = ReadTime(*f, false);
            }
        }
    }
    else
    {
        t.link = *FindLinkProfile(profile);
    }
    if (!overridden.empty())
    {
        t.link.source += "; overridden in " + file + ": " + JoinList(overridden);
    }
    return t;
}

/**
 * \brief Parse a collective's ranks value: "all" or a sequence of distinct GPU indices.
 * \param f the ranks field
 * \return the ranks, empty for "all"
 */
std::vector<uint32_t>
ParseRanks(const Field& f)
{
    std::vector<uint32_t> ranks;
    if (f.value.IsScalar() && f.value.Scalar() == "all")
    {
        return ranks;
    }
    if (!f.value.IsSequence())
    {
        f.Fail("expected 'all' or a list of GPU indices such as [0, 1, 2, 3], got "
               + Describe(f.value));
    }
    std::set<uint32_t> seen;
    for (const auto& item : f.value)
    {
        const Field element{"ranks", f.keyNode, item, f.file};
        if (!item.IsScalar())
        {
            element.Fail("expected a GPU index, got " + Describe(item));
        }
        const auto rank = static_cast<uint32_t>(
            ReadInteger(element, 0, std::numeric_limits<uint32_t>::max() - 1));
        if (!seen.insert(rank).second)
        {
            element.Fail("rank " + std::to_string(rank) + " appears twice; ranks must be distinct");
        }
        ranks.push_back(rank);
    }
    if (ranks.size() < 2)
    {
        f.Fail("a collective needs at least 2 ranks, got " + std::to_string(ranks.size()));
    }
    return ranks;
}

/**
 * \brief Parse a traffic mapping.
 * \param node the mapping
 * \param file the file it came from
 * \param defaultName the name when the mapping has none
 * \return the traffic
 */
TrafficSpec
ParseTraffic(const YAML::Node& node, const std::string& file, const std::string& defaultName)
{
    static const std::map<std::string, std::string> hints = {
        {"op", "'op' belongs in an entry of 'collectives'"},
        {"size", "'size' belongs in an entry of 'collectives'"},
        {"ranks", "'ranks' belongs in an entry of 'collectives'"},
        {"algorithm", "'algorithm' belongs in an entry of 'collectives'"},
        {"start", "'start' belongs in an entry of 'collectives'"},
        {"gpus", "'gpus' belongs in the topology"},
        {"seed", "'seed' belongs in the scenario file"},
        {"stop_time", "'stop_time' belongs in the scenario file"},
    };
    const Mapping m(node, file, "traffic", TRAFFIC_KEYS, hints);
    TrafficSpec tr;
    tr.where = m.Where();
    tr.name = defaultName;
    if (const Field* f = m.Find("name"))
    {
        tr.name = ReadName(*f);
    }
    const Field& list = m.Require("collectives");
    if (!list.value.IsSequence())
    {
        list.Fail("expected a list of collectives (lines starting with '- '), got "
                  + Describe(list.value));
    }
    if (list.value.size() == 0)
    {
        list.Fail("the list is empty; give at least one collective");
    }
    static const std::map<std::string, std::string> collectiveHints = {
        {"bytes", "did you mean 'size'?"},
        {"type", "did you mean 'op'?"},
        {"operation", "did you mean 'op'?"},
        {"algo", "did you mean 'algorithm'?"},
        {"gpus", "did you mean 'ranks'?"},
        {"start_time", "did you mean 'start'?"},
    };
    std::map<std::string, int> nameLines;
    std::size_t index = 0;
    for (const auto& item : list.value)
    {
        const Field entry{"collectives", list.keyNode, item, file};
        if (!item.IsMap())
        {
            entry.Fail("entry " + std::to_string(index) + ": expected a mapping with keys "
                       + JoinList(COLLECTIVE_KEYS) + ", got " + Describe(item));
        }
        const Mapping c(item, file, "collective", COLLECTIVE_KEYS, collectiveHints);
        CollectiveSpec spec;
        spec.where = c.Where();
        spec.name = "c" + std::to_string(index);
        SpecLocation nameWhere = spec.where;
        if (const Field* f = c.Find("name"))
        {
            spec.name = ReadName(*f);
            nameWhere = f->ValueWhere();
        }
        const auto dup = nameLines.find(spec.name);
        if (dup != nameLines.end())
        {
            throw SpecError(nameWhere,
                            "name: duplicate collective name '" + spec.name
                                + "' (also used by the collective at line "
                                + std::to_string(dup->second) + "); names must be unique");
        }
        nameLines[spec.name] = spec.where.line;
        spec.op = ReadChoice(c.Require("op"), "op", COLLECTIVE_OPS);
        spec.algorithm = "ring";
        if (const Field* f = c.Find("algorithm"))
        {
            spec.algorithm = ReadChoice(*f, "algorithm", COLLECTIVE_ALGORITHMS);
        }
        spec.bytes = ReadBytes(c.Require("size"), true);
        spec.ranksWhere = spec.where;
        if (const Field* f = c.Find("ranks"))
        {
            spec.ranks = ParseRanks(*f);
            spec.ranksWhere = f->ValueWhere();
        }
        spec.start = Seconds(0);
        if (const Field* f = c.Find("start"))
        {
            spec.start = ReadTime(*f, false);
        }
        tr.collectives.push_back(spec);
        ++index;
    }
    return tr;
}

/**
 * \brief Resolve a scenario's topology or traffic value: a path or an inline mapping.
 * \param f the field
 * \param scenarioFile the scenario's path
 * \param what "topology" or "traffic"
 * \param keys the keys of that file kind
 * \param[out] file the file the mapping came from
 * \param[out] defaultName the name to use if the mapping has none (file stem), "" if inline
 * \return the mapping node
 */
YAML::Node
ResolveSection(const Field& f,
               const std::string& scenarioFile,
               const std::string& what,
               const std::vector<std::string>& keys,
               std::string& file,
               std::string& defaultName)
{
    if (f.value.IsMap())
    {
        file = scenarioFile;
        defaultName.clear();
        return f.value;
    }
    if (!f.value.IsScalar())
    {
        f.Fail("expected a path to a " + what + " file or an inline mapping, got "
               + Describe(f.value));
    }
    const std::string rel = f.value.Scalar();
    if (rel.empty())
    {
        f.Fail("the path is empty");
    }
    const fs::path joined = fs::path(scenarioFile).parent_path() / rel;
    file = joined.lexically_normal().string();
    defaultName = Stem(file);
    const SpecLocation at = f.ValueWhere();
    return LoadYamlFile(file, what, &at, keys);
}

} // namespace

TopologySpec
ReadTopologyFile(const std::string& path)
{
    const YAML::Node root = LoadYamlFile(path, "topology", nullptr, TOPOLOGY_KEYS);
    return ParseTopology(root, path, Stem(path));
}

TrafficSpec
ReadTrafficFile(const std::string& path)
{
    const YAML::Node root = LoadYamlFile(path, "traffic", nullptr, TRAFFIC_KEYS);
    return ParseTraffic(root, path, Stem(path));
}

ScenarioSpec
ReadScenarioFile(const std::string& path)
{
    static const std::map<std::string, std::string> hints = {
        {"kind", "'kind' belongs in the topology"},
        {"gpus", "'gpus' belongs in the topology"},
        {"leaves", "'leaves' belongs in the topology"},
        {"spines", "'spines' belongs in the topology"},
        {"gpus_per_leaf", "'gpus_per_leaf' belongs in the topology"},
        {"link", "'link' belongs in the topology"},
        {"collectives", "'collectives' belongs in the traffic"},
        {"rng_seed", "did you mean 'seed'?"},
        {"duration", "did you mean 'stop_time'?"},
        {"sim_time", "did you mean 'stop_time'?"},
        {"topo", "did you mean 'topology'?"},
        {"workload", "did you mean 'traffic'?"},
    };
    const YAML::Node root = LoadYamlFile(path, "scenario", nullptr, SCENARIO_KEYS);
    const Mapping m(root, path, "scenario", SCENARIO_KEYS, hints);
    ScenarioSpec s;
    s.where = m.Where();
    s.name = Stem(path);
    if (const Field* f = m.Find("name"))
    {
        s.name = ReadName(*f);
    }
    s.seed = 1;
    if (const Field* f = m.Find("seed"))
    {
        // ns-3's RngSeedManager::SetSeed takes a uint32_t.
        s.seed = ReadInteger(*f, 1, std::numeric_limits<uint32_t>::max());
    }
    s.stopTime = PicoSeconds(DEFAULT_STOP_TIME_PS);
    if (const Field* f = m.Find("stop_time"))
    {
        s.stopTime = ReadTime(*f, true);
    }
    s.forwarding = "ecmp";
    if (const Field* f = m.Find("forwarding"))
    {
        s.forwarding = ReadChoice(*f, "forwarding", FORWARDING_MODES);
    }

    std::string file;
    std::string defaultName;
    const Field& topo = m.Require("topology");
    const Field& traffic = m.Require("traffic");

    YAML::Node node = ResolveSection(topo, path, "topology", TOPOLOGY_KEYS, file, defaultName);
    s.topology
        = ParseTopology(node, file, defaultName.empty() ? s.name + "-topology" : defaultName);

    node = ResolveSection(traffic, path, "traffic", TRAFFIC_KEYS, file, defaultName);
    s.traffic = ParseTraffic(node, file, defaultName.empty() ? s.name + "-traffic" : defaultName);

    // Cross-checks: the traffic against the topology.
    for (const auto& c : s.traffic.collectives)
    {
        for (uint32_t r : c.ranks)
        {
            if (r >= s.topology.gpus)
            {
                throw SpecError(c.ranksWhere,
                                "ranks: rank " + std::to_string(r) + " of collective '" + c.name
                                    + "' is out of range; the topology '" + s.topology.name
                                    + "' has " + std::to_string(s.topology.gpus)
                                    + " GPUs (indices 0 to " + std::to_string(s.topology.gpus - 1)
                                    + ")");
            }
        }
    }
    return s;
}

} // namespace ns3
