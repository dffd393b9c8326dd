#include "runtime/DockerRuntime.h"

#include "core/Version.h"
#include "runtime/ContainerLabels.h"
#include "runtime/ContainerListing.h"
#include "runtime/EngineAddress.h"
#include "runtime/ImageListing.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace csm {

DockerRuntime::DockerRuntime(QString program)
    : ContainerRuntime(std::move(program))
{}

QStringList DockerRuntime::forceRemoveArguments(const QString& container) const
{
    // docker rm --force sends SIGKILL at once; "No such container" is not an error for us.
    return {QStringLiteral("rm"), QStringLiteral("--force"), container};
}

QStringList DockerRuntime::imageCheckArguments(const QString& image) const
{
    return {QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("--format"),
            QStringLiteral("{{.Id}}"), image};
}

ImageCheck DockerRuntime::interpretImageCheck(int exitCode, const QByteArray& standardError) const
{
    if (exitCode == 0)
        return {ImageCheck::Status::Present, {}};
    const QString text = QString::fromUtf8(standardError).trimmed();
    // `docker image inspect` exits 1 both for a missing image and for an unreachable daemon;
    // only its message tells them apart.
    if (text.contains(QLatin1String("No such image"), Qt::CaseInsensitive) ||
        text.contains(QLatin1String("No such object"), Qt::CaseInsensitive))
        return {ImageCheck::Status::Missing, {}};
    return {ImageCheck::Status::EngineUnavailable, text};
}

QStringList DockerRuntime::listContainersArguments() const
{
    // `{{json .}}` would give the labels only as one "k=v,k=v" string, which a value holding a
    // comma makes ambiguous (our image's own code-sandbox.versions label does). So the template
    // builds the same one-object-per-line shape and adds the labels the sweep decides on, read
    // one by one with `.Label`, under "LabelValues".
    QStringList exactValues;
    for (const char* key : {ContainerLabels::kApp, ContainerLabels::kInstance,
                            ContainerLabels::kPid, ContainerLabels::kHost}) {
        exactValues << QStringLiteral("\"%1\":{{json (.Label \"%1\")}}").arg(QLatin1String(key));
    }
    const QString format = QStringLiteral("{\"ID\":{{json .ID}},\"Names\":{{json .Names}},"
                                          "\"Labels\":{{json .Labels}},\"LabelValues\":{") +
                           exactValues.join(QLatin1Char(',')) + QStringLiteral("}}");
    return {QStringLiteral("ps"),
            QStringLiteral("--all"),
            QStringLiteral("--no-trunc"),
            QStringLiteral("--filter"),
            QStringLiteral("label=%1=%2")
                .arg(QLatin1String(ContainerLabels::kApp), QLatin1String(kApplicationName)),
            QStringLiteral("--format"),
            format};
}

QList<ContainerInfo> DockerRuntime::parseContainerList(const QByteArray& output) const
{
    return ContainerListing::fromJsonLines(output);
}

QStringList DockerRuntime::listImagesArguments() const
{
    // docker offers no exact size in a listing (only `image inspect` has one), so the rounded
    // figure is read; good enough for a table of images of hundreds of megabytes.
    return {QStringLiteral("images"), QStringLiteral("--format"), QStringLiteral("{{json .}}")};
}

QList<ImageInfo> DockerRuntime::parseImageList(const QByteArray& output) const
{
    return ImageListing::fromDockerJsonLines(output);
}

QString DockerRuntime::installCommand() const
{
    // Debian's (and Ubuntu's) package of the docker CLI and daemon is docker.io.
    return QStringLiteral("sudo apt-get install docker.io");
}

QString DockerRuntime::unavailableFixCommand() const
{
    return QStringLiteral("sudo systemctl start docker");
}

QString DockerRuntime::unavailableHint() const
{
    // The CLI answers without its daemon, and only a member of the docker group may reach it.
    return QStringLiteral("Is the Docker daemon running (e.g. `%1`), and may this user use it?")
        .arg(unavailableFixCommand());
}

QStringList DockerRuntime::storageDriverArguments() const
{
    return {QStringLiteral("info"), QStringLiteral("--format"), QStringLiteral("{{.Driver}}")};
}

QString DockerRuntime::slowStorageFix(const QString& driver) const
{
    if (driver.trimmed() != QLatin1String("vfs"))
        return {};
    return QStringLiteral("set \"storage-driver\": \"overlay2\" in /etc/docker/daemon.json and "
                          "restart the daemon (then build the images again with "
                          "containers/build-images)");
}

QMap<QString, QString> DockerRuntime::endpointVariables(const QString& address) const
{
    // One or the other: DOCKER_HOST wins over DOCKER_CONTEXT, so a URL clears any context.
    if (EngineAddress::isUrl(address))
        return {{QStringLiteral("DOCKER_HOST"), address}, {QStringLiteral("DOCKER_CONTEXT"), {}}};
    return {{QStringLiteral("DOCKER_CONTEXT"), address}, {QStringLiteral("DOCKER_HOST"), {}}};
}

bool DockerRuntime::reachesTcpWithTls() const
{
    const QProcessEnvironment cli = processEnvironment();
    return !cli.value(QStringLiteral("DOCKER_TLS_VERIFY")).isEmpty() ||
           !cli.value(QStringLiteral("DOCKER_TLS")).isEmpty();
}

QString DockerRuntime::plainTcpFix() const
{
    return QStringLiteral("serve the daemon with --tlsverify and export DOCKER_TLS_VERIFY=1 "
                          "DOCKER_CERT_PATH=<its client certificates>, or use ssh://");
}

EngineLocation DockerRuntime::locate(const QProcessEnvironment& environment) const
{
    // The CLI resolves DOCKER_HOST, DOCKER_CONTEXT and `docker context use` the same way for
    // every command; asking it (locally, without the daemon) is the only way to agree with it.
    QProcess inspect;
    inspect.setProcessEnvironment(environment);
    inspect.start(program(),
                  {QStringLiteral("context"), QStringLiteral("inspect"), QStringLiteral("--format"),
                   QStringLiteral("{{.Endpoints.docker.Host}}")});
    QString url;
    if (!inspect.waitForStarted(5000)) {
        // No CLI at all: every call says so ("could not be started"), wherever the engine is.
        return {false, {}, {}};
    }
    if (inspect.waitForFinished(5000) && inspect.exitStatus() == QProcess::NormalExit &&
        inspect.exitCode() == 0) {
        url = QString::fromUtf8(inspect.readAllStandardOutput()).trimmed();
    } else {
        inspect.kill();
        inspect.waitForFinished(1000);
        url = environment.value(QStringLiteral("DOCKER_HOST"));
    }
    // Not known: taken for remote, whose way (the engine's own channels) works everywhere; a
    // host path given to an engine that is elsewhere would name whatever is there.
    if (url.isEmpty())
        return {true, {}, {}};
    return {EngineAddress::isRemoteUrl(url), url, {}};
}

namespace {
// gVisor's flags as a runtime registered with the daemon takes them: --network=none...
QStringList registeredGvisorFlags()
{
    QStringList flags;
    for (const QString& flag : ContainerRuntime::gvisorFlags())
        flags << QStringLiteral("--") + flag;
    return flags;
}
} // namespace

QStringList DockerRuntime::isolationRunOptions(Isolation isolation) const
{
    // Registered with the daemon under a name of our own, with the flags a sandbox needs (see
    // gvisorFix): Docker passes no runtime flags with `run`.
    if (isolation != Isolation::Gvisor)
        return {};
    return {QStringLiteral("--runtime"), gvisorRuntimeName()};
}

QString DockerRuntime::gvisorRuntimeName() const
{
    return QStringLiteral("code-sandbox-gvisor");
}

QString DockerRuntime::gvisorFix() const
{
    return QStringLiteral("install gVisor where Docker runs (on Debian: `sudo apt-get install "
                          "runsc`) and register it with Docker under the name %1: `sudo runsc "
                          "install --runtime %1 -- %2`, then `sudo systemctl reload docker`")
        .arg(gvisorRuntimeName(), registeredGvisorFlags().join(QLatin1Char(' ')));
}

QStringList DockerRuntime::gvisorCheckArguments() const
{
    return {QStringLiteral("info"), QStringLiteral("--format"),
            QStringLiteral("{{json .Runtimes}}")};
}

QString DockerRuntime::gvisorUnreadiness(const QByteArray& output) const
{
    const QJsonObject runtimes = QJsonDocument::fromJson(output.trimmed()).object();
    if (!runtimes.contains(gvisorRuntimeName())) {
        QStringList names = runtimes.keys();
        return QStringLiteral("gVisor is not registered with Docker as %1 (it knows: %2)")
            .arg(gvisorRuntimeName(),
                 names.isEmpty() ? QStringLiteral("nothing") : names.join(QStringLiteral(", ")));
    }
    // Registered under our name, it must be runsc with every flag a sandbox needs: one without
    // oci-seccomp would run without the profile, one that is not runsc without gVisor.
    const QJsonObject runtime = runtimes.value(gvisorRuntimeName()).toObject();
    const QString path = runtime.value(QLatin1String("path")).toString();
    if (QFileInfo(path).fileName() != QLatin1String("runsc")) {
        return QStringLiteral("Docker's runtime %1 runs \"%2\", not gVisor's runsc")
            .arg(gvisorRuntimeName(), path);
    }
    QStringList arguments;
    for (const QJsonValue& argument : runtime.value(QLatin1String("runtimeArgs")).toArray())
        arguments << argument.toString();
    QStringList missing;
    for (const QString& flag : registeredGvisorFlags()) {
        if (!arguments.contains(flag))
            missing << flag;
    }
    if (!missing.isEmpty()) {
        return QStringLiteral("Docker's runtime %1 lacks %2")
            .arg(gvisorRuntimeName(), missing.join(QStringLiteral(" ")));
    }
    return {};
}

QString DockerRuntime::explainFailure(const QByteArray& standardError) const
{
    return explainGvisorFailure(standardError);
}

QString DockerRuntime::sandboxUsers() const
{
    // Docker has no per-container user namespaces: only the daemon's userns-remap, one range for
    // all of them.
    return QStringLiteral("every sandbox runs as host uid 65534 (the same uid for all of them, "
                          "and the host's nobody), unless the daemon runs with userns-remap, "
                          "which gives all of them one other uid");
}

} // namespace csm
