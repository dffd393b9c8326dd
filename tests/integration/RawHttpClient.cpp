#include "RawHttpClient.h"

#include <QJsonDocument>

#include <algorithm>

namespace {
bool sameName(QByteArrayView a, QByteArrayView b)
{
    return a.compare(b, Qt::CaseInsensitive) == 0;
}

// The time left before `deadline`, as a waitFor*() argument: at least 1 ms, so that an expired
// deadline polls once instead of waiting forever (-1).
int waitMs(const QDeadlineTimer& deadline)
{
    if (deadline.isForever())
        return 100;
    return static_cast<int>(std::clamp<qint64>(deadline.remainingTime(), 1, 100));
}
} // namespace

RawHttpClient::Request& RawHttpClient::Request::set(const QByteArray& name, const QByteArray& value)
{
    fields.removeIf([&name](const Field& field) { return sameName(field.first, name); });
    if (!value.isNull())
        fields.append({name, value});
    return *this;
}

RawHttpClient::Request& RawHttpClient::Request::add(const QByteArray& name, const QByteArray& value)
{
    fields.append({name, value});
    return *this;
}

QByteArray RawHttpClient::Request::head() const
{
    QByteArray text = method + ' ' + target + ' ' + version + "\r\n";
    for (const auto& [name, value] : fields)
        text += name + ": " + value + "\r\n";
    if (!body.isNull())
        text += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    return text + "\r\n";
}

QByteArray RawHttpClient::Request::bytes() const
{
    return head() + body;
}

QByteArray RawHttpClient::Response::header(QByteArrayView lowerCaseName) const
{
    for (const auto& [name, value] : fields) {
        if (QByteArrayView(name) == lowerCaseName)
            return value;
    }
    return {};
}

int RawHttpClient::Response::headerCount(QByteArrayView lowerCaseName) const
{
    return static_cast<int>(
        std::count_if(fields.cbegin(), fields.cend(), [lowerCaseName](const Field& field) {
            return QByteArrayView(field.first) == lowerCaseName;
        }));
}

QByteArray RawHttpClient::Response::mediaType() const
{
    return header("content-type").split(';').constFirst().trimmed().toLower();
}

bool RawHttpClient::Response::isChunked() const
{
    return header("transfer-encoding").trimmed().toLower() == "chunked";
}

QJsonObject RawHttpClient::Response::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QJsonObject RawHttpClient::Event::json() const
{
    return QJsonDocument::fromJson(data).object();
}

RawHttpClient::RawHttpClient(quint16 port, const QString& address)
    : m_port(port)
    , m_address(address)
{}

RawHttpClient::~RawHttpClient()
{
    m_socket.abort();
}

bool RawHttpClient::connectToServer(int timeoutMs)
{
    m_socket.connectToHost(m_address, m_port);
    if (!m_socket.waitForConnected(timeoutMs))
        return fail(QStringLiteral("could not connect: %1").arg(m_socket.errorString()));
    return true;
}

bool RawHttpClient::send(const QByteArray& bytes)
{
    if (!isConnected())
        return fail(QStringLiteral("not connected"));
    m_socket.write(bytes);
    const QDeadlineTimer deadline(30'000);
    while (m_socket.bytesToWrite() > 0) {
        if (!m_socket.waitForBytesWritten(waitMs(deadline)) && !isConnected())
            return fail(QStringLiteral("the connection closed while sending"));
        if (deadline.hasExpired())
            return fail(QStringLiteral("sending took longer than 30 s"));
    }
    return true;
}

bool RawHttpClient::receiveMore(const QDeadlineTimer& deadline)
{
    const qsizetype before = m_buffer.size();
    m_buffer += m_socket.readAll();
    while (m_buffer.size() == before && isConnected() && !deadline.hasExpired()) {
        m_socket.waitForReadyRead(waitMs(deadline));
        m_buffer += m_socket.readAll();
    }
    return m_buffer.size() > before;
}

bool RawHttpClient::fail(const QString& error)
{
    m_error = error;
    return false;
}

std::optional<RawHttpClient::Response> RawHttpClient::parseHead(const QDeadlineTimer& deadline)
{
    qsizetype end = -1;
    while ((end = m_buffer.indexOf("\r\n\r\n")) < 0) {
        if (!receiveMore(deadline)) {
            fail(isConnected() ? QStringLiteral("no complete response head in time")
                               : QStringLiteral("the connection closed before a response head"));
            return std::nullopt;
        }
    }
    const QByteArray head = m_buffer.left(end);
    m_buffer.remove(0, end + 4);
    const QList<QByteArray> lines = head.split('\n');
    // "HTTP/1.1 200 OK"
    const QByteArray statusLine = lines.constFirst().trimmed();
    const QList<QByteArray> parts = statusLine.split(' ');
    Response response;
    bool ok = false;
    if (parts.size() >= 2 && parts.at(0).startsWith("HTTP/1."))
        response.status = parts.at(1).toInt(&ok);
    if (!ok) {
        fail(QStringLiteral("not an HTTP response: \"%1\"")
                 .arg(QString::fromLatin1(statusLine.left(200))));
        return std::nullopt;
    }
    response.reason = statusLine.mid(parts.at(0).size() + parts.at(1).size() + 2);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0) {
            fail(QStringLiteral("malformed response field \"%1\"")
                     .arg(QString::fromLatin1(line.left(200))));
            return std::nullopt;
        }
        response.fields.append(
            {line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed()});
    }
    return response;
}

bool RawHttpClient::decodeBody()
{
    StreamState& s = m_stream;
    switch (s.framing) {
    case Framing::None:
        s.ended = true;
        return true;
    case Framing::Length: {
        const qsizetype count =
            static_cast<qsizetype>(std::min<qint64>(s.remaining, m_buffer.size()));
        s.text += m_buffer.left(count);
        m_buffer.remove(0, count);
        s.remaining -= count;
        s.ended = s.remaining == 0;
        return true;
    }
    case Framing::UntilClose:
        s.text += std::exchange(m_buffer, {});
        s.ended = !isConnected();
        return true;
    case Framing::Chunked:
        break;
    }
    while (!s.ended) {
        if (s.inChunkData) {
            const qsizetype count =
                static_cast<qsizetype>(std::min<qint64>(s.remaining, m_buffer.size()));
            s.text += m_buffer.left(count);
            m_buffer.remove(0, count);
            s.remaining -= count;
            if (s.remaining > 0 || m_buffer.size() < 2)
                return true; // more to come
            if (!m_buffer.startsWith("\r\n"))
                return fail(QStringLiteral("chunk data not followed by CRLF"));
            m_buffer.remove(0, 2);
            s.inChunkData = false;
            continue;
        }
        const qsizetype lineEnd = m_buffer.indexOf("\r\n");
        if (lineEnd < 0)
            return true;
        const QByteArray line = m_buffer.left(lineEnd);
        m_buffer.remove(0, lineEnd + 2);
        if (s.remaining < 0) {
            // After the last chunk: trailer fields up to an empty line.
            s.ended = line.isEmpty();
            continue;
        }
        bool ok = false;
        const qint64 size = line.split(';').constFirst().trimmed().toLongLong(&ok, 16);
        if (!ok || size < 0)
            return fail(QStringLiteral("malformed chunk size \"%1\"")
                            .arg(QString::fromLatin1(line.left(100))));
        if (size == 0) {
            s.remaining = -1;
        } else {
            s.remaining = size;
            s.inChunkData = true;
        }
    }
    return true;
}

std::optional<RawHttpClient::Response> RawHttpClient::readHead(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    std::optional<Response> response;
    do {
        response = parseHead(deadline);
        // 1xx responses are interim: the real one follows.
    } while (response && response->status >= 100 && response->status < 200);
    if (!response)
        return std::nullopt;
    m_stream = StreamState{};
    if (response->status == 204 || response->status == 304) {
        m_stream.framing = Framing::None;
    } else if (response->isChunked()) {
        m_stream.framing = Framing::Chunked;
    } else if (const QByteArray length = response->header("content-length"); !length.isNull()) {
        m_stream.framing = Framing::Length;
        m_stream.remaining = length.toLongLong();
    } else {
        m_stream.framing = Framing::UntilClose;
    }
    return response;
}

std::optional<RawHttpClient::Response> RawHttpClient::readResponse(int timeoutMs, bool bodyless)
{
    const QDeadlineTimer deadline(timeoutMs);
    std::optional<Response> response = readHead(timeoutMs);
    if (!response)
        return std::nullopt;
    if (bodyless)
        m_stream.framing = Framing::None;
    for (;;) {
        if (!decodeBody())
            return std::nullopt;
        if (m_stream.ended)
            break;
        if (!receiveMore(deadline)) {
            if (m_stream.framing == Framing::UntilClose && !isConnected())
                break;
            fail(isConnected() ? QStringLiteral("the body did not arrive whole in time")
                               : QStringLiteral("the connection closed in the middle of a body"));
            return std::nullopt;
        }
    }
    response->body = std::exchange(m_stream.text, {});
    m_stream.ended = true;
    return response;
}

std::optional<RawHttpClient::Event> RawHttpClient::readEvent(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    for (;;) {
        const qsizetype end = m_stream.text.indexOf("\n\n");
        if (end >= 0) {
            const QByteArray block = m_stream.text.left(end);
            m_stream.text.remove(0, end + 2);
            Event event;
            bool dispatch = false;
            QList<QByteArray> data;
            for (QByteArray line : block.split('\n')) {
                if (line.endsWith('\r'))
                    line.chop(1);
                if (line.isEmpty() || line.startsWith(':'))
                    continue; // a comment: the server's keep-alive
                const qsizetype colon = line.indexOf(':');
                const QByteArray name = colon < 0 ? line : line.left(colon);
                QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
                if (value.startsWith(' '))
                    value.remove(0, 1);
                if (name == "event") {
                    event.type = value;
                    dispatch = true;
                } else if (name == "data") {
                    data << value;
                    dispatch = true;
                } else if (name == "id") {
                    event.id = value;
                }
            }
            if (!dispatch)
                continue;
            event.data = data.join('\n');
            return event;
        }
        if (m_stream.ended) {
            fail(QStringLiteral("the stream ended"));
            return std::nullopt;
        }
        const qsizetype decoded = m_stream.text.size();
        if (!decodeBody())
            return std::nullopt;
        if (m_stream.text.size() > decoded || m_stream.ended)
            continue;
        if (!receiveMore(deadline)) {
            if (!isConnected()) {
                // Framed by the connection's end, the stream is complete now.
                if (decodeBody() && (m_stream.text.size() > decoded || m_stream.ended))
                    continue;
                fail(QStringLiteral("the connection closed before the stream ended"));
            } else {
                fail(QStringLiteral("no event in time"));
            }
            return std::nullopt;
        }
    }
}

QList<RawHttpClient::Event> RawHttpClient::readEventsUntilEnd(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    QList<Event> events;
    while (auto event = readEvent(static_cast<int>(std::max<qint64>(deadline.remainingTime(), 1))))
        events << *event;
    return events;
}

bool RawHttpClient::waitForServerClose(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (isConnected() && !deadline.hasExpired()) {
        m_socket.waitForReadyRead(waitMs(deadline));
        m_buffer += m_socket.readAll();
    }
    m_buffer += m_socket.readAll();
    return !isConnected();
}

void RawHttpClient::close()
{
    m_socket.disconnectFromHost();
    if (m_socket.state() != QAbstractSocket::UnconnectedState)
        m_socket.waitForDisconnected(5'000);
}

void RawHttpClient::abort()
{
    m_socket.abort();
}
