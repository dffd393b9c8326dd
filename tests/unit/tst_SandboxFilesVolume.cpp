// SandboxFilesVolume against a stand-in engine CLI (a shell script that logs its arguments and
// answers as told): the order of its steps, what it copies where, and how each failure is
// classified. The real engines fill it in the remote-engine integration tests.
#include "runtime/DockerRuntime.h"
#include "runtime/PodmanRuntime.h"
#include "sandbox/SandboxFilesVolume.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace csm;

namespace {

// A CLI that appends each call's arguments (one line) to `log`, prints a mountpoint for `volume
// inspect --format {{.Mountpoint}}`, fails the calls whose first two words are in `failing`, and
// gives back what was copied into the volume (or the file `planted`, in the test's folder).
QString writeFakeCli(const QTemporaryDir& dir, const QStringList& failing,
                     const QString& planted = {})
{
    const QString path = dir.filePath(QStringLiteral("engine"));
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly))
        return {};
    QByteArray text = "#!/bin/sh\n"
                      "echo \"$*\" >> '" +
                      dir.filePath(QStringLiteral("log")).toUtf8() +
                      "'\n"
                      "case \"$1 $2\" in\n";
    for (const QString& call : failing)
        text += "  '" + call.toUtf8() + "') echo \"refused: $1 $2\" >&2; exit 1 ;;\n";
    // `cp CONTAINER:PATH -`: the file copied there, as a tar stream (or what `planted` names).
    const QByteArray folder = dir.path().toUtf8();
    text += "  'volume inspect') [ \"$4\" = '{{.Mountpoint}}' ] && echo /var/lib/x/_data ;;\n"
            "esac\n"
            "if [ \"$1\" = cp ] && [ \"$3\" = - ]; then\n"
            "  case \"$2\" in\n"
            "    *launch) exec tar -C '" +
            folder + "' -cf - " +
            (planted.isEmpty() ? QByteArray("csm-launch") : planted.toUtf8()) +
            " ;;\n"
            "    *seccomp.json) exec tar -C '" +
            folder +
            "' -cf - csm-seccomp.json ;;\n"
            "  esac\n"
            "fi\n"
            "exit 0\n";
    script.write(text);
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

QStringList calls(const QTemporaryDir& dir)
{
    QFile log(dir.filePath(QStringLiteral("log")));
    if (!log.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(log.readAll()).split(u'\n', Qt::SkipEmptyParts);
}

SandboxFiles filesIn(const QTemporaryDir& dir)
{
    const QString launcher = dir.filePath(QStringLiteral("csm-launch"));
    const QString profile = dir.filePath(QStringLiteral("csm-seccomp.json"));
    QFile l(launcher);
    l.open(QIODevice::WriteOnly);
    l.write("launcher bytes");
    QFile p(profile);
    p.open(QIODevice::WriteOnly);
    p.write("{}");
    return {launcher, profile, {}};
}

bool waitFinished(SandboxFilesVolume& volume)
{
    QSignalSpy finished(&volume, &SandboxFilesVolume::finished);
    volume.fill(QStringLiteral("code-sandbox-python:latest"));
    return finished.wait(10'000);
}

} // namespace

class tst_SandboxFilesVolume final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nameFollowsTheContent()
    {
        const QString a = SandboxFilesVolume::nameFor("launcher 1", "{}");
        QVERIFY(a.startsWith(QLatin1String("code-sandbox-files-")));
        QCOMPARE(a.size(), qsizetype(QStringLiteral("code-sandbox-files-").size() + 16));
        QCOMPARE(SandboxFilesVolume::nameFor("launcher 1", "{}"), a);
        // A new launcher or a new profile is a new volume: old servers keep theirs.
        QVERIFY(SandboxFilesVolume::nameFor("launcher 2", "{}") != a);
        QVERIFY(SandboxFilesVolume::nameFor("launcher 1", "{ }") != a);
    }

    void fillsAMissingVolumeThroughAContainerThatNeverStarts()
    {
        QTemporaryDir dir;
        const SandboxFiles files = filesIn(dir);
        DockerRuntime runtime(writeFakeCli(dir, {QStringLiteral("volume inspect")}));
        SandboxFilesVolume volume(
            runtime, files, {{QStringLiteral("code-sandbox.app"), QStringLiteral("code-sandbox")}});
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        // The filler's removal is the last call, started as the fill ends.
        QTRY_COMPARE(calls(dir).size(), 8);
        const QStringList log = calls(dir);
        QVERIFY(log.at(0).startsWith(QLatin1String("volume inspect")));
        QCOMPARE(log.at(1), QStringLiteral("volume create --label code-sandbox.app=code-sandbox ") +
                                volume.name());
        // The filler: never started, no network, labelled for the sweep, the volume mounted.
        QVERIFY(
            log.at(2).startsWith(QLatin1String("create --pull never --name code-sandbox-fill-")));
        QVERIFY(log.at(2).contains(QLatin1String("--network none")));
        QVERIFY(log.at(2).contains(QLatin1String("--label code-sandbox.app=code-sandbox")));
        QVERIFY(log.at(2).endsWith(QStringLiteral("--mount type=volume,source=%1,target=/.code-"
                                                  "sandbox/files code-sandbox-python:latest")
                                       .arg(volume.name())));
        const QString filler = log.at(2).section(u' ', 4, 4);
        QCOMPARE(
            log.at(3),
            QStringLiteral("cp %1 %2:/.code-sandbox/files/launch").arg(files.launcher, filler));
        QCOMPARE(log.at(4), QStringLiteral("cp %1 %2:/.code-sandbox/files/seccomp.json")
                                .arg(files.seccompProfile, filler));
        // Both read back before anything trusts them.
        QCOMPARE(log.at(5), QStringLiteral("cp %1:/.code-sandbox/files/launch -").arg(filler));
        QCOMPARE(log.at(6),
                 QStringLiteral("cp %1:/.code-sandbox/files/seccomp.json -").arg(filler));
        QVERIFY(log.at(7).startsWith(QStringLiteral("rm --force ") + filler));
        // Docker's CLI sends the profile's text: the host's path stays the one to give.
        QVERIFY(volume.seccompProfileOnEngine().isEmpty());
    }

    void podmansServiceGetsTheProfileFromTheVolume()
    {
        QTemporaryDir dir;
        PodmanRuntime runtime(writeFakeCli(dir, {}));
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        // The volume existed: not created again.
        QVERIFY(!calls(dir).join(u'\n').contains(QLatin1String("volume create")));
        QCOMPARE(volume.seccompProfileOnEngine(), QStringLiteral("/var/lib/x/_data/seccomp.json"));
    }

    void aFillerThatCannotBeMadeIsTheImagesBusiness()
    {
        QTemporaryDir dir;
        DockerRuntime runtime(writeFakeCli(dir, {QStringLiteral("create --pull")}));
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(volume));
        QVERIFY(!volume.isFilled());
        QCOMPARE(volume.failure(), SandboxFilesVolume::Failure::Filler);
        QVERIFY2(volume.error().contains(QLatin1String("refused: create --pull")),
                 qPrintable(volume.error()));
    }

    // What the volume holds after the copy is checked: a link planted there (by an image's
    // copy-up into the empty volume, or by anyone with the engine's API) is never trusted, and
    // the volume goes, so that the next fill starts from a new one.
    void aPlantedLinkIsNeverTrusted()
    {
        QTemporaryDir dir;
        const SandboxFiles files = filesIn(dir);
        QVERIFY(QFile::link(QStringLiteral("/bin/sh"), dir.filePath(QStringLiteral("planted"))));
        DockerRuntime runtime(writeFakeCli(dir, {}, QStringLiteral("planted")));
        SandboxFilesVolume volume(runtime, files, {});
        QVERIFY(waitFinished(volume));
        QVERIFY(!volume.isFilled());
        QCOMPARE(volume.failure(), SandboxFilesVolume::Failure::Other);
        QVERIFY2(volume.error().contains(QLatin1String("not that regular file")),
                 qPrintable(volume.error()));
        const QStringList log = calls(dir);
        QVERIFY(log.at(log.size() - 2).startsWith(QLatin1String("rm --force code-sandbox-fill-")));
        QCOMPARE(log.constLast(), QStringLiteral("volume rm --force ") + volume.name());
    }

    void aFailedCopyRemovesTheFillerAndCanBeTriedAgain()
    {
        QTemporaryDir dir;
        const QString cli = writeFakeCli(dir, {QStringLiteral("cp ") + filesIn(dir).launcher});
        DockerRuntime runtime(cli);
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(volume));
        QCOMPARE(volume.failure(), SandboxFilesVolume::Failure::Other);
        QTRY_VERIFY(
            calls(dir).constLast().startsWith(QLatin1String("rm --force code-sandbox-fill-")));
        // The engine is fine again: the next fill succeeds.
        writeFakeCli(dir, {});
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        QCOMPARE(volume.failure(), SandboxFilesVolume::Failure::None);
    }

    void aMissingCliSaysSoAsEveryCallWould()
    {
        QTemporaryDir dir;
        DockerRuntime runtime(dir.filePath(QStringLiteral("no-such-docker")));
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(volume));
        QCOMPARE(volume.failure(), SandboxFilesVolume::Failure::EngineNotStarted);
        QVERIFY2(volume.error().contains(QLatin1String("could not be started")),
                 qPrintable(volume.error()));
        QVERIFY(volume.error().contains(QLatin1String("apt-get install docker.io")));
    }
};

QTEST_GUILESS_MAIN(tst_SandboxFilesVolume)
#include "tst_SandboxFilesVolume.moc"
