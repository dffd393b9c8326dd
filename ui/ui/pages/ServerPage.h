#pragma once

#include "clients/ClientConfigLocation.h"
#include "clients/McpClient.h"
#include "server/ServerStatus.h"
#include "transport/http/HttpServerConfig.h"

#include <QUrl>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace csm {

class EmbeddedServer;
class InterpreterSessionsBox;
class SessionsModel;
struct ClientServerEntry;

// The app's own MCP server: its Streamable HTTP transport started and stopped here (host, port,
// token), the sessions connected to it, and each client's configuration to reach it, ready to
// paste or merged into the client's file.
//
// The token is always asked for. It is the one this user's servers share (HttpTokenFile, in the
// data folder) unless the field is changed to one of the app's own; "New token" replaces the
// shared one, restarts a running server with it and offers to update the client files that hold
// the old one. What the listener refuses (HttpListenPolicy) is shown as it says it.
class ServerPage final : public QWidget
{
    Q_OBJECT

public:
    enum class Variant
    {
        HeadlessStdio, // the client starts code-sandbox-mcp
        DesktopStdio,  // the client starts code-sandbox-desktop --stdio
        Http,          // the client connects to this app's HTTP server
    };

    // `server` may be null (the page then says that the app runs no server).
    ServerPage(const QString& dataDir, EmbeddedServer* server, QWidget* parent = nullptr);

    // Where clients' files are looked for (tests point it at a temporary home).
    void setClientConfigLocation(const ClientConfigLocation& location);

    QUrl httpUrl() const { return m_httpUrl; }

    // Puts the focus on the clients' configuration ("Connect an assistant").
    void showClientConfiguration();

Q_SIGNALS:
    // The user asked to see a live interpreter session's cells (on the Runs page).
    void showSessionCellsRequested(const QString& key, const QString& name);

private:
    void startOrStopHttp();
    // Starts (or restarts) HTTP with what the fields say, saving them first.
    void startHttp();
    http::HttpServerConfig httpConfig() const;
    // The token of the fields is the shared one (else the app's own).
    bool usesSharedToken() const;
    void showTokenSource();
    void rotateToken();
    void updateStaleClients();
    void showStatus(const ServerStatus& status);
    void setHttpRunning(const QUrl& url);
    void setHttpStopped(const QString& error);
    void updateSnippet();
    void installIntoClient();
    ClientServerEntry entry() const;
    // This app's HTTP server, as a client reaches it, with `token`.
    ClientServerEntry httpEntry(const QString& token) const;

    QString m_dataDir;
    EmbeddedServer* m_server;
    ClientConfigLocation m_location;
    QUrl m_httpUrl;
    bool m_httpStarting = false;
    // The data folder's shared token, as last read or written here (empty if it cannot be).
    QString m_sharedToken;
    // After "New token": the clients whose files hold the entry with the old token.
    QList<McpClient> m_staleClients;
    QLabel* m_status = nullptr;
    QLineEdit* m_host = nullptr;
    QSpinBox* m_port = nullptr;
    QLineEdit* m_token = nullptr;
    QCheckBox* m_allowRemote = nullptr;
    QPushButton* m_newToken = nullptr;
    QLabel* m_tokenSource = nullptr;
    QLabel* m_tokenNotice = nullptr;
    QPushButton* m_updateClients = nullptr;
    QCheckBox* m_startWithApp = nullptr;
    QPushButton* m_startStop = nullptr;
    QLabel* m_httpState = nullptr;
    SessionsModel* m_sessions = nullptr;
    QTableView* m_sessionsView = nullptr;
    InterpreterSessionsBox* m_interpreterSessions = nullptr;
    QComboBox* m_client = nullptr;
    QComboBox* m_variant = nullptr;
    QPlainTextEdit* m_snippet = nullptr;
    QLabel* m_notes = nullptr;
    QPushButton* m_copy = nullptr;
    QPushButton* m_install = nullptr;
    QLabel* m_installResult = nullptr;
};

} // namespace csm
