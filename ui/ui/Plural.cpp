#include "ui/Plural.h"

namespace csm {

QString Plural::of(qint64 count, const char* one, const char* many)
{
    return QStringLiteral("%1 %2").arg(count).arg(QLatin1String(count == 1 ? one : many));
}

} // namespace csm
