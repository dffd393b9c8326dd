#pragma once

#include <QMap>
#include <QString>

namespace csm {

// One container as an engine's listing describes it.
struct ContainerInfo
{
    // The full id; may be empty when the listing gave only a name.
    QString id;
    // The first name; may be empty when the listing gave only an id.
    QString name;
    QMap<QString, QString> labels;

    // What to hand back to the engine (rm): the id when known, as it cannot be ambiguous.
    QString reference() const { return id.isEmpty() ? name : id; }
    // What to show in a log.
    QString displayName() const { return name.isEmpty() ? id.left(12) : name; }
};

} // namespace csm
