#pragma once

#include "egress/EgressProxy.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QLocalServer;

namespace csm {

// The host's end of one container's network in proxy mode: a folder, mounted read-only into the
// container (ContainerSpec::kEgressMountPoint), that holds the Unix socket the launcher's relay
// connects to for each of the program's connections, and Node's fetch preload. A pooled
// container has it from its start, before any run is known: connections are served by the proxy
// of the run the container is given to, and refused (closed) before and after.
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
    // The proxy that serves connections from now on (null: none does).
    void setProxy(EgressProxy* proxy) { m_proxy = proxy; }

private:
    void onNewConnection();

    QString m_folder;
    QString m_error;
    QLocalServer* m_server = nullptr;
    QPointer<EgressProxy> m_proxy;
};

} // namespace csm
