// SandboxSecrets (the snapshot every container of a resolution shares) and LogRedaction (the
// message handler that keeps secret values out of every log line).
#include "sandbox/SandboxSecrets.h"
#include "secrets/LogRedaction.h"

#include <QLoggingCategory>
#include <QTest>

using namespace csm;

namespace {

QStringList g_logged;

void capturingHandler(QtMsgType, const QMessageLogContext&, const QString& message)
{
    g_logged << message;
}

} // namespace

class tst_SandboxSecrets final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sortedAndUniqueByName();
    void noneIsEmptyAndShared();
    void sameAsComparesNamesAndValues();
    void redactedResultHidesEveryOutput();
    void redactedResultWithoutSecretsIsUnchanged();
    void aValueCutByTheCapIsDropped();
    void logLinesAreRedacted();
};

void tst_SandboxSecrets::sortedAndUniqueByName()
{
    const auto secrets = SandboxSecrets::make({{QStringLiteral("ZETA"), "zeta-value"},
                                               {QStringLiteral("ALPHA"), "alpha-value"},
                                               {QStringLiteral("ZETA"), "second-zeta"}});
    QCOMPARE(secrets->names(), QStringList({QStringLiteral("ALPHA"), QStringLiteral("ZETA")}));
    // The first value of a name given twice is kept (the server's own environment comes first).
    QCOMPARE(secrets->variables().at(1).second, QByteArray("zeta-value"));
    QCOMPARE(secrets->redactor().redact(QByteArray("second-zeta")), QByteArray("second-zeta"));
}

void tst_SandboxSecrets::noneIsEmptyAndShared()
{
    QVERIFY(SandboxSecrets::none()->variables().isEmpty());
    QVERIFY(SandboxSecrets::none()->redactor().isEmpty());
    QCOMPARE(SandboxSecrets::none().get(), SandboxSecrets::none().get());
}

void tst_SandboxSecrets::sameAsComparesNamesAndValues()
{
    const auto a = SandboxSecrets::make({{QStringLiteral("TOKEN"), "value-one"}});
    QVERIFY(a->sameAs(*SandboxSecrets::make({{QStringLiteral("TOKEN"), "value-one"}})));
    QVERIFY(!a->sameAs(*SandboxSecrets::make({{QStringLiteral("TOKEN"), "value-two"}})));
    QVERIFY(!a->sameAs(*SandboxSecrets::make({{QStringLiteral("OTHER"), "value-one"}})));
    QVERIFY(!a->sameAs(*SandboxSecrets::none()));
}

void tst_SandboxSecrets::redactedResultHidesEveryOutput()
{
    const auto secrets = SandboxSecrets::make({{QStringLiteral("API_TOKEN"), "tok-5f2c9e"}});
    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::EngineError;
    result.exitCode = 3;
    result.durationMs = 42;
    result.stdoutBytes = "key=tok-5f2c9e\n";
    result.stderrBytes = "tok-5f2c9etok-5f2c9e";
    result.stdoutTruncated = true;
    result.engineError = QStringLiteral("engine said tok-5f2c9e");
    // A program can send a secret as a host name (the proxy records it as written).
    EgressConnection connection;
    connection.host = QStringLiteral("tok-5f2c9e.attacker.example");
    connection.reason = QStringLiteral("tok-5f2c9e.attacker.example:443: a public host");
    result.connections = {connection};

    const ExecutionResult safe = secrets->redacted(result);
    QCOMPARE(safe.stdoutBytes, QByteArray("key=[secret:API_TOKEN]\n"));
    QCOMPARE(safe.stderrBytes, QByteArray("[secret:API_TOKEN][secret:API_TOKEN]"));
    QCOMPARE(safe.engineError, QStringLiteral("engine said [secret:API_TOKEN]"));
    QCOMPARE(safe.connections.at(0).host, QStringLiteral("[secret:API_TOKEN].attacker.example"));
    QCOMPARE(safe.connections.at(0).reason,
             QStringLiteral("[secret:API_TOKEN].attacker.example:443: a public host"));
    // Everything else as it was.
    QCOMPARE(safe.outcome, result.outcome);
    QCOMPARE(safe.exitCode, 3);
    QCOMPARE(safe.durationMs, 42);
    QVERIFY(safe.stdoutTruncated);
    QVERIFY(!safe.stderrTruncated);
}

void tst_SandboxSecrets::aValueCutByTheCapIsDropped()
{
    // The cap cut the output inside the value: its first bytes would come back unredacted.
    const auto secrets = SandboxSecrets::make({{QStringLiteral("API_TOKEN"), "tok-5f2c9e81d07a"}});
    ExecutionResult result;
    result.stdoutBytes = QByteArray(20, 'x') + "tok-5f2c9e";
    result.stdoutTruncated = true;
    result.stderrBytes = "done: tok-5f2c";
    QCOMPARE(secrets->redacted(result).stdoutBytes, QByteArray(20, 'x'));
    // Not cut: the program printed just that, which is not the value.
    QCOMPARE(secrets->redacted(result).stderrBytes, QByteArray("done: tok-5f2c"));
}

void tst_SandboxSecrets::redactedResultWithoutSecretsIsUnchanged()
{
    ExecutionResult result;
    result.stdoutBytes = "anything";
    QCOMPARE(SandboxSecrets::none()->redacted(result).stdoutBytes, QByteArray("anything"));
}

void tst_SandboxSecrets::logLinesAreRedacted()
{
    // What was installed before (here: a capturing handler) still gets every message, redacted.
    const QtMessageHandler original = qInstallMessageHandler(capturingHandler);
    LogRedaction::install();
    LogRedaction::install(); // idempotent: one redacting handler, not two
    QLoggingCategory category("csm.test.redaction");

    qCWarning(category) << "before any secret: tok-77aa01";
    LogRedaction::setRedactor(SecretRedactor({{QStringLiteral("API_TOKEN"), "tok-77aa01"}}));
    qCWarning(category) << "the engine said"
                        << "tok-77aa01"
                        << "twice: tok-77aa01";
    qWarning("a plain qWarning with tok-77aa01");
    LogRedaction::setRedactor(SecretRedactor());
    qCWarning(category) << "after: tok-77aa01";
    qInstallMessageHandler(original);

    QCOMPARE(g_logged.size(), 4);
    QCOMPARE(g_logged.at(0), QStringLiteral("before any secret: tok-77aa01"));
    QCOMPARE(g_logged.at(1),
             QStringLiteral("the engine said [secret:API_TOKEN] twice: [secret:API_TOKEN]"));
    QCOMPARE(g_logged.at(2), QStringLiteral("a plain qWarning with [secret:API_TOKEN]"));
    QCOMPARE(g_logged.at(3), QStringLiteral("after: tok-77aa01"));
}

QTEST_GUILESS_MAIN(tst_SandboxSecrets)
#include "tst_SandboxSecrets.moc"
