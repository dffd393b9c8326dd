#pragma once

#include "runtime/ContainerRuntime.h"

namespace csm {

class DockerRuntime final : public ContainerRuntime
{
public:
    explicit DockerRuntime(QString program = QStringLiteral("docker"));

    QString name() const override { return QStringLiteral("docker"); }
    QStringList forceRemoveArguments(const QString& container) const override;
    QStringList imageCheckArguments(const QString& image) const override;
    ImageCheck interpretImageCheck(int exitCode, const QByteArray& standardError) const override;
    QString localImageReference(const QString& image) const override { return image; }
    QString installCommand() const override;
    QString unavailableFixCommand() const override;
    QString unavailableHint() const override;
    QStringList storageDriverArguments() const override;
    QString slowStorageFix(const QString& driver) const override;
    QStringList listContainersArguments() const override;
    QList<ContainerInfo> parseContainerList(const QByteArray& output) const override;
    QStringList listImagesArguments() const override;
    QList<ImageInfo> parseImageList(const QByteArray& output) const override;
    QString sandboxUsers() const override;
    QString explainFailure(const QByteArray& standardError) const override;
    bool reachesTcpWithTls() const override;
    QString plainTcpFix() const override;
    QString gvisorRuntimeName() const override;
    QString gvisorFix() const override;
    QStringList gvisorCheckArguments() const override;
    QString gvisorUnreadiness(const QByteArray& output) const override;

protected:
    QMap<QString, QString> endpointVariables(const QString& address) const override;
    EngineLocation locate(const QProcessEnvironment& environment) const override;
    QStringList isolationRunOptions(Isolation isolation) const override;
};

} // namespace csm
