#pragma once

#include <QDialog>

class QLabel;

namespace csm {

// A run's image at full size, scrollable when it is bigger than the screen. Opened without a
// nested event loop (open()), deleted when closed.
class ImageViewerDialog final : public QDialog
{
    Q_OBJECT

public:
    // Shows `image` (already read and checked by RunFilesView::loadImage); `title` names it.
    ImageViewerDialog(const QImage& image, const QString& title, QWidget* parent = nullptr);

private:
    QLabel* m_image = nullptr;
};

} // namespace csm
