#pragma once

#include <QByteArrayView>
#include <QString>
#include <QStringView>

namespace csm {

// Text a client chose (its name and version, a request target, a header value), made safe to put
// in a log line: control characters (CR and LF included), Unicode line and paragraph separators
// and bidirectional overrides are written as \xNN or \u{NNNN}, a backslash as \\, and the result
// is cut to `maxCharacters` with a note of how much was left out. So a client can neither forge a
// log line nor make one refused request cost kilobytes of log.
class LogText final
{
public:
    static constexpr qsizetype kDefaultMaxCharacters = 200;

    static QString escaped(QStringView text, qsizetype maxCharacters = kDefaultMaxCharacters);
    // Bytes off the wire: Latin-1, as HTTP field values are read.
    static QString escaped(QByteArrayView bytes, qsizetype maxCharacters = kDefaultMaxCharacters);
};

} // namespace csm
