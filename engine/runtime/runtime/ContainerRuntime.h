#pragma once

#include "runtime/ContainerInfo.h"
#include "runtime/EngineLocation.h"
#include "runtime/ImageCheck.h"
#include "runtime/ImageInfo.h"
#include "runtime/Isolation.h"
#include "runtime/Language.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <optional>

class QObject;
class QProcess;

namespace csm {

struct ContainerSpec;
struct SandboxPolicy;

// A container engine driven through its CLI. Implementations only build argument lists and read
// the engine's answers; running the processes is the caller's business (QProcess, never a shell).
class ContainerRuntime
{
public:
    explicit ContainerRuntime(QString program);
    virtual ~ContainerRuntime() = default;
    ContainerRuntime(const ContainerRuntime&) = delete;
    ContainerRuntime& operator=(const ContainerRuntime&) = delete;

    // "podman" or "docker".
    virtual QString name() const = 0;
    // The executable to start: a name looked up on PATH, or a path.
    QString program() const { return m_program; }

    // A process of this engine's CLI with these arguments, not yet started. It inherits the
    // server's environment: pass-through values reach a sandbox from there, by name (`-e NAME`),
    // never through argv.
    QProcess* newProcess(const QStringList& arguments, QObject* parent) const;

    // Points the CLI at another engine: an EngineAddress (a URL, or a context or connection
    // name); empty leaves the CLI's own default, which its variables (DOCKER_HOST,
    // CONTAINER_HOST...) and configuration choose.
    void setEndpoint(const QString& address);
    QString endpoint() const { return m_endpoint; }
    // What every process of this engine's CLI runs with: the server's environment and the
    // variables that name the endpoint.
    QProcessEnvironment processEnvironment() const { return m_environment; }
    // Where the engine runs its containers (asked once, then remembered).
    const EngineLocation& location() const;
    bool isRemote() const { return location().remote; }
    // Known already (tests, a caller that asked): not asked again.
    void setLocation(const EngineLocation& location) { m_location = location; }

    // The process that runs `spec` (runArguments()), its secrets' values added to its
    // environment: the engine copies them into the container for the bare `-e NAME` options.
    QProcess* newRunProcess(const ContainerSpec& spec, QObject* parent) const;

    // `run` in the foreground, attached to stdin/stdout/stderr, removed when it exits.
    virtual QStringList runArguments(const ContainerSpec& spec) const;
    // The variables that lead a container's programs to the egress proxy (proxy mode), with
    // Node's preload read from `preloadFolder` in the container.
    static QMap<QString, QString> egressEnvironment(const QString& preloadFolder);
    // What NO_PROXY there names: the sandbox's own loopback, which every program keeps to itself.
    static QStringList sandboxOwnHosts();
    // The engine's --pids-limit for a sandbox under `policy`: the policy's own, or under gVisor
    // room for gVisor's threads.
    static int hostPidsLimit(const SandboxPolicy& policy);
    // Kills (without a grace period) and removes a container; no error if it is already gone.
    virtual QStringList forceRemoveArguments(const QString& container) const = 0;
    // The same as a process of its own that outlives us: a last resort on the way out, when
    // nothing will wait for its answer.
    void startDetachedRemoval(const QString& container) const;
    virtual QStringList imageCheckArguments(const QString& image) const = 0;
    virtual ImageCheck interpretImageCheck(int exitCode, const QByteArray& standardError) const = 0;
    // The warnings in what the engine printed on stderr while it ran a container (one each, the
    // engine's own decoration removed), e.g. rootless Podman saying that it ignores limits.
    QStringList engineWarnings(const QByteArray& standardError) const;
    // What an engine warning means for the user when it is about how the engine is set up on
    // its machine, not about the container it ran (Podman 5 on cgroup v1 says so on every
    // command); else empty. Such a notice belongs in the log and in doctor, not in every call's
    // result, where the model could do nothing with it.
    virtual QString setUpNotice(const QString& warning) const;
    // Why the engine could not start a container, with the fix, when its stderr shows a cause
    // this engine is known for (e.g. rootless networking without /dev/net/tun); else empty.
    virtual QString explainFailure(const QByteArray& standardError) const;
    // Asks the engine for the storage driver of its image store; the answer is its name.
    virtual QStringList storageDriverArguments() const = 0;
    // For a driver that copies a whole image for every container (vfs: cold starts take
    // seconds): how to switch to a fast one. Empty for a fast driver.
    virtual QString slowStorageFix(const QString& driver) const = 0;
    // The name under which this engine stores a locally built image (podman prefixes localhost/).
    virtual QString localImageReference(const QString& image) const = 0;
    // The locally built default image of `language` (containers/build-images), as this engine
    // names it: what runs when no image was chosen.
    QString defaultImage(Language language) const;

    // What a person runs to install this engine (Debian's package), e.g. when it is not found.
    virtual QString installCommand() const = 0;
    // The error of a call when the CLI itself could not be started (`processError`: why).
    QString notStartedMessage(const QString& processError) const;
    // What a person runs when the engine is installed but does not answer: the command that
    // starts it, or the one whose diagnosis says what is wrong.
    virtual QString unavailableFixCommand() const = 0;
    // A sentence on the likely cause when the engine does not answer, or empty when its own
    // message says enough.
    virtual QString unavailableHint() const { return {}; }
    // What a cancelled image build may leave behind in this engine and how to remove it, or
    // empty when it cleans up after itself.
    virtual QString cancelledBuildLeftovers() const { return {}; }

    // `ps` of every container labelled as this application's (ContainerLabels::kApp), running
    // or not, in a machine-readable form that parseContainerList() reads.
    virtual QStringList listContainersArguments() const = 0;
    // Reads the standard output of listContainersArguments(). Entries it cannot read are
    // skipped; empty output or garbage gives an empty list.
    virtual QList<ContainerInfo> parseContainerList(const QByteArray& output) const = 0;

    // Every image of the local store, in a machine-readable form that parseImageList() reads.
    virtual QStringList listImagesArguments() const = 0;
    // Reads the standard output of listImagesArguments(); unreadable entries are skipped,
    // empty output or garbage gives an empty list.
    virtual QList<ImageInfo> parseImageList(const QByteArray& output) const = 0;
    // Removes one name of an image (the image itself once no name is left); refuses when a
    // container uses it, with the engine's own message.
    QStringList removeImageArguments(const QString& image) const;
    // Pulls an image from its registry, printing progress.
    QStringList pullImageArguments(const QString& image) const;
    // Builds `dockerfile` with `contextDir` as its context, naming the result `tag`.
    QStringList buildImageArguments(const QString& dockerfile, const QString& tag,
                                    const QString& contextDir) const;
    // A short-lived container of `image` running `command` with its program on stdin (-i),
    // under the sandbox's hardening (SandboxPolicy defaults: no network, no root, no
    // capabilities, read-only, bounded memory and processes) but without the launcher: for a
    // quick check that an image works, not for untrusted code. `seccompProfile`: the sandbox's
    // profile (SandboxFilesLocator), or empty for the engine's default.
    QStringList quickRunArguments(const QString& image, const QStringList& command,
                                  const QString& seccompProfile) const;
    // The same hardening, for EngineFileSightProbe: a container that mounts this machine's
    // `folder` (at the same path) and `launcher` (where a sandbox has it), read-only, and prints
    // the file `marker` of the folder.
    QStringList fileSightArguments(const QString& image, const QString& folder,
                                   const QString& marker, const QString& launcher) const;

    // A call that reaches the engine and asks next to nothing of it (the containers that carry a
    // label no container has): what timing a round trip needs. (`version` is no such call:
    // Podman's service takes a second over it.)
    QStringList roundTripArguments() const;

    // A remote engine's volume of the sandbox's files (SandboxFilesVolume): which of `volumes`
    // exist (a line for each: NAME|its ContainerLabels::kVolumeId|its kChecksVolume label;
    // exit 0 only if all do), making one, a container that mounts it at `target` without ever
    // starting (to copy into), and the copy of a host file into a container.
    QStringList volumeCheckArguments(const QStringList& volumes) const;
    QStringList volumeCreateArguments(const QString& volume,
                                      const QMap<QString, QString>& labels) const;
    QStringList volumeFillerArguments(const QString& container, const QString& image,
                                      const QString& volume, const QString& target,
                                      const QMap<QString, QString>& labels) const;
    QStringList copyIntoArguments(const QString& hostPath, const QString& container,
                                  const QString& path) const;
    // A container's file as a tar stream on stdout (a link as the link, not followed).
    QStringList copyOutArguments(const QString& container, const QString& path) const;
    // The egress carrier of a remote engine's container (EgressCarrier), attached: `exec -i` of
    // the launcher in the files volume.
    QStringList egressCarrierArguments(const QString& container) const;
    // Removes a volume, even one a stopped container still names.
    QStringList volumeRemoveArguments(const QString& volume) const;
    // Where the engine's host keeps a volume's files (its output's one line).
    QStringList volumeMountpointArguments(const QString& volume) const;
    // Whether the engine, not its CLI, opens the seccomp profile `run` names: then a remote
    // engine needs a path on its own host (Podman's service does; Docker's CLI sends the
    // profile's text).
    virtual bool enginesReadSeccompProfiles() const { return false; }
    // Whether the CLI reaches a tcp:// address with TLS, as its environment sets it up.
    virtual bool reachesTcpWithTls() const { return false; }
    // What a person does about an engine reached over plain TCP, for doctor.
    virtual QString plainTcpFix() const = 0;
    // Which host users the sandboxes run as, for doctor: whether two live sandboxes share one
    // (then a set-id file or a ptrace-able process of one is within reach of the other, and of
    // any account on the host that runs as that uid), and what would change that.
    virtual QString sandboxUsers() const = 0;

    // The flags gVisor's runtime runs every sandbox with (Podman's --runtime-flag words; Docker
    // registers them with "--" before each). network=none: a sandbox has no network but the
    // launcher's relay to the egress proxy, and gVisor's own network stack refuses to start in
    // the host's network namespace anyway. host-uds=all: the pool's socket (made inside) and the
    // proxy's (made on the host) are host Unix sockets, which gVisor's file system otherwise
    // keeps out. oci-seccomp: our profile applies inside gVisor's kernel too (else it is ignored).
    static QStringList gvisorFlags();
    // The name under which this engine runs gVisor, as its fix messages and doctor give it.
    virtual QString gvisorRuntimeName() const = 0;
    // What a person does so that this engine can start sandboxes under gVisor.
    virtual QString gvisorFix() const = 0;
    // Asks the engine whether it can start sandboxes under gVisor; gvisorUnreadiness() reads the
    // answer (its output): empty when it can, else why not.
    virtual QStringList gvisorCheckArguments() const = 0;
    virtual QString gvisorUnreadiness(const QByteArray& output) const = 0;

protected:
    // Options of `run` that only this engine needs, added to the common ones.
    virtual QStringList engineSpecificRunOptions() const { return {}; }
    // Options of the engine's CLI before `run` (Podman's --runtime), and options of `run`
    // (Docker's --runtime), that start a sandbox under `isolation`'s runtime.
    virtual QStringList isolationGlobalOptions(Isolation) const { return {}; }
    virtual QStringList isolationRunOptions(Isolation) const { return {}; }
    // The engine's message when gVisor could not start a sandbox, explained with the fix; empty
    // when the message is about something else.
    QString explainGvisorFailure(const QByteArray& standardError) const;
    // What this engine adds to a shared folder's bind mount (",opt,opt"): mount options that
    // Docker's --mount has no words for.
    virtual QString sharedFolderMountOptions() const { return {}; }
    // The variables that point this engine's CLI at `address` (not empty); an empty value removes
    // a variable.
    virtual QMap<QString, QString> endpointVariables(const QString& address) const = 0;
    // Finds out where the engine is, as the CLI started with `environment` reaches it.
    virtual EngineLocation locate(const QProcessEnvironment& environment) const = 0;

private:
    // `run` and the options of quickRunArguments(), up to the image.
    QStringList hardenedRunOptions(const QString& seccompProfile) const;

    QString m_program;
    QString m_endpoint;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
    mutable std::optional<EngineLocation> m_location;
};

} // namespace csm
