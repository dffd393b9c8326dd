#include "clients/ClientConfigMerger.h"

#include "clients/ClientConfigExposure.h"
#include "clients/ClientConfigFormat.h"
#include "clients/ClientConfigSnippet.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace csm {

namespace {

using Action = ClientConfigChange::Action;

// A file that holds a token, and its backup.
constexpr QFileDevice::Permissions kOwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

} // namespace

ClientConfigMerger::ClientConfigMerger(McpClient client)
    : m_client(client)
    , m_format(ClientConfigFormat::forClient(client))
{}

ClientConfigMerger::~ClientConfigMerger() = default;

ClientConfigChange ClientConfigMerger::merge(const QByteArray& text,
                                             const ClientServerEntry& entry) const
{
    if (const QString problem = entry.problem(); !problem.isEmpty()) {
        ClientConfigChange change;
        change.text = text;
        change.error = problem;
        return change;
    }
    return m_format->merge(text, entry.name, ClientConfigSnippet::serverValue(m_client, entry));
}

ClientConfigChange ClientConfigMerger::remove(const QByteArray& text, const QString& name) const
{
    return m_format->remove(text, name);
}

Expected<QMap<QString, QJsonObject>> ClientConfigMerger::servers(const QString& path) const
{
    const QFileInfo info(path);
    if (!info.exists())
        return QMap<QString, QJsonObject>();
    QFile file(path);
    if (!info.isFile() || !file.open(QIODevice::ReadOnly)) {
        return Unexpected(
            QStringLiteral("%1 cannot be read: %2")
                .arg(path, info.isFile() ? file.errorString() : QStringLiteral("not a file")));
    }
    Expected<QMap<QString, QJsonObject>> found = m_format->servers(file.readAll());
    if (!found)
        return Unexpected(QStringLiteral("%1: %2").arg(path, found.error()));
    return found;
}

ClientConfigChange ClientConfigMerger::install(const QString& path, const ClientServerEntry& entry,
                                               Mode mode) const
{
    const QFileInfo info(path);
    const bool existed = info.exists();
    QByteArray text;
    ClientConfigChange change;
    change.path = path;
    if (existed) {
        QFile file(path);
        if (!info.isFile()) {
            change.error = QStringLiteral("%1 is not a file").arg(path);
            return change;
        }
        if (!file.open(QIODevice::ReadOnly)) {
            change.error = QStringLiteral("%1 cannot be read: %2").arg(path, file.errorString());
            return change;
        }
        text = file.readAll();
    }
    change = merge(text, entry);
    change.path = path;
    if (!change.succeeded()) {
        change.error = QStringLiteral("%1: %2; the file was left as it is").arg(path, change.error);
        return change;
    }
    if (!existed && change.action == Action::Added)
        change.action = Action::Created;
    const bool holdsToken = !entry.token.isEmpty();
    if (holdsToken)
        change.warnings = ClientConfigExposure::warnings(path);
    if (mode == Mode::Preview)
        return change;
    if (!change.changesFile()) {
        if (holdsToken)
            makePrivate(path, change);
        return change;
    }
    return write(path, existed, change, holdsToken);
}

void ClientConfigMerger::makePrivate(const QString& path, ClientConfigChange& change)
{
    constexpr QFileDevice::Permissions kGroupOrOthers =
        QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
        QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
    if (!(QFile::permissions(path) & kGroupOrOthers))
        return;
    if (!QFile::setPermissions(path, kOwnerOnly))
        change.warnings << QStringLiteral("%1 holds the token but could not be made readable by "
                                          "you only (chmod 600 %1)")
                               .arg(QDir::toNativeSeparators(path));
}

ClientConfigChange ClientConfigMerger::uninstall(const QString& path, const QString& name,
                                                 Mode mode) const
{
    const QFileInfo info(path);
    ClientConfigChange change;
    change.path = path;
    if (!info.exists()) {
        change.action = Action::NotFound;
        return change;
    }
    QFile file(path);
    if (!info.isFile() || !file.open(QIODevice::ReadOnly)) {
        change.error =
            QStringLiteral("%1 cannot be read: %2")
                .arg(path, info.isFile() ? file.errorString() : QStringLiteral("not a file"));
        return change;
    }
    change = remove(file.readAll(), name);
    change.path = path;
    if (!change.succeeded()) {
        change.error = QStringLiteral("%1: %2; the file was left as it is").arg(path, change.error);
        return change;
    }
    if (!change.changesFile() || mode == Mode::Preview)
        return change;
    return write(path, true, change, false);
}

ClientConfigChange ClientConfigMerger::write(const QString& path, bool existed,
                                             ClientConfigChange change, bool privateFile) const
{
    const auto failed = [&change](const QString& error) {
        change.action = Action::Failed;
        change.error = error;
        return change;
    };
    if (existed) {
        change.backupPath = backupPathFor(path, QDateTime::currentDateTime());
        if (!QFile::copy(path, change.backupPath)) {
            const QString backup = change.backupPath;
            change.backupPath.clear();
            return failed(QStringLiteral("%1: could not keep a copy as %2; the file was left as "
                                         "it is")
                              .arg(path, backup));
        }
        // The copy may hold a token: no more readable than the file itself is, or becomes.
        QFile::Permissions permissions = QFile::permissions(path);
        if (privateFile)
            permissions &= kOwnerOnly;
        QFile::setPermissions(change.backupPath, permissions);
    } else if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        return failed(QStringLiteral("%1: could not create its folder").arg(path));
    }
    // QSaveFile writes a temporary file and renames it over the old one (following a symlink,
    // keeping the old file's permissions), so the client never reads a half-written file.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failed(QStringLiteral("%1 cannot be written: %2").arg(path, file.errorString()));
    if (privateFile)
        file.setPermissions(kOwnerOnly);
    if (file.write(change.text) != change.text.size()) {
        const QString error = file.errorString();
        file.cancelWriting();
        return failed(QStringLiteral("%1 cannot be written: %2").arg(path, error));
    }
    if (!file.commit())
        return failed(QStringLiteral("%1 cannot be written: %2").arg(path, file.errorString()));
    return change;
}

QString ClientConfigMerger::backupPathFor(const QString& path, const QDateTime& time)
{
    const QString base =
        path + QStringLiteral(".bak-") + time.toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString candidate = base;
    for (int n = 2; QFileInfo::exists(candidate); ++n)
        candidate = base + QLatin1Char('-') + QString::number(n);
    return candidate;
}

} // namespace csm
