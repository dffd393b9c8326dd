#pragma once

#include "sandbox/CarrierFrameReader.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

class QLocalSocket;
class QProcess;

namespace csm {

class ContainerRuntime;

// The server's end of a remote engine's sandbox network in egress proxy mode. No host folder
// (and so no socket of this machine) reaches such a container, so the launcher's relay there
// connects to a carrier instead: `csm-launch --egress-carrier`, run in the container through the
// engine (`exec -i`). The program's connections travel multiplexed over that exec's stdin and
// stdout (csm/egress_carrier_protocol.h), and this class connects each to the run's proxy
// through the container's EgressEndpoint socket, as a local container's relay does. The proxy,
// its policy, its questions and its records are the same.
//
// The carrier runs beside the program, as the same user, so its stream is not trusted: a frame
// that breaks the protocol (a payload beyond the window, an id never opened) ends the carrier,
// and with it the container's network, never the server.
class EgressCarrier final : public QObject
{
    Q_OBJECT

public:
    // `proxySocket`: the EgressEndpoint socket each carried connection is connected to.
    EgressCarrier(const ContainerRuntime& runtime, QString container, QString proxySocket,
                  QObject* parent = nullptr);
    ~EgressCarrier() override;

    // Keeps a carrier running in the container from now on: it is started, and started again if
    // it ends (the container may not exist yet: a cold run's engine is still creating it), a
    // bounded number of times.
    void start();
    // The carrier listens in the container.
    bool isCarrying() const { return m_carrying; }
    int connectionCount() const { return int(m_connections.size()); }
    // Why carrying stopped for good; empty while it carries or may still start.
    QString error() const { return m_error; }

Q_SIGNALS:
    void carrying();

private:
    struct Connection;

    void launch();
    void onProcessEnded();
    void onOutput();
    void handle(const CarrierFrame& frame);
    void open(quint32 id);
    void receiveData(Connection& connection, const QByteArray& bytes);
    void receiveEnd(Connection& connection);
    void forward(quint32 id);
    void acknowledge(Connection& connection);
    void onSocketGone(quint32 id);
    void shutDownIfFlushed(Connection& connection);
    void finishIfDone(quint32 id);
    void drop(quint32 id);
    void send(const QByteArray& frame);
    void breach(const QString& why);

    const ContainerRuntime& m_runtime;
    const QString m_container;
    const QString m_proxySocket;
    QPointer<QProcess> m_process;
    CarrierFrameReader m_reader;
    QHash<quint32, Connection*> m_connections;
    QByteArray m_standardError;
    quint32 m_lastId = 0;
    // Starts in a row that never said hello; carriers that ended after theirs.
    int m_failures = 0;
    int m_restarts = 0;
    bool m_wanted = false;
    bool m_carrying = false;
    QString m_error;
};

} // namespace csm
