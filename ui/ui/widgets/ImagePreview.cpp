#include "ui/widgets/ImagePreview.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>

namespace csm {

ImagePreview::ImagePreview(QWidget* parent)
    : QWidget(parent)
    , m_name(new QLabel(this))
    , m_fitButton(new QPushButton(tr("&Fit"), this))
    , m_zoomOut(new QPushButton(tr("Zoom out"), this))
    , m_zoomIn(new QPushButton(tr("Zoom in"), this))
    , m_actualSize(new QPushButton(tr("100%"), this))
    , m_save(new QPushButton(tr("Save…"), this))
    , m_scroll(new QScrollArea(this))
    , m_picture(new QLabel(this))
{
    m_name->setTextFormat(Qt::PlainText);
    m_fitButton->setCheckable(true);
    m_fitButton->setChecked(true);
    m_fitButton->setToolTip(tr("Fit the image to the space here"));
    m_zoomOut->setShortcut(QKeySequence::ZoomOut);
    m_zoomIn->setShortcut(QKeySequence::ZoomIn);
    m_zoomOut->setToolTip(tr("Zoom out (Ctrl+-, or Ctrl and the wheel)"));
    m_zoomIn->setToolTip(tr("Zoom in (Ctrl++, or Ctrl and the wheel)"));
    m_actualSize->setToolTip(tr("Show the image at its own size"));
    m_save->setToolTip(tr("Save a copy of the image"));
    connect(m_fitButton, &QPushButton::clicked, this, [this](bool on) {
        if (on)
            fit();
        else
            showActualSize();
    });
    connect(m_zoomOut, &QPushButton::clicked, this, [this] { zoomBy(1.0 / kZoomStep); });
    connect(m_zoomIn, &QPushButton::clicked, this, [this] { zoomBy(kZoomStep); });
    connect(m_actualSize, &QPushButton::clicked, this, &ImagePreview::showActualSize);
    connect(m_save, &QPushButton::clicked, this, &ImagePreview::saveRequested);
    m_picture->setAlignment(Qt::AlignCenter);
    m_scroll->viewport()->setToolTip(tr("Double-click to see it in a window of its own"));
    // Double-clicks on the picture reach the viewport's filter.
    m_picture->setAttribute(Qt::WA_TransparentForMouseEvents);
    m_scroll->setWidget(m_picture);
    m_scroll->setAlignment(Qt::AlignCenter);
    m_scroll->setWidgetResizable(false);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->viewport()->installEventFilter(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_name, 1);
    for (QPushButton* button : {m_fitButton, m_zoomOut, m_zoomIn, m_actualSize, m_save})
        bar->addWidget(button);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_scroll, 1);
    m_name->setObjectName(QStringLiteral("previewName"));
    m_fitButton->setObjectName(QStringLiteral("previewFit"));
    m_zoomOut->setObjectName(QStringLiteral("previewZoomOut"));
    m_zoomIn->setObjectName(QStringLiteral("previewZoomIn"));
    m_actualSize->setObjectName(QStringLiteral("previewActualSize"));
    m_save->setObjectName(QStringLiteral("previewSave"));
    m_picture->setObjectName(QStringLiteral("previewImage"));
}

void ImagePreview::showImage(const QImage& image, const QString& name)
{
    m_image = image;
    m_name->setText(tr("%1 (%2 × %3)").arg(name).arg(image.width()).arg(image.height()));
    fit();
}

void ImagePreview::clear()
{
    m_image = {};
    m_name->clear();
    m_picture->clear();
}

double ImagePreview::scale() const
{
    if (!m_fit || m_image.isNull())
        return m_zoom;
    const QSize space = m_scroll->viewport()->size();
    const double across = double(space.width()) / m_image.width();
    const double down = double(space.height()) / m_image.height();
    return std::clamp(std::min(across, down), kMinZoom, kMaxFitScale);
}

void ImagePreview::zoomBy(double factor)
{
    m_zoom = std::clamp(scale() * factor, kMinZoom, kMaxZoom);
    m_fit = false;
    render();
}

void ImagePreview::showActualSize()
{
    m_zoom = 1.0;
    m_fit = false;
    render();
}

void ImagePreview::fit()
{
    m_fit = true;
    render();
}

void ImagePreview::render()
{
    m_fitButton->setChecked(m_fit);
    if (m_image.isNull()) {
        m_picture->clear();
        return;
    }
    const QSize size = (QSizeF(m_image.size()) * scale()).toSize().expandedTo({1, 1});
    m_picture->setPixmap(
        QPixmap::fromImage(m_image.scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)));
    m_picture->resize(size);
}

bool ImagePreview::eventFilter(QObject* watched, QEvent* event)
{
    // The space there is changed (the pane or the window was resized): fitted again.
    if (watched == m_scroll->viewport() && event->type() == QEvent::Resize && m_fit)
        render();
    if (watched == m_scroll->viewport() && event->type() == QEvent::MouseButtonDblClick &&
        !m_image.isNull()) {
        Q_EMIT fullSizeRequested();
        return true;
    }
    // Ctrl and the wheel zoom, as in image viewers; the wheel alone scrolls.
    if (watched == m_scroll->viewport() && event->type() == QEvent::Wheel) {
        const auto* wheel = static_cast<QWheelEvent*>(event);
        if (wheel->modifiers() & Qt::ControlModifier) {
            zoomBy(wheel->angleDelta().y() > 0 ? kZoomStep : 1.0 / kZoomStep);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace csm
