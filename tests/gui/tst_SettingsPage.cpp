// The Settings page of the real main window under the offscreen platform, over a temporary data
// folder: values are changed by typing and clicking, applied, and read back from settings.ini
// the way the app (ServerSettings, DesktopSettings), a second window and a headless server
// started now (ServerOptionsParser) read them. Values the page does not show (the images, the
// HTTP server) survive; changes made to the file elsewhere reload the form; invalid stored values
// are reported and replaced by the defaults.
#include "core/SettingsFile.h"
#include "FindNamed.h"
#include "server/ServerOptionsParser.h"
#include "server/ServerSettings.h"
#include "ui/MainWindow.h"
#include "ui/pages/SettingsPage.h"
#include "ui/settings/DesktopSettings.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include <memory>

using csm::DesktopSettings;
using csm::Isolation;
using csm::MainWindow;
using csm::ServerSettings;
using csm::SettingsPage;

namespace {

constexpr qint64 MiB = 1024 * 1024;
constexpr int kWaitMs = 5000;

const QString kPythonImage = QStringLiteral("registry.example/python:3.12");
const QString kJsImage = QStringLiteral("registry.example/node:20");

// Types `text` over the box's number, as a person does: select it, type.
void type(QAbstractSpinBox& box, const QString& text)
{
    box.setFocus();
    QTest::keyClick(&box, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(&box, text);
}

// Check boxes and radio buttons take clicks on their indicator and label only: click the
// indicator, at the left.
void clickIndicator(QAbstractButton& button)
{
    QTest::mouseClick(&button, Qt::LeftButton, {}, QPoint(6, button.height() / 2));
}

QFileDevice::Permissions groupOrOther()
{
    return QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
           QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
}

} // namespace

class tst_SettingsPage final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // Decimal points as typed below.
        QLocale::setDefault(QLocale::c());
        QVERIFY(m_data.isValid());
        // What other pages store: the page must keep it.
        ServerSettings seeded;
        seeded.pythonImage = kPythonImage;
        seeded.jsImage = kJsImage;
        const csm::Expected<void> seededSaved = seeded.save(m_data.path());
        QVERIFY2(seededSaved, qPrintable(seededSaved.error()));
        DesktopSettings desktop;
        desktop.httpPort = 9123;
        desktop.httpToken = QStringLiteral("a-token");
        const csm::Expected<void> desktopSaved = desktop.save(m_data.path());
        QVERIFY2(desktopSaved, qPrintable(desktopSaved.error()));

        m_window = std::make_unique<MainWindow>(m_data.path());
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        findNamed<SettingsPage>(*m_window, "settingsPage");
        QTabWidget& pages = findNamed<QTabWidget>(*m_window, "pages");
        QCOMPARE(pages.tabText(pages.count() - 1), QStringLiteral("Settings"));
        QCOMPARE(pages.widget(pages.count() - 1),
                 &findNamed<SettingsPage>(*m_window, "settingsPage"));
        pages.setCurrentWidget(&findNamed<SettingsPage>(*m_window, "settingsPage"));
    }

    void cleanupTestCase() { m_window.reset(); }

    void showsTheDefaultsUnchanged()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        QCOMPARE(findNamed<QSpinBox>(page, "memory").value(), 512);
        QCOMPARE(findNamed<QDoubleSpinBox>(page, "cpus").value(), 1.0);
        QCOMPARE(findNamed<QSpinBox>(page, "processes").value(), 256);
        QCOMPARE(findNamed<QSpinBox>(page, "writableSpace").value(), 64);
        QCOMPARE(findNamed<QSpinBox>(page, "outputCap").value(), 1);
        QCOMPARE(findNamed<QComboBox>(page, "outputCapUnit").currentText(), QStringLiteral("MiB"));
        QVERIFY(findNamed<QRadioButton>(page, "egress-open").isChecked());
        QVERIFY(findNamed<QPlainTextEdit>(page, "allowedHosts").toPlainText().isEmpty());
        QCOMPARE(findNamed<QSpinBox>(page, "defaultTimeout").value(), 30);
        QCOMPARE(findNamed<QSpinBox>(page, "maxTimeout").value(), 600);
        QCOMPARE(findNamed<QSpinBox>(page, "poolSize").value(), 2);
        QCOMPARE(findNamed<QSpinBox>(page, "poolIdle").value(), 600);
        QCOMPARE(findNamed<QSpinBox>(page, "interpreterIdle").value(), 900);
        QCOMPARE(findNamed<QSpinBox>(page, "maxInterpreters").value(), 16);
        QCOMPARE(findNamed<QSpinBox>(page, "maxClientInterpreters").value(), 4);
        QVERIFY(findNamed<QCheckBox>(page, "redact").isChecked());
        QVERIFY(findNamed<QLabel>(page, "redactWarning").isHidden());
        QCOMPARE(findNamed<QSpinBox>(page, "keepRuns").value(), 10000);
        QCOMPARE(findNamed<QSpinBox>(page, "keepDays").value(), 90);
        QCOMPARE(findNamed<QSpinBox>(page, "keepMegabytes").value(), 512);
        QCOMPARE(findNamed<QSpinBox>(page, "keepPerText").value(), 256);
        QCOMPARE(findNamed<QComboBox>(page, "engine").currentData().toString(),
                 QStringLiteral("auto"));
        QVERIFY(!findNamed<QCheckBox>(page, "approvalRequired").isChecked());
        QVERIFY(!findNamed<QSpinBox>(page, "approvalTimeout").isEnabled());
        // Notified of approvals, not of failures, unless asked.
        QVERIFY(findNamed<QCheckBox>(page, "notifyApprovals").isChecked());
        QVERIFY(!findNamed<QCheckBox>(page, "notifyFailures").isChecked());
        QVERIFY(findNamed<QLabel>(page, "problemsLabel").isHidden());
        QVERIFY(!page.hasChanges());
        QVERIFY(!findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY(!findNamed<QPushButton>(page, "revertButton").isEnabled());
    }

    // Scrolling down the page with the wheel changes nothing: a field takes the wheel only
    // once it has the focus (a click or Tab).
    void theWheelChangesOnlyAFocusedField()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        QSpinBox& days = findNamed<QSpinBox>(page, "keepDays");
        QComboBox& unit = findNamed<QComboBox>(page, "outputCapUnit");
        QPushButton& apply = findNamed<QPushButton>(page, "applyButton");
        const auto wheelDown = [](QWidget& over) {
            const QPointF at(over.width() / 2.0, over.height() / 2.0);
            QWheelEvent event(at, over.mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                              Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(&over, &event);
        };
        findNamed<QPushButton>(page, "revertButton").setFocus();
        QVERIFY(!days.hasFocus());
        wheelDown(days);
        wheelDown(unit);
        QCOMPARE(days.value(), 90);
        QCOMPARE(unit.currentText(), QStringLiteral("MiB"));
        QVERIFY(!page.hasChanges());
        QVERIFY(!apply.isEnabled());

        // Clicked into, the field is the person's to change with the wheel.
        days.setFocus();
        QTRY_VERIFY(days.hasFocus());
        wheelDown(days);
        QCOMPARE(days.value(), 89);
        QVERIFY(page.hasChanges());
        QTest::mouseClick(&findNamed<QPushButton>(page, "revertButton"), Qt::LeftButton);
        QTRY_COMPARE(days.value(), 90);
        QVERIFY(!page.hasChanges());
    }

    void editedValuesAreSavedForEveryServer()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        const QString file = ServerSettings::filePath(m_data.path());
        // Apply must make a file that others could read private again (it holds the token).
        QVERIFY(QFile::setPermissions(file, QFile::permissions(file) | QFileDevice::ReadGroup |
                                                QFileDevice::ReadOther));

        type(findNamed<QSpinBox>(page, "memory"), QStringLiteral("1024"));
        QVERIFY(page.hasChanges());
        QVERIFY(findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY(findNamed<QPushButton>(page, "revertButton").isEnabled());
        type(findNamed<QDoubleSpinBox>(page, "cpus"), QStringLiteral("0.5"));
        type(findNamed<QSpinBox>(page, "processes"), QStringLiteral("100"));
        type(findNamed<QSpinBox>(page, "writableSpace"), QStringLiteral("128"));
        findNamed<QComboBox>(page, "outputCapUnit").setFocus();
        QTest::keyClick(&findNamed<QComboBox>(page, "outputCapUnit"),
                        Qt::Key_Home); // KiB: 1 MiB becomes 1024 KiB
        QCOMPARE(findNamed<QComboBox>(page, "outputCapUnit").currentText(), QStringLiteral("KiB"));
        QCOMPARE(findNamed<QSpinBox>(page, "outputCap").value(), 1024);
        type(findNamed<QSpinBox>(page, "outputCap"), QStringLiteral("256"));
        clickIndicator(findNamed<QRadioButton>(page, "egress-allowlist"));
        QVERIFY(findNamed<QRadioButton>(page, "egress-allowlist").isChecked());
        QVERIFY(!findNamed<QRadioButton>(page, "egress-open").isChecked());
        findNamed<QPlainTextEdit>(page, "allowedHosts").setFocus();
        QTest::keyClicks(&findNamed<QPlainTextEdit>(page, "allowedHosts"),
                         QStringLiteral("api.github.com:443"));
        QTest::keyClick(&findNamed<QPlainTextEdit>(page, "allowedHosts"), Qt::Key_Return);
        QTest::keyClicks(&findNamed<QPlainTextEdit>(page, "allowedHosts"),
                         QStringLiteral("*.pypi.org"));
        // A host a server would refuse stops the save, and says which list it is in.
        auto& always = findNamed<QPlainTextEdit>(page, "alwaysAllowed");
        always.setFocus();
        QTest::keyClicks(&always, QStringLiteral("example.org:99999"));
        QVERIFY(!findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY2(findNamed<QLabel>(page, "errorLabel")
                     .text()
                     .contains(QStringLiteral("always-allowed host is not valid")),
                 qPrintable(findNamed<QLabel>(page, "errorLabel").text()));
        always.selectAll();
        QTest::keyClicks(&always, QStringLiteral("example.org:443"));
        type(findNamed<QSpinBox>(page, "defaultTimeout"), QStringLiteral("45"));
        type(findNamed<QSpinBox>(page, "maxTimeout"), QStringLiteral("900"));
        type(findNamed<QSpinBox>(page, "poolSize"), QStringLiteral("4"));
        type(findNamed<QSpinBox>(page, "poolIdle"), QStringLiteral("120"));
        type(findNamed<QSpinBox>(page, "interpreterIdle"), QStringLiteral("300"));
        type(findNamed<QSpinBox>(page, "maxInterpreters"), QStringLiteral("8"));
        type(findNamed<QSpinBox>(page, "maxClientInterpreters"), QStringLiteral("2"));
        type(findNamed<QSpinBox>(page, "maxRunning"), QStringLiteral("3"));
        clickIndicator(findNamed<QCheckBox>(page, "allowUnlimited"));
        QVERIFY(findNamed<QCheckBox>(page, "allowUnlimited").isChecked());
        clickIndicator(findNamed<QCheckBox>(page, "redact"));
        QVERIFY(!findNamed<QCheckBox>(page, "redact").isChecked());
        QVERIFY(!findNamed<QLabel>(page, "redactWarning").isHidden());
        type(findNamed<QSpinBox>(page, "keepRuns"), QStringLiteral("500"));
        type(findNamed<QSpinBox>(page, "keepDays"), QStringLiteral("30"));
        type(findNamed<QSpinBox>(page, "keepMegabytes"), QStringLiteral("0"));
        type(findNamed<QSpinBox>(page, "keepFilesMegabytes"), QStringLiteral("2048"));
        type(findNamed<QSpinBox>(page, "keepPerText"), QStringLiteral("64"));
        findNamed<QComboBox>(page, "engine").setFocus();
        QTest::keyClicks(&findNamed<QComboBox>(page, "engine"), QStringLiteral("P"));
        QCOMPARE(findNamed<QComboBox>(page, "engine").currentData().toString(),
                 QStringLiteral("podman"));
        clickIndicator(findNamed<QCheckBox>(page, "approvalRequired"));
        QVERIFY(findNamed<QCheckBox>(page, "approvalRequired").isChecked());
        QVERIFY(findNamed<QSpinBox>(page, "approvalTimeout").isEnabled());
        type(findNamed<QSpinBox>(page, "approvalTimeout"), QStringLiteral("120"));
        clickIndicator(findNamed<QCheckBox>(page, "notifyApprovals"));
        QVERIFY(!findNamed<QCheckBox>(page, "notifyApprovals").isChecked());
        clickIndicator(findNamed<QCheckBox>(page, "notifyFailures"));
        QVERIFY(findNamed<QCheckBox>(page, "notifyFailures").isChecked());

        QSignalSpy applied(&page, &SettingsPage::applied);
        QTest::mouseClick(&findNamed<QPushButton>(page, "applyButton"), Qt::LeftButton);
        QCOMPARE(applied.count(), 1);
        QVERIFY2(findNamed<QLabel>(page, "errorLabel").isHidden(),
                 qPrintable(findNamed<QLabel>(page, "errorLabel").text()));
        QVERIFY(!page.hasChanges());
        QVERIFY(!findNamed<QPushButton>(page, "applyButton").isEnabled());

        QStringList problems;
        const ServerSettings saved = ServerSettings::load(m_data.path(), &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(saved.policy.memoryBytes, 1024 * MiB);
        QCOMPARE(saved.policy.cpus, 0.5);
        QCOMPARE(saved.policy.pidsLimit, 100);
        QCOMPARE(saved.policy.tmpfsBytes, 128 * MiB);
        QCOMPARE(saved.policy.outputCapBytes, 256 * qint64(1024));
        QCOMPARE(saved.egress.mode, csm::EgressMode::Allowlist);
        QCOMPARE(saved.egress.allowedHosts.size(), 2);
        QCOMPARE(saved.egress.allowedHosts.at(1).toString(), QStringLiteral("*.pypi.org"));
        QCOMPARE(saved.egress.alwaysAllowed.size(), 1);
        QCOMPARE(saved.egress.alwaysAllowed.at(0).toString(), QStringLiteral("example.org:443"));
        QCOMPARE(saved.defaultTimeoutSeconds, 45.0);
        QCOMPARE(saved.maxTimeoutSeconds, 900.0);
        QCOMPARE(saved.poolSize, 4);
        QCOMPARE(saved.poolIdleSeconds, 120);
        QCOMPARE(saved.interpreterIdleSeconds, 300);
        QCOMPARE(saved.maxInterpreters, 8);
        QCOMPARE(saved.maxClientInterpreters, 2);
        QCOMPARE(saved.maxRunning, 3);
        QCOMPARE(saved.policy.allowUnenforcedLimits, true);
        QCOMPARE(saved.redactOutput, false);
        QCOMPARE(saved.historyRetention.maxRuns, 500);
        QCOMPARE(saved.historyRetention.maxAgeDays, 30);
        QCOMPARE(saved.historyRetention.maxTotalBytes, 0);
        QCOMPARE(saved.historyRetention.maxFilesBytes, 2048 * MiB);
        QCOMPARE(saved.historyMaxFieldBytes, 64 * qint64(1024));
        QCOMPARE(saved.engine, QStringLiteral("podman"));
        // Not on this page, and kept.
        QCOMPARE(saved.pythonImage, kPythonImage);
        QCOMPARE(saved.jsImage, kJsImage);

        const DesktopSettings desktop = DesktopSettings::load(m_data.path());
        QCOMPARE(desktop.approvalRequired, true);
        QCOMPARE(desktop.approvalTimeoutSeconds, 120);
        QCOMPARE(desktop.notifyApprovals, false);
        QCOMPARE(desktop.notifyFailures, true);
        QCOMPARE(desktop.httpPort, 9123);
        QCOMPARE(desktop.httpToken, QStringLiteral("a-token"));

        const QFileDevice::Permissions permissions = QFile::permissions(file);
        QCOMPARE(permissions & groupOrOther(), QFileDevice::Permissions());
        QVERIFY(permissions.testFlags(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    }

    void aServerStartedNowUsesTheAppliedValues()
    {
        const QStringList arguments = {QStringLiteral("code-sandbox-mcp"),
                                       QStringLiteral("--data-dir"), m_data.path()};
        const auto parsed = csm::ServerOptionsParser::parse(arguments, QProcessEnvironment());
        if (!parsed)
            QFAIL(qPrintable(parsed.error()));
        const auto* options = (parsed ? &*parsed : nullptr);
        QVERIFY(options);
        QVERIFY2(options->warnings.isEmpty(), qPrintable(options->warnings.join(u'\n')));
        QCOMPARE(options->policy.memoryBytes, 1024 * MiB);
        QCOMPARE(options->policy.cpus, 0.5);
        QCOMPARE(options->policy.pidsLimit, 100);
        QCOMPARE(options->policy.tmpfsBytes, 128 * MiB);
        QCOMPARE(options->policy.outputCapBytes, 256 * qint64(1024));
        QCOMPARE(options->egress.mode, csm::EgressMode::Allowlist);
        QCOMPARE(options->egress.allowedHosts.at(0).toString(),
                 QStringLiteral("api.github.com:443"));
        QCOMPARE(options->egress.alwaysAllowed.at(0).toString(), QStringLiteral("example.org:443"));
        QCOMPARE(options->policy.network, QStringLiteral("none"));
        QCOMPARE(options->defaultTimeoutSeconds, 45.0);
        QCOMPARE(options->maxTimeoutSeconds, 900.0);
        QCOMPARE(options->poolSize, 4);
        QCOMPARE(options->poolIdleSeconds, 120);
        QCOMPARE(options->interpreterIdleSeconds, 300);
        QCOMPARE(options->maxInterpreters, 8);
        QCOMPARE(options->maxClientInterpreters, 2);
        QCOMPARE(options->maxRunning, 3);
        QCOMPARE(options->policy.allowUnenforcedLimits, true);
        QCOMPARE(options->redactOutput, false);
        QCOMPARE(options->historyRetention.maxRuns, 500);
        QCOMPARE(options->historyRetention.maxAgeDays, 30);
        QCOMPARE(options->historyRetention.maxTotalBytes, 0);
        QCOMPARE(options->historyRetention.maxFilesBytes, 2048 * MiB);
        QCOMPARE(options->historyMaxFieldBytes, 64 * qint64(1024));
        QCOMPARE(options->engine, QStringLiteral("podman"));
        QCOMPARE(options->pythonImage, kPythonImage);
    }

    void aSecondWindowShowsTheSavedValues()
    {
        MainWindow second(m_data.path());
        const SettingsPage& page = findNamed<SettingsPage>(second, "settingsPage");
        QCOMPARE(findNamed<QSpinBox>(page, "memory").value(), 1024);
        QCOMPARE(findNamed<QDoubleSpinBox>(page, "cpus").value(), 0.5);
        QCOMPARE(findNamed<QSpinBox>(page, "processes").value(), 100);
        QCOMPARE(findNamed<QSpinBox>(page, "writableSpace").value(), 128);
        QCOMPARE(findNamed<QSpinBox>(page, "outputCap").value(), 256);
        QCOMPARE(findNamed<QComboBox>(page, "outputCapUnit").currentText(), QStringLiteral("KiB"));
        QVERIFY(findNamed<QRadioButton>(page, "egress-allowlist").isChecked());
        QCOMPARE(findNamed<QPlainTextEdit>(page, "allowedHosts").toPlainText(),
                 QStringLiteral("api.github.com:443\n*.pypi.org"));
        QCOMPARE(findNamed<QPlainTextEdit>(page, "alwaysAllowed").toPlainText(),
                 QStringLiteral("example.org:443"));
        QCOMPARE(findNamed<QSpinBox>(page, "defaultTimeout").value(), 45);
        QCOMPARE(findNamed<QSpinBox>(page, "maxTimeout").value(), 900);
        QCOMPARE(findNamed<QSpinBox>(page, "poolSize").value(), 4);
        QCOMPARE(findNamed<QSpinBox>(page, "poolIdle").value(), 120);
        QCOMPARE(findNamed<QSpinBox>(page, "interpreterIdle").value(), 300);
        QVERIFY(!findNamed<QCheckBox>(page, "redact").isChecked());
        QVERIFY(!findNamed<QLabel>(page, "redactWarning").isHidden());
        QCOMPARE(findNamed<QSpinBox>(page, "keepRuns").value(), 500);
        QCOMPARE(findNamed<QSpinBox>(page, "keepDays").value(), 30);
        QCOMPARE(findNamed<QSpinBox>(page, "keepMegabytes").value(), 0);
        QCOMPARE(findNamed<QSpinBox>(page, "keepMegabytes").text(), QStringLiteral("No limit"));
        QCOMPARE(findNamed<QSpinBox>(page, "keepPerText").value(), 64);
        QCOMPARE(findNamed<QComboBox>(page, "engine").currentData().toString(),
                 QStringLiteral("podman"));
        QVERIFY(findNamed<QCheckBox>(page, "approvalRequired").isChecked());
        QCOMPARE(findNamed<QSpinBox>(page, "approvalTimeout").value(), 120);
        QVERIFY(!page.hasChanges());
    }

    void revertDiscardsTheEdits()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        const QByteArray before = readSettingsFile();
        type(findNamed<QSpinBox>(page, "memory"), QStringLiteral("2048"));
        clickIndicator(findNamed<QRadioButton>(page, "egress-bridge"));
        QVERIFY(page.hasChanges());
        QTest::mouseClick(&findNamed<QPushButton>(page, "revertButton"), Qt::LeftButton);
        QCOMPARE(findNamed<QSpinBox>(page, "memory").value(), 1024);
        QVERIFY(findNamed<QRadioButton>(page, "egress-allowlist").isChecked());
        QVERIFY(!page.hasChanges());
        QVERIFY(!findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY(!findNamed<QPushButton>(page, "revertButton").isEnabled());
        QCOMPARE(readSettingsFile(), before);
    }

    void aDefaultLongerThanTheMaximumIsNotApplied()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        type(findNamed<QSpinBox>(page, "defaultTimeout"), QStringLiteral("1000"));
        QVERIFY(page.hasChanges());
        QVERIFY(!findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY(!findNamed<QLabel>(page, "errorLabel").isHidden());
        QVERIFY2(findNamed<QLabel>(page, "errorLabel").text().contains(QStringLiteral("maximum")),
                 qPrintable(findNamed<QLabel>(page, "errorLabel").text()));
        type(findNamed<QSpinBox>(page, "maxTimeout"), QStringLiteral("1200"));
        QVERIFY(findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY(findNamed<QLabel>(page, "errorLabel").isHidden());
        QTest::mouseClick(&findNamed<QPushButton>(page, "revertButton"), Qt::LeftButton);
        QCOMPARE(findNamed<QSpinBox>(page, "defaultTimeout").value(), 45);
    }

    void gvisorWithTheBridgeIsNotApplied()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        QComboBox& isolation = findNamed<QComboBox>(page, "isolation");
        isolation.setCurrentIndex(isolation.findData(QStringLiteral("gvisor")));
        QVERIFY(page.hasChanges());
        QVERIFY(findNamed<QPushButton>(page, "applyButton").isEnabled());
        clickIndicator(findNamed<QRadioButton>(page, "egress-bridge"));
        QVERIFY(!findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY(!findNamed<QLabel>(page, "errorLabel").isHidden());
        QVERIFY2(findNamed<QLabel>(page, "errorLabel").text().contains(QStringLiteral("bridge")),
                 qPrintable(findNamed<QLabel>(page, "errorLabel").text()));
        clickIndicator(findNamed<QRadioButton>(page, "egress-allowlist"));
        QVERIFY(findNamed<QPushButton>(page, "applyButton").isEnabled());
        QTest::mouseClick(&findNamed<QPushButton>(page, "revertButton"), Qt::LeftButton);
        QCOMPARE(isolation.currentData().toString(), QStringLiteral("standard"));
    }

    // A language's image can have its own tier: saved under its key, refused with the bridge
    // under its own flag, and back to the Isolation field's with the first choice.
    void anImageCanHaveItsOwnTier()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        QComboBox& js = findNamed<QComboBox>(page, "jsIsolation");
        QComboBox& python = findNamed<QComboBox>(page, "pythonIsolation");
        QCOMPARE(js.currentIndex(), 0);
        QCOMPARE(python.currentIndex(), 0);
        QVERIFY(js.itemText(0).contains(QLatin1String("Isolation")));
        js.setCurrentIndex(js.findData(QStringLiteral("gvisor")));
        QVERIFY(page.hasChanges());
        clickIndicator(findNamed<QRadioButton>(page, "egress-bridge"));
        QVERIFY(!findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY2(findNamed<QLabel>(page, "errorLabel")
                     .text()
                     .contains(QStringLiteral("--js-isolation gvisor")),
                 qPrintable(findNamed<QLabel>(page, "errorLabel").text()));
        QTest::mouseClick(&findNamed<QPushButton>(page, "revertButton"), Qt::LeftButton);
        QCOMPARE(js.currentIndex(), 0);

        js.setCurrentIndex(js.findData(QStringLiteral("gvisor")));
        python.setCurrentIndex(python.findData(QStringLiteral("standard")));
        QTest::mouseClick(&findNamed<QPushButton>(page, "applyButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(
            ServerSettings::load(m_data.path()).policy.jsIsolation == Isolation::Gvisor, kWaitMs);
        QVERIFY(ServerSettings::load(m_data.path()).policy.pythonIsolation == Isolation::Standard);
        QVERIFY(ServerSettings::load(m_data.path()).policy.isolation == Isolation::Standard);

        js.setCurrentIndex(0);
        python.setCurrentIndex(0);
        QTest::mouseClick(&findNamed<QPushButton>(page, "applyButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!ServerSettings::load(m_data.path()).policy.jsIsolation, kWaitMs);
        QVERIFY(!ServerSettings::load(m_data.path()).policy.pythonIsolation);
    }

    void aChangeMadeElsewhereReloadsTheForm()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        ServerSettings elsewhere = ServerSettings::load(m_data.path());
        elsewhere.poolSize = 7;
        QVERIFY(elsewhere.save(m_data.path()));
        QTRY_COMPARE_WITH_TIMEOUT(findNamed<QSpinBox>(page, "poolSize").value(), 7, kWaitMs);
        QVERIFY(!page.hasChanges());
        QVERIFY(findNamed<QLabel>(page, "changedElsewhereLabel").isHidden());
    }

    void aChangeMadeElsewhereKeepsEditsInProgress()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        type(findNamed<QSpinBox>(page, "memory"), QStringLiteral("768"));
        ServerSettings elsewhere = ServerSettings::load(m_data.path());
        elsewhere.poolSize = 9;
        elsewhere.pythonImage = QStringLiteral("registry.example/python:3.13");
        QVERIFY(elsewhere.save(m_data.path()));
        QTRY_VERIFY_WITH_TIMEOUT(!findNamed<QLabel>(page, "changedElsewhereLabel").isHidden(),
                                 kWaitMs);
        QCOMPARE(findNamed<QSpinBox>(page, "memory").value(), 768);
        QCOMPARE(findNamed<QSpinBox>(page, "poolSize").value(), 7);

        // Apply puts the edit over the file as it is now: the other program's values stay.
        QTest::mouseClick(&findNamed<QPushButton>(page, "applyButton"), Qt::LeftButton);
        const ServerSettings saved = ServerSettings::load(m_data.path());
        QCOMPARE(saved.policy.memoryBytes, 768 * MiB);
        QCOMPARE(saved.poolSize, 9);
        QCOMPARE(saved.pythonImage, QStringLiteral("registry.example/python:3.13"));
        QCOMPARE(findNamed<QSpinBox>(page, "poolSize").value(), 9);
        QVERIFY(findNamed<QLabel>(page, "changedElsewhereLabel").isHidden());
    }

    void anInvalidStoredValueIsReportedAndTheDefaultShown()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        QVERIFY(findNamed<QLabel>(page, "problemsLabel").isHidden());
        csm::SettingsFile file(m_data.path());
        file.setValue(QStringLiteral("memory"), QStringLiteral("lots"));
        QVERIFY(file.save());
        QTRY_VERIFY_WITH_TIMEOUT(!findNamed<QLabel>(page, "problemsLabel").isHidden(), kWaitMs);
        QVERIFY2(findNamed<QLabel>(page, "problemsLabel")
                     .text()
                     .contains(QStringLiteral("memory \"lots\" ignored")),
                 qPrintable(findNamed<QLabel>(page, "problemsLabel").text()));
        QCOMPARE(findNamed<QSpinBox>(page, "memory").value(), 512);
        // The other values still come from the file.
        QCOMPARE(findNamed<QSpinBox>(page, "poolSize").value(), 9);
        QVERIFY(!page.hasChanges());

        // Applying an edit stores valid values throughout, and the problem is gone.
        type(findNamed<QSpinBox>(page, "processes"), QStringLiteral("300"));
        QTest::mouseClick(&findNamed<QPushButton>(page, "applyButton"), Qt::LeftButton);
        QVERIFY(findNamed<QLabel>(page, "problemsLabel").isHidden());
        QStringList problems;
        const ServerSettings saved = ServerSettings::load(m_data.path(), &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(saved.policy.memoryBytes, 512 * MiB);
        QCOMPARE(saved.policy.pidsLimit, 300);
    }

    // Folders picked through Add are shared read-only under their own name (made valid and
    // unique), can be renamed, made writable and removed, and reach settings.ini and a server.
    void sharedFoldersAreAddedNamedAndSaved()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        QTemporaryDir host;
        const QString root = QFileInfo(host.path()).canonicalFilePath();
        for (const QString& folder :
             {QStringLiteral("sales"), QStringLiteral("archive/sales"), QStringLiteral("my data")})
            QVERIFY(QDir(root).mkpath(folder));
        auto& table = findNamed<QTableWidget>(page, "sharedFoldersTable");
        QCOMPARE(table.rowCount(), 0);
        for (const QString& folder : {QStringLiteral("sales"), QStringLiteral("archive/sales"),
                                      QStringLiteral("my data")}) {
            QTest::mouseClick(&findNamed<QPushButton>(page, "addSharedFolderButton"),
                              Qt::LeftButton);
            auto* dialog = page.findChild<QFileDialog*>(QStringLiteral("shareFolderDialog"));
            QVERIFY(dialog);
            QVERIFY(dialog->isVisible());
            dialog->setDirectory(root + QLatin1Char('/') + folder);
            // What Choose does (QFileDialog makes accept() protected).
            static_cast<QDialog*>(dialog)->accept();
            QTRY_VERIFY_WITH_TIMEOUT(
                !page.findChild<QFileDialog*>(QStringLiteral("shareFolderDialog")), kWaitMs);
        }
        QCOMPARE(table.rowCount(), 3);
        QCOMPARE(table.item(0, 1)->text(), QStringLiteral("sales"));
        QCOMPARE(table.item(1, 1)->text(), QStringLiteral("sales-2"));
        QCOMPARE(table.item(2, 1)->text(), QStringLiteral("my-data"));
        QVERIFY(page.hasChanges());
        QVERIFY(findNamed<QPushButton>(page, "applyButton").isEnabled());

        // A name a server would refuse is not applied.
        table.item(1, 1)->setText(QStringLiteral("old sales"));
        QVERIFY(!findNamed<QPushButton>(page, "applyButton").isEnabled());
        QVERIFY2(findNamed<QLabel>(page, "errorLabel").text().contains(QStringLiteral("not valid")),
                 qPrintable(findNamed<QLabel>(page, "errorLabel").text()));
        table.item(1, 1)->setText(QStringLiteral("old-sales"));
        table.item(2, 2)->setCheckState(Qt::Checked);
        QVERIFY(findNamed<QPushButton>(page, "applyButton").isEnabled());
        QTest::mouseClick(&findNamed<QPushButton>(page, "applyButton"), Qt::LeftButton);
        QVERIFY(!page.hasChanges());

        const QList<csm::SharedFolder> expected{
            {root + QStringLiteral("/sales"), QStringLiteral("sales"), false},
            {root + QStringLiteral("/archive/sales"), QStringLiteral("old-sales"), false},
            {root + QStringLiteral("/my data"), QStringLiteral("my-data"), true}};
        QStringList problems;
        QCOMPARE(ServerSettings::load(m_data.path(), &problems).policy.sharedFolders, expected);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        const auto parsed = csm::ServerOptionsParser::parse(
            {QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), m_data.path()},
            QProcessEnvironment());
        QVERIFY(parsed.hasValue());
        QCOMPARE(parsed->policy.sharedFolders, expected);

        // Remove drops the selected folder only.
        QVERIFY(!findNamed<QPushButton>(page, "removeSharedFolderButton").isEnabled());
        table.selectRow(0);
        QTest::mouseClick(&findNamed<QPushButton>(page, "removeSharedFolderButton"),
                          Qt::LeftButton);
        QCOMPARE(table.rowCount(), 2);
        QTest::mouseClick(&findNamed<QPushButton>(page, "applyButton"), Qt::LeftButton);
        QCOMPARE(ServerSettings::load(m_data.path()).policy.sharedFolders, expected.mid(1));
    }

    void restoreDefaultsKeepsWhatOtherPagesStore()
    {
        SettingsPage& page = findNamed<SettingsPage>(*m_window, "settingsPage");
        QTest::mouseClick(&findNamed<QPushButton>(page, "restoreDefaultsButton"), Qt::LeftButton);
        QVERIFY(page.hasChanges());
        QCOMPARE(findNamed<QSpinBox>(page, "processes").value(), 256);
        QVERIFY(findNamed<QRadioButton>(page, "egress-open").isChecked());
        QVERIFY(findNamed<QPlainTextEdit>(page, "allowedHosts").toPlainText().isEmpty());
        QVERIFY(!findNamed<QCheckBox>(page, "approvalRequired").isChecked());
        QVERIFY(findNamed<QCheckBox>(page, "notifyApprovals").isChecked());
        QVERIFY(!findNamed<QCheckBox>(page, "notifyFailures").isChecked());
        // Nothing is saved before Apply.
        QCOMPARE(ServerSettings::load(m_data.path()).policy.pidsLimit, 300);
        QTest::mouseClick(&findNamed<QPushButton>(page, "applyButton"), Qt::LeftButton);

        ServerSettings expected;
        expected.pythonImage = QStringLiteral("registry.example/python:3.13");
        expected.jsImage = kJsImage;
        QCOMPARE(ServerSettings::load(m_data.path()), expected);
        const DesktopSettings desktop = DesktopSettings::load(m_data.path());
        QCOMPARE(desktop.approvalRequired, false);
        QCOMPARE(desktop.approvalTimeoutSeconds, DesktopSettings().approvalTimeoutSeconds);
        QCOMPARE(desktop.notifyApprovals, true);
        QCOMPARE(desktop.notifyFailures, false);
        QCOMPARE(desktop.httpPort, 9123);
        QCOMPARE(desktop.httpToken, QStringLiteral("a-token"));
    }

private:
    QByteArray readSettingsFile() const
    {
        QFile file(ServerSettings::filePath(m_data.path()));
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    QTemporaryDir m_data;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(tst_SettingsPage)
#include "tst_SettingsPage.moc"
