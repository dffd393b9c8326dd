#include "ui/pages/ServerPage.h"

#include "clients/ClientConfigMerger.h"
#include "clients/ClientConfigSnippet.h"
#include "clients/ClientServerEntry.h"
#include "clients/McpClient.h"
#include "server/EmbeddedServer.h"
#include "transport/http/HttpTokenFile.h"
#include "ui/models/SessionsModel.h"
#include "ui/Plural.h"
#include "ui/settings/DesktopSettings.h"
#include "ui/widgets/InterpreterSessionsBox.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
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
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace csm {

namespace {
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
    , m_allowRemote(new QCheckBox(tr("Allow other machines"), this))
    , m_newToken(new QPushButton(tr("New token"), this))
    , m_tokenSource(new QLabel(this))
    , m_tokenNotice(new QLabel(this))
    , m_updateClients(new QPushButton(this))
    , m_startWithApp(new QCheckBox(tr("Start when the app starts"), this))
    , m_startStop(new QPushButton(tr("Start"), this))
    , m_httpState(new QLabel(this))
    , m_sessions(new SessionsModel(this))
    , m_sessionsView(new QTableView(this))
    , m_interpreterSessions(new InterpreterSessionsBox(this))
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
    // URLs and counts only, but never markup.
    m_status->setTextFormat(Qt::PlainText);

    // --- HTTP -------------------------------------------------------------------------------
    m_host->setText(settings.httpHost);
    m_port->setRange(0, 65535);
    m_port->setValue(settings.httpPort);
    m_port->setSpecialValueText(tr("any free port"));
    const Expected<QString> sharedToken = http::HttpTokenFile::inDataDir(dataDir).readOrCreate();
    m_sharedToken = sharedToken.valueOr(QString());
    m_token->setText(settings.httpToken.isEmpty() ? m_sharedToken : settings.httpToken);
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setPlaceholderText(tr("none: the server will not start without one"));
    auto* showToken = new QCheckBox(tr("Show"), this);
    connect(showToken, &QCheckBox::toggled, this, [this](bool show) {
        m_token->setEchoMode(show ? QLineEdit::Normal : QLineEdit::Password);
    });
    m_newToken->setToolTip(tr("Replace the shared token with a new one: clients that have the "
                              "old one are refused from then on."));
    connect(m_newToken, &QPushButton::clicked, this, &ServerPage::rotateToken);
    m_tokenSource->setWordWrap(true);
    m_tokenNotice->setWordWrap(true);
    m_tokenNotice->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (!sharedToken)
        m_tokenNotice->setText(tr("<b>The shared token cannot be used:</b> %1")
                                   .arg(sharedToken.error().toHtmlEscaped()));
    m_updateClients->hide();
    connect(m_updateClients, &QPushButton::clicked, this, &ServerPage::updateStaleClients);
    m_allowRemote->setChecked(settings.httpAllowRemote);
    m_allowRemote->setToolTip(tr("Needed for an address other than 127.0.0.1 or ::1; the token "
                                 "must then have 16 characters or more."));
    m_startWithApp->setChecked(settings.httpStartWithApp);
    m_httpState->setWordWrap(true);
    m_httpState->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* tokenRow = new QHBoxLayout;
    tokenRow->addWidget(m_token, 1);
    tokenRow->addWidget(showToken);
    tokenRow->addWidget(m_newToken);
    auto* httpForm = new QFormLayout;
    httpForm->addRow(tr("Address:"), m_host);
    httpForm->addRow(QString(), m_allowRemote);
    httpForm->addRow(tr("Port:"), m_port);
    httpForm->addRow(tr("Token:"), tokenRow);
    httpForm->addRow(QString(), m_tokenSource);
    auto* httpButtons = new QHBoxLayout;
    httpButtons->addWidget(m_startStop);
    httpButtons->addWidget(m_startWithApp);
    httpButtons->addStretch(1);
    auto* httpBox = new QGroupBox(tr("Streamable HTTP"), this);
    auto* httpLayout = new QVBoxLayout(httpBox);
    httpLayout->addLayout(httpForm);
    httpLayout->addLayout(httpButtons);
    httpLayout->addWidget(m_httpState);
    httpLayout->addWidget(m_tokenNotice);
    httpLayout->addWidget(m_updateClients, 0, Qt::AlignLeft);
    connect(m_token, &QLineEdit::textChanged, this, &ServerPage::showTokenSource);
    showTokenSource();
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
    clientBox->setObjectName(QStringLiteral("clientBox"));
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
    connect(m_interpreterSessions, &InterpreterSessionsBox::showCellsRequested, this,
            &ServerPage::showSessionCellsRequested);
    if (m_server) {
        connect(m_interpreterSessions, &InterpreterSessionsBox::endRequested, m_server,
                &EmbeddedServer::endInterpreterSession);
    }

    auto* top = new QHBoxLayout;
    auto* left = new QVBoxLayout;
    left->addWidget(httpBox);
    left->addWidget(sessionsBox, 1);
    left->addWidget(m_interpreterSessions, 1);
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
    // Stable names: tests find the widgets by them (findChild).
    m_status->setObjectName(QStringLiteral("serverStatus"));
    m_host->setObjectName(QStringLiteral("hostEdit"));
    m_port->setObjectName(QStringLiteral("portEdit"));
    m_token->setObjectName(QStringLiteral("tokenEdit"));
    m_allowRemote->setObjectName(QStringLiteral("allowRemoteBox"));
    m_newToken->setObjectName(QStringLiteral("newTokenButton"));
    m_tokenSource->setObjectName(QStringLiteral("tokenSource"));
    m_tokenNotice->setObjectName(QStringLiteral("tokenNotice"));
    m_updateClients->setObjectName(QStringLiteral("updateClientsButton"));
    m_startStop->setObjectName(QStringLiteral("startStopButton"));
    m_httpState->setObjectName(QStringLiteral("httpState"));
    m_sessionsView->setObjectName(QStringLiteral("sessionsView"));
    m_sessions->setObjectName(QStringLiteral("sessions"));
    m_client->setObjectName(QStringLiteral("clientChoice"));
    m_variant->setObjectName(QStringLiteral("variantChoice"));
    m_snippet->setObjectName(QStringLiteral("snippet"));
    m_copy->setObjectName(QStringLiteral("copyButton"));
    m_install->setObjectName(QStringLiteral("installButton"));
    m_installResult->setObjectName(QStringLiteral("installResult"));
}

void ServerPage::setClientConfigLocation(const ClientConfigLocation& location)
{
    m_location = location;
    updateSnippet();
}

void ServerPage::showClientConfiguration()
{
    m_client->setFocus(Qt::OtherFocusReason);
}

void ServerPage::startOrStopHttp()
{
    if (!m_server)
        return;
    if (m_httpUrl.isValid() || m_httpStarting) {
        m_server->stopHttp();
        return;
    }
    startHttp();
}

bool ServerPage::usesSharedToken() const
{
    return !m_sharedToken.isEmpty() && m_token->text().trimmed() == m_sharedToken;
}

http::HttpServerConfig ServerPage::httpConfig() const
{
    DesktopSettings settings;
    settings.httpHost = m_host->text().trimmed();
    settings.httpPort = m_port->value();
    settings.httpAllowRemote = m_allowRemote->isChecked();
    http::HttpServerConfig config = settings.httpServerConfig();
    // What the field says, even empty: the listener, not this page, decides what may serve.
    config.authToken = m_token->text().trimmed();
    if (usesSharedToken())
        config.authTokenFile = http::HttpTokenFile::inDataDir(m_dataDir).path();
    return config;
}

void ServerPage::startHttp()
{
    DesktopSettings settings = DesktopSettings::load(m_dataDir);
    const http::HttpServerConfig config = httpConfig();
    settings.httpHost = config.host;
    settings.httpPort = config.port;
    settings.httpAllowRemote = config.allowRemote;
    // The shared token is not copied into settings.ini: it stays where servers follow it.
    settings.httpToken = usesSharedToken() ? QString() : config.authToken;
    settings.httpStartWithApp = m_startWithApp->isChecked();
    if (const Expected<void> saved = settings.save(m_dataDir); !saved)
        m_httpState->setText(tr("Not saved: %1").arg(saved.error()));
    m_httpStarting = true;
    m_startStop->setText(tr("Stop"));
    m_httpState->setText(tr("Starting…"));
    for (QWidget* input : {static_cast<QWidget*>(m_host), static_cast<QWidget*>(m_port),
                           static_cast<QWidget*>(m_token), static_cast<QWidget*>(m_allowRemote)})
        input->setEnabled(false);
    m_server->startHttp(config);
}

void ServerPage::showTokenSource()
{
    const QString token = m_token->text().trimmed();
    if (token.isEmpty()) {
        m_tokenSource->setText(tr("Every HTTP server asks for a token; \"New token\" makes one."));
    } else if (usesSharedToken()) {
        m_tokenSource->setText(
            tr("The token your HTTP servers share (code-sandbox-mcp --transport http too), kept "
               "in %1, readable by you only.")
                .arg(QDir::toNativeSeparators(http::HttpTokenFile::inDataDir(m_dataDir).path())));
    } else {
        m_tokenSource->setText(tr("A token of this app's own, saved in %1 (readable by you only).")
                                   .arg(QDir::toNativeSeparators(
                                       QDir(m_dataDir).filePath(QStringLiteral("settings.ini")))));
    }
}

void ServerPage::rotateToken()
{
    const ClientServerEntry before = httpEntry(m_token->text().trimmed());
    const Expected<QString> token = http::HttpTokenFile::inDataDir(m_dataDir).rotate();
    if (!token) {
        m_tokenNotice->setText(tr("<b>No new token:</b> %1").arg(token.error().toHtmlEscaped()));
        return;
    }
    m_sharedToken = *token;
    m_token->setText(*token);
    // The clients that were given the old token, found by the entry they hold.
    m_staleClients.clear();
    for (const McpClient client : McpClientTraits::all()) {
        QFile file(m_location.configPath(client));
        if (!before.token.isEmpty() && file.open(QIODevice::ReadOnly) &&
            ClientConfigMerger(client).merge(file.readAll(), before).action ==
                ClientConfigChange::Action::Unchanged)
            m_staleClients << client;
    }
    QString notice =
        tr("A new token is in use. Clients that have the old one are refused (401) until they "
           "get this one; running code-sandbox-mcp HTTP servers that share it switch at once.");
    if (m_httpUrl.isValid() || m_httpStarting) {
        notice += QLatin1Char(' ') + tr("This app's HTTP server was restarted with it.");
        startHttp();
    } else {
        DesktopSettings settings = DesktopSettings::load(m_dataDir);
        settings.httpToken.clear();
        // The shared token is the one in use either way; an old own token left stored is
        // replaced the next time the settings are saved.
        static_cast<void>(settings.save(m_dataDir));
    }
    m_tokenNotice->setText(notice.toHtmlEscaped());
    QStringList names;
    for (const McpClient client : std::as_const(m_staleClients))
        names << McpClientTraits::displayName(client);
    m_updateClients->setText(tr("Give the new token to %1").arg(names.join(QStringLiteral(", "))));
    m_updateClients->setVisible(!m_staleClients.isEmpty());
}

void ServerPage::updateStaleClients()
{
    const ClientServerEntry after = httpEntry(m_token->text().trimmed());
    QStringList done;
    QStringList problems;
    for (const McpClient client : std::as_const(m_staleClients)) {
        const QString path = m_location.configPath(client);
        const ClientConfigChange change = ClientConfigMerger(client).install(path, after);
        if (change.succeeded())
            done << tr("%1 (%2)").arg(McpClientTraits::displayName(client),
                                      QDir::toNativeSeparators(path));
        else
            problems << change.error;
        problems << change.warnings;
    }
    m_staleClients.clear();
    m_updateClients->hide();
    QString text;
    if (!done.isEmpty())
        text = tr("Updated %1: restart them to use the new token.")
                   .arg(done.join(QStringLiteral(", ")));
    for (const QString& problem : std::as_const(problems))
        text += QLatin1Char(' ') + problem;
    m_tokenNotice->setText(text.toHtmlEscaped());
}

void ServerPage::setHttpRunning(const QUrl& url)
{
    m_httpStarting = false;
    m_httpUrl = url;
    m_startStop->setText(tr("Stop"));
    m_httpState->setText(tr("Listening at <b>%1</b> (clients must send the token)")
                             .arg(url.toString().toHtmlEscaped()));
    updateSnippet();
}

void ServerPage::setHttpStopped(const QString& error)
{
    m_httpStarting = false;
    m_httpUrl.clear();
    m_startStop->setText(tr("Start"));
    m_startStop->setEnabled(m_server != nullptr);
    for (QWidget* input : {static_cast<QWidget*>(m_host), static_cast<QWidget*>(m_port),
                           static_cast<QWidget*>(m_token), static_cast<QWidget*>(m_allowRemote)})
        input->setEnabled(true);
    m_httpState->setText(error.isEmpty()
                             ? tr("Not listening: clients cannot connect over HTTP until it "
                                  "is started.")
                             : tr("<b>Could not serve:</b> %1").arg(error.toHtmlEscaped()));
    updateSnippet();
}

void ServerPage::showStatus(const ServerStatus& status)
{
    m_sessions->setSessions(status.sessions);
    m_interpreterSessions->setSessions(status.interpreterSessions);
    m_interpreterSessions->setEnabled(m_server != nullptr);
    if (!m_server) {
        m_status->setText(tr("This window runs no MCP server of its own; it shows the runs of "
                             "every Code Sandbox server."));
        return;
    }
    if (!status.running) {
        m_status->setText(tr("The in-app MCP server is stopped: no re-runs, and no client can "
                             "reach this app, over stdio or HTTP."));
        return;
    }
    // Two things run, or not, apart: the in-app server, always on while the app runs, and its
    // HTTP listener, started below. "Running" next to "not serving over HTTP" read as a
    // contradiction.
    QStringList lines;
    lines << (m_server->isServingStdio()
                  ? tr("In-app MCP server: running, serving the client that started it over "
                       "stdio, and re-runs from the Runs page.")
                  : tr("In-app MCP server: running, for re-runs from the Runs page and for "
                       "clients that start code-sandbox-desktop --stdio."));
    lines << (status.httpUrl.isValid()
                  ? tr("HTTP listener: on, at %1.").arg(status.httpUrl.toString())
                  : tr("HTTP listener: off (start it below to let clients connect over HTTP)."));
    QStringList activity;
    activity << tr("%1 connected").arg(Plural::of(status.sessions.size(), "client", "clients"));
    activity << tr("%1 running").arg(Plural::of(status.runningCalls, "call", "calls"));
    if (status.pendingApprovals > 0)
        activity << tr("%n waiting for your approval", nullptr, status.pendingApprovals);
    lines << activity.join(QStringLiteral(" · "));
    m_status->setText(lines.join(QLatin1Char('\n')));
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
    return httpEntry(m_token->text().trimmed());
}

ClientServerEntry ServerPage::httpEntry(const QString& token) const
{
    if (m_httpUrl.isValid())
        return ClientServerEntry::http(m_httpUrl, token);
    return ClientServerEntry::http(httpConfig().clientUrl(), token);
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
    for (const QString& warning : change.warnings)
        text += QLatin1Char(' ') + tr("Warning: %1.").arg(warning);
    m_installResult->setText(text.toHtmlEscaped());
}

} // namespace csm
