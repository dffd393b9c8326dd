// SandboxRun alone, on services of the test's own (SandboxRunServices): no engine is run and no
// container started. Their channels answer with canned launcher frames, and they record
// what the run asked of them and reported.
#include "LauncherFrames.h"
#include "runtime/PodmanRuntime.h"
#include "runtime/SandboxPolicy.h"
#include "sandbox/ContainerChannel.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/InterpreterSession.h"
#include "sandbox/InterpreterSessions.h"
#include "sandbox/InterpreterSessionSource.h"
#include "sandbox/LauncherRequest.h"
#include "sandbox/RunQueue.h"
#include "sandbox/SandboxRun.h"
#include "sandbox/SandboxRunServices.h"

#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

using namespace csm;

namespace {

using csm::test::frame;

// What the channels handed out saw: the request, and whether the run gave them back.
struct ChannelLog
{
    QByteArray request;
    int handedOver = 0;
};

// How a canned channel answers a request.
enum class Answer
{
    Frames,       // with the canned frames
    FailsToStart, // its container never starts (failedToStart)
};

// A container that "runs" the program by answering with `answer` from the event loop. The run
// deletes it once done with it, so what it sees goes to a log that outlives it.
class CannedChannel final : public ContainerChannel
{
public:
    CannedChannel(QByteArray answer, Answer how, ChannelLog& log,
                  std::shared_ptr<const SandboxSecrets> secrets, QObject* parent)
        : ContainerChannel(QStringLiteral("canned-container"), std::move(secrets), parent)
        , m_answer(std::move(answer))
        , m_how(how)
        , m_log(log)
    {}

    void sendRequest(const QByteArray& request) override
    {
        m_log.request = request;
        QTimer::singleShot(0, this, [this] {
            if (m_how == Answer::FailsToStart)
                Q_EMIT failedToStart(QStringLiteral("the engine lost it"));
            else
                Q_EMIT framesReceived(m_answer);
        });
    }
    void handOver(ContainerReaper&, bool) override { ++m_log.handedOver; }

private:
    QByteArray m_answer;
    Answer m_how;
    ChannelLog& m_log;
};

class RecordingServices final : public SandboxRunServices
{
public:
    // `engineProgram`: what the runtime would start (a stopped run removes its container).
    explicit RecordingServices(const QString& engineProgram = QStringLiteral("podman"))
        : m_runtime(engineProgram)
        , m_reaper(m_runtime)
        , m_queue(RunQueue::Limits{1, 8})
    {}

    // What the channels it hands out answer.
    QByteArray answer = frame(CSM_FRAME_STARTED) + frame(CSM_FRAME_STDOUT, "hello\n") +
                        frame(CSM_FRAME_EXIT, "exit=0");
    bool warmReady = false;
    Answer warmAnswer = Answer::Frames;
    bool imagePresent = false;
    QString cannotStart;
    bool heldForSecrets = false;
    std::shared_ptr<const SandboxSecrets> currentSecrets = SandboxSecrets::none();

    QList<Channel> acquired;
    ChannelLog channels;
    int started = 0;
    int ended = 0;
    QList<qint64> coldStarts;

    const ContainerRuntime& runtime() const override { return m_runtime; }
    const SandboxPolicy& policy() const override { return m_policy; }
    RunQueue& queue() override { return m_queue; }
    void whenReadyToStart(QObject* context, const QString&, std::function<void()> ready) override
    {
        if (!heldForSecrets) {
            ready();
            return;
        }
        m_waiting = {context, std::move(ready)};
    }
    void settleSecrets(std::shared_ptr<const SandboxSecrets> secrets)
    {
        currentSecrets = std::move(secrets);
        heldForSecrets = false;
        if (auto waiting = std::exchange(m_waiting, {}); waiting.first)
            waiting.second();
    }
    std::shared_ptr<const SandboxSecrets> secrets() const override { return currentSecrets; }
    QString cannotStartReason() const override { return cannotStart; }
    ContainerChannel* acquireChannel(Channel kind, Language, const QString&,
                                     QObject* parent) override
    {
        acquired.append(kind);
        if (kind == Channel::Warm && !warmReady)
            return nullptr;
        return new CannedChannel(answer, kind == Channel::Warm ? warmAnswer : Answer::Frames,
                                 channels, currentSecrets, parent);
    }
    bool isImageKnownPresent(const QString&) const override { return imagePresent; }
    void setImageKnownPresent(const QString&, bool present) override { imagePresent = present; }
    void reportColdStart(Language, const QString&, qint64 ms) override { coldStarts.append(ms); }
    void runStarted(bool) override { ++started; }
    void runEnded(bool) override { ++ended; }
    void reportEngineWarning(const QString&) override {}
    ContainerReaper& reaper() override { return m_reaper; }

private:
    PodmanRuntime m_runtime;
    SandboxPolicy m_policy;
    ContainerReaper m_reaper;
    RunQueue m_queue;
    std::pair<QPointer<QObject>, std::function<void()>> m_waiting;
};

// What a session's scripted container was sent, how it ends its cells, and whether it was
// handed over: it outlives the channel, which the session deletes once done with it.
struct SessionChannelLog
{
    QByteArray exitStatus = "exit=0 session=1 memory=1048576";
    // Instead of an exit: the container ends under the cell, the engine saying this on stderr.
    QByteArray endsWith;
    QList<QByteArray> messages;
    int handedOver = 0;
    // Its interpreter does not say it is ready (a container still starting) until told to.
    bool neverReady = false;
    std::function<void()> becomeReady;
    // Its cells never end (a cell still running).
    bool holdCells = false;
};

// A session's container, as its launcher (--session) answers: ready once started, then each cell
// ("C" and the request) with its frames, ending with the log's exit status.
class ScriptedSessionChannel final : public ContainerChannel
{
public:
    ScriptedSessionChannel(QString name, std::shared_ptr<SessionChannelLog> log)
        : ContainerChannel(std::move(name), SandboxSecrets::none())
        , m_log(std::move(log))
    {}

    void sendRequest(const QByteArray& message) override
    {
        m_log->messages.append(message);
        QByteArray answer;
        if (message.isEmpty() && !m_log->neverReady)
            answer = frame(CSM_FRAME_READY);
        if (message.isEmpty() && m_log->neverReady)
            m_log->becomeReady = [this] {
                Q_EMIT framesReceived(frame(CSM_FRAME_READY));
            };
        else if (message.startsWith('C'))
            answer = frame(CSM_FRAME_STARTED) +
                     frame(CSM_FRAME_STDOUT,
                           "cell " + QByteArray::number(m_log->messages.size() - 1) + "\n") +
                     frame(CSM_FRAME_EXIT, m_log->exitStatus);
        if (message.startsWith('C') && m_log->holdCells) {
            QTimer::singleShot(0, this,
                               [this] { Q_EMIT framesReceived(frame(CSM_FRAME_STARTED)); });
            return;
        }
        if (message.startsWith('C') && !m_log->endsWith.isEmpty()) {
            QTimer::singleShot(0, this, [this] {
                Q_EMIT framesReceived(frame(CSM_FRAME_STARTED));
                Q_EMIT ended(137);
            });
            return;
        }
        if (!answer.isEmpty())
            QTimer::singleShot(0, this, [this, answer] { Q_EMIT framesReceived(answer); });
    }
    QByteArray engineDiagnostics() const override { return m_log->endsWith; }
    void handOver(ContainerReaper&, bool) override { ++m_log->handedOver; }

private:
    std::shared_ptr<SessionChannelLog> m_log;
};

// Starts each session on a scripted container, as a runner starts it on a cold one.
class ScriptedSessionSource final : public InterpreterSessionSource
{
public:
    explicit ScriptedSessionSource(SandboxRunServices& services)
        : m_services(services)
    {}

    // One per session started, in order.
    QList<std::shared_ptr<SessionChannelLog>> containers;
    // The next sessions' containers never become ready.
    bool neverReady = false;

    InterpreterSession* startSession(Language, const QString&, QObject* parent) override
    {
        const QString name = QStringLiteral("session-container-%1").arg(containers.size() + 1);
        auto* session = new InterpreterSession(m_services.runtime(), name, SandboxSecrets::none(),
                                               m_services.reaper(), parent);
        containers.append(std::make_shared<SessionChannelLog>());
        containers.constLast()->neverReady = neverReady;
        session->start(new ScriptedSessionChannel(name, containers.constLast()), false);
        return session;
    }
    qint64 sandboxMemoryBytes() const override { return 0; }
    int oneShotsRunning() const override { return 0; }

private:
    SandboxRunServices& m_services;
};

RunRequest pythonRequest()
{
    RunRequest request;
    request.image = QStringLiteral("localhost/code-sandbox-python:latest");
    request.code = "print('hello')";
    request.timeoutMs = 5'000;
    return request;
}

// Starts `run`; `into` gets its result when it finishes.
void startInto(SandboxRun& run, std::optional<ExecutionResult>& into)
{
    QObject::connect(&run, &SandboxRun::finished, &run,
                     [&into](const ExecutionResult& finished) { into = finished; });
    run.start();
}

// One client's interpreter session "s" on a scripted container (source.containers.first()),
// and the request of a cell in it.
struct ScriptedSession
{
    // `neverReady`: its container does not say it is ready until told to.
    explicit ScriptedSession(bool neverReady = false)
    {
        source.neverReady = neverReady;
        if (sessions.prepare(owner, QStringLiteral("s"), Language::Python, {}))
            session = sessions.find(owner.key, QStringLiteral("s"));
    }
    SessionChannelLog& container() { return *source.containers.constFirst(); }
    RunRequest cell() const
    {
        RunRequest request = pythonRequest();
        request.interpreterOwner = owner.key;
        request.interpreterName = QStringLiteral("s");
        return request;
    }

    RecordingServices services;
    ScriptedSessionSource source{services};
    InterpreterSessions sessions{source};
    const InterpreterOwner owner{QStringLiteral("stdio:"), QStringLiteral("stdio"), {}};
    QPointer<InterpreterSession> session;
};

ExecutionResult resultOf(SandboxRun& run)
{
    std::optional<ExecutionResult> result;
    QObject::connect(&run, &SandboxRun::finished, &run,
                     [&result](const ExecutionResult& finished) { result = finished; });
    run.start();
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, 5'000))
        qFatal("the run did not finish");
    return *result;
}

} // namespace

class tst_SandboxRun final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void warmContainerRunsWithoutImageCheck()
    {
        RecordingServices services;
        services.warmReady = true;
        SandboxRun run(services, pythonRequest());
        const ExecutionResult result = resultOf(run);

        QCOMPARE(result.outcome, ExecutionResult::Outcome::Exited);
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(result.stdoutBytes, QByteArray("hello\n"));
        QCOMPARE(services.acquired, QList{SandboxRunServices::Channel::Warm});
        QCOMPARE(services.channels.request, LauncherRequest::encode("print('hello')", {}));
        QCOMPARE(services.channels.handedOver, 1);
        QCOMPARE(run.containerName(), QStringLiteral("canned-container"));
    }

    void knownImageGoesCold()
    {
        RecordingServices services;
        services.imagePresent = true;
        SandboxRun run(services, pythonRequest());
        const ExecutionResult result = resultOf(run);

        QCOMPARE(result.exitCode, 0);
        QCOMPARE(services.acquired,
                 (QList{SandboxRunServices::Channel::Warm, SandboxRunServices::Channel::Cold}));
        // What the pool weighs its starting containers against.
        QCOMPARE(services.coldStarts.size(), 1);
        QVERIFY(services.coldStarts.constFirst() >= 0);
    }

    void warmRunReportsNoColdStart()
    {
        RecordingServices services;
        services.warmReady = true;
        SandboxRun run(services, pythonRequest());
        QCOMPARE(resultOf(run).exitCode, 0);
        QVERIFY(services.coldStarts.isEmpty());
    }

    void pooledContainerThatFailsToStartFallsBackToACold()
    {
        // The pool handed over a container still starting, and the engine then failed it.
        RecordingServices services;
        services.warmReady = true;
        services.warmAnswer = Answer::FailsToStart;
        services.imagePresent = true;
        SandboxRun run(services, pythonRequest());
        const ExecutionResult result = resultOf(run);

        QCOMPARE(result.outcome, ExecutionResult::Outcome::Exited);
        QCOMPARE(result.stdoutBytes, QByteArray("hello\n"));
        QCOMPARE(services.acquired,
                 (QList{SandboxRunServices::Channel::Warm, SandboxRunServices::Channel::Cold}));
        // The cold container got the whole request, though the first one had it already.
        QCOMPARE(services.channels.request, LauncherRequest::encode("print('hello')", {}));
        QCOMPARE(services.channels.handedOver, 2);
    }

    void readyFrameOfATakenContainerIsIgnored()
    {
        // Taken as its interpreter became ready: the ready frame may arrive after the request.
        RecordingServices services;
        services.warmReady = true;
        services.answer = frame(CSM_FRAME_READY) + frame(CSM_FRAME_STARTED) +
                          frame(CSM_FRAME_STDOUT, "hello\n") + frame(CSM_FRAME_EXIT, "exit=0");
        SandboxRun run(services, pythonRequest());
        const ExecutionResult result = resultOf(run);

        QCOMPARE(result.outcome, ExecutionResult::Outcome::Exited);
        QCOMPARE(result.stdoutBytes, QByteArray("hello\n"));
    }

    void durationIsTheLaunchersMeasure()
    {
        // The started and exit frames arrive in one read (as under load): the time between
        // them here is nothing, the launcher's measure is the program's time, rounded up.
        RecordingServices services;
        services.warmReady = true;
        services.answer = frame(CSM_FRAME_STARTED) + frame(CSM_FRAME_STDOUT, "hello\n") +
                          frame(CSM_FRAME_EXIT, "exit=0 elapsed_us=12001 oom=0");
        SandboxRun run(services, pythonRequest());
        QCOMPARE(resultOf(run).durationMs, 13);
    }

    void aTimeoutNeverStopsTheProgramEarly()
    {
        // Programs that run until stopped, each given 1 s, started 37 ms apart: a coarse timer
        // (QTimer's default) rounds its moment to a boundary up to 5 % either side, so some of
        // them would be stopped early. Each has its own services, so that they run at once, and
        // an engine program that does not exist: the container a stop removes is only a name.
        constexpr int kRuns = 6;
        constexpr int kTimeoutMs = 1'000;
        std::vector<std::unique_ptr<RecordingServices>> services;
        std::vector<std::unique_ptr<SandboxRun>> runs;
        std::vector<std::optional<ExecutionResult>> results(kRuns);
        for (int i = 0; i < kRuns; ++i) {
            services.push_back(
                std::make_unique<RecordingServices>(QStringLiteral("/nonexistent/podman")));
            services.back()->warmReady = true;
            services.back()->answer = frame(CSM_FRAME_STARTED);
            RunRequest request = pythonRequest();
            request.timeoutMs = kTimeoutMs;
            runs.push_back(std::make_unique<SandboxRun>(*services.back(), request));
            startInto(*runs.back(), results[std::size_t(i)]);
            QTest::qWait(37);
        }
        QVERIFY(QTest::qWaitFor(
            [&results] {
                return std::all_of(results.cbegin(), results.cend(),
                                   [](const auto& result) { return result.has_value(); });
            },
            15'000));
        for (const auto& result : results) {
            QCOMPARE(result->outcome, ExecutionResult::Outcome::TimedOut);
            QVERIFY2(result->durationMs >= kTimeoutMs,
                     qPrintable(QStringLiteral("stopped after %1 ms").arg(result->durationMs)));
        }
    }

    void reportsItsStartAndEndOnce()
    {
        RecordingServices services;
        services.warmReady = true;
        {
            SandboxRun run(services, pythonRequest());
            resultOf(run);
            QCOMPARE(services.started, 1);
            QCOMPARE(services.ended, 1);
        }
        QCOMPARE(services.ended, 1); // not again when the finished run goes away
    }

    void refusesToStartWhatTheServicesCannot()
    {
        RecordingServices services;
        services.warmReady = true;
        services.cannotStart = QStringLiteral("The sandbox launcher is missing.");
        SandboxRun run(services, pythonRequest());
        const ExecutionResult result = resultOf(run);

        QCOMPARE(result.outcome, ExecutionResult::Outcome::EngineError);
        QCOMPARE(result.engineError, services.cannotStart);
        QVERIFY(services.acquired.isEmpty());
        QCOMPARE(services.ended, 1);
    }

    void waitsForSettledSecretsAndRunsWithThem()
    {
        RecordingServices services;
        services.warmReady = true;
        services.heldForSecrets = true;
        SandboxRun run(services, pythonRequest());
        QSignalSpy finished(&run, &SandboxRun::finished);
        run.start();
        QTest::qWait(50);
        QVERIFY(services.acquired.isEmpty()); // no container while the secrets are being read
        QCOMPARE(finished.size(), 0);

        const auto secrets = SandboxSecrets::make({{QStringLiteral("TOKEN"), "new-value"}});
        services.settleSecrets(secrets);
        QVERIFY(finished.wait(5'000));
        QCOMPARE(services.acquired, QList{SandboxRunServices::Channel::Warm});
        QCOMPARE(run.secrets(), secrets);
    }

    // A session cell's whole path in one process: the session is started by value (owner and
    // name), the run finds its channel through the session, the cell's frames are decoded once,
    // by the run, and the session learns from the run how the cell ended.
    void sessionCellsRunInTheirSessionsContainer()
    {
        RecordingServices services;
        ScriptedSessionSource source(services);
        InterpreterSessions sessions(source);
        const InterpreterOwner owner{QStringLiteral("stdio:"), QStringLiteral("stdio"),
                                     QStringLiteral("a client")};
        const Expected<QString> key = sessions.prepare(owner, QStringLiteral("analysis"),
                                                       Language::Python, pythonRequest().image);
        QVERIFY2(key, qPrintable(key.error()));
        QCOMPARE(*key, QStringLiteral("session-container-1"));
        InterpreterSession* session = sessions.find(owner.key, QStringLiteral("analysis"));
        QVERIFY(session);
        QVERIFY(!sessions.find(QStringLiteral("stdio:other"), QStringLiteral("analysis")));

        RunRequest request = pythonRequest();
        request.interpreterOwner = owner.key;
        request.interpreterName = QStringLiteral("analysis");
        for (int cell = 1; cell <= 2; ++cell) {
            SandboxRun run(services, request, session);
            const ExecutionResult result = resultOf(run);
            QCOMPARE(result.outcome, ExecutionResult::Outcome::Exited);
            QCOMPARE(result.stdoutBytes, "cell " + QByteArray::number(cell) + "\n");
            QCOMPARE(result.sessionCell, cell);
            QVERIFY(result.sessionNote.isEmpty());
            QCOMPARE(run.containerName(), *key);
        }
        // The cells went to the session's container, framed as cells; nothing else was acquired,
        // and the container stays.
        const SessionChannelLog& container = *source.containers.constFirst();
        QCOMPARE(container.messages.size(), 3);
        QCOMPARE(container.messages.at(1),
                 QByteArray("C") + LauncherRequest::encode(request.code, {}));
        QVERIFY(services.acquired.isEmpty());
        QCOMPARE(container.handedOver, 0);
        QCOMPARE(session->state(), InterpreterSession::State::Idle);
        QCOMPARE(session->cellCount(), 2);
        QCOMPARE(session->memoryBytes(), 1048576); // from the cell's exit, decoded by the run
        QCOMPARE(sessions.listAll().size(), 1);
    }

    void aCellWhoseInterpreterDiesEndsItsSession()
    {
        ScriptedSession scripted;
        auto& [services, source, sessions, owner, session] = scripted;
        QVERIFY(session);
        scripted.container().exitStatus = "signal=9 session=0";

        SandboxRun run(services, scripted.cell(), session);
        const ExecutionResult result = resultOf(run);
        QCOMPARE(result.exitCode, 128 + 9);
        QVERIFY2(result.sessionNote.contains(QLatin1String("state is gone")),
                 qPrintable(result.sessionNote));
        // Ended before any next cell could go to it, its container given back, and its name
        // free: the next call starts a new session.
        QVERIFY(!session || session->state() == InterpreterSession::State::Ended);
        QCOMPARE(source.containers.constFirst()->handedOver, 1);
        QVERIFY(!sessions.find(owner.key, QStringLiteral("s")));
        const Expected<QString> next =
            sessions.prepare(owner, QStringLiteral("s"), Language::Python, {});
        QVERIFY2(next, qPrintable(next.error()));
        QCOMPARE(*next, QStringLiteral("session-container-2"));
    }

    // The container ends under a running cell: the cell's error quotes what the engine said,
    // though the session has already given the container back.
    void aCellWhoseContainerEndsSaysWhatTheEngineSaid()
    {
        ScriptedSession scripted;
        QVERIFY(scripted.session);
        scripted.container().endsWith = "Error: container was killed by the OOM reaper";

        SandboxRun run(scripted.services, scripted.cell(), scripted.session);
        const ExecutionResult result = resultOf(run);
        QCOMPARE(result.outcome, ExecutionResult::Outcome::EngineError);
        QVERIFY2(result.engineError.contains(QLatin1String("killed by the OOM reaper")),
                 qPrintable(result.engineError));
        QVERIFY(!scripted.sessions.find(scripted.owner.key, QStringLiteral("s")));
    }

    // A cell comes while its session is still starting: it holds the session and waits for it.
    // Cancelled meanwhile, it gives the session back without stopping anything of the
    // session's (its container is not removed), is not sent when the session is ready, and the
    // next cell runs in the same session.
    void aCellCancelledWhileItsSessionStartsIsNeverSent()
    {
        ScriptedSession scripted(true);
        auto& [services, source, sessions, owner, session] = scripted;
        QVERIFY(session);

        const RunRequest request = scripted.cell();
        std::optional<ExecutionResult> result;
        SandboxRun run(services, request, session);
        startInto(run, result);
        QVERIFY(QTest::qWaitFor([&] { return session->hasCell(); }));
        QCOMPARE(session->state(), InterpreterSession::State::Starting);
        run.cancel();
        QVERIFY(QTest::qWaitFor([&] { return result.has_value(); }));
        QCOMPARE(result->outcome, ExecutionResult::Outcome::Cancelled);
        QCOMPARE(result->exitCode, -1); // not killed: nothing ran
        QVERIFY(session);
        QVERIFY(!session->hasCell());
        source.containers.constFirst()->becomeReady();
        QVERIFY(
            QTest::qWaitFor([&] { return session->state() == InterpreterSession::State::Idle; }));
        QTest::qWait(20);
        QCOMPARE(session->cellCount(), 0);
        QCOMPARE(source.containers.constFirst()->messages, QList<QByteArray>{QByteArray()});

        SandboxRun next(services, request, session);
        const ExecutionResult ran = resultOf(next);
        QCOMPARE(ran.outcome, ExecutionResult::Outcome::Exited);
        QCOMPARE(ran.stdoutBytes, QByteArray("cell 1\n"));
        QCOMPARE(next.containerName(),
                 source.containers.size() == 1 ? QStringLiteral("session-container-1") : QString());
        QCOMPARE(source.containers.constFirst()->handedOver, 0);
    }

    // A session ended (end_session, the idle limit) while a cell runs: the cell is told, and
    // the session keeps the reason it was ended for.
    void aSessionEndedUnderItsCellKeepsWhy()
    {
        ScriptedSession scripted;
        QPointer<InterpreterSession>& session = scripted.session;
        QVERIFY(session);
        scripted.container().holdCells = true;

        std::optional<ExecutionResult> result;
        SandboxRun run(scripted.services, scripted.cell(), session);
        startInto(run, result);
        QVERIFY(QTest::qWaitFor([&] { return session->cellCount() == 1; }));
        QString closedFor;
        connect(session, &InterpreterSession::closed, this,
                [&closedFor](const QString& reason) { closedFor += reason + u';'; });
        session->end(QStringLiteral("ended by its client"));
        QVERIFY(QTest::qWaitFor([&] { return result.has_value(); }));
        QCOMPARE(result->outcome, ExecutionResult::Outcome::EngineError);
        // Closed once, for its reason (not "its cell had to be killed", as the cell's run gave
        // it back), and not as if the cell's result had said so.
        QCOMPARE(closedFor, QStringLiteral("ended by its client;"));
        QVERIFY(!session || (session->state() == InterpreterSession::State::Ended &&
                             session->endReason() == QStringLiteral("ended by its client") &&
                             !session->endedWithCell()));
    }

    void aCellOfAGoneSessionNeverRunsElsewhere()
    {
        RecordingServices services;
        services.warmReady = true;
        RunRequest request = pythonRequest();
        request.interpreterOwner = QStringLiteral("stdio:");
        request.interpreterName = QStringLiteral("gone");
        SandboxRun run(services, request, nullptr);
        const ExecutionResult result = resultOf(run);
        QCOMPARE(result.outcome, ExecutionResult::Outcome::EngineError);
        QVERIFY2(result.engineError.contains(QLatin1String("session ended")),
                 qPrintable(result.engineError));
        QVERIFY(services.acquired.isEmpty());
    }

    void outputNotFromTheLauncherStopsTheRun()
    {
        RecordingServices services;
        services.warmReady = true;
        services.answer = frame(CSM_FRAME_STARTED) + QByteArray("Z-not-a-frame");
        SandboxRun run(services, pythonRequest());
        const ExecutionResult result = resultOf(run);

        QCOMPARE(result.outcome, ExecutionResult::Outcome::EngineError);
        QVERIFY2(result.engineError.contains(QLatin1String("not from its launcher")),
                 qPrintable(result.engineError));
        QCOMPARE(services.channels.handedOver, 1);
    }
};

QTEST_GUILESS_MAIN(tst_SandboxRun)
#include "tst_SandboxRun.moc"
