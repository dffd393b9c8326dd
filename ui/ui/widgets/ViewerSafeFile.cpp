#include "ui/widgets/ViewerSafeFile.h"

#include <QFileInfo>
#include <QHash>
#include <QStringList>

namespace csm {

bool ViewerSafeFile::opensWithoutAsking(const RunFileRecord& file)
{
    // Type, as sniffed from the bytes, and the name endings a viewer of it opens.
    static const QHash<QString, QStringList> viewers{
        {QStringLiteral("image/png"), {QStringLiteral("png")}},
        {QStringLiteral("image/jpeg"), {QStringLiteral("jpg"), QStringLiteral("jpeg")}},
        {QStringLiteral("image/gif"), {QStringLiteral("gif")}},
        {QStringLiteral("image/webp"), {QStringLiteral("webp")}},
        {QStringLiteral("text/plain"),
         {QStringLiteral("txt"), QStringLiteral("log"), QStringLiteral("md")}},
        {QStringLiteral("text/csv"), {QStringLiteral("csv"), QStringLiteral("tsv")}},
        {QStringLiteral("application/json"), {QStringLiteral("json")}},
    };
    const auto endings = viewers.constFind(file.mimeType);
    if (endings == viewers.cend())
        return false;
    // The kept copy's name is what the desktop sees.
    const QString name = file.storedPath.isEmpty() ? file.path : file.storedPath;
    return endings->contains(QFileInfo(name).suffix().toLower());
}

} // namespace csm
