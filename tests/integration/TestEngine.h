#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

// The real container engine an integration test runs against: CSM_TEST_ENGINE=podman|docker,
// or podman-rootless: Podman as a normal account runs it (the user scripts/setup-rootless-user
// prepares, CSM_TEST_ROOTLESS_USER, csm-rootless by default), as most desktop users run it. Then
// the engine CLI and the server under test run as that user, from copies of the server's files
// that the user can read wherever the build tree lies.
class TestEngine final
{
public:
    // "podman" or "docker" (also for podman-rootless).
    static QString name();
    static bool isRootless();
    // The isolation tier every server under test runs sandboxes with (CSM_TEST_ISOLATION, passed
    // on as CODE_SANDBOX_ISOLATION unless a test chooses its own): "gvisor", or empty for the
    // default, standard.
    static QString isolation();
    // Registered against a remote engine (csm_add_remote_test): its containers see none of this
    // machine's files.
    static bool isRemote();
    // The rootless user, or empty when the tests run the engine as themselves.
    static QString rootlessUser();
    // Where the account's engine keeps its run time files (XDG_RUNTIME_DIR).
    static QString rootlessRuntimeDir();
    // Sets `process` up to run `program arguments` as the engine's user: the program itself, or
    // through setpriv as the rootless user with that user's HOME and XDG_RUNTIME_DIR added to
    // `environment`.
    static void prepare(QProcess& process, const QString& program, const QStringList& arguments,
                        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment());
    // code-sandbox-mcp, as the engine's user can run it (a readable copy for a rootless user,
    // with the launcher and the seccomp profile beside it).
    static QString serverBinary();
    // Gives a folder (and what is in it) to the engine's user, e.g. a server's data folder.
    static void handOver(const QString& path);
    // Whether the engine accepts resource limits and ignores them: rootless Podman on a cgroup
    // v1 (or hybrid) hierarchy, as on these machines.
    static bool ignoresLimits();
    // What every server under test needs on this engine: --allow-unlimited where it ignores
    // limits, a refusal that tst_RootlessPodman tests on its own.
    static QStringList serverArguments();
    // How this engine names a locally built image (podman: localhost/NAME).
    static QString localImage(const QString& image);
    // Runs the engine CLI and returns its stdout; fails the test's expectations through `ok`.
    static QByteArray run(const QStringList& arguments, bool* ok = nullptr);
    // Whether the engine has this locally built image (named as localImage() names it).
    static bool hasLocalImage(const QString& image);
    // Names of containers (running or not) carrying this label.
    static QStringList containersWithLabel(const QString& label);
    // Polls until no container has the label, up to `timeoutMs`; returns what remains.
    static QStringList waitUntilNoContainerWithLabel(const QString& label, int timeoutMs);
    // Each container's name, state and creation time, one per line: what a failure shows.
    static QString describeContainers(const QStringList& names);
};
