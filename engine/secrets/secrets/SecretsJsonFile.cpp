#include "secrets/SecretsJsonFile.h"

#include <QDir>
#include <QJsonDocument>

namespace csm {

SecretsJsonFile::SecretsJsonFile(QString folder, const QString& fileName, QString description,
                                 int formatVersion)
    : m_folder(std::move(folder))
    , m_path(QDir(m_folder).filePath(fileName))
    , m_description(std::move(description))
    , m_formatVersion(formatVersion)
{}

Expected<QJsonObject> SecretsJsonFile::read() const
{
    Expected<QJsonObject> root = PrivateFiles::readVersionedJson(m_path, m_formatVersion);
    if (!root)
        return unreadable(root.error());
    return root;
}

Unexpected SecretsJsonFile::unreadable(const QString& reason) const
{
    return Unexpected(QStringLiteral("cannot read %1 %2: %3")
                          .arg(m_description, QDir::toNativeSeparators(m_path), reason));
}

Expected<void> SecretsJsonFile::write(QJsonObject content,
                                      PrivateFiles::FolderMode folderMode) const
{
    content.insert(QStringLiteral("version"), m_formatVersion);
    Expected<void> written = PrivateFiles::ensurePrivateFolder(m_folder, folderMode);
    if (written)
        written = PrivateFiles::writePrivateFile(m_path, QJsonDocument(content).toJson());
    if (!written)
        return Unexpected(
            QStringLiteral("cannot write %1: %2").arg(m_description, written.error()));
    return {};
}

} // namespace csm
