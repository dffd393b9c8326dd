// The Activity page of the real main window under the offscreen platform, over a real SQLite
// history written as servers write it: its charts count what the history holds, interval by
// interval, and a click on a bar shows that bar's runs on the Runs page.
#include "FindNamed.h"
#include "history/HistoryStore.h"
#include "ui/MainWindow.h"
#include "ui/models/RunsModel.h"
#include "ui/pages/ActivityPage.h"
#include "ui/pages/RunsPage.h"
#include "ui/settings/DesktopSettings.h"
#include "ui/widgets/ActivityCharts.h"
#include "ui/widgets/ChartLegend.h"
#include "ui/widgets/RunsFilterBar.h"

#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QLegend>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

using csm::ActivityPage;
using csm::RunStatus;

class tst_ActivityPage final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        auto opened = csm::HistoryStore::open(historyPath());
        QVERIFY2(opened, qPrintable(opened.error()));
        std::unique_ptr<csm::HistoryStore> store = *std::move(opened);
        // Over the last 24 hours: claude-code in this hour and three hours ago, codex two hours
        // ago, with every outcome; and runs of two days ago, outside the range.
        const QDateTime now = QDateTime::currentDateTime();
        const QDateTime hourStart =
            QDateTime::fromMSecsSinceEpoch(now.toMSecsSinceEpoch() / 3'600'000 * 3'600'000);
        m_thisHour = hourStart;
        const auto add = [&](const QDateTime& at, const QString& client, RunStatus status,
                             qint64 durationMs) {
            csm::RunRecord run;
            run.tool = QStringLiteral("run_python_code");
            run.language = QStringLiteral("python");
            run.clientName = client;
            run.code = QStringLiteral("print(%1)").arg(durationMs);
            run.startedAt = at;
            const auto id = store->ledger().recordStart(run);
            QVERIFY(id);
            csm::RunRecord end;
            end.status = status;
            end.exitCode = status == RunStatus::Ok ? 0 : 1;
            end.durationMs = durationMs;
            end.endedAt = at.addMSecs(durationMs);
            QVERIFY(store->ledger().recordEnd(*id, end));
        };
        for (int i = 0; i < 6; ++i)
            add(hourStart.addSecs(i), QStringLiteral("claude-code"), RunStatus::Ok, 100 + i);
        add(hourStart.addSecs(7), QStringLiteral("claude-code"), RunStatus::Error, 50);
        for (int i = 0; i < 3; ++i) {
            add(hourStart.addSecs(-2 * 3600 + i), QStringLiteral("codex"),
                i == 0 ? RunStatus::Timeout : RunStatus::Oom, 30'000);
        }
        add(hourStart.addSecs(-3 * 3600 + 1), QStringLiteral("claude-code"), RunStatus::Cancelled,
            700);
        add(now.addDays(-2), QStringLiteral("old"), RunStatus::Ok, 1);
        store.reset();

        csm::DesktopSettings desktop;
        desktop.setupDone = true;
        QVERIFY(desktop.save(m_data.path()));
        m_window = std::make_unique<csm::MainWindow>(m_data.path());
        m_window->resize(1280, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanupTestCase() { m_window.reset(); }

    // The page's counts are the history's, per client and per outcome, in the right hours.
    void chartsCountWhatTheHistoryHolds()
    {
        QTabWidget& pages = findNamed<QTabWidget>(*m_window, "pages");
        ActivityPage& page = findNamed<ActivityPage>(*m_window, "activityPage");
        pages.setCurrentWidget(&page);
        QTRY_VERIFY(page.report().has_value());
        QTRY_VERIFY(!page.isLoading());
        const csm::ActivityReport& report = *page.report();
        QCOMPARE(report.query.bucketCount(), 24);
        const int now = bucketOf(report, m_thisHour); // the last, unless the hour turned since
        QVERIFY(now == 23 || now == 22);
        QCOMPARE(report.totalCalls, 11);

        const csm::ActivityCharts& charts = findNamed<csm::ActivityCharts>(page, "activityCharts");
        const QList<QBarSet*> clients = charts.clientSets();
        QCOMPARE(clients.size(), 2);
        QCOMPARE(clients.at(0)->label(), QStringLiteral("claude-code"));
        QCOMPARE(clients.at(0)->at(now), 7.0);
        QCOMPARE(clients.at(0)->at(now - 3), 1.0);
        QCOMPARE(clients.at(1)->label(), QStringLiteral("codex"));
        QCOMPARE(clients.at(1)->at(now - 2), 3.0);
        QCOMPARE(clients.at(1)->sum(), 3.0);
        // What the history says, counted by its own query, bar by bar.
        auto store = csm::HistoryStore::open(historyPath());
        QVERIFY(store);
        for (QBarSet* set : clients) {
            for (int bucket = 0; bucket < set->count(); ++bucket) {
                csm::HistoryQuery query;
                query.exactClientName = set->label();
                query.startedFrom = report.query.bucketStart(bucket);
                query.startedBefore = report.query.bucketStart(bucket + 1);
                QCOMPARE(qint64(set->at(bucket)), *(*store)->queries().count(query));
            }
        }
        QStringList statuses;
        for (QBarSet* set : charts.statusSets())
            statuses << set->label();
        QCOMPARE(statuses, (QStringList{QStringLiteral("OK"), QStringLiteral("Error"),
                                        QStringLiteral("Timed out"), QStringLiteral("Cancelled"),
                                        QStringLiteral("Out of memory")}));
        QCOMPARE(charts.statusSets().at(4)->at(now - 2), 2.0);
        // Median and 95th percentile of this hour's seven (50, 100..105 ms), by nearest rank.
        QCOMPARE(report.p50Ms.at(now), 102);
        QCOMPARE(report.p95Ms.at(now), 105);
        const QString summary = findNamed<QLabel>(page, "activitySummary").text();
        QVERIFY2(summary.contains(QLatin1String("11 calls")) &&
                     summary.contains(QLatin1String("55% ok")) &&
                     summary.contains(QLatin1String("2 clients")),
                 qPrintable(summary));
    }

    // The charts draw in the palette's colours, dark or light, and their plots start at the
    // same x, so that an interval is in line across the three.
    void chartsFollowThePaletteAndLineUp()
    {
        QTabWidget& pages = findNamed<QTabWidget>(*m_window, "pages");
        ActivityPage& page = findNamed<ActivityPage>(*m_window, "activityPage");
        pages.setCurrentWidget(&page);
        QTRY_VERIFY(!page.isLoading());
        auto& charts = findNamed<csm::ActivityCharts>(page, "activityCharts");
        const auto views = [&charts] {
            return QList<QChartView*>{charts.callsView(), charts.outcomesView(),
                                      charts.durationsView()};
        };
        const auto linedUp = [&views] {
            const qreal left = views().constFirst()->chart()->plotArea().left();
            for (QChartView* view : views()) {
                if (std::abs(view->chart()->plotArea().left() - left) > 1.0)
                    return false;
            }
            return left > 0;
        };
        QTRY_VERIFY(linedUp());

        QPalette dark = charts.palette();
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Window, QColor(0x2a, 0x2a, 0x2a));
        dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
        charts.setPalette(dark);
        for (QChartView* view : views()) {
            QTRY_COMPARE(view->chart()->backgroundBrush().color(), QColor(0x20, 0x20, 0x20));
            QCOMPARE(view->chart()->theme(), QChart::ChartThemeDark);
            QCOMPARE(view->chart()->titleBrush().color(), QColor(0xe0, 0xe0, 0xe0));
        }
        QTRY_VERIFY(linedUp());
        charts.setPalette(QApplication::palette());
        QTRY_COMPARE(charts.callsView()->chart()->theme(), QChart::ChartThemeLight);
    }

    // However many clients there are, the legend lists every one, over as many lines as the
    // width needs and scrolling past a few; the chart's own legend (one line) is not shown.
    void everyClientIsInTheLegend()
    {
        csm::ActivityReport report;
        report.query.before = QDateTime::currentDateTimeUtc();
        report.query.from = report.query.before.addSecs(-12 * 3600);
        QStringList clients;
        for (int i = 0; i < 14; ++i) {
            const QString name = QStringLiteral("assistant-number-%1-mcp-client").arg(i);
            clients << name;
            report.clients.append({name, QList<int>(12, 1), 12});
        }
        report.statuses.append({csm::RunStatus::Ok, QList<int>(12, 14), 168});
        report.p50Ms = report.p95Ms = report.maxMs = QList<qint64>(12, 100);
        report.totalCalls = 168;
        csm::ActivityCharts charts;
        charts.resize(1024, 700);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        charts.showReport(report);
        csm::ChartLegend& legend = *charts.clientsLegend();
        QCOMPARE(legend.names(), clients);
        QVERIFY(!charts.callsView()->chart()->legend()->isVisible());
        // Fourteen long names do not fit on one line at 1024 pixels: more lines, then a scroll.
        QTRY_VERIFY(legend.height() > legend.minimumSizeHint().height());
        QVERIFY(legend.height() <= csm::ChartLegend::kMaxLines * legend.minimumSizeHint().height() +
                                       2 * legend.frameWidth());
        // Each swatch is its bar set's colour.
        QCOMPARE(legend.item(3)->icon().pixmap(8, 8).toImage().pixelColor(4, 4),
                 charts.clientSets().at(3)->color());
    }

    // A new run shows without touching the page; another range reads the history again.
    void followsTheHistoryAndTheRange()
    {
        ActivityPage& page = findNamed<ActivityPage>(*m_window, "activityPage");
        {
            auto store = csm::HistoryStore::open(historyPath());
            QVERIFY(store);
            csm::RunRecord run;
            run.clientName = QStringLiteral("gemini-cli");
            QVERIFY((*store)->ledger().recordStart(run));
        }
        QTRY_COMPARE_WITH_TIMEOUT(page.report()->totalCalls, 12, ActivityPage::kChangeCheckMs * 3);
        QCOMPARE(page.report()->clients.size(), 3);
        findNamed<QComboBox>(page, "activityRange")
            .setCurrentIndex(int(ActivityPage::Range::Last7Days));
        QTRY_COMPARE(page.report()->query.bucketCount(), 7);
        QTRY_COMPARE(page.report()->totalCalls, 13); // two days ago too
        findNamed<QComboBox>(page, "activityRange")
            .setCurrentIndex(int(ActivityPage::Range::Last24Hours));
        QTRY_COMPARE(page.report()->query.bucketCount(), 24);
    }

    // Clicking codex's bar, two hours ago, shows exactly its three runs on the Runs page.
    void clickingABarFiltersTheRunsTable()
    {
        QTabWidget& pages = findNamed<QTabWidget>(*m_window, "pages");
        ActivityPage& page = findNamed<ActivityPage>(*m_window, "activityPage");
        QTRY_VERIFY(!page.isLoading());
        const csm::ActivityCharts& charts = findNamed<csm::ActivityCharts>(page, "activityCharts");
        QBarSet* codex = nullptr;
        for (QBarSet* set : charts.clientSets()) {
            if (set->label() == QLatin1String("codex"))
                codex = set;
        }
        QVERIFY(codex);
        QChartView* view = charts.callsView();
        QChart* chart = view->chart();
        auto* series = qobject_cast<QStackedBarSeries*>(chart->series().constFirst());
        QVERIFY(series);
        const int bucket = bucketOf(*page.report(), m_thisHour.addSecs(-2 * 3600));
        // The middle of codex's bar (the second in the stack, on top of claude-code's nothing).
        const QPointF middle = chart->mapToPosition(QPointF(bucket, codex->at(bucket) / 2), series);
        const QPoint at = view->mapFromScene(chart->mapToScene(middle));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);

        csm::RunsPage& runs = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QTRY_COMPARE(pages.currentWidget(), &runs);
        const csm::RunsModel& model = findNamed<csm::RunsModel>(runs, "model");
        QTRY_COMPARE(model.rowCount(), 3);
        for (int row = 0; row < model.rowCount(); ++row)
            QCOMPARE(model.index(row, csm::RunsModel::Client).data().toString(),
                     QStringLiteral("codex"));
        QCOMPARE(findNamed<QComboBox>(runs, "clientFilter").currentData().toString(),
                 QStringLiteral("codex"));
        QCOMPARE(findNamed<QComboBox>(runs, "timeFilter").currentData().toInt(),
                 int(csm::RunsFilterBar::TimeRange::Custom));
        QVERIFY2(findNamed<QComboBox>(runs, "timeFilter")
                     .currentText()
                     .contains(m_thisHour.addSecs(-2 * 3600).toString(QStringLiteral("HH:mm"))),
                 qPrintable(findNamed<QComboBox>(runs, "timeFilter").currentText()));
    }

    // An outcome bar selects its status: this hour's one error.
    void anOutcomeBarSelectsItsStatus()
    {
        ActivityPage& page = findNamed<ActivityPage>(*m_window, "activityPage");
        const csm::ActivityCharts& charts = findNamed<csm::ActivityCharts>(page, "activityCharts");
        QBarSet* errors = nullptr;
        for (QBarSet* set : charts.statusSets()) {
            if (set->label() == QLatin1String("Error"))
                errors = set;
        }
        QVERIFY(errors);
        Q_EMIT errors->clicked(bucketOf(*page.report(), m_thisHour));
        csm::RunsPage& runs = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const csm::RunsModel& model = findNamed<csm::RunsModel>(runs, "model");
        QTRY_COMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, csm::RunsModel::Status).data().toString(), QStringLiteral("Error"));
        QCOMPARE(findNamed<QComboBox>(runs, "clientFilter").currentIndex(), 0);
    }

private:
    // The interval of `report` that `time` falls in.
    static int bucketOf(const csm::ActivityReport& report, const QDateTime& time)
    {
        return int(report.query.from.msecsTo(time) / report.query.bucketMs);
    }

    QString historyPath() const { return m_data.filePath(QStringLiteral("history.sqlite")); }

    QTemporaryDir m_data;
    QDateTime m_thisHour;
    std::unique_ptr<csm::MainWindow> m_window;
};

QTEST_MAIN(tst_ActivityPage)
#include "tst_ActivityPage.moc"
