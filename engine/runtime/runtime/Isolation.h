#pragma once

#include "core/EnumNames.h"

namespace csm {

// The kernel a sandbox's program talks to (--isolation).
enum class Isolation
{
    // This machine's kernel, behind the seccomp profile and without capabilities: what Docker and
    // Podman give every container.
    Standard,
    // gVisor's user-space kernel (runsc) between the program and this machine's kernel, on top of
    // the standard tier's hardening.
    Gvisor,
};

// "standard", "gvisor": in options, settings and the history.
inline constexpr EnumNames kIsolations{std::array{
    std::pair{Isolation::Standard, "standard"},
    std::pair{Isolation::Gvisor, "gvisor"},
}};

} // namespace csm
