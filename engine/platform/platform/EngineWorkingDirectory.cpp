#include "platform/EngineWorkingDirectory.h"

#include <QDir>
#include <QTemporaryDir>

namespace csm {

namespace {
// QTemporaryDir creates the folder with mode 0700 and removes it when the process exits.
struct Folder
{
    QTemporaryDir dir{QDir::tempPath() + QStringLiteral("/code-sandbox-engine-XXXXXX")};
};
Q_GLOBAL_STATIC(Folder, folder)
} // namespace

QString EngineWorkingDirectory::path()
{
    Folder* created = folder();
    return created && created->dir.isValid() ? created->dir.path() : QDir::tempPath();
}

} // namespace csm
