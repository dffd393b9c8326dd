#include "mcp/ToolCall.h"
#include "runtime/PodmanRuntime.h"
#include "runtime/SandboxPolicy.h"
#include "sandbox/SandboxRunner.h"
#include "tools/RunCodeTool.h"
#include "tools/ToolResultFormatter.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace csm;

Q_DECLARE_METATYPE(csm::Language)

namespace {

// Never exists, so no engine and no container ever runs in these tests.
const QString& missingEngine()
{
    static const QString path = QStringLiteral("/nonexistent/csm-unit-test/podman");
    return path;
}

std::unique_ptr<SandboxRunner> makeRunner(const SandboxPolicy& policy = {})
{
    // The launcher and the profile are only handed to the engine, never read here: any path
    // will do.
    return std::make_unique<SandboxRunner>(
        std::make_unique<PodmanRuntime>(missingEngine()), policy,
        SandboxFiles{QStringLiteral("/nonexistent/csm-launch"),
                     QStringLiteral("/nonexistent/csm-seccomp.json"),
                     {}});
}

RunCodeTool::Config makeConfig(Language language, const QString& image = {})
{
    RunCodeTool::Config config;
    config.language = language;
    config.customImage = !image.isEmpty();
    config.image = config.customImage ? image
                   : language == Language::Python
                       ? QStringLiteral("localhost/code-sandbox-python:latest")
                       : QStringLiteral("localhost/code-sandbox-js:latest");
    return config;
}

QString textOf(const QJsonObject& callResult)
{
    return callResult.value(QLatin1String("content"))
        .toArray()
        .first()
        .toObject()
        .value(QLatin1String("text"))
        .toString();
}

QJsonObject resultOf(const QSignalSpy& finished)
{
    return finished.at(0).at(0).toJsonObject();
}

} // namespace

class tst_RunCodeTool final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void names_data();
    void names();
    void definition_data();
    void definition();
    void openWorldHintFollowsNetwork_data();
    void openWorldHintFollowsNetwork();
    void definitionReflectsLimits();
    void descriptionListsSharedFolders();
    void sessionsAreOfferedForBothLanguages();
    void reviewNamesTheFilesSent();
    void invalidArguments_data();
    void invalidArguments();
    void engineCannotBeStarted_data();
    void engineCannotBeStarted();
    void cancelBeforeTheEngineStarts();
    void cancelOfAnInvalidCall();
};

void tst_RunCodeTool::initTestCase()
{
    QVERIFY2(!QFileInfo::exists(missingEngine()), qPrintable(missingEngine()));
}

void tst_RunCodeTool::names_data()
{
    QTest::addColumn<Language>("language");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("aliases");
    QTest::newRow("python") << Language::Python << QStringLiteral("run_python_code")
                            << QStringList();
    QTest::newRow("javascript") << Language::JavaScript << QStringLiteral("run_js_code")
                                << QStringList{QStringLiteral("run_javascript_code")};
}

void tst_RunCodeTool::names()
{
    QFETCH(Language, language);
    QFETCH(QString, name);
    QFETCH(QStringList, aliases);
    const auto runner = makeRunner();
    const RunCodeTool tool(*runner, makeConfig(language));
    QCOMPARE(tool.name(), name);
    QCOMPARE(tool.aliases(), aliases);
    QVERIFY(!tool.aliases().contains(tool.name()));
}

void tst_RunCodeTool::definition_data()
{
    QTest::addColumn<Language>("language");
    QTest::addColumn<QString>("customImage"); // empty: the default image
    QTest::addColumn<QStringList>("mentions");
    QTest::addColumn<QStringList>("doesNotMention");

    QTest::newRow("python default image")
        << Language::Python << QString()
        << QStringList{QStringLiteral("Python"), QStringLiteral("numpy"), QStringLiteral("print()"),
                       QStringLiteral("30 s"), QStringLiteral("600 s")}
        << QStringList{QStringLiteral("custom image"), QStringLiteral("Node")};
    QTest::newRow("javascript default image")
        << Language::JavaScript << QString()
        << QStringList{QStringLiteral("JavaScript"), QStringLiteral("Node.js"),
                       QStringLiteral("console.log()")}
        << QStringList{QStringLiteral("numpy"), QStringLiteral("custom image")};
    QTest::newRow("python custom image")
        << Language::Python << QStringLiteral("ghcr.io/acme/py-sandbox:3")
        << QStringList{QStringLiteral("Python"), QStringLiteral("custom image"),
                       QStringLiteral("ghcr.io/acme/py-sandbox:3")}
        << QStringList{QStringLiteral("numpy")};
    QTest::newRow("javascript custom image")
        << Language::JavaScript << QStringLiteral("node:22-slim")
        << QStringList{QStringLiteral("JavaScript"), QStringLiteral("custom image"),
                       QStringLiteral("node:22-slim")}
        << QStringList{QStringLiteral("numpy"), QStringLiteral("Node.js 18")};
}

void tst_RunCodeTool::definition()
{
    QFETCH(Language, language);
    QFETCH(QString, customImage);
    QFETCH(QStringList, mentions);
    QFETCH(QStringList, doesNotMention);

    const auto runner = makeRunner();
    const RunCodeTool tool(*runner, makeConfig(language, customImage));
    const QJsonObject definition = tool.definition();

    QCOMPARE(definition.value(QLatin1String("name")).toString(), tool.name());
    const QString title = definition.value(QLatin1String("title")).toString();
    QVERIFY2(title.contains(LanguageTraits::displayName(language)), qPrintable(title));

    const QString description = definition.value(QLatin1String("description")).toString();
    QVERIFY(!description.isEmpty());
    for (const QString& word : mentions)
        QVERIFY2(description.contains(word), qPrintable(word + QStringLiteral(": ") + description));
    for (const QString& word : doesNotMention)
        QVERIFY2(!description.contains(word),
                 qPrintable(word + QStringLiteral(": ") + description));
    // Every placeholder was filled in.
    QVERIFY2(!description.contains(QRegularExpression(QStringLiteral("%\\d"))),
             qPrintable(description));

    const QJsonObject input = definition.value(QLatin1String("inputSchema")).toObject();
    QCOMPARE(input.value(QLatin1String("type")).toString(), QStringLiteral("object"));
    QCOMPARE(input.value(QLatin1String("required")).toArray(), QJsonArray{QStringLiteral("code")});
    const QJsonObject properties = input.value(QLatin1String("properties")).toObject();
    QCOMPARE(
        properties.value(QLatin1String("code")).toObject().value(QLatin1String("type")).toString(),
        QStringLiteral("string"));
    const QJsonObject timeout = properties.value(QLatin1String("timeout_seconds")).toObject();
    QCOMPARE(timeout.value(QLatin1String("type")).toString(), QStringLiteral("number"));
    QCOMPARE(timeout.value(QLatin1String("maximum")).toDouble(), 600.0);

    QVERIFY(definition.value(QLatin1String("outputSchema")).isObject());
    QCOMPARE(definition.value(QLatin1String("outputSchema")).toObject(),
             ToolResultFormatter::outputSchema());

    const QJsonObject annotations = definition.value(QLatin1String("annotations")).toObject();
    for (const QString& hint : {QStringLiteral("readOnlyHint"), QStringLiteral("destructiveHint"),
                                QStringLiteral("idempotentHint"), QStringLiteral("openWorldHint")})
        QVERIFY2(annotations.value(hint).isBool(), qPrintable(hint));
    QCOMPARE(annotations.value(QLatin1String("readOnlyHint")).toBool(), false);
    QCOMPARE(annotations.value(QLatin1String("destructiveHint")).toBool(), false);
    QCOMPARE(annotations.value(QLatin1String("idempotentHint")).toBool(), false);
}

void tst_RunCodeTool::openWorldHintFollowsNetwork_data()
{
    QTest::addColumn<QString>("egress");
    QTest::addColumn<QString>("allowHost");
    QTest::addColumn<bool>("openWorld");
    QTest::addColumn<QString>("said");
    QTest::newRow("open") << QStringLiteral("open") << QString() << true
                          << QStringLiteral("Network access: public hosts, through a proxy");
    QTest::newRow("open, a host named")
        << QStringLiteral("open") << QStringLiteral("10.0.0.5:8080") << true
        << QStringLiteral("the cloud metadata address are refused except 10.0.0.5:8080.");
    QTest::newRow("allowlist") << QStringLiteral("allowlist") << QStringLiteral("*.pypi.org")
                               << true
                               << QStringLiteral(
                                      "Network access: only *.pypi.org, through a proxy");
    QTest::newRow("allowlist, empty")
        << QStringLiteral("allowlist") << QString() << true
        << QStringLiteral("Network access: none (no host is allowed)");
    QTest::newRow("ask") << QStringLiteral("ask") << QString() << true
                         << QStringLiteral("the user is asked about each host not allowed yet");
    QTest::newRow("bridge") << QStringLiteral("bridge") << QString() << true
                            << QStringLiteral("Network access: yes, unfiltered.");
    QTest::newRow("none") << QStringLiteral("none") << QString() << false
                          << QStringLiteral("Network access: none.");
}

void tst_RunCodeTool::openWorldHintFollowsNetwork()
{
    QFETCH(QString, egress);
    QFETCH(QString, allowHost);
    QFETCH(bool, openWorld);
    QFETCH(QString, said);
    const auto runner = makeRunner();
    EgressSettings settings;
    settings.mode = *EgressModes::fromString(egress);
    if (!allowHost.isEmpty())
        settings.allowedHosts = {*HostPattern::parse(allowHost)};
    runner->setEgress(settings);
    const RunCodeTool tool(*runner, makeConfig(Language::Python));
    const QJsonObject definition = tool.definition();
    QCOMPARE(definition.value(QLatin1String("annotations"))
                 .toObject()
                 .value(QLatin1String("openWorldHint"))
                 .toBool(),
             openWorld);
    const QString description = definition.value(QLatin1String("description")).toString();
    QVERIFY2(description.contains(said), qPrintable(description));
}

void tst_RunCodeTool::sessionsAreOfferedForBothLanguages()
{
    const auto runner = makeRunner();
    for (const Language language : {Language::Python, Language::JavaScript}) {
        RunCodeTool tool(*runner, makeConfig(language));
        const auto offered = [&tool] {
            return tool.definition()
                .value(QLatin1String("inputSchema"))
                .toObject()
                .value(QLatin1String("properties"))
                .toObject()
                .contains(QLatin1String("session"));
        };
        QVERIFY(!offered()); // a server without sessions
        tool.offerSessions(true);
        QVERIFY2(offered(), qPrintable(LanguageTraits::displayName(language)));
        const QString description =
            tool.definition().value(QLatin1String("description")).toString();
        QVERIFY2(description.contains(QLatin1String("Sessions: to keep state between calls")),
                 qPrintable(description));
        // JavaScript's says how to keep what a cell declares: at the top level, not in a wrapper.
        QCOMPARE(description.contains(QLatin1String("await at the top level")),
                 language == Language::JavaScript);
    }
}

void tst_RunCodeTool::reviewNamesTheFilesSent()
{
    // What the approval dialog lists: each file's path and its size once decoded.
    const auto runner = makeRunner(SandboxPolicy{});
    const RunCodeTool tool(*runner, makeConfig(Language::Python));
    const QJsonObject arguments{
        {QStringLiteral("code"), QStringLiteral("print(1)")},
        {QStringLiteral("files"),
         QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("a/data.csv")},
                                {QStringLiteral("content"), QStringLiteral("x,y\n1,2\n")}},
                    QJsonObject{{QStringLiteral("path"), QStringLiteral("blob.bin")},
                                {QStringLiteral("content"), QStringLiteral("AAECAw==")},
                                {QStringLiteral("encoding"), QStringLiteral("base64")}}}}};
    const QList<ReviewedFile> files = tool.reviewFiles(arguments);
    QCOMPARE(files.size(), 2);
    QCOMPARE(files.at(0).path, QStringLiteral("a/data.csv"));
    QCOMPARE(files.at(0).sizeBytes, 8);
    QCOMPARE(files.at(1).path, QStringLiteral("blob.bin"));
    QCOMPARE(files.at(1).sizeBytes, 4);
    QVERIFY(tool.reviewFiles({{QStringLiteral("code"), QStringLiteral("1")}}).isEmpty());
}

void tst_RunCodeTool::definitionReflectsLimits()
{
    SandboxPolicy policy;
    policy.memoryBytes = 256LL * 1024 * 1024;
    policy.tmpfsBytes = 16LL * 1024 * 1024;
    policy.workdir = QStringLiteral("/scratch");
    const auto runner = makeRunner(policy);
    RunCodeTool::Config config = makeConfig(Language::Python);
    config.defaultTimeoutSeconds = 10;
    config.maxTimeoutSeconds = 120;
    const RunCodeTool tool(*runner, config);
    const QJsonObject definition = tool.definition();

    const QString description = definition.value(QLatin1String("description")).toString();
    for (const QString& word :
         {QStringLiteral("256 MiB"), QStringLiteral("16 MiB"), QStringLiteral("/scratch"),
          QStringLiteral("10 s"), QStringLiteral("120 s")})
        QVERIFY2(description.contains(word), qPrintable(word + QStringLiteral(": ") + description));
    const QJsonObject timeout = definition.value(QLatin1String("inputSchema"))
                                    .toObject()
                                    .value(QLatin1String("properties"))
                                    .toObject()
                                    .value(QLatin1String("timeout_seconds"))
                                    .toObject();
    QCOMPARE(timeout.value(QLatin1String("maximum")).toDouble(), 120.0);
    QVERIFY(timeout.value(QLatin1String("description")).toString().contains(QLatin1String("10")));
}

void tst_RunCodeTool::descriptionListsSharedFolders()
{
    SandboxPolicy policy;
    const auto unshared = makeRunner(policy);
    const QString none = RunCodeTool(*unshared, makeConfig(Language::Python))
                             .definition()
                             .value(QLatin1String("description"))
                             .toString();
    QVERIFY2(!none.contains(QLatin1String("/data")), qPrintable(none));
    policy.sharedFolders = {{QStringLiteral("/home/me/sales"), QStringLiteral("sales"), false},
                            {QStringLiteral("/home/me/out"), QStringLiteral("results"), true}};
    const auto runner = makeRunner(policy);
    for (const Language language : {Language::Python, Language::JavaScript}) {
        const QString description = RunCodeTool(*runner, makeConfig(language))
                                        .definition()
                                        .value(QLatin1String("description"))
                                        .toString();
        QVERIFY2(description.contains(QLatin1String(
                     " Folders shared by the user: /data/sales (read-only), /data/results "
                     "(writable); read them directly: they are not copied through this "
                     "conversation.")),
                 qPrintable(description));
        // Where they are on the host is none of the model's business.
        QVERIFY2(!description.contains(QLatin1String("/home/me")), qPrintable(description));
    }
}

void tst_RunCodeTool::invalidArguments_data()
{
    QTest::addColumn<Language>("language");
    QTest::addColumn<QJsonObject>("arguments");
    QTest::addColumn<QString>("named"); // the argument the message must name

    const QString code = QStringLiteral("code");
    const QString timeout = QStringLiteral("timeout_seconds");
    const QJsonValue program(QStringLiteral("print(1)"));
    const auto withTimeout = [&](const QJsonValue& value) {
        return QJsonObject{{code, program}, {timeout, value}};
    };

    QTest::newRow("no arguments") << Language::Python << QJsonObject() << code;
    QTest::newRow("code null") << Language::Python << QJsonObject{{code, QJsonValue::Null}} << code;
    QTest::newRow("code a number") << Language::Python << QJsonObject{{code, 42}} << code;
    QTest::newRow("code an array")
        << Language::Python << QJsonObject{{code, QJsonArray{program}}} << code;
    QTest::newRow("code an object")
        << Language::Python << QJsonObject{{code, QJsonObject{{code, program}}}} << code;
    QTest::newRow("code misspelled")
        << Language::Python << QJsonObject{{QStringLiteral("source"), program}} << code;
    QTest::newRow("javascript without code") << Language::JavaScript << QJsonObject() << code;
    QTest::newRow("timeout 0") << Language::Python << withTimeout(0) << timeout;
    QTest::newRow("timeout -1") << Language::Python << withTimeout(-1) << timeout;
    QTest::newRow("timeout a string")
        << Language::Python << withTimeout(QStringLiteral("10")) << timeout;
    QTest::newRow("timeout a boolean") << Language::Python << withTimeout(true) << timeout;
    QTest::newRow("timeout an array") << Language::Python << withTimeout(QJsonArray{10}) << timeout;
    QTest::newRow("javascript timeout 0") << Language::JavaScript << withTimeout(0) << timeout;
}

void tst_RunCodeTool::invalidArguments()
{
    QFETCH(Language, language);
    QFETCH(QJsonObject, arguments);
    QFETCH(QString, named);

    const auto runner = makeRunner();
    RunCodeTool tool(*runner, makeConfig(language));
    QObject owner;
    ToolCall* call = tool.start(arguments, CallContext{}, &owner);
    QVERIFY(call);
    QCOMPARE(call->parent(), &owner);
    QSignalSpy finished(call, &ToolCall::finished);
    QSignalSpy cancelled(call, &ToolCall::cancelled);
    // Never from inside start(): the dispatcher connects only after start() returns.
    QCOMPARE(finished.size(), 0);
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.size(), 1);

    const QJsonObject result = resultOf(finished);
    QCOMPARE(result.value(QLatin1String("isError")).toBool(), true);
    const QString text = textOf(result);
    QVERIFY2(text.contains(QLatin1Char('"') + named + QLatin1Char('"')), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("Invalid arguments")), qPrintable(text));

    QTest::qWait(50);
    QCOMPARE(finished.size(), 1); // exactly once
    QCOMPARE(cancelled.size(), 0);
}

void tst_RunCodeTool::engineCannotBeStarted_data()
{
    QTest::addColumn<Language>("language");
    QTest::addColumn<QJsonObject>("arguments");

    const QString code = QStringLiteral("code");
    const QString timeout = QStringLiteral("timeout_seconds");
    const QJsonValue program(QStringLiteral("print('CSM-CODE-MARKER')"));
    QTest::newRow("code only") << Language::Python << QJsonObject{{code, program}};
    QTest::newRow("empty program") << Language::Python << QJsonObject{{code, QString()}};
    QTest::newRow("timeout 5") << Language::Python << QJsonObject{{code, program}, {timeout, 5}};
    QTest::newRow("fractional timeout")
        << Language::Python << QJsonObject{{code, program}, {timeout, 0.5}};
    QTest::newRow("timeout null") << Language::Python
                                  << QJsonObject{{code, program}, {timeout, QJsonValue::Null}};
    QTest::newRow("timeout above the maximum")
        << Language::Python << QJsonObject{{code, program}, {timeout, 1e9}};
    QTest::newRow("javascript") << Language::JavaScript
                                << QJsonObject{
                                       {code, QStringLiteral("console.log('CSM-CODE-MARKER')")}};
}

void tst_RunCodeTool::engineCannotBeStarted()
{
    QFETCH(Language, language);
    QFETCH(QJsonObject, arguments);

    const auto runner = makeRunner();
    RunCodeTool tool(*runner, makeConfig(language));
    // The failure is logged as well (and must be, for the server's stderr).
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("could not be started")));
    QObject owner;
    ToolCall* call = tool.start(arguments, CallContext{}, &owner);
    QVERIFY(call);
    QCOMPARE(call->parent(), &owner);
    QSignalSpy finished(call, &ToolCall::finished);
    QSignalSpy cancelled(call, &ToolCall::cancelled);
    QCOMPARE(finished.size(), 0);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.size(), 1);

    const QJsonObject result = resultOf(finished);
    QCOMPARE(result.value(QLatin1String("isError")).toBool(), true);
    const QString text = textOf(result);
    QVERIFY2(text.contains(QLatin1String("could not be started")), qPrintable(text));
    QVERIFY2(text.contains(missingEngine()), qPrintable(text));           // which program it tried
    QVERIFY2(text.contains(QLatin1String("--engine")), qPrintable(text)); // how to fix it
    QVERIFY2(!text.contains(QLatin1String("CSM-CODE-MARKER")), qPrintable(text));
    QVERIFY(!runner->isImageKnownPresent(tool.config().image));

    QTest::qWait(50);
    QCOMPARE(finished.size(), 1);
    QCOMPARE(cancelled.size(), 0);
}

void tst_RunCodeTool::cancelBeforeTheEngineStarts()
{
    const auto runner = makeRunner();
    RunCodeTool tool(*runner, makeConfig(Language::Python));
    QObject owner;
    ToolCall* call =
        tool.start({{QStringLiteral("code"), QStringLiteral("print(1)")}}, CallContext{}, &owner);
    QSignalSpy finished(call, &ToolCall::finished);
    QSignalSpy cancelled(call, &ToolCall::cancelled);
    call->cancel();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.size(), 1, 5000);
    // Cancelled means no result, and no attempt to start the engine afterwards.
    QTest::qWait(200);
    QCOMPARE(finished.size(), 0);
    QCOMPARE(cancelled.size(), 1);
}

void tst_RunCodeTool::cancelOfAnInvalidCall()
{
    const auto runner = makeRunner();
    RunCodeTool tool(*runner, makeConfig(Language::Python));
    QObject owner;
    ToolCall* call = tool.start({}, CallContext{}, &owner);
    QSignalSpy finished(call, &ToolCall::finished);
    QSignalSpy cancelled(call, &ToolCall::cancelled);
    call->cancel();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.size(), 1, 5000);
    QTest::qWait(50);
    // ToolCall's contract: finished() once, *unless* cancelled, then cancelled() instead.
    QCOMPARE(finished.size(), 0);
    QCOMPARE(cancelled.size(), 1);
}

QTEST_GUILESS_MAIN(tst_RunCodeTool)
#include "tst_RunCodeTool.moc"
