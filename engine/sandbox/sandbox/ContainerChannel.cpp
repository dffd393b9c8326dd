#include "sandbox/ContainerChannel.h"

namespace csm {

ContainerChannel::ContainerChannel(QString containerName,
                                   std::shared_ptr<const SandboxSecrets> secrets, QObject* parent)
    : QObject(parent)
    , m_containerName(std::move(containerName))
    , m_secrets(secrets ? std::move(secrets) : SandboxSecrets::none())
{}

} // namespace csm
