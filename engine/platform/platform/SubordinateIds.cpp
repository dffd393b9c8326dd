#include "platform/SubordinateIds.h"

#include <QFile>

#if defined(Q_OS_UNIX)
#include <unistd.h>
#endif

namespace csm {

#if defined(Q_OS_LINUX)
namespace {
bool fileGrants(const QString& path, const QString& account, qint64 count)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return false;
    while (!file.atEnd()) {
        const QList<QByteArray> fields = file.readLine().trimmed().split(':');
        if (fields.size() != 3 || QString::fromUtf8(fields.at(0)) != account)
            continue;
        bool firstOk = false;
        bool countOk = false;
        fields.at(1).toLongLong(&firstOk);
        if (firstOk && fields.at(2).toLongLong(&countOk) >= count && countOk)
            return true;
    }
    return false;
}
} // namespace
#endif

SubordinateIds::SubordinateIds(QString folder)
    : m_folder(std::move(folder))
{}

bool SubordinateIds::grant(const QString& account, qint64 count) const
{
#if defined(Q_OS_LINUX)
    return fileGrants(m_folder + QStringLiteral("/subuid"), account, count) &&
           fileGrants(m_folder + QStringLiteral("/subgid"), account, count);
#else
    Q_UNUSED(account)
    Q_UNUSED(count)
    return false;
#endif
}

bool SubordinateIds::runningAsAdministrator()
{
#if defined(Q_OS_UNIX)
    return ::geteuid() == 0;
#else
    return false;
#endif
}

} // namespace csm
