/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "spec-toolkit.h"

#include "ns3/units.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <locale>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/eventhandler.h>

namespace ns3
{
namespace spec
{

namespace fs = std::filesystem;

namespace
{

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

/// Parser events reduced to where each document starts and where its first node is.
class DocumentCounter : public YAML::EventHandler
{
  public:
    std::vector<YAML::Mark> starts;    //!< per document: its start
    std::vector<YAML::Mark> firstNode; //!< per document: its first node (its start if none)

    void OnDocumentStart(const YAML::Mark& mark) override
    {
        starts.push_back(mark);
        firstNode.push_back(mark);
        m_seen = false;
    }

    void OnDocumentEnd() override
    {
    }

    void OnNull(const YAML::Mark& mark, YAML::anchor_t /* anchor */) override
    {
        Node(mark);
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t /* anchor */) override
    {
        Node(mark);
    }

    void OnScalar(const YAML::Mark& mark,
                  const std::string& /* tag */,
                  YAML::anchor_t /* anchor */,
                  const std::string& /* value */) override
    {
        Node(mark);
    }

    void OnSequenceStart(const YAML::Mark& mark,
                         const std::string& /* tag */,
                         YAML::anchor_t /* anchor */,
                         YAML::EmitterStyle::value /* style */) override
    {
        Node(mark);
    }

    void OnSequenceEnd() override
    {
    }

    void OnMapStart(const YAML::Mark& mark,
                    const std::string& /* tag */,
                    YAML::anchor_t /* anchor */,
                    YAML::EmitterStyle::value /* style */) override
    {
        Node(mark);
    }

    void OnMapEnd() override
    {
    }

  private:
    /// \param mark a node's mark: the document's first node if none came before
    void Node(const YAML::Mark& mark)
    {
        if (!m_seen && !firstNode.empty())
        {
            firstNode.back() = mark;
            m_seen = true;
        }
    }

    bool m_seen{false}; //!< the current document has had a node
};

} // namespace

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

bool
Contains(const std::vector<std::string>& list, const std::string& word)
{
    return std::find(list.begin(), list.end(), word) != list.end();
}

std::string
Stem(const std::string& path)
{
    return fs::path(path).stem().string();
}

std::size_t
EditDistance(const std::string& a, const std::string& b, bool transpositions)
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
            if (transpositions && i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
            {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

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

std::string
NearestWithin(const std::string& word,
              const std::vector<std::string>& known,
              std::size_t maxDistance)
{
    std::string best;
    std::size_t bestDistance = maxDistance + 1;
    for (const auto& k : known)
    {
        const std::size_t d = EditDistance(word, k, false);
        if (d < bestDistance)
        {
            bestDistance = d;
            best = k;
        }
    }
    return best;
}

SpecLocation
Field::KeyWhere() const
{
    return At(file, keyNode.Mark());
}

SpecLocation
Field::ValueWhere() const
{
    if (value.IsNull() || value.Mark().is_null())
    {
        return KeyWhere();
    }
    return At(file, value.Mark());
}

void
Field::Fail(const std::string& message) const
{
    throw SpecError(ValueWhere(), key + ": " + message);
}

Mapping::Mapping(const YAML::Node& node,
                 const std::string& file,
                 const std::string& section,
                 const std::vector<std::string>& known,
                 const std::map<std::string, std::string>& hints,
                 const std::vector<std::string>& listed,
                 const std::string& listedAs)
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
                msg += listedAs + ": " + JoinList(listed.empty() ? known : listed);
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

const Field*
Mapping::Find(const std::string& key) const
{
    return FindField(m_fields, key);
}

std::vector<Field>
FieldsOf(const YAML::Node& map, const std::string& file)
{
    std::vector<Field> fields;
    for (auto it = map.begin(); it != map.end(); ++it)
    {
        fields.push_back(
            Field{it->first.IsScalar() ? it->first.Scalar() : "", it->first, it->second, file});
    }
    return fields;
}

const Field*
FindField(const std::vector<Field>& fields, const std::string& key)
{
    for (const auto& f : fields)
    {
        if (f.key == key)
        {
            return &f;
        }
    }
    return nullptr;
}

const Field&
Mapping::Require(const std::string& key) const
{
    const Field* f = Find(key);
    if (!f)
    {
        throw SpecError(Where(), "missing required key '" + key + "' in " + m_section);
    }
    return *f;
}

const std::vector<Field>&
Mapping::Fields() const
{
    return m_fields;
}

SpecLocation
Mapping::Where() const
{
    return At(m_file, m_node.Mark());
}

const std::string&
Mapping::File() const
{
    return m_file;
}

std::string
ScalarOf(const Field& f, const std::string& expected)
{
    if (!f.value.IsScalar())
    {
        f.Fail("expected " + expected + ", got " + Describe(f.value));
    }
    return f.value.Scalar();
}

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
        f.Fail(e.Message());
    }
    if (value < min)
    {
        f.Fail("must be at least " + std::to_string(min) + ", got " + text);
    }
    return value;
}

std::vector<uint32_t>
ReadSeedList(const Field& f)
{
    if (!f.value.IsSequence())
    {
        f.Fail("expected a list of distinct seeds such as [1, 2, 3], got " + Describe(f.value));
    }
    if (f.value.size() == 0)
    {
        f.Fail("the list is empty; give at least one seed");
    }
    if (f.value.size() > MAX_SEEDS)
    {
        f.Fail("at most " + std::to_string(MAX_SEEDS) + " seeds, got "
               + std::to_string(f.value.size()));
    }
    std::vector<uint32_t> seeds;
    std::map<uint32_t, SpecLocation> seen;
    for (const YAML::Node& entry : f.value)
    {
        const Field one{f.key, f.keyNode, entry, f.file};
        const auto seed
            = static_cast<uint32_t>(ReadInteger(one, 1, std::numeric_limits<uint32_t>::max()));
        const SpecLocation where = one.ValueWhere();
        const auto [it, inserted] = seen.emplace(seed, where);
        if (!inserted)
        {
            throw SpecError(where,
                            f.key + ": seed " + std::to_string(seed)
                                + " is listed twice (first at line "
                                + std::to_string(it->second.line) + ", column "
                                + std::to_string(it->second.column) + ")");
        }
        seeds.push_back(seed);
    }
    return seeds;
}

uint64_t
ReadBytes(const Field& f, bool positive, uint64_t max)
{
    const std::string text = ScalarOf(f, "a size such as '256MiB'");
    uint64_t value = 0;
    try
    {
        value = ParseBytes(text);
    }
    catch (const UnitError& e)
    {
        f.Fail(e.Message());
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
        f.Fail(e.Message());
    }
    if (positive && value.IsZero())
    {
        f.Fail("must be greater than 0, got '" + text + "'");
    }
    if (value.GetPicoSeconds() > MAX_DURATION_PS)
    {
        f.Fail("'" + text
               + "' is too long: at most 1000000s (sums of times stay within the "
                 "simulator's 64-bit picosecond clock)");
    }
    return value;
}

DataRate
ReadRate(const Field& f, bool positive)
{
    const std::string text = ScalarOf(f, "a data rate such as '400Gbps'");
    DataRate value;
    try
    {
        value = ParseDataRate(text);
    }
    catch (const UnitError& e)
    {
        f.Fail(e.Message());
    }
    if (positive && value.GetBitRate() == 0)
    {
        f.Fail("must be greater than 0, got '" + text + "'");
    }
    if (value.GetBitRate() > LinkProfile::MAX_RATE_BPS)
    {
        f.Fail("'" + text
               + "' is too fast: at most 100Tbps (a packet would take a few picoseconds, below "
                 "what the simulator's 1 ps clock times correctly)");
    }
    return value;
}

std::string
PicoSecondsText(Time t)
{
    return std::to_string(t.GetPicoSeconds()) + "ps";
}

std::string
BitRateText(DataRate rate)
{
    return std::to_string(rate.GetBitRate()) + "bps";
}

std::string
DoubleText(double value)
{
    for (int digits = 1; digits <= std::numeric_limits<double>::max_digits10; ++digits)
    {
        std::ostringstream out;
        out.imbue(std::locale::classic());
        out << std::setprecision(digits) << value;
        std::istringstream in(out.str());
        in.imbue(std::locale::classic());
        double back = 0;
        in >> back;
        if (back == value || digits == std::numeric_limits<double>::max_digits10)
        {
            return out.str();
        }
    }
    return ""; // not reached
}

bool
ReadBool(const Field& f)
{
    const std::string text = ScalarOf(f, "true or false");
    if (text == "true")
    {
        return true;
    }
    if (text == "false")
    {
        return false;
    }
    f.Fail("expected true or false, got '" + text + "'");
}

double
ReadFraction(const Field& f)
{
    return ReadPlainDecimal(f, 1, "0.2");
}

double
ReadPlainDecimal(const Field& f, double max, const std::string& example)
{
    std::ostringstream bound;
    bound.imbue(std::locale::classic());
    bound << max;
    const std::string range = "a number between 0 and " + bound.str();
    const std::string text = ScalarOf(f, range + " such as " + example);
    if (!text.empty() && (text[0] == '-' || text[0] == '+'))
    {
        f.Fail("'" + text + "': expected " + range + " without a sign");
    }
    const std::size_t dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    const std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
    const auto allDigits = [](const std::string& s) {
        return !s.empty()
               && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!allDigits(whole) || (dot != std::string::npos && !allDigits(fraction)))
    {
        f.Fail("'" + text + "' is not a plain decimal number; write e.g. " + example);
    }
    if (whole.size() > 1 && whole[0] == '0')
    {
        f.Fail("'" + text + "': leading zeros are not allowed");
    }
    // The grammar is checked; read it in the "C" locale, whatever the process's locale.
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    double value = 0;
    in >> value;
    if (value > max)
    {
        f.Fail("must be between 0 and " + bound.str() + ", got " + text);
    }
    return value;
}

std::string
ReadName(const Field& f)
{
    const std::string text = ScalarOf(f, "a name");
    const std::string problem = NameProblem(text);
    if (!problem.empty())
    {
        f.Fail(problem);
    }
    return text;
}

bool
IsValidUtf8(const std::string& text)
{
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (i < n)
    {
        const auto b = static_cast<unsigned char>(text[i]);
        std::size_t len = 0;
        uint32_t cp = 0;
        if (b < 0x80)
        {
            ++i;
            continue;
        }
        else if ((b & 0xE0) == 0xC0)
        {
            len = 2;
            cp = b & 0x1F;
        }
        else if ((b & 0xF0) == 0xE0)
        {
            len = 3;
            cp = b & 0x0F;
        }
        else if ((b & 0xF8) == 0xF0)
        {
            len = 4;
            cp = b & 0x07;
        }
        else
        {
            return false;
        }
        if (i + len > n)
        {
            return false;
        }
        for (std::size_t k = 1; k < len; ++k)
        {
            const auto c = static_cast<unsigned char>(text[i + k]);
            if ((c & 0xC0) != 0x80)
            {
                return false;
            }
            cp = (cp << 6) | (c & 0x3F);
        }
        static const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < smallest[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        {
            return false;
        }
        i += len;
    }
    return true;
}

std::string
NameProblem(const std::string& text)
{
    if (text.empty())
    {
        return "must not be empty";
    }
    if (text.size() > MAX_NAME_BYTES)
    {
        return "is " + std::to_string(text.size()) + " bytes long; a name has at most "
               + std::to_string(MAX_NAME_BYTES) + " (names become file names)";
    }
    if (text == "." || text == "..")
    {
        return "'" + text + "' is not a usable name (names become directory names)";
    }
    if (!IsValidUtf8(text))
    {
        return "is not valid UTF-8";
    }
    if (std::isspace(static_cast<unsigned char>(text.front()))
        || std::isspace(static_cast<unsigned char>(text.back())))
    {
        return "'" + text + "' has leading or trailing whitespace";
    }
    for (char c : text)
    {
        if (c == '/' || c == '\\' || c == ',' || c == '"' || static_cast<unsigned char>(c) < 0x20
            || c == 0x7f)
        {
            std::string shown;
            for (char d : text)
            {
                shown += static_cast<unsigned char>(d) < 0x20 || d == 0x7f ? '?' : d;
            }
            return "'" + shown + "' must not contain '/', '\\', ',', '\"' or control characters";
        }
    }
    return "";
}

std::string
CheckedDefaultName(const std::string& stem, const SpecLocation& where)
{
    const std::string problem = NameProblem(stem);
    if (!problem.empty())
    {
        throw SpecError(where,
                        "no 'name' key, and the file name's stem '" + stem
                            + "' is no usable name (it " + problem + "); add a 'name'");
    }
    return stem;
}

std::string
ReadInputFile(const std::string& file,
              const std::string& what,
              const SpecLocation* referencedAt,
              std::uintmax_t maxBytes)
{
    const SpecLocation fileOnly{file, 0, 0};
    const SpecLocation where = referencedAt ? *referencedAt : fileOnly;
    const std::string prefix = referencedAt ? what + ": " : "";
    const std::string tail
        = referencedAt ? " (paths are relative to the directory of the file naming them)" : "";
    if (file.find('\0') != std::string::npos)
    {
        throw SpecError(where, prefix + "the " + what + " path holds a NUL byte");
    }
    if (file.empty())
    {
        throw SpecError(where, prefix + "the " + what + " path is empty");
    }
    // Opened without blocking (a FIFO without a writer would block in open()) and checked on
    // the descriptor, so that what is read is what was checked.
    const int fd = open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
    {
        const int e = errno;
        throw SpecError(where,
                        prefix + "cannot open " + what + " file '" + file
                            + "': " + (e == ENOENT ? "no such file or directory" : std::strerror(e))
                            + (e == ENOENT ? tail : ""));
    }

    struct FdCloser
    {
        int fd;

        ~FdCloser()
        {
            close(fd);
        }
    } closer{fd};

    struct stat st = {};
    if (fstat(fd, &st) != 0)
    {
        throw SpecError(where,
                        prefix + "cannot read " + what + " file '" + file
                            + "': " + std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
    {
        throw SpecError(where,
                        prefix + "cannot read " + what + " file '" + file + "': it is a directory");
    }
    if (!S_ISREG(st.st_mode))
    {
        // A device, FIFO or socket could be endless (/dev/zero) or block forever.
        throw SpecError(where,
                        prefix + "cannot read " + what + " file '" + file
                            + "': not a regular file");
    }
    if (static_cast<std::uintmax_t>(st.st_size) > maxBytes)
    {
        throw SpecError(where,
                        prefix + what + " file '" + file + "' is " + std::to_string(st.st_size)
                            + " bytes; the limit is " + std::to_string(maxBytes) + " ("
                            + std::to_string(maxBytes >> 20) + " MiB)");
    }
    // A regular file never blocks; read at most one byte past the limit (it may grow).
    std::string text;
    text.reserve(static_cast<std::size_t>(st.st_size));
    char buffer[65536];
    while (true)
    {
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
        {
            continue;
        }
        if (got < 0)
        {
            throw SpecError(where,
                            prefix + "cannot read " + what + " file '" + file
                                + "': " + std::strerror(errno));
        }
        if (got == 0)
        {
            break;
        }
        text.append(buffer, static_cast<std::size_t>(got));
        if (text.size() > maxBytes)
        {
            throw SpecError(where,
                            prefix + what + " file '" + file + "' grew beyond the limit of "
                                + std::to_string(maxBytes) + " bytes while being read");
        }
    }
    return text;
}

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

YAML::Node
LoadYamlFile(const std::string& file,
             const std::string& what,
             const SpecLocation* referencedAt,
             const std::vector<std::string>& keys)
{
    const SpecLocation fileOnly{file, 0, 0};
    const std::string text = ReadInputFile(file, what, referencedAt);

    // Not YAML::LoadAll: on a stray flow indicator outside a flow collection (a file holding
    // only ",") yaml-cpp 0.7's parser reports a null document without consuming the token,
    // and LoadAll loops forever, allocating (found by ai-fabric-fuzz-yaml). Count at most
    // two documents with the parser, noticing one that makes no progress; then load the
    // first with YAML::Load.
    DocumentCounter counter;
    YAML::Node doc;
    try
    {
        std::istringstream stream(text);
        YAML::Parser parser(stream);
        while (counter.starts.size() < 2 && parser.HandleNextDocument(counter))
        {
            const std::size_t n = counter.starts.size();
            if (n == 2 && counter.starts[1].pos == counter.starts[0].pos)
            {
                const std::size_t at = static_cast<std::size_t>(counter.starts[1].pos);
                const std::string what = at < text.size() ? std::string(1, text[at]) : "end";
                throw SpecError(At(file, counter.starts[1]),
                                "malformed YAML: unexpected '" + what
                                    + "' (a flow indicator outside [ ] or { })");
            }
        }
        if (counter.starts.size() == 1)
        {
            doc = YAML::Load(text);
        }
    }
    catch (const YAML::Exception& e)
    {
        throw SpecError(At(file, e.mark), "malformed YAML: " + e.msg);
    }
    if (counter.starts.empty() || (counter.starts.size() == 1 && doc.IsNull()))
    {
        throw SpecError(fileOnly,
                        "the " + what + " file is empty; expected a mapping with keys "
                            + JoinList(keys));
    }
    if (counter.starts.size() > 1)
    {
        throw SpecError(At(file, counter.firstNode[1]),
                        "the " + what + " file holds more than one YAML document; expected one");
    }
    return doc;
}

} // namespace spec
} // namespace ns3
