// The real main window under the offscreen platform, reading the run history that a separate,
// real headless server writes while it runs code in a real container engine
// (CSM_TEST_ENGINE=podman|docker).
#include "CallResult.h"
#include "FindNamed.h"
#include "history/HistoryStore.h"
#include "McpStdioClient.h"
#include "RunFilesTab.h"
#include "RunsRows.h"
#include "ShownText.h"
#include "TestEngine.h"
#include "ui/MainWindow.h"
#include "ui/models/RunsModel.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/pages/RunsPage.h"
#include "ui/pages/ServerPage.h"
#include "ui/widgets/CodeView.h"
#include "ui/widgets/RunsEmptyNotice.h"
#include "ui/widgets/RunsFilterBar.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QHeaderView>
#include <QHelpEvent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QToolTip>

#include <algorithm>
#include <memory>

using namespace callresult;
using csm::MainWindow;
using csm::RunsModel;

namespace {

QString cell(const QAbstractItemModel& model, int row, int column)
{
    return model.index(row, column).data().toString();
}

} // namespace

class tst_MainWindow final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        m_server = std::make_unique<McpStdioClient>();
        QVERIFY(m_server->start({QStringLiteral("--engine"), TestEngine::name(),
                                 QStringLiteral("--data-dir"), m_data.path(),
                                 QStringLiteral("--pool"), QStringLiteral("0")},
                                QProcessEnvironment::systemEnvironment()));
        QVERIFY(!m_server->initialize().isEmpty());
        // The history file exists once the server has started.
        QTRY_VERIFY(QFile::exists(m_data.filePath(QStringLiteral("history.sqlite"))));
        m_window = std::make_unique<MainWindow>(m_data.path());
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        findNamed<csm::RunsPage>(*m_window, "runsPage");
    }

    void cleanupTestCase()
    {
        m_window.reset();
        if (m_server) {
            m_server->closeStdin();
            m_server->waitForExit(20'000);
        }
    }

    // Before any run exists: the empty history's button opens the clients' configuration.
    void theEmptyHistorysButtonOpensTheServerPage()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QTabWidget& pages = findNamed<QTabWidget>(*m_window, "pages");
        QCOMPARE(pages.currentWidget(), &page);
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTest::mouseClick(&findNamed<QPushButton>(page, "connectAssistantButton"), Qt::LeftButton);
        csm::ServerPage& server = findNamed<csm::ServerPage>(*m_window, "serverPage");
        QCOMPARE(pages.currentWidget(), &server);
        QTRY_VERIFY(findNamed<QComboBox>(server, "clientChoice").hasFocus());
        pages.setCurrentWidget(&page);
    }

    // The keyboard reaches every page (Ctrl+1...) and, from any of them, the runs' filter
    // (Ctrl+F), its text selected to be typed over.
    void shortcutsSwitchPagesAndFindTheFilter()
    {
        csm::RunsPage& runs = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QTabWidget& pages = findNamed<QTabWidget>(*m_window, "pages");
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QCOMPARE(pages.count(), 6);
        for (int page = pages.count(); page >= 1; --page) {
            QTest::keyClick(m_window.get(), Qt::Key(Qt::Key_0 + page), Qt::ControlModifier);
            QCOMPARE(pages.currentIndex(), page - 1);
        }
        pages.setCurrentWidget(&findNamed<QWidget>(*m_window, "settingsPage"));
        QLineEdit& filter = findNamed<QLineEdit>(runs, "textFilter");
        filter.setText(QStringLiteral("no such run"));
        QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
        QCOMPARE(pages.currentWidget(), &runs);
        QTRY_VERIFY(filter.hasFocus());
        QCOMPARE(filter.selectedText(), QStringLiteral("no such run"));
        filter.clear();
    }

    void aHeadlessServersRunAppearsLive()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const QAbstractItemModel& model = findNamed<RunsModel>(page, "model");
        QCOMPARE(model.rowCount(), 0);
        // An empty history says what to do next instead of showing an empty table.
        QVERIFY(findNamed<csm::RunsEmptyNotice>(page, "emptyNotice").isVisible());
        QVERIFY(!findNamed<QTableView>(page, "table").isVisible());
        QCOMPARE(findNamed<QLabel>(page, "emptyTitle").text(), QStringLiteral("No runs yet"));
        QCOMPARE(findNamed<QLabel>(page, "emptyCommand").text(),
                 QStringLiteral("code-sandbox-mcp install-client claude-code"));
        QVERIFY(findNamed<QPushButton>(page, "connectAssistantButton").isVisible());
        const QJsonObject result =
            m_server->callTool(QStringLiteral("run_python_code"),
                               code(QStringLiteral("print('hello from the sandbox')")));
        QCOMPARE(stdoutOf(result), QStringLiteral("hello from the sandbox\n"));
        // Within a refresh or two of its end, without reloading the page.
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(cell(model, 0, RunsModel::Status), QStringLiteral("OK"), 5000);
        // The language as people name it; the tool's own name in the tooltip.
        QCOMPARE(cell(model, 0, RunsModel::Language), QStringLiteral("Python"));
        QVERIFY2(model.index(0, RunsModel::Language)
                     .data(Qt::ToolTipRole)
                     .toString()
                     .contains(QLatin1String("run_python_code")),
                 qPrintable(model.index(0, RunsModel::Language).data(Qt::ToolTipRole).toString()));
        QCOMPARE(cell(model, 0, RunsModel::Client), QStringLiteral("tst 1"));
        QCOMPARE(cell(model, 0, RunsModel::ExitCode), QStringLiteral("0"));
        // The message goes as soon as there is a run.
        QVERIFY(findNamed<QTableView>(page, "table").isVisible());
        QVERIFY(!findNamed<csm::RunsEmptyNotice>(page, "emptyNotice").isVisible());
        // The table's columns fit what they show: none but the summary is stretched past it, the
        // time is on one line; the summary takes the rest of the width, to the table's edge.
        const QTableView& table = findNamed<QTableView>(page, "table");
        QCOMPARE(cell(model, 0, RunsModel::Summary),
                 QStringLiteral("print('hello from the sandbox')"));
        QCOMPARE(table.horizontalHeader()->sectionResizeMode(RunsModel::Summary),
                 QHeaderView::Stretch);
        QTRY_COMPARE(table.horizontalHeader()->length(), table.viewport()->width());
        for (int column = 0; column < RunsModel::ColumnCount; ++column) {
            if (column == RunsModel::Summary)
                continue;
            const int fits =
                std::max({static_cast<const QAbstractItemView&>(table).sizeHintForColumn(column),
                          table.horizontalHeader()->sectionSizeHint(column),
                          table.horizontalHeader()->minimumSectionSize()});
            QVERIFY2(table.columnWidth(column) <= fits,
                     qPrintable(QStringLiteral("column %1 is %2 px wide for %3 px of content")
                                    .arg(column)
                                    .arg(table.columnWidth(column))
                                    .arg(fits)));
        }
        QVERIFY(!table.wordWrap());
        QVERIFY(table.columnWidth(RunsModel::Started) >=
                table.fontMetrics().horizontalAdvance(cell(model, 0, RunsModel::Started)));
    }

    void selectingARunShowsItInFull()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QTableView& table = findNamed<QTableView>(page, "table");
        const QRect firstRow = table.visualRect(table.model()->index(0, RunsModel::Language));
        QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, firstRow.center());
        QTRY_VERIFY(findNamed<csm::RunDetailPane>(page, "detail").shownRunId() > 0);
        QCOMPARE(findNamed<csm::CodeView>(page, "codeView").toPlainText(),
                 QStringLiteral("print('hello from the sandbox')"));
        QCOMPARE(findNamed<QPlainTextEdit>(page, "stdout").toPlainText(),
                 QStringLiteral("hello from the sandbox\n"));
        QVERIFY2(findNamed<QLabel>(page, "summary").text().contains(QLatin1String("OK")),
                 qPrintable(findNamed<QLabel>(page, "summary").text()));
        // What became of it, in words, above the rest.
        QVERIFY2(
            findNamed<QLabel>(page, "resultLine").text().startsWith(QLatin1String("Finished in ")),
            qPrintable(findNamed<QLabel>(page, "resultLine").text()));
        // The limits it ran under, as the Settings page names them (the server's defaults).
        const QString limits = findNamed<QPlainTextEdit>(page, "limits").toPlainText();
        for (const char* line : {"Memory: 512 MiB", "CPUs: 1", "Processes: 256",
                                 "Writable space: 64 MiB", "Timeout: 30 s", "Output cap: 1 MiB"})
            QVERIFY2(
                limits.split(u'\n').contains(QLatin1String(line)),
                qPrintable(QStringLiteral("no \"%1\" in:\n%2").arg(QLatin1String(line), limits)));
        // The network in words, by the egress mode the server ran with (open by default), not
        // the engine's "none" beside it.
        QVERIFY2(
            limits.split(u'\n').contains(QLatin1String(
                "Network: public hosts and the ones allowed, through the proxy (egress: open)")),
            qPrintable(limits));
        QVERIFY2(!limits.contains(QLatin1String("Network: none")), qPrintable(limits));
        QVERIFY2(!limits.contains(u'{') && !limits.contains(QLatin1String("_bytes")),
                 qPrintable(limits));
    }

    void filters()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const QAbstractItemModel& model = findNamed<RunsModel>(page, "model");
        // A column the user sizes keeps that width while runs come and change.
        QTableView& table = findNamed<QTableView>(page, "table");
        QCOMPARE(table.horizontalHeader()->sectionResizeMode(RunsModel::Client),
                 QHeaderView::Interactive);
        table.horizontalHeader()->resizeSection(RunsModel::Client, 333);
        const QJsonObject failing = m_server->callTool(QStringLiteral("run_python_code"),
                                                       code(QStringLiteral("raise SystemExit(4)")));
        QVERIFY(isError(failing));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 5000);
        QCOMPARE(table.columnWidth(RunsModel::Client), 333);

        // Typed text filters on code and output.
        findNamed<QLineEdit>(page, "textFilter").setFocus();
        QTest::keyClicks(&findNamed<QLineEdit>(page, "textFilter"), QStringLiteral("hello from"));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 3000);
        QCOMPARE(cell(model, 0, RunsModel::Status), QStringLiteral("OK"));
        // A filter that matches nothing says so (not how to connect an assistant).
        findNamed<QLineEdit>(page, "textFilter").clear();
        QTest::keyClicks(&findNamed<QLineEdit>(page, "textFilter"),
                         QStringLiteral("printed by no run"));
        QTRY_VERIFY_WITH_TIMEOUT(findNamed<csm::RunsEmptyNotice>(page, "emptyNotice").isVisible(),
                                 3000);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(findNamed<QLabel>(page, "emptyTitle").text(),
                 QStringLiteral("No runs match the filter"));
        QVERIFY(!findNamed<QPushButton>(page, "connectAssistantButton").isVisible());
        QVERIFY(!findNamed<QLabel>(page, "emptyCommand").isVisible());
        findNamed<QLineEdit>(page, "textFilter").clear();
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);
        QVERIFY(findNamed<QTableView>(page, "table").isVisible());

        // The status filter.
        QComboBox& status = findNamed<QComboBox>(page, "statusFilter");
        status.setCurrentIndex(status.findText(QStringLiteral("Error")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 3000);
        QCOMPARE(cell(model, 0, RunsModel::ExitCode), QStringLiteral("4"));
        // What the filter leaves out, in numbers, and the way back.
        QLabel& count = findNamed<QLabel>(page, "filterCount");
        QTRY_VERIFY(count.isVisible());
        QCOMPARE(count.text(), QStringLiteral("1 of 2 runs"));
        QVERIFY(!findNamed<QLabel>(page, "hiddenLiveRun").isVisible());
        QTest::mouseClick(&findNamed<QPushButton>(page, "resetFilters"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);
        QCOMPARE(status.currentIndex(), 0);
        QTRY_VERIFY(!count.isVisible());
        // Escape in the text filter resets too: every filter, with one query (not one per filter,
        // nor one more once the typing's pause is over).
        status.setCurrentIndex(status.findText(QStringLiteral("Error")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 3000);
        findNamed<QLineEdit>(page, "textFilter").setFocus();
        QTest::keyClicks(&findNamed<QLineEdit>(page, "textFilter"), QStringLiteral("raise"));
        QSignalSpy applied(&findNamed<csm::RunsFilterBar>(page, "filters"),
                           &csm::RunsFilterBar::changed);
        QTest::keyClick(&findNamed<QLineEdit>(page, "textFilter"), Qt::Key_Escape);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);
        QCOMPARE(status.currentIndex(), 0);
        QVERIFY(findNamed<QLineEdit>(page, "textFilter").text().isEmpty());
        QTest::qWait(csm::RunsFilterBar::kTypingDelayMs * 2);
        QCOMPARE(applied.count(), 1);
    }

    // A click on a column's header sorts by it, both ways; the failure (exit 4) and the hello
    // run (exit 0) trade places. Sorted by start again, the newest is on top.
    void sortingByAColumn()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QTableView& table = findNamed<QTableView>(page, "table");
        const QAbstractItemModel& shown = *table.model();
        QTRY_COMPARE(shown.rowCount(), 2);
        QHeaderView& header = *table.horizontalHeader();
        const auto clickHeader = [&header](int column) {
            const QPoint point(header.sectionViewportPosition(column) + 6, header.height() / 2);
            QTest::mouseClick(header.viewport(), Qt::LeftButton, {}, point);
        };
        clickHeader(RunsModel::ExitCode);
        QCOMPARE(header.sortIndicatorSection(), int(RunsModel::ExitCode));
        const QString first = cell(shown, 0, RunsModel::ExitCode);
        clickHeader(RunsModel::ExitCode);
        QCOMPARE(cell(shown, 1, RunsModel::ExitCode), first);
        QCOMPARE(QSet<QString>({cell(shown, 0, RunsModel::ExitCode), first}),
                 QSet<QString>({QStringLiteral("0"), QStringLiteral("4")}));
        // Sorted by status: "Error" before "OK", whichever way the other sort went.
        table.sortByColumn(RunsModel::Status, Qt::AscendingOrder);
        QCOMPARE(cell(shown, 0, RunsModel::Status), QStringLiteral("Error"));
        table.sortByColumn(RunsModel::Started, Qt::DescendingOrder);
        QCOMPARE(cell(shown, 0, RunsModel::ExitCode), QStringLiteral("4"));
    }

    // Tab goes from the table to the detail pane and the actions, instead of cell by cell.
    void tabLeavesTheTable()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QTableView& table = findNamed<QTableView>(page, "table");
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        selectRuns(page, {helloRunId(page)});
        table.setFocus();
        QVERIFY(table.hasFocus());
        QVERIFY(!table.tabKeyNavigation());
        QSet<QString> reached;
        for (int press = 0; press < 40; ++press) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            QWidget* focused = QApplication::focusWidget();
            QVERIFY(focused);
            if (focused == &table)
                break; // round the page and back
            for (QWidget* at = focused; at; at = at->parentWidget())
                reached << at->objectName();
        }
        QVERIFY(!reached.isEmpty());
        QVERIFY2(reached.contains(QStringLiteral("detailTabs")),
                 qPrintable(QStringList(reached.cbegin(), reached.cend()).join(u',')));
        QVERIFY2(reached.contains(QStringLiteral("actionsBar")),
                 qPrintable(QStringList(reached.cbegin(), reached.cend()).join(u',')));
    }

    // Runs written straight into the history, as other processes' would be: a JavaScript run of
    // another client three days ago, and a Python run forty days ago.
    void filtersByLanguageClientAndTime()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const QAbstractItemModel& model = findNamed<RunsModel>(page, "model");
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);
        m_older = writeRun(QStringLiteral("javascript"), QStringLiteral("other-client"),
                           QStringLiteral("console.log('a, \"quoted\"')"),
                           QDateTime::currentDateTimeUtc().addDays(-3));
        m_oldest =
            writeRun(QStringLiteral("python"), QStringLiteral("older-client"),
                     QStringLiteral("print('old')"), QDateTime::currentDateTimeUtc().addDays(-40));
        QVERIFY(m_older > 0 && m_oldest > 0);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 4, 3000);

        // The client list has learnt the new names from the runs that joined the table.
        QComboBox& client = findNamed<QComboBox>(page, "clientFilter");
        QTRY_VERIFY(client.findText(QStringLiteral("other-client")) > 0);
        QVERIFY(client.findText(QStringLiteral("tst")) > 0);
        client.setCurrentIndex(client.findText(QStringLiteral("other-client")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 3000);
        QCOMPARE(cell(model, 0, RunsModel::Language), QStringLiteral("JavaScript"));
        client.setCurrentIndex(client.findText(QStringLiteral("tst")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);
        client.setCurrentIndex(0);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 4, 3000);

        QComboBox& language = findNamed<QComboBox>(page, "languageFilter");
        language.setCurrentIndex(language.findText(QStringLiteral("JavaScript")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 3000);
        QCOMPARE(findNamed<RunsModel>(page, "model").runId(0), m_older);
        language.setCurrentIndex(language.findText(QStringLiteral("Python")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 3, 3000);
        language.setCurrentIndex(0);

        QComboBox& time = findNamed<QComboBox>(page, "timeFilter");
        time.setCurrentIndex(time.findText(QStringLiteral("Last hour")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);
        time.setCurrentIndex(time.findText(QStringLiteral("Last 7 days")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 3, 3000);
        QCOMPARE(findNamed<RunsModel>(page, "model").runId(0), m_older);
        time.setCurrentIndex(time.findText(QStringLiteral("Last 30 days")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 3, 3000);
        time.setCurrentIndex(time.findText(QStringLiteral("Any time")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 4, 3000);
    }

    void exportWritesJsonAndCsv()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QList<qint64> ids;
        for (int row = 0; row < findNamed<RunsModel>(page, "model").rowCount(); ++row)
            ids << findNamed<RunsModel>(page, "model").runId(row);
        QCOMPARE(ids.size(), 4);
        const qint64 hello = helloRunId(page);
        QTemporaryDir out;
        QVERIFY(out.isValid());

        const QString jsonPath = out.filePath(QStringLiteral("runs.json"));
        QVERIFY2(page.exportRuns(ids, jsonPath),
                 qPrintable(findNamed<QLabel>(page, "message").text()));
        QVERIFY2(findNamed<QLabel>(page, "message").text().contains(QLatin1String("Exported 4")),
                 qPrintable(findNamed<QLabel>(page, "message").text()));
        QFile json(jsonPath);
        QVERIFY(json.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonArray runs = QJsonDocument::fromJson(json.readAll(), &error).array();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(runs.size(), 4);
        QCOMPARE(runs.at(0).toObject().value(QLatin1String("id")).toInteger(), ids.at(0));
        QJsonObject helloRun;
        for (const QJsonValue& run : runs) {
            if (run.toObject().value(QLatin1String("id")).toInteger() == hello)
                helloRun = run.toObject();
        }
        QCOMPARE(helloRun.value(QLatin1String("code")).toString(),
                 QStringLiteral("print('hello from the sandbox')"));
        QCOMPARE(helloRun.value(QLatin1String("stdout")).toString(),
                 QStringLiteral("hello from the sandbox\n"));
        QCOMPARE(helloRun.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(helloRun.value(QLatin1String("client_name")).toString(), QStringLiteral("tst"));

        // CSV, a selection of two: a header, then one record each; the code with a comma and
        // quotes comes quoted.
        const QString csvPath = out.filePath(QStringLiteral("runs.csv"));
        QVERIFY2(page.exportRuns({m_older, hello}, csvPath),
                 qPrintable(findNamed<QLabel>(page, "message").text()));
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(csv.readAll());
        const QStringList records = text.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(records.size(), 3);
        QVERIFY2(records.at(0).startsWith(QLatin1String("id,status,started_at,")),
                 qPrintable(records.at(0)));
        QVERIFY(records.at(1).startsWith(QString::number(m_older) + u','));
        QVERIFY2(records.at(1).contains(QLatin1String(R"csv(,"console.log('a, ""quoted""')",)csv")),
                 qPrintable(records.at(1)));
        QVERIFY(records.at(2).startsWith(QString::number(hello) + QStringLiteral(",ok,")));

        // A file that cannot be written says so.
        QVERIFY(!page.exportRuns(ids, out.filePath(QStringLiteral("missing/runs.json"))));
        QVERIFY2(
            findNamed<QLabel>(page, "message").text().startsWith(QLatin1String("Export failed")),
            qPrintable(findNamed<QLabel>(page, "message").text()));
    }

    void copyCodeAndOutput()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QClipboard* clipboard = QGuiApplication::clipboard();
        clipboard->setText(QStringLiteral("before"));
        selectRuns(page, {helloRunId(page)});
        // Ctrl+C in the table: the code.
        QTest::keySequence(&findNamed<QTableView>(page, "table"), QKeySequence::Copy);
        QTRY_COMPARE(clipboard->text(), QStringLiteral("print('hello from the sandbox')"));
        // The button: what it printed.
        QTest::mouseClick(button(page, findNamed<QAction>(page, "copyOutputAction")),
                          Qt::LeftButton);
        QTRY_COMPARE(clipboard->text(), QStringLiteral("hello from the sandbox\n"));
    }

    void rerunOnlyForOneFinishedRun()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QList<csm::RunRecord> requested;
        connect(&page, &csm::RunsPage::rerunRequested, this,
                [&requested](const csm::RunRecord& run) { requested << run; });
        selectRuns(page, {helloRunId(page)});
        QVERIFY(findNamed<QAction>(page, "rerunAction").isEnabled());
        QTest::mouseClick(button(page, findNamed<QAction>(page, "rerunAction")), Qt::LeftButton);
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.at(0).code, QStringLiteral("print('hello from the sandbox')"));
        QCOMPARE(requested.at(0).language, QStringLiteral("python"));
        selectRuns(page, {helloRunId(page), m_older});
        QCOMPARE(page.selectedRunIds().size(), 2);
        QVERIFY(!findNamed<QAction>(page, "rerunAction").isEnabled());
        QVERIFY(findNamed<QAction>(page, "deleteAction").isEnabled());
        disconnect(&page, &csm::RunsPage::rerunRequested, this, nullptr);
    }

    void deleteAsksFirst()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const QAbstractItemModel& model = findNamed<RunsModel>(page, "model");
        QCOMPARE(model.rowCount(), 4);
        selectRuns(page, {m_older, m_oldest});
        QCOMPARE(page.selectedRunIds(), QList<qint64>({m_oldest, m_older}));

        // The Delete key asks; "Cancel" keeps them.
        QTest::keyClick(&findNamed<QTableView>(page, "table"), Qt::Key_Delete);
        QTRY_VERIFY(findOptional<QMessageBox>(page, "deleteConfirmation"));
        QTest::mouseClick(
            findOptional<QMessageBox>(page, "deleteConfirmation")->button(QMessageBox::Cancel),
            Qt::LeftButton);
        QTRY_VERIFY(!findOptional<QMessageBox>(page, "deleteConfirmation"));
        QTest::qWait(2 * csm::RunsPage::kRefreshIntervalMs);
        QCOMPARE(model.rowCount(), 4);

        // The button asks; "Delete" deletes them, from the table and from the history.
        QTest::mouseClick(button(page, findNamed<QAction>(page, "deleteAction")), Qt::LeftButton);
        QTRY_VERIFY(findOptional<QMessageBox>(page, "deleteConfirmation"));
        QAbstractButton* confirm = nullptr;
        for (QAbstractButton* candidate :
             findOptional<QMessageBox>(page, "deleteConfirmation")->buttons()) {
            if (findOptional<QMessageBox>(page, "deleteConfirmation")->buttonRole(candidate) ==
                QMessageBox::DestructiveRole)
                confirm = candidate;
        }
        QVERIFY(confirm);
        QTest::mouseClick(confirm, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);
        QVERIFY(findNamed<RunsModel>(page, "model").runId(0) != m_older &&
                findNamed<RunsModel>(page, "model").runId(1) != m_older);
        const auto history = openHistory();
        QVERIFY(history);
        QVERIFY(!history->queries().get(m_older));
        QVERIFY(!history->queries().get(m_oldest));
        QVERIFY(history->queries().get(helloRunId(page)));
    }

    // Clients name themselves: whatever markup their name holds shows as the characters it is,
    // in the table, its tooltip, the detail pane and the client filter.
    void clientTextIsShownAsText()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const RunsModel& model = findNamed<RunsModel>(page, "model");
        const QString name = QStringLiteral("<img src=x><b>bold</b>");
        const QString version = QStringLiteral("<i>2</i>");
        const QString shown = name + u' ' + version;
        const qint64 id =
            writeRun(QStringLiteral("python"), name, QStringLiteral("print('markup')"),
                     QDateTime::currentDateTimeUtc(), version);
        QVERIFY(id > 0);
        QTRY_COMPARE_WITH_TIMEOUT(model.runId(0), id, 5000);
        QCOMPARE(cell(model, 0, RunsModel::Client), shown);

        // The tooltip, as the table shows it when the pointer rests on the cell.
        QTableView& table = findNamed<QTableView>(page, "table");
        const QPoint point = table.visualRect(table.model()->index(0, RunsModel::Client)).center();
        QHelpEvent help(QEvent::ToolTip, point, table.viewport()->mapToGlobal(point));
        QCoreApplication::sendEvent(table.viewport(), &help);
        QLabel* tip = nullptr;
        QTRY_VERIFY((tip = toolTipLabel()) != nullptr);
        QCOMPARE(shownText(*tip), shown);
        QToolTip::hideText();

        // The detail pane's summary.
        selectRuns(page, {id});
        QTRY_COMPARE(findNamed<csm::RunDetailPane>(page, "detail").shownRunId(), id);
        const QString summary = shownText(findNamed<QLabel>(page, "summary"));
        QVERIFY2(summary.contains(QStringLiteral("from ") + shown), qPrintable(summary));

        // The client filter lists it as it is, and filters by it.
        QComboBox& client = findNamed<QComboBox>(page, "clientFilter");
        QTRY_VERIFY(client.findText(name, Qt::MatchExactly) > 0);
        client.setCurrentIndex(client.findText(name, Qt::MatchExactly));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 3000);
        QCOMPARE(model.runId(0), id);
        client.setCurrentIndex(0);
    }

    void aRealRunsPlotIsShownInTheFilesTab()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const RunsModel& model = findNamed<RunsModel>(page, "model");
        const int before = model.rowCount();
        const QJsonObject result =
            m_server->callTool(QStringLiteral("run_python_code"),
                               code(QStringLiteral("import matplotlib.pyplot as plt\n"
                                                   "plt.plot([1, 3, 2])\n"
                                                   "plt.show()\n"
                                                   "print('plotted')\n")),
                               120'000);
        QCOMPARE(stdoutOf(result), QStringLiteral("plotted\n"));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), before + 1, 5000);
        qint64 plotRun = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            if (model.index(row, RunsModel::Files).data().toString() == QLatin1String("1"))
                plotRun = model.runId(row);
        }
        QVERIFY2(plotRun > 0, "the Runs table marks the run that made a file");
        selectRuns(page, {plotRun});
        QTRY_COMPARE(findNamed<csm::RunDetailPane>(page, "detail").shownRunId(), plotRun);
        QList<QToolButton*> thumbnails;
        QTRY_VERIFY((thumbnails = filesTabThumbnails(*m_window)).size() == 1);
        const QPixmap shown = thumbnailPixmap(*thumbnails.constFirst());
        QVERIFY(!shown.isNull());
        QVERIFY(shown.width() > 100);
        // And at the pane's size, above the list, bigger than its thumbnail once the pane has
        // room (a wide window puts it beside the list).
        const QSize sizeBefore = m_window->size();
        m_window->resize(1920, 1080);
        QTRY_VERIFY(findNamed<QLabel>(*m_window, "previewImage").pixmap().width() > shown.width());
        m_window->resize(sizeBefore);
    }

    // Limits a newer server recorded: what this build knows by name, what the engine did not
    // enforce, and a key it does not know, as it is.
    // A window opened over a history that has runs fits its columns to them at once.
    void aNewWindowFitsItsColumnsToTheRunsThere()
    {
        MainWindow window(m_data.path());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const csm::RunsPage& page = findNamed<csm::RunsPage>(window, "runsPage");
        const QAbstractItemModel& model = findNamed<RunsModel>(page, "model");
        QTRY_VERIFY(model.rowCount() > 0);
        const QTableView& table = findNamed<QTableView>(page, "table");
        QTRY_VERIFY2(table.columnWidth(RunsModel::Started) >=
                         table.fontMetrics().horizontalAdvance(cell(model, 0, RunsModel::Started)),
                     qPrintable(QString::number(table.columnWidth(RunsModel::Started))));
    }

    // How the person left the runs list (a column's width, the sort) is how the next start
    // shows it; a wide window puts the detail beside the list, a narrow one below.
    void theLayoutIsRememberedAndFollowsTheWidth()
    {
        {
            MainWindow first(m_data.path());
            first.show();
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            auto& table =
                findNamed<QTableView>(findNamed<csm::RunsPage>(first, "runsPage"), "table");
            table.horizontalHeader()->resizeSection(RunsModel::Client, 271);
            table.sortByColumn(RunsModel::Duration, Qt::DescendingOrder);
            first.resize(1024, 700);
            QTRY_COMPARE(findNamed<QSplitter>(first, "listAndDetail").orientation(), Qt::Vertical);
            // Room to type a filter, whatever the clients are called.
            QTRY_VERIFY(findNamed<QLineEdit>(first, "textFilter").width() >= 200);
            first.resize(1920, 1080);
            QTRY_COMPARE(findNamed<QSplitter>(first, "listAndDetail").orientation(),
                         Qt::Horizontal);
        }
        {
            MainWindow second(m_data.path());
            second.show();
            QVERIFY(QTest::qWaitForWindowExposed(&second));
            auto& table =
                findNamed<QTableView>(findNamed<csm::RunsPage>(second, "runsPage"), "table");
            QCOMPARE(table.columnWidth(RunsModel::Client), 271);
            QCOMPARE(table.horizontalHeader()->sortIndicatorSection(), int(RunsModel::Duration));
            QCOMPARE(table.horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);
            second.resize(1024, 700);
            QTRY_COMPARE(findNamed<QSplitter>(second, "listAndDetail").orientation(), Qt::Vertical);
        }
        // Back as the other tests expect it: newest first, fitted columns.
        QVERIFY(QFile::remove(m_data.filePath(QStringLiteral("desktop-layout.ini"))));
    }

    void limitsAreListedReadably()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const RunsModel& model = findNamed<RunsModel>(page, "model");
        const QJsonObject limits{
            {QStringLiteral("memory_bytes"), 1536 * 1024 * 1024LL},
            {QStringLiteral("cpus"), 0.5},
            {QStringLiteral("network"), QStringLiteral("none")},
            {QStringLiteral("timeout_ms"), 1500},
            {QStringLiteral("gpu_count"), 2},
        };
        const qint64 id =
            writeRun(QStringLiteral("python"), QStringLiteral("limits-client"),
                     QStringLiteral("print('limits')"), QDateTime::currentDateTimeUtc(),
                     QStringLiteral("1"), limits, {QStringLiteral("memory")});
        QVERIFY(id > 0);
        QTRY_COMPARE_WITH_TIMEOUT(model.runId(0), id, 5000);
        selectRuns(page, {id});
        QTRY_COMPARE(findNamed<csm::RunDetailPane>(page, "detail").shownRunId(), id);
        QCOMPARE(findNamed<QPlainTextEdit>(page, "limits").toPlainText(),
                 QStringLiteral("Memory: 1.5 GiB\n"
                                "CPUs: 0.5\n"
                                "Network: none\n"
                                "Timeout: 1.5 s\n"
                                "Not enforced: memory\n"
                                "gpu_count: 2"));
    }

    // A call of the separate headless server, watched while it runs: its output shows in the
    // detail pane before it ends; Stop ends it as cancelled, its client gets what it printed
    // and why it stopped, and no container is left.
    void aRunningCallShowsItsOutputLiveAndStops()
    {
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const RunsModel& model = findNamed<RunsModel>(page, "model");
        findNamed<QLineEdit>(page, "textFilter").clear();
        for (const char* filter :
             {"statusFilter", "languageFilter", "clientFilter", "timeFilter", "sessionFilter"})
            findNamed<QComboBox>(page, filter).setCurrentIndex(0);
        const int request = m_server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"),
              code(QStringLiteral("import sys, time\n"
                                  "for i in range(600):\n"
                                  "    print('tick', i, flush=True)\n"
                                  "    if i % 10 == 0:\n"
                                  "        print('warn', i, file=sys.stderr, flush=True)\n"
                                  "    time.sleep(0.05)\n"))}});
        int row = -1;
        QTRY_VERIFY_WITH_TIMEOUT((row = rowWithStatus(model, QStringLiteral("Running"))) >= 0,
                                 30'000);
        const qint64 id = model.runId(row);
        // A filter that hides it says so, and which.
        QComboBox& status = findNamed<QComboBox>(page, "statusFilter");
        status.setCurrentIndex(status.findText(QStringLiteral("Error")));
        QLabel& hidden = findNamed<QLabel>(page, "hiddenLiveRun");
        QTRY_VERIFY(hidden.isVisible());
        QCOMPARE(hidden.text(), QStringLiteral("1 running call hidden by the status filter"));
        status.setCurrentIndex(0);
        QTRY_VERIFY(rowOf(model, id) >= 0);
        selectRuns(page, {id});
        csm::RunDetailPane& detail = findNamed<csm::RunDetailPane>(page, "detail");
        QTRY_COMPARE(detail.shownRunId(), id);
        const QPlainTextEdit& out = findNamed<QPlainTextEdit>(detail, "stdout");
        // Printed lines show while the program goes on.
        QTRY_VERIFY_WITH_TIMEOUT(out.toPlainText().contains(QLatin1String("tick 5\n")), 30'000);
        QTRY_VERIFY(findNamed<QPlainTextEdit>(detail, "stderr")
                        .toPlainText()
                        .contains(QLatin1String("warn 0\n")));
        QVERIFY(detail.showsRunningRun());
        const QString seen = out.toPlainText();
        QTRY_VERIFY_WITH_TIMEOUT(out.toPlainText().size() > seen.size(), 5000);
        QVERIFY2(findNamed<QLabel>(detail, "resultLine")
                     .text()
                     .startsWith(QLatin1String("Running for ")),
                 qPrintable(findNamed<QLabel>(detail, "resultLine").text()));
        QVERIFY(!m_server->receivesResponseWithin(request, 0));

        QPushButton& stop = findNamed<QPushButton>(detail, "stopButton");
        QVERIFY(stop.isVisible() && stop.isEnabled());
        QTest::mouseClick(&stop, Qt::LeftButton);
        const std::optional<QJsonObject> response = m_server->waitForResponse(request, 15'000);
        QVERIFY2(response, "the client gets an answer when the run is stopped from the app");
        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), true);
        const QString answer = callresult::text(result);
        QVERIFY2(answer.startsWith(QLatin1String("tick 0\n")), qPrintable(answer));
        QVERIFY2(answer.contains(QLatin1String("stopped after")) &&
                     answer.contains(QLatin1String("by the user, from the Code Sandbox app")),
                 qPrintable(answer));
        QTRY_COMPARE_WITH_TIMEOUT(cell(model, rowOf(model, id), RunsModel::Status),
                                  QStringLiteral("Cancelled"), 5000);
        QTRY_VERIFY(!detail.showsRunningRun());
        QVERIFY(!stop.isVisible());
        QVERIFY2(findNamed<QLabel>(detail, "resultLine")
                     .text()
                     .contains(QLatin1String("Stopped from the Code Sandbox app")),
                 qPrintable(findNamed<QLabel>(detail, "resultLine").text()));
        // The whole output now, as the client got it.
        QVERIFY(out.toPlainText().startsWith(QLatin1String("tick 0\n")));
        // The message line no longer says it is stopping.
        QTRY_COMPARE(findNamed<QLabel>(page, "message").text(),
                     QStringLiteral("Run #%1 stopped.").arg(id));
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(m_server->pid()), 15'000),
                 QStringList());
    }

    // Sorted by another column than the start, the order is the history's, not the loaded
    // page's: the longest run is older than the first page of 200, and still comes first once a
    // filter has read the runs again.
    void aSortHoldsForEveryRunAndEveryFilter()
    {
        {
            const auto history = openHistory();
            QVERIFY(history);
            const QDateTime start = QDateTime::currentDateTimeUtc().addSecs(-3600);
            for (int i = 0; i <= RunsModel::kPageSize + 50; ++i) {
                csm::RunRecord run;
                run.serverInstance = QStringLiteral("tst_MainWindow");
                run.tool = QStringLiteral("run_python_code");
                run.language = QStringLiteral("python");
                run.code = QStringLiteral("print('sort %1')").arg(i);
                run.startedAt = start.addMSecs(i);
                const auto id = history->ledger().recordStart(run);
                QVERIFY(id);
                csm::RunRecord end;
                end.status = csm::RunStatus::Ok;
                end.exitCode = 0;
                end.durationMs = i == 0 ? 99'000 : 50;
                end.endedAt = run.startedAt.addMSecs(end.durationMs);
                QVERIFY(history->ledger().recordEnd(*id, end));
            }
        }
        csm::RunsPage& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QTableView& table = findNamed<QTableView>(page, "table");
        const QAbstractItemModel& shown = *table.model();
        const RunsModel& model = findNamed<RunsModel>(page, "model");
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() > RunsModel::kPageSize, 5000);
        table.sortByColumn(RunsModel::Duration, Qt::DescendingOrder);
        QTRY_COMPARE(cell(shown, 0, RunsModel::Summary), QStringLiteral("print('sort 0')"));
        // Another filter reads a page again, then every run, for the sort.
        QComboBox& language = findNamed<QComboBox>(page, "languageFilter");
        language.setCurrentIndex(language.findText(QStringLiteral("Python")));
        QTRY_COMPARE(cell(shown, 0, RunsModel::Summary), QStringLiteral("print('sort 0')"));
        QTRY_VERIFY(model.isComplete());
        language.setCurrentIndex(0);
        table.sortByColumn(RunsModel::Started, Qt::DescendingOrder);
        QTRY_COMPARE(cell(shown, 0, RunsModel::Summary),
                     QStringLiteral("print('sort %1')").arg(RunsModel::kPageSize + 50));
    }

private:
    std::unique_ptr<csm::HistoryStore> openHistory()
    {
        auto store = csm::HistoryStore::open(m_data.filePath(QStringLiteral("history.sqlite")));
        if (!store) {
            qWarning().noquote() << store.error();
            return nullptr;
        }
        return *std::move(store);
    }

    // An ended run, written as another process would write it; its id, or 0.
    qint64 writeRun(const QString& language, const QString& client, const QString& code,
                    const QDateTime& startedAt,
                    const QString& clientVersion = QStringLiteral("2.0"),
                    const QJsonObject& limits = {}, const QStringList& unenforced = {})
    {
        const auto history = openHistory();
        if (!history)
            return 0;
        csm::RunRecord run;
        run.serverInstance = QStringLiteral("tst_MainWindow");
        run.serverPid = QCoreApplication::applicationPid();
        run.hostName = QStringLiteral("test-host");
        run.transport = QStringLiteral("stdio");
        run.clientName = client;
        run.clientVersion = clientVersion;
        run.tool = QStringLiteral("run_%1_code").arg(language);
        run.language = language;
        run.code = code;
        run.limits = limits;
        run.startedAt = startedAt;
        const auto id = history->ledger().recordStart(run);
        if (!id)
            return 0;
        csm::RunRecord end;
        end.status = csm::RunStatus::Ok;
        end.exitCode = 0;
        end.stdoutText = QStringLiteral("done\n");
        end.durationMs = 120;
        end.endedAt = startedAt.addMSecs(120);
        end.unenforcedLimits = unenforced;
        return history->ledger().recordEnd(*id, end) ? *id : 0;
    }

    // The first run of the test (print('hello from the sandbox')).
    static qint64 helloRunId(const csm::RunsPage& page)
    {
        const RunsModel& model = findNamed<RunsModel>(page, "model");
        for (int row = model.rowCount() - 1; row >= 0; --row) {
            if (cell(model, row, RunsModel::Status) == QLatin1String("OK") &&
                cell(model, row, RunsModel::Client) == QLatin1String("tst 1"))
                return model.runId(row);
        }
        return 0;
    }

    // Selects the rows of `ids` with clicks, the first plain, the others with Ctrl.
    static void selectRuns(csm::RunsPage& page, const QList<qint64>& ids)
    {
        QTableView& table = findNamed<QTableView>(page, "table");
        table.setFocus();
        bool first = true;
        for (int row = 0; row < findNamed<RunsModel>(page, "model").rowCount(); ++row) {
            if (!ids.contains(findNamed<RunsModel>(page, "model").runId(row)))
                continue;
            const QRect rect = table.visualRect(table.model()->index(row, RunsModel::Language));
            QTest::mouseClick(table.viewport(), Qt::LeftButton,
                              first ? Qt::KeyboardModifiers{} : Qt::ControlModifier, rect.center());
            first = false;
        }
    }

    // The tooltip on screen, if any.
    static QLabel* toolTipLabel()
    {
        for (QWidget* widget : QApplication::topLevelWidgets()) {
            if (widget->inherits("QTipLabel") && widget->isVisible())
                return qobject_cast<QLabel*>(widget);
        }
        return nullptr;
    }

    static QAbstractButton* button(csm::RunsPage& page, QAction& action)
    {
        return qobject_cast<QAbstractButton*>(
            findNamed<QToolBar>(page, "actionsBar").widgetForAction(&action));
    }

    QTemporaryDir m_data;
    qint64 m_older = 0;
    qint64 m_oldest = 0;
    std::unique_ptr<McpStdioClient> m_server;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(tst_MainWindow)
#include "tst_MainWindow.moc"
