#pragma once

#include "runtime/ImageInfo.h"
#include "runtime/Language.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QList>
#include <QMap>

namespace csm {

// The images of the engine's local store, for the Images page: name, size, age, and which
// language uses each (the image chosen in the settings, else the locally built default). The
// page feeds it the engine's listing (setImages) and the languages' images (setImageFor).
class ImagesModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        Image,
        Size,
        Created,
        DefaultFor,
        ColumnCount,
    };

    enum Role
    {
        ReferenceRole = Qt::UserRole + 1, // QString: what to hand the engine
        SizeBytesRole,                    // qint64
        CreatedRole,                      // QDateTime (UTC)
    };

    explicit ImagesModel(QObject* parent = nullptr);

    // The store's images, shown sorted by name (nameless ones last). An unchanged listing
    // changes nothing, so a periodic refresh keeps the view's selection.
    void setImages(QList<ImageInfo> images);
    const QList<ImageInfo>& images() const { return m_images; }
    // The image `language` runs in, as the engine is asked for it.
    void setImageFor(Language language, const QString& image);
    QString imageFor(Language language) const { return m_defaults.value(language); }

    // The image of a row; a default-constructed one for a row out of range.
    ImageInfo image(int row) const;
    // The row showing `reference` (as sameImage() compares), or -1.
    int rowOf(const QString& reference) const;
    // The languages that run in the image of a row.
    QList<Language> languagesOf(int row) const;

    // Whether a listed name and a name as the settings or a user write it are the same image:
    // "python:3.12", "docker.io/library/python:3.12"; "code-sandbox-js", "localhost/...:latest".
    static bool sameImage(const QString& listed, const QString& wanted);
    // "just now", "5 minutes ago", "3 days ago"; the date itself past two months.
    static QString age(const QDateTime& created, const QDateTime& now);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<ImageInfo> m_images;
    QMap<Language, QString> m_defaults;
};

} // namespace csm
