// InterpreterSessionExporter: a session's cells as a Jupyter notebook (checked field by field, then
// against the real nbformat schema with Debian's python3-nbformat) and as a script (its markers,
// its order, and run for real by python3).
#include "core/UtcDateTime.h"
#include "history/InterpreterSessionExporter.h"
#include "NotebookCheck.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using csm::InterpreterSessionExporter;
using csm::RunFileRecord;
using csm::RunRecord;
using csm::RunStatus;

Q_DECLARE_METATYPE(csm::RunStatus)

namespace {

// A real 2x2 PNG.
const QByteArray kPng = QByteArray::fromBase64("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEkl"
                                               "EQVR4nGP4zwAE/yH4////ACTrBfsxGjXnAAAAAElFTkSuQmCC");
const QByteArray kSvg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\">\n"
                        "<rect width=\"4\" height=\"4\" fill=\"red\"/>\n</svg>\n";

const char* const kNbformatMissing =
    "python3 with nbformat and jsonschema is missing: install "
    "python3-nbformat and python3-jsonschema (scripts/install-deps "
    "--test)";

RunRecord cell(const QString& code, RunStatus status, std::optional<int> exitCode)
{
    static qint64 nextId = 100;
    RunRecord run;
    run.id = nextId++;
    run.clientName = QStringLiteral("Claude Code");
    run.clientVersion = QStringLiteral("1.0.3");
    run.tool = QStringLiteral("run_python_code");
    run.language = QStringLiteral("python");
    run.code = code;
    run.status = status;
    run.exitCode = exitCode;
    run.startedAt = csm::utcDateTime(QDate(2025, 3, 4), QTime(10, 0));
    run.endedAt = run.startedAt.addMSecs(250);
    run.durationMs = 250;
    return run;
}

RunFileRecord outputFile(const QString& path, const QString& mimeType, const QString& storedPath,
                         qint64 size)
{
    RunFileRecord file;
    file.direction = RunFileRecord::Direction::Output;
    file.path = path;
    file.mimeType = mimeType;
    file.storedPath = storedPath;
    file.sizeBytes = size;
    return file;
}

QString joined(const QJsonValue& multiline)
{
    if (multiline.isString())
        return multiline.toString();
    QString text;
    for (const QJsonValue& line : multiline.toArray())
        text += line.toString();
    return text;
}

QJsonArray codeCells(const QJsonObject& notebook)
{
    QJsonArray cells;
    for (const QJsonValue& cell : notebook.value(QLatin1String("cells")).toArray()) {
        if (cell[QLatin1String("cell_type")] == QLatin1String("code"))
            cells.append(cell);
    }
    return cells;
}

QJsonArray outputsOfType(const QJsonValue& cell, const QString& type)
{
    QJsonArray found;
    for (const QJsonValue& output : cell[QLatin1String("outputs")].toArray()) {
        if (output[QLatin1String("output_type")] == type)
            found.append(output);
    }
    return found;
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

} // namespace

class tst_InterpreterSessionExporter final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void notebookHasOneCodeCellPerRun();
    void outputsAreStreamsAndErrors();
    void errorOutputTellsHowTheCellEnded_data();
    void errorOutputTellsHowTheCellEnded();
    void cellThatNeverRanKeepsItsPlace();
    void imagesAreEmbedded();
    void missingImageIsNamedNotEmbedded();
    void truncatedOutputSaysSo();
    void headerNamesSessionClientAndTime();
    void javaScriptSession();
    void scriptHasMarkersInOrder();
    void scriptRunsWhatTheSessionRan();
    void nbformatValidation_data();
    void nbformatValidation();
    void writeFailsWithClearError();

private:
    // The session the tests export: a cell that printed, one that failed, one refused, one with
    // files (a PNG, an SVG, an image whose stored copy is gone, a CSV, a skipped link).
    QList<RunRecord> session() const;
    static InterpreterSessionExporter::Session pythonSession()
    {
        return {QStringLiteral("analysis_1*"), QStringLiteral("python")};
    }

    QTemporaryDir m_dir;
};

void tst_InterpreterSessionExporter::init()
{
    QVERIFY(m_dir.isValid());
}

QList<RunRecord> tst_InterpreterSessionExporter::session() const
{
    RunRecord printed = cell(QStringLiteral("x = 1\nprint(x)\nprint('two')\n"), RunStatus::Ok, 0);
    printed.stdoutText = QStringLiteral("1\ntwo\n");

    RunRecord failed = cell(QStringLiteral("1 / 0"), RunStatus::Error, 1);
    failed.stdoutText = QStringLiteral("before\n");
    failed.stderrText = QStringLiteral("Traceback (most recent call last):\n"
                                       "  File \"<cell 2>\", line 1, in <module>\n"
                                       "ZeroDivisionError: division by zero\n");

    RunRecord refused =
        cell(QStringLiteral("import os\nos.system('reboot')\n"), RunStatus::Error, std::nullopt);
    refused.errorMessage = QStringLiteral("refused: the user declined this call");

    RunRecord drew = cell(QStringLiteral("import matplotlib\nplot()\n"), RunStatus::Ok, 0);
    const QString png = m_dir.filePath(QStringLiteral("chart.png"));
    const QString svg = m_dir.filePath(QStringLiteral("shape.svg"));
    if (!QFileInfo::exists(png))
        writeFile(png, kPng);
    if (!QFileInfo::exists(svg))
        writeFile(svg, kSvg);
    drew.files = {
        outputFile(QStringLiteral("chart.png"), QStringLiteral("image/png"), png, kPng.size()),
        outputFile(QStringLiteral("shape.svg"), QStringLiteral("image/svg+xml"), svg, kSvg.size()),
        outputFile(QStringLiteral("gone.png"), QStringLiteral("image/png"),
                   m_dir.filePath(QStringLiteral("gone.png")), 1234),
        outputFile(QStringLiteral("table.csv"), QStringLiteral("text/csv"),
                   m_dir.filePath(QStringLiteral("table.csv")), 2048),
    };
    RunFileRecord link = outputFile(QStringLiteral("link"), QString(), QString(), 0);
    link.skipReason = QStringLiteral("a symbolic link");
    drew.files << link;
    RunFileRecord input;
    input.direction = RunFileRecord::Direction::Input;
    input.path = QStringLiteral("data.csv");
    drew.files.prepend(input);
    QList<RunRecord> cells{printed, failed, refused, drew};
    for (qsizetype i = 0; i < cells.size(); ++i) {
        cells[i].startedAt = cells[i].startedAt.addSecs(10 * i);
        cells[i].endedAt = cells[i].startedAt.addMSecs(cells[i].durationMs);
    }
    return cells;
}

void tst_InterpreterSessionExporter::notebookHasOneCodeCellPerRun()
{
    const QList<RunRecord> runs = session();
    const QJsonObject notebook = InterpreterSessionExporter::toNotebook(runs, pythonSession());
    QCOMPARE(notebook[QLatin1String("nbformat")].toInt(), 4);
    QCOMPARE(notebook[QLatin1String("nbformat_minor")].toInt(), 5);
    const QJsonObject metadata = notebook[QLatin1String("metadata")].toObject();
    QCOMPARE(metadata[QLatin1String("kernelspec")][QLatin1String("name")].toString(),
             QStringLiteral("python3"));
    QCOMPARE(metadata[QLatin1String("language_info")][QLatin1String("name")].toString(),
             QStringLiteral("python"));

    const QJsonArray cells = notebook[QLatin1String("cells")].toArray();
    QCOMPARE(cells.size(), runs.size() + 1);
    QCOMPARE(cells.first()[QLatin1String("cell_type")].toString(), QStringLiteral("markdown"));
    QSet<QString> ids;
    for (const QJsonValue& cell : cells)
        ids.insert(cell[QLatin1String("id")].toString());
    QCOMPARE(ids.size(), cells.size());

    const QJsonArray code = codeCells(notebook);
    QCOMPARE(code.size(), runs.size());
    for (qsizetype i = 0; i < code.size(); ++i) {
        const QJsonValue cell = code.at(i);
        QCOMPARE(cell[QLatin1String("id")].toString(), QStringLiteral("cell-%1").arg(i + 1));
        // Lines keep their "\n" but the last; the code's final line break is dropped.
        const QJsonArray source = cell[QLatin1String("source")].toArray();
        for (qsizetype line = 0; line < source.size(); ++line)
            QCOMPARE(source.at(line).toString().endsWith(u'\n'), line + 1 < source.size());
        QString expected = runs.at(i).code;
        while (expected.endsWith(u'\n'))
            expected.chop(1);
        QCOMPARE(joined(source), expected);
        QCOMPARE(
            cell[QLatin1String("metadata")][QLatin1String("code_sandbox")][QLatin1String("run_id")]
                .toInteger(),
            runs.at(i).id);
    }
    QCOMPARE(code.at(0)[QLatin1String("source")].toArray(),
             (QJsonArray{QStringLiteral("x = 1\n"), QStringLiteral("print(x)\n"),
                         QStringLiteral("print('two')")}));
    QCOMPARE(code.at(0)[QLatin1String("execution_count")].toInt(), 1);
    QCOMPARE(code.at(1)[QLatin1String("execution_count")].toInt(), 2);
    QCOMPARE(code.at(3)[QLatin1String("execution_count")].toInt(), 4);
}

void tst_InterpreterSessionExporter::outputsAreStreamsAndErrors()
{
    const QList<RunRecord> runs = session();
    const QJsonArray code =
        codeCells(InterpreterSessionExporter::toNotebook(runs, pythonSession()));

    const QJsonArray printed = code.at(0)[QLatin1String("outputs")].toArray();
    QCOMPARE(printed.size(), 1);
    QCOMPARE(printed.first()[QLatin1String("output_type")].toString(), QStringLiteral("stream"));
    QCOMPARE(printed.first()[QLatin1String("name")].toString(), QStringLiteral("stdout"));
    QCOMPARE(printed.first()[QLatin1String("text")].toArray(),
             (QJsonArray{QStringLiteral("1\n"), QStringLiteral("two\n")}));
    QVERIFY(outputsOfType(code.at(0), QStringLiteral("error")).isEmpty());

    // The failed cell: what it printed on both streams, then an error output saying how it ended.
    const QJsonArray failed = code.at(1)[QLatin1String("outputs")].toArray();
    QCOMPARE(failed.size(), 3);
    QCOMPARE(failed.at(0)[QLatin1String("name")].toString(), QStringLiteral("stdout"));
    QCOMPARE(joined(failed.at(0)[QLatin1String("text")]), runs.at(1).stdoutText);
    QCOMPARE(failed.at(1)[QLatin1String("name")].toString(), QStringLiteral("stderr"));
    QCOMPARE(joined(failed.at(1)[QLatin1String("text")]), runs.at(1).stderrText);
    QCOMPARE(failed.at(2)[QLatin1String("output_type")].toString(), QStringLiteral("error"));
    QCOMPARE(failed.at(2)[QLatin1String("ename")].toString(), QStringLiteral("Error"));
    QCOMPARE(failed.at(2)[QLatin1String("evalue")].toString(),
             QStringLiteral("exited with code 1"));
    QCOMPARE(failed.at(2)[QLatin1String("traceback")].toArray(),
             QJsonArray{QStringLiteral("Cell 2 exited with code 1")});

    // A timeout says so, with the engine's message and the exit code.
    RunRecord timedOut = cell(QStringLiteral("while True: pass"), RunStatus::Timeout, 137);
    timedOut.errorMessage = QStringLiteral("interrupted at 5 s; the session kept its state");
    const QJsonArray errors = outputsOfType(
        codeCells(InterpreterSessionExporter::toNotebook({timedOut}, pythonSession())).first(),
        QStringLiteral("error"));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors.first()[QLatin1String("ename")].toString(), QStringLiteral("Timeout"));
    QCOMPARE(errors.first()[QLatin1String("evalue")].toString(),
             QStringLiteral("timed out (exited with code 137): interrupted at 5 s; the session "
                            "kept its state"));
}

void tst_InterpreterSessionExporter::errorOutputTellsHowTheCellEnded_data()
{
    QTest::addColumn<RunStatus>("status");
    QTest::addColumn<int>("exitCode");      // -1: none
    QTest::addColumn<QString>("errorName"); // empty: no error output
    QTest::addColumn<QString>("description");
    const int none = -1;
    QTest::newRow("ok") << RunStatus::Ok << 0 << QString() << QString();
    QTest::newRow("error") << RunStatus::Error << 2 << QStringLiteral("Error")
                           << QStringLiteral("exited with code 2: boom");
    QTest::newRow("cancelled") << RunStatus::Cancelled << 130 << QStringLiteral("Cancelled")
                               << QStringLiteral("was cancelled (exited with code 130): boom");
    QTest::newRow("oom") << RunStatus::Oom << none << QStringLiteral("OutOfMemory")
                         << QStringLiteral("ran out of memory: boom");
    QTest::newRow("interrupted") << RunStatus::Interrupted << none << QStringLiteral("Interrupted")
                                 << QStringLiteral("was cut short: its server stopped first: boom");
    QTest::newRow("running") << RunStatus::Running << none << QStringLiteral("Unfinished")
                             << QStringLiteral("had not finished when the history was read: boom");
    QTest::newRow("engine error, never ran")
        << RunStatus::EngineError << none << QStringLiteral("NotRun")
        << QStringLiteral("never ran: boom");
}

void tst_InterpreterSessionExporter::errorOutputTellsHowTheCellEnded()
{
    QFETCH(RunStatus, status);
    QFETCH(int, exitCode);
    QFETCH(QString, errorName);
    QFETCH(QString, description);
    RunRecord run = cell(QStringLiteral("work()"), status,
                         exitCode < 0 ? std::nullopt : std::optional<int>(exitCode));
    if (status != RunStatus::Ok)
        run.errorMessage = QStringLiteral("boom");
    const QJsonValue notebookCell =
        codeCells(InterpreterSessionExporter::toNotebook({run}, pythonSession())).first();
    const QJsonArray errors = outputsOfType(notebookCell, QStringLiteral("error"));
    const QString script = InterpreterSessionExporter::toScript({run}, pythonSession());
    if (errorName.isEmpty()) {
        QVERIFY(errors.isEmpty());
        QVERIFY2(script.endsWith(QLatin1String("# %% [cell 1]\nwork()\n")), qPrintable(script));
        return;
    }
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors.first()[QLatin1String("ename")].toString(), errorName);
    QCOMPARE(errors.first()[QLatin1String("evalue")].toString(), description);
    QVERIFY2(script.contains(QStringLiteral("\n# In the session this cell %1").arg(description)),
             qPrintable(script));
}

void tst_InterpreterSessionExporter::cellThatNeverRanKeepsItsPlace()
{
    const QList<RunRecord> runs = session();
    const QJsonValue refused =
        codeCells(InterpreterSessionExporter::toNotebook(runs, pythonSession())).at(2);
    QVERIFY(refused[QLatin1String("execution_count")].isNull());
    QCOMPARE(joined(refused[QLatin1String("source")]),
             QStringLiteral("import os\nos.system('reboot')"));
    const QJsonArray outputs = refused[QLatin1String("outputs")].toArray();
    QCOMPARE(outputs.size(), 1);
    QCOMPARE(outputs.first()[QLatin1String("output_type")].toString(), QStringLiteral("error"));
    QCOMPARE(outputs.first()[QLatin1String("ename")].toString(), QStringLiteral("NotRun"));
    QCOMPARE(outputs.first()[QLatin1String("evalue")].toString(),
             QStringLiteral("never ran: refused: the user declined this call"));
}

void tst_InterpreterSessionExporter::imagesAreEmbedded()
{
    const QJsonArray images = outputsOfType(
        codeCells(InterpreterSessionExporter::toNotebook(session(), pythonSession())).at(3),
        QStringLiteral("display_data"));
    // The PNG, the SVG, then the listing of the other files.
    QCOMPARE(images.size(), 3);
    const QJsonObject png = images.at(0)[QLatin1String("data")].toObject();
    QCOMPARE(QByteArray::fromBase64(png[QLatin1String("image/png")].toString().toLatin1()), kPng);
    QVERIFY(joined(png[QLatin1String("text/plain")]).startsWith(QLatin1String("chart.png")));
    const QJsonObject svg = images.at(1)[QLatin1String("data")].toObject();
    QCOMPARE(joined(svg[QLatin1String("image/svg+xml")]).toUtf8(), kSvg);
    QVERIFY(joined(svg[QLatin1String("text/plain")]).startsWith(QLatin1String("shape.svg")));
}

void tst_InterpreterSessionExporter::missingImageIsNamedNotEmbedded()
{
    const QJsonArray shown = outputsOfType(
        codeCells(InterpreterSessionExporter::toNotebook(session(), pythonSession())).at(3),
        QStringLiteral("display_data"));
    const QJsonObject listing = shown.last()[QLatin1String("data")].toObject();
    QCOMPARE(listing.keys(), QStringList{QStringLiteral("text/plain")});
    QCOMPARE(joined(listing[QLatin1String("text/plain")]),
             QStringLiteral("Files written:\n"
                            "  gone.png (image/png, 1.2 KiB): not shown, its copy in the history "
                            "is gone\n"
                            "  table.csv (text/csv, 2.0 KiB)\n"
                            "  link: not returned (a symbolic link)"));
    for (const QJsonValue& output : shown)
        QVERIFY(!joined(output[QLatin1String("data")][QLatin1String("text/plain")])
                     .startsWith(QLatin1String("data.csv")));
}

void tst_InterpreterSessionExporter::truncatedOutputSaysSo()
{
    RunRecord run = cell(QStringLiteral("print('x' * 10**9)"), RunStatus::Ok, 0);
    run.stdoutText = QStringLiteral("xxxx");
    run.stdoutTruncated = true;
    const QJsonArray streams = outputsOfType(
        codeCells(InterpreterSessionExporter::toNotebook({run}, pythonSession())).first(),
        QStringLiteral("stream"));
    QCOMPARE(streams.size(), 1);
    QCOMPARE(joined(streams.first()[QLatin1String("text")]),
             QStringLiteral("xxxx\n[stdout was truncated: only its beginning is shown]\n"));
}

void tst_InterpreterSessionExporter::headerNamesSessionClientAndTime()
{
    const QList<RunRecord> runs = session();
    const QJsonObject notebook = InterpreterSessionExporter::toNotebook(runs, pythonSession());
    const QString header = joined(notebook[QLatin1String("cells")][0][QLatin1String("source")]);
    // Markdown characters in the name are escaped, so it shows as it is.
    QVERIFY2(header.startsWith(QLatin1String("# Session analysis\\_1\\*\n")), qPrintable(header));
    QVERIFY2(header.contains(QLatin1String("Python, 4 cells, run by Claude Code 1\\.0\\.3 from "
                                           "2025-03-04 10:00:00 UTC to 2025-03-04 10:00:30 UTC.")),
             qPrintable(header));
    QVERIFY2(header.contains(QLatin1String("Cells 2 and 3 did not succeed.")), qPrintable(header));
    const QJsonObject about =
        notebook[QLatin1String("metadata")][QLatin1String("code_sandbox")].toObject();
    QCOMPARE(about[QLatin1String("session")].toString(), QStringLiteral("analysis_1*"));
    QCOMPARE(about[QLatin1String("client")].toString(), QStringLiteral("Claude Code 1.0.3"));
    QCOMPARE(about[QLatin1String("started_at")].toString(),
             runs.first().startedAt.toString(Qt::ISODateWithMs));
}

void tst_InterpreterSessionExporter::javaScriptSession()
{
    RunRecord run = cell(QStringLiteral("console.log(1 + 1)"), RunStatus::Ok, 0);
    run.language = QStringLiteral("javascript");
    run.stdoutText = QStringLiteral("2\n");
    // The language comes from the session, or else from its first cell.
    for (const QString& language : {QStringLiteral("javascript"), QString()}) {
        const QJsonObject metadata =
            InterpreterSessionExporter::toNotebook(
                {run}, {QStringLiteral("js"), language})[QLatin1String("metadata")]
                .toObject();
        QCOMPARE(metadata[QLatin1String("kernelspec")][QLatin1String("name")].toString(),
                 QStringLiteral("javascript"));
        QCOMPARE(metadata[QLatin1String("language_info")][QLatin1String("name")].toString(),
                 QStringLiteral("javascript"));
    }
    const QString script =
        InterpreterSessionExporter::toScript({run}, {QStringLiteral("js"), QString()});
    QVERIFY2(script.startsWith(QLatin1String("#!/usr/bin/env node\n// Code Sandbox session "
                                             "\"js\": JavaScript, 1 cell")),
             qPrintable(script));
    QVERIFY2(script.endsWith(QLatin1String("\n\n// %% [cell 1]\nconsole.log(1 + 1)\n")),
             qPrintable(script));
}

void tst_InterpreterSessionExporter::scriptHasMarkersInOrder()
{
    const QString script = InterpreterSessionExporter::toScript(session(), pythonSession());
    QVERIFY2(script.startsWith(QLatin1String("#!/usr/bin/env python3\n# Code Sandbox session "
                                             "\"analysis_1*\": Python, 4 cells, run by Claude "
                                             "Code 1.0.3 from 2025-03-04 10:00:")),
             qPrintable(script));
    const QString expectedCells =
        QStringLiteral("\n\n# %% [cell 1]\n"
                       "x = 1\nprint(x)\nprint('two')\n"
                       "\n# %% [cell 2]\n"
                       "# In the session this cell exited with code 1\n"
                       "1 / 0\n"
                       "\n# %% [cell 3]\n"
                       "# In the session this cell never ran: refused: the user declined this "
                       "call; its code, commented out:\n"
                       "# import os\n# os.system('reboot')\n"
                       "\n# %% [cell 4]\n"
                       "# This cell was given the files: data.csv\n"
                       "import matplotlib\nplot()\n");
    QVERIFY2(script.endsWith(expectedCells), qPrintable(script));
    // Each marker once, in order, each on a line of its own after a blank line.
    QCOMPARE(script.count(QLatin1String("# %% [cell ")), 4);
}

void tst_InterpreterSessionExporter::scriptRunsWhatTheSessionRan()
{
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty())
        QSKIP("no python3 on this machine");
    RunRecord first = cell(QStringLiteral("x = 2\nprint(x)\n"), RunStatus::Ok, 0);
    RunRecord refused =
        cell(QStringLiteral("raise SystemExit(3)\n"), RunStatus::EngineError, std::nullopt);
    refused.errorMessage = QStringLiteral("the engine was down\nand said so on two lines");
    // A cell that did not compile ran none of its code; left in, it would stop every cell.
    RunRecord syntaxError = cell(QStringLiteral("print(x +)\n"), RunStatus::Error, 1);
    syntaxError.stderrText = QStringLiteral("  File \"<cell 3>\", line 1\n    print(x +)\n"
                                            "             ^\nSyntaxError: invalid syntax\n");
    RunRecord last = cell(QStringLiteral("print(x * 21)"), RunStatus::Ok, 0);
    const QString path = m_dir.filePath(QStringLiteral("session.py"));
    const auto written = InterpreterSessionExporter::writeScript(
        path, {first, refused, syntaxError, last}, {QStringLiteral("s"), QStringLiteral("python")});
    QVERIFY2(written, qPrintable(written.error()));

    QProcess process;
    process.setProgram(python);
    process.setArguments({path});
    process.start();
    QVERIFY(process.waitForFinished(30'000));
    QCOMPARE(QString::fromUtf8(process.readAllStandardError()), QString());
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(process.readAllStandardOutput(), QByteArray("2\n42\n"));
}

// Jupyter's own check (nbformat against its JSON schema) accepts what the exporter writes, and
// refuses a notebook broken on purpose, so that it cannot pass by checking nothing.
void tst_InterpreterSessionExporter::nbformatValidation_data()
{
    QTest::addColumn<QByteArray>("notebook");
    QTest::addColumn<bool>("valid");

    RunRecord js = cell(QStringLiteral("console.log(1)\n"), RunStatus::Ok, 0);
    js.language = QStringLiteral("javascript");
    RunRecord unfinished = cell(QStringLiteral("input()"), RunStatus::Running, std::nullopt);
    RunRecord empty = cell(QString(), RunStatus::Ok, 0);
    const auto exported = [](const QList<RunRecord>& runs, const QString& name) {
        return QJsonDocument(InterpreterSessionExporter::toNotebook(runs, {name, QString()}))
            .toJson();
    };
    QTest::newRow("python") << exported(session(), QStringLiteral("python")) << true;
    QTest::newRow("javascript") << exported({js}, QStringLiteral("js")) << true;
    QTest::newRow("no cells") << exported({}, QString()) << true;
    QTest::newRow("unfinished and empty cells")
        << exported({unfinished, empty}, QStringLiteral("odd")) << true;

    const QJsonObject notebook = InterpreterSessionExporter::toNotebook(session(), pythonSession());
    const auto brokenCell = [&](const std::function<void(QJsonObject&)>& breakIt) {
        QJsonObject broken = notebook;
        QJsonArray cells = broken[QLatin1String("cells")].toArray();
        QJsonObject first = cells.at(1).toObject();
        breakIt(first);
        cells.replace(1, first);
        broken.insert(QStringLiteral("cells"), cells);
        return QJsonDocument(broken).toJson();
    };
    QTest::newRow("broken: no outputs")
        << brokenCell([](QJsonObject& c) { c.remove(QStringLiteral("outputs")); }) << false;
    QTest::newRow("broken: no id")
        << brokenCell([](QJsonObject& c) { c.remove(QStringLiteral("id")); }) << false;
    QTest::newRow("broken: text execution count") << brokenCell([](QJsonObject& c) {
        c.insert(QStringLiteral("execution_count"), QStringLiteral("1"));
    }) << false;
}

void tst_InterpreterSessionExporter::nbformatValidation()
{
    QFETCH(QByteArray, notebook);
    QFETCH(bool, valid);
    if (NotebookCheck::python().isEmpty()) {
        // Under CI the check must run: a skip there would hide that nothing was checked.
        if (qEnvironmentVariableIsSet("CI"))
            QFAIL(kNbformatMissing);
        QSKIP(kNbformatMissing);
    }
    const QString path = m_dir.filePath(QStringLiteral("checked.ipynb"));
    QVERIFY(writeFile(path, notebook));
    const QString refusal = NotebookCheck::validate(path);
    if (valid) {
        QVERIFY2(refusal.isEmpty(), qPrintable(refusal));
    } else {
        // Refused by nbformat's check itself, not by a crash before it.
        QVERIFY2(refusal.startsWith(QLatin1String("nbformat refuses")) &&
                     refusal.contains(QLatin1String("nbformat.")),
                 qPrintable(refusal));
    }
}

void tst_InterpreterSessionExporter::writeFailsWithClearError()
{
    const QString path = m_dir.filePath(QStringLiteral("missing-folder/session.ipynb"));
    const auto notebook =
        InterpreterSessionExporter::writeNotebook(path, session(), pythonSession());
    QVERIFY(!notebook);
    QVERIFY2(notebook.error().startsWith(QLatin1String("cannot export the session to ")),
             qPrintable(notebook.error()));
    QVERIFY2(notebook.error().contains(QDir::toNativeSeparators(path)),
             qPrintable(notebook.error()));
    const auto script = InterpreterSessionExporter::writeScript(path, session(), pythonSession());
    QVERIFY(!script);
    QVERIFY(!QFileInfo::exists(path));

    // A written file is private: it holds code and outputs.
    const QString written = m_dir.filePath(QStringLiteral("session.ipynb"));
    const QList<RunRecord> runs = session();
    QVERIFY(InterpreterSessionExporter::writeNotebook(written, runs, pythonSession()));
    QCOMPARE(QFileInfo(written).permissions() & (QFile::ReadGroup | QFile::ReadOther),
             QFile::Permissions());
    QFile file(written);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(file.readAll()).object(),
             InterpreterSessionExporter::toNotebook(runs, pythonSession()));
}

QTEST_GUILESS_MAIN(tst_InterpreterSessionExporter)
#include "tst_InterpreterSessionExporter.moc"
