/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 TestSuite of the packet path's small mechanisms: RingQueue, TimeHeap,
 * SerializationClock and QueueDepthHistogram.
 */
#include "ns3/queue-depth-histogram.h"
#include "ns3/ring-queue.h"
#include "ns3/serialization-clock.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/time-heap.h"

#include <string>
#include <vector>

using namespace ns3;

/**
 * \ingroup ai-fabric-tests
 * \brief A RingQueue is a FIFO across wrap-around and growth.
 */
class RingQueueFifoTestCase : public TestCase
{
  public:
    RingQueueFifoTestCase()
        : TestCase("A ring queue keeps FIFO order while it wraps and doubles")
    {
    }

  private:
    void DoRun() override
    {
        RingQueue<std::string> q(4);
        NS_TEST_EXPECT_MSG_EQ(q.Empty(), true, "new queue is empty");
        NS_TEST_EXPECT_MSG_EQ(q.Capacity(), 0u, "no storage before the first push");
        uint32_t pushed = 0;
        uint32_t popped = 0;
        // Push 3, pop 2, repeatedly: the head walks around the ring and the ring grows.
        for (int round = 0; round < 20; ++round)
        {
            for (int k = 0; k < 3; ++k)
            {
                q.PushBack(std::to_string(pushed++));
            }
            for (int k = 0; k < 2; ++k)
            {
                NS_TEST_EXPECT_MSG_EQ(q.Front(), std::to_string(popped), "FIFO order");
                q.PopFront();
                ++popped;
            }
            // Indexing counts from the oldest.
            for (std::size_t i = 0; i < q.Size(); ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(q[i], std::to_string(popped + i), "index from the head");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(q.Size(), 20u, "pushed 60, popped 40");
        // 20 elements need 32 slots (powers of two from 4).
        NS_TEST_EXPECT_MSG_EQ(q.Capacity(), 32u, "capacity doubles from the minimum");
        while (!q.Empty())
        {
            NS_TEST_EXPECT_MSG_EQ(q.Front(), std::to_string(popped++), "drain in order");
            q.PopFront();
        }
        NS_TEST_EXPECT_MSG_EQ(popped, pushed, "every element came out once");
        q.Clear();
        NS_TEST_EXPECT_MSG_EQ(q.Capacity(), 0u, "Clear frees the storage");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief A TimeHeap pops by time, then by push order.
 */
class TimeHeapOrderTestCase : public TestCase
{
  public:
    TimeHeapOrderTestCase()
        : TestCase("A time heap pops the earliest first and equal times in push order")
    {
    }

  private:
    void DoRun() override
    {
        TimeHeap<int> h;
        // (time, value): equal times 5 are pushed as values 1, 2, 3 in that order.
        const std::vector<std::pair<int64_t, int>> in
            = {{9, 0}, {5, 1}, {7, 4}, {5, 2}, {1, 5}, {5, 3}, {12, 6}};
        for (const auto& [at, v] : in)
        {
            int value = v;
            h.Push(at, std::move(value));
        }
        NS_TEST_EXPECT_MSG_EQ(h.Size(), in.size(), "all pushed");
        NS_TEST_EXPECT_MSG_EQ(h.TopAt(), 1, "earliest on top");
        const std::vector<int> expect = {5, 1, 2, 3, 4, 0, 6};
        for (const int e : expect)
        {
            NS_TEST_EXPECT_MSG_EQ(h.Pop(), e, "time order, then push order");
        }
        NS_TEST_EXPECT_MSG_EQ(h.Empty(), true, "drained");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief SerializationClock is exact over a stream, and Floor/Ceil round as named.
 */
class SerializationClockTestCase : public TestCase
{
  public:
    SerializationClockTestCase()
        : TestCase("Serialization times of a stream add up exactly to the picosecond")
    {
    }

  private:
    void DoRun() override
    {
        // 400 Gb/s: 20 ps per byte exactly. 4122 B -> 82440 ps.
        NS_TEST_EXPECT_MSG_EQ(SerializationClock::Floor(4122, 400000000000ull),
                              82440u,
                              "4122 B * 8 / 400 Gb/s = 82.44 ns");
        // 3.6 Tb/s: 2.222... ps per byte. 1 B -> 2.22 ps: floor 2, ceil 3.
        const uint64_t fast = 3600000000000ull;
        NS_TEST_EXPECT_MSG_EQ(SerializationClock::Floor(1, fast), 2u, "rounded down");
        NS_TEST_EXPECT_MSG_EQ(SerializationClock::Ceil(1, fast), 3u, "rounded up");
        NS_TEST_EXPECT_MSG_EQ(SerializationClock::Ceil(9, fast), 20u, "9 B = 20 ps exactly");
        // A stream of 1000 packets of 4097 B (9104.444... ps each): sum(Next) =
        // floor(total bits * 1e12 / rate), where rounding each alone loses 0.444... ps.
        SerializationClock clock(fast);
        uint64_t sum = 0;
        uint64_t alone = 0;
        for (int i = 0; i < 1000; ++i)
        {
            sum += clock.Next(4097);
            alone += SerializationClock::Floor(4097, fast);
        }
        NS_TEST_EXPECT_MSG_EQ(sum,
                              SerializationClock::Floor(1000ull * 4097, fast),
                              "the stream is exact");
        NS_TEST_EXPECT_MSG_EQ(sum - alone, 444u, "1000 x 0.444... ps carried");
        // A new rate restarts the remainder.
        clock.SetRate(400000000000ull);
        NS_TEST_EXPECT_MSG_EQ(clock.Next(1), 20u, "1 B at 400 Gb/s");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief QueueDepthHistogram: bucket edges and time-weighted percentiles.
 */
class QueueDepthHistogramTestCase : public TestCase
{
  public:
    QueueDepthHistogramTestCase()
        : TestCase("A queue-depth histogram gives time-weighted percentiles within 25 %")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(QueueDepthHistogram::BucketOf(0), 0u, "empty queue: bucket 0");
        NS_TEST_EXPECT_MSG_EQ(QueueDepthHistogram::BucketOf(1), 1u, "[1, 1.25)");
        NS_TEST_EXPECT_MSG_EQ(QueueDepthHistogram::BucketOf(2), 5u, "[2, 2.5)");
        NS_TEST_EXPECT_MSG_EQ(QueueDepthHistogram::BucketOf(3), 7u, "[3, 3.5)");
        // 1000 = 2^9 * 1.953: sub-bucket 3, [896, 1024).
        NS_TEST_EXPECT_MSG_EQ(QueueDepthHistogram::BucketOf(1000), 1u + 4 * 9 + 3, "1000 B");
        NS_TEST_EXPECT_MSG_EQ_TOL(QueueDepthHistogram::BucketUpper(1 + 4 * 9 + 3),
                                  1024.0,
                                  1e-9,
                                  "upper edge 2^10");

        QueueDepthHistogram h;
        NS_TEST_EXPECT_MSG_EQ(h.Percentile(100, 0, 0, 99), 0u, "nothing recorded");
        // Empty for 90 steps, then 1000 B for 10 steps (accounted at the change to 0).
        h.Account(90, 0);
        h.Account(100, 1000);
        NS_TEST_EXPECT_MSG_EQ(h.Percentile(100, 0, 1000, 50), 0u, "the median is empty");
        NS_TEST_EXPECT_MSG_EQ(h.Percentile(100, 0, 1000, 95), 1000u, "p95: capped at the peak");
        // The current depth counts since the last change: 100 more steps at 1000 B.
        NS_TEST_EXPECT_MSG_EQ(h.Percentile(200, 1000, 1000, 50), 1000u, "now mostly 1000 B");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief The packet path's small mechanisms.
 */
class AiFabricUtilTestSuite : public TestSuite
{
  public:
    AiFabricUtilTestSuite()
        : TestSuite("ai-fabric-util", UNIT)
    {
        AddTestCase(new RingQueueFifoTestCase, TestCase::QUICK);
        AddTestCase(new TimeHeapOrderTestCase, TestCase::QUICK);
        AddTestCase(new SerializationClockTestCase, TestCase::QUICK);
        AddTestCase(new QueueDepthHistogramTestCase, TestCase::QUICK);
    }
};

/// The suite's one instance.
static AiFabricUtilTestSuite g_aiFabricUtilTestSuite;
