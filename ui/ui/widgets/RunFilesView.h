#pragma once

#include "history/RunFileRecord.h"

#include <QList>
#include <QSize>
#include <QWidget>

class QGridLayout;
class QImage;
class QLabel;
class QPushButton;
class QScrollArea;
class QToolButton;
class QTreeWidget;
class QWidget;

namespace csm {

class ImagePreview;

// The Files tab of a run: the files that went in and came out. The first image (a chart, most
// often) shows at the pane's size, with zoom and Save; with several, their thumbnails (read from
// the copies kept in the data folder, never a huge file blindly: see loadImage) choose the one
// shown, and open it full size; every file is listed with its size, type and what became of it, and
// a kept one can be opened with the desktop's application or saved elsewhere. Read-only: nothing
// here changes the kept copies.
class RunFilesView final : public QWidget
{
    Q_OBJECT

public:
    // Thumbnails fit in this; images bigger than kMaxImageFileBytes on disk or
    // kMaxImagePixels decoded are listed, not shown.
    static constexpr QSize kThumbnailBound{160, 160};
    static constexpr qint64 kMaxImageFileBytes = 32LL * 1024 * 1024;
    static constexpr qint64 kMaxImagePixels = 64LL * 1024 * 1024;
    // Thumbnails are read on the GUI thread when a run is selected: a run with hundreds of
    // images shows the first ones and lists the rest.
    static constexpr int kMaxThumbnails = 24;

    explicit RunFilesView(QWidget* parent = nullptr);

    void showFiles(const QList<RunFileRecord>& files);
    const QList<RunFileRecord>& files() const { return m_files; }

    // Copies the kept copy of files()[index] to `target` (replacing it); false, with the reason
    // shown under the list, when it cannot. The Save as button asks for `target`.
    bool saveFileAs(int index, const QString& target);

    // `path` read as an image no larger than `bound` (scaled, aspect kept), if it is a regular
    // file of at most kMaxImageFileBytes holding an image of at most kMaxImagePixels; a null
    // image otherwise. The size is checked before anything is decoded.
    static QImage loadImage(const QString& path, QSize bound = {});

private:
    QToolButton* addThumbnail(const RunFileRecord& file, const QImage& thumbnail);
    // Shows m_files[index] in the preview, when it can be read as an image.
    void preview(int index);
    // The image previewed in a window of its own, at its own size.
    void showFullSize();
    void updateButtons();
    int selectedIndex() const;
    // Opens the selected file with the desktop's application: at once for a plain viewer type
    // (ViewerSafeFile), after asking for anything else.
    void openSelected();
    void openWithTheDesktop(const RunFileRecord& file);
    void askWhereToSave();
    void setMessage(const QString& text);

    QList<RunFileRecord> m_files;
    ImagePreview* m_preview = nullptr;
    int m_previewed = -1;            // the index in m_files of the image previewed
    QScrollArea* m_scroll = nullptr; // the thumbnails
    QWidget* m_thumbnails = nullptr;
    QGridLayout* m_thumbnailGrid = nullptr;
    QTreeWidget* m_list = nullptr;
    QPushButton* m_open = nullptr;
    QPushButton* m_saveAs = nullptr;
    QLabel* m_message = nullptr;
};

} // namespace csm
