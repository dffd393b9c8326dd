// ContainerReaper against a stand-in engine CLI (a script): its "containers" are files in a
// folder, which its `rm --force NAME` removes and names, as both engines do. A client is a real
// process; one that "creates" its container after a while does so from a background process
// that outlives it, as a remote engine goes on creating a container whose client has gone.

#include "runtime/DockerRuntime.h"
#include "sandbox/ContainerReaper.h"
#include "StandInEngine.h"

#include <QElapsedTimer>
#include <QFile>
#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <poll.h>
#include <unistd.h>

using csm::ContainerReaper;
using csm::DockerRuntime;

class tst_ContainerReaper final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_cli;

    QString containerPath(const QString& name) const { return m_dir.filePath(name); }

    // A client whose engine makes the container `name` after `createAfterMs` (never if < 0),
    // whether the client is still there or not, and which then waits as an attached run does.
    QProcess* startClient(const QString& name, int createAfterMs, QObject* parent)
    {
        auto* client = new QProcess(parent);
        const QString create = createAfterMs < 0 ? QStringLiteral(":")
                                                 : QStringLiteral("(sleep %1; touch '%2') &")
                                                       .arg(createAfterMs / 1000.0)
                                                       .arg(containerPath(name));
        client->start(QStringLiteral("/bin/sh"),
                      {QStringLiteral("-c"), create + QStringLiteral("\nexec sleep 30")});
        return client->waitForStarted() ? client : nullptr;
    }

    static bool drains(ContainerReaper& reaper, int timeoutMs)
    {
        QSignalSpy drained(&reaper, &ContainerReaper::drained);
        reaper.drain();
        return drained.wait(timeoutMs) || drained.count() > 0;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_cli = m_dir.filePath(QStringLiteral("docker"));
        QVERIFY(writeStandInEngine(m_cli, "#!/bin/sh\n"
                                          "[ \"$1 $2\" = 'rm --force' ] || exit 1\n"
                                          "cd \"${0%/*}\" || exit 1\n"
                                          // A removal while a starter still runs, noted.
                                          "[ -e \"$3.starting\" ] && touch \"$3.early\"\n"
                                          "if [ -e \"$3\" ]; then rm -f \"$3\"; echo \"$3\"; "
                                          "else echo \"Error: No such container: $3\" >&2; fi\n"));
    }

    // The last resort on the way out (a removal left to run on its own) inherits nothing of the
    // server's: a stdio server's stdout carries the protocol, where the removed container's name
    // (what the engines print) would be a line that is not JSON.
    void aRemovalLeftToItselfWritesNothingOnTheServersOutput()
    {
        QFile container(containerPath(QStringLiteral("left-behind")));
        QVERIFY(container.open(QIODevice::WriteOnly));
        container.close();
        int ends[2];
        QCOMPARE(::pipe(ends), 0);
        std::fflush(stdout);
        const int ownOutput = ::dup(STDOUT_FILENO);
        ::dup2(ends[1], STDOUT_FILENO);
        ::close(ends[1]);
        DockerRuntime(m_cli).startDetachedRemoval(QStringLiteral("left-behind"));
        ::dup2(ownOutput, STDOUT_FILENO);
        ::close(ownOutput);
        QTRY_VERIFY_WITH_TIMEOUT(!container.exists(), 10'000);
        // Whatever the remover printed is in the pipe by the time it has ended, and its end
        // closes the pipe's last writer.
        QByteArray printed;
        char chunk[256];
        pollfd readable{ends[0], POLLIN, 0};
        while (::poll(&readable, 1, 10'000) > 0) {
            const ssize_t size = ::read(ends[0], chunk, sizeof chunk);
            if (size <= 0)
                break;
            printed.append(chunk, size);
        }
        ::close(ends[0]);
        QCOMPARE(printed, QByteArray());
    }

    // The engine makes the container only after the call gave it up: the removal keeps trying
    // until it has removed it, and only then lets the client go.
    void aContainerStillBeingCreatedIsRemovedOnceItExists()
    {
        DockerRuntime runtime(m_cli);
        ContainerReaper reaper(runtime);
        QProcess* client = startClient(QStringLiteral("late"), 700, &reaper);
        QVERIFY(client);
        QElapsedTimer took;
        took.start();
        reaper.adoptAndRemove(client, QStringLiteral("late"));
        QVERIFY(drains(reaper, 10'000));
        QVERIFY2(took.elapsed() >= 600, "drained before the container existed");
        // Whatever the engine was still doing has long been done: nothing came up after.
        QTest::qWait(1000);
        QVERIFY(!QFile::exists(containerPath(QStringLiteral("late"))));
    }

    // A container that exists already goes at once, and its client with it.
    void anExistingContainerGoesAtOnce()
    {
        DockerRuntime runtime(m_cli);
        ContainerReaper reaper(runtime);
        QProcess* client = startClient(QStringLiteral("made"), 0, &reaper);
        QVERIFY(client);
        QTRY_VERIFY(QFile::exists(containerPath(QStringLiteral("made"))));
        QElapsedTimer took;
        took.start();
        reaper.adoptAndRemove(client, QStringLiteral("made"));
        QVERIFY(drains(reaper, 5'000));
        QVERIFY2(took.elapsed() < ContainerReaper::kCreationGraceMs, "waited for a removed one");
        QVERIFY(!QFile::exists(containerPath(QStringLiteral("made"))));
    }

    // A client whose container never comes is not waited for beyond the grace: killed then.
    void aContainerThatNeverComesIsGivenUpAfterTheGrace()
    {
        DockerRuntime runtime(m_cli);
        ContainerReaper reaper(runtime);
        QProcess* client = startClient(QStringLiteral("never"), -1, &reaper);
        QVERIFY(client);
        const QPointer<QProcess> watched(client); // the reaper deletes it once it has ended
        QElapsedTimer took;
        took.start();
        reaper.adoptAndRemove(client, QStringLiteral("never"));
        QVERIFY(drains(reaper, ContainerReaper::kCreationGraceMs + 5'000));
        QVERIFY(took.elapsed() >= ContainerReaper::kCreationGraceMs);
        QTRY_VERIFY(watched.isNull());
    }

    // A client told to end while its engine still makes the container (an attached run whose
    // stdin was closed) is let finish: no removal races the creation, and the container goes
    // once the client is done.
    void aStarterIsWaitedForBeforeItsContainerIsRemoved()
    {
        DockerRuntime runtime(m_cli);
        ContainerReaper reaper(runtime);
        const QString name = QStringLiteral("starting");
        const QString marker = containerPath(name + QStringLiteral(".starting"));
        auto* starter = new QProcess(&reaper);
        starter->start(QStringLiteral("/bin/sh"),
                       {QStringLiteral("-c"), QStringLiteral("touch '%1'; sleep 0.3; touch '%2'; "
                                                             "sleep 0.5; rm -f '%1'")
                                                  .arg(marker, containerPath(name))});
        QVERIFY(starter->waitForStarted());
        QTRY_VERIFY(QFile::exists(marker));
        reaper.adoptThenRemove(starter, name);
        QVERIFY(drains(reaper, 10'000));
        QVERIFY2(!QFile::exists(containerPath(name + QStringLiteral(".early"))),
                 "removed while its starter was still making it");
        QVERIFY(!QFile::exists(containerPath(name)));
    }

    // A starter that never ends does not keep its container: removed after the grace.
    void aStarterThatNeverEndsHasItsContainerRemovedAfterTheGrace()
    {
        DockerRuntime runtime(m_cli);
        ContainerReaper reaper(runtime);
        QProcess* starter = startClient(QStringLiteral("stuck"), 0, &reaper);
        QVERIFY(starter);
        QTRY_VERIFY(QFile::exists(containerPath(QStringLiteral("stuck"))));
        QElapsedTimer took;
        took.start();
        reaper.adoptThenRemove(starter, QStringLiteral("stuck"));
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(containerPath(QStringLiteral("stuck"))),
                                 ContainerReaper::kExitGraceMs + 5'000);
        // A timer that long is a coarse one: it may fire up to 5% early.
        QVERIFY(took.elapsed() >= ContainerReaper::kExitGraceMs * 95 / 100 - 100);
        QVERIFY(drains(reaper, 5'000));
    }
};

QTEST_GUILESS_MAIN(tst_ContainerReaper)
#include "tst_ContainerReaper.moc"
