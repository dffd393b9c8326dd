// Charts without ceremony, against a real engine (CSM_TEST_ENGINE), cold and pooled: plt.show()
// saves the figure as /sandbox/out/figure-N.png, figures still open at the end are saved too,
// and the Python bootstrap that does it leaves tracebacks and exit codes as `python3 -` had them.
#include "CallResult.h"
#include "McpStdioClient.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QTest>

#include <memory>

using namespace callresult;

class TestCharts final : public QObject
{
    Q_OBJECT

private:
    // A server with --pool `pool`; with a pool, once its Python container is ready.
    std::unique_ptr<McpStdioClient> startServer(int pool)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
        auto client = std::make_unique<McpStdioClient>();
        if (!client->start(
                {QStringLiteral("--verbose"), QStringLiteral("--pool"), QString::number(pool)},
                env))
            return nullptr;
        if (client->initialize().isEmpty())
            return nullptr;
        QDeadlineTimer deadline(60'000);
        // Two per slot: Python and JavaScript.
        while (pool > 0 && !deadline.hasExpired() &&
               client->standardError().count(QStringLiteral(" ready in all")) < 2 * pool)
            QTest::qWait(100);
        return client;
    }

    QJsonObject runPython(int pool, const QString& program)
    {
        auto server = startServer(pool);
        if (!server)
            return {};
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), code(program));
        // A pooled call really used the pooled interpreter, whose bootstrap preloaded.
        if (pool > 0 && !server->standardError().contains(QStringLiteral("(warm)")))
            return {};
        return result;
    }

    static void addRows()
    {
        QTest::addColumn<int>("pool");
        QTest::newRow("cold") << 0;
        QTest::newRow("pooled") << 1;
    }

    static QString stderrOf(const QJsonObject& result)
    {
        return structured(result).value(QLatin1String("stderr")).toString();
    }

    static int exitCodeOf(const QJsonObject& result)
    {
        return structured(result).value(QLatin1String("exit_code")).toInt(-1000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the python sandbox image must be built (containers/build-images)");
    }

    void showSavesTheFigure_data() { addRows(); }
    void showSavesTheFigure()
    {
        QFETCH(int, pool);
        // The program checks its own output folder: after show(), and (from an atexit hook, which
        // runs after the bootstrap's end-of-program save) for a figure it left open.
        const QJsonObject result = runPython(
            pool, QStringLiteral("import atexit, os\n"
                                 "import matplotlib.pyplot as plt\n"
                                 "def png(name):\n"
                                 "    with open('/sandbox/out/' + name, 'rb') as f:\n"
                                 "        return f.read(8) == b'\\x89PNG\\r\\n\\x1a\\n'\n"
                                 "plt.plot([1, 3, 2])\n"
                                 "plt.show()\n"
                                 "print(sorted(os.listdir('/sandbox/out')), png('figure-1.png'))\n"
                                 "print(plt.get_fignums())\n"
                                 "plt.figure()\n"
                                 "plt.bar(['a', 'b'], [1, 2])\n"
                                 "atexit.register(lambda: print(sorted(os.listdir('/sandbox/out')),"
                                 " png('figure-2.png')))\n"));
        QVERIFY2(!result.isEmpty(), "no result, or the pooled call ran cold");
        QCOMPARE(
            stdoutOf(result),
            QStringLiteral("['figure-1.png'] True\n[]\n['figure-1.png', 'figure-2.png'] True\n"));
        QCOMPARE(stderrOf(result), QString());
        QCOMPARE(exitCodeOf(result), 0);
    }

    void tracebackPointsAtTheProgram_data() { addRows(); }
    void tracebackPointsAtTheProgram()
    {
        QFETCH(int, pool);
        const QJsonObject result = runPython(pool, QStringLiteral("print('before')\n"
                                                                  "def divide(x):\n"
                                                                  "    return x / 0\n"
                                                                  "divide(1)\n"));
        QVERIFY2(!result.isEmpty(), "no result, or the pooled call ran cold");
        QCOMPARE(stdoutOf(result), QStringLiteral("before\n"));
        QCOMPARE(stderrOf(result), QStringLiteral("Traceback (most recent call last):\n"
                                                  "  File \"<stdin>\", line 4, in <module>\n"
                                                  "  File \"<stdin>\", line 3, in divide\n"
                                                  "ZeroDivisionError: division by zero\n"));
        QCOMPARE(exitCodeOf(result), 1);
    }

    void exitCodesAreThePrograms_data() { addRows(); }
    void exitCodesAreThePrograms()
    {
        QFETCH(int, pool);
        const QJsonObject exited =
            runPython(pool, QStringLiteral("import sys\nprint(sys.argv, __name__)\nsys.exit(3)\n"));
        QVERIFY2(!exited.isEmpty(), "no result, or the pooled call ran cold");
        QCOMPARE(stdoutOf(exited), QStringLiteral("['-'] __main__\n"));
        QCOMPARE(exitCodeOf(exited), 3);
        const QJsonObject syntaxError = runPython(pool, QStringLiteral("x = (\n"));
        QVERIFY2(!syntaxError.isEmpty(), "no result, or the pooled call ran cold");
        QCOMPARE(exitCodeOf(syntaxError), 1);
        QVERIFY2(stderrOf(syntaxError).startsWith(QStringLiteral("  File \"<stdin>\", line 1\n")),
                 qPrintable(stderrOf(syntaxError)));
    }
};

QTEST_GUILESS_MAIN(TestCharts)
#include "tst_Charts.moc"
