#pragma once

#include <QElapsedTimer>
#include <QString>
#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace csm {

// The timings of the C++ benchmarks and the one table each prints (RESULTS.md quotes them).
struct Timing
{
    QString name;
    std::vector<double> samples; // ms
    QString note;
};

inline double percentile(std::vector<double> samples, double p)
{
    std::sort(samples.begin(), samples.end());
    const auto rank = static_cast<size_t>(std::max(1.0, std::ceil(p * double(samples.size()))));
    return samples.at(rank - 1);
}

inline double timeMs(const std::function<void()>& step)
{
    QElapsedTimer timer;
    timer.start();
    step();
    return double(timer.nsecsElapsed()) / 1e6;
}

// One line per timing: its name, how many samples, their median and maximum, and its note.
inline void printTimings(QTextStream& out, const std::vector<Timing>& timings)
{
    out << QStringLiteral("%1 %2 %3 %4   %5\n")
               .arg(QStringLiteral("step"), -52)
               .arg(QStringLiteral("n"), 4)
               .arg(QStringLiteral("p50 ms"), 8)
               .arg(QStringLiteral("max ms"), 8)
               .arg(QStringLiteral("notes"));
    for (const Timing& timing : timings) {
        out << QStringLiteral("%1 %2 %3 %4   %5\n")
                   .arg(timing.name, -52)
                   .arg(timing.samples.size(), 4)
                   .arg(percentile(timing.samples, 0.5), 8, 'f', 2)
                   .arg(*std::max_element(timing.samples.begin(), timing.samples.end()), 8, 'f', 2)
                   .arg(timing.note);
    }
    out.flush();
}

} // namespace csm
