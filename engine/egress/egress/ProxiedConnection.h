#pragma once

#include "egress/EgressConnection.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <memory>

class QIODevice;
class QTcpSocket;

namespace csm {

class ByteShuttle;
class EgressProxy;

// One program connection through the EgressProxy, from its request head to its end: resolve,
// decide, connect to a checked address, relay, report. Deletes itself once it has reported.
class ProxiedConnection final : public QObject
{
    Q_OBJECT

public:
    // Most bytes held for a side that does not read: past it, the other side is not read either.
    static constexpr qint64 kMaxBufferedBytes = 1024 * 1024;

    ProxiedConnection(EgressProxy& proxy, QIODevice* program);
    ~ProxiedConnection() override;

    // Reads the program's request (what came already, and what comes).
    void start();
    // Refuses at once (too many connections) with `status` and `reason`.
    void refuse(int status, const QString& reason);
    // Cuts the connection (the run ended) and reports it with `reason`.
    void end(const QString& reason) { finish(reason); }

private:
    void readHead();
    void resolve();
    void lookUp();
    void decide(const QList<QHostAddress>& addresses);
    // Ask mode: asks the person about this host (or takes the run's earlier answer, or refuses
    // when no one can be asked), then calls `then` with the answer.
    void ask(std::function<void(bool)> then);
    // The person's answer about this host, once the address checks have passed.
    void onAnswer(bool allow);
    void connectNext();
    void onUpstreamConnected();
    // Gives the open connection to a ByteShuttle (false: the platform or the stream cannot).
    // `toProgram` (the tunnel's 200) and m_pendingUpstream go first.
    bool handOver(const QByteArray& toProgram);
    void onShuttleEnded();
    void pump();
    void count(qint64 bytes, qint64* side);
    QString overBudget() const;
    void finish(const QString& reason);

    EgressProxy& m_proxy;
    QPointer<QIODevice> m_program;
    QPointer<QTcpSocket> m_upstream;
    std::unique_ptr<ByteShuttle> m_shuttle;
    EgressConnection m_connection;
    QByteArray m_head;
    QByteArray m_pendingUpstream; // a plain request's head and what followed it
    bool m_tunnel = false;
    bool m_connected = false;        // to the host
    bool m_allowedWhenAsked = false; // before the lookup (ask mode)
    QList<QHostAddress> m_addresses;
    QTimer m_deadline;
    QElapsedTimer m_clock;
    bool m_finished = false;
};

} // namespace csm
