// The Secrets page of the real main window under the offscreen platform, with the values in a
// real Secret Service (run under tests/integration/with-secret-service: a throwaway
// gnome-keyring on a private D-Bus session). Secrets are added, edited, toggled and deleted by
// clicking and typing; each change is checked in the store (read back through a second store)
// and in secrets.json; secrets changed by the real `code-sandbox-mcp secrets` command show live.
// No value reaches a file of the data folder, a cell of the table or the log.
#include "secrets/KeychainSecretBackend.h"
#include "secrets/SecretBackend.h"
#include "secrets/SecretIndex.h"
#include "secrets/SecretStore.h"
#include "ServerCli.h"
#include "ui/dialogs/SecretDialog.h"
#include "ui/MainWindow.h"
#include "ui/models/SecretsModel.h"
#include "ui/pages/SecretsPage.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QMessageBox>
#include <QMutex>
#include <QPushButton>
#include <QRandomGenerator>
#include <QStyleOptionViewItem>
#include <QTabBar>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

using csm::MainWindow;
using csm::SecretDialog;
using csm::SecretIndex;
using csm::SecretInfo;
using csm::SecretsModel;
using csm::SecretsPage;
using csm::SecretStore;

namespace {

// Generous: the Secret Service answers in milliseconds, but its probe may take up to 10 s.
constexpr int kOpenMs = 20000;
constexpr int kWaitMs = 10000;

QMutex logMutex;
QStringList logLines;
QtMessageHandler previousHandler = nullptr;

void captureMessage(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    {
        QMutexLocker locker(&logMutex);
        logLines.append(message);
    }
    previousHandler(type, context, message);
}

QString randomValue(const char* prefix)
{
    return QLatin1String(prefix) + QString::number(QRandomGenerator::system()->generate64(), 36) +
           QString::number(QRandomGenerator::system()->generate64(), 36);
}

// Replaces the text of `edit` as a user does: select all, then type.
void retype(QLineEdit& edit, const QString& text)
{
    edit.setFocus();
    QTest::keyClick(&edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(&edit, Qt::Key_Backspace);
    QTest::keyClicks(&edit, text);
}

} // namespace

class tst_SecretsPage final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void showsWhereTheValuesAreKept();
    void nameProblemsAreExplained();
    void addThroughTheDialog();
    void passThroughToggledInTheTable();
    void editRevealsAndReplacesTheValue();
    void editWithAnEmptyValueKeepsIt();
    void changesOfAnotherProcessShowLive();
    void deleteAfterConfirmation();

private:
    SecretsPage& page() const { return *m_window->secretsPage(); }
    // The value as a second store (another instance of the app, in effect) reads it.
    std::optional<QByteArray> storedValue(const QString& name, QString* error = nullptr);
    std::optional<SecretInfo> indexed(const QString& name) const;
    QStringList filesHolding(const QByteArray& needle) const;
    bool tableShows(const QString& text) const;
    void clickCell(int row, int column);
    void clickCheckBox(int row);
    // Clicks `button` and returns the page's dialog once it is shown.
    SecretDialog* openDialogWith(QPushButton& button);

    QTemporaryDir m_data;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<SecretStore> m_reader;
    QStringList m_values; // every value typed, to look for in files and logs
};

void tst_SecretsPage::initTestCase()
{
    // The keychain would otherwise be the user's own keyring.
    QVERIFY2(qEnvironmentVariable("CSM_TEST_SECRET_SERVICE") == QLatin1String("1"),
             "run under tests/integration/with-secret-service");
    QVERIFY(m_data.isValid());
    QLoggingCategory::setFilterRules(QStringLiteral("csm.*=true"));
    previousHandler = qInstallMessageHandler(captureMessage);

    m_window = std::make_unique<MainWindow>(m_data.path());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_window->secretsPage());

    // To the Secrets tab, by its tab.
    QTabWidget* tabs = nullptr;
    for (QWidget* up = page().parentWidget(); up && !tabs; up = up->parentWidget())
        tabs = qobject_cast<QTabWidget*>(up);
    QVERIFY(tabs);
    const int tab = tabs->indexOf(&page());
    QVERIFY(tab > 0);
    QCOMPARE(tabs->tabText(tab), QStringLiteral("Secrets"));
    auto* bar = tabs->findChild<QTabBar*>();
    QVERIFY(bar);
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(tab).center());
    QTRY_COMPARE(tabs->currentWidget(), &page());
    QTRY_VERIFY(page().isVisible());

    m_reader = std::make_unique<SecretStore>(m_data.path(), SecretStore::BackendChoice::Auto);
    std::optional<QString> opened;
    m_reader->open([&opened](const QString& error) { opened = error; });
    QTRY_VERIFY_WITH_TIMEOUT(opened.has_value(), kOpenMs);
    QCOMPARE(*opened, QString());
}

void tst_SecretsPage::cleanupTestCase()
{
    m_window.reset();
    m_reader.reset();
    if (!previousHandler)
        return;
    qInstallMessageHandler(previousHandler);
    QMutexLocker locker(&logMutex);
    for (const QString& value : std::as_const(m_values)) {
        for (const QString& line : std::as_const(logLines))
            QVERIFY2(!line.contains(value), qPrintable(QStringLiteral("logged: ") + line));
    }
}

std::optional<QByteArray> tst_SecretsPage::storedValue(const QString& name, QString* error)
{
    std::optional<std::pair<QByteArray, QString>> result;
    m_reader->read(name, [&result](const QByteArray& value, const QString& failed) {
        result = std::make_pair(value, failed);
    });
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, kWaitMs))
        return std::nullopt;
    if (error)
        *error = result->second;
    if (!result->second.isEmpty())
        return std::nullopt;
    return result->first;
}

std::optional<SecretInfo> tst_SecretsPage::indexed(const QString& name) const
{
    SecretIndex index(m_data.path());
    QString error;
    if (!index.load(&error))
        return std::nullopt;
    return index.find(name);
}

QStringList tst_SecretsPage::filesHolding(const QByteArray& needle) const
{
    QStringList holding;
    QDirIterator files(m_data.path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(needle))
            holding.append(file.fileName());
    }
    return holding;
}

bool tst_SecretsPage::tableShows(const QString& text) const
{
    const QAbstractItemModel& model = page().model();
    for (int row = 0; row < model.rowCount(); ++row) {
        for (int column = 0; column < model.columnCount(); ++column) {
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)}) {
                if (model.index(row, column).data(role).toString().contains(text))
                    return true;
            }
        }
    }
    return page().backendLabel().text().contains(text) || page().errorLabel().text().contains(text);
}

void tst_SecretsPage::clickCell(int row, int column)
{
    QTableView& table = page().table();
    const QRect cell = table.visualRect(table.model()->index(row, column));
    QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, cell.center());
}

void tst_SecretsPage::clickCheckBox(int row)
{
    // Where the view's delegate draws the check box of that cell.
    QTableView& table = page().table();
    QStyleOptionViewItem option;
    option.initFrom(table.viewport());
    option.rect = table.visualRect(table.model()->index(row, SecretsModel::PassThrough));
    option.features = QStyleOptionViewItem::HasCheckIndicator;
    option.widget = &table;
    const QRect box =
        table.style()->subElementRect(QStyle::SE_ItemViewItemCheckIndicator, &option, &table);
    QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, box.center());
}

SecretDialog* tst_SecretsPage::openDialogWith(QPushButton& button)
{
    if (!button.isEnabled())
        return nullptr;
    QTest::mouseClick(&button, Qt::LeftButton);
    if (!QTest::qWaitFor([this] { return page().openDialog() && page().openDialog()->isVisible(); },
                         kWaitMs))
        return nullptr;
    return page().openDialog();
}

void tst_SecretsPage::showsWhereTheValuesAreKept()
{
    QTRY_VERIFY_WITH_TIMEOUT(page().store().isOpen(), kOpenMs);
    QCOMPARE(page().store().backendKind(), QString(csm::SecretBackend::kKeychainKind));
    const QString where = page().backendLabel().text();
    QVERIFY2(where.contains(QLatin1String("keychain")), qPrintable(where));
    QVERIFY2(where.contains(page().store().backendReason()), qPrintable(where));
    QVERIFY(page().errorLabel().isHidden());
    QVERIFY(page().addButton().isEnabled());
    QVERIFY(!page().editButton().isEnabled());
    QVERIFY(!page().deleteButton().isEnabled());
    QCOMPARE(page().model().rowCount(), 0);
}

void tst_SecretsPage::nameProblemsAreExplained()
{
    SecretDialog* dialog = openDialogWith(page().addButton());
    QVERIFY(dialog);
    QCOMPARE(dialog->mode(), SecretDialog::Mode::Add);
    QVERIFY(!dialog->okButton().isEnabled());

    QTest::keyClicks(&dialog->nameEdit(), QStringLiteral("PATH"));
    QVERIFY(!dialog->okButton().isEnabled());
    QVERIFY2(dialog->problem().contains(QLatin1String("reserved")), qPrintable(dialog->problem()));
    retype(dialog->nameEdit(), QStringLiteral("DOCKER_HOST"));
    QVERIFY2(dialog->problem().contains(QLatin1String("reserved")), qPrintable(dialog->problem()));
    retype(dialog->nameEdit(), QStringLiteral("1TOKEN"));
    QVERIFY2(dialog->problem().contains(QLatin1String("not a valid secret name")),
             qPrintable(dialog->problem()));
    // Even with a value, a bad name keeps OK disabled.
    QTest::keyClicks(&dialog->valueEdit(), QStringLiteral("x"));
    QVERIFY(!dialog->okButton().isEnabled());
    retype(dialog->nameEdit(), QStringLiteral("FINE_NAME"));
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    QVERIFY(dialog->okButton().isEnabled());
    // And a good name without a value too.
    retype(dialog->valueEdit(), QString());
    QVERIFY(!dialog->okButton().isEnabled());

    QTest::keyClick(dialog, Qt::Key_Escape);
    QTRY_VERIFY(!page().openDialog());
    QCOMPARE(page().model().rowCount(), 0);
    QVERIFY(!indexed(QStringLiteral("FINE_NAME")));
}

void tst_SecretsPage::addThroughTheDialog()
{
    const QString value = randomValue("gui-added-");
    m_values.append(value);
    SecretDialog* dialog = openDialogWith(page().addButton());
    QVERIFY(dialog);
    QTest::keyClicks(&dialog->nameEdit(), QStringLiteral("GUI_TOKEN"));
    QTest::keyClicks(&dialog->valueEdit(), value);

    // Hidden unless revealed.
    QCOMPARE(dialog->valueEdit().echoMode(), QLineEdit::Password);
    QVERIFY(!dialog->valueEdit().displayText().contains(value));
    QTest::mouseClick(&dialog->showValue(), Qt::LeftButton);
    QCOMPARE(dialog->valueEdit().echoMode(), QLineEdit::Normal);
    QCOMPARE(dialog->valueEdit().displayText(), value);
    QTest::mouseClick(&dialog->showValue(), Qt::LeftButton);
    QCOMPARE(dialog->valueEdit().echoMode(), QLineEdit::Password);
    QVERIFY(!dialog->passThrough().isChecked());

    QVERIFY(dialog->okButton().isEnabled());
    QTest::mouseClick(&dialog->okButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page().openDialog(), kWaitMs);

    QTRY_COMPARE(page().model().rowOf(QStringLiteral("GUI_TOKEN")), 0);
    QVERIFY(page().errorLabel().isHidden());
    // Selected, so Edit and Delete apply to it.
    QTRY_VERIFY(page().editButton().isEnabled());
    QCOMPARE(page().table().selectionModel()->selectedRows().size(), 1);
    QCOMPARE(page().model().index(0, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
             int(Qt::Unchecked));

    // Really in the keychain, and only there.
    QString error;
    QCOMPARE(storedValue(QStringLiteral("GUI_TOKEN"), &error).value_or("?"), value.toUtf8());
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(page().store().backendKind(), QString(csm::SecretBackend::kKeychainKind));
    QVERIFY(QFile::exists(m_data.filePath(SecretIndex::fileName())));
    QVERIFY(!QFile::exists(m_data.filePath(QStringLiteral("secrets-values.json"))));
    QCOMPARE(filesHolding(value.toUtf8()), QStringList());
    QVERIFY(!tableShows(value));
    QVERIFY(indexed(QStringLiteral("GUI_TOKEN")));
    QCOMPARE(indexed(QStringLiteral("GUI_TOKEN"))->passThrough, false);

    // Adding it again is refused: Edit is the way to change it.
    dialog = openDialogWith(page().addButton());
    QVERIFY(dialog);
    QTest::keyClicks(&dialog->nameEdit(), QStringLiteral("GUI_TOKEN"));
    QTest::keyClicks(&dialog->valueEdit(), QStringLiteral("other"));
    QVERIFY(!dialog->okButton().isEnabled());
    QVERIFY2(dialog->problem().contains(QLatin1String("already exists")),
             qPrintable(dialog->problem()));
    QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Cancel),
                      Qt::LeftButton);
    QTRY_VERIFY(!page().openDialog());
    QCOMPARE(storedValue(QStringLiteral("GUI_TOKEN")).value_or("?"), value.toUtf8());
}

void tst_SecretsPage::passThroughToggledInTheTable()
{
    const int row = page().model().rowOf(QStringLiteral("GUI_TOKEN"));
    QVERIFY(row >= 0);
    clickCheckBox(row);
    QTRY_VERIFY(indexed(QStringLiteral("GUI_TOKEN")).has_value() &&
                indexed(QStringLiteral("GUI_TOKEN"))->passThrough);
    QTRY_COMPARE(
        page().model().index(row, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
        int(Qt::Checked));

    clickCheckBox(row);
    QTRY_VERIFY(indexed(QStringLiteral("GUI_TOKEN")).has_value() &&
                !indexed(QStringLiteral("GUI_TOKEN"))->passThrough);
    QTRY_COMPARE(
        page().model().index(row, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
        int(Qt::Unchecked));
    QVERIFY(page().errorLabel().isHidden());
}

void tst_SecretsPage::editRevealsAndReplacesTheValue()
{
    const QString before = QString::fromUtf8(storedValue(QStringLiteral("GUI_TOKEN")).value_or(""));
    QVERIFY(!before.isEmpty());
    const QString after = randomValue("gui-edited-");
    m_values.append(after);

    clickCell(page().model().rowOf(QStringLiteral("GUI_TOKEN")), SecretsModel::Name);
    SecretDialog* dialog = openDialogWith(page().editButton());
    QVERIFY(dialog);
    QCOMPARE(dialog->mode(), SecretDialog::Mode::Edit);
    QCOMPARE(dialog->nameEdit().text(), QStringLiteral("GUI_TOKEN"));
    QVERIFY(dialog->nameEdit().isReadOnly());
    // Nothing is read until asked.
    QCOMPARE(dialog->valueEdit().text(), QString());
    QVERIFY(dialog->okButton().isEnabled());

    // Show reads the stored value into the field.
    QTest::mouseClick(&dialog->showValue(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(dialog->valueEdit().text(), before, kWaitMs);
    QCOMPARE(dialog->valueEdit().echoMode(), QLineEdit::Normal);
    QTest::mouseClick(&dialog->showValue(), Qt::LeftButton);
    QCOMPARE(dialog->valueEdit().echoMode(), QLineEdit::Password);

    retype(dialog->valueEdit(), after);
    QTest::mouseClick(&dialog->passThrough(), Qt::LeftButton);
    QVERIFY(dialog->passThrough().isChecked());
    QTest::mouseClick(&dialog->okButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page().openDialog(), kWaitMs);

    QCOMPARE(storedValue(QStringLiteral("GUI_TOKEN")).value_or("?"), after.toUtf8());
    QVERIFY(indexed(QStringLiteral("GUI_TOKEN")));
    QCOMPARE(indexed(QStringLiteral("GUI_TOKEN"))->passThrough, true);
    QTRY_COMPARE(
        page()
            .model()
            .index(page().model().rowOf(QStringLiteral("GUI_TOKEN")), SecretsModel::PassThrough)
            .data(Qt::CheckStateRole)
            .toInt(),
        int(Qt::Checked));
    QCOMPARE(filesHolding(after.toUtf8()), QStringList());
    QCOMPARE(filesHolding(before.toUtf8()), QStringList());
    QVERIFY(!tableShows(after));
}

void tst_SecretsPage::editWithAnEmptyValueKeepsIt()
{
    const QByteArray before = storedValue(QStringLiteral("GUI_TOKEN")).value_or("");
    QVERIFY(!before.isEmpty());
    const QDateTime updated = indexed(QStringLiteral("GUI_TOKEN")).value_or(SecretInfo{}).updatedAt;
    QVERIFY(updated.isValid());

    clickCell(page().model().rowOf(QStringLiteral("GUI_TOKEN")), SecretsModel::Updated);
    SecretDialog* dialog = openDialogWith(page().editButton());
    QVERIFY(dialog);
    QVERIFY(dialog->passThrough().isChecked());
    QTest::mouseClick(&dialog->passThrough(), Qt::LeftButton);
    QVERIFY(!dialog->passThrough().isChecked());
    QCOMPARE(dialog->valueEdit().text(), QString());
    QTest::mouseClick(&dialog->okButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page().openDialog(), kWaitMs);

    QTRY_VERIFY(indexed(QStringLiteral("GUI_TOKEN")).has_value() &&
                !indexed(QStringLiteral("GUI_TOKEN"))->passThrough);
    QCOMPARE(storedValue(QStringLiteral("GUI_TOKEN")).value_or("?"), before);
    // Only the flag changed: the value was not written again.
    QCOMPARE(indexed(QStringLiteral("GUI_TOKEN"))->updatedAt, updated);
}

void tst_SecretsPage::changesOfAnotherProcessShowLive()
{
    const QByteArray value = randomValue("cli-set-").toUtf8();
    m_values.append(QString::fromUtf8(value));
    const servercli::Result set = servercli::run(
        {QStringLiteral("secrets"), QStringLiteral("set"), QStringLiteral("FROM_CLI"),
         QStringLiteral("--pass-through"), QStringLiteral("--data-dir"), m_data.path()},
        value + '\n');
    QVERIFY2(set.exitCode == 0, set.err.constData());
    QVERIFY2(set.out.contains("keychain"), set.out.constData());

    // The page reads the folder, not its own store's signals: it shows up by itself.
    QTRY_VERIFY_WITH_TIMEOUT(page().model().rowOf(QStringLiteral("FROM_CLI")) >= 0, kWaitMs);
    const int row = page().model().rowOf(QStringLiteral("FROM_CLI"));
    QCOMPARE(page().model().index(row, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
             int(Qt::Checked));
    QCOMPARE(page().model().rowOf(QStringLiteral("GUI_TOKEN")), 1);
    QVERIFY(!tableShows(QString::fromUtf8(value)));

    const servercli::Result off = servercli::run(
        {QStringLiteral("secrets"), QStringLiteral("pass-through"), QStringLiteral("FROM_CLI"),
         QStringLiteral("off"), QStringLiteral("--data-dir"), m_data.path()});
    QVERIFY2(off.exitCode == 0, off.err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(
        page()
            .model()
            .index(page().model().rowOf(QStringLiteral("FROM_CLI")), SecretsModel::PassThrough)
            .data(Qt::CheckStateRole)
            .toInt(),
        int(Qt::Unchecked), kWaitMs);

    const servercli::Result removed =
        servercli::run({QStringLiteral("secrets"), QStringLiteral("rm"), QStringLiteral("FROM_CLI"),
                        QStringLiteral("--data-dir"), m_data.path()});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(page().model().rowOf(QStringLiteral("FROM_CLI")), -1, kWaitMs);
    QCOMPARE(page().model().rowCount(), 1);
}

void tst_SecretsPage::deleteAfterConfirmation()
{
    clickCell(page().model().rowOf(QStringLiteral("GUI_TOKEN")), SecretsModel::Name);
    QTRY_VERIFY(page().deleteButton().isEnabled());

    // Cancelled: nothing changes.
    QTest::mouseClick(&page().deleteButton(), Qt::LeftButton);
    QTRY_VERIFY(page().openConfirmation() && page().openConfirmation()->isVisible());
    QMessageBox* confirmation = page().openConfirmation();
    QVERIFY2(confirmation->text().contains(QLatin1String("GUI_TOKEN")),
             qPrintable(confirmation->text()));
    QTest::mouseClick(confirmation->button(QMessageBox::Cancel), Qt::LeftButton);
    QTRY_VERIFY(!page().openConfirmation());
    QCOMPARE(page().model().rowOf(QStringLiteral("GUI_TOKEN")), 0);
    QVERIFY(storedValue(QStringLiteral("GUI_TOKEN")).has_value());

    // Confirmed: gone from the table, the index and the keychain.
    QTest::mouseClick(&page().deleteButton(), Qt::LeftButton);
    QTRY_VERIFY(page().openConfirmation() && page().openConfirmation()->isVisible());
    confirmation = page().openConfirmation();
    QAbstractButton* remove = nullptr;
    for (QAbstractButton* button : confirmation->buttons()) {
        if (confirmation->buttonRole(button) == QMessageBox::DestructiveRole)
            remove = button;
    }
    QVERIFY(remove);
    QCOMPARE(remove->text(), QStringLiteral("Delete"));
    QTest::mouseClick(remove, Qt::LeftButton);
    QTRY_VERIFY(!page().openConfirmation());
    QTRY_COMPARE_WITH_TIMEOUT(page().model().rowCount(), 0, kWaitMs);
    QVERIFY(!indexed(QStringLiteral("GUI_TOKEN")));
    QString error;
    QVERIFY(!storedValue(QStringLiteral("GUI_TOKEN"), &error));
    QVERIFY2(error.contains(QLatin1String("no secret named GUI_TOKEN")), qPrintable(error));
    // Asked directly, the keychain has no entry left either.
    csm::KeychainSecretBackend keychain;
    std::optional<QString> keychainError;
    keychain.readValue(
        QStringLiteral("GUI_TOKEN"),
        [&keychainError](const QByteArray&, const QString& failed) { keychainError = failed; });
    QTRY_VERIFY_WITH_TIMEOUT(keychainError.has_value(), kWaitMs);
    QVERIFY2(keychainError->contains(QLatin1String("holds no value")), qPrintable(*keychainError));
    QVERIFY(page().errorLabel().isHidden());
    QVERIFY(!page().deleteButton().isEnabled());
}

QTEST_MAIN(tst_SecretsPage)
#include "tst_SecretsPage.moc"
