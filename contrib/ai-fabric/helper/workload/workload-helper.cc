/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-helper.h"

#include "ns3/node.h"
#include "ns3/workload-application.h"

namespace ns3
{

WorkloadHelper::WorkloadHelper(const Workload* workload)
{
    m_factory.SetTypeId(WorkloadApplication::GetTypeId());
    m_execution = CreateObject<WorkloadExecution>();
    m_execution->SetWorkload(workload);
}

void
WorkloadHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
WorkloadHelper::Install(NodeContainer nodes) const
{
    ApplicationContainer apps;
    for (auto i = nodes.Begin(); i != nodes.End(); ++i)
    {
        apps.Add(InstallPriv(*i));
    }
    return apps;
}

ApplicationContainer
WorkloadHelper::Install(Ptr<Node> node) const
{
    return ApplicationContainer(InstallPriv(node));
}

Ptr<WorkloadExecution>
WorkloadHelper::GetExecution() const
{
    return m_execution;
}

Ptr<Application>
WorkloadHelper::InstallPriv(Ptr<Node> node) const
{
    Ptr<WorkloadApplication> app = m_factory.Create<WorkloadApplication>();
    node->AddApplication(app);
    app->Setup(m_execution);
    return app;
}

} // namespace ns3
