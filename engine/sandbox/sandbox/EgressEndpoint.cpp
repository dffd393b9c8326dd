#include "sandbox/EgressEndpoint.h"

#include "egress/EgressProxy.h"
#include "runtime/ContainerSpec.h"
#include "sandbox/EgressCarrier.h"
#include "sandbox/NodeFetchPreload.h"

#include <QDir>
#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>

namespace csm {

EgressEndpoint::EgressEndpoint(const QString& folder, QObject* parent)
    : QObject(parent)
    , m_folder(folder)
    , m_server(new QLocalServer(this))
{
    if (!QDir().mkpath(folder)) {
        m_error = QStringLiteral("could not create %1").arg(folder);
        return;
    }
    // The sandbox user is not us (and under rootless Podman not even our uid): it may pass
    // through the folder and read the preload, but not list or change anything.
    QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                      QFileDevice::ExeOwner | QFileDevice::ExeGroup |
                                      QFileDevice::ExeOther);
    QFile preload(QDir(folder).filePath(QLatin1String(ContainerSpec::kEgressNodePreloadName)));
    if (!preload.open(QIODevice::WriteOnly) || preload.write(NodeFetchPreload::source()) < 0) {
        m_error = QStringLiteral("could not write %1").arg(preload.fileName());
        return;
    }
    preload.close();
    preload.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                           QFileDevice::ReadGroup | QFileDevice::ReadOther);
    m_server->setSocketOptions(QLocalServer::WorldAccessOption);
    connect(m_server, &QLocalServer::newConnection, this, &EgressEndpoint::onNewConnection);
    if (!m_server->listen(QDir(folder).filePath(QLatin1String(ContainerSpec::kEgressSocketName))))
        m_error = QStringLiteral("could not listen in %1: %2").arg(folder, m_server->errorString());
}

EgressEndpoint::~EgressEndpoint()
{
    // Its connections first, while the socket they reach is still there.
    delete std::exchange(m_carrier, nullptr);
    m_server->close();
    QDir(m_folder).removeRecursively();
}

void EgressEndpoint::setProxy(EgressProxy* proxy)
{
    m_proxy = proxy;
    if (proxy)
        startCarrier();
}

void EgressEndpoint::startCarrier()
{
    if (m_carrier)
        m_carrier->start();
}

void EgressEndpoint::carryFrom(const ContainerRuntime& runtime, const QString& container)
{
    delete m_carrier;
    m_carrier = new EgressCarrier(runtime, container, m_server->fullServerName(), this);
}

void EgressEndpoint::onNewConnection()
{
    while (QLocalSocket* socket = m_server->nextPendingConnection()) {
        if (m_proxy) {
            m_proxy->serve(socket);
        } else {
            // No run owns the container (yet, or any more): nothing may go out.
            socket->abort();
            socket->deleteLater();
        }
    }
}

} // namespace csm
