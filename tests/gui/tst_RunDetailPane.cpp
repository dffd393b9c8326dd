// The detail pane alone under the offscreen platform, fed runs as the Runs page reads them from
// the history: a running run's output that grows keeps what the person selected and follows
// the end; Stop asks once, says it is stopping, and says so when the run's server never
// answers; a run that ends shows its whole output and no Stop; the Network tab lists the run's
// connections, refusals marked, and says how many more were not listed.
#include "FindNamed.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/widgets/RunNetworkView.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTextCursor>

using csm::RunDetailPane;
using csm::RunRecord;
using csm::RunStatus;

namespace {

RunRecord running(const QString& stdoutText)
{
    RunRecord run;
    run.id = 7;
    run.status = RunStatus::Running;
    run.tool = QStringLiteral("run_python_code");
    run.language = QStringLiteral("python");
    run.code = QStringLiteral("for i in range(100): print(i)");
    run.startedAt = QDateTime::currentDateTime().addSecs(-3);
    run.stdoutText = stdoutText;
    return run;
}

QString lines(int from, int to)
{
    QString text;
    for (int line = from; line < to; ++line)
        text += QStringLiteral("line %1\n").arg(line);
    return text;
}

} // namespace

class tst_RunDetailPane final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void growingOutputKeepsTheSelectionAndFollowsTheEnd()
    {
        RunDetailPane pane;
        pane.resize(600, 300);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        auto& out = findNamed<QPlainTextEdit>(pane, "stdout");
        pane.showRun(running(lines(0, 200)));
        QTextCursor selection(out.document());
        selection.setPosition(0);
        selection.setPosition(6, QTextCursor::KeepAnchor);
        out.setTextCursor(selection);
        QCOMPARE(out.textCursor().selectedText(), QStringLiteral("line 0"));
        QScrollBar* bar = out.verticalScrollBar();
        bar->setValue(bar->maximum()); // then scrolled to the end: following it

        pane.showRun(running(lines(0, 400)));
        QCOMPARE(out.toPlainText(), lines(0, 400));
        QCOMPARE(out.textCursor().selectedText(), QStringLiteral("line 0"));
        QCOMPARE(bar->value(), bar->maximum());

        // Scrolled up to read: it stays there while more comes, and Jump to end offers the way
        // back, to the end and following it again.
        auto& jump = findNamed<QPushButton>(pane, "jumpToEnd");
        QVERIFY(!jump.isVisible());
        bar->setValue(10);
        pane.showRun(running(lines(0, 600)));
        QCOMPARE(bar->value(), 10);
        QVERIFY(jump.isVisible());
        QTest::mouseClick(&jump, Qt::LeftButton);
        QCOMPARE(bar->value(), bar->maximum());
        QVERIFY(!jump.isVisible());
        pane.showRun(running(lines(0, 650)));
        QCOMPARE(bar->value(), bar->maximum());
        bar->setValue(10);
        QVERIFY(jump.isVisible());

        // The end: the whole output, no Stop.
        RunRecord ended = running(lines(0, 700));
        ended.status = RunStatus::Ok;
        ended.exitCode = 0;
        ended.durationMs = 4200;
        pane.showRun(ended);
        QCOMPARE(out.toPlainText(), lines(0, 700));
        QVERIFY(!pane.showsRunningRun());
        QVERIFY(!findNamed<QPushButton>(pane, "stopButton").isVisible());
        // Nothing more will come: no Jump to end, wherever the view is.
        QVERIFY(!jump.isVisible());
        QVERIFY(findNamed<QLabel>(pane, "summary").text().contains(QLatin1String("4200 ms")));
    }

    // Opened while it runs, a run shows the end of its output and follows it; opened once it
    // ended, it shows the start.
    void aRunningRunOpensAtItsEnd()
    {
        RunDetailPane pane;
        pane.resize(600, 300);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        auto& out = findNamed<QPlainTextEdit>(pane, "stdout");
        QScrollBar* bar = out.verticalScrollBar();
        pane.showRun(running(lines(0, 200)));
        QVERIFY(bar->maximum() > 0);
        QCOMPARE(bar->value(), bar->maximum());
        pane.showRun(running(lines(0, 300)));
        QCOMPARE(bar->value(), bar->maximum());

        RunRecord other = running(lines(0, 300));
        other.id = 8;
        other.status = RunStatus::Ok;
        other.exitCode = 0;
        pane.showRun(other);
        QCOMPARE(bar->value(), 0);
    }

    void stopAsksOnceAndSaysWhenNobodyAnswers()
    {
        RunDetailPane pane;
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QSignalSpy asked(&pane, &RunDetailPane::stopRequested);
        pane.showRun(running(QStringLiteral("0\n")));
        auto& stop = findNamed<QPushButton>(pane, "stopButton");
        const auto& summary = findNamed<QLabel>(pane, "summary");
        QVERIFY(stop.isVisible() && stop.isEnabled());
        const auto& result = findNamed<QLabel>(pane, "resultLine");
        QVERIFY2(result.text().startsWith(QLatin1String("Running for ")),
                 qPrintable(result.text()));
        QTest::mouseClick(&stop, Qt::LeftButton);
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.at(0).at(0).toLongLong(), 7);
        QVERIFY(!stop.isEnabled());
        QVERIFY(summary.text().contains(QStringLiteral("Stopping…")));
        // New output while it stops does not offer Stop again.
        pane.showRun(running(QStringLiteral("0\n1\n")));
        QVERIFY(!stop.isEnabled());

        // The history refused the request: Stop can be pressed again.
        pane.stopFailed();
        QVERIFY(stop.isEnabled());
        QVERIFY(!summary.text().contains(QStringLiteral("Stopping…")));

        // Asked, and the run goes on: after a while the pane says why that may be.
        QTest::mouseClick(&stop, Qt::LeftButton);
        QCOMPARE(asked.size(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(stop.isEnabled(), RunDetailPane::kStopAnswerMs + 2000);
        QVERIFY2(summary.text().contains(QLatin1String("has not stopped it")),
                 qPrintable(summary.text()));

        // Another run shown: nothing of this one's Stop stays.
        RunRecord other = running(QString());
        other.id = 8;
        pane.showRun(other);
        QVERIFY(stop.isEnabled());
        QVERIFY(!summary.text().contains(QLatin1String("has not stopped it")));
    }

    // What became of a run, in plain words at the top, and the tab that shows it best opens:
    // Stderr for a program's error, the output for a timeout, the code for a kill that left
    // nothing printed, the chart for a run that made one.
    void theResultLineSaysWhatBecameOfTheRun()
    {
        RunDetailPane pane;
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        const auto& result = findNamed<QLabel>(pane, "resultLine");
        auto& tabs = findNamed<QTabWidget>(pane, "detailTabs");
        const auto tabShown = [&tabs] {
            return tabs.currentWidget()->objectName();
        };

        RunRecord oom = running(QString());
        oom.status = RunStatus::Oom;
        oom.durationMs = 21'940;
        oom.exitCode = 137;
        oom.limits = {{QStringLiteral("memory_bytes"), 536870912}};
        pane.showRun(oom);
        QCOMPARE(result.text(), QStringLiteral("Ran out of memory (512 MiB) after 21.9 s"));
        QCOMPARE(tabShown(), QStringLiteral("codeView"));

        RunRecord late = running(QStringLiteral("step 1\nstep 2\n"));
        late.id = 8;
        late.status = RunStatus::Timeout;
        late.durationMs = 30'040;
        late.limits = {{QStringLiteral("timeout_ms"), 30'000}};
        pane.showRun(late);
        QCOMPARE(result.text(), QStringLiteral("Timed out at its 30 s limit"));
        QCOMPARE(tabShown(), QStringLiteral("stdout"));

        RunRecord failed = running(QStringLiteral("before\n"));
        failed.id = 9;
        failed.status = RunStatus::Error;
        failed.exitCode = 1;
        failed.durationMs = 412;
        failed.stderrText = QStringLiteral("Traceback (most recent call last):\n  File \"<run>\", "
                                           "line 1\nZeroDivisionError: division by zero\n");
        pane.showRun(failed);
        QCOMPARE(result.text(), QStringLiteral("Failed with exit code 1 after 412 ms: "
                                               "ZeroDivisionError: division by zero"));
        QCOMPARE(tabShown(), QStringLiteral("stderr"));

        RunRecord refused = running(QString());
        refused.id = 10;
        refused.status = RunStatus::EngineError;
        refused.errorMessage = QStringLiteral("image localhost/code-sandbox-python is not built");
        pane.showRun(refused);
        QCOMPARE(result.text(),
                 QStringLiteral("Did not start: image localhost/code-sandbox-python is not built"));

        RunRecord plotted = running(QStringLiteral("saved\n"));
        plotted.id = 11;
        plotted.status = RunStatus::Ok;
        plotted.durationMs = 2'500;
        plotted.outputFileCount = 1;
        csm::RunFileRecord chart;
        chart.path = QStringLiteral("chart.png");
        chart.mimeType = QStringLiteral("image/png");
        chart.storedPath = QStringLiteral("/nonexistent/chart.png");
        chart.sizeBytes = 48'230;
        plotted.files = {chart};
        pane.showRun(plotted);
        QCOMPARE(result.text(), QStringLiteral("Finished in 2.5 s, with 1 file back"));
        QCOMPARE(tabShown(), QStringLiteral("files"));

        // The same run again (its output grew, or it ended) keeps the tab the person chose.
        tabs.setCurrentWidget(&findNamed<QWidget>(pane, "codeView"));
        pane.showRun(plotted);
        QCOMPARE(tabShown(), QStringLiteral("codeView"));
    }

    void theNetworkTabListsTheConnections()
    {
        RunDetailPane pane;
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        RunRecord run = running(QString());
        run.status = RunStatus::Ok;
        const QDateTime started = QDateTime::currentDateTime();
        run.connections = {
            {QStringLiteral("pypi.org"), 443, true, QStringLiteral("pypi.org:443: a public host"),
             QStringLiteral("151.101.0.223"), 517, 48'211, started, 840},
            {QStringLiteral("169.254.169.254"), 80, false,
             QStringLiteral("169.254.169.254:80: 169.254.169.254 is link-local"), QString(), 0, 0,
             started, 1},
        };
        run.connectionsNotListed = 3;
        pane.showRun(run);
        auto& network = findNamed<csm::RunNetworkView>(pane, "network");
        // The tab's page sits in the tab widget's stack.
        auto& tabs = *qobject_cast<QTabWidget*>(network.parentWidget()->parentWidget());
        QCOMPARE(tabs.tabText(tabs.indexOf(&network)), QStringLiteral("Network (5, 1 refused)"));
        QCOMPARE(network.topLevelItemCount(), 3);
        QCOMPARE(network.topLevelItem(0)->text(csm::RunNetworkView::HostColumn),
                 QStringLiteral("pypi.org:443"));
        QCOMPARE(network.topLevelItem(1)->text(csm::RunNetworkView::OutcomeColumn),
                 QStringLiteral("Refused"));
        QCOMPARE(network.topLevelItem(2)->text(csm::RunNetworkView::HostColumn),
                 QStringLiteral("3 more connections not listed"));

        // The result line says what was refused, and why, in the pane's first words.
        QCOMPARE(findNamed<QLabel>(pane, "resultLine").text(),
                 QStringLiteral("Finished in 0 ms\n1 connection refused: 169.254.169.254 is "
                                "link-local"));

        run.connections.clear();
        run.connectionsNotListed = 0;
        pane.showRun(run);
        QCOMPARE(tabs.tabText(tabs.indexOf(&network)), QStringLiteral("Network"));
        QCOMPARE(findNamed<QLabel>(pane, "resultLine").text(), QStringLiteral("Finished in 0 ms"));
        QCOMPARE(network.topLevelItemCount(), 0);
    }
};

QTEST_MAIN(tst_RunDetailPane)
#include "tst_RunDetailPane.moc"
