#include "runtime/SharedFolderText.h"
#include "server/ServerOptionsParser.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using csm::ServerOptions;
using csm::ServerOptionsParser;
using Action = csm::ServerOptions::Action;

Q_DECLARE_METATYPE(csm::ServerOptions::Action)

namespace {

using Parsed = csm::Expected<ServerOptions>;

// `environment` as NAME=value entries; the program name is prepended to `arguments`.
Parsed parse(const QStringList& arguments, const QStringList& environment = {})
{
    QProcessEnvironment env;
    for (const QString& entry : environment)
        env.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
    // An empty data folder, so that no settings.ini of the user's changes the defaults.
    static const QTemporaryDir noSettings;
    if (!env.contains(QStringLiteral("CODE_SANDBOX_DATA_DIR")) &&
        !arguments.contains(QStringLiteral("--data-dir")))
        env.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), noSettings.path());
    return ServerOptionsParser::parse(QStringList{QStringLiteral("code-sandbox-mcp")} + arguments,
                                      env);
}

// A folder holding what the --share rows name: folders "sales", "out" (with "inner"), "outer"
// and "a,b", symlinks "link" to sales and "innerlink" to out/inner, and a file "notes.txt".
const QString& sharesFolder()
{
    static const QTemporaryDir folder;
    static const bool made = [] {
        QDir dir(folder.path());
        QFile file(dir.filePath(QStringLiteral("notes.txt")));
        return dir.mkdir(QStringLiteral("sales")) && dir.mkdir(QStringLiteral("out")) &&
               dir.mkdir(QStringLiteral("out/inner")) && dir.mkdir(QStringLiteral("outer")) &&
               dir.mkdir(QStringLiteral("a,b")) &&
               QFile::link(dir.filePath(QStringLiteral("sales")),
                           dir.filePath(QStringLiteral("link"))) &&
               QFile::link(dir.filePath(QStringLiteral("out/inner")),
                           dir.filePath(QStringLiteral("innerlink"))) &&
               file.open(QIODevice::WriteOnly);
    }();
    Q_ASSERT(made);
    static const QString path = QFileInfo(folder.path()).canonicalFilePath();
    return path;
}

// `text` with each "D/" at the start of a line or after "=" or a quote made the shares folder.
QString inShares(QString text)
{
    static const QRegularExpression place(QStringLiteral("(^|[\\n=\"])D/"));
    return text.replace(place, QStringLiteral("\\1") + sharesFolder() + QLatin1Char('/'));
}

QStringList inShares(const QStringList& list)
{
    QStringList result;
    for (const QString& item : list)
        result << inShares(item);
    return result;
}

QString describe(const Parsed& parsed)
{
    if (!parsed)
        return QStringLiteral("error: ") + parsed.error();
    return QStringLiteral("options");
}

} // namespace

class tst_ServerOptionsParser final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void noArgumentsServesWithDefaults();
    void actions_data();
    void actions();
    void verbose_data();
    void verbose();
    void engine_data();
    void engine();
    void passThrough_data();
    void passThrough();
    void passThroughRejectsValues_data();
    void passThroughRejectsValues();
    void images_data();
    void images();
    void timeouts_data();
    void timeouts();
    void unexpectedArguments_data();
    void unexpectedArguments();
    void runLimits_data();
    void runLimits();
    void httpDefaults();
    void httpSettings();
    void httpErrors_data();
    void httpErrors();
    void historyRetention_data();
    void historyRetention();
    void historySize_data();
    void historySize();
    void secrets_data();
    void secrets();
    void shares_data();
    void shares();
    void hostRulesThatReachNothingAreWarnedAbout_data();
    void hostRulesThatReachNothingAreWarnedAbout();
};

void tst_ServerOptionsParser::noArgumentsServesWithDefaults()
{
    const Parsed parsed = parse({});
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->action, Action::Serve);
    QCOMPARE(options->engine, QString()); // auto-detect
    QCOMPARE(options->pythonImage, QString());
    QCOMPARE(options->jsImage, QString());
    QCOMPARE(options->passThroughEnvironment, QStringList());
    QCOMPARE(options->defaultTimeoutSeconds, 30.0);
    QCOMPARE(options->maxTimeoutSeconds, 600.0);
    QCOMPARE(options->verbose, false);
    QCOMPARE(options->secretsFile, false); // the keychain
    QCOMPARE(options->redactOutput, true);
    QCOMPARE(options->warnings, QStringList());
}

void tst_ServerOptionsParser::actions_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<Action>("action");

    QTest::newRow("none") << QStringList() << Action::Serve;
    QTest::newRow("--help") << QStringList{QStringLiteral("--help")} << Action::ShowHelp;
    QTest::newRow("-h") << QStringList{QStringLiteral("-h")} << Action::ShowHelp;
    QTest::newRow("--version") << QStringList{QStringLiteral("--version")} << Action::ShowVersion;
    QTest::newRow("-V") << QStringList{QStringLiteral("-V")} << Action::ShowVersion;
    QTest::newRow("--help with other options")
        << QStringList{QStringLiteral("--engine"), QStringLiteral("docker"),
                       QStringLiteral("--help")}
        << Action::ShowHelp;
}

void tst_ServerOptionsParser::actions()
{
    QFETCH(QStringList, arguments);
    QFETCH(Action, action);
    const Parsed parsed = parse(arguments);
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->action, action);
    if (action == Action::ShowHelp) {
        // The help documents every option.
        for (const QString& option :
             {QStringLiteral("--engine"), QStringLiteral("--python-image"),
              QStringLiteral("--js-image"), QStringLiteral("--pass-through-env"),
              QStringLiteral("--timeout"), QStringLiteral("--max-timeout"),
              QStringLiteral("--version")})
            QVERIFY2(options->helpText.contains(option), qPrintable(option));
    } else {
        QVERIFY(options->helpText.isEmpty());
    }
}

void tst_ServerOptionsParser::verbose_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<bool>("verbose");
    QTest::newRow("default") << QStringList() << false;
    QTest::newRow("-v") << QStringList{QStringLiteral("-v")} << true;
    QTest::newRow("--verbose") << QStringList{QStringLiteral("--verbose")} << true;
}

void tst_ServerOptionsParser::verbose()
{
    QFETCH(QStringList, arguments);
    QFETCH(bool, verbose);
    const Parsed parsed = parse(arguments);
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->verbose, verbose);
}

void tst_ServerOptionsParser::engine_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("engine"); // when valid; else a word the error must contain

    const QString engineFlag = QStringLiteral("--engine");
    QTest::newRow("default is auto") << QStringList() << QStringList() << true << QString();
    QTest::newRow("--engine podman") << QStringList{engineFlag, QStringLiteral("podman")}
                                     << QStringList() << true << QStringLiteral("podman");
    QTest::newRow("--engine docker") << QStringList{engineFlag, QStringLiteral("docker")}
                                     << QStringList() << true << QStringLiteral("docker");
    QTest::newRow("--engine=docker") << QStringList{QStringLiteral("--engine=docker")}
                                     << QStringList() << true << QStringLiteral("docker");
    QTest::newRow("--engine auto")
        << QStringList{engineFlag, QStringLiteral("auto")} << QStringList() << true << QString();
    QTest::newRow("--engine in capitals") << QStringList{engineFlag, QStringLiteral("Podman")}
                                          << QStringList() << true << QStringLiteral("podman");
    QTest::newRow("env podman") << QStringList()
                                << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=podman")} << true
                                << QStringLiteral("podman");
    QTest::newRow("env docker") << QStringList()
                                << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=docker")} << true
                                << QStringLiteral("docker");
    QTest::newRow("env auto") << QStringList()
                              << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=auto")} << true
                              << QString();
    QTest::newRow("env empty") << QStringList()
                               << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=")} << true
                               << QString();
    QTest::newRow("flag beats env") << QStringList{engineFlag, QStringLiteral("docker")}
                                    << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=podman")}
                                    << true << QStringLiteral("docker");
    QTest::newRow("flag auto beats env")
        << QStringList{engineFlag, QStringLiteral("auto")}
        << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=docker")} << true << QString();
    QTest::newRow("flag beats bogus env")
        << QStringList{engineFlag, QStringLiteral("podman")}
        << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=bogus")} << true
        << QStringLiteral("podman");
    QTest::newRow("bogus flag") << QStringList{engineFlag, QStringLiteral("bogus")} << QStringList()
                                << false << QStringLiteral("bogus");
    QTest::newRow("bogus env") << QStringList()
                               << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=lxc")} << false
                               << QStringLiteral("lxc");
    QTest::newRow("bogus flag beats good env")
        << QStringList{engineFlag, QStringLiteral("rkt")}
        << QStringList{QStringLiteral("CODE_SANDBOX_ENGINE=podman")} << false
        << QStringLiteral("rkt");
    QTest::newRow("--engine without value")
        << QStringList{engineFlag} << QStringList() << false << QStringLiteral("engine");
}

void tst_ServerOptionsParser::engine()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(bool, valid);
    QFETCH(QString, engine);

    const Parsed parsed = parse(arguments, environment);
    if (valid) {
        const auto* options = (parsed ? &*parsed : nullptr);
        QVERIFY2(options, qPrintable(describe(parsed)));
        QCOMPARE(options->engine, engine);
    } else {
        const auto* error = (parsed ? nullptr : &parsed.error());
        QVERIFY2(error, "expected an error");
        QVERIFY2(error->contains(engine), qPrintable(*error));
    }
}

void tst_ServerOptionsParser::passThrough_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QStringList>("passed");
    QTest::addColumn<QStringList>("warnedAbout");

    const QString flag = QStringLiteral("--pass-through-env");
    const QStringList both{QStringLiteral("API_KEY=k-123"), QStringLiteral("DB_URL=postgres://x")};
    const QStringList names{QStringLiteral("API_KEY"), QStringLiteral("DB_URL")};

    QTest::newRow("both set") << QStringList{flag, QStringLiteral("API_KEY,DB_URL")} << both
                              << names << QStringList();
    QTest::newRow("--flag=value form")
        << QStringList{QStringLiteral("--pass-through-env=API_KEY,DB_URL")} << both << names
        << QStringList();
    QTest::newRow("one unset") << QStringList{flag, QStringLiteral("API_KEY,DB_URL")}
                               << QStringList{QStringLiteral("API_KEY=k-123")}
                               << QStringList{QStringLiteral("API_KEY")}
                               << QStringList{QStringLiteral("DB_URL")};
    QTest::newRow("none set") << QStringList{flag, QStringLiteral("API_KEY,DB_URL")}
                              << QStringList() << QStringList() << names;
    QTest::newRow("set but empty counts as set")
        << QStringList{flag, QStringLiteral("API_KEY")} << QStringList{QStringLiteral("API_KEY=")}
        << QStringList{QStringLiteral("API_KEY")} << QStringList();
    QTest::newRow("repeated flag merges")
        << QStringList{flag, QStringLiteral("API_KEY"), flag, QStringLiteral("DB_URL")} << both
        << names << QStringList();
    QTest::newRow("duplicates removed")
        << QStringList{flag, QStringLiteral("API_KEY,DB_URL,API_KEY"), flag,
                       QStringLiteral("DB_URL")}
        << both << names << QStringList();
    QTest::newRow("spaces trimmed") << QStringList{flag, QStringLiteral(" API_KEY , DB_URL ")}
                                    << both << names << QStringList();
    QTest::newRow("empty entries skipped")
        << QStringList{flag, QStringLiteral(",API_KEY,,DB_URL,")} << both << names << QStringList();
    QTest::newRow("empty list") << QStringList{flag, QString()} << both << QStringList()
                                << QStringList();
    QTest::newRow("lower case and underscore")
        << QStringList{flag, QStringLiteral("_my_var2")}
        << QStringList{QStringLiteral("_my_var2=1")} << QStringList{QStringLiteral("_my_var2")}
        << QStringList();
    // Warned about once: repeating a name is not a second problem.
    QTest::newRow("unset name repeated")
        << QStringList{flag, QStringLiteral("GONE,GONE")} << QStringList() << QStringList()
        << QStringList{QStringLiteral("GONE")};
}

void tst_ServerOptionsParser::passThrough()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(QStringList, passed);
    QFETCH(QStringList, warnedAbout);

    const Parsed parsed = parse(arguments, environment);
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->passThroughEnvironment, passed);
    for (const QString& name : warnedAbout) {
        bool warned = false;
        for (const QString& warning : options->warnings)
            warned = warned || warning.contains(name);
        QVERIFY2(warned, qPrintable(name));
    }
    // Values never show up in what the parser keeps or says.
    for (const QString& entry : environment) {
        const QString value = entry.section(QLatin1Char('='), 1);
        if (value.isEmpty())
            continue;
        for (const QString& warning : options->warnings)
            QVERIFY2(!warning.contains(value), qPrintable(warning));
        QVERIFY(!options->passThroughEnvironment.contains(value));
    }
    // A repeated name is warned about once, set or not.
    QCOMPARE(options->warnings.size(), warnedAbout.size());
}

void tst_ServerOptionsParser::passThroughRejectsValues_data()
{
    QTest::addColumn<QString>("list");
    QTest::addColumn<QString>("offending");

    QTest::newRow("NAME=value") << QStringLiteral("A=1") << QStringLiteral("A=1");
    QTest::newRow("NAME=value after a good name")
        << QStringLiteral("API_KEY,TOKEN=abc") << QStringLiteral("TOKEN=abc");
    QTest::newRow("NAME= with empty value") << QStringLiteral("A=") << QStringLiteral("A=");
    QTest::newRow("starts with a digit") << QStringLiteral("1A") << QStringLiteral("1A");
    QTest::newRow("dash") << QStringLiteral("MY-VAR") << QStringLiteral("MY-VAR");
    QTest::newRow("inner space") << QStringLiteral("MY VAR") << QStringLiteral("MY VAR");
    QTest::newRow("dollar") << QStringLiteral("$HOME") << QStringLiteral("$HOME");
}

void tst_ServerOptionsParser::passThroughRejectsValues()
{
    QFETCH(QString, list);
    QFETCH(QString, offending);
    // Set, so that the only reason to refuse is the form of the entry.
    const QStringList environment{QStringLiteral("A=1"), QStringLiteral("API_KEY=k"),
                                  QStringLiteral("TOKEN=abc")};
    for (const QStringList& arguments :
         {QStringList{QStringLiteral("--pass-through-env"), list},
          QStringList{QStringLiteral("--pass-through-env=") + list}}) {
        const Parsed parsed = parse(arguments, environment);
        const auto* error = (parsed ? nullptr : &parsed.error());
        QVERIFY2(error, "a value on the command line must be refused");
        QVERIFY2(error->contains(QLatin1String("--pass-through-env")), qPrintable(*error));
        QVERIFY2(error->contains(offending), qPrintable(*error));
    }
}

void tst_ServerOptionsParser::images_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("pythonImage");
    QTest::addColumn<QString>("jsImage");
    QTest::addColumn<bool>("warned");

    const QString image = QStringLiteral("ghcr.io/acme/sandbox:1");
    const QString imageEnv = QStringLiteral("CONTAINER_IMAGE=") + image;
    const QString pyFlag = QStringLiteral("--python-image");
    const QString jsFlag = QStringLiteral("--js-image");

    QTest::newRow("none") << QStringList() << QStringList() << QString() << QString() << false;
    QTest::newRow("CONTAINER_LANGUAGE=python")
        << QStringList() << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=python")}
        << image << QString() << false;
    QTest::newRow("CONTAINER_LANGUAGE=javascript")
        << QStringList() << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=javascript")}
        << QString() << image << false;
    QTest::newRow("CONTAINER_LANGUAGE=js")
        << QStringList() << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=js")}
        << QString() << image << false;
    QTest::newRow("CONTAINER_LANGUAGE=node")
        << QStringList() << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=node")}
        << QString() << image << false;
    QTest::newRow("CONTAINER_LANGUAGE=Python")
        << QStringList() << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=Python")}
        << image << QString() << false;
    QTest::newRow("CONTAINER_LANGUAGE missing")
        << QStringList() << QStringList{imageEnv} << image << QString() << true;
    QTest::newRow("CONTAINER_LANGUAGE invalid")
        << QStringList() << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=ruby")}
        << image << QString() << true;
    QTest::newRow("CONTAINER_LANGUAGE alone is ignored")
        << QStringList() << QStringList{QStringLiteral("CONTAINER_LANGUAGE=javascript")}
        << QString() << QString() << false;
    QTest::newRow("blank CONTAINER_IMAGE is ignored")
        << QStringList() << QStringList{QStringLiteral("CONTAINER_IMAGE=  ")} << QString()
        << QString() << false;
    QTest::newRow("--python-image beats CONTAINER_IMAGE")
        << QStringList{pyFlag, QStringLiteral("py:flag")}
        << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=python")}
        << QStringLiteral("py:flag") << QString() << false;
    QTest::newRow("--js-image beats CONTAINER_IMAGE")
        << QStringList{jsFlag, QStringLiteral("js:flag")}
        << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=javascript")} << QString()
        << QStringLiteral("js:flag") << false;
    QTest::newRow("--python-image with CONTAINER_IMAGE for javascript")
        << QStringList{pyFlag, QStringLiteral("py:flag")}
        << QStringList{imageEnv, QStringLiteral("CONTAINER_LANGUAGE=javascript")}
        << QStringLiteral("py:flag") << image << false;
    QTest::newRow("both flags") << QStringList{pyFlag, QStringLiteral("py:1"), jsFlag,
                                               QStringLiteral("js:1")}
                                << QStringList() << QStringLiteral("py:1") << QStringLiteral("js:1")
                                << false;
    QTest::newRow("flag value trimmed")
        << QStringList{pyFlag, QStringLiteral(" py:2 ")} << QStringList() << QStringLiteral("py:2")
        << QString() << false;
}

void tst_ServerOptionsParser::images()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(QString, pythonImage);
    QFETCH(QString, jsImage);
    QFETCH(bool, warned);

    const Parsed parsed = parse(arguments, environment);
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->pythonImage, pythonImage);
    QCOMPARE(options->jsImage, jsImage);
    QCOMPARE(options->warnings.size(), warned ? 1 : 0);
    if (warned)
        QVERIFY2(options->warnings.constFirst().contains(QLatin1String("CONTAINER_LANGUAGE")),
                 qPrintable(options->warnings.constFirst()));
}

void tst_ServerOptionsParser::timeouts_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<double>("defaultTimeout");
    QTest::addColumn<double>("maxTimeout");
    QTest::addColumn<QString>("errorMentions");

    const QString t = QStringLiteral("--timeout");
    const QString m = QStringLiteral("--max-timeout");
    QTest::newRow("defaults") << QStringList() << true << 30.0 << 600.0 << QString();
    QTest::newRow("--timeout 10") << QStringList{t, QStringLiteral("10")} << true << 10.0 << 600.0
                                  << QString();
    QTest::newRow("--timeout 0.5")
        << QStringList{t, QStringLiteral("0.5")} << true << 0.5 << 600.0 << QString();
    QTest::newRow("--max-timeout 120")
        << QStringList{m, QStringLiteral("120")} << true << 30.0 << 120.0 << QString();
    QTest::newRow("both") << QStringList{t, QStringLiteral("5"), m, QStringLiteral("60")} << true
                          << 5.0 << 60.0 << QString();
    QTest::newRow("equal") << QStringList{t, QStringLiteral("60"), m, QStringLiteral("60")} << true
                           << 60.0 << 60.0 << QString();
    QTest::newRow("--max-timeout 10: the default follows it down")
        << QStringList{m, QStringLiteral("10")} << true << 10.0 << 10.0 << QString();
    QTest::newRow("--timeout=15") << QStringList{QStringLiteral("--timeout=15")} << true << 15.0
                                  << 600.0 << QString();

    QTest::newRow("--timeout 0") << QStringList{t, QStringLiteral("0")} << false << 0.0 << 0.0 << t;
    QTest::newRow("--timeout -1") << QStringList{t, QStringLiteral("-1")} << false << 0.0 << 0.0
                                  << t;
    QTest::newRow("--timeout=-1") << QStringList{QStringLiteral("--timeout=-1")} << false << 0.0
                                  << 0.0 << t;
    QTest::newRow("--timeout abc")
        << QStringList{t, QStringLiteral("abc")} << false << 0.0 << 0.0 << t;
    QTest::newRow("--timeout empty") << QStringList{t, QString()} << false << 0.0 << 0.0 << t;
    QTest::newRow("--timeout 10s")
        << QStringList{t, QStringLiteral("10s")} << false << 0.0 << 0.0 << t;
    QTest::newRow("--timeout nan")
        << QStringList{t, QStringLiteral("nan")} << false << 0.0 << 0.0 << t;
    QTest::newRow("--timeout inf")
        << QStringList{t, QStringLiteral("inf")} << false << 0.0 << 0.0 << t;
    QTest::newRow("--max-timeout 0")
        << QStringList{m, QStringLiteral("0")} << false << 0.0 << 0.0 << m;
    QTest::newRow("--max-timeout -1")
        << QStringList{m, QStringLiteral("-1")} << false << 0.0 << 0.0 << m;
    QTest::newRow("--max-timeout abc")
        << QStringList{m, QStringLiteral("abc")} << false << 0.0 << 0.0 << m;
    QTest::newRow("timeout above max")
        << QStringList{t, QStringLiteral("100"), m, QStringLiteral("50")} << false << 0.0 << 0.0
        << m;
    QTest::newRow("--timeout above the default max")
        << QStringList{t, QStringLiteral("601")} << false << 0.0 << 0.0 << m;
}

void tst_ServerOptionsParser::timeouts()
{
    QFETCH(QStringList, arguments);
    QFETCH(bool, valid);
    QFETCH(double, defaultTimeout);
    QFETCH(double, maxTimeout);
    QFETCH(QString, errorMentions);

    const Parsed parsed = parse(arguments);
    if (valid) {
        const auto* options = (parsed ? &*parsed : nullptr);
        QVERIFY2(options, qPrintable(describe(parsed)));
        QCOMPARE(options->defaultTimeoutSeconds, defaultTimeout);
        QCOMPARE(options->maxTimeoutSeconds, maxTimeout);
    } else {
        const auto* error = (parsed ? nullptr : &parsed.error());
        QVERIFY2(error, "expected an error");
        QVERIFY2(error->contains(errorMentions), qPrintable(*error));
    }
}

void tst_ServerOptionsParser::unexpectedArguments_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("errorMentions");

    QTest::newRow("positional") << QStringList{QStringLiteral("serve")} << QStringLiteral("serve");
    QTest::newRow("positional after options")
        << QStringList{QStringLiteral("--engine"), QStringLiteral("podman"),
                       QStringLiteral("extra")}
        << QStringLiteral("extra");
    QTest::newRow("positional with --help")
        << QStringList{QStringLiteral("--help"), QStringLiteral("what")} << QStringLiteral("what");
    QTest::newRow("unknown option")
        << QStringList{QStringLiteral("--bogus")} << QStringLiteral("bogus");
    QTest::newRow("value for a flag")
        << QStringList{QStringLiteral("--verbose=yes")} << QStringLiteral("verbose");
}

void tst_ServerOptionsParser::unexpectedArguments()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, errorMentions);
    const Parsed parsed = parse(arguments);
    const auto* error = (parsed ? nullptr : &parsed.error());
    QVERIFY2(error, "expected an error");
    QVERIFY2(error->contains(errorMentions), qPrintable(*error));
}

void tst_ServerOptionsParser::runLimits_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("maxRunning");
    QTest::addColumn<int>("maxQueued");

    const QString running = QStringLiteral("--max-running");
    const QString queued = QStringLiteral("--max-queued");
    // 0: sized from the machine when the server starts.
    QTest::newRow("defaults") << QStringList() << QStringList() << true << 0 << 128;
    QTest::newRow("flags") << QStringList{running, QStringLiteral("3"), queued, QStringLiteral("0")}
                           << QStringList() << true << 3 << 0;
    QTest::newRow("variables") << QStringList()
                               << QStringList{QStringLiteral("CODE_SANDBOX_MAX_RUNNING=5"),
                                              QStringLiteral("CODE_SANDBOX_MAX_QUEUED=9")}
                               << true << 5 << 9;
    QTest::newRow("flag beats variable")
        << QStringList{running, QStringLiteral("2")}
        << QStringList{QStringLiteral("CODE_SANDBOX_MAX_RUNNING=5")} << true << 2 << 128;
    QTest::newRow("explicit default")
        << QStringList{running, QStringLiteral("0")} << QStringList() << true << 0 << 128;
    QTest::newRow("negative cap") << QStringList{running, QStringLiteral("-1")} << QStringList()
                                  << false << 0 << 0;
    QTest::newRow("words") << QStringList{queued, QStringLiteral("many")} << QStringList() << false
                           << 0 << 0;
    QTest::newRow("bad variable") << QStringList()
                                  << QStringList{QStringLiteral("CODE_SANDBOX_MAX_RUNNING=x")}
                                  << false << 0 << 0;
}

void tst_ServerOptionsParser::runLimits()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(bool, valid);
    QFETCH(int, maxRunning);
    QFETCH(int, maxQueued);
    const Parsed parsed = parse(arguments, environment);
    if (!valid) {
        const auto* error = (parsed ? nullptr : &parsed.error());
        QVERIFY2(error, "expected an error");
        QVERIFY2(error->contains(QLatin1String("MAX_")) || error->contains(QLatin1String("--max-")),
                 qPrintable(*error));
        return;
    }
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->maxRunning, maxRunning);
    QCOMPARE(options->maxQueued, maxQueued);
}

void tst_ServerOptionsParser::httpDefaults()
{
    const Parsed parsed = parse({QStringLiteral("--transport"), QStringLiteral("http")});
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->transport, ServerOptions::Transport::Http);
    QCOMPARE(options->http.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(options->http.port, quint16(8765));
    QCOMPARE(options->http.path, QStringLiteral("/mcp"));
    QCOMPARE(options->http.authToken, QString()); // the data folder's, once it serves
    QCOMPARE(options->http.noAuth, false);
    QCOMPARE(options->http.allowRemote, false);
    QCOMPARE(options->http.maxRequestBytes, 16 * 1024 * 1024);

    const Parsed stdio = parse({});
    QCOMPARE(stdio->transport, ServerOptions::Transport::Stdio);
    const Parsed fromEnvironment = parse({}, {QStringLiteral("CODE_SANDBOX_TRANSPORT=http")});
    QCOMPARE(fromEnvironment->transport, ServerOptions::Transport::Http);
}

void tst_ServerOptionsParser::httpSettings()
{
    const Parsed parsed = parse({QStringLiteral("--transport"),
                                 QStringLiteral("http"),
                                 QStringLiteral("--host"),
                                 QStringLiteral("0.0.0.0"),
                                 QStringLiteral("--allow-remote"),
                                 QStringLiteral("--port"),
                                 QStringLiteral("0"),
                                 QStringLiteral("--path"),
                                 QStringLiteral("/v1/mcp"),
                                 QStringLiteral("--allowed-host"),
                                 QStringLiteral("box.lan"),
                                 QStringLiteral("--allowed-origin"),
                                 QStringLiteral("http://box.lan:3000"),
                                 QStringLiteral("--max-request-size"),
                                 QStringLiteral("1m"),
                                 QStringLiteral("--max-sessions"),
                                 QStringLiteral("7"),
                                 QStringLiteral("--session-timeout"),
                                 QStringLiteral("60"),
                                 QStringLiteral("--request-timeout"),
                                 QStringLiteral("5"),
                                 QStringLiteral("--idle-timeout"),
                                 QStringLiteral("9")},
                                {QStringLiteral("CODE_SANDBOX_AUTH_TOKEN=0123456789abcdefXYZ")});
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->http.host, QStringLiteral("0.0.0.0"));
    QCOMPARE(options->http.port, quint16(0));
    QCOMPARE(options->http.path, QStringLiteral("/v1/mcp"));
    QCOMPARE(options->http.authToken, QStringLiteral("0123456789abcdefXYZ"));
    QCOMPARE(options->http.allowedHosts, QStringList{QStringLiteral("box.lan")});
    QCOMPARE(options->http.allowedOrigins, QStringList{QStringLiteral("http://box.lan:3000")});
    QCOMPARE(options->http.maxRequestBytes, 1024 * 1024);
    QCOMPARE(options->http.maxSessions, 7);
    QCOMPARE(options->http.sessionIdleSeconds, 60);
    QCOMPARE(options->http.requestTimeoutSeconds, 5);
    QCOMPARE(options->http.idleTimeoutSeconds, 9);

    // --no-auth with an explicit loopback host.
    const Parsed noAuth =
        parse({QStringLiteral("--transport"), QStringLiteral("http"), QStringLiteral("--no-auth"),
               QStringLiteral("--host"), QStringLiteral("127.0.0.1")});
    QVERIFY2(noAuth.hasValue(), qPrintable(describe(noAuth)));
    QCOMPARE(noAuth->http.noAuth, true);
    QCOMPARE(noAuth->http.authToken, QString());

    // The flag wins over the variable.
    const Parsed flagWins = parse({QStringLiteral("--transport"), QStringLiteral("http"),
                                   QStringLiteral("--auth-token"), QStringLiteral("from-flag")},
                                  {QStringLiteral("CODE_SANDBOX_AUTH_TOKEN=from-env")});
    QCOMPARE(flagWins->http.authToken, QStringLiteral("from-flag"));
}

void tst_ServerOptionsParser::httpErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("errorMentions");

    const QString transport = QStringLiteral("--transport");
    const QString http = QStringLiteral("http");
    QTest::newRow("unknown transport")
        << QStringList{transport, QStringLiteral("sse")} << QStringList() << QStringLiteral("sse");
    QTest::newRow("unknown transport from the environment")
        << QStringList() << QStringList{QStringLiteral("CODE_SANDBOX_TRANSPORT=ws")}
        << QStringLiteral("CODE_SANDBOX_TRANSPORT");
    QTest::newRow("http flag with stdio")
        << QStringList{QStringLiteral("--port"), QStringLiteral("9000")} << QStringList()
        << QStringLiteral("--port applies only with --transport http");
    // Where it may listen with which token is HttpListenPolicy's (tst_HttpListenPolicy): the
    // token may still come from the data folder. --no-auth's "explicit" is the command line's.
    QTest::newRow("--no-auth without --host")
        << QStringList{transport, http, QStringLiteral("--no-auth")} << QStringList()
        << QStringLiteral("--no-auth needs an explicit loopback address");
    QTest::newRow("--no-auth with a remote --host")
        << QStringList{transport,
                       http,
                       QStringLiteral("--no-auth"),
                       QStringLiteral("--host"),
                       QStringLiteral("0.0.0.0"),
                       QStringLiteral("--allow-remote")}
        << QStringList() << QStringLiteral("--no-auth needs an explicit loopback address");
    QTest::newRow("--no-auth with stdio")
        << QStringList{QStringLiteral("--no-auth")} << QStringList()
        << QStringLiteral("--no-auth applies only with --transport http");
    QTest::newRow("host name") << QStringList{transport, http, QStringLiteral("--host"),
                                              QStringLiteral("example.com")}
                               << QStringList() << QStringLiteral("IP address");
    QTest::newRow("port too big") << QStringList{transport, http, QStringLiteral("--port"),
                                                 QStringLiteral("65536")}
                                  << QStringList() << QStringLiteral("--port");
    QTest::newRow("path without slash")
        << QStringList{transport, http, QStringLiteral("--path"), QStringLiteral("mcp")}
        << QStringList() << QStringLiteral("--path");
    QTest::newRow("path with a query")
        << QStringList{transport, http, QStringLiteral("--path"), QStringLiteral("/mcp?x")}
        << QStringList() << QStringLiteral("--path");
    QTest::newRow("token with a space")
        << QStringList{transport, http}
        << QStringList{QStringLiteral("CODE_SANDBOX_AUTH_TOKEN=a b")}
        << QStringLiteral("whitespace");
    QTest::newRow("request size") << QStringList{transport, http,
                                                 QStringLiteral("--max-request-size"),
                                                 QStringLiteral("2g")}
                                  << QStringList() << QStringLiteral("--max-request-size");
    QTest::newRow("sessions zero")
        << QStringList{transport, http, QStringLiteral("--max-sessions"), QStringLiteral("0")}
        << QStringList() << QStringLiteral("--max-sessions");
    QTest::newRow("timeout not a number")
        << QStringList{transport, http, QStringLiteral("--request-timeout"), QStringLiteral("x")}
        << QStringList() << QStringLiteral("--request-timeout");
}

void tst_ServerOptionsParser::httpErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(QString, errorMentions);
    const Parsed parsed = parse(arguments, environment);
    const auto* error = (parsed ? nullptr : &parsed.error());
    QVERIFY2(error, "expected an error");
    QVERIFY2(error->contains(errorMentions), qPrintable(*error));
}

void tst_ServerOptionsParser::historyRetention_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("maxRuns"); // -1: an error is expected
    QTest::addColumn<int>("maxDays");

    const QString runs = QStringLiteral("--history-max-runs");
    const QString days = QStringLiteral("--history-max-days");
    QTest::newRow("defaults") << QStringList() << 10000 << 90;
    QTest::newRow("both") << QStringList{runs, QStringLiteral("5"), days, QStringLiteral("7")} << 5
                          << 7;
    QTest::newRow("0 means no limit") << QStringList{runs, QStringLiteral("0")} << 0 << 90;
    QTest::newRow("negative") << QStringList{days, QStringLiteral("-1")} << -1 << -1;
    QTest::newRow("not a number") << QStringList{runs, QStringLiteral("many")} << -1 << -1;
}

void tst_ServerOptionsParser::historyRetention()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, maxRuns);
    QFETCH(int, maxDays);
    const Parsed parsed = parse(arguments);
    if (maxRuns < 0) {
        const auto* error = (parsed ? nullptr : &parsed.error());
        QVERIFY2(error, "expected an error");
        QVERIFY2(error->contains(QLatin1String("0 or more")), qPrintable(*error));
        return;
    }
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->historyRetention.maxRuns, maxRuns);
    QCOMPARE(options->historyRetention.maxAgeDays, maxDays);
}

void tst_ServerOptionsParser::historySize_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<qint64>("maxTotalBytes"); // -1: an error is expected
    QTest::addColumn<qint64>("maxFieldBytes");
    QTest::addColumn<QString>("errorMentions");

    const QString mb = QStringLiteral("--history-max-mb");
    const QString field = QStringLiteral("--history-max-field-size");
    const QString variable = QStringLiteral("CODE_SANDBOX_HISTORY_MAX_FIELD_SIZE=");
    QTest::newRow("defaults") << QStringList() << QStringList() << (512LL << 20) << (256LL << 10)
                              << QString();
    QTest::newRow("flags") << QStringList{mb, QStringLiteral("64"), field, QStringLiteral("1m")}
                           << QStringList() << (64LL << 20) << (1LL << 20) << QString();
    QTest::newRow("0 MiB means no limit") << QStringList{mb, QStringLiteral("0")} << QStringList()
                                          << 0LL << (256LL << 10) << QString();
    QTest::newRow("variable") << QStringList() << QStringList{variable + QStringLiteral("8k")}
                              << (512LL << 20) << (8LL << 10) << QString();
    QTest::newRow("the flag wins")
        << QStringList{field, QStringLiteral("2k")} << QStringList{variable + QStringLiteral("8k")}
        << (512LL << 20) << (2LL << 10) << QString();
    QTest::newRow("negative size") << QStringList{mb, QStringLiteral("-1")} << QStringList() << -1LL
                                   << 0LL << QStringLiteral("--history-max-mb");
    QTest::newRow("field size too small")
        << QStringList{field, QStringLiteral("10")} << QStringList() << -1LL << 0LL
        << QStringLiteral("--history-max-field-size");
    QTest::newRow("bad variable") << QStringList() << QStringList{variable + QStringLiteral("lots")}
                                  << -1LL << 0LL
                                  << QStringLiteral("CODE_SANDBOX_HISTORY_MAX_FIELD_SIZE");
}

void tst_ServerOptionsParser::historySize()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(qint64, maxTotalBytes);
    QFETCH(qint64, maxFieldBytes);
    QFETCH(QString, errorMentions);
    const Parsed parsed = parse(arguments, environment);
    if (maxTotalBytes < 0) {
        const auto* error = (parsed ? nullptr : &parsed.error());
        QVERIFY2(error, "expected an error");
        QVERIFY2(error->contains(errorMentions), qPrintable(*error));
        return;
    }
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->historyRetention.maxTotalBytes, maxTotalBytes);
    QCOMPARE(options->historyMaxFieldBytes, maxFieldBytes);
}

void tst_ServerOptionsParser::secrets_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<bool>("secretsFile");
    QTest::addColumn<bool>("redactOutput");
    QTest::newRow("default") << QStringList() << false << true;
    QTest::newRow("--secrets-file")
        << QStringList{QStringLiteral("--secrets-file")} << true << true;
    QTest::newRow("--no-redact") << QStringList{QStringLiteral("--no-redact")} << false << false;
    QTest::newRow("both") << QStringList{QStringLiteral("--no-redact"),
                                         QStringLiteral("--secrets-file")}
                          << true << false;
}

void tst_ServerOptionsParser::secrets()
{
    QFETCH(QStringList, arguments);
    QFETCH(bool, secretsFile);
    QFETCH(bool, redactOutput);
    const Parsed parsed = parse(arguments);
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(options->secretsFile, secretsFile);
    QCOMPARE(options->redactOutput, redactOutput);
}

void tst_ServerOptionsParser::shares_data()
{
    // "D/" stands for a folder holding folders sales, out and "a,b", a symlink link -> sales and
    // a file notes.txt. `expected`: the shares as settings.ini stores them, or "error: " and
    // words the error must hold.
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("expected");
    const QString share = QStringLiteral("--share");

    QTest::newRow("none") << QStringList() << QStringList() << QString();
    QTest::newRow("read-only by default, named after the folder")
        << QStringList{share, QStringLiteral("D/sales")} << QStringList()
        << QStringLiteral("D/sales:sales:ro");
    QTest::newRow("named and writable") << QStringList{share, QStringLiteral("D/sales:data:rw")}
                                        << QStringList() << QStringLiteral("D/sales:data:rw");
    QTest::newRow("explicitly read-only") << QStringList{share, QStringLiteral("D/sales:ro")}
                                          << QStringList() << QStringLiteral("D/sales:sales:ro");
    QTest::newRow("trailing slash") << QStringList{share, QStringLiteral("D/out/:rw")}
                                    << QStringList() << QStringLiteral("D/out:out:rw");
    QTest::newRow("repeated") << QStringList{share, QStringLiteral("D/sales"), share,
                                             QStringLiteral("D/out:rw")}
                              << QStringList() << QStringLiteral("D/sales:sales:ro\nD/out:out:rw");
    QTest::newRow("a symlink means its target")
        << QStringList{share, QStringLiteral("D/link:linked")} << QStringList()
        << QStringLiteral("D/sales:linked:ro");
    QTest::newRow("variable") << QStringList()
                              << QStringList{QStringLiteral("CODE_SANDBOX_SHARE=D/sales:s")}
                              << QStringLiteral("D/sales:s:ro");
    QTest::newRow("variable, one a line")
        << QStringList() << QStringList{QStringLiteral("CODE_SANDBOX_SHARE=D/sales\nD/out:rw\n")}
        << QStringLiteral("D/sales:sales:ro\nD/out:out:rw");
    QTest::newRow("flag beats variable")
        << QStringList{share, QStringLiteral("D/out")}
        << QStringList{QStringLiteral("CODE_SANDBOX_SHARE=D/sales")}
        << QStringLiteral("D/out:out:ro");

    QTest::newRow("missing folder") << QStringList{share, QStringLiteral("D/nope")} << QStringList()
                                    << QStringLiteral("error: does not exist");
    QTest::newRow("a file") << QStringList{share, QStringLiteral("D/notes.txt")} << QStringList()
                            << QStringLiteral("error: is not a folder");
    QTest::newRow("name with a space")
        << QStringList{share, QStringLiteral("D/sales:my data")} << QStringList()
        << QStringLiteral("error: the name \"my data\" is not valid");
    QTest::newRow("name ..") << QStringList{share, QStringLiteral("D/sales:..")} << QStringList()
                             << QStringLiteral("error: the name \"..\" is not valid");
    QTest::newRow("empty name") << QStringList{share, QStringLiteral("D/sales::rw")}
                                << QStringList() << QStringLiteral("error: is not valid");
    QTest::newRow("no folder") << QStringList{share, QStringLiteral(":rw")} << QStringList()
                               << QStringLiteral("error: give a folder");
    QTest::newRow("a name twice") << QStringList{share, QStringLiteral("D/sales"), share,
                                                 QStringLiteral("D/link")}
                                  << QStringList()
                                  << QStringLiteral("error: --share: \"D/link\": another shared "
                                                    "folder is already named \"sales\"");
    QTest::newRow("a comma in the path") << QStringList{share, QStringLiteral("D/a,b")}
                                         << QStringList() << QStringLiteral("error: holds a comma");
    // A share inside a writable one could be replaced by its sandboxes with a link to any folder
    // of this machine, which the engine would mount at the next start: refused, in any order,
    // under any name, through a link too.
    const QString inside = QStringLiteral("is inside the writable shared folder");
    QTest::newRow("inside a writable share")
        << QStringList{share, QStringLiteral("D/out:rw"), share, QStringLiteral("D/out/inner")}
        << QStringList() << QStringLiteral("error: ") + inside;
    QTest::newRow("inside a writable share, listed first")
        << QStringList{share, QStringLiteral("D/out/inner:data:ro"), share,
                       QStringLiteral("D/out:rw")}
        << QStringList() << QStringLiteral("error: ") + inside;
    QTest::newRow("inside a writable share, through a link")
        << QStringList{share, QStringLiteral("D/innerlink:data"), share, QStringLiteral("D/out:rw")}
        << QStringList() << QStringLiteral("error: ") + inside;
    QTest::newRow("a writable share twice")
        << QStringList{share, QStringLiteral("D/out:a:rw"), share, QStringLiteral("D/out:b:ro")}
        << QStringList() << QStringLiteral("error: ") + inside;
    // The server's data folder in a writable share: its sandboxes could rewrite its settings.
    QTest::newRow("a writable share holding the data folder")
        << QStringList{QStringLiteral("--data-dir"), QStringLiteral("D/out/inner"), share,
                       QStringLiteral("D/out:rw")}
        << QStringList() << QStringLiteral("error: is writable and holds");
    QTest::newRow("a read-only share holding the data folder")
        << QStringList{QStringLiteral("--data-dir"), QStringLiteral("D/out/inner"), share,
                       QStringLiteral("D/out")}
        << QStringList() << QStringLiteral("D/out:out:ro");
    QTest::newRow("a writable share inside a read-only one")
        << QStringList{share, QStringLiteral("D/out:ro"), share, QStringLiteral("D/out/inner:rw")}
        << QStringList() << QStringLiteral("D/out:out:ro\nD/out/inner:inner:rw");
    QTest::newRow("a writable share beside one of a longer name")
        << QStringList{share, QStringLiteral("D/out:rw"), share, QStringLiteral("D/outer")}
        << QStringList() << QStringLiteral("D/out:out:rw\nD/outer:outer:ro");
    QTest::newRow("bad variable") << QStringList()
                                  << QStringList{QStringLiteral("CODE_SANDBOX_SHARE=D/nope")}
                                  << QStringLiteral("error: does not exist");
}

void tst_ServerOptionsParser::shares()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(QString, expected);
    const Parsed parsed = parse(inShares(arguments), inShares(environment));
    if (expected.startsWith(QLatin1String("error: "))) {
        const auto* error = (parsed ? nullptr : &parsed.error());
        QVERIFY2(error, "expected an error");
        QVERIFY2(error->contains(inShares(expected.mid(7))), qPrintable(*error));
        // One line, naming the entry that is wrong when there are several.
        QVERIFY2(!error->contains(u'\n'), qPrintable(*error));
        // It names where the bad value came from.
        QVERIFY2(error->contains(arguments.isEmpty() ? QStringLiteral("CODE_SANDBOX_SHARE")
                                                     : QStringLiteral("--share")),
                 qPrintable(*error));
        return;
    }
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    QCOMPARE(csm::SharedFolderText::formatList(options->policy.sharedFolders), inShares(expected));
}

QTEST_GUILESS_MAIN(tst_ServerOptionsParser)
#include "tst_ServerOptionsParser.moc"

void tst_ServerOptionsParser::hostRulesThatReachNothingAreWarnedAbout_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("warning"); // a part of it; empty: none
    QTest::newRow("127.0.0.1") << QStringLiteral("127.0.0.1:8000")
                               << QStringLiteral("a sandbox's 127.0.0.1 is its own loopback");
    QTest::newRow("localhost") << QStringLiteral("localhost")
                               << QStringLiteral("host.containers.internal:PORT");
    QTest::newRow("[::1]") << QStringLiteral("[::1]:5432") << QStringLiteral("its own loopback");
    QTest::newRow("this machine without a port")
        << QStringLiteral("host.docker.internal") << QStringLiteral("host.docker.internal:8000");
    QTest::newRow("this machine with a port")
        << QStringLiteral("host.containers.internal:8000") << QString();
    QTest::newRow("another loopback address") << QStringLiteral("127.0.0.2:8000") << QString();
    QTest::newRow("a public host") << QStringLiteral("*.pypi.org") << QString();
}

void tst_ServerOptionsParser::hostRulesThatReachNothingAreWarnedAbout()
{
    QFETCH(QString, rule);
    QFETCH(QString, warning);
    const Parsed parsed = parse({QStringLiteral("--allow-host"), rule});
    const auto* options = (parsed ? &*parsed : nullptr);
    QVERIFY2(options, qPrintable(describe(parsed)));
    if (warning.isEmpty()) {
        QCOMPARE(options->warnings, QStringList());
        return;
    }
    QCOMPARE(options->warnings.size(), 1);
    QVERIFY2(options->warnings.constFirst().contains(warning),
             qPrintable(options->warnings.constFirst()));
}
