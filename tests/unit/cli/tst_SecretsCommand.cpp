#include "cli/SecretsCommand.h"
#include "platform/SecretInput.h"
#include "secrets/FileSecretBackend.h"
#include "secrets/SecretIndex.h"
#include "secrets/SecretStore.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

#include <optional>
#include <sys/stat.h>

using namespace csm;

namespace {

// Scripted stdin: what a pipe holds, or the lines a person types at the hidden prompts.
class ScriptedInput final : public SecretInput
{
public:
    bool interactive = false;
    QByteArray piped;
    QList<QByteArray> typed; // one per prompt; none left is the end of the input
    QStringList prompts;
    int readAllCalls = 0;

    bool isInteractive() const override { return interactive; }
    Expected<QByteArray> readAll() override
    {
        ++readAllCalls;
        return piped;
    }
    Expected<QByteArray> readHidden(const QString& prompt) override
    {
        prompts.append(prompt);
        if (typed.isEmpty())
            return Unexpected(QStringLiteral("no value was typed (end of input)"));
        return typed.takeFirst();
    }

    bool wasRead() const { return readAllCalls > 0 || !prompts.isEmpty(); }
};

struct Outcome
{
    int exitCode = -1;
    QString out;
    QString err;
};

int modeOf(const QString& path)
{
    struct stat status
    {
    };
    return ::stat(QFile::encodeName(path).constData(), &status) == 0
               ? static_cast<int>(status.st_mode & 07777)
               : -1;
}

} // namespace

class tst_SecretsCommand final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void setFromPipe_data();
    void setFromPipe();
    void setInteractively();
    void interactiveConfirmationMustMatch();
    void interactiveEndOfInput();
    void emptyValueRefused_data();
    void emptyValueRefused();
    void valueOnCommandLineRefused_data();
    void valueOnCommandLineRefused();
    void invalidNameRefused_data();
    void invalidNameRefused();
    void listNeverShowsValues();
    void listJson();
    void listEmpty();
    void passThroughOnOff();
    void passThroughUnknownSecret();
    void remove();
    void removeUnknownSecret();
    void usageErrors_data();
    void usageErrors();
    void help_data();
    void help();
    void newSecretIsNotPassedThroughAndReplacingKeepsTheFlag();
    void filesArePrivate();
    void dataDirFromTheEnvironment();

private:
    // Runs `secrets ARGUMENTS --data-dir <test folder> --secrets-file`.
    Outcome run(const QStringList& arguments, ScriptedInput& input);
    Outcome run(const QStringList& arguments);
    // The same without the location options.
    Outcome runAsIs(const QStringList& arguments, ScriptedInput& input,
                    const QProcessEnvironment& environment = {});
    Outcome set(const QString& name, const QByteArray& piped, const QStringList& flags = {});
    // The value of `name`, read back through a store of its own ("" when there is none).
    QByteArray readBack(const QString& name);
    std::optional<SecretInfo> info(const QString& name) const;
    QByteArray fileBytes(const QString& fileName) const;

    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_dataDir;
};

void tst_SecretsCommand::initTestCase()
{
    // Nothing here may reach the user's own data folder.
    QStandardPaths::setTestModeEnabled(true);
}

void tst_SecretsCommand::init()
{
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
    m_dataDir = m_tmp->filePath(QStringLiteral("data"));
}

Outcome tst_SecretsCommand::runAsIs(const QStringList& arguments, ScriptedInput& input,
                                    const QProcessEnvironment& environment)
{
    Outcome outcome;
    QTextStream out(&outcome.out);
    QTextStream err(&outcome.err);
    SecretsCommand command(arguments, environment, out, err, input);
    QSignalSpy finished(&command, &SecretsCommand::finished);
    command.start();
    [&] {
        // Never from inside start(): a caller connects first and then runs the loop.
        QCOMPARE(finished.size(), 0);
        QTRY_COMPARE(finished.size(), 1);
        outcome.exitCode = finished.at(0).at(0).toInt();
    }();
    // Exactly once.
    QTest::qWait(10);
    if (finished.size() != 1)
        outcome.exitCode = -2;
    out.flush();
    err.flush();
    return outcome;
}

Outcome tst_SecretsCommand::run(const QStringList& arguments, ScriptedInput& input)
{
    return runAsIs(arguments + QStringList{QStringLiteral("--data-dir"), m_dataDir,
                                           QStringLiteral("--secrets-file")},
                   input);
}

Outcome tst_SecretsCommand::run(const QStringList& arguments)
{
    ScriptedInput input;
    return run(arguments, input);
}

Outcome tst_SecretsCommand::set(const QString& name, const QByteArray& piped,
                                const QStringList& flags)
{
    ScriptedInput input;
    input.piped = piped;
    return run(QStringList{QStringLiteral("set"), name} + flags, input);
}

QByteArray tst_SecretsCommand::readBack(const QString& name)
{
    SecretStore store(m_dataDir, SecretStore::BackendChoice::File);
    std::optional<QString> opened;
    store.open([&](const QString& error) { opened = error; });
    std::optional<QByteArray> value;
    [&] {
        QTRY_VERIFY(opened.has_value());
        QCOMPARE(*opened, QString());
        store.read(name, [&](const QByteArray& read, const QString&) { value = read; });
        QTRY_VERIFY(value.has_value());
    }();
    return value.value_or(QByteArray());
}

std::optional<SecretInfo> tst_SecretsCommand::info(const QString& name) const
{
    SecretIndex index(m_dataDir);
    if (!index.load())
        return std::nullopt;
    return index.find(name);
}

QByteArray tst_SecretsCommand::fileBytes(const QString& fileName) const
{
    QFile file(QDir(m_dataDir).filePath(fileName));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void tst_SecretsCommand::setFromPipe_data()
{
    QTest::addColumn<QByteArray>("piped");
    QTest::addColumn<QByteArray>("stored");
    QTest::newRow("newline") << QByteArray("abc12345\n") << QByteArray("abc12345");
    QTest::newRow("crlf") << QByteArray("abc12345\r\n") << QByteArray("abc12345");
    QTest::newRow("no line ending") << QByteArray("abc12345") << QByteArray("abc12345");
    QTest::newRow("only one newline stripped")
        << QByteArray("abc12345\n\n") << QByteArray("abc12345\n");
    QTest::newRow("several lines") << QByteArray("-----BEGIN KEY-----\nxyz\n-----END KEY-----\n")
                                   << QByteArray("-----BEGIN KEY-----\nxyz\n-----END KEY-----");
    QTest::newRow("spaces kept") << QByteArray(" padded \n") << QByteArray(" padded ");
}

void tst_SecretsCommand::setFromPipe()
{
    QFETCH(QByteArray, piped);
    QFETCH(QByteArray, stored);
    const Outcome outcome = set(QStringLiteral("FOO"), piped);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    QVERIFY2(outcome.out.startsWith(QStringLiteral("Stored FOO in the file ")),
             qPrintable(outcome.out));
    QVERIFY2(outcome.out.contains(QStringLiteral("(pass-through: off)")), qPrintable(outcome.out));
    QCOMPARE(readBack(QStringLiteral("FOO")), stored);
    // The value is in the values file only, and never printed.
    const QByteArray index = fileBytes(SecretIndex::fileName());
    QVERIFY(index.contains("\"FOO\""));
    QVERIFY(!index.contains(stored));
    QVERIFY(!index.contains(stored.toBase64()));
    QVERIFY(!outcome.out.toUtf8().contains(stored));
    QVERIFY(!outcome.err.toUtf8().contains(stored));
}

void tst_SecretsCommand::setInteractively()
{
    ScriptedInput input;
    input.interactive = true;
    input.typed = {"typed-secret-1", "typed-secret-1"};
    const Outcome outcome = run({QStringLiteral("set"), QStringLiteral("FOO")}, input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    QCOMPARE(input.readAllCalls, 0);
    QCOMPARE(input.prompts.size(), 2);
    QCOMPARE(input.prompts.at(0), QStringLiteral("Value for FOO: "));
    QVERIFY(input.prompts.at(1).contains(QStringLiteral("confirm")));
    QCOMPARE(readBack(QStringLiteral("FOO")), QByteArray("typed-secret-1"));
    QVERIFY(!outcome.out.contains(QStringLiteral("typed-secret-1")));
}

void tst_SecretsCommand::interactiveConfirmationMustMatch()
{
    ScriptedInput input;
    input.interactive = true;
    input.typed = {"typed-secret-1", "typed-secret-2"};
    const Outcome outcome = run({QStringLiteral("set"), QStringLiteral("FOO")}, input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Failed));
    QVERIFY2(outcome.err.startsWith(QStringLiteral("code-sandbox-mcp secrets set: ")),
             qPrintable(outcome.err));
    QVERIFY2(outcome.err.contains(QStringLiteral("differ")), qPrintable(outcome.err));
    QVERIFY(!outcome.err.contains(QStringLiteral("typed-secret")));
    QVERIFY(outcome.out.isEmpty());
    QVERIFY(!info(QStringLiteral("FOO")));
}

void tst_SecretsCommand::interactiveEndOfInput()
{
    ScriptedInput input;
    input.interactive = true;
    const Outcome outcome = run({QStringLiteral("set"), QStringLiteral("FOO")}, input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Failed));
    QVERIFY2(outcome.err.contains(QStringLiteral("end of input")), qPrintable(outcome.err));
    QCOMPARE(input.prompts.size(), 1);
    QVERIFY(!info(QStringLiteral("FOO")));
}

void tst_SecretsCommand::emptyValueRefused_data()
{
    QTest::addColumn<bool>("interactive");
    QTest::addColumn<QByteArray>("piped");
    QTest::newRow("empty pipe") << false << QByteArray();
    QTest::newRow("only a newline") << false << QByteArray("\n");
    QTest::newRow("only a crlf") << false << QByteArray("\r\n");
    QTest::newRow("empty line typed") << true << QByteArray();
}

void tst_SecretsCommand::emptyValueRefused()
{
    QFETCH(bool, interactive);
    QFETCH(QByteArray, piped);
    ScriptedInput input;
    input.interactive = interactive;
    input.piped = piped;
    input.typed = {QByteArray(), QByteArray()};
    const Outcome outcome = run({QStringLiteral("set"), QStringLiteral("FOO")}, input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Failed));
    QVERIFY2(
        outcome.err.contains(interactive ? QStringLiteral("empty") : QStringLiteral("no value")),
        qPrintable(outcome.err));
    // An empty first answer is refused before any confirmation is asked.
    QCOMPARE(input.prompts.size(), interactive ? 1 : 0);
    QVERIFY(!info(QStringLiteral("FOO")));
}

void tst_SecretsCommand::valueOnCommandLineRefused_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("second argument")
        << QStringList{QStringLiteral("set"), QStringLiteral("FOO"), QStringLiteral("hunter2-xyz")};
    QTest::newRow("NAME=VALUE") << QStringList{QStringLiteral("set"),
                                               QStringLiteral("FOO=hunter2-xyz")};
    QTest::newRow("after the flags")
        << QStringList{QStringLiteral("set"), QStringLiteral("--pass-through"),
                       QStringLiteral("FOO"), QStringLiteral("hunter2-xyz")};
}

void tst_SecretsCommand::valueOnCommandLineRefused()
{
    QFETCH(QStringList, arguments);
    ScriptedInput input;
    input.piped = "piped-value";
    const Outcome outcome = run(arguments, input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Usage));
    QVERIFY2(outcome.err.contains(QStringLiteral("never taken from the command line")),
             qPrintable(outcome.err));
    // The refusal does not repeat what may be the value.
    QVERIFY2(!outcome.err.contains(QStringLiteral("hunter2")), qPrintable(outcome.err));
    QVERIFY(!input.wasRead());
    QVERIFY(!info(QStringLiteral("FOO")));
    QVERIFY(!QFile::exists(m_dataDir));
}

void tst_SecretsCommand::invalidNameRefused_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("leading digit") << QStringLiteral("1FOO");
    QTest::newRow("dash") << QStringLiteral("MY-KEY");
    QTest::newRow("space") << QStringLiteral("MY KEY");
    QTest::newRow("too long") << QString(SecretInfo::kMaxNameLength + 1, u'A');
}

void tst_SecretsCommand::invalidNameRefused()
{
    QFETCH(QString, name);
    ScriptedInput input;
    input.piped = "value";
    const Outcome outcome = run({QStringLiteral("set"), name}, input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Usage));
    QVERIFY2(outcome.err.contains(QStringLiteral("name")), qPrintable(outcome.err));
    QVERIFY(!input.wasRead()); // nobody types a value for a name that cannot be stored
    QVERIFY(!QFile::exists(m_dataDir));
}

void tst_SecretsCommand::listNeverShowsValues()
{
    QCOMPARE(set(QStringLiteral("ALPHA"), "alpha-value-1\n").exitCode, 0);
    QCOMPARE(set(QStringLiteral("BRAVO"), "bravo-value-2\n", {QStringLiteral("--pass-through")})
                 .exitCode,
             0);
    const Outcome outcome = run({QStringLiteral("list")});
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    const QStringList lines = outcome.out.split(u'\n');
    QVERIFY2(lines.size() >= 5, qPrintable(outcome.out));
    QVERIFY(lines.at(0).startsWith(QStringLiteral("NAME")));
    QVERIFY(lines.at(0).contains(QStringLiteral("PASS-THROUGH")));
    QVERIFY(lines.at(1).startsWith(QStringLiteral("ALPHA ")));
    QVERIFY(lines.at(1).contains(QStringLiteral(" off ")));
    QVERIFY(lines.at(2).startsWith(QStringLiteral("BRAVO ")));
    QVERIFY(lines.at(2).contains(QStringLiteral(" on ")));
    QVERIFY2(outcome.out.contains(QStringLiteral("Values are kept in a private file")),
             qPrintable(outcome.out));
    QVERIFY(!outcome.out.contains(QStringLiteral("value-1")));
    QVERIFY(!outcome.out.contains(QStringLiteral("value-2")));
    QVERIFY(outcome.err.isEmpty());
}

void tst_SecretsCommand::listJson()
{
    QCOMPARE(set(QStringLiteral("ALPHA"), "alpha-value-1\n").exitCode, 0);
    QCOMPARE(set(QStringLiteral("BRAVO"), "bravo-value-2\n", {QStringLiteral("--pass-through")})
                 .exitCode,
             0);
    const Outcome outcome = run({QStringLiteral("list"), QStringLiteral("--json")});
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(outcome.out.toUtf8(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonObject root = document.object();
    QCOMPARE(root.value(QStringLiteral("backend")).toString(), QStringLiteral("file"));
    QVERIFY(!root.value(QStringLiteral("backend_reason")).toString().isEmpty());
    QVERIFY(!root.contains(QStringLiteral("backend_error")));
    const QJsonArray secrets = root.value(QStringLiteral("secrets")).toArray();
    QCOMPARE(secrets.size(), 2);
    const QJsonObject alpha = secrets.at(0).toObject();
    QCOMPARE(alpha.value(QStringLiteral("name")).toString(), QStringLiteral("ALPHA"));
    QCOMPARE(alpha.value(QStringLiteral("pass_through")).toBool(true), false);
    QVERIFY(QDateTime::fromString(alpha.value(QStringLiteral("updated_at")).toString(), Qt::ISODate)
                .isValid());
    const QJsonObject bravo = secrets.at(1).toObject();
    QCOMPARE(bravo.value(QStringLiteral("name")).toString(), QStringLiteral("BRAVO"));
    QCOMPARE(bravo.value(QStringLiteral("pass_through")).toBool(false), true);
    QCOMPARE(alpha.keys(), (QStringList{QStringLiteral("name"), QStringLiteral("pass_through"),
                                        QStringLiteral("updated_at")}));
    QVERIFY(!outcome.out.contains(QStringLiteral("value-1")));
    QVERIFY(!outcome.out.contains(QStringLiteral("value-2")));
}

void tst_SecretsCommand::listEmpty()
{
    const Outcome outcome = run({QStringLiteral("list")});
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    QVERIFY2(outcome.out.startsWith(QStringLiteral("No secrets stored.\n")),
             qPrintable(outcome.out));
    QVERIFY2(outcome.out.contains(QStringLiteral("New values would be kept in a private file")),
             qPrintable(outcome.out));
}

void tst_SecretsCommand::passThroughOnOff()
{
    QCOMPARE(set(QStringLiteral("FOO"), "value\n").exitCode, 0);
    // Only the index changes: no --secrets-file needed, the keychain is never asked.
    ScriptedInput input;
    const QStringList location{QStringLiteral("--data-dir"), m_dataDir};
    Outcome outcome = runAsIs(
        QStringList{QStringLiteral("pass-through"), QStringLiteral("FOO"), QStringLiteral("on")} +
            location,
        input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    QVERIFY2(outcome.out.contains(QStringLiteral("FOO is on")), qPrintable(outcome.out));
    QVERIFY(info(QStringLiteral("FOO"))->passThrough);

    outcome = runAsIs(
        QStringList{QStringLiteral("pass-through"), QStringLiteral("FOO"), QStringLiteral("OFF")} +
            location,
        input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    QVERIFY(!info(QStringLiteral("FOO"))->passThrough);
    QCOMPARE(readBack(QStringLiteral("FOO")), QByteArray("value"));

    outcome = run({QStringLiteral("pass-through"), QStringLiteral("FOO"), QStringLiteral("yes")});
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Usage));
    QVERIFY2(outcome.err.contains(QStringLiteral("on or off")), qPrintable(outcome.err));
}

void tst_SecretsCommand::passThroughUnknownSecret()
{
    const Outcome outcome =
        run({QStringLiteral("pass-through"), QStringLiteral("NOPE"), QStringLiteral("on")});
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Failed));
    QCOMPARE(
        outcome.err,
        QStringLiteral("code-sandbox-mcp secrets pass-through: there is no secret named NOPE\n"));
}

void tst_SecretsCommand::remove()
{
    QCOMPARE(set(QStringLiteral("FOO"), "foo-value\n").exitCode, 0);
    QCOMPARE(set(QStringLiteral("BAR"), "bar-value\n").exitCode, 0);
    const Outcome outcome = run({QStringLiteral("rm"), QStringLiteral("FOO")});
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    QCOMPARE(outcome.out, QStringLiteral("Removed FOO.\n"));
    QVERIFY(!info(QStringLiteral("FOO")));
    QVERIFY(info(QStringLiteral("BAR")));
    QVERIFY(!fileBytes(FileSecretBackend::fileName()).contains(QByteArray("foo-value").toBase64()));
    QCOMPARE(readBack(QStringLiteral("BAR")), QByteArray("bar-value"));
}

void tst_SecretsCommand::removeUnknownSecret()
{
    QCOMPARE(set(QStringLiteral("FOO"), "foo-value\n").exitCode, 0);
    const Outcome outcome = run({QStringLiteral("rm"), QStringLiteral("NOPE")});
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Failed));
    QCOMPARE(outcome.err,
             QStringLiteral("code-sandbox-mcp secrets rm: there is no secret named NOPE\n"));
    QVERIFY(info(QStringLiteral("FOO")));
}

void tst_SecretsCommand::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("nothing") << QStringList{} << QStringLiteral("Usage: code-sandbox-mcp secrets");
    QTest::newRow("unknown command")
        << QStringList{QStringLiteral("show")} << QStringLiteral("unknown command \"show\"");
    QTest::newRow("set without a name")
        << QStringList{QStringLiteral("set")} << QStringLiteral("which secret?");
    QTest::newRow("both pass-through flags")
        << QStringList{QStringLiteral("set"), QStringLiteral("FOO"),
                       QStringLiteral("--pass-through"), QStringLiteral("--no-pass-through")}
        << QStringLiteral("exclude each other");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("list"), QStringLiteral("--all")}
                                    << QStringLiteral("Unknown option");
    QTest::newRow("list with an argument")
        << QStringList{QStringLiteral("list"), QStringLiteral("FOO")}
        << QStringLiteral("unexpected argument \"FOO\"");
    QTest::newRow("rm without a name")
        << QStringList{QStringLiteral("rm")} << QStringLiteral("which secret?");
    QTest::newRow("rm with two names")
        << QStringList{QStringLiteral("rm"), QStringLiteral("A"), QStringLiteral("B")}
        << QStringLiteral("unexpected argument \"B\"");
    QTest::newRow("pass-through without on or off")
        << QStringList{QStringLiteral("pass-through"), QStringLiteral("FOO")}
        << QStringLiteral("on or off?");
    QTest::newRow("--data-dir without a folder")
        << QStringList{QStringLiteral("list"), QStringLiteral("--data-dir")}
        << QStringLiteral("Missing value");
}

void tst_SecretsCommand::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    ScriptedInput input;
    const Outcome outcome = runAsIs(arguments, input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Usage));
    QVERIFY2(outcome.err.contains(message), qPrintable(outcome.err));
    QVERIFY(outcome.out.isEmpty());
    QVERIFY(!input.wasRead());
}

void tst_SecretsCommand::help_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::newRow("--help") << QStringList{QStringLiteral("--help")}
                            << QStringLiteral("pass-through NAME on|off");
    QTest::newRow("help") << QStringList{QStringLiteral("help")}
                          << QStringLiteral("Usage: code-sandbox-mcp secrets <command>");
    QTest::newRow("set --help") << QStringList{QStringLiteral("set"), QStringLiteral("--help")}
                                << QStringLiteral("--no-pass-through");
    QTest::newRow("list -h") << QStringList{QStringLiteral("list"), QStringLiteral("-h")}
                             << QStringLiteral("--json");
    QTest::newRow("rm --help") << QStringList{QStringLiteral("rm"), QStringLiteral("--help")}
                               << QStringLiteral("--secrets-file");
}

void tst_SecretsCommand::help()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    ScriptedInput input;
    const Outcome outcome = runAsIs(arguments, input);
    QCOMPARE(outcome.exitCode, int(SecretsCommand::Ok));
    QVERIFY2(outcome.out.contains(expected), qPrintable(outcome.out));
    QVERIFY(outcome.err.isEmpty());
}

void tst_SecretsCommand::newSecretIsNotPassedThroughAndReplacingKeepsTheFlag()
{
    Outcome outcome = set(QStringLiteral("FOO"), "one\n");
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY(!info(QStringLiteral("FOO"))->passThrough);
    // The hint names the command, with the folder it was given.
    QVERIFY2(outcome.err.contains(
                 QStringLiteral("code-sandbox-mcp secrets pass-through FOO on --data-dir ")),
             qPrintable(outcome.err));

    QCOMPARE(
        run({QStringLiteral("pass-through"), QStringLiteral("FOO"), QStringLiteral("on")}).exitCode,
        0);
    outcome = set(QStringLiteral("FOO"), "two\n");
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY2(outcome.out.startsWith(QStringLiteral("Replaced FOO in ")), qPrintable(outcome.out));
    QVERIFY2(outcome.out.contains(QStringLiteral("(pass-through: on)")), qPrintable(outcome.out));
    QVERIFY2(outcome.err.isEmpty(), qPrintable(outcome.err));
    QVERIFY(info(QStringLiteral("FOO"))->passThrough);
    QCOMPARE(readBack(QStringLiteral("FOO")), QByteArray("two"));

    QCOMPARE(set(QStringLiteral("FOO"), "three\n", {QStringLiteral("--no-pass-through")}).exitCode,
             0);
    QVERIFY(!info(QStringLiteral("FOO"))->passThrough);
    QCOMPARE(set(QStringLiteral("FOO"), "four\n").exitCode, 0);
    QVERIFY(!info(QStringLiteral("FOO"))->passThrough);
    QCOMPARE(set(QStringLiteral("FOO"), "five\n", {QStringLiteral("--pass-through")}).exitCode, 0);
    QVERIFY(info(QStringLiteral("FOO"))->passThrough);

    // A new secret asked to be passed through needs no hint.
    outcome = set(QStringLiteral("BAR"), "bar\n", {QStringLiteral("--pass-through")});
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY(info(QStringLiteral("BAR"))->passThrough);
    QVERIFY2(outcome.err.isEmpty(), qPrintable(outcome.err));
}

void tst_SecretsCommand::filesArePrivate()
{
    QCOMPARE(set(QStringLiteral("FOO"), "value\n").exitCode, 0);
    QCOMPARE(modeOf(QDir(m_dataDir).filePath(FileSecretBackend::fileName())), 0600);
    QCOMPARE(modeOf(QDir(m_dataDir).filePath(SecretIndex::fileName())), 0600);
    QCOMPARE(modeOf(m_dataDir), 0700);
}

void tst_SecretsCommand::dataDirFromTheEnvironment()
{
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), m_dataDir);
    ScriptedInput input;
    input.piped = "from-env\n";
    Outcome outcome =
        runAsIs({QStringLiteral("set"), QStringLiteral("FOO"), QStringLiteral("--secrets-file")},
                input, environment);
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(readBack(QStringLiteral("FOO")), QByteArray("from-env"));
    // The hint needs no --data-dir: the variable says it.
    QVERIFY2(outcome.err.contains(QStringLiteral("pass-through FOO on\n")),
             qPrintable(outcome.err));

    // --data-dir wins over the variable.
    const QString other = m_tmp->filePath(QStringLiteral("other"));
    outcome = runAsIs({QStringLiteral("list"), QStringLiteral("--secrets-file"),
                       QStringLiteral("--data-dir"), other},
                      input, environment);
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY2(outcome.out.startsWith(QStringLiteral("No secrets stored.")), qPrintable(outcome.out));
}

QTEST_GUILESS_MAIN(tst_SecretsCommand)
#include "tst_SecretsCommand.moc"
