#include "cli/SecretsCommand.h"

#include "cli/Subcommands.h"
#include "cli/TextTable.h"
#include "history/HistoryLocation.h"
#include "platform/SecretInput.h"
#include "secrets/FileSecretBackend.h"
#include "secrets/SecretStore.h"

#include <QCommandLineParser>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTextStream>

#include <algorithm>

namespace csm {

namespace {

const QString& secretsCommandName()
{
    static const QString name = QStringLiteral("code-sandbox-mcp secrets");
    return name;
}

QString defaultDataDir()
{
    return HistoryLocation::dataDir({}, {});
}

const Subcommands& secretsSubcommands()
{
    static const Subcommands commands(
        secretsCommandName(),
        QStringLiteral("Named secrets that Code Sandbox servers give to their sandboxes as "
                       "environment variables.\nValues are kept in the OS keychain (or, with "
                       "--secrets-file, in a private file); they are\nnever shown, logged or "
                       "taken from the command line."),
        {
            {QStringLiteral("set"),
             QStringLiteral("set NAME [--pass-through|--no-pass-through]"),
             QStringLiteral("store a value, read from stdin or typed at a hidden prompt"),
             {}},
            {QStringLiteral("list"),
             QStringLiteral("list [--json]"),
             QStringLiteral("names, pass-through flags and update times"),
             {}},
            {QStringLiteral("rm"),
             QStringLiteral("rm NAME"),
             QStringLiteral("delete a secret"),
             {}},
            {QStringLiteral("pass-through"),
             QStringLiteral("pass-through NAME on|off"),
             QStringLiteral("whether sandboxes get NAME as an environment variable"),
             {}},
        },
        QStringLiteral("Each command takes --data-dir DIR (default: $CODE_SANDBOX_DATA_DIR, "
                       "else\n%1), --secrets-file and --help.\n")
            .arg(QDir::toNativeSeparators(defaultDataDir())));
    return commands;
}

// `text` as one shell word, for commands the user may copy.
QString shellWord(const QString& text)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:@%+=-]+$"));
    if (plain.match(text).hasMatch())
        return text;
    QString quoted = text;
    quoted.replace(QStringLiteral("'"), QStringLiteral("'\\''"));
    return u'\'' + quoted + u'\'';
}

QString onOff(bool on)
{
    return on ? QStringLiteral("on") : QStringLiteral("off");
}

// "the keychain" or "the file /home/u/.local/share/code-sandbox/secrets-values.json".
QString describeBackend(const QString& kind, const QString& dataDir)
{
    if (kind == SecretBackend::kKeychainKind)
        return QStringLiteral("the keychain");
    return QStringLiteral("the file %1")
        .arg(QDir::toNativeSeparators(QDir(dataDir).filePath(FileSecretBackend::fileName())));
}

QString valuesNeverFromArguments()
{
    return QStringLiteral("values are never taken from the command line, where shell history and "
                          "'ps' would keep them: pipe the value in, or run the command in a "
                          "terminal and type it at the prompt");
}

void printTable(const QList<SecretInfo>& secrets, QTextStream& out)
{
    QList<QStringList> rows{
        {QStringLiteral("NAME"), QStringLiteral("PASS-THROUGH"), QStringLiteral("UPDATED")}};
    for (const SecretInfo& secret : secrets) {
        rows.append({secret.name, onOff(secret.passThrough),
                     secret.updatedAt.isValid() ? secret.updatedAt.toLocalTime().toString(
                                                      QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                                                : QStringLiteral("-")});
    }
    TextTable::print(rows, out);
}

QJsonObject toJson(const SecretInfo& secret)
{
    return {
        {QStringLiteral("name"), secret.name},
        {QStringLiteral("pass_through"), secret.passThrough},
        {QStringLiteral("updated_at"),
         secret.updatedAt.isValid() ? QJsonValue(secret.updatedAt.toUTC().toString(Qt::ISODate))
                                    : QJsonValue(QJsonValue::Null)},
    };
}

} // namespace

// What `set` is about to do, once the command line and the index are read.
struct SecretsCommand::SetRequest
{
    QString name;
    bool passThrough = false;
    bool replacing = false;
    bool explainBackend = false;
    QString locationOptions;
};

// What the command line asked for, once parsed.
struct SecretsCommand::Invocation
{
    QString dataDir;
    bool dataDirGiven = false; // on the command line: repeated in the hints
    SecretStore::BackendChoice backend = SecretStore::BackendChoice::Auto;
    QStringList positional;
    bool json = false;
    std::optional<bool> passThrough; // set: --pass-through or --no-pass-through

    // The options a follow-up command needs to find the same secrets.
    QString locationOptions() const
    {
        return dataDirGiven
                   ? QStringLiteral(" --data-dir ") + shellWord(QDir::toNativeSeparators(dataDir))
                   : QString();
    }
};

SecretsCommand::SecretsCommand(QStringList arguments, const QProcessEnvironment& environment,
                               QTextStream& out, QTextStream& err, SecretInput& input,
                               QObject* parent)
    : Command(secretsSubcommands(), {}, std::move(arguments), environment, out, err, parent)
    , m_dataDir(QStringLiteral("data-dir"),
                QStringLiteral("Folder of the secrets (secrets.json) and the run history, shared "
                               "with other Code Sandbox processes. Default: "
                               "$CODE_SANDBOX_DATA_DIR, else %1.")
                    .arg(QDir::toNativeSeparators(defaultDataDir())),
                QStringLiteral("dir"))
    , m_secretsFile(QStringLiteral("secrets-file"),
                    QStringLiteral("Keep the values in a private file (%1 in the data folder, "
                                   "mode 0600) instead of the OS keychain.")
                        .arg(FileSecretBackend::fileName()))
    , m_passThroughOn(
          QStringLiteral("pass-through"),
          QStringLiteral("Give the secret to every sandbox as the environment variable NAME."))
    , m_passThroughOff(QStringLiteral("no-pass-through"),
                       QStringLiteral("Keep it from the sandboxes (the default for a new secret)."))
    , m_input(input)
{}

SecretsCommand::~SecretsCommand() = default;

Command::Syntax SecretsCommand::syntax() const
{
    const QList<QCommandLineOption> location{m_dataDir, m_secretsFile};
    if (word() == QLatin1String("set")) {
        return {QStringLiteral("set NAME [--pass-through|--no-pass-through]"),
                QStringLiteral("Stores a secret's value, created or replaced. The value is all of "
                               "standard input\nless one final line ending or, on a terminal, "
                               "typed twice at a hidden prompt.\nA new secret is not passed "
                               "through unless asked; a replaced one keeps its setting."),
                location + QList<QCommandLineOption>{m_passThroughOn, m_passThroughOff},
                // More than NAME may be the value: argumentsProblem() refuses it without
                // repeating it.
                std::nullopt};
    }
    if (word() == QLatin1String("list")) {
        return {QStringLiteral("list [--json]"),
                QStringLiteral("The secrets' names, pass-through settings and update "
                               "times,\nand where their values are kept. Never a value."),
                location + QList<QCommandLineOption>{jsonOption()}, 0};
    }
    if (word() == QLatin1String("rm")) {
        return {QStringLiteral("rm NAME"),
                QStringLiteral("Deletes a secret: its value and its name."), location, 1};
    }
    return {QStringLiteral("pass-through NAME on|off"),
            QStringLiteral("Whether servers started from now on give NAME to every "
                           "sandbox\nas an environment variable."),
            location, 2};
}

void SecretsCommand::run()
{
    const std::optional<Invocation> invocation = readInvocation();
    if (!invocation)
        return;
    m_store = std::make_unique<SecretStore>(invocation->dataDir, invocation->backend);
    if (word() == QLatin1String("set"))
        set(*invocation);
    else if (word() == QLatin1String("list"))
        list(*invocation);
    else if (word() == QLatin1String("rm"))
        remove(*invocation);
    else
        passThrough(*invocation);
}

std::optional<SecretsCommand::Invocation> SecretsCommand::readInvocation()
{
    const bool set = word() == QLatin1String("set");
    Invocation invocation;
    invocation.dataDirGiven = !parser().value(m_dataDir).trimmed().isEmpty();
    invocation.dataDir = HistoryLocation::dataDir(parser().value(m_dataDir), environment());
    invocation.backend = parser().isSet(m_secretsFile) ? SecretStore::BackendChoice::File
                                                       : SecretStore::BackendChoice::Auto;
    invocation.positional = positional();
    invocation.json = word() == QLatin1String("list") && parser().isSet(jsonOption());
    const bool on = set && parser().isSet(m_passThroughOn);
    const bool off = set && parser().isSet(m_passThroughOff);
    if (on && off) {
        usageError(QStringLiteral("--pass-through and --no-pass-through exclude each other"));
        return std::nullopt;
    }
    if (on || off)
        invocation.passThrough = on;
    if (const QString problem = argumentsProblem(); !problem.isEmpty()) {
        usageError(problem);
        return std::nullopt;
    }
    return invocation;
}

QString SecretsCommand::argumentsProblem() const
{
    if (word() == QLatin1String("list"))
        return {};
    if (positional().isEmpty())
        return QStringLiteral("which secret? Give its NAME");
    if (word() == QLatin1String("set")) {
        // `set NAME VALUE` or `set NAME=VALUE`: refused without repeating what may be the value.
        if (positional().size() > 1 || positional().constFirst().contains(u'='))
            return valuesNeverFromArguments();
        return SecretInfo::nameError(positional().constFirst());
    }
    if (word() == QLatin1String("pass-through") && positional().size() == 1)
        return QStringLiteral("on or off?");
    return {};
}

void SecretsCommand::set(const Invocation& invocation)
{
    SetRequest request;
    request.name = invocation.positional.constFirst();
    const Expected<QList<SecretInfo>> listed = m_store->list();
    if (!listed) {
        fail(listed.error());
        return;
    }
    const QList<SecretInfo>& secrets = *listed;
    const auto existing =
        std::find_if(secrets.begin(), secrets.end(),
                     [&request](const SecretInfo& info) { return info.name == request.name; });
    request.replacing = existing != secrets.end();
    request.passThrough =
        invocation.passThrough.value_or(request.replacing && existing->passThrough);
    // The first secret binds the store to a backend: say why it is the file when not asked for.
    request.explainBackend =
        secrets.isEmpty() && invocation.backend == SecretStore::BackendChoice::Auto;
    request.locationOptions = invocation.locationOptions();
    // Opened first, so that nobody types a value for a store that cannot take it.
    m_store->open([this, request](const QString& opened) {
        if (!opened.isEmpty()) {
            fail(opened);
            return;
        }
        const Expected<QByteArray> value = readValue(request.name);
        if (!value) {
            fail(value.error());
            return;
        }
        m_store->set(request.name, *value, request.passThrough,
                     [this, request](const QString& stored) {
                         if (stored.isEmpty())
                             reportStored(request);
                         else
                             fail(stored);
                     });
    });
}

void SecretsCommand::reportStored(const SetRequest& request)
{
    const QString kind = m_store->backendKind();
    out() << (request.replacing ? "Replaced " : "Stored ") << request.name << " in "
          << describeBackend(kind, m_store->dataDir())
          << " (pass-through: " << onOff(request.passThrough) << ").\n";
    if (request.explainBackend && kind != SecretBackend::kKeychainKind)
        err() << "Not in the keychain: " << m_store->backendReason() << ".\n";
    if (!request.replacing && !request.passThrough) {
        err() << "Sandboxes do not see " << request.name
              << " yet. To give it to every sandbox as an environment variable, run:\n  "
              << secretsCommandName() << " pass-through " << request.name << " on"
              << request.locationOptions << '\n';
    }
    finish(Ok);
}

void SecretsCommand::list(const Invocation& invocation)
{
    const Expected<QList<SecretInfo>> listed = m_store->list();
    if (!listed) {
        fail(listed.error());
        return;
    }
    const QList<SecretInfo> secrets = *listed;
    // Opened only to say where the values are (or where new ones would go).
    const bool json = invocation.json;
    m_store->open([this, secrets, json](const QString& opened) {
        const QString kind = m_store->backendKind();
        if (json) {
            QJsonArray array;
            for (const SecretInfo& secret : secrets)
                array.append(toJson(secret));
            QJsonObject root{
                {QStringLiteral("secrets"), array},
                {QStringLiteral("backend"),
                 kind.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(kind)},
                {QStringLiteral("backend_reason"), m_store->backendReason()},
            };
            if (!opened.isEmpty())
                root.insert(QStringLiteral("backend_error"), opened);
            out() << QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
        } else {
            if (secrets.isEmpty())
                out() << "No secrets stored.\n";
            else
                printTable(secrets, out());
            if (opened.isEmpty()) {
                out() << '\n'
                      << (secrets.isEmpty() ? "New values would be kept in "
                                            : "Values are kept in ")
                      << (kind == SecretBackend::kKeychainKind ? "the keychain" : "a private file")
                      << " (" << m_store->backendReason() << ").\n";
            }
        }
        if (!opened.isEmpty()) {
            fail(QStringLiteral("cannot open where the values are kept: %1").arg(opened));
            return;
        }
        finish(Ok);
    });
}

void SecretsCommand::remove(const Invocation& invocation)
{
    const QString name = invocation.positional.constFirst();
    const Expected<std::optional<SecretInfo>> existing = find(name);
    if (!existing || !*existing) {
        fail(existing ? QStringLiteral("there is no secret named %1").arg(name) : existing.error());
        return;
    }
    m_store->open([this, name](const QString& opened) {
        if (!opened.isEmpty()) {
            fail(opened);
            return;
        }
        m_store->remove(name, [this, name](const QString& removed) {
            if (!removed.isEmpty()) {
                fail(removed);
                return;
            }
            out() << "Removed " << name << ".\n";
            finish(Ok);
        });
    });
}

void SecretsCommand::passThrough(const Invocation& invocation)
{
    const QString name = invocation.positional.at(0);
    const QString setting = invocation.positional.at(1).toLower();
    if (setting != QLatin1String("on") && setting != QLatin1String("off")) {
        usageError(QStringLiteral("pass-through must be on or off, not \"%1\"")
                       .arg(invocation.positional.at(1)));
        return;
    }
    const bool on = setting == QLatin1String("on");
    // Only the index changes: no need to reach the keychain.
    m_store->setPassThrough(name, on, [this, name, on](const QString& error) {
        if (!error.isEmpty()) {
            fail(error);
            return;
        }
        out() << "Pass-through of " << name << " is " << onOff(on) << ": servers started from "
              << "now on "
              << (on ? "give it to every sandbox as an environment variable.\n"
                     : "keep it from their sandboxes.\n");
        finish(Ok);
    });
}

Expected<QByteArray> SecretsCommand::readValue(const QString& name)
{
    // What was written so far must come before the prompt.
    out().flush();
    err().flush();
    if (m_input.isInteractive()) {
        const Expected<QByteArray> first =
            m_input.readHidden(QStringLiteral("Value for %1: ").arg(name));
        if (!first)
            return first;
        if (first->isEmpty())
            return Unexpected(QStringLiteral("the value is empty: nothing was stored"));
        const Expected<QByteArray> second =
            m_input.readHidden(QStringLiteral("Value for %1 again, to confirm: ").arg(name));
        if (!second)
            return second;
        if (*first != *second)
            return Unexpected(QStringLiteral("the two values differ: nothing was stored"));
        return first;
    }
    Expected<QByteArray> value = m_input.readAll();
    if (!value)
        return value;
    // `echo VALUE |` and files end with one line ending that is not part of the value.
    if (value->endsWith("\r\n"))
        value->chop(2);
    else if (value->endsWith('\n'))
        value->chop(1);
    if (value->isEmpty())
        return Unexpected(QStringLiteral("no value on standard input: pipe it in, or run the "
                                         "command in a terminal to type it at a prompt"));
    return value;
}

Expected<std::optional<SecretInfo>> SecretsCommand::find(const QString& name) const
{
    const Expected<QList<SecretInfo>> secrets = m_store->list();
    if (!secrets)
        return Unexpected(secrets.error());
    const auto found = std::find_if(secrets->begin(), secrets->end(),
                                    [&name](const SecretInfo& info) { return info.name == name; });
    if (found == secrets->end())
        return std::optional<SecretInfo>();
    return std::optional<SecretInfo>(*found);
}

} // namespace csm
