/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: every file reader (scenario, topology, traffic, sweep and validation
 * case files, and the MoE routing-matrix CSV). The input is written to a scratch file and
 * read as each kind (as the CSV through a fixed scenario naming it); a SpecError is
 * the expected answer to bad input, anything else (a crash, a sanitizer report, an
 * uncaught exception, a hang) is a bug. Built with -DAI_FABRIC_FUZZ=ON (clang);
 * run with scripts/fuzz. docs/robustness.md, "Fuzzing".
 */

#include "config/yaml-scenario-reader.h"
#include "sweep/parameter-sweep.h"
#include "validation/validation-suite.h"

#include "ns3/spec-error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace
{

/// \return a scratch file path in a private directory, made once per process
const std::string&
ScratchFile()
{
    static const std::string path = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/ai-fabric-fuzz-XXXXXX";
        if (mkdtemp(dir.data()) == nullptr)
        {
            std::perror("mkdtemp");
            std::abort();
        }
        return dir + "/input.yaml";
    }();
    return path;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string& path = ScratchFile();
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr)
    {
        std::abort();
    }
    if (size > 0 && std::fwrite(data, 1, size, f) != size)
    {
        std::abort();
    }
    std::fclose(f);
    // The input as a routing-matrix CSV (2 EP ranks x 4 experts), named by a fixed scenario.
    static const std::string csvScenario = [&path] {
        const std::string s = path.substr(0, path.rfind('/')) + "/csv-scenario.yaml";
        std::ofstream(s) << "topology:\n  kind: single-switch\n  gpus: 8\ntraffic:\n"
                         << "  training:\n    layers: 8\n    hidden: 1024\n    sequence: 256\n"
                         << "    peak_flops: 989TFLOPS\n    dp: 8\n    moe_layers: 8\n"
                         << "    experts: 4\n    ep: 2\n"
                         << "    routing: {distribution: matrix, matrix: input.yaml}\n";
        return s;
    }();
    const std::vector<std::function<void()>> readers = {
        [&path] { ns3::ReadScenarioFile(path); },
        [&path] { ns3::ReadTopologyFile(path); },
        [&path] { ns3::ReadTrafficFile(path); },
        [&path] { ns3::ReadSweepFile(path); },
        [&path] { ns3::ReadValidationCaseFile(path); },
        [] { ns3::ReadScenarioFile(csvScenario); },
    };
    for (const auto& read : readers)
    {
        try
        {
            read();
        }
        catch (const ns3::SpecError&)
        {
        }
    }
    return 0;
}
