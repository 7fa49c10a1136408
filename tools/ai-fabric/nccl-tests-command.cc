/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-fabric: the 'nccl-tests' command (docs/nccl-tests.md).
 */
#include "nccl-tests-command.h"

#include "config/yaml-scenario-reader.h"
#include "output/atomic-file.h"
#include "output/nccl-tests-writer.h"
#include "output/results-dir.h"
#include "run/scenario-runner.h"

#include "ns3/spec-error.h"
#include "ns3/units.h"

#include <cctype>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace
{

/// \return \p text as a YAML double-quoted scalar (backslash, quote and control characters
/// escaped), so that a command-line value cannot end the value or add a key
std::string
YamlQuoted(const std::string& text)
{
    std::string q = "\"";
    for (const char c : text)
    {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\')
        {
            q += '\\';
            q += c;
        }
        else if (u < 0x20 || u == 0x7f)
        {
            static const char* hex = "0123456789abcdef";
            q += "\\x";
            q += hex[u >> 4];
            q += hex[u & 15];
        }
        else
        {
            q += c;
        }
    }
    return q + "\"";
}

constexpr int EXIT_OK = 0;
constexpr int EXIT_BAD_INPUT = 2;
constexpr int EXIT_INCOMPLETE = 3;

/// An nccl-tests binary: the collective it times and whether it reduces or has a root.
struct NcclTest
{
    const char* op; //!< the scenario's op
    bool reduces;   //!< prints -o's redop (else "none")
    bool rooted;    //!< prints -r's root (else -1)
};

const std::map<std::string, NcclTest>&
NcclTests()
{
    static const std::map<std::string, NcclTest> tests = {
        {"all_reduce_perf", {"all-reduce", true, false}},
        {"all_gather_perf", {"all-gather", false, false}},
        {"reduce_scatter_perf", {"reduce-scatter", true, false}},
        {"broadcast_perf", {"broadcast", false, true}},
        {"reduce_perf", {"reduce", true, true}},
        {"alltoall_perf", {"all-to-all", false, false}},
    };
    return tests;
}

/// nccl-tests' datatypes (-d) and their sizes, bytes.
const std::map<std::string, uint32_t>&
NcclTypes()
{
    static const std::map<std::string, uint32_t> types = {{"int8", 1},
                                                          {"uint8", 1},
                                                          {"int32", 4},
                                                          {"uint32", 4},
                                                          {"int64", 8},
                                                          {"uint64", 8},
                                                          {"half", 2},
                                                          {"float", 4},
                                                          {"double", 8},
                                                          {"bfloat16", 2}};
    return types;
}

template<typename M>
std::string
Keys(const M& m)
{
    std::string s;
    for (const auto& [k, v] : m)
    {
        s += (s.empty() ? "" : ", ") + k;
    }
    return s;
}

const char* const USAGE
    = "usage: ai-fabric nccl-tests TEST --topology FILE [options]\n"
      "  TEST: all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf,\n"
      "        reduce_perf, alltoall_perf\n"
      "  -b, --minbytes SIZE     first size (default 32M; 8, 1K, 64M, 1G or 256MiB)\n"
      "  -e, --maxbytes SIZE     last size (default 32M)\n"
      "  -f, --stepfactor N      each size is the previous times N (default 2)\n"
      "  -g, --ngpus N           ranks: the topology's GPUs 0 to N-1 (default: every GPU)\n"
      "  -d, --datatype TYPE     element type for the count column (default float)\n"
      "  -o, --op OP             reduction: sum, prod, max, min, avg (default sum)\n"
      "  -r, --root N            root of broadcast_perf and reduce_perf (default 0)\n"
      "  -J, --output_file F     also write nccl-tests' JSON to F (must end in .json)\n"
      "  --algorithm NAME        ring, tree, halving-doubling, ... (default: the op's default)\n"
      "  --protocol NAME         NCCL_PROTO: simple, ll, ll128, none or auto (default auto:\n"
      "                          NCCL's choice by size)\n"
      "  --qps-per-connection N  NCCL_IB_QPS_PER_CONNECTION: queue pairs per network\n"
      "                          connection, 1 to 128 (default 1)\n"
      "  --split-data-on-qps 0|1 NCCL_IB_SPLIT_DATA_ON_QPS: split every message over them\n"
      "                          (1) or take them round robin (0, the default)\n"
      "  --ecmp-hash NAME        fields ECMP hashes: 5-tuple (default), dst or enhanced\n"
      "  --out DIR               results directory (default results/nccl-tests-TEST)\n"
      "  -n -w -m -c -z -a -t -G -N: accepted for command-line compatibility; a simulated\n"
      "        run is deterministic, so each size runs once (listed in the output)\n";

int
Usage(const std::string& message)
{
    std::cerr << "ai-fabric nccl-tests: error: " << message << "\n" << USAGE;
    return EXIT_BAD_INPUT;
}

/**
 * \brief nccl-tests' size syntax: a number with an optional K, M, G or T (powers of 1024),
 * or one of ai-fabric's sizes (256MiB, 4KB).
 * \return false if the text is not a size
 */
bool
ParseNcclSize(const std::string& text, uint64_t& out)
{
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    {
        ++digits;
    }
    if (digits > 0 && digits + 1 >= text.size())
    {
        uint64_t scale = 1;
        if (digits + 1 == text.size())
        {
            switch (std::toupper(static_cast<unsigned char>(text.back())))
            {
                case 'K':
                    scale = 1ULL << 10;
                    break;
                case 'M':
                    scale = 1ULL << 20;
                    break;
                case 'G':
                    scale = 1ULL << 30;
                    break;
                case 'T':
                    scale = 1ULL << 40;
                    break;
                default:
                    scale = 0;
            }
        }
        if (scale != 0 && digits <= 15)
        {
            const uint64_t n = std::stoull(text.substr(0, digits));
            if (n > std::numeric_limits<uint64_t>::max() / scale)
            {
                return false; // 16777217T wrapped to 1 TiB
            }
            out = n * scale;
            return true;
        }
    }
    try
    {
        out = ns3::ParseBytes(text);
        return true;
    }
    catch (const std::exception&)
    {
        return false;
    }
}

bool
ParseCount(const std::string& text, uint64_t max, uint64_t& out)
{
    if (text.empty() || text.size() > 12
        || text.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    out = std::stoull(text);
    return out <= max;
}

std::string
Now()
{
    const std::time_t t = std::time(nullptr);
    char buffer[64];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
    return buffer;
}

} // namespace

int
NcclTestsCommand(const std::vector<std::string>& args)
{
    if (args.empty())
    {
        return Usage("name the nccl-tests binary, e.g. all_reduce_perf");
    }
    if (args[0] == "--help" || args[0] == "-h")
    {
        std::cout << USAGE;
        return EXIT_OK;
    }
    const auto test = NcclTests().find(args[0]);
    if (test == NcclTests().end())
    {
        return Usage("unknown test '" + args[0] + "' (known: " + Keys(NcclTests()) + ")");
    }
    ns3::NcclTestsReport report;
    report.test = args[0];
    report.args = args;
    report.args.insert(report.args.begin(), "ai-fabric nccl-tests");
    report.minBytes = 32ULL << 20;
    report.maxBytes = 32ULL << 20;
    report.root = test->second.rooted ? 0 : -1;
    report.redop = test->second.reduces ? "sum" : "none";
    std::string topology;
    std::string algorithm;
    std::string protocol;
    std::string ecmpHash;          // --ecmp-hash (a preset, checked by the scenario reader)
    uint64_t qpsPerConnection = 1; // --qps-per-connection
    bool splitDataOnQps = false;   // --split-data-on-qps
    std::string outDir = "results/nccl-tests-" + report.test;
    std::string jsonFile;
    uint64_t ngpus = 0;
    std::vector<std::string> ignored;

    static const std::map<std::string, char> longNames = {{"minbytes", 'b'},
                                                          {"maxbytes", 'e'},
                                                          {"stepfactor", 'f'},
                                                          {"stepbytes", 'i'},
                                                          {"ngpus", 'g'},
                                                          {"datatype", 'd'},
                                                          {"op", 'o'},
                                                          {"root", 'r'},
                                                          {"output_file", 'J'},
                                                          {"iters", 'n'},
                                                          {"warmup_iters", 'w'},
                                                          {"agg_iters", 'm'},
                                                          {"check", 'c'},
                                                          {"blocking", 'z'},
                                                          {"average", 'a'},
                                                          {"nthreads", 't'},
                                                          {"cudagraph", 'G'},
                                                          {"run_cycles", 'N'}};
    for (std::size_t i = 1; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        std::string name;
        std::string value;
        bool inlineValue = false;
        if (a.rfind("--", 0) == 0)
        {
            name = a.substr(2);
            const std::size_t eq = name.find('=');
            if (eq != std::string::npos)
            {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                inlineValue = true;
            }
        }
        else if (a.size() >= 2 && a[0] == '-')
        {
            name = a.substr(1, 1);
            if (a.size() > 2)
            {
                value = a.substr(2);
                inlineValue = true;
            }
        }
        else
        {
            return Usage("unexpected argument '" + a + "'");
        }
        char flag = 0;
        if (name == "topology" || name == "algorithm" || name == "out" || name == "protocol")
        {
            flag = name == "topology"    ? 'T'
                   : name == "algorithm" ? 'A'
                   : name == "protocol"  ? 'P'
                                         : 'O';
        }
        else if (name == "qps-per-connection" || name == "split-data-on-qps" || name == "ecmp-hash")
        {
            flag = name == "qps-per-connection" ? 'Q' : name == "split-data-on-qps" ? 'S' : 'H';
        }
        else if (name.size() == 1)
        {
            flag = name[0];
        }
        else if (longNames.count(name))
        {
            flag = longNames.at(name);
        }
        else
        {
            return Usage("unknown option '" + a + "'");
        }
        if (name.size() == 1 && std::string("bfgdorJnwmczatGNie").find(flag) == std::string::npos)
        {
            return Usage("unknown option '" + a + "'");
        }
        if (!inlineValue)
        {
            if (i + 1 >= args.size())
            {
                return Usage("option " + a + " needs a value");
            }
            value = args[++i];
        }
        uint64_t n = 0;
        switch (flag)
        {
            case 'T':
                topology = value;
                break;
            case 'A':
                algorithm = value;
                break;
            case 'P':
                protocol = value;
                break;
            case 'O':
                outDir = value;
                break;
            case 'Q':
                if (!ParseCount(value, 128, n) || n == 0)
                {
                    return Usage(a + ": '" + value + "' is not a queue pair count from 1 to 128");
                }
                qpsPerConnection = n;
                break;
            case 'S':
                if (value != "0" && value != "1")
                {
                    return Usage(a + ": '" + value + "' is neither 0 nor 1");
                }
                splitDataOnQps = value == "1";
                break;
            case 'H':
                ecmpHash = value;
                break;
            case 'b':
            case 'e':
                if (!ParseNcclSize(value, n) || n == 0)
                {
                    return Usage(a + ": '" + value + "' is not a size of at least 1 byte");
                }
                (flag == 'b' ? report.minBytes : report.maxBytes) = n;
                break;
            case 'f':
                if (!ParseCount(value, 1024, n) || n < 2)
                {
                    return Usage(a + ": the step factor must be an integer from 2 to 1024, not '"
                                 + value + "'");
                }
                report.factor = static_cast<uint32_t>(n);
                break;
            case 'i':
                return Usage(a + ": additive steps are not supported; use -f (a factor)");
            case 'g':
                if (!ParseCount(value, 1000000, n) || n < 2)
                {
                    return Usage(a + ": the number of ranks must be an integer of at least 2, not '"
                                 + value + "'");
                }
                ngpus = n;
                break;
            case 'd':
                if (!NcclTypes().count(value))
                {
                    return Usage(a + ": unknown datatype '" + value
                                 + "' (known: " + Keys(NcclTypes()) + ")");
                }
                report.type = value;
                report.typeBytes = NcclTypes().at(value);
                break;
            case 'o':
                if (value != "sum" && value != "prod" && value != "max" && value != "min"
                    && value != "avg")
                {
                    return Usage(a + ": unknown reduction '" + value
                                 + "' (known: sum, prod, max, min, avg)");
                }
                if (test->second.reduces)
                {
                    report.redop = value;
                }
                break;
            case 'r':
                if (!ParseCount(value, 1000000, n))
                {
                    return Usage(a + ": the root must be a rank number, not '" + value + "'");
                }
                if (test->second.rooted)
                {
                    report.root = static_cast<int>(n);
                }
                break;
            case 'J':
                if (value.size() < 6 || value.substr(value.size() - 5) != ".json")
                {
                    return Usage(a + ": '" + value
                                 + "' must end in .json (nccl-tests writes JSON only)");
                }
                if (const std::string problem = ns3::OutputFileProblem(value); !problem.empty())
                {
                    return Usage(a + " " + value + ": " + problem);
                }
                jsonFile = value;
                break;
            default:
                ignored.push_back(a + (inlineValue ? "" : " " + value));
                break;
        }
    }
    if (topology.empty())
    {
        return Usage(
            "--topology FILE is required (a topology file, e.g. topologies/dgx-h100-node.yaml)");
    }
    if (report.maxBytes < report.minBytes)
    {
        return Usage("-e (" + std::to_string(report.maxBytes) + " B) is below -b ("
                     + std::to_string(report.minBytes) + " B)");
    }
    std::error_code ec;
    const std::filesystem::path topoPath = std::filesystem::absolute(topology, ec);
    if (ec || !std::filesystem::is_regular_file(topoPath))
    {
        return Usage("--topology: cannot read '" + topology + "'");
    }
    if (const std::string problem = ns3::ResultsDirProblem(outDir); !problem.empty())
    {
        return Usage("results directory '" + outDir + "': " + problem);
    }
    // The run is an ordinary scenario with a swept collective (docs/scenario-format.md,
    // 'sweep'), written to the results directory so it can be rerun with 'ai-fabric run'.
    // Text from the command line goes in quoted (YamlQuoted()) or, in the comment, with its
    // control characters shown as '?', so that no argument can add a key.
    std::ostringstream yaml;
    yaml << "# Written by: ai-fabric nccl-tests";
    for (std::size_t i = 0; i < args.size(); ++i)
    {
        yaml << ' ';
        for (const char c : args[i])
        {
            yaml << (static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
        }
    }
    yaml << "\nname: nccl-tests-" << report.test << "\nseed: 1\n";
    if (!ecmpHash.empty())
    {
        yaml << "ecmp_hash: " << YamlQuoted(ecmpHash) << "\n";
    }
    if (qpsPerConnection > 1)
    {
        yaml << "qps_per_connection: " << qpsPerConnection << "\n";
    }
    if (splitDataOnQps)
    {
        yaml << "split_data_on_qps: true\n";
    }
    yaml << "topology: " << YamlQuoted(topoPath.string()) << "\ntraffic:\n  name: " << report.test
         << "\n  collectives:\n    - name: " << report.test << "\n      op: " << test->second.op
         << "\n";
    if (!algorithm.empty())
    {
        yaml << "      algorithm: " << YamlQuoted(algorithm) << "\n";
    }
    if (!protocol.empty())
    {
        yaml << "      protocol: " << YamlQuoted(protocol) << "\n";
    }
    if (ngpus > 0)
    {
        yaml << "      ranks: [";
        for (uint64_t g = 0; g < ngpus; ++g)
        {
            yaml << (g ? ", " : "") << g;
        }
        yaml << "]\n";
    }
    if (test->second.rooted)
    {
        yaml << "      root: " << report.root << "\n";
    }
    yaml << "      sweep: {min: " << report.minBytes << "B, max: " << report.maxBytes
         << "B, factor: " << report.factor << "}\n";

    ns3::ResultsDirLock outLock;
    outLock.Claim(outDir);
    const std::string scenarioFile = outDir + "/scenario.yaml";
    ns3::WriteFileAtomically(scenarioFile, [&](std::ostream& os) { os << yaml.str(); });
    ns3::ScenarioSpec spec;
    try
    {
        spec = ns3::ReadScenarioFile(scenarioFile);
    }
    catch (const ns3::SpecError& e)
    {
        // No half-written results: the scenario the flags became goes with the error (and
        // the results directory, if this run created it).
        std::filesystem::remove(scenarioFile, ec);
        outLock.Abandon();
        const std::string message = e.what();
        std::cerr << message << "\n";
        if (message.rfind(scenarioFile, 0) == 0)
        {
            std::cerr << "(" << scenarioFile
                      << " was the scenario the flags became: -g, -r, --algorithm, --protocol, "
                         "--qps-per-connection, --split-data-on-qps and --ecmp-hash set its ranks, "
                         "root, algorithm, protocol, qps_per_connection, split_data_on_qps and "
                         "ecmp_hash)\n";
        }
        return EXIT_BAD_INPUT;
    }

    report.startTime = Now();
    ns3::RunOptions options;
    options.trace = false;
    const ns3::SweepResults results = ns3::RunSweep(spec, options);
    report.endTime = Now();
    report.rows = results.rows;
    report.topology = topology;
    if (!report.rows.empty())
    {
        // `--algorithm auto` may choose per size: then the header says so.
        report.algorithm = report.rows.front().algorithm;
        for (const ns3::SweepRow& row : report.rows)
        {
            if (row.algorithm != report.rows.front().algorithm)
            {
                report.algorithm = "auto (per size)";
            }
        }
        report.ranks = report.rows.front().ranks;
    }
    if (!ignored.empty())
    {
        std::cout << "# no effect in a deterministic simulation (each size runs once):";
        for (const std::string& s : ignored)
        {
            std::cout << ' ' << s;
        }
        std::cout << "\n";
    }
    std::ostringstream table;
    ns3::PrintNcclTestsTable(report, table);
    std::cout << table.str();
    ns3::WriteFileAtomically(outDir + "/nccl-tests.txt",
                             [&](std::ostream& os) { os << table.str(); });
    ns3::WriteFileAtomically(outDir + "/nccl-tests.json",
                             [&](std::ostream& os) { ns3::WriteNcclTestsJson(report, os); });
    if (!jsonFile.empty())
    {
        ns3::WriteFileAtomically(jsonFile,
                                 [&](std::ostream& os) { ns3::WriteNcclTestsJson(report, os); });
    }
    std::cout << "results: " << scenarioFile << ", " << outDir << "/nccl-tests.txt, " << outDir
              << "/nccl-tests.json" << (jsonFile.empty() ? "" : ", " + jsonFile) << "\n";
    for (const auto& row : report.rows)
    {
        if (!row.complete)
        {
            return EXIT_INCOMPLETE;
        }
    }
    return EXIT_OK;
}
