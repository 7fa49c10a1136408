/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "atomic-file.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <streambuf>
#include <sys/stat.h>
#include <unistd.h>

namespace ns3
{

namespace
{

/// The temporary file being written (for RemovePendingAtomicFile()), NUL-terminated.
char g_pendingTmp[4096];
/// Non-zero while g_pendingTmp names a file that may exist.
volatile std::sig_atomic_t g_pendingValid = 0;

/// The result set being written (BeginResultSet()): its directory, the planned and the
/// written file names, each NUL-separated ("a\0b\0"), with their lengths.
char g_setDir[4096];
char g_setPlanned[8192];
char g_setWritten[8192];
volatile std::sig_atomic_t g_setPlannedLen = 0;
volatile std::sig_atomic_t g_setWrittenLen = 0;
/// Non-zero while a result set is being written.
volatile std::sig_atomic_t g_setActive = 0;

/// Remembers the temporary file while it exists.
class PendingTmp
{
  public:
    /// \param tmp the temporary file's path
    explicit PendingTmp(const std::string& tmp)
    {
        g_pendingValid = 0;
        if (tmp.size() < sizeof g_pendingTmp)
        {
            std::memcpy(g_pendingTmp, tmp.c_str(), tmp.size() + 1);
            g_pendingValid = 1;
        }
    }

    ~PendingTmp()
    {
        g_pendingValid = 0;
    }

    PendingTmp(const PendingTmp&) = delete;
    PendingTmp& operator=(const PendingTmp&) = delete;
};

/// An output stream buffer writing to a file descriptor (64 KiB buffer, no allocation per
/// write), so that a large result streams to the exclusive temporary file.
class FdBuf : public std::streambuf
{
  public:
    /// \param fd the open file
    explicit FdBuf(int fd)
        : m_fd(fd)
    {
        setp(m_buffer, m_buffer + sizeof m_buffer);
    }

    /// \return whether every byte reached the file
    bool Good() const
    {
        return m_good;
    }

  protected:
    int_type overflow(int_type c) override
    {
        if (!Drain())
        {
            return traits_type::eof();
        }
        if (!traits_type::eq_int_type(c, traits_type::eof()))
        {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }

    int sync() override
    {
        return Drain() ? 0 : -1;
    }

  private:
    /// Write the buffered bytes. \return success
    bool Drain()
    {
        const char* p = pbase();
        while (p < pptr())
        {
            const ssize_t n = write(m_fd, p, static_cast<std::size_t>(pptr() - p));
            if (n < 0 && errno == EINTR)
            {
                continue;
            }
            if (n <= 0)
            {
                m_good = false;
                setp(m_buffer, m_buffer + sizeof m_buffer);
                return false;
            }
            p += n;
        }
        setp(m_buffer, m_buffer + sizeof m_buffer);
        return true;
    }

    int m_fd;               //!< the file
    bool m_good{true};      //!< no write failed
    char m_buffer[1 << 16]; //!< pending bytes
};

/// \return the mode a new file gets from open(2) with 0666 under this process's umask
mode_t
FileMode()
{
    static const mode_t mode = [] {
        const mode_t mask = umask(0);
        umask(mask);
        return static_cast<mode_t>(0666 & ~mask);
    }();
    return mode;
}

/// Append \p text (and a NUL) to \p buffer of \p size bytes holding \p len. \return new length
std::sig_atomic_t
Append(char* buffer, std::size_t size, std::sig_atomic_t len, const std::string& text)
{
    const auto at = static_cast<std::size_t>(len);
    if (at + text.size() + 1 > size)
    {
        return len;
    }
    std::memcpy(buffer + at, text.c_str(), text.size() + 1);
    // The bytes before the length that makes them visible to a signal handler.
    std::atomic_signal_fence(std::memory_order_release);
    return static_cast<std::sig_atomic_t>(at + text.size() + 1);
}

/// Async-signal-safe: write \p s to stderr.
void
Say(const char* s)
{
    const std::size_t n = std::strlen(s);
    if (n > 0 && write(STDERR_FILENO, s, n) < 0)
    {
        // nothing more to do in a signal handler
    }
}

/// Async-signal-safe: whether the NUL-separated \p list of \p len bytes holds \p name.
bool
Holds(const char* list, std::sig_atomic_t len, const char* name)
{
    for (std::sig_atomic_t i = 0; i < len;
         i += static_cast<std::sig_atomic_t>(std::strlen(list + i)) + 1)
    {
        if (std::strcmp(list + i, name) == 0)
        {
            return true;
        }
    }
    return false;
}

} // namespace

void
RemovePendingAtomicFile()
{
    if (g_pendingValid != 0)
    {
        unlink(g_pendingTmp);
    }
}

void
BeginResultSet(const std::string& dir, const std::vector<std::string>& planned)
{
    g_setActive = 0;
    g_setPlannedLen = 0;
    g_setWrittenLen = 0;
    const std::string d = dir.substr(0, sizeof g_setDir - 1);
    std::memcpy(g_setDir, d.c_str(), d.size() + 1);
    for (const std::string& name : planned)
    {
        g_setPlannedLen = Append(g_setPlanned, sizeof g_setPlanned, g_setPlannedLen, name);
    }
    g_setActive = 1;
}

void
EndResultSet()
{
    g_setActive = 0;
}

void
ReportResultSetOnSignal()
{
    if (g_setActive == 0)
    {
        return;
    }
    Say("ai-fabric: interrupted again while writing the results into ");
    Say(g_setDir);
    Say("; written: ");
    bool any = false;
    for (std::sig_atomic_t i = 0; i < g_setWrittenLen;
         i += static_cast<std::sig_atomic_t>(std::strlen(g_setWritten + i)) + 1)
    {
        Say(any ? ", " : "");
        Say(g_setWritten + i);
        any = true;
    }
    Say(any ? "" : "nothing");
    Say("; not written: ");
    any = false;
    for (std::sig_atomic_t i = 0; i < g_setPlannedLen;
         i += static_cast<std::sig_atomic_t>(std::strlen(g_setPlanned + i)) + 1)
    {
        if (!Holds(g_setWritten, g_setWrittenLen, g_setPlanned + i))
        {
            Say(any ? ", " : "");
            Say(g_setPlanned + i);
            any = true;
        }
    }
    Say(any ? "" : "nothing");
    Say(" (summary.json is written last: without it the set is incomplete)\n");
}

void
WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& body)
{
    std::string tmp = path + ".XXXXXX.tmp";
    const int fd = mkstemps(tmp.data(), 4);
    if (fd < 0)
    {
        const std::string why = std::strerror(errno);
        throw std::runtime_error("cannot write " + path + " (creating a temporary file " + path
                                 + ".XXXXXX.tmp failed: " + why + ")");
    }
    const PendingTmp pending(tmp);
    bool good = fchmod(fd, FileMode()) == 0;
    {
        FdBuf buf(fd);
        std::ostream os(&buf);
        try
        {
            body(os);
            os.flush();
        }
        catch (...)
        {
            close(fd);
            std::remove(tmp.c_str());
            throw;
        }
        good = good && buf.Good() && !os.fail();
    }
    good = close(fd) == 0 && good;
    if (!good)
    {
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write " + path + " (I/O error writing " + tmp + ")");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write " + path + " (renaming " + tmp + " failed: " + why
                                 + ")");
    }
    if (g_setActive != 0)
    {
        const std::size_t slash = path.find_last_of('/');
        g_setWrittenLen = Append(g_setWritten,
                                 sizeof g_setWritten,
                                 g_setWrittenLen,
                                 slash == std::string::npos ? path : path.substr(slash + 1));
    }
}

} // namespace ns3
