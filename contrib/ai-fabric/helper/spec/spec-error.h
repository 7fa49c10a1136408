/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_SPEC_ERROR_H
#define AI_FABRIC_SPEC_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Where a value came from in an input file (1-based line and column; 0 = unknown).
 */
struct SpecLocation
{
    std::string file; //!< path of the file as the user named it
    int line{0};      //!< 1-based line, 0 if unknown
    int column{0};    //!< 1-based column, 0 if unknown

    /// \return "file:line:column", "file:line" or "file", as far as known
    std::string ToString() const;
};

/**
 * \ingroup ai-fabric
 * \brief The one error type for bad user input (YAML, units, impossible scenarios).
 *
 * what() is "FILE:LINE:COL: error: MESSAGE". The tool reports it and exits with
 * status 2; NS_ABORT is reserved for broken internal invariants.
 */
class SpecError : public std::runtime_error
{
  public:
    /**
     * \param where the offending value's location
     * \param message what is wrong, as a sentence fragment without trailing period
     */
    SpecError(const SpecLocation& where, const std::string& message);

    /// \return the location
    const SpecLocation& Where() const;
    /// \return the bare message, without location
    const std::string& Message() const;

  private:
    SpecLocation m_where;  //!< location
    std::string m_message; //!< message without location
};

} // namespace ns3

#endif /* AI_FABRIC_SPEC_ERROR_H */
