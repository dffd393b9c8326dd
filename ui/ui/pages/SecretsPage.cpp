#include "ui/pages/SecretsPage.h"

#include "secrets/SecretBackend.h"
#include "secrets/SecretIndex.h"
#include "secrets/SecretStore.h"
#include "ui/dialogs/SecretDialog.h"
#include "ui/models/SecretsModel.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace csm {

namespace {

QString describeBackend(const QString& kind)
{
    return kind == SecretBackend::kKeychainKind ? SecretsPage::tr("the keychain")
                                                : SecretsPage::tr("a private file");
}

} // namespace

SecretsPage::SecretsPage(const QString& dataDir, QWidget* parent)
    : QWidget(parent)
    , m_dataDir(dataDir)
    , m_store(std::make_unique<SecretStore>(dataDir, SecretStore::BackendChoice::Auto))
    , m_model(new SecretsModel(*m_store, this))
    , m_table(new QTableView(this))
    , m_backend(new QLabel(this))
    , m_retry(new QPushButton(tr("Try again"), this))
    , m_error(new QLabel(this))
    , m_add(new QPushButton(tr("&Add…"), this))
    , m_edit(new QPushButton(tr("&Edit…"), this))
    , m_delete(new QPushButton(tr("&Delete…"), this))
{
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(SecretsModel::Name, QHeaderView::Stretch);
    header->setSectionResizeMode(SecretsModel::PassThrough, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(SecretsModel::Updated, QHeaderView::ResizeToContents);

    m_backend->setWordWrap(true);
    m_backend->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_retry->hide();
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b3261e;"));
    m_error->hide();
    m_add->setToolTip(tr("Store a new secret"));
    m_edit->setToolTip(tr("Change the selected secret's value or pass-through"));
    m_delete->setToolTip(tr("Delete the selected secret and its value"));

    auto* where = new QHBoxLayout;
    where->addWidget(m_backend, 1);
    where->addWidget(m_retry);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_edit);
    buttons->addWidget(m_delete);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(where);
    layout->addWidget(m_error);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);

    auto* deleteKey = new QAction(this);
    deleteKey->setShortcut(QKeySequence::Delete);
    deleteKey->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_table->addAction(deleteKey);
    connect(deleteKey, &QAction::triggered, this, &SecretsPage::confirmDelete);

    connect(m_add, &QPushButton::clicked, this, &SecretsPage::add);
    connect(m_edit, &QPushButton::clicked, this, &SecretsPage::editSelected);
    connect(m_delete, &QPushButton::clicked, this, &SecretsPage::confirmDelete);
    connect(m_retry, &QPushButton::clicked, this, &SecretsPage::reopenStore);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        // A double click on the check box toggles it; elsewhere it opens the secret.
        if (index.column() != SecretsModel::PassThrough)
            editSelected();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &SecretsPage::updateButtons);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &SecretsPage::updateBackend);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &SecretsPage::updateBackend);
    connect(m_model, &SecretsModel::listErrorChanged, this, &SecretsPage::updateErrors);
    connect(m_model, &SecretsModel::passThroughFailed, this,
            [this](const QString& name, const QString& error) {
                setOperationError(
                    tr("Cannot change whether %1 is passed through: %2").arg(name, error));
            });

    m_refreshDelay.setSingleShot(true);
    connect(&m_refreshDelay, &QTimer::timeout, this, &SecretsPage::refresh);
    // The folder also holds the run history, whose journal files come and go during runs:
    // events are gathered, and a reread of the small index changes no row that did not change.
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this,
            [this] { m_refreshDelay.start(kRefreshDelayMs); });
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this,
            [this] { m_refreshDelay.start(kRefreshDelayMs); });
    connect(&m_poll, &QTimer::timeout, this, &SecretsPage::refresh);
    m_poll.setInterval(kPollIntervalMs);

    watch();
    updateErrors();
    openStore();
    // Stable names: tests find the widgets by them (findChild).
    m_model->setObjectName(QStringLiteral("model"));
    m_table->setObjectName(QStringLiteral("table"));
    m_add->setObjectName(QStringLiteral("addButton"));
    m_edit->setObjectName(QStringLiteral("editButton"));
    m_delete->setObjectName(QStringLiteral("deleteButton"));
    m_retry->setObjectName(QStringLiteral("retryButton"));
    m_backend->setObjectName(QStringLiteral("backendLabel"));
    m_error->setObjectName(QStringLiteral("errorLabel"));
}

SecretsPage::~SecretsPage()
{
    // They hold the store, which goes with the page's members.
    delete m_dialog.data();
    delete m_confirmation.data();
}

void SecretsPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

void SecretsPage::openStore()
{
    m_opening = true;
    m_openError.clear();
    updateBackend();
    updateButtons();
    m_store->open([this](const QString& error) {
        m_opening = false;
        m_openError = error;
        refresh();
        updateBackend();
        updateButtons();
    });
}

void SecretsPage::reopenStore()
{
    // A fresh store looks again (the keychain may be unlocked or installed now, or the secrets
    // bound to the other backend); whatever used the old one goes first.
    delete m_dialog.data();
    delete m_confirmation.data();
    m_removing = false;
    m_reboundError.clear();
    auto store = std::make_unique<SecretStore>(m_dataDir, SecretStore::BackendChoice::Auto);
    m_model->setStore(*store);
    m_store = std::move(store);
    updateErrors();
    openStore();
}

void SecretsPage::refresh()
{
    m_model->refresh();
    watch();
    // The store chose its backend when it opened; if another process has since stored the
    // first secrets in the other one, values saved here would be kept where the index does not
    // look for them.
    QString rebound;
    if (m_store->isOpen()) {
        SecretIndex index(m_dataDir);
        if (index.load() && !index.isEmpty() && index.backendKind() != m_store->backendKind()) {
            rebound = tr("Another program now keeps these secrets in %1, and this page opened %2: "
                         "choose Reopen before changing them.")
                          .arg(describeBackend(index.backendKind()),
                               describeBackend(m_store->backendKind()));
        }
    }
    if (rebound != m_reboundError) {
        m_reboundError = rebound;
        updateErrors();
        updateBackend();
        updateButtons();
    }
}

void SecretsPage::watch()
{
    const QString index = QDir(m_dataDir).filePath(SecretIndex::fileName());
    const QStringList watched = m_watcher.directories() + m_watcher.files();
    bool watching = QFileInfo::exists(m_dataDir);
    // The index is replaced on every save (a new file renamed over it), which ends a watch on
    // the file; the folder's watch sees the rename, and the file is watched again here.
    for (const QString& path : {m_dataDir, index}) {
        if (!QFileInfo::exists(path) || watched.contains(path))
            continue;
        if (!m_watcher.addPath(path))
            watching = false;
    }
    if (watching)
        m_poll.stop();
    else if (!m_poll.isActive())
        m_poll.start();
}

void SecretsPage::add()
{
    if (m_dialog || !m_add->isEnabled())
        return;
    setOperationError({});
    showDialog(new SecretDialog(*m_store, this));
}

void SecretsPage::editSelected()
{
    const std::optional<SecretInfo> secret = selectedSecret();
    if (m_dialog || !secret || !m_edit->isEnabled())
        return;
    setOperationError({});
    showDialog(new SecretDialog(*m_store, *secret, this));
}

void SecretsPage::showDialog(SecretDialog* dialog)
{
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_model->refresh();
        select(dialog->name());
    });
    dialog->setObjectName(QStringLiteral("secretDialog"));
    m_dialog = dialog;
    dialog->open();
}

void SecretsPage::confirmDelete()
{
    const std::optional<SecretInfo> secret = selectedSecret();
    if (m_confirmation || !secret || !m_delete->isEnabled())
        return;
    setOperationError({});
    const QString name = secret->name;
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Delete a secret"),
                                tr("Delete the secret %1?").arg(name), QMessageBox::NoButton, this);
    box->setInformativeText(
        tr("Its value is removed from %1 for good. Servers started from now on no longer give it "
           "to their sandboxes.")
            .arg(describeBackend(m_store->backendKind())));
    QPushButton* confirm = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setEscapeButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, confirm, name] {
        if (box->clickedButton() == confirm)
            remove(name);
    });
    box->setObjectName(QStringLiteral("deleteConfirmation"));
    m_confirmation = box;
    box->open();
}

void SecretsPage::remove(const QString& name)
{
    m_removing = true;
    updateButtons();
    // The store is the page's: it drops this callback if it goes first.
    m_store->remove(name, [this, name](const QString& error) {
        m_removing = false;
        if (!error.isEmpty())
            setOperationError(tr("Cannot delete %1: %2").arg(name, error));
        m_model->refresh();
        updateButtons();
    });
}

void SecretsPage::select(const QString& name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return;
    m_table->selectRow(row);
    m_table->scrollTo(m_model->index(row, SecretsModel::Name));
}

void SecretsPage::updateBackend()
{
    const bool noSecrets = m_model->rowCount() == 0;
    QString text;
    if (m_opening) {
        text = tr("Looking for the keychain…");
    } else if (!m_openError.isEmpty()) {
        text = tr("The secret values cannot be reached: %1").arg(m_openError);
    } else {
        text = (noSecrets ? tr("New values will be kept in %1 (%2).")
                          : tr("Values are kept in %1 (%2)."))
                   .arg(describeBackend(m_store->backendKind()), m_store->backendReason());
    }
    m_backend->setText(text);
    m_retry->setText(m_reboundError.isEmpty() ? tr("Try again") : tr("Reopen"));
    m_retry->setVisible(!m_opening && (!m_openError.isEmpty() || !m_reboundError.isEmpty()));
}

void SecretsPage::updateButtons()
{
    const bool usable = m_store->isOpen() && m_reboundError.isEmpty();
    const bool selected = selectedSecret().has_value();
    m_add->setEnabled(usable);
    m_edit->setEnabled(usable && selected);
    m_delete->setEnabled(usable && selected && !m_removing);
}

void SecretsPage::updateErrors()
{
    QStringList errors;
    for (const QString& error : {m_model->listError(), m_reboundError, m_operationError}) {
        if (!error.isEmpty())
            errors.append(error);
    }
    m_error->setText(errors.join(u'\n'));
    m_error->setVisible(!errors.isEmpty());
}

void SecretsPage::setOperationError(const QString& error)
{
    m_operationError = error;
    updateErrors();
}

std::optional<SecretInfo> SecretsPage::selectedSecret() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return std::nullopt;
    return m_model->secret(rows.constFirst().row());
}

} // namespace csm
