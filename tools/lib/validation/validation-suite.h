/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_VALIDATION_SUITE_H
#define AI_FABRIC_VALIDATION_SUITE_H

#include "config/scenario-spec.h"

#include "ns3/run-results.h"
#include "ns3/spec-error.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One scenario a validation case runs (validation/scenarios/ *.yaml), read at load time.
 */
struct ValidationRun
{
    SpecLocation where;    //!< where the case names it
    std::string label;     //!< label in the report ("1:1", "nvlink", ...)
    std::string path;      //!< the scenario file, as resolved against the case file
    ScenarioSpec scenario; //!< the scenario, read by ReadScenarioFile()
};

/**
 * \ingroup ai-fabric
 * \brief One validation case (docs/validation.md): a scenario, a measured
 * quantity, the analytic value computed from the scenario's own parameters,
 * a tolerance and a kind.
 *
 * kind "formula": every point must agree within `tolerance` (else the suite
 * fails); kind "claim": the simulated figure is reported beside the claimed
 * one, as a finding, whatever it is.
 */
struct ValidationCase
{
    SpecLocation where;                  //!< the case's mapping
    std::string group;                   //!< group: the case file's stem
    std::string name;                    //!< unique name in the suite
    std::string kind;                    //!< "formula" or "claim"
    std::string formula;                 //!< "F1".."F16", "C1".."C8" or "bisection"
    std::string measure;                 //!< a ValidationMeasure's name
    std::string quantity;                //!< measure-specific quantity (see docs/validation.md)
    std::vector<std::string> quantities; //!< compare: every quantity (quantity = the first)
    std::vector<ValidationRun> runs;     //!< the scenario(s)
    std::string collective;              //!< collective measured ("" = the first one)
    std::string model{"formula"};        //!< collective measures: the closed form of
                                         //!< CollectiveTime(): "formula" (MISSION.md, the
                                         //!< default) or "schedule" (the schedule NCCL and
                                         //!< this simulator build, e.g. concurrent sends)
    std::vector<uint64_t> sizes;         //!< collective sizes (overrides the scenario's)
    SpecLocation sizesWhere;             //!< location of `sizes`
    std::vector<uint32_t> microBatches;  //!< training micro-batches (overrides the scenario's)
    double tolerance{0};                 //!< relative tolerance of a formula case (0.03 = 3 %)
    bool quick{false};                   //!< part of the CI subset (--quick)
    std::string claim;                   //!< claim: the claimed sentence
    std::string source;                  //!< where the claim or formula comes from
    std::vector<double> claimed;         //!< claim: claimed figures, one per point (unit of the
                                         //!< measure: seconds, bytes, fractions, ratios)
    double claimedRatio{0};              //!< compare / collective-time claims: claimed last/first
                                         //!< (or sim/analytic) ratio; 0 = none
    uint64_t extrapolateTo{0};           //!< collective-time: also extrapolate to this size, bytes
    std::string explain;                 //!< one line: the known cause of a disagreement or the
                                         //!< reason behind a finding (written after measuring)
};

/**
 * \ingroup ai-fabric
 * \brief One case file (validation/cases/GROUP.yaml).
 */
struct ValidationGroup
{
    std::string file;                  //!< path
    std::string name;                  //!< group name: the file's stem
    std::string title;                 //!< heading in the report
    std::string description;           //!< a paragraph under the heading
    uint32_t order{1000};              //!< place in the report (`order:`; ties: file name)
    std::vector<ValidationCase> cases; //!< its cases, in file order
};

/**
 * \ingroup ai-fabric
 * \brief One point of a case's outcome: one line of the report's table.
 */
struct ValidationRow
{
    std::string point;   //!< what this row measures ("64 KiB", "m = 8", "1:1", "n*")
    std::string unit;    //!< "s", "B", "bps", "fraction", "ratio"
    double analytic{0};  //!< analytic (formula) or claimed value; NaN if none
    double simulated{0}; //!< simulated value; NaN if the run failed
    std::string regime;  //!< "alpha" / "beta" (collective-time), else ""
    bool checked{true};  //!< formula rows: counts toward the verdict
    bool agrees{true};   //!< formula rows: |error| <= tolerance
    std::string note;    //!< automatic cause notes (congestion counters, incomplete run, ...)
};

/**
 * \ingroup ai-fabric
 * \brief What running one case gave.
 */
struct ValidationOutcome
{
    std::string caseName;            //!< ValidationCase::name
    std::vector<ValidationRow> rows; //!< the points
    bool passed{true};               //!< formula: every checked row agrees (claims: always true)
    std::string problem;             //!< why a formula case failed beyond its rows (e.g. the
                                     //!< sizes do not span the crossover), "" if none
    std::string summary;             //!< one sentence: a claim's finding or the case's result
    double crossoverBytes{0};        //!< collective-time: n* where alpha and beta terms are equal
    std::vector<SweepRow> sweep;     //!< collective-time: nccl-tests rows (busbw vs size)
    double wallS{0};                 //!< wall-clock seconds the case took (not in the report)
};

/**
 * \ingroup ai-fabric
 * \param v a number
 * \param digits significant digits
 * \return v with that many significant digits, in the C locale
 */
std::string FormatSignificant(double v, int digits = 4);

/**
 * \ingroup ai-fabric
 * \param v a value (NaN: none)
 * \param unit its unit ("s", "B", "bps", "Bps", "fraction", "ratio")
 * \return the value as the report writes it
 */
std::string FormatValidationValue(double v, const std::string& unit);

/**
 * \ingroup ai-fabric
 * \brief Read one case file. Every scenario it names is read (ReadScenarioFile())
 * and every override checked, so that a bad case fails before anything runs.
 * \param path the case file
 * \return the group
 * \throws SpecError on any user error (FILE:LINE:COL)
 */
ValidationGroup ReadValidationCaseFile(const std::string& path);

/**
 * \ingroup ai-fabric
 * \brief Read a suite: every DIR/cases/ *.yaml, by their `order` and then name; case
 * names must be unique across the suite.
 * \param dir the suite directory (validation/)
 * \return the groups
 * \throws SpecError on any user error, or if DIR/cases/ has no case file
 */
std::vector<ValidationGroup> ReadValidationSuite(const std::string& dir);

/**
 * \ingroup ai-fabric
 * \brief Run one case: simulate its scenario(s) in this process (one after the
 * other; Simulator::Destroy() between runs), compute the analytic values and
 * compare.
 * \param c the case
 * \return the outcome
 * \throws SpecError if a scenario turns out impossible when built
 */
ValidationOutcome RunValidationCase(const ValidationCase& c);

/**
 * \ingroup ai-fabric
 * \brief Serialize an outcome as text (one field per line; for --jobs workers).
 * \param o the outcome
 * \param os where to write
 */
void WriteValidationOutcome(const ValidationOutcome& o, std::ostream& os);

/**
 * \ingroup ai-fabric
 * \brief Parse what WriteValidationOutcome() wrote.
 * \param text the text
 * \param[out] o the outcome
 * \return false if the text is malformed
 */
bool ParseValidationOutcome(const std::string& text, ValidationOutcome& o);

/**
 * \ingroup ai-fabric
 * \brief What the report says about the run as a whole.
 */
struct ValidationReportInfo
{
    std::string command;            //!< the command line that produced it
    bool quick{false};              //!< only the quick subset ran
    std::string plotsNote;          //!< how the plots were made, or why they were skipped
    std::vector<std::string> plots; //!< PNG files, relative to the report
};

/**
 * \ingroup ai-fabric
 * \brief Write REPORT.md: a summary, then per group a table (case, point,
 * analytic, simulated, error, verdict), one line per disagreement's cause and
 * one sentence per finding. Deterministic (no wall-clock times).
 * \param groups the suite (cases not run are left out)
 * \param outcomes outcomes by case name order of the groups (same order as the cases run)
 * \param info run information
 * \param os where to write
 */
void WriteValidationReport(const std::vector<ValidationGroup>& groups,
                           const std::vector<ValidationOutcome>& outcomes,
                           const ValidationReportInfo& info,
                           std::ostream& os);

/**
 * \ingroup ai-fabric
 * \param c a case
 * \param o its outcome
 * \return "agrees", "disagrees" or "finding" for the case as a whole
 */
std::string ValidationVerdict(const ValidationCase& c, const ValidationOutcome& o);

} // namespace ns3

#endif /* AI_FABRIC_VALIDATION_SUITE_H */
