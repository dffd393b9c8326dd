#pragma once

#include <QObject>
#include <QPointer>

#include <memory>

namespace csm {

class McpDispatcher;
class McpServer;
class StdioTransport;

// MCP over this process's stdin and stdout: one session of the server, fed line by line. Both
// the headless server and the desktop app's `--stdio` serve through it; what happens when the
// client goes (closed()) is theirs to decide.
class StdioServing final : public QObject
{
    Q_OBJECT

public:
    // Opens the server's "stdio" session.
    explicit StdioServing(McpServer& server, QObject* parent = nullptr);
    ~StdioServing() override;

    // Reads stdin from now on.
    void start();
    // Ends the session: its running calls are cancelled (their containers removed).
    void closeSession();

Q_SIGNALS:
    // stdin reached end of file: the client is gone.
    void closed();

private:
    McpServer& m_server;
    std::unique_ptr<StdioTransport> m_transport;
    QPointer<McpDispatcher> m_session;
};

} // namespace csm
