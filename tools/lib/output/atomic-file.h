/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_ATOMIC_FILE_H
#define AI_FABRIC_ATOMIC_FILE_H

#include <functional>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Write a whole file through `path + ".tmp"` and a rename, so that a
 * reader never sees a half-written result.
 * \param path the final path
 * \param body writes the content to the stream it is given
 * \throw std::runtime_error naming the path if the file cannot be written or
 * renamed (the temporary file is removed)
 */
void WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& body);

/**
 * \ingroup ai-fabric
 * \brief Remove the temporary file WriteFileAtomically() is writing, if any.
 * Async-signal-safe (unlink() of a path kept in a static buffer): for a signal
 * handler that exits at once.
 */
void RemovePendingAtomicFile();

} // namespace ns3

#endif /* AI_FABRIC_ATOMIC_FILE_H */
