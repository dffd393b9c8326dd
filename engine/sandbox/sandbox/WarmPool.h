#pragma once

#include "runtime/Language.h"
#include "sandbox/PoolDemand.h"
#include "sandbox/StartTimeEstimate.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>
#include <vector>

namespace csm {

class WarmContainerChannel;
class WarmContainerSource;

// Keeps, for each image in use, a few single-use containers started ahead of time with the
// interpreter waiting for its program. A call takes a ready one (and a replacement starts at
// once); when none is ready, it takes whichever will be ready first: a container still starting,
// or a cold start of its own (StartingContainerChoice, from measured start times). A pool that
// runs dry grows, and gives the extra containers back when calls quieten (PoolDemand). Isolation
// is the same as without the pool: each container runs exactly one program and is then removed.
//
// Once an image's first session was asked for, the pool also keeps a session's container of it
// waiting (its driver started, Python's with the usual modules imported): the next new session
// takes it, as a call takes a one-shot container, and keeps it to itself until it ends.
class WarmPool final : public QObject
{
    Q_OBJECT

public:
    // What a container waits to be: one call's (the launcher runs one program), or a session's
    // (its driver runs the cells of one session).
    enum class Kind
    {
        OneShot,
        Session,
    };
    // How many session containers of an image wait, at rest.
    static constexpr int kSessionSizePerImage = 1;

    // At most this many containers are being created by the engine at once, so that refills
    // never crowd out the runs that are going on. Two were measured (bench/RESULTS.md, issue
    // 33, 2 cores): back to back, print(1) fell from 8.1 to 4.8 calls/s on Podman and from 6.5
    // to 3.4 on Docker, the starts taking the CPU the calls need; at 1 and 2 calls a second one
    // keeps every call warm on both.
    static constexpr int kMaxParallelStarts = 1;
    // While calls run, refills of an image that still has a ready container wait for them to
    // end (starting a container takes the engine a few hundred milliseconds of CPU, which a
    // running call would feel), but no longer than this. An image with none ready refills at
    // once: its next call would otherwise start cold.
    static constexpr int kRefillDeferralMs = 1'000;
    // How often a grown pool checks whether it may shrink.
    static constexpr int kShrinkCheckMs = 5'000;
    // After a failed start, how long before trying that image again.
    static constexpr int kRetryAfterFailureMs = 30'000;

    WarmPool(WarmContainerSource& source, int sizePerImage, int idleTimeoutMs,
             QObject* parent = nullptr);
    ~WarmPool() override;

    // Keeps containers of `image` for `language` ready from now on.
    void warm(Language language, const QString& image, Kind kind = Kind::OneShot);
    // A ready container, or one still starting that will be ready before a cold start would (the
    // caller owns it and may send its request at once), or null: start cold.
    WarmContainerChannel* take(Language language, const QString& image, QObject* newParent,
                               Kind kind = Kind::OneShot);
    // How long a cold start of `image` took until its program started: what take() weighs a
    // starting container against.
    void noteColdStart(Language language, const QString& image, qint64 ms);
    // Replaces every container, ready or starting, with a new one (the secrets changed: what
    // waits was started with the old values).
    void renew();
    // Starts what is missing, unless calls are running or no container may start now.
    void refill();
    // Stops refilling and removes every container, ready or starting (through the reaper).
    void shutdown();
    // Every run, pooled or cold, says when it starts and ends, so refills can keep out of its way.
    void callStarted();
    void callEnded();

    int readyCount() const;
    int startingCount() const;
    // How many containers of `image` the pool aims to keep now (0 when it keeps none).
    int targetSize(Language language, const QString& image, Kind kind = Kind::OneShot) const;

Q_SIGNALS:
    // A container became ready (tests and benchmarks wait for a full pool).
    void readyCountChanged(int ready);

private:
    struct Slot
    {
        explicit Slot(int size)
            : demand(size)
        {}
        Kind kind = Kind::OneShot;
        Language language;
        QString image;
        QList<WarmContainerChannel*> ready;
        QList<WarmContainerChannel*> starting;
        bool active = true;
        qint64 retryAfter = 0; // msecs since epoch
        std::unique_ptr<QTimer> idleTimer;
        PoolDemand demand;
        StartTimeEstimate upTime;    // a pooled container, from its start until it is up
        StartTimeEstimate coldStart; // a cold start, until its program started
    };

    Slot* slotFor(Language language, const QString& image, Kind kind);
    const Slot* slotFor(Language language, const QString& image, Kind kind) const;
    WarmContainerChannel* takeSoonestStarting(Slot& slot);
    void shrinkQuietSlots();
    // Starting containers the engine has not brought up yet.
    int beingCreatedCount() const;
    void startOne(Slot& slot);
    void retire(Slot& slot);
    void discard(WarmContainerChannel* channel, bool removeContainer);

    WarmContainerSource& m_source;
    int m_size;
    int m_idleTimeoutMs;
    bool m_shutDown = false;
    int m_callsRunning = 0;
    QTimer m_refillDeferral;
    QTimer m_shrinkCheck;
    bool m_deferralExpired = false;
    // Holds each pooled container's folder; private (0700) so no other user reaches a socket.
    QTemporaryDir m_ioRoot;
    std::vector<std::unique_ptr<Slot>> m_slots;
};

} // namespace csm
