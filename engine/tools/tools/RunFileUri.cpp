#include "tools/RunFileUri.h"

#include <QUrl>

namespace csm {

namespace {
const QString kPrefix = QStringLiteral("code-sandbox://runs/");
}

QString RunFileUri::make(const QString& key, const QString& relativePath)
{
    // Each part encoded on its own: the slashes between them stay, a name's own characters
    // (spaces, '#', '?') do not break the URI.
    QStringList parts;
    for (const QString& part : relativePath.split(QLatin1Char('/')))
        parts.append(QString::fromLatin1(QUrl::toPercentEncoding(part)));
    return kPrefix + key + QLatin1Char('/') + parts.join(QLatin1Char('/'));
}

std::optional<RunFileUri::Parts> RunFileUri::parse(const QString& uri)
{
    if (!uri.startsWith(kPrefix))
        return std::nullopt;
    const QString rest = uri.mid(kPrefix.size());
    const qsizetype slash = rest.indexOf(QLatin1Char('/'));
    if (slash <= 0)
        return std::nullopt;
    QStringList parts;
    for (const QString& part : rest.mid(slash + 1).split(QLatin1Char('/')))
        parts.append(QUrl::fromPercentEncoding(part.toUtf8()));
    return Parts{rest.left(slash), parts.join(QLatin1Char('/'))};
}

QString RunFileUri::relativeToRun(const QString& storedPath, const QString& key)
{
    const QString marker = QLatin1Char('/') + key + QLatin1Char('/');
    const qsizetype at = storedPath.lastIndexOf(marker);
    return at < 0 ? QString() : storedPath.mid(at + marker.size());
}

} // namespace csm
