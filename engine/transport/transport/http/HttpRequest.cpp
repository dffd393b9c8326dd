#include "transport/http/HttpRequest.h"

namespace csm::http {

QByteArray HttpRequest::header(QByteArrayView lowerCaseName) const
{
    for (const auto& [name, value] : headers) {
        if (QByteArrayView(name) == lowerCaseName)
            return value;
    }
    return {};
}

int HttpRequest::headerCount(QByteArrayView lowerCaseName) const
{
    int count = 0;
    for (const auto& field : headers) {
        if (QByteArrayView(field.first) == lowerCaseName)
            ++count;
    }
    return count;
}

QByteArray HttpRequest::path() const
{
    const qsizetype query = target.indexOf('?');
    return query < 0 ? target : target.left(query);
}

bool HttpRequest::keepAlive() const
{
    // Connection is a list of case-insensitive tokens, possibly spread over several fields;
    // "close" wins over "keep-alive" whatever their order.
    bool close = false;
    bool keepAliveOption = false;
    for (const auto& [name, value] : headers) {
        if (QByteArrayView(name) != QByteArrayView("connection"))
            continue;
        for (const QByteArray& option : value.split(',')) {
            const QByteArray token = option.trimmed();
            if (token.compare("close", Qt::CaseInsensitive) == 0)
                close = true;
            else if (token.compare("keep-alive", Qt::CaseInsensitive) == 0)
                keepAliveOption = true;
        }
    }
    if (close)
        return false;
    return minorVersion >= 1 || keepAliveOption;
}

} // namespace csm::http
