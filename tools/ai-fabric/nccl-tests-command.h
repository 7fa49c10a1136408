/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_NCCL_TESTS_COMMAND_H
#define AI_FABRIC_NCCL_TESTS_COMMAND_H

#include <string>
#include <vector>

/**
 * \brief The 'nccl-tests' command: an nccl-tests binary (all_reduce_perf, ...) with its flags
 * (-b -e -f -g -d -o -r -J), simulated on a topology, printed as nccl-tests prints
 * (docs/nccl-tests.md).
 * \param args the arguments after 'nccl-tests'
 * \return exit status: 0 done, 2 bad input, 3 a size did not complete, 1 internal error
 * \throws ns3::SpecError on a malformed topology (the caller prints it and exits 2)
 */
int NcclTestsCommand(const std::vector<std::string>& args);

#endif /* AI_FABRIC_NCCL_TESTS_COMMAND_H */
