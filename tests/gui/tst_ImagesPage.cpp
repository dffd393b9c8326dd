// The Images page and the health banner of the real main window, against a real container engine
// (CSM_TEST_ENGINE=podman|docker): the engine's real images listed, a one-liner run in one, the
// offline builder's live log, a build cancelled half-way, a build/default/remove round trip on a
// throwaway image, a pull that fails cleanly (no registry here), and the banner offering its fix.
// The real code-sandbox images are only read and run, never removed or rebuilt.
#include "FindNamed.h"
#include "server/ServerSettings.h"
#include "TestEngine.h"
#include "ui/ImageOperations.h"
#include "ui/MainWindow.h"
#include "ui/models/ImagesModel.h"
#include "ui/pages/ImagesPage.h"
#include "ui/widgets/HealthBanner.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using csm::ImageOperations;
using csm::ImagesModel;
using csm::ImagesPage;
using csm::Language;
using csm::MainWindow;
using csm::ServerSettings;

namespace {

// A long engine operation (a pull that fails, a build) gets this long.
constexpr int kOperationTimeoutMs = 60'000;

const QString kPythonImage = QStringLiteral("code-sandbox-python:latest");
const QString kJsImage = QStringLiteral("code-sandbox-js:latest");

bool writeFile(const QString& path, const QByteArray& content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

// What the page's log shows.
QString logText(const ImagesPage& page)
{
    return findNamed<QPlainTextEdit>(page, "log").toPlainText();
}

} // namespace

class tst_ImagesPage final : public QObject
{
    Q_OBJECT

    // The page's commands, as the window made them.
    csm::ImageOperations& operations()
    {
        return findNamed<csm::ImageOperations>(*m_window, "imageOperations");
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        QVERIFY(m_work.isValid());
        QVERIFY2(TestEngine::hasLocalImage(kPythonImage) && TestEngine::hasLocalImage(kJsImage),
                 "the code-sandbox images must be built (containers/build-images)");
        ServerSettings settings = ServerSettings::load(m_data.path());
        settings.engine = TestEngine::name();
        QVERIFY(settings.save(m_data.path()));

        // Throwaway images start from a second name of the Python image, so that what podman
        // leaves of a cancelled build is named after it, not after the real image.
        m_base = TestEngine::localImage(QStringLiteral("csm-test-base:x"));
        m_throwaway = TestEngine::localImage(QStringLiteral("csm-test-image:x"));
        m_cancelled = TestEngine::localImage(QStringLiteral("csm-test-cancelled:x"));
        bool ok = false;
        TestEngine::run({QStringLiteral("tag"), TestEngine::localImage(kPythonImage), m_base}, &ok);
        QVERIFY(ok);

        m_window = std::make_unique<MainWindow>(m_data.path());
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        findNamed<ImagesPage>(*m_window, "imagesPage");
        findNamed<csm::HealthBanner>(*m_window, "healthBanner");
        findNamed<QTabWidget>(*m_window, "pages")
            .setCurrentWidget(&findNamed<ImagesPage>(*m_window, "imagesPage"));
    }

    void cleanupTestCase()
    {
        m_window.reset();
        removeQuietly({QStringLiteral("rm"), QStringLiteral("--force"),
                       QStringLiteral("csm-test-image-user")});
        if (TestEngine::name() == QLatin1String("podman")) {
            // What podman leaves of a cancelled build: the working container of its base.
            removeQuietly({QStringLiteral("rm"), QStringLiteral("--force"),
                           QStringLiteral("csm-test-base-working-container")});
        }
        for (const QString& image : {m_cancelled, m_throwaway, m_base}) {
            if (!image.isEmpty() && TestEngine::run({QStringLiteral("image"), QStringLiteral("ls"),
                                                     QStringLiteral("-q"), image})
                                            .trimmed()
                                            .size() > 0)
                removeQuietly({QStringLiteral("rmi"), image});
        }
    }

    void listsTheRealImages()
    {
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        const ImagesModel& model = findNamed<ImagesModel>(page, "model");
        QCOMPARE(page.engineName(), TestEngine::name());
        QTRY_VERIFY_WITH_TIMEOUT(model.rowOf(TestEngine::localImage(kPythonImage)) >= 0, 20'000);
        for (const auto& [image, language] : {std::pair{kPythonImage, QStringLiteral("Python")},
                                              std::pair{kJsImage, QStringLiteral("JavaScript")}}) {
            const int row = model.rowOf(TestEngine::localImage(image));
            QVERIFY2(row >= 0, qPrintable(image));
            QCOMPARE(model.index(row, ImagesModel::Image).data().toString(),
                     TestEngine::localImage(image));
            // Both are over 100 MB whichever engine measures them.
            QVERIFY(
                model.index(row, ImagesModel::Size).data(ImagesModel::SizeBytesRole).toLongLong() >
                100'000'000);
            QVERIFY(!model.index(row, ImagesModel::Created).data().toString().isEmpty());
            QCOMPARE(model.index(row, ImagesModel::DefaultFor).data().toString(), language);
        }
        QVERIFY(
            !findNamed<QLabel>(page, "defaultsSummary").text().contains(QLatin1String("not in")));
        // All is well: the banner stays hidden.
        QTRY_VERIFY_WITH_TIMEOUT(
            !findNamed<csm::HealthBanner>(*m_window, "healthBanner").isChecking(), 20'000);
        QVERIFY(findNamed<csm::HealthBanner>(*m_window, "healthBanner").problems().isEmpty());
        QVERIFY(!findNamed<csm::HealthBanner>(*m_window, "healthBanner").isVisible());
    }

    void testRunsAOneLinerInTheSelectedImage()
    {
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        for (const QString& image : {kPythonImage, kJsImage}) {
            findNamed<QPlainTextEdit>(page, "log").clear();
            selectImage(TestEngine::localImage(image));
            QVERIFY(findNamed<QPushButton>(page, "testButton").isEnabled());
            QTest::mouseClick(&findNamed<QPushButton>(page, "testButton"), Qt::LeftButton);
            QVERIFY(operations().isBusy());
            QVERIFY(findNamed<QPushButton>(page, "cancelButton").isEnabled());
            QTRY_VERIFY_WITH_TIMEOUT(!operations().isBusy(), kOperationTimeoutMs);
            const QString log = logText(page);
            QVERIFY2(log.contains(QLatin1String("--network none")), qPrintable(log));
            QVERIFY2(log.contains(QStringLiteral("Test of %1: it printed 2 in ")
                                      .arg(TestEngine::localImage(image))),
                     qPrintable(log));
        }
    }

    void theOfflineBuilderStreamsItsLog()
    {
        // The real containers/build-images: with the image present (and no --force) it only
        // says so, which proves the page finds, starts and reads it without rebuilding anything.
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        findNamed<QPlainTextEdit>(page, "log").clear();
        QVERIFY(!findNamed<QCheckBox>(page, "forceRebuild").isChecked());
        QCOMPARE(findNamed<QComboBox>(page, "buildMethod").currentData().toInt(),
                 int(ImageOperations::BuildMethod::OfflineBuilder));
        QTest::mouseClick(&findNamed<QPushButton>(page, "buildPython"), Qt::LeftButton);
        QVERIFY(operations().isBusy());
        QVERIFY(!findNamed<QPushButton>(page, "buildJavaScript").isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!operations().isBusy(), kOperationTimeoutMs);
        const QString log = logText(page);
        QVERIFY2(
            log.contains(
                QStringLiteral("build-images --engine %1 --only python").arg(TestEngine::name())),
            qPrintable(log));
        QVERIFY2(
            log.contains(
                QStringLiteral("%1 exists, skipped").arg(TestEngine::localImage(kPythonImage))),
            qPrintable(log));
        QVERIFY2(log.contains(QLatin1String("Done in")), qPrintable(log));
        QVERIFY(findNamed<QPushButton>(page, "buildJavaScript").isEnabled());
    }

    void aBuildCanBeCancelled()
    {
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        findNamed<QPlainTextEdit>(page, "log").clear();
        const QString dockerfile = m_work.filePath(QStringLiteral("Dockerfile.slow"));
        QVERIFY(writeFile(dockerfile, "FROM " + m_base.toUtf8() + "\nRUN sleep 120\n"));
        operations().buildFromDockerfile(dockerfile, m_cancelled, m_work.path());
        QVERIFY(operations().isBusy());
        const qint64 pid = operations().processId();
        QVERIFY(pid > 0);
        // Cancelled while the engine runs the slow step, with the window responsive meanwhile.
        QTRY_VERIFY_WITH_TIMEOUT(logText(page).contains(QLatin1String("RUN sleep 120")), 30'000);
        QVERIFY(!findNamed<QPushButton>(page, "buildPython").isEnabled());
        QTest::mouseClick(&findNamed<QPushButton>(page, "cancelButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!operations().isBusy(), ImageOperations::kCancelGraceMs + 5'000);
        QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)));
        QVERIFY2(logText(page).contains(QLatin1String("Cancelled after")),
                 qPrintable(logText(page)));
        QVERIFY(findNamed<QPushButton>(page, "buildPython").isEnabled());
        QVERIFY(findNamed<QPushButton>(page, "pullButton").isEnabled());
        QVERIFY(!findNamed<QPushButton>(page, "cancelButton").isEnabled());
        QVERIFY(!TestEngine::hasLocalImage(m_cancelled.section(u'/', -1)));
    }

    void buildSetAsDefaultAndRemove()
    {
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        findNamed<QPlainTextEdit>(page, "log").clear();
        const QString dockerfile = m_work.filePath(QStringLiteral("Dockerfile.quick"));
        QVERIFY(
            writeFile(dockerfile, "FROM " + m_base.toUtf8() + "\nLABEL csm.test=images-page\n"));
        QSignalSpy finished(&operations(), &ImageOperations::finished);
        operations().buildFromDockerfile(dockerfile, m_throwaway, m_work.path());
        QTRY_VERIFY_WITH_TIMEOUT(!operations().isBusy(), kOperationTimeoutMs);
        QCOMPARE(finished.size(), 1);
        QVERIFY2(finished.first().first().toBool(), qPrintable(logText(page)));
        // The list is read again after the build.
        QTRY_VERIFY_WITH_TIMEOUT(findNamed<ImagesModel>(page, "model").rowOf(m_throwaway) >= 0,
                                 20'000);
        // A remote dockerd of its own (not Podman's service, which shares this machine's store):
        // the image was built there, and this machine's own dockerd has never seen it.
        if (qEnvironmentVariable("DOCKER_HOST").startsWith(QLatin1String("tcp://"))) {
            QProcess local;
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            for (const char* name : {"DOCKER_HOST", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY"})
                environment.remove(QLatin1String(name));
            local.setProcessEnvironment(environment);
            local.start(QStringLiteral("docker"),
                        {QStringLiteral("image"), QStringLiteral("inspect"), m_throwaway});
            QVERIFY(local.waitForFinished(30'000));
            QVERIFY2(local.exitCode() != 0, "built on this machine's dockerd, not the remote one");
        }

        // The JavaScript image becomes the throwaway one, in the shared settings...
        selectImage(m_throwaway);
        findNamed<QAction>(page, "setDefaultJavaScript").trigger();
        QCOMPARE(ServerSettings::load(m_data.path()).jsImage, m_throwaway);
        QCOMPARE(cellOf(m_throwaway, ImagesModel::DefaultFor), QStringLiteral("JavaScript"));
        QCOMPARE(cellOf(TestEngine::localImage(kJsImage), ImagesModel::DefaultFor), QString());
        // ...and back to the built default, which is stored as no choice at all.
        selectImage(TestEngine::localImage(kJsImage));
        findNamed<QAction>(page, "setDefaultJavaScript").trigger();
        QCOMPARE(ServerSettings::load(m_data.path()).jsImage, QString());
        QCOMPARE(cellOf(TestEngine::localImage(kJsImage), ImagesModel::DefaultFor),
                 QStringLiteral("JavaScript"));

        // In use by a container: the engine refuses, the page says why, the image stays.
        bool ok = false;
        TestEngine::run({QStringLiteral("create"), QStringLiteral("--name"),
                         QStringLiteral("csm-test-image-user"), m_throwaway,
                         QStringLiteral("true")},
                        &ok);
        QVERIFY(ok);
        findNamed<QPlainTextEdit>(page, "log").clear();
        removeThroughThePage(m_throwaway);
        QVERIFY2(logText(page).contains(QLatin1String("Failed with exit code")),
                 qPrintable(logText(page)));
        QVERIFY2(logText(page).contains(QLatin1String("csm-test-image-user")) ||
                     logText(page).contains(QLatin1String("in use")) ||
                     logText(page).contains(QLatin1String("is using")),
                 qPrintable(logText(page)));
        QVERIFY(TestEngine::hasLocalImage(m_throwaway.section(u'/', -1)));

        TestEngine::run({QStringLiteral("rm"), QStringLiteral("csm-test-image-user")}, &ok);
        QVERIFY(ok);
        findNamed<QPlainTextEdit>(page, "log").clear();
        removeThroughThePage(m_throwaway);
        QVERIFY2(logText(page).contains(QLatin1String("Done in")), qPrintable(logText(page)));
        QVERIFY(!TestEngine::hasLocalImage(m_throwaway.section(u'/', -1)));
        QTRY_VERIFY_WITH_TIMEOUT(findNamed<ImagesModel>(page, "model").rowOf(m_throwaway) < 0,
                                 20'000);
        // The real images are untouched.
        QVERIFY(TestEngine::hasLocalImage(kPythonImage));
        QVERIFY(TestEngine::hasLocalImage(kJsImage));
    }

    void aPullFailsCleanlyWithoutARegistry()
    {
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        findNamed<QPlainTextEdit>(page, "log").clear();
        QTest::mouseClick(&findNamed<QPushButton>(page, "pullButton"), Qt::LeftButton);
        QTRY_VERIFY(findOptional<QInputDialog>(page, "pullDialog"));
        auto* edit = findOptional<QInputDialog>(page, "pullDialog")->findChild<QLineEdit*>();
        QVERIFY(edit);
        QTest::keyClicks(edit, QStringLiteral("localhost:1/csm-no-such-image:x"));
        QTest::keyClick(edit, Qt::Key_Return);
        QTRY_VERIFY(operations().isBusy() || logText(page).contains(QLatin1String("pull")));
        QTRY_VERIFY_WITH_TIMEOUT(!operations().isBusy(), kOperationTimeoutMs);
        const QString log = logText(page);
        QVERIFY2(log.contains(QLatin1String("pull localhost:1/csm-no-such-image:x")),
                 qPrintable(log));
        QVERIFY2(log.contains(QLatin1String("connection refused")), qPrintable(log));
        QVERIFY2(log.contains(QLatin1String("Failed with exit code")), qPrintable(log));
        QVERIFY(findNamed<QPushButton>(page, "pullButton").isEnabled());
    }

    void theBannerOffersTheFixForAMissingImage()
    {
        csm::HealthBanner& banner = findNamed<csm::HealthBanner>(*m_window, "healthBanner");
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        // A registry's image: the banner offers to pull it.
        const QString missing = QStringLiteral("localhost:1/csm-no-such-image:x");
        ServerSettings settings = ServerSettings::load(m_data.path());
        settings.setImage(Language::Python, missing);
        QVERIFY(settings.save(m_data.path()));
        // The banner notices the settings changed by itself.
        QTRY_VERIFY_WITH_TIMEOUT(banner.isVisible(), 20'000);
        QCOMPARE(banner.problems().size(), 1);
        QVERIFY2(banner.text().contains(QStringLiteral("image not found: %1").arg(missing)),
                 qPrintable(banner.text()));
        QTRY_VERIFY(
            findNamed<QLabel>(page, "defaultsSummary").text().contains(QLatin1String("not in")));
        QPushButton* fix = findOptional<QPushButton>(banner, "fixButton");
        QVERIFY(fix);
        QCOMPARE(fix->text(), QStringLiteral("Pull"));

        // Its fix runs on the Images page: here, a pull that fails as clearly as any.
        findNamed<QTabWidget>(*m_window, "pages").setCurrentIndex(0);
        findNamed<QPlainTextEdit>(page, "log").clear();
        QTest::mouseClick(fix, Qt::LeftButton);
        QCOMPARE(findNamed<QTabWidget>(*m_window, "pages").currentWidget(), &page);
        QTRY_VERIFY_WITH_TIMEOUT(!operations().isBusy(), kOperationTimeoutMs);
        QVERIFY2(logText(page).contains(QStringLiteral("pull %1").arg(missing)),
                 qPrintable(logText(page)));
        QVERIFY2(logText(page).contains(QLatin1String("Failed with exit code")),
                 qPrintable(logText(page)));

        // A missing default image's fix (Build) runs the offline builder on the Images page; the
        // real default images cannot be removed here, so the banner's request is made directly
        // and the builder finds the image present.
        findNamed<QTabWidget>(*m_window, "pages").setCurrentIndex(0);
        findNamed<QPlainTextEdit>(page, "log").clear();
        Q_EMIT banner.buildRequested(Language::JavaScript);
        QCOMPARE(findNamed<QTabWidget>(*m_window, "pages").currentWidget(), &page);
        QTRY_VERIFY_WITH_TIMEOUT(!operations().isBusy(), kOperationTimeoutMs);
        QVERIFY2(logText(page).contains(
                     QStringLiteral("build-images --engine %1 --only js").arg(TestEngine::name())),
                 qPrintable(logText(page)));
        QVERIFY2(logText(page).contains(QLatin1String("Done in")), qPrintable(logText(page)));

        // An image built on this machine (localhost/) is in no registry: no Pull, the command
        // that builds it instead.
        const QString local = QStringLiteral("localhost/csm-no-such-image:x");
        settings.setImage(Language::Python, local);
        QVERIFY(settings.save(m_data.path()));
        QTRY_VERIFY_WITH_TIMEOUT(
            banner.text().contains(QStringLiteral("image not found: %1").arg(local)), 20'000);
        QVERIFY(!findOptional<QPushButton>(banner, "fixButton"));
        QVERIFY2(banner.text().contains(QStringLiteral("fix: build %1 on this machine").arg(local)),
                 qPrintable(banner.text()));

        // Back to the built default: the banner goes away.
        settings.setImage(Language::Python, QString());
        QVERIFY(settings.save(m_data.path()));
        QTRY_VERIFY_WITH_TIMEOUT(!banner.isVisible() && !banner.isChecking(), 20'000);
        QVERIFY(banner.problems().isEmpty());
    }

private:
    void selectImage(const QString& image)
    {
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        QTableView& table = findNamed<QTableView>(page, "table");
        const int row = findNamed<ImagesModel>(page, "model").rowOf(image);
        QVERIFY2(row >= 0, qPrintable(image));
        table.scrollTo(table.model()->index(row, ImagesModel::Image));
        const QRect rect = table.visualRect(table.model()->index(row, ImagesModel::Image));
        QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, rect.center());
        QTRY_COMPARE(table.currentIndex().row(), row);
    }

    QString cellOf(const QString& image, int column) const
    {
        const ImagesModel& model =
            findNamed<ImagesModel>(findNamed<ImagesPage>(*m_window, "imagesPage"), "model");
        return model.index(model.rowOf(image), column).data().toString();
    }

    void removeThroughThePage(const QString& image)
    {
        ImagesPage& page = findNamed<ImagesPage>(*m_window, "imagesPage");
        QTRY_VERIFY(!page.isRefreshing());
        selectImage(image);
        QTest::mouseClick(&findNamed<QPushButton>(page, "removeButton"), Qt::LeftButton);
        QTRY_VERIFY(findOptional<QMessageBox>(page, "removeConfirmation"));
        QMessageBox* box = findOptional<QMessageBox>(page, "removeConfirmation");
        QVERIFY2(box->text().contains(image), qPrintable(box->text()));
        QTest::mouseClick(box->button(QMessageBox::Yes), Qt::LeftButton);
        QTRY_VERIFY(!findOptional<QMessageBox>(page, "removeConfirmation"));
        QTRY_VERIFY_WITH_TIMEOUT(!operations().isBusy(), kOperationTimeoutMs);
    }

    static void removeQuietly(const QStringList& arguments)
    {
        QProcess process;
        process.start(TestEngine::name(), arguments);
        process.waitForFinished(60'000);
    }

    QTemporaryDir m_data;
    QTemporaryDir m_work;
    QString m_base;
    QString m_throwaway;
    QString m_cancelled;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(tst_ImagesPage)
#include "tst_ImagesPage.moc"
