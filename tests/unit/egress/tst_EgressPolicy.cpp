// The egress policy's decisions as an attacker probes them from inside a sandbox: loopback,
// private and link-local addresses written every way an address can be (IPv4 carried in IPv6
// included), names that resolve to them, this machine's own addresses, and the rules a user
// writes to name a host explicitly.
#include "egress/AddressScope.h"
#include "egress/EgressMode.h"
#include "egress/EgressPolicy.h"
#include "egress/HostPattern.h"

#include <QTest>

using namespace csm;

Q_DECLARE_METATYPE(csm::AddressScope)

namespace {

QList<QHostAddress> addresses(const QStringList& texts)
{
    QList<QHostAddress> list;
    for (const QString& text : texts)
        list << QHostAddress(text);
    return list;
}

HostPattern pattern(const QString& text)
{
    Expected<HostPattern> parsed = HostPattern::parse(text);
    if (!parsed)
        qFatal("%s", qPrintable(parsed.error()));
    return *parsed;
}

} // namespace

class tst_EgressPolicy final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void addressScopes_data()
    {
        QTest::addColumn<QString>("address");
        QTest::addColumn<AddressScope>("scope");
        const auto row = [](const char* address, AddressScope scope) {
            QTest::newRow(address) << QString::fromLatin1(address) << scope;
        };
        row("8.8.8.8", AddressScope::Public);
        row("1.1.1.1", AddressScope::Public);
        row("172.32.0.1", AddressScope::Public);
        row("2606:4700:4700::1111", AddressScope::Public);
        row("127.0.0.1", AddressScope::Loopback);
        row("127.255.255.254", AddressScope::Loopback);
        row("::1", AddressScope::Loopback);
        row("::ffff:127.0.0.1", AddressScope::Loopback);
        row("::ffff:7f00:1", AddressScope::Loopback);
        row("::127.0.0.1", AddressScope::Loopback);
        row("64:ff9b::7f00:1", AddressScope::Loopback);
        row("2002:7f00:1::1", AddressScope::Loopback);
        row("::ffff:0:127.0.0.1", AddressScope::Reserved); // IPv4-translated
        row("::ffff:0:8.8.8.8", AddressScope::Reserved);
        row("64:ff9b:1::7f00:1", AddressScope::Reserved); // local-use NAT64
        row("64:ff9b:1:ffff::1", AddressScope::Reserved);
        row("10.1.2.3", AddressScope::Private);
        row("172.16.0.1", AddressScope::Private);
        row("172.31.255.255", AddressScope::Private);
        row("192.168.1.1", AddressScope::Private);
        row("100.64.0.1", AddressScope::Private);
        row("::ffff:10.0.0.1", AddressScope::Private);
        row("fd00::1", AddressScope::Private);
        row("fc00::1", AddressScope::Private);
        row("169.254.169.254", AddressScope::LinkLocal);
        row("::ffff:169.254.169.254", AddressScope::LinkLocal);
        row("fe80::1", AddressScope::LinkLocal);
        row("224.0.0.1", AddressScope::Multicast);
        row("ff02::1", AddressScope::Multicast);
        row("0.0.0.0", AddressScope::Unspecified);
        row("0.1.2.3", AddressScope::Unspecified);
        row("::", AddressScope::Unspecified);
        row("255.255.255.255", AddressScope::Reserved);
        row("240.0.0.1", AddressScope::Reserved);
        row("192.0.2.1", AddressScope::Reserved);
        row("198.18.0.1", AddressScope::Reserved);
        row("2001:db8::1", AddressScope::Reserved);
    }

    void addressScopes()
    {
        QFETCH(QString, address);
        QFETCH(AddressScope, scope);
        const QHostAddress parsed(address);
        QVERIFY2(!parsed.isNull(), qPrintable(address));
        QCOMPARE(AddressScopes::of(parsed), scope);
    }

    void hostPatterns()
    {
        QVERIFY(pattern(QStringLiteral("api.github.com"))
                    .matches(QStringLiteral("API.GitHub.com."), 443));
        QVERIFY(pattern(QStringLiteral("api.github.com:443"))
                    .matches(QStringLiteral("api.github.com"), 443));
        QVERIFY(!pattern(QStringLiteral("api.github.com:443"))
                     .matches(QStringLiteral("api.github.com"), 80));
        const HostPattern pypi = pattern(QStringLiteral("*.pypi.org"));
        QVERIFY(pypi.matches(QStringLiteral("files.pypi.org"), 443));
        QVERIFY(pypi.matches(QStringLiteral("a.b.pypi.org"), 443));
        QVERIFY(!pypi.matches(QStringLiteral("pypi.org"), 443));
        QVERIFY(!pypi.matches(QStringLiteral("evilpypi.org"), 443));
        QVERIFY(!pypi.matches(QStringLiteral("pypi.org.evil.com"), 443));
        // Addresses match however they are written, and only as addresses.
        const HostPattern local = pattern(QStringLiteral("10.0.0.5:8080"));
        QVERIFY(local.matches(QStringLiteral("10.0.0.5"), 8080));
        QVERIFY(local.matches(QStringLiteral("[::ffff:10.0.0.5]"), 8080));
        QVERIFY(!local.matches(QStringLiteral("10.0.0.6"), 8080));
        QVERIFY(!local.matches(QStringLiteral("10.0.0.5.nip.io"), 8080));
        QVERIFY(pattern(QStringLiteral("[fd00::1]:53")).matches(QStringLiteral("fd00:0::1"), 53));
        QVERIFY(pattern(QStringLiteral("fd00::1")).matches(QStringLiteral("[fd00::1]"), 1));
        QCOMPARE(pattern(QStringLiteral("*.PyPI.org")).toString(), QStringLiteral("*.pypi.org"));
        QCOMPARE(pattern(QStringLiteral("[fd00::1]:53")).toString(),
                 QStringLiteral("[fd00::1]:53"));
        QCOMPARE(pattern(QStringLiteral("localhost:8080")).toString(),
                 QStringLiteral("localhost:8080"));
    }

    void badPatternsSayWhy_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << QString();
        QTest::newRow("port 0") << QStringLiteral("a.com:0");
        QTest::newRow("port too big") << QStringLiteral("a.com:70000");
        QTest::newRow("port not a number") << QStringLiteral("a.com:http");
        QTest::newRow("wildcard inside") << QStringLiteral("api.*.com");
        QTest::newRow("bare wildcard") << QStringLiteral("*");
        QTest::newRow("space") << QStringLiteral("a b.com");
        QTest::newRow("slash") << QStringLiteral("a.com/path");
        QTest::newRow("unclosed bracket") << QStringLiteral("[fd00::1");
    }

    void badPatternsSayWhy()
    {
        QFETCH(QString, text);
        const Expected<HostPattern> parsed = HostPattern::parse(text);
        QVERIFY(!parsed);
        QVERIFY(!parsed.error().isEmpty());
    }

    void thisMachinesAddressesAreReadWhenAConnectionIsDecided()
    {
        // An address this machine gains after the run started (a VPN) is this machine all the
        // same; and a run that connects nowhere never reads them.
        QList<QHostAddress> own;
        int reads = 0;
        const EgressPolicy policy(EgressMode::Open, {}, [&] {
            ++reads;
            return own;
        });
        QCOMPARE(reads, 0);
        const auto vpn = addresses({QStringLiteral("203.0.114.9")});
        QCOMPARE(policy.decide(QStringLiteral("vpn.example"), 80, vpn).verdict,
                 EgressPolicy::Verdict::Allow);
        own = vpn;
        const auto decision = policy.decide(QStringLiteral("vpn.example"), 80, vpn);
        QCOMPARE(decision.verdict, EgressPolicy::Verdict::Deny);
        QVERIFY2(decision.reason.contains(QStringLiteral("this machine")),
                 qPrintable(decision.reason));
        QCOMPARE(reads, 2);
    }

    void openModeRefusesWhatIsNotPublic()
    {
        const EgressPolicy policy(EgressMode::Open, {},
                                  [] { return addresses({QStringLiteral("203.0.114.7")}); });
        QCOMPARE(policy
                     .decide(QStringLiteral("example.org"), 443,
                             addresses({QStringLiteral("93.184.215.14")}))
                     .verdict,
                 EgressPolicy::Verdict::Allow);
        // The metadata service, by address and by a name that resolves to it.
        for (const QString& host :
             {QStringLiteral("169.254.169.254"), QStringLiteral("metadata.google.internal")}) {
            const auto decision =
                policy.decide(host, 80, addresses({QStringLiteral("169.254.169.254")}));
            QCOMPARE(decision.verdict, EgressPolicy::Verdict::Deny);
            QVERIFY2(decision.reason.contains(QLatin1String("metadata")),
                     qPrintable(decision.reason));
        }
        // A name with a public and a private address: refused, whichever the connection used.
        const auto rebinding =
            policy.decide(QStringLiteral("rebind.example"), 80,
                          addresses({QStringLiteral("93.184.215.14"), QStringLiteral("10.0.0.1")}));
        QCOMPARE(rebinding.verdict, EgressPolicy::Verdict::Deny);
        QVERIFY2(rebinding.reason.contains(QLatin1String("10.0.0.1 is a private network")),
                 qPrintable(rebinding.reason));
        // This machine, even at a public address.
        const auto self = policy.decide(QStringLiteral("me.example"), 22,
                                        addresses({QStringLiteral("203.0.114.7")}));
        QCOMPARE(self.verdict, EgressPolicy::Verdict::Deny);
        QVERIFY2(self.reason.contains(QLatin1String("this machine")), qPrintable(self.reason));
        QCOMPARE(policy
                     .decide(QStringLiteral("localhost"), 8080,
                             addresses({QStringLiteral("::ffff:127.0.0.1")}))
                     .verdict,
                 EgressPolicy::Verdict::Deny);
        QCOMPARE(policy.decide(QStringLiteral("nowhere.invalid"), 80, {}).verdict,
                 EgressPolicy::Verdict::Deny);
    }

    void aNamedHostIsReachableWhereverItIs()
    {
        const EgressPolicy policy(
            EgressMode::Open,
            {pattern(QStringLiteral("localhost:8080")), pattern(QStringLiteral("10.0.0.5"))}, {});
        const auto loopback = addresses({QStringLiteral("127.0.0.1")});
        QCOMPARE(policy.decide(QStringLiteral("localhost"), 8080, loopback).verdict,
                 EgressPolicy::Verdict::Allow);
        // Only on the port named, and only by the name named.
        QCOMPARE(policy.decide(QStringLiteral("localhost"), 22, loopback).verdict,
                 EgressPolicy::Verdict::Deny);
        QCOMPARE(policy.decide(QStringLiteral("127.0.0.1"), 8080, loopback).verdict,
                 EgressPolicy::Verdict::Deny);
        QCOMPARE(
            policy.decide(QStringLiteral("10.0.0.5"), 9000, addresses({QStringLiteral("10.0.0.5")}))
                .verdict,
            EgressPolicy::Verdict::Allow);
    }

    // host.containers.internal and host.docker.internal are one name for this machine: a rule
    // naming either allows both, on the port named; without a rule they are loopback, refused.
    void thisMachinesNameIsAllowedOnlyByARule()
    {
        const auto loopback = addresses({QStringLiteral("127.0.0.1")});
        for (const EgressMode mode : {EgressMode::Open, EgressMode::Allowlist}) {
            const EgressPolicy policy(
                mode, {pattern(QStringLiteral("host.containers.internal:8000"))}, {});
            for (const QString& name : {QStringLiteral("host.containers.internal"),
                                        QStringLiteral("host.docker.internal"),
                                        QStringLiteral("Host.Docker.Internal.")}) {
                QVERIFY(!policy.decideBeforeResolving(name, 8000));
                QCOMPARE(policy.decide(name, 8000, loopback).verdict, EgressPolicy::Verdict::Allow);
                QCOMPARE(policy.decide(name, 22, loopback).verdict, EgressPolicy::Verdict::Deny);
            }
            // Not another name that ends the same way.
            QCOMPARE(
                policy.decide(QStringLiteral("evil.host.docker.internal"), 8000, loopback).verdict,
                EgressPolicy::Verdict::Deny);
        }
        // Unnamed, it is refused before anything, in ask mode too (allowed when asked, it would
        // still be loopback), with the rule that would allow it.
        for (const EgressMode mode : {EgressMode::Open, EgressMode::Ask, EgressMode::Allowlist}) {
            const EgressPolicy none(mode, {}, {});
            const auto refused =
                none.decideBeforeResolving(QStringLiteral("host.docker.internal"), 8000);
            QVERIFY(refused);
            QCOMPARE(refused->verdict, EgressPolicy::Verdict::Deny);
            QVERIFY2(refused->reason.contains(
                         QLatin1String("--allow-host host.containers.internal:8000")),
                     qPrintable(refused->reason));
        }
        // Only an exact rule with a port names it: not a wildcard, not a rule for every port
        // (this machine's whole loopback).
        for (const QString& rule :
             {QStringLiteral("*.internal"), QStringLiteral("*.docker.internal"),
              QStringLiteral("host.containers.internal"),
              QStringLiteral("*.containers.internal:8000")}) {
            const EgressPolicy loose(EgressMode::Open, {pattern(rule)}, {});
            QVERIFY2(loose.decideBeforeResolving(QStringLiteral("host.containers.internal"), 8000),
                     qPrintable(rule));
            QCOMPARE(
                loose.decide(QStringLiteral("host.containers.internal"), 8000, loopback).verdict,
                EgressPolicy::Verdict::Deny);
        }
        // A loopback address's refusal points at the name.
        const EgressPolicy open(EgressMode::Open, {}, {});
        const auto byAddress = open.decide(QStringLiteral("127.0.0.1"), 8000, loopback);
        QCOMPARE(byAddress.verdict, EgressPolicy::Verdict::Deny);
        QVERIFY2(
            byAddress.reason.contains(QLatin1String("--allow-host host.containers.internal:PORT")),
            qPrintable(byAddress.reason));
    }

    void allowlistAskAndNone()
    {
        const QList<HostPattern> rules{pattern(QStringLiteral("*.pypi.org")),
                                       pattern(QStringLiteral("api.github.com:443"))};
        const auto publicAddress = addresses({QStringLiteral("151.101.0.223")});
        const auto privateAddress = addresses({QStringLiteral("192.168.0.10")});
        const EgressPolicy allowlist(EgressMode::Allowlist, rules, {});
        QCOMPARE(allowlist.decide(QStringLiteral("files.pypi.org"), 443, publicAddress).verdict,
                 EgressPolicy::Verdict::Allow);
        const auto other = allowlist.decide(QStringLiteral("example.org"), 443, publicAddress);
        QCOMPARE(other.verdict, EgressPolicy::Verdict::Deny);
        QVERIFY2(other.reason.contains(QLatin1String("not on the allow list")),
                 qPrintable(other.reason));
        QCOMPARE(allowlist.decide(QStringLiteral("api.github.com"), 80, publicAddress).verdict,
                 EgressPolicy::Verdict::Deny);
        // Refused before any lookup: the name (which a program may fill with data) never
        // reaches a resolver. A named host is looked up as usual.
        const auto early =
            allowlist.decideBeforeResolving(QStringLiteral("c2VjcmV0.attacker.example"), 443);
        QVERIFY(early);
        QCOMPARE(early->verdict, EgressPolicy::Verdict::Deny);
        QVERIFY2(early->reason.contains(QLatin1String("not on the allow list")),
                 qPrintable(early->reason));
        QVERIFY(!allowlist.decideBeforeResolving(QStringLiteral("files.pypi.org"), 443));
        QVERIFY(EgressPolicy(EgressMode::None, rules, {})
                    .decideBeforeResolving(QStringLiteral("files.pypi.org"), 443));
        QVERIFY(!EgressPolicy(EgressMode::Open, rules, {})
                     .decideBeforeResolving(QStringLiteral("example.org"), 443));

        const EgressPolicy ask(EgressMode::Ask, rules, {});
        QCOMPARE(ask.decide(QStringLiteral("example.org"), 443, publicAddress).verdict,
                 EgressPolicy::Verdict::Ask);
        QCOMPARE(ask.decide(QStringLiteral("files.pypi.org"), 443, publicAddress).verdict,
                 EgressPolicy::Verdict::Allow);
        // A private address is refused, not asked about: only a rule opens it.
        QCOMPARE(ask.decide(QStringLiteral("nas.home"), 443, privateAddress).verdict,
                 EgressPolicy::Verdict::Deny);

        // "Always allow" (ask mode): not asked again, at public addresses only. The same name
        // resolving to a private address later (the program controls its DNS) is refused.
        const EgressPolicy always(EgressMode::Ask, rules, {},
                                  {pattern(QStringLiteral("example.org:443"))});
        const auto allowedAlways = always.decide(QStringLiteral("example.org"), 443, publicAddress);
        QCOMPARE(allowedAlways.verdict, EgressPolicy::Verdict::Allow);
        QVERIFY2(allowedAlways.reason.contains(QLatin1String("always")),
                 qPrintable(allowedAlways.reason));
        const auto rebound = always.decide(QStringLiteral("example.org"), 443, privateAddress);
        QCOMPARE(rebound.verdict, EgressPolicy::Verdict::Deny);
        QVERIFY2(rebound.reason.contains(QLatin1String("192.168.0.10")),
                 qPrintable(rebound.reason));
        QCOMPARE(always.decide(QStringLiteral("example.org"), 80, publicAddress).verdict,
                 EgressPolicy::Verdict::Ask);
        QCOMPARE(always.decide(QStringLiteral("example.net"), 443, publicAddress).verdict,
                 EgressPolicy::Verdict::Ask);

        const EgressPolicy none(EgressMode::None, rules, {});
        QCOMPARE(none.decide(QStringLiteral("files.pypi.org"), 443, publicAddress).verdict,
                 EgressPolicy::Verdict::Deny);
    }

    void modeNames()
    {
        for (const QString& name : EgressModes::names())
            QCOMPARE(EgressModes::toString(*EgressModes::fromString(name)), name);
        QCOMPARE(EgressModes::names().size(), 5);
        QVERIFY(!EgressModes::fromString(QStringLiteral("Open")));
        QCOMPARE(*EgressModes::fromString(QStringLiteral("allowlist")), EgressMode::Allowlist);
    }
};

QTEST_GUILESS_MAIN(tst_EgressPolicy)
#include "tst_EgressPolicy.moc"
