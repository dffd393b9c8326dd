#pragma once

#include "egress/EgressConnection.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace csm {

struct ExecutionResult;

// Turns a sandbox run into an MCP CallToolResult: a readable text in `content` (what most
// clients show the model) and the same facts, typed, in `structuredContent`. The files the
// program left in its output folder follow: listed in the text with their URIs, small images as
// image content (so the model sees its charts), every file as a resource_link.
class ToolResultFormatter final
{
public:
    // An image larger than this is only linked, not shown.
    static constexpr qint64 kMaxInlineImageBytes = 1024 * 1024;
    // At most this many images are shown in one result; the others are linked.
    static constexpr int kMaxInlineImages = 8;

    // `filesKey`: the run's folder in RunFilesStore, which names the files' URIs;
    // `outputDirectory`: where the program left them (SandboxPolicy::outputDirectory).
    static QJsonObject format(const ExecutionResult& result, const QString& filesKey = {},
                              const QString& outputDirectory = QStringLiteral("/sandbox/out"));
    // A failure before any program ran (bad arguments, engine or image missing).
    // Program output as text: always valid UTF-8, each invalid byte sequence becoming U+FFFD.
    static QString decodeOutput(const QByteArray& bytes);
    // The same for output cut at the cap: a character the cut split in two is left out.
    static QString decodeTruncatedOutput(const QByteArray& bytes);
    // What the model reads about the connections the egress proxy refused (empty: none was), so
    // that it stops retrying: each host once, with the reason; and how many connections were not
    // listed (`notListed`, past the record's cap), whatever became of them.
    static QString describeRefusals(const QList<EgressConnection>& connections, int notListed = 0);
    // The outputSchema matching format()'s structuredContent.
    static QJsonObject outputSchema();
};

} // namespace csm
