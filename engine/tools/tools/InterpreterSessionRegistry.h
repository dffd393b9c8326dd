#pragma once

#include "core/Expected.h"
#include "mcp/CallContext.h"
#include "runtime/Language.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace csm {

class SandboxRunner;
class InterpreterSession;

// The persistent sessions of every client of this server, by client and name: a client's calls
// with the same `session` name share one interpreter; another client's same name is another
// session. Caps how many live at once (per client, in all, and so that they fit in memory with
// the sandboxes running), ends those idle too long, and
// remembers, for one call, that a session died on its own, so that the model hears its state
// is gone before a new one starts.
class InterpreterSessionRegistry final : public QObject
{
    Q_OBJECT

public:
    struct Limits
    {
        int perClient = 4;
        int perServer = 16; // 0: no sessions at all
        int idleSeconds = 15 * 60;
    };
    struct Entry
    {
        QString name;
        Language language = Language::Python;
        qint64 ageMs = 0;
        qint64 idleMs = 0;
        int cells = 0;
        bool running = false;    // a cell is running now
        qint64 memoryBytes = -1; // after its last cell; -1: not known
        // Whose it is (for the desktop app's list of every client's sessions).
        QString client; // clientKey()
        QString transport;
        QString clientName;
        QString key; // the session's container: RunRecord::sessionKey
        QDateTime startedAt;
        QDateTime lastActiveAt;
    };

    InterpreterSessionRegistry(SandboxRunner& runner, Limits limits, QObject* parent = nullptr);
    ~InterpreterSessionRegistry() override;

    // Letters, digits, '-', '_' and '.', at most 64.
    static bool isValidName(const QString& name);
    // Whose sessions a call's are: its transport and MCP session.
    static QString clientKey(const QString& transport, const QString& sessionId);

    // The caller's live session `name`, started now if it has none; or why not, for the model.
    Expected<InterpreterSession*> sessionFor(const CallContext& context, const QString& name,
                                             Language language, const QString& image);
    QList<Entry> list(const CallContext& context) const;
    // Every client's live sessions.
    QList<Entry> listAll() const;
    // Ends the live session whose container is `key` (the desktop app's End); false if none.
    bool endByKey(const QString& key, const QString& reason);
    // Ends the caller's session `name`; false when it had none.
    bool end(const CallContext& context, const QString& name);
    // Ends every session of a client (its MCP session ended), or all (the server exits).
    void endClient(const QString& clientKey, const QString& reason);
    void endAll(const QString& reason);
    int liveCount() const;
    // New limits (the settings changed): they apply to new sessions and to idle time from now
    // on; live sessions over a lower cap are left to end on their own.
    void setLimits(const Limits& limits);

Q_SIGNALS:
    // A session started or ended.
    void changed();

private:
    struct Slot
    {
        QString client;
        QString transport;
        QString clientName; // as the client said in initialize
        QString name;
        Language language = Language::Python;
        QPointer<InterpreterSession> session;
        QString lostReason; // it died on its own: said to the next call, then forgotten
    };

    qsizetype indexOf(const QString& client, const QString& name) const;
    // Why a new session cannot start now: the live sessions, the one-shot sandboxes running and
    // it would not fit in the memory budget together. Empty when it fits.
    QString overMemoryBudget() const;
    void endAt(qsizetype index, const QString& reason);
    // Ends a session its client did not ask to end: the client's next call with its name hears
    // that its state is gone before a new one starts.
    void loseAt(qsizetype index, const QString& reason);
    void onSessionEnded(InterpreterSession* session, const QString& reason);
    void endIdle();

    SandboxRunner& m_runner;
    Limits m_limits;
    QList<Slot> m_slots;
    QTimer m_idleCheck;
};

} // namespace csm
