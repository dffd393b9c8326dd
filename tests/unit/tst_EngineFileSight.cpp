// Where an engine runs its containers: how the probe's answer is read (the engines' own words
// for a mount they cannot make), what is remembered between starts, and the setting's words. The
// probe against real engines is tests/integration/tst_EngineLocation.
#include "runtime/EngineFileSightProbe.h"
#include "runtime/EngineLocationChoice.h"
#include "runtime/EngineLocationMemory.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using csm::EngineFileSightProbe;
using csm::EngineLocationChoice;
using csm::EngineLocationChoices;
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
