#include "transport/http/HttpRequestParser.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace csm::http {

namespace {

// A chunk-size line is a hex number and extensions the parser ignores; this bound keeps a client
// from streaming an endless extension into the buffer.
constexpr qsizetype kMaxChunkLineBytes = 4096;

// RFC 9110 5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" /
// "`" / "|" / "~" / DIGIT / ALPHA
bool isTchar(char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

bool isToken(QByteArrayView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), isTchar);
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

bool isControl(char c)
{
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
}

// Trims SP and HTAB only (QByteArrayView::trimmed also takes CR, LF, VT and FF).
QByteArrayView trimBlanks(QByteArrayView text)
{
    while (!text.isEmpty() && isBlank(text.front()))
        text = text.sliced(1);
    while (!text.isEmpty() && isBlank(text.back()))
        text.chop(1);
    return text;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Content-Length = 1*DIGIT: no sign, no whitespace, no list; a value that does not fit in 63 bits
// is invalid rather than wrapped.
std::optional<qint64> parseContentLength(QByteArrayView text)
{
    if (text.isEmpty())
        return std::nullopt;
    qint64 value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        const int digit = c - '0';
        if (value > (std::numeric_limits<qint64>::max() - digit) / 10)
            return std::nullopt;
        value = value * 10 + digit;
    }
    return value;
}

bool isValidTarget(QByteArrayView target)
{
    // origin-form ("/path?query") or asterisk-form; absolute-form and authority-form are for
    // proxies, which this server is not.
    if (target != QByteArrayView("*") && (target.isEmpty() || target.front() != '/'))
        return false;
    return std::none_of(target.begin(), target.end(),
                        [](char c) { return c == ' ' || isControl(c); });
}

// A header value as stored: never null, so that header() tells "present but empty" from absent.
QByteArray fieldValue(QByteArrayView value)
{
    return value.isEmpty() ? QByteArray("", 0) : value.toByteArray();
}

} // namespace

HttpRequestParser::HttpRequestParser(Limits limits, Pause pause)
    : m_limits(limits)
    , m_pause(pause)
{
    m_limits.maxHeaderBytes = std::max<qsizetype>(m_limits.maxHeaderBytes, 0);
    m_limits.maxHeaderFields = std::max(m_limits.maxHeaderFields, 0);
    m_limits.maxBodyBytes = std::max<qsizetype>(m_limits.maxBodyBytes, 0);
}

HttpRequestParser::State HttpRequestParser::feed(QByteArrayView bytes)
{
    if (m_state == State::Failed)
        return m_state;
    if (!bytes.isEmpty()) {
        // Drop what was parsed before growing, so the buffer holds only the unparsed rest (at
        // most a header section or a chunk-size line) and this feed.
        if (m_pos > 0) {
            m_buffer.remove(0, m_pos);
            m_scanPos = std::max<qsizetype>(m_scanPos - m_pos, 0);
            m_pos = 0;
        }
        m_buffer.append(bytes);
    }
    if (m_state == State::NeedMore)
        parse();
    return m_state;
}

HttpRequestParser::State HttpRequestParser::resume()
{
    if (m_state != State::HeadersComplete)
        return m_state;
    m_state = State::NeedMore;
    parse();
    return m_state;
}

HttpRequest HttpRequestParser::takeRequest()
{
    if (m_state != State::Complete)
        return {};
    HttpRequest request = std::move(m_request);
    m_request = HttpRequest{};
    m_state = State::NeedMore;
    m_phase = Phase::RequestLine;
    m_headerBytes = 0;
    m_fieldCount = 0;
    m_remaining = 0;
    m_expectsContinue = false;
    return request;
}

bool HttpRequestParser::hasPartialRequest() const
{
    if (m_state != State::NeedMore)
        return false;
    if (m_phase != Phase::RequestLine)
        return true;
    // Empty lines before a request line are not part of a request (RFC 9112 2.2): a client may
    // send a CRLF after a body.
    const QByteArrayView pending = QByteArrayView(m_buffer).sliced(m_pos);
    return std::any_of(pending.begin(), pending.end(),
                       [](char c) { return c != '\r' && c != '\n'; });
}

bool HttpRequestParser::expectsContinue() const
{
    if (m_state != State::NeedMore || !m_expectsContinue)
        return false;
    switch (m_phase) {
    case Phase::FixedBody:
    case Phase::ChunkSize:
    case Phase::ChunkData:
    case Phase::ChunkDataEnd:
        return true;
    case Phase::RequestLine:
    case Phase::HeaderFields:
    case Phase::BodyStart:
    case Phase::Trailers:
        return false;
    }
    return false;
}

void HttpRequestParser::parse()
{
    bool progressed = true;
    while (progressed && m_state == State::NeedMore) {
        switch (m_phase) {
        case Phase::RequestLine:
            progressed = parseRequestLine();
            break;
        case Phase::HeaderFields:
            progressed = parseHeaderField();
            break;
        case Phase::BodyStart:
            progressed = startBody();
            break;
        case Phase::FixedBody:
        case Phase::ChunkData:
            progressed = readBody();
            break;
        case Phase::ChunkSize:
            progressed = parseChunkSize();
            break;
        case Phase::ChunkDataEnd:
            progressed = readChunkDataEnd();
            break;
        case Phase::Trailers:
            progressed = parseTrailerField();
            break;
        }
    }
}

bool HttpRequestParser::parseRequestLine()
{
    QByteArrayView line;
    if (!takeHeaderLine(line))
        return false;
    if (line.isEmpty())
        return true; // RFC 9112 2.2; counted against maxHeaderBytes, so they cannot go on forever
    // method SP request-target SP HTTP-version, single spaces (RFC 9112 3).
    const qsizetype methodEnd = line.indexOf(' ');
    const qsizetype targetEnd = methodEnd < 0 ? -1 : line.indexOf(' ', methodEnd + 1);
    if (targetEnd < 0) {
        fail(400, QStringLiteral("malformed request line"));
        return false;
    }
    const QByteArrayView method = line.first(methodEnd);
    const QByteArrayView target = line.sliced(methodEnd + 1, targetEnd - methodEnd - 1);
    const QByteArrayView version = line.sliced(targetEnd + 1);
    if (!isToken(method)) {
        fail(400, QStringLiteral("malformed request method"));
        return false;
    }
    if (!isValidTarget(target)) {
        fail(400, QStringLiteral("malformed request target (origin-form or \"*\" expected)"));
        return false;
    }
    if (version == QByteArrayView("HTTP/1.1")) {
        m_request.minorVersion = 1;
    } else if (version == QByteArrayView("HTTP/1.0")) {
        m_request.minorVersion = 0;
    } else {
        // "HTTP/2.0", "HTTP/1.2", "HTTP/3": an HTTP version, just not one spoken here. Anything
        // else is not a request line at all.
        const QByteArrayView number =
            version.startsWith(QByteArrayView("HTTP/")) ? version.sliced(5) : QByteArrayView();
        const bool isVersion =
            !number.isEmpty() && std::all_of(number.begin(), number.end(), [](char c) {
                return (c >= '0' && c <= '9') || c == '.';
            });
        if (isVersion)
            fail(505, QStringLiteral("HTTP version not supported (HTTP/1.0 and HTTP/1.1 are)"));
        else
            fail(400, QStringLiteral("malformed HTTP version"));
        return false;
    }
    m_request.method = method.toByteArray();
    m_request.target = target.toByteArray();
    m_phase = Phase::HeaderFields;
    return true;
}

bool HttpRequestParser::parseHeaderField()
{
    QByteArrayView line;
    if (!takeHeaderLine(line))
        return false;
    if (line.isEmpty()) {
        m_phase = Phase::BodyStart;
        if (m_pause == Pause::AfterHeaders) {
            m_state = State::HeadersComplete;
            return false;
        }
        return true;
    }
    if (++m_fieldCount > m_limits.maxHeaderFields) {
        fail(431, QStringLiteral("more than %1 header fields").arg(m_limits.maxHeaderFields));
        return false;
    }
    QByteArrayView name;
    QByteArrayView value;
    if (!splitFieldLine(line, name, value))
        return false;
    m_request.headers.append({name.toByteArray().toLower(), fieldValue(value)});
    return true;
}

bool HttpRequestParser::startBody()
{
    const bool chunked = m_request.headerCount("transfer-encoding") > 0;
    const bool sized = m_request.headerCount("content-length") > 0;
    if (chunked && sized) {
        // RFC 9112 6.3: the two framings disagree on where the body ends, the classic request
        // smuggling vector; refuse rather than pick one.
        fail(400, QStringLiteral("both Content-Length and Transfer-Encoding"));
        return false;
    }
    // RFC 9110 10.1.1: an HTTP/1.0 client does not wait for 100 Continue.
    m_expectsContinue =
        m_request.minorVersion >= 1 &&
        trimBlanks(m_request.header("expect")).compare("100-continue", Qt::CaseInsensitive) == 0;
    if (chunked)
        return startChunkedBody();
    if (sized)
        return startFixedBody();
    complete(); // no framing: a request without a body
    return false;
}

bool HttpRequestParser::startChunkedBody()
{
    if (m_request.minorVersion == 0) {
        // RFC 9112 6.1: the framing of an HTTP/1.0 message with Transfer-Encoding is faulty.
        fail(400, QStringLiteral("Transfer-Encoding in an HTTP/1.0 request"));
        return false;
    }
    // The codings of every Transfer-Encoding field form one list (RFC 9110 5.3); empty list
    // elements do not count (RFC 9110 5.6.1).
    int codings = 0;
    bool onlyChunked = true;
    for (const auto& [name, value] : std::as_const(m_request.headers)) {
        if (name != QByteArrayView("transfer-encoding"))
            continue;
        for (const QByteArray& element : value.split(',')) {
            const QByteArrayView coding = trimBlanks(element);
            if (coding.isEmpty())
                continue;
            ++codings;
            onlyChunked = onlyChunked && coding.compare("chunked", Qt::CaseInsensitive) == 0;
        }
    }
    if (codings == 0) {
        fail(400, QStringLiteral("empty Transfer-Encoding"));
        return false;
    }
    if (codings != 1 || !onlyChunked) {
        fail(501, QStringLiteral("unsupported transfer coding (only \"chunked\" is)"));
        return false;
    }
    m_phase = Phase::ChunkSize;
    return true;
}

bool HttpRequestParser::startFixedBody()
{
    // Repeated fields are accepted only with one value (RFC 9110 8.6).
    std::optional<qint64> length;
    for (const auto& [name, value] : std::as_const(m_request.headers)) {
        if (name != QByteArrayView("content-length"))
            continue;
        const std::optional<qint64> parsed = parseContentLength(value);
        if (!parsed) {
            fail(400, QStringLiteral("invalid Content-Length"));
            return false;
        }
        if (length && *length != *parsed) {
            fail(400, QStringLiteral("conflicting Content-Length fields"));
            return false;
        }
        length = parsed;
    }
    if (*length > m_limits.maxBodyBytes) {
        fail(413, QStringLiteral("body of %1 bytes exceeds the limit of %2")
                      .arg(*length)
                      .arg(m_limits.maxBodyBytes));
        return false;
    }
    if (*length == 0) {
        complete();
        return false;
    }
    m_remaining = *length;
    m_phase = Phase::FixedBody;
    return true;
}

bool HttpRequestParser::readBody()
{
    const qsizetype count = qsizetype(std::min<qint64>(m_remaining, pendingBytes()));
    if (count == 0)
        return false;
    const bool chunk = m_phase == Phase::ChunkData;
    // A fixed body ends at a size known now; a chunked one can reach the limit at most.
    appendToBody(QByteArrayView(m_buffer).sliced(m_pos, count),
                 chunk ? m_limits.maxBodyBytes : m_request.body.size() + m_remaining);
    m_pos += count;
    m_remaining -= count;
    if (m_remaining > 0)
        return false;
    if (chunk)
        m_phase = Phase::ChunkDataEnd;
    else
        complete();
    return chunk;
}

bool HttpRequestParser::parseChunkSize()
{
    const qsizetype lineFeed = findLineFeed();
    const qsizetype lineBytes = (lineFeed < 0 ? m_buffer.size() : lineFeed + 1) - m_pos;
    if (lineBytes > kMaxChunkLineBytes) {
        fail(400, QStringLiteral("chunk-size line too long"));
        return false;
    }
    if (lineFeed < 0)
        return false;
    const QByteArrayView line = takeLineTo(lineFeed);

    // chunk-size = 1*HEXDIG; leading zeros are allowed, so count digits without overflowing and
    // stop accumulating once the size is known to be too large.
    const qint64 room = m_limits.maxBodyBytes - m_request.body.size();
    qint64 size = 0;
    bool tooLarge = false;
    qsizetype digits = 0;
    for (; digits < line.size(); ++digits) {
        const int digit = hexValue(line[digits]);
        if (digit < 0)
            break;
        if (tooLarge)
            continue;
        if (size > (std::numeric_limits<qint64>::max() - digit) / 16) {
            tooLarge = true;
            continue;
        }
        size = size * 16 + digit;
        tooLarge = size > room;
    }
    // Then nothing, or BWS ";" and extensions, which are ignored.
    QByteArrayView rest = line.sliced(digits);
    const QByteArrayView extensions = trimBlanks(rest);
    const bool validRest =
        rest.isEmpty() ||
        (!extensions.isEmpty() && extensions.front() == ';' &&
         std::none_of(rest.begin(), rest.end(), [](char c) { return c != '\t' && isControl(c); }));
    if (digits == 0 || !validRest) {
        fail(400, QStringLiteral("malformed chunk size"));
        return false;
    }
    if (tooLarge) {
        fail(413, QStringLiteral("chunked body exceeds the limit of %1 bytes")
                      .arg(m_limits.maxBodyBytes));
        return false;
    }
    if (size == 0) {
        m_phase = Phase::Trailers;
    } else {
        m_remaining = size;
        m_phase = Phase::ChunkData;
    }
    return true;
}

bool HttpRequestParser::readChunkDataEnd()
{
    if (pendingBytes() == 0)
        return false;
    const char first = m_buffer.at(m_pos);
    if (first == '\n') {
        m_pos += 1;
    } else if (first == '\r' && pendingBytes() < 2) {
        return false;
    } else if (first == '\r' && m_buffer.at(m_pos + 1) == '\n') {
        m_pos += 2;
    } else {
        fail(400, QStringLiteral("chunk data not followed by a line end"));
        return false;
    }
    m_phase = Phase::ChunkSize;
    return true;
}

bool HttpRequestParser::parseTrailerField()
{
    // Trailers count against the header limits: they are a second header section.
    QByteArrayView line;
    if (!takeHeaderLine(line))
        return false;
    if (line.isEmpty()) {
        complete();
        return false;
    }
    if (++m_fieldCount > m_limits.maxHeaderFields) {
        fail(
            431,
            QStringLiteral("more than %1 header and trailer fields").arg(m_limits.maxHeaderFields));
        return false;
    }
    QByteArrayView name;
    QByteArrayView value;
    return splitFieldLine(line, name, value);
}

bool HttpRequestParser::takeHeaderLine(QByteArrayView& line)
{
    const qsizetype lineFeed = findLineFeed();
    // A line still arriving counts too, so an endless line fails as soon as it is too long.
    const qsizetype lineBytes = (lineFeed < 0 ? m_buffer.size() : lineFeed + 1) - m_pos;
    if (m_headerBytes + lineBytes > m_limits.maxHeaderBytes) {
        // One status for a long request line and for long fields (no 414): the limit is on the
        // whole header section, whichever part of it is long.
        fail(431,
             QStringLiteral("header section larger than %1 bytes").arg(m_limits.maxHeaderBytes));
        return false;
    }
    if (lineFeed < 0)
        return false;
    m_headerBytes += lineBytes;
    line = takeLineTo(lineFeed);
    return true;
}

qsizetype HttpRequestParser::findLineFeed()
{
    const qsizetype lineFeed = m_buffer.indexOf('\n', std::max(m_scanPos, m_pos));
    m_scanPos = lineFeed < 0 ? m_buffer.size() : lineFeed;
    return lineFeed;
}

QByteArrayView HttpRequestParser::takeLineTo(qsizetype lineFeed)
{
    // CRLF or a bare LF (RFC 9112 2.2); a CR anywhere else stays in the line and is refused as a
    // control character.
    QByteArrayView line = QByteArrayView(m_buffer).sliced(m_pos, lineFeed - m_pos);
    if (!line.isEmpty() && line.back() == '\r')
        line.chop(1);
    m_pos = lineFeed + 1;
    return line;
}

bool HttpRequestParser::splitFieldLine(QByteArrayView line, QByteArrayView& name,
                                       QByteArrayView& value)
{
    if (isBlank(line.front())) {
        fail(400, QStringLiteral("obsolete line folding in a header field"));
        return false;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon < 0) {
        fail(400, QStringLiteral("header field without a colon"));
        return false;
    }
    name = line.first(colon);
    if (!name.isEmpty() && isBlank(name.back())) {
        // RFC 9112 5.1: "Host : x" is refused, it has been used to smuggle fields past proxies.
        fail(400, QStringLiteral("whitespace between a header field name and its colon"));
        return false;
    }
    if (!isToken(name)) {
        fail(400, QStringLiteral("malformed header field name"));
        return false;
    }
    value = trimBlanks(line.sliced(colon + 1));
    if (std::any_of(value.begin(), value.end(), [](char c) { return c != '\t' && isControl(c); })) {
        fail(400, QStringLiteral("control character in a header field value"));
        return false;
    }
    return true;
}

void HttpRequestParser::appendToBody(QByteArrayView bytes, qsizetype finalSizeBound)
{
    QByteArray& body = m_request.body;
    const qsizetype needed = body.size() + bytes.size();
    if (needed > body.capacity()) {
        // Doubling keeps appending linear; the bound keeps the allocation within what the body
        // can reach (its Content-Length or maxBodyBytes).
        const qsizetype grown = std::max(needed, std::min(finalSizeBound, 2 * body.capacity()));
        body.reserve(grown);
    }
    body.append(bytes);
}

void HttpRequestParser::complete()
{
    m_state = State::Complete;
}

void HttpRequestParser::fail(int status, const QString& message)
{
    m_state = State::Failed;
    m_errorStatus = status;
    m_errorMessage = message;
    // The connection is closed after the error response: nothing kept is of use any more.
    m_buffer = QByteArray();
    m_pos = 0;
    m_scanPos = 0;
    m_request = HttpRequest{};
}

} // namespace csm::http
