/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_LINK_PROFILE_H
#define AI_FABRIC_LINK_PROFILE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The physical and link-layer figures of one link technology.
 *
 * A profile is plain data: the values a FabricNetDevice, FabricChannel and
 * FabricSwitch are configured with. Named presets carry their source; a
 * topology may override any field key by key.
 *
 * Wire bytes of one data packet = payload + HeaderBytes (+ MessageHeaderBytes
 * on the first packet of a message). Goodput of a long transfer is therefore
 * Rate * Mtu / (Mtu + HeaderBytes).
 */
struct LinkProfile
{
    std::string name;               //!< preset name, e.g. "ib-ndr"
    std::string technology;         //!< "infiniband", "roce", "nvlink", "pcie"
    DataRate rate;                  //!< data rate per direction (MAC level, after PHY coding)
    uint32_t mtu{0};                //!< maximum payload bytes per packet
    uint32_t headerBytes{0};        //!< per-packet wire overhead, bytes (headers, CRCs, framing)
    uint32_t messageHeaderBytes{0}; //!< extra bytes on a message's first packet (RDMA RETH), bytes
    Time propagationDelay;          //!< one-way propagation delay of the cable
    Time switchLatency;             //!< port-to-port latency of a switch of this technology
    Time nicLatency;                //!< extra delay a NIC adds to a received packet
    std::string source;             //!< where the values come from (FACTS.md section)

    /// \return wire bytes of a packet carrying \p payload bytes (first packet of a message if \p
    /// first)
    uint64_t WireBytes(uint64_t payload, bool first) const;
    /// \return goodput of a long stream of full packets, bits per second
    double GoodputBps() const;
};

/**
 * \ingroup ai-fabric
 * \brief The named link profiles.
 * \return every preset, in a stable order
 */
const std::vector<LinkProfile>& LinkProfilePresets();

/**
 * \ingroup ai-fabric
 * \brief Find a preset by name.
 * \param name the preset name
 * \return the preset, or nullptr if none has that name
 */
const LinkProfile* FindLinkProfile(const std::string& name);

} // namespace ns3

#endif /* AI_FABRIC_LINK_PROFILE_H */
