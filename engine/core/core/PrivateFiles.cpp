#include "core/PrivateFiles.h"

#include "core/Logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

namespace csm::PrivateFiles {

namespace {

constexpr QFileDevice::Permissions kPrivateFolder =
    QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;
constexpr QFileDevice::Permissions kPrivateFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr QFileDevice::Permissions kGroupOrOthers =
    QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
    QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;

QString shown(const QString& path)
{
    return QDir::toNativeSeparators(path);
}

} // namespace

Expected<void> ensurePrivateFolder(const QString& path, FolderMode mode)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        if (!QDir().mkpath(path) || !QFile::setPermissions(path, kPrivateFolder))
            return Unexpected(QStringLiteral("cannot create the folder %1").arg(shown(path)));
        return {};
    }
    if (!info.isDir())
        return Unexpected(QStringLiteral("%1 is not a folder").arg(shown(path)));
    if (mode == FolderMode::Enforce && (info.permissions() & kGroupOrOthers)) {
        if (!QFile::setPermissions(path, kPrivateFolder))
            return Unexpected(QStringLiteral("cannot make the folder %1 private (chmod 700 %1)")
                                  .arg(shown(path)));
        qCInfo(lcEngine).noquote()
            << QStringLiteral("secrets: made the folder %1 private (mode 0700)").arg(shown(path));
    }
    return {};
}

Expected<void> writePrivateFile(const QString& path, const QByteArray& data)
{
    QSaveFile file(path);
    const auto failure = [&] {
        return Unexpected(QStringLiteral("%1: %2").arg(shown(path), file.errorString()));
    };
    // The permissions apply to the temporary file QSaveFile renames over `path` on commit.
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(kPrivateFile) ||
        file.write(data) != data.size()) {
        Unexpected failed = failure();
        file.cancelWriting();
        return failed;
    }
    if (!file.commit())
        return failure();
    return {};
}

Expected<void> checkPrivateFile(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists() || !(info.permissions() & kGroupOrOthers))
        return {};
    return Unexpected(QStringLiteral("refusing to read %1: other users can access it (mode %2); "
                                     "fix it with: chmod 600 %1")
                          .arg(shown(path), octalMode(path)));
}

QString octalMode(const QString& path)
{
    const QFile::Permissions permissions = QFileInfo(path).permissions();
    const auto digit = [&](QFileDevice::Permission read, QFileDevice::Permission write,
                           QFileDevice::Permission execute) {
        const int value = ((permissions & read) ? 4 : 0) + ((permissions & write) ? 2 : 0) +
                          ((permissions & execute) ? 1 : 0);
        return QChar(static_cast<char16_t>(u'0' + value));
    };
    return QString(QLatin1Char('0')) +
           digit(QFileDevice::ReadOwner, QFileDevice::WriteOwner, QFileDevice::ExeOwner) +
           digit(QFileDevice::ReadGroup, QFileDevice::WriteGroup, QFileDevice::ExeGroup) +
           digit(QFileDevice::ReadOther, QFileDevice::WriteOther, QFileDevice::ExeOther);
}

Expected<QJsonObject> readVersionedJson(const QString& path, int formatVersion)
{
    QFile file(path);
    if (!file.exists())
        return QJsonObject();
    if (!file.open(QIODevice::ReadOnly))
        return Unexpected(file.errorString());
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Unexpected(parseError.errorString());
    if (!document.isObject())
        return Unexpected(QStringLiteral("not a JSON object"));
    const QJsonValue version = document.object().value(QLatin1String("version"));
    if (version.toInt() != formatVersion)
        return Unexpected(
            QStringLiteral("unknown format version %1").arg(version.toVariant().toString()));
    return document.object();
}

} // namespace csm::PrivateFiles
