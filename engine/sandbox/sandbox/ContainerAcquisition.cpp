#include "sandbox/ContainerAcquisition.h"

#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerChannel.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/InterpreterSession.h"
#include "sandbox/SandboxRunServices.h"

#include <QProcess>

#include <utility>

namespace csm {

ContainerAcquisition::ContainerAcquisition(SandboxRunServices& services, Language language,
                                           QString image, int timeoutMs, bool forSession,
                                           InterpreterSession* session, QObject* owner)
    : QObject(owner)
    , m_services(services)
    , m_language(language)
    , m_image(std::move(image))
    , m_timeoutMs(timeoutMs)
    , m_forSession(forSession)
    , m_session(session)
    , m_owner(owner)
{
    m_cellWait.setSingleShot(true);
    // The call's timeout, which a coarse timer (QTimer's default) could end up to 5 % early.
    m_cellWait.setTimerType(Qt::PreciseTimer);
    connect(&m_cellWait, &QTimer::timeout, this, &ContainerAcquisition::onCellWaitExpired);
}

ContainerAcquisition::~ContainerAcquisition()
{
    abandon();
}

void ContainerAcquisition::begin()
{
    // A secret changed: this run gets the new values, so it waits for them (and, on a remote
    // engine's first run, for the engine to hold the launcher).
    m_services.whenReadyToStart(this, m_image, [this] { acquire(); });
}

void ContainerAcquisition::abandon()
{
    m_active = false;
    m_cellWait.stop();
    if (m_session)
        m_session->disconnect(this);
    if (m_check) {
        m_check->disconnect(this);
        m_check->kill();
        m_services.reaper().adoptHelper(m_check);
    }
}

void ContainerAcquisition::fail(const QString& message)
{
    m_active = false;
    Q_EMIT failed(message);
}

void ContainerAcquisition::acquire()
{
    if (!m_active)
        return;
    if (const QString reason = m_services.cannotStartReason(); !reason.isEmpty()) {
        fail(reason);
        return;
    }
    if (m_forSession) {
        InterpreterSession* session = m_session;
        if (!session) {
            // Gone while this cell waited (ended, and deleted): never run it anywhere else.
            fail(QStringLiteral("The session ended before this cell could run; its state is "
                                "gone. Call again to start a new one."));
            return;
        }
        if (session->lendToCell()) {
            if (std::exchange(m_waitingForCell, false)) {
                m_cellWait.stop();
                session->disconnect(this);
            }
            // Cells of a session run one at a time: this one follows those sent so far.
            m_cellNumber = session->cellCount() + 1;
            Q_EMIT acquired(session);
        } else if (session->state() == InterpreterSession::State::Ended) {
            fail(QStringLiteral("The session has ended (%1); its state is gone. Call again to "
                                "start a new one.")
                     .arg(session->endReason()));
        } else {
            waitForCell(session);
        }
        return;
    }
    // A warm container proves its image exists: no check needed.
    if (ContainerChannel* warm = m_services.acquireChannel(SandboxRunServices::Channel::Warm,
                                                           m_language, m_image, m_owner)) {
        m_warm = true;
        Q_EMIT acquired(warm);
    } else {
        startCold();
    }
}

void ContainerAcquisition::waitForCell(InterpreterSession* session)
{
    // Cells of one session run one at a time, in the order they came (as a notebook queues
    // them): this one waits for the running one, within its own timeout.
    if (m_waitingForCell)
        return; // still waiting: another waiting cell went first
    m_waitingForCell = true;
    connect(session, &InterpreterSession::cellClosed, this, &ContainerAcquisition::acquire,
            Qt::QueuedConnection);
    connect(session, &InterpreterSession::closed, this, &ContainerAcquisition::acquire,
            Qt::QueuedConnection);
    m_cellWait.start(m_timeoutMs);
}

void ContainerAcquisition::onCellWaitExpired()
{
    if (!m_active || !m_waitingForCell)
        return;
    m_waitingForCell = false;
    m_active = false;
    if (m_session)
        m_session->disconnect(this);
    Q_EMIT waitedTooLong(
        QStringLiteral("The call timed out after %1 s waiting for the session's running cell to "
                       "finish; this cell never ran (cells of one session run one at a time).")
            .arg(QString::number(m_timeoutMs / 1000.0)));
}

void ContainerAcquisition::fallBackToCold()
{
    m_warm = false;
    m_active = true;
    startCold();
}

void ContainerAcquisition::startCold()
{
    if (m_services.isImageKnownPresent(m_image))
        launchCold();
    else
        checkImage({});
}

void ContainerAcquisition::launchCold()
{
    Q_EMIT acquired(
        m_services.acquireChannel(SandboxRunServices::Channel::Cold, m_language, m_image, m_owner));
}

void ContainerAcquisition::explainEngineFailure(const QString& engineDiagnostics)
{
    // The engine could not run the container: say why, starting with the image.
    m_services.setImageKnownPresent(m_image, false);
    m_active = true;
    checkImage(engineDiagnostics.isNull() ? QStringLiteral(".") : engineDiagnostics);
}

void ContainerAcquisition::checkImage(const QString& afterEngineFailure)
{
    const ContainerRuntime& runtime = m_services.runtime();
    m_check = runtime.newProcess(runtime.imageCheckArguments(m_image), this);
    connect(m_check, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && m_active)
            fail(m_services.runtime().notStartedMessage(m_check->errorString()));
    });
    connect(m_check, &QProcess::finished, this,
            [this, afterEngineFailure](int exitCode, QProcess::ExitStatus status) {
                if (m_active)
                    onImageChecked(status == QProcess::NormalExit ? exitCode : -1,
                                   afterEngineFailure);
            });
    m_check->start();
}

void ContainerAcquisition::onImageChecked(int exitCode, const QString& afterEngineFailure)
{
    const ContainerRuntime& runtime = m_services.runtime();
    QProcess* finished = std::exchange(m_check, nullptr);
    const ImageCheck check =
        runtime.interpretImageCheck(exitCode, finished->readAllStandardError());
    finished->deleteLater();
    switch (check.status) {
    case ImageCheck::Status::Present:
        m_services.setImageKnownPresent(m_image, true);
        if (!afterEngineFailure.isEmpty()) {
            fail(QStringLiteral("The container engine %1 could not run the sandbox (exit code "
                                "%2)%3")
                     .arg(runtime.name())
                     .arg(kEngineFailureExitCode)
                     .arg(afterEngineFailure));
        } else {
            launchCold();
        }
        return;
    case ImageCheck::Status::Missing:
        m_services.setImageKnownPresent(m_image, false);
        fail(QStringLiteral("The sandbox image \"%1\" is not available in %2. Build the default "
                            "images with `containers/build-images --engine %2` (from the Code "
                            "Sandbox sources), or choose another image with --python-image / "
                            "--js-image or CONTAINER_IMAGE.")
                 .arg(m_image, runtime.name()));
        return;
    case ImageCheck::Status::EngineUnavailable: {
        m_services.setImageKnownPresent(m_image, false);
        const QString hint = runtime.unavailableHint();
        fail(QStringLiteral("The container engine %1 is not usable: %2%3")
                 .arg(runtime.name(),
                      check.detail.isEmpty() ? QStringLiteral("it gave no reason") : check.detail,
                      hint.isEmpty() ? QString() : QStringLiteral(". ") + hint));
        return;
    }
    }
}

} // namespace csm
