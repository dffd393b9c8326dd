#pragma once

#include "runtime/Isolation.h"
#include "runtime/Language.h"
#include "runtime/SharedFolder.h"

#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace csm {

// The limits and hardening every sandbox runs under. The defaults are safe for code nobody
// has read: no root, no capabilities, a read-only image, bounded memory, processes and disk.
struct SandboxPolicy
{
    qint64 memoryBytes = 512LL * 1024 * 1024; // also the memory+swap limit: no swap
    double cpus = 1.0;
    int pidsLimit = 256;
    qint64 tmpfsBytes = 64LL * 1024 * 1024; // each of /tmp and the workdir
    // The engine's network: none (the egress proxy, when on, is the only way out) or bridge
    // (--egress bridge).
    QString network = QStringLiteral("none");
    QString user = QStringLiteral("65534:65534"); // nobody:nogroup
    QString workdir = QStringLiteral("/sandbox");
    qint64 outputCapBytes = 1024LL * 1024; // each of stdout and stderr
    // The files a program leaves in its output folder (workdir/out) that come back: how many,
    // and how many bytes in all.
    int outputFilesMax = 100;
    qint64 outputFilesBytes = 32LL * 1024 * 1024;
    // Run even when the engine ignores the memory, process or CPU limit (rootless Podman on
    // cgroup v1 does): the launcher otherwise refuses to run the program.
    bool allowUnenforcedLimits = false;
    // gVisor or this machine's kernel. Never quietly less than asked: a sandbox the engine cannot
    // start under gVisor fails with the reason.
    Isolation isolation = Isolation::Standard;
    // A language's image's own tier, where it needs another (--python-isolation,
    // --js-isolation): an image that only runs on this machine's kernel, or one whose code must
    // never reach it. Unset: `isolation`.
    std::optional<Isolation> pythonIsolation;
    std::optional<Isolation> jsIsolation;
    // Host folders the user shares with every sandbox, read-only unless marked writable.
    QList<SharedFolder> sharedFolders;

    // Why no sandbox can run under this policy, or empty. gVisor gives a sandbox no network of
    // its own: the bridge would quietly be none.
    QString conflict() const
    {
        if (network != QLatin1String("bridge"))
            return {};
        for (const auto& [language, flag] : {std::pair{Language::Python, "--python-isolation"},
                                             std::pair{Language::JavaScript, "--js-isolation"}}) {
            if (isolationFor(language) != Isolation::Gvisor)
                continue;
            // The flag that asks for it: the language's own, or --isolation.
            const bool own = ownIsolation(language).has_value();
            return QStringLiteral("%1 gvisor cannot be used with --egress bridge: gVisor gives a "
                                  "sandbox no network of its own. Use --egress open or allowlist "
                                  "(through the filtering proxy, which gVisor's sandboxes reach), "
                                  "or %1 standard.")
                .arg(QLatin1String(own ? flag : "--isolation"));
        }
        return {};
    }

    // `language`'s own tier (pythonIsolation or jsIsolation).
    std::optional<Isolation>& ownIsolation(Language language)
    {
        return language == Language::Python ? pythonIsolation : jsIsolation;
    }
    const std::optional<Isolation>& ownIsolation(Language language) const
    {
        return language == Language::Python ? pythonIsolation : jsIsolation;
    }
    // The tier of `language`'s sandboxes.
    Isolation isolationFor(Language language) const
    {
        return ownIsolation(language).value_or(isolation);
    }
    // Whether any sandbox runs under `tier`.
    bool uses(Isolation tier) const
    {
        return isolationFor(Language::Python) == tier || isolationFor(Language::JavaScript) == tier;
    }

    // Where a program leaves the files that come back (named in the tool description).
    QString outputDirectory() const { return workdir + QStringLiteral("/out"); }

    friend bool operator==(const SandboxPolicy&, const SandboxPolicy&) = default;
};

} // namespace csm
