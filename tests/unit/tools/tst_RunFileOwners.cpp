// RunFileOwners: a run's files are read by the client that made the run, and by no other.
#include "tools/RunFileOwners.h"

#include <QTest>

using csm::CallContext;
using csm::RunFileOwners;

namespace {
CallContext client(const QString& transport, const QString& session)
{
    CallContext context;
    context.transport = transport;
    context.sessionId = session;
    return context;
}
} // namespace

class tst_RunFileOwners final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void onlyTheMakerReads()
    {
        RunFileOwners owners;
        owners.add(QStringLiteral("run-a"), client(QStringLiteral("http"), QStringLiteral("A")));
        owners.add(QStringLiteral("run-s"), client(QStringLiteral("stdio"), QString()));
        QVERIFY(owners.mayRead(QStringLiteral("run-a"),
                               client(QStringLiteral("http"), QStringLiteral("A"))));
        // Another HTTP session, the same name over another transport, a run never made.
        QVERIFY(!owners.mayRead(QStringLiteral("run-a"),
                                client(QStringLiteral("http"), QStringLiteral("B"))));
        QVERIFY(!owners.mayRead(QStringLiteral("run-a"), client(QStringLiteral("stdio"), {})));
        QVERIFY(!owners.mayRead(QStringLiteral("run-x"),
                                client(QStringLiteral("http"), QStringLiteral("A"))));
        // A stdio server's one client reads its own runs.
        QVERIFY(owners.mayRead(QStringLiteral("run-s"), client(QStringLiteral("stdio"), {})));
        QVERIFY(!owners.mayRead(QStringLiteral("run-s"),
                                client(QStringLiteral("http"), QStringLiteral("A"))));
    }

    void theOldestAreForgottenBeyondTheCap()
    {
        RunFileOwners owners;
        const CallContext a = client(QStringLiteral("http"), QStringLiteral("A"));
        for (qsizetype i = 0; i <= RunFileOwners::kMaxRuns; ++i)
            owners.add(QString::number(i), a);
        QVERIFY(!owners.mayRead(QStringLiteral("0"), a));
        QVERIFY(owners.mayRead(QStringLiteral("1"), a));
        QVERIFY(owners.mayRead(QString::number(RunFileOwners::kMaxRuns), a));
    }
};

QTEST_GUILESS_MAIN(tst_RunFileOwners)
#include "tst_RunFileOwners.moc"
