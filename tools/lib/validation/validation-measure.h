/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_VALIDATION_MEASURE_H
#define AI_FABRIC_VALIDATION_MEASURE_H

#include "validation/validation-suite.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What the scenario of a validation measure must contain.
 */
enum class ValidationScenarioNeed
{
    ANY,        //!< any scenario (compare: the quantity decides)
    TRAINING,   //!< a training job
    COLLECTIVE, //!< a collective
    TOPOLOGY,   //!< only a topology (the scenario's traffic is not read)
};

/**
 * \ingroup ai-fabric
 * \brief One measure a validation case may name (`measure:`): what it runs, how
 * it computes the simulated and analytic figures from the run's results, and
 * which case keys apply to it. The registry (ValidationMeasures()) is the one
 * place a measure is declared; reading a case checks it against its measure
 * and RunValidationCase() calls its run function. docs/validation.md lists them.
 */
struct ValidationMeasure
{
    std::string name;                    //!< the YAML name
    std::string unit;                    //!< unit of its figures ("s", "fraction", ...)
    std::string computed;                //!< one line: how the simulated figure is computed
    std::vector<std::string> quantities; //!< the quantities it takes (empty: none)
    ValidationScenarioNeed need;         //!< what its scenario must contain
    bool takesSizes;                     //!< `sizes` applies (collective sizes)
    bool fitsSizes;                      //!< fits a line through `sizes` (needs two at least)
    bool takesModel;                     //!< `model` applies (the collective's closed form)
    bool extrapolates;                   //!< `extrapolate_to` applies
    bool takesRuns;                      //!< takes several `runs` (else one `scenario`)
    bool hasFormula;                     //!< has an analytic formula (else claims only)
    /**
     * \brief Run a case: simulate its scenario(s) and fill the outcome's rows (and
     * summary, problem, crossover, sweep as the measure gives them).
     * \param c the case
     * \param o the outcome
     */
    void (*run)(const ValidationCase& c, ValidationOutcome& o);
    /**
     * \param c a case of the measure
     * \return the number of its points (rows a claimed figure stands beside)
     */
    std::size_t (*points)(const ValidationCase& c);
};

/**
 * \ingroup ai-fabric
 * \return every measure, in documentation order
 */
const std::vector<ValidationMeasure>& ValidationMeasures();

/**
 * \ingroup ai-fabric
 * \param name a measure name
 * \return its measure, or null if there is none of that name
 */
const ValidationMeasure* FindValidationMeasure(const std::string& name);

/**
 * \ingroup ai-fabric
 * \return the measures a case may name, in documentation order
 */
std::vector<std::string> ValidationMeasureNames();

} // namespace ns3

#endif /* AI_FABRIC_VALIDATION_MEASURE_H */
