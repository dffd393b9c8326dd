// Egress ask mode in the real main window under the offscreen platform, with the app's own
// server on a real engine (CSM_TEST_ENGINE): a program that connects to a host nobody named waits
// while the app asks. Allow for this run (the run's second connection is not asked about), deny
// (the program gets the reason), no answer (denied at the timeout, the dialog closes), and always
// (the host joins the always-allowed hosts in settings.ini, not the allowed ones, and the next run
// is not asked). The host is a real HTTP server at a public address (1.2.3.2) in a network
// namespace the test makes on this machine (netns-http-server): nothing outside is reached.
#include "CallResult.h"
#include "FindNamed.h"
#include "LoopbackHttpServer.h"
#include "server/ServerSettings.h"
#include "TestEngine.h"
#include "TestServer.h"
#include "ui/dialogs/EgressQuestionDialog.h"
#include "ui/EgressPrompter.h"
#include "ui/MainWindow.h"

#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

using namespace callresult;
using csm::EgressPrompter;
using csm::EgressQuestionDialog;

class tst_EgressAsk final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_data;
    LoopbackHttpServer m_upstream;
    std::unique_ptr<csm::EmbeddedServer> m_server;
    std::unique_ptr<csm::MainWindow> m_window;

    EgressPrompter& prompter() { return findNamed<EgressPrompter>(*m_window, "egressQuestions"); }

    // Starts a program from the app that fetches hello.txt `times` times and prints each status
    // and body (or the proxy's refusal) on a line.
    std::shared_ptr<std::optional<QJsonObject>> fetch(int times)
    {
        auto result = std::make_shared<std::optional<QJsonObject>>();
        m_server->runFromApp(
            QStringLiteral("run_python_code"),
            QStringLiteral("import requests\n"
                           "for _ in range(%1):\n"
                           "    r = requests.get('http://%2/hello.txt', timeout=60)\n"
                           "    print(r.status_code, r.text.strip())\n")
                .arg(times)
                .arg(m_upstream.hostPort()),
            [result](const QJsonObject& callResult) { *result = callResult; });
        return result;
    }

    // The dialog the next question opens.
    EgressQuestionDialog* nextDialog(QSignalSpy& opened)
    {
        if (!QTest::qWaitFor([&] { return !opened.isEmpty(); }, 60'000))
            return nullptr;
        return opened.takeFirst().at(0).value<EgressQuestionDialog*>();
    }

    static QString output(const std::optional<QJsonObject>& result)
    {
        return result ? stdoutOf(*result) : QStringLiteral("(no result)");
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        // Ask mode asks about public hosts only (a private or loopback one must be named): the
        // upstream gets a public address in a network namespace of its own on this machine.
        QVERIFY2(m_upstream.startWithScript(QStringLiteral(CSM_NETNS_HTTP_SERVER)),
                 qPrintable(m_upstream.log()));
        // What the Settings page stores for "Ask me about each new host".
        {
            QSettings file(m_data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            file.setValue(QStringLiteral("server/egress"), QStringLiteral("ask"));
        }
        startAppWithServer(m_data.path(), m_server, m_window);
    }

    void cleanupTestCase() { stopAppWithServer(m_server, m_window); }

    void allowForThisRunAsksOnce()
    {
        QSignalSpy opened(&prompter(), &EgressPrompter::dialogOpened);
        const auto result = fetch(2);
        EgressQuestionDialog* dialog = nextDialog(opened);
        QVERIFY(dialog);
        QCOMPARE(dialog->question().host, m_upstream.address());
        QCOMPARE(int(dialog->question().port), m_upstream.port());
        QVERIFY2(findNamed<QLabel>(*dialog, "questionLabel").text().contains(m_upstream.address()),
                 qPrintable(findNamed<QLabel>(*dialog, "questionLabel").text()));
        // Which run asks: its language, when it started and its first line.
        const QString run = findNamed<QLabel>(*dialog, "runLabel").text();
        QVERIFY2(run.contains(QLatin1String("Python run started")) &&
                     run.contains(QLatin1String("import requests")),
                 qPrintable(run));
        QVERIFY(!result->has_value()); // the program waits for the answer
        QTest::mouseClick(&findNamed<QPushButton>(*dialog, "allowOnceButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(result->has_value(), 60'000);
        const QString page = QString::fromUtf8(LoopbackHttpServer::kPage).trimmed();
        QCOMPARE(output(*result), QStringLiteral("200 %1\n200 %1\n").arg(page));
        // The run's second connection to the host was not asked about.
        QCOMPARE(opened.size(), 0);
        QTRY_VERIFY(prompter().openDialogs().isEmpty());
    }

    void denyGivesTheProgramTheReason()
    {
        QSignalSpy opened(&prompter(), &EgressPrompter::dialogOpened);
        // A new run asks again: "this run" was the last one.
        const auto result = fetch(1);
        EgressQuestionDialog* dialog = nextDialog(opened);
        QVERIFY(dialog);
        QTest::mouseClick(&findNamed<QPushButton>(*dialog, "denyButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(result->has_value(), 60'000);
        QVERIFY2(output(*result).startsWith(QLatin1String("403 Code Sandbox egress: ")) &&
                     output(*result).contains(QLatin1String("denied when asked")),
                 qPrintable(output(*result)));
        QVERIFY2(text(**result).contains(QLatin1String("[network: the sandbox's egress proxy "
                                                       "refused 1 connection")),
                 qPrintable(text(**result)));
    }

    void noAnswerIsADenialAndTheDialogCloses()
    {
        m_server->setApproval(false, 2'000);
        QSignalSpy opened(&prompter(), &EgressPrompter::dialogOpened);
        const auto result = fetch(1);
        QPointer<EgressQuestionDialog> dialog = nextDialog(opened);
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(result->has_value(), 60'000);
        QVERIFY2(output(*result).contains(QLatin1String("denied when asked")),
                 describe(**result).constData());
        QTRY_VERIFY(dialog.isNull() || !dialog->isVisible());
        QVERIFY(prompter().openDialogs().isEmpty());
        m_server->setApproval(false, 60'000);
    }

    void alwaysAllowJoinsTheAlwaysAllowedHosts()
    {
        QSignalSpy opened(&prompter(), &EgressPrompter::dialogOpened);
        const auto result = fetch(1);
        EgressQuestionDialog* dialog = nextDialog(opened);
        QVERIFY(dialog);
        QTest::mouseClick(&findNamed<QPushButton>(*dialog, "allowAlwaysButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(result->has_value(), 60'000);
        QVERIFY2(output(*result).startsWith(QLatin1String("200 ")), qPrintable(output(*result)));
        const csm::ServerSettings saved = csm::ServerSettings::load(m_data.path());
        QCOMPARE(saved.egress.mode, csm::EgressMode::Ask);
        // Not an allowed host: those would reach private addresses too.
        QVERIFY(saved.egress.allowedHosts.isEmpty());
        QCOMPARE(saved.egress.alwaysAllowed.size(), 1);
        QCOMPARE(saved.egress.alwaysAllowed.constFirst().toString(), m_upstream.hostPort());

        // Once the server has read the file again (it watches it), runs go without a question.
        bool askedAgain = true;
        for (int attempt = 0; attempt < 5 && askedAgain; ++attempt) {
            const auto again = fetch(1);
            QVERIFY(
                QTest::qWaitFor([&] { return again->has_value() || !opened.isEmpty(); }, 60'000));
            askedAgain = !opened.isEmpty();
            if (!askedAgain) {
                QVERIFY2(output(*again).startsWith(QLatin1String("200 ")),
                         qPrintable(output(*again)));
                break;
            }
            // Asked before the server read the file: allow, and try again a little later.
            auto* asked = opened.takeFirst().at(0).value<EgressQuestionDialog*>();
            QTest::mouseClick(&findNamed<QPushButton>(*asked, "allowOnceButton"), Qt::LeftButton);
            QVERIFY(QTest::qWaitFor([&] { return again->has_value(); }, 60'000));
            QTest::qWait(1'000);
        }
        QVERIFY(!askedAgain);
    }
};

QTEST_MAIN(tst_EgressAsk)
#include "tst_EgressAsk.moc"
