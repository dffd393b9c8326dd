#include "tools/RunCodeTool.h"

#include "core/Logging.h"
#include "egress/EgressSettings.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/InterpreterSessions.h"
#include "sandbox/RunFileRedactor.h"
#include "sandbox/RunQueue.h"
#include "sandbox/RunRequest.h"
#include "sandbox/SandboxRunner.h"
#include "sandbox/SandboxSecrets.h"
#include "tools/CallerInterpreterOwner.h"
#include "tools/RunCodeCall.h"
#include "tools/RunFileOwners.h"
#include "tools/RunObserver.h"
#include "tools/ToolResultFormatter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>

#include <cmath>

namespace csm {

namespace {
// The folders the user shares, for the model: where they are and whether it may write there.
QString sharedFoldersText(const SandboxPolicy& policy)
{
    if (policy.sharedFolders.isEmpty())
        return {};
    QStringList folders;
    for (const SharedFolder& folder : policy.sharedFolders) {
        folders << QStringLiteral("%1 (%2)").arg(folder.mountPoint(),
                                                 folder.writable ? QStringLiteral("writable")
                                                                 : QStringLiteral("read-only"));
    }
    return QStringLiteral(" Folders shared by the user: %1; read them directly: they are not "
                          "copied through this conversation.")
        .arg(folders.join(QStringLiteral(", ")));
}
} // namespace

RunCodeTool::RunCodeTool(SandboxRunner& runner, Config config, RunObserver* observer)
    : m_runner(runner)
    , m_config(std::move(config))
    , m_observer(observer)
{}

QString RunCodeTool::name() const
{
    return m_config.language == Language::Python ? QStringLiteral("run_python_code")
                                                 : QStringLiteral("run_js_code");
}

QStringList RunCodeTool::aliases() const
{
    // The reference server's code registers its JavaScript tool under this longer name.
    if (m_config.language == Language::JavaScript)
        return {QStringLiteral("run_javascript_code")};
    return {};
}

QString RunCodeTool::description() const
{
    const bool python = m_config.language == Language::Python;
    QString installed;
    if (m_config.customImage) {
        installed = QStringLiteral("It runs in the custom image %1; what is installed there "
                                   "depends on that image.")
                        .arg(m_config.image);
    } else if (python) {
        installed = QStringLiteral(
            "Python 3.11 (Debian 12) with numpy, pandas, matplotlib "
            "(plt.show() saves each figure as a PNG in /sandbox/out, and figures still open at the "
            "end are saved too; they come back with the result) and requests installed.");
    } else {
        installed = QStringLiteral("Node.js 18 (Debian 12), built-in modules only (fetch "
                                   "included); no npm packages installed. Use CommonJS "
                                   "require() or dynamic import().");
    }
    const QString printHint = python ? QStringLiteral("print()") : QStringLiteral("console.log()");
    const SandboxPolicy& policy = m_runner.policy();
    return QStringLiteral(
               "Run a %1 program in a fresh, isolated container and return its stdout, stderr and "
               "exit code. %2 Each call starts from a clean sandbox: no files, variables or "
               "processes survive between calls, so send the whole program every time. Only what "
               "the program prints is returned: use %3. It runs as an unprivileged user with a "
               "read-only root filesystem; %4 and /tmp are writable (%5 MiB each). Limits: %6 MiB "
               "of memory, %7 CPU, a timeout of %8 s by default (timeout_seconds, at most %9 s). "
               "Network access: %10.%11 %12")
        .arg(LanguageTraits::displayName(m_config.language), installed, printHint, policy.workdir)
        .arg(policy.tmpfsBytes / (1024 * 1024))
        .arg(policy.memoryBytes / (1024 * 1024))
        .arg(policy.cpus)
        .arg(m_config.defaultTimeoutSeconds)
        .arg(m_config.maxTimeoutSeconds)
        .arg(networkText())
        .arg(sharedFoldersText(policy))
        .arg(filesSentence() + sessionSentence());
}

QString RunCodeTool::networkText() const
{
    const EgressSettings& egress = m_runner.egress();
    QStringList hosts;
    for (const HostPattern& host : egress.allowedHosts)
        hosts.append(host.toString());
    const QString clients = m_config.language == Language::Python
                                ? QStringLiteral("requests, urllib and pip use it")
                                : QStringLiteral("fetch and npm use it");
    const QString through =
        QStringLiteral("through a proxy that HTTP_PROXY and HTTPS_PROXY name (%1; other sockets "
                       "find no network)")
            .arg(clients);
    switch (egress.mode) {
    case EgressMode::Open:
        return QStringLiteral("public hosts, %1; private networks, this machine and the cloud "
                              "metadata address are refused%2")
            .arg(through, hosts.isEmpty()
                              ? QString()
                              : QStringLiteral(" except %1").arg(hosts.join(QStringLiteral(", "))));
    case EgressMode::Allowlist:
        return hosts.isEmpty()
                   ? QStringLiteral("none (no host is allowed)")
                   : QStringLiteral("only %1, %2").arg(hosts.join(QStringLiteral(", ")), through);
    case EgressMode::Ask:
        return QStringLiteral("%1; the user is asked about each host not allowed yet, and a "
                              "host the user does not allow is refused (a refused connection "
                              "says so: do not retry it)")
            .arg(through);
    case EgressMode::None:
        return QStringLiteral("none");
    case EgressMode::Bridge:
        return QStringLiteral("yes, unfiltered");
    }
    return QStringLiteral("none");
}

QString RunCodeTool::sessionSentence() const
{
    if (!m_sessionsOffered || LanguageTraits::sessionCommand(m_config.language).isEmpty())
        return {};
    QString sentence = QStringLiteral(
        " Sessions: to keep state between calls (variables, imports, loaded data, files), pass "
        "the same \"session\" name each time; its calls run one after another in one "
        "interpreter, like notebook cells, and the value of a last expression is shown. Without "
        "\"session\", each call starts from nothing.");
    if (m_config.language == Language::JavaScript) {
        // Models wrap JavaScript in an async function out of habit, which would keep nothing.
        sentence += QStringLiteral(
            " In a session, await at the top level (no async wrapper): what a call declares "
            "there (let, const, function, class) stays for the next calls, which may declare it "
            "again.");
    }
    return sentence;
}

QString RunCodeTool::filesSentence() const
{
    const SandboxPolicy& policy = m_runner.policy();
    return QStringLiteral(
               "Files: pass input files with \"files\" (placed under %1 before the program "
               "starts). Files the program writes under %2 come back after the run (up to %3 "
               "files, %4 MiB): images are shown to you, and every file is linked as a resource "
               "you can read.")
        .arg(policy.workdir, policy.outputDirectory())
        .arg(policy.outputFilesMax)
        .arg(policy.outputFilesBytes / (1024 * 1024));
}

QString RunCodeTool::reviewText(const QJsonObject& arguments) const
{
    return arguments.value(QLatin1String("code")).toString();
}

QList<ReviewedFile> RunCodeTool::reviewFiles(const QJsonObject& arguments) const
{
    // As sent: the checks (InputFileList) come after approval, and refuse what is malformed.
    QList<ReviewedFile> files;
    const QJsonArray entries = arguments.value(QLatin1String("files")).toArray();
    for (const QJsonValue& entry : entries) {
        const QJsonObject file = entry.toObject();
        const QString content = file.value(QLatin1String("content")).toString();
        const bool base64 =
            file.value(QLatin1String("encoding")).toString() == QLatin1String("base64");
        files.append(
            {file.value(QLatin1String("path")).toString(),
             base64 ? QByteArray::fromBase64(content.toLatin1()).size() : content.toUtf8().size()});
    }
    return files;
}

QJsonObject RunCodeTool::definition() const
{
    const QString language = LanguageTraits::displayName(m_config.language);
    const QJsonObject inputSchema{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("code"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"),
                           QStringLiteral("The complete %1 program to run").arg(language)}}},
             {QStringLiteral("timeout_seconds"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("number")},
                          {QStringLiteral("exclusiveMinimum"), 0},
                          {QStringLiteral("maximum"), m_config.maxTimeoutSeconds},
                          {QStringLiteral("description"),
                           QStringLiteral("Kill the program after this many seconds (default %1)")
                               .arg(m_config.defaultTimeoutSeconds)}}},
             {QStringLiteral("files"),
              InputFileList::schema(m_config.inputLimits, m_runner.policy().workdir)},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("code")}},
    };
    QJsonObject schema = inputSchema;
    if (!sessionSentence().isEmpty()) {
        QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
        properties.insert(
            QStringLiteral("session"),
            QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                        {QStringLiteral("pattern"), QStringLiteral("^[A-Za-z0-9_.-]{1,64}$")},
                        {QStringLiteral("description"),
                         QStringLiteral("A name you choose (e.g. \"analysis\"): calls with the "
                                        "same name share one live interpreter")}});
        schema.insert(QStringLiteral("properties"), properties);
    }
    return {
        {QStringLiteral("name"), name()},
        {QStringLiteral("title"), QStringLiteral("Run %1 code").arg(language)},
        {QStringLiteral("description"), description()},
        {QStringLiteral("inputSchema"), schema},
        {QStringLiteral("outputSchema"), ToolResultFormatter::outputSchema()},
        {QStringLiteral("annotations"),
         QJsonObject{
             {QStringLiteral("title"), QStringLiteral("Run %1 code").arg(language)},
             {QStringLiteral("readOnlyHint"), false},
             // The program cannot touch the user's files, only its throw-away sandbox.
             {QStringLiteral("destructiveHint"), false},
             {QStringLiteral("idempotentHint"), false},
             {QStringLiteral("openWorldHint"), m_runner.egress().mode != EgressMode::None},
         }},
    };
}

std::optional<RunCodeCall::Files> RunCodeTool::prepareFiles(const QList<InputFile>& inputs) const
{
    if (m_config.runFilesRoot.isEmpty())
        return std::nullopt;
    RunFilesStore store(m_config.runFilesRoot);
    Expected<QString> key = store.reserve();
    if (!key) {
        // The call still runs: only its output files are lost, and the log says why.
        qCWarning(lcSandbox).noquote() << "output files will not be kept:" << key.error();
        return std::nullopt;
    }
    // The history's copy of what the call sent: kept beside what the program makes, without a
    // secret's value even where the client sent one (RunCodeCall checks it again at the end,
    // with the run's own secrets).
    const QDir in(QDir(store.folder(*key)).filePath(QStringLiteral("in")));
    for (const InputFile& input : inputs) {
        const QString path = in.filePath(input.path);
        QDir().mkpath(QFileInfo(path).path());
        QFile copy(path);
        if (!copy.open(QIODevice::WriteOnly | QIODevice::NewOnly) ||
            copy.write(input.content) != input.content.size())
            qCWarning(lcSandbox).noquote()
                << "cannot keep a copy of an input file:" << copy.errorString();
    }
    if (!inputs.isEmpty())
        RunFileRedactor::redactFolder(in.path(), m_runner.secrets()->redactor());
    return RunCodeCall::Files{store, *key, m_runner.policy().outputDirectory()};
}

qint64 RunCodeTool::reportStart(const CallContext& context, const QJsonValue& code, int timeoutMs,
                                const SessionMark& session, const QString& filesKey,
                                const QList<InputFile>& inputFiles) const
{
    if (!m_observer)
        return 0;
    const SandboxPolicy& policy = m_runner.policy();
    RunObserver::Start start;
    start.context = context;
    start.context.tool = name();
    start.language = LanguageTraits::id(m_config.language);
    start.image = m_config.image;
    // The history never holds a secret's value, even one the client itself sent.
    start.code = m_runner.secrets()->redactor().redact(code.toString());
    start.limits = QJsonObject{
        {QStringLiteral("isolation"), kIsolations.toString(policy.isolationFor(m_config.language))},
        {QStringLiteral("memory_bytes"), policy.memoryBytes},
        {QStringLiteral("cpus"), policy.cpus},
        {QStringLiteral("pids_limit"), policy.pidsLimit},
        {QStringLiteral("tmpfs_bytes"), policy.tmpfsBytes},
        {QStringLiteral("network"), policy.network},
        {QStringLiteral("egress"), EgressModes::toString(m_runner.egress().mode)},
        {QStringLiteral("timeout_ms"), timeoutMs},
        {QStringLiteral("output_cap_bytes"), policy.outputCapBytes},
    };
    if (policy.allowUnenforcedLimits)
        start.limits.insert(QStringLiteral("allow_unlimited"), true);
    start.filesKey = filesKey;
    start.inputFiles = inputFiles;
    start.sessionName = session.name;
    start.sessionKey = session.key;
    return m_observer->runStarted(start);
}

ToolCall* RunCodeTool::start(const QJsonObject& arguments, const CallContext& context,
                             QObject* parent)
{
    const int defaultTimeoutMs =
        static_cast<int>(std::lround(m_config.defaultTimeoutSeconds * 1000));
    const QJsonValue code = arguments.value(QLatin1String("code"));
    if (!code.isString()) {
        return RunCodeCall::failed(
            QStringLiteral("Invalid arguments: \"code\" is required and must be a string "
                           "containing the %1 program.")
                .arg(LanguageTraits::displayName(m_config.language)),
            parent, m_observer, reportStart(context, code, defaultTimeoutMs));
    }
    double timeoutSeconds = m_config.defaultTimeoutSeconds;
    const QJsonValue timeout = arguments.value(QLatin1String("timeout_seconds"));
    if (!timeout.isUndefined() && !timeout.isNull()) {
        if (!timeout.isDouble() || !std::isfinite(timeout.toDouble()) || timeout.toDouble() <= 0) {
            return RunCodeCall::failed(
                QStringLiteral("Invalid arguments: \"timeout_seconds\" must be a positive number "
                               "of seconds (at most %1).")
                    .arg(m_config.maxTimeoutSeconds),
                parent, m_observer, reportStart(context, code, defaultTimeoutMs));
        }
        timeoutSeconds = std::min(timeout.toDouble(), m_config.maxTimeoutSeconds);
    }

    Expected<QList<InputFile>> inputFiles =
        InputFileList::parse(arguments.value(QLatin1String("files")), m_config.inputLimits);
    if (!inputFiles) {
        return RunCodeCall::failed(inputFiles.error(), parent, m_observer,
                                   reportStart(context, code, defaultTimeoutMs));
    }

    const RunQueue& queue = m_runner.queue();
    if (queue.isFull()) {
        // Refused at once rather than queued without bound: the client hears why now.
        return RunCodeCall::failed(
            QStringLiteral("Too many calls at once: %1 sandboxes are running and %2 calls are "
                           "waiting for one, the most this server takes (--max-running, "
                           "--max-queued). Try again when some have finished.")
                .arg(queue.runningCount())
                .arg(queue.waitingCount()),
            parent, m_observer, reportStart(context, code, defaultTimeoutMs));
    }

    SessionMark mark;
    QString ownerKey;
    const QJsonValue sessionName = arguments.value(QLatin1String("session"));
    if (!sessionName.isUndefined() && !sessionName.isNull()) {
        if (!sessionName.isString() || !InterpreterSessions::isValidName(sessionName.toString())) {
            return RunCodeCall::failed(
                QStringLiteral("Invalid arguments: \"session\" must be a short name: letters, "
                               "digits, '-', '_' or '.', at most 64."),
                parent, m_observer, reportStart(context, code, defaultTimeoutMs));
        }
        mark.name = sessionName.toString();
        if (!m_sessionsOffered) {
            return RunCodeCall::failed(QStringLiteral("This server keeps no sessions: call "
                                                      "without \"session\"."),
                                       parent, m_observer,
                                       reportStart(context, code, defaultTimeoutMs, mark));
        }
        const Expected<InterpreterOwner> owner = CallerInterpreterOwner::of(context);
        const Expected<QString> key =
            owner ? m_runner.interpreters().prepare(*owner, mark.name, m_config.language,
                                                    m_config.image)
                  : Expected<QString>(Unexpected(owner.error()));
        if (!key) {
            return RunCodeCall::failed(key.error(), parent, m_observer,
                                       reportStart(context, code, defaultTimeoutMs, mark));
        }
        mark.key = *key;
        ownerKey = owner->key;
    }

    RunRequest request;
    request.interpreterOwner = ownerKey;
    request.interpreterName = mark.name;
    request.language = m_config.language;
    request.image = m_config.image;
    request.code = code.toString().toUtf8();
    request.timeoutMs = static_cast<int>(std::lround(timeoutSeconds * 1000));
    request.inputFiles = *inputFiles;
    const std::optional<RunCodeCall::Files> files = prepareFiles(request.inputFiles);
    if (files) {
        request.outputDirectory =
            QDir(files->store.folder(files->key)).filePath(QStringLiteral("out"));
        if (m_config.fileOwners)
            m_config.fileOwners->add(files->key, context);
    }
    const qint64 handle = reportStart(context, code, request.timeoutMs, mark,
                                      files ? files->key : QString(), request.inputFiles);
    auto* call = new RunCodeCall(m_runner.start(request, nullptr), m_config.redactOutput, parent,
                                 m_observer, handle);
    if (files)
        call->setFiles(*files);
    return call;
}

} // namespace csm
