#include "runtime/RuntimeFactory.h"

#include "core/Logging.h"
#include "runtime/DockerRuntime.h"
#include "runtime/PodmanRuntime.h"

#include <QStandardPaths>

namespace csm {

bool RuntimeFactory::isKnownEngine(const QString& name)
{
    return name.isEmpty() || name == QLatin1String("auto") || name == QLatin1String("podman") ||
           name == QLatin1String("docker");
}

std::unique_ptr<ContainerRuntime> RuntimeFactory::create(const QString& preference,
                                                         const QString& endpoint)
{
    std::unique_ptr<ContainerRuntime> runtime = detect(preference);
    if (runtime)
        runtime->setEndpoint(endpoint);
    return runtime;
}

std::unique_ptr<ContainerRuntime> RuntimeFactory::detect(const QString& preference)
{
    if (preference == QLatin1String("podman"))
        return std::make_unique<PodmanRuntime>();
    if (preference == QLatin1String("docker"))
        return std::make_unique<DockerRuntime>();
    if (!isKnownEngine(preference))
        return nullptr;

    if (!QStandardPaths::findExecutable(QStringLiteral("podman")).isEmpty())
        return std::make_unique<PodmanRuntime>();
    if (!QStandardPaths::findExecutable(QStringLiteral("docker")).isEmpty())
        return std::make_unique<DockerRuntime>();
    qCWarning(lcEngine) << "neither podman nor docker was found on PATH";
    return std::make_unique<PodmanRuntime>();
}

} // namespace csm
