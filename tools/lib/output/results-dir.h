/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RESULTS_DIR_H
#define AI_FABRIC_RESULTS_DIR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A results directory that cannot be used: the tool reports it and exits with status
 * 2 (like bad input), before simulating.
 */
class ResultsDirError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/**
 * \brief What makes \p dir unusable as a results directory, found without creating anything:
 * an empty path, a path or a component too long for the file system (PATH_MAX, NAME_MAX),
 * an existing file that is not a directory, a dangling symbolic link, an ancestor that is a
 * file, or no permission to write where it must be created.
 *
 * \param dir the directory (`--out`, or `results/NAME`)
 * \return the problem in words ("" if none was found)
 */
std::string ResultsDirProblem(const std::string& dir);

/**
 * \brief What makes \p path unusable as an output file named on the command line (`--json`,
 * `-J`, `--report`), found before any work: an empty path, a directory, a directory part that
 * does not exist or is unusable (ResultsDirProblem()).
 *
 * \param path the file
 * \return the problem in words ("" if none was found)
 */
std::string OutputFileProblem(const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Claims a results directory for this process: creates it and holds an exclusive lock
 * on it (flock(2) on `DIR/.ai-fabric.lock`, which records the holder's pid) until destroyed
 * or the process ends, so that a second run into the same directory fails at once instead
 * of mixing its files with the first run's (docs/robustness.md).
 */
class ResultsDirLock
{
  public:
    ResultsDirLock() = default;
    ~ResultsDirLock();
    ResultsDirLock(const ResultsDirLock&) = delete;
    ResultsDirLock& operator=(const ResultsDirLock&) = delete;

    /**
     * \brief Create \p dir (and its parents) and lock it; a second call for the same
     * directory does nothing.
     * \param dir the directory
     * \throws ResultsDirError if it cannot be created or another process holds its lock
     */
    void Claim(const std::string& dir);

    /**
     * \brief Nothing was written after all (bad input found late): remove the lock file, and
     * the directory if Claim() created it and it is empty, then release the lock.
     */
    void Abandon();

  private:
    int m_fd{-1};          //!< the lock file, open while the lock is held
    std::string m_dir;     //!< the claimed directory
    bool m_created{false}; //!< whether Claim() created the directory
};

} // namespace ns3

#endif /* AI_FABRIC_RESULTS_DIR_H */
