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

std::optional<QString> HttpTokenFile::read(QString* error) const
{
    error->clear();
    const QFileInfo info(m_path);
    if (!info.exists())
        return std::nullopt;
    if (!PrivateFiles::checkPrivateFile(m_path, error))
        return std::nullopt;
    QFile file(m_path);
    if (!info.isFile() || info.size() > kMaxFileBytes) {
        *error = QStringLiteral("%1 is not an HTTP token file (a file of one line); remove it "
                                "and a new one is made")
                     .arg(shown(m_path));
        return std::nullopt;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read the HTTP token file %1: %2")
                     .arg(shown(m_path), file.errorString());
        return std::nullopt;
    }
    const std::optional<QString> token = parse(file.readAll());
    if (!token)
        *error = QStringLiteral("%1 holds no token (one line of visible characters); remove it "
                                "and a new one is made")
                     .arg(shown(m_path));
    return token;
}

bool HttpTokenFile::ensureFolder(QString* error) const
{
    return PrivateFiles::ensurePrivateFolder(QFileInfo(m_path).absolutePath(),
                                             PrivateFiles::FolderMode::CreateOnly, error);
}

std::optional<QString> HttpTokenFile::readOrCreate(QString* error) const
{
    if (std::optional<QString> token = read(error))
        return token;
    if (!error->isEmpty() || !ensureFolder(error))
        return std::nullopt;
    // Written whole under a name of its own, then renamed to the token file's name, which a
    // rename here never replaces: whoever comes second reads the first one's token.
    const QString token = generate();
    QFile draft(m_path + QStringLiteral(".new-") + generate().left(12));
    if (!draft.open(QIODevice::WriteOnly | QIODevice::NewOnly,
                    QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        draft.write(token.toLatin1() + '\n') != token.size() + 1 || !draft.flush()) {
        *error = QStringLiteral("cannot create the HTTP token file %1: %2")
                     .arg(shown(m_path), draft.errorString());
        draft.remove();
        return std::nullopt;
    }
    draft.close();
    if (!placeWithoutReplacing(draft.fileName(), m_path)) {
        if (!QFileInfo::exists(m_path)) {
            *error = QStringLiteral("cannot create the HTTP token file %1").arg(shown(m_path));
            return std::nullopt;
        }
        return read(error);
    }
    return token;
}

std::optional<QString> HttpTokenFile::rotate(QString* error) const
{
    if (!ensureFolder(error))
        return std::nullopt;
    const QString token = generate();
    if (!PrivateFiles::writePrivateFile(m_path, token.toLatin1() + '\n', error))
        return std::nullopt;
    return token;
}

bool HttpTokenFile::applyTo(HttpServerConfig& config, QString* error) const
{
    if (config.noAuth || !config.authToken.isEmpty())
        return true;
    const std::optional<QString> token = readOrCreate(error);
    if (!token)
        return false;
    config.authToken = *token;
    config.authTokenFile = m_path;
    return true;
}

} // namespace csm::http
