/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "seed-runs.h"

#include "parameter-sweep.h"
#include "run/child-process.h"

#include <cctype>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace fs = std::filesystem;

bool
ConsecutiveSeeds(uint64_t first, uint64_t count, std::vector<uint32_t>& seeds)
{
    seeds.clear();
    if (first < 1 || count < 1 || first + count - 1 > std::numeric_limits<uint32_t>::max())
    {
        return false;
    }
    for (uint64_t s = first; s < first + count; ++s)
    {
        seeds.push_back(static_cast<uint32_t>(s));
    }
    return true;
}

std::vector<ResultMetric>
SeedRunMetrics(const ScenarioSpec& spec)
{
    std::vector<ResultMetric> metrics = DefaultSweepMetrics(spec, spec.where.file);
    std::size_t cut = 0;
    for (const auto& c : spec.traffic.collectives)
    {
        if (c.op == CollectiveOp::ALL_TO_ALL || c.op == CollectiveOp::PERMUTATION)
        {
            const std::string i = std::to_string(cut++);
            std::string name = c.name;
            for (char& ch : name)
            {
                if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.'
                    && ch != '-')
                {
                    ch = '_';
                }
            }
            metrics.push_back({name + "_bisection_Gbps",
                               "bisection[" + i + "].achieved_Gbps",
                               SpecLocation{spec.where.file, 0, 0}});
        }
    }
    return metrics;
}

void
ReadSeedMetrics(const std::string& summaryFile,
                const std::vector<ResultMetric>& metrics,
                SeedRunResult& run)
{
    run.values.clear();
    run.found.clear();
    std::error_code ec;
    const bool haveSummary = fs::exists(summaryFile, ec);
    for (const auto& m : metrics)
    {
        bool found = false;
        run.values.push_back(haveSummary ? ReadJsonPathValue(summaryFile, m.path, found) : "");
        run.found.push_back(found);
    }
}

std::vector<SeedRunResult>
RunSeeds(const SeedRunPlan& plan,
         const std::string& outDir,
         uint32_t jobs,
         const volatile std::sig_atomic_t* interrupt,
         std::ostream* progress)
{
    // The directory holds one run: an earlier multi-seed run's seeds, or an earlier single
    // run's result set, go first (the aggregate's seeds.json last of all, when written).
    std::error_code ec;
    fs::remove(fs::path(outDir) / "seeds.json", ec);
    fs::remove_all(fs::path(outDir) / "seeds", ec);
    if (ec)
    {
        throw std::runtime_error("cannot clear '" + outDir + "/seeds': " + ec.message());
    }
    for (const char* file : {"summary.json",
                             "flows.csv",
                             "ports.csv",
                             "collectives.csv",
                             "timeseries.csv",
                             "trace.json",
                             "ranks.csv",
                             "sweep.csv",
                             "stragglers.csv",
                             "qps.csv"})
    {
        fs::remove(fs::path(outDir) / file, ec);
    }
    for (const auto& e : fs::directory_iterator(outDir, ec))
    {
        const std::string name = e.path().filename().string();
        if (name.rfind("capture-", 0) == 0 && e.path().extension() == ".pcap")
        {
            fs::remove(e.path(), ec);
        }
    }
    fs::remove_all(fs::path(outDir) / "plots", ec);

    std::vector<ChildJob> children;
    std::vector<std::string> dirs;
    for (const uint32_t seed : plan.seeds)
    {
        const std::string dir = (fs::path(outDir) / "seeds" / std::to_string(seed)).string();
        fs::create_directories(dir, ec);
        if (ec)
        {
            throw std::runtime_error("cannot create directory '" + dir + "': " + ec.message());
        }
        ChildJob job;
        job.args = {plan.executable,
                    "run",
                    plan.scenarioFile,
                    "--seed",
                    std::to_string(seed),
                    "--out",
                    dir,
                    "--quiet"};
        job.args.insert(job.args.end(), plan.runArgs.begin(), plan.runArgs.end());
        job.logPath = dir + "/run.log";
        children.push_back(job);
        dirs.push_back(dir);
    }
    std::size_t finished = 0;
    const auto onFinish = [&](std::size_t i, const ChildOutcome& o) {
        ++finished;
        if (progress)
        {
            std::ostringstream line;
            line << "[seeds] " << finished << "/" << plan.seeds.size() << " seed " << plan.seeds[i]
                 << " " << o.status << " in " << std::fixed << std::setprecision(2) << o.wallS
                 << " s";
            if (o.exitCode != 0)
            {
                line << "; see " << dirs[i] << "/run.log";
            }
            *progress << line.str() << "\n" << std::flush;
        }
    };
    const std::vector<ChildOutcome> outcomes
        = RunChildProcesses(children, jobs, interrupt, onFinish);
    std::vector<SeedRunResult> runs(plan.seeds.size());
    for (std::size_t i = 0; i < runs.size(); ++i)
    {
        runs[i].seed = plan.seeds[i];
        runs[i].exitCode = outcomes[i].exitCode;
        runs[i].status = outcomes[i].status;
        runs[i].wallS = outcomes[i].wallS;
        ReadSeedMetrics(dirs[i] + "/summary.json", plan.metrics, runs[i]);
    }
    SeedAggregateInfo info;
    info.title = plan.title;
    info.scenarioFile = plan.scenarioFile;
    info.runCommand = "ai-fabric run " + plan.scenarioFile + " --seed SEED --out DIR/seeds/SEED";
    for (const auto& a : plan.runArgs)
    {
        info.runCommand += " " + a;
    }
    WriteSeedAggregate(outDir, info, plan.metrics, runs);
    return runs;
}

} // namespace ns3
