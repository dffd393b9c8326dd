#include "cli/TextTable.h"

#include <QTextStream>

#include <algorithm>

namespace csm {

void TextTable::print(const QList<QStringList>& rows, QTextStream& out)
{
    QList<qsizetype> widths;
    for (const QStringList& row : rows) {
        widths.resize(std::max(widths.size(), row.size()), 0);
        for (qsizetype i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], row.at(i).size());
    }
    for (const QStringList& row : rows) {
        QString line;
        for (qsizetype i = 0; i < row.size(); ++i) {
            const bool last = i == row.size() - 1;
            line += last ? row.at(i) : row.at(i).leftJustified(widths.at(i)) + QStringLiteral("  ");
        }
        out << line.trimmed() << '\n';
    }
}

} // namespace csm
