/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "results-dir.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ns3
{

namespace fs = std::filesystem;

namespace
{

/// The lock file's name inside a results directory.
constexpr const char* LOCK_FILE = ".ai-fabric.lock";
/// Room kept below PATH_MAX for the file names the tool writes into the directory
/// (`points/12/collectives.csv.123456.tmp`).
constexpr std::size_t FILE_NAME_ROOM = 96;

} // namespace

std::string
ResultsDirProblem(const std::string& dir)
{
    if (dir.empty())
    {
        return "the path is empty";
    }
    if (dir.find('\0') != std::string::npos)
    {
        return "the path holds a NUL byte";
    }
    if (dir.size() + FILE_NAME_ROOM >= PATH_MAX)
    {
        return "the path is " + std::to_string(dir.size()) + " bytes long; the tool needs "
               + std::to_string(FILE_NAME_ROOM) + " more for its files and paths have at most "
               + std::to_string(PATH_MAX - 1);
    }
    for (const fs::path& part : fs::path(dir))
    {
        if (part.native().size() > NAME_MAX)
        {
            return "its component '" + part.native().substr(0, 40) + "...' is "
                   + std::to_string(part.native().size()) + " bytes long; file names have at most "
                   + std::to_string(NAME_MAX);
        }
    }
    // The directory itself, or its nearest existing ancestor, which must be a directory
    // the tool may write into.
    fs::path p(dir);
    bool self = true;
    while (true)
    {
        struct stat link = {};
        if (lstat(p.c_str(), &link) == 0)
        {
            struct stat target = {};
            if (stat(p.c_str(), &target) != 0)
            {
                return (self ? std::string("it") : "'" + p.string() + "'")
                       + " is a dangling symbolic link";
            }
            if (!S_ISDIR(target.st_mode))
            {
                return self ? "it exists and is not a directory"
                            : "'" + p.string() + "' is a file, not a directory";
            }
            if (access(p.c_str(), W_OK | X_OK) != 0)
            {
                return "no permission to write into '" + p.string() + "'";
            }
            return "";
        }
        if (errno == ENOTDIR)
        {
            // An ancestor is a file: go up until it is found.
        }
        else if (errno != ENOENT)
        {
            return "cannot inspect '" + p.string() + "': " + std::strerror(errno);
        }
        const fs::path parent = p.parent_path();
        if (parent.empty() || parent == p)
        {
            return ""; // a relative path below the working directory, checked when created
        }
        p = parent;
        self = false;
    }
}

std::string
OutputFileProblem(const std::string& path)
{
    if (path.empty())
    {
        return "the path is empty";
    }
    std::error_code ec;
    if (fs::is_directory(path, ec))
    {
        return "is a directory; name a file";
    }
    const fs::path parent = fs::path(path).parent_path();
    const std::string dir = parent.empty() ? "." : parent.string();
    if (!fs::is_directory(dir, ec))
    {
        return "directory '" + dir + "' does not exist";
    }
    return ResultsDirProblem(dir);
}

ResultsDirLock::~ResultsDirLock()
{
    if (m_fd >= 0)
    {
        close(m_fd); // releases the lock; the file stays (it is reused by the next run)
    }
}

void
ResultsDirLock::Claim(const std::string& dir)
{
    if (m_fd >= 0 && dir == m_dir)
    {
        return;
    }
    const std::string problem = ResultsDirProblem(dir);
    if (!problem.empty())
    {
        throw ResultsDirError("results directory '" + dir + "': " + problem);
    }
    std::error_code ec;
    const bool existed = fs::exists(dir, ec);
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
    {
        throw ResultsDirError("cannot create results directory '" + dir
                              + "': " + (ec ? ec.message() : "not a directory"));
    }
    const std::string lockPath = dir + "/" + LOCK_FILE;
    int fd = -1;
    int busy = 0; // errno of a failed flock
    for (int attempt = 0;; ++attempt)
    {
        fd = open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
        {
            throw ResultsDirError("cannot write into results directory '" + dir
                                  + "': " + std::strerror(errno));
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        {
            busy = errno;
            break;
        }
        // Locked; but the file may have been removed (Abandon()) between the open and the
        // flock, and a third run may hold a new one: only a lock on the file at the path
        // counts.
        struct stat held = {};
        struct stat named = {};
        if (fstat(fd, &held) == 0 && stat(lockPath.c_str(), &named) == 0
            && held.st_dev == named.st_dev && held.st_ino == named.st_ino)
        {
            break;
        }
        close(fd);
        if (attempt >= 100)
        {
            throw ResultsDirError("cannot lock results directory '" + dir
                                  + "': its lock file keeps being replaced");
        }
    }
    if (busy != 0)
    {
        char pid[32] = {};
        const ssize_t got = pread(fd, pid, sizeof pid - 1, 0);
        close(fd);
        if (busy == EWOULDBLOCK)
        {
            const std::string holder
                = got > 0 ? " (pid " + std::string(pid, strnlen(pid, sizeof pid)) + ")" : "";
            throw ResultsDirError("results directory '" + dir
                                  + "' is in use by another ai-fabric run" + holder
                                  + "; wait for it to end or choose another --out");
        }
        throw ResultsDirError("cannot lock results directory '" + dir
                              + "': " + std::strerror(busy));
    }
    const std::string me = std::to_string(getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) < 0)
    {
        // The pid is only for the message of a second run; the lock holds without it.
    }
    if (m_fd >= 0)
    {
        close(m_fd);
    }
    m_fd = fd;
    m_dir = dir;
    m_created = !existed;
}

void
ResultsDirLock::Abandon()
{
    if (m_fd < 0)
    {
        return;
    }
    std::error_code ec;
    fs::remove(m_dir + "/" + LOCK_FILE, ec);
    if (m_created)
    {
        fs::remove(m_dir, ec); // only if empty
    }
    close(m_fd);
    m_fd = -1;
    m_dir.clear();
}

} // namespace ns3
