/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_CHILD_PROCESS_H
#define AI_FABRIC_CHILD_PROCESS_H

#include <string>
#include <sys/types.h>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Start a program with an argument vector (posix_spawnp: no shell, so no argument is
 * ever interpreted): the sweep's points, the plot scripts.
 * \param args the program (searched in PATH unless it holds a '/') and its arguments
 * \param outputPath "" to inherit stdin, stdout and stderr; else stdout and stderr go to this
 *        file (created or truncated) and stdin comes from /dev/null
 * \param[out] pid the child's pid
 * \return 0, or the error number posix_spawnp returned
 */
int SpawnProcess(const std::vector<std::string>& args, const std::string& outputPath, pid_t& pid);

} // namespace ns3

#endif /* AI_FABRIC_CHILD_PROCESS_H */
