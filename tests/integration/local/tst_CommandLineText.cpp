// What code-sandbox-mcp's commands print: every help text, usage error and answer that needs no
// container engine, from the real program in an empty home folder, compared with
// data/command-line-text.txt. Any change to that text shows up here as a diff; when it is meant,
// run with CSM_UPDATE_COMMAND_LINE_TEXT=1 to rewrite the file, and review the diff.
#include "ServerCli.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

namespace {

// Each line: the arguments, separated by spaces ("''" is an empty argument).
const char* const kCases[] = {
    // code-sandbox-mcp
    "install-client --help",
    "uninstall-client --help",
    "install-client",
    "install-client nope",
    "install-client claude extra",
    "install-client claude --bogus",
    "install-client claude --url http://x/mcp",
    "install-client claude --token-file f",
    "install-client claude --name ''",
    "install-client claude --http --token t --token-file f",
    "install-client claude --http --token-file /nonexistent/token",
    "uninstall-client claude --http",
    "uninstall-client claude --dry-run",
    "install-client cursor --project /nonexistent",
    "install-client claude-code --project /nonexistent",
    "install-client --list claude",
    "install-client --list --dry-run",
    "doctor --help",
    "doctor -h",
    "doctor extra",
    "doctor --bogus",
    // history
    "history",
    "history help",
    "history --help",
    "history -h",
    "history frobnicate",
    "history list --help",
    "history show --help",
    "history export --help",
    "history prune --help",
    "history list --bogus",
    "history list extra",
    "history list --limit x",
    "history list --limit -1",
    "history list",
    "history list --json",
    "history list --limit 0",
    "history show",
    "history show abc",
    "history show 0",
    "history show 5",
    "history show 5 6",
    "history show 5 --json",
    "history export",
    "history export --format xml",
    "history export --format json",
    "history export --format csv",
    "history export --format csv a b",
    "history prune",
    "history prune extra",
    "history prune --history-max-runs abc",
    "history prune --history-max-days 2",
    "history --data-dir",
    // secrets
    "secrets",
    "secrets help",
    "secrets --help",
    "secrets bogus",
    "secrets set --help",
    "secrets list --help",
    "secrets rm --help",
    "secrets pass-through --help",
    "secrets set",
    "secrets set A B",
    "secrets set A=B",
    "secrets set 1A",
    "secrets set A --pass-through --no-pass-through",
    "secrets set A --json",
    "secrets list extra",
    "secrets list --bogus",
    "secrets list --secrets-file",
    "secrets list --json --secrets-file",
    "secrets rm",
    "secrets rm A B",
    "secrets rm NOPE --secrets-file",
    "secrets pass-through",
    "secrets pass-through A",
    "secrets pass-through A maybe",
    "secrets pass-through A on off",
    "secrets pass-through NOPE on --secrets-file",
};

QStringList argumentsOf(const QString& line)
{
    QStringList arguments = line.split(u' ', Qt::SkipEmptyParts);
    for (QString& argument : arguments) {
        if (argument == QLatin1String("''"))
            argument.clear();
    }
    return arguments;
}

// One case as the file keeps it, with the temporary folder's path replaced by <tmp>.
QByteArray transcript(const QString& line, const QTemporaryDir& dir)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString& name : environment.keys()) {
        if (name.startsWith(QLatin1String("XDG_")) || name.startsWith(QLatin1String("CODE_")) ||
            name.startsWith(QLatin1String("CONTAINER_")))
            environment.remove(name);
    }
    environment.insert(QStringLiteral("HOME"), dir.path());
    const servercli::Result result = servercli::run(argumentsOf(line), {}, environment);
    QByteArray text = "=== " + line.toUtf8() + "\nexit: " + QByteArray::number(result.exitCode) +
                      "\n--- stdout\n" + result.out + "--- stderr\n" + result.err;
    if (!text.endsWith('\n'))
        text += "\n(no line ending)\n";
    text.replace(dir.path().toUtf8(), "<tmp>");
    return text;
}

} // namespace

class tst_CommandLineText final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameAsRecorded();
};

void tst_CommandLineText::sameAsRecorded()
{
    QByteArray actual;
    for (const char* line : kCases) {
        const QTemporaryDir dir;
        QVERIFY(dir.isValid());
        actual += transcript(QString::fromUtf8(line), dir);
    }
    const QString path = QStringLiteral(CSM_COMMAND_LINE_TEXT);
    QFile file(path);
    if (qEnvironmentVariableIsSet("CSM_UPDATE_COMMAND_LINE_TEXT")) {
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(actual);
        return;
    }
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
    const QByteArray expected = file.readAll();
    if (actual != expected) {
        // Beside the test program, never in the source tree.
        QFile written(QDir(QCoreApplication::applicationDirPath())
                          .filePath(QStringLiteral("command-line-text.actual")));
        QVERIFY(written.open(QIODevice::WriteOnly | QIODevice::Truncate));
        written.write(actual);
        QFAIL(qPrintable(QStringLiteral("the commands' text differs from %1: see diff %1 %2")
                             .arg(path, written.fileName())));
    }
}

QTEST_GUILESS_MAIN(tst_CommandLineText)
#include "tst_CommandLineText.moc"
