#include "BenchHistory.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

namespace csm {

namespace {

constexpr qint64 kMsPerDay = 24LL * 60 * 60 * 1000;

QString clientFor(quint32 roll)
{
    // Per mille: a few big clients, a long tail, some runs without a name.
    if (roll < 400)
        return QStringLiteral("claude-ai");
    if (roll < 650)
        return QStringLiteral("claude-code");
    if (roll < 800)
        return QStringLiteral("gemini-cli");
    if (roll < 900)
        return QStringLiteral("cursor-vscode");
    if (roll < 990)
        return QStringLiteral("Visual Studio Code");
    if (roll < 999)
        return QStringLiteral(""); // QtSql binds a null QString as NULL
    return BenchHistory::kRareClient;
}

} // namespace

bool BenchHistory::fill(const QString& path, int runs, int days, QString* error)
{
    const QString connection = QStringLiteral("bench-fill");
    bool ok = false;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(path);
        if (!db.open()) {
            *error = db.lastError().text();
            return false;
        }
        QSqlQuery query(db);
        query.exec(QStringLiteral("PRAGMA journal_mode = WAL"));
        query.exec(QStringLiteral("BEGIN IMMEDIATE"));
        QSqlQuery insert(db);
        insert.prepare(QStringLiteral(
            "INSERT INTO runs (change_seq, server_instance, server_pid, host_name, transport, "
            "session_id, client_name, client_version, tool, language, image, code, limits, "
            "stdout_text, stderr_text, exit_code, duration_ms, status, started_at, ended_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
        QRandomGenerator random(42);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const qint64 first = now - days * kMsPerDay;
        const qint64 step = days * kMsPerDay / runs;
        const QString limits =
            QStringLiteral(R"({"cpus":1,"memory":"512m","network":"none","timeout_ms":30000})");
        for (int i = 0; i < runs; ++i) {
            const bool python = random.bounded(100) < 75;
            const quint32 statusRoll = random.bounded(100);
            const QString status = statusRoll < 85   ? QStringLiteral("ok")
                                   : statusRoll < 95 ? QStringLiteral("error")
                                   : statusRoll < 98 ? QStringLiteral("timeout")
                                                     : QStringLiteral("oom");
            // Code of 100-600 characters, output of 0-1500: typical assistant snippets.
            QString code =
                python ? QStringLiteral("import math\n") : QStringLiteral("const x = 1;\n");
            const int lines = 3 + int(random.bounded(20));
            for (int line = 0; line < lines; ++line)
                code += python
                            ? QStringLiteral("print(math.sqrt(%1) * %2)\n").arg(i).arg(line)
                            : QStringLiteral("console.log(Math.sqrt(%1) * %2);\n").arg(i).arg(line);
            if (i % 1000 == 500)
                code += QStringLiteral("# %1\n").arg(kRareWord);
            QString stdoutText = QStringLiteral("");
            const int outLines = int(random.bounded(60));
            for (int line = 0; line < outLines; ++line)
                stdoutText += QStringLiteral("%1.%2\n").arg(i).arg(random.generate());
            const QString stderrText =
                status == QLatin1String("ok")
                    ? QStringLiteral("")
                    : QStringLiteral("Traceback (most recent call last):\n  File \"<stdin>\", "
                                     "line 3\nValueError: bad value %1\n")
                          .arg(i);
            const qint64 started = first + qint64(i) * step;
            const qint64 duration = 20 + random.bounded(3000);
            insert.addBindValue(qint64(i) + 1);
            insert.addBindValue(QStringLiteral("instance-%1").arg(i / 500));
            insert.addBindValue(1000 + i / 500);
            insert.addBindValue(QStringLiteral("bench-host"));
            insert.addBindValue(QStringLiteral("stdio"));
            insert.addBindValue(QStringLiteral("session-%1").arg(i / 50));
            insert.addBindValue(clientFor(random.bounded(1000)));
            insert.addBindValue(QStringLiteral("1.0.%1").arg(i / 10000));
            insert.addBindValue(python ? QStringLiteral("run_python_code")
                                       : QStringLiteral("run_javascript_code"));
            insert.addBindValue(python ? QStringLiteral("python") : QStringLiteral("javascript"));
            insert.addBindValue(python ? QStringLiteral("code-sandbox-python:latest")
                                       : QStringLiteral("code-sandbox-javascript:latest"));
            insert.addBindValue(code);
            insert.addBindValue(limits);
            insert.addBindValue(stdoutText);
            insert.addBindValue(stderrText);
            insert.addBindValue(status == QLatin1String("ok") ? 0 : 1);
            insert.addBindValue(duration);
            insert.addBindValue(status);
            insert.addBindValue(started);
            insert.addBindValue(started + duration);
            if (!insert.exec()) {
                *error = insert.lastError().text();
                query.exec(QStringLiteral("ROLLBACK"));
                break;
            }
            if (i == runs - 1)
                ok = true;
        }
        if (ok) {
            ok = query.exec(QStringLiteral("UPDATE counters SET change_seq = %1").arg(runs)) &&
                 query.exec(QStringLiteral("COMMIT")) &&
                 query.exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
            if (!ok)
                *error = query.lastError().text();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
    return ok;
}

} // namespace csm
