#include "runtime/EngineAddress.h"

namespace csm {

bool EngineAddress::leadsIntoVirtualMachine(const QString& url)
{
#ifndef Q_OS_LINUX
    // macOS and Windows have no Linux kernel to run containers on: the engine is in a VM.
    Q_UNUSED(url);
    return true;
#else
    if (!url.startsWith(QLatin1String("unix://"), Qt::CaseInsensitive))
        return false;
    // Docker Desktop for Linux hands out a socket under ~/.docker/desktop, Podman machine under
    // .../podman/machine/, Rancher Desktop ~/.rd/docker.sock, Colima and Lima under their own
    // folders.
    for (const char* folder :
         {"/.docker/desktop/", "/podman/machine/", "/.rd/", "/.colima/", "/.lima/"}) {
        if (url.contains(QLatin1String(folder)))
            return true;
    }
    return false;
#endif
}

bool EngineAddress::isRemoteUrl(const QString& url)
{
    if (leadsIntoVirtualMachine(url))
        return true;
    return !url.startsWith(QLatin1String("unix://"), Qt::CaseInsensitive) && !url.isEmpty();
}

QString EngineAddress::describe(const QString& url, bool remote)
{
    if (url.isEmpty())
        return remote ? QStringLiteral("remote") : QStringLiteral("this machine");
    return remote ? QStringLiteral("remote (%1)").arg(url)
                  : QStringLiteral("this machine (%1)").arg(url);
}

} // namespace csm
