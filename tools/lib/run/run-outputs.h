/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RUN_OUTPUTS_H
#define AI_FABRIC_RUN_OUTPUTS_H

#include "config/scenario-spec.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Parse one of the run command's output options.
 * \param option "--pcap" (comma-separated NODE->PEER ports, appended to \p ports) or
 * "--attribution" (auto, on or off, stored in \p attribution)
 * \param value the option's value
 * \param ports capture ports so far
 * \param attribution the attribution setting, a name of AttributionNames() ("" if not given)
 * \return false if the value is malformed
 */
bool ParseRunOutputOption(const std::string& option,
                          const std::string& value,
                          std::vector<std::string>& ports,
                          std::string& attribution);

/**
 * \ingroup ai-fabric
 * \brief Apply --pcap ports (located at "--pcap" in errors) and --attribution to a scenario.
 * \param ports capture ports from the command line
 * \param attribution "auto", "on", "off", or "" to keep the scenario's setting
 * \param spec the scenario
 */
void ApplyRunOutputOptions(const std::vector<std::string>& ports,
                           const std::string& attribution,
                           ScenarioSpec& spec);

struct RunResults;

/**
 * \ingroup ai-fabric
 * \brief Write a run's result set into \p dir (claimed and locked by the caller,
 * ResultsDirLock) so that a reader never sees a mix of two runs.
 *
 * `summary.json`, the set's last file, is removed first and written last: a directory with a
 * `summary.json` holds one complete set. Files an earlier run left that this set does not
 * have (`ranks.csv`, `sweep.csv`, `stragglers.csv`, `capture-*.pcap`, `plots/`, and a multi-seed
 * run's `seeds.json`, `seeds.csv` and `seeds/`) are removed before it is written. Each file goes
 * through WriteFileAtomically(); the set is recorded (BeginResultSet()) so that a second signal can
 * say what was written.
 *
 * \param r the results
 * \param dir the results directory
 * \param sweep whether the run swept a collective's size (sweep.csv)
 * \return the names of the files written, summary.json first
 */
std::vector<std::string> WriteRunResultSet(const RunResults& r, const std::string& dir, bool sweep);

} // namespace ns3

#endif /* AI_FABRIC_RUN_OUTPUTS_H */
