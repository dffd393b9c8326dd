#pragma once

#include <QString>

namespace csm {

// What an engine said when asked whether an image is present.
struct ImageCheck
{
    enum class Status
    {
        Present,
        Missing,
        EngineUnavailable, // the engine could not answer: daemon down, no permission, broken store
    };

    Status status = Status::Present;
    // The engine's own words, for the error message.
    QString detail;
};

} // namespace csm
