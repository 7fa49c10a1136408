/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/nstime.h"

#include <gtest/gtest.h>

int
main(int argc, char** argv)
{
    // Once, before any Time exists (STYLE.md 2.5).
    ns3::Time::SetResolution(ns3::Time::PS);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
