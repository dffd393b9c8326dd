#pragma once

#include "core/Expected.h"
#include "runtime/SharedFolder.h"

#include <QList>
#include <QString>

namespace csm {

// Shared folders as the user writes them: HOST_DIR[:NAME][:ro|rw], one a line where several are
// (a repeated --share, CODE_SANDBOX_SHARE, settings.ini). NAME defaults to the folder's base
// name; the mode to ro. The folder must exist and is resolved to its canonical path, so a share
// made through a symlink means the folder the symlink points at today, and its identity is
// taken then (SharedFolder::identity).
class SharedFolderText final
{
public:
    static Expected<SharedFolder> parse(const QString& entry);
    // Every line that is not blank; names must be unique, and no folder may be at or below a
    // writable one (its sandboxes could replace it with a link to any folder of this machine).
    static Expected<QList<SharedFolder>> parseList(const QString& text);

    // HOST_DIR:NAME:ro|rw, which parse() reads back.
    static QString format(const SharedFolder& folder);
    static QString formatList(const QList<SharedFolder>& folders);

    static bool isValidName(const QString& name);
    // Why a writable one of `folders` may not be shared: it holds `folder` (the server's data
    // folder, `what`), which its sandboxes could then rewrite; else empty.
    static QString writableHolding(const QList<SharedFolder>& folders, const QString& folder,
                                   const QString& what);

private:
    // Why one of `folders` may not be shared beside the others (see parseList()); else empty.
    static QString nestedInWritable(const QList<SharedFolder>& folders);
};

} // namespace csm
