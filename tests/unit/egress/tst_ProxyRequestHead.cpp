// The egress proxy's reading of a request head, as a hostile program would write one: partial
// heads, CONNECT with and without a port, IPv6, bytes slipped in after a CONNECT, non-HTTP
// bytes, oversized heads, a Host header that disagrees with the URL.
#include "egress/ProxyRequestHead.h"

#include <QTest>

using csm::ProxyRequestHead;
using Status = ProxyRequestHead::Status;

class tst_ProxyRequestHead final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void connectTunnels()
    {
        const QByteArray head = "CONNECT API.github.com:443 HTTP/1.1\r\nHost: x\r\n\r\n";
        for (qsizetype cut = 0; cut < head.size(); ++cut)
            QCOMPARE(ProxyRequestHead::parse(head.left(cut)).status(), Status::Incomplete);
        const ProxyRequestHead parsed = ProxyRequestHead::parse(head);
        QCOMPARE(parsed.status(), Status::Complete);
        QCOMPARE(parsed.kind(), ProxyRequestHead::Kind::Connect);
        // As written (rules compare without case): a secret sent as a host name reaches the
        // redaction of the records as it was sent.
        QCOMPARE(parsed.host(), QStringLiteral("API.github.com"));
        QCOMPARE(parsed.port(), quint16(443));
        QCOMPARE(parsed.headBytes(), head.size());

        const ProxyRequestHead v6 =
            ProxyRequestHead::parse("CONNECT [fd00::1]:8443 HTTP/1.1\r\n\r\n");
        QCOMPARE(v6.status(), Status::Complete);
        QCOMPARE(v6.host(), QStringLiteral("fd00::1"));
        QCOMPARE(v6.port(), quint16(8443));
    }

    void forwardsPlainHttpInOriginForm()
    {
        const QByteArray received =
            "GET http://example.org:8080/a/b?q=1 HTTP/1.1\r\nHost: evil.internal\r\n"
            "Proxy-Authorization: Basic eA==\r\nProxy-Connection: keep-alive\r\n"
            "Accept: */*\r\n\r\nbody";
        const ProxyRequestHead parsed = ProxyRequestHead::parse(received);
        QCOMPARE(parsed.status(), Status::Complete);
        QCOMPARE(parsed.kind(), ProxyRequestHead::Kind::Forward);
        QCOMPARE(parsed.host(), QStringLiteral("example.org"));
        QCOMPARE(parsed.port(), quint16(8080));
        QCOMPARE(parsed.forwardHead(), QByteArray("GET /a/b?q=1 HTTP/1.1\r\nAccept: */*\r\n"
                                                  "Host: example.org:8080\r\n"
                                                  "Connection: close\r\n\r\n"));
        QCOMPARE(parsed.headBytes(), received.size() - 4); // the body follows the head
        QCOMPARE(
            ProxyRequestHead::parse("GET http://user@Mixed-Case.Example.org:81/x HTTP/1.1\r\n\r\n")
                .host(),
            QStringLiteral("Mixed-Case.Example.org"));
        const ProxyRequestHead plain =
            ProxyRequestHead::parse("GET http://example.org HTTP/1.0\r\n\r\n");
        QCOMPARE(plain.port(), quint16(80));
        QCOMPARE(plain.forwardHead(),
                 QByteArray("GET / HTTP/1.0\r\nHost: example.org\r\nConnection: close\r\n\r\n"));
        // A query without a path still goes in origin form (found by fuzz_ProxyRequestHead).
        QVERIFY(ProxyRequestHead::parse("GET http://example.org?a=0 HTTP/1.1\r\n\r\n")
                    .forwardHead()
                    .startsWith("GET /?a=0 HTTP/1.1\r\n"));
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("received");
        QTest::addColumn<QString>("why");
        QTest::newRow("TLS without CONNECT")
            << QByteArray("\x16\x03\x01\x02\x00", 5) << QStringLiteral("not an HTTP proxy request");
        QTest::newRow("binary") << QByteArray("\x00\x01\x02", 3)
                                << QStringLiteral("not an HTTP proxy request");
        QTest::newRow("CONNECT without port")
            << QByteArray("CONNECT example.org HTTP/1.1\r\n\r\n") << QStringLiteral("host:port");
        QTest::newRow("CONNECT port 0")
            << QByteArray("CONNECT example.org:0 HTTP/1.1\r\n\r\n") << QStringLiteral("host:port");
        // No host has one, and an "always allow" of it would be a wildcard.
        QTest::newRow("CONNECT to a '*'")
            << QByteArray("CONNECT *.example.org:443 HTTP/1.1\r\n\r\n")
            << QStringLiteral("host:port");
        QTest::newRow("a URL to a '*'") << QByteArray("GET http://*.example.org/ HTTP/1.1\r\n\r\n")
                                        << QStringLiteral("absolute http:// URL");
        QTest::newRow("CONNECT bare IPv6")
            << QByteArray("CONNECT fd00::1:443 HTTP/1.1\r\n\r\n") << QStringLiteral("host:port");
        QTest::newRow("CONNECT with a smuggled request")
            << QByteArray(
                   "CONNECT a.example:443 HTTP/1.1\r\n\r\nGET http://10.0.0.1/ HTTP/1.1\r\n\r\n")
            << QStringLiteral("before the tunnel was open");
        QTest::newRow("https URL")
            << QByteArray("GET https://example.org/ HTTP/1.1\r\n\r\n") << QStringLiteral("CONNECT");
        QTest::newRow("origin form") << QByteArray("GET / HTTP/1.1\r\nHost: example.org\r\n\r\n")
                                     << QStringLiteral("absolute http:// URL");
        QTest::newRow("HTTP/2 preface")
            << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") << QStringLiteral("HTTP/1");
        // Found by fuzz_ProxyRequestHead: these went upstream as they came.
        QTest::newRow("a version that is not one")
            << QByteArray("GET http://example.org/ HTTP/1.\x0e\r\n\r\n", 36)
            << QStringLiteral("HTTP/1");
        QTest::newRow("a bare CR in a header")
            << QByteArray("GET http://example.org/ HTTP/1.1\r\nA: b\rGET http://10.0.0.1/ "
                          "HTTP/1.1\r\n\r\n")
            << QStringLiteral("control character");
        // A request smuggled behind the checked one, in what one server reads as the body and
        // another as a second request.
        QTest::newRow("Transfer-Encoding and Content-Length")
            << QByteArray("POST http://example.org/ HTTP/1.1\r\nContent-Length: 4\r\n"
                          "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
            << QStringLiteral("both Transfer-Encoding and Content-Length");
        QTest::newRow("Content-Length and Transfer-Encoding, any case")
            << QByteArray("POST http://example.org/ HTTP/1.1\r\ntransfer-encoding: chunked\r\n"
                          "CONTENT-LENGTH: 4\r\n\r\n")
            << QStringLiteral("both Transfer-Encoding and Content-Length");
        QTest::newRow("header folding")
            << QByteArray("GET http://example.org/ HTTP/1.1\r\nA: b\r\n  folded: x\r\n\r\n")
            << QStringLiteral("header name");
        QTest::newRow("head too big")
            << QByteArray("GET http://example.org/ HTTP/1.1\r\nX: ") + QByteArray(20'000, 'a')
            << QStringLiteral("over 16384 bytes");
        QByteArray many = "GET http://example.org/ HTTP/1.1\r\n";
        for (int i = 0; i < 101; ++i)
            many += "X: y\r\n";
        QTest::newRow("too many headers") << many + "\r\n"
                                          << QStringLiteral("more than 100 headers");
    }

    void refusals()
    {
        QFETCH(QByteArray, received);
        QFETCH(QString, why);
        const ProxyRequestHead parsed = ProxyRequestHead::parse(received);
        QCOMPARE(parsed.status(), Status::Invalid);
        QVERIFY2(parsed.error().contains(why), qPrintable(parsed.error()));
    }
};

QTEST_GUILESS_MAIN(tst_ProxyRequestHead)
#include "tst_ProxyRequestHead.moc"
