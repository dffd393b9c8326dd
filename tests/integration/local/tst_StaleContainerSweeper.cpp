#include "platform/ProcessProbe.h"
#include "runtime/ContainerInfo.h"
#include "runtime/DockerRuntime.h"
#include "runtime/PodmanRuntime.h"
#include "sandbox/StaleContainerSweeper.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace csm;

namespace {

const QString kThisHost = QStringLiteral("this-host");

// "k=v" pairs to a label map (a QMap with two template arguments cannot be a QFETCH column).
QMap<QString, QString> labelMap(const QStringList& pairs)
{
    QMap<QString, QString> labels;
    for (const QString& pair : pairs)
        labels.insert(pair.section(u'=', 0, 0), pair.section(u'=', 1));
    return labels;
}

ContainerInfo container(const QString& name, const QStringList& labelPairs)
{
    ContainerInfo info;
    info.id = name + QStringLiteral("-id");
    info.name = name;
    info.labels = labelMap(labelPairs);
    return info;
}

QString appLabel()
{
    return QStringLiteral("code-sandbox.app=code-sandbox-mcp");
}

QString hostLabel(const QString& host)
{
    return QStringLiteral("code-sandbox.host=") + host;
}

QString pidLabel(qint64 pid)
{
    return QStringLiteral("code-sandbox.pid=%1").arg(pid);
}

// Pids the injected liveness check calls alive.
constexpr qint64 kAlivePid = 4242;
constexpr qint64 kDeadPid = 999999;

bool fakeIsAlive(qint64 pid)
{
    return pid == kAlivePid;
}

// Writes an executable that stands in for the engine's CLI: `ps` prints `listing` and exits
// with `listExit` (after `listDelaySeconds`); `rm` appends its arguments to `rmLog` and fails
// for a container whose reference contains "fail".
QString writeFakeEngine(const QTemporaryDir& dir, const QByteArray& listing, int listExit = 0,
                        int listDelaySeconds = 0)
{
    const QString listingPath = dir.filePath(QStringLiteral("listing"));
    QFile listingFile(listingPath);
    if (!listingFile.open(QIODevice::WriteOnly) || listingFile.write(listing) != listing.size())
        return {};
    listingFile.close();

    const QString script = QStringLiteral(R"(#!/bin/sh
case "$1" in
ps)
    sleep %3
    cat '%1'
    [ %4 -eq 0 ] || echo "Error: the engine is broken" >&2
    exit %4 ;;
rm)
    for last; do :; done
    echo "$*" >> '%2'
    case "$last" in
    *fail*) echo "Error: cannot remove $last" >&2; exit 1 ;;
    esac
    exit 0 ;;
esac
exit 2
)")
                               .arg(listingPath, dir.filePath(QStringLiteral("rm.log")))
                               .arg(listDelaySeconds)
                               .arg(listExit);
    const QString path = dir.filePath(QStringLiteral("fake-engine"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(script.toUtf8());
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

QStringList removalLog(const QTemporaryDir& dir)
{
    QFile file(dir.filePath(QStringLiteral("rm.log")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).split(u'\n', Qt::SkipEmptyParts);
}

// The state letter of /proc/PID/stat ('Z' for a zombie), or 0.
char linuxProcessState(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    return close >= 0 && close + 2 < line.size() ? line.at(close + 2) : 0;
}

} // namespace

class tst_StaleContainerSweeper : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void staleContainers_data();
    void staleContainers();
    void staleContainersKeepsOrderAndEntries();

    void probeCountsItselfAlive();
    void probeRejectsImpossiblePids();
    void probeTellsCodeSandboxProcessesFromOthers();
    void probeCountsAZombieDead();

    void sweepRemovesOnlyStaleContainers();
    void sweepCountsOnlyConfirmedRemovals();
    void sweepWithNothingStale();
    void sweepWithMissingEngine();
    void sweepWithFailingEngine();
    void sweepWithGarbageListing();
    void sweepWithHungEngine();
    void sweepCanRunAgain();
    void sweepRepeatsUntilTheEngineListsNone();

private:
    bool m_haveShell = false;
};

void tst_StaleContainerSweeper::initTestCase()
{
    m_haveShell = QFile::exists(QStringLiteral("/bin/sh"));
}

void tst_StaleContainerSweeper::staleContainers_data()
{
    QTest::addColumn<QStringList>("labels");
    QTest::addColumn<bool>("stale");

    const QString app = appLabel();
    QTest::newRow("alive pid: kept") << QStringList{app, pidLabel(kAlivePid)} << false;
    QTest::newRow("dead pid: removed") << QStringList{app, pidLabel(kDeadPid)} << true;
    QTest::newRow("this host, alive: kept")
        << QStringList{app, hostLabel(kThisHost), pidLabel(kAlivePid)} << false;
    QTest::newRow("this host, dead: removed")
        << QStringList{app, hostLabel(kThisHost), pidLabel(kDeadPid)} << true;
    QTest::newRow("this host in other case, dead: removed")
        << QStringList{app, hostLabel(QStringLiteral("THIS-Host")), pidLabel(kDeadPid)} << true;
    QTest::newRow("empty host label counts as none: removed")
        << QStringList{app, hostLabel(QString()), pidLabel(kDeadPid)} << true;
    QTest::newRow("other host, dead pid: kept")
        << QStringList{app, hostLabel(QStringLiteral("other-host")), pidLabel(kDeadPid)} << false;
    QTest::newRow("other host, no pid: kept")
        << QStringList{app, hostLabel(QStringLiteral("other-host"))} << false;
    QTest::newRow("no pid label: removed") << QStringList{app} << true;
    QTest::newRow("empty pid: removed")
        << QStringList{app, QStringLiteral("code-sandbox.pid=")} << true;
    QTest::newRow("unparsable pid: removed")
        << QStringList{app, QStringLiteral("code-sandbox.pid=12ab")} << true;
    QTest::newRow("pid 0: removed") << QStringList{app, pidLabel(0)} << true;
    QTest::newRow("negative pid: removed") << QStringList{app, pidLabel(-kAlivePid)} << true;
    QTest::newRow("foreign app label, dead pid: kept")
        << QStringList{QStringLiteral("code-sandbox.app=something-else"), pidLabel(kDeadPid)}
        << false;
    QTest::newRow("no app label, dead pid: kept") << QStringList{pidLabel(kDeadPid)} << false;
    QTest::newRow("no labels at all: kept") << QStringList{} << false;
}

void tst_StaleContainerSweeper::staleContainers()
{
    QFETCH(QStringList, labels);
    QFETCH(bool, stale);
    const QList<ContainerInfo> result = StaleContainerSweeper::staleContainers(
        {container(QStringLiteral("c"), labels)}, kThisHost, &fakeIsAlive);
    QCOMPARE(result.size(), stale ? 1 : 0);
}

void tst_StaleContainerSweeper::staleContainersKeepsOrderAndEntries()
{
    const QString app = appLabel();
    const QList<ContainerInfo> all = {
        container(QStringLiteral("dead-1"), {app, pidLabel(kDeadPid)}),
        container(QStringLiteral("alive"), {app, pidLabel(kAlivePid)}),
        container(QStringLiteral("no-pid"), {app, hostLabel(kThisHost)}),
        container(QStringLiteral("elsewhere"), {app, hostLabel(QStringLiteral("x"))}),
    };
    QList<qint64> asked;
    const QList<ContainerInfo> stale =
        StaleContainerSweeper::staleContainers(all, kThisHost, [&asked](qint64 pid) {
            asked << pid;
            return fakeIsAlive(pid);
        });
    QStringList names;
    for (const ContainerInfo& info : stale)
        names << info.name;
    QCOMPARE(names, (QStringList{QStringLiteral("dead-1"), QStringLiteral("no-pid")}));
    QCOMPARE(stale.first().labels, all.first().labels);
    QCOMPARE(stale.first().reference(), QStringLiteral("dead-1-id"));
    // Only pids that can matter are probed.
    QCOMPARE(asked, (QList<qint64>{kDeadPid, kAlivePid}));
}

void tst_StaleContainerSweeper::probeCountsItselfAlive()
{
    // This test's name starts with "tst_", not "code-sandbox": its own pid is alive regardless.
    QVERIFY(ProcessProbe::isCodeSandboxProcessAlive(QCoreApplication::applicationPid()));
}

void tst_StaleContainerSweeper::probeRejectsImpossiblePids()
{
    QVERIFY(!ProcessProbe::isCodeSandboxProcessAlive(0));
    QVERIFY(!ProcessProbe::isCodeSandboxProcessAlive(-1));
    QVERIFY(!ProcessProbe::isCodeSandboxProcessAlive(std::numeric_limits<qint64>::max()));
}

void tst_StaleContainerSweeper::probeTellsCodeSandboxProcessesFromOthers()
{
#ifndef Q_OS_LINUX
    QSKIP("process names are only read on Linux");
#else
    const QString sleepPath = QStringLiteral("/bin/sleep");
    if (!QFile::exists(sleepPath))
        QSKIP("no /bin/sleep");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString namedCopy = dir.filePath(QStringLiteral("code-sandbox-fake-server"));
    QVERIFY(QFile::copy(sleepPath, namedCopy));
    QFile::setPermissions(namedCopy, QFile::ReadOwner | QFile::ExeOwner);

    QProcess ours;
    ours.start(namedCopy, {QStringLiteral("30")});
    QVERIFY(ours.waitForStarted());
    QProcess other;
    other.start(sleepPath, {QStringLiteral("30")});
    QVERIFY(other.waitForStarted());

    QVERIFY(ProcessProbe::isCodeSandboxProcessAlive(ours.processId()));
    QVERIFY(!ProcessProbe::isCodeSandboxProcessAlive(other.processId()));

    const qint64 oursPid = ours.processId();
    ours.kill();
    QVERIFY(ours.waitForFinished()); // reaped: the pid is gone
    QVERIFY(!ProcessProbe::isCodeSandboxProcessAlive(oursPid));
    other.kill();
    other.waitForFinished();
#endif
}

void tst_StaleContainerSweeper::probeCountsAZombieDead()
{
#ifndef Q_OS_LINUX
    QSKIP("zombies are only looked for on Linux");
#else
    if (!m_haveShell || !QFile::exists(QStringLiteral("/bin/sleep")))
        QSKIP("no /bin/sh or /bin/sleep");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString namedCopy = dir.filePath(QStringLiteral("code-sandbox-fake-server"));
    QVERIFY(QFile::copy(QStringLiteral("/bin/sleep"), namedCopy));
    QFile::setPermissions(namedCopy, QFile::ReadOwner | QFile::ExeOwner);

    // The shell starts the named process, then becomes `sleep`, which never reaps it: once it
    // exits it stays a zombie, as a kill -9'd server does until its parent waits for it. It
    // lives 2 s, so that it ends after the exec (the shell would reap it before), even on a
    // loaded machine.
    QProcess parent;
    parent.start(
        QStringLiteral("/bin/sh"),
        {QStringLiteral("-c"), QStringLiteral("'%1' 2 & echo $!; exec sleep 30").arg(namedCopy)});
    QVERIFY(parent.waitForReadyRead(5000));
    bool ok = false;
    const qint64 zombie = QString::fromUtf8(parent.readLine()).trimmed().toLongLong(&ok);
    QVERIFY(ok);
    QTRY_COMPARE_WITH_TIMEOUT(linuxProcessState(zombie), 'Z', 15'000);
    QVERIFY(!ProcessProbe::isCodeSandboxProcessAlive(zombie));
    parent.kill();
    parent.waitForFinished();
#endif
}

void tst_StaleContainerSweeper::sweepRemovesOnlyStaleContainers()
{
    if (!m_haveShell)
        QSKIP("the stand-in engine is a shell script");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray listing = R"([
 {"Id":"id-dead","Names":["dead"],"Labels":{"code-sandbox.app":"code-sandbox-mcp","code-sandbox.pid":"999999","code-sandbox.host":"this-host","code-sandbox.instance":"i1"}},
 {"Id":"id-alive","Names":["alive"],"Labels":{"code-sandbox.app":"code-sandbox-mcp","code-sandbox.pid":"4242"}},
 {"Id":"id-nopid","Names":["nopid"],"Labels":{"code-sandbox.app":"code-sandbox-mcp"}},
 {"Id":"id-remote","Names":["remote"],"Labels":{"code-sandbox.app":"code-sandbox-mcp","code-sandbox.pid":"999999","code-sandbox.host":"elsewhere"}},
 {"Id":"id-foreign","Names":["foreign"],"Labels":{"code-sandbox.app":"other","code-sandbox.pid":"999999"}}
])";
    const PodmanRuntime runtime(writeFakeEngine(dir, listing));
    StaleContainerSweeper sweeper(runtime, kThisHost, &fakeIsAlive);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    sweeper.start();
    QCOMPARE(finished.count(), 0); // never from inside start()
    QVERIFY(sweeper.isRunning());
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().first().toInt(), 2);
    QVERIFY(!sweeper.isRunning());

    QStringList removed = removalLog(dir);
    removed.sort();
    QCOMPARE(removed,
             (QStringList{runtime.forceRemoveArguments(QStringLiteral("id-dead")).join(u' '),
                          runtime.forceRemoveArguments(QStringLiteral("id-nopid")).join(u' ')}));
}

void tst_StaleContainerSweeper::sweepCountsOnlyConfirmedRemovals()
{
    if (!m_haveShell)
        QSKIP("the stand-in engine is a shell script");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray listing =
        "{\"ID\":\"id-ok\",\"Names\":\"ok\",\"Labels\":\"code-sandbox.app=code-sandbox-mcp\"}\n"
        "{\"ID\":\"id-fail\",\"Names\":\"fail\",\"Labels\":\"code-sandbox.app=code-sandbox-mcp\"}"
        "\n";
    const DockerRuntime runtime(writeFakeEngine(dir, listing));
    StaleContainerSweeper sweeper(runtime, kThisHost, &fakeIsAlive);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    sweeper.start();
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.first().first().toInt(), 1);
    QCOMPARE(removalLog(dir).size(), 2);
}

void tst_StaleContainerSweeper::sweepWithNothingStale()
{
    if (!m_haveShell)
        QSKIP("the stand-in engine is a shell script");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const PodmanRuntime runtime(writeFakeEngine(dir, "[]\n"));
    StaleContainerSweeper sweeper(runtime, kThisHost, &fakeIsAlive);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    sweeper.start();
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.first().first().toInt(), 0);
    QVERIFY(removalLog(dir).isEmpty());
}

void tst_StaleContainerSweeper::sweepWithMissingEngine()
{
    const PodmanRuntime runtime(QStringLiteral("/nonexistent/code-sandbox-test/podman"));
    StaleContainerSweeper sweeper(runtime, kThisHost);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    sweeper.start();
    QCOMPARE(finished.count(), 0);
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().first().toInt(), 0);
    QTest::qWait(50);
    QCOMPARE(finished.count(), 1); // exactly once
}

void tst_StaleContainerSweeper::sweepWithFailingEngine()
{
    if (!m_haveShell)
        QSKIP("the stand-in engine is a shell script");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Even a listing that names a stale container is not acted on when the engine says it failed.
    const DockerRuntime runtime(writeFakeEngine(
        dir, "{\"ID\":\"x\",\"Labels\":\"code-sandbox.app=code-sandbox-mcp\"}\n", 125));
    StaleContainerSweeper sweeper(runtime, kThisHost, &fakeIsAlive);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    sweeper.start();
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.first().first().toInt(), 0);
    QVERIFY(removalLog(dir).isEmpty());
}

void tst_StaleContainerSweeper::sweepWithGarbageListing()
{
    if (!m_haveShell)
        QSKIP("the stand-in engine is a shell script");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const PodmanRuntime runtime(writeFakeEngine(dir, "WARN[0000] something odd\n[{\"Id\":"));
    StaleContainerSweeper sweeper(runtime, kThisHost, &fakeIsAlive);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    sweeper.start();
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.first().first().toInt(), 0);
    QVERIFY(removalLog(dir).isEmpty());
}

void tst_StaleContainerSweeper::sweepWithHungEngine()
{
    if (!m_haveShell)
        QSKIP("the stand-in engine is a shell script");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const PodmanRuntime runtime(writeFakeEngine(dir, "[]", 0, 5));
    StaleContainerSweeper sweeper(runtime, kThisHost, &fakeIsAlive);
    sweeper.setTimeout(300);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    QElapsedTimer clock;
    clock.start();
    sweeper.start();
    QVERIFY(finished.wait(10'000));
    QVERIFY(clock.elapsed() < 5'000);
    QCOMPARE(finished.first().first().toInt(), 0);
    QTest::qWait(100);
    QCOMPARE(finished.count(), 1);
}

void tst_StaleContainerSweeper::sweepCanRunAgain()
{
    if (!m_haveShell)
        QSKIP("the stand-in engine is a shell script");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const PodmanRuntime runtime(writeFakeEngine(
        dir, R"([{"Id":"id-x","Names":["x"],"Labels":{"code-sandbox.app":"code-sandbox-mcp"}}])"));
    StaleContainerSweeper sweeper(runtime, kThisHost, &fakeIsAlive);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    sweeper.start();
    sweeper.start(); // ignored while running
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.count(), 1);
    sweeper.start();
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.count(), 2);
    QCOMPARE(finished.at(1).first().toInt(), 1);
    QCOMPARE(removalLog(dir).size(), 2);
}

QTEST_GUILESS_MAIN(tst_StaleContainerSweeper)
#include "tst_StaleContainerSweeper.moc"

void tst_StaleContainerSweeper::sweepRepeatsUntilTheEngineListsNone()
{
    if (!m_haveShell)
        QSKIP("the stand-in engine is a shell script");
    // An engine that was already removing the container (as Docker is after a --rm container
    // stops): `rm -f` fails at once with "already in progress", and `ps` lists it twice more.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString count = dir.filePath(QStringLiteral("listings"));
    const QString script = QStringLiteral(R"(#!/bin/sh
case "$1" in
ps)
    n=$(cat '%1' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '%1'
    if [ $n -le 3 ]; then
        echo '{"ID":"id-going","Names":"going","Labels":"code-sandbox.app=code-sandbox-mcp,code-sandbox.pid=999999"}'
    fi
    exit 0 ;;
rm)
    echo "Error response from daemon: removal of container id-going is already in progress" >&2
    exit 1 ;;
esac
exit 2
)")
                               .arg(count);
    const QString path = dir.filePath(QStringLiteral("fake-engine"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(script.toUtf8());
    file.close();
    QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const auto listings = [&count] {
        QFile counter(count);
        return counter.open(QIODevice::ReadOnly) ? counter.readAll().trimmed().toInt() : 0;
    };

    const DockerRuntime runtime(path);
    {
        // Without it: one listing, one failed removal, done.
        StaleContainerSweeper once(runtime, kThisHost, &fakeIsAlive);
        QSignalSpy finished(&once, &StaleContainerSweeper::finished);
        once.start();
        QVERIFY(finished.wait(10'000));
        QCOMPARE(listings(), 1);
    }
    QVERIFY(QFile::remove(count));
    StaleContainerSweeper sweeper(runtime, kThisHost, &fakeIsAlive);
    sweeper.setRepeatUntilGone(true);
    QSignalSpy finished(&sweeper, &StaleContainerSweeper::finished);
    sweeper.start();
    QVERIFY(finished.wait(10'000));
    // Three listings with the container in them, then the one that shows it gone.
    QCOMPARE(listings(), 4);
    QCOMPARE(finished.first().first().toInt(), 0);
}
