#include "platform/ShutdownSignals.h"

#include "core/Logging.h"

#include <QSocketNotifier>

#ifdef Q_OS_UNIX
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace csm {

#ifdef Q_OS_UNIX
namespace {
// The self-pipe trick: a signal handler may only do async-signal-safe things, such as write().
int g_signalSocket[2] = {-1, -1};

void writeSignalNumber(int signalNumber)
{
    const unsigned char byte = static_cast<unsigned char>(signalNumber);
    [[maybe_unused]] const ssize_t written = ::write(g_signalSocket[0], &byte, 1);
}
} // namespace

ShutdownSignals::ShutdownSignals(QObject* parent)
    : QObject(parent)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalSocket) != 0) {
        qCWarning(lcServer) << "no signal handling: socketpair failed";
        return;
    }
    m_notifier = new QSocketNotifier(g_signalSocket[1], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &ShutdownSignals::onReadable);

    struct sigaction action = {};
    action.sa_handler = writeSignalNumber;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int signalNumber : {SIGTERM, SIGINT, SIGHUP})
        ::sigaction(signalNumber, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

ShutdownSignals::~ShutdownSignals()
{
    for (int signalNumber : {SIGTERM, SIGINT, SIGHUP})
        std::signal(signalNumber, SIG_DFL);
    for (int& fd : g_signalSocket) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
}

void ShutdownSignals::onReadable()
{
    unsigned char byte = 0;
    if (::read(g_signalSocket[1], &byte, 1) == 1) {
        qCInfo(lcServer) << "received signal" << byte;
        Q_EMIT shutdownRequested(byte);
    }
}
#else
ShutdownSignals::ShutdownSignals(QObject* parent)
    : QObject(parent)
{}
ShutdownSignals::~ShutdownSignals() = default;
void ShutdownSignals::onReadable() {}
#endif

} // namespace csm
