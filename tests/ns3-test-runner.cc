/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs the module's ns-3 TestSuites out of tree, like ns-3's utils/test-runner.cc.
 */
#include "ns3/nstime.h"
#include "ns3/test.h"

int
main(int argc, char** argv)
{
    ns3::Time::SetResolution(ns3::Time::PS);
    return ns3::TestRunner::Run(argc, argv);
}
