#pragma once

#include "transport/http/HttpServerConfig.h"

#include <QObject>
#include <QThread>
#include <QUrl>

namespace csm::http {

class HttpServerWorker;
class McpHttpEndpoint;

// Runs the Streamable HTTP transport (listener, connections, sessions) on a thread of its own,
// so that reading and writing HTTP never waits for the server's thread, and owns that thread:
// destroying it stops the transport, then quits and joins the thread.
class HttpServerThread final : public QObject
{
    Q_OBJECT

public:
    explicit HttpServerThread(HttpServerConfig config, QObject* parent = nullptr);
    ~HttpServerThread() override;

    // Starts the thread and listens there; listening() or failed() follows.
    void start();
    // Closes the listener, every connection and every session; returns when that is done.
    void stop();

    // Lives on the transport's thread: connect to it (queued connections follow), call nothing.
    McpHttpEndpoint& endpoint();

Q_SIGNALS:
    void listening(const QUrl& url);
    void failed(const QString& error);

private:
    QThread m_thread;
    HttpServerWorker* m_worker;
    bool m_stopped = false;
};

} // namespace csm::http
