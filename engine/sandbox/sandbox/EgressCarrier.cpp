#include "sandbox/EgressCarrier.h"

#include "core/Logging.h"
#include "runtime/ContainerRuntime.h"

#include <QLocalSocket>
#include <QProcess>
#include <QTimer>

#include <sys/socket.h>

namespace csm {

namespace {
// A cold container the engine is still creating fails `exec` until it runs: tries in a row that
// never said hello, 250 ms apart at first, then further apart, about 30 s in all.
constexpr int kMostFailures = 20;
constexpr int kFirstRetryMs = 250;
constexpr int kLongestRetryMs = 2000;
// Carriers that ended after their hello (the engine's stream broke): started again this often.
constexpr int kMostRestarts = 10;
constexpr qint64 kWindow = CSM_CARRIER_WINDOW;
// What a carrier that reads its stdin never lets pile up: our frames are bounded by the windows,
// acknowledgements by what it sent. Past this it is not reading, and it is ended.
constexpr qint64 kMostUnread = 16 * 1024 * 1024;
// The last words of a carrier that ended, kept for the log.
constexpr qsizetype kStandardErrorTail = 4096;
} // namespace

// One carried connection: the program's side is in the container, the proxy's is `socket`.
struct EgressCarrier::Connection
{
    quint32 id = 0;
    QLocalSocket* socket = nullptr;
    // The carrier's bytes that came before the socket connected.
    QByteArray early;
    // What the carrier may still be sent of this connection.
    qint64 credit = kWindow;
    // The carrier's bytes received and not yet written to the proxy.
    qint64 unwritten = 0;
    // Bytes passed on (or dropped) and not yet acknowledged: one acknowledgement per batch.
    qint64 unacknowledged = 0;
    bool connected = false;
    // The proxy's side: it sent all it will send; the socket is closed (nothing can be written).
    bool proxyEnded = false;
    bool proxyGone = false;
    bool sentEnd = false;
    bool receivedEnd = false;
    bool shutDown = false;
};

EgressCarrier::EgressCarrier(const ContainerRuntime& runtime, QString container,
                             QString proxySocket, QObject* parent)
    : QObject(parent)
    , m_runtime(runtime)
    , m_container(std::move(container))
    , m_proxySocket(std::move(proxySocket))
{}

EgressCarrier::~EgressCarrier()
{
    m_wanted = false;
    for (Connection* connection : std::as_const(m_connections)) {
        connection->socket->disconnect(this);
        connection->socket->abort();
        delete connection;
    }
    m_connections.clear();
    if (m_process) {
        // The carrier in the container ends with its stdin (the engine client's end).
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

void EgressCarrier::start()
{
    if (m_wanted || !m_error.isEmpty())
        return;
    m_wanted = true;
    if (!m_process)
        launch();
}

void EgressCarrier::launch()
{
    if (!m_wanted || m_process)
        return;
    m_reader = CarrierFrameReader();
    m_standardError.clear();
    m_lastId = 0;
    QProcess* process = m_runtime.newProcess(m_runtime.egressCarrierArguments(m_container), this);
    m_process = process;
    connect(process, &QProcess::readyReadStandardOutput, this, &EgressCarrier::onOutput);
    connect(process, &QProcess::readyReadStandardError, this, [this] {
        if (!m_process)
            return;
        m_standardError.append(m_process->readAllStandardError());
        if (m_standardError.size() > kStandardErrorTail)
            m_standardError = m_standardError.right(kStandardErrorTail);
    });
    connect(process, &QProcess::finished, this, &EgressCarrier::onProcessEnded);
    connect(process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            onProcessEnded();
    });
    process->start();
}

void EgressCarrier::onProcessEnded()
{
    QProcess* process = m_process;
    if (!process)
        return;
    m_process = nullptr;
    process->disconnect(this);
    m_standardError.append(process->readAllStandardError());
    const QString why =
        QString::fromUtf8(m_standardError.right(kStandardErrorTail)).trimmed().section(u'\n', -1);
    process->deleteLater();
    const bool saidHello = std::exchange(m_carrying, false);
    for (quint32 id : m_connections.keys())
        drop(id);
    if (!m_wanted)
        return;
    const bool givesUp = saidHello ? ++m_restarts > kMostRestarts : ++m_failures >= kMostFailures;
    if (givesUp) {
        m_error = QStringLiteral("the egress carrier of %1 %2%3")
                      .arg(m_container,
                           saidHello ? QStringLiteral("ended %1 times").arg(m_restarts)
                                     : QStringLiteral("could not be started"),
                           why.isEmpty() ? QString() : QStringLiteral(": ") + why.left(300));
        qCWarning(lcSandbox).noquote() << m_error << "- that sandbox has no network";
        return;
    }
    if (saidHello) {
        qCInfo(lcSandbox).noquote() << "the egress carrier of" << m_container << "ended"
                                    << (why.isEmpty() ? QString() : QStringLiteral("(%1)").arg(why))
                                    << "- starting it again";
    }
    const int delay =
        saidHello ? kFirstRetryMs : qMin(kLongestRetryMs, kFirstRetryMs << qMin(m_failures - 1, 4));
    QTimer::singleShot(delay, this, &EgressCarrier::launch);
}

void EgressCarrier::onOutput()
{
    if (!m_process)
        return;
    m_reader.append(m_process->readAllStandardOutput());
    while (m_process && m_error.isEmpty()) {
        const std::optional<CarrierFrame> frame = m_reader.next();
        if (!frame)
            break;
        handle(*frame);
    }
    if (m_reader.isBroken()) {
        breach(m_reader.error());
        return;
    }
    for (Connection* connection : std::as_const(m_connections))
        acknowledge(*connection);
}

void EgressCarrier::handle(const CarrierFrame& frame)
{
    if (frame.type == CSM_CARRIER_HELLO) {
        if (m_carrying || frame.id != 0)
            return breach(QStringLiteral("a second hello"));
        m_carrying = true;
        m_failures = 0;
        Q_EMIT carrying();
        return;
    }
    if (!m_carrying)
        return breach(QStringLiteral("frames before the hello"));
    if (frame.type == CSM_CARRIER_OPEN)
        return open(frame.id);
    if (frame.id == 0 || frame.id > m_lastId)
        return breach(QStringLiteral("a frame for connection %1, never opened").arg(frame.id));
    Connection* connection = m_connections.value(frame.id);
    if (!connection)
        return; // done here already; the carrier learns it from our end or close
    switch (frame.type) {
    case CSM_CARRIER_DATA:
        return receiveData(*connection, frame.payload);
    case CSM_CARRIER_END:
        return receiveEnd(*connection);
    case CSM_CARRIER_CLOSE:
        return drop(frame.id);
    case CSM_CARRIER_ACK: {
        connection->credit += CarrierFrameReader::ackCount(frame.payload);
        if (connection->credit > kWindow)
            return breach(QStringLiteral("more acknowledged than was sent"));
        return forward(frame.id);
    }
    default:
        return breach(QStringLiteral("a '%1' frame").arg(QChar::fromLatin1(frame.type)));
    }
}

void EgressCarrier::open(quint32 id)
{
    if (id <= m_lastId)
        return breach(QStringLiteral("connection %1 opened again").arg(id));
    if (m_connections.size() >= CSM_CARRIER_MAX_CONNECTIONS)
        return breach(QStringLiteral("more than %1 connections").arg(CSM_CARRIER_MAX_CONNECTIONS));
    m_lastId = id;
    auto* connection = new Connection;
    connection->id = id;
    connection->socket = new QLocalSocket(this);
    QLocalSocket* socket = connection->socket;
    // What the proxy sends waits in the kernel, not in the server's memory, while the carrier's
    // window is shut: no more is read than one frame takes.
    socket->setReadBufferSize(CSM_CARRIER_MAX_DATA);
    m_connections.insert(id, connection);
    connect(socket, &QLocalSocket::connected, this, [this, id] {
        Connection* c = m_connections.value(id);
        if (!c)
            return;
        c->connected = true;
        if (!c->early.isEmpty())
            c->socket->write(std::exchange(c->early, {}));
        shutDownIfFlushed(*c);
    });
    connect(socket, &QLocalSocket::readyRead, this, [this, id] { forward(id); });
    connect(socket, &QLocalSocket::bytesWritten, this, [this, id](qint64 written) {
        Connection* c = m_connections.value(id);
        if (!c)
            return;
        c->unwritten -= written;
        c->unacknowledged += written;
        acknowledge(*c);
        shutDownIfFlushed(*c);
    });
    connect(socket, &QLocalSocket::readChannelFinished, this, [this, id] {
        if (Connection* c = m_connections.value(id)) {
            c->proxyEnded = true;
            forward(id);
        }
    });
    connect(socket, &QLocalSocket::disconnected, this, [this, id] { onSocketGone(id); });
    // Never connected (the endpoint is gone, or Qt gave up a connection attempt that waited):
    // the program's connection is refused.
    auto refuse = [this, id] {
        Connection* c = m_connections.value(id);
        if (c && !c->connected) {
            send(CarrierFrameReader::encode(CSM_CARRIER_CLOSE, id));
            drop(id);
        }
    };
    connect(socket, &QLocalSocket::errorOccurred, this, refuse);
    connect(socket, &QLocalSocket::stateChanged, this,
            [refuse](QLocalSocket::LocalSocketState state) {
                if (state == QLocalSocket::UnconnectedState)
                    refuse();
            });
    socket->connectToServer(m_proxySocket);
}

void EgressCarrier::receiveData(Connection& connection, const QByteArray& bytes)
{
    connection.unwritten += bytes.size();
    if (connection.unwritten > kWindow)
        return breach(QStringLiteral("more sent than the window"));
    if (connection.receivedEnd)
        return breach(QStringLiteral("data after the end"));
    if (connection.proxyGone) {
        // Nowhere to go: taken and acknowledged, so the carrier's side can end in its time.
        connection.unwritten -= bytes.size();
        connection.unacknowledged += bytes.size();
        return;
    }
    if (!connection.connected)
        connection.early.append(bytes);
    else
        connection.socket->write(bytes);
}

void EgressCarrier::receiveEnd(Connection& connection)
{
    if (connection.receivedEnd)
        return breach(QStringLiteral("a second end"));
    connection.receivedEnd = true;
    shutDownIfFlushed(connection);
    finishIfDone(connection.id);
}

void EgressCarrier::shutDownIfFlushed(Connection& connection)
{
    if (!connection.receivedEnd || connection.shutDown || !connection.connected ||
        connection.proxyGone || connection.socket->bytesToWrite() > 0)
        return;
    // The program will send nothing more: the proxy reads the end, and may still answer.
    ::shutdown(int(connection.socket->socketDescriptor()), SHUT_WR);
    connection.shutDown = true;
}

void EgressCarrier::forward(quint32 id)
{
    Connection* connection = m_connections.value(id);
    if (!connection)
        return;
    QLocalSocket* socket = connection->socket;
    // No more than the window: what the proxy sends beyond it stays in the socket.
    while (connection->credit > 0 && socket->bytesAvailable() > 0) {
        const QByteArray bytes =
            socket->read(qMin<qint64>(connection->credit, CSM_CARRIER_MAX_DATA));
        if (bytes.isEmpty())
            break;
        send(CarrierFrameReader::encode(CSM_CARRIER_DATA, id, bytes));
        connection->credit -= bytes.size();
    }
    if (connection->proxyEnded && socket->bytesAvailable() == 0 && !connection->sentEnd) {
        send(CarrierFrameReader::encode(CSM_CARRIER_END, id));
        connection->sentEnd = true;
        finishIfDone(id);
    }
}

void EgressCarrier::acknowledge(Connection& connection)
{
    if (connection.unacknowledged == 0)
        return;
    send(CarrierFrameReader::encodeAck(connection.id, quint32(connection.unacknowledged)));
    connection.unacknowledged = 0;
}

void EgressCarrier::onSocketGone(quint32 id)
{
    Connection* connection = m_connections.value(id);
    if (!connection)
        return;
    connection->proxyEnded = true;
    connection->proxyGone = true;
    // What Qt had not written yet is dropped with the socket: acknowledged, or the carrier's
    // window for the connection would stay shut and its end never come.
    connection->early.clear();
    connection->unacknowledged += std::exchange(connection->unwritten, 0);
    acknowledge(*connection);
    forward(id);
    finishIfDone(id);
}

void EgressCarrier::finishIfDone(quint32 id)
{
    Connection* connection = m_connections.value(id);
    if (connection && connection->sentEnd && connection->receivedEnd &&
        (connection->shutDown || connection->proxyGone))
        drop(id);
}

void EgressCarrier::drop(quint32 id)
{
    Connection* connection = m_connections.take(id);
    if (!connection)
        return;
    connection->socket->disconnect(this);
    connection->socket->abort();
    connection->socket->deleteLater();
    delete connection;
}

void EgressCarrier::send(const QByteArray& frame)
{
    if (!m_process)
        return;
    m_process->write(frame);
    if (m_process->bytesToWrite() > kMostUnread)
        breach(QStringLiteral("it does not read what it is sent"));
}

void EgressCarrier::breach(const QString& why)
{
    if (!m_error.isEmpty())
        return;
    m_error =
        QStringLiteral("the egress carrier of %1 broke the protocol (%2)").arg(m_container, why);
    qCWarning(lcSandbox).noquote() << m_error << "- that sandbox has no network any more";
    m_wanted = false;
    if (m_process)
        m_process->kill();
}

} // namespace csm
