#pragma once

#include <QString>

namespace csm {

// A file a call sends along with its code, as a person asked to approve the call sees it.
struct ReviewedFile
{
    QString path;
    qint64 sizeBytes = 0;
};

} // namespace csm
