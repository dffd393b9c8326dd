#pragma once

#include <QByteArray>
#include <QtGlobal>

namespace csm {

// Line arithmetic on a configuration file's bytes, for the formats that edit it by lines (TOML,
// YAML) or keep its layout (JSON). A line ends with "\n" (or "\r\n"); the last may have none.
class TextLines final
{
public:
    // "\r\n" when the file's first line ends so, else "\n".
    static QByteArray newlineOf(const QByteArray& text);
    // The start of the line that holds `pos`.
    static qsizetype lineStart(const QByteArray& text, qsizetype pos);
    // The end of the line that holds `pos`: its "\n" (or "\r\n"), or the end of the text.
    static qsizetype lineEnd(const QByteArray& text, qsizetype pos);
    // Just after the line that holds `pos`, its line ending included.
    static qsizetype nextLineStart(const QByteArray& text, qsizetype pos);
    // The start of the line before the one that starts at `start`; -1 for the first line.
    static qsizetype previousLineStart(const QByteArray& text, qsizetype start);
    // Whether the line that starts at `start` holds only spaces and tabs.
    static bool isBlank(const QByteArray& text, qsizetype start);
    // Whether it holds nothing but a comment starting with `marker` ('#'), or is blank.
    static bool isBlankOrComment(const QByteArray& text, qsizetype start, char marker);
    // The number of spaces and tabs the line that starts at `start` begins with.
    static qsizetype indentOf(const QByteArray& text, qsizetype start);
};

} // namespace csm
