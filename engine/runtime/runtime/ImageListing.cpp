#include "runtime/ImageListing.h"

#include "core/JsonLines.h"
#include "core/UtcDateTime.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <QRegularExpression>
#include <QSet>
#include <QTimeZone>

#include <cmath>

namespace csm {

namespace {
const QLatin1String kNone("<none>");

std::optional<ImageInfo> fromDockerEntry(const QJsonObject& entry)
{
    ImageInfo image;
    image.id = entry.value(QLatin1String("ID")).toString();
    const QString repository = entry.value(QLatin1String("Repository")).toString();
    const QString tag = entry.value(QLatin1String("Tag")).toString();
    if (!repository.isEmpty() && repository != kNone) {
        image.name = repository;
        // An image pulled by digest only has no tag: its repository alone does not name it.
        if (!tag.isEmpty() && tag != kNone)
            image.name += QLatin1Char(':') + tag;
        else
            image.name.clear();
    }
    if (image.id.isEmpty() && image.name.isEmpty())
        return std::nullopt;
    image.sizeBytes =
        ImageListing::parseDockerSize(entry.value(QLatin1String("Size")).toString()).value_or(0);
    image.created =
        ImageListing::parseDockerTime(entry.value(QLatin1String("CreatedAt")).toString());
    return image;
}
} // namespace

QList<ImageInfo> ImageListing::fromPodmanJson(const QByteArray& output)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(output, &error);
    if (error.error != QJsonParseError::NoError || !document.isArray())
        return {};
    QList<ImageInfo> images;
    // Podman 4 prints an image once for each of its names, each time with all of them.
    QSet<QString> seen;
    const auto add = [&images, &seen](const ImageInfo& image) {
        const QString key = image.id + QLatin1Char(' ') + image.name;
        if (!seen.contains(key)) {
            seen.insert(key);
            images.append(image);
        }
    };
    const QJsonArray entries = document.array();
    for (const QJsonValue& value : entries) {
        if (!value.isObject())
            continue;
        const QJsonObject entry = value.toObject();
        ImageInfo image;
        image.id = entry.value(QLatin1String("Id")).toString();
        if (image.id.isEmpty())
            continue;
        image.sizeBytes = qint64(entry.value(QLatin1String("Size")).toDouble());
        const QJsonValue created = entry.value(QLatin1String("Created"));
        if (created.isDouble() && created.toDouble() > 0)
            image.created = utcFromMSecsSinceEpoch(qint64(created.toDouble()) * 1000);
        QStringList names;
        const QJsonArray nameArray = entry.value(QLatin1String("Names")).toArray();
        for (const QJsonValue& name : nameArray) {
            if (name.isString() && !name.toString().isEmpty() && !names.contains(name.toString()))
                names << name.toString();
        }
        if (names.isEmpty()) {
            add(image);
            continue;
        }
        for (const QString& name : std::as_const(names)) {
            image.name = name;
            add(image);
        }
    }
    return images;
}

QList<ImageInfo> ImageListing::fromDockerJsonLines(const QByteArray& output)
{
    QList<ImageInfo> images;
    for (const QJsonObject& entry : jsonObjectLines(output)) {
        if (std::optional<ImageInfo> image = fromDockerEntry(entry))
            images.append(std::move(*image));
    }
    return images;
}

std::optional<qint64> ImageListing::parseDockerSize(const QString& text)
{
    // github.com/docker/go-units HumanSize: up to 4 significant digits, SI units.
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*(B|kB|KB|MB|GB|TB|PB)\\s*$"));
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const double number = match.captured(1).toDouble();
    const QString unit = match.captured(2);
    double factor = 1;
    if (unit.compare(QLatin1String("kB"), Qt::CaseInsensitive) == 0)
        factor = 1e3;
    else if (unit == QLatin1String("MB"))
        factor = 1e6;
    else if (unit == QLatin1String("GB"))
        factor = 1e9;
    else if (unit == QLatin1String("TB"))
        factor = 1e12;
    else if (unit == QLatin1String("PB"))
        factor = 1e15;
    return qint64(std::llround(number * factor));
}

QDateTime ImageListing::parseDockerTime(const QString& text)
{
    // Go's time.String(): "2006-01-02 15:04:05 -0700 MST", perhaps with fractional seconds.
    static const QRegularExpression pattern(QStringLiteral(
        "^(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2})(?:\\.\\d+)? ([+-])(\\d{2})(\\d{2})\\b"));
    const QRegularExpressionMatch match = pattern.match(text.trimmed());
    if (!match.hasMatch())
        return {};
    QDateTime time =
        QDateTime::fromString(match.captured(1), QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    if (!time.isValid())
        return {};
    const int sign = match.captured(2) == QLatin1String("-") ? -1 : 1;
    const int offsetSeconds =
        sign * (match.captured(3).toInt() * 3600 + match.captured(4).toInt() * 60);
    time.setTimeZone(QTimeZone(offsetSeconds));
    return time.toUTC();
}

} // namespace csm
