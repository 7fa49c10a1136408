/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_TOPOLOGY_ANALYZER_H
#define AI_FABRIC_TOPOLOGY_ANALYZER_H

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class FabricGraph;
struct TopologySpec;

/**
 * \ingroup ai-fabric
 * \brief Knobs of AnalyzeTopology(). The defaults keep a 4096-GPU fabric to a few seconds.
 */
struct TopologyAnalyzerOptions
{
    uint32_t maxPathSources{256}; //!< GPUs used as sources for diameter and path counts; above,
                                  //!< a seeded sample of this many
    uint32_t randomSplits{6};     //!< random balanced splits per grouping level (worst-cut search)
    uint64_t seed{1};             //!< seed of the std::mt19937_64 behind every sample and split
    double tolerance{1e-6};       //!< relative difference above which two bandwidths disagree
};

/**
 * \ingroup ai-fabric
 * \brief What AnalyzeTopology() finds: counts, oversubscription, distances and
 * bisection bandwidth (plain data; WriteTopologyJson() and PrintTopologyReport() in the tool
 * library render it).
 *
 * Bandwidths are in bits per second, ONE DIRECTION: the rate side A can send to
 * side B at once (Al-Fares' "N/2 x B" convention). The bidirectional figure is
 * twice that.
 */
struct TopologyReport
{
    /// Switches of one tier.
    struct SwitchTier
    {
        uint32_t tier{0};  //!< tier (0 = NVSwitches inside servers)
        std::string name;  //!< tier name ("leaf", "spine", "core", "nvswitch", ...)
        uint32_t count{0}; //!< switches
    };

    /// Links of one class: the same ends, technology and rate.
    struct LinkClass
    {
        std::string ends;       //!< "gpu-switch1", "switch1-switch2", "gpu-switch0" (NVLink), ...
        std::string technology; //!< the profile's technology ("infiniband", "nvlink", ...)
        std::string profile;    //!< the profile's name
        double rateBps{0};      //!< per direction, bits per second
        uint64_t count{0};      //!< links
    };

    /// Oversubscription of one switch tier: down capacity / up capacity per switch.
    struct TierOversubscription
    {
        uint32_t tier{0};     //!< tier
        std::string name;     //!< tier name
        uint32_t switches{0}; //!< switches with uplinks (the ratio's population)
        double downBps{0};    //!< down capacity of the first such switch, bits per second
        double upBps{0};      //!< up capacity of the first such switch, bits per second
        double minRatio{0};   //!< smallest down/up over the tier's switches
        double maxRatio{0};   //!< largest down/up over the tier's switches
    };

    /// Shortest GPU-to-GPU paths.
    struct Paths
    {
        uint32_t sources{0};          //!< source GPUs examined
        bool sampled{false};          //!< sources are a seeded sample, not every GPU
        uint64_t pairs{0};            //!< ordered (source, destination) pairs examined
        uint32_t diameterHops{0};     //!< longest shortest path, links (relay paths included)
        uint64_t relayPairs{0};       //!< pairs reachable only through a relaying GPU (PXN)
        uint64_t unreachablePairs{0}; //!< pairs not reachable at all
        double minPaths{0};           //!< fewest equal-cost shortest paths of a pair
        double meanPaths{0};          //!< mean over pairs with a direct (no-relay) path
        double maxPaths{0};           //!< most equal-cost shortest paths of a pair
    };

    /// Bisection bandwidth: closed form, max-flow on the same split, worst split found.
    struct Bisection
    {
        bool hasFormula{false};        //!< the kind has a closed form
        double formulaBps{0};          //!< closed-form value, one direction
        std::string formula;           //!< the formula, in words
        std::string source;            //!< where it comes from
        std::string split;             //!< the split the formula assumes ("first 2 of 4 pods ...")
        uint32_t sideA{0};             //!< GPUs on side A of that split
        uint32_t sideB{0};             //!< GPUs on side B
        double maxFlowBps{0};          //!< max-flow from side A to side B on that split
        std::string cut;               //!< where its minimum cut lies (SplitMinCut()), in words
        uint32_t cutArcs{0};           //!< elements of that cut (link directions, mostly)
        double fullBps{0};             //!< full bisection: the most any balanced split can
                                       //!< carry, min(the floor(N/2) fastest GPU injections,
                                       //!< half of all), = floor(N/2) x B_gpu for equal GPUs
        double worstBps{0};            //!< smallest max-flow over the balanced splits tried
        std::string worstSplit;        //!< the split that gave it
        uint32_t splitsTried{0};       //!< balanced splits evaluated by max-flow
        std::string method;            //!< how the splits are chosen
        bool formulaAgrees{true};      //!< |formula - maxFlow| <= tolerance x max(|.|)
        bool worstBelowFormula{false}; //!< a balanced split found below the formula
        double missionF15Bps{0};       //!< Dragonfly+ only: MISSION.md F15, groups x global links
                                       //!< per group x link rate (all global ports, both ends)
    };

    std::string name;                    //!< topology name
    std::string kind;                    //!< topology kind
    uint32_t gpus{0};                    //!< GPUs
    uint32_t nics{0};                    //!< NIC nodes
    uint32_t switches{0};                //!< switches (all tiers, NVSwitches included)
    uint64_t links{0};                   //!< links
    uint32_t servers{0};                 //!< distinct servers (0 if the topology has none)
    std::vector<SwitchTier> switchTiers; //!< switches per tier, by tier
    std::vector<LinkClass> linkClasses;  //!< links per class, sorted
    std::vector<TierOversubscription> oversubscription; //!< per switch tier with uplinks
    Paths paths;                                        //!< distances and path diversity
    Bisection bisection;                                //!< bisection bandwidth
    double analysisSeconds{0}; //!< wall-clock time of the analysis (not in the JSON)
};

/**
 * \ingroup ai-fabric
 * \brief Analyze a fabric.
 *
 * Counts come from the graph. Oversubscription per switch: capacity of its links to
 * GPUs, NICs and lower tiers over capacity of its links to the same or higher tiers
 * (a Dragonfly+ spine's global links count as up). Diameter and path counts: BFS
 * from each source GPU through switches and NICs (GPUs do not forward), counting
 * equal-cost shortest paths link by link (parallel links are distinct paths); a
 * pair with no such path is measured through relaying GPUs (rail-only PXN).
 *
 * Bisection: the family's closed form (docs/topologies.md) for the split it assumes, which
 * is balanced for any count (side A = the first floor(N/2) GPUs in the family's unit order;
 * an odd count of units splits the middle unit), and the max-flow (Boost push-relabel) from
 * a super-source feeding side A's GPUs to a super-sink fed by side B's, every link a pair of
 * directed edges at its rate, each GPU's source/sink edge at its scale-out injection rate
 * (GpuInjectionBps()), GPUs allowed to relay. The worst-cut search evaluates balanced
 * splits (side A = floor(N/2) GPUs) of units at every grouping level the graph records
 * (GPU, server, rail, edge switch, group): the formula's split, first half vs second half
 * of the units, alternate units, and `randomSplits` seeded random orders of the units,
 * each filled to exact balance with GPUs of the next unit in index order. No balanced
 * split can carry more than the full bisection, so worst <= max-flow <= full.
 * \param graph the fabric
 * \param spec the topology it was generated from (kind and sizing for the formulas)
 * \param options knobs
 * \return the report
 */
TopologyReport AnalyzeTopology(const FabricGraph& graph,
                               const TopologySpec& spec,
                               const TopologyAnalyzerOptions& options);

/**
 * \ingroup ai-fabric
 * \brief AnalyzeTopology() with the default options.
 * \param graph the fabric
 * \param spec the topology
 * \return the report
 */
TopologyReport AnalyzeTopology(const FabricGraph& graph, const TopologySpec& spec);

/**
 * \ingroup ai-fabric
 * \brief Max-flow from side A's GPUs to side B's (see AnalyzeTopology()): each GPU sends
 * and receives at most its scale-out injection rate (GpuInjectionBps()).
 * \param graph the fabric
 * \param sideA per GPU index: true for side A, false for side B
 * \return bits per second, one direction
 */
double SplitMaxFlowBps(const FabricGraph& graph, const std::vector<bool>& sideA);

/**
 * \ingroup ai-fabric
 * \brief One element of a minimum cut between two sides of a split, in the direction side A
 * to side B: one direction of a link, or (rarely) a GPU's own injection or ejection.
 *
 * A GPU's injection (ejection) is in the cut when the GPU's scale-out rate, not any link,
 * bounds what it sends (receives) across the split: a GPU of a server that the split cuts in
 * two, whose NVLink reaches GPUs of the other side. It stands for all the GPU's ports
 * (out of it for an injection, into it for an ejection).
 */
struct CutArc
{
    /// What the element is.
    enum class Kind : uint8_t
    {
        LINK,      //!< one direction of a link: from `from` to the link's other end
        INJECTION, //!< what side-A GPU `gpu` sends itself (all its ports out)
        EJECTION,  //!< what side-B GPU `gpu` receives itself (all its ports in)
    };

    Kind kind{Kind::LINK};     //!< what it is
    uint32_t link{UINT32_MAX}; //!< LINK: the graph link
    uint32_t from{UINT32_MAX}; //!< LINK: the node at its side-A end (it transmits towards B)
    uint32_t gpu{UINT32_MAX};  //!< INJECTION, EJECTION: the GPU index
    double bps{0};             //!< capacity in the direction side A to side B, bits per second
};

/**
 * \ingroup ai-fabric
 * \brief A minimum cut between the two sides of a split, and its capacity.
 */
struct SplitCut
{
    double maxFlowBps{0};     //!< the max-flow, bits per second, one direction (= the cut's sum)
    bool deepest{true};       //!< the cut is the one furthest from the GPUs (see SplitMinCut());
                              //!< false if the capacities were too fine to rank the cuts
    std::vector<CutArc> arcs; //!< the cut, links in link order, then GPUs in index order
};

/**
 * \ingroup ai-fabric
 * \brief The minimum cut of the max-flow from side A's GPUs to side B's (the flow network
 * of SplitMaxFlowBps()): of all minimum cuts, the one whose capacity lies highest in the
 * fabric (the least capacity x depth, a link's depth being how far its lower end sits below
 * the top tier: GPU, NIC, switch tiers; a GPU's own injection deepest of all), and of those
 * the one closest to side A (the source side of the residual graph).
 *
 * So a 3:1 leaf-spine's cut is side A's leaf uplinks, a 1:1 leaf-spine's too (not the GPUs'
 * links, which carry as much), a fat-tree's the side-A pods' links to the core, a Dragonfly+'s
 * the global links between the sides, one switch's the side-A GPUs' links. The ranking runs
 * a second max-flow in units of the greatest common divisor of the rates (exact), or, if the
 * weighted capacities would overflow 64 bits, of kb/s, Mb/s or Gb/s (rounded, kept only if the
 * cut's exact capacity is the max-flow); failing all, the plain source-side minimum cut is
 * returned (deepest = false).
 * \param graph the fabric
 * \param sideA per GPU index: true for side A
 * \return the cut
 */
SplitCut SplitMinCut(const FabricGraph& graph, const std::vector<bool>& sideA);

/**
 * \ingroup ai-fabric
 * \param graph the fabric
 * \param cut a cut of it
 * \return where the cut lies, by the classes of its links' ends in the direction side A to
 *         side B: "32 switch1->switch2 links", "8 gpu->switch1 links + 2 GPU injections"
 */
std::string DescribeSplitCut(const FabricGraph& graph, const SplitCut& cut);

/**
 * \ingroup ai-fabric
 * \brief A GPU's scale-out injection rate: its NIC link's rate (with a host link, the slower
 * of the host link and the NIC's fabric link); a GPU without a NIC link (an NVLink domain
 * alone, a custom topology) injects at the sum of its links. The rate its source and sink
 * arcs have in the bisection flow network, and the unit of the full bisection.
 * \param graph the fabric
 * \return per GPU index, bits per second
 */
std::vector<double> GpuInjectionBps(const FabricGraph& graph);

/**
 * \ingroup ai-fabric
 * \brief The split the family's closed-form bisection assumes (the cut
 * AnalyzeTopology() reports as `split`).
 */
struct BisectionSplit
{
    bool hasFormula{false};  //!< the kind has a closed form (else the split is first half of GPUs)
    double formulaBps{0};    //!< the closed form, bits per second, one direction
    std::string split;       //!< the split in words ("first 2 of 4 leaves")
    std::vector<bool> sideA; //!< per GPU index: true for side A
};

/**
 * \ingroup ai-fabric
 * \param graph the fabric
 * \param spec the topology it was generated from
 * \return the closed form's split (see AnalyzeTopology())
 */
BisectionSplit FormulaBisectionSplit(const FabricGraph& graph, const TopologySpec& spec);

} // namespace ns3

#endif /* AI_FABRIC_TOPOLOGY_ANALYZER_H */
