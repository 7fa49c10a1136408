/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_CHILD_PROCESS_H
#define AI_FABRIC_CHILD_PROCESS_H

#include <csignal>
#include <functional>
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

/**
 * \ingroup ai-fabric
 * \brief One child process of RunChildProcesses(): its argument vector and its log.
 */
struct ChildJob
{
    std::vector<std::string> args; //!< the program and its arguments (SpawnProcess())
    std::string logPath;           //!< stdout and stderr go here
};

/**
 * \ingroup ai-fabric
 * \brief How one child of RunChildProcesses() ended.
 */
struct ChildOutcome
{
    bool started{false}; //!< false if it never started (interrupted first)
    int exitCode{-1};    //!< its exit status; -1 if it did not exit (or never started)
    std::string status;  //!< ChildStatusText(), or "not-run"
    double wallS{0};     //!< wall-clock seconds from spawn to exit
};

/**
 * \ingroup ai-fabric
 * \param waitStatus a status from waitpid()
 * \param[out] exitCode the exit status, -1 if the child did not exit
 * \return the word for it: ok (0), internal-error (1), bad-input (2), incomplete (3),
 *         exit-N, signal-N, unknown
 */
std::string ChildStatusText(int waitStatus, int& exitCode);

/**
 * \ingroup ai-fabric
 * \brief Run \p jobs as child processes, at most \p parallel at once, in order; wait for all.
 *
 * The one executor of the sweep's points and of a multi-seed run's seeds. If \p interrupt
 * is set and becomes non-zero (a signal handler's flag, the signal's number), the running
 * children get that signal, no more start, and the ones not started end as "not-run".
 * \param jobs the children
 * \param parallel children at once (>= 1)
 * \param interrupt the stop flag, or null
 * \param onFinish called as each child ends (index, outcome), in the order they end
 * \param[out] maxRunning if set, the most children that ran at once
 * \return the outcome of every job, in job order
 * \throws std::runtime_error if a child cannot be spawned or waiting fails
 */
std::vector<ChildOutcome> RunChildProcesses(
    const std::vector<ChildJob>& jobs,
    uint32_t parallel,
    const volatile std::sig_atomic_t* interrupt,
    const std::function<void(std::size_t, const ChildOutcome&)>& onFinish,
    uint32_t* maxRunning = nullptr);

} // namespace ns3

#endif /* AI_FABRIC_CHILD_PROCESS_H */
