#pragma once

#include "FindNamed.h"
#include "ui/widgets/RunFilesView.h"

#include <QIcon>
#include <QList>
#include <QPixmap>
#include <QSize>
#include <QTabWidget>
#include <QToolButton>

// The Files tab of the run detail pane, for tests that check what a run made: brings the tab to
// the front and returns its thumbnails, in the order of the run's files.
inline QList<QToolButton*> filesTabThumbnails(const QObject& window)
{
    auto& files = findNamed<csm::RunFilesView>(window, "files");
    findNamed<QTabWidget>(window, "detailTabs").setCurrentWidget(&files);
    return findNamed<QWidget>(files, "thumbnails")
        .findChildren<QToolButton*>(QStringLiteral("thumbnail"));
}

// The image a thumbnail shows, at the size it was made (within RunFilesView::kThumbnailBound).
inline QPixmap thumbnailPixmap(const QToolButton& thumbnail)
{
    const QList<QSize> sizes = thumbnail.icon().availableSizes();
    return sizes.isEmpty() ? QPixmap() : thumbnail.icon().pixmap(sizes.constFirst());
}
