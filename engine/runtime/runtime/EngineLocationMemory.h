#pragma once

#include "runtime/EngineLocation.h"

#include <QDateTime>
#include <QString>

#include <optional>

namespace csm {

// What asking each engine found (EngineFileSightProbe), kept in a small JSON file of the user's
// cache folder, so that a server asks once per engine and address, not at every start.
class EngineLocationMemory final
{
public:
    struct Entry
    {
        bool remote = false;
        QString basis;
        QDateTime asked;
    };

    // ~/.cache/code-sandbox/engine-locations.json (the platform's cache folder).
    static QString defaultFile();

    explicit EngineLocationMemory(QString file = defaultFile());

    // `key`: the engine and its address, and what else the answer depends on
    // (EngineLocationFinder).
    std::optional<Entry> recall(const QString& key) const;
    // Written whole and atomically; a file that cannot be written only means asking again.
    void remember(const QString& key, const Entry& entry) const;

private:
    QString m_file;
};

} // namespace csm
