/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pipeline-schedule.h"

#include "ns3/object-factory.h"

#include <algorithm>
#include <utility>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PipelineSchedule);
NS_OBJECT_ENSURE_REGISTERED(GpipeSchedule);
NS_OBJECT_ENSURE_REGISTERED(OneFOneBSchedule);
NS_OBJECT_ENSURE_REGISTERED(InterleavedOneFOneBSchedule);

// ---------------------------------------------------------------- PipelineSchedule

TypeId
PipelineSchedule::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::PipelineSchedule").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

PipelineSchedule::PipelineSchedule()
{
}

PipelineSchedule::~PipelineSchedule()
{
}

std::string
PipelineSchedule::Check(uint32_t /* stages */, uint32_t /* microBatches */, uint32_t chunks) const
{
    if (chunks != 1)
    {
        return "virtual stages (model chunks) need the interleaved schedule";
    }
    return "";
}

double
PipelineSchedule::IdleFraction(double stages, double microBatches, double chunks) const
{
    return (stages - 1) / (microBatches * chunks + stages - 1);
}

double
PipelineSchedule::RelativeOverhead(double stages, double microBatches, double chunks) const
{
    return (stages - 1) / (microBatches * chunks);
}

// ---------------------------------------------------------------- GPipe

TypeId
GpipeSchedule::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GpipeSchedule")
                            .SetParent<PipelineSchedule>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<GpipeSchedule>();
    return tid;
}

uint32_t
GpipeSchedule::Warmup(uint32_t /* stages */,
                      uint32_t /* stage */,
                      uint32_t microBatches,
                      uint32_t /* chunks */) const
{
    return microBatches;
}

std::vector<PipelineStep>
GpipeSchedule::Order(uint32_t /* stages */,
                     uint32_t /* stage */,
                     uint32_t microBatches,
                     uint32_t /* chunks */) const
{
    std::vector<PipelineStep> out;
    const uint32_t m = microBatches;
    for (uint32_t j = 0; j < m; ++j)
    {
        out.push_back({true, j, 0});
    }
    for (uint32_t j = 0; j < m; ++j)
    {
        out.push_back({false, j, 0});
    }
    return out;
}

// ---------------------------------------------------------------- 1F1B

TypeId
OneFOneBSchedule::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OneFOneBSchedule")
                            .SetParent<PipelineSchedule>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<OneFOneBSchedule>();
    return tid;
}

uint32_t
OneFOneBSchedule::Warmup(uint32_t stages,
                         uint32_t stage,
                         uint32_t microBatches,
                         uint32_t /* chunks */) const
{
    return std::min(stages - stage - 1, microBatches);
}

std::vector<PipelineStep>
OneFOneBSchedule::Order(uint32_t stages,
                        uint32_t stage,
                        uint32_t microBatches,
                        uint32_t chunks) const
{
    std::vector<PipelineStep> out;
    const uint32_t m = microBatches;
    const uint32_t w = Warmup(stages, stage, m, chunks);
    for (uint32_t j = 0; j < w; ++j)
    {
        out.push_back({true, j, 0});
    }
    for (uint32_t i = 0; i + w < m; ++i)
    {
        out.push_back({true, i + w, 0});
        out.push_back({false, i, 0});
    }
    for (uint32_t j = m - w; j < m; ++j)
    {
        out.push_back({false, j, 0});
    }
    return out;
}

// ---------------------------------------------------------------- interleaved 1F1B

TypeId
InterleavedOneFOneBSchedule::GetTypeId()
{
    static TypeId tid = TypeId("ns3::InterleavedOneFOneBSchedule")
                            .SetParent<PipelineSchedule>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<InterleavedOneFOneBSchedule>();
    return tid;
}

uint32_t
InterleavedOneFOneBSchedule::Warmup(uint32_t stages,
                                    uint32_t stage,
                                    uint32_t microBatches,
                                    uint32_t chunks) const
{
    const uint32_t total = microBatches * chunks;
    if (microBatches == stages)
    {
        return total; // Megatron: all forwards, then all backwards
    }
    return std::min(total, (stages - stage - 1) * 2 + (chunks - 1) * stages);
}

std::vector<PipelineStep>
InterleavedOneFOneBSchedule::Order(uint32_t stages,
                                   uint32_t stage,
                                   uint32_t microBatches,
                                   uint32_t chunks) const
{
    std::vector<PipelineStep> out;
    const uint32_t p = stages;
    const uint32_t v = chunks;
    const uint32_t total = microBatches * v;
    auto chunkOf = [p, v](uint32_t k, bool forward) {
        const uint32_t c = (k % (p * v)) / p;
        return forward ? c : v - 1 - c;
    };
    auto microBatchOf = [p, v](uint32_t k) {
        return (k / (p * v)) * p + k % p;
    };
    const uint32_t w = Warmup(p, stage, microBatches, v);
    for (uint32_t k = 0; k < w; ++k)
    {
        out.push_back({true, microBatchOf(k), chunkOf(k, true)});
    }
    for (uint32_t k = 0; k + w < total; ++k)
    {
        out.push_back({true, microBatchOf(k + w), chunkOf(k + w, true)});
        out.push_back({false, microBatchOf(k), chunkOf(k, false)});
    }
    for (uint32_t k = total - w; k < total; ++k)
    {
        out.push_back({false, microBatchOf(k), chunkOf(k, false)});
    }
    return out;
}

std::string
InterleavedOneFOneBSchedule::Check(uint32_t stages, uint32_t microBatches, uint32_t chunks) const
{
    if (stages < 2)
    {
        return "the interleaved schedule needs at least 2 pipeline stages";
    }
    if (chunks < 2)
    {
        return "the interleaved schedule needs at least 2 virtual stages (model chunks) per "
               "GPU, got "
               + std::to_string(chunks);
    }
    if (microBatches % stages != 0)
    {
        return "the interleaved schedule needs the micro-batches (" + std::to_string(microBatches)
               + ") to be a multiple of the pipeline stages (" + std::to_string(stages)
               + "), as Megatron-LM requires";
    }
    return "";
}

// ---------------------------------------------------------------- names

namespace
{

/// \return the schedules by name, in documentation order
std::vector<std::pair<std::string, TypeId>>
ScheduleTable()
{
    return {{"gpipe", GpipeSchedule::GetTypeId()},
            {"1f1b", OneFOneBSchedule::GetTypeId()},
            {"interleaved", InterleavedOneFOneBSchedule::GetTypeId()}};
}

} // namespace

std::vector<std::string>
PipelineScheduleNames()
{
    std::vector<std::string> names;
    for (const auto& [name, tid] : ScheduleTable())
    {
        names.push_back(name);
    }
    return names;
}

Ptr<PipelineSchedule>
CreatePipelineSchedule(const std::string& name)
{
    for (const auto& [entry, tid] : ScheduleTable())
    {
        if (entry == name)
        {
            ObjectFactory factory;
            factory.SetTypeId(tid);
            return factory.Create<PipelineSchedule>();
        }
    }
    return nullptr;
}

} // namespace ns3
