// The Secrets page of the real main window under the offscreen platform, with the values in a
// real Secret Service (run under tests/integration/with-secret-service: a throwaway
// gnome-keyring on a private D-Bus session). Secrets are added, edited, toggled and deleted by
// clicking and typing; each change is checked in the store (read back through a second store)
// and in secrets.json; secrets changed by the real `code-sandbox-mcp secrets` command show live.
// No value reaches a file of the data folder, a cell of the table or the log.
#include "FindNamed.h"
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

#include <algorithm>
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
    SecretsPage& page() const { return findNamed<SecretsPage>(*m_window, "secretsPage"); }
    SecretsModel& model() const { return findNamed<SecretsModel>(page(), "model"); }
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
    findNamed<SecretsPage>(*m_window, "secretsPage");

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
    if (!index.load())
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
    const QAbstractItemModel& rows = model();
    for (int row = 0; row < rows.rowCount(); ++row) {
        for (int column = 0; column < rows.columnCount(); ++column) {
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)}) {
                if (rows.index(row, column).data(role).toString().contains(text))
                    return true;
            }
        }
    }
    return findNamed<QLabel>(page(), "backendLabel").text().contains(text) ||
           findNamed<QLabel>(page(), "errorLabel").text().contains(text);
}

void tst_SecretsPage::clickCell(int row, int column)
{
    QTableView& table = findNamed<QTableView>(page(), "table");
    const QRect cell = table.visualRect(table.model()->index(row, column));
    QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, cell.center());
}

void tst_SecretsPage::clickCheckBox(int row)
{
    // Where the view's delegate draws the check box of that cell.
    QTableView& table = findNamed<QTableView>(page(), "table");
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
    if (!QTest::qWaitFor(
            [this] {
                const SecretDialog* dialog = findOptional<SecretDialog>(page(), "secretDialog");
                return dialog && dialog->isVisible();
            },
            kWaitMs))
        return nullptr;
    return findOptional<SecretDialog>(page(), "secretDialog");
}

void tst_SecretsPage::showsWhereTheValuesAreKept()
{
    QTRY_VERIFY_WITH_TIMEOUT(page().store().isOpen(), kOpenMs);
    QCOMPARE(page().store().backendKind(), QString(csm::SecretBackend::kKeychainKind));
    const QString where = findNamed<QLabel>(page(), "backendLabel").text();
    QVERIFY2(where.contains(QLatin1String("keychain")), qPrintable(where));
    QVERIFY2(where.contains(page().store().backendReason()), qPrintable(where));
    QVERIFY(findNamed<QLabel>(page(), "errorLabel").isHidden());
    QVERIFY(findNamed<QPushButton>(page(), "addButton").isEnabled());
    QVERIFY(!findNamed<QPushButton>(page(), "editButton").isEnabled());
    QVERIFY(!findNamed<QPushButton>(page(), "deleteButton").isEnabled());
    QCOMPARE(model().rowCount(), 0);
}

void tst_SecretsPage::nameProblemsAreExplained()
{
    SecretDialog* dialog = openDialogWith(findNamed<QPushButton>(page(), "addButton"));
    QVERIFY(dialog);
    QLineEdit& nameField = findNamed<QLineEdit>(*dialog, "nameEdit");
    QLineEdit& valueField = findNamed<QLineEdit>(*dialog, "valueEdit");
    QPushButton& ok = findNamed<QPushButton>(*dialog, "okButton");
    QCOMPARE(dialog->mode(), SecretDialog::Mode::Add);
    QVERIFY(!ok.isEnabled());

    QTest::keyClicks(&nameField, QStringLiteral("PATH"));
    QVERIFY(!ok.isEnabled());
    QVERIFY2(dialog->problem().contains(QLatin1String("reserved")), qPrintable(dialog->problem()));
    retype(nameField, QStringLiteral("DOCKER_HOST"));
    QVERIFY2(dialog->problem().contains(QLatin1String("reserved")), qPrintable(dialog->problem()));
    retype(nameField, QStringLiteral("1TOKEN"));
    QVERIFY2(dialog->problem().contains(QLatin1String("not a valid secret name")),
             qPrintable(dialog->problem()));
    // Even with a value, a bad name keeps OK disabled.
    QTest::keyClicks(&valueField, QStringLiteral("x"));
    QVERIFY(!ok.isEnabled());
    retype(nameField, QStringLiteral("FINE_NAME"));
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    QVERIFY(ok.isEnabled());
    // And a good name without a value too.
    retype(valueField, QString());
    QVERIFY(!ok.isEnabled());

    QTest::keyClick(dialog, Qt::Key_Escape);
    QTRY_VERIFY(!findOptional<SecretDialog>(page(), "secretDialog"));
    QCOMPARE(model().rowCount(), 0);
    QVERIFY(!indexed(QStringLiteral("FINE_NAME")));
}

void tst_SecretsPage::addThroughTheDialog()
{
    const QString value = randomValue("gui-added-");
    m_values.append(value);
    SecretDialog* dialog = openDialogWith(findNamed<QPushButton>(page(), "addButton"));
    QVERIFY(dialog);
    QLineEdit& valueField = findNamed<QLineEdit>(*dialog, "valueEdit");
    QCheckBox& show = findNamed<QCheckBox>(*dialog, "showValue");
    QPushButton& ok = findNamed<QPushButton>(*dialog, "okButton");
    // Each field's label is its mnemonic (Alt+N, Alt+V), shown as such, not as a literal "&".
    for (QLineEdit* field : {&findNamed<QLineEdit>(*dialog, "nameEdit"), &valueField}) {
        const QList<QLabel*> labels = dialog->findChildren<QLabel*>();
        QVERIFY2(std::any_of(labels.cbegin(), labels.cend(),
                             [field](const QLabel* label) { return label->buddy() == field; }),
                 qPrintable(field->objectName()));
    }
    QTest::keyClicks(&findNamed<QLineEdit>(*dialog, "nameEdit"), QStringLiteral("GUI_TOKEN"));
    QTest::keyClicks(&valueField, value);

    // Hidden unless revealed.
    QCOMPARE(valueField.echoMode(), QLineEdit::Password);
    QVERIFY(!valueField.displayText().contains(value));
    QTest::mouseClick(&show, Qt::LeftButton);
    QCOMPARE(valueField.echoMode(), QLineEdit::Normal);
    QCOMPARE(valueField.displayText(), value);
    QTest::mouseClick(&show, Qt::LeftButton);
    QCOMPARE(valueField.echoMode(), QLineEdit::Password);
    QVERIFY(!findNamed<QCheckBox>(*dialog, "passThrough").isChecked());

    QVERIFY(ok.isEnabled());
    QTest::mouseClick(&ok, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!findOptional<SecretDialog>(page(), "secretDialog"), kWaitMs);

    QTRY_COMPARE(model().rowOf(QStringLiteral("GUI_TOKEN")), 0);
    QVERIFY(findNamed<QLabel>(page(), "errorLabel").isHidden());
    // Selected, so Edit and Delete apply to it.
    QTRY_VERIFY(findNamed<QPushButton>(page(), "editButton").isEnabled());
    QCOMPARE(findNamed<QTableView>(page(), "table").selectionModel()->selectedRows().size(), 1);
    QCOMPARE(model().index(0, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
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
    dialog = openDialogWith(findNamed<QPushButton>(page(), "addButton"));
    QVERIFY(dialog);
    QTest::keyClicks(&findNamed<QLineEdit>(*dialog, "nameEdit"), QStringLiteral("GUI_TOKEN"));
    QTest::keyClicks(&findNamed<QLineEdit>(*dialog, "valueEdit"), QStringLiteral("other"));
    QVERIFY(!findNamed<QPushButton>(*dialog, "okButton").isEnabled());
    QVERIFY2(dialog->problem().contains(QLatin1String("already exists")),
             qPrintable(dialog->problem()));
    QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Cancel),
                      Qt::LeftButton);
    QTRY_VERIFY(!findOptional<SecretDialog>(page(), "secretDialog"));
    QCOMPARE(storedValue(QStringLiteral("GUI_TOKEN")).value_or("?"), value.toUtf8());
}

void tst_SecretsPage::passThroughToggledInTheTable()
{
    const int row = model().rowOf(QStringLiteral("GUI_TOKEN"));
    QVERIFY(row >= 0);
    clickCheckBox(row);
    QTRY_VERIFY(indexed(QStringLiteral("GUI_TOKEN")).has_value() &&
                indexed(QStringLiteral("GUI_TOKEN"))->passThrough);
    QTRY_COMPARE(model().index(row, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
                 int(Qt::Checked));

    clickCheckBox(row);
    QTRY_VERIFY(indexed(QStringLiteral("GUI_TOKEN")).has_value() &&
                !indexed(QStringLiteral("GUI_TOKEN"))->passThrough);
    QTRY_COMPARE(model().index(row, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
                 int(Qt::Unchecked));
    QVERIFY(findNamed<QLabel>(page(), "errorLabel").isHidden());
}

void tst_SecretsPage::editRevealsAndReplacesTheValue()
{
    const QString before = QString::fromUtf8(storedValue(QStringLiteral("GUI_TOKEN")).value_or(""));
    QVERIFY(!before.isEmpty());
    const QString after = randomValue("gui-edited-");
    m_values.append(after);

    clickCell(model().rowOf(QStringLiteral("GUI_TOKEN")), SecretsModel::Name);
    SecretDialog* dialog = openDialogWith(findNamed<QPushButton>(page(), "editButton"));
    QVERIFY(dialog);
    QCheckBox& passThroughBox = findNamed<QCheckBox>(*dialog, "passThrough");
    QLineEdit& name = findNamed<QLineEdit>(*dialog, "nameEdit");
    QLineEdit& valueField = findNamed<QLineEdit>(*dialog, "valueEdit");
    QCheckBox& show = findNamed<QCheckBox>(*dialog, "showValue");
    QPushButton& ok = findNamed<QPushButton>(*dialog, "okButton");
    QCOMPARE(dialog->mode(), SecretDialog::Mode::Edit);
    QCOMPARE(name.text(), QStringLiteral("GUI_TOKEN"));
    QVERIFY(name.isReadOnly());
    // Nothing is read until asked.
    QCOMPARE(valueField.text(), QString());
    QVERIFY(ok.isEnabled());

    // Show reads the stored value into the field.
    QTest::mouseClick(&show, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(valueField.text(), before, kWaitMs);
    QCOMPARE(valueField.echoMode(), QLineEdit::Normal);
    QTest::mouseClick(&show, Qt::LeftButton);
    QCOMPARE(valueField.echoMode(), QLineEdit::Password);

    retype(valueField, after);
    QTest::mouseClick(&passThroughBox, Qt::LeftButton);
    QVERIFY(passThroughBox.isChecked());
    QTest::mouseClick(&ok, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!findOptional<SecretDialog>(page(), "secretDialog"), kWaitMs);

    QCOMPARE(storedValue(QStringLiteral("GUI_TOKEN")).value_or("?"), after.toUtf8());
    QVERIFY(indexed(QStringLiteral("GUI_TOKEN")));
    QCOMPARE(indexed(QStringLiteral("GUI_TOKEN"))->passThrough, true);
    QTRY_COMPARE(model()
                     .index(model().rowOf(QStringLiteral("GUI_TOKEN")), SecretsModel::PassThrough)
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

    clickCell(model().rowOf(QStringLiteral("GUI_TOKEN")), SecretsModel::Updated);
    SecretDialog* dialog = openDialogWith(findNamed<QPushButton>(page(), "editButton"));
    QVERIFY(dialog);
    QCheckBox& passThroughBox = findNamed<QCheckBox>(*dialog, "passThrough");
    QVERIFY(passThroughBox.isChecked());
    QTest::mouseClick(&passThroughBox, Qt::LeftButton);
    QVERIFY(!passThroughBox.isChecked());
    QCOMPARE(findNamed<QLineEdit>(*dialog, "valueEdit").text(), QString());
    QTest::mouseClick(&findNamed<QPushButton>(*dialog, "okButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!findOptional<SecretDialog>(page(), "secretDialog"), kWaitMs);

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
    QTRY_VERIFY_WITH_TIMEOUT(model().rowOf(QStringLiteral("FROM_CLI")) >= 0, kWaitMs);
    const int row = model().rowOf(QStringLiteral("FROM_CLI"));
    QCOMPARE(model().index(row, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
             int(Qt::Checked));
    QCOMPARE(model().rowOf(QStringLiteral("GUI_TOKEN")), 1);
    QVERIFY(!tableShows(QString::fromUtf8(value)));

    const servercli::Result off = servercli::run(
        {QStringLiteral("secrets"), QStringLiteral("pass-through"), QStringLiteral("FROM_CLI"),
         QStringLiteral("off"), QStringLiteral("--data-dir"), m_data.path()});
    QVERIFY2(off.exitCode == 0, off.err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(
        model()
            .index(model().rowOf(QStringLiteral("FROM_CLI")), SecretsModel::PassThrough)
            .data(Qt::CheckStateRole)
            .toInt(),
        int(Qt::Unchecked), kWaitMs);

    const servercli::Result removed =
        servercli::run({QStringLiteral("secrets"), QStringLiteral("rm"), QStringLiteral("FROM_CLI"),
                        QStringLiteral("--data-dir"), m_data.path()});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(model().rowOf(QStringLiteral("FROM_CLI")), -1, kWaitMs);
    QCOMPARE(model().rowCount(), 1);
}

void tst_SecretsPage::deleteAfterConfirmation()
{
    clickCell(model().rowOf(QStringLiteral("GUI_TOKEN")), SecretsModel::Name);
    QTRY_VERIFY(findNamed<QPushButton>(page(), "deleteButton").isEnabled());

    // Cancelled: nothing changes.
    QTest::mouseClick(&findNamed<QPushButton>(page(), "deleteButton"), Qt::LeftButton);
    QTRY_VERIFY(findOptional<QMessageBox>(page(), "deleteConfirmation") &&
                findOptional<QMessageBox>(page(), "deleteConfirmation")->isVisible());
    QMessageBox* confirmation = findOptional<QMessageBox>(page(), "deleteConfirmation");
    QVERIFY2(confirmation->text().contains(QLatin1String("GUI_TOKEN")),
             qPrintable(confirmation->text()));
    QTest::mouseClick(confirmation->button(QMessageBox::Cancel), Qt::LeftButton);
    QTRY_VERIFY(!findOptional<QMessageBox>(page(), "deleteConfirmation"));
    QCOMPARE(model().rowOf(QStringLiteral("GUI_TOKEN")), 0);
    QVERIFY(storedValue(QStringLiteral("GUI_TOKEN")).has_value());

    // Confirmed: gone from the table, the index and the keychain.
    QTest::mouseClick(&findNamed<QPushButton>(page(), "deleteButton"), Qt::LeftButton);
    QTRY_VERIFY(findOptional<QMessageBox>(page(), "deleteConfirmation") &&
                findOptional<QMessageBox>(page(), "deleteConfirmation")->isVisible());
    confirmation = findOptional<QMessageBox>(page(), "deleteConfirmation");
    QAbstractButton* remove = nullptr;
    for (QAbstractButton* button : confirmation->buttons()) {
        if (confirmation->buttonRole(button) == QMessageBox::DestructiveRole)
            remove = button;
    }
    QVERIFY(remove);
    QCOMPARE(remove->text(), QStringLiteral("Delete"));
    QTest::mouseClick(remove, Qt::LeftButton);
    QTRY_VERIFY(!findOptional<QMessageBox>(page(), "deleteConfirmation"));
    QTRY_COMPARE_WITH_TIMEOUT(model().rowCount(), 0, kWaitMs);
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
    QVERIFY(findNamed<QLabel>(page(), "errorLabel").isHidden());
    QVERIFY(!findNamed<QPushButton>(page(), "deleteButton").isEnabled());
}

QTEST_MAIN(tst_SecretsPage)
#include "tst_SecretsPage.moc"
