/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite "ai-fabric-pipeline-schedule": the pipeline schedules (GPipe,
 * 1F1B, interleaved 1F1B): each one's step order, and the bubble its order
 * gives when replayed with fixed compute times and free communication.
 */
#include "ns3/pipeline-schedule.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// "F0 F1 B0 ..." for a step list (".c" for chunk c > 0).
std::string
Format(const std::vector<PipelineStep>& steps)
{
    std::ostringstream os;
    for (const PipelineStep& st : steps)
    {
        os << (os.tellp() > 0 ? " " : "") << (st.forward ? "F" : "B") << st.microBatch;
        if (st.chunk > 0)
        {
            os << "." << st.chunk;
        }
    }
    return os.str();
}

/// What a replay gives.
struct Replay
{
    bool deadlock{false}; //!< some stage could not go on
    uint64_t step{0};     //!< the last stage's end
    uint64_t compute{0};  //!< compute time of one stage
};

/**
 * \brief Replay a schedule: every stage runs its steps one at a time in the schedule's
 * order; the forward of (micro-batch, virtual stage k) waits for the forward of k - 1,
 * the backward of k for the backward of k + 1 (the last virtual stage's for its own
 * forward). Virtual stage k = chunk p + stage. Communication is free.
 * \param schedule the schedule
 * \param p stages
 * \param m micro-batches
 * \param v chunks
 * \param f forward time of one chunk
 * \param b backward time of one chunk
 * \return the step time and one stage's compute time
 */
Replay
ReplaySchedule(const PipelineSchedule& schedule,
               uint32_t p,
               uint32_t m,
               uint32_t v,
               uint64_t f,
               uint64_t b)
{
    std::vector<std::vector<PipelineStep>> order(p);
    for (uint32_t r = 0; r < p; ++r)
    {
        order[r] = schedule.Order(p, r, m, v);
    }
    std::map<std::tuple<bool, uint32_t, uint32_t>, uint64_t> done; // (fwd, mb, k) -> end
    std::vector<std::size_t> next(p, 0);
    std::vector<uint64_t> free(p, 0);
    const uint32_t last = p * v - 1;
    Replay out;
    bool pending = true;
    while (pending)
    {
        pending = false;
        bool progress = false;
        for (uint32_t r = 0; r < p; ++r)
        {
            while (next[r] < order[r].size())
            {
                const PipelineStep& st = order[r][next[r]];
                const uint32_t k = st.chunk * p + r;
                uint64_t ready = 0;
                bool hasDep = true;
                std::tuple<bool, uint32_t, uint32_t> dep;
                if (st.forward)
                {
                    hasDep = k > 0;
                    dep = {true, st.microBatch, k - 1};
                }
                else
                {
                    dep = k < last ? std::make_tuple(false, st.microBatch, k + 1)
                                   : std::make_tuple(true, st.microBatch, k);
                }
                if (hasDep)
                {
                    const auto it = done.find(dep);
                    if (it == done.end())
                    {
                        break;
                    }
                    ready = it->second;
                }
                const uint64_t end = std::max(free[r], ready) + (st.forward ? f : b);
                done[{st.forward, st.microBatch, k}] = end;
                free[r] = end;
                ++next[r];
                progress = true;
            }
            pending = pending || next[r] < order[r].size();
        }
        if (pending && !progress)
        {
            out.deadlock = true;
            return out;
        }
    }
    out.step = *std::max_element(free.begin(), free.end());
    out.compute = static_cast<uint64_t>(m) * v * (f + b);
    return out;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief The names map to the schedule classes; a job's shape is checked by its schedule.
 */
class PipelineScheduleNamesTestCase : public TestCase
{
  public:
    PipelineScheduleNamesTestCase()
        : TestCase("Schedule names map to the schedule classes")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<std::string> names = PipelineScheduleNames();
        NS_TEST_ASSERT_MSG_EQ(names.size(), 3u, "three schedules");
        NS_TEST_EXPECT_MSG_EQ(names[0], "gpipe", "first");
        NS_TEST_EXPECT_MSG_EQ(names[1], "1f1b", "second");
        NS_TEST_EXPECT_MSG_EQ(names[2], "interleaved", "third");
        NS_TEST_EXPECT_MSG_EQ(CreatePipelineSchedule("gpipe")->GetInstanceTypeId(),
                              GpipeSchedule::GetTypeId(),
                              "gpipe");
        NS_TEST_EXPECT_MSG_EQ(CreatePipelineSchedule("1f1b")->GetInstanceTypeId(),
                              OneFOneBSchedule::GetTypeId(),
                              "1f1b");
        NS_TEST_EXPECT_MSG_EQ(CreatePipelineSchedule("interleaved")->GetInstanceTypeId(),
                              InterleavedOneFOneBSchedule::GetTypeId(),
                              "interleaved");
        NS_TEST_EXPECT_MSG_EQ((CreatePipelineSchedule("zero-bubble") == nullptr),
                              true,
                              "unknown name");

        NS_TEST_EXPECT_MSG_EQ(CreatePipelineSchedule("1f1b")->Check(4, 8, 1), "", "1f1b fits");
        NS_TEST_EXPECT_MSG_EQ(CreatePipelineSchedule("gpipe")->Check(4, 8, 2),
                              "virtual stages (model chunks) need the interleaved schedule",
                              "chunks without interleaving");
        const Ptr<PipelineSchedule> il = CreatePipelineSchedule("interleaved");
        NS_TEST_EXPECT_MSG_EQ(il->Check(4, 8, 2), "", "interleaved fits");
        NS_TEST_EXPECT_MSG_EQ(il->Check(1, 8, 2),
                              "the interleaved schedule needs at least 2 pipeline stages",
                              "one stage");
        NS_TEST_EXPECT_MSG_EQ(il->Check(4, 8, 1),
                              "the interleaved schedule needs at least 2 virtual stages (model "
                              "chunks) per GPU, got 1",
                              "one chunk");
        NS_TEST_EXPECT_MSG_EQ(il->Check(4, 6, 2),
                              "the interleaved schedule needs the micro-batches (6) to be a "
                              "multiple of the pipeline stages (4), as Megatron-LM requires",
                              "m not a multiple of p");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief GPipe and 1F1B issue their steps in Megatron-LM's order (FACTS.md 4.2).
 */
class PipelineScheduleOrderTestCase : public TestCase
{
  public:
    PipelineScheduleOrderTestCase()
        : TestCase("GPipe and 1F1B orders match Megatron-LM")
    {
    }

  private:
    void DoRun() override
    {
        // p = 4, m = 8: warm-up W = min(p - r - 1, m), then [F(i+W) B(i)] m - W times, then
        // W cool-down backwards.
        const Ptr<PipelineSchedule> s = CreatePipelineSchedule("1f1b");
        const std::vector<std::string> want = {
            "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7",
            "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7",
            "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7",
            "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7",
        };
        for (uint32_t r = 0; r < 4; ++r)
        {
            NS_TEST_EXPECT_MSG_EQ(Format(s->Order(4, r, 8, 1)), want[r], "1f1b stage " << r);
            NS_TEST_EXPECT_MSG_EQ(s->Warmup(4, r, 8, 1), 3 - r, "1f1b warm-up " << r);
        }
        // Fewer micro-batches than stages: W = m.
        NS_TEST_EXPECT_MSG_EQ(Format(s->Order(4, 0, 2, 1)), "F0 F1 B0 B1", "1f1b, m < p");
        const Ptr<PipelineSchedule> g = CreatePipelineSchedule("gpipe");
        NS_TEST_EXPECT_MSG_EQ(Format(g->Order(2, 1, 3, 1)), "F0 F1 F2 B0 B1 B2", "gpipe");
        NS_TEST_EXPECT_MSG_EQ(g->Warmup(2, 1, 3, 1), 3u, "gpipe warm-up: every forward");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The interleaved schedule issues its steps in Megatron-LM's order, every
 * (micro-batch, chunk) once per pass.
 */
class InterleavedOrderTestCase : public TestCase
{
  public:
    InterleavedOrderTestCase()
        : TestCase("Interleaved 1F1B order matches Megatron-LM")
    {
    }

  private:
    void DoRun() override
    {
        // p = 2, v = 2, m = 4: warm-up (p - r - 1) * 2 + (v - 1) * p = 4 (stage 0), 2 (stage
        // 1); virtual micro-batch k: chunk (k mod 4) / 2, micro-batch (k / 4) * 2 + k % 2.
        const Ptr<PipelineSchedule> s = CreatePipelineSchedule("interleaved");
        NS_TEST_EXPECT_MSG_EQ(Format(s->Order(2, 0, 4, 2)),
                              "F0 F1 F0.1 F1.1 F2 B0.1 F3 B1.1 F2.1 B0 F3.1 B1 B2.1 B3.1 B2 B3",
                              "stage 0");
        NS_TEST_EXPECT_MSG_EQ(Format(s->Order(2, 1, 4, 2)),
                              "F0 F1 F0.1 B0.1 F1.1 B1.1 F2 B0 F3 B1 F2.1 B2.1 F3.1 B3.1 B2 B3",
                              "stage 1");
        NS_TEST_EXPECT_MSG_EQ(s->Warmup(4, 0, 8, 2), 10u, "warm-up");
        // m == p: all forwards first.
        NS_TEST_EXPECT_MSG_EQ(s->Warmup(4, 3, 4, 2), 8u, "m == p");
        for (uint32_t r = 0; r < 4; ++r)
        {
            const auto steps = s->Order(4, r, 8, 3);
            NS_TEST_ASSERT_MSG_EQ(steps.size(), 2u * 8 * 3, "steps of stage " << r);
            std::set<std::tuple<bool, uint32_t, uint32_t>> seen;
            for (const PipelineStep& st : steps)
            {
                seen.insert({st.forward, st.microBatch, st.chunk});
            }
            NS_TEST_EXPECT_MSG_EQ(seen.size(), steps.size(), "each step once, stage " << r);
        }
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Replayed with fixed compute times (backward twice the forward, and equal) and
 * free communication, every schedule's order has the textbook bubble: (p - 1) / (m + p -
 * 1) of the step for GPipe and 1F1B, (p - 1) / (m v) of the compute time for interleaved
 * 1F1B; and IdleFraction() / RelativeOverhead() say so.
 */
class PipelineBubbleTestCase : public TestCase
{
  public:
    PipelineBubbleTestCase()
        : TestCase("Each schedule's order has the textbook bubble")
    {
    }

  private:
    void DoRun() override
    {
        struct Shape
        {
            const char* name;
            uint32_t p;
            uint32_t m;
            uint32_t v;
        };

        const Shape shapes[] = {
            {"gpipe", 4, 8, 1},
            {"gpipe", 8, 3, 1},
            {"1f1b", 4, 8, 1},
            {"1f1b", 4, 2, 1},
            {"1f1b", 8, 32, 1},
            {"interleaved", 2, 4, 2},
            {"interleaved", 4, 8, 2},
            {"interleaved", 4, 4, 3},
            {"interleaved", 4, 12, 3},
        };
        for (const Shape& sh : shapes)
        {
            const Ptr<PipelineSchedule> s = CreatePipelineSchedule(sh.name);
            for (const auto& [f, b] : {std::pair<uint64_t, uint64_t>{1, 1}, {1, 2}, {3, 5}})
            {
                const Replay r = ReplaySchedule(*s, sh.p, sh.m, sh.v, f, b);
                std::ostringstream what;
                what << sh.name << " p " << sh.p << " m " << sh.m << " v " << sh.v << " f " << f
                     << " b " << b;
                NS_TEST_ASSERT_MSG_EQ(r.deadlock, false, what.str());
                // Exactly: idle = step - compute = (p - 1) (f + b), so the step is
                // (m v + p - 1) (f + b).
                NS_TEST_EXPECT_MSG_EQ(r.step,
                                      (static_cast<uint64_t>(sh.m) * sh.v + sh.p - 1) * (f + b),
                                      what.str());
                const double idle = static_cast<double>(r.step - r.compute);
                NS_TEST_EXPECT_MSG_EQ_TOL(idle / r.step,
                                          s->IdleFraction(sh.p, sh.m, sh.v),
                                          1e-12,
                                          what.str() << " idle fraction");
                NS_TEST_EXPECT_MSG_EQ_TOL(idle / r.compute,
                                          s->RelativeOverhead(sh.p, sh.m, sh.v),
                                          1e-12,
                                          what.str() << " relative overhead");
            }
        }
        // The formulas themselves: (p - 1) / (m v + p - 1) and (p - 1) / (m v).
        const Ptr<PipelineSchedule> g = CreatePipelineSchedule("gpipe");
        NS_TEST_EXPECT_MSG_EQ_TOL(g->IdleFraction(4, 8, 1), 3.0 / 11, 1e-15, "GPipe idle");
        NS_TEST_EXPECT_MSG_EQ_TOL(g->RelativeOverhead(4, 8, 1), 3.0 / 8, 1e-15, "GPipe rel.");
        const Ptr<PipelineSchedule> il = CreatePipelineSchedule("interleaved");
        NS_TEST_EXPECT_MSG_EQ_TOL(il->RelativeOverhead(4, 8, 2), 3.0 / 16, 1e-15, "il. rel.");
        NS_TEST_EXPECT_MSG_EQ_TOL(il->IdleFraction(4, 8, 2), 3.0 / 19, 1e-15, "il. idle");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The pipeline schedules.
 */
class AiFabricPipelineScheduleTestSuite : public TestSuite
{
  public:
    AiFabricPipelineScheduleTestSuite()
        : TestSuite("ai-fabric-pipeline-schedule")
    {
        AddTestCase(new PipelineScheduleNamesTestCase);
        AddTestCase(new PipelineScheduleOrderTestCase);
        AddTestCase(new InterleavedOrderTestCase);
        AddTestCase(new PipelineBubbleTestCase);
    }
};

/// The suite's one instance.
static AiFabricPipelineScheduleTestSuite g_aiFabricPipelineScheduleTestSuite;
