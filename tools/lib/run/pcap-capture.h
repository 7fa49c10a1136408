/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_PCAP_CAPTURE_H
#define AI_FABRIC_PCAP_CAPTURE_H

#include "ns3/ptr.h"
#include "ns3/run-results.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;
class FabricHeader;
class Packet;
struct Fabric;
struct ScenarioSpec;

/**
 * \ingroup ai-fabric
 * \brief Write every capture of a run as DIR/capture-NODE-PEER.pcap, atomically
 * (characters other than letters, digits, '.', '_' and '-' in names become '_').
 * \param r the results
 * \param dir the results directory
 * \return the file names written, relative to \p dir
 */
/**
 * \ingroup ai-fabric
 * \param node the capturing node
 * \param peer the node at the other end of its port
 * \return the port's capture file name, `capture-NODE-PEER.pcap` with every character other
 *         than letters, digits, '.', '_' and '-' replaced by '_' (two ports whose names give
 *         the same file are refused when the capture is set up)
 */
std::string CaptureFileName(const std::string& node, const std::string& peer);

std::vector<std::string> WriteCaptureFiles(const RunResults& r, const std::string& dir);

/**
 * \ingroup ai-fabric
 * \brief Packet capture of chosen ports in pcap (nanosecond timestamps = simulated
 * time), with the real framing of the link technology rebuilt from FabricHeader:
 *  * RoCEv2 ports (LINKTYPE_ETHERNET): Ethernet II, IPv4 (checksum, DSCP = CS of the
 *    priority, ECN = ECT(0) or CE), UDP to port 4791, InfiniBand BTH, RETH on a
 *    message's first packet, AETH on ACK/NACK, the CNP's 16 reserved bytes, the
 *    payload (zeros) and the ICRC;
 *  * InfiniBand ports: LRH (VL = the port's lane, SL = priority, LIDs = GPU id + 1),
 *    BTH, RETH/AETH, payload, ICRC and VCRC, in LINKTYPE_WIRESHARK_UPPER_PDU (252)
 *    records tagged for Wireshark's "infiniband" dissector (Wireshark 4.0 does not
 *    read LINKTYPE_INFINIBAND, 247).
 * NVLink and PCIe have no standard capture framing: naming such a port is an error.
 * Frames are cut to the snap length (pcap caplen < len). See docs/results-format.md.
 *
 * The capture listens to the chosen devices' TxBegin trace: nothing is connected,
 * and nothing costs, for ports not captured.
 */
class PacketCapture
{
  public:
    /**
     * \brief Validate the scenario's capture ports against the fabric and connect them.
     * \param spec the scenario (ScenarioSpec::capturePorts and limits)
     * \param graph the fabric graph
     * \param fabric the built fabric
     * \throws SpecError naming the port's location if a port does not exist or its
     * technology has no capture framing
     */
    PacketCapture(const ScenarioSpec& spec, const FabricGraph& graph, const Fabric& fabric);
    ~PacketCapture();
    PacketCapture(const PacketCapture&) = delete;
    PacketCapture& operator=(const PacketCapture&) = delete;

    /// \return the captures (the files' bytes), in the order the ports were named
    std::vector<PacketCaptureFile> Finish();

    /// The framing of one captured port.
    struct Port
    {
        PacketCaptureFile file; //!< the pcap being built
        bool infiniband{false}; //!< LRH framing (else Ethernet/IPv4/UDP)
        uint32_t nodeId{0};     //!< transmitting graph node
        uint32_t peerId{0};     //!< receiving graph node
        uint8_t lanes{1};       //!< lanes of the port (VL = min(priority, lanes - 1))
        uint64_t maxPackets{0}; //!< capture limit
        uint32_t snapBytes{0};  //!< bytes kept per packet
    };

    /**
     * \brief Append one packet (TxBegin trace sink).
     * \param port the captured port
     * \param packet the packet
     * \param wireBytes its wire size (unused: the frame is rebuilt)
     */
    static void Capture(Port* port, Ptr<const Packet> packet, uint32_t wireBytes);

    /**
     * \brief Build one frame (exposed for tests).
     * \param infiniband LRH framing instead of Ethernet/IPv4/UDP
     * \param node transmitting graph node (MAC source)
     * \param peer receiving graph node (MAC destination)
     * \param vl the lane (IB)
     * \param h the packet's header
     * \return the whole frame, payload included
     */
    static std::string BuildFrame(bool infiniband,
                                  uint32_t node,
                                  uint32_t peer,
                                  uint8_t vl,
                                  const FabricHeader& h);

    /**
     * \param endpoint a GPU (endpoint) id
     * \param qp a queue pair index at the data's sender
     * \return the 24-bit QP number written as BTH DestQP for traffic between
     * \p endpoint and its peer on queue pair \p qp: ((endpoint + 1) << 8 | qp) mod 2^24
     */
    static uint32_t QpNumber(uint32_t endpoint, uint16_t qp);

  private:
    std::vector<std::unique_ptr<Port>> m_ports; //!< captured ports
};

} // namespace ns3

#endif /* AI_FABRIC_PCAP_CAPTURE_H */
