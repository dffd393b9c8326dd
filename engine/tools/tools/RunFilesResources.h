#pragma once

#include "core/RunFilesStore.h"
#include "mcp/ResourceProvider.h"
#include "tools/RunFileOwners.h"

#include <memory>

namespace csm {

// Serves the files of runs (RunFilesStore) through resources/read, by the URIs results link to
// (RunFileUri). A URI names a run by its random key, and only the client that made the run may
// read it (`owners`): a link that reached another client opens nothing. Nothing outside the
// run's folder can be reached through one.
class RunFilesResources final : public ResourceProvider
{
public:
    // No file read through resources/read is larger (the output folder's own cap is smaller).
    static constexpr qint64 kMaxReadBytes = 64LL * 1024 * 1024;

    RunFilesResources(RunFilesStore store, std::shared_ptr<const RunFileOwners> owners);

    Expected<QJsonObject> read(const QString& uri, const CallContext& reader) const override;

private:
    RunFilesStore m_store;
    std::shared_ptr<const RunFileOwners> m_owners;
};

} // namespace csm
