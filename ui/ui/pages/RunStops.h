#pragma once

#include <QObject>
#include <QSet>
#include <QString>

namespace csm {

class EmbeddedServer;
class HistoryStore;

// The Runs page's Stop. A run of the app's own server is stopped by a direct call; any other
// (a headless server's, or one the app's server does not know) through the history, which its
// server polls. Says in a message line that a run is stopping, and how it ended once it has.
class RunStops final : public QObject
{
    Q_OBJECT

public:
    RunStops(HistoryStore& store, QObject* parent = nullptr);

    // The app's own server (null: none); its answers come back through it.
    void setServer(EmbeddedServer* server);
    void stop(qint64 id);
    // The history changed: a run said to be stopping may have ended.
    void checkEnded();

Q_SIGNALS:
    // A line for the page's message line.
    void said(const QString& text);
    // Run `id` cannot be stopped (said() says why).
    void failed(qint64 id);

private:
    void stopThroughHistory(qint64 id);
    void stopping(qint64 id);

    HistoryStore& m_store;
    EmbeddedServer* m_server = nullptr;
    // Runs whose Stop went to m_server, until it answers.
    QSet<qint64> m_direct;
    // Runs said to be stopping, until they have ended.
    QSet<qint64> m_stopping;
};

} // namespace csm
