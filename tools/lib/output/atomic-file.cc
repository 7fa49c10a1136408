/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "atomic-file.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace ns3
{

namespace
{

/// The temporary file being written (for RemovePendingAtomicFile()), NUL-terminated.
char g_pendingTmp[4096];
/// Non-zero while g_pendingTmp names a file that may exist.
volatile std::sig_atomic_t g_pendingValid = 0;

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
WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& body)
{
    const std::string tmp = path + ".tmp";
    const PendingTmp pending(tmp);
    {
        errno = 0;
        std::ofstream os(tmp, std::ios::out | std::ios::binary | std::ios::trunc);
        if (!os)
        {
            const std::string why = errno != 0 ? std::string(": ") + std::strerror(errno) : "";
            throw std::runtime_error("cannot write " + path + " (opening " + tmp + " failed" + why
                                     + ")");
        }
        try
        {
            body(os);
            os.flush();
            os.close();
        }
        catch (...)
        {
            os.close();
            std::remove(tmp.c_str());
            throw;
        }
        if (os.fail())
        {
            std::remove(tmp.c_str());
            throw std::runtime_error("cannot write " + path + " (I/O error writing " + tmp + ")");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write " + path + " (renaming " + tmp + " failed: " + why
                                 + ")");
    }
}

} // namespace ns3
