// The one table of the server's settings (ServerSettingsSchema): each setting is named once, and
// the parser, ServerSettings::load and ServerSettings::save all walk it.
#include "core/SettingsFile.h"
#include "server/ServerOptionsParser.h"
#include "server/ServerSettings.h"
#include "server/ServerSettingsForm.h"
#include "server/ServerSettingsSchema.h"
#include "ServerSettingsSamples.h"

#include <QDir>
#include <QSet>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using csm::ServerOptions;
using csm::ServerOptionsParser;
using csm::ServerSetting;
using csm::ServerSettings;
using csm::ServerSettingsSchema;
using csm::SettingsFile;
using ServerSettingsSamples::writeServerValue;

namespace {

// Every value different from its default; a setting added to the table without a value here
// makes everyEntryHasAChangedValue fail.
ServerSettings changedSettings()
{
    ServerSettings settings = ServerSettingsSamples::changed();
    settings.maxQueued = 7; // not saved by the app, but read from the file
    settings.engineLocation = csm::EngineLocationChoice::Remote; // the same
    // Not in the shared sample: with its bridge no server would start (SandboxPolicy::conflict).
    settings.policy.isolation = csm::Isolation::Gvisor;
    settings.policy.pythonIsolation = csm::Isolation::Standard;
    settings.policy.jsIsolation = csm::Isolation::Gvisor;
    return settings;
}

csm::Expected<ServerOptions> parseIn(const QString& dataDir, const QStringList& arguments,
                                     const QProcessEnvironment& environment)
{
    return ServerOptionsParser::parse(
        QStringList{QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), dataDir} +
            arguments,
        environment);
}

// The error of a parse, or "(no error)".
QString errorOf(const csm::Expected<ServerOptions>& parsed)
{
    const auto* error = (parsed ? nullptr : &parsed.error());
    return error ? *error : QStringLiteral("(no error)");
}

QString flagOf(const ServerSetting& setting)
{
    return QStringLiteral("--") + setting.flag.names().constFirst();
}

// Rows of every setting, named by key.
void addRowPerSetting()
{
    QTest::addColumn<QString>("key");
    for (const ServerSetting& setting : ServerSettingsSchema::settings())
        QTest::newRow(qPrintable(setting.key)) << setting.key;
}

const ServerSetting& settingFor(const QString& key)
{
    const ServerSetting* setting = ServerSettingsSchema::find(key);
    Q_ASSERT(setting);
    return *setting;
}

} // namespace

class tst_ServerSettingsSchema final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keysFlagsAndVariablesAreUnique()
    {
        QSet<QString> keys;
        QSet<QString> flags;
        QSet<QString> variables;
        for (const ServerSetting& setting : ServerSettingsSchema::settings()) {
            QVERIFY2(!keys.contains(setting.key), qPrintable(setting.key));
            keys.insert(setting.key);
            for (const QString& name : setting.flag.names()) {
                QVERIFY2(!flags.contains(name), qPrintable(name));
                flags.insert(name);
            }
            QVERIFY2(setting.read && setting.write, qPrintable(setting.key));
            // A switch takes no value; any other flag does.
            QCOMPARE(setting.isSwitch(), setting.flag.valueName().isEmpty());
            if (setting.variable.isEmpty())
                continue;
            QVERIFY2(setting.variable.startsWith(QLatin1String("CODE_SANDBOX_")),
                     qPrintable(setting.variable));
            QVERIFY2(!variables.contains(setting.variable), qPrintable(setting.variable));
            variables.insert(setting.variable);
            // The help says which variable stands behind the flag.
            QVERIFY2(setting.flag.description().contains(setting.variable),
                     qPrintable(setting.key));
        }
        QCOMPARE(ServerSettingsSchema::find(QStringLiteral("no-such-key")), nullptr);
    }

    void everyEntryHasAChangedValue_data() { addRowPerSetting(); }
    void everyEntryHasAChangedValue()
    {
        QFETCH(QString, key);
        const ServerSetting& setting = settingFor(key);
        QVERIFY(setting.write(changedSettings()) != setting.write(ServerSettings()));
    }

    void saveThenLoadCoversEveryEntry()
    {
        QTemporaryDir data;
        QVERIFY(changedSettings().save(data.path()));
        // Each saved entry, and only those, is in the file under its key.
        QSettings file(SettingsFile::path(data.path()), QSettings::IniFormat);
        file.beginGroup(QStringLiteral("server"));
        QSet<QString> saved;
        for (const ServerSetting& setting : ServerSettingsSchema::settings()) {
            if (setting.saved)
                saved.insert(setting.key);
        }
        const QStringList written = file.childKeys();
        QCOMPARE(QSet<QString>(written.cbegin(), written.cend()), saved);
        // The keys that the app writes (older servers read all but the newer ones: isolation).
        const QSet<QString> keys{
            QStringLiteral("engine"),
            QStringLiteral("engine-host"),
            QStringLiteral("python-image"),
            QStringLiteral("js-image"),
            QStringLiteral("timeout"),
            QStringLiteral("max-timeout"),
            QStringLiteral("memory"),
            QStringLiteral("cpus"),
            QStringLiteral("pids-limit"),
            QStringLiteral("tmpfs-size"),
            QStringLiteral("isolation"),
            QStringLiteral("python-isolation"),
            QStringLiteral("js-isolation"),
            QStringLiteral("egress"),
            QStringLiteral("allow-host"),
            QStringLiteral("always-allow"),
            QStringLiteral("share"),
            QStringLiteral("output-cap"),
            QStringLiteral("pool"),
            QStringLiteral("pool-idle"),
            QStringLiteral("interpreter-idle"),
            QStringLiteral("max-interpreters"),
            QStringLiteral("max-client-interpreters"),
            QStringLiteral("max-running"),
            QStringLiteral("allow-unlimited"),
            QStringLiteral("redact"),
            QStringLiteral("history-max-runs"),
            QStringLiteral("history-max-days"),
            QStringLiteral("history-max-mb"),
            QStringLiteral("history-max-field-size"),
            QStringLiteral("history-files-max-mb"),
        };
        QCOMPARE(saved, keys);

        // What the app does not save, the file may still set.
        ServerSettings expectedSettings = changedSettings();
        for (const ServerSetting& setting : ServerSettingsSchema::settings()) {
            if (!setting.saved)
                writeServerValue(data.path(), setting.key, setting.write(expectedSettings));
        }
        QStringList problems;
        QCOMPARE(ServerSettings::load(data.path(), &problems), expectedSettings);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // The parser reads each entry from its flag, its variable and the file alike.
    void everyEntryIsReadFromEachPlace_data() { addRowPerSetting(); }
    void everyEntryIsReadFromEachPlace()
    {
        QFETCH(QString, key);
        const ServerSetting& setting = settingFor(key);
        const QString wanted = setting.write(changedSettings());
        const auto check = [&](const QStringList& arguments, const QProcessEnvironment& environment,
                               const char* where) {
            QTemporaryDir data;
            if (environment.isEmpty() && arguments.isEmpty())
                writeServerValue(data.path(), key, wanted);
            const auto parsed = parseIn(data.path(), arguments, environment);
            const auto* options = (parsed ? &*parsed : nullptr);
            QVERIFY2(options, qPrintable(errorOf(parsed)));
            // network=bridge alone in settings.ini is an older version's, read as the proxy
            // (tst_ServerSettings::anOldFilesBridgeMeansTheProxy).
            const bool olderFile =
                key == QLatin1String("network") && arguments.isEmpty() && environment.isEmpty();
            QVERIFY2(setting.write(*options) == (olderFile ? QStringLiteral("none") : wanted),
                     where);
        };
        QProcessEnvironment none;
        check({}, none, "settings.ini");
        if (setting.isSwitch())
            check({flagOf(setting)}, none, "flag");
        else
            check({flagOf(setting), wanted}, none, "flag");
        if (!setting.variable.isEmpty()) {
            QProcessEnvironment environment;
            environment.insert(setting.variable, setting.isSwitch() ? QStringLiteral("1") : wanted);
            check({}, environment, "variable");
        }
    }

    // A value that no entry but the images takes gives the same error wherever it is written,
    // in the words of the setting's check; in settings.ini it is skipped with a warning.
    void anInvalidValueGivesAClearError_data() { addRowPerSetting(); }
    void anInvalidValueGivesAClearError()
    {
        QFETCH(QString, key);
        const ServerSetting& setting = settingFor(key);
        // Any name is a host an allow rule may name: a space is what no host has.
        const QString bad = key == QLatin1String("allow-host") ||
                                    key == QLatin1String("always-allow") ||
                                    key == QLatin1String("engine-host")
                                ? QStringLiteral("not valid")
                                : QStringLiteral("not-valid");
        ServerSettings ignored;
        const auto problem = setting.read(bad, ignored);
        if (key.endsWith(QLatin1String("-image"))) {
            QVERIFY(!problem);
            return;
        }
        QVERIFY(problem);
        QTemporaryDir data;
        writeServerValue(data.path(), key, bad);
        QStringList problems;
        QCOMPARE(ServerSettings::load(data.path(), &problems), ServerSettings());
        QCOMPARE(problems,
                 QStringList(QStringLiteral("%1: %2 \"%3\" ignored: %4")
                                 .arg(QDir::toNativeSeparators(SettingsFile::path(data.path())),
                                      key, bad, *problem)));
        if (!setting.isSwitch()) {
            const auto parsed = parseIn(data.path(), {flagOf(setting), bad}, {});
            QCOMPARE(
                errorOf(parsed),
                key == QLatin1String("engine")
                    ? QStringLiteral("Unknown engine \"not-valid\": use podman, docker or auto.")
                    : QStringLiteral("%1 \"%2\": %3").arg(flagOf(setting), bad, *problem));
        }
        if (!setting.variable.isEmpty()) {
            QProcessEnvironment environment;
            environment.insert(setting.variable, bad);
            const auto parsed = parseIn(data.path(), {}, environment);
            const QString expected =
                key == QLatin1String("engine")
                    ? QStringLiteral("Unknown engine \"not-valid\": use podman, docker or auto.")
                : setting.isSwitch()
                    ? QStringLiteral("%1 \"not-valid\": must be 1 or 0").arg(setting.variable)
                    : QStringLiteral("%1 \"%2\": %3").arg(setting.variable, bad, *problem);
            QCOMPARE(errorOf(parsed), expected);
        }
    }

    // The words of today's errors, as users and scripts know them.
    void errorsKeepTheirWords_data()
    {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error");
        QTest::newRow("memory")
            << QStringLiteral("CODE_SANDBOX_MEMORY") << QStringLiteral("lots")
            << QStringLiteral("CODE_SANDBOX_MEMORY \"lots\": must be a size from 16m to 1024g, "
                              "written like 256m (k, m and g are binary units; no unit means "
                              "bytes)");
        QTest::newRow("pool") << QStringLiteral("CODE_SANDBOX_POOL") << QStringLiteral("-1")
                              << QStringLiteral("CODE_SANDBOX_POOL \"-1\": must be a whole number "
                                                "from 0 to 32");
        QTest::newRow("network host")
            << QStringLiteral("CODE_SANDBOX_NETWORK") << QStringLiteral("host")
            << QStringLiteral("CODE_SANDBOX_NETWORK \"host\": \"host\" is refused: it would give "
                              "sandboxed code the host's network, loopback services included; "
                              "use --egress open, allowlist, ask, none or bridge");
        QTest::newRow("allow-unlimited")
            << QStringLiteral("CODE_SANDBOX_ALLOW_UNLIMITED") << QStringLiteral(" Yes ")
            << QStringLiteral("CODE_SANDBOX_ALLOW_UNLIMITED \"yes\": must be 1 or 0");
        QTest::newRow("engine") << QStringLiteral("CODE_SANDBOX_ENGINE") << QStringLiteral(" LXC")
                                << QStringLiteral(
                                       "Unknown engine \"lxc\": use podman, docker or auto.");
    }
    void errorsKeepTheirWords()
    {
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, error);
        QTemporaryDir data;
        QProcessEnvironment environment;
        environment.insert(variable, value);
        QCOMPARE(errorOf(parseIn(data.path(), {}, environment)), error);
    }

    // A switch's variable: 1 or true turns it on, 0, false or nothing off, whatever the file.
    // The Settings page is built from the form's fields: each names a setting the page saves,
    // once, and offers only what a server accepts: both ends of its range read, and a choice's
    // every text.
    void theFormOffersOnlyWhatServersAccept()
    {
        using Kind = csm::SettingFormField::Kind;
        QSet<QString> keys;
        for (const csm::SettingFormField& field : csm::ServerSettingsForm::fields()) {
            const ServerSetting* setting = ServerSettingsSchema::find(field.key);
            QVERIFY2(setting, qPrintable(field.key));
            QVERIFY2(setting->saved, qPrintable(field.key));
            QVERIFY2(!keys.contains(field.key), qPrintable(field.key));
            keys.insert(field.key);
            QVERIFY2(!field.objectName.isEmpty() && !field.group.isEmpty(), qPrintable(field.key));
            QStringList texts;
            if (field.kind == Kind::Number || field.kind == Kind::Size ||
                field.kind == Kind::Decimal) {
                QVERIFY2(field.minimum < field.maximum, qPrintable(field.key));
                for (const double value : {field.minimum, field.maximum})
                    texts << (field.kind == Kind::Decimal ? QString::number(value)
                                                          : QString::number(qint64(value)));
            }
            for (const csm::SettingFormField::Choice& choice : field.choices)
                texts << choice.text;
            for (const QString& text : std::as_const(texts)) {
                // 0 is "no limit" or "automatic" where the box says so, and the
                // history's limits take it.
                if (text == QLatin1String("0") && !field.minimumText.isEmpty())
                    continue;
                ServerSettings settings;
                const auto problem = setting->read(text, settings);
                QVERIFY2(!problem,
                         qPrintable(field.key + QStringLiteral(" \"") + text +
                                    QStringLiteral("\": ") + problem.value_or(QString())));
            }
        }
        // Every other setting the app saves has a page of its own: the images.
        QSet<QString> elsewhere;
        for (const ServerSetting& setting : ServerSettingsSchema::settings()) {
            if (setting.saved && !keys.contains(setting.key))
                elsewhere.insert(setting.key);
        }
        QCOMPARE(elsewhere,
                 (QSet<QString>{QStringLiteral("python-image"), QStringLiteral("js-image")}));
    }

    void aSwitchVariableWinsOverTheFile_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("1") << QStringLiteral("1") << true;
        QTest::newRow("TRUE") << QStringLiteral("TRUE") << true;
        QTest::newRow("0") << QStringLiteral("0") << false;
        QTest::newRow("false") << QStringLiteral("false") << false;
        QTest::newRow("empty") << QString() << false;
    }
    void aSwitchVariableWinsOverTheFile()
    {
        QFETCH(QString, value);
        QFETCH(bool, allowed);
        QTemporaryDir data;
        writeServerValue(data.path(), QStringLiteral("allow-unlimited"), QStringLiteral("true"));
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("CODE_SANDBOX_ALLOW_UNLIMITED"), value);
        const auto parsed = parseIn(data.path(), {}, environment);
        const auto* options = (parsed ? &*parsed : nullptr);
        QVERIFY2(options, qPrintable(errorOf(parsed)));
        QCOMPARE(options->policy.allowUnenforcedLimits, allowed);
    }
};

QTEST_GUILESS_MAIN(tst_ServerSettingsSchema)
#include "tst_ServerSettingsSchema.moc"
