#pragma once

#include "runtime/Language.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

class QProcess;

namespace csm {

class ContainerChannel;
class InterpreterSession;
class SandboxRunServices;

// How a run gets its container, once it has its turn. A session's cell waits for its session's
// running cell, within the call's timeout, and takes the session's channel. A one-shot program
// takes a warm container from the pool, or checks its image (once per image and runner) and
// starts one cold; a pooled container that fails to start is replaced by a cold one. Either way
// acquired() or failed() follows, from the event loop.
class ContainerAcquisition final : public QObject
{
    Q_OBJECT

public:
    // The exit status with which podman and docker report that *they* failed to run a
    // container.
    static constexpr int kEngineFailureExitCode = 125;

    // `session`: a cell's session (`forSession`), null once it is gone. `owner` owns the channels
    // acquired (the run), and is this object's parent.
    ContainerAcquisition(SandboxRunServices& services, Language language, QString image,
                         int timeoutMs, bool forSession, InterpreterSession* session,
                         QObject* owner);
    ~ContainerAcquisition() override;

    // Once the container may start (the secrets settled, a remote engine holds the launcher).
    void begin();
    // The warm container acquired failed to start: a cold one is acquired instead.
    void fallBackToCold();
    // The cold container acquired could not run ("exit 125"): the image is checked again, and
    // failed() says why, the engine's own words (`engineDiagnostics`) last.
    void explainEngineFailure(const QString& engineDiagnostics);
    // The run is over (cancelled): nothing more is acquired, and an image check still running
    // goes to the reaper.
    void abandon();

    // What was acquired last: a pooled container, and a cell's number in its session (1, 2...;
    // 0 for a program in a container of its own).
    bool isWarm() const { return m_warm; }
    int cellNumber() const { return m_cellNumber; }

Q_SIGNALS:
    void acquired(csm::ContainerChannel* channel);
    // Nothing could be acquired: why, as the call's error.
    void failed(const QString& message);
    // A cell waited past its timeout for its session's running cell; it never ran.
    void waitedTooLong(const QString& message);

private:
    void acquire();
    void waitForCell(InterpreterSession* session);
    void onCellWaitExpired();
    // A cold container: checks the image first, unless it is known present.
    void startCold();
    void launchCold();
    void checkImage(const QString& afterEngineFailure);
    void onImageChecked(int exitCode, const QString& afterEngineFailure);
    void fail(const QString& message);

    SandboxRunServices& m_services;
    const Language m_language;
    const QString m_image;
    const int m_timeoutMs;
    const bool m_forSession;
    QPointer<InterpreterSession> m_session;
    QObject* m_owner;
    QPointer<QProcess> m_check;
    QTimer m_cellWait;
    bool m_waitingForCell = false;
    bool m_active = true;
    bool m_warm = false;
    int m_cellNumber = 0;
};

} // namespace csm
