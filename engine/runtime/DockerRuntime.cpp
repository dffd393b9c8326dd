#include "runtime/DockerRuntime.h"

namespace csm {

DockerRuntime::DockerRuntime(QString program)
    : ContainerRuntime(std::move(program))
{}

QStringList DockerRuntime::forceRemoveArguments(const QString& container) const
{
    // docker rm --force sends SIGKILL at once; "No such container" is not an error for us.
    return {QStringLiteral("rm"), QStringLiteral("--force"), container};
}

QStringList DockerRuntime::imageCheckArguments(const QString& image) const
{
    return {QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("--format"),
            QStringLiteral("{{.Id}}"), image};
}

ImageCheck DockerRuntime::interpretImageCheck(int exitCode, const QByteArray& standardError) const
{
    if (exitCode == 0)
        return {ImageCheck::Status::Present, {}};
    const QString text = QString::fromUtf8(standardError).trimmed();
    // `docker image inspect` exits 1 both for a missing image and for an unreachable daemon;
    // only its message tells them apart.
    if (text.contains(QLatin1String("No such image"), Qt::CaseInsensitive) ||
        text.contains(QLatin1String("No such object"), Qt::CaseInsensitive))
        return {ImageCheck::Status::Missing, {}};
    return {ImageCheck::Status::EngineUnavailable, text};
}

} // namespace csm
