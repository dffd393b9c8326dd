#include "tools/ToolResultFormatter.h"

#include "mcp/ToolResult.h"
#include "sandbox/ExecutionResult.h"

#include <QJsonArray>

namespace csm {

namespace {
QJsonObject schemaOf(const QString& type, const QString& description)
{
    return {{QStringLiteral("type"), type}, {QStringLiteral("description"), description}};
}

void appendSection(QString& text, const QString& section)
{
    if (!text.isEmpty() && !text.endsWith(QLatin1Char('\n')))
        text += QLatin1Char('\n');
    text += section;
}
} // namespace

QString ToolResultFormatter::decodeTruncatedOutput(const QByteArray& bytes)
{
    // The cap cuts at a byte count, possibly inside a character: drop that character's first
    // bytes rather than turn them into U+FFFD, which would make the text longer than the cap.
    qsizetype end = bytes.size();
    for (qsizetype back = 1; back <= 4 && back <= bytes.size(); ++back) {
        const auto byte = static_cast<unsigned char>(bytes.at(bytes.size() - back));
        if ((byte & 0xC0) == 0x80)
            continue; // a continuation byte: keep looking for the character's first byte
        const int length = byte < 0x80    ? 1
                           : byte >= 0xF0 ? 4
                           : byte >= 0xE0 ? 3
                           : byte >= 0xC0 ? 2
                                          : 1;
        if (length > back)
            end = bytes.size() - back;
        break;
    }
    return decodeOutput(bytes.left(end));
}

QString ToolResultFormatter::decodeOutput(const QByteArray& bytes)
{
    // QString::fromUtf8 replaces every invalid sequence (including a character cut in half by
    // the output cap) with U+FFFD, so the JSON we send is always valid UTF-8.
    return QString::fromUtf8(bytes);
}

QJsonObject ToolResultFormatter::format(const ExecutionResult& result)
{
    const QString out = result.stdoutTruncated ? decodeTruncatedOutput(result.stdoutBytes)
                                               : decodeOutput(result.stdoutBytes);
    const QString err = result.stderrTruncated ? decodeTruncatedOutput(result.stderrBytes)
                                               : decodeOutput(result.stderrBytes);
    const bool failed = result.timedOut() || result.oomKilled || result.exitCode != 0;

    QString text = out;
    if (!err.isEmpty())
        appendSection(text, QStringLiteral("[stderr]\n") + err);
    if (result.stdoutTruncated)
        appendSection(text, QStringLiteral("[stdout was truncated: only its beginning is shown]"));
    if (result.stderrTruncated)
        appendSection(text, QStringLiteral("[stderr was truncated: only its beginning is shown]"));
    if (result.oomKilled) {
        appendSection(text, QStringLiteral("[killed: the program ran out of memory (it reached the "
                                           "sandbox's memory limit); exit code %1]")
                                .arg(result.exitCode));
    } else if (result.timedOut()) {
        appendSection(text, QStringLiteral("[timed out after %1 s: the program was killed; the "
                                           "output above is what it printed until then]")
                                .arg(QString::number(result.durationMs / 1000.0, 'f', 1)));
    } else if (result.exitCode != 0) {
        appendSection(text, QStringLiteral("[exit code: %1]").arg(result.exitCode));
    }
    if (!result.unenforcedLimits.isEmpty()) {
        appendSection(text, QStringLiteral("[note: this sandbox had no %1 limit: the container "
                                           "engine does not enforce it here, and the server "
                                           "allows that (--allow-unlimited)]")
                                .arg(result.unenforcedLimits.join(QStringLiteral(", "))));
    }
    for (const QString& warning : result.engineWarnings)
        appendSection(text, QStringLiteral("[engine warning: %1]").arg(warning));
    if (text.isEmpty())
        text = QStringLiteral("[no output; exit code 0]");

    const QJsonObject structured{
        {QStringLiteral("stdout"), out},
        {QStringLiteral("stderr"), err},
        {QStringLiteral("exit_code"), result.exitCode},
        {QStringLiteral("duration_ms"), result.durationMs},
        {QStringLiteral("timed_out"), result.timedOut()},
        {QStringLiteral("truncated"), result.truncated()},
        {QStringLiteral("oom_killed"), result.oomKilled},
    };
    return {
        {QStringLiteral("content"), QJsonArray{ToolResult::textContent(text)}},
        {QStringLiteral("structuredContent"), structured},
        {QStringLiteral("isError"), failed},
    };
}

QJsonObject ToolResultFormatter::outputSchema()
{
    const QString string = QStringLiteral("string");
    const QString integer = QStringLiteral("integer");
    const QString boolean = QStringLiteral("boolean");
    return {
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("stdout"), schemaOf(string, QStringLiteral("Standard output"))},
             {QStringLiteral("stderr"), schemaOf(string, QStringLiteral("Standard error"))},
             {QStringLiteral("exit_code"),
              schemaOf(integer, QStringLiteral("The program's exit status (0 is success)"))},
             {QStringLiteral("duration_ms"),
              schemaOf(integer, QStringLiteral("Wall time of the run in milliseconds"))},
             {QStringLiteral("timed_out"),
              schemaOf(boolean, QStringLiteral("Killed because it exceeded its timeout"))},
             {QStringLiteral("truncated"),
              schemaOf(boolean, QStringLiteral("stdout or stderr exceeded the output cap"))},
             {QStringLiteral("oom_killed"),
              schemaOf(boolean, QStringLiteral("Killed for exceeding the memory limit"))},
         }},
        {QStringLiteral("required"),
         QJsonArray{QStringLiteral("stdout"), QStringLiteral("stderr"), QStringLiteral("exit_code"),
                    QStringLiteral("duration_ms"), QStringLiteral("timed_out")}},
    };
}

} // namespace csm
