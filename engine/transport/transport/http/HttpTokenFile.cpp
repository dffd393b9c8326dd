#include "transport/http/HttpTokenFile.h"

#include "core/PrivateFiles.h"
#include "transport/http/HttpListenPolicy.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

#if defined(Q_OS_UNIX)
#include <cerrno>
#include <unistd.h>
#endif

namespace csm::http {

namespace {
// Far more than a token; a larger file is not one.
constexpr qint64 kMaxFileBytes = 4096;

QString shown(const QString& path)
{
    return QDir::toNativeSeparators(path);
}

// Gives `draft` the name `target` unless `target` exists, atomically: of several processes
// creating the token at once, exactly one succeeds and the others read its token. (QFile::rename
// checks for the target and then renames, which another process can slip between.) The draft
// is gone afterwards either way.
bool placeWithoutReplacing(const QString& draft, const QString& target)
{
#if defined(Q_OS_UNIX)
    const int linked =
        ::link(QFile::encodeName(draft).constData(), QFile::encodeName(target).constData());
    const int linkError = errno;
    if (linked == 0 || linkError == EEXIST) {
        QFile::remove(draft);
        return linked == 0;
    }
    // A file system without hard links: the rename below is the best there is.
#endif
    const bool renamed = QFile::rename(draft, target);
    if (!renamed)
        QFile::remove(draft);
    return renamed;
}
} // namespace

HttpTokenFile::HttpTokenFile(QString path)
    : m_path(std::move(path))
{}

HttpTokenFile HttpTokenFile::inDataDir(const QString& dataDir)
{
    return HttpTokenFile(QDir(dataDir).filePath(fileName()));
}

std::optional<QString> HttpTokenFile::parse(const QByteArray& content)
{
    const QString token = QString::fromUtf8(content).trimmed();
    if (!HttpListenPolicy::isWellFormedToken(token))
        return std::nullopt;
    return token;
}

QString HttpTokenFile::generate()
{
    QByteArray bytes(32, Qt::Uninitialized);
    QRandomGenerator::system()->generate(bytes.begin(), bytes.end());
    return QString::fromLatin1(bytes.toHex());
}

Expected<std::optional<QString>> HttpTokenFile::read() const
{
    const QFileInfo info(m_path);
    if (!info.exists())
        return std::optional<QString>();
    if (const Expected<void> checked = PrivateFiles::checkPrivateFile(m_path); !checked)
        return Unexpected(checked.error());
    QFile file(m_path);
    if (!info.isFile() || info.size() > kMaxFileBytes)
        return Unexpected(QStringLiteral("%1 is not an HTTP token file (a file of one line); "
                                         "remove it and a new one is made")
                              .arg(shown(m_path)));
    if (!file.open(QIODevice::ReadOnly))
        return Unexpected(QStringLiteral("cannot read the HTTP token file %1: %2")
                              .arg(shown(m_path), file.errorString()));
    const std::optional<QString> token = parse(file.readAll());
    if (!token)
        return Unexpected(QStringLiteral("%1 holds no token (one line of visible characters); "
                                         "remove it and a new one is made")
                              .arg(shown(m_path)));
    return token;
}

Expected<void> HttpTokenFile::ensureFolder() const
{
    return PrivateFiles::ensurePrivateFolder(QFileInfo(m_path).absolutePath(),
                                             PrivateFiles::FolderMode::CreateOnly);
}

Expected<QString> HttpTokenFile::readOrCreate() const
{
    const Expected<std::optional<QString>> existing = read();
    if (!existing)
        return Unexpected(existing.error());
    if (*existing)
        return **existing;
    if (const Expected<void> folder = ensureFolder(); !folder)
        return Unexpected(folder.error());
    // Written whole under a name of its own, then renamed to the token file's name, which a
    // rename here never replaces: whoever comes second reads the first one's token.
    const QString token = generate();
    QFile draft(m_path + QStringLiteral(".new-") + generate().left(12));
    if (!draft.open(QIODevice::WriteOnly | QIODevice::NewOnly,
                    QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        draft.write(token.toLatin1() + '\n') != token.size() + 1 || !draft.flush()) {
        const Unexpected failure(QStringLiteral("cannot create the HTTP token file %1: %2")
                                     .arg(shown(m_path), draft.errorString()));
        draft.remove();
        return failure;
    }
    draft.close();
    if (!placeWithoutReplacing(draft.fileName(), m_path)) {
        // Another process made it first: its token is the one.
        const Expected<std::optional<QString>> theirs = read();
        if (!theirs)
            return Unexpected(theirs.error());
        if (!*theirs)
            return Unexpected(
                QStringLiteral("cannot create the HTTP token file %1").arg(shown(m_path)));
        return **theirs;
    }
    return token;
}

Expected<QString> HttpTokenFile::rotate() const
{
    if (const Expected<void> folder = ensureFolder(); !folder)
        return Unexpected(folder.error());
    const QString token = generate();
    if (const Expected<void> written =
            PrivateFiles::writePrivateFile(m_path, token.toLatin1() + '\n');
        !written)
        return Unexpected(written.error());
    return token;
}

Expected<void> HttpTokenFile::applyTo(HttpServerConfig& config) const
{
    if (config.noAuth || !config.authToken.isEmpty())
        return {};
    const Expected<QString> token = readOrCreate();
    if (!token)
        return Unexpected(token.error());
    config.authToken = *token;
    config.authTokenFile = m_path;
    return {};
}

} // namespace csm::http
