/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * nccl-tests-style sweeps: one independent simulation per size, the table's
 * columns and their agreement with the alpha-beta model.
 */
#include "config/scenario-spec.h"
#include "output/results-writer.h"
#include "run/scenario-runner.h"
#include "test-fabrics.h"

#include "ns3/spec-error.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/// A ring all-reduce on 4 GPUs swept from 64 KiB to 4 MiB by 4.
ScenarioSpec
RingSweep()
{
    ScenarioSpec s = aifabrictest::SingleSwitchRing(4, 0);
    CollectiveSpec& c = s.traffic.collectives[0];
    c.protocol = Protocol::NONE; // the transport alone, against the alpha-beta model
    c.sweep = true;
    c.sweepMinBytes = 64 * 1024;
    c.sweepMaxBytes = 4 * 1024 * 1024;
    c.sweepFactor = 4;
    return s;
}

TEST(Sweep, RingAllReduceRowsRiseAndMatchTheModel)
{
    const SweepResults sw = RunSweep(RingSweep(), RunOptions{});
    ASSERT_EQ(sw.rows.size(), 4u);
    EXPECT_EQ(sw.collective, "c0");
    const uint64_t sizes[] = {64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024};
    for (std::size_t i = 0; i < sw.rows.size(); ++i)
    {
        const SweepRow& row = sw.rows[i];
        EXPECT_EQ(row.bytes, sizes[i]);
        EXPECT_EQ(row.count, sizes[i] / 4);
        EXPECT_EQ(row.type, "float");
        EXPECT_EQ(row.op, "all-reduce");
        EXPECT_TRUE(row.complete);
        // nccl-tests: algbw = S / t, busbw = algbw x 2 (n-1) / n
        EXPECT_NEAR(row.algbwGBps, row.bytes / (row.timeUs * 1e-6) / 1e9, 1e-9 * row.algbwGBps);
        EXPECT_NEAR(row.busbwGBps, row.algbwGBps * 1.5, 1e-9 * row.busbwGBps);
        if (i > 0)
        {
            EXPECT_GT(row.busbwGBps, sw.rows[i - 1].busbwGBps) << row.bytes;
        }
        std::printf("[sweep] %8llu B  %8.2f us  algbw %6.2f  busbw %6.2f GB/s  analytic "
                    "%8.2f us  ratio %.4f\n",
                    static_cast<unsigned long long>(row.bytes),
                    row.timeUs,
                    row.algbwGBps,
                    row.busbwGBps,
                    row.analyticUs,
                    row.simOverAnalytic);
    }
    EXPECT_NEAR(sw.rows.back().simOverAnalytic, 1.0, 0.03);

    // The last size's results carry the sweep; sweep.csv and summary.json show it.
    EXPECT_EQ(sw.last.sweep.size(), 4u);
    EXPECT_EQ(sw.last.collectives.at(0).bytes, sizes[3]);
    std::ostringstream csv;
    WriteSweepCsv(sw.last, csv);
    EXPECT_EQ(csv.str().rfind("size,count,type,op,time,algbw,busbw,analytic_us,", 0), 0u);
    EXPECT_NE(csv.str().find("\n4194304,1048576,float,all-reduce,"), std::string::npos);
    std::ostringstream json;
    WriteSummaryJson(sw.last, json);
    EXPECT_NE(json.str().find("\"sweep\": {"), std::string::npos);
    std::ostringstream table;
    PrintSweepTable(sw.last, table);
    EXPECT_NE(table.str().find("busbw"), std::string::npos);
}

TEST(Sweep, RejectsBadSweeps)
{
    ScenarioSpec s = RingSweep();
    s.traffic.collectives.push_back(s.traffic.collectives[0]);
    s.traffic.collectives[1].name = "c1";
    EXPECT_THROW(RunSweep(s, RunOptions{}), SpecError); // two swept collectives
    s = RingSweep();
    s.traffic.collectives[0].sweepFactor = 1;
    EXPECT_THROW(RunSweep(s, RunOptions{}), SpecError);
    s = RingSweep();
    s.traffic.collectives[0].sweepMaxBytes = 1024;
    EXPECT_THROW(RunSweep(s, RunOptions{}), SpecError);
    // RunScenario does not run a sweep by itself.
    EXPECT_THROW(RunScenario(RingSweep(), RunOptions{}), SpecError);
    // Without a sweep there is nothing for RunSweep to do.
    EXPECT_THROW(RunSweep(aifabrictest::SingleSwitchRing(4, 1024), RunOptions{}), SpecError);
}

} // namespace
