#pragma once

#include "mcp/JsonRpc.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

namespace csm::http {

// A response to send: status, header fields and a body (or, for a stream, only the head).
struct HttpResponse
{
    int status = 200;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;

    // Replaces any field of that name.
    void setHeader(QByteArrayView name, QByteArrayView value);
    QByteArray header(QByteArrayView name) const;

    // application/json with the given body.
    static HttpResponse json(int status, const QJsonObject& body);
    // An HTTP-level refusal, with a JSON-RPC error body (id null) that says why: MCP clients
    // show the message, and curl users read it.
    static HttpResponse error(int status, const QString& message,
                              jsonrpc::ErrorCode code = jsonrpc::ErrorCode::ServerError);

    static QByteArray reasonPhrase(int status);
};

} // namespace csm::http
