#pragma once

#include "transport/http/HttpRequest.h"

#include <QByteArray>
#include <QString>

namespace csm::http {

// An incremental HTTP/1.1 request parser: bytes in as they arrive from a socket, whole requests
// out. It never buffers more than its limits allow, so a hostile client cannot make the server
// hold an unbounded request: an oversized body is refused (413) as soon as its Content-Length
// is read, before any of it arrives. With Pause::AfterHeaders it also stops once a request's
// header section is complete, so that the caller can refuse the request (who sent it, where to)
// before a byte of its body is kept. It is a plain class with no I/O, fuzzed by
// tests/fuzz/fuzz_HttpRequestParser.
class HttpRequestParser final
{
public:
    struct Limits
    {
        qsizetype maxHeaderBytes = 64 * 1024; // request line and all header fields
        int maxHeaderFields = 100;
        qsizetype maxBodyBytes = 16 * 1024 * 1024; // decoded body
    };

    enum class State
    {
        NeedMore,        // nothing complete yet; feed more bytes
        HeadersComplete, // Pause::AfterHeaders: head() is known; resume() reads on
        Complete,        // a request is ready: takeRequest()
        Failed, // the request is malformed or over a limit: errorStatus(); close afterwards
    };

    enum class Pause
    {
        Never,
        // Every request stops at HeadersComplete once its header section is complete, before
        // its framing (Content-Length, Transfer-Encoding) is acted on.
        AfterHeaders,
    };

    explicit HttpRequestParser(Limits limits, Pause pause = Pause::Never);
    HttpRequestParser()
        : HttpRequestParser(Limits{})
    {}

    // Appends `bytes` to what was received and parses as far as possible. Bytes after a complete
    // request (a pipelined next request) are kept for the next call; feed({}) parses them.
    // Once Failed, stays Failed.
    // At HeadersComplete, bytes are kept and nothing is parsed until resume().
    State feed(QByteArrayView bytes);
    State state() const { return m_state; }

    // At HeadersComplete: the request line and header fields of the request in progress (no
    // body yet).
    const HttpRequest& head() const { return m_request; }
    // At HeadersComplete: goes on with the request's body and what follows, as feed() would.
    State resume();

    // The completed request; the parser then starts on the next one with the bytes it kept.
    HttpRequest takeRequest();

    // True once any byte of a request that is not complete yet has been received (a half-sent
    // request: the connection arms its read timeout on this).
    bool hasPartialRequest() const;
    // True when the headers of the request in progress are complete, carry
    // "Expect: 100-continue" and the body has not all arrived: the server then sends
    // "HTTP/1.1 100 Continue" once (curl waits a second for it before sending a body).
    bool expectsContinue() const;

    // For Failed: the status to answer with (400, 413, 431, 501 or 505) and why, for a person.
    int errorStatus() const { return m_errorStatus; }
    QString errorMessage() const { return m_errorMessage; }

private:
    // Implementation-defined: the helper that implements this adds what it needs.
    // Where the request in progress stands.
    enum class Phase
    {
        RequestLine,  // and the empty lines a client may send before it
        HeaderFields, // up to the empty line that ends the header section
        BodyStart,    // the header section is complete; its framing is next
        FixedBody,    // Content-Length bytes
        ChunkSize,    // a chunk-size line (extensions ignored)
        ChunkData,    // the bytes of a chunk
        ChunkDataEnd, // the CRLF after a chunk's bytes
        Trailers,     // trailer fields after the last chunk, read and discarded
    };

    void parse();
    bool parseRequestLine();
    bool parseHeaderField();
    bool startBody();
    bool startChunkedBody();
    bool startFixedBody();
    bool readBody();
    bool parseChunkSize();
    bool readChunkDataEnd();
    bool parseTrailerField();
    bool takeHeaderLine(QByteArrayView& line);
    qsizetype findLineFeed();
    QByteArrayView takeLineTo(qsizetype lineFeed);
    bool splitFieldLine(QByteArrayView line, QByteArrayView& name, QByteArrayView& value);
    void appendToBody(QByteArrayView bytes, qsizetype finalSizeBound);
    qsizetype pendingBytes() const { return m_buffer.size() - m_pos; }
    void complete();
    void fail(int status, const QString& message);

    Limits m_limits;
    Pause m_pause;
    State m_state = State::NeedMore;
    int m_errorStatus = 0;
    QString m_errorMessage;
    // The bytes received and not yet dropped: m_pos is where parsing stands; m_scanPos is where
    // the search for the current line's end stopped, so a line arriving in pieces is scanned once.
    QByteArray m_buffer;
    qsizetype m_pos = 0;
    qsizetype m_scanPos = 0;
    Phase m_phase = Phase::RequestLine;
    HttpRequest m_request;
    qsizetype m_headerBytes = 0; // header section (and trailer section) bytes so far
    int m_fieldCount = 0;        // header (and trailer) fields so far
    qint64 m_remaining = 0;      // body bytes (Content-Length) or chunk bytes still to come
    bool m_expectsContinue = false;
};

} // namespace csm::http
