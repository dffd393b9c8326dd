#include "ui/widgets/RunFilesView.h"

#include "core/ByteSize.h"
#include "ui/widgets/ImagePreview.h"
#include "ui/widgets/ImageViewerDialog.h"
#include "ui/widgets/ViewerSafeFile.h"

#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QImageReader>
#include <QLabel>
#include <QMessageBox>
#include <QPixmap>
#include <QPushButton>
#include <QScrollArea>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace csm {

namespace {

enum ListColumn
{
    PathColumn,
    DirectionColumn,
    SizeColumn,
    TypeColumn,
    StateColumn,
    ListColumnCount,
};

constexpr int kThumbnailsPerRow = 4;

bool isImage(const RunFileRecord& file)
{
    return file.mimeType.startsWith(QLatin1String("image/"));
}

// The kept copy, if it is still there (the files' budget may have removed it since).
bool isKept(const RunFileRecord& file)
{
    if (file.storedPath.isEmpty() || !file.skipReason.isEmpty())
        return false;
    const QFileInfo info(file.storedPath);
    return info.isFile() && !info.isSymLink();
}

QString stateText(const RunFileRecord& file)
{
    if (!file.skipReason.isEmpty())
        return QObject::tr("skipped: %1").arg(file.skipReason);
    if (file.storedPath.isEmpty())
        return QObject::tr("not kept");
    return isKept(file) ? QObject::tr("kept") : QObject::tr("no longer kept");
}

} // namespace

RunFilesView::RunFilesView(QWidget* parent)
    : QWidget(parent)
    , m_preview(new ImagePreview(this))
    , m_thumbnails(new QWidget(this))
    , m_thumbnailGrid(new QGridLayout(m_thumbnails))
    , m_list(new QTreeWidget(this))
    , m_open(new QPushButton(tr("&Open"), this))
    , m_saveAs(new QPushButton(tr("Save &as…"), this))
    , m_message(new QLabel(this))
{
    m_thumbnailGrid->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    connect(m_preview, &ImagePreview::fullSizeRequested, this, &RunFilesView::showFullSize);
    connect(m_preview, &ImagePreview::saveRequested, this, [this] {
        // The file previewed, chosen in the list: Save as copies the list's choice.
        for (int row = 0; row < m_list->topLevelItemCount(); ++row) {
            QTreeWidgetItem* item = m_list->topLevelItem(row);
            if (item->data(PathColumn, Qt::UserRole).toInt() == m_previewed)
                m_list->setCurrentItem(item);
        }
        askWhereToSave();
    });
    m_scroll = new QScrollArea(this);
    QScrollArea* scroll = m_scroll;
    scroll->setWidget(m_thumbnails);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);

    m_list->setColumnCount(ListColumnCount);
    m_list->setHeaderLabels({tr("File"), tr("Direction"), tr("Size"), tr("Type"), tr("State")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->header()->setSectionResizeMode(PathColumn, QHeaderView::Stretch);
    m_list->header()->setStretchLastSection(false);
    connect(m_list, &QTreeWidget::itemSelectionChanged, this, &RunFilesView::updateButtons);
    connect(m_list, &QTreeWidget::itemActivated, this, [this] { openSelected(); });
    connect(m_open, &QPushButton::clicked, this, &RunFilesView::openSelected);
    connect(m_saveAs, &QPushButton::clicked, this, &RunFilesView::askWhereToSave);

    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addWidget(m_saveAs);
    buttons->addWidget(m_message, 1);
    auto* layout = new QVBoxLayout(this);
    // The chart at the pane's size first; the other images and the list below it.
    layout->addWidget(m_preview, 4);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);

    // Stable names: tests find the widgets by them (findChild).
    m_thumbnails->setObjectName(QStringLiteral("thumbnails"));
    m_preview->setObjectName(QStringLiteral("imagePreview"));
    m_list->setObjectName(QStringLiteral("fileList"));
    m_open->setObjectName(QStringLiteral("openFile"));
    m_saveAs->setObjectName(QStringLiteral("saveFileAs"));
    m_message->setObjectName(QStringLiteral("fileMessage"));
    showFiles({});
}

QImage RunFilesView::loadImage(const QString& path, QSize bound)
{
    // The file comes from a sandboxed program: its size on disk and its declared dimensions
    // are checked before a single pixel is decoded.
    const QFileInfo info(path);
    if (!info.isFile() || info.isSymLink() || info.size() > kMaxImageFileBytes)
        return {};
    QImageReader reader(path);
    reader.setAutoTransform(true);
    const QSize size = reader.size();
    if (!size.isValid() || qint64(size.width()) * size.height() > kMaxImagePixels)
        return {};
    if (bound.isValid() && (size.width() > bound.width() || size.height() > bound.height()))
        reader.setScaledSize(size.scaled(bound, Qt::KeepAspectRatio));
    return reader.read();
}

void RunFilesView::showFiles(const QList<RunFileRecord>& files)
{
    m_files = files;
    // Thumbnails of the previous run go; deleteLater, since one may be handling its own click.
    const QList<QToolButton*> old = m_thumbnails->findChildren<QToolButton*>();
    for (QToolButton* button : old) {
        m_thumbnailGrid->removeWidget(button);
        button->hide();
        button->setParent(nullptr);
        button->deleteLater();
    }
    m_list->clear();
    int thumbnails = 0;
    for (qsizetype i = 0; i < files.size(); ++i) {
        const RunFileRecord& file = files.at(i);
        if (thumbnails < kMaxThumbnails && isImage(file) && isKept(file)) {
            const QImage thumbnail = loadImage(file.storedPath, kThumbnailBound);
            if (!thumbnail.isNull()) {
                m_thumbnailGrid->addWidget(addThumbnail(file, thumbnail),
                                           thumbnails / kThumbnailsPerRow,
                                           thumbnails % kThumbnailsPerRow);
                ++thumbnails;
            }
        }
        auto* item = new QTreeWidgetItem(m_list);
        // Paths are the program's words, already made safe to show by the server; plain text.
        item->setText(PathColumn, file.path);
        item->setToolTip(PathColumn, file.path);
        item->setText(DirectionColumn,
                      file.direction == RunFileRecord::Direction::Input ? tr("in") : tr("out"));
        item->setText(SizeColumn, ByteSize::forPeople(file.sizeBytes));
        item->setTextAlignment(SizeColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(TypeColumn, file.mimeType);
        item->setText(StateColumn, stateText(file));
        item->setToolTip(StateColumn, stateText(file));
        item->setData(PathColumn, Qt::UserRole, int(i));
    }
    m_thumbnails->setVisible(thumbnails > 0);
    // Several images: their thumbnails choose the one previewed; one is all in the preview.
    m_scroll->setVisible(thumbnails > 1);
    m_previewed = -1;
    m_preview->clear();
    for (qsizetype i = 0; i < files.size() && m_previewed < 0; ++i) {
        if (isImage(files.at(i)) && isKept(files.at(i)))
            preview(int(i));
    }
    m_preview->setVisible(m_previewed >= 0);
    setMessage(files.isEmpty() ? tr("This run had no files.") : QString());
    updateButtons();
}

QToolButton* RunFilesView::addThumbnail(const RunFileRecord& file, const QImage& thumbnail)
{
    auto* button = new QToolButton(m_thumbnails);
    button->setObjectName(QStringLiteral("thumbnail"));
    button->setToolButtonStyle(Qt::ToolButtonTextUnderIcon);
    button->setAutoRaise(true);
    button->setIcon(QIcon(QPixmap::fromImage(thumbnail)));
    button->setIconSize(thumbnail.size());
    button->setText(QFileInfo(file.path).fileName());
    button->setToolTip(tr("%1: click to show it above").arg(file.path));
    const int index = int(m_files.indexOf(file));
    connect(button, &QToolButton::clicked, this, [this, index] { preview(index); });
    return button;
}

void RunFilesView::showFullSize()
{
    if (m_previewed < 0 || m_previewed >= m_files.size())
        return;
    const RunFileRecord& file = m_files.at(m_previewed);
    const QImage image = loadImage(file.storedPath);
    if (image.isNull()) {
        setMessage(tr("%1 cannot be shown: it is gone, too big or not an image.").arg(file.path));
        return;
    }
    auto* viewer = new ImageViewerDialog(image, file.path, this);
    viewer->setObjectName(QStringLiteral("imageViewer"));
    viewer->open();
}

void RunFilesView::preview(int index)
{
    if (index < 0 || index >= m_files.size())
        return;
    const QImage image = loadImage(m_files.at(index).storedPath);
    if (image.isNull())
        return;
    m_previewed = index;
    m_preview->showImage(image, m_files.at(index).path);
}

int RunFilesView::selectedIndex() const
{
    const QList<QTreeWidgetItem*> selected = m_list->selectedItems();
    if (selected.isEmpty())
        return -1;
    return selected.constFirst()->data(PathColumn, Qt::UserRole).toInt();
}

void RunFilesView::updateButtons()
{
    const int index = selectedIndex();
    const bool kept = index >= 0 && isKept(m_files.at(index));
    m_open->setEnabled(kept);
    m_saveAs->setEnabled(kept);
}

void RunFilesView::openSelected()
{
    const int index = selectedIndex();
    if (index < 0 || !isKept(m_files.at(index)))
        return;
    const RunFileRecord file = m_files.at(index);
    if (ViewerSafeFile::opensWithoutAsking(file)) {
        openWithTheDesktop(file);
        return;
    }
    // Made by a sandboxed program, and opened outside the sandbox: the person decides.
    auto* confirm = new QMessageBox(
        QMessageBox::Warning, tr("Open %1?").arg(file.path),
        tr("%1 was made by a sandboxed program. The desktop opens it with the application it "
           "chooses by its name, outside the sandbox, where a file of this kind (%2) can run "
           "what is in it.\n\nOpen it anyway?")
            .arg(file.path, file.mimeType.isEmpty() ? tr("unknown type") : file.mimeType),
        QMessageBox::Open | QMessageBox::Cancel, this);
    confirm->setObjectName(QStringLiteral("confirmOpenDialog"));
    confirm->setDefaultButton(QMessageBox::Cancel);
    confirm->setAttribute(Qt::WA_DeleteOnClose);
    connect(confirm, &QMessageBox::finished, this, [this, file](int button) {
        if (button == QMessageBox::Open)
            openWithTheDesktop(file);
    });
    confirm->open();
}

void RunFilesView::openWithTheDesktop(const RunFileRecord& file)
{
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(file.storedPath)))
        setMessage(tr("No application opens %1.").arg(file.path));
}

void RunFilesView::askWhereToSave()
{
    const int index = selectedIndex();
    if (index < 0)
        return;
    auto* dialog = new QFileDialog(this, tr("Save %1 as").arg(m_files.at(index).path));
    dialog->setObjectName(QStringLiteral("saveFileDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->selectFile(QFileInfo(m_files.at(index).path).fileName());
    // The list may show another run by the time the dialog is accepted: what to copy is
    // decided now.
    const RunFileRecord file = m_files.at(index);
    connect(dialog, &QFileDialog::fileSelected, this, [this, file](const QString& target) {
        const qsizetype at = m_files.indexOf(file);
        if (at >= 0)
            saveFileAs(int(at), target);
    });
    dialog->open();
}

bool RunFilesView::saveFileAs(int index, const QString& target)
{
    if (index < 0 || index >= m_files.size())
        return false;
    const RunFileRecord& file = m_files.at(index);
    if (!isKept(file)) {
        setMessage(tr("%1 is not kept any more.").arg(file.path));
        return false;
    }
    // The dialog has asked before replacing a file.
    if (QFileInfo::exists(target) && !QFile::remove(target)) {
        setMessage(tr("Cannot replace %1.").arg(QDir::toNativeSeparators(target)));
        return false;
    }
    QFile source(file.storedPath);
    if (!source.copy(target)) {
        setMessage(tr("Cannot save %1: %2").arg(file.path, source.errorString()));
        return false;
    }
    // The copy is the user's now: ordinary permissions, not the data folder's owner-only ones.
    QFile::setPermissions(target, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                      QFileDevice::ReadGroup | QFileDevice::ReadOther);
    setMessage(tr("Saved %1.").arg(QDir::toNativeSeparators(target)));
    return true;
}

void RunFilesView::setMessage(const QString& text)
{
    m_message->setText(text);
}

} // namespace csm
