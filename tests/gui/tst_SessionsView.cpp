// A persistent session as the user watches it in the real main window (offscreen), with the
// app's own server in a real engine (CSM_TEST_ENGINE=podman|docker): a client loads a frame in
// one call and explores it in the next, draws a chart; the Server page lists the live session
// (client, language, cells, memory, idle time), Show cells opens the Runs page on the session's
// cells, the session exports as a notebook that nbformat accepts (outputs and the chart in it)
// and as a script, and End ends it: the container goes and the client's next call hears that
// its state is gone. A run of the app's own server stops at once when Stop is pressed, asked
// directly rather than through the history.
#include "AsyncMcpClient.h"
#include "CallResult.h"
#include "FindNamed.h"
#include "history/HistoryLocation.h"
#include "history/HistoryStore.h"
#include "NotebookCheck.h"
#include "RunsRows.h"
#include "server/EmbeddedServer.h"
#include "TestEngine.h"
#include "TestServer.h"
#include "ui/MainWindow.h"
#include "ui/models/InterpreterSessionsModel.h"
#include "ui/models/RunsModel.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/pages/RunsPage.h"
#include "ui/pages/ServerPage.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace callresult;
using csm::InterpreterSessionsModel;
using csm::RunsModel;

class tst_SessionsView final : public QObject
{
    Q_OBJECT

private:
    csm::ServerPage& serverPage() { return findNamed<csm::ServerPage>(*m_window, "serverPage"); }
    csm::RunsPage& runsPage() { return findNamed<csm::RunsPage>(*m_window, "runsPage"); }
    InterpreterSessionsModel& sessions()
    {
        return findNamed<InterpreterSessionsModel>(serverPage(), "interpreterSessions");
    }
    QString sessionCell(int column) { return sessions().index(0, column).data().toString(); }

    // A call with the session "analysis", and its result once it is back.
    QJsonObject cell(AsyncMcpClient& client, const QString& code)
    {
        std::unique_ptr<QNetworkReply> reply(
            client.callTool(QStringLiteral("run_python_code"), code,
                            QJsonObject{{QStringLiteral("session"), QStringLiteral("analysis")}}));
        if (!QTest::qWaitFor([&] { return reply->isFinished(); }, 60'000))
            return {};
        return AsyncMcpClient::result(reply.get());
    }

    QTemporaryDir m_data;
    std::unique_ptr<csm::EmbeddedServer> m_server;
    std::unique_ptr<csm::MainWindow> m_window;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        startAppWithServer(m_data.path(), m_server, m_window);
    }

    void cleanupTestCase() { stopAppWithServer(m_server, m_window); }

    void aSessionIsWatchedExportedAndEnded()
    {
        auto& pages = findNamed<QTabWidget>(*m_window, "pages");
        pages.setCurrentWidget(&serverPage());
        findNamed<QSpinBox>(serverPage(), "portEdit").setValue(0);
        QTest::mouseClick(&findNamed<QPushButton>(serverPage(), "startStopButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(serverPage().httpUrl().isValid(), 10'000);
        AsyncMcpClient client(serverPage().httpUrl(),
                              findNamed<QLineEdit>(serverPage(), "tokenEdit").text());
        QVERIFY(client.initialize(QStringLiteral("notebook-user")));
        QCOMPARE(sessions().rowCount(), 0);

        // Load once, explore without reloading, draw.
        QJsonObject result = cell(client, QStringLiteral("import pandas as pd\n"
                                                         "df = pd.DataFrame({'x': [1, 2, 3]})\n"
                                                         "print(len(df))"));
        QVERIFY2(!isError(result), describe(result).constData());
        QCOMPARE(stdoutOf(result), QStringLiteral("3\n"));
        result = cell(client, QStringLiteral("df.x.sum()"));
        QVERIFY2(!isError(result), describe(result).constData());
        QCOMPARE(stdoutOf(result), QStringLiteral("6\n"));
        result = cell(client, QStringLiteral("import matplotlib.pyplot as plt\n"
                                             "plt.plot(df.x)\nplt.show()"));
        QVERIFY2(!isError(result), describe(result).constData());
        QCOMPARE(blocksOfType(result, QStringLiteral("image")).size(), 1);

        // The Server page shows it: whose, what, how much.
        QTRY_COMPARE(sessions().rowCount(), 1);
        QTRY_COMPARE(sessionCell(InterpreterSessionsModel::Cells), QStringLiteral("3"));
        QCOMPARE(sessionCell(InterpreterSessionsModel::Name), QStringLiteral("analysis"));
        QCOMPARE(sessionCell(InterpreterSessionsModel::Client), QStringLiteral("notebook-user"));
        QCOMPARE(sessionCell(InterpreterSessionsModel::Language), QStringLiteral("Python"));
        // pandas and a figure take tens of MiB: read from the container's cgroup.
        QVERIFY2(sessionCell(InterpreterSessionsModel::Memory).contains(QLatin1String("MiB")),
                 qPrintable(sessionCell(InterpreterSessionsModel::Memory)));
        // Idle once the server's status after the last cell has reached the page (on a loaded
        // machine, a moment after the cell's result).
        QTRY_VERIFY2_WITH_TIMEOUT(
            sessionCell(InterpreterSessionsModel::Idle).endsWith(QLatin1String(" s")),
            qPrintable(sessionCell(InterpreterSessionsModel::Idle)), 10'000);

        // Show cells: the Runs page with the session's three cells, in order, as a notebook.
        auto& view = findNamed<QTableView>(serverPage(), "interpreterSessionsView");
        view.selectRow(0);
        QTest::mouseClick(&findNamed<QPushButton>(serverPage(), "showCellsButton"), Qt::LeftButton);
        QCOMPARE(pages.currentWidget(), &runsPage());
        auto& runs = findNamed<RunsModel>(runsPage(), "model");
        QTRY_COMPARE(runs.rowCount(), 3);
        QTRY_COMPARE(runs.index(0, RunsModel::Session).data().toString(),
                     QStringLiteral("analysis #1"));
        QCOMPARE(runs.index(2, RunsModel::Session).data().toString(),
                 QStringLiteral("analysis #3"));
        const QString key =
            findNamed<QComboBox>(runsPage(), "sessionFilter").currentData().toString();
        QVERIFY(!key.isEmpty());
        QVERIFY(findNamed<QAction>(runsPage(), "exportSessionAction").isEnabled());

        // Export: a notebook nbformat accepts, with the outputs and the chart in order.
        QTemporaryDir out;
        QVERIFY(out.isValid());
        const QString notebookPath = out.filePath(QStringLiteral("analysis.ipynb"));
        QVERIFY(runsPage().exportSession(key, notebookPath));
        const QString refusal = NotebookCheck::validate(notebookPath);
        QVERIFY2(refusal.isEmpty(), qPrintable(refusal));
        QFile notebookFile(notebookPath);
        QVERIFY(notebookFile.open(QIODevice::ReadOnly));
        const QJsonArray cells =
            QJsonDocument::fromJson(notebookFile.readAll()).object().value(u"cells").toArray();
        QJsonArray codeCells;
        for (const QJsonValue& c : cells) {
            if (c.toObject().value(u"cell_type").toString() == QLatin1String("code"))
                codeCells.append(c);
        }
        QCOMPARE(codeCells.size(), 3);
        const QJsonObject second = codeCells.at(1).toObject();
        QCOMPARE(second.value(u"execution_count").toInt(), 2);
        QVERIFY(QJsonDocument(second.value(u"outputs").toArray()).toJson().contains("6\\n"));
        const QByteArray third = QJsonDocument(codeCells.at(2).toObject()).toJson();
        QVERIFY2(third.contains("\"image/png\""), third.left(2000).constData());

        const QString scriptPath = out.filePath(QStringLiteral("analysis.py"));
        QVERIFY(runsPage().exportSession(key, scriptPath));
        QFile script(scriptPath);
        QVERIFY(script.open(QIODevice::ReadOnly));
        const QByteArray scriptText = script.readAll();
        QVERIFY(scriptText.indexOf("df = pd.DataFrame") < scriptText.indexOf("df.x.sum()"));
        QVERIFY(scriptText.contains("[cell 3]"));

        // End: the session and its container go; the client hears its state is gone.
        pages.setCurrentWidget(&serverPage());
        view.selectRow(0);
        QTest::mouseClick(&findNamed<QPushButton>(serverPage(), "endSessionButton"),
                          Qt::LeftButton);
        QTRY_COMPARE(sessions().rowCount(), 0);
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(
                     pidLabel(QCoreApplication::applicationPid()), 15'000),
                 QStringList());
        result = cell(client, QStringLiteral("df"));
        QVERIFY(isError(result));
        QVERIFY2(text(result).contains(QLatin1String("ended in the desktop app")) &&
                     text(result).contains(QLatin1String("state is gone")),
                 describe(result).constData());
        // The next call starts a new session, which knows nothing of the old one.
        result = cell(client, QStringLiteral("'df' in globals()"));
        QVERIFY2(!isError(result), describe(result).constData());
        QCOMPARE(stdoutOf(result), QStringLiteral("False\n"));
    }

    // Stop on a run of the app's own server goes to that server directly: the history never
    // carries the request (another process reading it finds none), and the run ends stopped,
    // its caller told so.
    void aRunOfTheAppsOwnServerStopsWithoutTheHistory()
    {
        auto& pages = findNamed<QTabWidget>(*m_window, "pages");
        pages.setCurrentWidget(&runsPage());
        for (const char* filter :
             {"statusFilter", "languageFilter", "clientFilter", "timeFilter", "sessionFilter"})
            findNamed<QComboBox>(runsPage(), filter).setCurrentIndex(0);
        findNamed<QLineEdit>(runsPage(), "textFilter").clear();
        // The session the last test's client started again lives on: only the run's goes.
        const QString ours = pidLabel(QCoreApplication::applicationPid());
        const QStringList before = TestEngine::containersWithLabel(ours);
        std::optional<QJsonObject> answer;
        m_server->runFromApp(QStringLiteral("run_python_code"),
                             QStringLiteral("import time\n"
                                            "for i in range(600):\n"
                                            "    print('tick', i, flush=True)\n"
                                            "    time.sleep(0.05)\n"),
                             [&answer](const QJsonObject& result) { answer = result; });
        const RunsModel& runs = findNamed<RunsModel>(runsPage(), "model");
        int row = -1;
        QTRY_VERIFY_WITH_TIMEOUT((row = rowWithStatus(runs, QStringLiteral("Running"))) >= 0,
                                 30'000);
        const qint64 id = runs.runId(row);
        auto& table = findNamed<QTableView>(runsPage(), "table");
        QTest::mouseClick(
            table.viewport(), Qt::LeftButton, {},
            table.visualRect(table.model()->index(row, RunsModel::Language)).center());
        auto& detail = findNamed<csm::RunDetailPane>(runsPage(), "detail");
        QTRY_COMPARE(detail.shownRunId(), id);
        QPushButton& stop = findNamed<QPushButton>(detail, "stopButton");
        QTRY_VERIFY_WITH_TIMEOUT(stop.isVisible() && stop.isEnabled(), 10'000);

        QTest::mouseClick(&stop, Qt::LeftButton);
        // Read as a headless server would (and taken, so that one going through the history
        // could not be stopped by it either).
        auto otherProcess =
            csm::HistoryStore::open(csm::HistoryLocation::historyPath(m_data.path()));
        QVERIFY2(otherProcess, qPrintable(otherProcess.error()));
        QCOMPARE(*(*otherProcess)->stopRequests().take({id}), QList<qint64>());
        QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 15'000);
        QVERIFY(isError(*answer));
        QVERIFY2(text(*answer).contains(QLatin1String("by the user, from the Code Sandbox app")),
                 describe(*answer).constData());
        QTRY_COMPARE_WITH_TIMEOUT(runs.index(rowOf(runs, id), RunsModel::Status).data().toString(),
                                  QStringLiteral("Cancelled"), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(TestEngine::containersWithLabel(ours), before, 15'000);
    }
};

QTEST_MAIN(tst_SessionsView)
#include "tst_SessionsView.moc"
