#pragma once

#include "runtime/ContainerSpec.h"
#include "runtime/Language.h"

#include <QString>

class QObject;

namespace csm {

class ContainerReaper;
class WarmContainerChannel;

// What the warm pool needs from whoever owns it, and nothing more: whether containers may start
// now, new containers to keep waiting, and where to leave those it is done with. SandboxRunner is
// the real source; the pool never sees the runner's runs, sessions or settings.
class WarmContainerSource
{
public:
    virtual ~WarmContainerSource() = default;

    // Whether a container may be started now: no hold for the secrets, and nothing that stops
    // every start (a missing launcher, a remote engine without the sandbox's files).
    virtual bool canStartContainers() const = 0;
    // The cap on sandboxes running programs at once: a pool that grows never keeps more of an
    // image waiting than could run.
    virtual int maxRunning() const = 0;
    // Whether the engine's containers see this machine's folders: then a waiting container's
    // launcher listens on a socket in one; otherwise its engine client stays attached.
    virtual bool containersSeeThisMachine() const = 0;
    // A fresh container's spec: a unique name, the policy, the labels that tie it to us.
    virtual ContainerSpec makeSpec(Language language, const QString& image) = 0;
    // A waiting container for `spec`, not started yet, with the secrets and the egress that
    // new containers get now; owned by `parent`.
    virtual WarmContainerChannel* newWarmChannel(ContainerSpec spec, QObject* parent) = 0;
    // Where containers the pool is done with are removed, off its path.
    virtual ContainerReaper& reaper() = 0;
};

} // namespace csm
