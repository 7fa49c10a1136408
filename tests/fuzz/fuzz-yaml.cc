/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: the YAML readers (scenario, topology, traffic files). The input
 * is written to a scratch file and read as each of the three kinds; a SpecError is
 * the expected answer to bad input, anything else (a crash, a sanitizer report, an
 * uncaught exception, a hang) is a bug. Built with -DAI_FABRIC_FUZZ=ON (clang);
 * run with scripts/fuzz. docs/robustness.md, "Fuzzing".
 */

#include "config/yaml-scenario-reader.h"

#include "ns3/spec-error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

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
    try
    {
        ns3::ReadScenarioFile(path);
    }
    catch (const ns3::SpecError&)
    {
    }
    try
    {
        ns3::ReadTopologyFile(path);
    }
    catch (const ns3::SpecError&)
    {
    }
    try
    {
        ns3::ReadTrafficFile(path);
    }
    catch (const ns3::SpecError&)
    {
    }
    return 0;
}
