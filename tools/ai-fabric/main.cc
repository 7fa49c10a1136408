/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-fabric: the command-line tool.
 *
 *   ai-fabric run SCENARIO.yaml [--out DIR] [--seed N] [--quiet]
 *   ai-fabric --help | --version
 *
 * Exit status: 0 success; 1 internal error; 2 bad input (scenario files or
 * flags: nothing is written); 3 the run did not complete or broke an
 * invariant (results are written and marked "complete"/"valid": false).
 */

#include "ns3/nstime.h"
#include "ns3/results-writer.h"
#include "ns3/scenario-runner.h"
#include "ns3/spec-error.h"
#include "ns3/yaml-scenario-reader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef AI_FABRIC_VERSION
#    define AI_FABRIC_VERSION "0.0.0"
#endif

namespace
{

constexpr int EXIT_OK = 0;
constexpr int EXIT_INTERNAL = 1;
constexpr int EXIT_BAD_INPUT = 2;
constexpr int EXIT_INCOMPLETE = 3;

const char* const USAGE
    = R"(ai-fabric: packet-level simulation of AI-training traffic on GPU fabrics

Usage:
  ai-fabric run SCENARIO.yaml [--out DIR] [--seed N] [--quiet]
  ai-fabric --help
  ai-fabric --version

Commands:
  run        Build the scenario's fabric, run its traffic packet by packet, and
             write DIR/summary.json, DIR/flows.csv and DIR/ports.csv; print a
             summary table.

Options for run:
  --out DIR  Results directory (default: results/<scenario name>).
  --seed N   Override the scenario's seed (an integer >= 1).
  --quiet    No progress line and no table; errors are still printed.

Exit status: 0 success, 1 internal error, 2 bad input (nothing written),
3 the run hit its stop_time before every message arrived, or broke an
invariant (e.g. a drop on a lossless fabric); results are written and marked.
See docs/scenario-format.md and docs/results-format.md.
)";

int
UsageError(const std::string& message)
{
    std::cerr << "ai-fabric: error: " << message << "\n"
              << "Run 'ai-fabric --help' for usage.\n";
    return EXIT_BAD_INPUT;
}

bool
ParseSeed(const std::string& text, uint64_t& seed)
{
    if (text.empty() || text.size() > 10
        || text.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    seed = std::stoull(text);
    return seed >= 1 && seed <= UINT32_MAX;
}

int
Run(const std::vector<std::string>& args)
{
    std::string scenarioPath;
    std::string outDir;
    bool quiet = false;
    bool haveSeed = false;
    uint64_t seed = 0;
    for (std::size_t i = 0; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        if (a == "--out" || a == "--seed")
        {
            if (i + 1 >= args.size())
            {
                return UsageError("option " + a + " needs a value");
            }
            const std::string& v = args[++i];
            if (a == "--out")
            {
                outDir = v;
            }
            else if (!ParseSeed(v, seed))
            {
                return UsageError("--seed takes an integer from 1 to 4294967295, not '" + v + "'");
            }
            else
            {
                haveSeed = true;
            }
        }
        else if (a == "--quiet" || a == "-q")
        {
            quiet = true;
        }
        else if (!a.empty() && a[0] == '-')
        {
            return UsageError("unknown option '" + a + "' for 'run'");
        }
        else if (scenarioPath.empty())
        {
            scenarioPath = a;
        }
        else
        {
            return UsageError("'run' takes one scenario file; '" + a + "' is one too many");
        }
    }
    if (scenarioPath.empty())
    {
        return UsageError("'run' needs a scenario file: ai-fabric run SCENARIO.yaml");
    }

    ns3::ScenarioSpec spec = ns3::ReadScenarioFile(scenarioPath);
    if (haveSeed)
    {
        spec.seed = seed;
    }
    if (outDir.empty())
    {
        outDir = "results/" + spec.name;
    }

    ns3::RunOptions options;
    options.progress = !quiet && isatty(STDERR_FILENO);
    const ns3::RunResults results = ns3::RunScenario(spec, options);

    std::error_code ec;
    std::filesystem::create_directories(outDir, ec);
    if (ec)
    {
        std::cerr << "ai-fabric: error: cannot create results directory '" << outDir
                  << "': " << ec.message() << "\n";
        return EXIT_INTERNAL;
    }
    ns3::WriteFlowsCsv(results, outDir + "/flows.csv");
    ns3::WritePortsCsv(results, outDir + "/ports.csv");
    ns3::WriteSummaryJson(results, outDir + "/summary.json");
    if (!quiet)
    {
        ns3::PrintSummaryTable(results, std::cout);
        std::cout << "results: " << outDir << "/summary.json, " << outDir << "/flows.csv, "
                  << outDir << "/ports.csv\n";
    }
    for (const auto& v : results.violations)
    {
        std::cerr << "ai-fabric: error: invariant violated: " << v
                  << "; results are marked \"valid\": false\n";
    }
    if (!results.violations.empty())
    {
        return EXIT_INCOMPLETE;
    }
    if (!results.complete)
    {
        std::cerr << "ai-fabric: error: the run reached its stop_time before every message "
                     "arrived; results are marked \"complete\": false\n";
        return EXIT_INCOMPLETE;
    }
    return EXIT_OK;
}

} // namespace

int
main(int argc, char** argv)
{
    // Picosecond resolution: at 400-800 Gb/s a packet takes tens of ns, and ns
    // resolution would round every serialization time (STYLE.md 2.5).
    ns3::Time::SetResolution(ns3::Time::PS);

    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty())
    {
        std::cerr << USAGE;
        return EXIT_BAD_INPUT;
    }
    const std::string cmd = args[0];
    if (cmd == "--help" || cmd == "-h" || cmd == "help")
    {
        std::cout << USAGE;
        return EXIT_OK;
    }
    if (cmd == "--version")
    {
        std::cout << "ai-fabric " << AI_FABRIC_VERSION << " (ns-3 3.37)\n";
        return EXIT_OK;
    }
    try
    {
        if (cmd == "run")
        {
            return Run(std::vector<std::string>(args.begin() + 1, args.end()));
        }
        return UsageError("unknown command '" + cmd + "' (known: run)");
    }
    catch (const ns3::SpecError& e)
    {
        std::cerr << e.what() << "\n";
        return EXIT_BAD_INPUT;
    }
    catch (const std::exception& e)
    {
        std::cerr << "ai-fabric: internal error: " << e.what() << "\n";
        return EXIT_INTERNAL;
    }
}
