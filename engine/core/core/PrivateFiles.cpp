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

bool ensurePrivateFolder(const QString& path, FolderMode mode, QString* error)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        if (!QDir().mkpath(path) || !QFile::setPermissions(path, kPrivateFolder)) {
            if (error)
                *error = QStringLiteral("cannot create the folder %1").arg(shown(path));
            return false;
        }
        return true;
    }
    if (!info.isDir()) {
        if (error)
            *error = QStringLiteral("%1 is not a folder").arg(shown(path));
        return false;
    }
    if (mode == FolderMode::Enforce && (info.permissions() & kGroupOrOthers)) {
        if (!QFile::setPermissions(path, kPrivateFolder)) {
            if (error)
                *error = QStringLiteral("cannot make the folder %1 private (chmod 700 %1)")
                             .arg(shown(path));
            return false;
        }
        qCInfo(lcEngine).noquote()
            << QStringLiteral("secrets: made the folder %1 private (mode 0700)").arg(shown(path));
    }
    return true;
}

bool writePrivateFile(const QString& path, const QByteArray& data, QString* error)
{
    QSaveFile file(path);
    const auto fail = [&] {
        if (error)
            *error = QStringLiteral("%1: %2").arg(shown(path), file.errorString());
        file.cancelWriting();
        return false;
    };
    // The permissions apply to the temporary file QSaveFile renames over `path` on commit.
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(kPrivateFile))
        return fail();
    if (file.write(data) != data.size())
        return fail();
    if (!file.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(shown(path), file.errorString());
        return false;
    }
    return true;
}

bool checkPrivateFile(const QString& path, QString* error)
{
    const QFileInfo info(path);
    if (!info.exists() || !(info.permissions() & kGroupOrOthers))
        return true;
    if (error)
        *error = QStringLiteral("refusing to read %1: other users can access it (mode %2); "
                                "fix it with: chmod 600 %1")
                     .arg(shown(path), octalMode(path));
    return false;
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

bool readVersionedJson(const QString& path, int formatVersion, QJsonObject* root, QString* reason)
{
    *root = {};
    QFile file(path);
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        *reason = file.errorString();
        return false;
    }
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *reason = parseError.errorString();
        return false;
    }
    if (!document.isObject()) {
        *reason = QStringLiteral("not a JSON object");
        return false;
    }
    const QJsonValue version = document.object().value(QLatin1String("version"));
    if (version.toInt() != formatVersion) {
        *reason = QStringLiteral("unknown format version %1").arg(version.toVariant().toString());
        return false;
    }
    *root = document.object();
    return true;
}

} // namespace csm::PrivateFiles
