/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_ATOMIC_FILE_H
#define AI_FABRIC_ATOMIC_FILE_H

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Write a whole file through a temporary file and a rename, so that a reader never
 * sees a half-written result.
 *
 * The temporary file, `path.XXXXXX.tmp` in the same directory, is created with a unique
 * name and exclusively (mkstemps(3): never an existing file or a planted symbolic link),
 * so that two processes never write the same temporary file.
 *
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

/**
 * \ingroup ai-fabric
 * \brief Start writing a result set: the files WriteFileAtomically() completes from now on
 * are recorded (in a static buffer), so that ReportResultSetOnSignal() can say what was and
 * was not written.
 * \param dir the results directory
 * \param planned the names of the files the set will hold, in writing order
 */
void BeginResultSet(const std::string& dir, const std::vector<std::string>& planned);

/// \ingroup ai-fabric
/// \brief The result set is complete: stop recording.
void EndResultSet();

/**
 * \ingroup ai-fabric
 * \brief Write to stderr, async-signal-safely, which files of the result set being written
 * were written and which were not (nothing if no set is being written).
 */
void ReportResultSetOnSignal();

} // namespace ns3

#endif /* AI_FABRIC_ATOMIC_FILE_H */
