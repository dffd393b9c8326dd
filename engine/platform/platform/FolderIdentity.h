#pragma once

#include <QList>
#include <QString>

namespace csm {

// Which folder a path names: the device and inode of each of its components, from the root
// down. A container engine resolves a bind mount's path again at every start, so a component
// renamed, replaced or made a symbolic link since would mount another folder; this notices it.
// Where the system has no inodes to compare, every identity is empty and nothing changes.
class FolderIdentity final
{
public:
    FolderIdentity() = default;
    // Of `canonicalPath` (absolute, no symbolic links) as it is now.
    static FolderIdentity of(const QString& canonicalPath);

    bool isEmpty() const { return m_components.isEmpty(); }
    // The first component that names something else now (gone, another folder, or a link),
    // and how; empty if the path still names the same folder.
    QString changeNow() const;

    friend bool operator==(const FolderIdentity&, const FolderIdentity&) = default;

private:
    struct Component
    {
        QString path;
        quint64 device = 0;
        quint64 inode = 0;
        friend bool operator==(const Component&, const Component&) = default;
    };
    QList<Component> m_components;
};

} // namespace csm
