#pragma once

#include <QObject>
#include <QPointer>

#include <memory>

namespace csm {

class McpDispatcher;
class SandboxRunner;
class StaleContainerSweeper;
class ToolRegistry;
struct ServerOptions;

// The headless server's parts, wired together: engine, sandbox runner, tools and dispatcher.
// A transport feeds dispatcher(); shutdown() ends every run before shutDown() is emitted.
class McpServer final : public QObject
{
    Q_OBJECT

public:
    explicit McpServer(const ServerOptions& options, QObject* parent = nullptr);
    ~McpServer() override;

    McpDispatcher& dispatcher() { return *m_dispatcher; }
    const SandboxRunner& runner() const { return *m_runner; }

    // Kills and removes every running container, then emits shutDown(). Bounded in time: a
    // wedged engine cannot keep the process alive.
    void shutdown();

Q_SIGNALS:
    void shutDown();

private:
    void sweepOwnContainers();
    void finishShutdown();

    std::unique_ptr<SandboxRunner> m_runner;
    std::unique_ptr<ToolRegistry> m_tools;
    McpDispatcher* m_dispatcher = nullptr;
    QPointer<StaleContainerSweeper> m_sweeper;
    QPointer<StaleContainerSweeper> m_finalSweep;
    bool m_shuttingDown = false;
    bool m_shutDown = false;
};

} // namespace csm
