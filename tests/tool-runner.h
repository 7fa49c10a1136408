/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Running the ai-fabric tool (or a script) from a test, as a user does: exit status,
 * stdout and stderr. Shared by the tests that run the tool.
 */
#ifndef AI_FABRIC_TOOL_RUNNER_H
#define AI_FABRIC_TOOL_RUNNER_H

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef AI_FABRIC_SOURCE_DIR
#    error "AI_FABRIC_SOURCE_DIR must name the repository root"
#endif
#ifndef AI_FABRIC_BINARY
#    error "AI_FABRIC_BINARY must name the ai-fabric executable"
#endif

namespace aifabrictest
{

/// What a command did.
struct ToolOutcome
{
    int status{-1};  //!< exit status, -1 if it did not exit
    std::string out; //!< stdout
    std::string err; //!< stderr
};

/// \return the whole file, "" if it cannot be read
inline std::string
SlurpFile(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// \return a fresh, empty scratch directory named after \p name and this process (other
/// checkouts may run the same tests at the same time)
inline std::filesystem::path
FreshScratch(const std::string& name)
{
    const std::filesystem::path d = std::filesystem::temp_directory_path()
                                    / ("ai-fabric-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

/// \return the path of \p rel in the source tree
inline std::string
SourcePath(const std::string& rel)
{
    return std::string(AI_FABRIC_SOURCE_DIR) + "/" + rel;
}

/// Run the shell command \p cmd (already quoted), capturing its output in \p scratch.
inline ToolOutcome
RunCommand(const std::string& cmd, const std::filesystem::path& scratch)
{
    const std::filesystem::path out = scratch / "stdout.txt";
    const std::filesystem::path err = scratch / "stderr.txt";
    const std::string full = cmd + " >'" + out.string() + "' 2>'" + err.string() + "' </dev/null";
    const int raw = std::system(full.c_str());
    ToolOutcome o;
    o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    o.out = SlurpFile(out);
    o.err = SlurpFile(err);
    return o;
}

/**
 * \brief Start the ai-fabric tool in the background (fork and exec, no shell).
 * \param args its arguments
 * \param cwd the directory it runs in
 * \param out file for its stdout
 * \param err file for its stderr
 * \return its pid
 */
inline pid_t
SpawnTool(const std::vector<std::string>& args,
          const std::filesystem::path& cwd,
          const std::filesystem::path& out,
          const std::filesystem::path& err)
{
    const pid_t pid = fork();
    if (pid == 0)
    {
        if (chdir(cwd.c_str()) != 0 || !std::freopen(out.c_str(), "w", stdout)
            || !std::freopen(err.c_str(), "w", stderr))
        {
            _exit(126);
        }
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(AI_FABRIC_BINARY));
        for (const auto& a : args)
        {
            argv.push_back(const_cast<char*>(a.c_str()));
        }
        argv.push_back(nullptr);
        execv(AI_FABRIC_BINARY, argv.data());
        _exit(127);
    }
    return pid;
}

/**
 * \brief Wait for a child SpawnTool() started.
 * \param pid its pid
 * \param[out] maxRssKiB its peak resident memory, KiB (if not null)
 * \return its exit status, -signal if a signal killed it, -1000 if it cannot be waited for
 */
inline int
WaitTool(pid_t pid, long* maxRssKiB = nullptr)
{
    int raw = 0;
    struct rusage ru = {};
    if (wait4(pid, &raw, 0, &ru) != pid)
    {
        return -1000;
    }
    if (maxRssKiB)
    {
        *maxRssKiB = ru.ru_maxrss;
    }
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -WTERMSIG(raw);
}

/// Run the ai-fabric tool with \p args (already shell-quoted).
inline ToolOutcome
RunTool(const std::string& args, const std::filesystem::path& scratch)
{
    return RunCommand(std::string("'") + AI_FABRIC_BINARY + "' " + args, scratch);
}

} // namespace aifabrictest

#endif /* AI_FABRIC_TOOL_RUNNER_H */
