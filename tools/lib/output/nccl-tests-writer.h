/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_NCCL_TESTS_WRITER_H
#define AI_FABRIC_NCCL_TESTS_WRITER_H

#include "ns3/run-results.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One `ai-fabric nccl-tests` run, as nccl-tests (NVIDIA/nccl-tests 2.19, src/util.cu)
 * reports it: its settings and one SweepRow per size.
 */
struct NcclTestsReport
{
    std::string test;              //!< the nccl-tests binary it stands for, e.g. all_reduce_perf
    std::vector<std::string> args; //!< the command line (JSON "args")
    std::string topology;          //!< the topology file
    std::string algorithm;         //!< the algorithm simulated
    uint32_t ranks{0};             //!< ranks (nccl-tests: processes x -g)
    uint64_t minBytes{0};          //!< -b
    uint64_t maxBytes{0};          //!< -e
    uint32_t factor{2};            //!< -f
    std::string type{"float"};     //!< -d, as nccl-tests names it
    uint32_t typeBytes{4};         //!< bytes per element of type
    std::string redop{"sum"};      //!< -o, or "none" for an op that does not reduce
    int root{-1};                  //!< -r for broadcast and reduce, -1 otherwise
    std::vector<SweepRow> rows;    //!< one per size, increasing
    std::string startTime;         //!< wall-clock start, "YYYY-MM-DD HH:MM:SS"
    std::string endTime;           //!< wall-clock end
};

/**
 * \brief A number in a column of nccl-tests' table: two decimals if they fit the width, else
 * one, else none, else an exponent (nccl-tests' rule for time, algbw and busbw).
 * \param value the number
 * \param width the column width
 * \return the text, right-aligned to width
 */
std::string NcclTestsNumber(double value, int width);

/**
 * \brief Print the report as nccl-tests prints its results: the '#' preamble, the two-line
 * header, one line per size with the out-of-place and in-place columns (the same simulated
 * time: in place or not, the wire traffic is the same; #wrong is N/A, no data is moved), and
 * the footer with the average bus bandwidth. Each line ends with two more columns, the
 * analytic (alpha-beta) time and sim/analytic, after nccl-tests' own.
 * \param r the report
 * \param os where to print
 */
void PrintNcclTestsTable(const NcclTestsReport& r, std::ostream& os);

/**
 * \brief Write the report as nccl-tests' JSON output file (-J FILE.json, version 3): version,
 * start_time, args, results (size, count, type, redop, root, out_of_place and in_place with
 * time, alg_bw, bus_bw, nwrong), out_of_bounds, average_bus_bandwidth, end_time; plus the
 * simulator's own keys ("simulator", and per result "analytic_time" and "sim_over_analytic").
 * \param r the report
 * \param os where to write
 */
void WriteNcclTestsJson(const NcclTestsReport& r, std::ostream& os);

/**
 * \param r a report
 * \return the mean bus bandwidth over its sizes (nccl-tests' "Avg bus bandwidth"), GB/s
 */
double NcclTestsAverageBusBw(const NcclTestsReport& r);

} // namespace ns3

#endif /* AI_FABRIC_NCCL_TESTS_WRITER_H */
