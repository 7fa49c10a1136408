/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_CHANNEL_PLAN_H
#define AI_FABRIC_CHANNEL_PLAN_H

#include "ns3/workload.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's default channel count for a group (WorkloadGroup::AUTO_CHANNELS), as NCCL
 * 2.18+ forms it on Hopper (NVIDIA/nccl @ 5067397c, src/graph/connect.cc):
 *  * its topology search finds one ring per NIC a server's GPUs use across servers (per GPU
 *    on one server): R = the most ranks the group has in one server;
 *  * it duplicates the rings (nChannels * 2, connect.cc "Duplication should be complete
 *    now");
 *  * across servers, with fewer than 16 channels, it doubles them again ("Use 4 compute
 *    channels per search channel to reach peak BW on <8 PPN", compute capability >= 9.0);
 *  * at most MAXCHANNELS (64).
 * So 8 GPUs on one H100/H800 server get 16 channels (nccl#892 logs "16 coll channels"), 2
 * servers x 2 GPUs get 8 (nccl#1189, H20, "8 coll channels"). The search's own count depends
 * on measured bandwidths; R is its usual outcome on servers with one NIC per GPU, not a
 * computation of it: set `channels:` to the count NCCL_DEBUG=INFO prints to match a system.
 * \param ranks the group's endpoints
 * \param places per endpoint id, where it sits (empty: every rank a server of its own)
 * \return channels, 1 to 64
 */
uint32_t NcclChannelCount(const std::vector<uint32_t>& ranks,
                          const std::vector<EndpointPlace>& places);

/**
 * \ingroup ai-fabric
 * \brief The ring orders of NCCL's channels over servers (RingOrder::TOPOLOGY).
 *
 * The group's ranks are grouped by server (servers in order of first appearance, ranks
 * inside a server by local index). Ring r enters each server j through local GPU e_j and
 * leaves through local GPU e_{j+1}, and crosses to the next server on that GPU's rail (its
 * NIC talks to the same rail's NIC there): e_j = r - (j mod 2), and, for an odd number of
 * servers, the last server's e = r - 2, so that entry and exit always differ and every hop
 * between servers stays on one rail (modulo each server's rank count). Inside a server the
 * ring visits the entry GPU, the other GPUs in cyclic order, and the exit GPU last. Rings
 * r = 0 .. R-1 (R = the most ranks in one server) spread entries and exits over every NIC
 * evenly; a channel c uses ring c mod R (NCCL's duplicated channels).
 *
 * NCCL keeps the entry and exit NIC the same and lets the last GPU reach it over NVLink
 * (PXN, net.cc ncclTopoGetIntermediateRank); these orders put the same bytes on the same
 * NICs and rails without that extra NVLink hop.
 * \param ranks the group's endpoints
 * \param places per endpoint id, where it sits
 * \param channels the group's channel count
 * \return per ring, the rank positions in ring order; empty if the group sits in one server
 *         (every order is then alike on an NVSwitch) or no places are known
 */
std::vector<std::vector<uint32_t>> TopologyRings(const std::vector<uint32_t>& ranks,
                                                 const std::vector<EndpointPlace>& places,
                                                 uint32_t channels);

/**
 * \ingroup ai-fabric
 * \brief The tree channels NCCL builds over servers (RingOrder::TOPOLOGY; NVIDIA/nccl @
 * 5067397c, src/graph/connect.cc ncclTopoPreset and connectTrees, src/graph/trees.cc).
 *
 * NCCL's tree is a chain inside each server (its tree graph's intra order, treeIntra) and a
 * double binary tree between servers (ncclGetDtree over the node index), the chain's first GPU
 * linked to the other servers. Channel c's chain starts at the server's (c mod m)-th rank (m
 * its rank count, ranks by local index) and visits the others in cyclic order, so that the
 * channels spread the links between servers over every NIC evenly, as the search does with one
 * NIC per GPU, and the links stay on one rail where the servers hold the same local GPUs.
 * NCCL's default pattern (NCCL_TOPO_PATTERN_BALANCED_TREE) links the
 * tree's first child server to the chain's second GPU, which reaches the first GPU's NIC over
 * NVLink (PXN); here both children link to the first GPU (NCCL_TOPO_PATTERN_TREE): the same
 * NIC carries the same bytes, without that NVLink hop. Servers are in order of first
 * appearance in \p ranks, ranks in a server by local index (as TopologyRings()).
 * \param ranks the group's endpoints
 * \param places per endpoint id, where it sits
 * \param channels the group's channel count
 * \return per tree (channel c uses tree c mod size: the least common multiple of the servers'
 *         rank counts, at most \p channels), per server its rank positions in chain order;
 *         empty if no places are known or no server has two of the ranks (the tree over ranks
 *         is then NCCL's over servers)
 */
std::vector<std::vector<std::vector<uint32_t>>> TopologyTrees(
    const std::vector<uint32_t>& ranks,
    const std::vector<EndpointPlace>& places,
    uint32_t channels);

/**
 * \ingroup ai-fabric
 * \brief Resolve a group's channels as NCCL would: an AUTO_CHANNELS count (NcclChannelCount()
 * for the algorithms NCCL runs on its collective channels, CollectiveCapabilities::ncclChannels:
 * ring, tree, hierarchical; 1 for the others) and, for RingOrder::TOPOLOGY and an algorithm
 * whose channels are rings (CollectiveCapabilities::ringOrdered), the ring orders
 * (TopologyRings()); for one whose channels are trees (treeOrdered), or that `algorithm: auto`
 * may replace by one (ringOrdered), the trees (TopologyTrees()).
 * The one place where `channels: auto` and `ring_order` are resolved; call it on every
 * group before it is added to a workload.
 * \param g the group (channels, rings and trees updated)
 * \param places per endpoint id, where it sits (Workload::GetPlaces())
 */
void PlanChannels(WorkloadGroup& g, const std::vector<EndpointPlace>& places);

} // namespace ns3

#endif /* AI_FABRIC_CHANNEL_PLAN_H */
