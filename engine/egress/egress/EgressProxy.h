#pragma once

#include "egress/ByteBudget.h"
#include "egress/EgressConnection.h"
#include "egress/EgressPolicy.h"
#include "egress/EgressQuestion.h"

#include <QHash>
#include <QHostAddress>
#include <QList>
#include <QObject>

#include <functional>

class QIODevice;

namespace csm {

class ProxiedConnection;

// The host side of a sandbox's network: each connection its program opens (relayed by the
// launcher, or any stream) speaks HTTP proxy to it. The proxy reads the request head
// (ProxyRequestHead), resolves the host itself, asks the policy about the name and every
// address, and only then connects, to one of those checked addresses, and relays the bytes both
// ways untouched (CONNECT) or the one request (plain HTTP): in the kernel on a thread of its own
// (ByteShuttle) where the platform can, else through Qt's sockets. A refusal is answered with a
// 403 that says why. Limits bound what one sandbox can make it do: connections at once and in all,
// bytes, and how long a head or a connect may take.
class EgressProxy final : public QObject
{
    Q_OBJECT

public:
    struct Limits
    {
        int maxOpenConnections = 64;
        int maxConnections = 1000;              // over the run's life
        qint64 maxBytes = 1024LL * 1024 * 1024; // both ways, over the run's life
        int headTimeoutMs = 10'000;
        int connectTimeoutMs = 10'000;
    };
    // Resolves `host` and calls `done` with its addresses (none: it does not resolve).
    using Resolver =
        std::function<void(const QString& host, std::function<void(QList<QHostAddress>)> done)>;
    // Asks the person about the question's host, port and run (ask mode) and calls `done` with
    // the answer.
    using Asker =
        std::function<void(const EgressQuestion& question, std::function<void(bool)> done)>;

    EgressProxy(EgressPolicy policy, Limits limits, QObject* parent = nullptr);
    ~EgressProxy() override;

    // QHostInfo by default.
    void setResolver(Resolver resolver) { m_resolver = std::move(resolver); }
    // Without one, ask mode refuses what it would ask about.
    void setAsker(Asker asker) { m_asker = std::move(asker); }
    // What a question shows the person about the run this proxy serves.
    void setRunLabel(const QString& label) { m_runLabel = label; }

    // Serves the program's connection `stream` (the proxy takes it over, and closes it).
    void serve(QIODevice* stream);
    int openConnections() const { return m_open; }
    // Off: open connections are relayed through Qt's sockets even where ByteShuttle could carry
    // them (the portable path, tested on its own).
    void setCarryInKernel(bool on) { m_carryInKernel = on; }
    // Cuts every open connection (the run ended); each is reported with `reason` before this
    // returns.
    void closeAll(const QString& reason);

Q_SIGNALS:
    // A connection ended (refused, failed, or closed by either side).
    void connectionEnded(const csm::EgressConnection& connection);

private:
    // Each ProxiedConnection works on the proxy's policy, limits and counters.
    friend class ProxiedConnection;

    EgressPolicy m_policy;
    Limits m_limits;
    Resolver m_resolver;
    Asker m_asker;
    const quint64 m_run; // a number no other proxy of this process has
    QString m_runLabel;
    // Ask mode: what the person answered about each HOST:PORT, for the rest of the run.
    QHash<QString, bool> m_answers;
    int m_open = 0;
    int m_total = 0;
    ByteBudget m_budget;
    // Open connections' bytes are carried by ByteShuttle where the platform can.
    bool m_carryInKernel = true;
};

} // namespace csm
