/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_RELAY_WAIT_METER_H
#define AI_FABRIC_RELAY_WAIT_METER_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricNetDevice;
struct FabricFields;

/**
 * \ingroup ai-fabric
 * \brief The time a relaying GPU's port spent on other packets while a relayed message went
 * through it (docs/results-format.md, "Message timing").
 *
 * With NCCL's PXN a message to another rail of another server crosses NVLink to the GPU of
 * the destination's rail, which sends it on its NIC together with its own messages and its
 * server's other GPUs' messages to that rail: that port is the message's sending NIC, shared
 * as a sender's own port is shared by its queue pairs. The meter listens to the
 * FirstPacketEnqueue and LastPacketDequeue traces of the ports of multi-port GPUs; for a
 * message of another source it keeps the port's busy time from its first packet's arrival in
 * the queue to its last packet's transmission, less the serialization of its own packets
 * before the last: the time the port spent on other packets meanwhile (time the port was held
 * by flow control is not busy time: it stays the fabric's). Cost: two callbacks per message
 * per relay port, a map entry while the message is at the port; ports it is not connected to
 * cost nothing; no events, no draws.
 */
class RelayWaitMeter
{
  public:
    /// \param endpoints number of endpoints (sources)
    explicit RelayWaitMeter(uint32_t endpoints);

    /**
     * \brief Listen to a GPU's port: the messages it relays (from other sources). The meter
     * must outlive the run.
     * \param device the port
     * \param endpoint the GPU's endpoint id (its own messages are not relayed)
     */
    void ConnectRelayPort(Ptr<FabricNetDevice> device, uint32_t endpoint);

    /**
     * \param src a source endpoint
     * \param msgId a message id at it
     * \return the relay ports' time on other packets while the message went through them, ps;
     *         -1 if it was not relayed
     */
    int64_t GetSharedPs(uint32_t src, uint32_t msgId) const;

  private:
    /**
     * \brief A message's first packet joined a relay port's queue.
     * \param port the relay port (bound: its index in m_ports)
     * \param header the packet's header
     */
    void FirstPacketEnqueue(uint32_t port, const FabricFields& header);
    /**
     * \brief A message's last packet left a relay port.
     * \param port the relay port (bound)
     * \param header the packet's header
     * \param wait its wait at the port
     * \param held of which flow control held its lane
     */
    void LastPacketDequeue(uint32_t port, const FabricFields& header, Time wait, Time held);

    std::vector<Ptr<FabricNetDevice>> m_ports; //!< the relay ports
    std::vector<uint32_t> m_endpoint;          //!< per port: its GPU's endpoint
    /// per relay port: (src << 32 | msg) -> the port's busy time at its first packet
    std::vector<std::unordered_map<uint64_t, int64_t>> m_open;
    std::vector<std::vector<int64_t>> m_sharedPs; //!< [src][msgId] (-1: not relayed)
};

} // namespace ns3

#endif /* AI_FABRIC_RELAY_WAIT_METER_H */
