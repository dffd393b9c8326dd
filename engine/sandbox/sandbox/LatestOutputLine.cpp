#include "sandbox/LatestOutputLine.h"

#include "secrets/SecretRedactor.h"

#include <algorithm>

namespace csm {

namespace {
// Enough for one long line and the start of the next; older bytes are dropped.
constexpr qsizetype kTailBytes = 4096;

bool isBlank(QByteArrayView line)
{
    return line.trimmed().isEmpty();
}
} // namespace

void LatestOutputLine::append(const QByteArray& bytes)
{
    if (bytes.isEmpty())
        return;
    m_tail.append(bytes);
    if (m_tail.size() > kTailBytes) {
        m_tail.remove(0, m_tail.size() - kTailBytes);
        m_cut = true;
    }
}

QString LatestOutputLine::text(const SecretRedactor* redactor) const
{
    QByteArray tail = m_tail;
    if (redactor && !redactor->isEmpty()) {
        tail.chop(redactor->unfinishedValueLength(tail));
        // Cut at an arbitrary byte, the tail may begin inside a value, whose end matches
        // nothing: a value's length is dropped from the front, as the live view does.
        if (m_cut)
            tail.remove(0, std::min(redactor->longestValueLength(), tail.size()));
        tail = redactor->redact(tail);
    }
    qsizetype end = tail.size();
    while (end > 0) {
        const qsizetype newline = tail.lastIndexOf('\n', end - 1);
        QByteArrayView line = QByteArrayView(tail).sliced(newline + 1, end - (newline + 1));
        // A progress bar rewrites its line after each carriage return: the last version counts.
        while (line.contains('\r') && isBlank(line.sliced(line.lastIndexOf('\r') + 1)))
            line = line.first(line.lastIndexOf('\r'));
        if (line.contains('\r'))
            line = line.sliced(line.lastIndexOf('\r') + 1);
        if (!isBlank(line)) {
            // Tabs and escape sequences are not for a one-line message: control characters
            // become spaces.
            QString text = QString::fromUtf8(line);
            for (QChar& c : text) {
                if (c.category() == QChar::Other_Control)
                    c = QLatin1Char(' ');
            }
            text = text.simplified();
            if (text.size() > kMaxCharacters)
                text = text.left(kMaxCharacters - 1) + QChar(0x2026);
            return text;
        }
        if (newline < 0)
            break;
        end = newline;
    }
    return {};
}

} // namespace csm
