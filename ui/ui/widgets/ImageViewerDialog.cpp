#include "ui/widgets/ImageViewerDialog.h"

#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QPixmap>
#include <QScreen>
#include <QScrollArea>
#include <QVBoxLayout>

namespace csm {

ImageViewerDialog::ImageViewerDialog(const QImage& image, const QString& title, QWidget* parent)
    : QDialog(parent)
    , m_image(new QLabel(this))
{
    setAttribute(Qt::WA_DeleteOnClose);
    // The file's name is the program's choice: shown as text in the title bar only.
    setWindowTitle(title);
    m_image->setPixmap(QPixmap::fromImage(image));
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_image);
    scroll->setAlignment(Qt::AlignCenter);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(buttons);
    // As big as the image, within most of the screen.
    const QSize available = screen() ? screen()->availableSize() * 0.8 : QSize(1024, 768);
    resize(image.size().grownBy({24, 24, 24, 64}).boundedTo(available).expandedTo({320, 240}));
    m_image->setObjectName(QStringLiteral("image"));
    scroll->setObjectName(QStringLiteral("imageScroll"));
}

} // namespace csm
