#include "ui/models/ImagesModel.h"

#include "ui/Plural.h"

#include <QLocale>

#include <algorithm>

namespace csm {

namespace {
// The canonical form of an image name: no default registry, an explicit tag.
QString canonical(QString name)
{
    for (const QLatin1String prefix : {QLatin1String("docker.io/library/"),
                                       QLatin1String("docker.io/"), QLatin1String("localhost/")}) {
        if (name.startsWith(prefix)) {
            name.remove(0, prefix.size());
            break;
        }
    }
    const QString lastPart = name.section(QLatin1Char('/'), -1);
    if (!lastPart.contains(QLatin1Char(':')) && !lastPart.contains(QLatin1Char('@')))
        name += QStringLiteral(":latest");
    return name;
}
} // namespace

ImagesModel::ImagesModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

void ImagesModel::setImages(QList<ImageInfo> images)
{
    std::stable_sort(images.begin(), images.end(), [](const ImageInfo& a, const ImageInfo& b) {
        if (a.name.isEmpty() != b.name.isEmpty())
            return b.name.isEmpty();
        return a.reference() < b.reference();
    });
    if (images == m_images)
        return;
    beginResetModel();
    m_images = std::move(images);
    endResetModel();
}

void ImagesModel::setImageFor(Language language, const QString& image)
{
    if (m_defaults.value(language) == image && m_defaults.contains(language))
        return;
    m_defaults.insert(language, image);
    if (!m_images.isEmpty())
        Q_EMIT dataChanged(index(0, DefaultFor), index(rowCount() - 1, DefaultFor));
}

ImageInfo ImagesModel::image(int row) const
{
    return row >= 0 && row < m_images.size() ? m_images.at(row) : ImageInfo{};
}

int ImagesModel::rowOf(const QString& reference) const
{
    for (int row = 0; row < m_images.size(); ++row) {
        if (m_images.at(row).reference() == reference)
            return row;
    }
    for (int row = 0; row < m_images.size(); ++row) {
        if (sameImage(m_images.at(row).name, reference))
            return row;
    }
    return -1;
}

QList<Language> ImagesModel::languagesOf(int row) const
{
    QList<Language> languages;
    const QString name = image(row).name;
    if (name.isEmpty())
        return languages;
    for (auto it = m_defaults.cbegin(); it != m_defaults.cend(); ++it) {
        if (sameImage(name, it.value()))
            languages << it.key();
    }
    return languages;
}

bool ImagesModel::sameImage(const QString& listed, const QString& wanted)
{
    if (listed.isEmpty() || wanted.isEmpty())
        return false;
    return listed == wanted || canonical(listed) == canonical(wanted);
}

QString ImagesModel::age(const QDateTime& created, const QDateTime& now)
{
    if (!created.isValid())
        return {};
    const qint64 seconds = created.secsTo(now);
    // A clock skewed between the engine and us: the date says more than a negative age.
    if (seconds < -60)
        return QLocale().toString(created.toLocalTime().date(), QLocale::ShortFormat);
    if (seconds < 60)
        return tr("just now");
    if (seconds < 3600)
        return tr("%1 ago").arg(Plural::of(seconds / 60, "minute", "minutes"));
    if (seconds < 86400)
        return tr("%1 ago").arg(Plural::of(seconds / 3600, "hour", "hours"));
    if (seconds < 60 * 86400)
        return tr("%1 ago").arg(Plural::of(seconds / 86400, "day", "days"));
    return QLocale().toString(created.toLocalTime().date(), QLocale::ShortFormat);
}

int ImagesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_images.size());
}

int ImagesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ImagesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ImageInfo& image = m_images.at(index.row());
    switch (role) {
    case ReferenceRole:
        return image.reference();
    case SizeBytesRole:
        return image.sizeBytes;
    case CreatedRole:
        return image.created;
    case Qt::TextAlignmentRole:
        if (index.column() == Size)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Created && image.created.isValid())
            return QLocale().toString(image.created.toLocalTime(), QLocale::LongFormat);
        if (index.column() == Image)
            return tr("id %1").arg(image.id);
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case Image:
        return image.name.isEmpty() ? tr("<none> (%1)").arg(image.id.left(12)) : image.name;
    case Size:
        return QLocale().formattedDataSize(image.sizeBytes, 1, QLocale::DataSizeSIFormat);
    case Created:
        return age(image.created, QDateTime::currentDateTimeUtc());
    case DefaultFor: {
        QStringList names;
        const QList<Language> languages = languagesOf(index.row());
        for (Language language : languages)
            names << LanguageTraits::displayName(language);
        return names.join(QStringLiteral(", "));
    }
    default:
        return {};
    }
}

QVariant ImagesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Image:
        return tr("Image");
    case Size:
        return tr("Size");
    case Created:
        return tr("Created");
    case DefaultFor:
        return tr("Default for");
    default:
        return {};
    }
}

} // namespace csm
