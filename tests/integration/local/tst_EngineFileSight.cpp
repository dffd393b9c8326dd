// Where an engine runs its containers: how the probe's answer is read (the engines' own words
// for a mount they cannot make), what is remembered between starts, and the setting's words. The
// probe against real engines is tests/integration/tst_EngineLocation.
#include "runtime/DockerRuntime.h"
#include "runtime/EngineFileSightProbe.h"
#include "runtime/EngineLocationChoice.h"
#include "runtime/EngineLocationFinder.h"
#include "runtime/EngineLocationMemory.h"
#include "StandInEngine.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using csm::DockerRuntime;
using csm::EngineFileSightProbe;
using csm::EngineLocationChoice;
using csm::EngineLocationChoices;
using csm::EngineLocationFinder;
using csm::EngineLocationMemory;

namespace {
const QByteArray kToken = "k2x9f0s81jq3";
const QString kFolder = QStringLiteral("/tmp/csm-engine-sight-AbC123");
const QString kLauncher = QStringLiteral("/usr/local/libexec/code-sandbox/csm-launch");
} // namespace

class tst_EngineFileSight final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void answers_data()
    {
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("out");
        QTest::addColumn<QByteArray>("err");
        QTest::addColumn<int>("answer");
        const auto sees = int(EngineFileSightProbe::Answer::Sees);
        const auto doesNotSee = int(EngineFileSightProbe::Answer::DoesNotSee);
        const auto unknown = int(EngineFileSightProbe::Answer::Unknown);
        QTest::newRow("the marker") << 0 << kToken << QByteArray() << sees;
        QTest::newRow("another file at that path")
            << 0 << QByteArray("else") << QByteArray() << doesNotSee;
        QTest::newRow("docker: no such bind source")
            << 125 << QByteArray()
            << QByteArray("docker: Error response from daemon: invalid mount config for type "
                          "\"bind\": bind source path does not exist: " +
                          kFolder.toUtf8() + ".\n")
            << doesNotSee;
        QTest::newRow("podman: no such launcher")
            << 125 << QByteArray()
            << QByteArray("Error: statfs " + kLauncher.toUtf8() + ": no such file or directory\n")
            << doesNotSee;
        QTest::newRow("cat: an empty folder there")
            << 1 << QByteArray()
            << QByteArray("cat: " + kFolder.toUtf8() + "/marker: No such file or directory\n")
            << doesNotSee;
        QTest::newRow("no cat in the image")
            << 127 << QByteArray()
            << QByteArray("Error: runc: exec: \"cat\": executable file not found in $PATH: "
                          "No such file or directory\n")
            << unknown;
        QTest::newRow("the engine went away")
            << 125 << QByteArray()
            << QByteArray("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                          "Is the docker daemon running?\n")
            << unknown;
        QTest::newRow("out of memory") << 137 << QByteArray() << QByteArray() << unknown;
    }

    void answers()
    {
        QFETCH(int, exitCode);
        QFETCH(QByteArray, out);
        QFETCH(QByteArray, err);
        QFETCH(int, answer);
        const auto result =
            EngineFileSightProbe::interpret(exitCode, out, err, kToken, {kFolder, kLauncher});
        QCOMPARE(int(result.answer), answer);
        QVERIFY(!result.detail.isEmpty());
        // The engine's own words, where it gave any, for doctor.
        if (!err.isEmpty())
            QVERIFY2(result.detail.contains(QString::fromUtf8(err).trimmed().left(30)),
                     qPrintable(result.detail));
    }

    void answersAreRememberedPerEngineAndAddress()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("cache/code-sandbox/locations.json"));
        const EngineLocationMemory memory(file);
        QVERIFY(!memory.recall(QStringLiteral("docker unix:///var/run/docker.sock")));
        const QDateTime asked = QDateTime::currentDateTimeUtc().addSecs(-60);
        memory.remember(QStringLiteral("docker unix:///var/run/docker.sock"),
                        {false, QStringLiteral("a container read it"), asked});
        memory.remember(QStringLiteral("podman unix:///run/rd.sock"),
                        {true, QStringLiteral("no such file"), asked});
        // Another process, later.
        const EngineLocationMemory later(file);
        const auto docker = later.recall(QStringLiteral("docker unix:///var/run/docker.sock"));
        QVERIFY(docker);
        QCOMPARE(docker->remote, false);
        QCOMPARE(docker->basis, QStringLiteral("a container read it"));
        QCOMPARE(docker->asked.toSecsSinceEpoch(), asked.toSecsSinceEpoch());
        QCOMPARE(later.recall(QStringLiteral("podman unix:///run/rd.sock"))->remote, true);
        QVERIFY(!later.recall(QStringLiteral("podman unix:///var/run/docker.sock")));
        // A damaged file is as good as none: the engine is asked again.
        QFile damaged(file);
        QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
        damaged.write("{\"docker unix:///var/run/docker.sock\": {\"remote\": \"no\"");
        damaged.close();
        QVERIFY(!later.recall(QStringLiteral("docker unix:///var/run/docker.sock")));
        later.remember(QStringLiteral("docker x"), {true, {}, asked});
        QVERIFY(later.recall(QStringLiteral("docker x")));
    }

    // The finder with a stand-in docker CLI (a script): its socket is a plain local one, so the
    // address alone would say local; what its `run` prints decides, once, until asked again.
    void theFinderAsksOnceAndRecallsUntilAskedAgain()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString cli = dir.filePath(QStringLiteral("docker"));
        QVERIFY(writeStandInEngine(
            cli, "#!/bin/sh\n"
                 "echo \"$1\" >> \"$CSM_FAKE_LOG\"\n"
                 "case \"$1\" in\n"
                 "  context) echo \"unix:///run/elsewhere.sock\" ;;\n"
                 "  image) [ \"$CSM_FAKE_IMAGE\" = 1 ] || { echo \"Error: No such image: img\" "
                 ">&2; exit 1; } ;;\n"
                 "  run)\n"
                 "    for last; do :; done\n"
                 "    if [ \"$CSM_FAKE_SEES\" = 1 ]; then cat \"$last\"; else\n"
                 "      echo \"docker: Error response from daemon: invalid mount config for "
                 "type \\\"bind\\\": bind source path does not exist: ${last%/*}\" >&2\n"
                 "      exit 125\n"
                 "    fi ;;\n"
                 "  *) exit 1 ;;\n"
                 "esac\n"));
        const QString log = dir.filePath(QStringLiteral("log"));
        qputenv("CSM_FAKE_LOG", log.toLocal8Bit());
        const auto runs = [&] {
            QFile file(log);
            return file.open(QIODevice::ReadOnly) ? file.readAll().count("run\n") : 0;
        };
        const EngineLocationFinder finder(
            EngineLocationMemory(dir.filePath(QStringLiteral("cache/locations.json"))));
        const auto settled = [&](bool sees, bool image, csm::EngineLocationChoice choice,
                                 bool askAgain) {
            qputenv("CSM_FAKE_SEES", sees ? "1" : "0");
            qputenv("CSM_FAKE_IMAGE", image ? "1" : "0");
            auto runtime = std::make_unique<DockerRuntime>(cli);
            finder.settle(*runtime, choice, QStringLiteral("img"), cli, askAgain);
            return runtime->location();
        };
        const auto automatic = csm::EngineLocationChoice::Auto;

        auto found = settled(true, true, automatic, false);
        QCOMPARE(found.remote, false);
        QVERIFY2(found.basis.contains(QLatin1String("read a file")), qPrintable(found.basis));
        QCOMPARE(runs(), 1);
        // Recalled: not asked, though it would answer otherwise now.
        found = settled(false, true, automatic, false);
        QCOMPARE(found.remote, false);
        QVERIFY2(found.basis.contains(QLatin1String("doctor asks again")), qPrintable(found.basis));
        QCOMPARE(runs(), 1);
        // Asked again (doctor): the new answer, kept.
        found = settled(false, true, automatic, true);
        QCOMPARE(found.remote, true);
        QVERIFY2(found.basis.contains(QLatin1String("could not mount")), qPrintable(found.basis));
        QCOMPARE(runs(), 2);
        QCOMPARE(settled(true, true, automatic, false).remote, true);
        QCOMPARE(runs(), 2);
        // Told: nothing asked, nothing kept.
        found = settled(false, true, csm::EngineLocationChoice::Local, true);
        QCOMPARE(found.remote, false);
        QCOMPARE(found.basis, QStringLiteral("set with --engine-location local"));
        QCOMPARE(runs(), 2);
        // Not askable (no image): the address decides, and the last answer stays kept.
        found = settled(true, false, automatic, true);
        QCOMPARE(found.remote, false);
        QVERIFY2(found.basis.startsWith(QLatin1String("by its address")), qPrintable(found.basis));
        QCOMPARE(runs(), 2);
        QCOMPARE(settled(true, true, automatic, false).remote, true);
    }

    void theSettingsWords()
    {
        QCOMPARE(EngineLocationChoices::parse(QStringLiteral(" Remote ")),
                 EngineLocationChoice::Remote);
        QCOMPARE(EngineLocationChoices::parse(QStringLiteral("local")),
                 EngineLocationChoice::Local);
        QCOMPARE(EngineLocationChoices::parse(QStringLiteral("auto")), EngineLocationChoice::Auto);
        QVERIFY(!EngineLocationChoices::parse(QStringLiteral("vm")));
        for (const auto choice : {EngineLocationChoice::Auto, EngineLocationChoice::Local,
                                  EngineLocationChoice::Remote})
            QCOMPARE(EngineLocationChoices::parse(EngineLocationChoices::toString(choice)), choice);
    }
};

QTEST_GUILESS_MAIN(tst_EngineFileSight)
#include "tst_EngineFileSight.moc"
