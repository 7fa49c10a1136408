/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-topology.h"

#include "ns3/spec-error.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <vector>

namespace ns3
{

namespace
{

/// Largest number of GPUs, switches or links a generator creates (a sanity bound).
constexpr uint64_t MAX_ELEMENTS = 1ULL << 26;

/// \param v a number \return its decimal text
std::string
Str(uint64_t v)
{
    return std::to_string(v);
}

/**
 * \brief Reject a topology whose element counts are beyond MAX_ELEMENTS.
 * \param spec the topology
 * \param gpus GPUs
 * \param switches switches
 * \param links links
 */
void
CheckSize(const TopologySpec& spec, uint64_t gpus, uint64_t switches, uint64_t links)
{
    if (gpus > MAX_ELEMENTS || switches > MAX_ELEMENTS || links > MAX_ELEMENTS)
    {
        throw SpecError(spec.where,
                        "the " + spec.Kind() + " topology is too large: " + Str(gpus) + " GPUs, "
                            + Str(switches) + " switches, " + Str(links) + " links (at most "
                            + Str(MAX_ELEMENTS) + " of each)");
    }
}

/// \param v a value known to fit \return it as uint32_t
uint32_t
U32(uint64_t v)
{
    return static_cast<uint32_t>(v);
}

/// Switch ports of one tier.
struct Ports
{
    uint32_t down{0}; //!< ports towards the GPUs
    uint32_t up{0};   //!< ports towards the next tier
};

/**
 * \param radix a radix
 * \return the ratios r:1 a radix realises exactly ((r + 1) divides it), as text
 */
std::string
RatiosForRadix(uint32_t radix)
{
    std::string out;
    uint32_t listed = 0;
    for (uint32_t d = 2; d <= radix && listed < 8; ++d)
    {
        if (radix % d == 0)
        {
            out += (out.empty() ? "" : ", ") + Str(d - 1) + ":1";
            ++listed;
        }
    }
    return out;
}

/**
 * \brief Resolve the down and up port counts of a switch tier (FACTS.md 1.2).
 *
 * With a ratio D:U: from the radix k (down = k D/(D+U), up = k U/(D+U), exact), else
 * from the given down (or up) count. Without: the given counts; with one count, the other
 * equals it (1:1; a radix only bounds the ports); with the radix alone, k/2 each. Down + up
 * must fit the radix.
 * \param spec the topology (for errors)
 * \param tier the tier's name in messages ("leaf", "spine", "rail switch")
 * \param radix switch ports, if given
 * \param ratio the tier's ratio, if given
 * \param down the down count, if given
 * \param up the up count, if given
 * \param downKey the down count's key in messages
 * \param upKey the up count's key in messages
 * \param ratioKey the ratio's key in messages
 * \return the ports
 */
Ports
ResolvePorts(const TopologySpec& spec,
             const std::string& tier,
             const std::optional<uint32_t>& radix,
             const std::optional<OversubscriptionRatio>& ratio,
             const std::optional<uint64_t>& down,
             const std::optional<uint64_t>& up,
             const std::string& downKey,
             const std::string& upKey,
             const std::string& ratioKey)
{
    Ports p;
    uint64_t d = 0;
    uint64_t u = 0;
    bool oneToOne = false; // one count given, the other set equal to it
    if (ratio)
    {
        if (ratio->numerator == 0 || ratio->denominator == 0)
        {
            throw SpecError(spec.where,
                            ratioKey + " " + FormatRatio(ratio)
                                + " is not a ratio of two positive integers (e.g. \"3:1\")");
        }
        const uint32_t g = std::gcd(ratio->numerator, ratio->denominator);
        const uint64_t num = ratio->numerator / g;
        const uint64_t den = ratio->denominator / g;
        const std::string text = Str(num) + ":" + Str(den);
        if (radix)
        {
            const uint64_t k = *radix;
            const uint64_t sum = num + den;
            if (k % sum != 0)
            {
                const uint64_t lo = k - k % sum;
                std::string radixes = (lo > 0 ? Str(lo) + " or " : "") + Str(lo + sum);
                throw SpecError(
                    spec.where,
                    tier + " oversubscription " + text + " needs a radix divisible by " + Str(sum)
                        + " (" + Str(num) + "/" + Str(sum) + " of the ports down, " + Str(den) + "/"
                        + Str(sum) + " up); radix " + Str(k) + " is not: use radix " + radixes
                        + ", or with radix " + Str(k) + " one of the ratios "
                        + RatiosForRadix(*radix) + " (any D:U with D+U dividing " + Str(k) + ")");
            }
            d = k / sum * num;
            u = k / sum * den;
            if (down && *down != d)
            {
                throw SpecError(spec.where,
                                downKey + " " + Str(*down) + " conflicts with radix " + Str(k)
                                    + " at " + tier + " oversubscription " + text + ", which gives "
                                    + Str(d) + " ports down");
            }
            if (up && *up != u)
            {
                throw SpecError(spec.where,
                                upKey + " " + Str(*up) + " conflicts with radix " + Str(k) + " at "
                                    + tier + " oversubscription " + text + ", which gives " + Str(u)
                                    + " ports up");
            }
        }
        else if (down)
        {
            if (*down * den % num != 0)
            {
                throw SpecError(spec.where,
                                tier + " oversubscription " + text + " with " + downKey + " "
                                    + Str(*down) + " gives " + Str(*down) + " x " + Str(den) + "/"
                                    + Str(num) + " uplinks, not a whole number");
            }
            d = *down;
            u = *down * den / num;
            if (up && *up != u)
            {
                throw SpecError(spec.where,
                                upKey + " " + Str(*up) + " conflicts with " + downKey + " "
                                    + Str(*down) + " at " + tier + " oversubscription " + text
                                    + ", which gives " + Str(u));
            }
        }
        else if (up)
        {
            if (*up * num % den != 0)
            {
                throw SpecError(spec.where,
                                tier + " oversubscription " + text + " with " + upKey + " "
                                    + Str(*up) + " gives " + Str(*up) + " x " + Str(num) + "/"
                                    + Str(den) + " down ports, not a whole number");
            }
            u = *up;
            d = *up * num / den;
        }
        else
        {
            throw SpecError(spec.where,
                            tier + " oversubscription " + text + " needs the radix or " + downKey);
        }
    }
    else if (down && up)
    {
        d = *down;
        u = *up;
    }
    else if (radix)
    {
        const uint64_t k = *radix;
        if (down || up)
        {
            // 1:1: the radix bounds the ports, it does not size the missing count
            d = down ? *down : *up;
            u = up ? *up : *down;
            oneToOne = true;
        }
        else
        {
            if (k % 2 != 0)
            {
                throw SpecError(spec.where,
                                "radix " + Str(k) + " is odd: a non-blocking " + tier
                                    + " splits its ports in half; give an even radix, " + ratioKey
                                    + " or the port counts (" + downKey + ", " + upKey + ")");
            }
            d = k / 2;
            u = k / 2;
        }
    }
    else if (down)
    {
        d = *down;
        u = *down; // non-blocking by default
        oneToOne = true;
    }
    else
    {
        throw SpecError(spec.where,
                        "the " + tier + " tier needs the radix (with " + ratioKey + ") or "
                            + downKey);
    }
    if (d == 0 || u == 0)
    {
        throw SpecError(spec.where,
                        "every " + tier + " needs at least 1 port down and 1 up (got " + Str(d)
                            + " down, " + Str(u) + " up)");
    }
    if (radix && d + u > *radix)
    {
        throw SpecError(spec.where,
                        "a " + tier + " uses " + Str(d) + " ports down + " + Str(u)
                            + " up = " + Str(d + u) + ", more than the radix " + Str(*radix)
                            + (oneToOne
                                   ? " (1:1: without " + ratioKey + ", " + (down ? upKey : downKey)
                                         + " equals " + (down ? downKey : upKey) + "); give "
                                         + ratioKey + " or " + (down ? upKey : downKey)
                                         + ", or a radix of at least " + Str(d + u)
                                   : std::string()));
    }
    if (d > MAX_ELEMENTS || u > MAX_ELEMENTS)
    {
        throw SpecError(spec.where, "the " + tier + " port counts are too large");
    }
    p.down = U32(d);
    p.up = U32(u);
    return p;
}

/**
 * \brief The fewest switches P (a divisor of \p uplinks) that take \p switches x
 * uplinks links when every lower switch spreads its uplinks evenly (uplinks / P to
 * each) and each has at most \p radix ports.
 * \param switches lower switches
 * \param uplinks uplinks of each
 * \param radix upper switch ports
 * \return P, or 0 if none fits
 */
uint32_t
FewestUpperSwitches(uint64_t switches, uint32_t uplinks, uint32_t radix)
{
    for (uint32_t p = 1; p <= uplinks; ++p)
    {
        if (uplinks % p == 0 && switches * (uplinks / p) <= radix)
        {
            return p;
        }
    }
    return 0;
}

/// Where an endpoint sits.
struct Place
{
    uint32_t server{FabricGraph::NONE}; //!< server
    uint32_t rail{FabricGraph::NONE};   //!< rail
    uint32_t group{FabricGraph::NONE};  //!< group
};

/**
 * \brief Add GPU \p index; with a host link, also its NIC node behind it.
 * \param g the graph
 * \param spec the topology (host link settings)
 * \param index GPU index
 * \param hostProfile profile index of the host link (if any)
 * \param place the placement of the GPU (and its NIC)
 * \return the node that carries the GPU's fabric link (the GPU or its NIC)
 */
uint32_t
AddEndpoint(FabricGraph& g,
            const TopologySpec& spec,
            uint32_t index,
            uint32_t hostProfile,
            const Place& place)
{
    const uint32_t gpu = g.AddGpu("gpu" + std::to_string(index));
    g.SetPlacement(gpu, place.server, place.rail, place.group);
    if (!spec.hostLink)
    {
        return gpu;
    }
    const uint32_t nic = g.AddNic("nic" + std::to_string(index));
    g.SetPlacement(nic, place.server, place.rail, place.group);
    g.AddLink(gpu, nic, hostProfile, FabricGraph::LinkKind::HOST);
    return nic;
}

/// \return the host link's profile index, or 0 (unused) without one
uint32_t
AddHostProfile(FabricGraph& g, const TopologySpec& spec)
{
    return spec.hostLink ? g.AddProfile(*spec.hostLink) : 0;
}

/**
 * \brief The placement of GPU \p index of a scale-out kind with optional servers.
 * \param spec the topology (gpusPerServer)
 * \param index GPU index
 * \param group the GPU's pod or group
 * \return the placement
 */
Place
ServerPlace(const TopologySpec& spec, uint32_t index, uint32_t group)
{
    Place p;
    p.group = group;
    if (spec.gpusPerServer)
    {
        p.server = index / *spec.gpusPerServer;
        p.rail = index % *spec.gpusPerServer;
    }
    return p;
}

/**
 * \brief Check the servers of a scale-out kind: the GPUs must fill them.
 * \param spec the topology
 * \param gpus GPUs of the fabric
 * \return the NVLink sizing if spec.hasNvlink (else gpusPerServer = 0)
 */
NvlinkSizing
CheckServers(const TopologySpec& spec, uint64_t gpus)
{
    NvlinkSizing nv;
    nv.gpusPerServer = 0;
    if (spec.hasNvlink)
    {
        nv = ResolveNvlink(spec, 0);
    }
    if (spec.gpusPerServer && gpus % *spec.gpusPerServer != 0)
    {
        throw SpecError(spec.where,
                        "the " + Str(gpus) + " GPUs of the " + spec.Kind()
                            + " topology do not fill servers of gpus_per_server "
                            + Str(*spec.gpusPerServer) + " (" + Str(gpus % *spec.gpusPerServer)
                            + " left over)");
    }
    return nv;
}

/**
 * \brief Add an NVLink domain to every server (servers = consecutive GPU indices).
 * \param g the graph, with all its GPUs
 * \param nv the domain sizing
 */
void
AddNvlinkDomains(FabricGraph& g, const NvlinkSizing& nv)
{
    const uint32_t profile = g.AddProfile(nv.perLink);
    g.SetTierName(0, "nvswitch");
    const uint32_t servers = g.GetGpuCount() / nv.gpusPerServer;
    for (uint32_t s = 0; s < servers; ++s)
    {
        const uint32_t group = g.GetNodes()[g.GetGpuNode(s * nv.gpusPerServer)].group;
        for (uint32_t p = 0; p < nv.switches; ++p)
        {
            const std::string name
                = "nvsw" + Str(s) + (nv.switches == 1 ? std::string() : "." + Str(p));
            const uint32_t sw = g.AddSwitch(name, 0);
            g.SetPlacement(sw, s, FabricGraph::NONE, group);
            for (uint32_t i = 0; i < nv.gpusPerServer; ++i)
            {
                g.AddLink(g.GetGpuNode(s * nv.gpusPerServer + i),
                          sw,
                          profile,
                          FabricGraph::LinkKind::NVLINK);
            }
        }
    }
}

/**
 * \brief Finish a scale-out graph: NVLink domains when asked.
 * \param g the graph
 * \param nv from CheckServers()
 */
void
FinishServers(FabricGraph& g, const NvlinkSizing& nv)
{
    if (nv.gpusPerServer != 0)
    {
        AddNvlinkDomains(g, nv);
    }
}

} // namespace

bool
ParseOversubscription(const std::string& text, OversubscriptionRatio& ratio)
{
    auto parse = [](const std::string& s, uint32_t& v) {
        std::size_t b = s.find_first_not_of(" \t");
        std::size_t e = s.find_last_not_of(" \t");
        if (b == std::string::npos)
        {
            return false;
        }
        uint64_t x = 0;
        for (std::size_t i = b; i <= e; ++i)
        {
            if (!std::isdigit(static_cast<unsigned char>(s[i])))
            {
                return false;
            }
            x = x * 10 + static_cast<uint64_t>(s[i] - '0');
            if (x > UINT32_MAX)
            {
                return false;
            }
        }
        v = static_cast<uint32_t>(x);
        return v != 0;
    };
    uint32_t num = 0;
    uint32_t den = 1;
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos)
    {
        if (!parse(text, num))
        {
            return false;
        }
    }
    else if (!parse(text.substr(0, colon), num) || !parse(text.substr(colon + 1), den))
    {
        return false;
    }
    const uint32_t g = std::gcd(num, den);
    ratio.numerator = num / g;
    ratio.denominator = den / g;
    return true;
}

std::string
FormatRatio(const std::optional<OversubscriptionRatio>& ratio)
{
    if (!ratio)
    {
        return "unset";
    }
    return Str(ratio->numerator) + ":" + Str(ratio->denominator);
}

uint64_t
RailSizing::Gpus() const
{
    return static_cast<uint64_t>(gpusPerServer) * serversPerSu * sus;
}

uint64_t
RailSizing::RailSwitches() const
{
    return static_cast<uint64_t>(gpusPerServer) * sus;
}

uint64_t
RailSizing::Cores() const
{
    return static_cast<uint64_t>(spinesPerSu) * coresPerGroup;
}

// ------------------------------------------------------------------ leaf-spine

LeafSpineSizing
ResolveLeafSpine(const TopologySpec& spec)
{
    const LeafSpineSpec& ls = spec.As<LeafSpineSpec>();
    if (ls.linksPerSpine < 1)
    {
        throw SpecError(spec.where, "a leaf-spine topology needs at least 1 link per spine");
    }
    const uint64_t lps = ls.linksPerSpine;
    if (ls.uplinks && ls.spines && *ls.uplinks != *ls.spines * lps)
    {
        throw SpecError(spec.where,
                        "uplinks " + Str(*ls.uplinks) + " per leaf conflicts with spines "
                            + Str(*ls.spines) + " x links_per_spine " + Str(lps) + " = "
                            + Str(*ls.spines * lps));
    }
    const std::optional<uint64_t> upGiven = ls.uplinks || !ls.spines
                                                ? std::optional<uint64_t>(ls.uplinks)
                                                : std::optional<uint64_t>(*ls.spines * lps);
    const Ports p = ResolvePorts(spec,
                                 "leaf",
                                 ls.radix,
                                 ls.oversubscription,
                                 ls.gpusPerLeaf,
                                 upGiven,
                                 "gpus_per_leaf",
                                 ls.uplinks ? "uplinks" : "spines x links_per_spine",
                                 "oversubscription");
    if (p.up % lps != 0)
    {
        throw SpecError(spec.where,
                        "the " + Str(p.up)
                            + " uplinks per leaf are not a multiple of links_per_spine "
                            + Str(lps));
    }
    LeafSpineSizing z;
    z.gpusPerLeaf = p.down;
    z.uplinks = p.up;
    z.linksPerSpine = ls.linksPerSpine;
    z.spines = U32(p.up / lps);
    if (ls.leaves)
    {
        z.leaves = *ls.leaves;
    }
    else if (ls.radix)
    {
        z.leaves = U32(*ls.radix / lps); // every spine port used
    }
    else
    {
        throw SpecError(spec.where,
                        "a leaf-spine topology needs 'leaves', or the radix (which sets leaves = "
                        "radix / links_per_spine)");
    }
    if (z.leaves < 1)
    {
        throw SpecError(spec.where, "a leaf-spine topology needs at least 1 leaf");
    }
    if (ls.radix && z.leaves * lps > *ls.radix)
    {
        throw SpecError(spec.where,
                        "every spine has leaves " + Str(z.leaves) + " x links_per_spine " + Str(lps)
                            + " = " + Str(z.leaves * lps) + " ports, more than the radix "
                            + Str(*ls.radix));
    }
    const uint64_t gpus = static_cast<uint64_t>(z.leaves) * z.gpusPerLeaf;
    if (gpus < 2)
    {
        throw SpecError(spec.where, "a leaf-spine topology needs at least 2 GPUs");
    }
    CheckSize(spec,
              gpus,
              static_cast<uint64_t>(z.leaves) + z.spines,
              gpus + static_cast<uint64_t>(z.leaves) * z.uplinks);
    return z;
}

FabricGraph
BuildSingleSwitchGraph(const TopologySpec& spec)
{
    if (spec.gpus < 2)
    {
        throw SpecError(spec.where, "a single-switch topology needs at least 2 GPUs");
    }
    CheckSize(spec, spec.gpus, 1, spec.gpus);
    const NvlinkSizing nv = CheckServers(spec, spec.gpus);
    FabricGraph g;
    const uint32_t profile = g.AddProfile(spec.link);
    const uint32_t host = AddHostProfile(g, spec);
    g.SetTierName(1, "switch");
    const uint32_t sw = g.AddSwitch("switch0", 1);
    for (uint32_t i = 0; i < spec.gpus; ++i)
    {
        g.AddLink(AddEndpoint(g, spec, i, host, ServerPlace(spec, i, FabricGraph::NONE)),
                  sw,
                  profile);
    }
    FinishServers(g, nv);
    return g;
}

FabricGraph
BuildLeafSpineGraph(const TopologySpec& spec)
{
    const LeafSpineSizing z = ResolveLeafSpine(spec);
    const NvlinkSizing nv = CheckServers(spec, static_cast<uint64_t>(z.leaves) * z.gpusPerLeaf);
    FabricGraph g;
    const uint32_t profile = g.AddProfile(spec.link);
    const uint32_t host = AddHostProfile(g, spec);
    g.SetTierName(1, "leaf");
    g.SetTierName(2, "spine");
    std::vector<uint32_t> spines;
    spines.reserve(z.spines);
    for (uint32_t s = 0; s < z.spines; ++s)
    {
        spines.push_back(g.AddSwitch("spine" + std::to_string(s), 2));
    }
    for (uint32_t l = 0; l < z.leaves; ++l)
    {
        const uint32_t leaf = g.AddSwitch("leaf" + std::to_string(l), 1);
        for (uint32_t i = 0; i < z.gpusPerLeaf; ++i)
        {
            const uint32_t index = l * z.gpusPerLeaf + i;
            g.AddLink(
                AddEndpoint(g, spec, index, host, ServerPlace(spec, index, FabricGraph::NONE)),
                leaf,
                profile);
        }
        for (const uint32_t spine : spines)
        {
            for (uint32_t k = 0; k < z.linksPerSpine; ++k)
            {
                g.AddLink(leaf, spine, profile);
            }
        }
    }
    FinishServers(g, nv);
    return g;
}

// -------------------------------------------------------------------- fat-tree

FatTreeSizing
ResolveFatTree(const TopologySpec& spec)
{
    const FatTreeSpec& ft = spec.As<FatTreeSpec>();
    const Ports leaf = ResolvePorts(spec,
                                    "leaf",
                                    ft.radix,
                                    ft.oversubscription,
                                    ft.gpusPerLeaf,
                                    ft.spinesPerPod,
                                    "gpus_per_leaf",
                                    "spines_per_pod",
                                    "oversubscription");
    const Ports spine = ResolvePorts(spec,
                                     "spine",
                                     ft.radix,
                                     ft.spineOversubscription,
                                     ft.leavesPerPod,
                                     ft.spineUplinks,
                                     "leaves_per_pod",
                                     "spine_uplinks",
                                     "spine_oversubscription");
    FatTreeSizing z;
    z.gpusPerLeaf = leaf.down;
    z.spinesPerPod = leaf.up;
    z.leavesPerPod = spine.down;
    z.spineUplinks = spine.up;
    if (ft.pods)
    {
        z.pods = *ft.pods;
    }
    else if (ft.radix)
    {
        z.pods = *ft.radix; // Al-Fares: every core port into a different pod
    }
    else
    {
        throw SpecError(spec.where, "a fat-tree needs 'pods', or the radix k (k pods)");
    }
    if (ft.radix && z.pods > *ft.radix)
    {
        throw SpecError(spec.where,
                        "pods " + Str(z.pods) + " exceed the radix " + Str(*ft.radix)
                            + ": every core switch has one link into each pod");
    }
    const uint64_t cores = static_cast<uint64_t>(z.spinesPerPod) * z.spineUplinks;
    if (ft.cores && *ft.cores != cores)
    {
        throw SpecError(spec.where,
                        "cores " + Str(*ft.cores) + " conflicts with spines_per_pod "
                            + Str(z.spinesPerPod) + " x spine_uplinks " + Str(z.spineUplinks)
                            + " = " + Str(cores) + " (every core has one link into each pod)");
    }
    const uint64_t leaves = static_cast<uint64_t>(z.pods) * z.leavesPerPod;
    const uint64_t gpus = leaves * z.gpusPerLeaf;
    const uint64_t spines = static_cast<uint64_t>(z.pods) * z.spinesPerPod;
    CheckSize(spec,
              gpus,
              leaves + spines + cores,
              gpus + leaves * z.spinesPerPod + spines * z.spineUplinks);
    if (gpus < 2)
    {
        throw SpecError(spec.where, "a fat-tree needs at least 2 GPUs");
    }
    z.cores = U32(cores);
    return z;
}

FabricGraph
BuildFatTreeGraph(const TopologySpec& spec)
{
    const FatTreeSizing z = ResolveFatTree(spec);
    const NvlinkSizing nv
        = CheckServers(spec, static_cast<uint64_t>(z.pods) * z.leavesPerPod * z.gpusPerLeaf);
    FabricGraph g;
    const uint32_t profile = g.AddProfile(spec.link);
    const uint32_t host = AddHostProfile(g, spec);
    g.SetTierName(1, "leaf");
    g.SetTierName(2, "spine");
    g.SetTierName(3, "core");
    std::vector<uint32_t> cores(z.cores);
    for (uint32_t c = 0; c < z.cores; ++c)
    {
        cores[c] = g.AddSwitch("core" + Str(c), 3);
    }
    uint32_t index = 0;
    std::vector<uint32_t> spines(z.spinesPerPod);
    for (uint32_t pod = 0; pod < z.pods; ++pod)
    {
        for (uint32_t s = 0; s < z.spinesPerPod; ++s)
        {
            spines[s] = g.AddSwitch("pod" + Str(pod) + "-spine" + Str(s), 2);
            g.SetPlacement(spines[s], FabricGraph::NONE, FabricGraph::NONE, pod);
            // Core group s: cores s * spineUplinks ... (s + 1) * spineUplinks - 1.
            for (uint32_t c = 0; c < z.spineUplinks; ++c)
            {
                g.AddLink(spines[s], cores[s * z.spineUplinks + c], profile);
            }
        }
        for (uint32_t l = 0; l < z.leavesPerPod; ++l)
        {
            const uint32_t leaf = g.AddSwitch("pod" + Str(pod) + "-leaf" + Str(l), 1);
            g.SetPlacement(leaf, FabricGraph::NONE, FabricGraph::NONE, pod);
            for (uint32_t i = 0; i < z.gpusPerLeaf; ++i, ++index)
            {
                g.AddLink(AddEndpoint(g, spec, index, host, ServerPlace(spec, index, pod)),
                          leaf,
                          profile);
            }
            for (const uint32_t spine : spines)
            {
                g.AddLink(leaf, spine, profile);
            }
        }
    }
    FinishServers(g, nv);
    return g;
}

// ---------------------------------------------------------------- rail kinds

RailSizing
ResolveRail(const TopologySpec& spec)
{
    // The SU-spine tier (three tiers) is rail-optimized's alone: rail-only has none given.
    static const RailOptimizedSpec noSuSpines;
    const RailOptimizedSpec* three = std::get_if<RailOptimizedSpec>(&spec.shape);
    const RailSpec& r = three ? static_cast<const RailSpec&>(*three) : spec.As<RailOnlySpec>();
    const RailOptimizedSpec& su = three ? *three : noSuSpines;
    RailSizing z;
    z.railOnly = !three;
    z.nvlink = z.railOnly || spec.hasNvlink;
    z.gpusPerServer = spec.gpusPerServer.value_or(8);
    z.sus = r.sus.value_or(1);
    if (r.spines && su.spinesPerSu)
    {
        throw SpecError(spec.where,
                        "spines (one spine tier shared by the SUs) and spines_per_su (SU spines "
                        "under a core tier) exclude each other");
    }
    if (su.cores && !su.spinesPerSu)
    {
        throw SpecError(spec.where, "cores needs spines_per_su (a core tier above SU spines)");
    }
    if (su.pxn.value_or(false) && !z.nvlink)
    {
        throw SpecError(spec.where,
                        "pxn: true needs nvlink (PXN relays over the servers' NVLink domains)");
    }
    z.pxn = z.railOnly || (z.nvlink && su.pxn.value_or(true));
    if ((su.spineUplinks || su.spineOversubscription) && !su.spinesPerSu)
    {
        throw SpecError(spec.where,
                        "spine_uplinks and spine_oversubscription need spines_per_su (a core tier "
                        "above SU spines)");
    }
    const bool spineTier = !(z.railOnly && z.sus == 1);
    if (!spineTier)
    {
        if (r.railUplinks || r.spines || r.oversubscription)
        {
            throw SpecError(spec.where,
                            "a rail-only fabric of one SU has no spine tier (each rail is one "
                            "switch): rail_uplinks, spines and oversubscription do not apply");
        }
        z.serversPerSu = r.serversPerSu.value_or(32);
        z.radix = r.radix.value_or(z.serversPerSu);
        if (z.serversPerSu > z.radix)
        {
            throw SpecError(spec.where,
                            "servers_per_su " + Str(z.serversPerSu)
                                + " exceeds the rail switch radix " + Str(z.radix));
        }
    }
    else
    {
        // Rail switch: one port down per server of the SU, railUplinks up, 1:1 unless
        // oversubscription (or rail_uplinks) says otherwise; the radix bounds them. Servers
        // per SU not given: sized by the radix (radix/2, or with the ratio), unless
        // rail_uplinks is given without a ratio; else 32 (a DGX SuperPOD SU, FACTS.md 1.3).
        const bool radixSizes = r.radix && (r.oversubscription || !r.railUplinks);
        const std::optional<uint64_t> down = r.serversPerSu || radixSizes
                                                 ? std::optional<uint64_t>(r.serversPerSu)
                                                 : std::optional<uint64_t>(32);
        const Ports p = ResolvePorts(spec,
                                     "rail switch",
                                     r.radix,
                                     r.oversubscription,
                                     down,
                                     r.railUplinks,
                                     "servers_per_su",
                                     "rail_uplinks",
                                     "oversubscription");
        z.serversPerSu = p.down;
        z.railUplinks = p.up;
        z.radix = r.radix.value_or(p.down + p.up);
        const uint64_t lower = z.railOnly ? z.sus : z.RailSwitches();
        if (!su.spinesPerSu)
        {
            const std::string what = z.railOnly ? "the " + Str(lower) + " rail switches of a rail"
                                                : "the " + Str(lower) + " rail switches";
            if (r.spines)
            {
                if (z.railUplinks % *r.spines != 0)
                {
                    throw SpecError(spec.where,
                                    "rail_uplinks " + Str(z.railUplinks)
                                        + " cannot be spread evenly over spines " + Str(*r.spines)
                                        + ": spines must divide the uplinks of every rail switch");
                }
                z.spines = *r.spines;
            }
            else
            {
                z.spines = FewestUpperSwitches(lower, z.railUplinks, z.radix);
                if (z.spines == 0)
                {
                    throw SpecError(
                        spec.where,
                        what + " (" + Str(z.railUplinks)
                            + " uplinks each) cannot be joined by "
                              "spines of radix "
                            + Str(z.radix) + ": even one link per spine needs " + Str(lower)
                            + " spine ports"
                            + (z.railOnly ? std::string("; use fewer SUs or a larger radix")
                                          : std::string("; use spines_per_su (a core tier) or a "
                                                        "larger radix")));
                }
            }
            z.linksPerSpine = z.railUplinks / z.spines;
            if (lower * z.linksPerSpine > z.radix)
            {
                throw SpecError(spec.where,
                                "every spine has " + Str(lower) + " rail switches x "
                                    + Str(z.linksPerSpine) + " links = "
                                    + Str(lower * z.linksPerSpine) + " ports, more than the radix "
                                    + Str(z.radix) + "; use more spines");
            }
        }
        else
        {
            z.spinesPerSu = *su.spinesPerSu;
            if (z.railUplinks % z.spinesPerSu != 0)
            {
                throw SpecError(spec.where,
                                "rail_uplinks " + Str(z.railUplinks)
                                    + " cannot be spread evenly over spines_per_su "
                                    + Str(z.spinesPerSu));
            }
            z.linksPerSpine = z.railUplinks / z.spinesPerSu;
            const uint64_t spineDown = static_cast<uint64_t>(z.gpusPerServer) * z.linksPerSpine;
            const Ports sp = ResolvePorts(spec,
                                          "SU spine",
                                          z.radix,
                                          su.spineOversubscription,
                                          spineDown,
                                          su.spineUplinks,
                                          "gpus_per_server x rail_uplinks / spines_per_su",
                                          "spine_uplinks",
                                          "spine_oversubscription");
            z.spineUplinks = sp.up;
            if (su.cores)
            {
                if (*su.cores % z.spinesPerSu != 0)
                {
                    throw SpecError(
                        spec.where,
                        "cores " + Str(*su.cores) + " must be a multiple of spines_per_su "
                            + Str(z.spinesPerSu) + " (one core group per SU spine index)");
                }
                z.coresPerGroup = *su.cores / z.spinesPerSu;
                if (z.spineUplinks % z.coresPerGroup != 0)
                {
                    throw SpecError(spec.where,
                                    "spine_uplinks " + Str(z.spineUplinks)
                                        + " cannot be spread evenly over the "
                                        + Str(z.coresPerGroup) + " cores of a core group");
                }
            }
            else
            {
                z.coresPerGroup = FewestUpperSwitches(z.sus, z.spineUplinks, z.radix);
                if (z.coresPerGroup == 0)
                {
                    throw SpecError(spec.where,
                                    "the " + Str(z.sus) + " SUs cannot be joined by cores of radix "
                                        + Str(z.radix) + ": use a larger radix");
                }
            }
            z.linksPerCore = z.spineUplinks / z.coresPerGroup;
            if (static_cast<uint64_t>(z.sus) * z.linksPerCore > z.radix)
            {
                throw SpecError(spec.where,
                                "every core has " + Str(z.sus) + " SUs x " + Str(z.linksPerCore)
                                    + " links = "
                                    + Str(static_cast<uint64_t>(z.sus) * z.linksPerCore)
                                    + " ports, more than the radix " + Str(z.radix));
            }
        }
    }
    const uint64_t gpus = z.Gpus();
    if (gpus < 2)
    {
        throw SpecError(spec.where,
                        "a " + spec.Kind()
                            + " fabric needs at least 2 GPUs (gpus_per_server x "
                              "servers_per_su x sus = "
                            + Str(gpus) + ")");
    }
    const uint64_t spineSwitches
        = z.railOnly
              ? static_cast<uint64_t>(z.gpusPerServer) * z.spines
              : (z.spinesPerSu != 0 ? static_cast<uint64_t>(z.sus) * z.spinesPerSu : z.spines);
    const uint64_t servers = static_cast<uint64_t>(z.serversPerSu) * z.sus;
    CheckSize(spec,
              gpus,
              z.RailSwitches() + spineSwitches + z.Cores() + servers,
              2 * gpus + z.RailSwitches() * z.railUplinks + spineSwitches * z.spineUplinks);
    if (z.nvlink)
    {
        TopologySpec s = spec;
        s.gpusPerServer = z.gpusPerServer;
        ResolveNvlink(s, z.gpusPerServer);
    }
    return z;
}

FabricGraph
BuildRailGraph(const TopologySpec& spec)
{
    const RailSizing z = ResolveRail(spec);
    FabricGraph g;
    const uint32_t profile = g.AddProfile(spec.link);
    const uint32_t host = AddHostProfile(g, spec);
    g.SetTierName(1, "rail");
    g.SetTierName(2, z.railOnly ? "rail-spine" : "spine");
    if (z.spinesPerSu != 0)
    {
        g.SetTierName(3, "core");
    }
    const uint32_t G = z.gpusPerServer;
    // Rail switches, SU-major: rail[su * G + r].
    std::vector<uint32_t> rail(z.RailSwitches());
    for (uint32_t su = 0; su < z.sus; ++su)
    {
        for (uint32_t r = 0; r < G; ++r)
        {
            rail[su * G + r] = g.AddSwitch("su" + Str(su) + "-rail" + Str(r), 1);
            g.SetPlacement(rail[su * G + r], FabricGraph::NONE, r, su);
        }
    }
    // GPUs, server-major: GPU (su * S + s) * G + r is NIC r of server su * S + s.
    for (uint32_t su = 0; su < z.sus; ++su)
    {
        for (uint32_t s = 0; s < z.serversPerSu; ++s)
        {
            const uint32_t server = su * z.serversPerSu + s;
            for (uint32_t r = 0; r < G; ++r)
            {
                const uint32_t index = server * G + r;
                g.AddLink(AddEndpoint(g, spec, index, host, Place{server, r, su}),
                          rail[su * G + r],
                          profile);
            }
        }
    }
    if (z.railOnly && z.spines != 0)
    {
        // A leaf-spine per rail: rail switch r of every SU to every spine of rail r.
        for (uint32_t r = 0; r < G; ++r)
        {
            for (uint32_t p = 0; p < z.spines; ++p)
            {
                const uint32_t sp = g.AddSwitch("rail" + Str(r) + "-spine" + Str(p), 2);
                g.SetPlacement(sp, FabricGraph::NONE, r, FabricGraph::NONE);
                for (uint32_t su = 0; su < z.sus; ++su)
                {
                    for (uint32_t k = 0; k < z.linksPerSpine; ++k)
                    {
                        g.AddLink(rail[su * G + r], sp, profile);
                    }
                }
            }
        }
    }
    else if (!z.railOnly && z.spinesPerSu == 0)
    {
        // One spine tier shared by every rail switch of every SU (DGX H100 RA).
        for (uint32_t p = 0; p < z.spines; ++p)
        {
            const uint32_t sp = g.AddSwitch("spine" + Str(p), 2);
            for (const uint32_t leaf : rail)
            {
                for (uint32_t k = 0; k < z.linksPerSpine; ++k)
                {
                    g.AddLink(leaf, sp, profile);
                }
            }
        }
    }
    else if (!z.railOnly)
    {
        // SU spines under core groups: spine q of every SU to every core of group q.
        std::vector<uint32_t> cores(z.Cores());
        for (uint32_t c = 0; c < cores.size(); ++c)
        {
            cores[c] = g.AddSwitch("core" + Str(c), 3);
        }
        for (uint32_t su = 0; su < z.sus; ++su)
        {
            for (uint32_t q = 0; q < z.spinesPerSu; ++q)
            {
                const uint32_t sp = g.AddSwitch("su" + Str(su) + "-spine" + Str(q), 2);
                g.SetPlacement(sp, FabricGraph::NONE, FabricGraph::NONE, su);
                for (uint32_t r = 0; r < G; ++r)
                {
                    for (uint32_t k = 0; k < z.linksPerSpine; ++k)
                    {
                        g.AddLink(rail[su * G + r], sp, profile);
                    }
                }
                for (uint32_t c = 0; c < z.coresPerGroup; ++c)
                {
                    for (uint32_t k = 0; k < z.linksPerCore; ++k)
                    {
                        g.AddLink(sp, cores[q * z.coresPerGroup + c], profile);
                    }
                }
            }
        }
    }
    if (z.nvlink)
    {
        TopologySpec s = spec;
        s.gpusPerServer = G;
        AddNvlinkDomains(g, ResolveNvlink(s, G));
    }
    // Rail-only: GPUs of different rails meet only inside a server, so cross-rail
    // traffic is relayed over NVLink by the GPU on the destination's rail (PXN);
    // rail-optimized with NVLink: the same where it is a shortest path (NCCL's PXN, on
    // unless `pxn: false`; elsewhere the spines carry it).
    g.SetGpuRelay(z.pxn);
    return g;
}

// -------------------------------------------------------------- dragonfly-plus

DragonflyPlusSizing
ResolveDragonflyPlus(const TopologySpec& spec)
{
    const DragonflyPlusSpec& dfp = spec.As<DragonflyPlusSpec>();
    DragonflyPlusSizing z;
    z.groups = dfp.groups;
    z.leavesPerGroup = dfp.leavesPerGroup;
    z.spinesPerGroup = dfp.spinesPerGroup;
    z.gpusPerLeaf = dfp.gpusPerLeaf;
    z.globalLinksPerSpine = dfp.globalLinksPerSpine;
    if (z.groups < 2 || z.leavesPerGroup < 1 || z.spinesPerGroup < 1 || z.gpusPerLeaf < 1
        || z.globalLinksPerSpine < 1)
    {
        throw SpecError(spec.where,
                        "a dragonfly-plus topology needs at least 2 groups and at least 1 of "
                        "leaves_per_group, spines_per_group, gpus_per_leaf and "
                        "global_links_per_spine (got groups "
                            + Str(z.groups) + ", leaves_per_group " + Str(z.leavesPerGroup)
                            + ", spines_per_group " + Str(z.spinesPerGroup) + ", gpus_per_leaf "
                            + Str(z.gpusPerLeaf) + ", global_links_per_spine "
                            + Str(z.globalLinksPerSpine) + ")");
    }
    const uint64_t global = static_cast<uint64_t>(z.spinesPerGroup) * z.globalLinksPerSpine;
    const uint64_t others = z.groups - 1;
    if (global % others != 0)
    {
        std::string fits;
        uint32_t listed = 0;
        for (uint64_t d = 1; d <= global && listed < 8; ++d)
        {
            if (global % d == 0)
            {
                fits += (fits.empty() ? "" : ", ") + Str(d + 1);
                ++listed;
            }
        }
        throw SpecError(
            spec.where,
            "each group has spines_per_group x global_links_per_spine = " + Str(z.spinesPerGroup)
                + " x " + Str(z.globalLinksPerSpine) + " = " + Str(global)
                + " global links, which cannot be spread evenly over the " + Str(others)
                + " other groups (" + Str(global) + " is not a multiple of " + Str(others)
                + (global < others ? ", and some pairs of groups would get "
                                     "no link"
                                   : "")
                + "); every pair of groups gets the same number of links, so with " + Str(global)
                + " global links per group use groups " + fits + (listed == 8 ? ", ..." : "")
                + " (1 + a divisor of " + Str(global) + ")");
    }
    z.linksPerGroupPair = U32(global / others);
    if (dfp.radix)
    {
        const uint64_t radix = *dfp.radix;
        if (static_cast<uint64_t>(z.gpusPerLeaf) + z.spinesPerGroup > radix)
        {
            throw SpecError(spec.where,
                            "a leaf uses gpus_per_leaf " + Str(z.gpusPerLeaf)
                                + " + spines_per_group " + Str(z.spinesPerGroup)
                                + " ports, more than the radix " + Str(radix));
        }
        if (static_cast<uint64_t>(z.leavesPerGroup) + z.globalLinksPerSpine > radix)
        {
            throw SpecError(spec.where,
                            "a spine uses leaves_per_group " + Str(z.leavesPerGroup)
                                + " + global_links_per_spine " + Str(z.globalLinksPerSpine)
                                + " ports, more than the radix " + Str(radix));
        }
    }
    const uint64_t leaves = static_cast<uint64_t>(z.groups) * z.leavesPerGroup;
    const uint64_t gpus = leaves * z.gpusPerLeaf;
    CheckSize(spec,
              gpus,
              leaves + static_cast<uint64_t>(z.groups) * z.spinesPerGroup,
              gpus + leaves * z.spinesPerGroup + z.groups * global / 2);
    return z;
}

FabricGraph
BuildDragonflyPlusGraph(const TopologySpec& spec)
{
    const DragonflyPlusSizing z = ResolveDragonflyPlus(spec);
    const NvlinkSizing nv
        = CheckServers(spec, static_cast<uint64_t>(z.groups) * z.leavesPerGroup * z.gpusPerLeaf);
    FabricGraph g;
    const uint32_t profile = g.AddProfile(spec.link);
    const uint32_t host = AddHostProfile(g, spec);
    g.SetTierName(1, "leaf");
    g.SetTierName(2, "spine");
    std::vector<uint32_t> spines(static_cast<std::size_t>(z.groups) * z.spinesPerGroup);
    uint32_t index = 0;
    for (uint32_t grp = 0; grp < z.groups; ++grp)
    {
        for (uint32_t s = 0; s < z.spinesPerGroup; ++s)
        {
            const uint32_t sp = g.AddSwitch("g" + Str(grp) + "-spine" + Str(s), 2);
            g.SetPlacement(sp, FabricGraph::NONE, FabricGraph::NONE, grp);
            spines[grp * z.spinesPerGroup + s] = sp;
        }
        for (uint32_t l = 0; l < z.leavesPerGroup; ++l)
        {
            const uint32_t leaf = g.AddSwitch("g" + Str(grp) + "-leaf" + Str(l), 1);
            g.SetPlacement(leaf, FabricGraph::NONE, FabricGraph::NONE, grp);
            for (uint32_t i = 0; i < z.gpusPerLeaf; ++i, ++index)
            {
                g.AddLink(AddEndpoint(g, spec, index, host, ServerPlace(spec, index, grp)),
                          leaf,
                          profile);
            }
            for (uint32_t s = 0; s < z.spinesPerGroup; ++s)
            {
                g.AddLink(leaf, spines[grp * z.spinesPerGroup + s], profile);
            }
        }
    }
    // Global links: port q of group i (spine q / h) goes to group (i + 1 + q mod (G-1)) mod G,
    // copy q / (G-1); group j's matching port has offset (i - j - 1) mod G.
    const uint32_t G = z.groups;
    const uint32_t h = z.globalLinksPerSpine;
    for (uint32_t i = 0; i < G; ++i)
    {
        for (uint32_t j = i + 1; j < G; ++j)
        {
            const uint32_t ti = j - i - 1;     // (j - i - 1) mod G, j > i
            const uint32_t tj = G + i - j - 1; // (i - j - 1) mod G, i < j
            for (uint32_t c = 0; c < z.linksPerGroupPair; ++c)
            {
                const uint32_t qi = c * (G - 1) + ti;
                const uint32_t qj = c * (G - 1) + tj;
                g.AddLink(spines[i * z.spinesPerGroup + qi / h],
                          spines[j * z.spinesPerGroup + qj / h],
                          profile);
            }
        }
    }
    // Dragonfly+ minimal routing: at most one global link, into the destination's group
    // (Shpiner et al. 2017); without this a spine lacking a link to that group would route
    // through a third group where that is shorter.
    g.SetGroupMinimal(true);
    FinishServers(g, nv);
    return g;
}

// -------------------------------------------------------------- NVLink domains

LinkProfile
NvlinkProfileOf(const TopologySpec& spec)
{
    if (spec.nvlinkProfile)
    {
        return *spec.nvlinkProfile;
    }
    if (const LinkProfile* p = FindLinkProfile("nvlink4"))
    {
        return *p;
    }
    // No NVLink preset in this build: take the fabric link's figures and give it
    // the H100 NVLink4 per-GPU bandwidth, 18 x 25 GB/s = 450 GB/s = 3600 Gb/s per
    // direction (FACTS.md 1.7). Latencies and framing stay those of the fabric
    // link, which overstates NVLink's; name it so reports show the stand-in.
    LinkProfile p = spec.link;
    p.name = "nvlink-standin";
    p.technology = "nvlink";
    p.rate = DataRate(3600000000000ULL);
    p.source = "stand-in: fabric link profile with the NVLink4 rate (FACTS.md 1.7)";
    return p;
}

NvlinkSizing
ResolveNvlink(const TopologySpec& spec, uint32_t defaultGpusPerServer)
{
    NvlinkSizing nv;
    nv.gpusPerServer = spec.gpusPerServer.value_or(defaultGpusPerServer);
    if (nv.gpusPerServer == 0)
    {
        throw SpecError(spec.where,
                        "an NVLink domain needs gpus_per_server (the GPUs of one server share it)");
    }
    if (nv.gpusPerServer < 2)
    {
        throw SpecError(spec.where,
                        "an NVLink domain needs at least 2 GPUs per server (gpus_per_server is "
                            + Str(nv.gpusPerServer) + ")");
    }
    if (spec.nvlinkSwitches < 1)
    {
        throw SpecError(spec.where, "an NVLink domain needs at least 1 NVSwitch (nvlink_switches)");
    }
    nv.switches = spec.nvlinkSwitches;
    nv.perGpu = NvlinkProfileOf(spec);
    nv.perLink = nv.perGpu;
    const uint64_t bps = nv.perGpu.rate.GetBitRate();
    if (bps / nv.switches == 0)
    {
        throw SpecError(spec.where,
                        "the NVLink rate " + Str(bps) + " bps split over nvlink_switches "
                            + Str(nv.switches) + " is zero per link");
    }
    nv.perLink.rate = DataRate(bps / nv.switches);
    return nv;
}

FabricGraph
BuildNvlinkDomainGraph(const TopologySpec& spec)
{
    if (spec.hostLink)
    {
        throw SpecError(
            spec.where,
            "an nvlink-domain topology has no scale-out NICs: host_link does not apply");
    }
    const NvlinkSizing nv = ResolveNvlink(spec, 0);
    CheckSize(spec,
              nv.gpusPerServer,
              nv.switches,
              static_cast<uint64_t>(nv.gpusPerServer) * nv.switches);
    FabricGraph g;
    for (uint32_t i = 0; i < nv.gpusPerServer; ++i)
    {
        g.SetPlacement(g.AddGpu("gpu" + Str(i)), 0, i, FabricGraph::NONE);
    }
    AddNvlinkDomains(g, nv);
    return g;
}

// --------------------------------------------------------------------- custom

FabricGraph
BuildCustomGraph(const TopologySpec& spec)
{
    if (spec.hasNvlink)
    {
        throw SpecError(spec.where,
                        "a custom topology lists its NVLink switches and links itself: nvlink "
                        "does not apply");
    }
    const CustomSpec& custom = spec.As<CustomSpec>();
    if (custom.nodes.empty())
    {
        throw SpecError(spec.where, "a custom topology needs nodes");
    }
    CheckSize(spec, custom.nodes.size(), custom.nodes.size(), custom.links.size());
    FabricGraph g;
    const uint32_t fabricProfile = g.AddProfile(spec.link);
    std::map<std::string, uint32_t> byName;
    for (const auto& n : custom.nodes)
    {
        if (n.name.empty())
        {
            throw SpecError(n.where, "a custom node needs a name");
        }
        const auto it = byName.find(n.name);
        if (it != byName.end())
        {
            const SpecLocation& first = custom.nodes[it->second].where;
            throw SpecError(n.where,
                            "duplicate node name '" + n.name + "' (first defined at "
                                + first.ToString() + ")");
        }
        uint32_t node = 0;
        if (n.kind == "gpu")
        {
            node = g.AddGpu(n.name);
        }
        else if (n.kind == "switch")
        {
            node = g.AddSwitch(n.name, n.tier);
        }
        else if (n.kind == "nic")
        {
            node = g.AddNic(n.name);
        }
        else
        {
            throw SpecError(n.where,
                            "node '" + n.name + "' has unknown kind '" + n.kind
                                + "' (known: gpu, switch, nic)");
        }
        byName.emplace(n.name, node);
    }
    if (g.GetGpuCount() < 2)
    {
        throw SpecError(spec.where,
                        "a custom topology needs at least 2 GPUs (it has " + Str(g.GetGpuCount())
                            + ")");
    }
    const auto& nodes = g.GetNodes();
    for (const auto& l : custom.links)
    {
        const auto a = byName.find(l.a);
        const auto b = byName.find(l.b);
        if (a == byName.end() || b == byName.end())
        {
            const std::string& unknown = a == byName.end() ? l.a : l.b;
            throw SpecError(l.where,
                            "link " + l.a + " - " + l.b + " names unknown node '" + unknown + "'");
        }
        if (a->second == b->second)
        {
            throw SpecError(l.where, "link " + l.a + " - " + l.b + " connects a node to itself");
        }
        uint32_t profile = fabricProfile;
        const LinkProfile& p = l.profile ? *l.profile : spec.link;
        if (p.rate.GetBitRate() == 0)
        {
            throw SpecError(l.where, "link " + l.a + " - " + l.b + " has no data rate");
        }
        if (l.profile)
        {
            profile = g.AddProfile(*l.profile);
        }
        const auto kindA = nodes[a->second].kind;
        const auto kindB = nodes[b->second].kind;
        const bool gpuEnd
            = kindA == FabricGraph::NodeKind::GPU || kindB == FabricGraph::NodeKind::GPU;
        const bool nicEnd
            = kindA == FabricGraph::NodeKind::NIC || kindB == FabricGraph::NodeKind::NIC;
        FabricGraph::LinkKind kind = FabricGraph::LinkKind::FABRIC;
        if (gpuEnd && p.technology == "nvlink")
        {
            kind = FabricGraph::LinkKind::NVLINK;
        }
        else if (gpuEnd && nicEnd && p.technology == "pcie")
        {
            kind = FabricGraph::LinkKind::HOST;
        }
        g.AddLink(a->second, b->second, profile, kind);
    }
    // Connected? (plain connectivity; which nodes may forward is the routing's business)
    std::vector<bool> seen(nodes.size(), false);
    std::deque<uint32_t> frontier{0};
    seen[0] = true;
    while (!frontier.empty())
    {
        const uint32_t n = frontier.front();
        frontier.pop_front();
        for (const auto& adj : g.GetAdjacency(n))
        {
            if (!seen[adj.peer])
            {
                seen[adj.peer] = true;
                frontier.push_back(adj.peer);
            }
        }
    }
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (!seen[n])
        {
            throw SpecError(custom.nodes[n].where,
                            "the custom topology is disconnected: node '" + nodes[n].name
                                + "' cannot be reached from '" + nodes[0].name + "'");
        }
    }
    return g;
}

} // namespace ns3
