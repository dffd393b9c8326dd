#include "transport/http/HttpConnection.h"

#include "core/Logging.h"
#include "transport/http/HttpResponse.h"

#include <QTcpSocket>

#if defined(Q_OS_UNIX)
#include <sys/socket.h>
#endif

namespace csm::http {

namespace {
// What a client may send ahead while its previous request is handled; more is abuse.
constexpr qsizetype kMaxHeldBytes = 1024 * 1024;
// A stream whose client reads nothing is dropped rather than buffered without bound.
constexpr qint64 kMaxUnsentBytes = 16 * 1024 * 1024;
// How long a response may take to flush before a close becomes an abort.
constexpr int kCloseGraceMs = 5'000;
} // namespace

HttpConnection::HttpConnection(QTcpSocket* socket, HttpRequestParser::Limits limits,
                               Timeouts timeouts, Admission admission, QObject* parent)
    : QObject(parent)
    , m_socket(socket)
    , m_parser(limits, HttpRequestParser::Pause::AfterHeaders)
    , m_timeouts(timeouts)
    , m_admission(std::move(admission))
    , m_timer(this)
{
    m_socket->setParent(this);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &HttpConnection::onTimeout);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::readAvailable);
    connect(m_socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    m_timer.start(m_timeouts.idleMs);
    if (m_socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(this, &HttpConnection::readAvailable, Qt::QueuedConnection);
}

HttpConnection::~HttpConnection() = default;

void HttpConnection::readAvailable()
{
    if (m_state == State::Closed || m_state == State::Closing) {
        m_socket->readAll(); // nothing more is read from a connection on its way out
        return;
    }
    const QByteArray bytes = m_socket->readAll();
    if (m_state == State::Handling || m_state == State::Streaming) {
        m_held.append(bytes);
        if (m_held.size() > kMaxHeldBytes) {
            qCWarning(lcHttp) << "closing a connection that sent" << m_held.size()
                              << "bytes ahead of its response";
            abort();
        }
        return;
    }
    parse(bytes);
}

void HttpConnection::parse(QByteArrayView bytes)
{
    HttpRequestParser::State state = m_parser.feed(bytes);
    if (state == HttpRequestParser::State::HeadersComplete) {
        if (const std::optional<HttpResponse> refusal =
                m_admission ? m_admission(m_parser.head()) : std::nullopt) {
            refuse(*refusal, m_parser.head().method == "HEAD");
            return;
        }
        state = m_parser.resume();
    }
    if (state == HttpRequestParser::State::Failed) {
        // The request cannot be read, so neither can anything after it: answer and close.
        refuse(HttpResponse::error(m_parser.errorStatus(), m_parser.errorMessage(),
                                   jsonrpc::ErrorCode::InvalidRequest),
               false);
        return;
    }
    if (state == HttpRequestParser::State::Complete) {
        HttpRequest request = m_parser.takeRequest();
        m_minorVersion = request.minorVersion;
        m_headRequest = request.method == "HEAD";
        m_keepAlive = request.keepAlive();
        m_continueSent = false;
        m_state = State::Handling;
        m_timer.stop();
        Q_EMIT requestReceived(this, request);
        return;
    }
    if (m_parser.expectsContinue() && !m_continueSent) {
        m_continueSent = true;
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    }
    if (m_parser.hasPartialRequest()) {
        if (m_state != State::Reading) {
            m_state = State::Reading;
            m_timer.start(m_timeouts.requestMs);
        }
    } else if (m_state != State::Idle) {
        m_state = State::Idle;
        m_timer.start(m_timeouts.idleMs);
    }
}

void HttpConnection::refuse(const HttpResponse& response, bool headRequest)
{
    // Where the rest of the request ends is not known (or not to be trusted): nothing after it
    // on this connection can be read as a request.
    m_keepAlive = false;
    m_headRequest = headRequest;
    m_drainInput = true;
    m_state = State::Handling;
    m_timer.stop();
    respond(response);
}

QByteArray HttpConnection::head(const HttpResponse& response, bool streaming) const
{
    QByteArray text = "HTTP/1.1 " + QByteArray::number(response.status) + ' ' +
                      HttpResponse::reasonPhrase(response.status) + "\r\n";
    for (const auto& [name, value] : response.headers)
        text += name + ": " + value + "\r\n";
    if (streaming) {
        if (m_chunked)
            text += "Transfer-Encoding: chunked\r\n";
    } else {
        text += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n";
    }
    text += m_keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
    text += "\r\n";
    return text;
}

void HttpConnection::respond(const HttpResponse& response)
{
    if (m_state != State::Handling)
        return;
    if (response.header("Connection").compare("close", Qt::CaseInsensitive) == 0)
        m_keepAlive = false;
    HttpResponse whole = response;
    whole.headers.removeIf([](const auto& field) {
        return field.first.compare("Connection", Qt::CaseInsensitive) == 0;
    });
    // A response to HEAD has the headers of the full response and never a body (RFC 9110 9.3.2):
    // bytes after them would be read as the next response.
    m_socket->write(m_headRequest ? head(whole, false) : head(whole, false) + whole.body);
    finishResponse();
}

void HttpConnection::beginStream(const HttpResponse& head)
{
    if (m_state != State::Handling)
        return;
    // HTTP/1.0 has no chunked coding: the stream's end is the connection's.
    m_chunked = m_minorVersion >= 1;
    if (!m_chunked)
        m_keepAlive = false;
    m_state = State::Streaming;
    m_socket->write(this->head(head, true));
}

void HttpConnection::writeToStream(const QByteArray& data)
{
    if (m_state != State::Streaming || data.isEmpty())
        return;
    if (m_socket->bytesToWrite() > kMaxUnsentBytes) {
        qCWarning(lcHttp) << "closing a stream whose client reads nothing";
        abort();
        return;
    }
    if (m_chunked)
        m_socket->write(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n");
    else
        m_socket->write(data);
}

void HttpConnection::endStream()
{
    if (m_state != State::Streaming)
        return;
    if (m_chunked)
        m_socket->write("0\r\n\r\n");
    finishResponse();
}

void HttpConnection::finishResponse()
{
    if (!m_keepAlive) {
        closeAfterWriting();
        return;
    }
    m_state = State::Idle;
    m_timer.start(m_timeouts.idleMs);
    // A request the client sent ahead is read now, from the event loop: never from inside the
    // handler that is still returning from respond().
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (m_state != State::Idle)
                return;
            const QByteArray held = std::exchange(m_held, {});
            parse(held);
        },
        Qt::QueuedConnection);
}

void HttpConnection::closeAfterWriting()
{
    m_state = State::Closing;
    m_timer.start(kCloseGraceMs);
    if (!m_drainInput) {
        m_socket->disconnectFromHost();
        return;
    }
    // A client still sending the body of a refused request would get a reset for its next
    // bytes, and a reset can make its system drop the answer before the client reads it
    // (RFC 9112 9.6). So only the sending half closes, once the answer is out; what the client
    // still sends is read and dropped until it closes or the grace period ends.
    if (m_socket->bytesToWrite() == 0) {
        stopWriting();
        return;
    }
    connect(m_socket, &QTcpSocket::bytesWritten, this, [this] {
        if (m_socket->bytesToWrite() == 0)
            stopWriting();
    });
}

void HttpConnection::stopWriting()
{
    if (m_writingStopped)
        return;
    m_writingStopped = true;
#if defined(Q_OS_UNIX)
    ::shutdown(static_cast<int>(m_socket->socketDescriptor()), SHUT_WR);
#else
    m_socket->disconnectFromHost();
#endif
}

void HttpConnection::abort()
{
    if (m_state == State::Closed)
        return;
    m_socket->abort();
    onDisconnected();
}

void HttpConnection::onDisconnected()
{
    if (m_state == State::Closed)
        return;
    m_state = State::Closed;
    m_timer.stop();
    Q_EMIT closed(this);
    deleteLater();
}

void HttpConnection::onTimeout()
{
    switch (m_state) {
    case State::Idle:
        qCDebug(lcHttp) << "closing an idle connection";
        closeAfterWriting();
        return;
    case State::Reading:
        qCInfo(lcHttp) << "a request did not arrive whole within" << m_timeouts.requestMs
                       << "ms; answering 408";
        refuse(HttpResponse::error(408, QStringLiteral("The request did not arrive in time")),
               false);
        return;
    case State::Closing:
        abort();
        return;
    case State::Handling:
    case State::Streaming:
    case State::Closed:
        return;
    }
}

} // namespace csm::http
