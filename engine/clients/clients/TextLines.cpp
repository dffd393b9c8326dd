#include "clients/TextLines.h"

namespace csm {

QByteArray TextLines::newlineOf(const QByteArray& text)
{
    const qsizetype newline = text.indexOf('\n');
    return newline > 0 && text.at(newline - 1) == '\r' ? QByteArray("\r\n") : QByteArray("\n");
}

qsizetype TextLines::lineStart(const QByteArray& text, qsizetype pos)
{
    return pos <= 0 ? 0 : text.lastIndexOf('\n', pos - 1) + 1;
}

qsizetype TextLines::lineEnd(const QByteArray& text, qsizetype pos)
{
    const qsizetype newline = text.indexOf('\n', pos);
    if (newline < 0)
        return text.size();
    return newline > 0 && text.at(newline - 1) == '\r' && newline - 1 >= pos ? newline - 1
                                                                             : newline;
}

qsizetype TextLines::nextLineStart(const QByteArray& text, qsizetype pos)
{
    const qsizetype newline = text.indexOf('\n', pos);
    return newline < 0 ? text.size() : newline + 1;
}

qsizetype TextLines::previousLineStart(const QByteArray& text, qsizetype start)
{
    return start <= 0 ? -1 : lineStart(text, start - 1);
}

bool TextLines::isBlank(const QByteArray& text, qsizetype start)
{
    const qsizetype end = lineEnd(text, start);
    for (qsizetype i = start; i < end; ++i) {
        if (text.at(i) != ' ' && text.at(i) != '\t')
            return false;
    }
    return true;
}

bool TextLines::isBlankOrComment(const QByteArray& text, qsizetype start, char marker)
{
    const qsizetype first = start + indentOf(text, start);
    return first >= lineEnd(text, start) || text.at(first) == marker;
}

qsizetype TextLines::indentOf(const QByteArray& text, qsizetype start)
{
    qsizetype end = start;
    while (end < text.size() && (text.at(end) == ' ' || text.at(end) == '\t'))
        ++end;
    return end - start;
}

} // namespace csm
