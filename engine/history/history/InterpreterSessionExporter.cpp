#include "history/InterpreterSessionExporter.h"

#include "core/PrivateFiles.h"
#include "history/IsoTime.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QStringList>

#include <array>

namespace csm {

namespace {

// How a cell ended, as the export tells it.
struct CellOutcome
{
    bool ran = true;
    // Empty when the cell succeeded; else a name for the notebook's error output ("Timeout").
    QString errorName;
    // "exited with code 1", "timed out: ...": what happened, with the engine's message.
    QString description;

    bool failed() const { return !errorName.isEmpty(); }
};

// How the statuses of a program that ran and did not succeed are told; Error (and Ok with a
// non-zero exit code, which should not happen) is told by its exit code alone.
struct FailureWording
{
    RunStatus status = RunStatus::Running;
    QLatin1String errorName;
    QLatin1String description;
};
constexpr std::array<FailureWording, 5> kFailureWordings{{
    {RunStatus::Timeout, QLatin1String("Timeout"), QLatin1String("timed out")},
    {RunStatus::Cancelled, QLatin1String("Cancelled"), QLatin1String("was cancelled")},
    {RunStatus::Oom, QLatin1String("OutOfMemory"), QLatin1String("ran out of memory")},
    {RunStatus::Interrupted, QLatin1String("Interrupted"),
     QLatin1String("was cut short: its server stopped first")},
    {RunStatus::Running, QLatin1String("Unfinished"),
     QLatin1String("had not finished when the history was read")},
}};

CellOutcome outcomeOf(const RunRecord& run)
{
    const bool nonZeroExit = run.exitCode && *run.exitCode != 0;
    CellOutcome outcome;
    if (run.status == RunStatus::Ok && !nonZeroExit)
        return outcome;
    outcome.errorName = QStringLiteral("Error");
    const bool errorStatus = run.status == RunStatus::Error || run.status == RunStatus::EngineError;
    if (errorStatus && !run.exitCode) {
        // No exit code: the program never started (refused, or the engine failed first).
        outcome.ran = false;
        outcome.errorName = QStringLiteral("NotRun");
        outcome.description = QStringLiteral("never ran");
    }
    for (const FailureWording& wording : kFailureWordings) {
        if (wording.status == run.status) {
            outcome.errorName = wording.errorName;
            outcome.description = wording.description;
        }
    }
    const QString exitText =
        nonZeroExit ? QStringLiteral("exited with code %1").arg(*run.exitCode) : QString();
    if (outcome.description.isEmpty())
        outcome.description = nonZeroExit ? exitText : QStringLiteral("failed");
    else if (nonZeroExit)
        outcome.description += QStringLiteral(" (%1)").arg(exitText);
    if (!run.errorMessage.isEmpty())
        outcome.description += QStringLiteral(": ") + run.errorMessage;
    return outcome;
}

bool isJavaScript(const QList<RunRecord>& cells, const InterpreterSessionExporter::Session& session)
{
    const QString language =
        session.language.isEmpty() && !cells.isEmpty() ? cells.first().language : session.language;
    return language.trimmed().compare(QLatin1String("javascript"), Qt::CaseInsensitive) == 0;
}

// Jupyter's multi-line string: the lines, each with its "\n" but the last.
QJsonArray lines(const QString& text)
{
    QJsonArray array;
    qsizetype start = 0;
    while (start < text.size()) {
        const qsizetype newline = text.indexOf(u'\n', start);
        const qsizetype end = newline < 0 ? text.size() : newline + 1;
        array.append(text.mid(start, end - start));
        start = end;
    }
    return array;
}

// A cell's code without the line breaks it ends with, as a notebook cell holds it.
QString trimmedCode(const QString& code)
{
    qsizetype end = code.size();
    while (end > 0 && (code.at(end - 1) == u'\n' || code.at(end - 1) == u'\r'))
        --end;
    return code.left(end);
}

QString utcTime(const QDateTime& time)
{
    return time.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) + QStringLiteral(" UTC");
}

QString sizeText(qint64 bytes)
{
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

// Text a markdown reader shows as it is: every ASCII punctuation character escaped (CommonMark
// allows it for all of them), line breaks made spaces.
QString markdownText(const QString& text)
{
    QString escaped;
    escaped.reserve(text.size() * 2);
    for (const QChar c : text) {
        if (c == u'\n' || c == u'\r')
            escaped += u' ';
        else if (c.unicode() < 128 && (c.isPunct() || c.isSymbol()))
            escaped += u'\\' + QString(c);
        else
            escaped += c;
    }
    return escaped;
}

// One line of a script comment: line breaks would end the comment, so they become spaces.
QString oneLine(const QString& text)
{
    QString line = text;
    line.replace(u'\r', u' ').replace(u'\n', u' ');
    return line;
}

// The facts both headers state: who ran the session and when.
struct SessionFacts
{
    QString languageName; // "Python", "JavaScript"
    qsizetype cellCount = 0;
    QString client; // "Claude Code 1.0.3"; empty when unknown
    QDateTime start;
    QDateTime end;
    QList<int> failedCells; // 1-based

    explicit SessionFacts(const QList<RunRecord>& cells, bool javaScript)
        : languageName(javaScript ? QStringLiteral("JavaScript") : QStringLiteral("Python"))
        , cellCount(cells.size())
    {
        for (qsizetype i = 0; i < cells.size(); ++i) {
            const RunRecord& run = cells.at(i);
            if (client.isEmpty() && !run.clientName.isEmpty())
                client = QString(run.clientName + u' ' + run.clientVersion).trimmed();
            if (run.startedAt.isValid() && (!start.isValid() || run.startedAt < start))
                start = run.startedAt;
            const QDateTime last = run.endedAt.isValid() ? run.endedAt : run.startedAt;
            if (last.isValid() && (!end.isValid() || last > end))
                end = last;
            if (outcomeOf(run).failed())
                failedCells << int(i + 1);
        }
    }

    // "Python, 3 cells, run by Claude Code 1.0.3 from ... UTC to ... UTC", the client's name
    // made markdown text or one line of a comment.
    QString summary(bool markdown) const
    {
        QString text = QStringLiteral("%1, %2 %3")
                           .arg(languageName)
                           .arg(cellCount)
                           .arg(cellCount == 1 ? QStringLiteral("cell") : QStringLiteral("cells"));
        if (!client.isEmpty())
            text +=
                QStringLiteral(", run by ") + (markdown ? markdownText(client) : oneLine(client));
        if (start.isValid())
            text += QStringLiteral(" from %1 to %2").arg(utcTime(start), utcTime(end));
        return text;
    }

    // "Cells 2 and 5 did not succeed."; empty when all did.
    QString failures() const
    {
        if (failedCells.isEmpty())
            return {};
        QStringList numbers;
        for (int cell : failedCells)
            numbers << QString::number(cell);
        if (numbers.size() == 1)
            return QStringLiteral("Cell %1 did not succeed.").arg(numbers.first());
        const QString last = numbers.takeLast();
        return QStringLiteral("Cells %1 and %2 did not succeed.").arg(numbers.join(u", "), last);
    }
};

QJsonObject markdownHeader(const QList<RunRecord>& cells,
                           const InterpreterSessionExporter::Session& session, bool javaScript)
{
    const SessionFacts facts(cells, javaScript);
    const QString title = session.name.isEmpty()
                              ? QStringLiteral("# Code Sandbox session")
                              : QStringLiteral("# Session ") + markdownText(session.name);
    QString text =
        title + QStringLiteral("\n\nA Code Sandbox session: ") + facts.summary(true) + u'.';
    if (const QString failures = facts.failures(); !failures.isEmpty())
        text += u' ' + failures;
    text += QStringLiteral("\n\nEach cell shows what its program printed, stdout then stderr (the "
                           "history keeps them apart), and the files it wrote.");
    return {
        {QStringLiteral("id"), QStringLiteral("header")},
        {QStringLiteral("cell_type"), QStringLiteral("markdown")},
        {QStringLiteral("metadata"), QJsonObject()},
        {QStringLiteral("source"), lines(text)},
    };
}

QJsonObject streamOutput(const QString& name, const QString& text, bool truncated)
{
    QString shown = text;
    if (truncated) {
        if (!shown.isEmpty() && !shown.endsWith(u'\n'))
            shown += u'\n';
        shown += QStringLiteral("[%1 was truncated: only its beginning is shown]\n").arg(name);
    }
    return {
        {QStringLiteral("output_type"), QStringLiteral("stream")},
        {QStringLiteral("name"), name},
        {QStringLiteral("text"), lines(shown)},
    };
}

QJsonObject displayData(const QJsonObject& data)
{
    return {
        {QStringLiteral("output_type"), QStringLiteral("display_data")},
        {QStringLiteral("data"), data},
        {QStringLiteral("metadata"), QJsonObject()},
    };
}

bool isEmbeddedRaster(const QString& mimeType)
{
    return mimeType == QLatin1String("image/png") || mimeType == QLatin1String("image/jpeg") ||
           mimeType == QLatin1String("image/gif");
}

bool isSvg(const QString& mimeType)
{
    return mimeType == QLatin1String("image/svg+xml");
}

// The images a cell wrote as "display_data", then one text/plain listing of the other files,
// the skipped ones and the images whose copy in the history is gone.
QJsonArray fileOutputs(const RunRecord& run)
{
    QJsonArray outputs;
    QStringList listed;
    for (const RunFileRecord& file : run.files) {
        if (file.direction != RunFileRecord::Direction::Output)
            continue;
        const QString described =
            QStringLiteral("%1 (%2, %3)")
                .arg(file.path,
                     file.mimeType.isEmpty() ? QStringLiteral("unknown type") : file.mimeType,
                     sizeText(file.sizeBytes));
        if (!file.skipReason.isEmpty()) {
            listed << QStringLiteral("%1: not returned (%2)").arg(file.path, file.skipReason);
            continue;
        }
        if (!isEmbeddedRaster(file.mimeType) && !isSvg(file.mimeType)) {
            listed << described;
            continue;
        }
        QFile stored(file.storedPath);
        if (file.storedPath.isEmpty() || !QFileInfo(file.storedPath).isFile() ||
            !stored.open(QIODevice::ReadOnly)) {
            listed << described + QStringLiteral(": not shown, its copy in the history is gone");
            continue;
        }
        const QByteArray bytes = stored.readAll();
        const QJsonValue image = isSvg(file.mimeType)
                                     ? QJsonValue(lines(QString::fromUtf8(bytes)))
                                     : QJsonValue(QString::fromLatin1(bytes.toBase64()));
        outputs.append(displayData({
            {file.mimeType, image},
            {QStringLiteral("text/plain"), lines(described)},
        }));
    }
    if (!listed.isEmpty()) {
        const QString text = QStringLiteral("Files written:\n  ") + listed.join(u"\n  ");
        outputs.append(displayData({{QStringLiteral("text/plain"), lines(text)}}));
    }
    return outputs;
}

QJsonObject errorOutput(int cellNumber, const CellOutcome& outcome)
{
    return {
        {QStringLiteral("output_type"), QStringLiteral("error")},
        {QStringLiteral("ename"), outcome.errorName},
        {QStringLiteral("evalue"), outcome.description},
        // What Jupyter shows: one line for the cell (the engine's message may add lines).
        {QStringLiteral("traceback"),
         QJsonArray{QStringLiteral("Cell %1 %2").arg(cellNumber).arg(outcome.description)}},
    };
}

QStringList inputFiles(const RunRecord& run)
{
    QStringList paths;
    for (const RunFileRecord& file : run.files) {
        if (file.direction == RunFileRecord::Direction::Input)
            paths << file.path;
    }
    return paths;
}

QJsonObject codeCell(const RunRecord& run, int cellNumber)
{
    const CellOutcome outcome = outcomeOf(run);
    QJsonArray outputs;
    if (outcome.ran) {
        if (!run.stdoutText.isEmpty() || run.stdoutTruncated)
            outputs.append(
                streamOutput(QStringLiteral("stdout"), run.stdoutText, run.stdoutTruncated));
        if (!run.stderrText.isEmpty() || run.stderrTruncated)
            outputs.append(
                streamOutput(QStringLiteral("stderr"), run.stderrText, run.stderrTruncated));
        for (const QJsonValue& output : fileOutputs(run))
            outputs.append(output);
    }
    if (outcome.failed())
        outputs.append(errorOutput(cellNumber, outcome));

    QJsonObject details{
        {QStringLiteral("run_id"), run.id},
        {QStringLiteral("status"), RunStatusTraits::toString(run.status)},
        {QStringLiteral("exit_code"),
         run.exitCode ? QJsonValue(*run.exitCode) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("started_at"), isoTimeOrNull(run.startedAt)},
        {QStringLiteral("ended_at"), isoTimeOrNull(run.endedAt)},
        {QStringLiteral("duration_ms"), run.durationMs},
    };
    if (const QStringList inputs = inputFiles(run); !inputs.isEmpty())
        details.insert(QStringLiteral("input_files"), QJsonArray::fromStringList(inputs));
    return {
        {QStringLiteral("id"), QStringLiteral("cell-%1").arg(cellNumber)},
        {QStringLiteral("cell_type"), QStringLiteral("code")},
        {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("code_sandbox"), details}}},
        {QStringLiteral("source"), lines(trimmedCode(run.code))},
        {QStringLiteral("execution_count"),
         outcome.ran ? QJsonValue(cellNumber) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("outputs"), outputs},
    };
}

QJsonObject notebookMetadata(const QList<RunRecord>& cells,
                             const InterpreterSessionExporter::Session& session, bool javaScript)
{
    const SessionFacts facts(cells, javaScript);
    QJsonObject metadata;
    if (javaScript) {
        metadata.insert(
            QStringLiteral("kernelspec"),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("javascript")},
                        {QStringLiteral("display_name"), QStringLiteral("JavaScript (Node.js)")},
                        {QStringLiteral("language"), QStringLiteral("javascript")}});
        metadata.insert(
            QStringLiteral("language_info"),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("javascript")},
                        {QStringLiteral("file_extension"), QStringLiteral(".js")},
                        {QStringLiteral("mimetype"), QStringLiteral("application/javascript")},
                        {QStringLiteral("codemirror_mode"), QStringLiteral("javascript")}});
    } else {
        metadata.insert(QStringLiteral("kernelspec"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("python3")},
                                    {QStringLiteral("display_name"), QStringLiteral("Python 3")},
                                    {QStringLiteral("language"), QStringLiteral("python")}});
        metadata.insert(
            QStringLiteral("language_info"),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("python")},
                        {QStringLiteral("file_extension"), QStringLiteral(".py")},
                        {QStringLiteral("mimetype"), QStringLiteral("text/x-python")},
                        {QStringLiteral("codemirror_mode"),
                         QJsonObject{{QStringLiteral("name"), QStringLiteral("ipython")},
                                     {QStringLiteral("version"), 3}}},
                        {QStringLiteral("pygments_lexer"), QStringLiteral("ipython3")}});
    }
    if (!session.name.isEmpty())
        metadata.insert(QStringLiteral("title"),
                        QString(QStringLiteral("Session ") + session.name));
    metadata.insert(QStringLiteral("code_sandbox"),
                    QJsonObject{
                        {QStringLiteral("session"), session.name},
                        {QStringLiteral("client"), facts.client},
                        {QStringLiteral("started_at"), isoTimeOrNull(facts.start)},
                        {QStringLiteral("ended_at"), isoTimeOrNull(facts.end)},
                    });
    return metadata;
}

// Whether a Python cell failed to compile, so that none of it ran: its traceback ends with a
// SyntaxError (or one of its subclasses). In a script such a cell would stop every cell from
// running, so the script comments it out.
bool failedToCompile(const RunRecord& run)
{
    const QStringList errorLines = run.stderrText.trimmed().split(u'\n');
    const QString last = errorLines.constLast().trimmed();
    return last.startsWith(QLatin1String("SyntaxError:")) ||
           last.startsWith(QLatin1String("IndentationError:")) ||
           last.startsWith(QLatin1String("TabError:"));
}

// `text` as comment lines: "# line" (or "#" for an empty one), each ending with "\n".
QString commented(const QString& text, const QString& marker)
{
    QString out;
    for (const QString& line : text.split(u'\n'))
        out += (line.isEmpty() ? marker : marker + u' ' + line) + u'\n';
    return out;
}

Expected<void> writeText(const QString& path, const QByteArray& content)
{
    if (Expected<void> written = PrivateFiles::writePrivateFile(path, content); !written)
        return Unexpected(QStringLiteral("cannot export the session to %1").arg(written.error()));
    return {};
}

} // namespace

QJsonObject InterpreterSessionExporter::toNotebook(const QList<RunRecord>& cells,
                                                   const Session& session)
{
    const bool javaScript = isJavaScript(cells, session);
    QJsonArray notebookCells{markdownHeader(cells, session, javaScript)};
    for (qsizetype i = 0; i < cells.size(); ++i)
        notebookCells.append(codeCell(cells.at(i), int(i + 1)));
    return {
        {QStringLiteral("nbformat"), 4},
        {QStringLiteral("nbformat_minor"), 5},
        {QStringLiteral("metadata"), notebookMetadata(cells, session, javaScript)},
        {QStringLiteral("cells"), notebookCells},
    };
}

QString InterpreterSessionExporter::toScript(const QList<RunRecord>& cells, const Session& session)
{
    const bool javaScript = isJavaScript(cells, session);
    const QString marker = javaScript ? QStringLiteral("//") : QStringLiteral("#");
    const SessionFacts facts(cells, javaScript);

    QString script = javaScript ? QStringLiteral("#!/usr/bin/env node\n")
                                : QStringLiteral("#!/usr/bin/env python3\n");
    const QString name =
        session.name.isEmpty() ? QString() : QStringLiteral(" \"%1\"").arg(oneLine(session.name));
    QString header = QStringLiteral("Code Sandbox session%1: %2.").arg(name, facts.summary(false));
    if (const QString failures = facts.failures(); !failures.isEmpty())
        header += u'\n' + failures;
    header += QStringLiteral(
        "\nThe cells ran one after another in one interpreter; here they run in order as one "
        "script.\nUnlike in the session, a cell's last value is not printed, and an error stops "
        "the script.");
    script += commented(header, marker);

    for (qsizetype i = 0; i < cells.size(); ++i) {
        const RunRecord& run = cells.at(i);
        const CellOutcome outcome = outcomeOf(run);
        script += QStringLiteral("\n%1 %% [cell %2]\n").arg(marker).arg(i + 1);
        if (const QStringList inputs = inputFiles(run); !inputs.isEmpty())
            script += commented(QStringLiteral("This cell was given the files: %1")
                                    .arg(oneLine(inputs.join(QStringLiteral(", ")))),
                                marker);
        const QString code = trimmedCode(run.code);
        const QString how =
            QStringLiteral("In the session this cell ") + oneLine(outcome.description);
        if (!outcome.ran || (outcome.failed() && !javaScript && failedToCompile(run))) {
            const QString why =
                outcome.ran ? QStringLiteral(": it did not compile, none of it ran") : QString();
            script += commented(how + why + QStringLiteral("; its code, commented out:"), marker);
            script += commented(code, marker);
            continue;
        }
        if (outcome.failed())
            script += commented(how, marker);
        if (!code.isEmpty())
            script += code + u'\n';
    }
    return script;
}

Expected<void> InterpreterSessionExporter::writeNotebook(const QString& path,
                                                         const QList<RunRecord>& cells,
                                                         const Session& session)
{
    return writeText(path,
                     QJsonDocument(toNotebook(cells, session)).toJson(QJsonDocument::Indented));
}

Expected<void> InterpreterSessionExporter::writeScript(const QString& path,
                                                       const QList<RunRecord>& cells,
                                                       const Session& session)
{
    return writeText(path, toScript(cells, session).toUtf8());
}

} // namespace csm
