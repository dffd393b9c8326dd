#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStorageInfo>
#include <QTemporaryDir>
#include <QThread>

#include <pwd.h>
#include <unistd.h>

namespace {
struct Account
{
    uid_t uid = 0;
    gid_t gid = 0;
    QString home;
};

Account accountOf(const QString& user)
{
    Account account;
    if (const passwd* entry = getpwnam(user.toLocal8Bit().constData())) {
        account.uid = entry->pw_uid;
        account.gid = entry->pw_gid;
        account.home = QString::fromLocal8Bit(entry->pw_dir);
    }
    return account;
}

// The server's files, copied where any user can read them: the build tree may lie below a home
// folder that only root can enter.
QString copiedServerBinary()
{
    static QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/csm-rootless-bin-XXXXXX"));
    static const QString binary = [] {
        const QFileInfo server(QStringLiteral(CSM_SERVER_BINARY));
        for (const QString& name :
             {server.fileName(), QStringLiteral("csm-launch"), QStringLiteral("csm-seccomp.json")})
            QFile::copy(server.dir().filePath(name), dir.filePath(name));
        QFile::setPermissions(dir.path(), QFile::permissions(dir.path()) | QFile::ReadGroup |
                                              QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
        return dir.filePath(server.fileName());
    }();
    return binary;
}
} // namespace

QString TestEngine::name()
{
    const QString engine = qEnvironmentVariable("CSM_TEST_ENGINE");
    if (engine.isEmpty() || engine == QLatin1String("podman-rootless"))
        return QStringLiteral("podman");
    return engine;
}

bool TestEngine::isRootless()
{
    return qEnvironmentVariable("CSM_TEST_ENGINE") == QLatin1String("podman-rootless");
}

bool TestEngine::isRemote()
{
    return !qEnvironmentVariableIsEmpty("CSM_TEST_REMOTE_ENV");
}

QString TestEngine::rootlessUser()
{
    if (!isRootless())
        return {};
    const QString user = qEnvironmentVariable("CSM_TEST_ROOTLESS_USER");
    return user.isEmpty() ? QStringLiteral("csm-rootless") : user;
}

QString TestEngine::rootlessRuntimeDir()
{
    return QStringLiteral("/run/user/%1").arg(accountOf(rootlessUser()).uid);
}

void TestEngine::prepare(QProcess& process, const QString& program, const QStringList& arguments,
                         QProcessEnvironment environment)
{
    if (!isRootless()) {
        process.setProgram(program);
        process.setArguments(arguments);
        process.setProcessEnvironment(environment);
        return;
    }
    const QString user = rootlessUser();
    const Account account = accountOf(user);
    environment.insert(QStringLiteral("HOME"), account.home);
    environment.insert(QStringLiteral("USER"), user);
    environment.insert(QStringLiteral("LOGNAME"), user);
    environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), rootlessRuntimeDir());
    process.setProgram(QStringLiteral("setpriv"));
    process.setArguments(QStringList{QStringLiteral("--reuid=%1").arg(account.uid),
                                     QStringLiteral("--regid=%1").arg(account.gid),
                                     QStringLiteral("--init-groups"), QStringLiteral("--"),
                                     program} +
                         arguments);
    process.setProcessEnvironment(environment);
    // A folder the user may enter, as a login would start in.
    process.setWorkingDirectory(account.home);
}

QString TestEngine::serverBinary()
{
    return isRootless() ? copiedServerBinary() : QStringLiteral(CSM_SERVER_BINARY);
}

void TestEngine::handOver(const QString& path)
{
    if (!isRootless())
        return;
    const Account account = accountOf(rootlessUser());
    if (chown(QFile::encodeName(path).constData(), account.uid, account.gid) != 0)
        qWarning("cannot give %s to the rootless user", qPrintable(path));
    const QFileInfo info(path);
    if (!info.isDir() || info.isSymLink())
        return;
    const QFileInfoList entries =
        QDir(path).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
    for (const QFileInfo& entry : entries)
        handOver(entry.absoluteFilePath());
}

bool TestEngine::ignoresLimits()
{
    // cgroup v1 (or hybrid) mounts a tmpfs at /sys/fs/cgroup; v2 mounts cgroup2 there.
    return isRootless() &&
           QStorageInfo(QStringLiteral("/sys/fs/cgroup")).fileSystemType() != "cgroup2";
}

QString TestEngine::isolation()
{
    return qEnvironmentVariable("CSM_TEST_ISOLATION");
}

QStringList TestEngine::serverArguments()
{
    if (ignoresLimits())
        return {QStringLiteral("--allow-unlimited")};
    return {};
}

QString TestEngine::localImage(const QString& image)
{
    return name() == QLatin1String("podman") ? QStringLiteral("localhost/") + image : image;
}

QByteArray TestEngine::run(const QStringList& arguments, bool* ok)
{
    QProcess process;
    prepare(process, name(), arguments);
    process.start();
    const bool finished = process.waitForFinished(120'000);
    const bool success =
        finished && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    if (!success) {
        qWarning("%s %s failed: %s", qPrintable(name()), qPrintable(arguments.join(u' ')),
                 process.readAllStandardError().constData());
    }
    if (ok)
        *ok = success;
    return process.readAllStandardOutput();
}

bool TestEngine::hasLocalImage(const QString& image)
{
    bool ok = false;
    run({QStringLiteral("image"), QStringLiteral("inspect"), localImage(image)}, &ok);
    return ok;
}

QStringList TestEngine::containersWithLabel(const QString& label)
{
    const QByteArray out = run({QStringLiteral("ps"), QStringLiteral("-a"),
                                QStringLiteral("--filter"), QStringLiteral("label=") + label,
                                QStringLiteral("--format"), QStringLiteral("{{.Names}}")});
    return QString::fromUtf8(out).split(u'\n', Qt::SkipEmptyParts);
}

QString TestEngine::describeContainers(const QStringList& names)
{
    if (names.isEmpty())
        return {};
    return QString::fromUtf8(run(QStringList{QStringLiteral("inspect"), QStringLiteral("--format"),
                                             QStringLiteral("{{.Name}} {{.State.Status}} created "
                                                            "{{.Created}} started "
                                                            "{{.State.StartedAt}}")} +
                                 names))
        .trimmed();
}

QStringList TestEngine::waitUntilNoContainerWithLabel(const QString& label, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    QStringList remaining = containersWithLabel(label);
    while (!remaining.isEmpty() && !deadline.hasExpired()) {
        QThread::msleep(200);
        remaining = containersWithLabel(label);
    }
    return remaining;
}
