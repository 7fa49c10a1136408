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
 * Wire bytes of one data packet = payload + segments * headerBytes + framingBytes
 * (+ messageHeaderBytes on the first packet of a message), where segments is 1,
 * or ceil(payload / segmentBytes) on links whose native unit (a PCIe TLP, an
 * NVLink packet) is smaller than the simulated packet: such links carry a
 * simulated packet at exactly their protocol efficiency. Goodput of a long
 * transfer is rate * mtu / WireBytes(mtu).
 */
struct LinkProfile
{
    /// Largest wire size of one packet (payload, headers, framing), bytes (32 MiB): a cell of
    /// up to 64 such packets (`fidelity: cell_packets`) stays within the devices' 32-bit
    /// packet sizes.
    static constexpr uint64_t MAX_PACKET_WIRE_BYTES = 1ULL << 25;
    /// Largest buffer or credit size, bytes (1 TiB): sums over thousands of ports and the
    /// signed allowances of flow control stay within 64 bits.
    static constexpr uint64_t MAX_BUFFER_BYTES = 1ULL << 40;
    /// Fastest link, bits per second (100 Tb/s, 14x NVLink 5's 7.2 Tb/s per direction): a
    /// 4 KiB packet still takes over 300 ps, so the simulator's 1 ps clock times it to better
    /// than 0.2 %; at 10^19 b/s packets took 0 ps and runs stalled.
    static constexpr uint64_t MAX_RATE_BPS = 100'000'000'000'000ULL;

    /// How the link keeps (or fails to keep) packets from being dropped.
    enum class FlowControl : uint8_t
    {
        NONE,   //!< lossy: a full buffer drops (tail drop); the transport recovers (go-back-N)
        CREDIT, //!< credit-based per virtual lane (InfiniBand, NVLink, PCIe): lossless
        PFC,    //!< priority flow control per class (RoCEv2, IEEE 802.1Qbb): lossless
    };

    std::string name;         //!< preset name, e.g. "ib-ndr"
    std::string technology;   //!< "infiniband", "roce", "nvlink", "pcie"
    std::string encoding;     //!< line coding, for reports (e.g. "PAM4, 256b/257b + RS-FEC")
    DataRate rate;            //!< data rate per direction (MAC level, after PHY coding)
    uint32_t mtu{0};          //!< maximum payload bytes per packet
    uint32_t headerBytes{0};  //!< headers and trailers (CRCs) per packet or segment, bytes
    uint32_t segmentBytes{0}; //!< link-native unit (PCIe TLP, NVLink packet) payload: a
                              //!< simulated packet pays headerBytes per segment; 0: per packet
    uint32_t framingBytes{0}; //!< per-packet preamble + SFD + inter-frame gap, bytes
    uint32_t messageHeaderBytes{0}; //!< extra bytes on a message's first packet (RDMA RETH)
    uint32_t controlPacketBytes{0}; //!< wire bytes of an ACK/NACK/CNP, framing included
    Time propagationDelay;          //!< one-way propagation delay of the cable
    Time switchLatency;             //!< port-to-port latency of a switch of this technology
    Time nicLatency;                //!< extra delay a NIC adds to a received packet
    bool cutThrough{false};         //!< switches forward after the header, not the whole packet
    uint64_t bufferPerPort{0};      //!< switch buffer this port adds to the shared pool, bytes
    FlowControl flowControl{FlowControl::NONE}; //!< lossless mechanism, if any
    uint8_t priorities{1};         //!< virtual lanes (IB) or traffic classes (Ethernet)
    uint8_t dataPriority{0};       //!< class/lane of RDMA data
    uint8_t controlPriority{0};    //!< class/lane of ACK/NACK/CNP
    uint32_t creditBlockBytes{64}; //!< credit unit (IB: 64-byte blocks), bytes
    uint64_t creditsPerLane{0};    //!< receive buffer advertised per lane per port (CREDIT), bytes
    Time pfcReactionTime;          //!< PFC: time for the peer to react to a pause (headroom)
    uint64_t ecnKmin{0};           //!< ECN: marking starts above this egress queue (0: off), bytes
    uint64_t ecnKmax{0};           //!< ECN: marking probability reaches 1 above this, bytes
    double ecnPmax{0};             //!< ECN: marking probability at Kmax
    std::string source;            //!< where the values come from (FACTS.md sections)

    /**
     * \param payload payload bytes
     * \param first true for the first packet of a message
     * \return wire bytes of the packet
     */
    uint64_t WireBytes(uint64_t payload, bool first) const;
    /// \return goodput of a long stream of full packets, bits per second
    double GoodputBps() const;
    /**
     * \brief PFC headroom per port and class: the bytes that can still arrive after
     * XOFF is sent. NVIDIA mlx5 port_buffer.c: (301 + 2.16 * cable_m) * speed_Gbps
     * + 2.72 * MTU frame (FACTS.md 2.3), with the cable length from the
     * propagation delay at 5 ns/m, plus the reaction time at line rate.
     * \return bytes
     */
    uint64_t PfcHeadroomBytes() const;
    /// \return the flow-control kind's YAML name ("none", "credit", "pfc")
    std::string FlowControlName() const;
};

/**
 * \ingroup ai-fabric
 * \brief The named link profiles.
 * \return every preset, in a stable order
 */
const std::vector<LinkProfile>& LinkProfilePresets();

/**
 * \ingroup ai-fabric
 * \brief Parse a flow-control kind.
 * \param name "none", "credit" or "pfc"
 * \param kind set on success
 * \return true if the name is known
 */
bool ParseFlowControl(const std::string& name, LinkProfile::FlowControl& kind);

/**
 * \ingroup ai-fabric
 * \brief Find a preset by name.
 * \param name the preset name
 * \return the preset, or nullptr if none has that name
 */
const LinkProfile* FindLinkProfile(const std::string& name);

} // namespace ns3

#endif /* AI_FABRIC_LINK_PROFILE_H */
