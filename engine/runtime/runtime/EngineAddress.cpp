#include "runtime/EngineAddress.h"

namespace csm {

bool EngineAddress::isRemoteUrl(const QString& url)
{
#ifndef Q_OS_LINUX
    // macOS and Windows have no Linux kernel to run containers on: the engine is in a VM.
    Q_UNUSED(url);
    return true;
#else
    if (!url.startsWith(QLatin1String("unix://"), Qt::CaseInsensitive))
        return !url.isEmpty();
    // Docker Desktop for Linux runs its engine in a VM and hands out a socket under
    // ~/.docker/desktop; Podman machine's sockets live under .../podman/machine/.
    return url.contains(QLatin1String("/.docker/desktop/")) ||
           url.contains(QLatin1String("/podman/machine/"));
#endif
}

QString EngineAddress::describe(const QString& url, bool remote)
{
    if (url.isEmpty())
        return remote ? QStringLiteral("remote") : QStringLiteral("this machine");
    return remote ? QStringLiteral("remote (%1)").arg(url)
                  : QStringLiteral("this machine (%1)").arg(url);
}

} // namespace csm
