#pragma once

#include <QByteArray>
#include <QString>

namespace csm {

// What an engine command printed, as one line for a log or an error: its first line, cut at
// `maxChars` (an engine's message can carry a whole stack of wrapped errors after it).
inline QString engineMessageLine(const QByteArray& output, qsizetype maxChars = 500)
{
    return QString::fromUtf8(output).trimmed().section(u'\n', 0, 0).left(maxChars);
}

} // namespace csm
