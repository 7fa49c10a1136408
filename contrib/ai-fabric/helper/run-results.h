/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RUN_RESULTS_H
#define AI_FABRIC_RUN_RESULTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One message (flow) of the run: posted at the sender, complete when its
 * last byte has arrived at the receiver.
 */
struct FlowRecord
{
    uint64_t id{0};         //!< flow id, in issue order
    std::string collective; //!< name of the collective it belongs to
    uint32_t step{0};       //!< algorithm step that issued it
    uint32_t src{0};        //!< source GPU index
    uint32_t dst{0};        //!< destination GPU index
    uint64_t bytes{0};      //!< payload bytes
    double startS{0};       //!< time the message was posted, seconds
    double endS{0};         //!< time its last byte arrived, seconds

    double FctS() const
    {
        return endS - startS;
    } //!< flow completion time, seconds
};

/**
 * \ingroup ai-fabric
 * \brief One collective's outcome beside its analytic estimate.
 */
struct CollectiveResult
{
    std::string name;               //!< collective name
    std::string op;                 //!< operation
    std::string algorithm;          //!< algorithm
    uint32_t ranks{0};              //!< number of ranks
    uint64_t bytes{0};              //!< buffer size S, bytes
    double startS{0};               //!< issue time, seconds
    double endS{0};                 //!< time the last rank finished, seconds
    double durationS{0};            //!< endS - startS, seconds
    double algbwGBps{0};            //!< S / duration, GB/s (1e9 B/s), nccl-tests definition
    double busbwGBps{0};            //!< algbw times the op's bus factor (nccl-tests PERFORMANCE.md)
    double analyticS{0};            //!< alpha-beta estimate for the same fabric, seconds
    double alphaS{0};               //!< alpha used by the estimate (per-step latency), seconds
    double betaSPerByte{0};         //!< beta used by the estimate (1/bandwidth), seconds per byte
    std::vector<uint32_t> rankGpus; //!< GPU index of each rank, in rank order
    std::vector<uint64_t> bytesSentPerRank; //!< payload bytes each rank sent, in rank order
    std::vector<double> finishSPerRank;     //!< time each rank finished (last receive), seconds
};

/**
 * \ingroup ai-fabric
 * \brief One port (one direction of one link) at the end of the run.
 */
struct PortRecord
{
    std::string node;       //!< name of the node that transmits on this port
    std::string peer;       //!< name of the node at the other end
    std::string tier;       //!< link class: "gpu-nic", "nic-switch", "switch-switch", ...
    std::string technology; //!< the link's technology
    uint64_t txPackets{0};  //!< packets transmitted
    uint64_t txBytes{0};    //!< wire bytes transmitted
    double busyS{0};        //!< time spent serializing, seconds
    uint64_t drops{0};      //!< packets dropped because this port's queue or the buffer was full
    uint64_t peakQueueBytes{0}; //!< largest egress queue, wire bytes
    uint64_t pausesReceived{0}; //!< PFC XOFF frames received (this port was paused)
    double pausedS{0};          //!< time lanes of this port were paused, seconds
    double stallS{0};           //!< time this port had packets but flow control held them, seconds
};

/**
 * \ingroup ai-fabric
 * \brief Fabric-wide flow-control and loss counters, summed over every port.
 */
struct FabricCounters
{
    uint64_t drops{0};           //!< packets dropped by switches (full buffer)
    uint64_t losslessDrops{0};   //!< of those, on credit or PFC ports (an invariant violation)
    uint64_t pauseFrames{0};     //!< PFC XOFF frames sent
    double pausedS{0};           //!< time lanes spent paused, summed over ports and lanes, seconds
    double stallS{0};            //!< time ports had packets but flow control held them, seconds
    uint64_t ecnMarks{0};        //!< packets marked CE
    uint64_t peakBufferBytes{0}; //!< largest shared-buffer occupancy of any switch, bytes
};

/**
 * \ingroup ai-fabric
 * \brief Everything a run reports; written as summary.json, flows.csv and a table.
 */
struct RunResults
{
    std::string scenario;                      //!< scenario name
    std::string scenarioFile;                  //!< scenario path as given
    std::string topology;                      //!< topology name
    std::string traffic;                       //!< traffic name
    uint64_t seed{0};                          //!< seed
    uint32_t gpus{0};                          //!< GPU endpoints in the fabric
    uint32_t switches{0};                      //!< switches in the fabric
    uint32_t links{0};                         //!< links (each full duplex) in the fabric
    double simTimeS{0};                        //!< simulated time at the end of the run, seconds
    double wallTimeS{0};                       //!< wall-clock time of the run, seconds
    double setupTimeS{0};                      //!< wall-clock time building the fabric, seconds
    uint64_t events{0};                        //!< simulator events executed
    uint64_t packetHops{0};                    //!< packets transmitted summed over all links
    bool complete{true};                       //!< every message completed
    FabricCounters counters;                   //!< flow control and loss
    std::vector<std::string> violations;       //!< invariants the run broke (empty: results valid)
    std::vector<CollectiveResult> collectives; //!< per collective
    std::vector<FlowRecord> flows;             //!< per message
    std::vector<PortRecord> ports;             //!< per port, in link order (a->b, then b->a)
};

} // namespace ns3

#endif /* AI_FABRIC_RUN_RESULTS_H */
