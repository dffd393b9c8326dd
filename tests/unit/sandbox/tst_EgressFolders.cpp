// EgressFolders: a server's egress root carries its pid, and a new one removes the roots of
// servers that are gone (killed before they could), never a live server's, an older build's
// (no pid) or anything else in the temporary folder.
#include "sandbox/EgressFolders.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace csm;

class tst_EgressFolders final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theRootsOfServersThatAreGoneAreRemoved()
    {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        QDir parent(temp.path());
        const QStringList left{
            QStringLiteral("code-sandbox-egress-4242-aaaaaa"), // a server killed with -9
            QStringLiteral("code-sandbox-egress-777-bbbbbb"),  // a server still running
            QStringLiteral("code-sandbox-egress-cccccc"),      // an older build: no pid
            QStringLiteral("code-sandbox-other-4242-dddddd"),  // not ours
        };
        for (const QString& name : left) {
            QVERIFY(parent.mkpath(name + QStringLiteral("/code-sandbox-x-1")));
            QFile preload(parent.filePath(name + QStringLiteral("/code-sandbox-x-1/fetch.cjs")));
            QVERIFY(preload.open(QIODevice::WriteOnly));
        }
        QList<qint64> asked;
        const auto root = EgressFolders::makeRoot(temp.path(), [&](qint64 pid) {
            asked << pid;
            return pid == 777;
        });
        QVERIFY(root && root->isValid());
        QVERIFY2(QFileInfo(root->path())
                     .fileName()
                     .startsWith(QStringLiteral("code-sandbox-egress-%1-")
                                     .arg(QCoreApplication::applicationPid())),
                 qPrintable(root->path()));
        QVERIFY(!parent.exists(left.at(0)));
        QVERIFY(parent.exists(left.at(1)));
        QVERIFY(parent.exists(left.at(2)));
        QVERIFY(parent.exists(left.at(3)));
        // Its own root is never a candidate.
        QVERIFY(!asked.contains(QCoreApplication::applicationPid()));
        QCOMPARE(asked.size(), 2);
    }
};

QTEST_GUILESS_MAIN(tst_EgressFolders)
#include "tst_EgressFolders.moc"
