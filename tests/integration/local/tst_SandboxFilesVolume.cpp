// SandboxFilesVolume against a stand-in engine CLI (a shell script that logs its arguments and
// answers as told): the order of its steps, what it copies where, and how each failure is
// classified. The real engines fill it in the remote-engine integration tests.
#include "runtime/DockerRuntime.h"
#include "runtime/PodmanRuntime.h"
#include "sandbox/SandboxFilesVolume.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace csm;

namespace {

// A CLI that appends each call's arguments (one line) to `log`, fails the calls whose first two
// words are in `failing`, keeps the volumes it has (a file each in `volumes`: `volume create`,
// `volume rm`, and `volume inspect --format {{.Name}}`, which names those that exist and fails if
// one does not), prints a mountpoint for `volume inspect --format {{.Mountpoint}}`, and gives back
// what was copied into the volume (or the file `planted`, in the test's folder).
QString writeFakeCli(const QTemporaryDir& dir, const QStringList& failing,
                     const QString& planted = {}, bool losesModes = false)
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
        text += "  '" + call.toUtf8() + "'*) echo \"refused: $1 $2\" >&2; exit 1 ;;\n";
    // The volume is a folder: `cp HOST CONTAINER:PATH` puts the file there, and
    // `cp CONTAINER:PATH -` gives it back as a tar stream (the launcher: what `planted` names,
    // if anything).
    const QByteArray volume = dir.filePath(QStringLiteral("volume")).toUtf8();
    const QByteArray volumes = dir.filePath(QStringLiteral("volumes")).toUtf8();
    // Each volume is a file holding "its volume-id label|its checks-volume label" (volume inspect
    // prints NAME|ID|CHECKS); `volume create` of one that exists changes nothing.
    text += "  'volume inspect')\n"
            "    [ \"$4\" = '{{.Mountpoint}}' ] && echo /var/lib/x/_data && exit 0\n"
            "    shift 4; missing=0\n"
            "    for name; do\n"
            "      if [ -e '" +
            volumes + "'/\"$name\" ]; then echo \"$name|$(cat '" + volumes +
            "'/\"$name\")\"; else missing=1; fi\n"
            "    done\n"
            "    exit $missing ;;\n"
            "  'volume create')\n"
            "    id=; label=; previous=\n"
            "    for name; do\n"
            "      [ \"$previous\" = --label ] && case \"$name\" in code-sandbox.checks-volume=*) "
            "label=${name#*=} ;; code-sandbox.volume-id=*) id=${name#*=} ;; esac\n"
            "      previous=$name\n"
            "    done\n"
            "    mkdir -p '" +
            volumes +
            "'\n"
            "    [ -e '" +
            volumes + "'/\"$name\" ] || echo \"$id|$label\" > '" + volumes +
            "'/\"$name\"\n"
            "    echo \"$name\"; exit 0 ;;\n"
            "  'volume rm') for name; do :; done; rm -f '" +
            volumes +
            "'/\"$name\"; exit 0 ;;\n"
            "esac\n"
            "mkdir -p '" +
            volume +
            "'\n"
            "if [ \"$1\" = cp ] && [ \"$3\" = - ]; then\n"
            "  name=$(basename \"${2#*:}\")\n";
    if (!planted.isEmpty()) {
        text += "  [ \"$name\" = launch ] && exec tar -C '" + dir.path().toUtf8() + "' -cf - " +
                planted.toUtf8() + "\n";
    }
    text +=
        "  exec tar -C '" + volume +
        "' -cf - \"$name\"\n"
        "elif [ \"$1\" = cp ]; then\n"
        "  cp \"$2\" '" +
        volume + "'/$(basename \"${3#*:}\")\n" +
        (losesModes ? "  chmod 0600 '" + volume + "'/$(basename \"${3#*:}\")\n" : QByteArray()) +
        "  exit $?\n"
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

// Makes the stand-in engine hold the volume `name`, with `id` and `checks` as its volume-id and
// checks-volume labels.
void haveVolume(const QTemporaryDir& dir, const QString& name, const QByteArray& id = "100",
                const QByteArray& checks = {})
{
    QDir().mkpath(dir.filePath(QStringLiteral("volumes")));
    QFile volume(dir.filePath(QStringLiteral("volumes/") + name));
    volume.open(QIODevice::WriteOnly);
    volume.write(id + '|' + checks + '\n');
}

// The checks-volume label of the stand-in engine's volume `name`.
QByteArray checksOf(const QTemporaryDir& dir, const QString& name)
{
    QFile volume(dir.filePath(QStringLiteral("volumes/") + name));
    volume.open(QIODevice::ReadOnly);
    return volume.readAll().trimmed().split('|').value(1);
}

// The volume-id label of the stand-in engine's volume `name`.
QByteArray idOf(const QTemporaryDir& dir, const QString& name)
{
    QFile volume(dir.filePath(QStringLiteral("volumes/") + name));
    volume.open(QIODevice::ReadOnly);
    return volume.readAll().trimmed().split('|').value(0);
}

// How `volume inspect` is asked about `names`.
QString inspectCall(const QStringList& names)
{
    return QStringLiteral("volume inspect --format {{.Name}}|{{index .Labels "
                          "\"code-sandbox.volume-id\"}}|{{index .Labels "
                          "\"code-sandbox.checks-volume\"}} ") +
           names.join(u' ');
}

bool hasVolume(const QTemporaryDir& dir, const QString& name)
{
    return QFileInfo::exists(dir.filePath(QStringLiteral("volumes/") + name));
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
        const QString a = SandboxFilesVolume::nameFor({"launcher 1", "{}", "js"});
        QVERIFY(a.startsWith(QLatin1String("code-sandbox-files-")));
        QCOMPARE(a.size(), qsizetype(QStringLiteral("code-sandbox-files-").size() + 16));
        QCOMPARE(SandboxFilesVolume::nameFor({"launcher 1", "{}", "js"}), a);
        // A new launcher, profile or preload is a new volume: old servers keep theirs.
        QVERIFY(SandboxFilesVolume::nameFor({"launcher 2", "{}", "js"}) != a);
        QVERIFY(SandboxFilesVolume::nameFor({"launcher 1", "{ }", "js"}) != a);
        QVERIFY(SandboxFilesVolume::nameFor({"launcher 1", "{}", "js2"}) != a);
        // Bytes moved from one file to the next are another set of files.
        QVERIFY(SandboxFilesVolume::nameFor({"launcher 1{", "}", "js"}) != a);
    }

    void fillsAMissingVolumeThroughAContainerThatNeverStarts()
    {
        QTemporaryDir dir;
        const SandboxFiles files = filesIn(dir);
        DockerRuntime runtime(writeFakeCli(dir, {}));
        SandboxFilesVolume volume(
            runtime, files, {{QStringLiteral("code-sandbox.app"), QStringLiteral("code-sandbox")}});
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        // The filler's removal and the marker's creation are the last calls, started as the
        // fill ends.
        QTRY_COMPARE(calls(dir).size(), 12);
        QStringList log = calls(dir);
        const QString marker = SandboxFilesVolume::verifiedMarkerFor(volume.name());
        QCOMPARE(log.at(0), inspectCall({volume.name(), marker}));
        // Made with an id of its own, read back (another server's may have won): what the
        // marker will vouch for.
        QVERIFY2(log.at(1).startsWith(QLatin1String("volume create --label "
                                                    "code-sandbox.app=code-sandbox --label "
                                                    "code-sandbox.volume-id=")),
                 qPrintable(log.at(1)));
        QVERIFY(log.at(1).endsWith(u' ' + volume.name()));
        QVERIFY(idOf(dir, volume.name()).size() == 32);
        QCOMPARE(log.at(2), inspectCall({volume.name()}));
        log.removeAt(2);
        // The filler: never started, no network, labelled for the sweep, the volume mounted.
        QVERIFY(
            log.at(2).startsWith(QLatin1String("create --pull never --name code-sandbox-fill-")));
        QVERIFY(log.at(2).contains(QLatin1String("--network none")));
        QVERIFY(log.at(2).contains(QLatin1String("--label code-sandbox.app=code-sandbox")));
        QVERIFY(log.at(2).endsWith(QStringLiteral("--mount type=volume,source=%1,target=/.code-"
                                                  "sandbox/files code-sandbox-python:latest")
                                       .arg(volume.name())));
        const QString filler = log.at(2).section(u' ', 4, 4);
        // The launcher, the profile and Node's fetch preload, each copied in from a file written
        // for it (not the host's, which could change meanwhile), then all read back before
        // anything trusts them.
        const QStringList names{QStringLiteral("launch"), QStringLiteral("seccomp.json"),
                                QStringLiteral("fetch-proxy.cjs")};
        for (int i = 0; i < names.size(); ++i) {
            const QStringList copyIn = log.at(3 + i).split(u' ');
            QCOMPARE(copyIn.size(), 3);
            QCOMPARE(copyIn.at(0), QStringLiteral("cp"));
            QVERIFY(copyIn.at(1).endsWith(u'/' + names.at(i)));
            QVERIFY(copyIn.at(1) != files.launcher && copyIn.at(1) != files.seccompProfile);
            QCOMPARE(copyIn.at(2), filler + QStringLiteral(":/.code-sandbox/files/") + names.at(i));
            QCOMPARE(log.at(6 + i),
                     QStringLiteral("cp %1:/.code-sandbox/files/%2 -").arg(filler, names.at(i)));
        }
        // Checked: the marker says so to the next servers, made only now.
        QStringList last{log.at(9), log.at(10)};
        last.sort();
        QVERIFY(last.at(0).startsWith(QStringLiteral("rm --force ") + filler));
        QCOMPARE(last.at(1),
                 QStringLiteral("volume create --label code-sandbox.app=code-sandbox --label "
                                "code-sandbox.checks-volume=%1 %2")
                     .arg(QString::fromLatin1(idOf(dir, volume.name())), marker));
        QCOMPARE(checksOf(dir, marker), idOf(dir, volume.name()));
        // What the sandboxes get: the same bytes, the launcher executable by everyone.
        const QString held = dir.filePath(QStringLiteral("volume/launch"));
        QFile launcher(held);
        QVERIFY(launcher.open(QIODevice::ReadOnly));
        QCOMPARE(launcher.readAll(), QByteArray("launcher bytes"));
        QVERIFY2(QFileInfo(held).permissions() & QFileDevice::ExeOther,
                 qPrintable(QString::number(int(QFileInfo(held).permissions()), 16)));
        QFile preload(dir.filePath(QStringLiteral("volume/fetch-proxy.cjs")));
        QVERIFY(preload.open(QIODevice::ReadOnly));
        QVERIFY(
            preload.readAll().contains("Code Sandbox: fetch through the sandbox's egress proxy"));
        QVERIFY(QFileInfo(preload).permissions() & QFileDevice::ReadOther);
        QVERIFY(!(QFileInfo(preload).permissions() & QFileDevice::ExeOther));
        // Docker's CLI sends the profile's text: the host's path stays the one to give.
        QVERIFY(volume.seccompProfileOnEngine().isEmpty());
    }

    void podmansServiceGetsTheProfileFromTheVolume()
    {
        QTemporaryDir dir;
        PodmanRuntime runtime(writeFakeCli(dir, {}));
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        haveVolume(dir, volume.name());
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        // The volume existed: not created again; filled, as nothing said it was checked; the
        // marker vouches for it as it was found.
        QVERIFY(!calls(dir).contains(QStringLiteral("volume create ") + volume.name()));
        QVERIFY(calls(dir).join(u'\n').contains(QLatin1String(":/.code-sandbox/files/launch -")));
        QCOMPARE(volume.seccompProfileOnEngine(), QStringLiteral("/var/lib/x/_data/seccomp.json"));
        QCOMPARE(checksOf(dir, SandboxFilesVolume::verifiedMarkerFor(volume.name())),
                 QByteArray("100"));
        // Inspect, filler, three copies in, three out, the filler's removal, the marker, the
        // mountpoint: all made before the log is read afresh.
        QTRY_COMPARE(calls(dir).size(), 11);

        // The next server finds it checked: two calls, whether both exist and where the engine
        // keeps the profile.
        QFile::remove(dir.filePath(QStringLiteral("log")));
        SandboxFilesVolume next(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(next));
        QVERIFY2(next.isFilled(), qPrintable(next.error()));
        QCOMPARE(
            calls(dir),
            QStringList(
                {inspectCall({volume.name(), SandboxFilesVolume::verifiedMarkerFor(volume.name())}),
                 QStringLiteral("volume inspect --format {{.Mountpoint}} ") + volume.name()}));
        QCOMPARE(next.seccompProfileOnEngine(), volume.seccompProfileOnEngine());
    }

    // Servers after the first use the volume as it is: one call, no container made.
    void aCheckedVolumeIsUsedAsItIs()
    {
        QTemporaryDir dir;
        DockerRuntime runtime(writeFakeCli(dir, {}));
        SandboxFilesVolume first(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(first));
        QVERIFY2(first.isFilled(), qPrintable(first.error()));
        QTRY_VERIFY(hasVolume(dir, SandboxFilesVolume::verifiedMarkerFor(first.name())));
        QTRY_COMPARE(calls(dir).size(), 12);

        QFile::remove(dir.filePath(QStringLiteral("log")));
        SandboxFilesVolume next(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(next));
        QVERIFY2(next.isFilled(), qPrintable(next.error()));
        QCOMPARE(next.name(), first.name());
        QCOMPARE(calls(dir).size(), 1);
        QVERIFY(calls(dir).at(0).startsWith(QLatin1String("volume inspect")));
    }

    // A marker whose volume is gone (removed by hand) goes before the volume is made again:
    // until the new one is filled, no server may take it for checked.
    void aMarkerWithoutItsVolumeGoesFirst()
    {
        QTemporaryDir dir;
        DockerRuntime runtime(writeFakeCli(dir, {}));
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        const QString marker = SandboxFilesVolume::verifiedMarkerFor(volume.name());
        haveVolume(dir, marker, "100", "50");
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        const QStringList log = calls(dir);
        QCOMPARE(log.at(1), QStringLiteral("volume rm --force ") + marker);
        QVERIFY(
            log.at(2).startsWith(QLatin1String("volume create --label code-sandbox.volume-id=")));
        QVERIFY(log.at(2).endsWith(u' ' + volume.name()));
        QTRY_VERIFY(hasVolume(dir, marker));
        QCOMPARE(checksOf(dir, marker), idOf(dir, volume.name()));
    }

    // A volume no server made (a sandbox's mount of the name, say) has no id: it is filled, and
    // no marker could vouch for it.
    void aVolumeWithoutAnIdIsFilledAndNeverMarked()
    {
        QTemporaryDir dir;
        DockerRuntime runtime(writeFakeCli(dir, {}));
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        haveVolume(dir, volume.name(), "");
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        QVERIFY(calls(dir).join(u'\n').contains(QLatin1String(":/.code-sandbox/files/launch -")));
        QTRY_VERIFY(calls(dir).constLast().startsWith(QLatin1String("rm --force")));
        QVERIFY(!hasVolume(dir, SandboxFilesVolume::verifiedMarkerFor(volume.name())));
    }

    // A marker of an earlier volume of the same name (removed and made again since) vouches for
    // nothing: it goes, and the volume there is filled and checked.
    void aMarkerOfAnEarlierVolumeIsNotTrusted()
    {
        QTemporaryDir dir;
        DockerRuntime runtime(writeFakeCli(dir, {}));
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        const QString marker = SandboxFilesVolume::verifiedMarkerFor(volume.name());
        haveVolume(dir, volume.name(), "200");
        haveVolume(dir, marker, "150", "100");
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        const QStringList log = calls(dir);
        QCOMPARE(log.at(1), QStringLiteral("volume rm --force ") + marker);
        QVERIFY(log.at(2).startsWith(QLatin1String("create --pull never")));
        QVERIFY(log.join(u'\n').contains(QLatin1String(":/.code-sandbox/files/launch -")));
        QTRY_COMPARE(checksOf(dir, marker), QByteArray("200"));
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
        QVERIFY(log.at(log.size() - 3).startsWith(QLatin1String("rm --force code-sandbox-fill-")));
        QCOMPARE(log.at(log.size() - 2),
                 QStringLiteral("volume rm --force %1-verified").arg(volume.name()));
        QCOMPARE(log.constLast(), QStringLiteral("volume rm --force ") + volume.name());
        // Nothing says it was checked.
        QVERIFY(!hasVolume(dir, SandboxFilesVolume::verifiedMarkerFor(volume.name())));
        QVERIFY(!log.contains(QStringLiteral("volume create %1-verified").arg(volume.name())));
    }

    // A copy whose mode the engine did not keep would fail every sandbox at its start (the
    // sandbox's user could not run the launcher): the fill fails instead, and says why.
    void aCopyThatLostItsModeIsNotTrusted()
    {
        QTemporaryDir dir;
        DockerRuntime runtime(writeFakeCli(dir, {}, {}, true));
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(volume));
        QVERIFY(!volume.isFilled());
        QVERIFY2(volume.error().contains(QLatin1String("not that regular file")),
                 qPrintable(volume.error()));
    }

    void aFailedCopyRemovesTheFillerAndCanBeTriedAgain()
    {
        QTemporaryDir dir;
        // Copies in come from absolute paths; copies out name the filler.
        const QString cli = writeFakeCli(dir, {QStringLiteral("cp /")});
        DockerRuntime runtime(cli);
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(volume));
        QCOMPARE(volume.failure(), SandboxFilesVolume::Failure::Other);
        QTRY_VERIFY(
            calls(dir).constLast().startsWith(QLatin1String("rm --force code-sandbox-fill-")));
        // Tried three times before giving up.
        const QStringList log = calls(dir);
        QCOMPARE(std::count_if(log.cbegin(), log.cend(),
                               [](const QString& call) { return call.startsWith(u"cp /"); }),
                 3);
        // The engine is fine again: the next fill succeeds.
        writeFakeCli(dir, {});
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        QCOMPARE(volume.failure(), SandboxFilesVolume::Failure::None);
    }

    // Another server filling the same volume at the same moment can make a copy fail once
    // (Podman's service: "Error: 1 error occurred"): the copy is tried again, and the fill
    // succeeds.
    void aCopyThatFailsOnceIsTriedAgain()
    {
        QTemporaryDir dir;
        const QString cli = writeFakeCli(dir, {});
        QFile script(cli);
        QVERIFY(script.open(QIODevice::ReadOnly));
        QByteArray text = script.readAll();
        script.close();
        const QByteArray once = dir.filePath(QStringLiteral("failed-once")).toUtf8();
        const QByteArray failOnce = "#!/bin/sh\nif [ \"$1\" = cp ] && [ ! -e '" + once +
                                    "' ]; then touch '" + once +
                                    "'; echo 'Error: 1 error occurred:' >&2; exit 125; fi\n";
        text.replace(QByteArray("#!/bin/sh\n"), failOnce);
        QVERIFY(script.open(QIODevice::WriteOnly | QIODevice::Truncate));
        script.write(text);
        script.close();
        DockerRuntime runtime(cli);
        SandboxFilesVolume volume(runtime, filesIn(dir), {});
        QVERIFY(waitFinished(volume));
        QVERIFY2(volume.isFilled(), qPrintable(volume.error()));
        QVERIFY(QFileInfo::exists(QString::fromUtf8(once)));
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
