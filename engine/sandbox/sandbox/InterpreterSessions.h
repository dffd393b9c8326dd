#pragma once

#include "core/Expected.h"
#include "runtime/Language.h"
#include "sandbox/InterpreterOwner.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace csm {

class InterpreterSession;
class InterpreterSessionSource;

// The persistent interpreter sessions of every client of a runner, by owner and name: a client's
// calls with the same `session` name share one interpreter; another client's same name is
// another session. Caps how many live at once (per client, in all, and so that they fit in
// memory with the sandboxes running), ends those idle too long, and remembers, for one call,
// that a session died on its own, so that the model hears its state is gone before a new one
// starts. Callers name sessions by value (owner key and name); the session objects stay here,
// and a cell reaches its session through the runner (RunRequest::interpreterName).
class InterpreterSessions final : public QObject
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
        QString owner; // InterpreterOwner::key
        QString transport;
        QString clientName;
        QString key; // the session's container: RunRecord::sessionKey
        QDateTime startedAt;
        QDateTime lastActiveAt;
    };

    explicit InterpreterSessions(InterpreterSessionSource& source, QObject* parent = nullptr);
    ~InterpreterSessions() override;

    // Letters, digits, '-', '_' and '.', at most 64.
    static bool isValidName(const QString& name);

    // Makes sure `owner` has a live session `name`, starting it now if it has none: returns its
    // key (its container's name, RunRecord::sessionKey), or why not, for the model.
    Expected<QString> prepare(const InterpreterOwner& owner, const QString& name, Language language,
                              const QString& image);
    // The live session `name` of the owner whose key is `ownerKey`; null when it has none.
    InterpreterSession* find(const QString& ownerKey, const QString& name) const;
    QList<Entry> list(const QString& ownerKey) const;
    // Every client's live sessions.
    QList<Entry> listAll() const;
    // Ends the live session whose container is `key` (the desktop app's End); false if none.
    bool endByKey(const QString& key, const QString& reason);
    // Ends the owner's session `name`; false when it had none.
    bool end(const QString& ownerKey, const QString& name);
    // Ends every session of an owner (its MCP session ended), or all (the server exits).
    void endOwner(const QString& ownerKey, const QString& reason);
    void endAll(const QString& reason);
    // Ends every live session though no client asked (the settings their containers started
    // with changed): each client's next call with the name hears why its state is gone.
    void loseAll(const QString& reason);
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
        InterpreterOwner owner;
        QString name;
        Language language = Language::Python;
        QPointer<InterpreterSession> session;
        QString lostReason; // it died on its own: said to the next call, then forgotten
    };

    qsizetype indexOf(const QString& ownerKey, const QString& name) const;
    // Why a new session cannot start now: the live sessions, the one-shot sandboxes running and
    // it would not fit in the memory budget together. Empty when it fits.
    QString overMemoryBudget() const;
    void endAt(qsizetype index, const QString& reason);
    // Ends a session its client did not ask to end: the client's next call with its name hears
    // that its state is gone before a new one starts.
    void loseAt(qsizetype index, const QString& reason);
    void onSessionEnded(InterpreterSession* session, const QString& reason);
    void endIdle();

    InterpreterSessionSource& m_source;
    Limits m_limits;
    QList<Slot> m_slots;
    QTimer m_idleCheck;
};

} // namespace csm
