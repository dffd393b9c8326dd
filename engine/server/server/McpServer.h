#pragma once

#include "mcp/ServerIdentity.h"
#include "server/ServerOptions.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTemporaryDir>

#include <memory>

namespace csm {

class McpDispatcher;
class CallApprovals;
class EgressQuestions;
class FileContentWatcher;
class PassThroughSecrets;
class RunCodeTool;
class RunHistoryRecorder;
class SandboxRunner;
class InterpreterSessions;
class StaleContainerSweeper;
class ToolCall;
class RunFileOwners;
class RunFilesResources;
class ToolRegistry;
struct CallContext;

// The server's parts, wired together: engine, sandbox runner and tools, shared by any number of
// MCP sessions (one McpDispatcher each: stdio has one, HTTP one per Mcp-Session-Id). A transport
// feeds a session's dispatcher; shutdown() ends every run before shutdownFinished() is emitted.
class McpServer final : public QObject
{
    Q_OBJECT

public:
    explicit McpServer(const ServerOptions& options, QObject* parent = nullptr);
    ~McpServer() override;

    // A new session, owned by the server, living until closeSession() or the server's end.
    // `transport` ("stdio", "http") and `sessionId` go into the run history with each call.
    McpDispatcher* openSession(const QString& transport, const QString& sessionId = {});
    // Cancels the session's running calls (their containers are removed) and deletes it once
    // they have cleaned up.
    void closeSession(McpDispatcher* session);
    int sessionCount() const { return static_cast<int>(m_sessions.size()); }
    const QList<McpDispatcher*>& sessions() const { return m_sessions; }
    // A call the app's user started (a re-run): the tool itself, with no approval asked. Null
    // when no tool has that name.
    ToolCall* startAppCall(const QString& toolName, const QJsonObject& arguments,
                           const CallContext& context, QObject* parent);
    int runningCallCount() const;
    const SandboxRunner& runner() const { return *m_runner; }
    // The secrets the sandboxes get, kept current.
    PassThroughSecrets& secrets() const { return *m_secrets; }
    // The run history's writer; null with --no-history or when the history cannot be opened.
    RunHistoryRecorder* history() const { return m_history.get(); }

    // Kills and removes every running container, then emits shutdownFinished(). Bounded in time: a
    // wedged engine cannot keep the process alive.
    void shutdown();

    // Approval mode (off unless the desktop app turns it on): calls wait for the user.
    CallApprovals& approvals() const { return *m_approvals; }
    // Egress ask mode's questions. Only a server someone can answer (the desktop app's) asks
    // them (askAboutEgress); elsewhere ask mode refuses the hosts it would ask about.
    EgressQuestions& egressQuestions() const { return *m_egressQuestions; }
    void askAboutEgress(bool ask);
    // The clients' persistent interpreter sessions (run_*_code's `session`).
    InterpreterSessions& interpreterSessions() const;
    // The options in force: those the server started with, updated by the settings file.
    const ServerOptions& options() const { return m_options; }

Q_SIGNALS:
    void shutdownFinished();
    // What a display of the sessions shows changed: a session opened or went away, its client
    // said who it is, one of its calls started or ended, or an interpreter session started or
    // ended.
    void sessionsChanged();
    // The user's settings file changed and what it says applies from the next run on.
    void settingsApplied();

private:
    // Reads the options again (settings.ini changed) and applies what can change while
    // serving: limits, timeouts, images, the pool, redaction.
    void reloadSettings();
    void applySettings(const ServerOptions& options);
    void stopRunnerOnceIdle();
    void sweepOwnContainers();
    void finishShutdown();

    std::unique_ptr<SandboxRunner> m_runner;
    std::unique_ptr<PassThroughSecrets> m_secrets; // feeds the runner
    // Before the tools, which report to it, so that it outlives them.
    std::unique_ptr<RunHistoryRecorder> m_history;
    std::unique_ptr<CallApprovals> m_approvals;         // before the tools, which ask it
    std::unique_ptr<EgressQuestions> m_egressQuestions; // before the runs' proxies ask it
    std::unique_ptr<ToolRegistry> m_tools;
    // Which client made each run's files: the tools say, resources/read asks.
    std::shared_ptr<RunFileOwners> m_fileOwners;
    std::unique_ptr<RunFilesResources> m_runFiles; // resources/read of runs' files
    // Where runs' files are kept: beside the history, or (--no-history) in m_privateRunFiles.
    QString m_runFilesRoot;
    std::unique_ptr<QTemporaryDir> m_privateRunFiles;
    RunCodeTool* m_pythonTool = nullptr; // in m_tools
    RunCodeTool* m_jsTool = nullptr;
    ServerOptions m_options;
    FileContentWatcher* m_settingsFile = nullptr;
    ServerIdentity m_identity;
    // Every session not yet deleted, closing ones included.
    QList<McpDispatcher*> m_sessions;
    QPointer<StaleContainerSweeper> m_sweeper;
    QPointer<StaleContainerSweeper> m_finalSweep;
    bool m_shuttingDown = false;
    bool m_runnerStopping = false;
    bool m_shutdownFinished = false;
};

} // namespace csm
