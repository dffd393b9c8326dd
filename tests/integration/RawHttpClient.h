#pragma once

#include <QByteArray>
#include <QDeadlineTimer>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QTcpSocket>

#include <optional>
#include <utility>

// A deliberately small HTTP/1.1 client over one QTcpSocket, for tests that must control every
// byte on the wire: it sends whatever it is given (half a request, two Host fields, a
// Content-Length with no body), reads responses framed by Content-Length, chunked coding or the
// connection's end, reads Server-Sent Events one at a time as they arrive, and tells when the
// server closed the connection. Blocking, with explicit timeouts: nothing here needs an event
// loop.
class RawHttpClient final
{
public:
    using Field = std::pair<QByteArray, QByteArray>;

    // A request to compose: the fields go out exactly as listed (nothing is added but a
    // Content-Length when there is a body).
    struct Request
    {
        QByteArray method = "POST";
        QByteArray target = "/mcp";
        QByteArray version = "HTTP/1.1";
        QList<Field> fields;
        QByteArray body; // null: no body and no Content-Length

        // Replaces every field of that name (case-insensitive) by one; a null value removes it.
        Request& set(const QByteArray& name, const QByteArray& value);
        Request& add(const QByteArray& name, const QByteArray& value);
        QByteArray head() const; // the request line and fields, up to the empty line
        QByteArray bytes() const;
    };

    struct Response
    {
        int status = 0;
        QByteArray reason;
        QList<Field> fields; // names lower-case, values trimmed
        QByteArray body;     // decoded (chunked coding removed)

        // The first field of that (lower-case) name; null when absent.
        QByteArray header(QByteArrayView lowerCaseName) const;
        int headerCount(QByteArrayView lowerCaseName) const;
        // Content-Type without parameters, lower-case.
        QByteArray mediaType() const;
        bool isChunked() const;
        // The body as a JSON object (empty if it is not one).
        QJsonObject json() const;
    };

    // One Server-Sent Event: its type and its data (data lines joined by '\n').
    struct Event
    {
        QByteArray type = "message";
        QByteArray data;
        QByteArray id;

        QJsonObject json() const;
    };

    explicit RawHttpClient(quint16 port, const QString& address = QStringLiteral("127.0.0.1"));
    ~RawHttpClient();
    RawHttpClient(const RawHttpClient&) = delete;
    RawHttpClient& operator=(const RawHttpClient&) = delete;

    bool connectToServer(int timeoutMs = 5'000);
    bool send(const QByteArray& bytes);
    bool send(const Request& request) { return send(request.bytes()); }

    // A whole response: head and body. `bodyless` for the answer to a HEAD request.
    std::optional<Response> readResponse(int timeoutMs = 30'000, bool bodyless = false);
    // Only the head of a response whose body is a stream; its events follow with readEvent().
    std::optional<Response> readHead(int timeoutMs = 30'000);
    // The next event of the stream begun with readHead(), skipping comments (keep-alives); none
    // when the stream ended (streamEnded()), the connection closed, or time ran out.
    std::optional<Event> readEvent(int timeoutMs = 30'000);
    // Every remaining event of the stream, until it ends or time runs out.
    QList<Event> readEventsUntilEnd(int timeoutMs = 30'000);
    bool streamEnded() const { return m_stream.ended; }

    // Waits for the server to close the connection; true if it did within the time. Bytes that
    // arrive meanwhile are kept for the reads above.
    bool waitForServerClose(int timeoutMs);
    bool isConnected() const { return m_socket.state() == QAbstractSocket::ConnectedState; }
    // Bytes received and not consumed by any read yet.
    QByteArray unreadBytes() const { return m_buffer; }
    // Why the last read returned nothing.
    QString lastError() const { return m_error; }

    // The client ends the connection: gracefully (FIN), or at once with a reset (RST).
    void close();
    void abort();

private:
    enum class Framing
    {
        None,
        Length,
        Chunked,
        UntilClose,
    };

    struct StreamState
    {
        Framing framing = Framing::None;
        qint64 remaining = 0;     // bytes of the current chunk, or of the Content-Length body
        bool inChunkData = false; // reading a chunk's bytes (else at a chunk-size line)
        bool ended = false;       // the body is complete
        QByteArray text;          // decoded body bytes not yet handed out
    };

    // Reads what the socket has; waits for more until the deadline. False when nothing new came
    // (time ran out, or the connection is closed).
    bool receiveMore(const QDeadlineTimer& deadline);
    std::optional<Response> parseHead(const QDeadlineTimer& deadline);
    // Moves decoded body bytes from m_buffer to m_stream.text; false on malformed framing.
    bool decodeBody();
    bool fail(const QString& error);

    QTcpSocket m_socket;
    quint16 m_port;
    QString m_address;
    QByteArray m_buffer;
    StreamState m_stream;
    QString m_error;
};
