#pragma once

#include <QDir>
#include <QFile>
#include <QStringList>

// What the host's /proc shows, for tests that prove something appears in no process.
namespace hostprocesses {

// Every process's argv, each joined with spaces.
inline QStringList allCommandLines()
{
    QStringList lines;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& pid : pids) {
        QFile file(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (file.open(QIODevice::ReadOnly))
            lines << QString::fromUtf8(file.readAll().replace('\0', ' '));
    }
    return lines;
}

} // namespace hostprocesses
