#include "sandbox/SandboxSession.h"

namespace csm {

SandboxSession::SandboxSession(QString containerName, QObject* parent)
    : QObject(parent)
    , m_containerName(std::move(containerName))
{}

} // namespace csm
