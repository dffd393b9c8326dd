#include "platform/FolderIdentity.h"

#include <QFile>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

namespace csm {

namespace {

// Each component of an absolute path, as a path of its own: "/", "/a", "/a/b".
QStringList componentsOf(const QString& path)
{
    QStringList components{QStringLiteral("/")};
    QString prefix;
    for (const QString& name : path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        prefix += QLatin1Char('/') + name;
        components << prefix;
    }
    return components;
}

} // namespace

FolderIdentity FolderIdentity::of(const QString& canonicalPath)
{
    FolderIdentity identity;
#ifdef Q_OS_UNIX
    for (const QString& component : componentsOf(canonicalPath)) {
        struct stat status
        {
        };
        // lstat: a component that is a link is a change, never followed.
        if (::lstat(QFile::encodeName(component).constData(), &status) != 0 ||
            !S_ISDIR(status.st_mode))
            return {};
        identity.m_components.append({component, quint64(status.st_dev), quint64(status.st_ino)});
    }
#else
    Q_UNUSED(canonicalPath)
#endif
    return identity;
}

QString FolderIdentity::changeNow() const
{
#ifdef Q_OS_UNIX
    for (const Component& component : m_components) {
        struct stat status
        {
        };
        if (::lstat(QFile::encodeName(component.path).constData(), &status) != 0)
            return QStringLiteral("%1 is gone").arg(component.path);
        if (S_ISLNK(status.st_mode))
            return QStringLiteral("%1 is now a symbolic link").arg(component.path);
        if (!S_ISDIR(status.st_mode) || quint64(status.st_dev) != component.device ||
            quint64(status.st_ino) != component.inode)
            return QStringLiteral("%1 is now another folder").arg(component.path);
    }
#endif
    return {};
}

} // namespace csm
