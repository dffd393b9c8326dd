#pragma once

#include <QtGlobal>

#include <optional>

namespace csm {

// A moving average of how long something took to start (a pooled container to come up, a cold
// one to start its program), weighted to the recent: engines slow down and speed up with the
// machine's load.
class StartTimeEstimate final
{
public:
    void add(qint64 ms);
    // Nothing until a first sample.
    std::optional<qint64> value() const;

private:
    double m_average = 0;
    bool m_hasSample = false;
};

} // namespace csm
