// The Python bootstrap: its command lines, and (with this machine's python3, no container) that a
// program it runs behaves exactly as under the plain `python3 -u -` it replaced: output, exit
// status, tracebacks that show the program's lines and none of the bootstrap's.
#include "runtime/Language.h"
#include "runtime/PythonBootstrap.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using csm::Language;
using csm::LanguageTraits;
using csm::PythonBootstrap;

namespace {

struct Outcome
{
    QByteArray out;
    QByteArray err;
    QProcess::ExitStatus status = QProcess::NormalExit;
    int code = -1;
};

Outcome run(const QStringList& command, const QByteArray& program)
{
    QProcess process;
    process.setProgram(QStandardPaths::findExecutable(command.constFirst()));
    process.setArguments(command.mid(1));
    process.start();
    process.write(program);
    process.closeWriteChannel();
    if (!process.waitForFinished(30'000))
        qFatal("python3 did not finish");
    return {process.readAllStandardOutput(), process.readAllStandardError(), process.exitStatus(),
            process.exitCode()};
}

} // namespace

class tst_PythonBootstrap final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void commandLines();
    void behavesAsPlainStdin_data();
    void behavesAsPlainStdin();
    void unclosedFilesAreWritten();
    void tracebackHasNoBootstrapFrame();
};

void tst_PythonBootstrap::commandLines()
{
    const QStringList cold = LanguageTraits::interpreterCommand(Language::Python);
    QCOMPARE(cold, (QStringList{QStringLiteral("python3"), QStringLiteral("-u"),
                                QStringLiteral("-c"), PythonBootstrap::source()}));
    QCOMPARE(cold, PythonBootstrap::command(PythonBootstrap::Imports::OnDemand));
    // Only the pooled interpreter, which waits for its program anyway, preloads.
    QCOMPARE(LanguageTraits::pooledInterpreterCommand(Language::Python),
             cold + QStringList{QStringLiteral("preload")});
    QVERIFY(PythonBootstrap::source().contains(QLatin1String("/sandbox/out")));
    QCOMPARE(LanguageTraits::interpreterCommand(Language::JavaScript),
             (QStringList{QStringLiteral("node"), QStringLiteral("-")}));
    QCOMPARE(LanguageTraits::pooledInterpreterCommand(Language::JavaScript),
             LanguageTraits::interpreterCommand(Language::JavaScript));
}

void tst_PythonBootstrap::behavesAsPlainStdin_data()
{
    QTest::addColumn<QByteArray>("program");
    QTest::newRow("globals, argv, name")
        << QByteArray("import sys\n"
                      "print(sys.argv, __name__, __file__, __doc__, __spec__, __package__)\n"
                      "print(sorted(globals()), sys.modules['__main__'].__dict__ is globals())\n");
    QTest::newRow("stdin is at its end")
        << QByteArray("import sys\nprint(repr(sys.stdin.read()))\n");
    QTest::newRow("output order, unbuffered")
        << QByteArray("import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\n");
    QTest::newRow("exception") << QByteArray("def f(x):\n    return x / 0\n\nf(1)\n");
    QTest::newRow("chained exception")
        << QByteArray("try:\n    {}['k']\nexcept KeyError:\n    raise ValueError('v')\n");
    QTest::newRow("syntax error") << QByteArray("print('never')\nx = (\n");
    QTest::newRow("sys.exit(3)") << QByteArray("import sys\nprint('x')\nsys.exit(3)\n");
    QTest::newRow("sys.exit(text)") << QByteArray("import sys\nsys.exit('bye')\n");
    QTest::newRow("KeyboardInterrupt") << QByteArray("raise KeyboardInterrupt\n");
    QTest::newRow("own excepthook")
        << QByteArray("import sys\nsys.excepthook = lambda *a: print('hooked', a[0].__name__)\n"
                      "1 / 0\n");
    QTest::newRow("atexit") << QByteArray("import atexit\natexit.register(print, 'bye')\n");
    QTest::newRow("finalizers after atexit")
        << QByteArray("import atexit\nclass A:\n    def __del__(self):\n        print('del')\n"
                      "a = A()\natexit.register(print, 'atexit')\n");
    QTest::newRow("threads are waited for") << QByteArray(
        "import threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()\n"
        "print('main')\n");
    QTest::newRow("sys.exit(True)") << QByteArray("import sys\nsys.exit(True)\n");
    QTest::newRow("sys.exit(None)") << QByteArray("import sys\nprint('x', end='')\nsys.exit()\n");
    QTest::newRow("sys.exit(256)") << QByteArray("import sys\nsys.exit(256)\n");
    QTest::newRow("UTF-8") << QByteArray("# -*- coding: utf-8 -*-\nprint('\xc3\xa9')\n");
    QTest::newRow("no matplotlib needed") << QByteArray("import json\nprint(json.dumps([1]))\n");
}

void tst_PythonBootstrap::behavesAsPlainStdin()
{
    if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
        QSKIP("no python3 on this machine");
    QFETCH(QByteArray, program);
    const Outcome plain =
        run({QStringLiteral("python3"), QStringLiteral("-u"), QStringLiteral("-")}, program);
    const Outcome cold = run(PythonBootstrap::command(PythonBootstrap::Imports::OnDemand), program);
    const Outcome pooled =
        run(PythonBootstrap::command(PythonBootstrap::Imports::Preload), program);
    for (const Outcome& bootstrapped : {cold, pooled}) {
        QCOMPARE(bootstrapped.out, plain.out);
        QCOMPARE(bootstrapped.err, plain.err);
        QCOMPARE(bootstrapped.status, plain.status);
        QCOMPARE(bootstrapped.code, plain.code);
    }
}

void tst_PythonBootstrap::unclosedFilesAreWritten()
{
    if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
        QSKIP("no python3 on this machine");
    // The bootstrap ends the interpreter itself, after the program's objects are gone.
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("left-open"));
    const Outcome outcome = run(PythonBootstrap::command(PythonBootstrap::Imports::OnDemand),
                                "f = open('" + path.toUtf8() + "', 'w')\nf.write('kept')\n");
    QCOMPARE(outcome.code, 0);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("kept"));
}

void tst_PythonBootstrap::tracebackHasNoBootstrapFrame()
{
    if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
        QSKIP("no python3 on this machine");
    const Outcome outcome = run(PythonBootstrap::command(PythonBootstrap::Imports::OnDemand),
                                "print('ok')\ndef f():\n    raise RuntimeError('boom')\nf()\n");
    QCOMPARE(outcome.out, QByteArray("ok\n"));
    QCOMPARE(outcome.err, QByteArray("Traceback (most recent call last):\n"
                                     "  File \"<stdin>\", line 4, in <module>\n"
                                     "  File \"<stdin>\", line 3, in f\n"
                                     "RuntimeError: boom\n"));
    QCOMPARE(outcome.code, 1);
}

QTEST_GUILESS_MAIN(tst_PythonBootstrap)
#include "tst_PythonBootstrap.moc"
