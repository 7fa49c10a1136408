/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "atomic-file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace ns3
{

void
WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& body)
{
    const std::string tmp = path + ".tmp";
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
