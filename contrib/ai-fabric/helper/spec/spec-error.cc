/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "spec-error.h"

namespace ns3
{

std::string
SpecLocation::ToString() const
{
    std::string out = file;
    if (line > 0)
    {
        if (out.empty())
        {
            out = "<input>";
        }
        out += ":" + std::to_string(line);
        if (column > 0)
        {
            out += ":" + std::to_string(column);
        }
    }
    return out;
}

namespace
{

/**
 * \param where a location
 * \param message the bare message
 * \return "FILE:LINE:COL: error: MESSAGE", or "error: MESSAGE" without any location
 */
std::string
FormatSpecError(const SpecLocation& where, const std::string& message)
{
    const std::string at = where.ToString();
    return (at.empty() ? std::string() : at + ": ") + "error: " + message;
}

} // namespace

SpecError::SpecError(const SpecLocation& where, const std::string& message)
    : std::runtime_error(FormatSpecError(where, message))
    , m_where(where)
    , m_message(message)
{
}

const SpecLocation&
SpecError::Where() const
{
    return m_where;
}

const std::string&
SpecError::Message() const
{
    return m_message;
}

} // namespace ns3
