#include "pages/ServerPage.h"

#include "clients/ClientConfigMerger.h"
#include "clients/ClientConfigSnippet.h"
#include "clients/ClientServerEntry.h"
#include "clients/McpClient.h"
#include "models/SessionsModel.h"
#include "server/EmbeddedServer.h"
#include "settings/DesktopSettings.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace csm {

namespace {
QString randomToken()
{
    // 32 bytes from the system's CSPRNG, as hex: no character a shell or a header mangles.
    QByteArray bytes(32, Qt::Uninitialized);
    QRandomGenerator::system()->generate(bytes.begin(), bytes.end());
    return QString::fromLatin1(bytes.toHex());
}

QString besideThisProgram(const QString& name)
{
    return QDir(QCoreApplication::applicationDirPath()).filePath(name);
}
} // namespace

ServerPage::ServerPage(const QString& dataDir, EmbeddedServer* server, QWidget* parent)
    : QWidget(parent)
    , m_dataDir(dataDir)
    , m_server(server)
    , m_location(ClientConfigLocation::system())
    , m_status(new QLabel(this))
    , m_host(new QLineEdit(this))
    , m_port(new QSpinBox(this))
    , m_token(new QLineEdit(this))
    , m_startWithApp(new QCheckBox(tr("Start when the app starts"), this))
    , m_startStop(new QPushButton(tr("Start"), this))
    , m_httpState(new QLabel(this))
    , m_sessions(new SessionsModel(this))
    , m_sessionsView(new QTableView(this))
    , m_client(new QComboBox(this))
    , m_variant(new QComboBox(this))
    , m_snippet(new QPlainTextEdit(this))
    , m_notes(new QLabel(this))
    , m_copy(new QPushButton(tr("&Copy"), this))
    , m_install(new QPushButton(this))
    , m_installResult(new QLabel(this))
{
    const DesktopSettings settings = DesktopSettings::load(dataDir);
    m_status->setWordWrap(true);

    // --- HTTP -------------------------------------------------------------------------------
    m_host->setText(settings.httpHost);
    m_port->setRange(0, 65535);
    m_port->setValue(settings.httpPort);
    m_port->setSpecialValueText(tr("any free port"));
    m_token->setText(settings.httpToken);
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setPlaceholderText(tr("none: any program of this user on this machine may call"));
    auto* showToken = new QCheckBox(tr("Show"), this);
    connect(showToken, &QCheckBox::toggled, this, [this](bool show) {
        m_token->setEchoMode(show ? QLineEdit::Normal : QLineEdit::Password);
    });
    auto* generate = new QPushButton(tr("New token"), this);
    connect(generate, &QPushButton::clicked, this, [this] { m_token->setText(randomToken()); });
    m_startWithApp->setChecked(settings.httpStartWithApp);
    m_httpState->setWordWrap(true);
    m_httpState->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* tokenRow = new QHBoxLayout;
    tokenRow->addWidget(m_token, 1);
    tokenRow->addWidget(showToken);
    tokenRow->addWidget(generate);
    auto* httpForm = new QFormLayout;
    httpForm->addRow(tr("Address:"), m_host);
    httpForm->addRow(tr("Port:"), m_port);
    httpForm->addRow(tr("Token:"), tokenRow);
    auto* httpButtons = new QHBoxLayout;
    httpButtons->addWidget(m_startStop);
    httpButtons->addWidget(m_startWithApp);
    httpButtons->addStretch(1);
    auto* httpBox = new QGroupBox(tr("Streamable HTTP"), this);
    auto* httpLayout = new QVBoxLayout(httpBox);
    httpLayout->addLayout(httpForm);
    httpLayout->addLayout(httpButtons);
    httpLayout->addWidget(m_httpState);
    connect(m_startStop, &QPushButton::clicked, this, &ServerPage::startOrStopHttp);

    // --- sessions ---------------------------------------------------------------------------
    m_sessionsView->setModel(m_sessions);
    m_sessionsView->verticalHeader()->hide();
    m_sessionsView->horizontalHeader()->setStretchLastSection(true);
    m_sessionsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto* sessionsBox = new QGroupBox(tr("Connected clients"), this);
    auto* sessionsLayout = new QVBoxLayout(sessionsBox);
    sessionsLayout->addWidget(m_sessionsView);

    // --- client configuration ---------------------------------------------------------------
    for (McpClient client : McpClientTraits::all())
        m_client->addItem(McpClientTraits::displayName(client), int(client));
    m_variant->addItem(tr("Headless server (stdio)"), int(Variant::HeadlessStdio));
    m_variant->addItem(tr("This app, watched live (stdio)"), int(Variant::DesktopStdio));
    m_variant->addItem(tr("This app's HTTP server"), int(Variant::Http));
    m_snippet->setReadOnly(true);
    m_snippet->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_snippet->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_notes->setWordWrap(true);
    m_installResult->setWordWrap(true);
    m_installResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* choice = new QHBoxLayout;
    choice->addWidget(m_client);
    choice->addWidget(m_variant);
    choice->addStretch(1);
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_copy);
    actions->addWidget(m_install);
    actions->addStretch(1);
    auto* clientBox = new QGroupBox(tr("Connect an assistant"), this);
    auto* clientLayout = new QVBoxLayout(clientBox);
    clientLayout->addLayout(choice);
    clientLayout->addWidget(m_snippet, 1);
    clientLayout->addWidget(m_notes);
    clientLayout->addLayout(actions);
    clientLayout->addWidget(m_installResult);
    connect(m_client, &QComboBox::currentIndexChanged, this, &ServerPage::updateSnippet);
    connect(m_variant, &QComboBox::currentIndexChanged, this, &ServerPage::updateSnippet);
    connect(m_token, &QLineEdit::textChanged, this, &ServerPage::updateSnippet);
    connect(m_host, &QLineEdit::textChanged, this, &ServerPage::updateSnippet);
    connect(m_port, &QSpinBox::valueChanged, this, &ServerPage::updateSnippet);
    connect(m_copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_snippet->toPlainText()); });
    connect(m_install, &QPushButton::clicked, this, &ServerPage::installIntoClient);

    auto* top = new QHBoxLayout;
    auto* left = new QVBoxLayout;
    left->addWidget(httpBox);
    left->addWidget(sessionsBox, 1);
    top->addLayout(left, 2);
    top->addWidget(clientBox, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addLayout(top, 1);

    if (m_server) {
        connect(m_server, &EmbeddedServer::statusChanged, this, &ServerPage::showStatus);
        connect(m_server, &EmbeddedServer::httpListening, this, &ServerPage::setHttpRunning);
        connect(m_server, &EmbeddedServer::httpFailed, this, &ServerPage::setHttpStopped);
        connect(m_server, &EmbeddedServer::httpStopped, this,
                [this] { setHttpStopped(QString()); });
    } else {
        httpBox->setEnabled(false);
    }
    showStatus(m_server ? m_server->status() : ServerStatus{});
    setHttpStopped(QString());
    updateSnippet();
}

void ServerPage::setClientConfigLocation(const ClientConfigLocation& location)
{
    m_location = location;
    updateSnippet();
}

void ServerPage::startOrStopHttp()
{
    if (!m_server)
        return;
    if (m_httpUrl.isValid() || m_httpStarting) {
        m_server->stopHttp();
        return;
    }
    DesktopSettings settings = DesktopSettings::load(m_dataDir);
    settings.httpHost = m_host->text().trimmed();
    settings.httpPort = m_port->value();
    settings.httpToken = m_token->text().trimmed();
    settings.httpStartWithApp = m_startWithApp->isChecked();
    QString error;
    if (!settings.save(m_dataDir, &error))
        m_httpState->setText(tr("Not saved: %1").arg(error));
    http::HttpServerConfig config;
    config.host = settings.httpHost;
    config.port = static_cast<quint16>(settings.httpPort);
    config.authToken = settings.httpToken;
    m_httpStarting = true;
    m_startStop->setText(tr("Stop"));
    m_httpState->setText(tr("Starting…"));
    for (QWidget* input : {static_cast<QWidget*>(m_host), static_cast<QWidget*>(m_port),
                           static_cast<QWidget*>(m_token)})
        input->setEnabled(false);
    m_server->startHttp(config);
}

void ServerPage::setHttpRunning(const QUrl& url)
{
    m_httpStarting = false;
    m_httpUrl = url;
    m_startStop->setText(tr("Stop"));
    m_httpState->setText(
        tr("Serving MCP at <b>%1</b>%2")
            .arg(url.toString().toHtmlEscaped(), m_token->text().isEmpty()
                                                     ? tr(" (no token: loopback only)")
                                                     : tr(" (clients must send the token)")));
    updateSnippet();
}

void ServerPage::setHttpStopped(const QString& error)
{
    m_httpStarting = false;
    m_httpUrl.clear();
    m_startStop->setText(tr("Start"));
    m_startStop->setEnabled(m_server != nullptr);
    for (QWidget* input : {static_cast<QWidget*>(m_host), static_cast<QWidget*>(m_port),
                           static_cast<QWidget*>(m_token)})
        input->setEnabled(true);
    m_httpState->setText(error.isEmpty()
                             ? tr("Not serving over HTTP.")
                             : tr("<b>Could not serve:</b> %1").arg(error.toHtmlEscaped()));
    updateSnippet();
}

void ServerPage::showStatus(const ServerStatus& status)
{
    m_sessions->setSessions(status.sessions);
    if (!m_server) {
        m_status->setText(tr("This window runs no MCP server of its own; it shows the runs of "
                             "every Code Sandbox server."));
        return;
    }
    if (!status.running) {
        m_status->setText(tr("The app's MCP server is stopped."));
        return;
    }
    QStringList parts;
    parts << tr("The app's MCP server is running");
    if (m_server->isServingStdio())
        parts << tr("serving the client that started it over stdio");
    parts << tr("%n client(s) connected", nullptr, static_cast<int>(status.sessions.size()));
    parts << tr("%n call(s) running", nullptr, status.runningCalls);
    if (status.pendingApprovals > 0)
        parts << tr("%n waiting for your approval", nullptr, status.pendingApprovals);
    m_status->setText(parts.join(QStringLiteral(" · ")));
}

ClientServerEntry ServerPage::entry() const
{
    switch (static_cast<Variant>(m_variant->currentData().toInt())) {
    case Variant::HeadlessStdio:
        return ClientServerEntry::stdio(besideThisProgram(QStringLiteral("code-sandbox-mcp")));
    case Variant::DesktopStdio:
        return ClientServerEntry::stdio(QCoreApplication::applicationFilePath(),
                                        {QStringLiteral("--stdio")});
    case Variant::Http:
        break;
    }
    if (m_httpUrl.isValid())
        return ClientServerEntry::http(m_httpUrl, m_token->text().trimmed());
    http::HttpServerConfig config;
    config.host = m_host->text().trimmed();
    config.port = static_cast<quint16>(m_port->value());
    config.authToken = m_token->text().trimmed();
    return ClientServerEntry::http(ClientServerEntry::urlFor(config), config.authToken);
}

void ServerPage::updateSnippet()
{
    const auto client = static_cast<McpClient>(m_client->currentData().toInt());
    const ClientServerEntry server = entry();
    m_snippet->setPlainText(ClientConfigSnippet::text(client, server));
    QString notes = ClientConfigSnippet::notes(client, server.transport);
    if (server.transport == ClientServerEntry::Transport::Http && !m_httpUrl.isValid())
        notes += QLatin1Char(' ') + tr("Start the HTTP server for this to work.");
    m_notes->setText(notes);
    m_install->setText(tr("Add to %1's configuration").arg(McpClientTraits::displayName(client)));
    m_install->setToolTip(QDir::toNativeSeparators(m_location.configPath(client)));
    const QString problem = server.problem();
    m_install->setEnabled(problem.isEmpty());
    m_copy->setEnabled(problem.isEmpty());
    if (!problem.isEmpty())
        m_notes->setText(problem);
}

void ServerPage::installIntoClient()
{
    const auto client = static_cast<McpClient>(m_client->currentData().toInt());
    const QString path = m_location.configPath(client);
    const ClientConfigChange change = ClientConfigMerger(client).install(path, entry());
    const QString file = QDir::toNativeSeparators(path);
    if (!change.succeeded()) {
        m_installResult->setText(tr("<b>Not changed:</b> %1").arg(change.error.toHtmlEscaped()));
        return;
    }
    QString text;
    switch (change.action) {
    case ClientConfigChange::Action::Created:
        text = tr("Created %1 with Code Sandbox in it.").arg(file);
        break;
    case ClientConfigChange::Action::Added:
        text = tr("Added Code Sandbox to %1.").arg(file);
        break;
    case ClientConfigChange::Action::Replaced:
        text = tr("Updated Code Sandbox's entry in %1.").arg(file);
        break;
    default:
        text = tr("%1 already has this entry; nothing changed.").arg(file);
        break;
    }
    if (!change.backupPath.isEmpty())
        text +=
            QLatin1Char(' ') +
            tr("The previous file is kept as %1.").arg(QDir::toNativeSeparators(change.backupPath));
    text +=
        QLatin1Char(' ') + tr("Restart %1 to use it.").arg(McpClientTraits::displayName(client));
    m_installResult->setText(text.toHtmlEscaped());
}

} // namespace csm
