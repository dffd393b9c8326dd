#include "sandbox/WarmPool.h"

#include "core/Logging.h"
#include "sandbox/StartingContainerChoice.h"
#include "sandbox/WarmContainerChannel.h"
#include "sandbox/WarmContainerSource.h"

#include <QDateTime>
#include <QDir>
#include <QFile>

#include <algorithm>
#include <utility>

namespace csm {

WarmPool::WarmPool(WarmContainerSource& source, int sizePerImage, int idleTimeoutMs,
                   QObject* parent)
    : QObject(parent)
    , m_source(source)
    , m_size(sizePerImage)
    , m_idleTimeoutMs(idleTimeoutMs)
    , m_ioRoot(QDir::tempPath() + QStringLiteral("/code-sandbox-pool-XXXXXX"))
{
    if (!m_ioRoot.isValid())
        qCWarning(lcSandbox) << "no folder for the warm pool:" << m_ioRoot.errorString();
    m_refillDeferral.setSingleShot(true);
    connect(&m_refillDeferral, &QTimer::timeout, this, [this] {
        m_deferralExpired = true;
        refill();
        m_deferralExpired = false;
    });
    m_shrinkCheck.setInterval(kShrinkCheckMs);
    connect(&m_shrinkCheck, &QTimer::timeout, this, &WarmPool::shrinkQuietSlots);
}

void WarmPool::callStarted()
{
    ++m_callsRunning;
}

void WarmPool::callEnded()
{
    m_callsRunning = std::max(0, m_callsRunning - 1);
    // Queued: the call's result is written to the client first; starting the engine's process
    // takes a few milliseconds that the client would otherwise wait for.
    if (m_callsRunning == 0)
        QMetaObject::invokeMethod(this, &WarmPool::refill, Qt::QueuedConnection);
}

WarmPool::~WarmPool()
{
    shutdown();
}

WarmPool::Slot* WarmPool::slotFor(Language language, const QString& image, Kind kind)
{
    return const_cast<Slot*>(std::as_const(*this).slotFor(language, image, kind));
}

const WarmPool::Slot* WarmPool::slotFor(Language language, const QString& image, Kind kind) const
{
    for (const auto& slot : m_slots) {
        if (slot->kind == kind && slot->language == language && slot->image == image)
            return slot.get();
    }
    return nullptr;
}

int WarmPool::targetSize(Language language, const QString& image, Kind kind) const
{
    const Slot* slot = slotFor(language, image, kind);
    return slot && slot->active && !m_shutDown ? slot->demand.target() : 0;
}

void WarmPool::warm(Language language, const QString& image, Kind kind)
{
    if (m_size <= 0 || !m_ioRoot.isValid() || slotFor(language, image, kind))
        return;
    auto slot = std::make_unique<Slot>(kind == Kind::Session ? kSessionSizePerImage : m_size);
    slot->kind = kind;
    slot->language = language;
    slot->image = image;
    slot->idleTimer = std::make_unique<QTimer>();
    slot->idleTimer->setSingleShot(true);
    Slot* raw = slot.get();
    connect(slot->idleTimer.get(), &QTimer::timeout, this, [this, raw] {
        qCInfo(lcSandbox).noquote() << "warm pool: no call for" << m_idleTimeoutMs / 1000
                                    << "s, removing the waiting containers of" << raw->image;
        retire(*raw);
    });
    slot->idleTimer->start(m_idleTimeoutMs);
    m_slots.push_back(std::move(slot));
    refill();
}

WarmContainerChannel* WarmPool::take(Language language, const QString& image, QObject* newParent,
                                     Kind kind)
{
    Slot* slot = slotFor(language, image, kind);
    if (!slot || m_shutDown)
        return nullptr;
    slot->idleTimer->start(m_idleTimeoutMs);
    if (!slot->active) {
        slot->active = true; // used again after an idle spell: fill up for the next calls
        refill();
    }
    WarmContainerChannel* channel = nullptr;
    if (!slot->ready.isEmpty()) {
        channel = slot->ready.takeFirst();
    } else {
        // The pool ran dry: keep one more from now on.
        const int before = slot->demand.target();
        slot->demand.recordMiss(QDateTime::currentMSecsSinceEpoch(), m_source.maxRunning());
        if (slot->demand.target() > before) {
            qCInfo(lcSandbox).noquote()
                << "warm pool: a call found no container of" << slot->image << "ready; keeping"
                << slot->demand.target() << "from now on";
            m_shrinkCheck.start();
        }
        channel = takeSoonestStarting(*slot);
    }
    if (channel) {
        channel->disconnect(this);
        channel->setParent(newParent);
        Q_EMIT readyCountChanged(readyCount());
    }
    refill();
    return channel;
}

WarmContainerChannel* WarmPool::takeSoonestStarting(Slot& slot)
{
    QList<StartingContainerChoice::Candidate> candidates;
    for (const WarmContainerChannel* channel : std::as_const(slot.starting))
        candidates.append({channel->isUp(), channel->elapsedMs()});
    const auto index =
        StartingContainerChoice::pick(candidates, slot.upTime.value(), slot.coldStart.value());
    if (!index)
        return nullptr;
    WarmContainerChannel* channel = slot.starting.takeAt(*index);
    qCDebug(lcSandbox).noquote() << "warm pool: taking" << channel->containerName()
                                 << (channel->isUp() ? "(up, still importing)" : "(still starting)")
                                 << "rather than a cold start";
    return channel;
}

void WarmPool::noteColdStart(Language language, const QString& image, qint64 ms)
{
    if (Slot* slot = slotFor(language, image, Kind::OneShot))
        slot->coldStart.add(ms);
}

void WarmPool::shrinkQuietSlots()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    bool grown = false;
    for (const auto& slot : m_slots) {
        if (slot->demand.shrinkIfQuiet(now)) {
            qCInfo(lcSandbox).noquote()
                << "warm pool: no call missed a container of" << slot->image << "for"
                << PoolDemand::kQuietMs / 1000 << "s; keeping" << slot->demand.target();
            // The surplus goes: ready ones first, the newest (its memory is the least settled).
            while (slot->ready.size() + slot->starting.size() > slot->demand.target() &&
                   !slot->ready.isEmpty())
                discard(slot->ready.takeLast(), true);
            Q_EMIT readyCountChanged(readyCount());
        }
        grown = grown || slot->demand.target() > slot->demand.baseSize();
    }
    if (!grown)
        m_shrinkCheck.stop();
}

void WarmPool::refill()
{
    if (m_shutDown || !m_source.canStartContainers())
        return;
    const bool deferring = m_callsRunning > 0 && !m_deferralExpired;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (;;) {
        if (beingCreatedCount() >= kMaxParallelStarts)
            return;
        // A dry slot goes first, then the one that lacks the most containers.
        Slot* neediest = nullptr;
        std::pair<bool, qsizetype> highestNeed{false, 0};
        bool deferred = false;
        for (const auto& slot : m_slots) {
            const qsizetype gap =
                slot->demand.target() - slot->ready.size() - slot->starting.size();
            if (!slot->active || slot->retryAfter > now || gap <= 0)
                continue;
            const bool dry = slot->ready.isEmpty();
            if (deferring && !dry) {
                deferred = true;
                continue;
            }
            if (const std::pair need{dry, gap}; need > highestNeed) {
                neediest = slot.get();
                highestNeed = need;
            }
        }
        if (deferred && !m_refillDeferral.isActive())
            m_refillDeferral.start(kRefillDeferralMs);
        if (!neediest)
            return;
        startOne(*neediest);
    }
}

void WarmPool::startOne(Slot& slot)
{
    ContainerSpec spec = m_source.makeSpec(slot.language, slot.image);
    // It waits for its program anyway: its interpreter imports the usual modules meanwhile.
    if (slot.kind == Kind::Session) {
        spec.command = LanguageTraits::pooledSessionCommand(slot.language);
        spec.session = true;
        spec.interpreterSignalsReady = true; // a session's driver always says so
    } else {
        spec.command = LanguageTraits::pooledInterpreterCommand(slot.language);
        spec.interpreterSignalsReady = LanguageTraits::pooledInterpreterSignalsReady(slot.language);
    }
    spec.pooled = true;
    // A remote engine's containers cannot see a host folder: they stay attached instead.
    if (m_source.containersSeeThisMachine()) {
        spec.ioDirectory = m_ioRoot.filePath(spec.name);
        QDir().mkpath(spec.ioDirectory);
        // The launcher runs as the sandbox user, not as us: it must be able to create its
        // socket. The parent folder (0700) keeps everyone else out.
        QFile::setPermissions(
            spec.ioDirectory,
            QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
                QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther);
    }
    WarmContainerChannel* channel = m_source.newWarmChannel(std::move(spec), this);
    slot.starting.append(channel);
    Slot* slotPointer = &slot;
    connect(channel, &WarmContainerChannel::up, this, [this, slotPointer](qint64 afterMs) {
        slotPointer->upTime.add(afterMs);
        // The engine is done with it (its interpreter may still import): the next may start.
        refill();
    });
    connect(channel, &WarmContainerChannel::ready, this, [this, channel, slotPointer] {
        slotPointer->starting.removeOne(channel);
        slotPointer->ready.append(channel);
        qCDebug(lcSandbox).noquote() << "warm pool:" << channel->containerName() << "ready;"
                                     << readyCount() << "ready in all";
        Q_EMIT readyCountChanged(readyCount());
        refill();
    });
    connect(channel, &ContainerChannel::failedToStart, this,
            [this, channel, slotPointer](const QString& reason) {
                qCWarning(lcSandbox).noquote()
                    << "warm pool: could not start a container of" << slotPointer->image << "("
                    << reason << "); retrying in" << kRetryAfterFailureMs / 1000 << "s";
                slotPointer->starting.removeOne(channel);
                slotPointer->retryAfter =
                    QDateTime::currentMSecsSinceEpoch() + kRetryAfterFailureMs;
                QTimer::singleShot(kRetryAfterFailureMs + 10, this, &WarmPool::refill);
                discard(channel, true);
                refill();
            });
    connect(channel, &WarmContainerChannel::lostWhileIdle, this, [this, channel, slotPointer] {
        qCInfo(lcSandbox).noquote() << "warm pool: lost idle container" << channel->containerName();
        slotPointer->ready.removeOne(channel);
        slotPointer->starting.removeOne(channel);
        discard(channel, true);
        refill();
    });
    channel->start();
}

void WarmPool::renew()
{
    int replaced = 0;
    for (const auto& slot : m_slots) {
        const auto channels = slot->ready + slot->starting;
        slot->ready.clear();
        slot->starting.clear();
        replaced += int(channels.size());
        for (WarmContainerChannel* channel : channels)
            discard(channel, true);
    }
    if (replaced > 0) {
        qCInfo(lcSandbox) << "warm pool: the secrets changed; replacing" << replaced
                          << "waiting container(s)";
        Q_EMIT readyCountChanged(readyCount());
    }
    refill();
}

void WarmPool::retire(Slot& slot)
{
    slot.active = false;
    const auto channels = slot.ready + slot.starting;
    slot.ready.clear();
    slot.starting.clear();
    for (WarmContainerChannel* channel : channels)
        discard(channel, true);
    Q_EMIT readyCountChanged(readyCount());
}

void WarmPool::discard(WarmContainerChannel* channel, bool removeContainer)
{
    channel->disconnect(this);
    channel->handOver(m_source.reaper(), removeContainer);
    channel->deleteLater();
}

void WarmPool::shutdown()
{
    if (m_shutDown)
        return;
    m_shutDown = true;
    for (const auto& slot : m_slots) {
        slot->idleTimer->stop();
        retire(*slot);
    }
}

int WarmPool::readyCount() const
{
    int count = 0;
    for (const auto& slot : m_slots)
        count += int(slot->ready.size());
    return count;
}

int WarmPool::startingCount() const
{
    int count = 0;
    for (const auto& slot : m_slots)
        count += int(slot->starting.size());
    return count;
}

int WarmPool::beingCreatedCount() const
{
    int count = 0;
    for (const auto& slot : m_slots) {
        count += int(std::count_if(slot->starting.cbegin(), slot->starting.cend(),
                                   [](const WarmContainerChannel* c) { return !c->isUp(); }));
    }
    return count;
}

} // namespace csm
