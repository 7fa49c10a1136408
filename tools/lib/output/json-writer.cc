/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "json-writer.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace ns3
{

namespace
{

/**
 * \brief Length of the valid UTF-8 sequence starting at \p i, or 0 if invalid.
 * \param s the text
 * \param i index of a byte >= 0x80
 * \return 2, 3 or 4 for a well-formed sequence (RFC 3629: no overlongs, no
 *         surrogates, nothing above U+10FFFF); 0 otherwise
 */
size_t
Utf8SequenceLength(const std::string& s, size_t i)
{
    auto byte = [&s](size_t k) {
        return static_cast<unsigned char>(s[k]);
    };
    auto cont = [&](size_t k) {
        return k < s.size() && (byte(k) & 0xC0) == 0x80;
    };
    const unsigned char b0 = byte(i);
    if (b0 >= 0xC2 && b0 <= 0xDF)
    {
        return cont(i + 1) ? 2 : 0;
    }
    if (b0 >= 0xE0 && b0 <= 0xEF)
    {
        if (!cont(i + 1) || !cont(i + 2))
        {
            return 0;
        }
        const unsigned char b1 = byte(i + 1);
        if ((b0 == 0xE0 && b1 < 0xA0) || (b0 == 0xED && b1 > 0x9F))
        {
            return 0; // overlong, or a UTF-16 surrogate
        }
        return 3;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4)
    {
        if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3))
        {
            return 0;
        }
        const unsigned char b1 = byte(i + 1);
        if ((b0 == 0xF0 && b1 < 0x90) || (b0 == 0xF4 && b1 > 0x8F))
        {
            return 0; // overlong, or above U+10FFFF
        }
        return 4;
    }
    return 0; // stray continuation byte, C0/C1, F5..FF
}

} // namespace

JsonWriter::JsonWriter(std::ostream& os)
    : m_os(os)
{
}

void
JsonWriter::NewLine()
{
    m_os << '\n';
    for (size_t i = 0; i < m_stack.size(); ++i)
    {
        m_os << "  ";
    }
}

void
JsonWriter::BeforeValue(const char* what)
{
    if (m_stack.empty())
    {
        if (m_topLevelDone)
        {
            throw std::logic_error(std::string("JsonWriter: ") + what
                                   + " after the complete top-level value");
        }
        return;
    }
    Frame& top = m_stack.back();
    if (top.kind == Container::OBJECT)
    {
        if (!top.keyPending)
        {
            throw std::logic_error(std::string("JsonWriter: ") + what
                                   + " inside an object without a Key");
        }
        top.keyPending = false;
        return; // the key already wrote the separator and indent
    }
    if (top.count > 0)
    {
        m_os << ',';
    }
    ++top.count;
    NewLine();
}

JsonWriter&
JsonWriter::BeginObject()
{
    BeforeValue("BeginObject");
    m_os << '{';
    m_stack.push_back(Frame{Container::OBJECT});
    return *this;
}

JsonWriter&
JsonWriter::BeginArray()
{
    BeforeValue("BeginArray");
    m_os << '[';
    m_stack.push_back(Frame{Container::ARRAY});
    return *this;
}

void
JsonWriter::End(Container kind, char close)
{
    if (m_stack.empty() || m_stack.back().kind != kind)
    {
        throw std::logic_error(std::string("JsonWriter: unbalanced '") + close + "'");
    }
    if (m_stack.back().keyPending)
    {
        throw std::logic_error("JsonWriter: object closed after a Key without its value");
    }
    const bool empty = m_stack.back().count == 0;
    m_stack.pop_back();
    if (!empty)
    {
        NewLine();
    }
    m_os << close;
    if (m_stack.empty())
    {
        m_topLevelDone = true;
    }
}

JsonWriter&
JsonWriter::EndObject()
{
    End(Container::OBJECT, '}');
    return *this;
}

JsonWriter&
JsonWriter::EndArray()
{
    End(Container::ARRAY, ']');
    return *this;
}

JsonWriter&
JsonWriter::Key(const std::string& key)
{
    if (m_stack.empty() || m_stack.back().kind != Container::OBJECT)
    {
        throw std::logic_error("JsonWriter: Key \"" + key + "\" outside an object");
    }
    Frame& top = m_stack.back();
    if (top.keyPending)
    {
        throw std::logic_error("JsonWriter: Key \"" + key + "\" right after another Key");
    }
    if (top.count > 0)
    {
        m_os << ',';
    }
    ++top.count;
    top.keyPending = true;
    NewLine();
    m_os << Quote(key) << ": ";
    return *this;
}

void
JsonWriter::AfterScalar()
{
    if (m_stack.empty())
    {
        m_topLevelDone = true;
    }
}

JsonWriter&
JsonWriter::String(const std::string& value)
{
    BeforeValue("String");
    m_os << Quote(value);
    AfterScalar();
    return *this;
}

JsonWriter&
JsonWriter::Uint(uint64_t value)
{
    BeforeValue("Uint");
    m_os << std::to_string(value);
    AfterScalar();
    return *this;
}

JsonWriter&
JsonWriter::Int(int64_t value)
{
    BeforeValue("Int");
    m_os << std::to_string(value);
    AfterScalar();
    return *this;
}

JsonWriter&
JsonWriter::Double(double value)
{
    BeforeValue("Double");
    m_os << FormatDouble(value);
    AfterScalar();
    return *this;
}

JsonWriter&
JsonWriter::Bool(bool value)
{
    BeforeValue("Bool");
    m_os << (value ? "true" : "false");
    AfterScalar();
    return *this;
}

JsonWriter&
JsonWriter::Null()
{
    BeforeValue("Null");
    m_os << "null";
    AfterScalar();
    return *this;
}

bool
JsonWriter::IsComplete() const
{
    return m_topLevelDone && m_stack.empty();
}

std::string
JsonWriter::Quote(const std::string& value)
{
    static const char HEX[] = "0123456789abcdef";
    std::string out;
    out.reserve(value.size() + 2);
    out += '"';
    size_t i = 0;
    while (i < value.size())
    {
        const auto c = static_cast<unsigned char>(value[i]);
        if (c < 0x80)
        {
            switch (c)
            {
                case '"':
                    out += "\\\"";
                    break;
                case '\\':
                    out += "\\\\";
                    break;
                case '\b':
                    out += "\\b";
                    break;
                case '\f':
                    out += "\\f";
                    break;
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                case '\t':
                    out += "\\t";
                    break;
                default:
                    if (c < 0x20)
                    {
                        out += "\\u00";
                        out += HEX[c >> 4];
                        out += HEX[c & 0xF];
                    }
                    else
                    {
                        out += static_cast<char>(c);
                    }
            }
            ++i;
            continue;
        }
        const size_t len = Utf8SequenceLength(value, i);
        if (len == 0)
        {
            out += "\\ufffd"; // U+FFFD REPLACEMENT CHARACTER for one invalid byte
            ++i;
            continue;
        }
        out.append(value, i, len);
        i += len;
    }
    out += '"';
    return out;
}

std::string
JsonWriter::FormatDouble(double value)
{
    if (!std::isfinite(value))
    {
        return "null";
    }
    if (value == 0.0)
    {
        return "0"; // also for -0.0
    }
    // std::to_chars is locale-independent; general format with precision 12 is
    // exactly printf's %.12g.
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::general, 12);
    return std::string(buf, res.ptr);
}

} // namespace ns3
