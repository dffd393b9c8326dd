#include "sandbox/OutputFileCollector.h"

#include "core/MediaType.h"
#include "core/VisibleText.h"
#include "csm/launcher_protocol.h"

#include <QDir>
#include <QFileInfo>
#include <QtEndian>

namespace csm {

namespace {
QString skipReasonText(char code)
{
    switch (code) {
    case CSM_SKIP_SYMLINK:
        return QStringLiteral("a symbolic link: not followed");
    case CSM_SKIP_NOT_REGULAR:
        return QStringLiteral("not a regular file (a FIFO, device or socket)");
    case CSM_SKIP_TOO_MANY:
        return QStringLiteral("over the cap on the number of output files");
    case CSM_SKIP_TOO_LARGE:
        return QStringLiteral("over the cap on the total size of output files");
    case CSM_SKIP_TOO_DEEP:
        return QStringLiteral("in folders nested too deep");
    case CSM_SKIP_UNREADABLE:
    default:
        return QStringLiteral("could not be read");
    }
}

// A path component that is safe as a host file name: no control characters, no backslashes,
// nothing that means a folder of its own.
QString safeComponent(const QString& component)
{
    QString safe;
    safe.reserve(component.size());
    for (const QChar c : component) {
        const bool control = c.unicode() < 0x20 || c.unicode() == 0x7f;
        safe += control || c == QLatin1Char('\\') || c == QChar::ReplacementCharacter
                    ? QLatin1Char('_')
                    : c;
    }
    if (safe.isEmpty() || safe == QLatin1String(".") || safe == QLatin1String(".."))
        safe = QStringLiteral("_");
    return safe.left(200);
}
} // namespace

OutputFileCollector::OutputFileCollector(QString directory, Limits limits)
    : m_directory(std::move(directory))
    , m_limits(limits)
{}

QString OutputFileCollector::displayPath(const QByteArray& raw)
{
    const QString decoded = QString::fromUtf8(raw);
    QString shown;
    shown.reserve(decoded.size());
    for (const char32_t c : decoded.toUcs4()) {
        if (c == U'\n')
            shown += QStringLiteral("\\n");
        else if (c == U'\t')
            shown += QStringLiteral("\\t");
        else if (c < 0x20 || c == 0x7f)
            shown += QStringLiteral("\\x%1").arg(uint(c), 2, 16, QLatin1Char('0'));
        // Bidirectional controls ("\u202egnp.exe" shows as "exe.png"), zero-width and other
        // invisible characters: marked, as the app shows code.
        else if (VisibleText::isHidden(c))
            shown += VisibleText::marker(c);
        else
            shown += QString::fromUcs4(&c, 1);
    }
    return shown;
}

QString OutputFileCollector::storedName(const QString& display)
{
    QStringList parts;
    for (const QString& part : display.split(QLatin1Char('/'), Qt::SkipEmptyParts))
        parts.append(safeComponent(part));
    if (parts.isEmpty())
        parts.append(QStringLiteral("_"));
    QString name = parts.join(QLatin1Char('/'));
    // Two raw names can map to one (invalid bytes replaced): later ones get a number.
    const QString base = name;
    for (int n = 2; m_usedNames.contains(name); ++n) {
        const QFileInfo info(base);
        const QString suffix = info.completeSuffix();
        const QString stem = suffix.isEmpty() ? base : base.left(base.size() - suffix.size() - 1);
        name = suffix.isEmpty() ? QStringLiteral("%1~%2").arg(stem).arg(n)
                                : QStringLiteral("%1~%2.%3").arg(stem).arg(n).arg(suffix);
    }
    m_usedNames.insert(name);
    return name;
}

void OutputFileCollector::skip(const QString& display, const QString& reason)
{
    // Ten thousand files over the cap make one line, not ten thousand.
    if (m_skipped >= kMaxSkippedListed) {
        ++m_notListed;
        m_notListedReason = reason;
        return;
    }
    ++m_skipped;
    OutputFile file;
    file.path = display;
    file.skipReason = reason;
    m_files.append(file);
}

void OutputFileCollector::beginFile(const QByteArray& payload)
{
    closeCurrent();
    if (payload.size() <= CSM_REQUEST_LENGTH_SIZE) {
        skip(QStringLiteral("?"), QStringLiteral("announced without a name"));
        return;
    }
    const qint64 size = qint64(qFromBigEndian<quint64>(payload.constData()) & 0x7fffffffffffffff);
    const QString display = displayPath(payload.mid(CSM_REQUEST_LENGTH_SIZE));
    if (m_returned >= m_limits.maxFiles) {
        skip(display, skipReasonText(CSM_SKIP_TOO_MANY));
        return;
    }
    if (size > m_limits.maxBytes - m_totalBytes) {
        skip(display, skipReasonText(CSM_SKIP_TOO_LARGE));
        return;
    }
    m_current = OutputFile{};
    m_current.path = display;
    m_announced = size;
    m_received = 0;
    m_head.clear();
    m_open = true;
    if (m_directory.isEmpty())
        return;
    const QString name = storedName(display);
    const QString path = QDir(m_directory).filePath(name);
    QDir().mkpath(QFileInfo(path).path());
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::NewOnly)) {
        m_current.skipReason =
            QStringLiteral("could not be stored on the host: %1").arg(m_file.errorString());
        return;
    }
    m_current.storedPath = path;
}

void OutputFileCollector::appendData(const QByteArray& chunk)
{
    if (!m_open)
        return;
    // Never more than announced: the cap was checked against the announced size.
    const QByteArray kept = chunk.left(m_announced - m_received);
    m_received += kept.size();
    if (m_head.size() < MediaType::kSniffBytes)
        m_head += kept.left(MediaType::kSniffBytes - m_head.size());
    if (m_file.isOpen() && m_file.write(kept) != kept.size()) {
        m_current.skipReason =
            QStringLiteral("could not be stored on the host: %1").arg(m_file.errorString());
        m_file.close();
        m_file.remove();
        m_current.storedPath.clear();
    }
}

void OutputFileCollector::skipFile(const QByteArray& payload)
{
    closeCurrent();
    if (payload.isEmpty())
        return;
    skip(displayPath(payload.mid(1)), skipReasonText(payload.at(0)));
}

void OutputFileCollector::closeCurrent()
{
    if (!m_open)
        return;
    m_open = false;
    if (m_file.isOpen())
        m_file.close();
    m_current.sizeBytes = m_received;
    m_current.mimeType = MediaType::sniff(m_head, m_current.path);
    m_totalBytes += m_received;
    ++m_returned;
    m_files.append(m_current);
}

QList<OutputFile> OutputFileCollector::finish()
{
    closeCurrent();
    if (m_notListed > 0) {
        OutputFile more;
        more.path = QStringLiteral("(%1 more files not listed)").arg(m_notListed);
        more.skipReason = m_notListedReason;
        m_files.append(more);
        m_notListed = 0;
    }
    return m_files;
}

} // namespace csm
