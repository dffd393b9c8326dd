// The user's settings file (settings.ini in the data folder): what the desktop app saves is
// what every server reads, under its flags and environment variables.
#include "core/SettingsFile.h"
#include "server/ServerOptionsParser.h"
#include "server/ServerSettings.h"
#include "ServerSettingsSamples.h"

#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using csm::Language;
using csm::ServerOptions;
using csm::ServerOptionsParser;
using csm::ServerSettings;
using csm::SettingsFile;
using ServerSettingsSamples::writeServerValue;

namespace {

ServerOptions parseIn(const QString& dataDir, const QStringList& arguments = {},
                      const QProcessEnvironment& environment = {})
{
    const auto parsed = ServerOptionsParser::parse(
        QStringList{QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), dataDir} +
            arguments,
        environment);
    if (!parsed)
        qFatal("unexpected parse error: %s", qPrintable(parsed.error()));
    return *parsed;
}

ServerSettings changedSettings()
{
    return ServerSettingsSamples::changed();
}

} // namespace

class tst_ServerSettings final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void missingFileGivesTheDefaults()
    {
        QTemporaryDir data;
        QStringList problems;
        QCOMPARE(ServerSettings::load(data.path(), &problems), ServerSettings());
        QVERIFY(problems.isEmpty());
        QVERIFY(!QFile::exists(ServerSettings::filePath(data.path())));
    }

    void saveThenLoadRoundTrips()
    {
        QTemporaryDir data;
        const QString folder = data.filePath(QStringLiteral("not/yet/there"));
        const ServerSettings saved = changedSettings();
        const csm::Expected<void> written = saved.save(folder);
        QVERIFY2(written, qPrintable(written.error()));
        QStringList problems;
        QCOMPARE(ServerSettings::load(folder, &problems), saved);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void aServerStartedWithoutFlagsUsesTheFile()
    {
        QTemporaryDir data;
        QVERIFY(changedSettings().save(data.path()));
        const ServerOptions options = parseIn(data.path());
        QCOMPARE(options.engine, QStringLiteral("docker"));
        QCOMPARE(options.pythonImage, QStringLiteral("localhost/my-python:3"));
        QCOMPARE(options.egress, changedSettings().egress);
        QCOMPARE(options.policy.network, QStringLiteral("bridge"));
        QCOMPARE(options.policy.memoryBytes, 256LL << 20);
        QCOMPARE(options.defaultTimeoutSeconds, 12.5);
        QCOMPARE(options.poolSize, 0);
        QCOMPARE(options.redactOutput, false);
        QCOMPARE(options.historyRetention.maxRuns, 500);
        QCOMPARE(options.historyRetention.maxTotalBytes, 100LL << 20);
        QCOMPARE(options.historyMaxFieldBytes, 32LL << 10);
    }

    // Shares as a person writes them in settings.ini: one a line, NAME and mode optional; a
    // symlinked folder means its target.
    void sharesAreReadFromTheFile()
    {
        QTemporaryDir data;
        QTemporaryDir host;
        const QString root = QFileInfo(host.path()).canonicalFilePath();
        QVERIFY(QDir(root).mkdir(QStringLiteral("sales")));
        QVERIFY(QDir(root).mkdir(QStringLiteral("out")));
        QVERIFY(QFile::link(root + QStringLiteral("/sales"), root + QStringLiteral("/link")));
        writeServerValue(data.path(), QStringLiteral("share"),
                         QStringLiteral("%1/link\n%1/out:results:rw\n").arg(root));
        QStringList problems;
        const ServerSettings loaded = ServerSettings::load(data.path(), &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        const QList<csm::SharedFolder> expected{
            {root + QStringLiteral("/sales"), QStringLiteral("sales"), false},
            {root + QStringLiteral("/out"), QStringLiteral("results"), true}};
        QCOMPARE(loaded.policy.sharedFolders, expected);
        QCOMPARE(parseIn(data.path()).policy.sharedFolders, expected);
        // A flag replaces the file's list rather than adding to it.
        const ServerOptions flagged =
            parseIn(data.path(), {QStringLiteral("--share"), root + QStringLiteral("/out")});
        QCOMPARE(flagged.policy.sharedFolders,
                 QList<csm::SharedFolder>(
                     {{root + QStringLiteral("/out"), QStringLiteral("out"), false}}));
    }

    // The app saves egress=; --network none (its older name) in a client's configuration must
    // still mean no network, and the variable too.
    void anOlderNetworkFlagBeatsTheFilesEgress()
    {
        QTemporaryDir data;
        ServerSettings stored;
        stored.setEgressMode(csm::EgressMode::Open);
        QVERIFY(stored.save(data.path()));
        const ServerOptions flagged =
            parseIn(data.path(), {QStringLiteral("--network"), QStringLiteral("none")});
        QCOMPARE(flagged.egress.mode, csm::EgressMode::None);
        QCOMPARE(flagged.policy.network, QStringLiteral("none"));
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("CODE_SANDBOX_NETWORK"), QStringLiteral("none"));
        QCOMPARE(parseIn(data.path(), {}, environment).egress.mode, csm::EgressMode::None);
        // --egress itself wins over --network.
        QCOMPARE(parseIn(data.path(), {QStringLiteral("--network"), QStringLiteral("none"),
                                       QStringLiteral("--egress"), QStringLiteral("allowlist")})
                     .egress.mode,
                 csm::EgressMode::Allowlist);
        // Without a flag, the file's egress stands.
        QCOMPARE(parseIn(data.path()).egress.mode, csm::EgressMode::Open);
    }

    // settings.ini from before egress control: network=bridge was the only way to a network,
    // saved for everyone who pressed Apply. It now means the filtering proxy, said once; the
    // bridge itself needs its own name, and a flag still means what it says.
    void anOldFilesBridgeMeansTheProxy()
    {
        QTemporaryDir data;
        writeServerValue(data.path(), QStringLiteral("network"), QStringLiteral("bridge"));
        QStringList problems;
        QCOMPARE(ServerSettings::load(data.path(), &problems).egress.mode, csm::EgressMode::Open);
        const ServerOptions options = parseIn(data.path());
        QCOMPARE(options.egress.mode, csm::EgressMode::Open);
        QCOMPARE(options.policy.network, QStringLiteral("none"));
        QVERIFY2(options.warnings.join(u'\n').contains(QLatin1String("network=bridge")),
                 qPrintable(options.warnings.join(u'\n')));
        QCOMPARE(parseIn(data.path(), {QStringLiteral("--network"), QStringLiteral("bridge")})
                     .egress.mode,
                 csm::EgressMode::Bridge);
        writeServerValue(data.path(), QStringLiteral("egress"), QStringLiteral("bridge"));
        QCOMPARE(parseIn(data.path()).egress.mode, csm::EgressMode::Bridge);
    }

    void flagsAndVariablesWinOverTheFile()
    {
        QTemporaryDir data;
        QVERIFY(changedSettings().save(data.path()));
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("CODE_SANDBOX_MEMORY"), QStringLiteral("1g"));
        environment.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), QStringLiteral("podman"));
        environment.insert(QStringLiteral("CONTAINER_IMAGE"), QStringLiteral("env-image"));
        environment.insert(QStringLiteral("CONTAINER_LANGUAGE"), QStringLiteral("python"));
        const ServerOptions options = parseIn(
            data.path(),
            {QStringLiteral("--egress"), QStringLiteral("open"), QStringLiteral("--timeout"),
             QStringLiteral("3"), QStringLiteral("--js-image"), QStringLiteral("flag-node"),
             QStringLiteral("--history-max-runs"), QStringLiteral("7")},
            environment);
        QCOMPARE(options.policy.memoryBytes, 1LL << 30);
        QCOMPARE(options.engine, QStringLiteral("podman"));
        QCOMPARE(options.pythonImage, QStringLiteral("env-image"));
        QCOMPARE(options.jsImage, QStringLiteral("flag-node"));
        QCOMPARE(options.egress.mode, csm::EgressMode::Open);
        QCOMPARE(options.policy.network, QStringLiteral("none"));
        QCOMPARE(options.defaultTimeoutSeconds, 3.0);
        QCOMPARE(options.historyRetention.maxRuns, 7);
        // What no flag or variable names still comes from the file.
        QCOMPARE(options.policy.cpus, 0.5);
        QCOMPARE(options.historyRetention.maxAgeDays, 0);
    }

    void badStoredValuesAreIgnoredWithAWarning_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("memory") << QStringLiteral("memory") << QStringLiteral("lots");
        QTest::newRow("network host") << QStringLiteral("network") << QStringLiteral("host");
        QTest::newRow("engine") << QStringLiteral("engine") << QStringLiteral("lxc");
        QTest::newRow("redact") << QStringLiteral("redact") << QStringLiteral("maybe");
        QTest::newRow("pool") << QStringLiteral("pool") << QStringLiteral("-1");
        QTest::newRow("retention") << QStringLiteral("history-max-days") << QStringLiteral("ten");
        QTest::newRow("history size") << QStringLiteral("history-max-mb") << QStringLiteral("-5");
        QTest::newRow("history field size")
            << QStringLiteral("history-max-field-size") << QStringLiteral("1");
        QTest::newRow("share of a missing folder")
            << QStringLiteral("share") << QStringLiteral("/no/such/folder:data");
        QTest::newRow("share with a bad name")
            << QStringLiteral("share") << QStringLiteral("/:bad name");
    }

    void badStoredValuesAreIgnoredWithAWarning()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QTemporaryDir data;
        writeServerValue(data.path(), key, value);
        QStringList problems;
        QCOMPARE(ServerSettings::load(data.path(), &problems), ServerSettings());
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.constFirst().contains(key) && problems.constFirst().contains(value),
                 qPrintable(problems.constFirst()));
        QVERIFY(problems.constFirst().contains(QStringLiteral("settings.ini")));
        // The server starts all the same, with the same warning.
        QCOMPARE(parseIn(data.path()).warnings, problems);
    }

    void aStoredTimeoutAboveTheMaximumIsCappedNotFatal()
    {
        QTemporaryDir data;
        ServerSettings settings;
        settings.pythonImage = QStringLiteral("kept-image");
        QVERIFY(settings.save(data.path()));
        writeServerValue(data.path(), QStringLiteral("timeout"), QStringLiteral("90"));
        writeServerValue(data.path(), QStringLiteral("max-timeout"), QStringLiteral("60"));
        QStringList problems;
        const ServerSettings loaded = ServerSettings::load(data.path(), &problems);
        // The rest of the file still counts.
        QCOMPARE(loaded.pythonImage, QStringLiteral("kept-image"));
        QCOMPARE(loaded.defaultTimeoutSeconds, 60.0);
        QCOMPARE(problems.size(), 1);
        QVERIFY(problems.constFirst().contains(QLatin1String("max-timeout")));
        // A flag wins over the file: its timeout becomes the maximum too.
        const ServerOptions withFlag =
            parseIn(data.path(), {QStringLiteral("--timeout"), QStringLiteral("120")});
        QCOMPARE(withFlag.defaultTimeoutSeconds, 120.0);
        QCOMPARE(withFlag.maxTimeoutSeconds, 120.0);
        QCOMPARE(withFlag.warnings.size(), 1);
        // Both on the command line, the conflict is the user's to fix.
        const auto parsed = ServerOptionsParser::parse(
            {QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), data.path(),
             QStringLiteral("--timeout"), QStringLiteral("90"), QStringLiteral("--max-timeout"),
             QStringLiteral("60")},
            QProcessEnvironment());
        QVERIFY(!parsed.hasValue());
    }

    void savingKeepsTheOtherGroups()
    {
        QTemporaryDir data;
        {
            QSettings file(SettingsFile::path(data.path()), QSettings::IniFormat);
            file.setValue(QStringLiteral("desktop/approval"), QStringLiteral("true"));
        }
        QVERIFY(changedSettings().save(data.path()));
        QCOMPARE(
            SettingsFile(data.path(), QStringLiteral("desktop")).value(QStringLiteral("approval")),
            QStringLiteral("true"));
    }

    void anUnwritableFolderIsAnError()
    {
        QTemporaryDir data;
        QFile blocker(data.filePath(QStringLiteral("file")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const csm::Expected<void> saved =
            ServerSettings().save(data.filePath(QStringLiteral("file/sub")));
        QVERIFY(!saved);
        QVERIFY(!saved.error().isEmpty());
    }

    void imagePerLanguage()
    {
        ServerSettings settings;
        settings.setImage(Language::JavaScript, QStringLiteral("  node-x  "));
        QCOMPARE(settings.image(Language::JavaScript), QStringLiteral("node-x"));
        QCOMPARE(settings.image(Language::Python), QString());
    }
};

QTEST_GUILESS_MAIN(tst_ServerSettings)
#include "tst_ServerSettings.moc"
