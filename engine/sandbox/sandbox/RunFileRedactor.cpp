#include "sandbox/RunFileRedactor.h"

#include "core/Logging.h"
#include "core/MediaType.h"
#include "secrets/SecretRedactor.h"

#include <QDirIterator>
#include <QFile>
#include <QSaveFile>

namespace csm {

void RunFileRedactor::redact(QList<OutputFile>& files, const SecretRedactor& redactor)
{
    if (redactor.isEmpty())
        return;
    for (OutputFile& file : files) {
        if (!file.isReturned() || file.storedPath.isEmpty())
            continue;
        qint64 size = 0;
        switch (redactFile(file.storedPath, file.mimeType, redactor, &size)) {
        case Outcome::Clean:
            break;
        case Outcome::Rewritten:
            file.sizeBytes = size;
            break;
        case Outcome::Removed:
            file.storedPath.clear();
            file.skipReason = QStringLiteral("it held a secret's value, and a file of this type "
                                             "cannot be redacted: not kept");
            break;
        }
    }
}

void RunFileRedactor::redactFolder(const QString& folder, const SecretRedactor& redactor)
{
    if (redactor.isEmpty())
        return;
    QDirIterator files(folder, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        QFile file(path);
        const QByteArray head =
            file.open(QIODevice::ReadOnly) ? file.read(MediaType::kSniffBytes) : QByteArray();
        qint64 size = 0;
        redactFile(path, MediaType::sniff(head, files.fileName()), redactor, &size);
    }
}

RunFileRedactor::Outcome RunFileRedactor::redactFile(const QString& path, const QString& mimeType,
                                                     const SecretRedactor& redactor, qint64* size)
{
    if (!holdsAValue(path, redactor))
        return Outcome::Clean;
    if (MediaType::isText(mimeType) && rewriteRedacted(path, redactor, size))
        return Outcome::Rewritten;
    QFile::remove(path);
    qCInfo(lcSandbox).noquote() << "a run's file held a secret's value: not kept:" << path;
    return Outcome::Removed;
}

bool RunFileRedactor::holdsAValue(const QString& path, const SecretRedactor& redactor)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return true; // unreadable here: not something to hand out unchecked
    const qsizetype overlap = redactor.longestValueLength() - 1;
    QByteArray window;
    while (!file.atEnd()) {
        const QByteArray chunk = file.read(kChunkBytes);
        if (chunk.isEmpty())
            return file.error() != QFileDevice::NoError;
        // The end of the previous chunk goes first: a value split across chunks is found.
        window = window.right(overlap) + chunk;
        if (redactor.findsAnyIn(window))
            return true;
    }
    return false;
}

bool RunFileRedactor::rewriteRedacted(const QString& path, const SecretRedactor& redactor,
                                      qint64* size)
{
    QFile original(path);
    if (!original.open(QIODevice::ReadOnly))
        return false;
    const QByteArray redacted = redactor.redact(original.readAll());
    original.close();
    QSaveFile rewritten(path);
    if (!rewritten.open(QIODevice::WriteOnly) || rewritten.write(redacted) != redacted.size() ||
        !rewritten.commit())
        return false;
    *size = redacted.size();
    return true;
}

} // namespace csm
