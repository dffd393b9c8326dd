#pragma once

#include <QList>
#include <QStringList>

class QTextStream;

namespace csm {

// The plain tables of the command-line commands: columns padded to their widest cell, two spaces
// apart, the first row the header. Widths count characters, which suits the ASCII they show.
class TextTable final
{
public:
    static void print(const QList<QStringList>& rows, QTextStream& out);
};

} // namespace csm
