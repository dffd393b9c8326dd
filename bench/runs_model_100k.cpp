// The Runs page's model over a history of 100,000 runs: what each step the UI thread takes
// costs (opening, scrolling, refresh ticks, filters). Fills a temporary history in one bulk
// transaction through a raw QtSql connection, as many runs as a busy user's months would leave,
// then times each step with the model's real store. Prints one table; see RESULTS.md.
//
//   bench_runs_model_100k [--runs N] [--keep DIR]
#include "BenchHistory.h"
#include "BenchTable.h"
#include "history/HistoryStore.h"
#include "ui/models/RunsModel.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonObject>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

using namespace csm;

namespace {

constexpr int kHistoryDays = 90;
// Appears in no run.
const QString kMissing = QStringLiteral("no-such-text-anywhere");

QTextStream& out()
{
    static QTextStream stream(stdout);
    return stream;
}

RunRecord newRun(const QString& client)
{
    RunRecord run;
    run.serverInstance = QStringLiteral("bench-writer");
    run.serverPid = 99;
    run.hostName = QStringLiteral("bench-host");
    run.transport = QStringLiteral("stdio");
    run.clientName = client;
    run.tool = QStringLiteral("run_python_code");
    run.language = QStringLiteral("python");
    run.code = QStringLiteral("print('new')");
    return run;
}

} // namespace

int main(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    int runs = 100'000;
    QString keep;
    const QStringList arguments = app.arguments();
    for (qsizetype i = 1; i + 1 < arguments.size(); i += 2) {
        if (arguments.at(i) == QLatin1String("--runs"))
            runs = arguments.at(i + 1).toInt();
        else if (arguments.at(i) == QLatin1String("--keep"))
            keep = arguments.at(i + 1);
    }
    if (runs < 1000) {
        std::fputs("usage: bench_runs_model_100k [--runs N (>= 1000)] [--keep DIR]\n", stderr);
        return 2;
    }

    QTemporaryDir temporary;
    const QString folder = keep.isEmpty() ? temporary.path() : keep;
    const QString path = folder + QStringLiteral("/history.sqlite");
    QString error;
    const bool reuse = !keep.isEmpty() && QFileInfo::exists(path);
    if (!reuse) {
        // Creates the schema, as the app or a server would, and closes the file again.
        if (const auto created = HistoryStore::open(path); !created) {
            std::fprintf(stderr, "%s\n", qPrintable(created.error()));
            return 1;
        }
        const double fillMs = timeMs([&] {
            if (!BenchHistory::fill(path, runs, kHistoryDays, &error))
                std::fprintf(stderr, "filling the history failed: %s\n", qPrintable(error));
        });
        if (!error.isEmpty())
            return 1;
        out() << "filled " << runs << " runs in " << qRound(fillMs) << " ms (one transaction), "
              << QFileInfo(path).size() / (1024 * 1024) << " MiB\n";
    }
    auto opened = HistoryStore::open(path);
    auto writerOpened = HistoryStore::open(path); // another process's server, in effect
    if (!opened || !writerOpened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened ? writerOpened.error() : opened.error()));
        return 1;
    }
    const std::unique_ptr<HistoryStore> store = *std::move(opened);
    const std::unique_ptr<HistoryStore> writer = *std::move(writerOpened);

    std::vector<Timing> timings;
    const auto record = [&](const QString& name, std::vector<double> samples,
                            const QString& note = {}) {
        timings.push_back({name, std::move(samples), note});
    };

    // Opening: the model's constructor reads the first page.
    {
        std::vector<double> samples;
        int rows = 0;
        for (int i = 0; i < 10; ++i) {
            samples.push_back(timeMs([&] {
                RunsModel model(*store);
                rows = model.rowCount();
            }));
        }
        record(QStringLiteral("open (first page)"), samples, QStringLiteral("%1 rows").arg(rows));
    }

    RunsModel model(*store);
    // Scrolling to the end, a page per fetchMore as the view asks.
    {
        std::vector<double> samples;
        while (model.canFetchMore({}))
            samples.push_back(timeMs([&] { model.fetchMore({}); }));
        double total = 0;
        for (double s : samples)
            total += s;
        record(QStringLiteral("fetchMore, each page to the end"), samples,
               QStringLiteral("%1 rows in %2 fetches, %3 ms in all")
                   .arg(model.rowCount())
                   .arg(samples.size())
                   .arg(total, 0, 'f', 0));
    }

    const auto ticks = [&](const QString& name, int count, const std::function<void()>& before) {
        std::vector<double> samples;
        const int queries = model.rowQueries();
        for (int i = 0; i < count; ++i) {
            if (before)
                before();
            samples.push_back(timeMs([&] { model.refresh(); }));
        }
        record(name, samples,
               QStringLiteral("%1 rows; %2 row queries")
                   .arg(model.rowCount())
                   .arg(model.rowQueries() - queries));
    };
    ticks(QStringLiteral("refresh, nothing new (all rows loaded)"), 50, {});
    QList<qint64> added;
    ticks(QStringLiteral("refresh, 1 new run (all rows loaded)"), 20, [&] {
        added.append(*writer->ledger().recordStart(newRun(QStringLiteral("claude-ai"))));
    });
    ticks(QStringLiteral("refresh, 1 run ended (all rows loaded)"), 20, [&] {
        RunRecord end;
        end.status = RunStatus::Ok;
        end.exitCode = 0;
        (void)writer->ledger().recordEnd(added.takeFirst(), end);
    });

    // A filter: setFilter() reads the first slice; a filter that matches few runs reads the
    // rest of its first page in later slices, one per turn of the event loop (timed here one by
    // one: each is a time the UI thread is busy).
    const auto finishScan = [&](std::vector<double>* slices) {
        while (model.isScanning())
            slices->push_back(
                timeMs([] { QCoreApplication::processEvents(QEventLoop::AllEvents); }));
    };
    const auto filter = [&](const QString& name, const std::function<void(HistoryQuery&)>& change) {
        HistoryQuery query;
        change(query);
        std::vector<double> samples;
        std::vector<double> slices;
        double complete = 0;
        for (int i = 0; i < 5; ++i) {
            complete = timeMs([&] {
                samples.push_back(timeMs([&] { model.setFilter(query); }));
                finishScan(&slices);
            });
        }
        const int rows = model.rowCount();
        std::vector<double> next;
        if (model.canFetchMore({})) {
            next.push_back(timeMs([&] { model.fetchMore({}); }));
            finishScan(&next);
        }
        QString note = QStringLiteral("%1 rows").arg(rows);
        if (!slices.empty())
            note += QStringLiteral("; page read in %1 ms, %2 more slices of <= %3 ms")
                        .arg(complete, 0, 'f', 0)
                        .arg(slices.size() / 5)
                        .arg(*std::max_element(slices.begin(), slices.end()), 0, 'f', 1);
        if (!next.empty())
            note += QStringLiteral("; next page: slices of <= %1 ms")
                        .arg(*std::max_element(next.begin(), next.end()), 0, 'f', 1);
        record(QStringLiteral("filter: ") + name, samples, note);
    };
    filter(QStringLiteral("none (reset)"), [](HistoryQuery&) {});
    filter(QStringLiteral("text, common (\"sqrt\")"),
           [](HistoryQuery& q) { q.text = QStringLiteral("sqrt"); });
    filter(QStringLiteral("text, 1 run in 1000"),
           [](HistoryQuery& q) { q.text = BenchHistory::kRareWord; });
    filter(QStringLiteral("text, no match"), [](HistoryQuery& q) { q.text = kMissing; });
    filter(QStringLiteral("status ok (85%)"),
           [](HistoryQuery& q) { q.statuses = {RunStatus::Ok}; });
    filter(QStringLiteral("status error (10%)"),
           [](HistoryQuery& q) { q.statuses = {RunStatus::Error}; });
    filter(QStringLiteral("status interrupted (none)"),
           [](HistoryQuery& q) { q.statuses = {RunStatus::Interrupted}; });
    filter(QStringLiteral("language python"),
           [](HistoryQuery& q) { q.language = QStringLiteral("python"); });
    filter(QStringLiteral("language javascript"),
           [](HistoryQuery& q) { q.language = QStringLiteral("javascript"); });
    filter(QStringLiteral("client claude-ai (40%)"),
           [](HistoryQuery& q) { q.exactClientName = QStringLiteral("claude-ai"); });
    filter(QStringLiteral("client rare-client (0.1%)"),
           [](HistoryQuery& q) { q.exactClientName = BenchHistory::kRareClient; });
    const QDateTime now = QDateTime::currentDateTimeUtc();
    filter(QStringLiteral("time: last hour"),
           [now](HistoryQuery& q) { q.startedFrom = now.addSecs(-3600); });
    filter(QStringLiteral("time: last 7 days"),
           [now](HistoryQuery& q) { q.startedFrom = now.addDays(-7); });
    filter(QStringLiteral("time: last 30 days"),
           [now](HistoryQuery& q) { q.startedFrom = now.addDays(-30); });
    filter(QStringLiteral("rare client + javascript + last 7 days"), [now](HistoryQuery& q) {
        q.exactClientName = BenchHistory::kRareClient;
        q.language = QStringLiteral("javascript");
        q.startedFrom = now.addDays(-7);
    });

    // A filter that matches nothing: ticks stay cheap, new runs included.
    model.setFilter([] {
        HistoryQuery q;
        q.text = kMissing;
        return q;
    }());
    ticks(QStringLiteral("refresh, nothing new, filter matching nothing"), 50, {});
    ticks(QStringLiteral("refresh, 1 new run, filter matching nothing"), 20,
          [&] { (void)writer->ledger().recordStart(newRun(QStringLiteral("claude-ai"))); });
    model.setFilter({});

    {
        std::vector<double> samples;
        int names = 0;
        for (int i = 0; i < 20; ++i)
            samples.push_back(timeMs([&] { names = int(store->queries().clients()->size()); }));
        record(QStringLiteral("HistoryStore::clients()"), samples,
               QStringLiteral("%1 names").arg(names));
    }
    {
        // A deletion reloads the loaded rows: with every row loaded, all of them.
        while (model.canFetchMore({}))
            model.fetchMore({});
        std::vector<double> samples;
        std::vector<double> slices;
        for (int i = 0; i < 3; ++i) {
            (void)writer->ledger().remove({model.runId(model.rowCount() / 2)});
            samples.push_back(timeMs([&] { model.refresh(); }));
            finishScan(&slices);
        }
        record(QStringLiteral("refresh after another process's deletion (all rows loaded)"),
               samples,
               QStringLiteral("%1 rows again after %2 more slices of <= %3 ms")
                   .arg(model.rowCount())
                   .arg(slices.size() / 3)
                   .arg(*std::max_element(slices.begin(), slices.end()), 0, 'f', 1));
        model.setFilter({});
        samples.clear();
        for (int i = 0; i < 3; ++i) {
            (void)writer->ledger().remove({model.runId(model.rowCount() / 2)});
            samples.push_back(timeMs([&] { model.refresh(); }));
        }
        record(QStringLiteral("refresh after a deletion (first page loaded)"), samples,
               QStringLiteral("%1 rows").arg(model.rowCount()));
    }

    out() << "RunsModel over " << runs << " runs (" << QSysInfo::prettyProductName() << ", "
          << QSysInfo::currentCpuArchitecture() << ")\n";
    printTimings(out(), timings);
    return 0;
}
