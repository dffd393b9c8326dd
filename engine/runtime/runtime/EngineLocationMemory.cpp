#include "runtime/EngineLocationMemory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
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
    if (m_file.isEmpty() || QFileInfo(m_file).isRelative())
        return std::nullopt;
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
    if (m_file.isEmpty() || QFileInfo(m_file).isRelative())
        return; // no cache folder: asked again next time
    QDir().mkpath(QFileInfo(m_file).absolutePath());
    // Two servers that start together each add their engine: one after the other.
    QLockFile lock(m_file + QStringLiteral(".lock"));
    lock.setStaleLockTime(10'000);
    if (!lock.tryLock(5'000))
        return;
    QJsonObject all = readAll(m_file);
    all.insert(key, QJsonObject{{QStringLiteral("remote"), entry.remote},
                                {QStringLiteral("basis"), entry.basis},
                                {QStringLiteral("asked"), entry.asked.toString(Qt::ISODate)}});
    QSaveFile file(m_file);
    if (!file.open(QIODevice::WriteOnly))
        return;
    file.write(QJsonDocument(all).toJson());
    file.commit();
}

} // namespace csm
