#pragma once

#include "runtime/Language.h"

#include <QString>
#include <QStringList>

namespace csm {

// Finds the image recipes (the containers/ folder: build-images, Dockerfile.python,
// Dockerfile.nodejs): $CODE_SANDBOX_CONTAINERS, else installed beside the app
// (<bindir>/../share/code-sandbox/containers), else the source tree the app was built from.
class ContainersFolder final
{
public:
    // The absolute path of a folder holding build-images, or empty when there is none.
    static QString find();
    // Where find() looked, for the error message when it finds nothing.
    static QStringList candidates();

    // The offline builder within `folder`.
    static QString buildScript(const QString& folder);
    // The arguments of build-images that build `language`'s default image into `engine`
    // ("podman" / "docker"). Without `force` an image the engine has is left alone, and a
    // missing one is imported from the cached root filesystem when there is one.
    static QStringList buildScriptArguments(const QString& engine, Language language, bool force);
    // The registry-based recipe of a language within `folder`: Dockerfile.python / .nodejs.
    static QString dockerfile(const QString& folder, Language language);
};

} // namespace csm
