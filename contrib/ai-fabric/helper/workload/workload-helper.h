/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_WORKLOAD_HELPER_H
#define AI_FABRIC_WORKLOAD_HELPER_H

#include "ns3/application-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/ptr.h"
#include "ns3/workload-execution.h"

#include <string>

namespace ns3
{

class AttributeValue;
class Workload;

/**
 * \ingroup ai-fabric
 * \brief Installs a WorkloadApplication on each GPU node (a node with an
 * RdmaTransport aggregated, see RdmaTransportHelper) to execute a Workload.
 *
 * \code
 *   WorkloadHelper workloads(&workload);        // finalized; it must outlive the run
 *   ApplicationContainer apps = workloads.Install(gpuNodes);
 *   apps.Start(Seconds(0));
 *   Simulator::Run();
 *   Ptr<WorkloadExecution> run = workloads.GetExecution(); // op times, counts
 * \endcode
 *
 * All applications installed by one helper share one WorkloadExecution; the
 * workload starts when the first of them starts.
 */
class WorkloadHelper
{
  public:
    /**
     * \param workload the finalized workload; it must outlive the applications' use
     */
    explicit WorkloadHelper(const Workload* workload);

    /**
     * \brief Set an attribute of the WorkloadApplications to install.
     * \param name the attribute name
     * \param value its value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \param nodes GPU nodes, each with an aggregated RdmaTransport
     * \return one WorkloadApplication per node, in the nodes' order
     */
    ApplicationContainer Install(NodeContainer nodes) const;
    /**
     * \param node a GPU node with an aggregated RdmaTransport
     * \return its WorkloadApplication
     */
    ApplicationContainer Install(Ptr<Node> node) const;

    /// \return the execution the installed applications share (op times, counts)
    Ptr<WorkloadExecution> GetExecution() const;

  private:
    /**
     * \param node a GPU node
     * \return the application installed on it
     */
    Ptr<Application> InstallPriv(Ptr<Node> node) const;

    ObjectFactory m_factory;            //!< WorkloadApplication factory
    Ptr<WorkloadExecution> m_execution; //!< shared by the installed applications
};

} // namespace ns3

#endif /* AI_FABRIC_WORKLOAD_HELPER_H */
