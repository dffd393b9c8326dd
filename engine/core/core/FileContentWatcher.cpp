#include "core/FileContentWatcher.h"

#include "core/Logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <utility>

namespace csm {

FileContentWatcher::FileContentWatcher(QString path, QObject* parent)
    : QObject(parent)
    , m_path(std::move(path))
{
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this,
            &FileContentWatcher::onSomethingChanged);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this,
            &FileContentWatcher::onSomethingChanged);
}

void FileContentWatcher::start()
{
    watchFolder();
    watchFile();
    m_content = read();
}

void FileContentWatcher::watchFolder()
{
    const QString folder = QDir::cleanPath(QFileInfo(m_path).path());
    const QString watched = QFileInfo::exists(folder) ? folder : QFileInfo(folder).path();
    if (!QFileInfo::exists(watched) || m_watcher.directories().contains(watched))
        return;
    if (!m_watcher.addPath(watched))
        qCWarning(lcEngine).noquote() << "cannot watch" << watched << "for changes to" << m_path;
}

void FileContentWatcher::watchFile()
{
    // A file replaced by a rename is a new inode: it is watched again each time.
    if (QFile::exists(m_path) && !m_watcher.files().contains(m_path))
        m_watcher.addPath(m_path);
}

void FileContentWatcher::onSomethingChanged()
{
    watchFolder();
    watchFile();
    QByteArray content = read();
    if (content == m_content)
        return;
    m_content = std::move(content);
    Q_EMIT contentChanged(m_content);
}

QByteArray FileContentWatcher::read() const
{
    QFile file(m_path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace csm
