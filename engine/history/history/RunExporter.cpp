#include "history/RunExporter.h"

#include "history/IsoTime.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStringList>
#include <QTextStream>

#include <utility>
#include <vector>

namespace csm {

namespace {

using CsvColumn = std::pair<QString, QString (*)(const RunRecord&)>;

QString limitsText(const RunRecord& run)
{
    return QString::fromUtf8(QJsonDocument(run.limits).toJson(QJsonDocument::Compact));
}

// A run's files, inputs first, as the history keeps them.
QJsonArray filesJson(const QList<RunFileRecord>& files)
{
    QJsonArray array;
    for (const RunFileRecord& file : files) {
        array.append(QJsonObject{
            {QStringLiteral("path"), file.path},
            {QStringLiteral("direction"), file.direction == RunFileRecord::Direction::Input
                                              ? QStringLiteral("in")
                                              : QStringLiteral("out")},
            {QStringLiteral("size_bytes"), file.sizeBytes},
            {QStringLiteral("mime_type"), file.mimeType},
            {QStringLiteral("stored_path"), file.storedPath},
            {QStringLiteral("skip_reason"), file.skipReason},
        });
    }
    return array;
}

// The CSV columns, in order, and how each is read from a run.
const std::vector<CsvColumn>& csvColumns()
{
    static const std::vector<CsvColumn> columns{
        {QStringLiteral("id"),
         [](const RunRecord& r) {
             return QString::number(r.id);
         }},
        {QStringLiteral("status"),
         [](const RunRecord& r) {
             return RunStatusTraits::toString(r.status);
         }},
        {QStringLiteral("started_at"),
         [](const RunRecord& r) {
             return isoTime(r.startedAt);
         }},
        {QStringLiteral("ended_at"),
         [](const RunRecord& r) {
             return isoTime(r.endedAt);
         }},
        {QStringLiteral("duration_ms"),
         [](const RunRecord& r) {
             return QString::number(r.durationMs);
         }},
        {QStringLiteral("exit_code"),
         [](const RunRecord& r) {
             return r.exitCode ? QString::number(*r.exitCode) : QString();
         }},
        {QStringLiteral("transport"),
         [](const RunRecord& r) {
             return r.transport;
         }},
        {QStringLiteral("session_id"),
         [](const RunRecord& r) {
             return r.sessionId;
         }},
        {QStringLiteral("client_name"),
         [](const RunRecord& r) {
             return r.clientName;
         }},
        {QStringLiteral("client_version"),
         [](const RunRecord& r) {
             return r.clientVersion;
         }},
        {QStringLiteral("session_name"),
         [](const RunRecord& r) {
             return r.sessionName;
         }},
        {QStringLiteral("session_key"),
         [](const RunRecord& r) {
             return r.sessionKey;
         }},
        {QStringLiteral("cell_number"),
         [](const RunRecord& r) {
             return QString::number(r.cellNumber);
         }},
        {QStringLiteral("tool"),
         [](const RunRecord& r) {
             return r.tool;
         }},
        {QStringLiteral("language"),
         [](const RunRecord& r) {
             return r.language;
         }},
        {QStringLiteral("image"),
         [](const RunRecord& r) {
             return r.image;
         }},
        {QStringLiteral("code"),
         [](const RunRecord& r) {
             return r.code;
         }},
        {QStringLiteral("limits"), &limitsText},
        {QStringLiteral("stdout"),
         [](const RunRecord& r) {
             return r.stdoutText;
         }},
        {QStringLiteral("stderr"),
         [](const RunRecord& r) {
             return r.stderrText;
         }},
        {QStringLiteral("stdout_truncated"),
         [](const RunRecord& r) {
             return QString::number(r.stdoutTruncated ? 1 : 0);
         }},
        {QStringLiteral("stderr_truncated"),
         [](const RunRecord& r) {
             return QString::number(r.stderrTruncated ? 1 : 0);
         }},
        {QStringLiteral("error_message"),
         [](const RunRecord& r) {
             return r.errorMessage;
         }},
        {QStringLiteral("server_instance"),
         [](const RunRecord& r) {
             return r.serverInstance;
         }},
        {QStringLiteral("server_pid"),
         [](const RunRecord& r) {
             return QString::number(r.serverPid);
         }},
        {QStringLiteral("host_name"),
         [](const RunRecord& r) {
             return r.hostName;
         }},
    };
    return columns;
}

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
QString csvField(const QString& value)
{
    if (!value.contains(u',') && !value.contains(u'"') && !value.contains(u'\n') &&
        !value.contains(u'\r'))
        return value;
    QString quoted = value;
    quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return u'"' + quoted + u'"';
}

QString csvRow(const QStringList& fields)
{
    QStringList quoted;
    quoted.reserve(fields.size());
    for (const QString& field : fields)
        quoted << csvField(field);
    return quoted.join(u',') + QStringLiteral("\r\n");
}

} // namespace

std::optional<RunExporter::Format> RunExporter::parseFormat(const QString& name)
{
    const QString format = name.trimmed().toLower();
    if (format == QLatin1String("json"))
        return Format::Json;
    if (format == QLatin1String("csv"))
        return Format::Csv;
    return std::nullopt;
}

QJsonObject RunExporter::toJson(const RunRecord& run)
{
    return {
        {QStringLiteral("id"), run.id},
        {QStringLiteral("status"), RunStatusTraits::toString(run.status)},
        {QStringLiteral("started_at"), isoTimeOrNull(run.startedAt)},
        {QStringLiteral("ended_at"), isoTimeOrNull(run.endedAt)},
        {QStringLiteral("duration_ms"), run.durationMs},
        {QStringLiteral("exit_code"),
         run.exitCode ? QJsonValue(*run.exitCode) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("transport"), run.transport},
        {QStringLiteral("session_id"), run.sessionId},
        {QStringLiteral("client_name"), run.clientName},
        {QStringLiteral("client_version"), run.clientVersion},
        {QStringLiteral("session_name"), run.sessionName},
        {QStringLiteral("session_key"), run.sessionKey},
        {QStringLiteral("cell_number"), run.cellNumber},
        {QStringLiteral("tool"), run.tool},
        {QStringLiteral("language"), run.language},
        {QStringLiteral("image"), run.image},
        {QStringLiteral("code"), run.code},
        {QStringLiteral("limits"), run.limits},
        {QStringLiteral("stdout"), run.stdoutText},
        {QStringLiteral("stderr"), run.stderrText},
        {QStringLiteral("stdout_truncated"), run.stdoutTruncated},
        {QStringLiteral("stderr_truncated"), run.stderrTruncated},
        {QStringLiteral("error_message"), run.errorMessage},
        {QStringLiteral("server_instance"), run.serverInstance},
        {QStringLiteral("server_pid"), run.serverPid},
        {QStringLiteral("host_name"), run.hostName},
        {QStringLiteral("change_seq"), run.changeSeq},
        {QStringLiteral("files_key"), run.filesKey},
        {QStringLiteral("output_file_count"), run.outputFileCount},
        {QStringLiteral("files"), filesJson(run.files)},
    };
}

RunExporter::RunExporter(QTextStream& out, Format format)
    : m_out(out)
    , m_format(format)
{
    if (m_format == Format::Csv) {
        QStringList names;
        for (const auto& column : csvColumns())
            names << column.first;
        m_out << csvRow(names);
    } else {
        m_out << "[";
    }
}

void RunExporter::add(const RunRecord& run)
{
    if (m_format == Format::Csv) {
        QStringList fields;
        for (const auto& column : csvColumns())
            fields << column.second(run);
        m_out << csvRow(fields);
    } else {
        m_out << (m_empty ? "\n" : ",\n")
              << QString::fromUtf8(QJsonDocument(toJson(run)).toJson(QJsonDocument::Compact));
    }
    m_empty = false;
}

void RunExporter::finish()
{
    if (m_format == Format::Json)
        m_out << (m_empty ? "]\n" : "\n]\n");
    m_out.flush();
}

Expected<void> RunExporter::writeFile(const QString& path, Format format,
                                      const std::function<Expected<void>(RunExporter&)>& fill)
{
    const auto cannotWrite = [&](const QFile& file) {
        return Unexpected(QStringLiteral("cannot write %1: %2")
                              .arg(QDir::toNativeSeparators(path), file.errorString()));
    };
    QFile file(path);
    // Private like the history itself: it holds code and outputs.
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate,
                   QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return cannotWrite(file);
    {
        QTextStream stream(&file);
        RunExporter exporter(stream, format);
        if (const Expected<void> filled = fill(exporter); !filled)
            return filled;
        exporter.finish();
    }
    file.close();
    if (file.error() != QFileDevice::NoError)
        return cannotWrite(file);
    return {};
}

} // namespace csm
