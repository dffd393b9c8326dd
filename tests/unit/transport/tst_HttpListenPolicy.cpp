// The one rule for every way of starting an HTTP server: the host, the token, --no-auth and
// --allow-remote together.
#include "transport/http/HttpListenPolicy.h"

#include <QTest>

using csm::http::HttpListenPolicy;
using csm::http::HttpServerConfig;

namespace {
const QString kLongToken = QStringLiteral("0123456789abcdef0123");
} // namespace

class tst_HttpListenPolicy final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void refusal_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("token");
        QTest::addColumn<bool>("noAuth");
        QTest::addColumn<bool>("allowRemote");
        QTest::addColumn<QString>("refusal"); // a part of it; empty: it may listen

        const QString any = QStringLiteral("0.0.0.0");
        const QString loopback = QStringLiteral("127.0.0.1");
        QTest::newRow("loopback, token")
            << loopback << QStringLiteral("t") << false << false << QString();
        QTest::newRow("localhost, token")
            << QStringLiteral("localhost") << QStringLiteral("t") << false << false << QString();
        QTest::newRow("[::1], token")
            << QStringLiteral("[::1]") << QStringLiteral("t") << false << false << QString();
        QTest::newRow("127.0.0.2, token")
            << QStringLiteral("127.0.0.2") << QStringLiteral("t") << false << false << QString();
        QTest::newRow("loopback, no token")
            << loopback << QString() << false << false << QStringLiteral("no token");
        QTest::newRow("loopback, --no-auth") << loopback << QString() << true << false << QString();
        QTest::newRow("::1, --no-auth")
            << QStringLiteral("::1") << QString() << true << false << QString();
        QTest::newRow("--no-auth and a token")
            << loopback << kLongToken << true << false << QStringLiteral("exclude each other");
        QTest::newRow("0.0.0.0, --no-auth") << any << QString() << true << true
                                            << QStringLiteral("--no-auth is refused on 0.0.0.0");
        QTest::newRow("0.0.0.0, no token")
            << any << QString() << false << false << QStringLiteral("no token");
        QTest::newRow("0.0.0.0, token, not allowed")
            << any << kLongToken << false << false << QStringLiteral("--allow-remote");
        QTest::newRow("0.0.0.0, short token, allowed")
            << any << QStringLiteral("short-token") << false << true
            << QStringLiteral("at least 16 characters");
        QTest::newRow("0.0.0.0, 16 characters, allowed")
            << any << QStringLiteral("0123456789abcdef") << false << true << QString();
        QTest::newRow("LAN address, token, allowed")
            << QStringLiteral("192.168.1.5") << kLongToken << false << true << QString();
        QTest::newRow(":: (every IPv6 address), not allowed")
            << QStringLiteral("::") << kLongToken << false << false
            << QStringLiteral("--allow-remote");
        QTest::newRow("token with a space") << loopback << QStringLiteral("two words") << false
                                            << false << QStringLiteral("whitespace");
        QTest::newRow("token with a line feed")
            << loopback << QStringLiteral("a\nb") << false << false << QStringLiteral("whitespace");
        QTest::newRow("a host name") << QStringLiteral("example.com") << kLongToken << false << true
                                     << QStringLiteral("not an IP address");
    }

    void refusal()
    {
        QFETCH(QString, host);
        QFETCH(QString, token);
        QFETCH(bool, noAuth);
        QFETCH(bool, allowRemote);
        QFETCH(QString, refusal);
        HttpServerConfig config;
        config.host = host;
        config.authToken = token;
        config.noAuth = noAuth;
        config.allowRemote = allowRemote;
        const std::optional<QString> said = HttpListenPolicy::refusal(config);
        if (refusal.isEmpty()) {
            QVERIFY2(!said, qPrintable(said.value_or(QString())));
        } else {
            QVERIFY2(said, "it may listen");
            QVERIFY2(said->contains(refusal), qPrintable(*said));
        }
    }

    void isLoopback()
    {
        for (const char* host :
             {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LocalHost"})
            QVERIFY2(HttpListenPolicy::isLoopback(QString::fromLatin1(host)), host);
        for (const char* host : {"0.0.0.0", "::", "192.168.1.5", "localhost.example.com", ""})
            QVERIFY2(!HttpListenPolicy::isLoopback(QString::fromLatin1(host)), host);
    }
};

QTEST_GUILESS_MAIN(tst_HttpListenPolicy)
#include "tst_HttpListenPolicy.moc"
