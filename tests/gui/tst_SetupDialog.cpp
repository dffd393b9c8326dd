// The first run's guided setup, on the real main window and the real engine's health check
// (CSM_TEST_ENGINE=podman|docker): offered once when something is missing, fixing what the app
// can fix, naming the command for what it cannot, and never offered when all is well.
#include "FindNamed.h"
#include "server/EmbeddedServer.h"
#include "server/ServerOptionsParser.h"
#include "server/ServerSettings.h"
#include "TestEngine.h"
#include "ui/dialogs/SetupDialog.h"
#include "ui/MainWindow.h"
#include "ui/settings/DesktopSettings.h"
#include "ui/widgets/HealthBanner.h"

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using csm::DesktopSettings;
using csm::EmbeddedServer;
using csm::MainWindow;
using csm::ServerSettings;

namespace {

std::unique_ptr<EmbeddedServer> startServer(const QString& dataDir)
{
    const auto parsed = csm::ServerOptionsParser::parse(
        {QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), dataDir,
         QStringLiteral("--pool"), QStringLiteral("0")},
        QProcessEnvironment::systemEnvironment());
    auto server = std::make_unique<EmbeddedServer>(std::get<csm::ServerOptions>(parsed));
    server->start();
    return server;
}

void chooseEngine(const QString& dataDir, const QString& pythonImage = {})
{
    ServerSettings settings;
    settings.engine = TestEngine::name();
    settings.pythonImage = pythonImage;
    QVERIFY(settings.save(dataDir));
}

} // namespace

class tst_SetupDialog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aMissingChosenImageIsFixedByGoingBackToTheDefault()
    {
        QTemporaryDir data;
        const QString missing = TestEngine::localImage(QStringLiteral("csm-no-such-image:1"));
        chooseEngine(data.path(), missing);
        auto server = startServer(data.path());
        {
            MainWindow window(data.path(), server.get());
            window.show();
            QTRY_VERIFY_WITH_TIMEOUT(findOptional<csm::SetupDialog>(window, "setupDialog"), 20'000);
            csm::SetupDialog& setup = *findOptional<csm::SetupDialog>(window, "setupDialog");
            QVERIFY2(findNamed<QLabel>(setup, "problemsText").text().contains(missing),
                     qPrintable(findNamed<QLabel>(setup, "problemsText").text()));
            QVERIFY(!findNamed<QPushButton>(setup, "finishButton").isEnabled());
            QVERIFY(findNamed<QPushButton>(setup, "useDefaultsButton").isVisible());
            // The built-in images are there.
            QVERIFY(!findNamed<QPushButton>(setup, "buildButton").isVisible());

            QTest::mouseClick(&findNamed<QPushButton>(setup, "useDefaultsButton"), Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(findNamed<QPushButton>(setup, "finishButton").isEnabled(),
                                     20'000);
            QVERIFY(
                findNamed<QLabel>(setup, "problemsText").text().contains(QLatin1String("All set")));
            QCOMPARE(ServerSettings::load(data.path()).pythonImage, QString());
            QTest::mouseClick(&findNamed<QPushButton>(setup, "finishButton"), Qt::LeftButton);
            QTRY_VERIFY(!findOptional<csm::SetupDialog>(window, "setupDialog"));
            QVERIFY(DesktopSettings::load(data.path()).setupDone);
        }
        // Offered once: the next start does not ask again, even with a problem back.
        chooseEngine(data.path(), missing);
        MainWindow again(data.path(), server.get());
        QTRY_VERIFY_WITH_TIMEOUT(
            !findNamed<csm::HealthBanner>(again, "healthBanner").problems().isEmpty(), 20'000);
        QTest::qWait(200);
        QVERIFY(!findOptional<csm::SetupDialog>(again, "setupDialog"));
    }

    // A first run for real: an empty image store (podman's storage moved to a new folder for
    // this process and its children), where the setup builds both default images with the
    // real containers/build-images, from its cached root filesystems when it has them.
    void theMissingDefaultImagesAreBuiltWithProgress()
    {
        if (TestEngine::name() != QLatin1String("podman"))
            QSKIP("only Podman's store can be moved for one process; the build is the same");
        QTemporaryDir store;
        QFile storageConf(store.filePath(QStringLiteral("storage.conf")));
        QVERIFY(storageConf.open(QIODevice::WriteOnly));
        storageConf.write(
            QStringLiteral("[storage]\ndriver = \"overlay\"\ngraphroot = \"%1\"\n"
                           "runroot = \"%2\"\n")
                .arg(store.filePath(QStringLiteral("graph")), store.filePath(QStringLiteral("run")))
                .toUtf8());
        storageConf.close();
        const QByteArray previous = qgetenv("CONTAINERS_STORAGE_CONF");
        qputenv("CONTAINERS_STORAGE_CONF", storageConf.fileName().toLocal8Bit());
        auto restore = qScopeGuard([&] {
            // The images go with the store (no container was ever started in it).
            TestEngine::run(
                {QStringLiteral("rmi"), QStringLiteral("--all"), QStringLiteral("--force")});
            if (previous.isNull())
                qunsetenv("CONTAINERS_STORAGE_CONF");
            else
                qputenv("CONTAINERS_STORAGE_CONF", previous);
        });

        QTemporaryDir data;
        chooseEngine(data.path());
        auto server = startServer(data.path());
        MainWindow window(data.path(), server.get());
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(findOptional<csm::SetupDialog>(window, "setupDialog"), 20'000);
        csm::SetupDialog& setup = *findOptional<csm::SetupDialog>(window, "setupDialog");
        QVERIFY(findNamed<QLabel>(setup, "problemsText")
                    .text()
                    .contains(QLatin1String("code-sandbox-python")));
        QVERIFY(findNamed<QLabel>(setup, "problemsText")
                    .text()
                    .contains(QLatin1String("code-sandbox-js")));
        QVERIFY(findNamed<QPushButton>(setup, "buildButton").isVisible());
        QVERIFY(findNamed<QPushButton>(setup, "buildButton").isEnabled());
        QVERIFY(!findNamed<QPushButton>(setup, "useDefaultsButton").isVisible());

        QTest::mouseClick(&findNamed<QPushButton>(setup, "buildButton"), Qt::LeftButton);
        QVERIFY(setup.isBuilding());
        QVERIFY(findNamed<QProgressBar>(setup, "progress").isVisible());
        QCOMPARE(findNamed<QProgressBar>(setup, "progress").maximum(), 2);
        QVERIFY(!findNamed<QPushButton>(setup, "buildButton").isEnabled());
        // The builder's own words stream in while it works.
        QTRY_VERIFY_WITH_TIMEOUT(
            findNamed<QPlainTextEdit>(setup, "log").toPlainText().contains(QLatin1String("podman")),
            30'000);
        QTRY_VERIFY_WITH_TIMEOUT(findNamed<QPushButton>(setup, "finishButton").isEnabled(),
                                 240'000);
        QCOMPARE(findNamed<QProgressBar>(setup, "progress").value(), 2);
        QVERIFY(!setup.isBuilding());
        QVERIFY(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")));
        QVERIFY(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-js:latest")));
        QTest::mouseClick(&findNamed<QPushButton>(setup, "finishButton"), Qt::LeftButton);
        QTRY_VERIFY(!findOptional<csm::SetupDialog>(window, "setupDialog"));
        QVERIFY(DesktopSettings::load(data.path()).setupDone);
    }

    void aMissingEngineGetsItsCommand()
    {
        QTemporaryDir data;
        chooseEngine(data.path());
        QTemporaryDir emptyPath;
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", emptyPath.path().toLocal8Bit());
        auto restore = qScopeGuard([&] { qputenv("PATH", path); });
        auto server = startServer(data.path());
        MainWindow window(data.path(), server.get());
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(findOptional<csm::SetupDialog>(window, "setupDialog"), 20'000);
        csm::SetupDialog& setup = *findOptional<csm::SetupDialog>(window, "setupDialog");
        const QString text = findNamed<QLabel>(setup, "problemsText").text();
        QVERIFY2(text.contains(TestEngine::name()) &&
                     text.contains(QLatin1String("Run in a terminal")),
                 qPrintable(text));
        QVERIFY(!findNamed<QPushButton>(setup, "finishButton").isEnabled());
        QTest::mouseClick(&findNamed<QPushButton>(setup, "skipButton"), Qt::LeftButton);
        QTRY_VERIFY(!findOptional<csm::SetupDialog>(window, "setupDialog"));
        QVERIFY(DesktopSettings::load(data.path()).setupDone);
    }

    void nothingIsOfferedWhenAllIsWell()
    {
        QTemporaryDir data;
        chooseEngine(data.path());
        auto server = startServer(data.path());
        MainWindow window(data.path(), server.get());
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(DesktopSettings::load(data.path()).setupDone, 20'000);
        QVERIFY(findNamed<csm::HealthBanner>(window, "healthBanner").problems().isEmpty());
        QVERIFY(!findOptional<csm::SetupDialog>(window, "setupDialog"));
    }
};

QTEST_MAIN(tst_SetupDialog)
#include "tst_SetupDialog.moc"
