// libFuzzer target for csm::http::HttpRequestParser: the bytes a hostile client can send.
//
// The input is fed in pieces cut at positions derived from its first bytes, to parsers with small
// limits (so that every limit is reachable by a short input) and with the default ones. Every
// request that completes is checked against what the parser promises, and the small-limit parser
// fed in pieces must give exactly what it gives when fed the input whole. Any violation aborts.

#include "transport/http/HttpRequestParser.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using csm::http::HttpRequest;
using csm::http::HttpRequestParser;
using State = HttpRequestParser::State;

namespace {

// Everything the parser produced from one input.
struct Outcome
{
    QList<HttpRequest> requests;
    State state = State::NeedMore;
    int errorStatus = 0;
    QString errorMessage;
};

void check(bool condition, const char* invariant)
{
    if (condition)
        return;
    std::fprintf(stderr, "fuzz_HttpRequestParser: invariant violated: %s\n", invariant);
    std::abort();
}

bool isTchar(char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), isTchar);
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

void checkRequest(const HttpRequest& request, const HttpRequestParser::Limits& limits)
{
    check(request.body.size() <= limits.maxBodyBytes, "body within maxBodyBytes");
    check(request.headers.size() <= limits.maxHeaderFields, "fields within maxHeaderFields");
    check(isToken(request.method), "method is a token");
    check(request.target == QByteArrayView("*") || request.target.startsWith('/'),
          "target in origin-form or \"*\"");
    check(std::none_of(request.target.begin(), request.target.end(),
                       [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }),
          "target without spaces or control characters");
    check(request.minorVersion == 0 || request.minorVersion == 1, "HTTP/1.0 or HTTP/1.1");
    qsizetype fieldBytes = request.method.size() + request.target.size();
    for (const auto& [name, value] : request.headers) {
        check(isToken(name), "field name is a token");
        check(name == name.toLower(), "field name lower-cased");
        check(!value.isNull(), "field value not null");
        check(value.isEmpty() || (!isBlank(value.front()) && !isBlank(value.back())),
              "field value trimmed");
        check(std::none_of(value.begin(), value.end(),
                           [](char c) {
                               const auto byte = static_cast<unsigned char>(c);
                               return (byte < 0x20 && c != '\t') || byte == 0x7f;
                           }),
              "field value without control characters");
        fieldBytes += name.size() + value.size();
    }
    check(fieldBytes <= limits.maxHeaderBytes, "header section within maxHeaderBytes");
    check(request.header("content-length").isNull() || request.header("transfer-encoding").isNull(),
          "never both Content-Length and Transfer-Encoding");
    // The accessors must not misbehave on anything the parser accepts.
    check(request.path().size() <= request.target.size(), "path is a prefix of the target");
    static_cast<void>(request.keepAlive());
}

void checkParser(const HttpRequestParser& parser)
{
    switch (parser.state()) {
    case State::Failed: {
        const int status = parser.errorStatus();
        check(status == 400 || status == 413 || status == 414 || status == 431 || status == 501 ||
                  status == 505,
              "a failure answers 400, 413, 414, 431, 501 or 505");
        check(!parser.errorMessage().isEmpty(), "a failure says why");
        check(!parser.hasPartialRequest() && !parser.expectsContinue(), "a failure is final");
        break;
    }
    case State::Complete:
        check(!parser.hasPartialRequest() && !parser.expectsContinue(),
              "a complete request is not partial");
        check(parser.errorStatus() == 0, "no error status without a failure");
        break;
    case State::NeedMore:
        check(parser.errorStatus() == 0, "no error status without a failure");
        check(!parser.expectsContinue() || parser.hasPartialRequest(),
              "100 Continue only for a request in progress");
        break;
    case State::HeadersComplete:
        check(parser.errorStatus() == 0, "no error status without a failure");
        check(!parser.expectsContinue(), "no 100 Continue before the head is admitted");
        check(!parser.head().method.isEmpty() && parser.head().body.isEmpty(),
              "a head has a request line and no body yet");
        break;
    }
}

// Feeds the pieces of `input` that end at `cuts`, taking every request as it completes.
// With Pause::AfterHeaders every head is admitted at once: the outcome must be the same as
// without pauses.
Outcome run(const HttpRequestParser::Limits& limits, QByteArrayView input,
            const QList<qsizetype>& cuts,
            HttpRequestParser::Pause pause = HttpRequestParser::Pause::Never)
{
    HttpRequestParser parser(limits, pause);
    Outcome outcome;
    qsizetype from = 0;
    const auto admitHeads = [&parser, pause] {
        while (parser.state() == State::HeadersComplete) {
            check(pause == HttpRequestParser::Pause::AfterHeaders, "a pause only when asked");
            check(parser.feed({}) == State::HeadersComplete, "feed() parses nothing in a pause");
            parser.resume();
            checkParser(parser);
        }
    };
    for (const qsizetype cut : cuts) {
        const State state = parser.feed(input.sliced(from, cut - from));
        from = cut;
        check(state == parser.state(), "feed() returns the state");
        checkParser(parser);
        admitHeads();
        while (parser.state() == State::Complete) {
            const HttpRequest request = parser.takeRequest();
            checkRequest(request, limits);
            outcome.requests.append(request);
            check(parser.state() == State::NeedMore, "takeRequest() starts on the next request");
            parser.feed({});
            checkParser(parser);
            admitHeads();
        }
    }
    if (parser.state() == State::Failed) {
        // Failed stays Failed, whatever comes next.
        check(parser.feed("GET / HTTP/1.1\r\n\r\n") == State::Failed, "Failed stays Failed");
        check(parser.takeRequest().method.isEmpty(), "nothing to take after a failure");
    }
    outcome.state = parser.state();
    outcome.errorStatus = parser.errorStatus();
    outcome.errorMessage = parser.errorMessage();
    return outcome;
}

bool sameRequest(const HttpRequest& a, const HttpRequest& b)
{
    return a.method == b.method && a.target == b.target && a.minorVersion == b.minorVersion &&
           a.headers == b.headers && a.body == b.body;
}

bool sameOutcome(const Outcome& a, const Outcome& b)
{
    return a.state == b.state && a.errorStatus == b.errorStatus &&
           a.errorMessage == b.errorMessage &&
           std::equal(a.requests.begin(), a.requests.end(), b.requests.begin(), b.requests.end(),
                      sameRequest);
}

// Up to four cut positions from a hash of the first bytes (so that mutating them moves the cuts),
// or one byte per feed for short inputs; the last cut is the end of the input.
QList<qsizetype> cutsFor(QByteArrayView input)
{
    quint64 hash = 14695981039346656037ULL; // FNV-1a
    for (const char c : input.first(std::min<qsizetype>(input.size(), 8)))
        hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    QList<qsizetype> cuts;
    if ((hash & 7) == 0 && input.size() <= 2048) {
        for (qsizetype i = 1; i <= input.size(); ++i)
            cuts.append(i);
        return cuts;
    }
    const int count = int((hash >> 3) % 5);
    for (int i = 0; i < count; ++i) {
        const quint64 bits = hash >> (8 + 12 * i);
        cuts.append(qsizetype(bits % quint64(input.size() + 1)));
    }
    cuts.append(input.size());
    std::sort(cuts.begin(), cuts.end());
    return cuts;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char*>(data), qsizetype(size));
    const QList<qsizetype> cuts = cutsFor(input);

    HttpRequestParser::Limits small;
    small.maxHeaderBytes = 4 * 1024;
    small.maxHeaderFields = 16;
    small.maxBodyBytes = 64 * 1024;
    const Outcome whole = run(small, input, {input.size()});
    const Outcome pieces = run(small, input, cuts);
    check(sameOutcome(whole, pieces),
          "the same requests and the same end however the bytes arrive");
    const Outcome paused = run(small, input, cuts, HttpRequestParser::Pause::AfterHeaders);
    check(sameOutcome(whole, paused), "pausing after each head changes nothing else");

    run(HttpRequestParser::Limits{}, input, cuts);
    return 0;
}
