// RunsModel over a real SQLite history: lazy pages, live updates written through a second
// connection (as another server process writes them), filters, deletions; every model checked by
// QAbstractItemModelTester.
#include "history/HistoryStore.h"
#include "ui/models/RunsModel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>

#include <functional>
#include <memory>

using namespace csm;

namespace {

RunRecord newRun(const QString& client = QStringLiteral("claude-ai"))
{
    RunRecord run;
    run.serverInstance = QStringLiteral("instance-1");
    run.serverPid = 4242;
    run.hostName = QStringLiteral("host");
    run.transport = QStringLiteral("stdio");
    run.clientName = client;
    run.clientVersion = QStringLiteral("0.1.0");
    run.tool = QStringLiteral("run_python_code");
    run.language = QStringLiteral("python");
    run.image = QStringLiteral("code-sandbox-python:latest");
    run.code = QStringLiteral("print(1)");
    run.startedAt = QDateTime::currentDateTimeUtc();
    return run;
}

RunRecord endedOk(int exitCode = 0)
{
    RunRecord end;
    end.status = exitCode == 0 ? RunStatus::Ok : RunStatus::Error;
    end.exitCode = exitCode;
    end.durationMs = 1234;
    end.endedAt = QDateTime::currentDateTimeUtc();
    return end;
}

} // namespace

class tst_RunsModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void emptyHistory();
    void loadsAPageAtATimeNewestFirst();
    void runsOfAnotherProcessAppearWithoutAReset();
    void statusFilterDropsRunsThatEndOutsideIt();
    void deletionsReload();
    void columns();
    void runsWithFilesAreMarked();
    void filtersByLanguageClientAndTime();
    void quietTicksAskForNoRows();
    void aRunThatEndsIntoTheFilterJoins();
    void aRareWordIsFoundWindowByWindow();
    void deleteRunsRemovesJustThoseRows();
    void aSessionsCellsShowInOrder();
    void clientsAreTheDistinctNames();
    void theSummarySaysWhatTheRunDid();
    void sortKeysAreNumbersWhereTheColumnShowsNumbers();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<HistoryStore> m_store;  // the model's connection
    std::unique_ptr<HistoryStore> m_writer; // another process's, in effect
};

void tst_RunsModel::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    const QString path = m_dir->filePath(QStringLiteral("history.sqlite"));
    auto store = HistoryStore::open(path);
    QVERIFY2(store, qPrintable(store.error()));
    m_store = *std::move(store);
    auto writer = HistoryStore::open(path);
    QVERIFY2(writer, qPrintable(writer.error()));
    m_writer = *std::move(writer);
}

void tst_RunsModel::cleanup()
{
    m_writer.reset();
    m_store.reset();
    m_dir.reset();
}

void tst_RunsModel::emptyHistory()
{
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(RunsModel::ColumnCount));
    QVERIFY(!model.canFetchMore({}));
    model.refresh();
    QCOMPARE(model.rowCount(), 0);
}

void tst_RunsModel::loadsAPageAtATimeNewestFirst()
{
    const int total = 2 * RunsModel::kPageSize + 50;
    QList<qint64> ids;
    for (int i = 0; i < total; ++i)
        ids.prepend(*m_writer->ledger().recordStart(newRun()));

    RunsModel model(*m_store);
    // No tester here: it fetches everything while checking.
    QCOMPARE(model.rowCount(), RunsModel::kPageSize);
    QVERIFY(model.canFetchMore({}));
    model.fetchMore({});
    QCOMPARE(model.rowCount(), 2 * RunsModel::kPageSize);
    model.fetchMore({});
    QCOMPARE(model.rowCount(), total);
    QVERIFY(!model.canFetchMore({}));
    for (int row = 0; row < total; ++row)
        QCOMPARE(model.runId(row), ids.at(row));
    RunsModel checked(*m_store);
    QAbstractItemModelTester tester(&checked,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(checked.rowCount(), total);
}

void tst_RunsModel::runsOfAnotherProcessAppearWithoutAReset()
{
    const qint64 first = *m_writer->ledger().recordStart(newRun());
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QCOMPARE(model.rowCount(), 1);

    const qint64 second = *m_writer->ledger().recordStart(newRun(QStringLiteral("gemini-cli")));
    model.refresh();
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.runId(0), second);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.index(0, RunsModel::Status).data().toString(), QStringLiteral("Running"));
    QCOMPARE(model.index(0, RunsModel::Client).data().toString(),
             QStringLiteral("gemini-cli 0.1.0"));

    QVERIFY(m_writer->ledger().recordEnd(first, endedOk(3)));
    model.refresh();
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 1);
    QCOMPARE(model.index(1, RunsModel::Status).data().toString(), QStringLiteral("Error"));
    QCOMPARE(model.index(1, RunsModel::ExitCode).data().toString(), QStringLiteral("3"));
    QCOMPARE(model.index(1, RunsModel::Duration).data().toString(), QStringLiteral("1.2 s"));
    // Nothing more to read: a refresh changes nothing.
    model.refresh();
    QCOMPARE(changed.size(), 1);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(resets.size(), 0);
}

void tst_RunsModel::statusFilterDropsRunsThatEndOutsideIt()
{
    const qint64 running = *m_writer->ledger().recordStart(newRun());
    const qint64 done = *m_writer->ledger().recordStart(newRun());
    QVERIFY(m_writer->ledger().recordEnd(done, endedOk()));
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery onlyRunning;
    onlyRunning.statuses = {RunStatus::Running};
    model.setFilter(onlyRunning);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.runId(0), running);

    // A new running run joins; the old one ends and leaves.
    const qint64 next = *m_writer->ledger().recordStart(newRun());
    QVERIFY(m_writer->ledger().recordEnd(running, endedOk()));
    model.refresh();
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.runId(0), next);
}

void tst_RunsModel::deletionsReload()
{
    const qint64 a = *m_writer->ledger().recordStart(newRun());
    const qint64 b = *m_writer->ledger().recordStart(newRun());
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(m_writer->ledger().remove({a}));
    model.refresh();
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.runId(0), b);
}

void tst_RunsModel::columns()
{
    RunsModel model(*m_store);
    QStringList headers;
    for (int column = 0; column < model.columnCount(); ++column)
        headers << model.headerData(column, Qt::Horizontal).toString();
    QCOMPARE(headers, QStringList({QStringLiteral("Started"), QStringLiteral("Status"),
                                   QStringLiteral("What it did"), QStringLiteral("Client"),
                                   QStringLiteral("Language"), QStringLiteral("Session"),
                                   QStringLiteral("Exit"), QStringLiteral("Duration"),
                                   QStringLiteral("Files")}));
    const qint64 id = *m_writer->ledger().recordStart(newRun());
    model.refresh();
    QCOMPARE(model.index(0, 0).data(RunsModel::RunIdRole).toLongLong(), id);
    QCOMPARE(model.index(0, RunsModel::Duration).data().toString(), QStringLiteral("…"));
    QCOMPARE(model.index(0, RunsModel::ExitCode).data().toString(), QString());
    // The language as people name it, the tool in the tooltip; one this build does not know
    // shows as recorded.
    QCOMPARE(model.index(0, RunsModel::Language).data().toString(), QStringLiteral("Python"));
    QVERIFY(model.index(0, RunsModel::Language)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("run_python_code")));
    RunRecord other = newRun();
    other.tool = QStringLiteral("run_js_code");
    other.language = QStringLiteral("javascript");
    QVERIFY(m_writer->ledger().recordStart(other));
    other.tool = QStringLiteral("run_ruby_code");
    other.language = QStringLiteral("ruby");
    QVERIFY(m_writer->ledger().recordStart(other));
    model.refresh();
    QCOMPARE(model.index(1, RunsModel::Language).data().toString(), QStringLiteral("JavaScript"));
    QCOMPARE(model.index(0, RunsModel::Language).data().toString(), QStringLiteral("ruby"));
}

void tst_RunsModel::runsWithFilesAreMarked()
{
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const qint64 plain = *m_writer->ledger().recordStart(newRun());
    QVERIFY(m_writer->ledger().recordEnd(plain, endedOk()));
    RunRecord start = newRun();
    start.filesKey = QStringLiteral("0f6e5a3c-1b2d-4e5f-8a9b-0c1d2e3f4a5b");
    const qint64 withFiles = *m_writer->ledger().recordStart(start);
    model.refresh();
    QCOMPARE(model.rowCount(), 2);
    // Running: no outputs yet.
    QCOMPARE(model.index(0, RunsModel::Files).data().toString(), QString());

    RunRecord end = endedOk();
    for (const QString& name : {QStringLiteral("a.png"), QStringLiteral("b.csv")})
        end.files.append(RunFileRecord{RunFileRecord::Direction::Output,
                                       name,
                                       10,
                                       QStringLiteral("image/png"),
                                       QStringLiteral("/x/") + name,
                                       {}});
    end.files.append(RunFileRecord{RunFileRecord::Direction::Output,
                                   QStringLiteral("link"),
                                   0,
                                   {},
                                   {},
                                   QStringLiteral("a symbolic link: not followed")});
    QVERIFY(m_writer->ledger().recordEnd(withFiles, end));
    model.refresh(); // the end, seen live
    QCOMPARE(model.index(0, 0).data(RunsModel::RunIdRole).toLongLong(), withFiles);
    QCOMPARE(model.index(0, RunsModel::Files).data().toString(), QStringLiteral("2"));
    QCOMPARE(model.index(0, RunsModel::Files).data(RunsModel::OutputFileCountRole).toInt(), 2);
    // Shown as rich text (spaces that do not break), like the table's other tooltips.
    QCOMPARE(model.index(0, RunsModel::Files).data(Qt::ToolTipRole).toString(),
             Qt::convertFromPlainText(QStringLiteral("2 output files: see the Files tab")));
    QCOMPARE(model.index(1, RunsModel::Files).data().toString(), QString());
    QCOMPARE(model.index(1, RunsModel::Files).data(RunsModel::OutputFileCountRole).toInt(), 0);

    // And when the table is read afresh.
    RunsModel reloaded(*m_store);
    QCOMPARE(reloaded.index(0, RunsModel::Files).data().toString(), QStringLiteral("2"));
}

void tst_RunsModel::filtersByLanguageClientAndTime()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto add = [this](const QString& language, const QString& client,
                            const QDateTime& started) {
        RunRecord run = newRun(client);
        run.language = language;
        run.startedAt = started;
        return *m_writer->ledger().recordStart(run);
    };
    const QString py = QStringLiteral("python");
    const QString js = QStringLiteral("javascript");
    const qint64 oldPython = add(py, QStringLiteral("claude-ai"), now.addDays(-40));
    const qint64 weekJs = add(js, QStringLiteral("gemini-cli"), now.addDays(-3));
    const qint64 hourJs = add(js, QStringLiteral("claude-ai"), now.addSecs(-1800));
    const qint64 nowNameless = add(py, QString(), now);
    const qint64 nowSub = add(py, QStringLiteral("claude-ai-beta"), now);

    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto shown = [&model] {
        QList<qint64> ids;
        if (!QTest::qWaitFor([&model] { return !model.isScanning(); }))
            return ids << -1; // still reading: fails the comparison
        for (int row = 0; row < model.rowCount(); ++row)
            ids << model.runId(row);
        return ids;
    };
    const auto filtered = [&](const std::function<void(HistoryQuery&)>& change) {
        HistoryQuery query;
        change(query);
        model.setFilter(query);
        return shown();
    };
    QCOMPARE(shown(), QList<qint64>({nowSub, nowNameless, hourJs, weekJs, oldPython}));
    QCOMPARE(filtered([&](HistoryQuery& q) { q.language = js; }), QList<qint64>({hourJs, weekJs}));
    // The exact client: not "claude-ai-beta", and the empty name is a client of its own.
    QCOMPARE(filtered([](HistoryQuery& q) { q.exactClientName = QStringLiteral("claude-ai"); }),
             QList<qint64>({hourJs, oldPython}));
    QCOMPARE(filtered([](HistoryQuery& q) { q.exactClientName = QStringLiteral(""); }),
             QList<qint64>({nowNameless}));
    QCOMPARE(filtered([&](HistoryQuery& q) { q.startedFrom = now.addSecs(-3600); }),
             QList<qint64>({nowSub, nowNameless, hourJs}));
    QCOMPARE(filtered([&](HistoryQuery& q) { q.startedFrom = now.addDays(-7); }),
             QList<qint64>({nowSub, nowNameless, hourJs, weekJs}));
    QCOMPARE(filtered([&](HistoryQuery& q) { q.startedBefore = now.addDays(-1); }),
             QList<qint64>({weekJs, oldPython}));
    QCOMPARE(filtered([&](HistoryQuery& q) {
                 q.language = js;
                 q.exactClientName = QStringLiteral("claude-ai");
                 q.startedFrom = now.addDays(-7);
             }),
             QList<qint64>({hourJs}));
    QCOMPARE(filtered([&](HistoryQuery& q) { q.startedFrom = now.addDays(1); }), QList<qint64>());

    // A new run joins a time and client filter live.
    filtered([&](HistoryQuery& q) {
        q.exactClientName = QStringLiteral("gemini-cli");
        q.startedFrom = now.addDays(-7);
    });
    const qint64 fresh = add(js, QStringLiteral("gemini-cli"), QDateTime::currentDateTimeUtc());
    add(js, QStringLiteral("claude-ai"), QDateTime::currentDateTimeUtc());
    model.refresh();
    QCOMPARE(shown(), QList<qint64>({fresh, weekJs}));
}

void tst_RunsModel::quietTicksAskForNoRows()
{
    for (int i = 0; i < 3; ++i)
        QVERIFY(m_writer->ledger().recordStart(newRun()));
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery nothing;
    nothing.text = QStringLiteral("matches no run");
    model.setFilter(nothing);
    QTRY_VERIFY(!model.isScanning());
    QCOMPARE(model.rowCount(), 0);

    // Nothing new: no query for rows at all, however many ticks.
    int queries = model.rowQueries();
    for (int i = 0; i < 5; ++i)
        model.refresh();
    QCOMPARE(model.rowQueries(), queries);

    // A new run that the filter leaves out: one lookup of that run, then quiet again.
    QVERIFY(m_writer->ledger().recordStart(newRun()));
    model.refresh();
    QCOMPARE(model.rowQueries(), queries + 1);
    QCOMPARE(model.rowCount(), 0);
    model.refresh();
    model.refresh();
    QCOMPARE(model.rowQueries(), queries + 1);

    // An older run that ends: under a filter that its end cannot change (the client), it is
    // not looked up; under a text filter (its output may match), it is, once.
    HistoryQuery client;
    client.exactClientName = QStringLiteral("nobody");
    model.setFilter(client);
    QTRY_VERIFY(!model.isScanning());
    queries = model.rowQueries();
    QVERIFY(m_writer->ledger().recordEnd(1, endedOk()));
    model.refresh();
    QCOMPARE(model.rowQueries(), queries);
    model.setFilter(nothing);
    QTRY_VERIFY(!model.isScanning());
    queries = model.rowQueries();
    QVERIFY(m_writer->ledger().recordEnd(2, endedOk()));
    model.refresh();
    QCOMPARE(model.rowQueries(), queries + 1);

    // A new run that matches joins.
    RunRecord match = newRun();
    match.code = QStringLiteral("print('matches no run')");
    const qint64 id = *m_writer->ledger().recordStart(match);
    model.refresh();
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.runId(0), id);
}

void tst_RunsModel::aRunThatEndsIntoTheFilterJoins()
{
    const qint64 older = *m_writer->ledger().recordStart(newRun());
    const qint64 running = *m_writer->ledger().recordStart(newRun());
    const qint64 newer = *m_writer->ledger().recordStart(newRun());
    QVERIFY(m_writer->ledger().recordEnd(older, endedOk()));
    QVERIFY(m_writer->ledger().recordEnd(newer, endedOk()));
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery ok;
    ok.statuses = {RunStatus::Ok};
    model.setFilter(ok);
    QTRY_VERIFY(!model.isScanning());
    QCOMPARE(model.rowCount(), 2);

    // It ended "ok": it takes its place between the two, without a reset.
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QVERIFY(m_writer->ledger().recordEnd(running, endedOk()));
    model.refresh();
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.runId(0), newer);
    QCOMPARE(model.runId(1), running);
    QCOMPARE(model.runId(2), older);
    QCOMPARE(resets.size(), 0);
}

void tst_RunsModel::aRareWordIsFoundWindowByWindow()
{
    // More runs than the first window of ids, the word in a few of them far apart.
    const int total = int(RunsModel::kFirstWindow) * 2 + 300;
    QList<qint64> expected;
    for (int i = 1; i <= total; ++i) {
        RunRecord run = newRun();
        if (i == 2 || i == 1500 || i == total - 1)
            run.code = QStringLiteral("print('rare word')");
        const qint64 id = *m_writer->ledger().recordStart(run);
        if (i == 2 || i == 1500 || i == total - 1)
            expected.prepend(id);
    }
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery rare;
    rare.text = QStringLiteral("rare word");
    model.setFilter(rare);
    QTRY_VERIFY(!model.isScanning());
    QVERIFY(!model.canFetchMore({}));
    QList<qint64> ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids << model.runId(row);
    QCOMPARE(ids, expected);
}

void tst_RunsModel::deleteRunsRemovesJustThoseRows()
{
    QList<qint64> ids;
    for (int i = 0; i < 5; ++i)
        ids.prepend(*m_writer->ledger().recordStart(newRun()));
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QVERIFY(model.deleteRuns({ids.at(1), ids.at(3)}));
    QCOMPARE(removed.size(), 2);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.runId(0), ids.at(0));
    QCOMPARE(model.runId(1), ids.at(2));
    QCOMPARE(model.runId(2), ids.at(4));
    QVERIFY(!m_store->queries().get(ids.at(1)));
    // Its own deletion does not make the next tick reload; another process's does.
    const int queries = model.rowQueries();
    model.refresh();
    QCOMPARE(resets.size(), 0);
    QCOMPARE(model.rowQueries(), queries);
    QVERIFY(m_writer->ledger().remove({ids.at(0)}));
    model.refresh();
    QCOMPARE(resets.size(), 1);
    QCOMPARE(model.rowCount(), 2);
}

void tst_RunsModel::aSessionsCellsShowInOrder()
{
    const auto cell = [](const QString& key, int number) {
        RunRecord run = newRun();
        run.sessionName = QStringLiteral("analysis");
        run.sessionKey = key;
        run.cellNumber = number;
        return run;
    };
    QList<qint64> cells;
    for (int i = 1; i <= 3; ++i) {
        QVERIFY(m_writer->ledger().recordStart(newRun())); // one-shot calls in between
        cells.append(*m_writer->ledger().recordStart(cell(QStringLiteral("key-1"), i)));
        QVERIFY(
            m_writer->ledger().recordStart(cell(QStringLiteral("key-2"), i))); // another session's
    }
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery filter;
    filter.sessionKey = QStringLiteral("key-1");
    model.setFilter(filter);
    QVERIFY(model.isOldestFirst());
    QCOMPARE(model.rowCount(), 3);
    for (int row = 0; row < 3; ++row) {
        QCOMPARE(model.runId(row), cells.at(row));
        QCOMPARE(model.rowOfRun(cells.at(row)), row); // oldest first, both ways
        QCOMPARE(model.index(row, RunsModel::Session).data().toString(),
                 QStringLiteral("analysis #%1").arg(row + 1));
    }

    // The next cell goes below, as a notebook's would; an ended cell changes in its place.
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    cells.append(*m_writer->ledger().recordStart(cell(QStringLiteral("key-1"), 4)));
    QVERIFY(m_writer->ledger().recordStart(newRun()));
    model.refresh();
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 3);
    QCOMPARE(model.runId(3), cells.at(3));
    QVERIFY(m_writer->ledger().recordEnd(cells.at(1), endedOk(2)));
    model.refresh();
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 1);
    QCOMPARE(model.index(1, RunsModel::ExitCode).data().toString(), QStringLiteral("2"));
    QVERIFY(model.deleteRuns({cells.at(0)}));
    QCOMPARE(removed.size(), 1);
    QCOMPARE(removed.at(0).at(1).toInt(), 0);
    QCOMPARE(model.runId(0), cells.at(1));
    QCOMPARE(model.runId(2), cells.at(3));

    // Without the session filter, every run again, newest first.
    model.setFilter({});
    QVERIFY(!model.isOldestFirst());
    QCOMPARE(model.runId(0), cells.at(3) + 1);
    QVERIFY(model.runId(0) > model.runId(1));
}

void tst_RunsModel::clientsAreTheDistinctNames()
{
    QCOMPARE(*m_store->queries().clients(), QStringList());
    for (const QString& name : {QStringLiteral("gemini-cli"), QStringLiteral("claude-ai"),
                                QString(), QStringLiteral("claude-ai"), QStringLiteral("Zed")})
        QVERIFY(m_writer->ledger().recordStart(newRun(name)));
    QCOMPARE(*m_store->queries().clients(),
             QStringList({QString(), QStringLiteral("Zed"), QStringLiteral("claude-ai"),
                          QStringLiteral("gemini-cli")}));
}

void tst_RunsModel::theSummarySaysWhatTheRunDid()
{
    RunRecord commented = newRun();
    commented.code =
        QStringLiteral("# load the data\n\nimport pandas as pd\nprint(pd.__version__)");
    const qint64 ok = *m_writer->ledger().recordStart(commented);
    QVERIFY(m_writer->ledger().recordEnd(ok, endedOk()));
    const qint64 failing = *m_writer->ledger().recordStart(newRun());
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 2);
    // The first line of code that is not a comment.
    QCOMPARE(model.index(1, RunsModel::Summary).data().toString(),
             QStringLiteral("import pandas as pd"));
    QCOMPARE(model.index(0, RunsModel::Summary).data().toString(), QStringLiteral("print(1)"));
    QVERIFY(!model.index(0, RunsModel::Summary).data(Qt::ForegroundRole).isValid());
    // Where a run shows, by its id.
    QCOMPARE(model.rowOfRun(ok), 1);
    QCOMPARE(model.rowOfRun(failing), 0);
    QCOMPARE(model.rowOfRun(failing + 100), -1);
    // The status in words, its colour as its swatch, and what it means in its tooltip.
    QCOMPARE(model.index(0, RunsModel::Status).data().toString(), QStringLiteral("Running"));
    QVERIFY(model.index(0, RunsModel::Status).data(Qt::DecorationRole).canConvert<QColor>());

    // It ends with an exception (read through the other connection): the error's last line,
    // in the failure's colour, however long the traceback above it.
    RunRecord end = endedOk(1);
    end.stderrText = QStringLiteral("Traceback (most recent call last):\n") +
                     QStringLiteral("  File \"x.py\", line 1, in <module>\n").repeated(50) +
                     QStringLiteral("ValueError: the data has no column 'price'\n");
    QVERIFY(m_writer->ledger().recordEnd(failing, end));
    model.refresh();
    QCOMPARE(model.index(0, RunsModel::Status).data().toString(), QStringLiteral("Error"));
    QCOMPARE(model.index(0, RunsModel::Summary).data().toString(),
             QStringLiteral("ValueError: the data has no column 'price'"));
    QVERIFY(model.index(0, RunsModel::Summary).data(Qt::ForegroundRole).canConvert<QColor>());
    // What a run's record keeps of its content: one short line of each.
    QVERIFY(model.run(0)->stderrText.size() <= 160);
    QVERIFY(model.run(0)->stdoutText.isEmpty());

    // A run that never started says why.
    RunRecord engine = newRun();
    const qint64 refused = *m_writer->ledger().recordStart(engine);
    RunRecord failed;
    failed.status = RunStatus::EngineError;
    failed.errorMessage = QStringLiteral("image code-sandbox-python:latest is not built\nrun X");
    failed.endedAt = QDateTime::currentDateTimeUtc();
    QVERIFY(m_writer->ledger().recordEnd(refused, failed));
    model.refresh();
    QCOMPARE(model.runId(0), refused);
    QCOMPARE(model.index(0, RunsModel::Summary).data().toString(),
             QStringLiteral("image code-sandbox-python:latest is not built"));
    QCOMPARE(model.index(0, RunsModel::Status).data().toString(), QStringLiteral("Did not start"));
}

void tst_RunsModel::sortKeysAreNumbersWhereTheColumnShowsNumbers()
{
    const qint64 slow = *m_writer->ledger().recordStart(newRun());
    RunRecord end = endedOk();
    end.durationMs = 90'000;
    QVERIFY(m_writer->ledger().recordEnd(slow, end));
    const qint64 fast = *m_writer->ledger().recordStart(newRun());
    end.durationMs = 800;
    QVERIFY(m_writer->ledger().recordEnd(fast, end));
    const qint64 going = *m_writer->ledger().recordStart(newRun());
    RunsModel model(*m_store);
    QCOMPARE(model.runId(0), going);
    const auto key = [&model](int row, int column) {
        return model.index(row, column).data(RunsModel::SortRole);
    };
    // "1.5 min" would sort before "800 ms" as text: the key is the milliseconds, and a run
    // still going is the longest so far.
    QVERIFY(key(1, RunsModel::Duration).toLongLong() < key(2, RunsModel::Duration).toLongLong());
    QVERIFY(key(0, RunsModel::Duration).toLongLong() > key(2, RunsModel::Duration).toLongLong());
    QCOMPARE(key(0, RunsModel::Started).toLongLong(), going);
    QCOMPARE(key(1, RunsModel::ExitCode).toInt(), 0);
    QVERIFY(key(0, RunsModel::ExitCode).toInt() < 0);
}

QTEST_GUILESS_MAIN(tst_RunsModel)
#include "tst_RunsModel.moc"
