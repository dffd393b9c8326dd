#include "transport/http/HttpAccessPolicy.h"
#include "transport/http/HttpRequest.h"

#include <QTest>

using csm::http::HttpAccessPolicy;
using csm::http::HttpRequest;
using csm::http::HttpServerConfig;

namespace {

HttpServerConfig config(const QString& host = QStringLiteral("127.0.0.1"),
                        const QString& token = {})
{
    HttpServerConfig result;
    result.host = host;
    result.authToken = token;
    return result;
}

using Headers = QList<QPair<QByteArray, QByteArray>>;

HttpRequest requestWith(const Headers& headers)
{
    HttpRequest request;
    request.method = "POST";
    request.target = "/mcp";
    request.headers = headers;
    return request;
}

} // namespace

class tst_HttpAccessPolicy final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void host_data();
    void host();
    void origin_data();
    void origin();
    void allowedHostsAndOrigins();
    void boundAddressIsAHost();
    void authorization_data();
    void authorization();
    void noAuthAdmitsWithoutToken();
    void newTokenReplacesTheOld();
    void constantTimeEquals_data();
    void constantTimeEquals();
    void check_data();
    void check();
};

void tst_HttpAccessPolicy::host_data()
{
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<bool>("allowed");

    QTest::newRow("localhost") << QByteArray("localhost") << true;
    QTest::newRow("localhost:port") << QByteArray("localhost:8765") << true;
    QTest::newRow("LOCALHOST") << QByteArray("LocalHost:8765") << true;
    QTest::newRow("127.0.0.1:port") << QByteArray("127.0.0.1:51234") << true;
    QTest::newRow("[::1]:port") << QByteArray("[::1]:8765") << true;
    QTest::newRow("[::1]") << QByteArray("[::1]") << true;
    QTest::newRow("rebinding name") << QByteArray("evil.example.com") << false;
    QTest::newRow("rebinding name:port") << QByteArray("evil.example.com:8765") << false;
    QTest::newRow("loopback as a prefix") << QByteArray("127.0.0.1.evil.com") << false;
    QTest::newRow("localhost as a prefix") << QByteArray("localhost.evil.com:80") << false;
    QTest::newRow("other loopback address") << QByteArray("127.0.0.2") << false;
    QTest::newRow("bad port") << QByteArray("localhost:http") << false;
    QTest::newRow("port too big") << QByteArray("localhost:70000") << false;
    QTest::newRow("unclosed bracket") << QByteArray("[::1:8765") << false;
    QTest::newRow("junk after bracket") << QByteArray("[::1]x") << false;
    QTest::newRow("empty") << QByteArray("") << false;
    QTest::newRow("port only") << QByteArray(":8765") << false;
}

void tst_HttpAccessPolicy::host()
{
    QFETCH(QByteArray, host);
    QFETCH(bool, allowed);
    QCOMPARE(HttpAccessPolicy(config()).isHostAllowed(host), allowed);
}

void tst_HttpAccessPolicy::origin_data()
{
    QTest::addColumn<QByteArray>("origin");
    QTest::addColumn<bool>("allowed");

    QTest::newRow("absent (not a browser)") << QByteArray() << true;
    QTest::newRow("http://localhost:3000") << QByteArray("http://localhost:3000") << true;
    QTest::newRow("https://127.0.0.1") << QByteArray("https://127.0.0.1") << true;
    QTest::newRow("http://[::1]:8765") << QByteArray("http://[::1]:8765") << true;
    QTest::newRow("evil") << QByteArray("http://evil.example.com") << false;
    QTest::newRow("localhost as a prefix") << QByteArray("http://localhost.evil.com") << false;
    QTest::newRow("null") << QByteArray("null") << false;
    QTest::newRow("file") << QByteArray("file://") << false;
    QTest::newRow("other scheme") << QByteArray("ftp://localhost") << false;
    QTest::newRow("with a path") << QByteArray("http://localhost/x") << false;
    QTest::newRow("with user info") << QByteArray("http://evil@localhost") << false;
    QTest::newRow("empty") << QByteArray("") << false;
}

void tst_HttpAccessPolicy::origin()
{
    QFETCH(QByteArray, origin);
    QFETCH(bool, allowed);
    QCOMPARE(HttpAccessPolicy(config()).isOriginAllowed(origin), allowed);
}

void tst_HttpAccessPolicy::allowedHostsAndOrigins()
{
    HttpServerConfig withExtras = config();
    withExtras.allowedHosts = {QStringLiteral("sandbox.internal")};
    withExtras.allowedOrigins = {QStringLiteral("https://App.Example:8443")};
    const HttpAccessPolicy policy(withExtras);
    QVERIFY(policy.isHostAllowed("sandbox.internal:8765"));
    QVERIFY(policy.isOriginAllowed("http://sandbox.internal:9000"));
    QVERIFY(policy.isOriginAllowed("https://app.example:8443"));
    QVERIFY(!policy.isOriginAllowed("https://app.example:8444"));
    QVERIFY(!policy.isHostAllowed("app.example"));
}

void tst_HttpAccessPolicy::boundAddressIsAHost()
{
    QVERIFY(HttpAccessPolicy(config(QStringLiteral("192.168.7.2"))).isHostAllowed("192.168.7.2:1"));
    QVERIFY(HttpAccessPolicy(config(QStringLiteral("::1"))).isHostAllowed("[::1]:1"));
    // A wildcard is no name: it must not make every Host acceptable.
    QVERIFY(!HttpAccessPolicy(config(QStringLiteral("0.0.0.0"))).isHostAllowed("0.0.0.0"));
    QVERIFY(!HttpAccessPolicy(config(QStringLiteral("0.0.0.0"))).isHostAllowed("evil.com"));
}

void tst_HttpAccessPolicy::authorization_data()
{
    QTest::addColumn<QString>("token");
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<bool>("authorized");

    const QString token = QStringLiteral("s3cret-token-0123456789");
    // A server that somehow has no token (and no --no-auth) lets nobody in.
    QTest::newRow("no token configured, none sent") << QString() << QByteArray() << false;
    QTest::newRow("no token configured, empty bearer")
        << QString() << QByteArray("Bearer ") << false;
    QTest::newRow("missing") << token << QByteArray() << false;
    QTest::newRow("right") << token << QByteArray("Bearer s3cret-token-0123456789") << true;
    QTest::newRow("scheme is case-insensitive")
        << token << QByteArray("bearer s3cret-token-0123456789") << true;
    QTest::newRow("wrong") << token << QByteArray("Bearer s3cret-token-0123456788") << false;
    QTest::newRow("prefix") << token << QByteArray("Bearer s3cret") << false;
    QTest::newRow("longer") << token << QByteArray("Bearer s3cret-token-01234567890") << false;
    QTest::newRow("basic scheme") << token << QByteArray("Basic s3cret-token-0123456789") << false;
    QTest::newRow("token alone") << token << QByteArray("s3cret-token-0123456789") << false;
    QTest::newRow("empty bearer") << token << QByteArray("Bearer ") << false;
}

void tst_HttpAccessPolicy::authorization()
{
    QFETCH(QString, token);
    QFETCH(QByteArray, header);
    QFETCH(bool, authorized);
    QCOMPARE(HttpAccessPolicy(config(QStringLiteral("127.0.0.1"), token)).isAuthorized(header),
             authorized);
}

void tst_HttpAccessPolicy::noAuthAdmitsWithoutToken()
{
    HttpServerConfig open = config();
    open.noAuth = true;
    const HttpAccessPolicy policy(open);
    QVERIFY(policy.isAuthorized(QByteArray()));
    QVERIFY(!policy.check(requestWith({{"host", "127.0.0.1:1"}})));
    // Host and Origin are still checked.
    QCOMPARE(policy.check(requestWith({{"host", "evil.com"}}))->status, 403);
}

void tst_HttpAccessPolicy::newTokenReplacesTheOld()
{
    HttpAccessPolicy policy(config(QStringLiteral("127.0.0.1"), QStringLiteral("old-token")));
    QVERIFY(policy.isAuthorized("Bearer old-token"));
    policy.setToken(QStringLiteral("new-token"));
    QVERIFY(!policy.isAuthorized("Bearer old-token"));
    QVERIFY(policy.isAuthorized("Bearer new-token"));
}

void tst_HttpAccessPolicy::constantTimeEquals_data()
{
    QTest::addColumn<QByteArray>("a");
    QTest::addColumn<QByteArray>("b");
    QTest::addColumn<bool>("equal");
    QTest::newRow("equal") << QByteArray("abc") << QByteArray("abc") << true;
    QTest::newRow("empty") << QByteArray() << QByteArray("") << true;
    QTest::newRow("last byte") << QByteArray("abc") << QByteArray("abd") << false;
    QTest::newRow("prefix") << QByteArray("ab") << QByteArray("abc") << false;
    QTest::newRow("padded with NUL") << QByteArray("ab") << QByteArray("ab\0", 3) << false;
}

void tst_HttpAccessPolicy::constantTimeEquals()
{
    QFETCH(QByteArray, a);
    QFETCH(QByteArray, b);
    QFETCH(bool, equal);
    QCOMPARE(HttpAccessPolicy::constantTimeEquals(a, b), equal);
    QCOMPARE(HttpAccessPolicy::constantTimeEquals(b, a), equal);
}

void tst_HttpAccessPolicy::check_data()
{
    QTest::addColumn<Headers>("headers");
    QTest::addColumn<int>("status"); // 0: allowed

    const QByteArray bearer("Bearer 0123456789abcdef");
    QTest::newRow("ok") << Headers{{"host", "localhost:1"}, {"authorization", bearer}} << 0;
    QTest::newRow("no host") << Headers{{"authorization", bearer}} << 400;
    QTest::newRow("two hosts") << Headers{{"host", "localhost"}, {"host", "localhost"}} << 400;
    QTest::newRow("bad host") << Headers{{"host", "evil.com"}, {"authorization", bearer}} << 403;
    QTest::newRow("bad origin") << Headers{{"host", "localhost"},
                                           {"origin", "http://evil.com"},
                                           {"authorization", bearer}}
                                << 403;
    QTest::newRow("two origins") << Headers{{"host", "localhost"},
                                            {"origin", "http://localhost"},
                                            {"origin", "http://evil.com"},
                                            {"authorization", bearer}}
                                 << 403;
    // Host is checked before the token: a rebinding page learns nothing about the token.
    QTest::newRow("bad host and no token") << Headers{{"host", "evil.com"}} << 403;
    QTest::newRow("no token") << Headers{{"host", "localhost"}} << 401;
}

void tst_HttpAccessPolicy::check()
{
    QFETCH(Headers, headers);
    QFETCH(int, status);
    const HttpAccessPolicy policy(
        config(QStringLiteral("127.0.0.1"), QStringLiteral("0123456789abcdef")));
    const auto refusal = policy.check(requestWith(headers));
    QCOMPARE(refusal ? refusal->status : 0, status);
    if (status == 401) {
        QVERIFY(refusal->header("WWW-Authenticate").startsWith("Bearer"));
        QVERIFY(!refusal->body.contains("0123456789abcdef"));
    }
}

QTEST_GUILESS_MAIN(tst_HttpAccessPolicy)
#include "tst_HttpAccessPolicy.moc"
