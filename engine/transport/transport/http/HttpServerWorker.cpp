#include "transport/http/HttpServerWorker.h"

#include "core/FileContentWatcher.h"
#include "core/Logging.h"
#include "transport/http/HttpListenPolicy.h"
#include "transport/http/HttpServer.h"
#include "transport/http/HttpTokenFile.h"
#include "transport/http/McpHttpEndpoint.h"

#include <QDir>
#include <QHostAddress>

namespace csm::http {

HttpServerWorker::HttpServerWorker(HttpServerConfig config, QObject* parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_endpoint(new McpHttpEndpoint(m_config, this))
{
    HttpServer::Limits limits;
    limits.request.maxBodyBytes = m_config.maxRequestBytes;
    limits.timeouts.idleMs = m_config.idleTimeoutSeconds * 1000;
    limits.timeouts.requestMs = m_config.requestTimeoutSeconds * 1000;
    limits.maxConnections = m_config.maxConnections;
    m_server = new HttpServer(*m_endpoint, limits, this);
}

HttpServerWorker::~HttpServerWorker()
{
    delete m_server;
}

void HttpServerWorker::listen()
{
    // Here, where every caller ends up, so that none can serve what the rule refuses.
    if (const std::optional<QString> refusal = HttpListenPolicy::refusal(m_config)) {
        Q_EMIT failed(*refusal);
        return;
    }
    QString host = m_config.host;
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        host = QStringLiteral("127.0.0.1");
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    const QHostAddress address(host);
    if (!m_server->listen(address, m_config.port)) {
        Q_EMIT failed(QStringLiteral("cannot listen on %1 port %2: %3")
                          .arg(host)
                          .arg(m_config.port)
                          .arg(m_server->errorString()));
        return;
    }
    followTokenFile();
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(address.toString());
    url.setPort(m_server->serverPort());
    url.setPath(m_config.path);
    Q_EMIT listening(url);
}

void HttpServerWorker::followTokenFile()
{
    if (m_config.authTokenFile.isEmpty() || m_tokenFile)
        return;
    m_tokenFile = new FileContentWatcher(m_config.authTokenFile, this);
    connect(m_tokenFile, &FileContentWatcher::contentChanged, this, [this] {
        const QString shown = QDir::toNativeSeparators(m_config.authTokenFile);
        const Expected<std::optional<QString>> current =
            HttpTokenFile(m_config.authTokenFile).read();
        if (!current || !*current) {
            qCWarning(lcHttp).noquote()
                << (current ? QStringLiteral("%1 is gone").arg(shown) : current.error())
                << "- clients keep sending the token it held";
            return;
        }
        const QString& token = **current;
        if (token == m_config.authToken)
            return;
        m_config.authToken = token;
        m_endpoint->setAuthToken(token);
        qCInfo(lcHttp).noquote() << "the token in" << shown
                                 << "changed: clients must send the new one from now on";
    });
    m_tokenFile->start();
}

void HttpServerWorker::stop()
{
    m_server->close();
    m_endpoint->closeAllSessions();
}

} // namespace csm::http
