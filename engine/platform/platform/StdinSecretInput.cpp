#include "platform/StdinSecretInput.h"

#include <QFile>

#include <cstdio>

#if defined(Q_OS_UNIX)
#include <cerrno>
#include <csignal>
#include <cstring>
#include <termios.h>
#include <unistd.h>
#elif defined(Q_OS_WIN)
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#endif

namespace csm {

namespace {

constexpr int kStdinDescriptor = 0;

void writePrompt(const QString& text)
{
    std::fputs(text.toLocal8Bit().constData(), stderr);
    std::fflush(stderr);
}

QString endOfInput()
{
    return QStringLiteral("no value was typed (end of input)");
}

#if defined(Q_OS_UNIX)

// The terminal's settings from before echo was turned off, for the signal handler: a Ctrl-C at
// the prompt must not leave the user's shell without echo.
struct termios g_savedTerminal;
volatile sig_atomic_t g_echoOff = 0;

constexpr int kRestoringSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

extern "C" void restoreTerminalAndDie(int signal)
{
    if (g_echoOff)
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_savedTerminal);
    const ssize_t written = ::write(STDERR_FILENO, "\n", 1);
    static_cast<void>(written);
    // Die of the signal, as the shell expects: it is blocked while this handler runs and
    // delivered with the default action as soon as the handler returns.
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

// Turns the terminal's echo off for its lifetime. Line editing (backspace) stays on.
class EchoOff final
{
public:
    EchoOff()
    {
        if (::tcgetattr(STDIN_FILENO, &g_savedTerminal) != 0) {
            m_error = QString::fromLocal8Bit(std::strerror(errno));
            return;
        }
        struct sigaction action = {};
        action.sa_handler = restoreTerminalAndDie;
        sigemptyset(&action.sa_mask);
        for (std::size_t i = 0; i < std::size(kRestoringSignals); ++i)
            ::sigaction(kRestoringSignals[i], &action, &m_previous[i]);
        struct termios silent = g_savedTerminal;
        silent.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHOE | ECHOK | ECHONL);
        g_echoOff = 1;
        if (::tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) != 0)
            m_error = QString::fromLocal8Bit(std::strerror(errno));
    }

    ~EchoOff()
    {
        if (g_echoOff)
            ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_savedTerminal);
        g_echoOff = 0;
        for (std::size_t i = 0; i < std::size(kRestoringSignals); ++i)
            ::sigaction(kRestoringSignals[i], &m_previous[i], nullptr);
    }

    EchoOff(const EchoOff&) = delete;
    EchoOff& operator=(const EchoOff&) = delete;

    QString error() const { return m_error; }

private:
    struct sigaction m_previous[std::size(kRestoringSignals)] = {};
    QString m_error;
};

Expected<QByteArray> readLineWithoutEcho()
{
    const EchoOff echoOff;
    if (!echoOff.error().isEmpty())
        return Unexpected(
            QStringLiteral("cannot turn off the terminal's echo: %1").arg(echoOff.error()));
    QByteArray line;
    bool ended = false;
    for (;;) {
        char c = 0;
        const ssize_t n = ::read(STDIN_FILENO, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return Unexpected(QStringLiteral("cannot read the terminal: %1")
                                  .arg(QString::fromLocal8Bit(std::strerror(errno))));
        if (n == 0 || c == '\n') {
            ended = n == 0;
            break;
        }
        line.append(c);
        if (line.size() > StdinSecretInput::kMaxBytes)
            return Unexpected(QStringLiteral("the value is longer than %1 bytes")
                                  .arg(StdinSecretInput::kMaxBytes));
    }
    if (ended && line.isEmpty())
        return Unexpected(endOfInput());
    return line;
}

#elif defined(Q_OS_WIN)

HANDLE g_console = nullptr;
DWORD g_savedMode = 0;
volatile LONG g_echoOff = 0;

// Ctrl-C and Ctrl-Break at the prompt: put the console back, then let the default handler end
// the process.
BOOL WINAPI restoreConsole(DWORD)
{
    if (g_echoOff)
        ::SetConsoleMode(g_console, g_savedMode);
    return FALSE;
}

Expected<QByteArray> readLineWithoutEcho()
{
    g_console = ::GetStdHandle(STD_INPUT_HANDLE);
    if (!::GetConsoleMode(g_console, &g_savedMode))
        return Unexpected(
            QStringLiteral("cannot read the console's mode (error %1)").arg(::GetLastError()));
    ::SetConsoleCtrlHandler(restoreConsole, TRUE);
    g_echoOff = 1;
    ::SetConsoleMode(g_console, (g_savedMode & ~static_cast<DWORD>(ENABLE_ECHO_INPUT)) |
                                    ENABLE_LINE_INPUT | ENABLE_PROCESSED_INPUT);
    QString line;
    bool ended = false;
    bool failed = false;
    DWORD failure = 0;
    for (;;) {
        wchar_t buffer[256];
        DWORD count = 0;
        if (!::ReadConsoleW(g_console, buffer, DWORD(std::size(buffer)), &count, nullptr)) {
            failed = true;
            failure = ::GetLastError();
            break;
        }
        if (count == 0) {
            ended = true;
            break;
        }
        line += QString::fromWCharArray(buffer, int(count));
        if (line.contains(u'\n') || line.size() > StdinSecretInput::kMaxBytes)
            break;
    }
    ::SetConsoleMode(g_console, g_savedMode);
    g_echoOff = 0;
    ::SetConsoleCtrlHandler(restoreConsole, FALSE);
    if (failed)
        return Unexpected(QStringLiteral("cannot read the console (error %1)").arg(failure));
    if (line.size() > StdinSecretInput::kMaxBytes)
        return Unexpected(
            QStringLiteral("the value is longer than %1 bytes").arg(StdinSecretInput::kMaxBytes));
    if (ended && line.isEmpty())
        return Unexpected(endOfInput());
    line = line.section(u'\n', 0, 0);
    if (line.endsWith(u'\r'))
        line.chop(1);
    return line.toUtf8();
}

#else

Expected<QByteArray> readLineWithoutEcho()
{
    return Unexpected(
        QStringLiteral("cannot hide what is typed on this platform: pipe the value in"));
}

#endif

} // namespace

bool StdinSecretInput::isInteractive() const
{
#if defined(Q_OS_UNIX)
    return ::isatty(STDIN_FILENO) != 0;
#elif defined(Q_OS_WIN)
    DWORD mode = 0;
    return ::GetConsoleMode(::GetStdHandle(STD_INPUT_HANDLE), &mode) != 0;
#else
    return false;
#endif
}

Expected<QByteArray> StdinSecretInput::readAll()
{
#if defined(Q_OS_WIN)
    // The bytes as they are: no CR-LF translation, no end at Ctrl-Z.
    ::_setmode(kStdinDescriptor, _O_BINARY);
#endif
    QFile input;
    if (!input.open(kStdinDescriptor, QIODevice::ReadOnly, QFileDevice::DontCloseHandle))
        return Unexpected(
            QStringLiteral("cannot read standard input: %1").arg(input.errorString()));
    QByteArray value;
    for (;;) {
        const QByteArray chunk = input.read(qint64{64} * 1024);
        if (chunk.isEmpty()) {
            if (input.error() != QFileDevice::NoError)
                return Unexpected(
                    QStringLiteral("cannot read standard input: %1").arg(input.errorString()));
            break;
        }
        value += chunk;
        if (value.size() > kMaxBytes)
            return Unexpected(
                QStringLiteral("more than %1 bytes on standard input: is this really the "
                               "secret's value?")
                    .arg(kMaxBytes));
    }
    return value;
}

Expected<QByteArray> StdinSecretInput::readHidden(const QString& prompt)
{
    writePrompt(prompt);
    Expected<QByteArray> line = readLineWithoutEcho();
    // The Enter that ended the line was not echoed either.
    writePrompt(QStringLiteral("\n"));
    return line;
}

} // namespace csm
