/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-fabric validate DIR [--quick] [--report FILE] [--jobs N]
 *
 * Runs the validation suite (docs/validation.md): every case of DIR/cases/ *.yaml
 * (with --quick only those marked `quick: true`), writes the report (default
 * DIR/REPORT.md) and, for the collective cases, busbw-vs-size CSVs (sweep.csv
 * columns) and PNG plots next to it under plots/.
 */

#include "validate-command.h"

#include "output/atomic-file.h"
#include "output/results-dir.h"
#include "output/results-writer.h"
#include "sweep-command.h"
#include "validation/validation-suite.h"

#include "ns3/spec-error.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace
{

namespace fs = std::filesystem;

constexpr int EXIT_OK = 0;
constexpr int EXIT_INTERNAL = 1;
constexpr int EXIT_BAD_INPUT = 2;
constexpr int EXIT_OUT_OF_TOLERANCE = 4;

int
UsageError(const std::string& message)
{
    std::cerr << "ai-fabric: error: " << message << "\n"
              << "Run 'ai-fabric --help' for usage.\n";
    return EXIT_BAD_INPUT;
}

/// A case and where its outcome goes.
struct Job
{
    const ns3::ValidationCase* c{nullptr};
    ns3::ValidationOutcome outcome;
    std::string error; //!< a SpecError met while running (exit 2)
    bool done{false};
};

/// Run one case in this process; SpecErrors are kept in job.error.
void
RunHere(Job& job)
{
    try
    {
        job.outcome = ns3::RunValidationCase(*job.c);
    }
    catch (const ns3::SpecError& e)
    {
        job.error = e.what();
    }
    job.done = true;
}

/// Read everything from a file descriptor.
std::string
ReadAll(int fd)
{
    std::string text;
    char buffer[65536];
    while (true)
    {
        const ssize_t n = read(fd, buffer, sizeof(buffer));
        if (n <= 0)
        {
            break;
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
    return text;
}

/// Run the jobs in up to `workers` child processes (one simulator per process).
void
RunForked(std::vector<Job>& jobs, unsigned workers, const std::function<void(const Job&)>& report)
{
    struct Child
    {
        std::size_t job;
        int fd;
    };

    std::map<pid_t, Child> running;
    std::size_t next = 0;
    while (next < jobs.size() || !running.empty())
    {
        while (next < jobs.size() && running.size() < workers)
        {
            int fds[2];
            if (pipe(fds) != 0)
            {
                throw std::runtime_error("pipe() failed");
            }
            std::cout.flush();
            std::cerr.flush();
            const pid_t pid = fork();
            if (pid < 0)
            {
                throw std::runtime_error("fork() failed");
            }
            if (pid == 0)
            {
                close(fds[0]);
                Job& job = jobs[next];
                std::ostringstream out;
                try
                {
                    RunHere(job);
                    if (job.error.empty())
                    {
                        ns3::WriteValidationOutcome(job.outcome, out);
                    }
                    else
                    {
                        out << "error\t" << job.error << "\n";
                    }
                }
                catch (const std::exception& e)
                {
                    out.str("");
                    out << "internal\t" << e.what() << "\n";
                }
                const std::string text = out.str();
                std::size_t written = 0;
                while (written < text.size())
                {
                    const ssize_t n = write(fds[1], text.data() + written, text.size() - written);
                    if (n <= 0)
                    {
                        break;
                    }
                    written += static_cast<std::size_t>(n);
                }
                close(fds[1]);
                _exit(0);
            }
            close(fds[1]);
            running[pid] = Child{next, fds[0]};
            ++next;
        }
        // Drain the first child that has finished or, when none has, the oldest one (read
        // before wait: the pipe may be full).
        int status = 0;
        const pid_t pid = waitpid(-1, &status, WNOHANG);
        auto it = running.begin();
        if (pid > 0)
        {
            it = running.find(pid);
            if (it == running.end())
            {
                continue;
            }
        }
        const std::string text = ReadAll(it->second.fd);
        close(it->second.fd);
        if (pid <= 0)
        {
            waitpid(it->first, &status, 0);
        }
        Job& job = jobs[it->second.job];
        running.erase(it);
        if (text.rfind("error\t", 0) == 0)
        {
            job.error = text.substr(6, text.size() - 7);
        }
        else if (!ns3::ParseValidationOutcome(text, job.outcome))
        {
            throw std::runtime_error("validation worker for case '" + job.c->name
                                     + "' failed: " + text);
        }
        job.done = true;
        report(job);
    }
}

} // namespace

int
ValidateCommand(const std::vector<std::string>& args)
{
    std::string dir;
    std::string reportPath;
    bool quick = false;
    unsigned jobsN = 1;
    for (std::size_t i = 0; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        if (a == "--report" || a == "--jobs")
        {
            if (i + 1 >= args.size() || args[i + 1].empty())
            {
                return UsageError("option " + a + " needs a value");
            }
            const std::string& v = args[++i];
            if (a == "--report")
            {
                reportPath = v;
            }
            else
            {
                if (v.size() > 3 || v.find_first_not_of("0123456789") != std::string::npos
                    || std::stoul(v) < 1 || std::stoul(v) > 64)
                {
                    return UsageError("--jobs takes an integer from 1 to 64, not '" + v + "'");
                }
                jobsN = static_cast<unsigned>(std::stoul(v));
            }
        }
        else if (a == "--quick")
        {
            quick = true;
        }
        else if (!a.empty() && a[0] == '-')
        {
            return UsageError("unknown option '" + a + "' for 'validate'");
        }
        else if (dir.empty())
        {
            dir = a;
        }
        else
        {
            return UsageError("'validate' takes one directory; '" + a + "' is one too many");
        }
    }
    if (dir.empty())
    {
        return UsageError("'validate' needs the suite directory: ai-fabric validate validation/");
    }
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
    {
        return UsageError("'" + dir + "' is not a directory");
    }
    if (reportPath.empty())
    {
        reportPath = (fs::path(dir) / "REPORT.md").string();
    }
    const fs::path reportDir = fs::path(reportPath).parent_path();
    const std::string reportProblem = ns3::OutputFileProblem(reportPath);
    if (!reportProblem.empty())
    {
        return UsageError("--report " + reportPath + ": " + reportProblem);
    }

    const std::vector<ns3::ValidationGroup> groups = ns3::ReadValidationSuite(dir);
    std::vector<Job> jobs;
    for (const auto& g : groups)
    {
        for (const auto& c : g.cases)
        {
            if (!quick || c.quick)
            {
                Job j;
                j.c = &c;
                jobs.push_back(std::move(j));
            }
        }
    }
    if (jobs.empty())
    {
        return UsageError(std::string("no ") + (quick ? "quick " : "") + "cases in " + dir
                          + "/cases/");
    }

    const auto start = std::chrono::steady_clock::now();
    std::size_t finished = 0;
    const auto progress = [&](const Job& job) {
        ++finished;
        std::cerr << "[" << finished << "/" << jobs.size() << "] " << job.c->name << ": "
                  << (job.error.empty() ? ns3::ValidationVerdict(*job.c, job.outcome) : "error")
                  << " (" << std::fixed << std::setprecision(1) << job.outcome.wallS << " s)\n";
    };
    if (jobsN <= 1)
    {
        for (auto& job : jobs)
        {
            RunHere(job);
            progress(job);
        }
    }
    else
    {
        RunForked(jobs, jobsN, progress);
    }
    for (const auto& job : jobs)
    {
        if (!job.error.empty())
        {
            std::cerr << job.error << "\n"
                      << "ai-fabric: error: case '" << job.c->name
                      << "' cannot run; no report written\n";
            return EXIT_BAD_INPUT;
        }
    }
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // busbw-vs-size CSVs (sweep.csv columns) and their plots, next to the report.
    ns3::ValidationReportInfo info;
    info.quick = quick;
    info.command = "ai-fabric validate " + dir + (quick ? " --quick" : "");
    const fs::path resultsDir = (reportDir.empty() ? fs::path(".") : reportDir) / "plots";
    // The plot script of the suite's own tree (validation/../scripts): a suite from another
    // tree runs that tree's script, as its cases run that tree's fabrics. It is run with an
    // argument vector (RunProgram), never through a shell.
    const fs::path plotter = fs::path(dir) / ".." / "scripts" / "plot-results";
    const bool canPlot = fs::is_regular_file(plotter, ec);
    std::vector<ns3::ValidationOutcome> outcomes;
    bool anySweep = false;
    for (const auto& job : jobs)
    {
        outcomes.push_back(job.outcome);
        if (job.outcome.sweep.size() < 2)
        {
            continue;
        }
        if (!anySweep)
        {
            fs::create_directories(resultsDir, ec);
            if (ec)
            {
                std::cerr << "ai-fabric: error: cannot create '" << resultsDir.string()
                          << "': " << ec.message() << "\n";
                return EXIT_INTERNAL;
            }
            anySweep = true;
        }
        ns3::RunResults r;
        r.sweepCollective = job.c->name;
        r.sweep = job.outcome.sweep;
        const std::string csv = (resultsDir / (job.c->name + ".csv")).string();
        ns3::WriteSweepCsv(r, csv);
        if (canPlot)
        {
            const std::string png = (resultsDir / (job.c->name + ".png")).string();
            // An argument vector, no shell: paths and names are never interpreted.
            if (aifabric::RunProgram({plotter.string(),
                                      "--busbw",
                                      csv,
                                      "--out",
                                      png,
                                      "--title",
                                      job.c->name + " (" + job.c->formula + ")"},
                                     true)
                == 0)
            {
                info.plots.push_back("plots/" + job.c->name + ".png");
            }
            else
            {
                std::cerr << "ai-fabric: warning: plotting " << csv << " failed\n";
            }
        }
    }
    if (!anySweep)
    {
        info.plotsNote = "No collective case with two or more sizes ran.";
    }
    else if (canPlot)
    {
        info.plotsNote = "busbw against size, simulated and analytic, per collective case "
                         "(data: plots/CASE.csv, sweep.csv columns; drawn by "
                         "scripts/plot-results).";
    }
    else
    {
        info.plotsNote = "busbw-vs-size data per collective case: plots/CASE.csv (sweep.csv "
                         "columns). Plots skipped: scripts/plot-results is not installed.";
        std::cerr << "ai-fabric: plots skipped: " << plotter.string() << " not found\n";
    }
    ns3::WriteFileAtomically(reportPath, [&](std::ostream& os) {
        ns3::WriteValidationReport(groups, outcomes, info, os);
    });

    std::vector<std::string> failing;
    std::size_t formulas = 0;
    std::size_t claims = 0;
    for (const auto& job : jobs)
    {
        if (job.c->kind == "claim")
        {
            ++claims;
            continue;
        }
        ++formulas;
        if (!job.outcome.passed)
        {
            failing.push_back(job.c->name);
        }
    }
    std::cout << jobs.size() << " cases: " << formulas << " formula (" << formulas - failing.size()
              << " agree, " << failing.size() << " disagree), " << claims << " claims; "
              << std::fixed << std::setprecision(1) << wall << " s\n"
              << "report: " << reportPath << "\n";
    if (!failing.empty())
    {
        for (const auto& name : failing)
        {
            std::cerr << "ai-fabric: error: formula case '" << name << "' is out of tolerance\n";
        }
        return EXIT_OUT_OF_TOLERANCE;
    }
    return EXIT_OK;
}
