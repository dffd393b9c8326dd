#include "tools/ToolResultFormatter.h"

#include "core/MediaType.h"
#include "mcp/ToolResult.h"
#include "sandbox/ExecutionResult.h"
#include "tools/RunFileUri.h"

#include <QFile>
#include <QJsonArray>
#include <QSet>

#include <optional>

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

QString readableSize(qint64 bytes)
{
    if (bytes < 1024)
        return QStringLiteral("%1 B").arg(bytes);
    if (bytes < 1024 * 1024)
        return QStringLiteral("%1 KiB").arg(double(bytes) / 1024, 0, 'f', 1);
    return QStringLiteral("%1 MiB").arg(double(bytes) / (1024 * 1024), 0, 'f', 1);
}

// The bytes of a stored file, if it is no larger than `cap`.
std::optional<QByteArray> storedBytes(const OutputFile& file, qint64 cap)
{
    if (file.storedPath.isEmpty() || file.sizeBytes > cap)
        return std::nullopt;
    QFile stored(file.storedPath);
    if (!stored.open(QIODevice::ReadOnly))
        return std::nullopt;
    QByteArray bytes = stored.read(cap + 1);
    if (bytes.size() > cap)
        return std::nullopt;
    return bytes;
}

// The output files' part of a result: a text section, the content blocks to show (images, SVG
// as text), one resource_link per file, and their structured list.
struct FilesPart
{
    QString text;
    QJsonArray shown;
    QJsonArray links;
    QJsonArray structured;
};

FilesPart describeFiles(const QList<OutputFile>& files, const QString& key, const QString& outDir)
{
    FilesPart part;
    if (files.isEmpty())
        return part;
    int inlineImages = 0;
    QStringList lines;
    for (const OutputFile& file : files) {
        QJsonObject entry{{QStringLiteral("path"), file.path},
                          {QStringLiteral("size_bytes"), file.sizeBytes}};
        if (!file.isReturned()) {
            entry.insert(QStringLiteral("skipped"), file.skipReason);
            part.structured.append(entry);
            lines.append(QStringLiteral("- %1: not returned (%2)").arg(file.path, file.skipReason));
            continue;
        }
        const QString relative = RunFileUri::relativeToRun(file.storedPath, key);
        const QString uri =
            key.isEmpty() || relative.isEmpty() ? QString() : RunFileUri::make(key, relative);
        entry.insert(QStringLiteral("mime_type"), file.mimeType);
        if (!uri.isEmpty())
            entry.insert(QStringLiteral("uri"), uri);
        part.structured.append(entry);
        QString shownAs;
        if (MediaType::isRasterImage(file.mimeType) &&
            inlineImages < ToolResultFormatter::kMaxInlineImages) {
            if (const auto bytes = storedBytes(file, ToolResultFormatter::kMaxInlineImageBytes)) {
                part.shown.append(QJsonObject{
                    {QStringLiteral("type"), QStringLiteral("image")},
                    {QStringLiteral("data"), QString::fromLatin1(bytes->toBase64())},
                    {QStringLiteral("mimeType"), file.mimeType},
                });
                ++inlineImages;
                shownAs = QStringLiteral(", shown below");
            } else {
                shownAs = QStringLiteral(", too large to show: read it through its URI");
            }
        } else if (file.mimeType == QLatin1String("image/svg+xml")) {
            if (const auto bytes = storedBytes(file, ToolResultFormatter::kMaxInlineImageBytes)) {
                part.shown.append(ToolResult::textContent(
                    QStringLiteral("[%1]\n%2").arg(file.path, QString::fromUtf8(*bytes))));
                shownAs = QStringLiteral(", shown below as text");
            }
        }
        lines.append(QStringLiteral("- %1 (%2, %3%4)%5")
                         .arg(file.path, file.mimeType, readableSize(file.sizeBytes), shownAs,
                              uri.isEmpty() ? QString() : QStringLiteral(": ") + uri));
        if (!uri.isEmpty()) {
            part.links.append(QJsonObject{
                {QStringLiteral("type"), QStringLiteral("resource_link")},
                {QStringLiteral("uri"), uri},
                {QStringLiteral("name"), file.path},
                {QStringLiteral("mimeType"), file.mimeType},
                {QStringLiteral("size"), file.sizeBytes},
            });
        }
    }
    part.text = QStringLiteral("[files the program left in %1:]\n").arg(outDir) +
                lines.join(QLatin1Char('\n'));
    return part;
}
QJsonObject filesSchema()
{
    const QString string = QStringLiteral("string");
    const QJsonObject file{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("path"),
              schemaOf(string, QStringLiteral("Relative to the output folder"))},
             {QStringLiteral("size_bytes"),
              schemaOf(QStringLiteral("integer"), QStringLiteral("Size"))},
             {QStringLiteral("mime_type"),
              schemaOf(string, QStringLiteral("What the file holds, from its content"))},
             {QStringLiteral("uri"),
              schemaOf(string, QStringLiteral("Read it with resources/read"))},
             {QStringLiteral("skipped"),
              schemaOf(string, QStringLiteral("Why it was not returned, if it was not"))},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("path")}},
    };
    return {{QStringLiteral("type"), QStringLiteral("array")},
            {QStringLiteral("items"), file},
            {QStringLiteral("description"),
             QStringLiteral("Files the program left in its output folder")}};
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

QString ToolResultFormatter::describeRefusals(const QList<EgressConnection>& connections,
                                              int notListed)
{
    constexpr int kMostListed = 5;
    QStringList listed;
    QSet<QString> seen;
    int refused = 0;
    for (const EgressConnection& connection : connections) {
        if (connection.allowed)
            continue;
        ++refused;
        const QString target = QStringLiteral("%1:%2").arg(connection.host).arg(connection.port);
        if (seen.contains(target))
            continue;
        seen.insert(target);
        if (listed.size() == kMostListed)
            continue;
        listed.append(connection.host.isEmpty()
                          ? connection.reason
                          : QStringLiteral("%1 (%2)").arg(target, connection.reason));
    }
    // Past the record's cap a run's connections are counted only: the proxy refuses those past
    // its limit, so the model must hear of them even when every listed one went through.
    const QString unlisted =
        notListed > 0 ? QStringLiteral("%1 more connection%2 of this run, past the first %3, "
                                       "are not listed: the proxy refuses a run's connections "
                                       "past its limit")
                            .arg(notListed)
                            .arg(notListed == 1 ? QString() : QStringLiteral("s"))
                            .arg(connections.size())
                      : QString();
    if (refused == 0)
        return unlisted.isEmpty() ? QString() : QStringLiteral("[network: %1]").arg(unlisted);
    // The model's next move is often to retry or to try another way out: say that neither helps.
    return QStringLiteral("[network: the sandbox's egress proxy refused %1 connection%2: %3%4. "
                          "The user's egress rules decide this (the Code Sandbox app, or "
                          "--egress and --allow-host); retrying or another library will not "
                          "get through%5]")
        .arg(refused)
        .arg(refused == 1 ? QString() : QStringLiteral("s"))
        .arg(listed.join(QStringLiteral("; ")))
        .arg(seen.size() > listed.size()
                 ? QStringLiteral("; and %1 more").arg(seen.size() - listed.size())
                 : QString())
        .arg(unlisted.isEmpty() ? QString() : QStringLiteral(". ") + unlisted);
}

QJsonObject ToolResultFormatter::format(const ExecutionResult& result, const QString& filesKey,
                                        const QString& outputDirectory)
{
    const QString out = result.stdoutTruncated ? decodeTruncatedOutput(result.stdoutBytes)
                                               : decodeOutput(result.stdoutBytes);
    const QString err = result.stderrTruncated ? decodeTruncatedOutput(result.stderrBytes)
                                               : decodeOutput(result.stderrBytes);
    const bool failed =
        result.timedOut() || result.oomKilled || result.exitCode != 0 || result.stoppedByUser;

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
    } else if (result.timedOut() && !result.sessionNote.isEmpty()) {
        appendSection(text, QStringLiteral("[timed out after %1 s: %2]")
                                .arg(QString::number(result.durationMs / 1000.0, 'f', 1),
                                     result.sessionNote));
    } else if (result.timedOut()) {
        appendSection(text, QStringLiteral("[timed out after %1 s: the program was killed; the "
                                           "output above is what it printed until then]")
                                .arg(QString::number(result.durationMs / 1000.0, 'f', 1)));
    } else if (result.stoppedByUser) {
        appendSection(text, QStringLiteral("[stopped after %1 s by the user, from the Code Sandbox "
                                           "app: the output above is what it printed until then]")
                                .arg(QString::number(result.durationMs / 1000.0, 'f', 1)));
    } else if (result.exitCode != 0) {
        appendSection(text, QStringLiteral("[exit code: %1]").arg(result.exitCode));
    }
    if (!result.timedOut() && !result.sessionNote.isEmpty())
        appendSection(text, QStringLiteral("[session: %1]").arg(result.sessionNote));
    if (!result.unenforcedLimits.isEmpty()) {
        appendSection(text, QStringLiteral("[note: this sandbox had no %1 limit: the container "
                                           "engine does not enforce it here, and the server "
                                           "allows that (--allow-unlimited)]")
                                .arg(result.unenforcedLimits.join(QStringLiteral(", "))));
    }
    for (const QString& warning : result.engineWarnings)
        appendSection(text, QStringLiteral("[engine warning: %1]").arg(warning));
    if (const QString refused = describeRefusals(result.connections, result.connectionsNotListed);
        !refused.isEmpty())
        appendSection(text, refused);
    const FilesPart files = describeFiles(result.outputFiles, filesKey, outputDirectory);
    if (text.isEmpty() && files.text.isEmpty())
        text = QStringLiteral("[no output; exit code 0]");
    if (!files.text.isEmpty())
        appendSection(text, files.text);

    QJsonObject structured{
        {QStringLiteral("stdout"), out},
        {QStringLiteral("stderr"), err},
        {QStringLiteral("exit_code"), result.exitCode},
        {QStringLiteral("duration_ms"), result.durationMs},
        {QStringLiteral("timed_out"), result.timedOut()},
        {QStringLiteral("truncated"), result.truncated()},
        {QStringLiteral("oom_killed"), result.oomKilled},
    };
    QJsonArray content{ToolResult::textContent(text)};
    for (const QJsonValue& block : files.shown)
        content.append(block);
    for (const QJsonValue& link : files.links)
        content.append(link);
    if (!files.structured.isEmpty())
        structured.insert(QStringLiteral("files"), files.structured);
    return {
        {QStringLiteral("content"), content},
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
             {QStringLiteral("files"), filesSchema()},
         }},
        {QStringLiteral("required"),
         QJsonArray{QStringLiteral("stdout"), QStringLiteral("stderr"), QStringLiteral("exit_code"),
                    QStringLiteral("duration_ms"), QStringLiteral("timed_out")}},
    };
}

} // namespace csm
