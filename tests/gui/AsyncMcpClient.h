#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTest>
#include <QUrl>

#include <memory>
#include <utility>

// A Streamable HTTP client that never blocks the GUI thread (the approval dialogs need it),
// sending `token` as its bearer token (none when empty).
class AsyncMcpClient final
{
public:
    AsyncMcpClient(QUrl url, QString token)
        : m_url(std::move(url))
        , m_token(std::move(token))
    {}

    QNetworkReply* post(const QJsonObject& message)
    {
        QNetworkRequest request(m_url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        request.setRawHeader("Accept", "application/json, text/event-stream");
        if (!m_token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
        if (!m_session.isEmpty())
            request.setRawHeader("Mcp-Session-Id", m_session);
        return m_network.post(request, QJsonDocument(message).toJson(QJsonDocument::Compact));
    }

    // The JSON-RPC response in a finished reply, whether sent as JSON or as an SSE stream.
    static QJsonObject response(QNetworkReply* reply)
    {
        const QByteArray body = reply->readAll();
        if (!reply->header(QNetworkRequest::ContentTypeHeader)
                 .toString()
                 .startsWith(QLatin1String("text/event-stream")))
            return QJsonDocument::fromJson(body).object();
        QJsonObject last;
        for (const QByteArray& line : body.split('\n')) {
            if (!line.startsWith("data:"))
                continue;
            const QJsonObject message = QJsonDocument::fromJson(line.mid(5).trimmed()).object();
            if (message.contains(QLatin1String("id")))
                last = message;
        }
        return last;
    }

    bool initialize(const QString& clientName)
    {
        std::unique_ptr<QNetworkReply> reply(post(QJsonObject{
            {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), 1},
            {QStringLiteral("method"), QStringLiteral("initialize")},
            {QStringLiteral("params"),
             QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-11-25")},
                         {QStringLiteral("capabilities"), QJsonObject{}},
                         {QStringLiteral("clientInfo"),
                          QJsonObject{{QStringLiteral("name"), clientName},
                                      {QStringLiteral("version"), QStringLiteral("7")}}}}}}));
        if (!QTest::qWaitFor([&] { return reply->isFinished(); }, 10'000))
            return false;
        m_lastStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        m_session = reply->rawHeader("Mcp-Session-Id");
        if (m_session.isEmpty() || response(reply.get()).isEmpty())
            return false;
        std::unique_ptr<QNetworkReply> initialized(post(
            QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), QStringLiteral("notifications/initialized")}}));
        return QTest::qWaitFor([&] { return initialized->isFinished(); }, 10'000);
    }

    // `more`: arguments besides the code (a session, files...).
    QNetworkReply* callTool(const QString& tool, const QString& code, QJsonObject more = {})
    {
        more.insert(QStringLiteral("code"), code);
        return post(QJsonObject{
            {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), m_nextId++},
            {QStringLiteral("method"), QStringLiteral("tools/call")},
            {QStringLiteral("params"),
             QJsonObject{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), more}}}});
    }

    // The call's CallToolResult once the reply is finished (empty on failure).
    static QJsonObject result(QNetworkReply* reply)
    {
        return response(reply).value(QLatin1String("result")).toObject();
    }

    // The HTTP status of the last initialize.
    int lastStatus() const { return m_lastStatus; }

private:
    QUrl m_url;
    QString m_token;
    int m_lastStatus = 0;
    QNetworkAccessManager m_network;
    QByteArray m_session;
    int m_nextId = 2;
};
