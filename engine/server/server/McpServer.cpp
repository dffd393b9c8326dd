#include "server/McpServer.h"

#include "approval/ApprovalGatedTool.h"
#include "approval/CallApprovals.h"
#include "core/FileContentWatcher.h"
#include "core/Logging.h"
#include "core/SettingsFile.h"
#include "core/Version.h"
#include "egress/EgressQuestions.h"
#include "mcp/McpDispatcher.h"
#include "mcp/ToolRegistry.h"
#include "platform/ProcessProbe.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/RuntimeFactory.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/InterpreterSessions.h"
#include "sandbox/RunQueue.h"
#include "sandbox/SandboxFilesLocator.h"
#include "sandbox/SandboxRunner.h"
#include "sandbox/StaleContainerSweeper.h"
#include "secrets/LogRedaction.h"
#include "server/PassThroughSecrets.h"
#include "server/RunHistoryRecorder.h"
#include "server/ServerOptionsParser.h"
#include "tools/CallerInterpreterOwner.h"
#include "tools/EndInterpreterSessionTool.h"
#include "tools/ListInterpreterSessionsTool.h"
#include "tools/RunCodeTool.h"
#include "tools/RunFileOwners.h"
#include "tools/RunFilesResources.h"

#include <QCoreApplication>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTimer>

#include <utility>

namespace csm {

namespace {
constexpr int kShutdownBudgetMs = 10'000;
// The last sweep's share of it: what the engine still lists after that is left to the next
// server's sweep of stale containers.
constexpr int kFinalSweepMs = 6'000;

RunCodeTool::Config toolConfig(Language language, const QString& chosenImage,
                               const ContainerRuntime& runtime, const ServerOptions& options,
                               const QString& runFilesRoot,
                               std::shared_ptr<RunFileOwners> fileOwners)
{
    RunCodeTool::Config config;
    config.language = language;
    config.customImage = !chosenImage.isEmpty();
    config.image = config.customImage ? chosenImage : runtime.defaultImage(language);
    config.defaultTimeoutSeconds = options.defaultTimeoutSeconds;
    config.maxTimeoutSeconds = options.maxTimeoutSeconds;
    config.redactOutput = options.redactOutput;
    config.runFilesRoot = runFilesRoot;
    config.fileOwners = std::move(fileOwners);
    return config;
}

RunQueue::Limits runLimits(const ServerOptions& options)
{
    return {options.maxRunning > 0 ? options.maxRunning
                                   : RunQueue::defaultMaxRunning(options.policy.memoryBytes),
            options.maxQueued};
}

InterpreterSessions::Limits sessionLimits(const ServerOptions& options)
{
    return {options.maxClientInterpreters, options.maxInterpreters, options.interpreterIdleSeconds};
}

RunHistoryRecorder::Config historyConfig(const ServerOptions& options)
{
    RunHistoryRecorder::Config config;
    config.retention = options.historyRetention;
    config.maxFieldBytes = options.historyMaxFieldBytes;
    // For tests only, and so not in --help: how often the history is pruned, in milliseconds,
    // so that a test can watch it happen without waiting ten minutes.
    bool ok = false;
    const qint64 intervalMs =
        options.environment.value(QStringLiteral("CODE_SANDBOX_HISTORY_PRUNE_INTERVAL_MS"))
            .toLongLong(&ok);
    if (ok && intervalMs > 0)
        config.pruneInterval = std::chrono::milliseconds(intervalMs);
    return config;
}
} // namespace

McpServer::McpServer(const ServerOptions& options, QObject* parent)
    : QObject(parent)
    , m_approvals(std::make_unique<CallApprovals>())
    , m_egressQuestions(std::make_unique<EgressQuestions>())
    , m_tools(std::make_unique<ToolRegistry>())
    , m_options(options)
{
    std::unique_ptr<ContainerRuntime> runtime =
        RuntimeFactory::create(options.engine, options.engineHost);
    const ContainerRuntime& engine = *runtime;
    const SandboxFiles files = SandboxFilesLocator::find();
    if (!files.isComplete())
        qCCritical(lcServer).noquote() << SandboxFilesLocator::missingMessage(files);
    const QString probeImage = options.pythonImage.isEmpty()
                                   ? runtime->defaultImage(Language::Python)
                                   : options.pythonImage;
    m_runner = std::make_unique<SandboxRunner>(std::move(runtime), options.policy, files);
    // Runs wait for the answer when the engine must be asked; clients are answered meanwhile.
    m_runner->locateEngine(options.engineLocation, probeImage);
    m_runner->setEgress(options.egress);
    m_runner->queue().setLimits(runLimits(options));
    // Before anything can print a secret: every log line of the process is redacted.
    LogRedaction::install();
    m_secrets = std::make_unique<PassThroughSecrets>(
        *m_runner,
        PassThroughSecrets::Config{options.passThroughEnvironment, options.dataDir,
                                   options.secretsFile ? SecretStore::BackendChoice::File
                                                       : SecretStore::BackendChoice::Auto});
    // Runs (and the pool) wait until the secrets are read.
    m_secrets->start();
    if (!options.redactOutput)
        qCWarning(lcServer) << "--no-redact: secret values that programs print are returned to "
                               "the client as they are";
    // Runs' files live with the history; with --no-history nothing is written to the data
    // folder, so they go to a private temporary folder that ends with the server.
    if (options.historyEnabled) {
        m_runFilesRoot = RunFilesStore::rootIn(options.dataDir);
    } else {
        m_privateRunFiles = std::make_unique<QTemporaryDir>();
        if (m_privateRunFiles->isValid())
            m_runFilesRoot = m_privateRunFiles->filePath(QStringLiteral("run-files"));
    }
    m_fileOwners = std::make_shared<RunFileOwners>();
    const auto python = toolConfig(Language::Python, options.pythonImage, engine, options,
                                   m_runFilesRoot, m_fileOwners);
    const auto js = toolConfig(Language::JavaScript, options.jsImage, engine, options,
                               m_runFilesRoot, m_fileOwners);
    qCInfo(lcServer).noquote() << "engine" << engine.name() << "| python image" << python.image
                               << "| javascript image" << js.image << "| at most"
                               << m_runner->queue().limits().maxRunning << "sandboxes at once";
    if (options.historyEnabled) {
        Expected<std::unique_ptr<RunHistoryRecorder>> history = RunHistoryRecorder::open(
            options.historyPath, historyConfig(options),
            RunHistoryRecorder::Server{m_runner->instanceId(), QCoreApplication::applicationPid(),
                                       QSysInfo::machineHostName()});
        // Serving matters more than the record of it.
        if (history)
            m_history = *std::move(history);
        else
            qCWarning(lcServer).noquote() << "serving without a run history:" << history.error();
    } else {
        qCInfo(lcServer) << "run history off (--no-history)";
    }
    m_runFiles = std::make_unique<RunFilesResources>(RunFilesStore(m_runFilesRoot), m_fileOwners);
    auto pythonTool = std::make_unique<RunCodeTool>(*m_runner, python, m_history.get());
    auto jsTool = std::make_unique<RunCodeTool>(*m_runner, js, m_history.get());
    m_pythonTool = pythonTool.get();
    m_jsTool = jsTool.get();
    InterpreterSessions& interpreters = m_runner->interpreters();
    interpreters.setLimits(sessionLimits(options));
    connect(&interpreters, &InterpreterSessions::changed, this, &McpServer::sessionsChanged);
    m_pythonTool->offerSessions(true);
    m_jsTool->offerSessions(true);
    m_tools->add(std::make_unique<ApprovalGatedTool>(std::move(pythonTool), *m_approvals));
    m_tools->add(std::make_unique<ApprovalGatedTool>(std::move(jsTool), *m_approvals));
    // They run no code: nothing to approve.
    m_tools->add(std::make_unique<ListInterpreterSessionsTool>(interpreters));
    m_tools->add(std::make_unique<EndInterpreterSessionTool>(interpreters));
    m_runner->enablePool(options.poolSize, options.poolIdleSeconds * 1000);
    m_runner->warm(Language::Python, python.image);
    m_runner->warm(Language::JavaScript, js.image);

    m_identity = ServerIdentity{
        QStringLiteral("code-sandbox"),
        QStringLiteral("Code Sandbox"),
        QString::fromLatin1(kVersion),
        QStringLiteral("Runs Python and JavaScript in fresh, locked-down containers. Each call is "
                       "a new sandbox: send complete programs and print what you need to see."),
    };

    // The desktop app's Settings page writes this file: its changes apply to the next run.
    m_settingsFile = new FileContentWatcher(SettingsFile::path(options.dataDir), this);
    connect(m_settingsFile, &FileContentWatcher::contentChanged, this, &McpServer::reloadSettings);
    m_settingsFile->start();

    // Containers left by servers that died (kill -9, a crash, a power cut) go first, in the
    // background: serving does not wait for the engine's answer.
    m_sweeper = new StaleContainerSweeper(engine, QSysInfo::machineHostName(), {}, this);
    connect(m_sweeper, &StaleContainerSweeper::finished, m_sweeper, &QObject::deleteLater);
    m_sweeper->start();
}

McpServer::~McpServer()
{
    // The sessions' calls and the sweeper hold references into the runner, its runtime and the
    // tools: they go first, not with the other children after the members.
    for (McpDispatcher* session : std::exchange(m_sessions, {})) {
        disconnect(session, nullptr, this, nullptr);
        delete session;
    }
    // The interpreter sessions hand their containers to the runner's reaper on the way out.
    m_runner->interpreters().endAll(QStringLiteral("the server stopped"));
    delete m_sweeper;
    delete m_finalSweep;
}

InterpreterSessions& McpServer::interpreterSessions() const
{
    return m_runner->interpreters();
}

void McpServer::reloadSettings()
{
    if (m_shuttingDown || m_options.arguments.isEmpty())
        return;
    const auto parsed = ServerOptionsParser::parse(m_options.arguments, m_options.environment);
    if (!parsed) {
        qCWarning(lcServer).noquote() << "settings changed but not applied:" << parsed.error();
        return;
    }
    applySettings(*parsed);
}

void McpServer::applySettings(const ServerOptions& options)
{
    for (const QString& warning : options.warnings)
        qCWarning(lcServer).noquote() << warning;
    if (options.engine != m_options.engine || options.engineHost != m_options.engineHost) {
        qCWarning(lcServer).noquote()
            << "settings: the engine choice changed; it applies when the server starts again";
    }
    const ContainerRuntime& engine = m_runner->runtime();
    const auto python = toolConfig(Language::Python, options.pythonImage, engine, options,
                                   m_runFilesRoot, m_fileOwners);
    const auto js = toolConfig(Language::JavaScript, options.jsImage, engine, options,
                               m_runFilesRoot, m_fileOwners);
    m_pythonTool->setConfig(python);
    m_jsTool->setConfig(js);
    m_runner->setPolicy(options.policy);
    m_runner->setEgress(options.egress);
    m_runner->queue().setLimits(runLimits(options));
    m_runner->interpreters().setLimits(sessionLimits(options));
    if (m_history)
        m_history->setConfig(historyConfig(options));
    if (options.poolSize != m_options.poolSize ||
        options.poolIdleSeconds != m_options.poolIdleSeconds)
        m_runner->enablePool(options.poolSize, options.poolIdleSeconds * 1000);
    m_runner->warm(Language::Python, python.image);
    m_runner->warm(Language::JavaScript, js.image);
    const QString engineName = m_options.engine;
    const QString engineHost = m_options.engineHost;
    m_options = options;
    // The runtime in use stays what it was.
    m_options.engine = engineName;
    m_options.engineHost = engineHost;
    qCInfo(lcServer).noquote() << "settings applied | python image" << python.image
                               << "| javascript image" << js.image << "| timeout"
                               << options.defaultTimeoutSeconds << "s | pool" << options.poolSize;
    Q_EMIT settingsApplied();
}

McpDispatcher* McpServer::openSession(const QString& transport, const QString& sessionId)
{
    auto* session = new McpDispatcher(*m_tools, m_identity, transport, sessionId, this);
    session->setResources(m_runFiles.get());
    m_sessions.append(session);
    // The interpreter sessions of an MCP session end with it (stdio EOF, HTTP DELETE, expiry).
    const QString owner = CallerInterpreterOwner::keyOf(transport, sessionId);
    connect(session, &QObject::destroyed, this, [this, session, owner] {
        m_runner->interpreters().endOwner(owner, QStringLiteral("its MCP session ended"));
        m_sessions.removeOne(session);
        Q_EMIT sessionsChanged();
        stopRunnerOnceIdle();
    });
    connect(session, &McpDispatcher::idle, this, &McpServer::stopRunnerOnceIdle);
    connect(session, &McpDispatcher::clientIdentified, this, &McpServer::sessionsChanged);
    connect(session, &McpDispatcher::runningCallCountChanged, this, &McpServer::sessionsChanged);
    Q_EMIT sessionsChanged();
    return session;
}

ToolCall* McpServer::startAppCall(const QString& toolName, const QJsonObject& arguments,
                                  const CallContext& context, QObject* parent)
{
    for (RunCodeTool* tool : {m_pythonTool, m_jsTool}) {
        if (tool->name() == toolName || tool->aliases().contains(toolName))
            return tool->start(arguments, context, parent);
    }
    return nullptr;
}

void McpServer::closeSession(McpDispatcher* session)
{
    if (!session || !m_sessions.contains(session))
        return;
    connect(session, &McpDispatcher::idle, session, &QObject::deleteLater,
            Qt::SingleShotConnection);
    session->cancelAll();
}

int McpServer::runningCallCount() const
{
    int count = 0;
    for (const McpDispatcher* session : m_sessions)
        count += session->runningCallCount();
    return count;
}

void McpServer::shutdown()
{
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    qCInfo(lcServer) << "shutting down;" << runningCallCount() << "running call(s) to stop";
    // First every call (their containers are removed as they are cancelled), then whatever
    // finished calls left for the engine to tear down.
    connect(&m_runner->reaper(), &ContainerReaper::drained, this, &McpServer::sweepOwnContainers);
    QTimer::singleShot(kShutdownBudgetMs, this, [this] {
        qCWarning(lcServer) << "containers still being removed after" << kShutdownBudgetMs
                            << "ms; exiting anyway";
        finishShutdown();
    });
    for (McpDispatcher* session : std::as_const(m_sessions))
        session->cancelAll();
    m_runner->interpreters().endAll(QStringLiteral("the server is shutting down"));
    // Queued, like the sessions' idle(): with no call running anywhere nothing else would ask.
    QMetaObject::invokeMethod(this, &McpServer::stopRunnerOnceIdle, Qt::QueuedConnection);
}

void McpServer::stopRunnerOnceIdle()
{
    if (!m_shuttingDown || m_runnerStopping || runningCallCount() > 0)
        return;
    m_runnerStopping = true;
    m_runner->shutdown();
}

void McpServer::sweepOwnContainers()
{
    if (m_shutdownFinished || m_finalSweep)
        return;
    // Last, ask the engine itself: anything still labelled with our pid goes. Docker, for one,
    // may answer a removal while its own --rm removal of the same container is still going on.
    const qint64 ownPid = QCoreApplication::applicationPid();
    m_finalSweep = new StaleContainerSweeper(
        m_runner->runtime(), QSysInfo::machineHostName(),
        [ownPid](qint64 pid) {
            return pid != ownPid && ProcessProbe::isCodeSandboxProcessAlive(pid);
        },
        this);
    // Until the engine lists none: exiting with a container still being removed would leave
    // it for anyone who looks right after (a client counting what the server left).
    m_finalSweep->setRepeatUntilGone(true);
    m_finalSweep->setTimeout(kFinalSweepMs);
    connect(m_finalSweep, &StaleContainerSweeper::finished, this, [this](int removed) {
        if (removed > 0)
            qCInfo(lcServer) << "removed" << removed << "container(s) at exit";
        finishShutdown();
    });
    m_finalSweep->start();
}

void McpServer::finishShutdown()
{
    if (m_shutdownFinished)
        return;
    m_shutdownFinished = true;
    Q_EMIT shutdownFinished();
}

void McpServer::askAboutEgress(bool ask)
{
    m_runner->setEgressAsker(ask ? m_egressQuestions->asker() : EgressProxy::Asker());
}

} // namespace csm
