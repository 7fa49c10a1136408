/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pcap-capture.h"

#include "config/scenario-spec.h"
#include "output/atomic-file.h"

#include "ns3/fabric-builder.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/spec-error.h"

#include <array>
#include <cctype>
#include <climits>

namespace ns3
{

namespace
{

constexpr uint32_t LINKTYPE_ETHERNET = 1;
// Wireshark's "exported PDU" link type: each record starts with tags naming the
// dissector. Used for InfiniBand because Wireshark (4.0) does not read
// LINKTYPE_INFINIBAND (247) pcap files; the tag hands the LRH to its "infiniband"
// dissector.
constexpr uint32_t LINKTYPE_WIRESHARK_UPPER_PDU = 252;
constexpr uint16_t EXP_PDU_TAG_PROTO_NAME = 12;

/// \return the exported-PDU tags that precede every InfiniBand record
const std::string&
InfinibandPduTags()
{
    static const std::string tags = [] {
        std::string t;
        const std::string name = "infiniband"; // padded to a multiple of 4 bytes
        t.push_back(0);
        t.push_back(static_cast<char>(EXP_PDU_TAG_PROTO_NAME));
        t.push_back(0);
        t.push_back(12);
        t += name;
        t.append(12 - name.size(), '\0');
        t.append(4, '\0'); // end of options
        return t;
    }();
    return tags;
}

constexpr uint16_t ROCEV2_PORT = 4791; // IANA, RoCEv2 (IBTA Annex A17)

// BTH opcodes, IBTA vol. 1 table 38: reliable connection (0x00-0x1f) and the CNP.
constexpr uint8_t OP_WRITE_FIRST = 0x06;
constexpr uint8_t OP_WRITE_MIDDLE = 0x07;
constexpr uint8_t OP_WRITE_LAST = 0x08;
constexpr uint8_t OP_WRITE_ONLY = 0x0a;
constexpr uint8_t OP_ACKNOWLEDGE = 0x11;
constexpr uint8_t OP_CNP = 0x81;
// AETH syndromes (IBTA 9.7.5.2.2): ACK with "no credit count" (0b000_11111),
// NAK PSN sequence error (0b011_00000).
constexpr uint8_t AETH_ACK = 0x1f;
constexpr uint8_t AETH_NAK_PSN = 0x60;

/// CRC-32 (IEEE 802.3, reflected, as the IBA ICRC), table driven.
class Crc32
{
  public:
    Crc32()
    {
        for (uint32_t i = 0; i < 256; ++i)
        {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k)
            {
                c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            }
            m_table[i] = c;
        }
    }

    /// \param crc running value \param data bytes \param n count \return updated value
    uint32_t Update(uint32_t crc, const uint8_t* data, std::size_t n) const
    {
        for (std::size_t i = 0; i < n; ++i)
        {
            crc = m_table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
        }
        return crc;
    }

  private:
    std::array<uint32_t, 256> m_table{};
};

const Crc32&
TheCrc32()
{
    static const Crc32 crc;
    return crc;
}

/// CRC-16 of the IBA VCRC (polynomial 0x100B, seed 0xFFFF, bit-reflected, inverted).
uint16_t
Vcrc16(const std::string& data)
{
    uint16_t crc = 0xffff;
    for (const char ch : data)
    {
        crc ^= static_cast<uint8_t>(ch);
        for (int k = 0; k < 8; ++k)
        {
            crc = (crc & 1) ? static_cast<uint16_t>((crc >> 1) ^ 0xd008)
                            : crc >> 1; // 0x100B reflected
        }
    }
    return static_cast<uint16_t>(~crc);
}

void
Put8(std::string& s, uint8_t v)
{
    s.push_back(static_cast<char>(v));
}

void
Put16(std::string& s, uint16_t v)
{
    Put8(s, v >> 8);
    Put8(s, v & 0xff);
}

void
Put24(std::string& s, uint32_t v)
{
    Put8(s, (v >> 16) & 0xff);
    Put16(s, v & 0xffff);
}

void
Put32(std::string& s, uint32_t v)
{
    Put16(s, v >> 16);
    Put16(s, v & 0xffff);
}

void
PutLe32(std::string& s, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        Put8(s, (v >> (8 * i)) & 0xff);
    }
}

/// \param node a graph node \return its locally administered MAC 02:00:nn:nn:nn:nn
void
PutMac(std::string& s, uint32_t node)
{
    Put8(s, 0x02);
    Put8(s, 0x00);
    Put32(s, node);
}

/// \param gpu an endpoint \return its IPv4 address 10.x.y.z = 10.0.0.0 + gpu + 1
uint32_t
Ipv4Of(uint32_t gpu)
{
    return (10u << 24) | ((gpu + 1) & 0xffffff);
}

/// Ones' complement sum checksum (RFC 791 header checksum).
uint16_t
InternetChecksum(const std::string& s, std::size_t from, std::size_t n)
{
    uint32_t sum = 0;
    for (std::size_t i = 0; i + 1 < n; i += 2)
    {
        sum += (static_cast<uint8_t>(s[from + i]) << 8) | static_cast<uint8_t>(s[from + i + 1]);
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum);
}

/// \param h a header \return its BTH opcode
uint8_t
Opcode(const FabricHeader& h)
{
    switch (h.m_kind)
    {
        case FabricHeader::ACK:
        case FabricHeader::NACK:
            return OP_ACKNOWLEDGE;
        case FabricHeader::CNP:
            return OP_CNP;
        default:
            break;
    }
    const bool first = h.m_flags & FabricHeader::FLAG_FIRST;
    const bool last = h.m_flags & FabricHeader::FLAG_LAST;
    return first ? (last ? OP_WRITE_ONLY : OP_WRITE_FIRST)
                 : (last ? OP_WRITE_LAST : OP_WRITE_MIDDLE);
}

/// BTH, extension headers and payload (with pad): everything between the network
/// header and the ICRC. Returns the offset of the BTH's byte 4 (masked in the ICRC).
std::string
Transport(const FabricHeader& h)
{
    std::string t;
    const uint8_t op = Opcode(h);
    const uint32_t payload = h.IsControl() ? 0 : h.m_payload;
    const uint8_t pad = (4 - payload % 4) % 4;
    Put8(t, op);
    Put8(t, static_cast<uint8_t>(pad << 4)); // SE 0, MigReq 0, PadCnt, TVer 0
    Put16(t, 0xffff);                        // P_Key: default partition, full member
    Put8(t, 0);                              // FECN/BECN (IB), reserved
    Put24(t, PacketCapture::QpNumber(h.m_src, h.m_qp));
    const bool ackReq = op == OP_WRITE_LAST || op == OP_WRITE_ONLY;
    Put8(t, ackReq ? 0x80 : 0x00); // AckReq
    // An ACK carries the last PSN it acknowledges; the model's ACK holds the next
    // expected one. A NAK carries the expected PSN, as the model's NACK does.
    const uint32_t psn = h.m_kind == FabricHeader::ACK ? h.m_psn - 1 : h.m_psn;
    Put24(t, psn & 0xffffff);
    if (op == OP_WRITE_FIRST || op == OP_WRITE_ONLY)
    {
        // RETH: virtual address (0: the message's buffer), R_Key (message id), DMA length.
        Put32(t, 0);
        Put32(t, 0);
        Put32(t, h.m_msgId);
        Put32(t, static_cast<uint32_t>(std::min<uint64_t>(h.m_msgBytes, UINT32_MAX)));
    }
    else if (op == OP_ACKNOWLEDGE)
    {
        Put8(t, h.m_kind == FabricHeader::NACK ? AETH_NAK_PSN : AETH_ACK);
        Put24(t, 0); // MSN: the model does not count completed messages on its ACKs
    }
    else if (op == OP_CNP)
    {
        t.append(16, '\0'); // RoCEv2 CNP: 16 reserved bytes (IBTA Annex A17.9.3)
    }
    t.append(payload + pad, '\0');
    return t;
}

} // namespace

uint32_t
PacketCapture::QpNumber(uint32_t endpoint, uint16_t qp)
{
    return (((endpoint + 1) << 8) | (qp & 0xff)) & 0xffffff;
}

std::string
PacketCapture::BuildFrame(bool infiniband,
                          uint32_t node,
                          uint32_t peer,
                          uint8_t vl,
                          const FabricHeader& h)
{
    const std::string transport = Transport(h);
    const Crc32& crc = TheCrc32();
    std::string f;
    if (infiniband)
    {
        // LRH (IBTA 7.7): VL, LVer 0; SL, LNH = 0b10 (IBA local, BTH next); DLID;
        // packet length in 4-byte words from the LRH to the ICRC inclusive; SLID.
        const uint32_t words = (8 + transport.size() + 4) / 4;
        Put8(f, static_cast<uint8_t>((vl & 0xf) << 4));
        Put8(f, static_cast<uint8_t>(((h.m_priority & 0xf) << 4) | 0x2));
        Put16(f, static_cast<uint16_t>(h.m_dst + 1));
        Put16(f, static_cast<uint16_t>(words & 0x7ff));
        Put16(f, static_cast<uint16_t>(h.m_src + 1));
        f += transport;
        // ICRC over the LRH with VL masked to ones, and the BTH with byte 4 masked.
        std::string masked = f;
        masked[0] = static_cast<char>(masked[0] | 0xf0);
        masked[8 + 4] = static_cast<char>(0xff);
        const uint32_t icrc = ~crc.Update(0xffffffffu,
                                          reinterpret_cast<const uint8_t*>(masked.data()),
                                          masked.size());
        PutLe32(f, icrc);
        Put16(f, Vcrc16(f));
        return f;
    }
    // Ethernet II
    PutMac(f, peer);
    PutMac(f, node);
    Put16(f, 0x0800);
    // IPv4 (RFC 791): DSCP = class selector of the priority, ECN ECT(0) or CE.
    const std::size_t ip = f.size();
    const uint16_t ipLength = 20 + 8 + transport.size() + 4;
    const bool ce = h.m_flags & FabricHeader::FLAG_ECN_CE;
    Put8(f, 0x45);
    Put8(f, static_cast<uint8_t>(((h.m_priority & 0x7) << 5) | (ce ? 0x3 : 0x2)));
    Put16(f, ipLength);
    Put16(f, 0);      // identification
    Put16(f, 0x4000); // don't fragment
    Put8(f, 64);      // TTL
    Put8(f, 17);      // UDP
    Put16(f, 0);      // checksum, below
    Put32(f, Ipv4Of(h.m_src));
    Put32(f, Ipv4Of(h.m_dst));
    const uint16_t sum = InternetChecksum(f, ip, 20);
    f[ip + 10] = static_cast<char>(sum >> 8);
    f[ip + 11] = static_cast<char>(sum & 0xff);
    // UDP: source port carries flow entropy (RoCEv2), checksum 0 (not used over IPv4).
    Put16(f, static_cast<uint16_t>(0xc000 | (h.m_qp & 0x3fff)));
    Put16(f, ROCEV2_PORT);
    Put16(f, static_cast<uint16_t>(8 + transport.size() + 4));
    Put16(f, 0);
    f += transport;
    // ICRC (as Linux rxe): CRC-32 over 8 bytes of ones (the masked LRH), the IP header
    // with TOS, TTL and checksum masked, the UDP header with its checksum masked, the
    // BTH with byte 4 masked, and the rest.
    std::string masked(8, static_cast<char>(0xff));
    masked.append(f, ip, std::string::npos);
    masked[8 + 1] = static_cast<char>(0xff);  // TOS
    masked[8 + 8] = static_cast<char>(0xff);  // TTL
    masked[8 + 10] = static_cast<char>(0xff); // header checksum
    masked[8 + 11] = static_cast<char>(0xff);
    masked[8 + 20 + 6] = static_cast<char>(0xff); // UDP checksum
    masked[8 + 20 + 7] = static_cast<char>(0xff);
    masked[8 + 28 + 4] = static_cast<char>(0xff); // BTH reserved byte
    const uint32_t icrc
        = ~crc.Update(0xffffffffu, reinterpret_cast<const uint8_t*>(masked.data()), masked.size());
    PutLe32(f, icrc);
    return f;
}

PacketCapture::PacketCapture(const ScenarioSpec& spec,
                             const FabricGraph& graph,
                             const Fabric& fabric)
{
    const auto& nodes = graph.GetNodes();
    const auto& links = graph.GetLinks();
    for (std::size_t i = 0; i < spec.capturePorts.size(); ++i)
    {
        const std::string& name = spec.capturePorts[i];
        const SpecLocation where
            = i < spec.capturePortsWhere.size() ? spec.capturePortsWhere[i] : spec.where;
        const std::size_t arrow = name.find("->");
        if (arrow == std::string::npos || arrow == 0 || arrow + 2 >= name.size())
        {
            throw SpecError(where,
                            "capture port '" + name
                                + "' must be written NODE->PEER (the port of NODE on its "
                                  "link to PEER, e.g. switch0->gpu0)");
        }
        const std::string a = name.substr(0, arrow);
        const std::string b = name.substr(arrow + 2);
        int64_t found = -1;
        uint32_t end = 0;
        for (std::size_t l = 0; l < links.size() && found < 0; ++l)
        {
            if (nodes[links[l].a].name == a && nodes[links[l].b].name == b)
            {
                found = l;
                end = 0;
            }
            else if (nodes[links[l].b].name == a && nodes[links[l].a].name == b)
            {
                found = l;
                end = 1;
            }
        }
        if (found < 0)
        {
            bool knownA = false;
            bool knownB = false;
            for (const auto& n : nodes)
            {
                knownA = knownA || n.name == a;
                knownB = knownB || n.name == b;
            }
            throw SpecError(where,
                            "capture port '" + name + "': "
                                + (!knownA   ? "the fabric has no node '" + a + "'"
                                   : !knownB ? "the fabric has no node '" + b + "'"
                                             : "no link joins '" + a + "' and '" + b + "'"));
        }
        bool duplicate = false;
        for (const auto& p : m_ports)
        {
            duplicate = duplicate || (p->file.node == a && p->file.peer == b);
        }
        if (duplicate)
        {
            continue; // named twice (YAML and --pcap): one capture
        }
        // The file name and its temporary twin (NAME.XXXXXX.tmp) within NAME_MAX.
        if (CaptureFileName(a, b).size() + 11 > NAME_MAX)
        {
            throw SpecError(where,
                            "capture port '" + name + "' would be written to a file name of "
                                + std::to_string(CaptureFileName(a, b).size())
                                + " bytes; file names have at most " + std::to_string(NAME_MAX - 11)
                                + " here (shorter node names, or capture another port)");
        }
        for (const auto& p : m_ports)
        {
            if (CaptureFileName(p->file.node, p->file.peer) == CaptureFileName(a, b))
            {
                throw SpecError(where,
                                "capture port '" + name + "' and '" + p->file.node + "->"
                                    + p->file.peer + "' would both be written to "
                                    + CaptureFileName(a, b) + "; capture one of them");
            }
        }
        const std::string tech = graph.GetProfiles()[links[found].profile].technology;
        if (tech != "roce" && tech != "infiniband")
        {
            throw SpecError(where,
                            "capture port '" + name + "' is a " + tech
                                + " link, which has no standard capture framing; capture "
                                  "RoCE (Ethernet/IPv4/UDP/BTH) or InfiniBand (LRH/BTH) ports");
        }
        const Ptr<FabricNetDevice>& dev
            = end == 0 ? fabric.devicesA[found] : fabric.devicesB[found];
        auto port = std::make_unique<Port>();
        port->infiniband = tech == "infiniband";
        port->nodeId = end == 0 ? links[found].a : links[found].b;
        port->peerId = end == 0 ? links[found].b : links[found].a;
        port->lanes = dev->GetPriorities();
        port->maxPackets = spec.captureMaxPackets;
        port->snapBytes = spec.captureSnapBytes;
        port->file.node = a;
        port->file.peer = b;
        port->file.linkType = port->infiniband ? LINKTYPE_WIRESHARK_UPPER_PDU : LINKTYPE_ETHERNET;
        // pcap global header, nanosecond variant (magic 0xa1b23c4d), little-endian.
        std::string& g = port->file.bytes;
        PutLe32(g, 0xa1b23c4d);
        g.push_back(2); // version 2.4
        g.push_back(0);
        g.push_back(4);
        g.push_back(0);
        PutLe32(g, 0); // thiszone
        PutLe32(g, 0); // sigfigs
        PutLe32(g, port->snapBytes + (port->infiniband ? InfinibandPduTags().size() : 0));
        PutLe32(g, port->file.linkType);
        dev->TraceConnectWithoutContext("TxBegin", MakeBoundCallback(&Capture, port.get()));
        m_ports.push_back(std::move(port));
    }
}

PacketCapture::~PacketCapture()
{
}

void
PacketCapture::Capture(Port* port, Ptr<const Packet> packet, uint32_t /* wireBytes */)
{
    if (port->file.packets >= port->maxPackets)
    {
        ++port->file.missed;
        return;
    }
    FabricHeader h;
    packet->PeekHeader(h);
    const uint8_t vl = std::min<uint8_t>(h.m_priority, port->lanes - 1);
    const std::string frame = BuildFrame(port->infiniband, port->nodeId, port->peerId, vl, h);
    const uint32_t caplen = std::min<std::size_t>(frame.size(), port->snapBytes);
    static const std::string none;
    const std::string& tags = port->infiniband ? InfinibandPduTags() : none;
    const int64_t ps = Simulator::Now().GetPicoSeconds();
    std::string& out = port->file.bytes;
    PutLe32(out, static_cast<uint32_t>(ps / 1000000000000LL));
    PutLe32(out, static_cast<uint32_t>((ps / 1000) % 1000000000LL));
    PutLe32(out, tags.size() + caplen);
    PutLe32(out, static_cast<uint32_t>(tags.size() + frame.size()));
    out += tags;
    out.append(frame, 0, caplen);
    ++port->file.packets;
}

std::string
CaptureFileName(const std::string& node, const std::string& peer)
{
    std::string name = "capture-" + node + "-" + peer + ".pcap";
    for (char& ch : name)
    {
        const bool ok
            = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-';
        ch = ok ? ch : '_';
    }
    return name;
}

std::vector<std::string>
WriteCaptureFiles(const RunResults& r, const std::string& dir)
{
    std::vector<std::string> written;
    for (const PacketCaptureFile& c : r.captures)
    {
        const std::string name = CaptureFileName(c.node, c.peer);
        WriteFileAtomically(dir + "/" + name,
                            [&c](std::ostream& os) { os.write(c.bytes.data(), c.bytes.size()); });
        written.push_back(name);
    }
    return written;
}

std::vector<PacketCaptureFile>
PacketCapture::Finish()
{
    std::vector<PacketCaptureFile> files;
    for (auto& p : m_ports)
    {
        files.push_back(std::move(p->file));
    }
    m_ports.clear();
    return files;
}

} // namespace ns3
