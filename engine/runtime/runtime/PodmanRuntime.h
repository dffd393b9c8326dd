#pragma once

#include "runtime/ContainerRuntime.h"

namespace csm {

class PodmanRuntime final : public ContainerRuntime
{
public:
    explicit PodmanRuntime(QString program = QStringLiteral("podman"));

    QString name() const override { return QStringLiteral("podman"); }
    QStringList forceRemoveArguments(const QString& container) const override;
    QStringList imageCheckArguments(const QString& image) const override;
    ImageCheck interpretImageCheck(int exitCode, const QByteArray& standardError) const override;
    QString localImageReference(const QString& image) const override;
    QString installCommand() const override;
    QString unavailableFixCommand() const override;
    QString cancelledBuildLeftovers() const override;
    QStringList storageDriverArguments() const override;
    QString slowStorageFix(const QString& driver) const override;
    QString explainFailure(const QByteArray& standardError) const override;
    QStringList listContainersArguments() const override;
    QList<ContainerInfo> parseContainerList(const QByteArray& output) const override;
    QStringList listImagesArguments() const override;
    QList<ImageInfo> parseImageList(const QByteArray& output) const override;
    bool enginesReadSeccompProfiles() const override { return true; }
    QString sandboxUsers() const override;
    // How many subordinate ids the account "containers" needs for rootful Podman to give each
    // sandbox host users of its own (--userns=auto): 65,536 for each live sandbox, 64 of them.
    static constexpr qint64 kAutoUserNamespaceIds = 65'536LL * 64;
    // The line of /etc/subuid and /etc/subgid that set-up adds: Podman's documented range.
    static constexpr char kAutoUserNamespaceRange[] = "containers:2147483647:2147483648";

protected:
    QMap<QString, QString> endpointVariables(const QString& address) const override;
    EngineLocation locate(const QProcessEnvironment& environment) const override;
    QStringList engineSpecificRunOptions() const override;
    QString sharedFolderMountOptions() const override;

private:
    // Rootful Podman on this machine, with subordinate ids for "containers": no two live
    // sandboxes share a host uid. (Rootless Podman 4.3 has no id-mapped image layers: each new
    // range would copy the whole image, about 2 s and 440 MB for Python, kept for good.)
    bool givesEachSandboxItsOwnUsers() const;
};

} // namespace csm
