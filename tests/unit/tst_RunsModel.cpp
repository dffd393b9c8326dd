// RunsModel over a real SQLite history: lazy pages, live updates written through a second
// connection (as another server process writes them), filters, deletions; every model checked by
// QAbstractItemModelTester.
#include "history/HistoryStore.h"
#include "models/RunsModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

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
    QString error;
    m_store = HistoryStore::open(path, &error);
    QVERIFY2(m_store, qPrintable(error));
    m_writer = HistoryStore::open(path, &error);
    QVERIFY2(m_writer, qPrintable(error));
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
        ids.prepend(*m_writer->recordStart(newRun()));

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
    const qint64 first = *m_writer->recordStart(newRun());
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QCOMPARE(model.rowCount(), 1);

    const qint64 second = *m_writer->recordStart(newRun(QStringLiteral("gemini-cli")));
    model.refresh();
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.runId(0), second);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.index(0, RunsModel::Status).data().toString(), QStringLiteral("running"));
    QCOMPARE(model.index(0, RunsModel::Client).data().toString(),
             QStringLiteral("gemini-cli 0.1.0"));

    QVERIFY(m_writer->recordEnd(first, endedOk(3)));
    model.refresh();
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 1);
    QCOMPARE(model.index(1, RunsModel::Status).data().toString(), QStringLiteral("error"));
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
    const qint64 running = *m_writer->recordStart(newRun());
    const qint64 done = *m_writer->recordStart(newRun());
    QVERIFY(m_writer->recordEnd(done, endedOk()));
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery onlyRunning;
    onlyRunning.statuses = {RunStatus::Running};
    model.setFilter(onlyRunning);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.runId(0), running);

    // A new running run joins; the old one ends and leaves.
    const qint64 next = *m_writer->recordStart(newRun());
    QVERIFY(m_writer->recordEnd(running, endedOk()));
    model.refresh();
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.runId(0), next);
}

void tst_RunsModel::deletionsReload()
{
    const qint64 a = *m_writer->recordStart(newRun());
    const qint64 b = *m_writer->recordStart(newRun());
    RunsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(m_writer->remove({a}));
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
    QCOMPARE(headers, QStringList({QStringLiteral("Started"), QStringLiteral("Client"),
                                   QStringLiteral("Tool"), QStringLiteral("Status"),
                                   QStringLiteral("Exit"), QStringLiteral("Duration")}));
    const qint64 id = *m_writer->recordStart(newRun());
    model.refresh();
    QCOMPARE(model.index(0, 0).data(RunsModel::RunIdRole).toLongLong(), id);
    QCOMPARE(model.index(0, RunsModel::Duration).data().toString(), QStringLiteral("…"));
    QCOMPARE(model.index(0, RunsModel::ExitCode).data().toString(), QString());
}

QTEST_GUILESS_MAIN(tst_RunsModel)
#include "tst_RunsModel.moc"
