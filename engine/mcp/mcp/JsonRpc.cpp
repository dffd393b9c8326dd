#include "mcp/JsonRpc.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace csm::jsonrpc {

namespace {
QJsonObject envelope()
{
    return QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}};
}
} // namespace

QJsonObject result(const QJsonValue& id, const QJsonObject& result)
{
    QJsonObject message = envelope();
    message.insert(QStringLiteral("id"), id);
    message.insert(QStringLiteral("result"), result);
    return message;
}

QJsonObject error(const QJsonValue& id, ErrorCode code, const QString& message)
{
    QJsonObject reply = envelope();
    reply.insert(QStringLiteral("id"), id);
    reply.insert(QStringLiteral("error"),
                 QJsonObject{{QStringLiteral("code"), static_cast<int>(code)},
                             {QStringLiteral("message"), message}});
    return reply;
}

QJsonObject notification(const QString& method, const QJsonObject& params)
{
    QJsonObject message = envelope();
    message.insert(QStringLiteral("method"), method);
    message.insert(QStringLiteral("params"), params);
    return message;
}

bool isValidId(const QJsonValue& id)
{
    if (id.isString())
        return true;
    if (!id.isDouble())
        return false;
    const double number = id.toDouble();
    return std::isfinite(number) && std::floor(number) == number;
}

QByteArray idKey(const QJsonValue& id)
{
    return QJsonDocument(QJsonArray{id}).toJson(QJsonDocument::Compact);
}

} // namespace csm::jsonrpc
