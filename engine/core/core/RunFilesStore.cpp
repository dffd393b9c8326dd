#include "core/RunFilesStore.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QRegularExpression>
#include <QUuid>

#include <algorithm>

namespace csm {

namespace {
constexpr auto kOwnerOnly =
    QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;

qint64 bytesUnder(const QString& path)
{
    qint64 total = 0;
    QDirIterator files(path, QDir::Files | QDir::Hidden | QDir::NoSymLinks,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        files.next();
        total += files.fileInfo().size();
    }
    return total;
}
} // namespace

QString RunFilesStore::rootIn(const QString& dataDir)
{
    // Never a folder relative to wherever the server happens to run.
    if (dataDir.isEmpty())
        return {};
    return QDir(dataDir).filePath(QStringLiteral("run-files"));
}

RunFilesStore::RunFilesStore(QString root)
    : m_root(std::move(root))
{}

bool RunFilesStore::isKey(const QString& key)
{
    // QUuid::WithoutBraces: 36 characters of hex digits and dashes, nothing a path could use.
    static const QRegularExpression shape(
        QStringLiteral("^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$"));
    return shape.match(key).hasMatch();
}

Expected<QString> RunFilesStore::reserve() const
{
    if (!QDir().mkpath(m_root))
        return Unexpected(QStringLiteral("cannot create the run files folder %1").arg(m_root));
    // Every run's folder is made inside this one: only this account may look in.
    QFile::setPermissions(m_root, kOwnerOnly);
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QString RunFilesStore::folder(const QString& key) const
{
    return isKey(key) ? QDir(m_root).filePath(key) : QString();
}

std::optional<QString> RunFilesStore::file(const QString& key, const QString& relative) const
{
    const QString runFolder = folder(key);
    if (runFolder.isEmpty() || relative.isEmpty() || QDir::isAbsolutePath(relative))
        return std::nullopt;
    const QStringList parts = relative.split(QLatin1Char('/'));
    if (parts.contains(QStringLiteral("..")) || parts.contains(QStringLiteral(".")) ||
        parts.contains(QString()))
        return std::nullopt;
    // Every component, the folders included, must be what it says: a link anywhere on the way
    // could lead out of the run's folder.
    QString path = runFolder;
    for (const QString& part : parts) {
        path += QLatin1Char('/') + part;
        const QFileInfo info(path);
        if (info.isSymLink() || !info.exists())
            return std::nullopt;
    }
    if (!QFileInfo(path).isFile())
        return std::nullopt;
    return path;
}

void RunFilesStore::remove(const QString& key) const
{
    const QString runFolder = folder(key);
    if (!runFolder.isEmpty())
        QDir(runFolder).removeRecursively();
}

qint64 RunFilesStore::totalBytes() const
{
    return bytesUnder(m_root);
}

qint64 RunFilesStore::bytesOf(const QString& key) const
{
    const QString runFolder = folder(key);
    return runFolder.isEmpty() ? 0 : bytesUnder(runFolder);
}

QStringList RunFilesStore::pruneTo(qint64 maxBytes, const QStringList& keep,
                                   qint64* bytesLeft) const
{
    struct Run
    {
        QString key;
        QDateTime modified;
        qint64 bytes = 0;
    };
    QList<Run> runs;
    qint64 total = 0;
    const QFileInfoList entries =
        QDir(m_root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks);
    for (const QFileInfo& entry : entries) {
        if (!isKey(entry.fileName()))
            continue;
        Run run{entry.fileName(), entry.lastModified(), bytesUnder(entry.filePath())};
        total += run.bytes;
        runs.append(run);
    }
    std::sort(runs.begin(), runs.end(),
              [](const Run& a, const Run& b) { return a.modified < b.modified; });
    QStringList removed;
    for (const Run& run : runs) {
        if (total <= maxBytes)
            break;
        if (keep.contains(run.key))
            continue;
        remove(run.key);
        total -= run.bytes;
        removed.append(run.key);
    }
    if (bytesLeft)
        *bytesLeft = total;
    return removed;
}

} // namespace csm
