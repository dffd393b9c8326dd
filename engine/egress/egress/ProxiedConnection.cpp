#include "egress/ProxiedConnection.h"

#include "egress/ByteShuttle.h"
#include "egress/EgressProxy.h"
#include "egress/HostGateway.h"
#include "egress/ProxyRequestHead.h"

#include <QIODevice>
#include <QLocalSocket>
#include <QTcpSocket>

namespace csm {

namespace {

QByteArray response(int status, const QString& reason)
{
    const char* phrase = status == 403   ? "Forbidden"
                         : status == 429 ? "Too Many Requests"
                         : status == 502 ? "Bad Gateway"
                         : status == 504 ? "Gateway Timeout"
                                         : "Bad Request";
    const QByteArray body = "Code Sandbox egress: " + reason.toUtf8() + '\n';
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + phrase +
           "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
           "Content-Length: " +
           QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

} // namespace

ProxiedConnection::ProxiedConnection(EgressProxy& proxy, QIODevice* program)
    : QObject(&proxy)
    , m_proxy(proxy)
    , m_program(program)
{
    program->setParent(this);
    // Bounded reading: a side that does not read holds the other back (pump()), the kernel's
    // buffers fill, and the sender waits; nothing piles up in the server.
    if (auto* socket = qobject_cast<QAbstractSocket*>(program))
        socket->setReadBufferSize(kMaxBufferedBytes);
    else if (auto* local = qobject_cast<QLocalSocket*>(program))
        local->setReadBufferSize(kMaxBufferedBytes);
    m_connection.started = QDateTime::currentDateTime();
    m_clock.start();
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        if (m_upstream && m_upstream->state() != QAbstractSocket::ConnectedState)
            refuse(504, QStringLiteral("%1:%2 did not answer in time")
                            .arg(m_connection.host)
                            .arg(m_connection.port));
        else
            refuse(408, QStringLiteral("the request head did not come in time"));
    });
    connect(program, &QIODevice::readyRead, this, [this] {
        if (m_connection.host.isEmpty()) {
            readHead();
        } else if (m_tunnel && !m_connected) {
            // A client waits for the tunnel before it speaks.
            refuse(400, QStringLiteral("data sent before the tunnel was open"));
        } else {
            pump();
        }
    });
    connect(program, &QIODevice::readChannelFinished, this, [this] {
        if (m_upstream && m_upstream->state() == QAbstractSocket::ConnectedState) {
            // The same the other way: the program's last bytes go before the host's side is
            // closed (which waits for them to be written).
            count(m_upstream->write(m_program->readAll()), &m_connection.bytesSent);
            m_upstream->disconnectFromHost();
        } else {
            finish(m_connection.reason.isEmpty() ? QStringLiteral("closed by the program")
                                                 : m_connection.reason);
        }
    });
}

ProxiedConnection::~ProxiedConnection() = default;

void ProxiedConnection::start()
{
    m_deadline.start(m_proxy.m_limits.headTimeoutMs);
    readHead();
}

void ProxiedConnection::refuse(int status, const QString& reason)
{
    if (m_finished)
        return;
    m_connection.allowed = false;
    if (m_program && m_program->isOpen())
        m_program->write(response(status, reason));
    finish(reason);
}

void ProxiedConnection::readHead()
{
    if (!m_program)
        return;
    m_head += m_program->readAll();
    const ProxyRequestHead head = ProxyRequestHead::parse(m_head);
    switch (head.status()) {
    case ProxyRequestHead::Status::Incomplete:
        return;
    case ProxyRequestHead::Status::Invalid:
        refuse(400, head.error());
        return;
    case ProxyRequestHead::Status::Complete:
        break;
    }
    m_deadline.stop();
    m_connection.host = head.host();
    m_connection.port = head.port();
    m_tunnel = head.kind() == ProxyRequestHead::Kind::Connect;
    if (!m_tunnel)
        m_pendingUpstream = head.forwardHead() + m_head.mid(head.headBytes());
    m_head.clear();
    resolve();
}

void ProxiedConnection::resolve()
{
    if (const auto refused =
            m_proxy.m_policy.decideBeforeResolving(m_connection.host, m_connection.port)) {
        m_connection.reason = refused->reason;
        refuse(403, refused->reason);
        return;
    }
    QHostAddress literal;
    if (literal.setAddress(m_connection.host)) {
        decide({literal});
        return;
    }
    // Ask mode: a name no rule allows is asked about before it is looked up. The lookup would
    // carry the name, and whatever a program encoded in it, to the resolver and beyond: a way
    // out for data that no one allowed.
    if (m_proxy.m_policy.asksBeforeResolving(m_connection.host, m_connection.port)) {
        ask([this](bool allow) {
            if (!allow) {
                onAnswer(false);
                return;
            }
            m_allowedWhenAsked = true;
            lookUp();
        });
        return;
    }
    lookUp();
}

void ProxiedConnection::lookUp()
{
    // This machine's name is no name a resolver knows: it is this machine's loopback, which the
    // policy lets a connection reach only where an allow rule names it.
    if (HostGateway::isName(m_connection.host)) {
        decide(HostGateway::addresses());
        return;
    }
    QPointer<ProxiedConnection> self(this);
    m_proxy.m_resolver(m_connection.host, [self](QList<QHostAddress> addresses) {
        if (self)
            self->decide(addresses);
    });
}

void ProxiedConnection::decide(const QList<QHostAddress>& addresses)
{
    const EgressPolicy::Decision decision =
        m_proxy.m_policy.decide(m_connection.host, m_connection.port, addresses);
    m_connection.reason = decision.reason;
    m_addresses = addresses;
    switch (decision.verdict) {
    case EgressPolicy::Verdict::Allow:
        m_connection.allowed = true;
        connectNext();
        return;
    case EgressPolicy::Verdict::Deny:
        refuse(403, decision.reason);
        return;
    case EgressPolicy::Verdict::Ask:
        break;
    }
    // Asked before the lookup, and the addresses passed their checks.
    if (m_allowedWhenAsked) {
        onAnswer(true);
        return;
    }
    ask([this](bool allow) { onAnswer(allow); });
}

void ProxiedConnection::ask(std::function<void(bool)> then)
{
    const QString asked =
        QStringLiteral("%1:%2").arg(m_connection.host.toLower()).arg(m_connection.port);
    if (const auto answered = m_proxy.m_answers.constFind(asked);
        answered != m_proxy.m_answers.cend()) {
        then(*answered);
        return;
    }
    if (!m_proxy.m_asker) {
        refuse(
            403,
            QStringLiteral("%1:%2: no one to ask").arg(m_connection.host).arg(m_connection.port));
        return;
    }
    QPointer<ProxiedConnection> self(this);
    QPointer<EgressProxy> proxy(&m_proxy);
    EgressQuestion question;
    question.run = m_proxy.m_run;
    question.runLabel = m_proxy.m_runLabel;
    question.host = m_connection.host;
    question.port = m_connection.port;
    m_proxy.m_asker(question, [self, proxy, asked, then = std::move(then)](bool allow) {
        // Once asked, the run's other connections to the host need no question.
        if (proxy)
            proxy->m_answers.insert(asked, allow);
        if (self)
            then(allow);
    });
}

void ProxiedConnection::onAnswer(bool allow)
{
    const QString target = QStringLiteral("%1:%2").arg(m_connection.host).arg(m_connection.port);
    if (allow) {
        m_connection.allowed = true;
        m_connection.reason = QStringLiteral("%1: allowed when asked").arg(target);
        connectNext();
    } else {
        refuse(403, QStringLiteral("%1: denied when asked in the Code Sandbox app").arg(target));
    }
}

void ProxiedConnection::connectNext()
{
    if (m_addresses.isEmpty()) {
        refuse(
            502,
            QStringLiteral("%1:%2: cannot connect").arg(m_connection.host).arg(m_connection.port));
        return;
    }
    if (m_upstream)
        m_upstream->deleteLater();
    // Only the addresses the policy checked: the name is not resolved again.
    const QHostAddress address = m_addresses.takeFirst();
    m_connection.address = address.toString();
    m_upstream = new QTcpSocket(this);
    m_upstream->setReadBufferSize(kMaxBufferedBytes);
    connect(m_upstream, &QTcpSocket::connected, this, &ProxiedConnection::onUpstreamConnected);
    connect(m_upstream, &QTcpSocket::errorOccurred, this, [this] {
        if (!m_connected)
            connectNext(); // the next checked address, if there is one
    });
    connect(m_upstream, &QTcpSocket::readyRead, this, &ProxiedConnection::pump);
    connect(m_upstream, &QTcpSocket::bytesWritten, this, &ProxiedConnection::pump);
    connect(m_upstream, &QTcpSocket::disconnected, this, [this] {
        // What the host sent last (at most the read buffer: it is read no further while the
        // program lags) still goes to the program, past the usual bound: the program's stream
        // is flushed before it is closed (finish()).
        if (m_program)
            count(m_program->write(m_upstream->readAll()), &m_connection.bytesReceived);
        finish(QStringLiteral("closed by %1:%2").arg(m_connection.host).arg(m_connection.port));
    });
    m_deadline.start(m_proxy.m_limits.connectTimeoutMs);
    m_upstream->connectToHost(address, m_connection.port);
}

void ProxiedConnection::onUpstreamConnected()
{
    m_connected = true;
    m_deadline.stop();
    const QByteArray established = "HTTP/1.1 200 Connection established\r\n\r\n";
    if (m_proxy.m_carryInKernel && handOver(m_tunnel ? established : QByteArray()))
        return;
    if (m_tunnel)
        m_program->write(established);
    else
        count(m_upstream->write(m_pendingUpstream), &m_connection.bytesSent);
    m_pendingUpstream.clear();
    connect(m_program, &QIODevice::bytesWritten, this, &ProxiedConnection::pump);
    pump();
}

bool ProxiedConnection::handOver(const QByteArray& toProgram)
{
    qintptr programDescriptor = -1;
    if (auto* socket = qobject_cast<QAbstractSocket*>(m_program.data()))
        programDescriptor = socket->socketDescriptor();
    else if (auto* local = qobject_cast<QLocalSocket*>(m_program.data()))
        programDescriptor = local->socketDescriptor();
    if (!ByteShuttle::available() || programDescriptor < 0)
        return false;
    // What Qt has read of the program's stream already goes first; kept for Qt's path (the
    // caller's) if the shuttle cannot take over.
    m_pendingUpstream += m_program->readAll();
    m_shuttle = ByteShuttle::adopt(programDescriptor, m_upstream->socketDescriptor(), toProgram,
                                   m_pendingUpstream, m_proxy.m_budget);
    if (!m_shuttle)
        return false;
    m_pendingUpstream.clear();
    // Qt's sockets close their descriptors; the shuttle holds its own copies.
    for (QIODevice* stream : {m_program.data(), static_cast<QIODevice*>(m_upstream.data())}) {
        stream->disconnect(this);
        if (auto* socket = qobject_cast<QAbstractSocket*>(stream))
            socket->abort();
        else if (auto* local = qobject_cast<QLocalSocket*>(stream))
            local->abort();
        stream->deleteLater();
    }
    m_program = nullptr;
    m_upstream = nullptr;
    connect(m_shuttle.get(), &ByteShuttle::ended, this, &ProxiedConnection::onShuttleEnded);
    m_shuttle->start();
    return true;
}

void ProxiedConnection::onShuttleEnded()
{
    const QString target = QStringLiteral("%1:%2").arg(m_connection.host).arg(m_connection.port);
    switch (m_shuttle->stop().end) {
    case ByteShuttle::End::ProgramClosed:
        finish(QStringLiteral("closed by the program"));
        return;
    case ByteShuttle::End::HostClosed:
        finish(QStringLiteral("closed by %1").arg(target));
        return;
    case ByteShuttle::End::OverBudget:
        m_connection.reason = overBudget();
        finish(m_connection.reason);
        return;
    case ByteShuttle::End::Cut:
        finish(QStringLiteral("cut"));
        return;
    }
}

void ProxiedConnection::pump()
{
    if (m_finished || !m_upstream || !m_program ||
        m_upstream->state() != QAbstractSocket::ConnectedState)
        return;
    // Each way, only as much as the other side has taken: a side that does not read holds up
    // the other instead of filling the server's memory.
    if (m_upstream->bytesToWrite() < kMaxBufferedBytes && m_program->bytesAvailable() > 0)
        count(m_upstream->write(m_program->read(kMaxBufferedBytes)), &m_connection.bytesSent);
    if (m_program->bytesToWrite() < kMaxBufferedBytes && m_upstream->bytesAvailable() > 0)
        count(m_program->write(m_upstream->read(kMaxBufferedBytes)), &m_connection.bytesReceived);
}

void ProxiedConnection::count(qint64 bytes, qint64* side)
{
    if (bytes <= 0)
        return;
    *side += bytes;
    if (!m_proxy.m_budget.spend(bytes)) {
        m_connection.reason = overBudget();
        if (m_upstream)
            m_upstream->abort();
        finish(m_connection.reason);
    }
}

QString ProxiedConnection::overBudget() const
{
    return QStringLiteral("cut: the run's network traffic reached its limit of %1 bytes")
        .arg(m_proxy.m_budget.limit());
}

void ProxiedConnection::finish(const QString& reason)
{
    if (m_finished)
        return;
    m_finished = true;
    m_deadline.stop();
    if (m_shuttle) {
        const ByteShuttle::Result carried = m_shuttle->stop();
        m_connection.bytesSent += carried.bytesSent;
        m_connection.bytesReceived += carried.bytesReceived;
    }
    // An allowed connection keeps the policy's reason, unless it was cut (count()).
    if (m_connection.reason.isEmpty() || !m_connection.allowed)
        m_connection.reason = reason;
    m_connection.durationMs = m_clock.elapsed();
    if (m_upstream)
        m_upstream->disconnectFromHost();
    if (m_program) {
        // What was written to the program (a refusal's reason) still goes out: the stream
        // outlives this relay until it has disconnected.
        QIODevice* program = m_program.data();
        program->setParent(nullptr);
        if (auto* socket = qobject_cast<QAbstractSocket*>(program)) {
            connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
            socket->disconnectFromHost();
            if (socket->state() == QAbstractSocket::UnconnectedState)
                socket->deleteLater();
        } else if (auto* local = qobject_cast<QLocalSocket*>(program)) {
            connect(local, &QLocalSocket::disconnected, local, &QObject::deleteLater);
            local->disconnectFromServer();
            if (local->state() == QLocalSocket::UnconnectedState)
                local->deleteLater();
        } else {
            program->close();
            program->deleteLater();
        }
    }
    --m_proxy.m_open;
    Q_EMIT m_proxy.connectionEnded(m_connection);
    deleteLater();
}

} // namespace csm
