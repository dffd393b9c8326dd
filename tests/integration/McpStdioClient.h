#pragma once

#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <functional>
#include <memory>
#include <optional>

// Drives a real code-sandbox-mcp process over stdio, as an MCP client would.
class McpStdioClient final
{
public:
    McpStdioClient();
    ~McpStdioClient();

    bool start(const QStringList& arguments, const QProcessEnvironment& environment);
    // code-sandbox-mcp ARGUMENTS on the engine under test (TestEngine), started and
    // initialized; null if either failed.
    static std::unique_ptr<McpStdioClient> startOnTestEngine(const QStringList& arguments);
    // Another program than code-sandbox-mcp (e.g. code-sandbox-desktop --stdio); before start().
    void setProgram(const QString& program) { m_program = program; }
    // initialize + notifications/initialized; returns the initialize result. `clientInfo`
    // defaults to {"name": "tst", "version": "1"}.
    QJsonObject initialize(const QString& protocolVersion = QStringLiteral("2025-11-25"),
                           const QJsonObject& clientInfo = {});

    int sendRequest(const QString& method, const QJsonObject& params = {});
    void sendNotification(const QString& method, const QJsonObject& params = {});
    void sendRaw(const QByteArray& line);
    // The response to request `id`, or nothing if none came in time.
    std::optional<QJsonObject> waitForResponse(int id, int timeoutMs = 30'000);
    // The first message (response or notification) matching `predicate`.
    std::optional<QJsonObject>
    waitForMessage(const std::function<bool(const QJsonObject&)>& predicate,
                   int timeoutMs = 30'000);
    // Sends a request and waits for its result (an empty object on error or timeout).
    QJsonObject request(const QString& method, const QJsonObject& params = {},
                        int timeoutMs = 30'000);
    QJsonObject callTool(const QString& tool, const QJsonObject& arguments, int timeoutMs = 60'000);
    // Whether any message for `id` arrived within `ms` (used to prove that none does).
    bool receivesResponseWithin(int id, int ms);

    void closeStdin();
    bool waitForExit(int timeoutMs);
    qint64 pid() const { return m_process.processId(); }
    QProcess& process() { return m_process; }
    QString standardError();
    // Until the server's log (--verbose) says `count` pooled containers have become ready since
    // it started (each logs "... ready in all" once); false if that takes longer than
    // `timeoutMs`.
    bool waitForPooledReady(int count, int timeoutMs = 60'000);

private:
    void readLines(int timeoutMs);
    std::optional<QJsonObject> take(const std::function<bool(const QJsonObject&)>& predicate);

    QTemporaryDir m_dataDir;
    QString m_program = QStringLiteral(CSM_SERVER_BINARY);
    QProcess m_process;
    QByteArray m_buffer;
    QByteArray m_stderr;
    QList<QJsonObject> m_messages;
    int m_nextId = 1;
};
