#include "tools/InterpreterSessionRegistry.h"

#include "core/Logging.h"
#include "platform/MachineResources.h"
#include "sandbox/InterpreterSession.h"
#include "sandbox/SandboxRunner.h"

#include <QRegularExpression>

#include <algorithm>

namespace csm {

namespace {
// How often idle sessions are looked for: a quarter of the idle time, so that one ends at most
// a quarter late, and no more often than each second nor less than every 15 s.
int idleCheckMs(const InterpreterSessionRegistry::Limits& limits)
{
    return std::clamp(limits.idleSeconds * 250, 1000, 15'000);
}
} // namespace

InterpreterSessionRegistry::InterpreterSessionRegistry(SandboxRunner& runner, Limits limits,
                                                       QObject* parent)
    : QObject(parent)
    , m_runner(runner)
    , m_limits(limits)
{
    m_idleCheck.setInterval(idleCheckMs(m_limits));
    connect(&m_idleCheck, &QTimer::timeout, this, &InterpreterSessionRegistry::endIdle);
}

InterpreterSessionRegistry::~InterpreterSessionRegistry()
{
    endAll(QStringLiteral("the server stopped"));
}

bool InterpreterSessionRegistry::isValidName(const QString& name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
    return pattern.match(name).hasMatch();
}

QString InterpreterSessionRegistry::clientKey(const QString& transport, const QString& sessionId)
{
    return transport + QLatin1Char(':') + sessionId;
}

qsizetype InterpreterSessionRegistry::indexOf(const QString& client, const QString& name) const
{
    for (qsizetype i = 0; i < m_slots.size(); ++i) {
        if (m_slots.at(i).client == client && m_slots.at(i).name == name)
            return i;
    }
    return -1;
}

void InterpreterSessionRegistry::setLimits(const Limits& limits)
{
    m_limits = limits;
    m_idleCheck.setInterval(idleCheckMs(m_limits));
}

int InterpreterSessionRegistry::liveCount() const
{
    int live = 0;
    for (const Slot& slot : m_slots)
        live += slot.session ? 1 : 0;
    return live;
}

Expected<InterpreterSession*> InterpreterSessionRegistry::sessionFor(const CallContext& context,
                                                                     const QString& name,
                                                                     Language language,
                                                                     const QString& image)
{
    if (context.transport == QLatin1String("http") && context.sessionId.isEmpty()) {
        return Unexpected(QStringLiteral("Sessions need an MCP session (the Mcp-Session-Id "
                                         "header): without one, calls cannot be told apart."));
    }
    const QString client = clientKey(context.transport, context.sessionId);
    if (const qsizetype at = indexOf(client, name); at >= 0) {
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
        return slot.session.data();
    }
    if (m_limits.perServer <= 0) {
        return Unexpected(QStringLiteral("Sessions are turned off on this server "
                                         "(--max-interpreters 0): call without \"session\"."));
    }
    int ofClient = 0;
    for (const Slot& slot : std::as_const(m_slots))
        ofClient += slot.client == client && slot.session ? 1 : 0;
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
    InterpreterSession* session = m_runner.startSession(language, image, this);
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
    connect(session, &InterpreterSession::ended, this,
            [this, session](const QString& reason) { onSessionEnded(session, reason); });
    m_slots.append(
        Slot{client, context.transport, context.clientName, name, language, session, {}});
    Q_EMIT changed();
    m_idleCheck.start();
    qCInfo(lcSandbox).noquote() << "session" << name << "of" << client << "starts in"
                                << session->containerName();
    return session;
}

void InterpreterSessionRegistry::onSessionEnded(InterpreterSession* session, const QString& reason)
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

QString InterpreterSessionRegistry::overMemoryBudget() const
{
    // A session keeps its interpreter, and what its cells made, between cells: up to its memory
    // limit, whether a cell runs or not. One-shot sandboxes hold theirs while they run.
    const qint64 each = m_runner.policy().memoryBytes;
    const qint64 machine = MachineResources::physicalMemoryBytes();
    if (each <= 0 || machine <= 0)
        return {};
    const int live = liveCount();
    const int oneShots = m_runner.oneShotsRunning();
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

QList<InterpreterSessionRegistry::Entry>
InterpreterSessionRegistry::list(const CallContext& context) const
{
    const QString client = clientKey(context.transport, context.sessionId);
    QList<Entry> entries;
    for (const Entry& entry : listAll()) {
        if (entry.client == client)
            entries.append(entry);
    }
    return entries;
}

QList<InterpreterSessionRegistry::Entry> InterpreterSessionRegistry::listAll() const
{
    QList<Entry> entries;
    for (const Slot& slot : m_slots) {
        if (!slot.session)
            continue;
        const InterpreterSession& session = *slot.session;
        entries.append(Entry{slot.name, slot.language, session.ageMs(), session.idleMs(),
                             session.cellCount(),
                             session.state() == InterpreterSession::State::Busy,
                             session.memoryBytes(), slot.client, slot.transport, slot.clientName,
                             session.containerName(), session.startedAt(), session.lastActiveAt()});
    }
    return entries;
}

bool InterpreterSessionRegistry::endByKey(const QString& key, const QString& reason)
{
    for (qsizetype i = 0; i < m_slots.size(); ++i) {
        if (m_slots.at(i).session && m_slots.at(i).session->containerName() == key) {
            loseAt(i, reason);
            return true;
        }
    }
    return false;
}

bool InterpreterSessionRegistry::end(const CallContext& context, const QString& name)
{
    const qsizetype at = indexOf(clientKey(context.transport, context.sessionId), name);
    if (at < 0)
        return false;
    const bool live = m_slots.at(at).session;
    endAt(at, QStringLiteral("ended on request"));
    return live;
}

void InterpreterSessionRegistry::endAt(qsizetype index, const QString& reason)
{
    const QPointer<InterpreterSession> session = m_slots.takeAt(index).session;
    if (session) {
        session->disconnect(this);
        session->end(reason);
        session->deleteLater();
    }
    Q_EMIT changed();
}

void InterpreterSessionRegistry::loseAt(qsizetype index, const QString& reason)
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

void InterpreterSessionRegistry::endClient(const QString& clientKey, const QString& reason)
{
    for (qsizetype i = m_slots.size() - 1; i >= 0; --i) {
        if (m_slots.at(i).client == clientKey)
            endAt(i, reason);
    }
}

void InterpreterSessionRegistry::endAll(const QString& reason)
{
    while (!m_slots.isEmpty())
        endAt(m_slots.size() - 1, reason);
    m_idleCheck.stop();
}

void InterpreterSessionRegistry::endIdle()
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
