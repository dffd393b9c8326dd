#pragma once

#include "runtime/Language.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>
#include <vector>

namespace csm {

class SandboxRunner;
class WarmContainerChannel;

// Keeps, for each image in use, a few single-use containers started ahead of time with the
// interpreter waiting for its program. A call takes one (and a replacement starts at once) or,
// when none is ready, falls back to a cold start without waiting. Isolation is the same as
// without the pool: each container runs exactly one program and is then removed.
class WarmPool final : public QObject
{
    Q_OBJECT

public:
    // At most this many containers are being started at once, so that refills never crowd out
    // the runs that are going on.
    static constexpr int kMaxParallelStarts = 1;
    // While calls run, refills wait for them to end (starting a container takes the engine a few
    // hundred milliseconds of CPU, which a running call would feel), but no longer than this.
    static constexpr int kRefillDeferralMs = 1'000;
    // After a failed start, how long before trying that image again.
    static constexpr int kRetryAfterFailureMs = 30'000;

    WarmPool(SandboxRunner& runner, int sizePerImage, int idleTimeoutMs, QObject* parent = nullptr);
    ~WarmPool() override;

    // Keeps containers of `image` for `language` ready from now on.
    void warm(Language language, const QString& image);
    // A ready container (the caller owns it), or null when none is ready.
    WarmContainerChannel* take(Language language, const QString& image, QObject* newParent);
    // Replaces every container, ready or starting, with a new one (the secrets changed: what
    // waits was started with the old values).
    void renew();
    // Starts what is missing, unless calls are running or the runner holds for its secrets.
    void refill();
    // Stops refilling and removes every container, ready or starting (through the reaper).
    void shutdown();
    // Every run, pooled or cold, says when it starts and ends, so refills can keep out of its way.
    void callStarted();
    void callEnded();

    int readyCount() const;
    int startingCount() const;

Q_SIGNALS:
    // A container became ready (tests and benchmarks wait for a full pool).
    void readyCountChanged(int ready);

private:
    struct Slot
    {
        Language language;
        QString image;
        QList<WarmContainerChannel*> ready;
        QList<WarmContainerChannel*> starting;
        bool active = true;
        qint64 retryAfter = 0; // msecs since epoch
        std::unique_ptr<QTimer> idleTimer;
    };

    Slot* slotFor(Language language, const QString& image);
    void startOne(Slot& slot);
    void retire(Slot& slot);
    void discard(WarmContainerChannel* channel, bool removeContainer);

    SandboxRunner& m_runner;
    int m_size;
    int m_idleTimeoutMs;
    bool m_shutDown = false;
    int m_callsRunning = 0;
    QTimer m_refillDeferral;
    bool m_deferralExpired = false;
    // Holds each pooled container's folder; private (0700) so no other user reaches a socket.
    QTemporaryDir m_ioRoot;
    std::vector<std::unique_ptr<Slot>> m_slots;
};

} // namespace csm
