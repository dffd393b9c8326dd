#include "sandbox/ContainerChannel.h"

#include "sandbox/EgressEndpoint.h"

namespace csm {

ContainerChannel::ContainerChannel(QString containerName,
                                   std::shared_ptr<const SandboxSecrets> secrets, QObject* parent)
    : QObject(parent)
    , m_containerName(std::move(containerName))
    , m_secrets(secrets ? std::move(secrets) : SandboxSecrets::none())
{}

QByteArray ContainerChannel::release(ContainerReaper& reaper, bool removeContainer, QObject* holder)
{
    const QByteArray said = engineDiagnostics();
    disconnect(holder);
    handOver(reaper, removeContainer);
    deleteLater();
    return said;
}

void ContainerChannel::setEgressEndpoint(EgressEndpoint* endpoint)
{
    delete m_egress;
    m_egress = endpoint;
    if (endpoint)
        endpoint->setParent(this);
}

} // namespace csm
