#pragma once

#include "history/RetentionPolicy.h"

#include <QObject>
#include <QTimer>

#include <chrono>
#include <optional>

namespace csm {

class HistoryStore;

// Keeps the run history within its RetentionPolicy for as long as a server runs, not only when it
// starts: a full pass (count, age, size, the runs' files) now and then every interval(), and a
// look at the sizes alone after each recorded run, so that a burst of big runs cannot outgrow the
// budget between two passes. Deleted space goes back to the file system when there is a lot of it.
//
// Several processes prune the same file, each with its own policy: every deletion is a short
// transaction that measures again inside it, so together they never delete more than the
// strictest policy asks. On the store's thread.
class HistoryPruner final : public QObject
{
    Q_OBJECT

public:
    static constexpr std::chrono::milliseconds kDefaultInterval = std::chrono::minutes(10);

    HistoryPruner(HistoryStore& store, const RetentionPolicy& policy,
                  std::chrono::milliseconds interval = kDefaultInterval, QObject* parent = nullptr);

    const RetentionPolicy& policy() const { return m_policy; }
    // Used from the next pass or check on.
    void setPolicy(const RetentionPolicy& policy) { m_policy = policy; }
    std::chrono::milliseconds interval() const;
    // Restarts the timer with the new interval, if it changed.
    void setInterval(std::chrono::milliseconds interval);

    // A full pass now; returns how many runs it deleted. Problems are logged.
    int pruneNow();
    // After a run was recorded, whose files on this machine add up to `runFilesBytes`: the size
    // budgets only, cheap while the history is within them.
    int pruneIfTooBig(qint64 runFilesBytes = 0);

Q_SIGNALS:
    // A pass of the timer deleted `runs` runs (0 included: the pass happened).
    void timerPassDone(int runs);

private:
    // The runs' files down to `maxBytes`, counted again.
    void pruneFiles(qint64 maxBytes);

    HistoryStore& m_store;
    RetentionPolicy m_policy;
    QTimer m_timer;
    // What the runs' files added up to when their folders were last walked, plus what the runs
    // recorded since have stored; unknown until the first walk. Walking every run's folder
    // costs milliseconds once there are thousands, too much for every run: the folders are
    // walked again when this says the budget is passed, and at every full pass (which also
    // counts what other processes stored meanwhile).
    std::optional<qint64> m_filesBytes;
};

} // namespace csm
