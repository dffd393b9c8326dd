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
    auto server = std::make_unique<EmbeddedServer>(*parsed);
    server->start();
    return server;
}

// Podman's image store moved to an empty folder for this process and its children, as on a
// first run; the images built into it go with it.
class EmptyPodmanStore
{
public:
    EmptyPodmanStore()
        : m_previous(qgetenv("CONTAINERS_STORAGE_CONF"))
    {
        QFile storageConf(m_store.filePath(QStringLiteral("storage.conf")));
        if (!storageConf.open(QIODevice::WriteOnly))
            return;
        storageConf.write(QStringLiteral("[storage]\ndriver = \"overlay\"\ngraphroot = \"%1\"\n"
                                         "runroot = \"%2\"\n")
                              .arg(m_store.filePath(QStringLiteral("graph")),
                                   m_store.filePath(QStringLiteral("run")))
                              .toUtf8());
        qputenv("CONTAINERS_STORAGE_CONF", storageConf.fileName().toLocal8Bit());
    }
    ~EmptyPodmanStore()
    {
        // No container was ever started in it.
        TestEngine::run(
            {QStringLiteral("rmi"), QStringLiteral("--all"), QStringLiteral("--force")});
        if (m_previous.isNull())
            qunsetenv("CONTAINERS_STORAGE_CONF");
        else
            qputenv("CONTAINERS_STORAGE_CONF", m_previous);
    }
    EmptyPodmanStore(const EmptyPodmanStore&) = delete;
    EmptyPodmanStore& operator=(const EmptyPodmanStore&) = delete;

private:
    QTemporaryDir m_store;
    QByteArray m_previous;
};

void chooseEngine(const QString& dataDir, const QString& pythonImage = {})
{
    ServerSettings settings;
    settings.engine = TestEngine::name();
    settings.pythonImage = pythonImage;
    QVERIFY(settings.save(dataDir));
}

// The app's first start over a new data folder, and the setup dialog it offers.
struct FirstStart
{
    QTemporaryDir data;
    std::unique_ptr<EmbeddedServer> server;
    std::unique_ptr<MainWindow> window;

    // The dialog, once it shows (within 20 s), or null.
    csm::SetupDialog* open()
    {
        chooseEngine(data.path());
        server = startServer(data.path());
        window = std::make_unique<MainWindow>(data.path(), server.get());
        window->show();
        const bool shown = QTest::qWaitFor(
            [this] { return findOptional<csm::SetupDialog>(*window, "setupDialog"); }, 20'000);
        return shown ? findOptional<csm::SetupDialog>(*window, "setupDialog") : nullptr;
    }
    bool dialogClosed() const { return !findOptional<csm::SetupDialog>(*window, "setupDialog"); }
};

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
        EmptyPodmanStore store;
        FirstStart start;
        csm::SetupDialog* dialog = start.open();
        QVERIFY(dialog);
        csm::SetupDialog& setup = *dialog;
        QVERIFY(findNamed<QLabel>(setup, "problemsText")
                    .text()
                    .contains(QLatin1String("code-sandbox-python")));
        QVERIFY(findNamed<QLabel>(setup, "problemsText")
                    .text()
                    .contains(QLatin1String("code-sandbox-js")));
        QVERIFY(findNamed<QPushButton>(setup, "buildButton").isVisible());
        QVERIFY(findNamed<QPushButton>(setup, "buildButton").isEnabled());
        QVERIFY(!findNamed<QPushButton>(setup, "useDefaultsButton").isVisible());

        // As tall as what it says: no empty room where the log will be.
        QVERIFY2(setup.height() <= setup.sizeHint().height() + 20,
                 qPrintable(
                     QStringLiteral("%1 > %2").arg(setup.height()).arg(setup.sizeHint().height())));
        QTest::mouseClick(&findNamed<QPushButton>(setup, "buildButton"), Qt::LeftButton);
        QVERIFY(setup.isBuilding());
        QVERIFY(findNamed<QProgressBar>(setup, "progress").isVisible());
        QVERIFY(findNamed<QPlainTextEdit>(setup, "log").isVisible());
        QVERIFY(findNamed<QPlainTextEdit>(setup, "log").height() > 200);
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
        QTRY_VERIFY(start.dialogClosed());
        QVERIFY(DesktopSettings::load(start.data.path()).setupDone);
    }

    void aFailedBuildNamesTheCommandToRunInATerminal()
    {
        if (TestEngine::name() != QLatin1String("podman"))
            QSKIP("only Podman's store can be moved for one process");
        EmptyPodmanStore store;
        // The builder cannot make its cache folder (its parent is a file): it fails at once.
        QTemporaryDir home;
        QFile file(home.filePath(QStringLiteral("not-a-folder")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const QByteArray cache = qgetenv("XDG_CACHE_HOME");
        qputenv("XDG_CACHE_HOME",
                home.filePath(QStringLiteral("not-a-folder/cache")).toLocal8Bit());
        auto restore = qScopeGuard([&] {
            if (cache.isNull())
                qunsetenv("XDG_CACHE_HOME");
            else
                qputenv("XDG_CACHE_HOME", cache);
        });

        FirstStart start;
        csm::SetupDialog* dialog = start.open();
        QVERIFY(dialog);
        csm::SetupDialog& setup = *dialog;
        auto& problems = findNamed<QLabel>(setup, "problemsText");
        // Before: a button, not a command.
        QTRY_VERIFY_WITH_TIMEOUT(findNamed<QPushButton>(setup, "buildButton").isEnabled(), 20'000);
        QVERIFY2(!problems.text().contains(QLatin1String("Run in a terminal")),
                 qPrintable(problems.text()));
        QTest::mouseClick(&findNamed<QPushButton>(setup, "buildButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!setup.isBuilding(), 60'000);
        QVERIFY(findNamed<QProgressBar>(setup, "progress").format().contains(u"failed"));
        // After: the command for each missing image, to run where its output can be read.
        QTRY_VERIFY_WITH_TIMEOUT(problems.text().count(QLatin1String("Run in a terminal")) == 2,
                                 20'000);
        QVERIFY2(problems.text().contains(QLatin1String("build-images")),
                 qPrintable(problems.text()));
        QVERIFY(!findNamed<QPushButton>(setup, "finishButton").isEnabled());
    }

    void aMissingEngineGetsItsCommand()
    {
        QTemporaryDir emptyPath;
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", emptyPath.path().toLocal8Bit());
        auto restore = qScopeGuard([&] { qputenv("PATH", path); });
        FirstStart start;
        csm::SetupDialog* dialog = start.open();
        QVERIFY(dialog);
        csm::SetupDialog& setup = *dialog;
        const QString text = findNamed<QLabel>(setup, "problemsText").text();
        QVERIFY2(text.contains(TestEngine::name()) &&
                     text.contains(QLatin1String("Run in a terminal")),
                 qPrintable(text));
        QVERIFY(!findNamed<QPushButton>(setup, "finishButton").isEnabled());
        QTest::mouseClick(&findNamed<QPushButton>(setup, "skipButton"), Qt::LeftButton);
        QTRY_VERIFY(start.dialogClosed());
        QVERIFY(DesktopSettings::load(start.data.path()).setupDone);
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
