#include "transport/http/HttpResponse.h"

#include <QJsonDocument>

namespace csm::http {

void HttpResponse::setHeader(QByteArrayView name, QByteArrayView value)
{
    for (auto it = headers.begin(); it != headers.end();) {
        if (it->first.compare(name, Qt::CaseInsensitive) == 0)
            it = headers.erase(it);
        else
            ++it;
    }
    headers.append({name.toByteArray(), value.toByteArray()});
}

QByteArray HttpResponse::header(QByteArrayView name) const
{
    for (const auto& [fieldName, value] : headers) {
        if (fieldName.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

HttpResponse HttpResponse::json(int status, const QJsonObject& body)
{
    HttpResponse response;
    response.status = status;
    response.setHeader("Content-Type", "application/json");
    response.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return response;
}

HttpResponse HttpResponse::error(int status, const QString& message, jsonrpc::ErrorCode code)
{
    return json(status, jsonrpc::error(QJsonValue::Null, code, message));
}

QByteArray HttpResponse::reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Unknown";
    }
}

} // namespace csm::http
