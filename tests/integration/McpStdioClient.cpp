#include "McpStdioClient.h"

#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QStringDecoder>
#include <QTest>

McpStdioClient::McpStdioClient() = default;

McpStdioClient::~McpStdioClient()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.closeWriteChannel();
        if (!m_process.waitForFinished(15'000)) {
            m_process.kill();
            m_process.waitForFinished(5'000);
        }
    }
}

bool McpStdioClient::start(const QStringList& arguments, const QProcessEnvironment& environment)
{
    QProcessEnvironment isolated = environment;
    // Unless the test chose one, a data folder of the test's own: the server neither records
    // into the user's history nor hands the user's secrets to the test's sandboxes.
    if (!arguments.contains(QLatin1String("--data-dir")) &&
        !isolated.contains(QStringLiteral("CODE_SANDBOX_DATA_DIR")))
        isolated.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), m_dataDir.path());
    const QString isolation = TestEngine::isolation();
    if (!isolation.isEmpty() && !arguments.contains(QLatin1String("--isolation")) &&
        !isolated.contains(QStringLiteral("CODE_SANDBOX_ISOLATION")))
        isolated.insert(QStringLiteral("CODE_SANDBOX_ISOLATION"), isolation);
    if (m_program == QLatin1String(CSM_SERVER_BINARY)) {
        // The server runs as the engine's user (a rootless one, with podman-rootless).
        TestEngine::handOver(m_dataDir.path());
        TestEngine::prepare(m_process, TestEngine::serverBinary(), arguments, isolated);
    } else {
        m_process.setProgram(m_program);
        m_process.setArguments(arguments);
        m_process.setProcessEnvironment(isolated);
    }
    m_process.start();
    return m_process.waitForStarted(10'000);
}

std::unique_ptr<McpStdioClient> McpStdioClient::startOnTestEngine(const QStringList& arguments)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
    auto client = std::make_unique<McpStdioClient>();
    if (!client->start(arguments, environment) || client->initialize().isEmpty())
        return nullptr;
    return client;
}

QJsonObject McpStdioClient::initialize(const QString& protocolVersion,
                                       const QJsonObject& clientInfo)
{
    const QJsonObject info = !clientInfo.isEmpty()
                                 ? clientInfo
                                 : QJsonObject{{QStringLiteral("name"), QStringLiteral("tst")},
                                               {QStringLiteral("version"), QStringLiteral("1")}};
    const QJsonObject result =
        request(QStringLiteral("initialize"), {{QStringLiteral("protocolVersion"), protocolVersion},
                                               {QStringLiteral("capabilities"), QJsonObject{}},
                                               {QStringLiteral("clientInfo"), info}});
    sendNotification(QStringLiteral("notifications/initialized"));
    return result;
}

int McpStdioClient::sendRequest(const QString& method, const QJsonObject& params)
{
    const int id = m_nextId++;
    QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("id"), id},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    sendRaw(QJsonDocument(message).toJson(QJsonDocument::Compact));
    return id;
}

void McpStdioClient::sendNotification(const QString& method, const QJsonObject& params)
{
    const QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                              {QStringLiteral("method"), method},
                              {QStringLiteral("params"), params}};
    sendRaw(QJsonDocument(message).toJson(QJsonDocument::Compact));
}

void McpStdioClient::sendRaw(const QByteArray& line)
{
    m_process.write(line + '\n');
    m_process.waitForBytesWritten(30'000);
}

void McpStdioClient::readLines(int timeoutMs)
{
    m_process.waitForReadyRead(timeoutMs);
    m_buffer += m_process.readAllStandardOutput();
    m_stderr += m_process.readAllStandardError();
    qsizetype newline = 0;
    while ((newline = m_buffer.indexOf('\n')) >= 0) {
        const QByteArray line = m_buffer.left(newline);
        m_buffer.remove(0, newline + 1);
        QStringDecoder utf8(QStringDecoder::Utf8);
        [[maybe_unused]] const QString decoded = utf8(line);
        if (utf8.hasError()) {
            qWarning("server wrote a line that is not valid UTF-8");
            m_messages.append(
                QJsonObject{{QStringLiteral("invalid_line"), QStringLiteral("utf8")}});
            continue;
        }
        QJsonParseError error{};
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject()) {
            qWarning("server wrote a line that is not a JSON object: %s", line.constData());
            m_messages.append(
                QJsonObject{{QStringLiteral("invalid_line"), QString::fromUtf8(line)}});
            continue;
        }
        m_messages.append(document.object());
    }
}

std::optional<QJsonObject>
McpStdioClient::take(const std::function<bool(const QJsonObject&)>& predicate)
{
    for (qsizetype i = 0; i < m_messages.size(); ++i) {
        if (predicate(m_messages.at(i)))
            return m_messages.takeAt(i);
    }
    return std::nullopt;
}

std::optional<QJsonObject>
McpStdioClient::waitForMessage(const std::function<bool(const QJsonObject&)>& predicate,
                               int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    for (;;) {
        if (auto message = take(predicate))
            return message;
        if (deadline.hasExpired() || m_process.state() == QProcess::NotRunning) {
            readLines(0);
            return take(predicate);
        }
        readLines(static_cast<int>(std::min<qint64>(deadline.remainingTime(), 200)));
    }
}

std::optional<QJsonObject> McpStdioClient::waitForResponse(int id, int timeoutMs)
{
    return waitForMessage(
        [id](const QJsonObject& message) {
            return message.value(QLatin1String("id")) == QJsonValue(id);
        },
        timeoutMs);
}

QJsonObject McpStdioClient::request(const QString& method, const QJsonObject& params, int timeoutMs)
{
    const auto response = waitForResponse(sendRequest(method, params), timeoutMs);
    return response ? response->value(QLatin1String("result")).toObject() : QJsonObject{};
}

QJsonObject McpStdioClient::callTool(const QString& tool, const QJsonObject& arguments,
                                     int timeoutMs)
{
    return request(QStringLiteral("tools/call"),
                   {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}},
                   timeoutMs);
}

bool McpStdioClient::receivesResponseWithin(int id, int ms)
{
    return waitForResponse(id, ms).has_value();
}

void McpStdioClient::closeStdin()
{
    m_process.closeWriteChannel();
}

bool McpStdioClient::waitForExit(int timeoutMs)
{
    return m_process.waitForFinished(timeoutMs);
}

QString McpStdioClient::standardError()
{
    m_stderr += m_process.readAllStandardError();
    return QString::fromUtf8(m_stderr);
}

bool McpStdioClient::waitForPooledReady(int count, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        if (standardError().count(QStringLiteral(" ready in all")) >= count)
            return true;
        QTest::qWait(100);
    }
    return false;
}
