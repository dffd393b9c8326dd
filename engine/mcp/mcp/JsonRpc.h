#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace csm::jsonrpc {

enum class ErrorCode
{
    ParseError = -32700,
    InvalidRequest = -32600,
    MethodNotFound = -32601,
    InvalidParams = -32602,
    InternalError = -32603,
    // MCP's own: resources/read of a URI the server does not serve.
    ResourceNotFound = -32002,
    ServerError = -32000, // implementation-defined: refusals of the transport (HTTP 4xx)
};

// A response carries exactly one of `result` / `error`: real clients drop a message that has
// both, even when one of them is null.
QJsonObject result(const QJsonValue& id, const QJsonObject& result);
QJsonObject error(const QJsonValue& id, ErrorCode code, const QString& message);
QJsonObject notification(const QString& method, const QJsonObject& params);

// A request id is a string or an integer; anything else (or a missing id on a request) is invalid.
bool isValidId(const QJsonValue& id);

// A request id (or progress token) as a hash key that keeps its type: 1 and "1" differ.
QByteArray idKey(const QJsonValue& id);

} // namespace csm::jsonrpc
