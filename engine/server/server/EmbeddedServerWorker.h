#pragma once

#include "server/EmbeddedServerEvents.h"
#include "server/ServerOptions.h"

#include <QJsonObject>

#include <memory>

namespace csm {

class HttpServing;
class McpServer;
class StdioServing;

// EmbeddedServer's half on the server thread: owns the McpServer and its transports. Every
// public function is invoked from the GUI thread through queued calls; everything it reports
// goes back through signals.
class EmbeddedServerWorker final : public EmbeddedServerEvents
{
    Q_OBJECT

public:
    explicit EmbeddedServerWorker(ServerOptions options);
    ~EmbeddedServerWorker() override;

    void start();
    void serveStdio();
    void startHttp(const csm::http::HttpServerConfig& config);
    void stopHttp();
    void setApproval(bool required, int timeoutMs);
    void answerApproval(quint64 id, bool approved);
    void answerEgressQuestion(quint64 id, bool allow);
    void endInterpreterSession(const QString& key);
    // Answers with runStopAnswered().
    void stopRun(qint64 runId);
    // Runs `code` with the tool `toolName` as a call of the app itself (no approval asked).
    void runFromApp(quint64 ticket, const QString& toolName, const QString& code);
    // Stops every call and transport; stopped() follows.
    void shutdown();

Q_SIGNALS:
    void appRunFinished(quint64 ticket, const QJsonObject& callResult);

private:
    // Publishes the status once the events at hand are handled: a burst of changes (many calls
    // starting at once) makes one update.
    void schedulePublish();
    void publishStatus();
    void stopHttpTransport();

    ServerOptions m_options;
    std::unique_ptr<McpServer> m_server;
    std::unique_ptr<StdioServing> m_stdio;
    std::unique_ptr<HttpServing> m_http;
    ServerStatus m_lastStatus;
    bool m_publishScheduled = false;
    bool m_shuttingDown = false;
    bool m_stopped = false;
};

} // namespace csm
