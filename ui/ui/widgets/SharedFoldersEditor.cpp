#include "ui/widgets/SharedFoldersEditor.h"

#include "runtime/SharedFolderText.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace csm {

SharedFoldersEditor::SharedFoldersEditor(QWidget* parent)
    : QWidget(parent)
    , m_table(new QTableWidget(0, 3, this))
    , m_add(new QPushButton(tr("A&dd folder..."), this))
    , m_remove(new QPushButton(tr("Remo&ve"), this))
{
    m_table->setHorizontalHeaderLabels({tr("Folder"), tr("Name in /data"), tr("Writable")});
    m_table->horizontalHeader()->setSectionResizeMode(FolderColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(WritableColumn,
                                                      QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setMinimumHeight(120);
    m_add->setToolTip(tr("Share a folder of this computer with every sandbox (read-only)"));
    m_remove->setToolTip(tr("Stop sharing the selected folders"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table);
    layout->addLayout(buttons);

    connect(m_add, &QPushButton::clicked, this, &SharedFoldersEditor::chooseFolder);
    connect(m_remove, &QPushButton::clicked, this, &SharedFoldersEditor::removeSelected);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            &SharedFoldersEditor::updateButtons);
    connect(m_table, &QTableWidget::itemChanged, this, [this] {
        if (!m_filling)
            Q_EMIT changed();
    });
    updateButtons();

    // Stable names: tests find the widgets by them (findChild).
    m_table->setObjectName(QStringLiteral("sharedFoldersTable"));
    m_add->setObjectName(QStringLiteral("addSharedFolderButton"));
    m_remove->setObjectName(QStringLiteral("removeSharedFolderButton"));
}

QList<SharedFolder> SharedFoldersEditor::folders() const
{
    QList<SharedFolder> folders;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        folders << SharedFolder{
            m_table->item(row, FolderColumn)->data(Qt::UserRole).toString(),
            m_table->item(row, NameColumn)->text().trimmed(),
            m_table->item(row, WritableColumn)->checkState() == Qt::Checked,
        };
    }
    return folders;
}

void SharedFoldersEditor::setFolders(const QList<SharedFolder>& folders)
{
    m_filling = true;
    m_table->setRowCount(0);
    for (const SharedFolder& folder : folders)
        appendRow(folder);
    m_filling = false;
    updateButtons();
}

void SharedFoldersEditor::addFolder(const QString& path)
{
    const QFileInfo info(path);
    if (!info.isDir())
        return;
    const QString canonical = info.canonicalFilePath();
    m_filling = true;
    appendRow({canonical, unusedName(QFileInfo(canonical).fileName()), false});
    m_filling = false;
    updateButtons();
    Q_EMIT changed();
}

void SharedFoldersEditor::appendRow(const SharedFolder& folder)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto* path = new QTableWidgetItem(QDir::toNativeSeparators(folder.hostPath));
    path->setData(Qt::UserRole, folder.hostPath);
    path->setToolTip(path->text());
    path->setFlags(path->flags() & ~Qt::ItemIsEditable);
    m_table->setItem(row, FolderColumn, path);
    auto* name = new QTableWidgetItem(folder.name);
    name->setToolTip(tr("Programs find the folder at /data/NAME"));
    m_table->setItem(row, NameColumn, name);
    auto* writable = new QTableWidgetItem;
    writable->setFlags((writable->flags() | Qt::ItemIsUserCheckable) & ~Qt::ItemIsEditable);
    writable->setCheckState(folder.writable ? Qt::Checked : Qt::Unchecked);
    writable->setToolTip(tr("Let programs change and add files there"));
    m_table->setItem(row, WritableColumn, writable);
}

QString SharedFoldersEditor::unusedName(const QString& folderName) const
{
    static const QRegularExpression notAllowed(QStringLiteral("[^A-Za-z0-9._-]+"));
    QString base = QString(folderName).replace(notAllowed, QStringLiteral("-"));
    if (!SharedFolderText::isValidName(base))
        base = QStringLiteral("folder");
    QSet<QString> taken;
    for (const SharedFolder& folder : folders())
        taken.insert(folder.name);
    QString name = base;
    for (int n = 2; taken.contains(name); ++n)
        name = QStringLiteral("%1-%2").arg(base).arg(n);
    return name;
}

void SharedFoldersEditor::chooseFolder()
{
    // Opened, not exec()'d: no nested event loop; the choice arrives as a signal.
    auto* dialog = new QFileDialog(this, tr("Share a folder with the sandboxes"), QDir::homePath());
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(QStringLiteral("shareFolderDialog"));
    connect(dialog, &QFileDialog::fileSelected, this, &SharedFoldersEditor::addFolder);
    dialog->open();
}

void SharedFoldersEditor::removeSelected()
{
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (const int row : rows)
        m_table->removeRow(row);
    updateButtons();
    if (!rows.isEmpty())
        Q_EMIT changed();
}

void SharedFoldersEditor::updateButtons()
{
    m_remove->setEnabled(!m_table->selectionModel()->selectedRows().isEmpty());
}

} // namespace csm
