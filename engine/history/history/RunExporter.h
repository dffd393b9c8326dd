#pragma once

#include "core/Expected.h"
#include "history/RunRecord.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <optional>

class QTextStream;

namespace csm {

// Writes runs as JSON or CSV, one run at a time, so that a large export never holds the whole
// history in memory. Shared by `code-sandbox-mcp history export` and the desktop app's Runs page,
// so that both write the same fields under the same names.
//
// JSON: an array of objects (toJson), one run per line. CSV: RFC 4180 with a header row; times in
// ISO 8601 UTC, booleans as 0/1, limits as compact JSON.
class RunExporter final
{
public:
    enum class Format
    {
        Json,
        Csv,
    };

    // "json" or "csv", in any case.
    static std::optional<Format> parseFormat(const QString& name);
    // Every field of a run, under the names of the history's columns (stdout, stderr without
    // "_text"); times in ISO 8601 UTC, null when unset; `files` lists the run's files (path,
    // direction "in" or "out", size_bytes, mime_type, stored_path, skip_reason), empty when the
    // run was read without its content.
    static QJsonObject toJson(const RunRecord& run);

    // Writes the start of the document (the CSV header, or the JSON array's opening bracket).
    RunExporter(QTextStream& out, Format format);
    Q_DISABLE_COPY_MOVE(RunExporter)

    void add(const RunRecord& run);
    // Writes the end of the document and flushes the stream. Call once, after the last add().
    void finish();

    // Writes a private file (owner-only: it holds code and outputs) at `path`: `fill` adds the
    // runs, or fails to give up (its failure is this one's). Fails, saying why, when the file
    // cannot be written; a failed export may leave a partial file.
    static Expected<void> writeFile(const QString& path, Format format,
                                    const std::function<Expected<void>(RunExporter&)>& fill);

private:
    QTextStream& m_out;
    Format m_format;
    bool m_empty = true;
};

} // namespace csm
