#include "cli/DoctorCommand.h"

#include "cli/CommandLine.h"
#include "cli/EngineDistance.h"
#include "cli/SandboxTrialRun.h"
#include "cli/Subcommands.h"
#include "clients/ClientConfigLocation.h"
#include "clients/ClientServerEntry.h"
#include "clients/ClientSurvey.h"
#include "history/HistoryLocation.h"
#include "history/HistoryOptions.h"
#include "history/HistoryStore.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/EngineAddress.h"
#include "runtime/EngineHealthCheck.h"
#include "runtime/EngineLocationFinder.h"
#include "runtime/HealthProblem.h"
#include "runtime/RuntimeFactory.h"
#include "sandbox/SandboxFilesLocator.h"
#include "secrets/KeychainSecretBackend.h"
#include "secrets/SecretStore.h"
#include "server/ServerSettings.h"
#include "server/ServerSettingsReader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <QTextStream>
#include <QTimer>

namespace csm {

namespace {

const QString kSettings = QStringLiteral("settings");
const QString kEngine = QStringLiteral("engine");
const QString kLocation = QStringLiteral("engine location");
const QString kLauncher = QStringLiteral("launcher");
const QString kSeccomp = QStringLiteral("seccomp");
const QString kStorage = QStringLiteral("storage");
const QString kIsolation = QStringLiteral("isolation");
const QString kSandbox = QStringLiteral("sandbox");
const QString kSecrets = QStringLiteral("secrets");
const QString kDataFolder = QStringLiteral("data folder");
const QString kClients = QStringLiteral("clients");

QString imageCheckName(Language language)
{
    return QStringLiteral("image %1").arg(LanguageTraits::id(language));
}

QString shown(const QString& path)
{
    return QDir::toNativeSeparators(path);
}

// "a, b": where a file was looked for.
QString shownList(const QStringList& paths)
{
    QStringList shownPaths;
    for (const QString& path : paths)
        shownPaths << shown(path);
    return shownPaths.join(QStringLiteral(", "));
}

QString statusName(int status)
{
    static const QStringList names{QStringLiteral("pending"), QStringLiteral("ok"),
                                   QStringLiteral("problem"), QStringLiteral("skipped")};
    return names.value(status);
}

// "Python and JavaScript", or the one language whose image runs under gVisor.
QString gvisorLanguages(const SandboxPolicy& policy)
{
    QStringList names;
    for (Language language : {Language::Python, Language::JavaScript}) {
        if (policy.isolationFor(language) == Isolation::Gvisor)
            names.append(LanguageTraits::displayName(language));
    }
    return names.join(QStringLiteral(" and "));
}

} // namespace

DoctorCommand::DoctorCommand(QStringList arguments, const QProcessEnvironment& environment,
                             QTextStream& out, QTextStream& err, QObject* parent)
    : Command(CommandLine::commands(), QStringLiteral("doctor"), std::move(arguments), environment,
              out, err, parent)
    , m_secretsFile(QStringLiteral("secrets-file"),
                    QStringLiteral("Check the private values file (as servers started with "
                                   "--secrets-file use) instead of the OS keychain."))
{}

DoctorCommand::~DoctorCommand() = default;

QString DoctorCommand::synopsis()
{
    return QStringLiteral("doctor [--json]");
}

Command::Syntax DoctorCommand::syntax() const
{
    return {QStringLiteral("doctor [--data-dir DIR] [--secrets-file] [--json]"),
            QStringLiteral(
                "Checks what sandboxes need: the settings, the container engine, its images "
                "and\nstorage driver, the sandbox launcher and seccomp profile, the keychain, "
                "the\ndata folder and any assistant set up to start a program that is gone, "
                "then runs\none real sandbox as a server would (are its limits enforced, does "
                "its network\nwork). Prints each problem with the command that fixes it; exits "
                "with 1 when\nthere is one."),
            {m_historyOptions.dataDir(), m_secretsFile, jsonOption()},
            0};
}

void DoctorCommand::run()
{
    m_json = parser().isSet(jsonOption());
    const QString dataDir =
        HistoryLocation::dataDir(parser().value(m_historyOptions.dataDir()), environment());

    // In the order they are printed; the quick ones are answered here, the others later.
    for (const QString& name : {kSettings, kEngine, kLocation, imageCheckName(Language::Python),
                                imageCheckName(Language::JavaScript), kStorage, kLauncher, kSeccomp,
                                kIsolation, kSandbox, kSecrets, kDataFolder, kClients})
        add(name);

    QStringList settingsProblems;
    m_settings = ServerSettings::load(dataDir, &settingsProblems);
    checkSettings(dataDir, settingsProblems);
    // Before the keychain check, which may create the folder for the values file.
    checkDataFolder(dataDir);
    checkLauncher();
    checkSeccompProfile();
    checkClients();

    m_timeout = new QTimer(this);
    m_timeout->setSingleShot(true);
    connect(m_timeout, &QTimer::timeout, this, &DoctorCommand::onTimeout);
    m_timeout->start(kTimeoutMs);
    startEngineCheck();
    startSecretsCheck(dataDir, parser().isSet(m_secretsFile));
}

DoctorCommand::Check& DoctorCommand::add(const QString& name)
{
    Check check;
    check.name = name;
    m_checks.append(check);
    return m_checks.last();
}

DoctorCommand::Check& DoctorCommand::checkNamed(const QString& name)
{
    for (Check& check : m_checks) {
        if (check.name == name)
            return check;
    }
    Q_UNREACHABLE();
}

void DoctorCommand::checkSettings(const QString& dataDir, const QStringList& problems)
{
    Check& settings = checkNamed(kSettings);
    const QString path = ServerSettings::filePath(dataDir);
    const QFileInfo info(path);
    if (info.exists() && !(info.isFile() && info.isReadable())) {
        settings.status = Check::Status::Problem;
        settings.detail = QStringLiteral("%1 cannot be read").arg(shown(path));
        settings.fix = QStringLiteral("chmod u+rw %1").arg(shown(path));
        return;
    }
    if (!problems.isEmpty()) {
        settings.status = Check::Status::Problem;
        settings.detail =
            QStringLiteral("%1: %2").arg(shown(path), problems.join(QStringLiteral("; ")));
        settings.fix = QStringLiteral("correct or delete those lines of %1, or save the settings "
                                      "again in the desktop app")
                           .arg(shown(path));
        return;
    }
    settings.status = Check::Status::Ok;
    settings.detail = info.exists() ? shown(path) : QStringLiteral("none yet (the defaults apply)");
}

void DoctorCommand::checkDataFolder(const QString& dataDir)
{
    Check& folder = checkNamed(kDataFolder);
    const auto problem = [&folder](const QString& detail, const QString& fix) {
        folder.status = Check::Status::Problem;
        folder.detail = detail;
        folder.fix = fix;
    };
    const QFileInfo info(dataDir);
    if (!info.exists()) {
        // Created at first use: its nearest existing parent must let us.
        // (QDir::cdUp() refuses to go to a parent that does not exist either: walk the path.)
        QString ancestor = QFileInfo(dataDir).absoluteFilePath();
        while (!QFileInfo::exists(ancestor) && QFileInfo(ancestor).path() != ancestor)
            ancestor = QFileInfo(ancestor).path();
        const QDir parent(ancestor);
        const QFileInfo parentInfo(parent.absolutePath());
        if (!parentInfo.isDir() || !parentInfo.isWritable()) {
            problem(QStringLiteral("%1 does not exist and cannot be created (%2 is not writable)")
                        .arg(shown(dataDir), shown(parent.absolutePath())),
                    QStringLiteral("mkdir -p -m 700 %1, or choose another folder with "
                                   "--data-dir or $%2")
                        .arg(shown(dataDir), HistoryLocation::dataDirVariable()));
            return;
        }
        folder.status = Check::Status::Ok;
        folder.detail = QStringLiteral("%1 (created at first use)").arg(shown(dataDir));
        return;
    }
    if (!info.isDir()) {
        problem(QStringLiteral("%1 is not a folder").arg(shown(dataDir)),
                QStringLiteral("move it aside, or choose another folder with --data-dir"));
        return;
    }
    QTemporaryFile probe(QDir(dataDir).filePath(QStringLiteral(".doctor-XXXXXX")));
    if (!probe.open()) {
        problem(QStringLiteral("%1 is not writable: %2").arg(shown(dataDir), probe.errorString()),
                QStringLiteral("chmod 700 %1").arg(shown(dataDir)));
        return;
    }
    probe.close();
    // The folder holds the history (code and outputs) and the secrets' index.
    const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup |
                                            QFileDevice::ExeGroup | QFileDevice::ReadOther |
                                            QFileDevice::WriteOther | QFileDevice::ExeOther;
    if (QFile::permissions(dataDir) & others) {
        problem(QStringLiteral("%1 is open to other users (it holds the run history and the "
                               "secrets' names)")
                    .arg(shown(dataDir)),
                QStringLiteral("chmod 700 %1").arg(shown(dataDir)));
        return;
    }
    const QString historyPath = HistoryLocation::historyPath(dataDir);
    if (QFileInfo::exists(historyPath)) {
        if (const auto opened = HistoryStore::open(historyPath); !opened) {
            problem(opened.error(),
                    QStringLiteral("mv %1 %1.broken (a new, empty history is then started)")
                        .arg(shown(historyPath)));
            return;
        }
    }
    folder.status = Check::Status::Ok;
    folder.detail = QFileInfo::exists(historyPath)
                        ? QStringLiteral("%1 (the history opens)").arg(shown(dataDir))
                        : shown(dataDir);
}

void DoctorCommand::checkClients()
{
    Check& clients = checkNamed(kClients);
    const QStringList path = environment()
                                 .value(QStringLiteral("PATH"))
                                 .split(QDir::listSeparator(), Qt::SkipEmptyParts);
    QStringList wired;
    QStringList missing;
    QStringList fixes;
    for (const ClientSurvey::Client& client :
         ClientSurvey::survey(ClientConfigLocation::forEnvironment(environment()), path,
                              ClientServerEntry::defaultName())) {
        const QString id = McpClientTraits::id(client.client);
        if (client.entry)
            wired << id;
        for (const QString& program : client.missingPrograms)
            missing
                << QStringLiteral("%1 (%2) starts %3").arg(id, shown(client.configPath), program);
        if (!client.missingPrograms.isEmpty())
            fixes << QStringLiteral("code-sandbox-mcp install-client %1").arg(id);
    }
    if (!missing.isEmpty()) {
        clients.status = Check::Status::Problem;
        clients.detail = QStringLiteral("a program that no longer exists: %1")
                             .arg(missing.join(QStringLiteral("; ")));
        clients.fix = fixes.join(QStringLiteral("; ")) +
                      QStringLiteral(" (or uninstall-client, for a server you no longer use)");
        return;
    }
    clients.status = Check::Status::Ok;
    clients.detail = wired.isEmpty()
                         ? QStringLiteral("no assistant is set up yet (see "
                                          "code-sandbox-mcp install-client --list)")
                         : QStringLiteral("set up in %1").arg(wired.join(QStringLiteral(", ")));
}

void DoctorCommand::checkLauncher()
{
    Check& launcher = checkNamed(kLauncher);
    const QString path = SandboxFilesLocator::findLauncher();
    if (path.isEmpty()) {
        launcher.status = Check::Status::Problem;
        launcher.detail = QStringLiteral("csm-launch not found (looked for %1)")
                              .arg(shownList(SandboxFilesLocator::launcherCandidates()));
        launcher.fix = QStringLiteral("reinstall Code Sandbox, or export "
                                      "CODE_SANDBOX_LAUNCHER=/path/to/csm-launch");
        return;
    }
    launcher.status = Check::Status::Ok;
    launcher.detail = shown(path);
}

void DoctorCommand::checkSeccompProfile()
{
    Check& seccomp = checkNamed(kSeccomp);
    const QString path = SandboxFilesLocator::findSeccompProfile();
    seccomp.fix = QStringLiteral("reinstall Code Sandbox, or export "
                                 "CODE_SANDBOX_SECCOMP_PROFILE=/path/to/csm-seccomp.json");
    if (path.isEmpty()) {
        seccomp.status = Check::Status::Problem;
        seccomp.detail = QStringLiteral("csm-seccomp.json not found (looked for %1)")
                             .arg(shownList(SandboxFilesLocator::seccompProfileCandidates()));
        return;
    }
    // The engine would refuse every sandbox with its own, less clear, message.
    QFile file(path);
    QJsonParseError error{};
    const QJsonDocument profile = file.open(QIODevice::ReadOnly)
                                      ? QJsonDocument::fromJson(file.readAll(), &error)
                                      : QJsonDocument();
    if (!profile.isObject() || !profile.object().value(QLatin1String("syscalls")).isArray()) {
        seccomp.status = Check::Status::Problem;
        seccomp.detail =
            QStringLiteral("%1 is not a seccomp profile (%2)")
                .arg(shown(path), file.isOpen() ? error.errorString() : file.errorString());
        return;
    }
    seccomp.status = Check::Status::Ok;
    seccomp.detail = shown(path);
    seccomp.fix.clear();
}

void DoctorCommand::startEngineCheck()
{
    // As a server chooses: $CODE_SANDBOX_ENGINE over the settings.
    const QString variable = QStringLiteral("CODE_SANDBOX_ENGINE");
    QString engine = m_settings.engine;
    QString source = QStringLiteral("the settings");
    if (environment().contains(variable)) {
        engine = environment().value(variable).trimmed().toLower();
        source = QStringLiteral("$%1").arg(variable);
        if (engine == QLatin1String("auto"))
            engine.clear();
    }
    // CONTAINER_IMAGE replaces the image of CONTAINER_LANGUAGE (Python by default).
    const QString containerImage = environment().value(QStringLiteral("CONTAINER_IMAGE")).trimmed();
    if (!containerImage.isEmpty()) {
        const auto language =
            LanguageTraits::parse(environment().value(QStringLiteral("CONTAINER_LANGUAGE")));
        m_settings.setImage(language.value_or(Language::Python), containerImage);
    }
    m_engineName = engine;
    // As a server reads it: the variable over the settings. A value a server would refuse
    // leaves the settings' (the trial run then shows what they do).
    ServerSettingsReader::readVariable(QStringLiteral("allow-unlimited"), environment(),
                                       m_settings);
    ServerSettingsReader::readVariable(QStringLiteral("engine-host"), environment(), m_settings);
    for (const char* key : {"isolation", "python-isolation", "js-isolation"})
        ServerSettingsReader::readVariable(QString::fromLatin1(key), environment(), m_settings);
    ServerSettingsReader::readVariable(QStringLiteral("engine-location"), environment(),
                                       m_settings);
    const std::shared_ptr<ContainerRuntime> created =
        RuntimeFactory::create(engine, m_settings.engineHost);
    m_runtime = created;
    const std::shared_ptr<const ContainerRuntime> runtime = m_runtime;
    if (!runtime) {
        Check& engineCheck = checkNamed(kEngine);
        engineCheck.status = Check::Status::Problem;
        engineCheck.detail =
            QStringLiteral("unknown engine \"%1\" in %2: use podman, docker or auto")
                .arg(engine, source);
        engineCheck.fix =
            source == QLatin1String("the settings")
                ? QStringLiteral("choose podman or docker in the desktop app's "
                                 "Settings")
                : QStringLiteral("export %1=podman (or docker, or unset it)").arg(variable);
        for (const QString& name :
             {imageCheckName(Language::Python), imageCheckName(Language::JavaScript), kStorage,
              kIsolation, kSandbox, kLocation})
            checkNamed(name).status = Check::Status::Skipped;
        return;
    }
    const QString program = QStandardPaths::findExecutable(runtime->program());
    m_engineDescription =
        QStringLiteral("%1 (%2) answers")
            .arg(runtime->name(), program.isEmpty() ? runtime->program() : shown(program));
    const QList<EngineHealthCheck::Image> images =
        EngineHealthCheck::imagesOf(m_settings.engineChoice(), *runtime);
    for (const EngineHealthCheck::Image& image : images) {
        if (image.language == Language::Python)
            m_pythonImage = image.reference;
        m_imageDescriptions.insert(imageCheckName(image.language),
                                   image.isDefault ? image.reference + QStringLiteral(" (default)")
                                                   : image.reference);
    }
    // Whether its containers see this machine's files, asked anew (servers recall what it
    // finds): before the checks that run containers the answer decides how.
    EngineLocationFinder().settle(*created, m_settings.engineLocation, m_pythonImage,
                                  SandboxFilesLocator::find().launcher, true);
    m_health = std::make_unique<EngineHealthCheck>();
    connect(m_health.get(), &EngineHealthCheck::finished, this, &DoctorCommand::onEngineChecked);
    m_health->start(std::move(runtime), images);
}

void DoctorCommand::onEngineChecked(const QList<HealthProblem>& problems)
{
    if (m_done)
        return;
    Check& engine = checkNamed(kEngine);
    engine.status = Check::Status::Ok;
    engine.detail = m_engineDescription;
    for (const HealthProblem& problem : problems) {
        if (problem.kind != HealthProblem::Kind::ImageMissing) {
            engine.status = Check::Status::Problem;
            engine.detail = problem.message;
            engine.fix = problem.fixCommand;
        }
    }
    for (const Language language : {Language::Python, Language::JavaScript}) {
        Check& image = checkNamed(imageCheckName(language));
        if (engine.status == Check::Status::Problem) {
            image.status = Check::Status::Skipped;
            image.detail = QStringLiteral("not checked: the engine does not answer");
            continue;
        }
        image.status = Check::Status::Ok;
        image.detail = m_imageDescriptions.value(image.name);
        for (const HealthProblem& problem : problems) {
            if (problem.kind == HealthProblem::Kind::ImageMissing && problem.language == language) {
                image.status = Check::Status::Problem;
                image.detail = problem.message;
                image.fix = problem.fixCommand;
            }
        }
    }
    if (engine.status == Check::Status::Problem) {
        for (const QString& name : {kStorage, kIsolation, kSandbox, kLocation}) {
            checkNamed(name).status = Check::Status::Skipped;
            checkNamed(name).detail = QStringLiteral("not checked: the engine does not answer");
        }
    } else {
        // The others after the timing, which they would disturb.
        startLocationCheck([this] {
            startStorageCheck();
            startIsolationCheck();
            startSandboxCheck();
        });
    }
    finishIfDone();
}

void DoctorCommand::startLocationCheck(const std::function<void()>& then)
{
    const std::shared_ptr<const ContainerRuntime> runtime = m_runtime;
    const EngineLocation& location = runtime->location();
    Check& check = checkNamed(kLocation);
    check.status = Check::Status::Ok;
    check.detail = EngineAddress::describe(location.address, location.remote);
    if (!location.basis.isEmpty())
        check.detail += QStringLiteral(" (%1)").arg(location.basis);
    // Programs, their files and the secrets sandboxes get would cross the network in clear, to
    // an engine that asks nobody who they are.
    if (location.address.startsWith(QLatin1String("tcp://"), Qt::CaseInsensitive) &&
        !runtime->reachesTcpWithTls()) {
        check.status = Check::Status::Problem;
        check.detail += QStringLiteral(": over plain TCP, without TLS: programs, files and secret "
                                       "values cross the network in clear, to an engine that "
                                       "does not check who calls it");
        check.fix = runtime->plainTcpFix();
    }
    // Local Podman has no engine apart from its CLI: nothing to time.
    // Last, where sandboxes run says which host users they run as.
    const QString users = QStringLiteral("; %1").arg(runtime->sandboxUsers());
    if (location.cliRunsContainers()) {
        check.detail += QStringLiteral(", no daemon between") + users;
        then();
        return;
    }
    const Check::Status verdict = check.status;
    check.status = Check::Status::Pending;
    auto* distance = new EngineDistance(runtime, this);
    connect(distance, &EngineDistance::finished, this,
            [this, distance, then, verdict, users](const QString& error) {
                distance->deleteLater();
                if (m_done)
                    return;
                Check& measured = checkNamed(kLocation);
                measured.status = verdict;
                if (error.isEmpty()) {
                    measured.detail += QStringLiteral(", %1 ms per round trip (a call %2 ms, the "
                                                      "command alone %3 ms)")
                                           .arg(distance->roundTripMs())
                                           .arg(distance->callMs())
                                           .arg(distance->clientMs());
                } else {
                    measured.detail += QStringLiteral(", round trip not measured: %1").arg(error);
                }
                measured.detail += users;
                then();
                finishIfDone();
            });
    distance->start();
}

void DoctorCommand::startStorageCheck()
{
    const std::shared_ptr<const ContainerRuntime> runtime = m_runtime;
    QProcess* info = runtime->newProcess(runtime->storageDriverArguments(), this);
    connect(info, &QProcess::finished, this, [this, info, runtime] {
        info->deleteLater();
        if (m_done)
            return;
        Check& storage = checkNamed(kStorage);
        const QString driver = QString::fromUtf8(info->readAllStandardOutput()).trimmed();
        // What the engine says about its own set-up on every command (Podman 5 on cgroup v1)
        // is told here, once; servers keep it out of calls' results.
        for (const QString& warning : runtime->engineWarnings(info->readAllStandardError())) {
            if (const QString notice = runtime->setUpNotice(warning); !notice.isEmpty())
                checkNamed(kEngine).detail += QStringLiteral("; note: ") + notice;
        }
        if (driver.isEmpty()) {
            storage.status = Check::Status::Problem;
            storage.detail =
                QStringLiteral("%1 did not name its storage driver").arg(runtime->name());
            storage.fix = QStringLiteral("%1 info").arg(runtime->name());
        } else if (const QString fix = runtime->slowStorageFix(driver); !fix.isEmpty()) {
            storage.status = Check::Status::Problem;
            storage.detail = QStringLiteral("%1 keeps images with the %2 driver, which copies the "
                                            "whole image for every sandbox: cold starts take "
                                            "seconds instead of a fraction of one")
                                 .arg(runtime->name(), driver);
            storage.fix = fix;
        } else {
            storage.status = Check::Status::Ok;
            storage.detail = QStringLiteral("%1 driver").arg(driver);
        }
        finishIfDone();
    });
    info->start();
}

void DoctorCommand::startIsolationCheck()
{
    const std::shared_ptr<const ContainerRuntime> runtime = m_runtime;
    QProcess* info = runtime->newProcess(runtime->gvisorCheckArguments(), this);
    connect(info, &QProcess::finished, this, [this, info, runtime] {
        info->deleteLater();
        if (m_done)
            return;
        QString unready =
            info->exitCode() == 0
                ? runtime->gvisorUnreadiness(info->readAllStandardOutput())
                : QStringLiteral("%1 did not say: %2")
                      .arg(runtime->name(),
                           QString::fromUtf8(info->readAllStandardError().trimmed().left(300)));
        // An engine on this machine runs this machine's runsc; a remote one's is out of sight.
        const QStringList sbin{QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/sbin")};
        if (unready.isEmpty() && !runtime->location().remote &&
            QStandardPaths::findExecutable(QStringLiteral("runsc")).isEmpty() &&
            QStandardPaths::findExecutable(QStringLiteral("runsc"), sbin).isEmpty())
            unready = QStringLiteral("gVisor (runsc) is not installed");
        Check& check = checkNamed(kIsolation);
        check.status = Check::Status::Ok;
        if (m_settings.policy.uses(Isolation::Gvisor)) {
            if (unready.isEmpty()) {
                check.detail =
                    QStringLiteral("gvisor: %1 sandboxes run under gVisor's kernel (%2 "
                                   "runtime %3)%4")
                        .arg(gvisorLanguages(m_settings.policy), runtime->name(),
                             runtime->gvisorRuntimeName(),
                             m_settings.policy.isolationFor(Language::Python) == Isolation::Gvisor
                                 ? QStringLiteral("; the sandbox check starts one")
                                 : QString());
            } else {
                check.status = Check::Status::Problem;
                check.detail = QStringLiteral("gvisor is chosen (for %1), but %2: every %1 call "
                                              "fails until it is fixed (none runs with less)")
                                   .arg(gvisorLanguages(m_settings.policy), unready);
                check.fix = runtime->gvisorFix();
            }
        } else {
            check.detail =
                QStringLiteral("standard: this machine's kernel, behind the seccomp profile; "
                               "--isolation gvisor: %1")
                    .arg(unready.isEmpty() ? QStringLiteral("ready")
                                           : QStringLiteral("not ready (%1; fix: %2)")
                                                 .arg(unready, runtime->gvisorFix()));
        }
        finishIfDone();
    });
    info->start();
}

void DoctorCommand::startSandboxCheck()
{
    Check& sandbox = checkNamed(kSandbox);
    const bool filesThere = checkNamed(kLauncher).status == Check::Status::Ok &&
                            checkNamed(kSeccomp).status == Check::Status::Ok;
    const Check& python = checkNamed(imageCheckName(Language::Python));
    if (!filesThere || python.status != Check::Status::Ok) {
        sandbox.status = Check::Status::Skipped;
        sandbox.detail = filesThere ? QStringLiteral("not checked: no Python image")
                                    : QStringLiteral("not checked: the launcher or the seccomp "
                                                     "profile is missing");
        return;
    }
    m_trialRun = std::make_unique<SandboxTrialRun>();
    connect(m_trialRun.get(), &SandboxTrialRun::finished, this,
            [this](const SandboxTrialRun::Report& report) {
                if (m_done)
                    return;
                Check& check = checkNamed(kSandbox);
                check.status = report.ok ? Check::Status::Ok : Check::Status::Problem;
                check.detail = report.detail;
                check.fix = report.fix;
                finishIfDone();
            });
    m_trialRun->start(m_engineName, m_settings.engineHost, m_settings.engineLocation,
                      m_settings.policy, m_settings.egress, m_pythonImage);
}

void DoctorCommand::startSecretsCheck(const QString& dataDir, bool secretsFile)
{
    m_secrets = std::make_unique<SecretStore>(
        dataDir, secretsFile ? SecretStore::BackendChoice::File : SecretStore::BackendChoice::Auto);
    m_secrets->open([this](const QString& error) {
        if (m_done)
            return;
        Check& secrets = checkNamed(kSecrets);
        if (!error.isEmpty()) {
            secrets.status = Check::Status::Problem;
            secrets.detail = error;
            secrets.fix = QStringLiteral(
                "start and unlock a keyring (sudo apt-get install gnome-keyring, then log in "
                "again), or run servers with --secrets-file");
        } else {
            secrets.status = Check::Status::Ok;
            secrets.detail = QStringLiteral("%1: %2").arg(m_secrets->backendKind() ==
                                                                  SecretBackend::kKeychainKind
                                                              ? QStringLiteral("the keychain")
                                                              : QStringLiteral("a private file"),
                                                          m_secrets->backendReason());
        }
        finishIfDone();
    });
}

void DoctorCommand::onTimeout()
{
    for (Check& check : m_checks) {
        if (check.status != Check::Status::Pending)
            continue;
        check.status = Check::Status::Problem;
        check.detail = QStringLiteral("no answer within %1 s").arg(kTimeoutMs / 1000);
        check.fix = check.name == kSecrets
                        ? QStringLiteral("run servers with --secrets-file if the keychain hangs")
                        : QStringLiteral("%1 info").arg(m_engineDescription.section(u' ', 0, 0));
    }
    finishIfDone();
}

void DoctorCommand::finishIfDone()
{
    if (m_done)
        return;
    for (const Check& check : std::as_const(m_checks)) {
        if (check.status == Check::Status::Pending)
            return;
    }
    m_done = true;
    m_timeout->stop();
    report();
    bool healthy = true;
    for (const Check& check : std::as_const(m_checks))
        healthy = healthy && check.status != Check::Status::Problem;
    finish(healthy ? Ok : Failed);
}

void DoctorCommand::report()
{
    int problems = 0;
    for (const Check& check : std::as_const(m_checks))
        problems += check.status == Check::Status::Problem ? 1 : 0;
    if (m_json) {
        QJsonArray checks;
        for (const Check& check : std::as_const(m_checks)) {
            QJsonObject object{{QStringLiteral("check"), check.name},
                               {QStringLiteral("status"), statusName(int(check.status))},
                               {QStringLiteral("detail"), check.detail}};
            if (!check.fix.isEmpty())
                object.insert(QStringLiteral("fix"), check.fix);
            checks.append(object);
        }
        const QJsonObject root{{QStringLiteral("ok"), problems == 0},
                               {QStringLiteral("checks"), checks}};
        out() << QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
        return;
    }
    qsizetype width = 0;
    for (const Check& check : std::as_const(m_checks))
        width = std::max(width, check.name.size());
    for (const Check& check : std::as_const(m_checks)) {
        out() << statusName(int(check.status)).leftJustified(9)
              << check.name.leftJustified(width + 2) << check.detail << '\n';
        if (!check.fix.isEmpty())
            out() << QString(9 + width + 2, u' ') << "fix: " << check.fix << '\n';
    }
    out() << '\n'
          << (problems == 0   ? QStringLiteral("All checks passed.")
              : problems == 1 ? QStringLiteral("1 problem found.")
                              : QStringLiteral("%1 problems found.").arg(problems))
          << '\n';
}

} // namespace csm
