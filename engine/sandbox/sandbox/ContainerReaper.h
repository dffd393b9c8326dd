#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

class QProcess;

namespace csm {

class ContainerRuntime;

// Takes over engine clients whose run is over for the caller but whose container may still be
// going away, so that teardown happens off the call's path and nothing is left behind:
// a client that does not exit in time gets its container force-removed. drain() removes all.
class ContainerReaper final : public QObject
{
    Q_OBJECT

public:
    // How long an adopted client may take to exit on its own before its container is removed.
    static constexpr int kExitGraceMs = 10'000;
    // A removal that found nothing while the container's client still runs is tried again this
    // often (the engine may still be creating the container), for up to kCreationGraceMs: well
    // within the server's 10 s shutdown budget, which must leave room for a slow remote's last
    // removal and the server's final sweep (which removes one created later still).
    static constexpr int kRemoveRetryMs = 250;
    static constexpr int kCreationGraceMs = 3'000;

    explicit ContainerReaper(const ContainerRuntime& runtime, QObject* parent = nullptr);
    ~ContainerReaper() override;

    // Takes ownership of `client` (an engine `run` process, maybe still running).
    void adopt(QProcess* client, const QString& container);
    // Same, and removes the container at once (the run was abandoned mid-way).
    void adoptAndRemove(QProcess* client, const QString& container);
    // Removes a container that no process of ours is attached to (a warm pool's).
    void remove(const QString& container);
    // Takes ownership of the process creating `container` (`run --detach`, or an attached
    // `run` told to end) and removes the container once that process is done: removing it
    // earlier could miss it, or race the engine's creation. One still going after
    // kExitGraceMs has its container removed anyway.
    void adoptThenRemove(QProcess* starter, const QString& container);
    // Takes ownership of a short engine command (e.g. an image check) nobody waits for any more.
    void adoptHelper(QProcess* process);
    // Force-removes every container still tracked; drained() follows once every removal and
    // every client has ended.
    void drain();

Q_SIGNALS:
    void drained();

private:
    struct Entry
    {
        QPointer<QProcess> client;
        bool removing = false;
        // `client` is creating the container: remove only after it is done.
        bool removeAfterClient = false;
        // Since the first removal found nothing while the client still ran.
        QElapsedTimer findingNothing;
    };

    void forceRemove(const QString& container);
    void onRemoveFinished(const QString& container, bool removedOne);
    void releaseIfDone(const QString& container);
    void emitDrainedIfIdle();

    const ContainerRuntime& m_runtime;
    QHash<QString, Entry> m_entries;
    QSet<QProcess*> m_helpers;
    bool m_draining = false;
};

} // namespace csm
