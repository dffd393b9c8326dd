#pragma once

#include "egress/EgressProxy.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QLocalServer;

namespace csm {

class ContainerRuntime;
class EgressCarrier;

// The host's end of one container's network in proxy mode: a folder, mounted read-only into the
// container (ContainerSpec::kEgressMountPoint), that holds the Unix socket the launcher's relay
// connects to for each of the program's connections, and Node's fetch preload. A pooled
// container has it from its start, before any run is known: connections are served by the proxy
// of the run the container is given to, and refused (closed) before and after.
//
// A remote engine's container has no such folder (it would be on the wrong machine): there the
// folder's socket is reached through an EgressCarrier the endpoint starts in the container
// (carryFrom()), and the same proxy serves.
class EgressEndpoint final : public QObject
{
    Q_OBJECT

public:
    // Creates `folder` (it must not exist) and listens there.
    explicit EgressEndpoint(const QString& folder, QObject* parent = nullptr);
    // Stops listening and removes the folder.
    ~EgressEndpoint() override;

    // Empty when it listens; otherwise why not (for the run's error).
    QString error() const { return m_error; }
    QString folder() const { return m_folder; }
    // The proxy that serves connections from now on (null: none does). The first one starts the
    // carrier, if there is one and it has not started yet.
    void setProxy(EgressProxy* proxy);
    // Starts the carrier, if there is one, as soon as the container runs (a pooled container's
    // before a call takes it). It stays for the container's life (a session's later cells).
    void startCarrier();
    // The container (named `container`) is on a remote engine: its connections come through an
    // egress carrier, not through the folder.
    void carryFrom(const ContainerRuntime& runtime, const QString& container);
    EgressCarrier* carrier() const { return m_carrier; }

private:
    void onNewConnection();

    QString m_folder;
    QString m_error;
    QLocalServer* m_server = nullptr;
    QPointer<EgressProxy> m_proxy;
    EgressCarrier* m_carrier = nullptr;
};

} // namespace csm
