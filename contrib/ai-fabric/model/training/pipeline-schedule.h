/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_PIPELINE_SCHEDULE_H
#define AI_FABRIC_PIPELINE_SCHEDULE_H

#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One compute step of a pipeline stage: the forward or backward pass of
 * one micro-batch through one of its model chunks.
 */
struct PipelineStep
{
    bool forward{true};     //!< forward (else backward)
    uint32_t microBatch{0}; //!< micro-batch
    uint32_t chunk{0};      //!< model chunk (virtual stage index on this GPU)

    /// \param o another step \return true if equal
    bool operator==(const PipelineStep& o) const
    {
        return forward == o.forward && microBatch == o.microBatch && chunk == o.chunk;
    }
};

/**
 * \ingroup ai-fabric
 * \brief A pipeline-parallel schedule: the order in which each pipeline stage
 * issues the forward and backward passes of its micro-batches (Megatron-LM
 * schedules.py; FACTS.md 4.2). The training workload asks it for every
 * stage's order (Order()) and checks the job against it (Check()).
 *
 * Subclasses: GpipeSchedule, OneFOneBSchedule, InterleavedOneFOneBSchedule,
 * named "gpipe", "1f1b" and "interleaved" in a training spec
 * (PipelineScheduleNames(), CreatePipelineSchedule()).
 *
 * p: pipeline stages, r: a stage (0 .. p-1), m: micro-batches, v: model chunks
 * per GPU (1 unless interleaved).
 */
class PipelineSchedule : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PipelineSchedule();
    ~PipelineSchedule() override;
    PipelineSchedule(const PipelineSchedule&) = delete;
    PipelineSchedule& operator=(const PipelineSchedule&) = delete;

    /**
     * \param stages p
     * \param stage r (0 .. p-1)
     * \param microBatches m
     * \param chunks v
     * \return the number of warm-up forwards of the stage (before its first backward)
     */
    virtual uint32_t Warmup(uint32_t stages,
                            uint32_t stage,
                            uint32_t microBatches,
                            uint32_t chunks) const = 0;

    /**
     * \param stages p
     * \param stage r (0 .. p-1)
     * \param microBatches m
     * \param chunks v
     * \return the stage's steps in issue order (2 v m of them)
     */
    virtual std::vector<PipelineStep> Order(uint32_t stages,
                                            uint32_t stage,
                                            uint32_t microBatches,
                                            uint32_t chunks) const = 0;

    /**
     * \brief Whether a job's shape suits the schedule (default: v must be 1).
     * \param stages p
     * \param microBatches m
     * \param chunks v
     * \return "" if it does, else what is wrong, as a sentence
     */
    virtual std::string Check(uint32_t stages, uint32_t microBatches, uint32_t chunks) const;

    /**
     * \brief The ideal pipeline bubble: the fraction of a step a stage idles with equal
     * compute times and free communication, (p - 1) / (v m + p - 1).
     * \param stages p
     * \param microBatches m
     * \param chunks v
     * \return the fraction
     */
    double IdleFraction(double stages, double microBatches, double chunks) const;

    /**
     * \brief The ideal bubble relative to the compute time, (p - 1) / (v m).
     * \param stages p
     * \param microBatches m
     * \param chunks v
     * \return the ratio
     */
    double RelativeOverhead(double stages, double microBatches, double chunks) const;
};

/**
 * \ingroup ai-fabric
 * \brief GPipe: all m forwards, then all m backwards, in micro-batch order.
 */
class GpipeSchedule : public PipelineSchedule
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    uint32_t Warmup(uint32_t stages,
                    uint32_t stage,
                    uint32_t microBatches,
                    uint32_t chunks) const override;
    std::vector<PipelineStep> Order(uint32_t stages,
                                    uint32_t stage,
                                    uint32_t microBatches,
                                    uint32_t chunks) const override;
};

/**
 * \ingroup ai-fabric
 * \brief 1F1B (PipeDream-Flush): warm-up W = min(p - r - 1, m) forwards; then
 * m - W times [forward(i + W), backward(i)]; then the W remaining backwards.
 */
class OneFOneBSchedule : public PipelineSchedule
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    uint32_t Warmup(uint32_t stages,
                    uint32_t stage,
                    uint32_t microBatches,
                    uint32_t chunks) const override;
    std::vector<PipelineStep> Order(uint32_t stages,
                                    uint32_t stage,
                                    uint32_t microBatches,
                                    uint32_t chunks) const override;
};

/**
 * \ingroup ai-fabric
 * \brief Interleaved 1F1B (Megatron-LM virtual pipeline; v chunks per GPU,
 * m % p == 0): virtual micro-batch k (0 .. v m - 1) is micro-batch
 * (k / (p v)) p + k % p of chunk (k mod p v) / p (backward: v - 1 - that
 * chunk); warm-up min((p - r - 1) 2 + (v - 1) p, v m) forwards (all v m when
 * m == p), then [forward(k + W), backward(k)], then the rest of the backwards.
 */
class InterleavedOneFOneBSchedule : public PipelineSchedule
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    uint32_t Warmup(uint32_t stages,
                    uint32_t stage,
                    uint32_t microBatches,
                    uint32_t chunks) const override;
    std::vector<PipelineStep> Order(uint32_t stages,
                                    uint32_t stage,
                                    uint32_t microBatches,
                                    uint32_t chunks) const override;
    std::string Check(uint32_t stages, uint32_t microBatches, uint32_t chunks) const override;
};

/**
 * \ingroup ai-fabric
 * \return the schedule names a training spec may give, in documentation order
 *         ("gpipe", "1f1b", "interleaved")
 */
std::vector<std::string> PipelineScheduleNames();

/**
 * \ingroup ai-fabric
 * \param name a schedule name
 * \return a new schedule of that name, or null if the name is unknown
 */
Ptr<PipelineSchedule> CreatePipelineSchedule(const std::string& name);

} // namespace ns3

#endif /* AI_FABRIC_PIPELINE_SCHEDULE_H */
