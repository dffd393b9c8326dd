#include "tools/RunFilesResources.h"

#include "core/MediaType.h"
#include "tools/RunFileUri.h"

#include <QFile>
#include <QJsonArray>

namespace csm {

RunFilesResources::RunFilesResources(RunFilesStore store,
                                     std::shared_ptr<const RunFileOwners> owners)
    : m_store(std::move(store))
    , m_owners(std::move(owners))
{}

Expected<QJsonObject> RunFilesResources::read(const QString& uri, const CallContext& reader) const
{
    const auto parts = RunFileUri::parse(uri);
    // Another client's run reads as no run at all: its existence is not for this client to
    // learn either.
    const bool mayRead = parts && m_owners && m_owners->mayRead(parts->key, reader);
    const auto path = mayRead ? m_store.file(parts->key, parts->relativePath) : std::nullopt;
    if (!path) {
        return Unexpected(QStringLiteral("Resource not found: %1 (a run's files are kept with "
                                         "its history; this one is gone, or never was)")
                              .arg(uri.left(300)));
    }
    QFile file(*path);
    if (!file.open(QIODevice::ReadOnly))
        return Unexpected(QStringLiteral("Cannot read %1: %2").arg(uri, file.errorString()));
    if (file.size() > kMaxReadBytes) {
        return Unexpected(QStringLiteral("%1 is larger than %2 MiB, the most resources/read "
                                         "returns")
                              .arg(uri)
                              .arg(kMaxReadBytes / (1024 * 1024)));
    }
    const QByteArray bytes = file.read(kMaxReadBytes);
    const QString mediaType = MediaType::sniff(bytes.left(MediaType::kSniffBytes), *path);
    QJsonObject content{{QStringLiteral("uri"), uri}, {QStringLiteral("mimeType"), mediaType}};
    if (MediaType::isText(mediaType))
        content.insert(QStringLiteral("text"), QString::fromUtf8(bytes));
    else
        content.insert(QStringLiteral("blob"), QString::fromLatin1(bytes.toBase64()));
    return QJsonObject{{QStringLiteral("contents"), QJsonArray{content}}};
}

} // namespace csm
