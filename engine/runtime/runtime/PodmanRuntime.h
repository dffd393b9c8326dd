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
    QString setUpNotice(const QString& warning) const override;
    QStringList listContainersArguments() const override;
    QList<ContainerInfo> parseContainerList(const QByteArray& output) const override;
    QStringList listImagesArguments() const override;
    QList<ImageInfo> parseImageList(const QByteArray& output) const override;
    bool enginesReadSeccompProfiles() const override { return true; }
    QString sandboxUsers() const override;
    QString plainTcpFix() const override;
    QString gvisorRuntimeName() const override;
    QString gvisorFix() const override;
    QStringList gvisorCheckArguments() const override;
    QString gvisorUnreadiness(const QByteArray& output) const override;

protected:
    QMap<QString, QString> endpointVariables(const QString& address) const override;
    EngineLocation locate(const QProcessEnvironment& environment) const override;
    QStringList isolationGlobalOptions(Isolation isolation) const override;
    QStringList engineSpecificRunOptions() const override;
    QString sharedFolderMountOptions() const override;
};

} // namespace csm
