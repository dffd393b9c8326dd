#include "transport/http/HttpRequestParser.h"

#include <QElapsedTimer>
#include <QTest>

using csm::http::HttpRequest;
using csm::http::HttpRequestParser;
using Limits = HttpRequestParser::Limits;
using State = HttpRequestParser::State;
using Fields = QList<QPair<QByteArray, QByteArray>>;

namespace {

// One feed and what the parser says after it.
struct Step
{
    QByteArray bytes;
    State state;
    bool partial;   // hasPartialRequest()
    bool continues; // expectsContinue()
};
using Steps = QList<Step>;

enum class Feeding
{
    Whole,
    ByteByByte,
};

// A byte array from a literal that may hold NUL bytes.
template <qsizetype N>
QByteArray raw(const char (&text)[N])
{
    return QByteArray(text, N - 1);
}

QByteArray withContentLength(const QByteArray& head, const QByteArray& body)
{
    return head + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

QByteArray chunked(const QByteArray& chunks)
{
    return "POST /mcp HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks;
}

// Feeds the input whole or one byte at a time (stopping at a failure); the state at the end.
State feedAll(HttpRequestParser& parser, const QByteArray& input, Feeding feeding)
{
    if (feeding == Feeding::Whole)
        return parser.feed(input);
    State state = parser.state();
    for (const char byte : input) {
        if (state == State::Failed)
            break;
        state = parser.feed(QByteArrayView(&byte, 1));
    }
    return state;
}

// Takes every complete request, feeding the kept bytes back in between.
QList<HttpRequest> drain(HttpRequestParser& parser)
{
    QList<HttpRequest> requests;
    while (parser.state() == State::Complete) {
        requests.append(parser.takeRequest());
        parser.feed({});
    }
    return requests;
}

} // namespace

Q_DECLARE_METATYPE(csm::http::HttpRequestParser::Limits)
Q_DECLARE_METATYPE(Step)

class tst_HttpRequestParser final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void completeRequest_data();
    void completeRequest();
    void errors_data();
    void errors();
    void pipelining_data();
    void pipelining();
    void partialAndContinue_data();
    void partialAndContinue();
    void keepAlive_data();
    void keepAlive();
    void headerLookup();
    void path_data();
    void path();
    void feedWhileComplete();
    void takeRequestWhenNotComplete();
    void largeBody_data();
    void largeBody();
    void largeHeaderByteByByte();
    void pauseAfterHeaders_data();
    void pauseAfterHeaders();
    void pausedParserKeepsNoBody();
    void pausePerPipelinedRequest();
};

void tst_HttpRequestParser::completeRequest_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<Limits>("limits");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("minorVersion");
    QTest::addColumn<Fields>("headers");
    QTest::addColumn<QByteArray>("body");

    const QByteArray json = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
    const Fields te{{"host", "a"}, {"transfer-encoding", "chunked"}};

    QTest::newRow("simple GET") << QByteArray("GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n")
                                << Limits{} << QByteArray("GET") << QByteArray("/mcp") << 1
                                << Fields{{"host", "localhost"}} << QByteArray();
    QTest::newRow("GET with a query")
        << QByteArray("GET /mcp?session=1&x=%20 HTTP/1.1\r\nHost: a\r\n\r\n") << Limits{}
        << QByteArray("GET") << QByteArray("/mcp?session=1&x=%20") << 1 << Fields{{"host", "a"}}
        << QByteArray();
    QTest::newRow("POST with Content-Length")
        << withContentLength("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n",
                             json)
        << Limits{} << QByteArray("POST") << QByteArray("/mcp") << 1
        << Fields{{"host", "a"},
                  {"content-type", "application/json"},
                  {"content-length", QByteArray::number(json.size())}}
        << json;
    QTest::newRow("LF-only lines")
        << QByteArray("POST /mcp HTTP/1.1\nHost: a\nContent-Length: 5\n\nhello") << Limits{}
        << QByteArray("POST") << QByteArray("/mcp") << 1
        << Fields{{"host", "a"}, {"content-length", "5"}} << QByteArray("hello");
    QTest::newRow("mixed line ends") << QByteArray("GET / HTTP/1.1\nHost: a\r\nAccept: */*\n\r\n")
                                     << Limits{} << QByteArray("GET") << QByteArray("/") << 1
                                     << Fields{{"host", "a"}, {"accept", "*/*"}} << QByteArray();
    QTest::newRow("leading empty lines")
        << QByteArray("\r\n\n\r\nGET / HTTP/1.1\r\n\r\n") << Limits{} << QByteArray("GET")
        << QByteArray("/") << 1 << Fields{} << QByteArray();
    QTest::newRow("HTTP/1.0") << QByteArray("GET /index.html HTTP/1.0\r\n\r\n") << Limits{}
                              << QByteArray("GET") << QByteArray("/index.html") << 0 << Fields{}
                              << QByteArray();
    QTest::newRow("asterisk-form")
        << QByteArray("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n") << Limits{} << QByteArray("OPTIONS")
        << QByteArray("*") << 1 << Fields{{"host", "a"}} << QByteArray();
    QTest::newRow("methods are case-sensitive tokens")
        << QByteArray("m-SEARCH! / HTTP/1.1\r\n\r\n") << Limits{} << QByteArray("m-SEARCH!")
        << QByteArray("/") << 1 << Fields{} << QByteArray();
    QTest::newRow("names lower-cased, values trimmed")
        << QByteArray("GET / HTTP/1.1\r\nX-Custom-Header: \t value  with  spaces \t\r\n"
                      "Empty:\r\nTabbed:\tv\r\nNo-Space:v\r\n\r\n")
        << Limits{} << QByteArray("GET") << QByteArray("/") << 1
        << Fields{{"x-custom-header", "value  with  spaces"},
                  {"empty", ""},
                  {"tabbed", "v"},
                  {"no-space", "v"}}
        << QByteArray();
    QTest::newRow("obs-text and tab inside a value")
        << QByteArray("GET / HTTP/1.1\r\nX-Name: caf\xc3\xa9\ta\r\n\r\n") << Limits{}
        << QByteArray("GET") << QByteArray("/") << 1 << Fields{{"x-name", "caf\xc3\xa9\ta"}}
        << QByteArray();
    QTest::newRow("Content-Length 0") << QByteArray("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
                                      << Limits{} << QByteArray("POST") << QByteArray("/") << 1
                                      << Fields{{"content-length", "0"}} << QByteArray();
    QTest::newRow("repeated identical Content-Length")
        << QByteArray("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc")
        << Limits{} << QByteArray("POST") << QByteArray("/") << 1
        << Fields{{"content-length", "3"}, {"content-length", "3"}} << QByteArray("abc");
    QTest::newRow("Content-Length with leading zeros")
        << QByteArray("POST / HTTP/1.1\r\nContent-Length: 003\r\n\r\nabc") << Limits{}
        << QByteArray("POST") << QByteArray("/") << 1 << Fields{{"content-length", "003"}}
        << QByteArray("abc");
    QTest::newRow("body with line ends and NUL")
        << withContentLength("POST / HTTP/1.1\r\n", raw("a\r\n\r\nb\0c")) << Limits{}
        << QByteArray("POST") << QByteArray("/") << 1 << Fields{{"content-length", "8"}}
        << raw("a\r\n\r\nb\0c");
    QTest::newRow("chunked") << chunked("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n") << Limits{}
                             << QByteArray("POST") << QByteArray("/mcp") << 1 << te
                             << QByteArray("hello world");
    QTest::newRow("chunked with extensions and trailers")
        << chunked("4;ext=1\r\nWiki\r\n5 ; a=\"x y\"; b\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n"
                   "0;last\r\nExpires: never\r\nX-Checksum: 1\r\n\r\n")
        << Limits{} << QByteArray("POST") << QByteArray("/mcp") << 1 << te
        << QByteArray("Wikipedia in\r\n\r\nchunks.");
    QTest::newRow("chunked, LF-only lines")
        << QByteArray("POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n5\nhello\n0\n\n") << Limits{}
        << QByteArray("POST") << QByteArray("/") << 1 << Fields{{"transfer-encoding", "chunked"}}
        << QByteArray("hello");
    QTest::newRow("chunked, upper-case hex and leading zeros")
        << chunked("000A\r\n0123456789\r\n00\r\n\r\n") << Limits{} << QByteArray("POST")
        << QByteArray("/mcp") << 1 << te << QByteArray("0123456789");
    QTest::newRow("chunked, coding name in capitals")
        << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n") << Limits{}
        << QByteArray("POST") << QByteArray("/") << 1 << Fields{{"transfer-encoding", "Chunked"}}
        << QByteArray();
    QTest::newRow("chunked, empty list elements")
        << QByteArray(
               "POST / HTTP/1.1\r\nTransfer-Encoding: , chunked ,\r\n\r\n1\r\nx\r\n0\r\n\r\n")
        << Limits{} << QByteArray("POST") << QByteArray("/") << 1
        << Fields{{"transfer-encoding", ", chunked ,"}} << QByteArray("x");
    QTest::newRow("body at exactly the limit")
        << QByteArray("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
        << Limits{.maxBodyBytes = 5} << QByteArray("POST") << QByteArray("/") << 1
        << Fields{{"content-length", "5"}} << QByteArray("hello");
    QTest::newRow("chunked body at exactly the limit")
        << chunked("5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n") << Limits{.maxBodyBytes = 10}
        << QByteArray("POST") << QByteArray("/mcp") << 1 << te << QByteArray("helloworld");
    QTest::newRow("header section at exactly the limit")
        << QByteArray("GET / HTTP/1.1\r\n\r\n") << Limits{.maxHeaderBytes = 18} << QByteArray("GET")
        << QByteArray("/") << 1 << Fields{} << QByteArray();
    QTest::newRow("fields at exactly the limit")
        << QByteArray("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n") << Limits{.maxHeaderFields = 2}
        << QByteArray("GET") << QByteArray("/") << 1 << Fields{{"a", "1"}, {"b", "2"}}
        << QByteArray();
}

void tst_HttpRequestParser::completeRequest()
{
    QFETCH(QByteArray, input);
    QFETCH(Limits, limits);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, target);
    QFETCH(int, minorVersion);
    QFETCH(Fields, headers);
    QFETCH(QByteArray, body);

    for (const Feeding feeding : {Feeding::Whole, Feeding::ByteByByte}) {
        HttpRequestParser parser(limits);
        if (feeding == Feeding::ByteByByte) {
            // Complete with the last byte, not before.
            QCOMPARE(feedAll(parser, input.chopped(1), feeding), State::NeedMore);
            QVERIFY(parser.hasPartialRequest());
            QCOMPARE(parser.feed(input.right(1)), State::Complete);
        } else {
            QCOMPARE(feedAll(parser, input, feeding), State::Complete);
        }
        QCOMPARE(parser.state(), State::Complete);
        QVERIFY(!parser.hasPartialRequest());
        QVERIFY(!parser.expectsContinue());
        QCOMPARE(parser.errorStatus(), 0);

        const HttpRequest request = parser.takeRequest();
        QCOMPARE(request.method, method);
        QCOMPARE(request.target, target);
        QCOMPARE(request.minorVersion, minorVersion);
        QCOMPARE(request.headers, headers);
        QCOMPARE(request.body, body);

        // Nothing was kept: the parser waits for the next request.
        QCOMPARE(parser.state(), State::NeedMore);
        QVERIFY(!parser.hasPartialRequest());
        QCOMPARE(parser.feed({}), State::NeedMore);
    }
}

void tst_HttpRequestParser::errors_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<Limits>("limits");
    QTest::addColumn<int>("status");

    const auto row = [](const char* name, const QByteArray& input, int status,
                        Limits limits = Limits{}) {
        QTest::newRow(name) << input << limits << status;
    };
    const auto withField = [](const QByteArray& field) -> QByteArray {
        return "GET / HTTP/1.1\r\nHost: a\r\n" + field + "\r\n\r\n";
    };
    const auto withLength = [](const QByteArray& value) -> QByteArray {
        return "POST / HTTP/1.1\r\nContent-Length: " + value + "\r\n\r\n";
    };
    const auto withCoding = [](const QByteArray& value) -> QByteArray {
        return "POST / HTTP/1.1\r\nTransfer-Encoding: " + value + "\r\n\r\n0\r\n\r\n";
    };

    // 400: request line
    row("request line without spaces", "GET\r\n\r\n", 400);
    row("request line without version", "GET /\r\n\r\n", 400);
    row("two spaces after the method", "GET  / HTTP/1.1\r\n\r\n", 400);
    row("token after the version", "GET / HTTP/1.1 x\r\n\r\n", 400);
    row("empty method", " / HTTP/1.1\r\n\r\n", 400);
    row("method not a token", "GE(T / HTTP/1.1\r\n\r\n", 400);
    row("target not origin-form", "GET mcp HTTP/1.1\r\n\r\n", 400);
    row("absolute-form target", "GET http://example.com/ HTTP/1.1\r\n\r\n", 400);
    row("control character in the target", "GET /a\x01z HTTP/1.1\r\n\r\n", 400);
    row("tab in the target", "GET /a\tb HTTP/1.1\r\n\r\n", 400);
    row("DEL in the target", "GET /a\x7f HTTP/1.1\r\n\r\n", 400);
    row("lower-case version", "GET / http/1.1\r\n\r\n", 400);
    row("not a version", "GET / FOO/1.1\r\n\r\n", 400);
    row("bare CR before the line end", "GET / HTTP/1.1\r\r\n\r\n", 400);
    // 400: header fields
    row("field without a colon", withField("Accept"), 400);
    row("empty field name", withField(": x"), 400);
    row("space before the colon", withField("Accept : x"), 400);
    row("tab before the colon", withField("Accept\t: x"), 400);
    row("field name not a token", withField("Acc(ept: x"), 400);
    row("non-ASCII field name", withField("H\xc3\xb6st: x"), 400);
    row("obs-fold", withField("X-Long: a\r\n  continued"), 400);
    row("obs-fold with a tab", withField("X-Long: a\r\n\tcontinued"), 400);
    row("whitespace before the first field", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", 400);
    row("control character in a value", withField("X: a\x01z"), 400);
    row("NUL in a value", withField(raw("X: a\0z")), 400);
    row("bare CR in a value", withField("X: a\rz"), 400);
    row("DEL in a value", withField("X: a\x7f"), 400);
    // 400: Content-Length
    row("Content-Length not a number", withLength("abc"), 400);
    row("negative Content-Length", withLength("-1"), 400);
    row("Content-Length with a plus sign", withLength("+5"), 400);
    row("Content-Length list", withLength("5, 5"), 400);
    row("Content-Length with inner space", withLength("5 5"), 400);
    row("Content-Length in hex", withLength("0x5"), 400);
    row("empty Content-Length", withLength(""), 400);
    row("Content-Length overflowing 64 bits", withLength("99999999999999999999"), 400);
    row("conflicting Content-Length fields",
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", 400);
    row("valid and invalid Content-Length",
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: x\r\n\r\nhello", 400);
    // 400: request smuggling
    row("Content-Length then Transfer-Encoding",
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400);
    row("Transfer-Encoding then Content-Length",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n", 400);
    row("Content-Length with an unsupported coding",
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc", 400);
    row("Transfer-Encoding in HTTP/1.0",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400);
    row("empty Transfer-Encoding", withCoding(""), 400);
    row("Transfer-Encoding of empty elements", withCoding(" , ,"), 400);
    // 400: chunked framing
    row("chunk size not hex", chunked("zz\r\n"), 400);
    row("empty chunk size", chunked("\r\n"), 400);
    row("chunk size with 0x", chunked("0x5\r\nhello\r\n0\r\n\r\n"), 400);
    row("chunk size with a sign", chunked("+5\r\nhello\r\n0\r\n\r\n"), 400);
    row("chunk size followed by junk", chunked("5 x\r\nhello\r\n0\r\n\r\n"), 400);
    row("chunk size with trailing space", chunked("5 \r\nhello\r\n0\r\n\r\n"), 400);
    row("control character in a chunk extension", chunked("5;a\x01\r\nhello\r\n0\r\n\r\n"), 400);
    row("chunk longer than its size", chunked("5\r\nhello!\r\n0\r\n\r\n"), 400);
    row("CR without LF after chunk data", chunked("5\r\nhello\rx0\r\n\r\n"), 400);
    row("chunk-size line too long", chunked("5;" + QByteArray(5000, 'x') + "\r\n"), 400);
    row("malformed trailer", chunked("0\r\nnot a field\r\n\r\n"), 400);
    row("obs-fold in a trailer", chunked("0\r\nA: 1\r\n 2\r\n\r\n"), 400);

    // 413, answered from the headers alone: no body byte is fed.
    row("Content-Length just over the default limit", withLength("16777217"), 413);
    row("huge Content-Length", withLength("1099511627776"), 413);
    row("Content-Length over a small limit", withLength("11"), 413, Limits{.maxBodyBytes = 10});
    row("chunk over the limit", chunked("B\r\n"), 413, Limits{.maxBodyBytes = 10});
    row("huge chunk size", chunked("FFFFFFFFFFFFFFFFFFFFFFFFFFFF\r\n"), 413);
    row("chunks adding up past the limit", chunked("6\r\nabcdef\r\n5\r\n"), 413,
        Limits{.maxBodyBytes = 10});

    // 431
    row("header section one byte over the limit", "GET / HTTP/1.1\r\n\r\n", 431,
        Limits{.maxHeaderBytes = 17});
    row("long field", withField("X: " + QByteArray(100, 'v')), 431, Limits{.maxHeaderBytes = 64});
    row("long request line", "GET /" + QByteArray(100, 'a') + " HTTP/1.1\r\n\r\n", 431,
        Limits{.maxHeaderBytes = 64});
    row("long request line still arriving", "GET /" + QByteArray(100, 'a'), 431,
        Limits{.maxHeaderBytes = 64});
    row("header section over the default limit", withField("X: " + QByteArray(65536, 'v')), 431);
    row("endless empty lines", QByteArray(40, '\n'), 431, Limits{.maxHeaderBytes = 32});
    row("one field too many", withField("B: 1\r\nC: 1"), 431, Limits{.maxHeaderFields = 2});
    QByteArray manyFields;
    for (int i = 0; i <= 100; ++i)
        manyFields += "X-" + QByteArray::number(i) + ": 1\r\n";
    row("101 fields by default", "GET / HTTP/1.1\r\n" + manyFields + "\r\n", 431);
    row("trailers over the header limit", chunked("0\r\nX: " + QByteArray(100, 't') + "\r\n\r\n"),
        431, Limits{.maxHeaderBytes = 100});
    row("too many trailer fields", chunked("0\r\nA: 1\r\nB: 2\r\n\r\n"), 431,
        Limits{.maxHeaderFields = 3});

    // 501
    row("gzip", withCoding("gzip"), 501);
    row("gzip, chunked", withCoding("gzip, chunked"), 501);
    row("chunked, gzip", withCoding("chunked, gzip"), 501);
    row("chunked twice", withCoding("chunked, chunked"), 501);
    row("identity", withCoding("identity"), 501);
    row("chunked with a parameter", withCoding("chunked;q=1"), 501);
    row("codings over two fields",
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", 501);

    // 505
    row("HTTP/2.0", "GET / HTTP/2.0\r\n\r\n", 505);
    row("HTTP/2", "GET / HTTP/2\r\n\r\n", 505);
    row("HTTP/1.2", "GET / HTTP/1.2\r\n\r\n", 505);
    row("HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", 505);
    row("HTTP/3", "PRI * HTTP/3\r\n\r\n", 505);
}

void tst_HttpRequestParser::errors()
{
    QFETCH(QByteArray, input);
    QFETCH(Limits, limits);
    QFETCH(int, status);

    for (const Feeding feeding : {Feeding::Whole, Feeding::ByteByByte}) {
        HttpRequestParser parser(limits);
        QCOMPARE(feedAll(parser, input, feeding), State::Failed);
        QCOMPARE(parser.state(), State::Failed);
        QCOMPARE(parser.errorStatus(), status);
        QVERIFY(!parser.errorMessage().isEmpty());
        QVERIFY(!parser.hasPartialRequest());
        QVERIFY(!parser.expectsContinue());
        // Failed is final: a good request afterwards changes nothing.
        QCOMPARE(parser.feed("GET / HTTP/1.1\r\n\r\n"), State::Failed);
        QCOMPARE(parser.feed({}), State::Failed);
        QCOMPARE(parser.errorStatus(), status);
        QVERIFY(parser.takeRequest().method.isEmpty());
    }
}

void tst_HttpRequestParser::pipelining_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QList<QByteArray>>("targets");
    QTest::addColumn<QList<QByteArray>>("bodies");
    QTest::addColumn<bool>("partialAtEnd");

    using Bytes = QList<QByteArray>;
    QTest::newRow("two GETs") << QByteArray("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                                            "GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
                              << Bytes{"/a", "/b"} << Bytes{"", ""} << false;
    QTest::newRow("POST then GET")
        << QByteArray("POST /a HTTP/1.1\r\nContent-Length: 4\r\n\r\nbodyGET /b HTTP/1.1\r\n\r\n")
        << Bytes{"/a", "/b"} << Bytes{"body", ""} << false;
    QTest::newRow("chunked then POST")
        << QByteArray("POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                      "POST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nxy")
        << Bytes{"/a", "/b"} << Bytes{"abc", "xy"} << false;
    QTest::newRow("CRLF after a body")
        << QByteArray("POST /a HTTP/1.1\r\nContent-Length: 1\r\n\r\nx\r\nGET /b HTTP/1.1\r\n\r\n")
        << Bytes{"/a", "/b"} << Bytes{"x", ""} << false;
    QTest::newRow("trailing CRLF is not a request")
        << QByteArray("POST /a HTTP/1.1\r\nContent-Length: 1\r\n\r\nx\r\n") << Bytes{"/a"}
        << Bytes{"x"} << false;
    QTest::newRow("then half a request")
        << QByteArray("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nab")
        << Bytes{"/a"} << Bytes{""} << true;
    QTest::newRow("three, LF-only")
        << QByteArray("GET /a HTTP/1.1\n\nGET /b HTTP/1.0\n\nGET /c HTTP/1.1\n\n")
        << Bytes{"/a", "/b", "/c"} << Bytes{"", "", ""} << false;
}

void tst_HttpRequestParser::pipelining()
{
    QFETCH(QByteArray, input);
    QFETCH(QList<QByteArray>, targets);
    QFETCH(QList<QByteArray>, bodies);
    QFETCH(bool, partialAtEnd);

    // In one feed: each request waits until the previous one is taken.
    {
        HttpRequestParser parser;
        QCOMPARE(parser.feed(input), State::Complete);
        QList<HttpRequest> requests;
        while (parser.state() == State::Complete) {
            requests.append(parser.takeRequest());
            if (requests.size() < targets.size()) {
                // The next request is kept, not parsed until asked.
                QCOMPARE(parser.state(), State::NeedMore);
                QVERIFY(parser.hasPartialRequest());
            }
            parser.feed({});
        }
        QCOMPARE(parser.state(), State::NeedMore);
        QCOMPARE(requests.size(), targets.size());
        for (qsizetype i = 0; i < requests.size(); ++i) {
            QCOMPARE(requests.at(i).target, targets.at(i));
            QCOMPARE(requests.at(i).body, bodies.at(i));
        }
        QCOMPARE(parser.hasPartialRequest(), partialAtEnd);
    }
    // One byte at a time, taking each request as it completes.
    {
        HttpRequestParser parser;
        QList<HttpRequest> requests;
        for (const char byte : input) {
            parser.feed(QByteArrayView(&byte, 1));
            requests += drain(parser);
        }
        QCOMPARE(parser.state(), State::NeedMore);
        QCOMPARE(requests.size(), targets.size());
        for (qsizetype i = 0; i < requests.size(); ++i) {
            QCOMPARE(requests.at(i).target, targets.at(i));
            QCOMPARE(requests.at(i).body, bodies.at(i));
        }
        QCOMPARE(parser.hasPartialRequest(), partialAtEnd);
    }
}

void tst_HttpRequestParser::partialAndContinue_data()
{
    QTest::addColumn<Limits>("limits");
    QTest::addColumn<Steps>("steps");

    constexpr auto NeedMore = State::NeedMore;
    constexpr auto Complete = State::Complete;
    constexpr auto Failed = State::Failed;
    QTest::newRow("GET arriving") << Limits{}
                                  << Steps{
                                         {"", NeedMore, false, false},
                                         {"\r\n", NeedMore, false, false}, // not a request yet
                                         {"G", NeedMore, true, false},
                                         {"ET / HTTP/1.1\r\nHost: a\r\n\r", NeedMore, true, false},
                                         {"\n", Complete, false, false},
                                     };
    QTest::newRow("Expect: 100-continue with Content-Length")
        << Limits{}
        << Steps{
               {"POST /mcp HTTP/1.1\r\n", NeedMore, true, false},
               {"Expect: 100-continue\r\nContent-Length: 4\r\n", NeedMore, true, false},
               {"\r\n", NeedMore, true, true},
               {"ab", NeedMore, true, true},
               {"cd", Complete, false, false},
           };
    QTest::newRow("Expect: 100-continue with chunks")
        << Limits{}
        << Steps{
               {"POST / HTTP/1.1\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n",
                NeedMore, true, true},
               {"5\r\nhel", NeedMore, true, true},
               {"lo\r\n", NeedMore, true, true},
               {"0\r\n", NeedMore, true, false}, // the body is all there; trailers may follow
               {"\r\n", Complete, false, false},
           };
    QTest::newRow("expectation is case-insensitive")
        << Limits{}
        << Steps{
               {"PUT / HTTP/1.1\r\nexpect:  100-Continue \r\nContent-Length: 1\r\n\r\n", NeedMore,
                true, true},
               {"x", Complete, false, false},
           };
    QTest::newRow("Expect without a body")
        << Limits{}
        << Steps{
               {"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n", Complete,
                false, false},
           };
    QTest::newRow("Expect ignored in HTTP/1.0")
        << Limits{}
        << Steps{
               {"POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n", NeedMore,
                true, false},
               {"x", Complete, false, false},
           };
    QTest::newRow("other expectation")
        << Limits{}
        << Steps{
               {"POST / HTTP/1.1\r\nExpect: something\r\nContent-Length: 1\r\n\r\n", NeedMore, true,
                false},
           };
    QTest::newRow("Expect with an oversized body")
        << Limits{.maxBodyBytes = 10}
        << Steps{
               {"POST / HTTP/1.1\r\nExpect: 100-continue\r\n", NeedMore, true, false},
               {"Content-Length: 11\r\n\r\n", Failed, false, false},
           };
    QTest::newRow("failed request is not partial")
        << Limits{}
        << Steps{
               {"GET / HTTP/1.1\r\n", NeedMore, true, false},
               {"Bad\r\n", Failed, false, false},
           };
}

void tst_HttpRequestParser::partialAndContinue()
{
    QFETCH(Limits, limits);
    QFETCH(Steps, steps);

    HttpRequestParser parser(limits);
    QVERIFY(!parser.hasPartialRequest());
    QVERIFY(!parser.expectsContinue());
    for (qsizetype i = 0; i < steps.size(); ++i) {
        const Step& step = steps.at(i);
        QCOMPARE(parser.feed(step.bytes), step.state);
        QVERIFY2(parser.hasPartialRequest() == step.partial, QByteArray::number(i).constData());
        QVERIFY2(parser.expectsContinue() == step.continues, QByteArray::number(i).constData());
    }
}

void tst_HttpRequestParser::keepAlive_data()
{
    QTest::addColumn<int>("minorVersion");
    QTest::addColumn<QList<QByteArray>>("connection"); // one Connection field each
    QTest::addColumn<bool>("keepAlive");

    using Values = QList<QByteArray>;
    QTest::newRow("1.1") << 1 << Values{} << true;
    QTest::newRow("1.1 close") << 1 << Values{"close"} << false;
    QTest::newRow("1.1 Close") << 1 << Values{"Close"} << false;
    QTest::newRow("1.1 keep-alive") << 1 << Values{"keep-alive"} << true;
    QTest::newRow("1.1 close in a list") << 1 << Values{"keep-alive, close"} << false;
    QTest::newRow("1.1 close in a second field") << 1 << Values{"upgrade", "close"} << false;
    QTest::newRow("1.1 other option") << 1 << Values{"upgrade"} << true;
    QTest::newRow("1.1 not quite close") << 1 << Values{"closed"} << true;
    QTest::newRow("1.0") << 0 << Values{} << false;
    QTest::newRow("1.0 keep-alive") << 0 << Values{"keep-alive"} << true;
    QTest::newRow("1.0 Keep-Alive") << 0 << Values{"Keep-Alive"} << true;
    QTest::newRow("1.0 keep-alive in a list") << 0 << Values{"foo ,\tkeep-alive"} << true;
    QTest::newRow("1.0 keep-alive and close") << 0 << Values{"keep-alive", "close"} << false;
    QTest::newRow("1.0 close") << 0 << Values{"close"} << false;
}

void tst_HttpRequestParser::keepAlive()
{
    QFETCH(int, minorVersion);
    QFETCH(QList<QByteArray>, connection);
    QFETCH(bool, keepAlive);

    QByteArray input = "GET / HTTP/1." + QByteArray::number(minorVersion) + "\r\nHost: a\r\n";
    for (const QByteArray& value : connection)
        input += "Connection: " + value + "\r\n";
    input += "\r\n";
    HttpRequestParser parser;
    QCOMPARE(parser.feed(input), State::Complete);
    QCOMPARE(parser.takeRequest().keepAlive(), keepAlive);
}

void tst_HttpRequestParser::headerLookup()
{
    HttpRequestParser parser;
    QCOMPARE(parser.feed("GET / HTTP/1.1\r\nHost: a\r\nX-Dup: 1\r\nx-dup: 2\r\nEmpty:\r\n\r\n"),
             State::Complete);
    const HttpRequest request = parser.takeRequest();
    QCOMPARE(request.header("host"), QByteArray("a"));
    QCOMPARE(request.header("x-dup"), QByteArray("1")); // the first one
    QCOMPARE(request.headerCount("x-dup"), 2);
    QCOMPARE(request.headerCount("host"), 1);
    QCOMPARE(request.headerCount("missing"), 0);
    QVERIFY(request.header("missing").isNull());
    // Present but empty is not absent.
    QVERIFY(!request.header("empty").isNull());
    QVERIFY(request.header("empty").isEmpty());
    QCOMPARE(request.headerCount("empty"), 1);
}

void tst_HttpRequestParser::path_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QByteArray>("path");
    QTest::newRow("plain") << QByteArray("/mcp") << QByteArray("/mcp");
    QTest::newRow("query") << QByteArray("/mcp?x=1") << QByteArray("/mcp");
    QTest::newRow("empty query") << QByteArray("/mcp?") << QByteArray("/mcp");
    QTest::newRow("two question marks") << QByteArray("/a?b?c") << QByteArray("/a");
    QTest::newRow("root") << QByteArray("/") << QByteArray("/");
    QTest::newRow("root with query") << QByteArray("/?x") << QByteArray("/");
    QTest::newRow("asterisk") << QByteArray("*") << QByteArray("*");
}

void tst_HttpRequestParser::path()
{
    QFETCH(QByteArray, target);
    QFETCH(QByteArray, path);
    HttpRequestParser parser;
    const QByteArray input = "OPTIONS " + target + " HTTP/1.1\r\n\r\n";
    QCOMPARE(parser.feed(input), State::Complete);
    QCOMPARE(parser.takeRequest().path(), path);
}

void tst_HttpRequestParser::feedWhileComplete()
{
    // Bytes fed before the complete request is taken are kept, not parsed, not lost.
    HttpRequestParser parser;
    QCOMPARE(parser.feed("GET /a HTTP/1.1\r\n\r\nGET /b HT"), State::Complete);
    QCOMPARE(parser.feed("TP/1.1\r\n\r\n"), State::Complete);
    QCOMPARE(parser.takeRequest().target, QByteArray("/a"));
    QCOMPARE(parser.feed({}), State::Complete);
    QCOMPARE(parser.takeRequest().target, QByteArray("/b"));
    QCOMPARE(parser.feed({}), State::NeedMore);
}

void tst_HttpRequestParser::takeRequestWhenNotComplete()
{
    HttpRequestParser parser;
    QCOMPARE(parser.feed("GET / HTTP/1.1\r\n"), State::NeedMore);
    QVERIFY(parser.takeRequest().method.isEmpty());
    QCOMPARE(parser.state(), State::NeedMore);
    QCOMPARE(parser.feed("\r\n"), State::Complete);
    QCOMPARE(parser.takeRequest().method, QByteArray("GET"));
}

void tst_HttpRequestParser::largeBody_data()
{
    QTest::addColumn<bool>("chunkedBody");
    QTest::addColumn<qsizetype>("feedSize");
    QTest::newRow("Content-Length, 64 KiB feeds") << false << qsizetype(64 * 1024);
    QTest::newRow("Content-Length, 1 KiB feeds") << false << qsizetype(1024);
    QTest::newRow("chunked, 64 KiB feeds") << true << qsizetype(64 * 1024);
    QTest::newRow("chunked, 1 KiB feeds") << true << qsizetype(1024);
}

void tst_HttpRequestParser::largeBody()
{
    QFETCH(bool, chunkedBody);
    QFETCH(qsizetype, feedSize);

    // A body at the default limit (16 MiB), every byte checked.
    constexpr qsizetype size = 16 * 1024 * 1024;
    QByteArray body(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        body[i] = char('a' + (i * 7) % 26);
    QByteArray input = "POST /mcp HTTP/1.1\r\nHost: a\r\n";
    if (chunkedBody) {
        input += "Transfer-Encoding: chunked\r\n\r\n";
        constexpr qsizetype chunk = 100000; // not aligned with the feeds
        for (qsizetype at = 0; at < size; at += chunk) {
            const QByteArray part = body.mid(at, chunk);
            input += QByteArray::number(part.size(), 16) + "\r\n" + part + "\r\n";
        }
        input += "0\r\n\r\n";
    } else {
        input = withContentLength(input, body);
    }

    // Linear: the whole run takes milliseconds; re-scanning or re-copying what was received on
    // every feed would take minutes with 1 KiB feeds.
    QElapsedTimer timer;
    timer.start();
    HttpRequestParser parser;
    for (qsizetype at = 0; at < input.size(); at += feedSize) {
        QCOMPARE(parser.state(), State::NeedMore);
        parser.feed(QByteArrayView(input).sliced(at, std::min(feedSize, input.size() - at)));
    }
    QCOMPARE(parser.state(), State::Complete);
    const HttpRequest request = parser.takeRequest();
    const qint64 elapsed = timer.elapsed();
    QVERIFY2(elapsed < 10000, QByteArray(QByteArray::number(elapsed) + " ms").constData());
    QCOMPARE(request.body.size(), size);
    QVERIFY(request.body == body);
    // The body's allocation stays within the limit.
    QVERIFY(request.body.capacity() <= HttpRequestParser::Limits{}.maxBodyBytes);
}

void tst_HttpRequestParser::largeHeaderByteByByte()
{
    // A header section just under the default 64 KiB limit, one byte per feed.
    QByteArray input = "GET / HTTP/1.1\r\n";
    for (int i = 0; i < 60; ++i)
        input += "X-" + QByteArray::number(i) + ": " + QByteArray(1000, 'v') + "\r\n";
    input += "\r\n";
    QVERIFY(input.size() < 64 * 1024);
    HttpRequestParser parser;
    QCOMPARE(feedAll(parser, input, Feeding::ByteByByte), State::Complete);
    const HttpRequest request = parser.takeRequest();
    QCOMPARE(request.headers.size(), 60);
    QCOMPARE(request.header("x-59"), QByteArray(1000, 'v'));
}

void tst_HttpRequestParser::pauseAfterHeaders_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<State>("afterResume");
    QTest::addColumn<int>("errorStatus");
    QTest::newRow("GET") << QByteArray("GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n") << State::Complete
                         << 0;
    QTest::newRow("POST, body to come")
        << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                      "Expect: 100-continue\r\n\r\n")
        << State::NeedMore << 0;
    // The framing is acted on after the pause: an unadmitted request gets no 413 either.
    QTest::newRow("body over the limit")
        << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999\r\n\r\n")
        << State::Failed << 413;
    QTest::newRow("both framings")
        << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n")
        << State::Failed << 400;
}

void tst_HttpRequestParser::pauseAfterHeaders()
{
    QFETCH(QByteArray, input);
    QFETCH(State, afterResume);
    QFETCH(int, errorStatus);
    for (const Feeding feeding : {Feeding::Whole, Feeding::ByteByByte}) {
        HttpRequestParser parser(Limits{}, HttpRequestParser::Pause::AfterHeaders);
        QCOMPARE(feedAll(parser, input, feeding), State::HeadersComplete);
        QCOMPARE(parser.head().target, QByteArray("/mcp"));
        QCOMPARE(parser.head().header("host"), QByteArray("a"));
        QVERIFY(!parser.expectsContinue()); // not before the head is admitted
        QCOMPARE(parser.resume(), afterResume);
        QCOMPARE(parser.errorStatus(), errorStatus);
        if (afterResume == State::NeedMore) {
            QVERIFY(parser.expectsContinue());
            QCOMPARE(parser.feed("hello"), State::Complete);
            QCOMPARE(parser.takeRequest().body, QByteArray("hello"));
        }
    }
}

void tst_HttpRequestParser::pausedParserKeepsNoBody()
{
    // Bytes that arrive during the pause are kept as they came, never made into a body; a
    // refused request's parser is simply dropped.
    HttpRequestParser parser(Limits{}, HttpRequestParser::Pause::AfterHeaders);
    QCOMPARE(parser.feed("POST /mcp HTTP/1.1\r\nContent-Length: 6\r\n\r\nab"),
             State::HeadersComplete);
    QCOMPARE(parser.feed("cd"), State::HeadersComplete);
    QVERIFY(parser.head().body.isEmpty());
    QVERIFY(!parser.hasPartialRequest());
    QCOMPARE(parser.resume(), State::NeedMore);
    QCOMPARE(parser.feed("ef"), State::Complete);
    QCOMPARE(parser.takeRequest().body, QByteArray("abcdef"));
    // resume() outside a pause changes nothing.
    QCOMPARE(parser.resume(), State::NeedMore);
}

void tst_HttpRequestParser::pausePerPipelinedRequest()
{
    HttpRequestParser parser(Limits{}, HttpRequestParser::Pause::AfterHeaders);
    QCOMPARE(parser.feed("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n"), State::HeadersComplete);
    QCOMPARE(parser.head().target, QByteArray("/a"));
    QCOMPARE(parser.resume(), State::Complete);
    QCOMPARE(parser.takeRequest().target, QByteArray("/a"));
    QCOMPARE(parser.feed({}), State::HeadersComplete);
    QCOMPARE(parser.head().target, QByteArray("/b"));
    QCOMPARE(parser.resume(), State::Complete);
    QCOMPARE(parser.takeRequest().target, QByteArray("/b"));
    QCOMPARE(parser.feed({}), State::NeedMore);
}

QTEST_GUILESS_MAIN(tst_HttpRequestParser)
#include "tst_HttpRequestParser.moc"
