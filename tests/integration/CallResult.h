#pragma once

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

// Reading a tools/call result, and writing a call's arguments, as the integration tests do.
namespace callresult {

inline QJsonObject structured(const QJsonObject& result)
{
    return result.value(QLatin1String("structuredContent")).toObject();
}

// The readable text a client shows (the first content item).
inline QString text(const QJsonObject& result)
{
    return result.value(QLatin1String("content"))
        .toArray()
        .at(0)
        .toObject()
        .value(QLatin1String("text"))
        .toString();
}

inline bool isError(const QJsonObject& result)
{
    return result.value(QLatin1String("isError")).toBool();
}

// The description of the `index`th tool of a tools/list result.
inline QString toolDescription(const QJsonObject& toolsList, int index = 0)
{
    return toolsList.value(QLatin1String("tools"))
        .toArray()
        .at(index)
        .toObject()
        .value(QLatin1String("description"))
        .toString();
}

inline QString stdoutOf(const QJsonObject& result)
{
    return structured(result).value(QLatin1String("stdout")).toString();
}

// A run_*_code call's arguments; with a timeout when `timeoutSeconds` is above 0.
inline QJsonObject code(const QString& program, double timeoutSeconds = 0)
{
    QJsonObject arguments{{QStringLiteral("code"), program}};
    if (timeoutSeconds > 0)
        arguments.insert(QStringLiteral("timeout_seconds"), timeoutSeconds);
    return arguments;
}

// The JSON object a probe program printed as its last line of stdout (empty if none).
inline QJsonObject printedJson(const QJsonObject& result)
{
    const QStringList lines = stdoutOf(result).split(u'\n', Qt::SkipEmptyParts);
    if (lines.isEmpty())
        return {};
    return QJsonDocument::fromJson(lines.constLast().toUtf8()).object();
}

// What a failure message shows of a result: its JSON, bounded.
inline QByteArray describe(const QJsonObject& result)
{
    return QJsonDocument(result).toJson(QJsonDocument::Compact).left(4'000);
}

// The result's content blocks of one type ("image", "resource_link"...).
inline QList<QJsonObject> blocksOfType(const QJsonObject& result, const QString& type)
{
    QList<QJsonObject> blocks;
    const QJsonArray content = result.value(QLatin1String("content")).toArray();
    for (const QJsonValue& block : content) {
        if (block.toObject().value(QLatin1String("type")).toString() == type)
            blocks.append(block.toObject());
    }
    return blocks;
}

// The label filter that finds the containers of the server with this pid.
inline QString pidLabel(qint64 pid)
{
    return QStringLiteral("code-sandbox.pid=%1").arg(pid);
}

} // namespace callresult
