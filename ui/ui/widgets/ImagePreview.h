#pragma once

#include <QImage>
#include <QWidget>

class QLabel;
class QPushButton;
class QScrollArea;

namespace csm {

// A run's chart (or other image) at the size of the pane it is in, not a thumbnail: fitted to
// the space there is (up to twice its own size, so that a small plot reads), or zoomed with
// the buttons or Ctrl and the wheel, scrolling once bigger than the space; Save; and a
// double-click for a window of its own.
class ImagePreview final : public QWidget
{
    Q_OBJECT

public:
    static constexpr double kZoomStep = 1.25;
    static constexpr double kMinZoom = 0.1;
    static constexpr double kMaxZoom = 8.0;
    // How far fitting may enlarge an image past its own size.
    static constexpr double kMaxFitScale = 2.0;

    explicit ImagePreview(QWidget* parent = nullptr);

    // `image` read and checked already (RunFilesView::loadImage); `name` says which file.
    void showImage(const QImage& image, const QString& name);
    void clear();
    // Fitted to the space (true), or at the zoom the person chose.
    bool isFitted() const { return m_fit; }
    // The scale the image is shown at now: 1 is its own size.
    double scale() const;
    void zoomBy(double factor);
    void showActualSize();
    void fit();

Q_SIGNALS:
    // Save was pressed for the image shown.
    void saveRequested();
    // The image was double-clicked: to be seen in a window of its own.
    void fullSizeRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void render();

    QLabel* m_name = nullptr;
    QPushButton* m_fitButton = nullptr;
    QPushButton* m_zoomOut = nullptr;
    QPushButton* m_zoomIn = nullptr;
    QPushButton* m_actualSize = nullptr;
    QPushButton* m_save = nullptr;
    QScrollArea* m_scroll = nullptr;
    QLabel* m_picture = nullptr;
    QImage m_image;
    bool m_fit = true;
    double m_zoom = 1.0;
};

} // namespace csm
