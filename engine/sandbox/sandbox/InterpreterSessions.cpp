#include "sandbox/InterpreterSessions.h"

#include "core/Logging.h"
#include "platform/MachineResources.h"
#include "sandbox/InterpreterSession.h"
#include "sandbox/InterpreterSessionSource.h"

#include <QRegularExpression>

#include <algorithm>

namespace csm {

namespace {
// How often idle sessions are looked for: a quarter of the idle time, so that one ends at most
// a quarter late, and no more often than each second nor less than every 15 s.
int idleCheckMs(const InterpreterSessions::Limits& limits)
{
    return std::clamp(limits.idleSeconds * 250, 1000, 15'000);
}
} // namespace

InterpreterSessions::InterpreterSessions(InterpreterSessionSource& source, QObject* parent)
    : QObject(parent)
    , m_source(source)
{
    m_idleCheck.setInterval(idleCheckMs(m_limits));
    connect(&m_idleCheck, &QTimer::timeout, this, &InterpreterSessions::endIdle);
}

InterpreterSessions::~InterpreterSessions()
{
    endAll(QStringLiteral("the server stopped"));
}

bool InterpreterSessions::isValidName(const QString& name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
    return pattern.match(name).hasMatch();
}

qsizetype InterpreterSessions::indexOf(const QString& ownerKey, const QString& name) const
{
    for (qsizetype i = 0; i < m_slots.size(); ++i) {
        if (m_slots.at(i).owner.key == ownerKey && m_slots.at(i).name == name)
            return i;
    }
    return -1;
}

InterpreterSession* InterpreterSessions::find(const QString& ownerKey, const QString& name) const
{
    const qsizetype at = indexOf(ownerKey, name);
    return at >= 0 ? m_slots.at(at).session.data() : nullptr;
}

void InterpreterSessions::setLimits(const Limits& limits)
{
    m_limits = limits;
    m_idleCheck.setInterval(idleCheckMs(m_limits));
}

int InterpreterSessions::liveCount() const
{
    int live = 0;
    for (const Slot& slot : m_slots)
        live += slot.session ? 1 : 0;
    return live;
}

Expected<QString> InterpreterSessions::prepare(const InterpreterOwner& owner, const QString& name,
                                               Language language, const QString& image)
{
    if (const qsizetype at = indexOf(owner.key, name); at >= 0) {
        const Slot slot = m_slots.at(at);
        if (!slot.session) {
            m_slots.removeAt(at);
            return Unexpected(QStringLiteral("The session \"%1\" ended (%2), and its state is "
                                             "gone: variables, imports and files. Call again to "
                                             "start a new session with this name.")
                                  .arg(name, slot.lostReason));
        }
        if (slot.language != language) {
            return Unexpected(QStringLiteral("The session \"%1\" is a %2 session; use another "
                                             "name for %3.")
                                  .arg(name, LanguageTraits::displayName(slot.language),
                                       LanguageTraits::displayName(language)));
        }
        return slot.session->containerName();
    }
    if (m_limits.perServer <= 0) {
        return Unexpected(QStringLiteral("Sessions are turned off on this server "
                                         "(--max-interpreters 0): call without \"session\"."));
    }
    int ofClient = 0;
    for (const Slot& slot : std::as_const(m_slots))
        ofClient += slot.owner.key == owner.key && slot.session ? 1 : 0;
    if (ofClient >= m_limits.perClient) {
        return Unexpected(QStringLiteral("This client already has %1 live sessions, the most it "
                                         "may keep: end one with end_session, or reuse one.")
                              .arg(ofClient));
    }
    if (liveCount() >= m_limits.perServer) {
        return Unexpected(QStringLiteral("This server already keeps %1 live sessions, the most "
                                         "it keeps for all its clients: try again later, or "
                                         "without a session.")
                              .arg(liveCount()));
    }
    if (const QString over = overMemoryBudget(); !over.isEmpty())
        return Unexpected(over);
    InterpreterSession* session = m_source.startSession(language, image, this);
    if (!session) {
        return Unexpected(QStringLiteral("Sessions are not available for %1 yet: call without "
                                         "\"session\".")
                              .arg(LanguageTraits::displayName(language)));
    }
    // Refused before its container started (a shared folder that changed): it never lived, and
    // takes no place among the live ones.
    if (session->state() == InterpreterSession::State::Ended) {
        const QString reason = session->endReason();
        session->deleteLater();
        return Unexpected(reason);
    }
    connect(session, &InterpreterSession::closed, this,
            [this, session](const QString& reason) { onSessionEnded(session, reason); });
    m_slots.append(Slot{owner, name, language, session, {}});
    Q_EMIT changed();
    m_idleCheck.start();
    qCInfo(lcSandbox).noquote() << "session" << name << "of" << owner.key << "starts in"
                                << session->containerName();
    return session->containerName();
}

void InterpreterSessions::onSessionEnded(InterpreterSession* session, const QString& reason)
{
    for (qsizetype i = m_slots.size() - 1; i >= 0; --i) {
        Slot& slot = m_slots[i];
        if (slot.session != session)
            continue;
        if (session->endedWithCell()) {
            m_slots.removeAt(i); // the cell's result said so: the next call starts a new one
        } else {
            // Died between cells (killed from outside, the engine): the next call hears of it.
            slot.session = nullptr;
            slot.lostReason = reason;
        }
    }
    session->deleteLater();
    Q_EMIT changed();
}

QString InterpreterSessions::overMemoryBudget() const
{
    // A session keeps its interpreter, and what its cells made, between cells: up to its memory
    // limit, whether a cell runs or not. One-shot sandboxes hold theirs while they run.
    const qint64 each = m_source.sandboxMemoryBytes();
    const qint64 machine = MachineResources::physicalMemoryBytes();
    if (each <= 0 || machine <= 0)
        return {};
    const int live = liveCount();
    const int oneShots = m_source.oneShotsRunning();
    if (qint64(live + oneShots + 1) * each <= machine)
        return {};
    const auto mebibytes = [](qint64 bytes) {
        return QString::number(bytes / (1024 * 1024));
    };
    return QStringLiteral("A new session would not fit in this machine's memory: %1 live "
                          "session(s) and %2 running sandbox(es) may each use up to %3 MiB "
                          "(--memory), and the machine has %4 MiB. End a session you no longer "
                          "need (end_session), or call without \"session\".")
        .arg(live)
        .arg(oneShots)
        .arg(mebibytes(each), mebibytes(machine));
}

QList<InterpreterSessions::Entry> InterpreterSessions::list(const QString& ownerKey) const
{
    QList<Entry> entries;
    for (const Entry& entry : listAll()) {
        if (entry.owner == ownerKey)
            entries.append(entry);
    }
    return entries;
}

QList<InterpreterSessions::Entry> InterpreterSessions::listAll() const
{
    QList<Entry> entries;
    for (const Slot& slot : m_slots) {
        if (!slot.session)
            continue;
        const InterpreterSession& session = *slot.session;
        entries.append(Entry{slot.name, slot.language, session.ageMs(), session.idleMs(),
                             session.cellCount(), session.hasCell(), session.memoryBytes(),
                             slot.owner.key, slot.owner.transport, slot.owner.clientName,
                             session.containerName(), session.startedAt(), session.lastActiveAt()});
    }
    return entries;
}

bool InterpreterSessions::endByKey(const QString& key, const QString& reason)
{
    for (qsizetype i = 0; i < m_slots.size(); ++i) {
        if (m_slots.at(i).session && m_slots.at(i).session->containerName() == key) {
            loseAt(i, reason);
            return true;
        }
    }
    return false;
}

bool InterpreterSessions::end(const QString& ownerKey, const QString& name)
{
    const qsizetype at = indexOf(ownerKey, name);
    if (at < 0)
        return false;
    const bool live = m_slots.at(at).session;
    endAt(at, QStringLiteral("ended on request"));
    return live;
}

void InterpreterSessions::endAt(qsizetype index, const QString& reason)
{
    const QPointer<InterpreterSession> session = m_slots.takeAt(index).session;
    if (session) {
        session->disconnect(this);
        session->end(reason);
        session->deleteLater();
    }
    Q_EMIT changed();
}

void InterpreterSessions::loseAt(qsizetype index, const QString& reason)
{
    Slot& slot = m_slots[index];
    const QPointer<InterpreterSession> session = slot.session;
    slot.session = nullptr;
    slot.lostReason = reason;
    if (session) {
        session->disconnect(this);
        session->end(reason);
        session->deleteLater();
    }
    Q_EMIT changed();
}

void InterpreterSessions::endOwner(const QString& ownerKey, const QString& reason)
{
    for (qsizetype i = m_slots.size() - 1; i >= 0; --i) {
        if (m_slots.at(i).owner.key == ownerKey)
            endAt(i, reason);
    }
}

void InterpreterSessions::loseAll(const QString& reason)
{
    for (qsizetype i = m_slots.size() - 1; i >= 0; --i) {
        if (m_slots.at(i).session)
            loseAt(i, reason);
    }
}

void InterpreterSessions::endAll(const QString& reason)
{
    while (!m_slots.isEmpty())
        endAt(m_slots.size() - 1, reason);
    m_idleCheck.stop();
}

void InterpreterSessions::endIdle()
{
    const qint64 limitMs = qint64(m_limits.idleSeconds) * 1000;
    for (qsizetype i = m_slots.size() - 1; i >= 0; --i) {
        const Slot& slot = m_slots.at(i);
        if (slot.session && slot.session->state() == InterpreterSession::State::Idle &&
            slot.session->idleMs() >= limitMs) {
            loseAt(i, QStringLiteral("idle for %1 s").arg(m_limits.idleSeconds));
        }
    }
    if (liveCount() == 0)
        m_idleCheck.stop();
}

} // namespace csm
