#include "runtime/ContainerListing.h"

#include "core/JsonLines.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>

namespace csm {

namespace {
bool looksLikeLabelKey(QStringView key)
{
    if (key.isEmpty())
        return false;
    for (const QChar c : key) {
        const bool allowed = (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') ||
                             (c >= u'0' && c <= u'9') || c == u'.' || c == u'-' || c == u'_' ||
                             c == u'/';
        if (!allowed)
            return false;
    }
    return true;
}

// Docker joins labels as "k=v,k=v" without escaping, so a value holding a comma is ambiguous.
// A piece that does not start with something key-like continues the previous value, which
// reads prose ("a description, with a comma") right; a value holding ",word=..." is still
// split wrongly, which is why the docker listing also asks for the labels we decide on one by
// one (LabelValues).
QMap<QString, QString> splitLabelString(const QString& text)
{
    QMap<QString, QString> labels;
    QString currentKey;
    const QStringList pieces = text.split(u',');
    for (const QString& piece : pieces) {
        const qsizetype equals = piece.indexOf(u'=');
        if (equals > 0 && looksLikeLabelKey(QStringView(piece).left(equals))) {
            currentKey = piece.left(equals);
            labels.insert(currentKey, piece.mid(equals + 1));
        } else if (!currentKey.isEmpty()) {
            labels[currentKey] += QLatin1Char(',') + piece;
        }
    }
    return labels;
}

QMap<QString, QString> labelsFromObject(const QJsonObject& object)
{
    QMap<QString, QString> labels;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (it.value().isString())
            labels.insert(it.key(), it.value().toString());
    }
    return labels;
}

QString firstName(const QJsonValue& names)
{
    if (names.isArray()) {
        const QJsonArray array = names.toArray();
        for (const QJsonValue& name : array) {
            if (name.isString() && !name.toString().isEmpty())
                return name.toString();
        }
        return {};
    }
    // Docker: several names (legacy links) are joined with commas.
    return names.toString().section(u',', 0, 0).trimmed();
}
} // namespace

std::optional<ContainerInfo> ContainerListing::fromJson(const QJsonObject& entry)
{
    ContainerInfo info;
    info.id = entry.value(QLatin1String("Id")).toString();
    if (info.id.isEmpty())
        info.id = entry.value(QLatin1String("ID")).toString();
    info.name = firstName(entry.value(QLatin1String("Names")));
    if (info.id.isEmpty() && info.name.isEmpty())
        return std::nullopt;

    const QJsonValue labels = entry.value(QLatin1String("Labels"));
    if (labels.isObject())
        info.labels = labelsFromObject(labels.toObject());
    else if (labels.isString())
        info.labels = splitLabelString(labels.toString());

    // Exact values asked for one by one; an empty one means absent (docker's `.Label` cannot tell
    // the two apart), and neither carries information.
    const QJsonObject exact = entry.value(QLatin1String("LabelValues")).toObject();
    for (auto it = exact.constBegin(); it != exact.constEnd(); ++it) {
        const QString value = it.value().toString();
        if (value.isEmpty())
            info.labels.remove(it.key());
        else
            info.labels.insert(it.key(), value);
    }
    return info;
}

QList<ContainerInfo> ContainerListing::fromJsonArray(const QByteArray& output)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(output, &error);
    if (error.error != QJsonParseError::NoError || !document.isArray())
        return {};
    QList<ContainerInfo> containers;
    const QJsonArray entries = document.array();
    for (const QJsonValue& entry : entries) {
        if (!entry.isObject())
            continue;
        if (std::optional<ContainerInfo> info = fromJson(entry.toObject()))
            containers.append(std::move(*info));
    }
    return containers;
}

QList<ContainerInfo> ContainerListing::fromJsonLines(const QByteArray& output)
{
    QList<ContainerInfo> containers;
    for (const QJsonObject& entry : jsonObjectLines(output)) {
        if (std::optional<ContainerInfo> info = fromJson(entry))
            containers.append(std::move(*info));
    }
    return containers;
}

} // namespace csm
