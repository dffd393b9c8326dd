// The app's own MCP server, driven through the real main window under the offscreen platform:
// the Server page starts and stops Streamable HTTP and a real client calls through it, approval
// mode asks in a dialog (approve, deny, no answer), the client configuration is merged into a
// client's file, closing the window during a call asks first, and `code-sandbox-desktop --stdio`
// serves a client on its stdin/stdout. Runs in a real engine (CSM_TEST_ENGINE=podman|docker).
#include "AsyncMcpClient.h"
#include "CallResult.h"
#include "clients/ClientConfigLocation.h"
#include "FindNamed.h"
#include "history/HistoryStore.h"
#include "McpStdioClient.h"
#include "server/EmbeddedServer.h"
#include "TestEngine.h"
#include "TestServer.h"
#include "transport/http/HttpTokenFile.h"
#include "ui/ApprovalPrompter.h"
#include "ui/DesktopNotifier.h"
#include "ui/dialogs/ApprovalDialog.h"
#include "ui/MainWindow.h"
#include "ui/models/RunsModel.h"
#include "ui/models/SessionsModel.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/pages/RunsPage.h"
#include "ui/pages/ServerPage.h"
#include "ui/pages/SettingsPage.h"
#include "ui/settings/DesktopSettings.h"
#include "ui/widgets/CodeView.h"
#include "ui/widgets/TrayIcon.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTabWidget>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace callresult;
using csm::EmbeddedServer;
using csm::MainWindow;
using csm::ServerPage;

namespace {

template <typename T>
T* findChild(QWidget* parent)
{
    return parent->findChild<T*>();
}

} // namespace

class tst_ServerPage final : public QObject
{
    Q_OBJECT

private:
    ServerPage& page() { return findNamed<ServerPage>(*m_window, "serverPage"); }

    // The token the page's server asks for.
    QString token() { return findNamed<QLineEdit>(page(), "tokenEdit").text(); }

    // Starts HTTP through the page (any free port) and returns the URL it serves.
    QUrl startHttp(int port = 0)
    {
        findNamed<QTabWidget>(*m_window, "pages").setCurrentWidget(&page());
        findNamed<QSpinBox>(page(), "portEdit").setValue(port);
        if (page().httpUrl().isValid())
            return page().httpUrl();
        QTest::mouseClick(&findNamed<QPushButton>(page(), "startStopButton"), Qt::LeftButton);
        if (!QTest::qWaitFor([this] { return page().httpUrl().isValid(); }, 10'000))
            return {};
        return page().httpUrl();
    }

    QTemporaryDir m_data;
    std::unique_ptr<EmbeddedServer> m_server;
    std::unique_ptr<MainWindow> m_window;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        startAppWithServer(m_data.path(), m_server, m_window);
    }

    void cleanupTestCase() { stopAppWithServer(m_server, m_window); }

    void httpStartsAClientCallsAndItStops()
    {
        // What runs is said apart: the in-app server (always), and the HTTP listener (not yet).
        QLabel& status = findNamed<QLabel>(page(), "serverStatus");
        QVERIFY2(status.text().contains(QLatin1String("In-app MCP server: running, for re-runs")),
                 qPrintable(status.text()));
        QVERIFY2(status.text().contains(QLatin1String("HTTP listener: off")),
                 qPrintable(status.text()));
        QVERIFY2(findNamed<QLabel>(page(), "httpState")
                     .text()
                     .startsWith(QLatin1String("Not listening")),
                 qPrintable(findNamed<QLabel>(page(), "httpState").text()));
        const QUrl url = startHttp();
        QVERIFY2(url.isValid(), qPrintable(findNamed<QLabel>(page(), "httpState").text()));
        QVERIFY(findNamed<QLabel>(page(), "httpState").text().contains(url.toString()));
        QTRY_VERIFY2(
            status.text().contains(QStringLiteral("HTTP listener: on, at %1").arg(url.toString())),
            qPrintable(status.text()));
        // Not editable while serving.
        QVERIFY(!findNamed<QLineEdit>(page(), "hostEdit").isEnabled());

        // The token is always asked for: the one every server of this user shares.
        const csm::http::HttpTokenFile shared = csm::http::HttpTokenFile::inDataDir(m_data.path());
        QCOMPARE(token(), shared.read().valueOr({}).value_or(QStringLiteral("(none)")));
        QVERIFY2(findNamed<QLabel>(page(), "tokenSource").text().contains(shared.path()),
                 qPrintable(findNamed<QLabel>(page(), "tokenSource").text()));
        AsyncMcpClient stranger(url, QString());
        QVERIFY(!stranger.initialize(QStringLiteral("stranger")));
        QCOMPARE(stranger.lastStatus(), 401);
        AsyncMcpClient wrong(url, QStringLiteral("not-the-token"));
        QVERIFY(!wrong.initialize(QStringLiteral("wrong")));
        QCOMPARE(wrong.lastStatus(), 401);

        AsyncMcpClient client(url, token());
        QVERIFY(client.initialize(QStringLiteral("http-client")));
        QTRY_COMPARE(findNamed<csm::SessionsModel>(page(), "sessions").rowCount(), 1);
        QCOMPARE(findNamed<csm::SessionsModel>(page(), "sessions")
                     .index(0, csm::SessionsModel::Client)
                     .data()
                     .toString(),
                 QStringLiteral("http-client 7"));
        QCOMPARE(findNamed<csm::SessionsModel>(page(), "sessions")
                     .index(0, csm::SessionsModel::Transport)
                     .data()
                     .toString(),
                 QStringLiteral("http"));
        std::unique_ptr<QNetworkReply> reply(
            client.callTool(QStringLiteral("run_python_code"), QStringLiteral("print(6*7)")));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 30'000);
        QCOMPARE(stdoutOf(AsyncMcpClient::result(reply.get())), QStringLiteral("42\n"));

        QTest::mouseClick(&findNamed<QPushButton>(page(), "startStopButton"), Qt::LeftButton);
        QTRY_VERIFY(!page().httpUrl().isValid());
        QTRY_COMPARE(findNamed<csm::SessionsModel>(page(), "sessions").rowCount(), 0);
        QTRY_VERIFY2(status.text().contains(QLatin1String("HTTP listener: off")),
                     qPrintable(status.text()));
        QVERIFY(findNamed<QLineEdit>(page(), "hostEdit").isEnabled());
        // Nothing listens there any more.
        AsyncMcpClient late(url, token());
        QVERIFY(!late.initialize(QStringLiteral("too-late")));
    }

    void aRunIsRerunFromTheRunsPage()
    {
        csm::RunsPage& runs = findNamed<csm::RunsPage>(*m_window, "runsPage");
        findNamed<QTabWidget>(*m_window, "pages").setCurrentWidget(&runs);
        QTRY_VERIFY(findNamed<csm::RunsModel>(runs, "model").rowCount() >= 1);
        const int before = findNamed<csm::RunsModel>(runs, "model").rowCount();
        findNamed<QTableView>(runs, "table").selectRow(0);
        QCOMPARE(findNamed<csm::RunsModel>(runs, "model")
                     .index(0, csm::RunsModel::Client)
                     .data()
                     .toString(),
                 QStringLiteral("http-client 7"));
        // Enabled once the table knows the run has ended.
        QTRY_VERIFY(findNamed<QAction>(runs, "rerunAction").isEnabled());
        findNamed<QAction>(runs, "rerunAction").trigger();
        // A new run, the app's own, with the same code and result.
        QTRY_COMPARE_WITH_TIMEOUT(findNamed<csm::RunsModel>(runs, "model").rowCount(), before + 1,
                                  20'000);
        QTRY_COMPARE_WITH_TIMEOUT(findNamed<csm::RunsModel>(runs, "model")
                                      .index(0, csm::RunsModel::Status)
                                      .data()
                                      .toString(),
                                  QStringLiteral("OK"), 20'000);
        QCOMPARE(findNamed<csm::RunsModel>(runs, "model")
                     .index(0, csm::RunsModel::Client)
                     .data()
                     .toString(),
                 QStringLiteral("Code Sandbox (re-run)"));
        const qint64 id = findNamed<csm::RunsModel>(runs, "model").runId(0);
        QVERIFY(id > 0);
        const auto history =
            csm::HistoryStore::open(QDir(m_data.path()).filePath(QStringLiteral("history.sqlite")));
        QVERIFY2(history, qPrintable(history.error()));
        const csm::Expected<csm::RunRecord> rerun = (*history)->queries().get(id);
        QVERIFY(rerun);
        QCOMPARE(rerun->transport, QStringLiteral("app"));
        QCOMPARE(rerun->code, QStringLiteral("print(6*7)"));
        QCOMPARE(rerun->stdoutText, QStringLiteral("42\n"));
    }

    void approvalModeAsksAndTheAnswerCounts()
    {
        const QUrl url = startHttp();
        QVERIFY(url.isValid());
        m_server->setApproval(true, 60'000);
        AsyncMcpClient client(url, token());
        QVERIFY(client.initialize(QStringLiteral("assistant")));
        csm::ApprovalPrompter& prompter = findNamed<csm::ApprovalPrompter>(*m_window, "approvals");
        QSignalSpy notified(&findNamed<csm::TrayIcon>(*m_window, "tray"), &csm::TrayIcon::notified);

        // Approved: it runs.
        std::unique_ptr<QNetworkReply> approved(
            client.callTool(QStringLiteral("run_python_code"), QStringLiteral("print('yes')")));
        QTRY_COMPARE_WITH_TIMEOUT(prompter.openDialogs().size(), 1, 10'000);
        // The desktop is told too (the window may be behind others), by default.
        QCOMPARE(notified.count(), 1);
        QCOMPARE(notified.at(0).at(0).toString(), QStringLiteral("A call waits for your approval"));
        QVERIFY2(notified.at(0).at(1).toString().contains(QLatin1String("assistant asks to run "
                                                                        "run_python_code")),
                 qPrintable(notified.at(0).at(1).toString()));
        csm::ApprovalDialog* dialog = prompter.openDialogs().constFirst();
        QCOMPARE(findNamed<csm::CodeView>(*dialog, "codeView").toPlainText(),
                 QStringLiteral("print('yes')"));
        QVERIFY(!approved->isFinished()); // it waits for the user
        QTest::mouseClick(&findNamed<QPushButton>(*dialog, "approveButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(approved->isFinished(), 30'000);
        QCOMPARE(stdoutOf(AsyncMcpClient::result(approved.get())), QStringLiteral("yes\n"));
        QTRY_VERIFY(prompter.openDialogs().isEmpty());

        // Denied: a clear error, and the code never ran.
        std::unique_ptr<QNetworkReply> denied(
            client.callTool(QStringLiteral("run_python_code"),
                            QStringLiteral("open('/tmp/ran','w').write('x'); print('ran')")));
        QTRY_COMPARE_WITH_TIMEOUT(prompter.openDialogs().size(), 1, 10'000);
        QTest::mouseClick(
            &findNamed<QPushButton>(*prompter.openDialogs().constFirst(), "denyButton"),
            Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(denied->isFinished(), 10'000);
        const QJsonObject deniedResult = AsyncMcpClient::result(denied.get());
        QCOMPARE(isError(deniedResult), true);
        QVERIFY2(text(deniedResult).contains(QLatin1String("denied")),
                 qPrintable(text(deniedResult)));
        QCOMPARE(stdoutOf(deniedResult), QString());

        // Nobody answers: denied when the time is up, and the dialog goes away.
        m_server->setApproval(true, 1'500);
        std::unique_ptr<QNetworkReply> unanswered(
            client.callTool(QStringLiteral("run_js_code"), QStringLiteral("console.log(1)")));
        QTRY_COMPARE_WITH_TIMEOUT(prompter.openDialogs().size(), 1, 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(unanswered->isFinished(), 10'000);
        const QJsonObject timedOut = AsyncMcpClient::result(unanswered.get());
        QCOMPARE(isError(timedOut), true);
        QVERIFY2(text(timedOut).contains(QLatin1String("did not approve")),
                 qPrintable(text(timedOut)));
        QTRY_VERIFY(prompter.openDialogs().isEmpty());
        m_server->setApproval(false, 60'000);
    }

    // The Settings page's checkboxes: approval notifications off stops them; failure
    // notifications, off by default, tell of a call that failed or ran out of memory once
    // turned on.
    void notificationsFollowTheSettings()
    {
        const QUrl url = startHttp();
        QVERIFY(url.isValid());
        AsyncMcpClient client(url, token());
        QVERIFY(client.initialize(QStringLiteral("notified")));
        QSignalSpy notified(&findNamed<csm::TrayIcon>(*m_window, "tray"), &csm::TrayIcon::notified);
        csm::SettingsPage& settings = findNamed<csm::SettingsPage>(*m_window, "settingsPage");
        findNamed<QTabWidget>(*m_window, "pages").setCurrentWidget(&settings);

        // A failure, with failure notifications off (the default): nothing.
        std::unique_ptr<QNetworkReply> failing(client.callTool(
            QStringLiteral("run_python_code"), QStringLiteral("raise SystemExit(3)")));
        QTRY_VERIFY_WITH_TIMEOUT(failing->isFinished(), 30'000);
        QVERIFY(isError(AsyncMcpClient::result(failing.get())));
        QTest::qWait(2 * csm::DesktopNotifier::kFailureCheckMs);
        QCOMPARE(notified.count(), 0);

        // Approval notifications off, failure notifications on.
        QCheckBox& approvals = findNamed<QCheckBox>(settings, "notifyApprovals");
        QCheckBox& failures = findNamed<QCheckBox>(settings, "notifyFailures");
        QVERIFY(approvals.isChecked());
        QVERIFY(!failures.isChecked());
        approvals.click();
        failures.click();
        QTest::mouseClick(&findNamed<QPushButton>(settings, "applyButton"), Qt::LeftButton);
        QVERIFY(!csm::DesktopSettings::load(m_data.path()).notifyApprovals);
        QVERIFY(csm::DesktopSettings::load(m_data.path()).notifyFailures);

        m_server->setApproval(true, 60'000);
        csm::ApprovalPrompter& prompter = findNamed<csm::ApprovalPrompter>(*m_window, "approvals");
        std::unique_ptr<QNetworkReply> asked(client.callTool(
            QStringLiteral("run_python_code"), QStringLiteral("raise SystemExit(5)")));
        QTRY_COMPARE_WITH_TIMEOUT(prompter.openDialogs().size(), 1, 10'000);
        QTest::mouseClick(
            &findNamed<QPushButton>(*prompter.openDialogs().constFirst(), "approveButton"),
            Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(asked->isFinished(), 30'000);
        m_server->setApproval(false, 60'000);
        // No word of the approval; the failure is told.
        QTRY_COMPARE_WITH_TIMEOUT(notified.count(), 1, 5'000);
        QCOMPARE(notified.at(0).at(0).toString(), QStringLiteral("A call failed"));
        QVERIFY2(notified.at(0).at(1).toString().contains(QLatin1String("exit code 5")),
                 qPrintable(notified.at(0).at(1).toString()));
        QVERIFY2(notified.at(0).at(1).toString().startsWith(QLatin1String("notified's Python")),
                 qPrintable(notified.at(0).at(1).toString()));
        QTest::qWait(2 * csm::DesktopNotifier::kFailureCheckMs);
        QCOMPARE(notified.count(), 1);

        // Killed for memory (1 GiB in a sandbox of 512 MiB): told as such.
        std::unique_ptr<QNetworkReply> greedy(client.callTool(
            QStringLiteral("run_python_code"), QStringLiteral("b = b'x' * (1024 ** 3)")));
        QTRY_VERIFY_WITH_TIMEOUT(greedy->isFinished(), 60'000);
        // The notifier finds it in the history a moment after the reply: on a loaded machine,
        // seconds after.
        QTRY_COMPARE_WITH_TIMEOUT(notified.count(), 2, 20'000);
        QCOMPARE(notified.at(1).at(0).toString(), QStringLiteral("A call ran out of memory"));

        // Back to the defaults for the tests that follow.
        approvals.click();
        failures.click();
        QTest::mouseClick(&findNamed<QPushButton>(settings, "applyButton"), Qt::LeftButton);
        QVERIFY(csm::DesktopSettings::load(m_data.path()).notifyApprovals);
    }

    void clientConfigurationIsMergedIntoTheClientsFile()
    {
        QTemporaryDir home;
        page().setClientConfigLocation(
            csm::ClientConfigLocation{home.path(), home.filePath(QStringLiteral("config"))});
        const QString cursorFile = home.filePath(QStringLiteral(".cursor/mcp.json"));
        QVERIFY(QDir().mkpath(QFileInfo(cursorFile).path()));
        const QByteArray other =
            "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
        {
            QFile file(cursorFile);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(other);
        }
        findNamed<QComboBox>(page(), "clientChoice")
            .setCurrentIndex(
                findNamed<QComboBox>(page(), "clientChoice").findText(QStringLiteral("Cursor")));
        findNamed<QComboBox>(page(), "variantChoice").setCurrentIndex(2); // this app's HTTP server
        const QUrl url = startHttp();
        QTRY_VERIFY(
            findNamed<QPlainTextEdit>(page(), "snippet").toPlainText().contains(url.toString()));
        QVERIFY(findNamed<QPushButton>(page(), "installButton")
                    .text()
                    .contains(QLatin1String("Cursor")));
        QTest::mouseClick(&findNamed<QPushButton>(page(), "installButton"), Qt::LeftButton);
        QVERIFY2(findNamed<QLabel>(page(), "installResult").text().contains(QLatin1String("Added")),
                 qPrintable(findNamed<QLabel>(page(), "installResult").text()));
        QFile file(cursorFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject servers = QJsonDocument::fromJson(file.readAll())
                                        .object()
                                        .value(QLatin1String("mcpServers"))
                                        .toObject();
        QCOMPARE(servers.value(QLatin1String("other"))
                     .toObject()
                     .value(QLatin1String("command"))
                     .toString(),
                 QStringLiteral("x"));
        QCOMPARE(servers.value(QLatin1String("code-sandbox"))
                     .toObject()
                     .value(QLatin1String("url"))
                     .toString(),
                 url.toString());
        // With the token the server asks for, in a file only its owner can read.
        QCOMPARE(servers.value(QLatin1String("code-sandbox"))
                     .toObject()
                     .value(QLatin1String("headers"))
                     .toObject()
                     .value(QLatin1String("Authorization"))
                     .toString(),
                 QStringLiteral("Bearer ") + token());
        QCOMPARE(QFileInfo(cursorFile).permissions() &
                     (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
        // The file as it was is kept beside it.
        const QStringList backups = QDir(QFileInfo(cursorFile).path())
                                        .entryList({QStringLiteral("mcp.json.bak*")}, QDir::Files);
        QCOMPARE(backups.size(), 1);
        QFile backup(QFileInfo(cursorFile).dir().filePath(backups.constFirst()));
        QVERIFY(backup.open(QIODevice::ReadOnly));
        QCOMPARE(backup.readAll(), other);

        // The stdio variant names the headless server beside this program.
        findNamed<QComboBox>(page(), "variantChoice").setCurrentIndex(0);
        QVERIFY(findNamed<QPlainTextEdit>(page(), "snippet")
                    .toPlainText()
                    .contains(QLatin1String("code-sandbox-mcp")));
    }

    // The rule of HttpListenPolicy holds for the page too: what it refuses does not listen, and
    // the page says why.
    void whatTheListenerRefusesDoesNotListen()
    {
        findNamed<QTabWidget>(*m_window, "pages").setCurrentWidget(&page());
        if (page().httpUrl().isValid()) {
            QTest::mouseClick(&findNamed<QPushButton>(page(), "startStopButton"), Qt::LeftButton);
            QTRY_VERIFY(!page().httpUrl().isValid());
        }
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        const QString sharedToken = token();
        struct Row
        {
            const char* host;
            bool allowRemote;
            QString token;
            const char* said;
        };
        const Row rows[] = {
            {"0.0.0.0", false, QString(), "no token"},
            {"0.0.0.0", false, sharedToken, "--allow-remote"},
            {"0.0.0.0", true, QStringLiteral("short-token"), "at least 16 characters"},
            {"127.0.0.1", false, QString(), "no token"},
            {"127.0.0.1", false, QStringLiteral("two words"), "whitespace"},
        };
        for (const Row& row : rows) {
            findNamed<QLineEdit>(page(), "hostEdit").setText(QString::fromLatin1(row.host));
            findNamed<QCheckBox>(page(), "allowRemoteBox").setChecked(row.allowRemote);
            findNamed<QLineEdit>(page(), "tokenEdit").setText(row.token);
            findNamed<QSpinBox>(page(), "portEdit").setValue(port);
            QTest::mouseClick(&findNamed<QPushButton>(page(), "startStopButton"), Qt::LeftButton);
            QTRY_VERIFY(findNamed<QLabel>(page(), "httpState")
                            .text()
                            .contains(QLatin1String("Could not serve")));
            QVERIFY2(findNamed<QLabel>(page(), "httpState")
                         .text()
                         .contains(QString::fromLatin1(row.said)),
                     qPrintable(findNamed<QLabel>(page(), "httpState").text()));
            QVERIFY(!page().httpUrl().isValid());
            QCOMPARE(findNamed<QPushButton>(page(), "startStopButton").text(),
                     QStringLiteral("Start"));
            QVERIFY(findNamed<QLineEdit>(page(), "hostEdit").isEnabled());
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, port);
            QVERIFY2(!probe.waitForConnected(1'000),
                     qPrintable(QStringLiteral("something listens on %1 after: %2")
                                    .arg(port)
                                    .arg(findNamed<QLabel>(page(), "httpState").text())));
        }
        if (findNamed<QLineEdit>(page(), "tokenEdit").text().isEmpty())
            QVERIFY(findNamed<QLabel>(page(), "tokenSource")
                        .text()
                        .contains(QLatin1String("New token")));
        // Back to what the other tests use.
        findNamed<QLineEdit>(page(), "hostEdit").setText(QStringLiteral("127.0.0.1"));
        findNamed<QCheckBox>(page(), "allowRemoteBox").setChecked(false);
        findNamed<QLineEdit>(page(), "tokenEdit").setText(sharedToken);
        QVERIFY(startHttp().isValid());
    }

    // "New token": the shared token is replaced, the server restarted with it, the client files
    // that held the old one are offered the new one.
    void aNewTokenReplacesTheOldEverywhere()
    {
        QTemporaryDir home;
        page().setClientConfigLocation(
            csm::ClientConfigLocation{home.path(), home.filePath(QStringLiteral("config"))});
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        if (page().httpUrl().isValid()) {
            QTest::mouseClick(&findNamed<QPushButton>(page(), "startStopButton"), Qt::LeftButton);
            QTRY_VERIFY(!page().httpUrl().isValid());
        }
        const QUrl url = startHttp(port);
        QVERIFY2(url.isValid(), qPrintable(findNamed<QLabel>(page(), "httpState").text()));
        const QString oldToken = token();
        findNamed<QComboBox>(page(), "clientChoice")
            .setCurrentIndex(
                findNamed<QComboBox>(page(), "clientChoice").findText(QStringLiteral("Cursor")));
        findNamed<QComboBox>(page(), "variantChoice").setCurrentIndex(2); // this app's HTTP server
        QTest::mouseClick(&findNamed<QPushButton>(page(), "installButton"), Qt::LeftButton);
        const QString cursorFile = home.filePath(QStringLiteral(".cursor/mcp.json"));
        QVERIFY(QFile::exists(cursorFile));

        QTest::mouseClick(&findNamed<QPushButton>(page(), "newTokenButton"), Qt::LeftButton);
        const QString newToken = token();
        QVERIFY(newToken != oldToken);
        QCOMPARE(csm::http::HttpTokenFile::inDataDir(m_data.path()).read().valueOr({}),
                 std::optional<QString>(newToken));
        QVERIFY2(
            findNamed<QLabel>(page(), "tokenNotice").text().contains(QLatin1String("restarted")),
            qPrintable(findNamed<QLabel>(page(), "tokenNotice").text()));
        // Restarted on the same port: the old token is refused, the new one works.
        QTRY_VERIFY_WITH_TIMEOUT(page().httpUrl().isValid() && page().httpUrl() == url, 10'000);
        bool admitted = false;
        for (const QDeadlineTimer deadline(10'000); !admitted && !deadline.hasExpired();) {
            AsyncMcpClient fresh(url, newToken);
            admitted = fresh.initialize(QStringLiteral("after-rotation"));
            if (!admitted)
                QTest::qWait(100);
        }
        QVERIFY(admitted);
        AsyncMcpClient stale(url, oldToken);
        QVERIFY(!stale.initialize(QStringLiteral("stale")));
        QCOMPARE(stale.lastStatus(), 401);

        // Cursor has the old token: the page offers to give it the new one.
        QVERIFY(findNamed<QPushButton>(page(), "updateClientsButton").isVisible());
        QVERIFY2(findNamed<QPushButton>(page(), "updateClientsButton")
                     .text()
                     .contains(QLatin1String("Cursor")),
                 qPrintable(findNamed<QPushButton>(page(), "updateClientsButton").text()));
        QTest::mouseClick(&findNamed<QPushButton>(page(), "updateClientsButton"), Qt::LeftButton);
        QVERIFY(!findNamed<QPushButton>(page(), "updateClientsButton").isVisible());
        QVERIFY2(findNamed<QLabel>(page(), "tokenNotice")
                     .text()
                     .contains(QLatin1String("Updated Cursor")),
                 qPrintable(findNamed<QLabel>(page(), "tokenNotice").text()));
        QFile file(cursorFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray written = file.readAll();
        QVERIFY(written.contains(QByteArray("Bearer " + newToken.toUtf8())));
        QVERIFY(!written.contains(oldToken.toUtf8()));
        page().setClientConfigLocation(csm::ClientConfigLocation{
            m_data.filePath(QStringLiteral("nohome")), m_data.filePath(QStringLiteral("nohome"))});
    }

    // The tray's menu switches asking before each call and lists the last failures, each
    // opening its run: the real out-of-memory run of the notifications test, whose result
    // line says what became of it in plain words.
    void theTrayMenuListsTheLastFailures()
    {
        auto& tray = findNamed<csm::TrayIcon>(*m_window, "tray");
        QMenu* menu = tray.menu();
        auto* approval = menu->findChild<QAction*>(QStringLiteral("trayApproval"));
        QVERIFY(approval);
        QVERIFY(!approval->isChecked());
        approval->trigger();
        QVERIFY(csm::DesktopSettings::load(m_data.path()).approvalRequired);
        approval->trigger();
        QVERIFY(!csm::DesktopSettings::load(m_data.path()).approvalRequired);

        auto* failures = menu->findChild<QMenu*>(QStringLiteral("trayFailures"));
        QVERIFY(failures);
        QAction* outOfMemory = nullptr;
        QStringList listed;
        for (QAction* item : failures->actions()) {
            listed << item->text();
            if (item->text().contains(QLatin1String(" Out of memory: b = b'x'")))
                outOfMemory = item;
        }
        QVERIFY2(outOfMemory, qPrintable(listed.join(u'\n')));
        QVERIFY(listed.size() <= MainWindow::kTrayFailures);
        const qint64 id = outOfMemory->text().section(u' ', 0, 0).mid(1).toLongLong();
        QVERIFY(id > 0);
        auto& pages = findNamed<QTabWidget>(*m_window, "pages");
        pages.setCurrentIndex(pages.count() - 1);
        outOfMemory->trigger();
        auto& runs = findNamed<csm::RunsPage>(*m_window, "runsPage");
        QCOMPARE(pages.currentWidget(), &runs);
        QTRY_COMPARE(findNamed<csm::RunDetailPane>(runs, "detail").shownRunId(), id);
        const QString result = findNamed<QLabel>(runs, "resultLine").text();
        QVERIFY2(result.startsWith(QLatin1String("Ran out of memory (512 MiB) after ")),
                 qPrintable(result));
    }

    // With a tray, closing the window leaves the app serving its assistants from the tray,
    // and says so once; the tray's menu shows the window again.
    void closingWithATrayKeepsTheAppInTheTray()
    {
        auto& tray = findNamed<csm::TrayIcon>(*m_window, "tray");
        QSignalSpy notified(&tray, &csm::TrayIcon::notified);
        // The offscreen platform has no tray: shown anyway, as on a desktop that has one.
        tray.show();
        QVERIFY(m_window->keepsRunningInTray());
        QVERIFY(!csm::DesktopSettings::load(m_data.path()).trayNoticeShown);
        m_window->close();
        QVERIFY(!m_window->isVisible());
        QVERIFY(!m_server->isStopped());
        QCOMPARE(notified.count(), 1);
        QCOMPARE(notified.at(0).at(0).toString(), QStringLiteral("Code Sandbox is still running"));
        QVERIFY(csm::DesktopSettings::load(m_data.path()).trayNoticeShown);

        QAction* show = nullptr;
        for (QAction* item : tray.menu()->actions()) {
            if (item->text() == QLatin1String("Show Code Sandbox"))
                show = item;
        }
        QVERIFY(show);
        show->trigger();
        QTRY_VERIFY(m_window->isVisible());
        // Told once only.
        m_window->close();
        QVERIFY(!m_window->isVisible());
        QCOMPARE(notified.count(), 1);
        show->trigger();
        QTRY_VERIFY(m_window->isVisible());
        // Without a tray (the test that follows), closing quits as before.
        tray.hide();
        QVERIFY(!m_window->keepsRunningInTray());
    }

    // Last: it ends the server.
    void closingDuringACallAsksFirst()
    {
        const QUrl url = startHttp();
        AsyncMcpClient client(url, token());
        QVERIFY(client.initialize(QStringLiteral("busy")));
        std::unique_ptr<QNetworkReply> slow(client.callTool(
            QStringLiteral("run_python_code"), QStringLiteral("import time; time.sleep(60)")));
        QTRY_COMPARE_WITH_TIMEOUT(m_server->status().runningCalls, 1, 20'000);

        m_window->close();
        QTRY_VERIFY(findOptional<QMessageBox>(*m_window, "closeConfirmation"));
        QMessageBox* question = findOptional<QMessageBox>(*m_window, "closeConfirmation");
        QTest::mouseClick(question->button(QMessageBox::Cancel), Qt::LeftButton);
        QTRY_VERIFY(!findOptional<QMessageBox>(*m_window, "closeConfirmation"));
        QVERIFY(m_window->isVisible());
        QVERIFY(!m_server->isStopped());

        m_window->close();
        QTRY_VERIFY(findOptional<QMessageBox>(*m_window, "closeConfirmation"));
        question = findOptional<QMessageBox>(*m_window, "closeConfirmation");
        QAbstractButton* endSession = nullptr;
        for (QAbstractButton* button : question->buttons()) {
            if (question->buttonRole(button) == QMessageBox::AcceptRole)
                endSession = button;
        }
        QVERIFY(endSession);
        QTest::mouseClick(endSession, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m_server->isStopped(), 15'000);
        QVERIFY(!m_window->isVisible());
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(
                     pidLabel(QCoreApplication::applicationPid()), 15'000),
                 QStringList());
    }
};

// `code-sandbox-desktop --stdio`, as an MCP client launches it.
class tst_DesktopStdio final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void servesTheClientThatStartedIt()
    {
        QTemporaryDir data;
        McpStdioClient client;
        client.setProgram(QStringLiteral(CSM_DESKTOP_BINARY));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
        environment.insert(QStringLiteral("CODE_SANDBOX_POOL"), QStringLiteral("0"));
        QVERIFY(client.start({QStringLiteral("--stdio"), QStringLiteral("--data-dir"), data.path()},
                             environment));
        QCOMPARE(client.initialize()
                     .value(QLatin1String("serverInfo"))
                     .toObject()
                     .value(QLatin1String("name"))
                     .toString(),
                 QStringLiteral("code-sandbox"));
        const QJsonObject result = client.callTool(QStringLiteral("run_python_code"),
                                                   code(QStringLiteral("print('from the app')")));
        QCOMPARE(stdoutOf(result), QStringLiteral("from the app\n"));
        // The client leaves: the app ends its session, removes its containers and exits.
        client.closeStdin();
        QVERIFY(client.waitForExit(20'000));
        QCOMPARE(client.process().exitStatus(), QProcess::NormalExit);
        QCOMPARE(client.process().exitCode(), 0);
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(client.pid()), 15'000),
                 QStringList());
        // Everything on stdout was protocol: the GUI wrote nothing there.
        QCOMPARE(client.process().readAllStandardOutput(), QByteArray());
    }
};

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setQuitOnLastWindowClosed(false);
    int status = 0;
    {
        tst_DesktopStdio stdio;
        status |= QTest::qExec(&stdio, argc, argv);
    }
    {
        tst_ServerPage page;
        status |= QTest::qExec(&page, argc, argv);
    }
    return status;
}

#include "tst_ServerPage.moc"
