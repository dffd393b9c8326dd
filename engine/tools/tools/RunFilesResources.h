#pragma once

#include "core/RunFilesStore.h"
#include "mcp/ResourceProvider.h"

namespace csm {

// Serves the files of runs (RunFilesStore) through resources/read, by the URIs results link to
// (RunFileUri). A URI names a run by its random key: only a client that was given the link can
// name it, and nothing outside the run's folder can be reached through one.
class RunFilesResources final : public ResourceProvider
{
public:
    // No file read through resources/read is larger (the output folder's own cap is smaller).
    static constexpr qint64 kMaxReadBytes = 64LL * 1024 * 1024;

    explicit RunFilesResources(RunFilesStore store);

    Expected<QJsonObject> read(const QString& uri) const override;

private:
    RunFilesStore m_store;
};

} // namespace csm
