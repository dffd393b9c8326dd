#include "runtime/SharedFolderText.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

namespace csm {

namespace {
const QString kReadOnly = QStringLiteral("ro");
const QString kWritable = QStringLiteral("rw");

// Whether `path` is `folder` or inside it (both canonical).
bool atOrBelow(const QString& path, const QString& folder)
{
    return path == folder || folder == QLatin1String("/") ||
           path.startsWith(folder + QLatin1Char('/'));
}
} // namespace

Expected<SharedFolder> SharedFolderText::parse(const QString& entry)
{
    QString rest = entry.trimmed();
    SharedFolder folder;
    // Read from the right: a host path may hold a colon, a mode and a name cannot.
    const qsizetype lastColon = rest.lastIndexOf(QLatin1Char(':'));
    if (lastColon >= 0) {
        const QString last = rest.mid(lastColon + 1);
        if (last == kReadOnly || last == kWritable) {
            folder.writable = last == kWritable;
            rest.truncate(lastColon);
        }
    }
    const qsizetype nameColon = rest.lastIndexOf(QLatin1Char(':'));
    const bool named = nameColon >= 0 && !rest.mid(nameColon + 1).contains(QLatin1Char('/'));
    if (named) {
        folder.name = rest.mid(nameColon + 1);
        rest.truncate(nameColon);
    }
    if (rest.isEmpty())
        return Unexpected(QStringLiteral("give a folder, as HOST_DIR[:NAME][:ro|rw]"));
    // settings.ini and variables see no shell: ~/ is expanded here.
    if (rest.startsWith(QLatin1String("~/")))
        rest = QDir::homePath() + rest.mid(1);
    const QFileInfo info(rest);
    if (!info.exists())
        return Unexpected(QStringLiteral("%1 does not exist").arg(QDir::toNativeSeparators(rest)));
    if (!info.isDir())
        return Unexpected(QStringLiteral("%1 is not a folder").arg(QDir::toNativeSeparators(rest)));
    folder.hostPath = info.canonicalFilePath();
    folder.identity = FolderIdentity::of(folder.hostPath);
    // --mount separates its options with commas: one in the path would end it early.
    if (folder.hostPath.contains(QLatin1Char(',')))
        return Unexpected(QStringLiteral("%1: a folder whose path holds a comma cannot be shared")
                              .arg(QDir::toNativeSeparators(folder.hostPath)));
    if (!named)
        folder.name = QFileInfo(folder.hostPath).fileName();
    if (!isValidName(folder.name))
        return Unexpected(QStringLiteral("the name \"%1\" is not valid: use letters, digits, '.', "
                                         "'_' and '-' (it becomes /data/NAME)")
                              .arg(folder.name));
    return folder;
}

Expected<QList<SharedFolder>> SharedFolderText::parseList(const QString& text)
{
    const QStringList entries = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QList<SharedFolder> folders;
    QSet<QString> names;
    for (const QString& entry : entries) {
        if (entry.trimmed().isEmpty())
            continue;
        auto folder = parse(entry);
        // With several, say which one is wrong.
        const QString which =
            entries.size() > 1 ? QStringLiteral("\"%1\": ").arg(entry.trimmed()) : QString();
        if (!folder)
            return Unexpected(which + folder.error());
        if (names.contains(folder->name))
            return Unexpected(which + QStringLiteral("another shared folder is already named "
                                                     "\"%1\"; give one of them a NAME")
                                          .arg(folder->name));
        names.insert(folder->name);
        folders << *folder;
    }
    if (const QString nested = nestedInWritable(folders); !nested.isEmpty())
        return Unexpected(nested);
    return folders;
}

QString SharedFolderText::nestedInWritable(const QList<SharedFolder>& folders)
{
    for (const SharedFolder& outer : folders) {
        if (!outer.writable)
            continue;
        for (const SharedFolder& inner : folders) {
            if (&inner == &outer || !atOrBelow(inner.hostPath, outer.hostPath))
                continue;
            return QStringLiteral("%1 (%2) is inside the writable shared folder %3 (%4): its "
                                  "sandboxes could replace it with a link to any folder of this "
                                  "machine. Share only %3, or make it read-only.")
                .arg(QDir::toNativeSeparators(inner.hostPath), inner.name,
                     QDir::toNativeSeparators(outer.hostPath), outer.name);
        }
    }
    return {};
}

QString SharedFolderText::format(const SharedFolder& folder)
{
    return QStringLiteral("%1:%2:%3")
        .arg(folder.hostPath, folder.name, folder.writable ? kWritable : kReadOnly);
}

QString SharedFolderText::formatList(const QList<SharedFolder>& folders)
{
    QStringList entries;
    for (const SharedFolder& folder : folders)
        entries << format(folder);
    return entries.join(QLatin1Char('\n'));
}

QString SharedFolderText::writableHolding(const QList<SharedFolder>& folders, const QString& folder,
                                          const QString& what)
{
    const QFileInfo info(folder);
    const QString target =
        info.exists() ? info.canonicalFilePath() : QDir::cleanPath(info.absoluteFilePath());
    for (const SharedFolder& share : folders) {
        if (!share.writable || !atOrBelow(target, share.hostPath))
            continue;
        return QStringLiteral("%1 (%2) is writable and holds %3, %4: its sandboxes could rewrite "
                              "it. Share a folder that does not hold it, or make it read-only.")
            .arg(QDir::toNativeSeparators(share.hostPath), share.name,
                 QDir::toNativeSeparators(target), what);
    }
    return {};
}

bool SharedFolderText::isValidName(const QString& name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9._-]+$"));
    // "." and ".." would mount over /data itself or its parent.
    return pattern.match(name).hasMatch() && name != QLatin1String(".") &&
           name != QLatin1String("..");
}

} // namespace csm
