/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "child-process.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ns3
{

int
SpawnProcess(const std::vector<std::string>& args, const std::string& outputPath, pid_t& pid)
{
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (auto& a : copy)
    {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (!outputPath.empty())
    {
        posix_spawn_file_actions_addopen(&fa,
                                         STDOUT_FILENO,
                                         outputPath.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC,
                                         0644);
        posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    }
    const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

std::string
ChildStatusText(int waitStatus, int& exitCode)
{
    if (WIFEXITED(waitStatus))
    {
        exitCode = WEXITSTATUS(waitStatus);
        switch (exitCode)
        {
            case 0:
                return "ok";
            case 1:
                return "internal-error";
            case 2:
                return "bad-input";
            case 3:
                return "incomplete";
            default:
                return "exit-" + std::to_string(exitCode);
        }
    }
    exitCode = -1;
    if (WIFSIGNALED(waitStatus))
    {
        return "signal-" + std::to_string(WTERMSIG(waitStatus));
    }
    return "unknown";
}

std::vector<ChildOutcome>
RunChildProcesses(const std::vector<ChildJob>& jobs,
                  uint32_t parallel,
                  const volatile std::sig_atomic_t* interrupt,
                  const std::function<void(std::size_t, const ChildOutcome&)>& onFinish,
                  uint32_t* maxRunning)
{
    using Clock = std::chrono::steady_clock;
    const std::size_t n = jobs.size();
    const uint32_t limit = std::max<uint32_t>(1, parallel);
    std::vector<ChildOutcome> outcomes(n);
    std::map<pid_t, std::pair<std::size_t, Clock::time_point>> running;
    std::size_t next = 0;
    uint32_t most = 0;
    int forwarded = 0; // the signal sent to the children, once
    const auto interrupted = [&]() {
        return interrupt && *interrupt != 0;
    };
    while (!running.empty() || (next < n && !interrupted()))
    {
        if (interrupted() && forwarded == 0)
        {
            forwarded = *interrupt;
            for (const auto& child : running)
            {
                kill(child.first, forwarded);
            }
        }
        while (next < n && running.size() < limit && !interrupted())
        {
            pid_t pid = 0;
            const int rc = SpawnProcess(jobs[next].args, jobs[next].logPath, pid);
            if (rc != 0)
            {
                throw std::runtime_error("cannot start '" + jobs[next].args.front()
                                         + "': " + std::strerror(rc));
            }
            running[pid] = {next, Clock::now()};
            most = std::max<uint32_t>(most, static_cast<uint32_t>(running.size()));
            ++next;
        }
        if (running.empty())
        {
            break;
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            throw std::runtime_error("waiting for child processes failed: "
                                     + std::string(std::strerror(errno)));
        }
        const auto it = running.find(pid);
        if (it == running.end())
        {
            continue; // not one of ours
        }
        const std::size_t i = it->second.first;
        ChildOutcome& o = outcomes[i];
        o.started = true;
        o.wallS = std::chrono::duration<double>(Clock::now() - it->second.second).count();
        running.erase(it);
        o.status = ChildStatusText(status, o.exitCode);
        if (onFinish)
        {
            onFinish(i, o);
        }
    }
    for (std::size_t i = next; i < n; ++i)
    {
        outcomes[i].status = "not-run";
    }
    if (maxRunning)
    {
        *maxRunning = most;
    }
    return outcomes;
}

} // namespace ns3
