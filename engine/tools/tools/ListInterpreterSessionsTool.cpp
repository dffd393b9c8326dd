#include "tools/ListInterpreterSessionsTool.h"

#include "mcp/ToolResult.h"
#include "sandbox/InterpreterSessions.h"

#include <QJsonArray>

namespace csm {

namespace {

QString seconds(qint64 ms)
{
    return QStringLiteral("%1 s").arg(ms / 1000);
}

} // namespace

QString ListInterpreterSessionsTool::name() const
{
    return QStringLiteral("list_sessions");
}

QJsonObject ListInterpreterSessionsTool::definition() const
{
    return QJsonObject{
        {QStringLiteral("name"), name()},
        {QStringLiteral("title"), QStringLiteral("List live sessions")},
        {QStringLiteral("description"),
         QStringLiteral("Lists your live interpreter sessions (started by passing \"session\" to "
                        "run_python_code or run_js_code): name, language, age, idle time, cells "
                        "run and memory in use.")},
        {QStringLiteral("inputSchema"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                     {QStringLiteral("properties"), QJsonObject{}}}},
        {QStringLiteral("annotations"), QJsonObject{{QStringLiteral("readOnlyHint"), true},
                                                    {QStringLiteral("openWorldHint"), false}}},
    };
}

QJsonObject ListInterpreterSessionsTool::answer(const QJsonObject&, const InterpreterOwner* owner)
{
    const QList<InterpreterSessions::Entry> entries =
        owner ? sessions().list(owner->key) : QList<InterpreterSessions::Entry>();
    QStringList lines;
    for (const InterpreterSessions::Entry& entry : entries) {
        const QString memory =
            entry.memoryBytes >= 0
                ? QStringLiteral(", %1 MiB of memory").arg(entry.memoryBytes / (1024 * 1024))
                : QString();
        lines << QStringLiteral("%1 (%2): %3 cell(s), started %4 ago, idle %5%6%7")
                     .arg(entry.name, LanguageTraits::displayName(entry.language))
                     .arg(entry.cells)
                     .arg(seconds(entry.ageMs), seconds(entry.idleMs), memory,
                          entry.running ? QStringLiteral(", running a cell") : QString());
    }
    const QString text =
        lines.isEmpty() ? QStringLiteral("No live sessions.") : lines.join(QLatin1Char('\n'));
    return QJsonObject{{QStringLiteral("content"), QJsonArray{ToolResult::textContent(text)}},
                       {QStringLiteral("isError"), false}};
}

} // namespace csm
