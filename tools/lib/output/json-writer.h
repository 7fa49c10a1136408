/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_JSON_WRITER_H
#define AI_FABRIC_JSON_WRITER_H

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A small streaming JSON writer with deterministic, pretty-printed output.
 *
 * Values are written straight to an std::ostream as the calls arrive; nothing
 * is buffered except the nesting stack. Every call returns the writer, so a
 * document reads like its JSON:
 *
 * \code
 *   JsonWriter w(os);
 *   w.BeginObject();
 *   w.Key("name").String("ar0");
 *   w.Key("ranks").Uint(8);
 *   w.Key("sizes").BeginArray().Uint(1).Uint(2).EndArray();
 *   w.EndObject();
 * \endcode
 *
 * Output rules (all fixed, so equal inputs give byte-identical output):
 * - 2-space indent; one member or element per line; `"key": value`;
 *   empty containers as `{}` and `[]`; no trailing newline (the caller adds it).
 * - Strings: `"` `\` and the control characters U+0000..U+001F are escaped
 *   (`\b \f \n \r \t`, otherwise `\u00XX`); valid UTF-8 passes through unchanged;
 *   each byte of an invalid UTF-8 sequence becomes `\ufffd`, so the output is
 *   always valid JSON.
 * - Integers (Int, Uint) are exact decimal.
 * - Doubles: 12 significant digits, shortest form, as printf `%.12g` in the C
 *   locale (whatever the process locale is); `-0` is written `0`; NaN and
 *   +-Inf (not representable in JSON) are written `null`.
 *
 * Misuse (a value where a key is due, a key outside an object, unbalanced
 * End*, a second top-level value) throws std::logic_error: it is a bug in the
 * caller, never a property of user input.
 */
class JsonWriter
{
  public:
    /**
     * \param os the stream to write to; it must outlive the writer
     */
    explicit JsonWriter(std::ostream& os);

    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;

    /**
     * \brief Open an object `{`.
     * \return this writer
     */
    JsonWriter& BeginObject();
    /**
     * \brief Close the innermost object `}`.
     * \return this writer
     */
    JsonWriter& EndObject();
    /**
     * \brief Open an array `[`.
     * \return this writer
     */
    JsonWriter& BeginArray();
    /**
     * \brief Close the innermost array `]`.
     * \return this writer
     */
    JsonWriter& EndArray();
    /**
     * \brief Write the key of the next member of the innermost object.
     * \param key the member name (escaped like a string value)
     * \return this writer
     */
    JsonWriter& Key(const std::string& key);
    /**
     * \brief Write a string value.
     * \param value UTF-8 text
     * \return this writer
     */
    JsonWriter& String(const std::string& value);
    /**
     * \brief Write an unsigned integer value, exactly.
     * \param value the value
     * \return this writer
     */
    JsonWriter& Uint(uint64_t value);
    /**
     * \brief Write a signed integer value, exactly.
     * \param value the value
     * \return this writer
     */
    JsonWriter& Int(int64_t value);
    /**
     * \brief Write a floating-point value with the fixed rule (see FormatDouble).
     * \param value the value; NaN and Inf are written as null
     * \return this writer
     */
    JsonWriter& Double(double value);
    /**
     * \brief Write true or false.
     * \param value the value
     * \return this writer
     */
    JsonWriter& Bool(bool value);
    /**
     * \brief Write null.
     * \return this writer
     */
    JsonWriter& Null();

    /**
     * \return true once exactly one complete top-level value has been written
     */
    bool IsComplete() const;

    /**
     * \brief Quote and escape a string as a JSON string literal.
     * \param value UTF-8 text (invalid bytes become \\ufffd)
     * \return the literal, including the surrounding double quotes
     */
    static std::string Quote(const std::string& value);

    /**
     * \brief The fixed double-to-text rule used by Double().
     * \param value the value
     * \return `%.12g` of the value in the C locale, "0" for -0, "null" for NaN or Inf
     */
    static std::string FormatDouble(double value);

  private:
    /// Kind of an open container.
    enum class Container
    {
        OBJECT, //!< inside { }
        ARRAY,  //!< inside [ ]
    };

    /// One open container.
    struct Frame
    {
        Container kind;         //!< object or array
        uint64_t count{0};      //!< members or elements written so far
        bool keyPending{false}; //!< (objects) a key was written, its value is due
    };

    /**
     * \brief Check that a value may come now and write the separator before it.
     * \param what name of the call, for the error message
     */
    void BeforeValue(const char* what);
    /**
     * \brief Close the innermost container.
     * \param kind the kind the caller expects to close
     * \param close the closing character
     */
    void End(Container kind, char close);
    /// Mark a scalar as written: it completes the document when at top level.
    void AfterScalar();
    /// Write a newline and the indent of the current depth.
    void NewLine();

    std::ostream& m_os;         //!< output
    std::vector<Frame> m_stack; //!< open containers, innermost last
    bool m_topLevelDone{false}; //!< a complete top-level value has been written
};

} // namespace ns3

#endif /* AI_FABRIC_JSON_WRITER_H */
