/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "yaml-scenario-reader.h"

#include "config/spec-schema.h"
#include "config/spec-tables.h"
#include "config/spec-toolkit.h"
#include "run/scenario-runner.h"

#include "ns3/abort.h"
#include "ns3/collective-algorithm.h"
#include "ns3/expert-placement.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-topology.h"
#include "ns3/locality-domains.h"
#include "ns3/moe-routing.h"
#include "ns3/spec-names.h"
#include "ns3/training-workload.h"
#include "ns3/units.h"
#include "ns3/workload-application.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <locale>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace ns3
{

namespace
{

namespace fs = std::filesystem;
using namespace spec;

/// Keys of a scenario file.
const std::vector<std::string> SCENARIO_KEYS = {"name",
                                                "seed",
                                                "seeds",
                                                "stop_time",
                                                "forwarding",
                                                "ecmp_hash",
                                                "qps_per_connection",
                                                "split_data_on_qps",
                                                "scheduler",
                                                "congestion_control",
                                                "dcqcn",
                                                "adaptive_routing",
                                                "transport",
                                                "watchdog",
                                                "fidelity",
                                                "topology",
                                                "traffic",
                                                "results",
                                                "attribution",
                                                "capture"};
/// Keys of the scenario's `results:` mapping.
const std::vector<std::string> RESULTS_KEYS = {"sample_interval", "flows", "flow_sample"};
/// Keys of a traffic mapping.
const std::vector<std::string> TRAFFIC_KEYS
    = {"name", "collectives", "training", "locality", "iterations"};
/// Keys of a traffic mapping that apply only with `training`.
const std::vector<std::string> TRAINING_TRAFFIC_KEYS = {"locality", "iterations"};
/// Most training iterations a traffic file may chain.
constexpr uint64_t MAX_ITERATIONS = 1000000;
/// Keys of one collective.
const std::vector<std::string> COLLECTIVE_KEYS = {"name",
                                                  "op",
                                                  "algorithm",
                                                  "size",
                                                  "ranks",
                                                  "start",
                                                  "channels",
                                                  "ring_order",
                                                  "chunk_size",
                                                  "protocol",
                                                  "slots",
                                                  "launch_latency",
                                                  "nvlink_hop_latency",
                                                  "net_hop_latency",
                                                  "kernel_bandwidth",
                                                  "reduction_bandwidth",
                                                  "root",
                                                  "ranks_per_node",
                                                  "matrix",
                                                  "transfers",
                                                  "sweep"};
/// Most slots a connection may have (`slots`; NCCL has NCCL_STEPS = 8).
constexpr uint64_t MAX_SLOTS = 1 << 16;
/// Keys of a collective's `sweep`.
const std::vector<std::string> SWEEP_KEYS = {"min", "max", "factor"};
/// Largest `sweep: factor`.
constexpr uint64_t MAX_SWEEP_FACTOR = 1024;
/// Keys of a `training:` mapping, in documentation order (docs/training-workload.md).
const std::vector<std::string> TRAINING_KEYS = {"name",
                                                "layers",
                                                "hidden",
                                                "sequence",
                                                "micro_batch_size",
                                                "bytes_per_element",
                                                "ffn_hidden",
                                                "vocabulary",
                                                "parameters",
                                                "moe_layers",
                                                "experts",
                                                "top_k",
                                                "capacity_factor",
                                                "expert_ffn_hidden",
                                                "dispatch_bytes_per_element",
                                                "combine_bytes_per_element",
                                                "routing",
                                                "expert_placement",
                                                "peak_flops",
                                                "mfu",
                                                "tp",
                                                "pp",
                                                "dp",
                                                "ep",
                                                "sequence_parallel",
                                                "rank_order",
                                                "rank_gpus",
                                                "gpus_per_server",
                                                "tp_in_server",
                                                "schedule",
                                                "micro_batches",
                                                "virtual_stages",
                                                "tp_algorithm",
                                                "tp_channels",
                                                "dp_algorithm",
                                                "dp_channels",
                                                "ring_order",
                                                "chunk_bytes",
                                                "protocol",
                                                "slots",
                                                "kernel_bandwidth",
                                                "bucket_bytes",
                                                "overlap_grad_reduce",
                                                "grad_bytes_per_element"};
/// Keys of a training job that apply only to MoE jobs (`moe_layers` >= 1).
const std::vector<std::string> MOE_KEYS = {"experts",
                                           "top_k",
                                           "capacity_factor",
                                           "expert_ffn_hidden",
                                           "dispatch_bytes_per_element",
                                           "combine_bytes_per_element",
                                           "routing",
                                           "expert_placement",
                                           "ep"};
/// Keys of a training job's `routing:` mapping.
const std::vector<std::string> ROUTING_KEYS
    = {"distribution", "zipf_exponent", "hot_fraction", "affinity_groups", "matrix"};
/// Largest per-element byte count (`bytes_per_element` and the like).
constexpr uint64_t MAX_BYTES_PER_ELEMENT = 16;
/// Keys of one entry of a send-recv collective's `transfers`.
const std::vector<std::string> TRANSFER_KEYS = {"src", "dst", "size"};

/**
 * \param has a capability: chunked (they cut their steps into chunks, `chunk_size`; the
 *        others send whole messages) or needsRanksPerNode (`ranks_per_node`)
 * \return the algorithms that have it, in CollectiveAlgorithmNames() order
 */
std::vector<std::string>
AlgorithmsWith(bool CollectiveCapabilities::*has)
{
    std::vector<std::string> names;
    for (const Ptr<CollectiveAlgorithm>& a : CollectiveAlgorithms())
    {
        const CollectiveCapabilities caps = a->GetCapabilities();
        if (caps.*has)
        {
            names.push_back(caps.name);
        }
    }
    return names;
}

/**
 * \return the algorithms whose channels follow `ring_order` (ringOrdered or treeOrdered), in
 *         CollectiveAlgorithmNames() order
 */
std::vector<std::string>
TopologyOrderedAlgorithms()
{
    std::vector<std::string> names;
    for (const Ptr<CollectiveAlgorithm>& a : CollectiveAlgorithms())
    {
        const CollectiveCapabilities caps = a->GetCapabilities();
        if (caps.ringOrdered || caps.treeOrdered)
        {
            names.push_back(caps.name);
        }
    }
    return names;
}

/// Ops with a root (`root`, a rank position).
const std::vector<CollectiveOp> ROOTED_OPS = {CollectiveOp::BROADCAST, CollectiveOp::REDUCE};

/**
 * \param ops operations
 * \return their names, "a, b"
 */
std::string
JoinOps(const std::vector<CollectiveOp>& ops)
{
    std::vector<std::string> names;
    for (const CollectiveOp op : ops)
    {
        names.push_back(CollectiveOpName(op));
    }
    return JoinList(names);
}

/// Keys of one entry of a custom topology's `nodes`.
const std::vector<std::string> CUSTOM_NODE_KEYS = {"name", "kind", "tier"};
/// Kinds of a custom topology's nodes.
const std::vector<std::string> CUSTOM_NODE_KINDS = {"gpu", "switch", "nic"};
/// Keys of one entry of a custom topology's `links`.
const std::vector<std::string> CUSTOM_LINK_KEYS = {"a", "b", "link"};

/**
 * \brief A setting chosen by name: one of \p names (ReadChoice()), as its enum
 * (ParseSpecName(), spec-names.h).
 * \param f a field
 * \param what the setting's name in messages ("forwarding", "reliability")
 * \param names the setting's names (ForwardingNames(), ...)
 * \return the setting
 * \throws SpecError at the value, suggesting the nearest name
 */
template<class E>
E
ReadSetting(const Field& f, const std::string& what, const std::vector<std::string>& names)
{
    const std::string name = ReadChoice(f, what, names);
    E setting{};
    NS_ABORT_MSG_UNLESS(ParseSpecName(name, setting), "no " << what << " named '" << name << "'");
    return setting;
}

/// Default simulated-time limit, picoseconds (10 s).
constexpr int64_t DEFAULT_STOP_TIME_PS = 10000000000000LL;
/// Preset of `link:` when it names none.
const std::string DEFAULT_LINK_PROFILE = "ib-ndr";
/// Preset of `host_link:` when it names none, if such a preset exists.
const std::string DEFAULT_HOST_LINK_PROFILE = "pcie-gen5";
/// Preset of `nvlink:` when it names none, if such a preset exists (DGX H100, FACTS.md 1.7).
const std::string DEFAULT_NVLINK_PROFILE = "nvlink4";
/// Largest switch tier of a custom node.
constexpr uint64_t MAX_CUSTOM_TIER = 255;
/// Largest `priorities` value: virtual lanes (IB: up to 15 data VLs) or traffic classes
/// (802.1Q: 8) a link may have.
constexpr uint64_t MAX_PRIORITIES = 16;
/// Largest `fidelity: {cell_packets}`: beyond it a cell outgrows every credit buffer and
/// switch buffer of the presets.
constexpr uint64_t MAX_CELL_PACKETS = 64;

/**
 * \param f a flow_control field
 * \return the flow-control kind
 * \throws SpecError at the value, suggesting the nearest kind
 */
LinkProfile::FlowControl
ReadFlowControl(const Field& f)
{
    // The names come from LinkProfile itself: every kind, as FlowControlName() spells it.
    std::vector<std::string> names;
    for (const auto kind : {LinkProfile::FlowControl::NONE,
                            LinkProfile::FlowControl::CREDIT,
                            LinkProfile::FlowControl::PFC})
    {
        LinkProfile p;
        p.flowControl = kind;
        names.push_back(p.FlowControlName());
    }
    LinkProfile::FlowControl kind = LinkProfile::FlowControl::NONE;
    if (!ParseFlowControl(ReadChoice(f, "flow control", names), kind))
    {
        f.Fail("unknown flow control '" + f.value.Scalar() + "'; known: " + JoinList(names));
    }
    return kind;
}

/**
 * \brief `ecmp_hash:`: a preset name (EcmpHashPresets()) or a list of fields
 * (EcmpHashFieldNames()).
 * \param f the field
 * \return the fields, a mask of EcmpRouting::HashField
 * \throws SpecError at the value or the offending list item
 */
uint32_t
ReadEcmpHash(const Field& f)
{
    const auto& presets = EcmpHashPresets();
    const auto& fields = EcmpHashFieldNames();
    std::vector<std::string> presetNames;
    for (const auto& [name, mask] : presets)
    {
        presetNames.push_back(name);
    }
    if (f.value.IsScalar())
    {
        const std::string name = ReadChoice(f, "ECMP hash preset", presetNames);
        for (const auto& [preset, mask] : presets)
        {
            if (preset == name)
            {
                return mask;
            }
        }
    }
    if (!f.value.IsSequence())
    {
        f.Fail("expected a preset (" + JoinList(presetNames)
               + ") or a list of fields such as "
                 "[src, dst, qp], got "
               + Describe(f.value));
    }
    if (f.value.size() == 0)
    {
        f.Fail("the list is empty; name at least one field of " + JoinList(fields));
    }
    uint32_t mask = 0;
    for (const auto& item : f.value)
    {
        const Field element{"ecmp_hash", f.keyNode, item, f.file};
        if (!item.IsScalar())
        {
            element.Fail("expected a field name (" + JoinList(fields) + "), got " + Describe(item));
        }
        const std::string name = ReadChoice(element, "ECMP hash field", fields);
        const uint32_t bit = 1U << (std::find(fields.begin(), fields.end(), name) - fields.begin());
        if (mask & bit)
        {
            element.Fail("field '" + name + "' appears twice");
        }
        mask |= bit;
    }
    return mask;
}

} // namespace

const spec::SpecTable<LinkProfile>&
spec::LinkKeys()
{
    using L = LinkProfile;
    static const SpecTable<LinkProfile> keys = {
        RateKey("rate",
                &L::rate,
                Zero::REJECTED,
                "data rate per direction, MAC level (after PHY coding)"),
        BytesKey("mtu",
                 &L::mtu,
                 Zero::REJECTED,
                 "largest payload per packet; messages are cut at the smallest `mtu` of the "
                 "fabric",
                 LinkProfile::MAX_PACKET_WIRE_BYTES),
        BytesKey("header_size",
                 &L::headerBytes,
                 Zero::ALLOWED,
                 "wire overhead of every packet, or of every segment when `segment_size` is set "
                 "(headers, CRCs)",
                 LinkProfile::MAX_PACKET_WIRE_BYTES),
        BytesKey("segment_size",
                 &L::segmentBytes,
                 Zero::ALLOWED,
                 "payload of the link's native unit (a PCIe TLP, an NVLink packet) when it is "
                 "smaller than a simulated packet; 0 = `header_size` once per packet",
                 LinkProfile::MAX_PACKET_WIRE_BYTES),
        BytesKey("framing_size",
                 &L::framingBytes,
                 Zero::ALLOWED,
                 "per-packet bytes outside the frame: Ethernet preamble + SFD + inter-frame gap",
                 LinkProfile::MAX_PACKET_WIRE_BYTES),
        BytesKey("message_header_size",
                 &L::messageHeaderBytes,
                 Zero::ALLOWED,
                 "extra bytes on the first packet of each message (RDMA RETH)",
                 LinkProfile::MAX_PACKET_WIRE_BYTES),
        BytesKey("control_packet_size",
                 &L::controlPacketBytes,
                 Zero::REJECTED,
                 "wire bytes of an ACK, NACK or CNP, framing included",
                 LinkProfile::MAX_PACKET_WIRE_BYTES),
        DurationKey("propagation_delay",
                    &L::propagationDelay,
                    Zero::ALLOWED,
                    "one-way signal delay of each cable"),
        DurationKey("switch_latency",
                    &L::switchLatency,
                    Zero::ALLOWED,
                    "port-to-port latency of a switch on this link"),
        DurationKey("nic_latency",
                    &L::nicLatency,
                    Zero::ALLOWED,
                    "extra delay a NIC (or GPU) port adds to each packet it receives"),
        BoolKey("cut_through",
                &L::cutThrough,
                "switches forward a packet once its header is in, instead of after the whole "
                "packet"),
        BytesKey("buffer_per_port",
                 &L::bufferPerPort,
                 Zero::REJECTED,
                 "switch (or NIC node) buffer each port on this link adds to the node's shared "
                 "pool",
                 LinkProfile::MAX_BUFFER_BYTES),
        CustomKey<L>("flow_control",
                     "`none`, `credit` or `pfc`",
                     "",
                     "how the link avoids drops: `none` (lossy), `credit` (credit-based per lane, "
                     "lossless), `pfc` (priority flow control per class, lossless)",
                     [](const Field& f, L& l) { l.flowControl = ReadFlowControl(f); }),
        IntegerKey("priorities",
                   &L::priorities,
                   1,
                   MAX_PRIORITIES,
                   "virtual lanes (InfiniBand) or traffic classes (Ethernet) per port"),
        IntegerKey("data_priority",
                   &L::dataPriority,
                   0,
                   MAX_PRIORITIES - 1,
                   "lane or class of RDMA data; below `priorities`"),
        IntegerKey("control_priority",
                   &L::controlPriority,
                   0,
                   MAX_PRIORITIES - 1,
                   "lane or class of ACK, NACK and CNP packets; below `priorities`"),
        BytesKey("credit_block_size",
                 &L::creditBlockBytes,
                 Zero::REJECTED,
                 "credit unit: a packet uses whole blocks of credit (`credit` only)",
                 LinkProfile::MAX_PACKET_WIRE_BYTES),
        BytesKey("credits_per_lane",
                 &L::creditsPerLane,
                 Zero::ALLOWED,
                 "receive buffer a port advertises per lane (`credit` only); at least one "
                 "largest packet",
                 LinkProfile::MAX_BUFFER_BYTES),
        DurationKey("pfc_reaction_time",
                    &L::pfcReactionTime,
                    Zero::ALLOWED,
                    "time for the peer to stop after a PFC pause; adds rate x time to the PFC "
                    "headroom (`pfc` only)"),
        BytesKey("ecn_kmin",
                 &L::ecnKmin,
                 Zero::ALLOWED,
                 "egress queue above which switches start ECN-marking data packets; 0 = no "
                 "marking",
                 LinkProfile::MAX_BUFFER_BYTES),
        BytesKey("ecn_kmax",
                 &L::ecnKmax,
                 Zero::ALLOWED,
                 "egress queue from which every data packet is marked; at least `ecn_kmin`",
                 LinkProfile::MAX_BUFFER_BYTES),
        FractionKey("ecn_pmax", &L::ecnPmax, "marking probability just below `ecn_kmax`"),
    };
    return keys;
}

namespace
{

/// \return the keys of a `link:` or `host_link:` mapping: `profile`, then LinkKeys()
const std::vector<std::string>&
LinkKeyNames()
{
    static const std::vector<std::string> names = KeyNames(LinkKeys(), {"profile"});
    return names;
}

/**
 * \ingroup ai-fabric
 * \brief A link profile as read from a `link:` or `host_link:` mapping, with the
 * locations of the keys given, for errors found once all overrides are applied.
 */
struct ParsedLink
{
    LinkProfile profile;                      //!< the preset with the overrides applied
    std::string section;                      //!< "link" or "host_link"
    SpecLocation where;                       //!< the mapping (or the topology, if absent)
    std::map<std::string, SpecLocation> keys; //!< location of each key given

    /**
     * \brief Throw a SpecError about a combination of values, located at the first of
     * \p candidates the user wrote (the key, not its value: the value alone is fine),
     * else at the mapping; the message is prefixed with that key.
     * \param candidates keys that could be to blame, most likely first
     * \param message what is wrong
     */
    [[noreturn]] void Fail(const std::vector<std::string>& candidates,
                           const std::string& message) const
    {
        for (const auto& key : candidates)
        {
            const auto it = keys.find(key);
            if (it != keys.end())
            {
                throw SpecError(it->second, key + ": " + message);
            }
        }
        throw SpecError(where, section + ": " + message);
    }
};

/**
 * \brief Check what no single value shows: the constraints between fields, once all
 * overrides are applied to the preset.
 * \param l the link
 * \throws SpecError at the key to blame
 */
void
CheckLink(const ParsedLink& l)
{
    const LinkProfile& p = l.profile;
    const std::string classes
        = "the classes are 0 to " + std::to_string(static_cast<unsigned>(p.priorities) - 1);
    if (p.dataPriority >= p.priorities)
    {
        l.Fail({"data_priority", "priorities"},
               "data_priority " + std::to_string(p.dataPriority) + " is not below priorities "
                   + std::to_string(p.priorities) + "; " + classes);
    }
    if (p.controlPriority >= p.priorities)
    {
        l.Fail({"control_priority", "priorities"},
               "control_priority " + std::to_string(p.controlPriority) + " is not below priorities "
                   + std::to_string(p.priorities) + "; " + classes);
    }
    const uint64_t largest = p.WireBytes(p.mtu, true);
    if (largest > LinkProfile::MAX_PACKET_WIRE_BYTES)
    {
        l.Fail({"mtu", "header_size", "segment_size", "framing_size", "message_header_size"},
               "one largest packet would be " + std::to_string(largest) + " B on the wire (mtu "
                   + std::to_string(p.mtu)
                   + " + headers); a packet "
                     "has at most "
                   + std::to_string(LinkProfile::MAX_PACKET_WIRE_BYTES)
                   + " B (32 MiB), so that cells of up to 64 packets fit the model's 32-bit "
                     "packet sizes");
    }
    // The lanes traffic uses (data and control) may fill their credits at once; the port's
    // share of the switch buffer must hold them, or a lossless link drops.
    const uint64_t lanesUsed = p.dataPriority == p.controlPriority ? 1 : 2;
    if (p.flowControl == LinkProfile::FlowControl::CREDIT
        && p.bufferPerPort < lanesUsed * p.creditsPerLane)
    {
        l.Fail({"buffer_per_port", "credits_per_lane", "flow_control"},
               "buffer_per_port " + std::to_string(p.bufferPerPort)
                   + " B cannot hold the credits its lanes in use (data_priority and "
                     "control_priority: "
                   + std::to_string(lanesUsed) + ") advertise, " + std::to_string(lanesUsed)
                   + " x credits_per_lane " + std::to_string(p.creditsPerLane)
                   + " B: a lossless credit link would have to drop what its credits let in");
    }
    if (p.flowControl == LinkProfile::FlowControl::CREDIT)
    {
        // A lane sends a packet only when it holds credits for all of it, in whole
        // credit blocks (FabricNetDevice::CreditBytes): the largest packet must fit.
        const uint64_t wire = p.WireBytes(p.mtu, true);
        const uint64_t need
            = (wire + p.creditBlockBytes - 1) / p.creditBlockBytes * p.creditBlockBytes;
        if (p.creditsPerLane < need)
        {
            const uint64_t segments
                = p.segmentBytes == 0 ? 1 : (p.mtu + p.segmentBytes - 1) / p.segmentBytes;
            const std::string packet
                = "one largest packet, " + std::to_string(need) + " B (mtu " + std::to_string(p.mtu)
                  + " + " + std::to_string(segments) + " x header_size "
                  + std::to_string(p.headerBytes) + " + framing_size "
                  + std::to_string(p.framingBytes) + " + message_header_size "
                  + std::to_string(p.messageHeaderBytes) + " = " + std::to_string(wire)
                  + " B, in whole " + std::to_string(p.creditBlockBytes) + " B credit blocks)";
            l.Fail({"credits_per_lane",
                    "flow_control",
                    "mtu",
                    "header_size",
                    "segment_size",
                    "framing_size",
                    "message_header_size",
                    "credit_block_size"},
                   p.creditsPerLane == 0
                       ? "credits_per_lane is 0 with flow_control credit, so nothing could "
                         "ever be sent; give at least "
                             + packet
                       : "credits_per_lane " + std::to_string(p.creditsPerLane)
                             + " B is smaller than " + packet
                             + ", so such a packet could never be sent");
        }
    }
    if (p.ecnKmin > 0 && p.ecnKmin > p.ecnKmax)
    {
        l.Fail({"ecn_kmin", "ecn_kmax"},
               "ecn_kmin " + std::to_string(p.ecnKmin) + " B is above ecn_kmax "
                   + std::to_string(p.ecnKmax)
                   + " B; with marking on (ecn_kmin > 0), ecn_kmin <= ecn_kmax is required");
    }
}

/**
 * \brief Read a `link:` or `host_link:` mapping: a preset, then key-by-key overrides,
 * then the checks between fields (CheckLink()).
 * \param field the mapping's field, or nullptr if the topology has none
 * \param section "link" or "host_link", for messages
 * \param defaultProfile the preset when `profile` is absent; "" to require `profile`
 * \param topologyWhere the topology's location, for an absent mapping
 * \param file the file the mapping came from
 * \param base when not null and the mapping has no `profile`: the profile the overrides
 * modify instead of a preset (a custom topology's per-link `link:` over the topology's)
 * \return the profile, with `source` recording the overridden keys
 */
ParsedLink
ParseLink(const Field* field,
          const std::string& section,
          const std::string& defaultProfile,
          const SpecLocation& topologyWhere,
          const std::string& file,
          const LinkProfile* base = nullptr)
{
    ParsedLink l;
    l.section = section;
    l.where = topologyWhere;
    if (!field)
    {
        NS_ABORT_MSG_IF(!FindLinkProfile(defaultProfile),
                        "default link profile '" << defaultProfile << "' is not a preset");
        l.profile = *FindLinkProfile(defaultProfile);
        CheckLink(l);
        return l;
    }
    static const std::map<std::string, std::string> hints = {
        {"name", "choose the preset with 'profile'"},
        {"preset", "did you mean 'profile'?"},
        {"gpus", "'gpus' belongs in the topology"},
        {"kind", "'kind' belongs in the topology"},
        {"bandwidth", "did you mean 'rate'?"},
        {"latency", "write 'propagation_delay', 'switch_latency' or 'nic_latency'"},
        {"pfc", "write 'flow_control: pfc'"},
        {"credit", "write 'flow_control: credit'"},
        {"ecn", "write 'ecn_kmin', 'ecn_kmax' and 'ecn_pmax'"},
        {"lanes", "did you mean 'priorities'?"},
        {"virtual_lanes", "did you mean 'priorities'?"},
        {"traffic_classes", "did you mean 'priorities'?"},
        {"buffer_size", "did you mean 'buffer_per_port'?"},
        {"credits", "did you mean 'credits_per_lane'?"},
    };
    if (!field->value.IsMap())
    {
        const std::string example
            = defaultProfile.empty() ? LinkProfilePresets().front().name : defaultProfile;
        field->Fail("expected a mapping (e.g. 'profile: " + example
                    + "' on the next line, indented), got " + Describe(field->value));
    }
    const Mapping m(field->value, file, section, LinkKeyNames(), hints);
    l.where = m.Where();
    std::string profile = defaultProfile;
    if (const Field* f = m.Find("profile"))
    {
        profile = ScalarOf(*f, "a link profile name");
        if (!FindLinkProfile(profile))
        {
            std::vector<std::string> names;
            for (const auto& p : LinkProfilePresets())
            {
                names.push_back(p.name);
            }
            std::string msg = "unknown link profile '" + profile + "'; ";
            const std::string nearest = NearestWord(profile, names);
            if (!nearest.empty())
            {
                msg += "did you mean '" + nearest + "'? ";
            }
            f->Fail(msg + "known profiles: " + JoinList(names));
        }
    }
    else if (profile.empty() && !base)
    {
        const std::string wanted
            = section == "nvlink" ? DEFAULT_NVLINK_PROFILE : DEFAULT_HOST_LINK_PROFILE;
        throw SpecError(l.where,
                        "missing required key 'profile' in " + section + " (there is no preset '"
                            + wanted + "' to default to)");
    }
    l.profile = (base && !m.Find("profile")) ? *base : *FindLinkProfile(profile);
    std::vector<std::string> overridden;
    for (const auto& k : LinkKeys())
    {
        if (const Field* f = m.Find(k.key))
        {
            k.read(*f, l.profile);
            l.keys[k.key] = f->KeyWhere();
            overridden.push_back(k.key);
        }
    }
    if (!overridden.empty())
    {
        l.profile.source += "; overridden in " + file + ": " + JoinList(overridden);
    }
    CheckLink(l);
    return l;
}

// --------------------------------------------------------------------- topology

/// Kinds whose servers always have an NVLink domain (`nvlink` may only set its profile).
const std::vector<std::string> NVLINK_IMPLIED_KINDS = {"rail-only", "nvlink-domain"};
/// Kinds with a default `gpus_per_server` (8, a DGX), so that `nvlink` alone suffices.
const std::vector<std::string> DEFAULT_SERVER_KINDS = {"rail-optimized", "rail-only"};

/**
 * \param f a field
 * \param min the smallest allowed value
 * \return the count, at most 4294967295
 * \throws SpecError at the value
 */
uint32_t
ReadCount(const Field& f, uint32_t min)
{
    return static_cast<uint32_t>(ReadInteger(f, min, std::numeric_limits<uint32_t>::max()));
}

/**
 * \brief An oversubscription ratio, "D:U" or "D" (ParseOversubscription()).
 * \param f a field
 * \return the ratio, in lowest terms
 * \throws SpecError at the value
 */
OversubscriptionRatio
ReadRatio(const Field& f)
{
    const std::string text = ScalarOf(f, "a ratio such as \"3:1\"");
    OversubscriptionRatio ratio;
    if (!ParseOversubscription(text, ratio))
    {
        f.Fail("'" + text
               + "' is not an oversubscription ratio; write \"D:U\" with positive integers "
                 "(D units of capacity down per U up), such as \"3:1\" or \"3:2\", or \"D\" "
                 "for D:1");
    }
    return ratio;
}

/**
 * \brief `nvlink:` true, false, or a link mapping (a preset, default nvlink4, with overrides).
 * \param f the field
 * \param t the topology (hasNvlink, nvlinkProfile)
 * \throws SpecError at the value
 */
void
ReadNvlink(const Field& f, TopologySpec& t)
{
    if (f.value.IsScalar() && (f.value.Scalar() == "true" || f.value.Scalar() == "false"))
    {
        t.hasNvlink = f.value.Scalar() == "true";
        return;
    }
    if (!f.value.IsMap())
    {
        f.Fail("expected true, false or a link mapping (e.g. 'profile: " + DEFAULT_NVLINK_PROFILE
               + "' on the next line, indented), got " + Describe(f.value));
    }
    const std::string dflt
        = FindLinkProfile(DEFAULT_NVLINK_PROFILE) ? DEFAULT_NVLINK_PROFILE : std::string();
    t.nvlinkProfile = ParseLink(&f, "nvlink", dflt, t.where, f.file).profile;
    t.hasNvlink = true;
}

/**
 * \brief Visit a list of mappings (custom nodes, custom links, transfers): the value
 * must be a non-empty sequence whose entries are mappings with the given keys.
 * \param f the field holding the list
 * \param what the list's key, e.g. "nodes"
 * \param entryWhat what one entry is, for unknown-key errors, e.g. "custom node"
 * \param keys the entries' keys
 * \param hints suggestions for likely wrong keys
 * \param empty the message for an empty list
 * \param visit called with each entry's mapping and index
 * \throws SpecError at the list or the offending entry
 */
template<typename Visit>
void
ForEachListedMapping(const Field& f,
                     const std::string& what,
                     const std::string& entryWhat,
                     const std::vector<std::string>& keys,
                     const std::map<std::string, std::string>& hints,
                     const std::string& empty,
                     Visit&& visit)
{
    if (!f.value.IsSequence())
    {
        f.Fail("expected a list of " + what
               + " (lines starting with '- ', each a mapping with keys " + JoinList(keys)
               + "), got " + Describe(f.value));
    }
    if (f.value.size() == 0)
    {
        f.Fail(empty);
    }
    std::size_t index = 0;
    for (const auto& item : f.value)
    {
        const Field entry{what, f.keyNode, item, f.file};
        if (!item.IsMap())
        {
            entry.Fail("entry " + std::to_string(index) + ": expected a mapping with keys "
                       + JoinList(keys) + ", got " + Describe(item));
        }
        const Mapping m(item, f.file, entryWhat, keys, hints);
        visit(m, index);
        ++index;
    }
}

/**
 * \brief A custom topology's `nodes`: a list of {name, kind, tier}.
 * \param f the field
 * \param t the topology, of kind custom (its nodes)
 * \throws SpecError at the offending entry or value
 */
void
ReadCustomNodes(const Field& f, TopologySpec& t)
{
    static const std::map<std::string, std::string> hints = {
        {"id", "did you mean 'name'?"},
        {"type", "did you mean 'kind'?"},
        {"level", "did you mean 'tier'?"},
        {"layer", "did you mean 'tier'?"},
    };
    ForEachListedMapping(
        f,
        "nodes",
        "custom node",
        CUSTOM_NODE_KEYS,
        hints,
        "the list is empty; give at least 2 nodes of kind gpu",
        [&t](const Mapping& m, std::size_t) {
            CustomSpec::Node n;
            n.where = m.Where();
            n.name = ReadName(m.Require("name"));
            n.kind = ReadChoice(m.Require("kind"), "node kind", CUSTOM_NODE_KINDS);
            const Field* tier = m.Find("tier");
            if (n.kind == "switch")
            {
                n.tier = tier ? static_cast<uint32_t>(ReadInteger(*tier, 0, MAX_CUSTOM_TIER)) : 1;
            }
            else if (tier)
            {
                throw SpecError(tier->KeyWhere(),
                                "'tier' applies to switches only; a " + n.kind + " node is tier 0");
            }
            t.As<CustomSpec>().nodes.push_back(n);
        });
}

/**
 * \brief A custom topology's `links`: a list of {a, b, link}; `link` (optional) overrides
 * the topology's `link` profile for that link (or names another preset).
 * \param f the field
 * \param t the topology, of kind custom (its links; `link` must be read already)
 * \throws SpecError at the offending entry or value
 */
void
ReadCustomLinks(const Field& f, TopologySpec& t)
{
    static const std::map<std::string, std::string> hints = [] {
        std::map<std::string, std::string> h = {
            {"from", "did you mean 'a'?"},
            {"to", "did you mean 'b'?"},
            {"src", "did you mean 'a'?"},
            {"dst", "did you mean 'b'?"},
        };
        for (const auto& key : LinkKeyNames())
        {
            h[key] = "'" + key + "' belongs under the entry's 'link:'";
        }
        return h;
    }();
    ForEachListedMapping(f,
                         "links",
                         "custom link",
                         CUSTOM_LINK_KEYS,
                         hints,
                         "the list is empty; give the links that join the nodes",
                         [&f, &t](const Mapping& m, std::size_t) {
                             CustomSpec::Link l;
                             l.where = m.Where();
                             for (const char* end : {"a", "b"})
                             {
                                 const Field& e = m.Require(end);
                                 std::string& name = end[0] == 'a' ? l.a : l.b;
                                 name = ScalarOf(e, "a node name");
                                 if (name.empty())
                                 {
                                     e.Fail("must not be empty");
                                 }
                             }
                             if (const Field* lf = m.Find("link"))
                             {
                                 l.profile
                                     = ParseLink(lf, "link", "", t.where, f.file, &t.link).profile;
                             }
                             t.As<CustomSpec>().links.push_back(l);
                         });
}

/// One key of a topology mapping (SpecKey::kinds: the kinds that take it, never empty).
using TopologyKey = SpecKey<TopologySpec>;

/// The class of a pointer to member (RailSpec for &RailOnlySpec::sus, declared in RailSpec).
template<class M>
struct MemberClass;

/// The class of a pointer to member: the specialisation that matches.
template<class C, class U>
struct MemberClass<U C::*>
{
    using type = C; //!< the class
};

/**
 * \return the kinds, in TopologyKindNames() order, whose struct is or derives from one of
 * \p Cs (the classes that declare a key's fields)
 */
template<class... Cs>
std::vector<std::string>
KindsWith()
{
    std::vector<std::string> kinds;
    TopologySpec t;
    for (const auto& kind : TopologyKindNames())
    {
        t.SetKind(kind);
        std::visit(
            [&kinds](const auto& s) {
                using S = std::decay_t<decltype(s)>;
                if constexpr ((std::is_base_of_v<Cs, S> || ...))
                {
                    kinds.push_back(S::KIND);
                }
            },
            t.shape);
    }
    return kinds;
}

/**
 * \brief Set a field of the topology's kind, if its struct has it.
 * \param t the topology
 * \param member the field, in the struct (or base struct) that declares it
 * \param value the value
 */
template<class C, class U, class V>
void
SetKindMember(TopologySpec& t, U C::*member, const V& value)
{
    std::visit(
        [member, &value](auto& s) {
            if constexpr (std::is_base_of_v<C, std::decay_t<decltype(s)>>)
            {
                s.*member = value;
            }
        },
        t.shape);
}

/**
 * \brief A count of one or more kinds: an integer from \p min to 2^32-1, into the field of
 * the topology's kind.
 * \param key the YAML key
 * \param min the smallest value
 * \param doc what it means
 * \param members the field in each struct that has it (the kinds taking the key are those
 * structs and the ones derived from them)
 * \return the key
 */
template<class... Ms>
TopologyKey
KindCountKey(const std::string& key, uint64_t min, const std::string& doc, Ms... members)
{
    return IntegerKeyTo<TopologySpec>(key,
                                      min,
                                      std::numeric_limits<uint32_t>::max(),
                                      doc,
                                      [members...](TopologySpec& t, uint64_t value) {
                                          const auto count = static_cast<uint32_t>(value);
                                          (SetKindMember(t, members, count), ...);
                                      })
        .For(KindsWith<typename MemberClass<Ms>::type...>());
}

/**
 * \brief An oversubscription ratio (ReadRatio()) of one or more kinds.
 * \param key the YAML key
 * \param doc what it means
 * \param members the field in each struct that has it
 * \return the key
 */
template<class... Ms>
TopologyKey
KindRatioKey(const std::string& key, const std::string& doc, Ms... members)
{
    return CustomKey<TopologySpec>(key,
                                   "ratio such as \"3:1\"",
                                   "positive integers D:U",
                                   doc,
                                   [members...](const Field& f, TopologySpec& t) {
                                       const OversubscriptionRatio ratio = ReadRatio(f);
                                       (SetKindMember(t, members, ratio), ...);
                                   })
        .For(KindsWith<typename MemberClass<Ms>::type...>());
}

/**
 * \param excluded kinds
 * \return every kind of TopologyKindNames() but \p excluded
 */
std::vector<std::string>
KindsBut(const std::vector<std::string>& excluded)
{
    std::vector<std::string> kinds;
    for (const auto& k : TopologyKindNames())
    {
        if (!Contains(excluded, k))
        {
            kinds.push_back(k);
        }
    }
    return kinds;
}

} // namespace

const spec::SpecTable<TopologySpec>&
spec::TopologyKeys()
{
    static const SpecTable<TopologySpec> keys = [] {
        using T = TopologySpec;
        constexpr uint64_t u32 = std::numeric_limits<uint32_t>::max();
        const std::vector<std::string> servers = KindsBut({"custom"});
        using Ls = LeafSpineSpec;
        using Ft = FatTreeSpec;
        using Ro = RailOptimizedSpec;
        using Df = DragonflyPlusSpec;
        SpecTable<TopologySpec> k = {
            IntegerKey("gpus", &T::gpus, 2, u32, "GPU endpoints").For({"single-switch"}),
            KindCountKey("leaves", 1, "leaf switches", &Ls::leaves),
            KindCountKey("spines",
                         1,
                         "spine switches; rail-optimized: the shared spine tier; rail-only: "
                         "spines per rail",
                         &Ls::spines,
                         &RailSpec::spines),
            KindCountKey("gpus_per_leaf",
                         1,
                         "GPUs (ports down) per leaf",
                         &Ls::gpusPerLeaf,
                         &Ft::gpusPerLeaf,
                         &Df::gpusPerLeaf),
            KindCountKey("links_per_spine",
                         1,
                         "parallel links from each leaf to each spine",
                         &Ls::linksPerSpine),
            KindCountKey("uplinks", 1, "ports up per leaf (explicit port counts)", &Ls::uplinks),
            KindCountKey("radix",
                         2,
                         "ports of every switch of the fabric",
                         &Ls::radix,
                         &Ft::radix,
                         &RailSpec::radix,
                         &Df::radix),
            KindRatioKey("oversubscription",
                         "capacity down : capacity up of one switch of the leaf (rail-switch) tier",
                         &Ls::oversubscription,
                         &Ft::oversubscription,
                         &RailSpec::oversubscription),
            KindRatioKey("spine_oversubscription",
                         "the same for the tier above: fat-tree spines, rail-optimized SU spines",
                         &Ft::spineOversubscription,
                         &Ro::spineOversubscription),
            KindCountKey("pods", 1, "pods", &Ft::pods),
            KindCountKey("leaves_per_pod",
                         1,
                         "leaf (edge) switches per pod = ports down of a spine",
                         &Ft::leavesPerPod),
            KindCountKey("spines_per_pod",
                         1,
                         "spine (aggregation) switches per pod = ports up of a leaf",
                         &Ft::spinesPerPod),
            KindCountKey("spine_uplinks",
                         1,
                         "core links per spine",
                         &Ft::spineUplinks,
                         &Ro::spineUplinks),
            KindCountKey("cores", 1, "core switches", &Ft::cores, &Ro::cores),
            KindCountKey("servers_per_su",
                         1,
                         "servers per scalable unit = ports down of a rail switch",
                         &RailSpec::serversPerSu),
            KindCountKey("sus", 1, "scalable units", &RailSpec::sus),
            KindCountKey("rail_uplinks", 1, "ports up per rail switch", &RailSpec::railUplinks),
            KindCountKey("spines_per_su",
                         1,
                         "spines per SU under a core tier (three tiers)",
                         &Ro::spinesPerSu),
            CustomKey<T>("pxn",
                         "`true` or `false`",
                         "`true` with `nvlink`",
                         "NCCL's PXN: traffic to another rail of another server crosses "
                         "NVLink to the GPU of that rail first, then stays on the rail "
                         "(NCCL_PXN_DISABLE=0, NCCL's default; needs `nvlink`)",
                         [](const Field& f, T& t) { t.As<Ro>().pxn = ReadBool(f); })
                .For({Ro::KIND}),
            KindCountKey("groups", 2, "groups", &Df::groups),
            KindCountKey("leaves_per_group", 1, "leaves per group", &Df::leavesPerGroup),
            KindCountKey("spines_per_group",
                         1,
                         "spines per group (every leaf one link to each)",
                         &Df::spinesPerGroup),
            KindCountKey("global_links_per_spine",
                         1,
                         "global links per spine, to spines of other groups",
                         &Df::globalLinksPerSpine),
            CustomKey<T>("routing",
                         "`minimal`, `valiant` or `ugal`",
                         "",
                         "how packets between groups choose their path (minimal, Valiant, UGAL)",
                         [](const Field& f, T& t) {
                             t.As<Df>().routing
                                 = ReadSetting<PathChoice>(f, "routing", PathChoiceNames());
                         })
                .For({Df::KIND}),
            IntegerKey("gpus_per_server",
                       &T::gpusPerServer,
                       1,
                       u32,
                       "GPUs per server: consecutive GPU indices form a server (and its NVLink "
                       "domain)")
                .For(servers),
            CustomKey<T>("nvlink",
                         "`true`, `false`, or a link mapping",
                         "",
                         "an NVLink domain per server, and its per-GPU profile",
                         ReadNvlink)
                .For(servers),
            IntegerKey("nvlink_switches",
                       &T::nvlinkSwitches,
                       1,
                       u32,
                       "NVSwitch nodes per server; every GPU has one link to each")
                .For(servers),
            CustomKey<T>(
                "link",
                "link mapping",
                "",
                "the properties of every fabric link: a preset plus key-by-key overrides",
                [](const Field& f, T& t) {
                    t.link = ParseLink(&f, "link", DEFAULT_LINK_PROFILE, t.where, f.file).profile;
                })
                .For(KindsBut({"nvlink-domain"})),
            CustomKey<T>("host_link",
                         "link mapping",
                         "",
                         "a GPU-to-NIC link (PCIe) in front of every GPU's fabric link",
                         [](const Field& f, T& t) {
                             // Traffic classes are end to end: GPUs send data in the host
                             // link's data_priority, and a link with fewer lanes maps higher
                             // classes onto its last lane (FabricNetDevice::LaneOf).
                             const std::string dflt = FindLinkProfile(DEFAULT_HOST_LINK_PROFILE)
                                                          ? DEFAULT_HOST_LINK_PROFILE
                                                          : std::string();
                             t.hostLink = ParseLink(&f, "host_link", dflt, t.where, f.file).profile;
                         })
                .For(KindsBut({"nvlink-domain", "custom"})),
            CustomKey<T>("nodes",
                         "list of mappings (`name`, `kind`, `tier`)",
                         "at least 2 of kind gpu",
                         "the nodes, in order (GPUs are numbered in this order)",
                         ReadCustomNodes)
                .For({"custom"}),
            CustomKey<T>("links",
                         "list of mappings (`a`, `b`, `link`)",
                         "not empty, connected",
                         "the full-duplex links",
                         ReadCustomLinks)
                .For({"custom"}),
        };
        const std::vector<std::string> known = TopologyKindNames();
        for (const auto& key : k)
        {
            NS_ABORT_MSG_IF(key.kinds.empty(), "topology key '" << key.key << "' has no kinds");
            for (const auto& kind : key.kinds)
            {
                NS_ABORT_MSG_UNLESS(Contains(known, kind),
                                    "topology key '" << key.key << "' names unknown kind '" << kind
                                                     << "'");
            }
        }
        return k;
    }();
    return keys;
}

namespace
{

/// \return every key of a topology mapping: `name`, `kind`, then TopologyKeys()
const std::vector<std::string>&
TopologyKeyNames()
{
    static const std::vector<std::string> names = KeyNames(TopologyKeys(), {"name", "kind"});
    return names;
}

/**
 * \param kind a topology kind
 * \return the keys a topology of that kind may have: `name`, `kind`, then its own
 */
std::vector<std::string>
TopologyKeyNamesOf(const std::string& kind)
{
    std::vector<std::string> n = {"name", "kind"};
    for (const auto& k : TopologyKeys())
    {
        if (Contains(k.kinds, kind))
        {
            n.push_back(k.key);
        }
    }
    return n;
}

/**
 * \param kind a topology kind
 * \return the keys a topology of that kind must have (besides `kind`)
 */
std::vector<std::string>
RequiredTopologyKeys(const std::string& kind)
{
    static const std::map<std::string, std::vector<std::string>> required = {
        {"single-switch", {"gpus"}},
        {"dragonfly-plus",
         {"groups",
          "leaves_per_group",
          "spines_per_group",
          "gpus_per_leaf",
          "global_links_per_spine"}},
        {"nvlink-domain", {"gpus_per_server"}},
        {"custom", {"nodes", "links"}},
    };
    const auto it = required.find(kind);
    return it == required.end() ? std::vector<std::string>() : it->second;
}

/**
 * \param key a topology key
 * \param kind a kind that does not take it
 * \return why the key is rejected
 */
std::string
NotForKind(const TopologyKey& key, const std::string& kind)
{
    static const std::map<std::string, std::string> gpuCounts = {
        {"leaf-spine", "leaves x gpus_per_leaf"},
        {"fat-tree", "pods x leaves_per_pod x gpus_per_leaf"},
        {"rail-optimized", "gpus_per_server x servers_per_su x sus"},
        {"rail-only", "gpus_per_server x servers_per_su x sus"},
        {"dragonfly-plus", "groups x leaves_per_group x gpus_per_leaf"},
        {"nvlink-domain", "gpus_per_server"},
        {"custom", "the number of its nodes of kind gpu"},
    };
    static const std::map<std::pair<std::string, std::string>, std::string> reasons = {
        {{"host_link", "nvlink-domain"}, "it has no scale-out NICs"},
        {{"link", "nvlink-domain"},
         "its links are NVLink: give their profile under 'nvlink' (e.g. 'nvlink: {profile: "
         "nvlink4}')"},
        {{"host_link", "custom"},
         "list the NIC nodes in 'nodes' and their PCIe links in 'links' (a link with "
         "'link: {profile: pcie-gen5}' between a gpu and a nic is a host link)"},
        {{"nvlink", "custom"},
         "list the NVSwitches in 'nodes' and the NVLink links in 'links' (a link with "
         "'link: {profile: nvlink4}' to a gpu is an NVLink link)"},
        {{"nvlink_switches", "custom"}, "list the NVSwitches in 'nodes'"},
        {{"gpus_per_server", "custom"}, "it has no servers"},
    };
    if (key.key == "gpus")
    {
        const auto it = gpuCounts.find(kind);
        return "'gpus' does not apply to kind " + kind + ": its GPU count is "
               + (it != gpuCounts.end() ? it->second : "set by its other keys");
    }
    const auto it = reasons.find({key.key, kind});
    if (it != reasons.end())
    {
        return "'" + key.key + "' does not apply to kind " + kind + ": " + it->second;
    }
    const std::string tail
        = key.key == "routing"
              ? " (it chooses paths through other groups; the choice among equal-cost ports "
                "is the scenario's 'forwarding')"
              : "";
    return "'" + key.key + "' applies only to kind" + (key.kinds.size() > 1 ? "s " : " ")
           + JoinList(key.kinds) + ", not " + kind + tail;
}

/**
 * \brief Where a message names a key: the first whole-word occurrence of the key, or of
 * the key with '_' written as ' ' ("spine oversubscription" names spine_oversubscription).
 * \param message a message
 * \param key a key
 * \return the position, or std::string::npos
 */
std::size_t
MentionOf(const std::string& message, const std::string& key)
{
    const auto isWord = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    std::string spaced = key;
    std::replace(spaced.begin(), spaced.end(), '_', ' ');
    std::size_t best = std::string::npos;
    for (const std::string& form : {key, spaced})
    {
        for (std::size_t at = message.find(form); at != std::string::npos && at < best;
             at = message.find(form, at + 1))
        {
            const std::size_t end = at + form.size();
            if ((at == 0 || !isWord(message[at - 1]))
                && (end == message.size() || !isWord(message[end])))
            {
                best = at;
                break;
            }
        }
    }
    return best;
}

/**
 * \brief Build the topology's graph once (BuildFabricGraph()), so that what the
 * generators reject is reported at read time with its location. An error located at the
 * topology mapping is moved to the key of the first sizing key the message names that
 * the mapping gives (for "leaf oversubscription 3:1 needs a radix divisible by 4 ...",
 * `oversubscription`); errors at a custom node or link keep their location.
 * \param t the topology
 * \param m its mapping
 * \return the graph
 * \throws SpecError if the topology cannot be built
 */
FabricGraph
BuildLocated(const TopologySpec& t, const Mapping& m)
{
    try
    {
        return BuildFabricGraph(t);
    }
    catch (const SpecError& e)
    {
        const SpecLocation& w = e.Where();
        if (w.file != t.where.file || w.line != t.where.line || w.column != t.where.column)
        {
            throw;
        }
        // Keys whose names are also common words of the messages ("link", "links").
        static const std::vector<std::string> notBlamed
            = {"name", "kind", "link", "host_link", "nodes", "links"};
        const Field* blame = nullptr;
        std::size_t first = std::string::npos;
        for (const Field& f : m.Fields())
        {
            if (Contains(notBlamed, f.key))
            {
                continue;
            }
            const std::size_t at = MentionOf(e.Message(), f.key);
            if (at < first)
            {
                first = at;
                blame = &f;
            }
        }
        if (!blame)
        {
            throw;
        }
        throw SpecError(blame->KeyWhere(), e.Message());
    }
}

/**
 * \param node a topology mapping, possibly malformed
 * \return its `kind` if that is a known kind, else ""
 */
std::string
PeekKind(const YAML::Node& node)
{
    if (!node.IsMap())
    {
        return "";
    }
    for (auto it = node.begin(); it != node.end(); ++it)
    {
        if (it->first.IsScalar() && it->first.Scalar() == "kind" && it->second.IsScalar()
            && Contains(TopologyKindNames(), it->second.Scalar()))
        {
            return it->second.Scalar();
        }
    }
    return "";
}

/**
 * \ingroup ai-fabric
 * \brief What the scenario's checks need to know of a topology's built graph: what the
 * runner's `auto` settings resolve to (ScenarioRunner, FabricBuilder).
 */
struct TopologyFacts
{
    CongestionControlSetting autoCongestionControl{}; //!< what congestion_control auto resolves to
    ReliabilitySetting autoReliability{};             //!< what reliability auto resolves to
    /// Locality domain per GPU for every level of LocalityLevelNames() (GpuLocalityDomains()).
    std::map<std::string, std::vector<uint32_t>> domains;
    /// GPUs per NVLink domain when every GPU is in one of equal, consecutive servers; else 0.
    uint32_t gpusPerServer{0};
};

/**
 * \brief Parse a topology mapping, build its graph once (BuildLocated()) and set `gpus`
 * to the graph's GPU count.
 * \param node the mapping
 * \param file the file it came from
 * \param defaultName the name when the mapping has none
 * \param facts if not null, receives what the graph's link profiles say (TopologyFacts)
 * \return the topology
 */
TopologySpec
ParseTopology(const YAML::Node& node,
              const std::string& file,
              const std::string& defaultName,
              TopologyFacts* facts = nullptr)
{
    static const std::map<std::string, std::string> hints = [] {
        std::map<std::string, std::string> h = {
            {"collectives", "'collectives' belongs in the traffic"},
            {"seed", "'seed' belongs in the scenario file"},
            {"stop_time", "'stop_time' belongs in the scenario file"},
            {"forwarding", "'forwarding' belongs in the scenario file"},
            {"congestion_control", "'congestion_control' belongs in the scenario file"},
            {"dcqcn", "'dcqcn' belongs in the scenario file"},
            {"transport", "'transport' belongs in the scenario file"},
            {"reliability", "'reliability' belongs under 'transport:' in the scenario file"},
            {"path_mode", "did you mean 'routing'?"},
            {"topology", "'topology' belongs in a scenario file (with 'traffic')"},
            {"traffic", "'traffic' belongs in a scenario file (with 'topology')"},
            {"link_profile", "write 'link:' with 'profile:' under it"},
            {"host_link_profile", "write 'host_link:' with 'profile:' under it"},
            {"nvlink_profile", "write 'nvlink:' with 'profile:' under it"},
            {"pcie", "did you mean 'host_link'?"},
            {"num_gpus", "did you mean 'gpus'?"},
            {"gpu_count", "did you mean 'gpus'?"},
            {"type", "did you mean 'kind'?"},
            {"leafs", "did you mean 'leaves'?"},
            {"k", "did you mean 'radix'?"},
            {"ports", "did you mean 'radix'?"},
            {"oversub", "did you mean 'oversubscription'?"},
            {"ratio", "did you mean 'oversubscription'?"},
            {"nvswitches", "did you mean 'nvlink_switches'?"},
            {"scalable_units", "did you mean 'sus'?"},
            {"edges", "did you mean 'links'?"},
        };
        for (const auto& key : LinkKeyNames())
        {
            h[key] = "'" + key + "' belongs under 'link:' (or 'host_link:')";
        }
        return h;
    }();
    // The kind decides which keys apply: an unknown key lists that kind's keys.
    const std::string peeked = PeekKind(node);
    const Mapping m(node,
                    file,
                    "topology",
                    TopologyKeyNames(),
                    hints,
                    peeked.empty() ? std::vector<std::string>() : TopologyKeyNamesOf(peeked),
                    peeked.empty() ? "known keys" : "keys of kind " + peeked);
    TopologySpec t;
    t.where = m.Where();
    if (const Field* f = m.Find("name"))
    {
        t.name = ReadName(*f);
    }
    else
    {
        t.name = CheckedDefaultName(defaultName, t.where);
    }
    t.SetKind(ReadChoice(m.Require("kind"), "topology kind", TopologyKindNames()));
    const std::string kind = t.Kind();

    // Keys of other kinds, in file order; then the keys this kind cannot do without.
    for (const Field& f : m.Fields())
    {
        for (const auto& k : TopologyKeys())
        {
            if (k.key == f.key && !Contains(k.kinds, kind))
            {
                throw SpecError(f.KeyWhere(), NotForKind(k, kind));
            }
        }
    }
    const std::vector<std::string> required = RequiredTopologyKeys(kind);
    for (const auto& key : required)
    {
        if (!m.Find(key))
        {
            throw SpecError(t.where,
                            "missing required key '" + key + "' in topology (kind " + kind
                                + " needs " + JoinList(required) + ")");
        }
    }

    // Values, in table order (`link` before the custom `links` that default to it).
    t.link = ParseLink(nullptr, "link", DEFAULT_LINK_PROFILE, t.where, file).profile;
    for (const auto& k : TopologyKeys())
    {
        if (const Field* f = m.Find(k.key))
        {
            k.read(*f, t);
        }
    }

    // NVLink keys that would otherwise be ignored.
    const bool implied = Contains(NVLINK_IMPLIED_KINDS, kind);
    const Field* nvlink = m.Find("nvlink");
    if (implied && nvlink && !t.hasNvlink)
    {
        nvlink->Fail("kind " + kind
                     + " always has an NVLink domain per server; give its profile (a mapping) "
                       "or true, not false");
    }
    if (!implied && !t.hasNvlink)
    {
        if (const Field* f = m.Find("nvlink_switches"))
        {
            throw SpecError(f->KeyWhere(),
                            "'nvlink_switches' needs 'nvlink' (an NVLink domain per server) on "
                            "kind "
                                + kind);
        }
    }
    if (nvlink && t.hasNvlink && !implied && !Contains(DEFAULT_SERVER_KINDS, kind)
        && !m.Find("gpus_per_server"))
    {
        throw SpecError(nvlink->KeyWhere(),
                        "'nvlink' needs 'gpus_per_server' on kind " + kind
                            + ": the GPUs of one server share its NVLink domain");
    }

    // Non-minimal routing detours through a third group.
    if (const Field* f = m.Find("routing"))
    {
        const DragonflyPlusSpec& dfp = t.As<DragonflyPlusSpec>();
        if (dfp.routing != PathChoice::MINIMAL && dfp.groups < 3)
        {
            f->Fail(SpecName(dfp.routing)
                    + " routing detours through an intermediate group, so it needs at "
                      "least 3 groups; the topology has "
                    + std::to_string(dfp.groups) + " (use routing: minimal)");
        }
    }

    const FabricGraph graph = BuildLocated(t, m);
    t.gpus = graph.GetGpuCount();
    if (facts)
    {
        facts->autoCongestionControl
            = ResolveCongestionControl(CongestionControlSetting::AUTO, graph.GetProfiles());
        facts->autoReliability = ResolveReliability(ReliabilitySetting::AUTO, graph.GetProfiles());
        for (const auto& level : LocalityLevelNames())
        {
            facts->domains[level] = GpuLocalityDomains(graph, level);
        }
        // Servers: domains of equal size s > 1 holding GPUs g with g / s = their domain.
        const std::vector<uint32_t>& server = facts->domains["server"];
        std::map<uint32_t, uint32_t> sizes;
        for (const uint32_t d : server)
        {
            ++sizes[d];
        }
        const uint32_t size = sizes.empty() ? 0 : sizes.begin()->second;
        bool regular = size > 1;
        for (uint32_t g = 0; regular && g < server.size(); ++g)
        {
            regular = sizes[server[g]] == size && server[g] == g / size;
        }
        facts->gpusPerServer = regular ? size : 0;
    }
    return t;
}

/**
 * \brief Parse a collective's ranks value: "all" or a sequence of distinct GPU indices.
 * \param f the ranks field
 * \return the ranks, empty for "all"
 */
std::vector<uint32_t>
ParseRanks(const Field& f)
{
    std::vector<uint32_t> ranks;
    if (f.value.IsScalar() && f.value.Scalar() == "all")
    {
        return ranks;
    }
    if (!f.value.IsSequence())
    {
        f.Fail("expected 'all' or a list of GPU indices such as [0, 1, 2, 3], got "
               + Describe(f.value));
    }
    std::set<uint32_t> seen;
    for (const auto& item : f.value)
    {
        const Field element{"ranks", f.keyNode, item, f.file};
        if (!item.IsScalar())
        {
            element.Fail("expected a GPU index, got " + Describe(item));
        }
        const auto rank = static_cast<uint32_t>(
            ReadInteger(element, 0, std::numeric_limits<uint32_t>::max() - 1));
        if (!seen.insert(rank).second)
        {
            element.Fail("rank " + std::to_string(rank) + " appears twice; ranks must be distinct");
        }
        ranks.push_back(rank);
    }
    if (ranks.size() < 2)
    {
        f.Fail("a collective needs at least 2 ranks, got " + std::to_string(ranks.size()));
    }
    return ranks;
}

/**
 * \param ranks the number of ranks P (at least 1)
 * \return "the collective has P ranks (positions 0 to P-1)"
 */
std::string
PositionsText(uint32_t ranks)
{
    return "the collective has " + std::to_string(ranks) + " ranks (positions 0 to "
           + std::to_string(ranks - 1) + ")";
}

/**
 * \param f a field whose value is a rank position (`root`, a transfer's `src` or `dst`)
 * \param ranks the number of ranks P; 0 if not known yet (a traffic file with `ranks: all`)
 * \return the position, below \p ranks when that is known
 * \throws SpecError at the value
 */
uint32_t
ReadPosition(const Field& f, uint32_t ranks)
{
    const auto pos
        = static_cast<uint32_t>(ReadInteger(f, 0, std::numeric_limits<uint32_t>::max() - 1));
    if (ranks > 0 && pos >= ranks)
    {
        f.Fail("rank position " + std::to_string(pos) + " is out of range: " + PositionsText(ranks)
               + "; positions index 'ranks', they are not GPU indices");
    }
    return pos;
}

/**
 * \param a a byte count
 * \param b a byte count
 * \param f the field to blame if the sum does not fit in 64 bits
 * \param what what is summed, for the message
 * \return a + b
 * \throws SpecError at \p f on overflow
 */
uint64_t
AddBytes(uint64_t a, uint64_t b, const Field& f, const std::string& what)
{
    if (a > std::numeric_limits<uint64_t>::max() - b)
    {
        f.Fail(what + " add up to more than 2^64-1 bytes");
    }
    return a + b;
}

/**
 * \brief An all-to-all `matrix`: P rows of P sizes, row = source position, column =
 * destination position (a bare `0` needs no unit).
 * \param f the field
 * \param ranks the number of ranks P; 0 if not known yet
 * \param[out] largestRow the largest row sum (a rank's whole send buffer, diagonal included)
 * \return the entries, row-major
 * \throws SpecError at the matrix, a row or an entry
 */
std::vector<uint64_t>
ReadMatrix(const Field& f, uint32_t ranks, uint64_t& largestRow)
{
    const std::string example = "such as [[0, 1MiB], [2MiB, 0]] (row = source position, "
                                "column = destination position)";
    if (!f.value.IsSequence())
    {
        f.Fail("expected a list of rows, each a list of sizes, " + example + ", got "
               + Describe(f.value));
    }
    const std::size_t n = f.value.size();
    if (n < 2)
    {
        f.Fail("expected one row per rank, at least 2, " + example + ", got " + std::to_string(n));
    }
    if (ranks > 0 && n != ranks)
    {
        f.Fail("has " + std::to_string(n) + " rows, but the collective has " + std::to_string(ranks)
               + " ranks; give a " + std::to_string(ranks) + " x " + std::to_string(ranks)
               + " matrix (row = source position, column = destination position)");
    }
    std::vector<uint64_t> matrix;
    matrix.reserve(n * n);
    largestRow = 0;
    bool sends = false;
    for (std::size_t i = 0; i < n; ++i)
    {
        const YAML::Node row = f.value[i];
        const Field rowField{"matrix", f.keyNode, row, f.file};
        if (!row.IsSequence())
        {
            rowField.Fail("row " + std::to_string(i) + ": expected a list of " + std::to_string(n)
                          + " sizes, got " + Describe(row));
        }
        if (row.size() != n)
        {
            rowField.Fail("row " + std::to_string(i) + " has " + std::to_string(row.size())
                          + " entries; the matrix has " + std::to_string(n)
                          + " rows, so every row needs " + std::to_string(n)
                          + " (one per destination position)");
        }
        uint64_t rowSum = 0;
        for (std::size_t j = 0; j < n; ++j)
        {
            const YAML::Node item = row[j];
            const Field entry{"matrix[" + std::to_string(i) + "][" + std::to_string(j) + "]",
                              f.keyNode,
                              item,
                              f.file};
            const uint64_t bytes
                = item.IsScalar() && item.Scalar() == "0" ? 0 : ReadBytes(entry, false);
            matrix.push_back(bytes);
            rowSum = AddBytes(rowSum, bytes, rowField, "the sizes of row " + std::to_string(i));
            sends = sends || (i != j && bytes > 0);
        }
        largestRow = std::max(largestRow, rowSum);
    }
    if (!sends)
    {
        f.Fail("every entry off the diagonal is 0, so nothing would be sent (the diagonal "
               "stays local)");
    }
    return matrix;
}

/**
 * \brief A send-recv collective's `transfers`: a list of {src, dst, size}, src and dst
 * rank positions.
 * \param f the field
 * \param ranks the number of ranks P; 0 if not known yet
 * \param spec the collective (transferSrc, transferDst, transferBytes)
 * \return the sum of the transfers' sizes
 * \throws SpecError at the offending entry or value
 */
uint64_t
ReadTransfers(const Field& f, uint32_t ranks, CollectiveSpec& spec)
{
    static const std::map<std::string, std::string> hints = {
        {"from", "did you mean 'src'?"},
        {"to", "did you mean 'dst'?"},
        {"source", "did you mean 'src'?"},
        {"destination", "did you mean 'dst'?"},
        {"bytes", "did you mean 'size'?"},
    };
    uint64_t total = 0;
    ForEachListedMapping(f,
                         "transfers",
                         "transfer",
                         TRANSFER_KEYS,
                         hints,
                         "the list is empty; give at least one transfer {src, dst, size}",
                         [&](const Mapping& m, std::size_t index) {
                             const uint32_t src = ReadPosition(m.Require("src"), ranks);
                             const Field& dstField = m.Require("dst");
                             const uint32_t dst = ReadPosition(dstField, ranks);
                             if (src == dst)
                             {
                                 dstField.Fail("transfer " + std::to_string(index)
                                               + " sends from rank position " + std::to_string(src)
                                               + " to itself");
                             }
                             const Field& size = m.Require("size");
                             const uint64_t bytes = ReadBytes(size, true);
                             total = AddBytes(total, bytes, size, "the transfers' sizes");
                             spec.transferSrc.push_back(src);
                             spec.transferDst.push_back(dst);
                             spec.transferBytes.push_back(bytes);
                         });
    return total;
}

/**
 * \param key a key of a collective
 * \param op the collective's op
 * \param algorithm the collective's algorithm
 * \param hasMatrix whether the collective gives `matrix`
 * \return "" if the key applies to such a collective, else why it does not
 */
std::string
CollectiveKeyProblem(const std::string& key,
                     CollectiveOp op,
                     const std::string& algorithm,
                     bool hasMatrix)
{
    const std::string opName = CollectiveOpName(op);
    if (key == "size" && op == CollectiveOp::SEND_RECV)
    {
        return "'size' does not apply to op send-recv: each entry of 'transfers' has its own "
               "size";
    }
    if (key == "size" && op == CollectiveOp::ALL_TO_ALL && hasMatrix)
    {
        return "'size' does not apply to an all-to-all with 'matrix': the matrix gives the "
               "bytes of every pair";
    }
    if (key == "sweep" && op == CollectiveOp::SEND_RECV)
    {
        return "'sweep' does not apply to op send-recv: each entry of 'transfers' has its own "
               "size";
    }
    if (key == "sweep" && op == CollectiveOp::ALL_TO_ALL && hasMatrix)
    {
        return "'sweep' does not apply to an all-to-all with 'matrix': the matrix gives the "
               "bytes of every pair";
    }
    if (key == "chunk_size"
        && !Contains(AlgorithmsWith(&CollectiveCapabilities::chunked), algorithm))
    {
        return "'chunk_size' applies only to algorithms "
               + JoinList(AlgorithmsWith(&CollectiveCapabilities::chunked))
               + " (they pipeline their steps in chunks), not " + algorithm
               + ", which sends whole messages";
    }
    if (key == "ring_order" && !Contains(TopologyOrderedAlgorithms(), algorithm))
    {
        return "'ring_order' applies only to algorithms " + JoinList(TopologyOrderedAlgorithms())
               + " (their channels follow the topology), not " + algorithm;
    }
    if (key == "reduction_bandwidth" && !CollectiveOpReduces(op))
    {
        std::vector<std::string> reducing;
        for (const auto& o : CollectiveOpNames())
        {
            if (CollectiveOpReduces(o))
            {
                reducing.push_back(o);
            }
        }
        return "'reduction_bandwidth' applies only to ops that reduce (" + JoinList(reducing)
               + "), not " + opName;
    }
    if (key == "root" && std::find(ROOTED_OPS.begin(), ROOTED_OPS.end(), op) == ROOTED_OPS.end())
    {
        return "'root' applies only to ops " + JoinOps(ROOTED_OPS) + ", not " + opName;
    }
    if (key == "ranks_per_node")
    {
        const std::vector<std::string> perNode
            = AlgorithmsWith(&CollectiveCapabilities::needsRanksPerNode);
        if (!Contains(perNode, algorithm))
        {
            return "'ranks_per_node' applies only to algorithm " + JoinList(perNode) + ", not "
                   + algorithm;
        }
    }
    if (key == "matrix" && op != CollectiveOp::ALL_TO_ALL)
    {
        return "'matrix' applies only to op all-to-all, not " + opName;
    }
    if (key == "transfers" && op != CollectiveOp::SEND_RECV)
    {
        return "'transfers' applies only to op send-recv, not " + opName;
    }
    return "";
}

/**
 * \brief A collective's `algorithm`, or the default: the first of
 * CollectiveAlgorithmNames() that implements the op (ring, else direct).
 * `auto` is NCCL's choice: for all-reduce, among ring, tree and NVLS per size on the fabric
 * (ResolveProtocol(), CollectiveSpec::algorithmAuto; the checks here see ring); for the
 * other ops NCCL has one algorithm here, the default.
 * \param c the collective's mapping
 * \param op its op
 * \param[out] chosenLater whether the algorithm is chosen on the fabric (all-reduce `auto`)
 * \return the algorithm's name
 * \throws SpecError at the value if the algorithm is unknown or does not implement \p op
 */
std::string
ReadAlgorithm(const Mapping& c, CollectiveOp op, bool& chosenLater)
{
    chosenLater = false;
    std::vector<std::string> implementing;
    for (const auto& name : CollectiveAlgorithmNames())
    {
        const Ptr<CollectiveAlgorithm> algo = CreateCollectiveAlgorithm(name);
        NS_ABORT_MSG_UNLESS(algo, "no algorithm named '" << name << "'");
        if (algo->Supports(op))
        {
            implementing.push_back(name);
        }
    }
    NS_ABORT_MSG_IF(implementing.empty(),
                    "no algorithm implements op '" << CollectiveOpName(op) << "'");
    const Field* f = c.Find("algorithm");
    if (!f)
    {
        return implementing.front();
    }
    std::vector<std::string> names = CollectiveAlgorithmNames();
    names.emplace_back("auto");
    const std::string name = ReadChoice(*f, "algorithm", names);
    if (name == "auto")
    {
        chosenLater = op == CollectiveOp::ALL_REDUCE;
        return implementing.front();
    }
    if (!Contains(implementing, name))
    {
        f->Fail("algorithm " + name + " does not implement " + CollectiveOpName(op)
                + "; algorithms that do: " + JoinList(implementing));
    }
    return name;
}

/**
 * \brief A collective's `sweep: {min, max, factor}`: sizes min, min x factor, ... up to
 * max (nccl-tests' -b, -e, -f). Sets CollectiveSpec::sweep, sweepMinBytes, sweepMaxBytes,
 * sweepFactor, and bytes to the first size.
 * \param f the field
 * \param spec the collective
 * \throws SpecError at the offending key or value
 */
void
ReadSweep(const Field& f, CollectiveSpec& spec)
{
    static const std::map<std::string, std::string> hints = {
        {"from", "did you mean 'min'?"},
        {"to", "did you mean 'max'?"},
        {"begin", "did you mean 'min'?"},
        {"end", "did you mean 'max'?"},
        {"min_size", "did you mean 'min'?"},
        {"max_size", "did you mean 'max'?"},
        {"step", "did you mean 'factor'?"},
        {"step_factor", "did you mean 'factor'?"},
        {"multiplier", "did you mean 'factor'?"},
        {"size", "a sweep has 'min' and 'max', not 'size'"},
    };
    if (!f.value.IsMap())
    {
        f.Fail("expected a mapping such as {min: 1KiB, max: 1GiB, factor: 2}, got "
               + Describe(f.value));
    }
    const Mapping m(f.value, f.file, "sweep", SWEEP_KEYS, hints);
    spec.sweep = true;
    spec.sweepMinBytes = ReadBytes(m.Require("min"), true);
    const Field& max = m.Require("max");
    spec.sweepMaxBytes = ReadBytes(max, true);
    if (spec.sweepMaxBytes < spec.sweepMinBytes)
    {
        max.Fail("the last size (" + std::to_string(spec.sweepMaxBytes)
                 + " B) is below the first, min (" + std::to_string(spec.sweepMinBytes)
                 + " B); give min <= max");
    }
    spec.sweepFactor = 2;
    if (const Field* factor = m.Find("factor"))
    {
        const std::string text = ScalarOf(*factor, "an integer of at least 2");
        const uint64_t value = ReadInteger(*factor, 0, MAX_SWEEP_FACTOR);
        if (value < 2)
        {
            factor->Fail("must be an integer of at least 2 (each size is the previous one times "
                         "the factor), got "
                         + text);
        }
        spec.sweepFactor = static_cast<uint32_t>(value);
    }
    spec.bytes = spec.sweepMinBytes;
}

/**
 * \param f a `channels` field (a collective's, or a training job's `tp_channels` and
 *        `dp_channels`)
 * \return the count, or WorkloadGroup::AUTO_CHANNELS for `auto` (NCCL's count,
 *         PlanChannels())
 * \throws SpecError at the value
 */
uint32_t
ReadChannels(const Field& f)
{
    constexpr uint32_t maxChannels = CollectiveAlgorithm::MAX_CHANNELS;
    const std::string text = ScalarOf(f, "'auto' or an integer");
    if (text == "auto")
    {
        return WorkloadGroup::AUTO_CHANNELS;
    }
    // One message for every value that is neither (auto5, 0, 65, -1, 1.5).
    const bool digits = !text.empty() && text.size() <= 3
                        && text.find_first_not_of("0123456789") == std::string::npos
                        && !(text.size() > 1 && text[0] == '0');
    const uint64_t channels = digits ? std::stoull(text) : 0;
    if (channels < 1 || channels > maxChannels)
    {
        f.Fail("must be 'auto' or an integer from 1 to " + std::to_string(maxChannels)
               + " (NCCL's MAXCHANNELS), got '" + text + "'");
    }
    return static_cast<uint32_t>(channels);
}

/**
 * \param f a `ring_order` field
 * \return the order: `topology` (NCCL's channels, the default) or `ranks` (as listed)
 * \throws SpecError at the value
 */
RingOrder
ReadRingOrder(const Field& f)
{
    return ReadChoice(f, "ring order", {"topology", "ranks"}) == "ranks" ? RingOrder::RANKS
                                                                         : RingOrder::TOPOLOGY;
}

/**
 * \brief Parse one entry of `collectives` (its name is read by the caller).
 * \param c the entry's mapping
 * \param spec the collective, with `where` and `name` set
 * \param topology the scenario's topology, or nullptr for a traffic file read alone (then
 * `ranks: all` leaves the number of ranks unknown and the checks that need it are skipped)
 * \throws SpecError at the offending key or value
 */
void
ParseCollective(const Mapping& c, CollectiveSpec& spec, const TopologySpec* topology)
{
    const std::string op = ReadChoice(c.Require("op"), "op", CollectiveOpNames());
    NS_ABORT_MSG_UNLESS(CollectiveOpFromName(op, spec.op), "no op named '" << op << "'");
    spec.algorithm = ReadAlgorithm(c, spec.op, spec.algorithmAuto);

    // Keys that do not apply to this op and algorithm, in file order; then the required ones.
    const bool hasMatrix = spec.op == CollectiveOp::ALL_TO_ALL && c.Find("matrix") != nullptr;
    for (const Field& f : c.Fields())
    {
        const std::string problem = CollectiveKeyProblem(f.key, spec.op, spec.algorithm, hasMatrix);
        if (!problem.empty())
        {
            throw SpecError(f.KeyWhere(), problem);
        }
    }
    const Field* sweep = c.Find("sweep");
    if (const Field* size = c.Find("size"); sweep && size)
    {
        throw SpecError(size->KeyWhere(),
                        "'size' does not apply with 'sweep': the sweep gives the sizes (min to "
                        "max); remove one of them");
    }
    if (spec.op == CollectiveOp::SEND_RECV)
    {
        c.Require("transfers");
    }
    else if (sweep)
    {
        ReadSweep(*sweep, spec);
    }
    else if (!hasMatrix)
    {
        spec.bytes = ReadBytes(c.Require("size"), true);
    }
    // The largest buffer of the collective (a sweep's last size), for the chunk check.
    const uint64_t largestBytes = spec.sweep ? spec.sweepMaxBytes : spec.bytes;
    if (CreateCollectiveAlgorithm(spec.algorithm)->GetCapabilities().needsRanksPerNode
        && !c.Find("ranks_per_node"))
    {
        throw SpecError(c.Where(),
                        "missing required key 'ranks_per_node' in collective (algorithm "
                            + spec.algorithm
                            + " needs the GPUs per node, e.g. the topology's "
                              "gpus_per_server)");
    }

    // The ranks, and their number P when it is known.
    spec.ranksWhere = spec.where;
    if (const Field* f = c.Find("ranks"))
    {
        spec.ranks = ParseRanks(*f);
        spec.ranksWhere = f->ValueWhere();
    }
    if (topology)
    {
        for (uint32_t r : spec.ranks)
        {
            if (r >= topology->gpus)
            {
                throw SpecError(spec.ranksWhere,
                                "ranks: rank " + std::to_string(r) + " of collective '" + spec.name
                                    + "' is out of range; the topology '" + topology->name
                                    + "' has " + std::to_string(topology->gpus)
                                    + " GPUs (indices 0 to " + std::to_string(topology->gpus - 1)
                                    + ")");
            }
        }
    }
    const uint32_t ranks = !spec.ranks.empty() ? static_cast<uint32_t>(spec.ranks.size())
                           : topology          ? topology->gpus
                                               : 0;

    spec.start = Seconds(0);
    if (const Field* f = c.Find("start"))
    {
        spec.start = ReadTime(*f, false);
    }
    if (const Field* f = c.Find("channels"))
    {
        spec.channels = ReadChannels(*f);
    }
    if (const Field* f = c.Find("ring_order"))
    {
        spec.ringOrder = ReadRingOrder(*f);
    }
    // NCCL's Simple-protocol chunk where the algorithm pipelines; 0 (whole messages) where
    // it does not, so that no chunk check applies to it.
    spec.chunkBytes = CreateCollectiveAlgorithm(spec.algorithm)->GetCapabilities().chunked
                          ? WorkloadGroup::NCCL_CHUNK_BYTES
                          : 0;
    if (const Field* f = c.Find("chunk_size"))
    {
        spec.chunkBytes = ReadBytes(*f, false);
        const uint64_t maxPieces = CollectiveAlgorithm::MAX_PIECES;
        if (spec.chunkBytes > 0 && largestBytes / spec.chunkBytes > maxPieces)
        {
            f->Fail("'" + f->value.Scalar() + "' cuts the " + std::to_string(largestBytes)
                    + " B buffer into more than " + std::to_string(maxPieces)
                    + " pieces; use a larger chunk (or 0B for whole steps)");
        }
    }
    spec.given.chunk = c.Find("chunk_size") != nullptr;
    if (const Field* f = c.Find("protocol"))
    {
        const std::string name = ReadChoice(*f, "protocol", ProtocolNames());
        NS_ABORT_MSG_UNLESS(ProtocolFromName(name, spec.protocol), "no protocol " << name);
    }
    if (const Field* f = c.Find("slots"))
    {
        spec.slots = static_cast<uint32_t>(ReadInteger(*f, 1, MAX_SLOTS));
        spec.given.slots = true;
    }
    if (const Field* f = c.Find("launch_latency"))
    {
        spec.launchLatency = ReadTime(*f, false);
        spec.given.launch = true;
    }
    if (const Field* f = c.Find("nvlink_hop_latency"))
    {
        spec.hopLatencyIntra = ReadTime(*f, false);
        spec.given.hopIntra = true;
    }
    if (const Field* f = c.Find("net_hop_latency"))
    {
        spec.hopLatencyInter = ReadTime(*f, false);
        spec.given.hopInter = true;
    }
    if (const Field* f = c.Find("kernel_bandwidth"))
    {
        spec.kernelBytesPerSecond = static_cast<double>(ReadRate(*f).GetBitRate()) / 8.0;
    }
    if (const Field* f = c.Find("reduction_bandwidth"))
    {
        // gamma: seconds per reduced byte = 1 / (bytes per second).
        spec.gammaSecondsPerByte = 8.0 / static_cast<double>(ReadRate(*f).GetBitRate());
    }
    if (const Field* f = c.Find("root"))
    {
        spec.root = ReadPosition(*f, ranks);
    }
    if (const Field* f = c.Find("ranks_per_node"))
    {
        spec.ranksPerNode = ReadCount(*f, 1);
        if (ranks > 0 && ranks % spec.ranksPerNode != 0)
        {
            f->Fail("ranks_per_node " + std::to_string(spec.ranksPerNode) + " does not divide the "
                    + std::to_string(ranks)
                    + " ranks of the collective (ranks are node-major: node n holds positions n "
                      "x ranks_per_node to (n + 1) x ranks_per_node - 1)");
        }
    }
    if (const Field* f = c.Find("matrix"))
    {
        spec.matrix = ReadMatrix(*f, ranks, spec.bytes);
    }
    if (const Field* f = c.Find("transfers"))
    {
        spec.bytes = ReadTransfers(*f, ranks, spec);
    }

    // What only the algorithm knows (halving-doubling: a power-of-two P), once P is known.
    if (ranks > 0)
    {
        WorkloadGroup g = MakeWorkloadGroup(spec, ranks, {});
        if (CreateCollectiveAlgorithm(spec.algorithm)->GetCapabilities().inNetwork)
        {
            // The NVSwitch chips are the fabric's: the run looks for them (ResolveProtocol()).
            g.switches.assign(1, UINT32_MAX);
        }
        std::string problem = CreateCollectiveAlgorithm(spec.algorithm)->Validate(g);
        if (problem.empty() && spec.sweep)
        {
            g.bytes = spec.sweepMaxBytes; // the sweep's largest size, too
            problem = CreateCollectiveAlgorithm(spec.algorithm)->Validate(g);
        }
        if (!problem.empty())
        {
            const Field* algorithm = c.Find("algorithm");
            throw SpecError(algorithm ? algorithm->ValueWhere() : spec.where,
                            spec.algorithm + " " + op + ": " + problem);
        }
    }
}

// --------------------------------------------------------------------- training

/**
 * \brief A plain non-negative decimal number: `DIGITS [ "." DIGITS ] [ ("e" | "E") [ "+" |
 * "-" ] DIGITS ]` (`0.5`, `1.2`, `989e12`), read in the "C" locale.
 * \param text the text
 * \param[out] value the number, when the text matches
 * \return true if the text matches the grammar and the number is finite
 */
bool
ParsePlainNumber(const std::string& text, double& value)
{
    std::size_t i = 0;
    const auto digits = [&text, &i]() {
        const std::size_t from = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9')
        {
            ++i;
        }
        return i > from;
    };
    if (!digits())
    {
        return false;
    }
    if (i < text.size() && text[i] == '.')
    {
        ++i;
        if (!digits())
        {
            return false;
        }
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E'))
    {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-'))
        {
            ++i;
        }
        if (!digits())
        {
            return false;
        }
    }
    if (i != text.size())
    {
        return false;
    }
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    in >> value;
    return !in.fail() && std::isfinite(value);
}

/**
 * \param f a field
 * \param example an example value for the message
 * \return the value of a plain non-negative number (ParsePlainNumber())
 * \throws SpecError at the value
 */
double
ReadNumber(const Field& f, const std::string& example)
{
    const std::string text = ScalarOf(f, "a number such as " + example);
    double value = 0;
    if (!ParsePlainNumber(text, value))
    {
        f.Fail("'" + text + "' is not a plain non-negative number; write e.g. " + example);
    }
    return value;
}

/**
 * \brief A FLOP/s rate: `NUMBER [ SPACES ] [ UNIT ]`, NUMBER as ParsePlainNumber(), UNIT one
 * of FLOPS, kFLOPS, KFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS (powers of 1000; `FLOP/s` may be
 * written for `FLOPS`), case-sensitive; no unit means FLOP/s (`989e12`, `989TFLOPS`).
 * \param f a field
 * \return the rate, FLOP/s, > 0 and finite
 * \throws SpecError at the value
 */
double
ReadFlops(const Field& f)
{
    const std::string text = ScalarOf(f, "a FLOP/s rate such as 989TFLOPS or 989e12");
    static const std::vector<std::pair<std::string, double>> prefixes = {
        {"k", 1e3},
        {"K", 1e3},
        {"M", 1e6},
        {"G", 1e9},
        {"T", 1e12},
        {"P", 1e15},
        {"", 1},
    };
    std::string number = text;
    double scale = 1;
    for (const std::string unit : {"FLOPS", "FLOP/s"})
    {
        if (text.size() >= unit.size()
            && text.compare(text.size() - unit.size(), unit.size(), unit) == 0)
        {
            number = text.substr(0, text.size() - unit.size());
            for (const auto& [prefix, factor] : prefixes)
            {
                if (!prefix.empty() && number.size() > prefix.size()
                    && number.compare(number.size() - prefix.size(), prefix.size(), prefix) == 0)
                {
                    number.resize(number.size() - prefix.size());
                    scale = factor;
                    break;
                }
            }
            while (!number.empty() && (number.back() == ' ' || number.back() == '\t'))
            {
                number.pop_back();
            }
            break;
        }
    }
    double value = 0;
    if (!ParsePlainNumber(number, value))
    {
        f.Fail("'" + text
               + "' is not a FLOP/s rate; write a number with an optional unit FLOPS, kFLOPS, "
                 "MFLOPS, GFLOPS, TFLOPS or PFLOPS (case-sensitive), e.g. 989TFLOPS or 989e12");
    }
    value *= scale;
    if (!(value > 0) || !std::isfinite(value))
    {
        f.Fail("must be greater than 0, got '" + text + "'");
    }
    return value;
}

/**
 * \param f a field
 * \param min the smallest allowed value
 * \param max the largest allowed value
 * \return the integer value, as a 32-bit count
 * \throws SpecError at the value
 */
uint32_t
ReadU32(const Field& f, uint32_t min, uint32_t max = std::numeric_limits<uint32_t>::max())
{
    return static_cast<uint32_t>(ReadInteger(f, min, max));
}

/**
 * \brief Read an MoE routing matrix from a CSV file: \p rows lines of \p cols
 * non-negative integers (token copies), comma separated; blank lines and lines
 * starting with '#' are skipped. The path is relative to the file naming it.
 * \param k the `matrix` field holding the path
 * \param rows expected rows (EP ranks)
 * \param cols expected columns (experts)
 * \return the entries, row-major
 */
std::vector<uint64_t>
ReadRoutingCsv(const Field& k, uint32_t rows, uint32_t cols)
{
    const std::string given = k.value.as<std::string>();
    std::filesystem::path path(given);
    if (path.is_relative())
    {
        path = std::filesystem::path(k.file).parent_path() / path;
    }
    const std::string csv = path.lexically_normal().string();
    const SpecLocation at = k.ValueWhere();
    // The same checks as every input file: a regular file (a FIFO would block, /dev/zero never
    // ends), at most MAX_YAML_FILE_BYTES.
    std::istringstream in(ReadInputFile(csv, "routing matrix CSV", &at));
    std::vector<uint64_t> matrix;
    std::string line;
    int lineNo = 0;
    uint32_t seenRows = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#')
        {
            continue;
        }
        uint32_t seenCols = 0;
        std::size_t pos = 0;
        while (pos <= line.size())
        {
            std::size_t end = line.find(',', pos);
            if (end == std::string::npos)
            {
                end = line.size();
            }
            std::string cell = line.substr(pos, end - pos);
            const int column = static_cast<int>(pos) + 1;
            cell.erase(0, cell.find_first_not_of(" \t\r"));
            cell.erase(cell.find_last_not_of(" \t\r") + 1);
            if (cell.empty() || cell.find_first_not_of("0123456789") != std::string::npos
                || cell.size() > 9)
            {
                throw SpecError(SpecLocation{csv, lineNo, column},
                                "routing matrix entry '" + cell
                                    + "' is not a whole number of token copies");
            }
            matrix.push_back(std::stoull(cell));
            ++seenCols;
            if (seenCols == cols + 1)
            {
                throw SpecError(SpecLocation{csv, lineNo, column},
                                "routing matrix row has more than experts = " + std::to_string(cols)
                                    + " entries");
            }
            pos = end + 1;
        }
        if (seenCols != cols)
        {
            throw SpecError(SpecLocation{csv, lineNo, static_cast<int>(line.size()) + 1},
                            "routing matrix row has " + std::to_string(seenCols)
                                + " entries; it needs experts = " + std::to_string(cols));
        }
        ++seenRows;
    }
    if (seenRows != rows)
    {
        throw SpecError(SpecLocation{csv, lineNo + 1, 1},
                        "routing matrix has " + std::to_string(seenRows) + " rows; it needs ep = "
                            + std::to_string(rows) + " (row = source EP position)");
    }
    return matrix;
}

/**
 * \brief Read an MoE routing matrix given inline: \p rows lists of \p cols token copies.
 * \param k the `matrix` field
 * \param rows expected rows (EP ranks)
 * \param cols expected columns (experts)
 * \return the entries, row-major
 */
std::vector<uint64_t>
ReadRoutingRows(const Field& k, uint32_t rows, uint32_t cols)
{
    const std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
    if (!k.value.IsSequence())
    {
        k.Fail("expected a list of ep = " + std::to_string(rows)
               + " rows (source EP position) of experts = " + std::to_string(cols)
               + " token copies, or the path of a CSV file holding them, got " + Describe(k.value));
    }
    if (k.value.size() != rows)
    {
        k.Fail("has " + std::to_string(k.value.size())
               + " rows, but the routing matrix is ep x experts = " + shape
               + " (row = source EP position, column = expert)");
    }
    std::vector<uint64_t> matrix;
    for (std::size_t i = 0; i < k.value.size(); ++i)
    {
        const YAML::Node row = k.value[i];
        const Field rowField{"matrix", k.keyNode, row, k.file};
        if (!row.IsSequence() || row.size() != cols)
        {
            rowField.Fail(
                "row " + std::to_string(i) + ": expected " + std::to_string(cols)
                + " token copies (one per expert; the matrix is ep x experts = " + shape + "), got "
                + (row.IsSequence() ? std::to_string(row.size()) + " entries" : Describe(row)));
        }
        for (std::size_t j = 0; j < row.size(); ++j)
        {
            const Field entry{"matrix[" + std::to_string(i) + "][" + std::to_string(j) + "]",
                              k.keyNode,
                              row[j],
                              k.file};
            matrix.push_back(ReadInteger(entry, 0, std::numeric_limits<uint32_t>::max()));
        }
    }
    return matrix;
}

/**
 * \brief A training job's MoE `routing`: a distribution name, or a mapping with
 * `distribution` and its parameters (docs/training-workload.md).
 * \param f the field
 * \param spec the job, whose `ep` and `experts` are already read (the matrix's shape)
 * \throws SpecError at the offending key or value
 */
void
ReadRouting(const Field& f, TrainingSpec& spec)
{
    static const std::map<std::string, std::string> hints = {
        {"type", "did you mean 'distribution'?"},
        {"kind", "did you mean 'distribution'?"},
        {"exponent", "did you mean 'zipf_exponent'?"},
        {"alpha", "did you mean 'zipf_exponent'?"},
        {"fraction", "did you mean 'hot_fraction'?"},
        {"groups", "did you mean 'affinity_groups'?"},
    };
    MoeRoutingSpec& r = spec.routing;
    if (f.value.IsScalar())
    {
        r.distribution = ReadChoice(f, "MoE routing", MoeRoutingNames());
        if (r.distribution == "matrix")
        {
            f.Fail("matrix routing needs its matrix: write a mapping, e.g. {distribution: "
                   "matrix, matrix: [[...], ...]} with EP rows of E token copies");
        }
        return;
    }
    if (!f.value.IsMap())
    {
        f.Fail("expected a distribution name (" + JoinList(MoeRoutingNames())
               + ") or a mapping with keys " + JoinList(ROUTING_KEYS) + ", got "
               + Describe(f.value));
    }
    const Mapping m(f.value, f.file, "routing", ROUTING_KEYS, hints);
    if (const Field* d = m.Find("distribution"))
    {
        r.distribution = ReadChoice(*d, "MoE routing", MoeRoutingNames());
    }
    static const std::map<std::string, std::string> owner
        = {{"zipf_exponent", "zipf"}, {"hot_fraction", "hot-expert"}, {"matrix", "matrix"}};
    for (const Field& k : m.Fields())
    {
        const auto o = owner.find(k.key);
        if (o != owner.end() && o->second != r.distribution)
        {
            throw SpecError(k.KeyWhere(),
                            "'" + k.key + "' applies only to distribution " + o->second + ", not "
                                + r.distribution);
        }
    }
    if (const Field* k = m.Find("zipf_exponent"))
    {
        r.zipfExponent = ReadNumber(*k, "1.2");
    }
    if (const Field* k = m.Find("hot_fraction"))
    {
        r.hotFraction = ReadFraction(*k);
    }
    if (const Field* k = m.Find("affinity_groups"))
    {
        r.affinityGroups = ReadU32(*k, 1);
        if (r.affinityGroups > spec.ep)
        {
            k->Fail("must be between 1 and the EP group size (ep = " + std::to_string(spec.ep)
                    + "), got " + std::to_string(r.affinityGroups));
        }
    }
    if (r.distribution == "matrix")
    {
        const Field& k = m.Require("matrix");
        r.matrix = k.value.IsScalar() ? ReadRoutingCsv(k, spec.ep, spec.experts)
                                      : ReadRoutingRows(k, spec.ep, spec.experts);
        if (std::all_of(r.matrix.begin(), r.matrix.end(), [](uint64_t v) { return v == 0; }))
        {
            k.Fail("the routing matrix routes no token copies (every entry is 0): MoE dispatch "
                   "and combine would move nothing");
        }
    }
}

/**
 * \brief Where a problem ValidateTrainingSpec() found is to be located: the first key of
 * the first rule whose fragment the message contains and that the mapping gives.
 * \param problem the message
 * \param m the training mapping
 * \return the key's location, else the mapping's
 */
SpecLocation
BlameTrainingKey(const std::string& problem, const Mapping& m)
{
    // Fragments of ValidateTrainingSpec(), MoeRouter::Validate() and ExpertPlacement::Validate()
    // messages, most specific first, and the keys they concern.
    static const std::vector<std::pair<std::string, std::vector<std::string>>> rules = {
        {"gives messages of", {"hidden", "sequence", "micro_batch_size", "bytes_per_element"}},
        {"gradients would be", {"parameters", "hidden", "ffn_hidden", "layers", "experts"}},
        {"explicit rank placement", {"rank_gpus"}},
        {"rank order", {"rank_order"}},
        {"TP x PP x DP", {"tp", "pp", "dp"}},
        {"TP group", {"rank_gpus", "rank_order", "tp", "gpus_per_server"}},
        {"needs at least 2 pipeline stages", {"pp", "schedule"}},
        {"needs at least 2 virtual stages", {"virtual_stages", "schedule"}},
        {"needs the micro-batches", {"micro_batches", "pp", "schedule"}},
        {"virtual stages", {"virtual_stages"}},
        {"layers do not divide", {"layers", "pp", "virtual_stages"}},
        {"sequence parallelism", {"sequence_parallel"}},
        {"MoE layers", {"moe_layers", "experts"}},
        {"expert-parallel degree", {"ep", "dp"}},
        {"experts do not divide", {"experts", "ep"}},
        {"top-k", {"top_k"}},
        {"routing", {"routing"}},
        {"zipf", {"routing"}},
        {"hot-expert", {"routing"}},
        {"expert placement", {"expert_placement"}},
        {"capacity factor", {"capacity_factor"}},
        {"tensor-parallel channels", {"tp_channels"}},
        {"tensor-parallel algorithm", {"tp_algorithm", "sequence_parallel"}},
        {"data-parallel channels", {"dp_channels"}},
        {"data-parallel algorithm", {"dp_algorithm"}},
        {"bucket", {"bucket_bytes"}},
        {"peak FLOP", {"peak_flops"}},
        {"MFU", {"mfu"}},
        {"bytes per element", {"bytes_per_element"}},
        {"micro-batch", {"micro_batches"}},
    };
    for (const auto& [fragment, keys] : rules)
    {
        if (problem.find(fragment) == std::string::npos)
        {
            continue;
        }
        for (const auto& key : keys)
        {
            if (const Field* f = m.Find(key))
            {
                return f->KeyWhere();
            }
        }
        break;
    }
    return m.Where();
}

/**
 * \brief Parse a traffic file's `training:` mapping into a TrainingSpec, then run
 * ValidateTrainingSpec(): against the topology when it is known (its GPU count, the
 * locality domains of \p locality, its NVLink domain size as `gpus_per_server` when that
 * key is absent), else against TP x PP x DP GPUs (the checks that need the fabric wait
 * for ReadScenarioFile()).
 * \param f the `training` field
 * \param locality the traffic's locality level
 * \param topology the scenario's topology, or nullptr
 * \param facts what its graph says, or nullptr
 * \return the job
 * \throws SpecError at the offending key or value, or at the mapping
 */
TrainingSpec
ParseTraining(const Field& f,
              const std::string& locality,
              const TopologySpec* topology,
              const TopologyFacts* facts)
{
    static const std::map<std::string, std::string> hints = [] {
        std::map<std::string, std::string> h = {
            {"ffn", "did you mean 'ffn_hidden'?"},
            {"hidden_size", "did you mean 'hidden'?"},
            {"seq_len", "did you mean 'sequence'?"},
            {"sequence_length", "did you mean 'sequence'?"},
            {"num_layers", "did you mean 'layers'?"},
            {"micro_batch",
             "did you mean 'micro_batch_size' (sequences per micro-batch) or "
             "'micro_batches' (micro-batches per iteration)?"},
            {"num_experts", "did you mean 'experts'?"},
            {"topk", "did you mean 'top_k'?"},
            {"placement", "did you mean 'expert_placement'?"},
            {"flops", "did you mean 'peak_flops'?"},
            {"vocab", "did you mean 'vocabulary'?"},
            {"vocab_size", "did you mean 'vocabulary'?"},
            {"bucket_size", "did you mean 'bucket_bytes'?"},
            {"chunk_size", "did you mean 'chunk_bytes'?"},
            {"collectives", "'collectives' belongs in the traffic mapping, next to 'training'"},
        };
        for (const auto& key : TRAINING_TRAFFIC_KEYS)
        {
            h[key] = "'" + key + "' belongs in the traffic mapping, next to 'training'";
        }
        return h;
    }();
    if (!f.value.IsMap())
    {
        f.Fail("expected a mapping of the training job's keys (layers, hidden, sequence, "
               "peak_flops, tp, pp, dp, ...), got "
               + Describe(f.value));
    }
    const Mapping m(f.value, f.file, "training", TRAINING_KEYS, hints);
    TrainingSpec t;
    if (const Field* k = m.Find("name"))
    {
        t.name = ReadName(*k);
    }

    // Model.
    t.layers = ReadU32(m.Require("layers"), 1);
    t.hidden = ReadInteger(m.Require("hidden"), 1, std::numeric_limits<uint32_t>::max());
    t.sequence = ReadInteger(m.Require("sequence"), 1, std::numeric_limits<uint32_t>::max());
    if (const Field* k = m.Find("micro_batch_size"))
    {
        t.microBatchSize = ReadU32(*k, 1);
    }
    if (const Field* k = m.Find("bytes_per_element"))
    {
        t.bytesPerElement = ReadU32(*k, 1, MAX_BYTES_PER_ELEMENT);
    }
    if (const Field* k = m.Find("ffn_hidden"))
    {
        t.ffnHidden = ReadInteger(*k, 1, std::numeric_limits<uint32_t>::max());
    }
    if (const Field* k = m.Find("vocabulary"))
    {
        t.vocabulary = ReadInteger(*k, 0, std::numeric_limits<uint32_t>::max());
    }
    if (const Field* k = m.Find("parameters"))
    {
        t.parameters = ReadInteger(*k, 1, std::numeric_limits<uint64_t>::max());
    }

    // GPU.
    t.peakFlops = ReadFlops(m.Require("peak_flops"));
    if (const Field* k = m.Find("mfu"))
    {
        t.mfu = ReadFraction(*k);
        if (t.mfu <= 0)
        {
            k->Fail("must be in (0, 1] (the achieved fraction of the peak), got "
                    + k->value.Scalar());
        }
    }

    // Parallelism and placement.
    for (const auto& [key, field] : std::vector<std::pair<std::string, uint32_t*>>{{"tp", &t.tp},
                                                                                   {"pp", &t.pp},
                                                                                   {"dp", &t.dp}})
    {
        if (const Field* k = m.Find(key))
        {
            *field = ReadU32(*k, 1);
        }
    }
    const uint64_t ranks = static_cast<uint64_t>(t.tp) * t.pp * t.dp;
    if (ranks > std::numeric_limits<uint32_t>::max())
    {
        throw SpecError(m.Find("tp") ? m.Find("tp")->KeyWhere() : m.Where(),
                        "TP x PP x DP = " + std::to_string(ranks) + " ranks is too many");
    }
    if (const Field* k = m.Find("sequence_parallel"))
    {
        t.sequenceParallel = ReadBool(*k);
    }
    const Field* order = m.Find("rank_order");
    const Field* gpus = m.Find("rank_gpus");
    if (order && gpus)
    {
        throw SpecError(gpus->KeyWhere(),
                        "'rank_gpus' places every rank explicitly, so 'rank_order' would be "
                        "ignored; give one of them");
    }
    if (order)
    {
        const std::string text = ScalarOf(*order, "a permutation of tp, pp, dp such as tp,pp,dp");
        std::vector<std::string> dims;
        std::string cur;
        for (const char ch : text + ",")
        {
            if (ch == ',')
            {
                const auto b = cur.find_first_not_of(" \t");
                const auto e = cur.find_last_not_of(" \t");
                dims.push_back(b == std::string::npos ? "" : cur.substr(b, e - b + 1));
                cur.clear();
            }
            else
            {
                cur += ch;
            }
        }
        std::vector<std::string> sorted = dims;
        std::sort(sorted.begin(), sorted.end());
        if (sorted != std::vector<std::string>{"dp", "pp", "tp"})
        {
            order->Fail("'" + text
                        + "' is not a permutation of tp, pp and dp (innermost first), e.g. "
                          "tp,pp,dp");
        }
        t.rankOrder = dims[0] + "," + dims[1] + "," + dims[2];
    }
    if (gpus)
    {
        if (!gpus->value.IsSequence())
        {
            gpus->Fail("expected a list of GPU indices, one per canonical rank t + TP (s + PP "
                       "d), got "
                       + Describe(gpus->value));
        }
        std::set<uint32_t> seen;
        for (const auto& item : gpus->value)
        {
            const Field element{"rank_gpus", gpus->keyNode, item, gpus->file};
            const uint32_t g = ReadU32(element, 0, std::numeric_limits<uint32_t>::max() - 1);
            if (!seen.insert(g).second)
            {
                element.Fail("GPU " + std::to_string(g)
                             + " appears twice; every rank needs its own GPU");
            }
            t.rankGpus.push_back(g);
        }
        if (t.rankGpus.size() != ranks)
        {
            gpus->Fail("lists " + std::to_string(t.rankGpus.size()) + " GPUs, but TP x PP x DP = "
                       + std::to_string(t.tp) + " x " + std::to_string(t.pp) + " x "
                       + std::to_string(t.dp) + " = " + std::to_string(ranks) + " ranks");
        }
    }
    const Field* perServer = m.Find("gpus_per_server");
    if (perServer)
    {
        t.gpusPerServer = ReadU32(*perServer, 0);
    }
    else if (facts)
    {
        t.gpusPerServer = facts->gpusPerServer;
    }
    if (const Field* k = m.Find("tp_in_server"))
    {
        t.tpInServer = ReadBool(*k);
    }

    // Pipeline schedule.
    if (const Field* k = m.Find("schedule"))
    {
        t.schedule = ReadChoice(*k, "pipeline schedule", PipelineScheduleNames());
    }
    if (const Field* k = m.Find("micro_batches"))
    {
        t.microBatches = ReadU32(*k, 1);
    }
    if (const Field* k = m.Find("virtual_stages"))
    {
        if (t.schedule != "interleaved")
        {
            throw SpecError(k->KeyWhere(),
                            "'virtual_stages' applies only to schedule interleaved, not "
                                + t.schedule);
        }
        t.virtualStages = ReadU32(*k, 2);
    }
    else if (t.schedule == "interleaved")
    {
        throw SpecError(m.Find("schedule")->KeyWhere(),
                        "schedule interleaved needs 'virtual_stages' (model chunks per GPU, at "
                        "least 2)");
    }

    // Mixture of experts: the MoE keys need moe_layers >= 1.
    if (const Field* k = m.Find("moe_layers"))
    {
        t.moeLayers = ReadU32(*k, 0);
    }
    for (const Field& k : m.Fields())
    {
        if (t.moeLayers == 0 && Contains(MOE_KEYS, k.key))
        {
            throw SpecError(k.KeyWhere(),
                            "'" + k.key
                                + "' applies only to mixture-of-experts jobs; set "
                                  "'moe_layers' (MoE layers among the layers) to at least 1");
        }
    }
    if (t.moeLayers > 0)
    {
        t.experts = ReadU32(m.Require("experts"), 1);
        if (const Field* k = m.Find("ep"))
        {
            t.ep = ReadU32(*k, 1);
        }
        if (const Field* k = m.Find("top_k"))
        {
            t.topK = ReadU32(*k, 1);
        }
        if (const Field* k = m.Find("capacity_factor"))
        {
            t.capacityFactor = ReadNumber(*k, "1.25");
        }
        if (const Field* k = m.Find("expert_ffn_hidden"))
        {
            t.expertFfnHidden = ReadInteger(*k, 1, std::numeric_limits<uint32_t>::max());
        }
        if (const Field* k = m.Find("dispatch_bytes_per_element"))
        {
            t.dispatchBytesPerElement = ReadU32(*k, 1, MAX_BYTES_PER_ELEMENT);
        }
        if (const Field* k = m.Find("combine_bytes_per_element"))
        {
            t.combineBytesPerElement = ReadU32(*k, 1, MAX_BYTES_PER_ELEMENT);
        }
        if (const Field* k = m.Find("routing"))
        {
            ReadRouting(*k, t);
        }
        if (const Field* k = m.Find("expert_placement"))
        {
            t.expertPlacement = ReadChoice(*k, "expert placement", ExpertPlacementNames());
        }
    }

    // Communication.
    if (const Field* k = m.Find("tp_algorithm"))
    {
        t.tpAlgorithm = ReadChoice(*k, "algorithm", CollectiveAlgorithmNames());
    }
    if (const Field* k = m.Find("tp_channels"))
    {
        t.tpChannels = ReadChannels(*k);
    }
    if (const Field* k = m.Find("dp_algorithm"))
    {
        t.dpAlgorithm = ReadChoice(*k, "algorithm", CollectiveAlgorithmNames());
    }
    if (const Field* k = m.Find("dp_channels"))
    {
        t.dpChannels = ReadChannels(*k);
    }
    if (const Field* k = m.Find("ring_order"))
    {
        t.ringOrder = ReadRingOrder(*k);
        const std::vector<std::string> ordered = TopologyOrderedAlgorithms();
        if (!Contains(ordered, t.tpAlgorithm) && !Contains(ordered, t.dpAlgorithm))
        {
            k->Fail("applies only when tp_algorithm or dp_algorithm is " + JoinList(ordered)
                    + " (their channels follow the topology), not " + t.tpAlgorithm + " / "
                    + t.dpAlgorithm);
        }
    }
    t.protocol = Protocol::AUTO; // NCCL's choice per group
    if (const Field* k = m.Find("protocol"))
    {
        const std::string name = ReadChoice(*k, "protocol", ProtocolNames());
        NS_ABORT_MSG_UNLESS(ProtocolFromName(name, t.protocol), "no protocol " << name);
    }
    if (const Field* k = m.Find("slots"))
    {
        t.slots = static_cast<uint32_t>(ReadInteger(*k, 1, MAX_SLOTS));
    }
    if (const Field* k = m.Find("kernel_bandwidth"))
    {
        t.kernelBytesPerSecond = static_cast<double>(ReadRate(*k).GetBitRate()) / 8.0;
    }
    if (const Field* k = m.Find("chunk_bytes"))
    {
        t.chunkBytes = ReadBytes(*k, false);
    }
    if (const Field* k = m.Find("bucket_bytes"))
    {
        t.bucketBytes = ReadBytes(*k, true);
    }
    if (const Field* k = m.Find("overlap_grad_reduce"))
    {
        t.overlapGradReduce = ReadBool(*k);
    }
    if (const Field* k = m.Find("grad_bytes_per_element"))
    {
        t.gradBytesPerElement = ReadU32(*k, 1, MAX_BYTES_PER_ELEMENT);
    }

    // The checks between keys, against the fabric when it is known.
    uint32_t gpuCount = static_cast<uint32_t>(ranks);
    std::vector<uint32_t> domains;
    if (topology)
    {
        gpuCount = topology->gpus;
        if (facts)
        {
            const auto d = facts->domains.find(locality);
            if (d != facts->domains.end())
            {
                domains = d->second;
            }
        }
    }
    else if (!t.rankGpus.empty())
    {
        gpuCount = *std::max_element(t.rankGpus.begin(), t.rankGpus.end()) + 1;
    }
    const std::string problem = ValidateTrainingSpec(t, gpuCount, domains);
    if (!problem.empty())
    {
        std::string message = "training: " + problem;
        if (topology && problem.find("fabric has") != std::string::npos)
        {
            message += " (topology '" + topology->name + "')";
        }
        throw SpecError(BlameTrainingKey(problem, m), message);
    }
    return t;
}

/**
 * \brief Parse a traffic mapping.
 * \param node the mapping
 * \param file the file it came from
 * \param defaultName the name when the mapping has none
 * \param topology the scenario's topology, against which ranks and rank positions are
 * checked; nullptr for a traffic file read alone
 * \param facts what the topology's graph says (the training job's checks), or nullptr
 * \return the traffic
 */
TrafficSpec
ParseTraffic(const YAML::Node& node,
             const std::string& file,
             const std::string& defaultName,
             const TopologySpec* topology = nullptr,
             const TopologyFacts* facts = nullptr)
{
    static const std::map<std::string, std::string> hints = [] {
        std::map<std::string, std::string> h = {
            {"gpus", "'gpus' belongs in the topology"},
            {"seed", "'seed' belongs in the scenario file"},
            {"stop_time", "'stop_time' belongs in the scenario file"},
        };
        for (const auto& key : TRAINING_KEYS)
        {
            if (!Contains(TRAFFIC_KEYS, key))
            {
                h[key] = "'" + key + "' belongs under 'training:'";
            }
        }
        for (const auto& key : COLLECTIVE_KEYS)
        {
            if (!Contains(TRAFFIC_KEYS, key))
            {
                h[key] = "'" + key + "' belongs in an entry of 'collectives'";
            }
        }
        h["train"] = "did you mean 'training'?";
        h["workload"] = "did you mean 'training'?";
        return h;
    }();
    const Mapping m(node, file, "traffic", TRAFFIC_KEYS, hints);
    TrafficSpec tr;
    tr.where = m.Where();
    if (const Field* f = m.Find("name"))
    {
        tr.name = ReadName(*f);
    }
    else
    {
        tr.name = CheckedDefaultName(defaultName, tr.where);
    }
    const Field* training = m.Find("training");
    if (!training && !m.Find("collectives"))
    {
        throw SpecError(tr.where,
                        "the traffic needs 'collectives' (a list of collectives), 'training' "
                        "(a training job) or both");
    }
    for (const auto& key : TRAINING_TRAFFIC_KEYS)
    {
        const Field* f = m.Find(key);
        if (f && !training)
        {
            throw SpecError(f->KeyWhere(),
                            "'" + key + "' applies only to a training job; add 'training:'");
        }
    }
    if (const Field* f = m.Find("locality"))
    {
        tr.locality = ReadChoice(*f, "locality level", LocalityLevelNames());
    }
    if (const Field* f = m.Find("iterations"))
    {
        tr.iterations = static_cast<uint32_t>(ReadInteger(*f, 1, MAX_ITERATIONS));
    }
    if (training)
    {
        tr.hasTraining = true;
        tr.trainingWhere = training->ValueWhere();
        tr.training = ParseTraining(*training, tr.locality, topology, facts);
    }
    if (!m.Find("collectives"))
    {
        return tr;
    }
    const Field& list = m.Require("collectives");
    if (!list.value.IsSequence())
    {
        list.Fail("expected a list of collectives (lines starting with '- '), got "
                  + Describe(list.value));
    }
    if (list.value.size() == 0)
    {
        list.Fail("the list is empty; give at least one collective");
    }
    static const std::map<std::string, std::string> collectiveHints = {
        {"bytes", "did you mean 'size'?"},
        {"type", "did you mean 'op'?"},
        {"operation", "did you mean 'op'?"},
        {"algo", "did you mean 'algorithm'?"},
        {"gpus", "did you mean 'ranks'?"},
        {"start_time", "did you mean 'start'?"},
        {"num_channels", "did you mean 'channels'?"},
        {"nchannels", "did you mean 'channels'?"},
        {"chunk", "did you mean 'chunk_size'?"},
        {"gamma", "write 'reduction_bandwidth' (a data rate; gamma = 1 / bandwidth)"},
        {"reduce_bandwidth", "did you mean 'reduction_bandwidth'?"},
        {"root_rank", "did you mean 'root'?"},
        {"gpus_per_node", "did you mean 'ranks_per_node'?"},
        {"gpus_per_server", "did you mean 'ranks_per_node'?"},
        {"src", "'src' belongs in an entry of 'transfers'"},
        {"dst", "'dst' belongs in an entry of 'transfers'"},
    };
    std::map<std::string, int> nameLines;
    std::size_t index = 0;
    for (const auto& item : list.value)
    {
        const Field entry{"collectives", list.keyNode, item, file};
        if (!item.IsMap())
        {
            entry.Fail("entry " + std::to_string(index) + ": expected a mapping with keys "
                       + JoinList(COLLECTIVE_KEYS) + ", got " + Describe(item));
        }
        const Mapping c(item, file, "collective", COLLECTIVE_KEYS, collectiveHints);
        CollectiveSpec spec;
        spec.where = c.Where();
        spec.name = "c" + std::to_string(index);
        SpecLocation nameWhere = spec.where;
        if (const Field* f = c.Find("name"))
        {
            spec.name = ReadName(*f);
            nameWhere = f->ValueWhere();
        }
        const auto dup = nameLines.find(spec.name);
        if (dup != nameLines.end())
        {
            throw SpecError(nameWhere,
                            "name: duplicate collective name '" + spec.name
                                + "' (also used by the collective at line "
                                + std::to_string(dup->second) + "); names must be unique");
        }
        nameLines[spec.name] = spec.where.line;
        ParseCollective(c, spec, topology);
        tr.collectives.push_back(spec);
        ++index;
    }
    return tr;
}

/**
 * \brief Resolve a scenario's topology or traffic value: a path or an inline mapping.
 * \param f the field
 * \param scenarioFile the scenario's path
 * \param what "topology" or "traffic"
 * \param keys the keys of that file kind
 * \param[out] file the file the mapping came from
 * \param[out] defaultName the name to use if the mapping has none (file stem), "" if inline
 * \return the mapping node
 */
YAML::Node
ResolveSection(const Field& f,
               const std::string& scenarioFile,
               const std::string& what,
               const std::vector<std::string>& keys,
               std::string& file,
               std::string& defaultName)
{
    if (f.value.IsMap())
    {
        file = scenarioFile;
        defaultName.clear();
        return f.value;
    }
    if (!f.value.IsScalar())
    {
        f.Fail("expected a path to a " + what + " file or an inline mapping, got "
               + Describe(f.value));
    }
    const std::string rel = f.value.Scalar();
    if (rel.empty())
    {
        f.Fail("the path is empty");
    }
    const fs::path joined = fs::path(scenarioFile).parent_path() / rel;
    file = joined.lexically_normal().string();
    defaultName = Stem(file);
    const SpecLocation at = f.ValueWhere();
    return LoadYamlFile(file, what, &at, keys);
}

// --------------------------------------------------------------------- run options

/**
 * \brief One key of the scenario's `dcqcn:` or `transport:` mapping: the ns-3 attribute it
 * sets and how its value becomes that attribute's value string. The tables of these are the
 * one list of such keys: the reader, the unknown-key message, the misplaced-key hints and
 * docs/keys.md all take the keys from them.
 * \param key the YAML key
 * \param attribute the ns-3 attribute (of ns3::Dcqcn or ns3::RdmaTransport)
 * \param value how the value is written, for docs
 * \param range the allowed values, for docs
 * \param doc what it means, for docs
 * \param read reads and checks the value, returns its ns-3 text
 * \return the key
 */
SpecKey<AttributeList>
AttributeKey(const std::string& key,
             const std::string& attribute,
             const std::string& value,
             const std::string& range,
             const std::string& doc,
             std::string (*read)(const Field& f))
{
    return CustomKey<AttributeList>(key,
                                    value,
                                    range,
                                    "`" + attribute + "`: " + doc,
                                    [attribute, read](const Field& f, AttributeList& list) {
                                        list.emplace_back(attribute, read(f));
                                    });
}

} // namespace

const spec::SpecTable<AttributeList>&
spec::DcqcnKeys()
{
    constexpr uint64_t u32 = std::numeric_limits<uint32_t>::max();
    static const SpecTable<AttributeList> keys = {
        AttributeKey("alpha_gain",
                     "AlphaGain",
                     "number",
                     "> 0 and <= 1, plain decimal",
                     "g, the weight of a CNP in alpha",
                     [](const Field& f) {
                         const double g = ReadFraction(f);
                         if (g == 0)
                         {
                             f.Fail("must be greater than 0 (with g = 0 a CNP would never raise "
                                    "alpha), got "
                                    + f.value.Scalar());
                         }
                         return DoubleText(g);
                     }),
        AttributeKey("initial_alpha",
                     "InitialAlpha",
                     "number",
                     "0 to 1, plain decimal",
                     "alpha of a queue pair at its first CNP",
                     [](const Field& f) { return DoubleText(ReadFraction(f)); }),
        AttributeKey("alpha_update_period",
                     "AlphaUpdatePeriod",
                     "duration",
                     "> 0",
                     "alpha decays by (1 - g) every period without a CNP",
                     [](const Field& f) { return PicoSecondsText(ReadTime(f, true)); }),
        AttributeKey("rate_increase_period",
                     "RateIncreasePeriod",
                     "duration",
                     "> 0",
                     "T, the rate-increase timer",
                     [](const Field& f) { return PicoSecondsText(ReadTime(f, true)); }),
        AttributeKey("byte_counter",
                     "ByteCounter",
                     "size",
                     "> 0",
                     "B, bytes sent per byte-counter increase event",
                     [](const Field& f) { return std::to_string(ReadBytes(f, true)); }),
        AttributeKey("fast_recovery_steps",
                     "FastRecoverySteps",
                     "integer",
                     "0 to " + std::to_string(u32),
                     "F, increase events per counter spent in fast recovery",
                     [](const Field& f) { return std::to_string(ReadInteger(f, 0, u32)); }),
        AttributeKey("rate_ai",
                     "RateAi",
                     "data rate",
                     ">= 0 (0 = line rate / 20)",
                     "R_AI, the additive-increase step",
                     [](const Field& f) { return BitRateText(ReadRate(f, false)); }),
        AttributeKey("rate_hai",
                     "RateHai",
                     "data rate",
                     ">= 0 (0 = line rate / 10)",
                     "R_HAI, the hyper-increase step",
                     [](const Field& f) { return BitRateText(ReadRate(f, false)); }),
        AttributeKey("min_rate",
                     "MinRate",
                     "data rate",
                     "> 0",
                     "the lowest rate a cut can reach",
                     [](const Field& f) { return BitRateText(ReadRate(f, true)); }),
        AttributeKey("cnp_interval",
                     "CnpInterval",
                     "duration",
                     ">= 0",
                     "notification point: least time between two CNPs to one queue pair",
                     [](const Field& f) { return PicoSecondsText(ReadTime(f, false)); }),
    };
    return keys;
}

/// \return the go-back-N keys of `transport:` (attributes of ns3::GoBackNRecovery)
const spec::SpecTable<AttributeList>&
spec::TransportKeys()
{
    constexpr uint64_t u32 = std::numeric_limits<uint32_t>::max();
    static const SpecTable<AttributeList> keys = {
        AttributeKey("ack_interval",
                     "AckInterval",
                     "integer (packets)",
                     "1 to " + std::to_string(u32),
                     "go-back-N: the receiver acknowledges every this many in-order packets",
                     [](const Field& f) { return std::to_string(ReadInteger(f, 1, u32)); }),
        AttributeKey("send_window",
                     "SendWindow",
                     "integer (packets)",
                     "0 to " + std::to_string(u32),
                     "go-back-N: most unacknowledged packets per queue pair; 0 = no cap",
                     [](const Field& f) { return std::to_string(ReadInteger(f, 0, u32)); }),
        AttributeKey("retransmit_timeout",
                     "RetransmitTimeout",
                     "duration",
                     "> 0",
                     "go-back-N: time without acknowledgement progress after which a queue pair "
                     "goes back",
                     [](const Field& f) { return PicoSecondsText(ReadTime(f, true)); }),
        AttributeKey("initial_psn",
                     "InitialPsn",
                     "integer",
                     "0 to " + std::to_string(u32),
                     "go-back-N: PSN of every queue pair's first packet; PSNs wrap after "
                     "2^32 - 1 as a NIC's 24-bit PSNs do (results do not depend on it)",
                     [](const Field& f) { return std::to_string(ReadInteger(f, 0, u32)); }),
        AttributeKey("reorder_window",
                     "ReorderWindow",
                     "integer (packets) or `auto`",
                     "0 to 65536",
                     "go-back-N: packets a receiver holds ahead of the expected PSN until the "
                     "gap fills (out-of-order placement); one further ahead is a loss; 0 = "
                     "every packet ahead is a loss; `auto` (default): 256 where the routing "
                     "reorders a queue pair's packets (forwarding spray or adaptive, routing "
                     "valiant or ugal), else 0",
                     [](const Field& f) {
                         if (f.value.IsScalar() && f.value.Scalar() == "auto")
                         {
                             return std::string("auto");
                         }
                         return std::to_string(ReadInteger(f, 0, 65536));
                     }),
        AttributeKey("reorder_timeout",
                     "ReorderTimeout",
                     "duration",
                     "> 0",
                     "go-back-N with a reorder window: a gap before held packets still open this "
                     "long is a loss, NACKed (default 32us, a configurable assumption: a lost "
                     "packet near a message's end has no later packet to reveal it)",
                     [](const Field& f) { return PicoSecondsText(ReadTime(f, true)); }),
    };
    return keys;
}

const spec::SpecTable<AttributeList>&
spec::AdaptiveRoutingKeys()
{
    constexpr uint64_t u32 = std::numeric_limits<uint32_t>::max();
    static const SpecTable<AttributeList> keys = {
        AttributeKey("granularity",
                     "Granularity",
                     "`packet` or `flowlet`",
                     "",
                     "choose a port for every packet, or at the first packet of a flowlet "
                     "(default `packet`, as InfiniBand adaptive routing and Spectrum-X do)",
                     [](const Field& f) {
                         const std::string v = f.value.IsScalar() ? f.value.Scalar() : "";
                         if (v != "packet" && v != "flowlet")
                         {
                             f.Fail("must be 'packet' or 'flowlet', got "
                                    + (f.value.IsScalar() ? "'" + v + "'" : Describe(f.value)));
                         }
                         return v;
                     }),
        AttributeKey("flowlet_gap",
                     "FlowletGap",
                     "duration",
                     "> 0",
                     "a pause longer than this between two packets of a flow starts a new "
                     "flowlet (default 4us, a configurable assumption); needs granularity flowlet",
                     [](const Field& f) { return PicoSecondsText(ReadTime(f, true)); }),
        AttributeKey("flowlet_table_size",
                     "FlowletTableSize",
                     "integer",
                     "1 to 16777216",
                     "entries of each switch's flowlet table, indexed by the flow's hash "
                     "(default 4096); needs granularity flowlet",
                     [](const Field& f) { return std::to_string(ReadInteger(f, 1, 16777216)); }),
        AttributeKey("downstream_weight",
                     "DownstreamWeight",
                     "number",
                     "0 to 1000, plain decimal",
                     "weight of the next switch's congestion towards the destination (its queue "
                     "beyond downstream_threshold) in a port's cost (default 1); 0 = the local "
                     "egress queue alone",
                     [](const Field& f) { return DoubleText(ReadPlainDecimal(f, 1000, "0.5")); }),
        AttributeKey("downstream_threshold",
                     "DownstreamThreshold",
                     "size",
                     ">= 0",
                     "the next switch's queue towards the destination counts as congestion only "
                     "beyond this (default 256KiB: ib-ndr's credit window per lane, an "
                     "assumption); not with downstream_weight 0",
                     [](const Field& f) { return std::to_string(ReadBytes(f, false)); }),
        AttributeKey("band",
                     "Band",
                     "size",
                     ">= 0",
                     "unit of the exponential quality bands a port's cost is graded into; the "
                     "packet takes a random port of the best band (default 4KiB, one MTU "
                     "packet); 0B = the least cost; not with a bias",
                     [](const Field& f) { return std::to_string(ReadBytes(f, false)); }),
        AttributeKey("bias",
                     "Bias",
                     "size",
                     ">= 0",
                     "another port must cost this many bytes less than the current one (the "
                     "flowlet's, or the ECMP hash's) to be taken; 0 (default) = no current port",
                     [](const Field& f) { return std::to_string(ReadBytes(f, false)); }),
        AttributeKey("random_ties",
                     "RandomTies",
                     "`true` or `false`",
                     "",
                     "ties go to a random port (drawn from the switch's stream) instead of a "
                     "rotating first (default false); needs band 0B and no bias",
                     [](const Field& f) { return std::string(ReadBool(f) ? "true" : "false"); }),
    };
    (void)u32;
    return keys;
}

const spec::SpecTable<AttributeList>&
spec::UgalRoutingKeys()
{
    static const SpecTable<AttributeList> keys = {
        AttributeKey("ugal_downstream_weight",
                     "DownstreamWeight",
                     "number",
                     "0 to 1000, plain decimal",
                     "weight of the next switch's queue in each path's queue estimate; 0 = "
                     "UGAL-L, the local queues alone (default 1)",
                     [](const Field& f) { return DoubleText(ReadPlainDecimal(f, 1000, "0.5")); }),
        AttributeKey("ugal_threshold",
                     "Threshold",
                     "size",
                     ">= 0",
                     "the minimal path's weighted queue must exceed the detour's by this many "
                     "bytes before a packet detours (default 0)",
                     [](const Field& f) { return std::to_string(ReadBytes(f, false)); }),
    };
    return keys;
}

namespace
{

/**
 * \brief Read a `dcqcn:` or `transport:` mapping's attribute keys, in table order.
 * \param m the mapping
 * \param table its keys
 * \return the (attribute, value) pairs of the keys given
 */
AttributeList
ReadAttributes(const Mapping& m, const SpecTable<AttributeList>& table)
{
    AttributeList attributes;
    for (const auto& k : table)
    {
        if (const Field* f = m.Find(k.key))
        {
            k.read(*f, attributes);
        }
    }
    return attributes;
}

/**
 * \brief Read the scenario's `adaptive_routing:` mapping (after the topology: its UGAL keys
 * need `routing: ugal`).
 * \param f the field
 * \param path the scenario file
 * \param s the scenario (forwarding and topology read)
 */
void
ReadAdaptiveRouting(const Field& f, const std::string& path, ScenarioSpec& s)
{
    if (!f.value.IsMap())
    {
        f.Fail("expected a mapping of adaptive-routing parameters (e.g. 'granularity: flowlet' "
               "on the next line, indented), got "
               + Describe(f.value));
    }
    std::vector<std::string> names = KeyNames(AdaptiveRoutingKeys());
    for (const auto& k : UgalRoutingKeys())
    {
        names.push_back(k.key);
    }
    const Mapping a(f.value, path, "adaptive_routing", names, {});
    const bool ugal = s.topology.Is<DragonflyPlusSpec>()
                      && s.topology.As<DragonflyPlusSpec>().routing == PathChoice::UGAL;
    for (const auto& k : AdaptiveRoutingKeys())
    {
        if (const Field* kf = a.Find(k.key); kf && s.forwarding != ForwardingMode::ADAPTIVE)
        {
            throw SpecError(kf->KeyWhere(),
                            "'" + k.key
                                + "' sets a parameter of adaptive routing, but forwarding is '"
                                + ForwardingNames()[static_cast<std::size_t>(s.forwarding)]
                                + "'; set forwarding: adaptive, or remove it");
        }
    }
    for (const auto& k : UgalRoutingKeys())
    {
        if (const Field* kf = a.Find(k.key); kf && !ugal)
        {
            const std::string why
                = s.topology.Is<DragonflyPlusSpec>()
                      ? "the Dragonfly+ topology's routing is '"
                            + PathChoiceNames()[static_cast<std::size_t>(
                                s.topology.As<DragonflyPlusSpec>().routing)]
                            + "'; set routing: ugal"
                      : "the topology '" + s.topology.name
                            + "' does not use it; give a dragonfly-plus topology routing: ugal";
            throw SpecError(kf->KeyWhere(),
                            "'" + k.key + "' sets a parameter of UGAL, but " + why
                                + ", or remove it");
        }
    }
    // A key whose mechanism the other keys switch off is an error at the key, as one whose
    // strategy does not run: it would change nothing.
    const Field* granularity = a.Find("granularity");
    const bool flowlets = granularity && granularity->value.Scalar() == "flowlet";
    for (const char* key : {"flowlet_gap", "flowlet_table_size"})
    {
        if (const Field* kf = a.Find(key); kf && !flowlets)
        {
            throw SpecError(kf->KeyWhere(),
                            std::string("'") + key
                                + "' sets a parameter of flowlets, but granularity is 'packet'"
                                + (granularity ? "" : " (the default)")
                                + "; set granularity: flowlet, or remove it");
        }
    }
    const Field* bias = a.Find("bias");
    const bool biased = bias && ReadBytes(*bias, false) > 0;
    const Field* band = a.Find("band");
    if (band && biased)
    {
        throw SpecError(band->KeyWhere(),
                        "'band' grades the ports into quality bands, but with a bias ("
                            + bias->value.Scalar()
                            + ") a port is taken only if it costs less than the current one by "
                              "the bias, and bands are not used; remove one of them");
    }
    if (const Field* ties = a.Find("random_ties"))
    {
        const bool strict = band && ReadBytes(*band, false) == 0;
        if (biased || !strict)
        {
            throw SpecError(
                ties->KeyWhere(),
                std::string("'random_ties' breaks ties of the strict least cost, "
                            "but ")
                    + (biased
                           ? "with a bias the current port keeps ties"
                           : "with quality bands (band "
                                 + (band ? band->value.Scalar() : std::string("4KiB, the default"))
                                 + ") a random port of the best band is "
                                   "taken already")
                    + "; set band: 0B" + (biased ? " and no bias" : "") + ", or remove it");
        }
    }
    if (const Field* threshold = a.Find("downstream_threshold"))
    {
        const Field* weight = a.Find("downstream_weight");
        if (weight && ReadPlainDecimal(*weight, 1000, "0.5") == 0)
        {
            throw SpecError(threshold->KeyWhere(),
                            "'downstream_threshold' sets when the next switch's queue counts, but "
                            "downstream_weight is 0 (the local queue alone); give a weight, or "
                            "remove it");
        }
    }
    s.adaptiveRoutingAttributes = ReadAttributes(a, AdaptiveRoutingKeys());
    s.ugalRoutingAttributes = ReadAttributes(a, UgalRoutingKeys());
}

/**
 * \brief Resolve `transport: reorder_window` (absent or `auto`): 256 packets where go-back-N
 * runs and the routing reorders a queue pair's packets, else 0 (the attribute's default).
 * \param s the scenario (forwarding, transport and topology read)
 * \param facts what the topology's links resolve `auto` settings to
 */
void
ResolveReorderWindow(ScenarioSpec& s, const TopologyFacts& facts)
{
    const bool goBackN = s.reliability == ReliabilitySetting::GO_BACK_N
                         || (s.reliability == ReliabilitySetting::AUTO
                             && facts.autoReliability == ReliabilitySetting::GO_BACK_N);
    const PathChoice choice = s.topology.Is<DragonflyPlusSpec>()
                                  ? s.topology.As<DragonflyPlusSpec>().routing
                                  : PathChoice::MINIMAL;
    const bool reorders = s.forwarding == ForwardingMode::SPRAY
                          || s.forwarding == ForwardingMode::ADAPTIVE
                          || choice != PathChoice::MINIMAL;
    // 256 packets (1 MiB at a 4 KiB MTU): a configurable assumption, not a NIC's measured
    // figure (docs/transport.md).
    const std::string window = reorders ? "256" : "0";
    auto it = std::find_if(s.transportAttributes.begin(),
                           s.transportAttributes.end(),
                           [](const auto& a) { return a.first == "ReorderWindow"; });
    if (it != s.transportAttributes.end())
    {
        if (it->second == "auto")
        {
            it->second = window;
        }
    }
    else if (goBackN && reorders)
    {
        s.transportAttributes.emplace_back("ReorderWindow", window);
    }
}

/// \return hints for keys of `dcqcn:` and `transport:` written in the wrong place
std::map<std::string, std::string>
RunOptionHints()
{
    std::map<std::string, std::string> h;
    for (const auto& k : DcqcnKeys())
    {
        h[k.key] = "'" + k.key + "' belongs under 'dcqcn:'";
    }
    for (const auto& key : KeyNames(TransportKeys(), {"reliability"}))
    {
        h[key] = "'" + key + "' belongs under 'transport:'";
    }
    h["no_progress"] = "'no_progress' belongs under 'watchdog:'";
    h["stall_timeout"] = "did you mean 'watchdog: {no_progress: ...}'?";
    return h;
}

/**
 * \brief The scenario's `attribution:` and `capture:` mappings (what a run reports;
 * capture port names are checked against the fabric when it is built).
 * \param m the scenario mapping
 * \param path the scenario file
 * \param s the scenario to fill
 */
void
ReadRunOutputs(const Mapping& m, const std::string& path, ScenarioSpec& s)
{
    if (const Field* f = m.Find("attribution"))
    {
        if (!f->value.IsMap())
        {
            f->Fail("expected a mapping (e.g. 'enabled: true' on the next line, indented), got "
                    + Describe(f->value));
        }
        const Mapping a(f->value, path, "attribution", {"enabled", "flows"});
        if (const Field* e = a.Find("enabled"))
        {
            const std::string v = ReadChoice(*e, "attribution setting", {"auto", "true", "false"});
            s.attribution = v == "true"    ? AttributionSetting::ON
                            : v == "false" ? AttributionSetting::OFF
                                           : AttributionSetting::AUTO;
        }
        if (const Field* k = a.Find("flows"))
        {
            s.attributionFlows = static_cast<uint32_t>(ReadInteger(*k, 1, 1000));
        }
    }
    if (const Field* f = m.Find("capture"))
    {
        if (!f->value.IsMap())
        {
            f->Fail("expected a mapping (e.g. 'ports: [switch0->gpu0]' on the next line, "
                    "indented), got "
                    + Describe(f->value));
        }
        const Mapping c(f->value, path, "capture", {"ports", "max_packets", "snap_bytes"});
        const Field& ports = c.Require("ports");
        if (!ports.value.IsSequence() || ports.value.size() == 0)
        {
            ports.Fail("expected a non-empty list of ports written NODE->PEER, such as "
                       "[switch0->gpu0, gpu1->switch0], got "
                       + Describe(ports.value));
        }
        for (const auto& item : ports.value)
        {
            const Field one{"ports", ports.keyNode, item, path};
            s.capturePorts.push_back(ScalarOf(one, "a port written NODE->PEER"));
            s.capturePortsWhere.push_back(one.ValueWhere());
        }
        if (const Field* n = c.Find("max_packets"))
        {
            s.captureMaxPackets = ReadInteger(*n, 1, 10000000);
        }
        if (const Field* n = c.Find("snap_bytes"))
        {
            // At least the Ethernet, IPv4, UDP and BTH headers (14 + 20 + 8 + 12 bytes).
            s.captureSnapBytes = static_cast<uint32_t>(ReadInteger(*n, 54, 65535));
        }
    }
}

} // namespace

TopologySpec
ReadTopologyFile(const std::string& path)
{
    const YAML::Node root = LoadYamlFile(path, "topology", nullptr, TopologyKeyNames());
    return ParseTopology(root, path, Stem(path));
}

TopologySpec
ReadTopologyOrScenarioFile(const std::string& path)
{
    const YAML::Node root = LoadYamlFile(path, "topology", nullptr, TopologyKeyNames());
    if (root.IsMap())
    {
        for (auto it = root.begin(); it != root.end(); ++it)
        {
            if (it->first.IsScalar() && it->first.Scalar() == "topology")
            {
                return ReadScenarioFile(path).topology;
            }
        }
    }
    return ParseTopology(root, path, Stem(path));
}

TrafficSpec
ReadTrafficFile(const std::string& path)
{
    const YAML::Node root = LoadYamlFile(path, "traffic", nullptr, TRAFFIC_KEYS);
    return ParseTraffic(root, path, Stem(path));
}

ScenarioSpec
ReadScenarioFile(const std::string& path)
{
    static const std::map<std::string, std::string> hints = [] {
        std::map<std::string, std::string> h = RunOptionHints();
        h.insert({
            {"collectives", "'collectives' belongs in the traffic"},
            {"rng_seed", "did you mean 'seed'?"},
            {"duration", "did you mean 'stop_time'?"},
            {"sim_time", "did you mean 'stop_time'?"},
            {"topo", "did you mean 'topology'?"},
            {"workload", "did you mean 'traffic'?"},
            {"cc", "did you mean 'congestion_control'?"},
        });
        for (const auto& key : TopologyKeyNames())
        {
            if (!Contains(SCENARIO_KEYS, key))
            {
                h[key] = "'" + key + "' belongs in the topology";
            }
        }
        return h;
    }();
    static const std::map<std::string, std::string> dcqcnHints = {
        {"g", "did you mean 'alpha_gain'?"},
        {"kmin", "ECN thresholds are link keys: write 'ecn_kmin' under the topology's 'link:'"},
        {"kmax", "ECN thresholds are link keys: write 'ecn_kmax' under the topology's 'link:'"},
        {"ecn_kmin", "'ecn_kmin' belongs under the topology's 'link:'"},
        {"ecn_kmax", "'ecn_kmax' belongs under the topology's 'link:'"},
        {"ecn_pmax", "'ecn_pmax' belongs under the topology's 'link:'"},
        {"enabled", "switch DCQCN on or off with 'congestion_control' in the scenario"},
    };
    static const std::map<std::string, std::string> transportHints = [] {
        std::map<std::string, std::string> h;
        for (const auto& k : DcqcnKeys())
        {
            h[k.key] = "'" + k.key + "' belongs under 'dcqcn:'";
        }
        h["rto"] = "did you mean 'retransmit_timeout'?";
        h["window"] = "did you mean 'send_window'?";
        h["congestion_control"] = "'congestion_control' belongs in the scenario file";
        return h;
    }();
    const YAML::Node root = LoadYamlFile(path, "scenario", nullptr, SCENARIO_KEYS);
    const Mapping m(root, path, "scenario", SCENARIO_KEYS, hints);
    ScenarioSpec s;
    s.where = m.Where();
    if (const Field* f = m.Find("name"))
    {
        s.name = ReadName(*f);
    }
    else
    {
        s.name = CheckedDefaultName(Stem(path), s.where);
    }
    s.seed = 1;
    if (const Field* f = m.Find("seed"))
    {
        // ns-3's RngSeedManager::SetSeed takes a uint32_t.
        s.seed = ReadInteger(*f, 1, std::numeric_limits<uint32_t>::max());
    }
    s.seedsWhere = s.where;
    if (const Field* f = m.Find("seeds"))
    {
        s.seedsWhere = f->KeyWhere();
        if (const Field* single = m.Find("seed"))
        {
            f->Fail("'seeds' and 'seed' (line " + std::to_string(single->KeyWhere().line)
                    + ") exclude each other: list every seed under 'seeds' (or run one seed "
                      "with 'seed')");
        }
        s.seeds = ReadSeedList(*f);
        s.seed = s.seeds.front();
    }
    s.stopTime = PicoSeconds(DEFAULT_STOP_TIME_PS);
    if (const Field* f = m.Find("stop_time"))
    {
        s.stopTime = ReadTime(*f, true);
    }
    s.watchdogWhere = s.where;
    if (const Field* f = m.Find("watchdog"))
    {
        if (!f->value.IsMap())
        {
            f->Fail("expected a mapping (e.g. 'no_progress: 50ms' on the next line, indented), "
                    "got "
                    + Describe(f->value));
        }
        const Mapping w(f->value,
                        path,
                        "watchdog",
                        {"no_progress"},
                        {{"timeout", "did you mean 'no_progress'?"},
                         {"interval", "did you mean 'no_progress'?"}});
        s.watchdogWhere = f->KeyWhere();
        if (const Field* np = w.Find("no_progress"))
        {
            s.watchdogNoProgress = ReadTime(*np, true);
        }
    }
    s.fidelityWhere = s.where;
    if (const Field* f = m.Find("fidelity"))
    {
        if (!f->value.IsMap())
        {
            f->Fail("expected a mapping (e.g. 'cell_packets: 4' on the next line, indented), got "
                    + Describe(f->value));
        }
        const Mapping fm(f->value,
                         path,
                         "fidelity",
                         {"cell_packets"},
                         {{"cell", "did you mean 'cell_packets'?"},
                          {"coalesce", "did you mean 'cell_packets'?"}});
        s.fidelityWhere = f->KeyWhere();
        if (const Field* c = fm.Find("cell_packets"))
        {
            s.cellPackets = static_cast<uint32_t>(ReadInteger(*c, 1, MAX_CELL_PACKETS));
            s.fidelityWhere = c->KeyWhere();
        }
    }
    s.forwarding = ForwardingMode::ECMP;
    if (const Field* f = m.Find("forwarding"))
    {
        s.forwarding = ReadSetting<ForwardingMode>(*f, "forwarding", ForwardingNames());
    }
    if (const Field* f = m.Find("ecmp_hash"))
    {
        if (s.forwarding != ForwardingMode::ECMP)
        {
            throw SpecError(
                f->KeyWhere(),
                "'ecmp_hash' sets the fields ECMP hashes, but forwarding is "
                    + SpecName(s.forwarding)
                    + (s.forwarding == ForwardingMode::ADAPTIVE
                           ? ", whose flowlets and bias key a flow by source, destination and "
                             "queue pair (the 5-tuple) whatever this key says"
                           : ", which hashes nothing")
                    + "; remove it, or set forwarding to ecmp");
        }
        s.ecmpHash = ReadEcmpHash(*f);
    }
    // NCCL_IB_QPS_PER_CONNECTION (at most NCCL_IB_MAX_QPS, 128: NCCL
    // src/transport/net_ib/common.h) and NCCL_IB_SPLIT_DATA_ON_QPS.
    if (const Field* f = m.Find("qps_per_connection"))
    {
        s.qpsPerConnection = static_cast<uint32_t>(
            ReadInteger(*f, 1, WorkloadApplication::MAX_QPS_PER_CONNECTION));
    }
    if (const Field* f = m.Find("split_data_on_qps"))
    {
        s.splitDataOnQps = ReadBool(*f);
        if (s.splitDataOnQps && s.qpsPerConnection == 1)
        {
            throw SpecError(f->KeyWhere(),
                            "'split_data_on_qps' splits every message over a connection's queue "
                            "pairs, but qps_per_connection is 1; remove it, or set "
                            "qps_per_connection above 1");
        }
    }
    if (const Field* f = m.Find("scheduler"))
    {
        s.scheduler = ReadChoice(*f, "scheduler", SchedulerNames());
    }

    // Congestion control and transport. Keys that would be ignored are errors: here when
    // the choice is explicit, after the topology when it is `auto`.
    s.congestionControl = CongestionControlSetting::AUTO;
    if (const Field* f = m.Find("congestion_control"))
    {
        s.congestionControl = ReadSetting<CongestionControlSetting>(*f,
                                                                    "congestion control",
                                                                    CongestionControlNames());
    }
    const Field* dcqcn = m.Find("dcqcn");
    if (dcqcn)
    {
        if (s.congestionControl == CongestionControlSetting::NONE)
        {
            throw SpecError(dcqcn->KeyWhere(),
                            "'dcqcn' sets DCQCN parameters, but congestion_control is none; "
                            "remove it, or set congestion_control to dcqcn");
        }
        if (!dcqcn->value.IsMap())
        {
            dcqcn->Fail("expected a mapping of DCQCN parameters (e.g. 'min_rate: 1Gbps' on the "
                        "next line, indented), got "
                        + Describe(dcqcn->value));
        }
        const Mapping d(dcqcn->value, path, "dcqcn", KeyNames(DcqcnKeys()), dcqcnHints);
        s.dcqcnAttributes = ReadAttributes(d, DcqcnKeys());
    }
    s.reliability = ReliabilitySetting::AUTO;
    std::string goBackNKey; // the first go-back-N key given ("" if none), and where
    SpecLocation goBackNWhere;
    if (const Field* f = m.Find("transport"))
    {
        if (!f->value.IsMap())
        {
            f->Fail("expected a mapping (e.g. 'reliability: go-back-n' on the next line, "
                    "indented), got "
                    + Describe(f->value));
        }
        const Mapping t(f->value,
                        path,
                        "transport",
                        KeyNames(TransportKeys(), {"reliability"}),
                        transportHints);
        if (const Field* r = t.Find("reliability"))
        {
            s.reliability = ReadSetting<ReliabilitySetting>(*r, "reliability", ReliabilityNames());
        }
        for (const Field& k : t.Fields())
        {
            if (k.key != "reliability")
            {
                goBackNKey = k.key;
                goBackNWhere = k.KeyWhere();
                break;
            }
        }
        if (!goBackNKey.empty() && s.reliability == ReliabilitySetting::NONE)
        {
            throw SpecError(goBackNWhere,
                            "'" + goBackNKey
                                + "' applies only to go-back-n reliability, but reliability is "
                                  "none (a lossless fabric needs no ACKs or retransmissions)");
        }
        s.transportAttributes = ReadAttributes(t, TransportKeys());
    }

    if (const Field* f = m.Find("results"))
    {
        if (!f->value.IsMap())
        {
            f->Fail("expected a mapping (e.g. 'sample_interval: 10us' on the next line, "
                    "indented), got "
                    + Describe(f->value));
        }
        const Mapping r(f->value, path, "results", RESULTS_KEYS, {});
        if (const Field* si = r.Find("sample_interval"))
        {
            // "auto" (the default) or a positive duration
            const std::string text = ScalarOf(*si, "'auto' or a duration such as '10us'");
            s.sampleInterval = Time(0);
            if (text != "auto")
            {
                try
                {
                    s.sampleInterval = ParseTime(text);
                }
                catch (const UnitError& e)
                {
                    si->Fail(e.Message() + ", or 'auto'");
                }
                if (!s.sampleInterval.IsStrictlyPositive())
                {
                    si->Fail("must be 'auto' or greater than 0, got '" + text + "'");
                }
            }
        }
        if (const Field* fl = r.Find("flows"))
        {
            // Training flows in flows.csv: kinds of group, or all of them.
            s.resultFlowsWhere = fl->KeyWhere();
            const auto one = [&s](const Field& item, const YAML::Node& node) {
                const std::string v = node.IsScalar() ? node.Scalar() : std::string();
                bool known = v == "all";
                for (uint32_t k = 1; k < TrainingGroupInfo::KINDS && !known; ++k)
                {
                    known = v == TrainingGroupInfo::KindName(k);
                }
                if (!known)
                {
                    std::string names = "'all'";
                    for (uint32_t k = 1; k < TrainingGroupInfo::KINDS; ++k)
                    {
                        names += std::string(", '") + TrainingGroupInfo::KindName(k) + "'";
                    }
                    item.Fail("a kind of training group (" + names + "), got "
                              + (node.IsScalar() ? "'" + v + "'" : Describe(node)));
                }
                if (std::find(s.resultFlowKinds.begin(), s.resultFlowKinds.end(), v)
                    != s.resultFlowKinds.end())
                {
                    item.Fail("'" + v + "' is listed twice");
                }
                if (!s.resultFlowKinds.empty() && (v == "all" || s.resultFlowKinds[0] == "all"))
                {
                    item.Fail("'all' chooses every kind; list kinds or write 'all', not both");
                }
                s.resultFlowKinds.push_back(v);
                s.resultFlowKindsWhere.push_back(item.ValueWhere());
            };
            if (fl->value.IsSequence())
            {
                if (fl->value.size() == 0)
                {
                    fl->Fail("an empty list selects no flow; leave 'flows' out instead");
                }
                for (const YAML::Node& item : fl->value)
                {
                    one(Field{fl->key, fl->keyNode, item, fl->file}, item);
                }
            }
            else
            {
                one(*fl, fl->value);
            }
        }
        if (const Field* fs = r.Find("flow_sample"))
        {
            s.resultFlowSample = ReadNumber(*fs, "0.01");
            s.resultFlowSampleGiven = true;
            if (!(s.resultFlowSample > 0 && s.resultFlowSample <= 1))
            {
                fs->Fail("must be a share of the flows, greater than 0 and at most 1, got "
                         + fs->value.Scalar());
            }
            if (s.resultFlowKinds.empty())
            {
                s.resultFlowsWhere = fs->KeyWhere();
            }
        }
    }
    ReadRunOutputs(m, path, s);

    std::string file;
    std::string defaultName;
    const Field& topo = m.Require("topology");
    const Field& traffic = m.Require("traffic");

    YAML::Node node = ResolveSection(topo, path, "topology", TopologyKeyNames(), file, defaultName);
    TopologyFacts facts;
    s.topology = ParseTopology(node,
                               file,
                               defaultName.empty() ? s.name + "-topology" : defaultName,
                               &facts);
    if (dcqcn && s.congestionControl == CongestionControlSetting::AUTO
        && facts.autoCongestionControl != CongestionControlSetting::DCQCN)
    {
        throw SpecError(dcqcn->KeyWhere(),
                        "'dcqcn' sets DCQCN parameters, but congestion_control is auto and no "
                        "link of the topology '"
                            + s.topology.name
                            + "' marks ECN (ecn_kmin 0), so DCQCN is off; set "
                              "congestion_control: dcqcn, or give the links ECN thresholds");
    }
    if (const Field* ar = m.Find("adaptive_routing"))
    {
        ReadAdaptiveRouting(*ar, path, s);
    }
    ResolveReorderWindow(s, facts);
    if (!goBackNKey.empty() && s.reliability == ReliabilitySetting::AUTO
        && facts.autoReliability != ReliabilitySetting::GO_BACK_N)
    {
        throw SpecError(goBackNWhere,
                        "'" + goBackNKey
                            + "' applies only to go-back-n reliability, but reliability is auto "
                              "and every link of the topology '"
                            + s.topology.name
                            + "' is lossless (flow_control credit or pfc), so it is none; set "
                              "reliability: go-back-n to use it");
    }

    // The traffic, checked against the topology (ranks, rank positions, the algorithm).
    node = ResolveSection(traffic, path, "traffic", TRAFFIC_KEYS, file, defaultName);
    s.traffic = ParseTraffic(node,
                             file,
                             defaultName.empty() ? s.name + "-traffic" : defaultName,
                             &s.topology,
                             &facts);
    if ((!s.resultFlowKinds.empty() || s.resultFlowSampleGiven) && !s.traffic.hasTraining)
    {
        throw SpecError(s.resultFlowsWhere,
                        "'flows' and 'flow_sample' choose training flows for flows.csv, but the "
                        "traffic has no training job (a collective's flows are always written)");
    }
    return s;
}

} // namespace ns3
