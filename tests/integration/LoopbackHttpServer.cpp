#include "LoopbackHttpServer.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QRegularExpression>

LoopbackHttpServer::~LoopbackHttpServer()
{
    // SIGTERM first: a script removes what it made.
    m_process.terminate();
    if (!m_process.waitForFinished(5000)) {
        m_process.kill();
        m_process.waitForFinished(2000);
    }
}

bool LoopbackHttpServer::start(const QString& address)
{
    return startProcess(QStringLiteral("python3"),
                        {QStringLiteral("-u"), QStringLiteral("-m"), QStringLiteral("http.server"),
                         QStringLiteral("--bind"), address, QStringLiteral("0")});
}

bool LoopbackHttpServer::startWithScript(const QString& script)
{
    return startProcess(script, {m_folder.path()});
}

bool LoopbackHttpServer::startProcess(const QString& program, const QStringList& arguments)
{
    if (!m_folder.isValid())
        return false;
    QFile page(m_folder.filePath(QStringLiteral("hello.txt")));
    const QByteArray content(kPage);
    if (!page.open(QIODevice::WriteOnly) || page.write(content) != content.size())
        return false;
    page.close();
    m_process.setWorkingDirectory(m_folder.path());
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    m_process.start(program, arguments);
    static const QRegularExpression serving(QStringLiteral("Serving HTTP on (\\S+) port (\\d+)"));
    for (QDeadlineTimer deadline(10'000); !deadline.hasExpired();) {
        m_process.waitForReadyRead(100);
        m_log += m_process.readAll();
        if (const auto match = serving.match(QString::fromUtf8(m_log)); match.hasMatch()) {
            m_address = match.captured(1);
            m_port = match.captured(2).toInt();
            return true;
        }
    }
    return false;
}

QString LoopbackHttpServer::hostPort() const
{
    return QStringLiteral("%1:%2").arg(m_address).arg(m_port);
}

QString LoopbackHttpServer::log()
{
    m_log += m_process.readAll();
    return QString::fromUtf8(m_log);
}

int LoopbackHttpServer::pagesServed(int count)
{
    QDeadlineTimer deadline(10'000);
    while (log().count(QStringLiteral("GET /hello.txt")) < count && !deadline.hasExpired())
        m_process.waitForReadyRead(100);
    return int(log().count(QStringLiteral("GET /hello.txt")));
}
