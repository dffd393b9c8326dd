#pragma once

#include "transport/http/HttpRequest.h"
#include "transport/http/HttpRequestParser.h"

#include <QByteArray>
#include <QObject>
#include <QTimer>

#include <functional>
#include <optional>

class QTcpSocket;

namespace csm::http {

struct HttpResponse;

// One client connection: reads requests through HttpRequestParser and writes responses, either
// whole or as a chunked stream (Server-Sent Events) written after the handler returned.
// Persistent: after a response, the next request on the connection is read. One request is
// handled at a time; a pipelined next request waits in the buffer until the response is out.
//
// Each request is first judged on its head alone (Admission: Host, Origin, token): a refused one
// is answered at once, before "100 Continue" and before any of its body is kept, and the
// connection closes after its answer. Whatever else the client sends meanwhile is read and
// dropped for a few seconds, so that it sees the answer rather than a reset.
//
// Timeouts protect the server from clients that hold connections: an idle connection closes
// after `idleMs`, and a request must arrive whole within `requestMs` of its first byte (else
// 408). While a request is being handled or a stream is open, no timeout runs: a tool call may
// take minutes.
class HttpConnection final : public QObject
{
    Q_OBJECT

public:
    struct Timeouts
    {
        int idleMs = 60'000;
        int requestMs = 30'000;
    };

    // The refusal to answer a request with, from its request line and header fields; nothing
    // when its body may be read.
    using Admission = std::function<std::optional<HttpResponse>(const HttpRequest& head)>;

    // Takes ownership of the connected socket.
    HttpConnection(QTcpSocket* socket, HttpRequestParser::Limits limits, Timeouts timeouts,
                   Admission admission, QObject* parent = nullptr);
    ~HttpConnection() override;

    // The complete response to the request being handled.
    void respond(const HttpResponse& response);
    // The head of a streamed response; the body follows with writeToStream(), and endStream()
    // completes it.
    void beginStream(const HttpResponse& head);
    void writeToStream(const QByteArray& data);
    void endStream();
    // Closes at once, whatever is pending.
    void abort();

    bool isClosed() const { return m_state == State::Closed; }

Q_SIGNALS:
    void requestReceived(csm::http::HttpConnection* connection,
                         const csm::http::HttpRequest& request);
    // The connection is gone (closed by either side); the object is deleted later.
    void closed(csm::http::HttpConnection* connection);

private:
    enum class State
    {
        Idle,      // waiting for a request
        Reading,   // part of a request has arrived
        Handling,  // a request was handed out; its response is owed
        Streaming, // a streamed response is being written
        Closing,   // the last response is being flushed before the close
        Closed,
    };

    void readAvailable();
    void parse(QByteArrayView bytes);
    // Answers `response` to a request that is not read to its end, and closes.
    void refuse(const HttpResponse& response, bool headRequest);
    void finishResponse();
    void closeAfterWriting();
    void stopWriting();
    void onDisconnected();
    void onTimeout();
    QByteArray head(const HttpResponse& response, bool streaming) const;

    QTcpSocket* m_socket;
    HttpRequestParser m_parser;
    Timeouts m_timeouts;
    Admission m_admission;
    State m_state = State::Idle;
    QTimer m_timer;
    // Bytes that arrived while a request was being handled (a pipelined request), bounded.
    QByteArray m_held;
    bool m_keepAlive = true;
    bool m_chunked = true;
    bool m_continueSent = false;
    bool m_headRequest = false;
    // The last request was answered before it was read whole: input is dropped until the close.
    bool m_drainInput = false;
    bool m_writingStopped = false;
    int m_minorVersion = 1;
};

} // namespace csm::http
