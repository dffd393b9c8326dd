#pragma once

#include <QDateTime>
#include <QString>

namespace csm {

// One image of an engine's local store, as its listing describes it. An image known under
// several names appears once per name.
struct ImageInfo
{
    // "localhost/code-sandbox-python:latest"; empty for an image no name points to.
    QString name;
    // The id, as long as the listing gave it (docker shortens it to 12 characters).
    QString id;
    // Bytes; docker's listing only gives a rounded figure ("425MB"), so that is approximate.
    qint64 sizeBytes = 0;
    // Invalid when the listing did not say.
    QDateTime created;

    // What to hand back to the engine (run, rmi, tag): the name, else the id.
    QString reference() const { return name.isEmpty() ? id : name; }

    friend bool operator==(const ImageInfo&, const ImageInfo&) = default;
};

} // namespace csm
