#include "transport/StdioTransport.h"

#include "core/Logging.h"

#include <QJsonDocument>
#include <QSocketNotifier>

#include <cerrno>
#include <cstdio>
#include <cstring>

#ifdef Q_OS_UNIX
#include <unistd.h>
#else
#error "StdioTransport reads stdin through QSocketNotifier, which needs a POSIX file descriptor"
#endif

namespace csm {

StdioTransport::StdioTransport(QObject* parent)
    : QObject(parent)
{}

StdioTransport::~StdioTransport() = default;

void StdioTransport::start()
{
    // A notifier on fd 0 keeps everything on the event loop's thread: no reader thread that
    // would stay blocked in read() when the server wants to exit.
    m_notifier = new QSocketNotifier(STDIN_FILENO, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &StdioTransport::readAvailable);
}

void StdioTransport::readAvailable()
{
    char chunk[64 * 1024];
    const ssize_t count = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (count < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (count <= 0) {
        m_notifier->setEnabled(false);
        if (!m_buffer.trimmed().isEmpty() && !m_discardingOversizedLine)
            Q_EMIT messageReceived(m_buffer); // a last message without its newline
        m_buffer.clear();
        qCInfo(lcMcp) << "stdin closed";
        Q_EMIT closed();
        return;
    }
    m_buffer.append(chunk, count);
    processBuffer();
}

void StdioTransport::processBuffer()
{
    qsizetype start = 0;
    for (;;) {
        const qsizetype newline = m_buffer.indexOf('\n', start);
        if (newline < 0)
            break;
        if (m_discardingOversizedLine) {
            m_discardingOversizedLine = false;
        } else {
            const QByteArray line = m_buffer.mid(start, newline - start).trimmed();
            if (!line.isEmpty())
                Q_EMIT messageReceived(line);
        }
        start = newline + 1;
    }
    m_buffer.remove(0, start);
    if (m_buffer.size() > kMaxMessageBytes) {
        if (!m_discardingOversizedLine) {
            qCWarning(lcMcp) << "dropping a message larger than" << kMaxMessageBytes << "bytes";
            Q_EMIT messageTooLarge();
        }
        m_discardingOversizedLine = true;
        m_buffer.clear();
    }
}

void StdioTransport::send(const QJsonObject& message)
{
    QByteArray line = QJsonDocument(message).toJson(QJsonDocument::Compact);
    line.append('\n');
    if (std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stdout) !=
            static_cast<size_t>(line.size()) ||
        std::fflush(stdout) != 0) {
        qCWarning(lcMcp) << "could not write to stdout:" << std::strerror(errno);
    }
}

} // namespace csm
