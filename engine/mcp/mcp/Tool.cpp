#include "mcp/Tool.h"

#include <QJsonDocument>

namespace csm {

QList<ReviewedFile> Tool::reviewFiles(const QJsonObject&) const
{
    return {};
}

QString Tool::reviewText(const QJsonObject& arguments) const
{
    return QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Indented));
}

} // namespace csm
