#include "platform/ProcessProbe.h"

#include <QCoreApplication>

#if defined(Q_OS_LINUX)
#include <QFile>
#include <QFileInfo>
#endif

#if defined(Q_OS_UNIX)
#include <cerrno>
#include <csignal>
#include <sys/types.h>
#elif defined(Q_OS_WIN)
#include <windows.h>
#endif

namespace csm {

namespace {
constexpr QLatin1String kNamePrefix("code-sandbox");

enum class Existence
{
    Exists,
    Gone,
};

Existence processExistence(qint64 pid)
{
#if defined(Q_OS_UNIX)
    const auto nativePid = static_cast<pid_t>(pid);
    if (static_cast<qint64>(nativePid) != pid)
        return Existence::Gone;
    // EPERM: it exists but belongs to someone else.
    return ::kill(nativePid, 0) == 0 || errno == EPERM ? Existence::Exists : Existence::Gone;
#elif defined(Q_OS_WIN)
    HANDLE process =
        ::OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
    if (!process)
        return ::GetLastError() == ERROR_ACCESS_DENIED ? Existence::Exists : Existence::Gone;
    DWORD exitCode = 0;
    const bool running = ::GetExitCodeProcess(process, &exitCode) && exitCode == STILL_ACTIVE;
    ::CloseHandle(process);
    return running ? Existence::Exists : Existence::Gone;
#else
    Q_UNUSED(pid);
    return Existence::Exists;
#endif
}

#if defined(Q_OS_LINUX)
enum class NameCheck
{
    Matches,
    Differs,
    Unknown,
};

// A killed server whose parent has not reaped it yet is a zombie: it still has a pid and a
// name, but it is as dead as it gets.
bool isLinuxZombie(const QString& proc)
{
    QFile stat(proc + QLatin1String("stat"));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    // "PID (COMM) STATE ...": COMM may itself hold parentheses and spaces, so take the last ')'.
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    if (close < 0 || close + 2 >= line.size())
        return false;
    const char state = line.at(close + 2);
    return state == 'Z' || state == 'X';
}

NameCheck checkLinuxName(const QString& proc)
{
    bool anyRead = false;
    // comm is cut to 15 characters ("code-sandbox-mc"): the prefix still fits.
    QFile comm(proc + QLatin1String("comm"));
    if (comm.open(QIODevice::ReadOnly)) {
        anyRead = true;
        if (QString::fromUtf8(comm.readAll()).trimmed().startsWith(kNamePrefix))
            return NameCheck::Matches;
    }
    // comm can be renamed by the process (prctl); the executable is what it was started as.
    const QString executable = QFileInfo(proc + QLatin1String("exe")).symLinkTarget();
    if (!executable.isEmpty()) {
        anyRead = true;
        if (QFileInfo(executable).fileName().startsWith(kNamePrefix))
            return NameCheck::Matches;
    }
    return anyRead ? NameCheck::Differs : NameCheck::Unknown;
}
#endif
} // namespace

bool ProcessProbe::isCodeSandboxProcessAlive(qint64 pid)
{
    if (pid <= 0)
        return false;
    if (pid == QCoreApplication::applicationPid())
        return true;
    if (processExistence(pid) == Existence::Gone)
        return false;
#if defined(Q_OS_LINUX)
    const QString proc = QStringLiteral("/proc/%1/").arg(pid);
    if (isLinuxZombie(proc))
        return false;
    return checkLinuxName(proc) != NameCheck::Differs;
#else
    // No cheap portable way to read another process's name: existence has to do.
    return true;
#endif
}

} // namespace csm
