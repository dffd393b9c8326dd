// The Activity page over a history of 100,000 runs, all in the last 30 days: what the SQL
// aggregation costs per range, what opening the page and changing its range take until the
// charts show, and the longest the GUI thread is kept from its events meanwhile (the reading
// runs on a worker thread). Prints one table; see RESULTS.md.
//
//   QT_QPA_PLATFORM=offscreen bench_activity_100k [--runs N]
#include "BenchHistory.h"
#include "BenchTable.h"
#include "history/HistoryStore.h"
#include "ui/pages/ActivityPage.h"
#include "ui/widgets/ActivityCharts.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <QTimer>

#include <cstdio>
#include <memory>

using namespace csm;

namespace {

constexpr int kHistoryDays = 30;

QTextStream& out()
{
    static QTextStream stream(stdout);
    return stream;
}

struct Range
{
    ActivityPage::Range range;
    const char* name;
};
constexpr Range kRanges[] = {
    {ActivityPage::Range::LastHour, "last hour"},
    {ActivityPage::Range::Last24Hours, "last 24 hours"},
    {ActivityPage::Range::Last7Days, "last 7 days"},
    {ActivityPage::Range::Last30Days, "last 30 days"},
};

// Runs the event loop until `page` shows a report for `range`; returns the wall time, and
// the longest gap between two ticks of a 1 ms timer meanwhile in `stallMs`.
double untilShown(ActivityPage& page, ActivityPage::Range range, double* stallMs,
                  const std::function<void()>& start)
{
    const int buckets = ActivityPage::queryFor(range, QDateTime::currentDateTime()).bucketCount();
    QElapsedTimer sinceTick;
    double longest = 0;
    QTimer ticker;
    ticker.setInterval(1);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        longest = std::max(longest, double(sinceTick.nsecsElapsed()) / 1e6);
        sinceTick.restart();
    });
    QElapsedTimer wall;
    wall.start();
    sinceTick.start();
    ticker.start();
    start();
    const bool shown = QTest::qWaitFor(
        [&] {
            return !page.isLoading() && page.report() &&
                   page.report()->query.bucketCount() == buckets;
        },
        60'000);
    const double ms = double(wall.nsecsElapsed()) / 1e6;
    if (!shown)
        std::fputs("the page did not show a report within a minute\n", stderr);
    longest = std::max(longest, double(sinceTick.nsecsElapsed()) / 1e6);
    *stallMs = longest;
    return ms;
}

} // namespace

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    int runs = 100'000;
    const QStringList arguments = app.arguments();
    for (qsizetype i = 1; i + 1 < arguments.size(); i += 2) {
        if (arguments.at(i) == QLatin1String("--runs"))
            runs = arguments.at(i + 1).toInt();
    }
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("history.sqlite"));
    QString error;
    if (const auto created = HistoryStore::open(path); !created) {
        std::fprintf(stderr, "%s\n", qPrintable(created.error()));
        return 1;
    }
    if (!BenchHistory::fill(path, runs, kHistoryDays, &error)) {
        std::fprintf(stderr, "filling the history failed: %s\n", qPrintable(error));
        return 1;
    }
    auto opened = HistoryStore::open(path);
    if (!opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error()));
        return 1;
    }
    const std::unique_ptr<HistoryStore> store = *std::move(opened);
    std::vector<Timing> timings;

    // The aggregation alone, on this thread.
    for (const Range& range : kRanges) {
        std::vector<double> samples;
        int calls = 0;
        const ActivityQuery query =
            ActivityPage::queryFor(range.range, QDateTime::currentDateTime());
        for (int i = 0; i < 10; ++i) {
            samples.push_back(
                timeMs([&] { calls = store->queries().activity(query)->totalCalls; }));
        }
        timings.push_back(
            {QStringLiteral("HistoryStore::activity, %1").arg(QLatin1String(range.name)), samples,
             QStringLiteral("%1 calls in %2 intervals").arg(calls).arg(query.bucketCount())});
    }
    // Drawing the charts (GUI thread), from a report already read.
    for (const Range& range : {kRanges[1], kRanges[3]}) {
        const auto report = store->queries().activity(
            ActivityPage::queryFor(range.range, QDateTime::currentDateTime()));
        ActivityCharts charts;
        charts.resize(1200, 600);
        charts.show();
        std::vector<double> samples;
        for (int i = 0; i < 10; ++i) {
            samples.push_back(timeMs([&] {
                charts.showReport(*report);
                charts.repaint();
            }));
        }
        timings.push_back({QStringLiteral("ActivityCharts::showReport + paint, %1")
                               .arg(QLatin1String(range.name)),
                           samples, QStringLiteral("GUI thread")});
    }
    // The page: opened (default range, 24 hours) and its range changed, until the charts show.
    {
        std::vector<double> open;
        std::vector<double> stalls;
        for (int i = 0; i < 5; ++i) {
            ActivityPage page(*store);
            page.resize(1280, 720);
            double stall = 0;
            open.push_back(
                untilShown(page, ActivityPage::Range::Last24Hours, &stall, [&] { page.show(); }));
            stalls.push_back(stall);
        }
        timings.push_back({QStringLiteral("ActivityPage opened until its charts show"), open,
                           QStringLiteral("last 24 hours")});
        timings.push_back({QStringLiteral("  longest GUI-thread stall meanwhile"), stalls, {}});
        ActivityPage page(*store);
        page.resize(1280, 720);
        double stall = 0;
        untilShown(page, ActivityPage::Range::Last24Hours, &stall, [&] { page.show(); });
        std::vector<double> changes;
        stalls.clear();
        for (int i = 0; i < 3; ++i) {
            for (const Range& range : kRanges) {
                changes.push_back(
                    untilShown(page, range.range, &stall, [&] { page.setRange(range.range); }));
                stalls.push_back(stall);
            }
        }
        timings.push_back({QStringLiteral("range changed until the charts show"), changes,
                           QStringLiteral("each of the 4 ranges, 3 times")});
        timings.push_back({QStringLiteral("  longest GUI-thread stall meanwhile"), stalls, {}});
    }

    out() << "Activity view over " << runs << " runs in the last " << kHistoryDays << " days ("
          << QFileInfo(path).size() / (1024 * 1024) << " MiB; " << QSysInfo::prettyProductName()
          << ", " << QSysInfo::currentCpuArchitecture() << ")\n";
    printTimings(out(), timings);
    return 0;
}
