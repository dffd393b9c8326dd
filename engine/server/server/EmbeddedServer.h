#pragma once

#include "server/EmbeddedServerEvents.h"
#include "server/ServerOptions.h"

#include <QJsonObject>
#include <QThread>

#include <functional>

namespace csm {

class EmbeddedServerWorker;

// The desktop app's own MCP server, on a thread of its own so that no run, engine call or HTTP
// request ever waits for the GUI (or the GUI for them). It serves the process's stdin/stdout
// (`code-sandbox-desktop --stdio`) and/or Streamable HTTP, started and stopped at will. Use it
// from the thread that created it; it reports through signals on that thread.
class EmbeddedServer final : public EmbeddedServerEvents
{
    Q_OBJECT

public:
    explicit EmbeddedServer(ServerOptions options, QObject* parent = nullptr);
    // Shuts the server down if still running (bounded by McpServer's shutdown budget) and joins
    // its thread.
    ~EmbeddedServer() override;

    void start();
    void serveStdio();
    void startHttp(const http::HttpServerConfig& config);
    void stopHttp();
    void setApproval(bool required, int timeoutMs);
    void answerApproval(quint64 id, bool approved);
    void answerEgressQuestion(quint64 id, bool allow);
    // Ends a live interpreter session (ServerStatus::InterpreterSession::key); its client's
    // next call with its name hears that its state is gone.
    void endInterpreterSession(const QString& key);
    // Stops one of this server's running runs (its id in the history) at once, without going
    // through the history; runStopAnswered() says whether it runs such a run.
    void stopRun(qint64 runId);
    // A run started by the user from the app (re-run): recorded with the transport "app".
    // `done` gets the MCP CallToolResult, on this thread.
    void runFromApp(const QString& toolName, const QString& code,
                    std::function<void(const QJsonObject&)> done);
    // Ends every call and transport; stopped() follows.
    void shutdown();

    const ServerStatus& status() const { return m_status; }
    bool isServingStdio() const { return m_servingStdio; }
    bool isStopped() const { return m_stopped; }
    // Started and not stopped: what is posted to it is done.
    bool isRunning() const { return m_started && !m_stopped; }

private:
    template <typename Function>
    void post(Function function);

    QThread m_thread;
    EmbeddedServerWorker* m_worker = nullptr; // lives on m_thread
    ServerStatus m_status;
    bool m_started = false;
    bool m_servingStdio = false;
    bool m_stopped = false;
    quint64 m_nextTicket = 1;
    QHash<quint64, std::function<void(const QJsonObject&)>> m_appRuns;
};

} // namespace csm
