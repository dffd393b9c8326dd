#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>

namespace csm {

// The objects of output with one JSON object per line (`docker ... --format '{{json .}}'`).
// Blank lines and lines that are not a JSON object are skipped.
inline QList<QJsonObject> jsonObjectLines(const QByteArray& output)
{
    QList<QJsonObject> objects;
    const QList<QByteArray> lines = output.split('\n');
    for (const QByteArray& line : lines) {
        const QByteArray trimmed = line.trimmed();
        if (trimmed.isEmpty())
            continue;
        QJsonParseError error{};
        const QJsonDocument document = QJsonDocument::fromJson(trimmed, &error);
        if (error.error == QJsonParseError::NoError && document.isObject())
            objects.append(document.object());
    }
    return objects;
}

} // namespace csm
