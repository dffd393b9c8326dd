#include "HttpTestServer.h"

#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>

#include <csignal>

namespace {
QString stderrPath(const QTemporaryDir& dir)
{
    return dir.filePath(QStringLiteral("stderr.log"));
}
} // namespace

HttpTestServer::HttpTestServer() = default;

HttpTestServer::~HttpTestServer()
{
    if (isRunning() && !terminate(15'000)) {
        m_process.kill();
        m_process.waitForFinished(5'000);
    }
}

bool HttpTestServer::start(const QStringList& arguments, const QMap<QString, QString>& environment,
                           int timeoutMs)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = environment.cbegin(); it != environment.cend(); ++it)
        env.insert(it.key(), it.value());
    // Unless the test chose one, a data folder of the test's own (no user history, secrets or
    // token).
    const qsizetype dataDirFlag = arguments.indexOf(QLatin1String("--data-dir"));
    if (dataDirFlag >= 0 && dataDirFlag + 1 < arguments.size())
        m_dataDir = arguments.at(dataDirFlag + 1);
    else if (environment.contains(QStringLiteral("CODE_SANDBOX_DATA_DIR")))
        m_dataDir = environment.value(QStringLiteral("CODE_SANDBOX_DATA_DIR"));
    else
        m_dataDir = m_dir.filePath(QStringLiteral("data"));
    env.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), m_dataDir);
    env.remove(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN"));
    if (environment.contains(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN")))
        env.insert(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN"),
                   environment.value(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN")));
    TestEngine::handOver(m_dir.path());
    TestEngine::prepare(m_process, TestEngine::serverBinary(),
                        QStringList{QStringLiteral("--transport"), QStringLiteral("http"),
                                    QStringLiteral("--port"), QStringLiteral("0"),
                                    QStringLiteral("--engine"), TestEngine::name(),
                                    QStringLiteral("--pool"), QStringLiteral("0")} +
                            arguments,
                        env);
    m_process.setStandardOutputFile(m_dir.filePath(QStringLiteral("stdout.log")));
    m_process.setStandardErrorFile(stderrPath(m_dir));
    m_process.start();
    if (!m_process.waitForStarted(10'000)) {
        qWarning("could not start %s: %s", CSM_SERVER_BINARY, qPrintable(m_process.errorString()));
        return false;
    }
    m_pid = m_process.processId();

    static const QRegularExpression serving(QStringLiteral("serving MCP on (http://\\S+)"));
    const QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        const QRegularExpressionMatch match = serving.match(standardError());
        if (match.hasMatch()) {
            m_url = match.captured(1);
            m_port = static_cast<quint16>(QUrl(m_url).port());
            m_token = tokenFor(arguments, environment);
            return m_port != 0;
        }
        // Doubles as the polling pause, and notices a server that stopped at once.
        if (m_process.waitForFinished(20))
            break;
    }
    qWarning("the server did not say where it serves; its stderr:\n%s",
             qPrintable(standardError()));
    return false;
}

QByteArray HttpTestServer::tokenFor(const QStringList& arguments,
                                    const QMap<QString, QString>& environment) const
{
    if (arguments.contains(QLatin1String("--no-auth")))
        return {};
    if (const qsizetype flag = arguments.indexOf(QLatin1String("--auth-token"));
        flag >= 0 && flag + 1 < arguments.size())
        return arguments.at(flag + 1).toUtf8();
    if (environment.contains(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN")))
        return environment.value(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN")).toUtf8();
    // The one the server made (or found) in its data folder.
    QFile file(QDir(m_dataDir).filePath(QStringLiteral("http-token")));
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed() : QByteArray();
}

QByteArray HttpTestServer::authorization() const
{
    return m_token.isEmpty() ? QByteArray() : "Bearer " + m_token;
}

QByteArray HttpTestServer::hostHeader() const
{
    return "127.0.0.1:" + QByteArray::number(m_port);
}

RawHttpClient::Request HttpTestServer::postRequest(const QJsonObject& message,
                                                   const QByteArray& sessionId) const
{
    return postRequest(QJsonDocument(message).toJson(QJsonDocument::Compact), sessionId);
}

RawHttpClient::Request HttpTestServer::postRequest(const QByteArray& body,
                                                   const QByteArray& sessionId) const
{
    RawHttpClient::Request request;
    // A null value leaves the field out: no Authorization with --no-auth.
    request.set("Host", hostHeader())
        .set("Authorization", authorization())
        .set("Accept", "application/json, text/event-stream")
        .set("Content-Type", "application/json");
    if (!sessionId.isEmpty())
        request.set("Mcp-Session-Id", sessionId);
    request.body = body;
    return request;
}

QByteArray HttpTestServer::openSession(RawHttpClient& client) const
{
    const QJsonObject initialize{
        {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
        {QStringLiteral("id"), 0},
        {QStringLiteral("method"), QStringLiteral("initialize")},
        {QStringLiteral("params"),
         QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-11-25")},
                     {QStringLiteral("capabilities"), QJsonObject{}},
                     {QStringLiteral("clientInfo"),
                      QJsonObject{{QStringLiteral("name"), QStringLiteral("HttpTestServer")},
                                  {QStringLiteral("version"), QStringLiteral("1")}}}}}};
    if (!client.send(postRequest(initialize))) {
        qWarning("initialize could not be sent: %s", qPrintable(client.lastError()));
        return {};
    }
    const auto initialized = client.readResponse();
    if (!initialized || initialized->status != 200) {
        qWarning("initialize failed: %s",
                 initialized ? initialized->body.constData() : qPrintable(client.lastError()));
        return {};
    }
    const QByteArray sessionId = initialized->header("mcp-session-id");
    const QJsonObject notification{
        {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
        {QStringLiteral("method"), QStringLiteral("notifications/initialized")}};
    const auto accepted =
        client.send(postRequest(notification, sessionId)) ? client.readResponse() : std::nullopt;
    if (!accepted || accepted->status != 202) {
        qWarning("notifications/initialized was not accepted");
        return {};
    }
    return sessionId;
}

QString HttpTestServer::standardError() const
{
    QFile file(stderrPath(m_dir));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

bool HttpTestServer::terminate(int timeoutMs)
{
    if (!isRunning())
        return true;
    ::kill(static_cast<pid_t>(m_pid), SIGTERM);
    return m_process.waitForFinished(timeoutMs);
}
