#include "core/ByteSize.h"

#include <limits>

namespace csm {

std::optional<qint64> ByteSize::parse(const QString& text)
{
    QString digits = text.trimmed().toLower();
    if (digits.endsWith(QLatin1Char('b')))
        digits.chop(1);
    qint64 unit = 1;
    if (!digits.isEmpty()) {
        switch (digits.back().unicode()) {
        case 'k':
            unit = 1024;
            break;
        case 'm':
            unit = 1024 * 1024;
            break;
        case 'g':
            unit = 1024LL * 1024 * 1024;
            break;
        default:
            break;
        }
        if (unit != 1)
            digits.chop(1);
    }
    bool ok = false;
    const qint64 value = digits.toLongLong(&ok);
    if (!ok || value <= 0 || value > std::numeric_limits<qint64>::max() / unit)
        return std::nullopt;
    return value * unit;
}

QString ByteSize::format(qint64 bytes)
{
    static constexpr struct
    {
        qint64 size;
        char suffix;
    } units[] = {{1024LL * 1024 * 1024, 'g'}, {1024 * 1024, 'm'}, {1024, 'k'}};
    for (const auto& unit : units) {
        if (bytes >= unit.size && bytes % unit.size == 0)
            return QString::number(bytes / unit.size) + QLatin1Char(unit.suffix);
    }
    return QString::number(bytes);
}

QString ByteSize::forPeople(qint64 bytes)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    // Whole bytes as they are; a fraction only where it says something (47.1 KiB, not 512.0).
    const int decimals = unit == 0 || value >= 100.0 || value == double(qint64(value)) ? 0 : 1;
    return QStringLiteral("%1 %2").arg(QString::number(value, 'f', decimals),
                                       QLatin1String(units[unit]));
}

} // namespace csm
