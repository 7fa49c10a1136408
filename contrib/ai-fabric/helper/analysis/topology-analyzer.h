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
        double fullBps{0};             //!< full bisection: the smaller half's GPUs at line rate
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
 * Bisection: the family's closed form (docs/topologies.md) for the split it assumes,
 * and the max-flow (Boost push-relabel) from a super-source feeding side A's GPUs to
 * a super-sink fed by side B's, every link a pair of directed edges at its rate, each
 * GPU's source/sink edge at the sum of its link rates, GPUs allowed to relay. The
 * worst-cut search evaluates balanced splits (side A = floor(N/2) GPUs) of units at
 * every grouping level the graph records (GPU, server, rail, edge switch, group):
 * first half vs second half of the units, alternate units, and `randomSplits` seeded
 * random orders of the units, each filled to exact balance with GPUs of the next
 * unit in index order.
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
 * \brief Max-flow from side A's GPUs to side B's (see AnalyzeTopology()).
 * \param graph the fabric
 * \param sideA per GPU index: true for side A, false for side B
 * \return bits per second, one direction
 */
double SplitMaxFlowBps(const FabricGraph& graph, const std::vector<bool>& sideA);

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
