/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Running the ai-fabric tool (or a script) from a test, as a user does: exit status,
 * stdout and stderr. Shared by the tests that run the tool.
 */
#ifndef AI_FABRIC_TOOL_RUNNER_H
#define AI_FABRIC_TOOL_RUNNER_H

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

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

/// Run the ai-fabric tool with \p args (already shell-quoted).
inline ToolOutcome
RunTool(const std::string& args, const std::filesystem::path& scratch)
{
    return RunCommand(std::string("'") + AI_FABRIC_BINARY + "' " + args, scratch);
}

} // namespace aifabrictest

#endif /* AI_FABRIC_TOOL_RUNNER_H */
