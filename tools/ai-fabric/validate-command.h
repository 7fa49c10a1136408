/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_VALIDATE_COMMAND_H
#define AI_FABRIC_VALIDATE_COMMAND_H

#include <string>
#include <vector>

/**
 * \brief The 'validate' command: run the validation suite of a directory and write its report.
 * \param args the arguments after 'validate'
 * \return exit status: 0 every formula case agrees, 2 bad input, 4 a formula case is out of
 *         tolerance (named on stderr), 1 internal error
 * \throws ns3::SpecError on a malformed case file (the caller prints it and exits 2)
 */
int ValidateCommand(const std::vector<std::string>& args);

#endif /* AI_FABRIC_VALIDATE_COMMAND_H */
