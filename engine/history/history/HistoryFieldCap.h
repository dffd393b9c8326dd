#pragma once

#include <QByteArrayView>
#include <QString>

namespace csm {

// How much of one text of a run (its code, stdout, stderr or error message) the history keeps:
// at most `maxBytes` of UTF-8, cut where a character ends, then a line saying how much was left
// out. One call cannot fill the disk that way, and whoever reads the run knows the text is
// incomplete. Only the record is cut: what the client gets never goes through here.
class HistoryFieldCap final
{
public:
    static constexpr qint64 kDefaultMaxBytes = 256 * 1024;

    // `utf8` as the history keeps it: whole when it fits in `maxBytes` (<= 0: no limit), else
    // its first bytes up to a character boundary and marker() for the rest.
    static QString apply(QByteArrayView utf8, qint64 maxBytes);
    static QString apply(const QString& text, qint64 maxBytes);
    // "\n[... 15.8 MiB not kept in the history]": ends a text that was cut.
    static QString marker(qint64 droppedBytes);
};

} // namespace csm
