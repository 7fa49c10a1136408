/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-fabric: the 'sweep' command (a grid of variations of a base scenario, each point
 * its own 'ai-fabric run' child process) and the '--plots' step (scripts/plot-results).
 */
#include "sweep-command.h"

#include "config/scenario-spec.h"
#include "config/spec-toolkit.h"
#include "output/results-dir.h"
#include "run/child-process.h"
#include "sweep/parameter-sweep.h"
#include "sweep/seed-runs.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef AI_FABRIC_PLOT_SCRIPT
#    define AI_FABRIC_PLOT_SCRIPT "scripts/plot-results"
#endif

namespace aifabric
{

namespace
{

constexpr int EXIT_OK = 0;
constexpr int EXIT_BAD_INPUT = 2;
constexpr int EXIT_INCOMPLETE = 3;

/// The signal that interrupted the sweep (SIGINT, SIGTERM), 0 if none.
volatile std::sig_atomic_t g_interrupt = 0;

extern "C" void
OnStopSignal(int sig)
{
    g_interrupt = sig;
}

/// Catches SIGINT and SIGTERM while it lives (without SA_RESTART, so waitpid() returns).
class StopSignals
{
  public:
    StopSignals()
    {
        struct sigaction sa = {};
        sa.sa_handler = &OnStopSignal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &m_oldInt);
        sigaction(SIGTERM, &sa, &m_oldTerm);
    }

    ~StopSignals()
    {
        sigaction(SIGINT, &m_oldInt, nullptr);
        sigaction(SIGTERM, &m_oldTerm, nullptr);
    }

    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

  private:
    struct sigaction m_oldInt = {};  //!< previous SIGINT action
    struct sigaction m_oldTerm = {}; //!< previous SIGTERM action
};

int
UsageError(const std::string& message)
{
    std::cerr << "ai-fabric: error: " << message << "\n"
              << "Run 'ai-fabric --help' for usage.\n";
    return EXIT_BAD_INPUT;
}

/// \return the path of the running executable (to run the points with)
std::string
SelfExecutable()
{
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
    {
        throw std::runtime_error("cannot find the ai-fabric executable (/proc/self/exe): "
                                 + std::string(std::strerror(errno)));
    }
    return std::string(buf, static_cast<std::size_t>(n));
}

/// \return \p jobs, or the number of online cores for 0, at most \p children
uint32_t
JobsFor(uint32_t jobs, std::size_t children)
{
    if (jobs == 0)
    {
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cores > 0 ? static_cast<uint32_t>(cores) : 1;
    }
    return std::max<uint32_t>(1, std::min<uint32_t>(jobs, static_cast<uint32_t>(children)));
}

} // namespace

int
RunSeedsCommand(const std::string& scenarioFile,
                const ns3::ScenarioSpec& spec,
                const std::vector<uint32_t>& seeds,
                const std::vector<std::string>& runArgs,
                const std::string& outDir,
                uint32_t jobs,
                bool quiet)
{
    ns3::SeedRunPlan plan;
    plan.executable = SelfExecutable();
    plan.scenarioFile = scenarioFile;
    plan.title = spec.name;
    plan.seeds = seeds;
    plan.runArgs = runArgs;
    plan.metrics = ns3::SeedRunMetrics(spec);
    jobs = JobsFor(jobs, seeds.size());

    ns3::ResultsDirLock outLock;
    outLock.Claim(outDir);
    if (!quiet)
    {
        std::cerr << "[seeds] " << spec.name << ": " << seeds.size() << " seeds, " << jobs
                  << " at once, results in " << outDir << "\n";
    }
    std::vector<ns3::SeedRunResult> runs;
    {
        // SIGINT/SIGTERM: pass it to the running seeds, start no more, write what ran.
        const StopSignals stop;
        runs = ns3::RunSeeds(plan, outDir, jobs, &g_interrupt, quiet ? nullptr : &std::cerr);
    }
    const std::size_t ok = ns3::SeedsOk(runs);
    if (!quiet)
    {
        std::cout << ns3::SeedSummaryText(plan.metrics, runs);
        std::cout << "seeds: " << ok << " of " << runs.size() << " ok; results: " << outDir
                  << "/seeds.json, " << outDir << "/seeds.csv, " << outDir << "/report.md, "
                  << outDir << "/seeds/SEED/\n";
    }
    if (g_interrupt != 0)
    {
        std::cerr << "ai-fabric: interrupted (signal " << g_interrupt
                  << "); the seeds that ran are in the aggregate, the others have status "
                     "not-run\n";
        return 128 + g_interrupt;
    }
    if (ok < runs.size())
    {
        std::cerr << "ai-fabric: error: " << runs.size() - ok << " of " << runs.size()
                  << " seeds did not finish with status ok (left out of the statistics; see "
                     "seeds.csv and their run.log)\n";
        return EXIT_INCOMPLETE;
    }
    return EXIT_OK;
}

int
RunProgram(const std::vector<std::string>& args, bool discardOutput, std::string* why)
{
    pid_t pid = 0;
    const int rc = ns3::SpawnProcess(args, discardOutput ? "/dev/null" : "", pid);
    if (rc != 0)
    {
        if (why)
        {
            *why = std::strerror(rc);
        }
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
    {
        if (errno != EINTR)
        {
            if (why)
            {
                *why = std::strerror(errno);
            }
            return -1;
        }
    }
    if (!WIFEXITED(status))
    {
        if (why)
        {
            *why = "killed by signal " + std::to_string(WTERMSIG(status));
        }
        return -1;
    }
    return WEXITSTATUS(status);
}

bool
DrawPlots(const std::string& dir, bool quiet)
{
    const char* env = std::getenv("AI_FABRIC_PLOT_SCRIPT");
    const std::string script = (env && *env) ? env : AI_FABRIC_PLOT_SCRIPT;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(script, ec))
    {
        std::cerr << "ai-fabric: error: --plots: the plot script '" << script
                  << "' does not exist (set AI_FABRIC_PLOT_SCRIPT to scripts/plot-results)\n";
        return false;
    }
    std::vector<std::string> args = {"python3", script, dir};
    if (quiet)
    {
        args.emplace_back("--quiet");
    }
    std::cout << std::flush;
    std::string why;
    const int status = RunProgram(args, false, &why);
    if (status < 0)
    {
        std::cerr << "ai-fabric: error: --plots needs python3 with matplotlib (Debian: apt-get "
                     "install python3-matplotlib, or scripts/setup); cannot run python3: "
                  << why << "\n";
        return false;
    }
    if (status != 0)
    {
        std::cerr << "ai-fabric: error: --plots: " << script
                  << " failed (see its message above); the results are written, the plots "
                     "are not\n";
        return false;
    }
    return true;
}

int
Sweep(const std::vector<std::string>& args)
{
    std::string sweepPath;
    std::string outDir;
    bool quiet = false;
    bool plots = false;
    uint32_t jobs = 0;
    uint32_t seedCount = 0;
    for (std::size_t i = 0; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        if (a == "--seeds")
        {
            if (i + 1 >= args.size() || args[i + 1].empty())
            {
                return UsageError("option " + a + " needs a value");
            }
            const std::string& v = args[++i];
            if (v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos
                || std::stoul(v) < 1 || std::stoul(v) > ns3::spec::MAX_SEEDS)
            {
                return UsageError("--seeds takes an integer from 1 to "
                                  + std::to_string(ns3::spec::MAX_SEEDS) + ", not '" + v + "'");
            }
            seedCount = static_cast<uint32_t>(std::stoul(v));
        }
        else if (a == "--out" || a == "--jobs" || a == "-j")
        {
            if (i + 1 >= args.size() || args[i + 1].empty())
            {
                return UsageError("option " + a + " needs a value");
            }
            const std::string& v = args[++i];
            if (a == "--out")
            {
                outDir = v;
            }
            else if (v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos
                     || std::stoul(v) < 1 || std::stoul(v) > 1024)
            {
                return UsageError("--jobs takes an integer from 1 to 1024, not '" + v + "'");
            }
            else
            {
                jobs = static_cast<uint32_t>(std::stoul(v));
            }
        }
        else if (a == "--quiet" || a == "-q")
        {
            quiet = true;
        }
        else if (a == "--plots")
        {
            plots = true;
        }
        else if (!a.empty() && a[0] == '-')
        {
            return UsageError("unknown option '" + a + "' for 'sweep'");
        }
        else if (sweepPath.empty())
        {
            sweepPath = a;
        }
        else
        {
            return UsageError("'sweep' takes one sweep file; '" + a + "' is one too many");
        }
    }
    if (sweepPath.empty())
    {
        return UsageError("'sweep' needs a sweep file: ai-fabric sweep SWEEP.yaml");
    }

    // Everything is checked (every point's scenario too) before anything is written.
    const ns3::SweepPlan plan = ns3::ReadSweepFile(sweepPath, seedCount);
    if (outDir.empty())
    {
        outDir = "results/" + plan.name;
    }
    if (jobs == 0)
    {
        jobs = plan.jobs;
    }
    const std::size_t runs = plan.points.size() * std::max<std::size_t>(1, plan.seeds.size());
    jobs = JobsFor(jobs, runs);

    // The results directory: checked, created and locked (a second sweep or run into it fails
    // at once); an earlier sweep's points and plots are removed (RunSweepPoints()).
    if (const std::string problem = ns3::ResultsDirProblem(outDir); !problem.empty())
    {
        return UsageError("results directory '" + outDir + "': " + problem);
    }
    ns3::ResultsDirLock outLock;
    outLock.Claim(outDir);
    {
        std::error_code ec;
        std::filesystem::remove_all(outDir + "/plots", ec);
    }
    if (!quiet)
    {
        std::cerr << "[sweep] " << plan.name << ": " << plan.points.size() << " points";
        if (!plan.seeds.empty())
        {
            std::cerr << " x " << plan.seeds.size() << " seeds";
        }
        std::cerr << ", " << jobs << " at once, results in " << outDir << "\n";
    }
    ns3::SweepRunOptions options;
    options.executable = SelfExecutable();
    options.jobs = jobs;
    options.progress = quiet ? nullptr : &std::cerr;
    options.interrupt = &g_interrupt;
    std::vector<ns3::SweepPointResult> results;
    {
        // SIGINT/SIGTERM: pass it to the running points, start no more, write what ran.
        const StopSignals stop;
        results = ns3::RunSweepPoints(plan, outDir, options);
    }
    if (g_interrupt != 0)
    {
        std::cerr << "ai-fabric: error: sweep interrupted by signal " << g_interrupt
                  << "; writing the points that ran (the others have status not-run)\n";
    }
    ns3::WriteSweepCsv(plan, results, outDir);
    const bool plotted = !plots || DrawPlots(outDir, quiet);
    ns3::WriteSweepReport(plan, results, outDir);

    std::size_t failed = 0;
    for (const auto& r : results)
    {
        failed += r.exitCode != 0;
    }
    if (!quiet)
    {
        // The findings of the report: each metric against the first parameter.
        std::ifstream report(outDir + "/report.md");
        std::string line;
        while (std::getline(report, line))
        {
            if (line.rfind("* `", 0) == 0 || line.rfind("* warning: ", 0) == 0)
            {
                std::cout << line.substr(2) << "\n";
            }
        }
        std::cout << "sweep: " << plan.points.size() - failed << " of " << plan.points.size()
                  << " points ok; results: " << outDir << "/sweep-points.csv, " << outDir
                  << "/report.md" << (plan.seeds.empty() ? "" : ", " + outDir + "/sweep-seeds.csv")
                  << (plots && plotted ? ", " + outDir + "/plots/" : "") << "\n";
    }
    for (const auto& m : plan.metrics)
    {
        bool found = false;
        for (const auto& r : results)
        {
            found = found || r.metricFound[&m - plan.metrics.data()];
        }
        if (!found && !plan.defaultMetrics)
        {
            std::cerr << m.where.ToString() << ": warning: metric '" << m.name << "': path '"
                      << m.path << "' is in no point's summary.json (see docs/results-format.md)\n";
        }
    }
    if (failed > 0)
    {
        std::cerr << "ai-fabric: error: " << failed << " of " << plan.points.size()
                  << " sweep points did not finish with status ok (see sweep-points.csv and "
                     "their run.log)\n";
        return EXIT_INCOMPLETE;
    }
    return plotted ? EXIT_OK : EXIT_PLOTS_FAILED;
}

} // namespace aifabric
