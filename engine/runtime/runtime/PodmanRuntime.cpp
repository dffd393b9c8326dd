#include "runtime/PodmanRuntime.h"

#include "core/Version.h"
#include "runtime/ContainerLabels.h"
#include "runtime/ContainerListing.h"
#include "runtime/EngineAddress.h"
#include "runtime/ImageListing.h"

namespace csm {

PodmanRuntime::PodmanRuntime(QString program)
    : ContainerRuntime(std::move(program))
{}

QStringList PodmanRuntime::engineSpecificRunOptions() const
{
    // With --read-only podman also mounts tmpfs on /run, /tmp and /var/tmp with no size limit:
    // a writable place the policy does not allow. Only our size-limited /tmp and workdir stay.
    return {QStringLiteral("--read-only-tmpfs=false")};
}

QStringList PodmanRuntime::isolationGlobalOptions(Isolation isolation) const
{
    if (isolation != Isolation::Gvisor)
        return {};
    QStringList options{QStringLiteral("--runtime"), gvisorRuntimeName()};
    for (const QString& flag : gvisorFlags())
        options << QStringLiteral("--runtime-flag") << flag;
    return options;
}

QString PodmanRuntime::gvisorRuntimeName() const
{
    return QStringLiteral("runsc");
}

QString PodmanRuntime::gvisorFix() const
{
    return QStringLiteral("install gVisor where Podman runs (on Debian: `sudo apt-get install "
                          "runsc`), and run Podman itself as root on that machine: gVisor cannot "
                          "start under rootless Podman, which may not create the cgroups gVisor "
                          "needs, and Podman's remote client cannot choose a runtime");
}

QStringList PodmanRuntime::gvisorCheckArguments() const
{
    // Whether it runs rootless (runsc itself is looked for by doctor, on this machine).
    return {QStringLiteral("info"), QStringLiteral("--format"),
            QStringLiteral("{{.Host.Security.Rootless}}")};
}

QString PodmanRuntime::gvisorUnreadiness(const QByteArray& output) const
{
    // Podman's remote client takes no --runtime: only a CLI that runs containers itself can.
    if (!location().cliRunsContainers()) {
        return QStringLiteral("Podman is reached through a service (%1), whose client cannot "
                              "choose a container's runtime: gVisor needs Podman run on the "
                              "engine's machine as root")
            .arg(location().address.isEmpty() ? QStringLiteral("a remote one")
                                              : location().address);
    }
    if (output.trimmed() == "true") {
        return QStringLiteral("Podman runs rootless here, and gVisor cannot start under rootless "
                              "Podman: it needs cgroups that an unprivileged user may not create");
    }
    return {};
}

QString PodmanRuntime::sandboxUsers() const
{
    // --userns=auto would give each sandbox host ids of its own, but Podman 4.3 (Debian 12's)
    // hangs when it starts such containers side by side (4 of 16, four at a time, stuck with
    // the storage locked until killed), and rootless it copies the whole image for each range.
    return QStringLiteral("every sandbox runs as one host uid (65534 as root, the one 65534 maps "
                          "to rootless): what runs as that uid reaches them all; none gets its "
                          "own (--userns=auto, which would, hangs on Debian 12's Podman 4.3 when "
                          "sandboxes start side by side)");
}

QString PodmanRuntime::sharedFolderMountOptions() const
{
    // A set-id program or a device node in a shared folder (left there by anyone on the host)
    // means nothing inside the sandbox.
    return QStringLiteral(",nosuid,nodev");
}

QStringList PodmanRuntime::forceRemoveArguments(const QString& container) const
{
    // --time 0: podman would otherwise wait 10 s for a SIGTERM the program may ignore.
    return {QStringLiteral("rm"), QStringLiteral("--force"),  QStringLiteral("--time"),
            QStringLiteral("0"),  QStringLiteral("--ignore"), container};
}

QStringList PodmanRuntime::imageCheckArguments(const QString& image) const
{
    return {QStringLiteral("image"), QStringLiteral("exists"), image};
}

ImageCheck PodmanRuntime::interpretImageCheck(int exitCode, const QByteArray& standardError) const
{
    // `podman image exists`: 0 present, 1 absent, anything else an engine failure.
    if (exitCode == 0)
        return {ImageCheck::Status::Present, {}};
    if (exitCode == 1)
        return {ImageCheck::Status::Missing, {}};
    return {ImageCheck::Status::EngineUnavailable, QString::fromUtf8(standardError).trimmed()};
}

QString PodmanRuntime::explainFailure(const QByteArray& standardError) const
{
    if (const QString gvisor = explainGvisorFailure(standardError); !gvisor.isEmpty())
        return gvisor;
    // Rootless networking (slirp4netns) needs /dev/net/tun, which desktops make 0666 through
    // udev; without it every --network bridge run fails, with an error that names no cause a
    // person would act on. After one such failure, later runs fail differently (the rootless
    // network namespace is left half set up) until `podman system migrate`.
    if (standardError.contains("/dev/net/tun") ||
        standardError.contains("failed to mount runtime directory for rootless netns")) {
        return QStringLiteral(
                   "Podman could not give the sandbox a network: rootless networking (slirp4netns) "
                   "cannot open /dev/net/tun on this machine. Fix: `sudo chmod 0666 /dev/net/tun` "
                   "(as "
                   "desktop systems set it up), then `podman system migrate` once as this user; or "
                   "run "
                   "sandboxes without a network (--network none). Podman said: %1")
            .arg(QString::fromUtf8(standardError.trimmed().left(500)));
    }
    // Debian 13's Podman runs containers with crun, which refuses a machine whose cgroups are
    // v1 with a v2 tree beside them (Debian 12's default); runc runs there.
    if (standardError.contains("cgroups in hybrid mode not supported")) {
        return QStringLiteral(
                   "Podman's OCI runtime, crun, cannot run containers on this machine's hybrid "
                   "cgroups (v1, with a v2 tree beside them). Fix: `sudo apt-get install runc` "
                   "and set [engine] runtime = \"runc\" in /etc/containers/containers.conf "
                   "(scripts/setup-engines --podman does both), or boot with cgroup v2 alone "
                   "(systemd.unified_cgroup_hierarchy=1). Podman said: %1")
            .arg(QString::fromUtf8(standardError.trimmed().left(500)));
    }
    return {};
}

QString PodmanRuntime::setUpNotice(const QString& warning) const
{
    // Podman 5 prints this before everything it does on a cgroup v1 machine.
    if (!warning.startsWith(QLatin1String("Using cgroups-v1 which is deprecated")))
        return {};
    return QStringLiteral("this machine's cgroups are v1, which Podman 5 deprecates; a later "
                          "Podman will not run containers here. Boot with cgroup v2 "
                          "(systemd.unified_cgroup_hierarchy=1 on the kernel's command line; "
                          "Debian 13 and most current distributions do by default)");
}

QString PodmanRuntime::localImageReference(const QString& image) const
{
    // Podman stores an unqualified local image as localhost/NAME; naming it so avoids
    // short-name resolution, which would otherwise consult registries.
    const QString firstPart = image.section(QLatin1Char('/'), 0, 0);
    const bool qualified =
        image.contains(QLatin1Char('/')) &&
        (firstPart.contains(QLatin1Char('.')) || firstPart.contains(QLatin1Char(':')) ||
         firstPart == QLatin1String("localhost"));
    return qualified ? image : QStringLiteral("localhost/") + image;
}

QString PodmanRuntime::installCommand() const
{
    return QStringLiteral("sudo apt-get install podman");
}

QString PodmanRuntime::unavailableFixCommand() const
{
    // Podman has no daemon to start: its own diagnosis says what is wrong with its store.
    return QStringLiteral("podman info");
}

QString PodmanRuntime::cancelledBuildLeftovers() const
{
    // Podman exits on the signal without removing the build's working container (and the step
    // it was running finishes on its own).
    return QStringLiteral("podman may keep the cancelled build's working container: `podman ps "
                          "--all --external` lists it, `podman rm` removes it.");
}

QStringList PodmanRuntime::listContainersArguments() const
{
    // `--format json` prints one JSON array with the labels as a real map: nothing to escape.
    return {QStringLiteral("ps"),
            QStringLiteral("--all"),
            QStringLiteral("--filter"),
            QStringLiteral("label=%1=%2")
                .arg(QLatin1String(ContainerLabels::kApp), QLatin1String(kApplicationName)),
            QStringLiteral("--format"),
            QStringLiteral("json")};
}

QList<ContainerInfo> PodmanRuntime::parseContainerList(const QByteArray& output) const
{
    return ContainerListing::fromJsonArray(output);
}

QStringList PodmanRuntime::listImagesArguments() const
{
    // Sizes in bytes and creation times in seconds; one entry per image with all its names.
    return {QStringLiteral("images"), QStringLiteral("--format"), QStringLiteral("json")};
}

QList<ImageInfo> PodmanRuntime::parseImageList(const QByteArray& output) const
{
    return ImageListing::fromPodmanJson(output);
}

QStringList PodmanRuntime::storageDriverArguments() const
{
    return {QStringLiteral("info"), QStringLiteral("--format"),
            QStringLiteral("{{.Store.GraphDriverName}}")};
}

QString PodmanRuntime::slowStorageFix(const QString& driver) const
{
    if (driver.trimmed() != QLatin1String("vfs"))
        return {};
    return QStringLiteral(
        "write [storage] driver = \"overlay\" to ~/.config/containers/storage.conf "
        "(rootless) or /etc/containers/storage.conf, then `podman system reset "
        "--force` (it deletes this store's images: build them again with "
        "containers/build-images)");
}

QMap<QString, QString> PodmanRuntime::endpointVariables(const QString& address) const
{
    // Either makes the CLI a remote client of that service.
    if (EngineAddress::isUrl(address))
        return {{QStringLiteral("CONTAINER_HOST"), address},
                {QStringLiteral("CONTAINER_CONNECTION"), {}}};
    return {{QStringLiteral("CONTAINER_CONNECTION"), address},
            {QStringLiteral("CONTAINER_HOST"), {}}};
}

QString PodmanRuntime::plainTcpFix() const
{
    // Podman's remote client has no TLS of its own: ssh is its secure transport.
    return QStringLiteral("reach the service over ssh:// (podman system connection add "
                          "--identity ...)");
}

EngineLocation PodmanRuntime::locate(const QProcessEnvironment& environment) const
{
    // A remote client (a URL or a named connection) talks to a service that may be anywhere:
    // it is treated as remote even when the service is on this machine, which always works.
    const QString url = environment.value(QStringLiteral("CONTAINER_HOST"));
    if (!url.isEmpty())
        return {true, url, {}};
    const QString connection = environment.value(QStringLiteral("CONTAINER_CONNECTION"));
    if (!connection.isEmpty())
        return {true, connection, {}};
    // Off Linux, podman is always the client of a Podman machine.
    return {EngineAddress::isRemoteUrl(QStringLiteral("unix:///run/podman/podman.sock")), {}, {}};
}

} // namespace csm
