#include "runtime/EngineLocationMemory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#include <utility>

namespace csm {

namespace {

QJsonObject readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.read(1 << 20)).object();
}

} // namespace

QString EngineLocationMemory::defaultFile()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation))
        .filePath(QStringLiteral("code-sandbox/engine-locations.json"));
}

EngineLocationMemory::EngineLocationMemory(QString file)
    : m_file(std::move(file))
{}

std::optional<EngineLocationMemory::Entry> EngineLocationMemory::recall(const QString& key) const
{
    const QJsonObject entry = readAll(m_file).value(key).toObject();
    const QDateTime asked =
        QDateTime::fromString(entry.value(QLatin1String("asked")).toString(), Qt::ISODate);
    if (!entry.value(QLatin1String("remote")).isBool() || !asked.isValid())
        return std::nullopt;
    return Entry{entry.value(QLatin1String("remote")).toBool(),
                 entry.value(QLatin1String("basis")).toString(), asked};
}

void EngineLocationMemory::remember(const QString& key, const Entry& entry) const
{
    QJsonObject all = readAll(m_file);
    all.insert(key, QJsonObject{{QStringLiteral("remote"), entry.remote},
                                {QStringLiteral("basis"), entry.basis},
                                {QStringLiteral("asked"), entry.asked.toString(Qt::ISODate)}});
    QDir().mkpath(QFileInfo(m_file).absolutePath());
    QSaveFile file(m_file);
    if (file.open(QIODevice::WriteOnly))
        file.write(QJsonDocument(all).toJson());
    file.commit();
}

} // namespace csm
