#pragma once

#include <QtGlobal>

namespace csm::ServerSettingBounds {

// The ranges a server accepts for its settings: ServerSettingsSchema checks values against them,
// and the Settings page offers nothing beyond them (ServerSettingsForm).
constexpr qint64 KiB = 1024;
constexpr qint64 MiB = 1024 * KiB;
constexpr qint64 GiB = 1024 * MiB;

constexpr qint64 kMinMemory = 16 * MiB;
constexpr qint64 kMaxMemory = 1024 * GiB;
constexpr int kMinPids = 8; // the launcher and the interpreter need a few of their own
constexpr int kMaxPids = 1'000'000;
constexpr qint64 kMinTmpfs = 1 * MiB;
constexpr qint64 kMaxTmpfs = 64 * GiB;
constexpr qint64 kMinOutputCap = 1 * KiB;
constexpr qint64 kMaxOutputCap = 64 * MiB;
constexpr int kMaxTimeoutSeconds = 86'400;
constexpr int kMaxPool = 32;
constexpr int kMaxPoolIdleSeconds = 7 * 86'400;
constexpr int kMinInterpreterIdleSeconds = 10;
constexpr int kMaxInterpreterIdleSeconds = 7 * 86'400;
constexpr int kMaxInterpreters = 256;
constexpr int kMaxRunning = 1024;
constexpr qint64 kMinHistoryField = 1 * KiB;
constexpr qint64 kMaxHistoryField = 64 * MiB;

} // namespace csm::ServerSettingBounds
